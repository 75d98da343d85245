"""Ruleset options: declared once as dataclass fields, validated when a ruleset is built."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import DicewiseError


def option(default, choices=None, help: str = "", minimum=None, maximum=None):
    """A ruleset option field: its default, allowed values and a one-line help text."""
    meta = {"option": True, "choices": choices, "help": help, "minimum": minimum, "maximum": maximum}
    return dataclasses.field(default=default, metadata=meta)


def option_fields(cls) -> list[dataclasses.Field]:
    """The option fields of a ruleset class, in declaration order."""
    return [f for f in dataclasses.fields(cls) if f.metadata.get("option")]


def parse_option(cls, key: str, text: str) -> Any:
    """Turn ``KEY=VALUE`` text into a typed, validated option value for ruleset ``cls``."""
    fields = {f.name: f for f in option_fields(cls)}
    if key not in fields:
        known = ", ".join(fields) or "none"
        raise DicewiseError(f"unknown option {key!r} for {cls.name} (options: {known})")
    field = fields[key]
    value: Any = text
    if isinstance(field.default, bool):
        if text.lower() not in ("true", "false"):
            raise DicewiseError(f"option {key} takes true or false, not {text!r}")
        value = text.lower() == "true"
    elif isinstance(field.default, int):
        try:
            value = int(text)
        except ValueError:
            raise DicewiseError(f"option {key} takes an integer, not {text!r}") from None
    return value


def validate_options(obj) -> None:
    """Check every option value of a ruleset instance against its declaration."""
    for field in option_fields(type(obj)):
        value = getattr(obj, field.name)
        meta = field.metadata
        if meta["choices"] is not None and value not in meta["choices"]:
            allowed = " | ".join(map(str, meta["choices"]))
            raise DicewiseError(f"option {field.name}={value} is not one of {allowed}")
        if meta["minimum"] is not None and not meta["minimum"] <= value <= meta["maximum"]:
            raise DicewiseError(
                f"option {field.name}={value} is outside {meta['minimum']}..{meta['maximum']}")


def options_of(obj) -> dict[str, Any]:
    """The option values of a ruleset instance, as a plain dict."""
    return {f.name: getattr(obj, f.name) for f in option_fields(type(obj))}


def parse_options(cls, pairs) -> dict[str, Any]:
    """Parse a sequence of ``KEY=VALUE`` strings for ruleset ``cls`` (a key may appear once)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep:
            raise DicewiseError(f"option {pair!r} is not of the form KEY=VALUE")
        key = key.strip()
        if key in out:
            raise DicewiseError(f"option {key} given twice")
        out[key] = parse_option(cls, key, text.strip())
    return out
