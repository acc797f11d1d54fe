#!/usr/bin/env python3
"""The PyPI interface libraries as an ops author uses them:
certificate_transfer v1 both sides, tracing v2's provider, the database
provider of dpcharmlibs-interfaces, tls-certificates v1 both sides."""

from datetime import timedelta

import ops
from charmlibs.interfaces.certificate_transfer import (
    CertificatesAvailableEvent,
    CertificatesRemovedEvent,
    CertificateTransferProvides,
    CertificateTransferRequires,
)
from charmlibs.interfaces.tls_certificates import (
    Certificate,
    CertificateAvailableEvent,
    CertificateDeniedEvent,
    CertificateRequestAttributes,
    Mode,
    PrivateKey,
    ProviderCertificate,
    TLSCertificatesProvidesV4,
    TLSCertificatesRequiresV4,
)
from charmlibs.interfaces.tracing import RequestEvent, TracingEndpointProvider
from dpcharmlibs.interfaces import (
    RequirerCommonModel,
    ResourceCreatedEvent,
    ResourceProviderEventHandler,
    ResourceProviderModel,
    ResourceRequestedEvent,
    ResourceRequirerEventHandler,
)

OURS = {
    "-----BEGIN CERTIFICATE-----\nops-1\n-----END CERTIFICATE-----",
    "-----BEGIN CERTIFICATE-----\nops-2\n-----END CERTIFICATE-----",
    "-----BEGIN CERTIFICATE-----\nops-3\n-----END CERTIFICATE-----",
}


class Contracts(ops.CharmBase):
    _stored = ops.StoredState()

    def __init__(self, framework: ops.Framework):
        super().__init__(framework)
        self.sender = CertificateTransferProvides(self, "send-ca")
        self.receiver = CertificateTransferRequires(self, "receive-ca")
        framework.observe(self.on["send-ca"].relation_joined, self._send)
        framework.observe(self.on["send-ca"].relation_changed, self._send)
        framework.observe(self.receiver.on.certificate_set_updated, self._received)
        framework.observe(self.receiver.on.certificates_removed, self._removed)
        framework.observe(self.on.install, self._removed)
        self.tracing = TracingEndpointProvider(self, relation_name="tracing")
        framework.observe(self.tracing.on.request, self._publish)
        self.database = ResourceProviderEventHandler(self, "database", RequirerCommonModel)
        framework.observe(self.database.on.resource_requested, self._database)
        framework.observe(self.on.config_changed, self._moved)
        self._stored.set_default(ca_key="", ca="")
        self.issuer = TLSCertificatesProvidesV4(self, "certificates")
        framework.observe(self.on["certificates"].relation_changed, self._sign)
        self.tls = TLSCertificatesRequiresV4(
            self,
            "tls-client",
            certificate_requests=[
                CertificateRequestAttributes(
                    common_name=f"{self.app.name}.local",
                    sans_dns=frozenset({f"{self.app.name}.local"}),
                    is_ca=bool(self.config.get("tls-as-ca", False)),
                )
            ],
            mode=Mode.UNIT,
            key_algorithm=str(self.config.get("tls-key", "rsa")),
        )
        framework.observe(self.tls.on.certificate_available, self._certified)
        framework.observe(self.tls.on.certificate_denied, self._denied)
        self.client = ResourceRequirerEventHandler(
            self,
            "database-client",
            [RequirerCommonModel(resource="shop")],
            response_model=ResourceProviderModel,
        )
        framework.observe(self.client.on.resource_created, self._connected)

    def _connected(self, event: ResourceCreatedEvent):
        response = event.response
        self.unit.status = ops.ActiveStatus(
            f"connected to {response.endpoints} as {response.username}"
        )

    def _database(self, event: ResourceRequestedEvent):
        self.database.set_response(
            event.relation.id,
            ResourceProviderModel(
                salt=event.request.salt,
                request_id=event.request.request_id,
                resource=event.request.resource,
                username=f"user-{event.relation.id}",
                password="correct-horse",
                endpoints=self.config["db-endpoints"],
            ),
        )

    def _moved(self, _event: ops.ConfigChangedEvent):
        # As data_interfaces' `set_endpoints` did: only the endpoints of a
        # relation already answered (1.2.2's `set_response` makes a new
        # salt and drops the user secret's URI when called again outside
        # the request's event).
        if not self.unit.is_leader():
            return
        for relation in self.model.relations["database"]:
            bag = relation.data[self.app]
            if bag.get("endpoints") and bag["endpoints"] != self.config["db-endpoints"]:
                bag["endpoints"] = self.config["db-endpoints"]

    def _publish(self, event: RequestEvent):
        if self.unit.is_leader():
            self.tracing.publish_receivers(
                [("otlp_http", "http://tempo.example:4318"), ("otlp_grpc", "tempo.example:4317")]
            )

    def _send(self, event: ops.RelationEvent):
        if self.unit.is_leader():
            self.sender.add_certificates(OURS, relation_id=event.relation.id)

    def _sign(self, _event: ops.RelationChangedEvent):
        # As a CA charm does: each outstanding CSR signed once, with the
        # CA the leader made first (kept in stored state, as tests may).
        if not self.unit.is_leader():
            return
        if not self._stored.ca:
            key = PrivateKey.generate()
            ca = Certificate.generate_self_signed_ca(
                CertificateRequestAttributes(common_name="ops-contracts CA"),
                key,
                timedelta(days=365),
            )
            self._stored.ca_key, self._stored.ca = str(key), str(ca)
        key = PrivateKey.from_string(self._stored.ca_key)
        ca = Certificate.from_string(self._stored.ca)
        for request in self.issuer.get_outstanding_certificate_requests():
            csr = request.certificate_signing_request
            certificate = Certificate.generate(csr, ca, key, timedelta(days=30))
            self.issuer.set_relation_certificate(
                ProviderCertificate(
                    relation_id=request.relation_id,
                    certificate=certificate,
                    certificate_signing_request=csr,
                    ca=ca,
                    chain=[certificate, ca],
                )
            )

    def _certified(self, event: CertificateAvailableEvent):
        key = self.tls.private_key
        self.unit.status = ops.ActiveStatus(
            f"certificate for {event.certificate.common_name}"
            f" from {event.ca.common_name}"
            f" ({key.algorithm.value if key else 'no key'})"
        )

    def _denied(self, event: CertificateDeniedEvent):
        self.unit.status = ops.BlockedStatus(f"refused: {event.error.message}")

    def _received(self, event: CertificatesAvailableEvent):
        got = sorted(c.split("\n")[1] for c in self.receiver.get_all_certificates())
        self.unit.status = ops.ActiveStatus(f"received {' '.join(got)}")

    def _removed(self, _event: CertificatesRemovedEvent):
        self.unit.status = ops.WaitingStatus("no certificates")


if __name__ == "__main__":
    ops.main(Contracts)
