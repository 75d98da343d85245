"""The ``dicewise`` command group and the error convention shared by every command."""

from __future__ import annotations

import importlib
import sys

import click

from .. import __version__
from ..errors import DicewiseError


class Group(click.Group):
    """A click group that reports bad input as one line on stderr and exit status 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except DicewiseError as e:
            fail(str(e))
        except click.UsageError as e:
            name = e.ctx.command_path if e.ctx else ctx.command_path
            fail(f"{e.format_message()} (see `{name} --help`)")


class LazyGroup(Group):
    """The top-level group: each command's module is imported only when it is run, so a
    one-shot command (``advise``) does not pay for the others' imports."""

    def __init__(self, *args, lazy: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx, name):
        if name in self.lazy and name not in self.commands:
            module, attr = self.lazy[name].split(":")
            self.add_command(getattr(importlib.import_module(f".{module}", __package__), attr), name)
        return super().get_command(ctx, name)


def fail(message: str):
    """Print one error line on stderr and exit with status 2."""
    click.echo(f"dicewise: error: {message}", err=True)
    sys.exit(2)


COMMANDS = {
    "rules": "games:rules", "solve": "games:solve", "advise": "games:advise",
    "simulate": "play:simulate", "table": "play:table", "bench-agent": "play:bench_agent_command",
    "review": "play:review", "risk": "risk:risk", "duel": "ryzykant:duel",
}


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dicewise")
def cli():
    """Optimal play for dice games: exact solvers, advice, tables and AI benchmarks."""


def main():
    cli(prog_name="dicewise")
