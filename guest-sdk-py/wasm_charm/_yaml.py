"""A reader for the YAML Pebble writes (its plan) and layers are written in:
block mappings and sequences, plain and quoted scalars, block scalars
(``|``, ``>``), comments, and flow collections that are JSON. The component
has no YAML library (PyYAML is not in the standard library).

>>> load("services:\\n  web:\\n    command: /usr/bin/web --port 8080\\n    startup: enabled\\n")
{'services': {'web': {'command': '/usr/bin/web --port 8080', 'startup': 'enabled'}}}
>>> load("checks:\\n  up:\\n    threshold: 3\\n    exec:\\n      command: 'true'\\n")
{'checks': {'up': {'threshold': 3, 'exec': {'command': 'true'}}}}
>>> load("a:\\n- x\\n- 'y z'\\nb: {}\\nc: [1, 2]\\n")
{'a': ['x', 'y z'], 'b': {}, 'c': [1, 2]}
>>> load("env:\\n  - name: A\\n    value: \\"1\\\\n2\\"\\n")
{'env': [{'name': 'A', 'value': '1\\n2'}]}
>>> load('{"services": {"web": {"command": "web"}}}')
{'services': {'web': {'command': 'web'}}}
>>> load("script: |\\n  one\\n  two\\nnext: ~\\n")
{'script': 'one\\ntwo\\n', 'next': None}
"""

from __future__ import annotations

import json
import re
from typing import Any

_INT = re.compile(r"[-+]?[0-9]+")
_FLOAT = re.compile(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")


class YamlError(ValueError):
    """Text this reader does not take, with its line."""


def load(text: str) -> Any:
    """The value of the YAML document ``text`` (``None`` when empty)."""
    lines = []
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        if raw.strip() in ("---", "..."):
            continue
        lines.append((number, raw))
    reader = _Reader(lines)
    reader.skip_blank()
    if reader.done():
        return None
    value = reader.node(reader.indent())
    reader.skip_blank()
    if not reader.done():
        raise YamlError(f"line {reader.number()}: unexpected text (its indentation?)")
    return value


def _strip_comment(text: str) -> str:
    # A `#` starts a comment at the line's start or after a space, outside quotes.
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"" and (i == 0 or text[i - 1] in " :-[{,"):
            quote = c
        elif c == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


def scalar(text: str) -> Any:
    """One scalar, or a flow collection that is JSON.

    >>> scalar("'it''s'"), scalar("true"), scalar("10s"), scalar("0.5")
    ("it's", True, '10s', 0.5)
    """
    text = text.strip()
    if not text:
        return None
    if text[0] == "'":
        if len(text) < 2 or text[-1] != "'":
            raise YamlError(f"unterminated quote: {text}")
        return text[1:-1].replace("''", "'")
    if text[0] in '"[{':
        try:
            return json.loads(text)
        except ValueError:
            if text[0] == "[" and text[-1] == "]":
                # A flow sequence of plain scalars (`[a, b]`).
                inner = text[1:-1].strip()
                return [scalar(p) for p in inner.split(",")] if inner else []
            raise YamlError(f"cannot read {text!r}") from None
    if text in ("~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return text


def _split_key(text: str) -> tuple[str, str] | None:
    # `key: value` or `key:`; a quoted key may hold `: `.
    if text[0] in "'\"":
        end = text.find(text[0], 1)
        while text[0] == "'" and end != -1 and text[end + 1 : end + 2] == "'":
            end = text.find("'", end + 2)
        if end != -1 and text[end + 1 : end + 2] == ":" and text[end + 2 : end + 3] in ("", " "):
            return str(scalar(text[: end + 1])), text[end + 2 :].strip()
        return None
    match = re.match(r"([^\s#'\"{\[][^:]*?):(?:\s+|$)(.*)", text)
    if match is None:
        return None
    return match.group(1), match.group(2)


class _Reader:
    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.lines = lines
        self.at = 0

    def done(self) -> bool:
        return self.at >= len(self.lines)

    def number(self) -> int:
        return self.lines[self.at][0]

    def skip_blank(self) -> None:
        while not self.done() and not _strip_comment(self.lines[self.at][1]).strip():
            self.at += 1

    def indent(self) -> int:
        line = self.lines[self.at][1]
        return len(line) - len(line.lstrip(" "))

    def text(self) -> str:
        return _strip_comment(self.lines[self.at][1]).strip()

    def node(self, indent: int) -> Any:
        if self.text().startswith("- ") or self.text() == "-":
            return self.sequence(indent)
        if _split_key(self.text()) is not None:
            return self.mapping(indent)
        value = scalar(self.text())
        self.at += 1
        return value

    def value_after(self, rest: str, indent: int) -> Any:
        """The value of a key or item whose own line holds ``rest``."""
        if rest.startswith(("|", ">")):
            return self.block_scalar(rest, indent)
        if rest:
            self.at += 1
            return scalar(rest)
        self.at += 1
        self.skip_blank()
        if self.done():
            return None
        child = self.indent()
        # A sequence may sit at its key's own indentation (`key:\n- a`).
        if child > indent or (child == indent and self.text().startswith("-")):
            return self.node(child)
        return None

    def mapping(self, indent: int) -> dict:
        out: dict = {}
        while not self.done():
            self.skip_blank()
            if self.done() or self.indent() != indent:
                break
            split = _split_key(self.text())
            if split is None:
                break
            key, rest = split
            out[key] = self.value_after(rest, indent)
        if not self.done() and self.indent() > indent:
            raise YamlError(f"line {self.number()}: unexpected indentation")
        return out

    def sequence(self, indent: int) -> list:
        out: list = []
        while not self.done():
            self.skip_blank()
            if self.done() or self.indent() != indent:
                break
            text = self.text()
            if not (text.startswith("- ") or text == "-"):
                break
            rest = text[1:].strip()
            if rest and _split_key(rest) is not None:
                # `- key: value` opens a mapping indented past the dash.
                number, line = self.lines[self.at]
                inner = indent + (len(line.lstrip(" ")) - len(line.lstrip(" ")[1:].lstrip(" ")))
                self.lines[self.at] = (number, " " * inner + rest)
                out.append(self.mapping(inner))
            else:
                out.append(self.value_after(rest, indent))
        return out

    def block_scalar(self, header: str, indent: int) -> str:
        fold = header.startswith(">")
        chomp = "strip" if "-" in header else "keep" if "+" in header else "clip"
        self.at += 1
        body: list[str] = []
        block_indent = None
        while not self.done():
            line = self.lines[self.at][1]
            if line.strip():
                current = len(line) - len(line.lstrip(" "))
                if block_indent is None:
                    block_indent = current
                if current < block_indent or current <= indent:
                    break
                body.append(line[block_indent:])
            else:
                body.append("")
            self.at += 1
        while body and body[-1] == "" and chomp != "keep":
            body.pop()
        text = (" " if fold else "\n").join(body)
        if chomp == "strip" or not body:
            return text
        return text + "\n"
