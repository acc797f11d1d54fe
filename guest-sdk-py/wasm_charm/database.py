"""Both sides of a database. The requirer's, as the data platform's
``data_interfaces`` library (``DatabaseRequires``) behaves, on the
``postgresql_client`` v0 bags: the leader asks for a database, the provider
answers with endpoints and a user secret, and the library's events reach the
charm as a :class:`DatabaseEvent` (``CREATED`` for ``database_created``,
``ENDPOINTS_CHANGED``, ``READ_ONLY_ENDPOINTS_CHANGED``, or ``UNCHANGED``).

"Waiting for the database" is the handler's own scope: shown while the
relation has no answer, and cleared by the provider's answer.

>>> from wasm_charm import Charm, Status
>>> def connected(event):
...     return Status.active(f"connected to {event.credentials.endpoints}")
>>> charm = DatabaseRequirer.from_config("database", "database-name").observe(
...     Charm(), "connection", connected)
>>> [h.name for h in charm.handlers]
['connection-request', 'connection']
"""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Callable, Optional

from . import log, model, stored
from .charm import Charm, On
from .errors import SecretNotFoundError
from .event import Event, SecretEvent
from .interfaces import DataError
from .interfaces import postgresql_client_v0 as v0
from .secrets import Secret, get_secret
from .status import Status

# The fields data_interfaces asks to receive in secrets, not in the bag.
REQUESTED_SECRETS = ["username", "password", "tls", "tls-ca", "uris", "read-only-uris"]


@dataclasses.dataclass(frozen=True)
class Credentials:
    """What the provider answered: endpoints and the user to connect as."""

    endpoints: str
    username: str
    password: str
    database: str
    read_only_endpoints: Optional[str] = None
    uris: Optional[str] = None
    tls_ca: Optional[str] = None


class Kind(enum.Enum):
    """Which of the library's events."""

    CREATED = "database_created"
    ENDPOINTS_CHANGED = "endpoints_changed"
    READ_ONLY_ENDPOINTS_CHANGED = "read_only_endpoints_changed"
    UNCHANGED = "unchanged"


@dataclasses.dataclass(frozen=True)
class DatabaseEvent:
    """One of the library's events, with the credentials as they are now."""

    kind: Kind
    credentials: Credentials

    @staticmethod
    def between(before: Optional[Credentials], now: Credentials) -> DatabaseEvent:
        """The event the library emits going from ``before`` (``None``:
        nothing answered yet) to ``now``.

        >>> one = Credentials("a:1", "u", "p", "db")
        >>> DatabaseEvent.between(None, one).kind
        <Kind.CREATED: 'database_created'>
        >>> DatabaseEvent.between(one, dataclasses.replace(one, endpoints="b:1")).kind
        <Kind.ENDPOINTS_CHANGED: 'endpoints_changed'>
        >>> DatabaseEvent.between(one, one).kind
        <Kind.UNCHANGED: 'unchanged'>
        """
        if before is None:
            kind = Kind.CREATED
        elif before.endpoints != now.endpoints:
            kind = Kind.ENDPOINTS_CHANGED
        elif before.read_only_endpoints != now.read_only_endpoints:
            kind = Kind.READ_ONLY_ENDPOINTS_CHANGED
        else:
            kind = Kind.UNCHANGED
        return DatabaseEvent(kind, now)


class DatabaseRequirer:
    """One database a charm needs over one ``postgresql_client`` endpoint."""

    def __init__(
        self,
        endpoint: str,
        database: Optional[str] = None,
        *,
        option: Optional[str] = None,
        extra_user_roles: Optional[str] = None,
    ) -> None:
        if (database is None) == (option is None):
            raise ValueError("wasm_charm: name the database, or the config option naming it")
        self.endpoint = endpoint
        self._database = database
        self._option = option
        self.extra_user_roles = extra_user_roles

    @classmethod
    def from_config(cls, endpoint: str, option: str) -> DatabaseRequirer:
        """The database config option ``option`` names, asked again when it
        changes; without a value, nothing is asked."""
        return cls(endpoint, option=option)

    def database(self) -> Optional[str]:
        """The database's name now."""
        if self._database is not None:
            return self._database
        value = model.config().get(self._option or "")
        return value if isinstance(value, str) else None

    def request(self, database: str) -> v0.RequirerApp:
        """What the leader writes to its application's bag.

        >>> DatabaseRequirer("db", "shop").request("shop").to_bag()["database"]
        'shop'
        """
        return v0.RequirerApp(
            database=database,
            extra_user_roles=self.extra_user_roles,
            requested_secrets=list(REQUESTED_SECRETS),
        )

    def observe(
        self, charm: Charm, name: str, on_event: Callable[[DatabaseEvent], Optional[Status]]
    ) -> Charm:
        """Add the handlers ``<name>-request`` (the leader's request, written
        when it differs from the bag's) and ``<name>`` (its scope blocked
        without the relation, waiting until the provider answered, then
        what ``on_event`` returns)."""
        # Both handlers run when the relation or the charm changes.
        both = On.relation(self.endpoint) | On.install() | On.upgrade_charm()
        asks = both | On.leader_elected() | On.config_changed()
        reads = both | On.secret() | On.update_status()
        return charm.observe(f"{name}-request", asks, self._write_request).observe(
            name, reads, lambda event: self._connection(event, on_event)
        )

    def credentials(self) -> Optional[Credentials]:
        """The provider's answer now; ``None`` before it answered."""
        relation = model.get_relation(self.endpoint)
        database = self.database()
        if relation is None or database is None:
            return None
        return self._read(relation, database, refresh=False)

    def _write_request(self, _event: Event) -> Optional[Status]:
        relation = model.get_relation(self.endpoint)
        database = self.database()
        if not model.is_leader() or relation is None or database is None:
            return None
        relation.write_if_changed(self.request(database))
        return None

    def _connection(
        self, event: Event, on_event: Callable[[DatabaseEvent], Optional[Status]]
    ) -> Optional[Status]:
        relation = model.get_relation(self.endpoint)
        if relation is None:
            return Status.blocked(f"needs a {self.endpoint} relation")
        database = self.database()
        if database is None:
            return Status.blocked(f"set config option {self._option}: it names the database")
        now = self._read(relation, database, refresh=isinstance(event.context, SecretEvent))
        if now is None:
            return Status.waiting(
                f"waiting for database {database} on {self.endpoint}:{relation.id}"
            )
        # Kept in the unit's store, as the Rust SDK keeps it: a failed hook
        # keeps nothing, so the retry sees the event again.
        key = f"wasm-charm.database.{self.endpoint}.{relation.id}"
        kept = stored.get(key)
        before = Credentials(**kept) if isinstance(kept, dict) else None
        if before != now:
            stored.set(key, dataclasses.asdict(now))
        return on_event(DatabaseEvent.between(before, now))

    def _read(self, relation: model.Relation, database: str, refresh: bool) -> Optional[Credentials]:
        answer = relation.read(v0.ProviderApp)
        if answer is None or not answer.endpoints:
            return None
        if answer.secret_user:
            content = Secret(answer.secret_user).get_content(refresh=refresh)
            username, password, uris = (
                content.get("username"),
                content.get("password"),
                content.get("uris"),
            )
            tls_ca = (
                Secret(answer.secret_tls).get_content(refresh=refresh).get("tls-ca")
                if answer.secret_tls
                else None
            )
        else:
            username, password, uris, tls_ca = (
                answer.username,
                answer.password,
                answer.uris,
                answer.tls_ca,
            )
        if not username or not password:
            return None
        return Credentials(
            endpoints=answer.endpoints,
            username=username,
            password=password,
            database=answer.database or database,
            read_only_endpoints=answer.read_only_endpoints,
            uris=uris,
            tls_ca=tls_ca,
        )


@dataclasses.dataclass(frozen=True)
class Request:
    """What a requirer asked for on one relation: v0's ``database``, or the
    first of v1's ``requests``."""

    relation: model.Relation
    database: str
    extra_user_roles: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class User:
    """A relation's database user, as its secret holds it."""

    username: str
    password: str


class DatabaseProvider:
    """The provider's side of a database, as the data platform's libraries
    answer on the ``postgresql_client`` bags: ``data_interfaces``' v0
    (``endpoints``, the database and ``secret-user``) and
    ``dpcharmlibs-interfaces``' v1 (a response in ``requests`` for each
    request, by its ``request-id``, the requests answered kept in ``data``).
    Each relation's user is made once, by the charm, and kept in an
    application secret granted to the relation (label
    ``wasm-charm.database.<endpoint>.<id>``); the Rust SDK's
    ``DatabaseProvider`` is the same.

    >>> DatabaseProvider("database").label(3)
    'wasm-charm.database.database.3'
    """

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint

    def label(self, relation_id: int) -> str:
        """The label of the relation's user secret."""
        return f"wasm-charm.database.{self.endpoint}.{relation_id}"

    def answer(self, endpoints: str, new_user: Callable[[Request], User]) -> int:
        """On the leader: answer every relation that asked, with
        ``endpoints`` (``host:port``, comma-separated) and the relation's
        user, which ``new_user`` makes the first time that relation asks.
        How many relations are answered. A bag is written only when it
        changes; a requirer's bag that does not fit is skipped and logged
        with its relation and field."""
        served = 0
        for relation in model.relations(self.endpoint):
            try:
                asked = relation.read(v0.RequirerApp)
            except DataError as e:
                log.warning(f"skipped: {e}")
                continue
            if asked is None:
                continue
            v1 = asked.version == "v1"
            first = (asked.requests or [None])[0] if v1 else None
            if v1 and first is not None:
                request = Request(relation, first["resource"], first.get("extra-user-roles"))
            elif not v1 and asked.database:
                request = Request(relation, asked.database, asked.extra_user_roles)
            else:
                continue
            uri = self._user_uri(request, new_user)
            if v1:
                wanted = _answer_v1(relation, asked, endpoints, uri)
            else:
                wanted = v0.ProviderApp(
                    endpoints=endpoints, database=request.database, secret_user=uri
                )
            relation.write_if_changed(wanted)
            served += 1
        return served

    def user_secret(self, relation: model.Relation) -> Optional[Secret]:
        """The relation's user secret, once it was made."""
        try:
            return get_secret(label=self.label(relation.id))
        except SecretNotFoundError:
            return None

    def _user_uri(self, request: Request, new_user: Callable[[Request], User]) -> str:
        secret = self.user_secret(request.relation)
        if secret is None:
            user = new_user(request)
            secret = model.app.add_secret(
                {"username": user.username, "password": user.password},
                label=self.label(request.relation.id),
                description=f"the database user of {self.endpoint}:{request.relation.id}",
            )
            secret.grant(request.relation)
        # Found by its label, its id is its info's, which may be bare.
        sid = secret._require_id()
        return sid if sid.startswith("secret:") else f"secret:{sid}"


def _answer_v1(relation: model.Relation, asked: object, endpoints: str, uri: str) -> object:
    # As sent: the library compares its own JSON, field for field.
    try:
        raw = json.loads(relation.app_data().get("requests", "[]"))
    except ValueError:
        raw = []
    answered: dict[str, object] = {}
    responses = []
    for r, as_sent in zip(asked.requests or [], raw):
        rid = r.get("request-id")
        if rid is None:
            continue
        answered[rid] = as_sent
        response = {"request-id": rid, "resource": r["resource"], "endpoints": endpoints}
        response["secret-user"] = uri
        if r.get("salt") is not None:
            response["salt"] = r["salt"]
        responses.append(response)
    return v0.ProviderApp(version="v1", requests=responses, data=answered)
