"""A status as the harness compares it: its kind's name and its message."""

from __future__ import annotations

import dataclasses

KINDS = ("active", "maintenance", "waiting", "blocked")


@dataclasses.dataclass(frozen=True)
class Status:
    """``Status("blocked", "no kind")``; build with the kind's method.

    >>> Status.waiting("Waiting for leadership") == Status("waiting", "Waiting for leadership")
    True
    """

    kind: str
    message: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Status: kind {self.kind!r} is none of {', '.join(KINDS)}")

    def __repr__(self) -> str:
        return f"Status({self.kind!r}, {self.message!r})"

    @classmethod
    def active(cls, message: str = "") -> Status:
        return cls("active", message)

    @classmethod
    def maintenance(cls, message: str) -> Status:
        return cls("maintenance", message)

    @classmethod
    def waiting(cls, message: str) -> Status:
        return cls("waiting", message)

    @classmethod
    def blocked(cls, message: str) -> Status:
        return cls("blocked", message)
