"""Help screens in the player's language: a command that speaks ``--lang`` shows its help in
that language (else the locale's), and the command list says what each command does in it.
English is click's own rendering."""

from __future__ import annotations

import inspect
import re

import click

from .typed import typed_language


#: click's own words in the usage line and in an option's value ("[OPTIONS]", "--roll
#: INTEGER"): said in the player's language, as its "Usage" and "Options" are.  The commands'
#: own placeholders (RULESET, FILE, D D D D D) stay, as the translated help texts name them.
CLICK_WORDS = ("[OPTIONS]", "COMMAND [ARGS]...", "INTEGER RANGE", "INTEGER", "FLOAT", "TEXT",
               "PATH")

_CLICK_VALUE = re.compile("(?<= )(" + "|".join(map(re.escape, CLICK_WORDS)) + ")$")


def paragraphs(help_text: str) -> list[str]:
    """A docstring's paragraphs, each on one line: the catalogs' messages for it."""
    text = inspect.cleandoc(help_text).partition("\f")[0]
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


def _first_sentence(text: str) -> str:
    """The first sentence of ``text``, whole: a command list wraps it rather than cut it to
    "..." as click's does."""
    return text.split(". ")[0]


def _option_help(param: click.Parameter, rendered: str, tr) -> str:
    """An option's help as click rendered it (help, then "[default: …]" or "[required]"),
    said through ``tr``."""
    said = getattr(param, "help", None) or ""
    extras = rendered[len(said):] if rendered.startswith(said) else ""
    extras = extras.replace("default: ", tr("default: ")).replace("required", tr("required"))
    default = getattr(param, "default", None)
    if isinstance(default, float) and hasattr(tr, "number"):  # [domyślnie: 0,5]
        extras = extras.replace(str(default), tr.number(default, ""))
    return (tr(" ".join(said.split())) if said else "") + extras


class SpokenHelp:
    """Mixed into a click command or group: its help in the language it speaks."""

    def format_usage(self, ctx, formatter):
        tr = typed_language(ctx, self)
        pieces = [tr(p) if p in CLICK_WORDS else p for p in self.collect_usage_pieces(ctx)]
        formatter.write_usage(ctx.command_path, " ".join(pieces), prefix=tr("Usage: "))

    def format_help_text(self, ctx, formatter):
        tr = typed_language(ctx, self)
        if tr.lang == "en" or not self.help:
            return super().format_help_text(ctx, formatter)
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text("\n\n".join(tr(p) for p in paragraphs(self.help)))

    def format_options(self, ctx, formatter):
        tr = typed_language(ctx, self)
        if tr.lang == "en":
            return super().format_options(ctx, formatter)
        rows = [(_CLICK_VALUE.sub(lambda m: tr(m.group()), record[0]),
                 _option_help(param, record[1], tr)) for param in self.get_params(ctx)
                if not isinstance(param, click.Argument)
                and (record := param.get_help_record(ctx)) is not None]
        if rows:
            with formatter.section(tr("Options")):
                formatter.write_dl(rows)
        if isinstance(self, click.Group):  # as click's groups list their commands
            self.format_commands(ctx, formatter)

    def format_commands(self, ctx, formatter):
        """A group's commands, each with its first sentence, whole (wrapped)."""
        tr = typed_language(ctx, self)
        commands = [(name, self.get_command(ctx, name)) for name in self.list_commands(ctx)]
        commands = [(name, command) for name, command in commands
                    if command is not None and not command.hidden]
        if commands:
            with formatter.section(tr("Commands")):
                formatter.write_dl([(name, _first_sentence(tr(paragraphs(command.help)[0]))
                                     if command.help else "") for name, command in commands])
