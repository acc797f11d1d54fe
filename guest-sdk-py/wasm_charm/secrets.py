"""Juju secrets, with ops' names: :func:`get_secret`, :func:`add_secret`
(ops' ``app.add_secret`` and ``unit.add_secret``, also as
``model.app.add_secret``) and the methods of :class:`Secret`
(``get_content``, ``peek_content``, ``set_content``, ``grant``, …).

Reads and :func:`add_secret` run at the call (the new id is its answer);
the writes of a :class:`Secret` (``set_*``, ``grant``, ``revoke``,
``remove_*``) are checked at the call, then kept only if the handler
returns and sent at the end of the event, as Juju applies them when the
hook succeeds. A secret that does not exist, or that this unit may not
read, raises :class:`~wasm_charm.errors.SecretNotFoundError`.

>>> from wasm_charm.secrets import Secret, SecretRotate, expire_text
>>> Secret(label="db-password")
Secret(id=None, label='db-password')
>>> SecretRotate.MONTHLY.value
'monthly'
>>> import datetime
>>> expire_text(datetime.timedelta(hours=24))
'86400s'
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from typing import Optional, Union

from . import _wit
from .errors import InvalidArgument, secret_error

#: When a secret expires: an RFC 3339 time or a Go duration as text
#: (``"24h"``), a ``datetime`` (a naive one is UTC) or a ``timedelta``.
Expire = Union[str, datetime.datetime, datetime.timedelta]


def _call(fn, *args):  # noqa: ANN001, ANN202
    return _wit.call(secret_error, fn, *args)


class SecretRotate(enum.Enum):
    """How often Juju asks the owner to rotate a secret (ops' ``SecretRotate``)."""

    NEVER = "never"
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    QUARTERLY = "quarterly"
    YEARLY = "yearly"


class SecretOwner(enum.Enum):
    """Who owns a secret :func:`add_secret` creates: the application (Juju's
    default; needs leadership) or this unit."""

    APPLICATION = "application"
    UNIT = "unit"


@dataclasses.dataclass(frozen=True)
class SecretInfo:
    """What ``secret-info-get`` says of a secret this unit or app owns (ops'
    ``SecretInfo``); times as Juju prints them (RFC 3339)."""

    id: str
    """The secret's id (``secret:…``)."""
    label: Optional[str]
    revision: int
    """Its latest revision."""
    description: Optional[str]
    owner: Optional[str]
    """``application`` or ``unit``."""
    expiry: Optional[str]
    rotation: Optional[str]
    """Its rotation policy (``never``, ``daily``, …)."""
    rotates: Optional[str]
    """When it next rotates."""


def expire_text(expire: Optional[Expire]) -> Optional[str]:
    """``expire`` as ``secret-add --expire`` takes it.

    >>> import datetime
    >>> expire_text(datetime.datetime(2030, 1, 2, 3, 4, 5))
    '2030-01-02T03:04:05+00:00'
    >>> expire_text("24h")
    '24h'
    """
    if expire is None or isinstance(expire, str):
        return expire
    if isinstance(expire, datetime.datetime):
        if expire.tzinfo is None:
            expire = expire.replace(tzinfo=datetime.timezone.utc)
        return expire.isoformat()
    if isinstance(expire, datetime.timedelta):
        return f"{int(expire.total_seconds())}s"
    raise TypeError(f"wasm_charm: expire must be text, a datetime or a timedelta, not {expire!r}")


def _options(
    label: Optional[str],
    description: Optional[str],
    expire: Optional[Expire],
    rotate: Optional[SecretRotate],
):  # noqa: ANN202 - a bindings type
    wit = _wit.secrets
    return wit.SecretOptions(
        label,
        description,
        expire_text(expire),
        None if rotate is None else getattr(wit.SecretRotate, SecretRotate(rotate).name),
    )


def _content(content: dict[str, str]) -> list[tuple[str, str]]:
    if not isinstance(content, dict) or not content:
        raise InvalidArgument("a secret's content is a non-empty dict of text")
    return sorted((str(k), str(v)) for k, v in content.items())


class Secret:
    """A secret, named by its id, its label, or both (ops' ``Secret``).

    >>> Secret("secret:cqv1ruvmp25c7ntde3t0") == Secret(id="secret:cqv1ruvmp25c7ntde3t0")
    True
    """

    __slots__ = ("id", "label")

    def __init__(self, id: Optional[str] = None, label: Optional[str] = None) -> None:  # noqa: A002
        self.id = id
        """Its id (``secret:…``), if known."""
        self.label = label
        """Its label, if known."""

    def __repr__(self) -> str:
        return f"Secret(id={self.id!r}, label={self.label!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and (self.id, self.label) == (other.id, other.label)

    def __hash__(self) -> int:
        return hash((self.id, self.label))

    def _read(self, read: str) -> dict[str, str]:
        how = getattr(_wit.secrets.SecretRead, read)
        return dict(_call(_wit.secrets.secret_get, self.id, self.label, how))

    def _require_id(self) -> str:
        # A write names the id; a secret known by its label alone is
        # resolved by its owner's secret-info-get, as ops does.
        if self.id is not None:
            return self.id
        if self.label is not None:
            return self.get_info().id
        raise InvalidArgument("a secret is named by its id, its label, or both; neither was given")

    def get_content(self, *, refresh: bool = False) -> dict[str, str]:
        """The content of the revision this unit tracks; with ``refresh``,
        the latest revision's, tracked from now on (Juju records the
        tracking when the hook succeeds). ops' ``Secret.get_content``."""
        return self._read("REFRESH" if refresh else "CURRENT")

    def peek_content(self) -> dict[str, str]:
        """The latest revision's content, without tracking it (ops'
        ``Secret.peek_content``)."""
        return self._read("PEEK")

    def get_info(self) -> SecretInfo:
        """The secret's metadata (owner only; ops' ``Secret.get_info``)."""
        info = _call(_wit.secrets.secret_info_get, self.id, self.label)
        return SecretInfo(
            info.id,
            info.label,
            info.revision,
            info.description,
            info.owner,
            info.expiry,
            info.rotation,
            info.rotates,
        )

    def set_content(self, content: dict[str, str]) -> None:
        """A new revision with this content (ops' ``Secret.set_content``;
        kept if the handler returns)."""
        _call(
            _wit.secrets.secret_set,
            self._require_id(),
            _content(content),
            _options(None, None, None, None),
        )

    def set_info(
        self,
        *,
        label: Optional[str] = None,
        description: Optional[str] = None,
        expire: Optional[Expire] = None,
        rotate: Optional[SecretRotate] = None,
    ) -> None:
        """New metadata; what is ``None`` stays as it is (ops'
        ``Secret.set_info``; kept if the handler returns)."""
        _call(
            _wit.secrets.secret_set,
            self._require_id(),
            None,
            _options(label, description, expire, rotate),
        )

    def grant(self, relation, *, unit: Optional[str] = None) -> None:  # noqa: ANN001
        """Let the remote application of ``relation`` (a
        :class:`~wasm_charm.model.Relation`), or its unit ``unit``, read the
        secret (ops' ``Secret.grant``; kept if the handler returns)."""
        _call(_wit.secrets.secret_grant, self._require_id(), _relation_ref(relation), unit)

    def revoke(self, relation, *, unit: Optional[str] = None) -> None:  # noqa: ANN001
        """Take back a grant (ops' ``Secret.revoke``)."""
        _call(_wit.secrets.secret_revoke, self._require_id(), _relation_ref(relation), unit)

    def remove_revision(self, revision: int) -> None:
        """Remove one revision (ops' ``Secret.remove_revision``), as a
        secret-remove event asks."""
        _call(_wit.secrets.secret_remove, self._require_id(), revision)

    def remove_all_revisions(self) -> None:
        """Remove the secret, every revision (ops' ``Secret.remove_all_revisions``)."""
        _call(_wit.secrets.secret_remove, self._require_id(), None)


def _relation_ref(relation):  # noqa: ANN001, ANN202 - a bindings type
    # A model.Relation (name, id) or an event's RelationEvent (endpoint, id).
    endpoint = getattr(relation, "endpoint", None) or getattr(relation, "name", None)
    if endpoint is None or not isinstance(getattr(relation, "id", None), int):
        raise TypeError(f"wasm_charm: {relation!r} is not a relation")
    return _wit.types.RelationRef(endpoint, relation.id)


def get_secret(*, id: Optional[str] = None, label: Optional[str] = None) -> Secret:  # noqa: A002
    """The secret with this id and/or label (ops' ``Model.get_secret``),
    checked to exist by reading its content, as ops does. Given both, it is
    read by id and the label is attached to it. Raises
    :class:`~wasm_charm.errors.SecretNotFoundError` for one that does not
    exist or that this unit may not read."""
    if id is None and label is None:
        raise TypeError("wasm_charm: get_secret needs an id or a label")
    secret = Secret(id, label)
    secret.get_content()
    return secret


def add_secret(
    content: dict[str, str],
    *,
    label: Optional[str] = None,
    description: Optional[str] = None,
    expire: Optional[Expire] = None,
    rotate: Optional[SecretRotate] = None,
    owner: SecretOwner = SecretOwner.APPLICATION,
) -> Secret:
    """Create a secret (ops' ``app.add_secret``, or ``unit.add_secret`` with
    ``owner=SecretOwner.UNIT``): the application's needs leadership. Keys
    are lowercase letters, digits and single dashes, at least 3 characters,
    starting with a letter (Juju's rule). Runs at the call: Juju creates it
    when the hook succeeds."""
    wit = _wit.secrets
    new_id = _call(
        wit.secret_add,
        _content(content),
        _options(label, description, expire, rotate),
        getattr(wit.SecretOwner, SecretOwner(owner).name),
    )
    return Secret(new_id, label)


def secret_ids() -> list[str]:
    """The ids of the secrets this unit or application owns."""
    return list(_call(_wit.secrets.secret_ids))
