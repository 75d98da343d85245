"""The command line as typed, read before click has parsed it: what is said while it is
parsed (a refusal, a help screen) follows its ``--lang`` before the command can."""

from __future__ import annotations

import click

from .. import i18n
from ..errors import DicewiseError

#: Where the top group keeps the command line as typed (click shares ``meta`` with the
#: subcommands' contexts).
TYPED = "dicewise.typed"


def typed_value(typed: list[str], names, count: int = 1) -> str | None:
    """What the command line gave the last of the options ``names`` (click takes the last),
    its ``count`` words joined; None where it gave none."""
    value = None
    for at, word in enumerate(typed):
        if word in names:
            value = " ".join(typed[at + 1:at + 1 + count]) or None
        elif "=" in word and word.split("=", 1)[0] in names:
            value = word.split("=", 1)[1]
    return value


def typed_language(ctx: click.Context, command: click.Command) -> i18n.Translator:
    """The translator ``command`` would speak: its typed ``--lang``, else the locale, where it
    speaks one (a group, such as the top one, speaks the locale's); English for the
    others.  A language dicewise does not speak falls back to the locale's, the language its
    refusal is said in."""
    speaks = isinstance(command, click.Group) or any(p.name == "lang" for p in command.params)
    if not speaks:
        return i18n.translator("en")
    try:
        return i18n.translator(i18n.language(typed_value(ctx.meta.get(TYPED, []), ["--lang"])))
    except DicewiseError:
        return i18n.translator(i18n.language())
