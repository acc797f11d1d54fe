"""Relation data as typed values: a namespace per interface version
(``ingress_v2``, ``postgresql_client_v0``, ...) with a dataclass per side's
bag, made from the same descriptions the host checks writes against
(``guest-sdk/interfaces/``), so a field's name and encoding are written
once. A field's Python name has ``_`` for ``-``; a required field has no
default, every other defaults to ``None`` (left out of the bag).

>>> from wasm_charm.interfaces import ingress_v2
>>> app = ingress_v2.RequirerApp(model="dev", name="web", port=8080, strip_prefix=True)
>>> sorted((k, v) for k, v in app.to_bag().items() if v)
[('model', '"dev"'), ('name', '"web"'), ('port', '8080'), ('strip-prefix', 'true')]
>>> ingress_v2.RequirerApp.from_bag({"model": '"dev"', "name": '"web"', "port": "8080"}).port
8080
>>> ingress_v2.RequirerApp.from_bag({"model": "dev"})
Traceback (most recent call last):
...
wasm_charm.interfaces.DataError: ingress v2, the requirer's application bag: field `model`: not JSON text (Expecting value: line 1 column 1 (char 0)): 'dev'
>>> from wasm_charm.interfaces import postgresql_client_v0 as db
>>> db.RequirerApp(database="shop", requested_secrets=["username"]).to_bag()["requested-secrets"]
'["username"]'
"""

from __future__ import annotations

import dataclasses
import json
import keyword
from typing import Any, ClassVar, Optional

from ._interfaces import DESCRIPTIONS
from .errors import Error


class DataError(Error):
    """A bag that does not hold its interface's value: which interface and
    bag, which field, and what was wrong."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        super().__init__(f"{where}: field `{field}`: {problem}")
        self.field = field
        self.problem = problem


def _python_name(key: str) -> str:
    name = key.replace("-", "_")
    return f"{name}_" if keyword.iskeyword(name) else name


class TypedBag:
    """The methods every generated bag class has."""

    INTERFACE: ClassVar[str]
    VERSION: ClassVar[int]
    ROLE: ClassVar[str]
    BAG: ClassVar[str]
    _FIELDS: ClassVar[dict[str, dict[str, Any]]]
    _ENCODING: ClassVar[str]

    @classmethod
    def _where(cls) -> str:
        which = "application bag" if cls.BAG == "app" else "unit bag"
        return f"{cls.INTERFACE} v{cls.VERSION}, the {cls.ROLE}'s {which}"

    @classmethod
    def from_bag(cls, bag: dict[str, str]) -> Any:
        """The value ``bag`` holds; ``DataError`` names the first field that
        does not decode, or a required one missing."""
        values: dict[str, Any] = {}
        for key, field in cls._FIELDS.items():
            text = bag.get(key, "")
            if text == "":
                if field.get("required"):
                    raise DataError(cls._where(), key, "missing")
                continue
            values[_python_name(key)] = cls._decode(key, field, text)
        return cls(**values)

    @classmethod
    def _decode(cls, key: str, field: dict[str, Any], text: str) -> Any:
        encoding = field.get("encoding") or cls._ENCODING
        shape = field["type"]
        if encoding == "json":
            try:
                return json.loads(text)
            except ValueError as e:
                raise DataError(cls._where(), key, f"not JSON text ({e}): {text!r}") from None
        if shape == "int":
            try:
                return int(text)
            except ValueError:
                raise DataError(cls._where(), key, f"not an integer: {text!r}") from None
        if shape == "bool":
            if text not in ("true", "false"):
                raise DataError(cls._where(), key, f"not true or false: {text!r}")
            return text == "true"
        return text

    def to_bag(self) -> dict[str, str]:
        """The bag's changes that make it hold this value: each field
        encoded, each absent one deleted (an empty value). A set is written
        sorted, and maps with sorted keys, so the same value is the same
        text and writing it again changes nothing."""
        out: dict[str, str] = {}
        for key, field in self._FIELDS.items():
            value = getattr(self, _python_name(key))
            if value is None:
                out[key] = ""
                continue
            encoding = field.get("encoding") or self._ENCODING
            if isinstance(field["type"], dict) and "set" in field["type"]:
                value = sorted(value)
            if encoding == "json":
                out[key] = json.dumps(value, sort_keys=True, separators=(",", ":"))
            elif isinstance(value, bool):
                out[key] = "true" if value else "false"
            else:
                out[key] = str(value)
        return out


def _bag_class(d: dict[str, Any], role: str, bag: str, fields: dict[str, Any]) -> type:
    name = role.capitalize() + ("App" if bag == "app" else "Unit")
    required = [(k, f) for k, f in fields.items() if f.get("required")]
    optional = [(k, f) for k, f in fields.items() if not f.get("required")]
    spec: list[Any] = [(_python_name(k), Any) for k, _ in required]
    spec += [(_python_name(k), Optional[Any], dataclasses.field(default=None)) for k, _ in optional]
    cls = dataclasses.make_dataclass(name, spec, bases=(TypedBag,))
    cls.INTERFACE = d["interface"]
    cls.VERSION = d["version"]
    cls.ROLE = role
    cls.BAG = bag
    cls._FIELDS = fields
    cls._ENCODING = d["encoding"]
    which = "application" if bag == "app" else "unit"
    cls.__doc__ = f"The {role}'s {which} bag of {d['interface']} v{d['version']}."
    return cls


class _Interface:
    """One interface version's bag classes."""

    def __init__(self, d: dict[str, Any]) -> None:
        self.INTERFACE = d["interface"]
        self.VERSION = d["version"]
        self.SOURCE = d["source"]
        for role in ("provider", "requirer"):
            for bag in ("app", "unit"):
                fields = d.get(role, {}).get(bag) or {}
                if fields:
                    cls = _bag_class(d, role, bag, fields)
                    setattr(self, cls.__name__, cls)


def _module_name(d: dict[str, Any]) -> str:
    return f"{d['interface'].replace('-', '_')}_v{d['version']}"


for _d in DESCRIPTIONS:
    globals()[_module_name(_d)] = _Interface(_d)
