"""The ``dicewise`` command group and the error convention shared by every command."""

from __future__ import annotations

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


def fail(message: str):
    """Print one error line on stderr and exit with status 2."""
    click.echo(f"dicewise: error: {message}", err=True)
    sys.exit(2)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dicewise")
def cli():
    """Optimal play for dice games: exact solvers, advice, tables and AI benchmarks."""


def main():
    cli(prog_name="dicewise")


def _register():
    from . import games, play  # noqa: F401  (commands register themselves on ``cli``)
    from .risk import risk
    from .ryzykant import duel

    cli.add_command(risk)
    cli.add_command(duel)


_register()
