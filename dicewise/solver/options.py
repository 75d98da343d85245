"""Ruleset options: declared once as dataclass fields, validated when a ruleset is built."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..errors import DicewiseError
from ..i18n import Message


def option(default, choices=None, help: str = "", minimum=None, maximum=None):
    """A ruleset option field: its default, allowed values and a one-line help text."""
    meta = {"option": True, "choices": choices, "help": help, "minimum": minimum, "maximum": maximum}
    return dataclasses.field(default=default, metadata=meta)


def option_fields(cls) -> list[dataclasses.Field]:
    """The option fields of a ruleset class, in declaration order."""
    return [f for f in dataclasses.fields(cls) if f.metadata.get("option")]


@dataclass(frozen=True)
class OptionSpec:
    """One rule option: its name, default, allowed values (None: any integer, within
    ``minimum`` and ``maximum`` where given) and help."""

    name: str
    default: Any
    choices: tuple | None
    help: str
    minimum: int | None = None
    maximum: int | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "default": self.default,
                "choices": None if self.choices is None else list(self.choices), "help": self.help,
                "minimum": self.minimum, "maximum": self.maximum}


def option_specs(cls) -> tuple[OptionSpec, ...]:
    """The options of a ruleset class declared with ``option`` fields."""
    return tuple(OptionSpec(f.name, f.default, None if f.metadata["choices"] is None
                            else tuple(f.metadata["choices"]), f.metadata["help"],
                            f.metadata["minimum"], f.metadata["maximum"])
                 for f in option_fields(cls))


def parse_option(spec: OptionSpec, text: str) -> Any:
    """Turn the text of ``KEY=VALUE`` into a typed option value (checked by the ruleset)."""
    if isinstance(spec.default, bool):
        if text.lower() not in ("true", "false"):
            raise DicewiseError(Message("option {name} takes true or false, not {text!r}",
                                         name=spec.name, text=text))
        return text.lower() == "true"
    if isinstance(spec.default, int):
        try:
            return int(text)
        except ValueError:
            raise DicewiseError(Message("option {name} takes an integer, not {text!r}",
                                         name=spec.name, text=text)) from None
    if isinstance(spec.default, float):
        try:
            value = float(text)
        except ValueError:
            raise DicewiseError(Message("option {name} takes a number, not {text!r}",
                                         name=spec.name, text=text)) from None
        if value != value or value in (float("inf"), float("-inf")):
            raise DicewiseError(Message("option {name} takes a finite number, not {text!r}",
                                         name=spec.name, text=text))
        return value
    return text


def validate_options(obj) -> None:
    """Check every option value of a ruleset instance against its declaration."""
    for field in option_fields(type(obj)):
        value = getattr(obj, field.name)
        meta = field.metadata
        if meta["choices"] is not None and value not in meta["choices"]:
            allowed = " | ".join(map(str, meta["choices"]))
            raise DicewiseError(Message("option {name}={value} is not one of {allowed}",
                                         name=field.name, value=value, allowed=allowed))
        if meta["minimum"] is not None and not meta["minimum"] <= value <= meta["maximum"]:
            raise DicewiseError(Message("option {name}={value} is outside {low}..{high}",
                                        name=field.name, value=value, low=meta["minimum"],
                                        high=meta["maximum"]))


def options_of(obj) -> dict[str, Any]:
    """The option values of a ruleset instance, as a plain dict."""
    return {f.name: getattr(obj, f.name) for f in option_fields(type(obj))}


def parse_option_pairs(name: str, specs, pairs) -> dict[str, Any]:
    """Parse ``KEY=VALUE`` strings against ``specs`` (a key may appear once)."""
    by_name = {s.name: s for s in specs}
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep:
            raise DicewiseError(Message("option {pair!r} is not of the form KEY=VALUE", pair=pair))
        key = key.strip()
        if key not in by_name:
            raise DicewiseError(unknown_options(repr(key), name, by_name))
        if key in out:
            raise DicewiseError(Message("option {key} given twice", key=key))
        out[key] = parse_option(by_name[key], text.strip())
    return out


def unknown_options(names: str, ruleset: str, known) -> Message:
    """Unknown option names, with the ones ``ruleset`` has."""
    if not known:
        return Message("unknown option {names} for {ruleset} (it has no options)",
                       names=names, ruleset=ruleset)
    return Message("unknown option {names} for {ruleset} (options: {known})",
                   names=names, ruleset=ruleset, known=", ".join(known))


def parse_options(cls, pairs) -> dict[str, Any]:
    """Parse ``KEY=VALUE`` strings for the ruleset class ``cls``."""
    return parse_option_pairs(cls.name, option_specs(cls), pairs)


def rules_from(cls, options) -> Any:
    """An instance of the ruleset class ``cls`` for typed option values (a mapping).

    Unknown names and values of the wrong type are refused with one DicewiseError line, as
    are values the declaration does not allow (checked by the class itself).
    """
    specs = {s.name: s for s in option_specs(cls)}
    options = dict(options or {})
    unknown = sorted(set(options) - set(specs))
    if unknown:
        raise DicewiseError(unknown_options(", ".join(unknown), cls.name, specs))
    for key, value in options.items():
        default = specs[key].default
        kind = bool if isinstance(default, bool) else type(default)
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        if not ok and not (kind is float and isinstance(value, int) and not isinstance(value, bool)):
            what = {bool: Message("true or false"), int: Message("an integer"),
                    float: Message("a number")}.get(kind, Message("a text"))
            raise DicewiseError(Message("option {key} takes {what}, not {value!r}", key=key,
                                        what=what, value=value))
    return cls(**options)
