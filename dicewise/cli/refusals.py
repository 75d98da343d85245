"""Click's refusals of a command line, remade as ``Message``s from their fields so that a
player reads them in their own language (click words them in English, and some name
neither the option nor the value)."""

from __future__ import annotations

import click

from ..i18n import Message, Plural
from .typed import typed_value

#: An unknown command's refusal, with the close names (click ≥ 8.4).
_NO_SUCH_COMMAND = getattr(click.exceptions, "NoSuchCommand", ())


def refusal(error: click.UsageError, command: click.Command, typed: list[str]) -> str:
    """Click's refusal as a ``Message`` from its fields and the command line, so that it can
    be said in the player's language; a refusal click gives no fields for stays as click
    words it."""
    if isinstance(error.message, Message):
        return error.message
    param = getattr(error, "param", None)
    if isinstance(error, click.MissingParameter) and param is not None:
        if isinstance(param, click.Argument):
            return Message("missing argument {name}", name=_name(param))
        return Message("missing option {name}", name=_name(param))
    if isinstance(error, click.BadParameter) and param is not None:
        wanted = _wanted(param.type)
        value = typed_value(typed, param.opts, param.nargs) if isinstance(
            param, click.Option) else None
        if param.nargs > 1 and value and any(w.startswith("--") for w in value.split()):
            # too few values: click took the next option for one of them
            return _takes(_name(param), param.nargs)
        if wanted is not None and value is not None:
            return Message("{name} {value}: {wanted}", name=_name(param), value=value,
                           wanted=wanted)
        if wanted is not None:
            return Message("invalid value for {name}: {wanted}", name=_name(param), wanted=wanted)
    if isinstance(error, click.NoSuchOption):
        return _unknown(Message("no such option {name}", name=error.option_name),
                        error.possibilities)
    if isinstance(command, click.Group) and error.format_message() == "Missing command.":
        return Message("missing command (the commands: {commands})",
                       commands=", ".join(command.list_commands(None)))
    if isinstance(error, _NO_SUCH_COMMAND):
        return _unknown(Message("no such command {name}", name=error.command_name),
                        error.possibilities)
    if isinstance(error, click.BadOptionUsage):
        option = next((p for p in command.params
                       if error.option_name in getattr(p, "opts", ())), None)
        if option is not None and option.is_flag:
            return Message("option {name} takes no value", name=error.option_name)
        if option is not None:
            return _takes(error.option_name, option.nargs)
    return error.format_message()


def _takes(name: str, count: int) -> Plural:
    """An option given too few values: how many it takes."""
    return Plural("option {name} takes {count} value", "option {name} takes {count} values",
                  count, name=name, count=count)


def _name(param: click.Parameter) -> str:
    """How the command line names a parameter: its long option, or an argument's name."""
    return max(param.opts, key=len) if isinstance(param, click.Option) else \
        param.human_readable_name


def _wanted(kind: click.ParamType) -> Message | None:
    """What a parameter of this type takes, for a value it refused."""
    if isinstance(kind, click.Choice):
        return Message("give one of {choices}", choices=" | ".join(map(str, kind.choices)))
    if isinstance(kind, click.IntRange) and kind.min is not None:
        if kind.max is not None:
            return Message("give a whole number from {low} to {high}", low=kind.min,
                           high=kind.max)
        return Message("give a whole number of at least {low}", low=kind.min)
    if isinstance(kind, click.FloatRange) and kind.min is not None and kind.max is not None:
        return Message("give a number from {low} to {high}", low=kind.min, high=kind.max)
    if isinstance(kind, click.types.IntParamType):
        return Message("give a whole number")
    if isinstance(kind, click.types.FloatParamType):
        return Message("give a number")
    return None


def _unknown(message: Message, close: list[str] | None) -> Message:
    if not close:
        return message
    return Message("{unknown} (did you mean {close}?)", unknown=message,
                   close=" | ".join(close))
