#!/usr/bin/env python3
"""The db-client example's behaviour on ops: ask for a database, go active
once the provider answered with endpoints and a user secret."""

import ops


class DbClient(ops.CharmBase):
    def __init__(self, framework: ops.Framework):
        super().__init__(framework)
        framework.observe(self.on.install, self._update)
        framework.observe(self.on.database_relation_created, self._request)
        framework.observe(self.on.database_relation_changed, self._update)
        framework.observe(self.on.database_relation_broken, self._broken)
        framework.observe(self.on.secret_changed, self._update)

    def _request(self, event: ops.RelationCreatedEvent):
        if self.unit.is_leader():
            event.relation.data[self.app]["database"] = "ops"
        self._update(event)

    def _broken(self, _event: ops.RelationBrokenEvent):
        self.unit.status = ops.BlockedStatus("needs a database relation")

    def _update(self, event: ops.EventBase):
        relation = self.model.get_relation("database")
        if relation is None or relation.app is None:
            self.unit.status = ops.BlockedStatus("needs a database relation")
            return
        data = relation.data[relation.app]
        if "endpoints" not in data or "secret-user" not in data:
            self.unit.status = ops.WaitingStatus("waiting for database credentials")
            return
        secret = self.model.get_secret(id=data["secret-user"])
        content = secret.get_content(refresh=isinstance(event, ops.SecretChangedEvent))
        self.unit.status = ops.ActiveStatus(
            f"connected to {data['endpoints']} as {content['username']}"
        )


if __name__ == "__main__":
    ops.main(DbClient)
