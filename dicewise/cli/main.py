"""The ``dicewise`` command group and the error convention shared by every command."""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import signal
import sys
import threading

import click

from .. import __version__
from ..errors import COMMAND_LINE, DicewiseError, UnfitArguments
from ..i18n import Message, message_of, os_reason
from .format import GROUP_LANG, SPOKEN, error_text
from .helptext import SpokenHelp
from .refusals import refusal
from .typed import TYPED, typed_language


#: Raised by a group called without arguments so that it prints its help (click ≥ 8.2).
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class Group(click.Group):
    """A click group that reports bad input as one line on stderr and exit status 2."""

    def parse_args(self, ctx, args):
        ctx.meta.setdefault(TYPED, list(args))
        try:
            option_given_twice(ctx, self, _before_the_command(self, args))
            return super().parse_args(ctx, args)
        except _NO_ARGS_IS_HELP:
            raise  # a bare group shows its help, as click does
        except click.UsageError as e:  # the group's own options, before any subcommand
            fail(ctx, _usage_error(ctx, e))

    def invoke(self, ctx):
        with _hearing_ctrl_c() as heard, _stopping_on_sigterm(heard):
            ctx.meta.setdefault(_HEARD, heard)  # the outermost group hears the signals
            flags_named = COMMAND_LINE.set(True)  # the library's refusals name the flags
            try:
                return self._invoke(ctx)
            except Exception:
                if heard:  # a library caught the KeyboardInterrupt and failed its own way
                    interrupted(ctx)
                raise
            finally:
                COMMAND_LINE.reset(flags_named)

    def _invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except UnfitArguments as e:  # refused by the API, as click refuses a command line
            fail(ctx, error_text(ctx, Message("{error} (see `{command} --help`)",
                                         error=message_of(e), command=_help_path(ctx, e))))
        except DicewiseError as e:
            fail(ctx, error_text(ctx, e))
        except _NO_ARGS_IS_HELP:
            raise
        except click.UsageError as e:
            fail(ctx, _usage_error(ctx, e))
        except KeyboardInterrupt:  # Ctrl+C: one line in the player's language, not click's
            interrupted(ctx)  # English "Aborted!" with status 1
        except MemoryError:  # asked for more than this machine holds: say so, no traceback
            fail(ctx, error_text(ctx, Message("not enough memory for this request; ask for less "
                                         "(fewer games, smaller armies or tables)")))
        except BrokenPipeError:  # the reader left (| head): nothing more to say, as click does
            _stdout_to_nowhere()
            sys.exit(1)
        except OSError as e:  # the output could not be written (a full disk), or other I/O
            if e.filename is not None:  # a file's: named
                fail(ctx, error_text(ctx, Message("{path}: {why}", path=str(e.filename),
                                             why=os_reason(e))))
            if e.errno not in _OUTPUT_ERRORS:
                fail(ctx, error_text(ctx, os_reason(e)))
            _stdout_to_nowhere()
            fail(ctx, error_text(ctx, Message("cannot write the output: {why}", why=os_reason(e))))


#: What writing the output fails with: no room left on its disk, or a file grown too big.
_OUTPUT_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _stdout_to_nowhere() -> None:
    """Point standard output at nothing, so that what it still holds does not fail the exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


class Command(SpokenHelp, click.Command):
    """A command whose help and stray arguments are said in the player's language (click's
    own refusal of stray arguments is English, so it is made here)."""

    def parse_args(self, ctx, args):
        ctx.allow_extra_args = True
        option_before_its_value(ctx, self, args)
        option_given_twice(ctx, self, args)
        stray = super().parse_args(ctx, args)
        if not ctx.resilient_parsing:
            # what a user should hear of first (after an option whose value is another option,
            # `--sheet --dice ...`, refused before the words are read): a ruleset without this
            # command (`advise risk`, `advise risk 7 4`), then a required parameter left out,
            # then what was typed stray
            _lacking(ctx)
            for param in self.params:
                if isinstance(param, RequiredInTheCommand) and ctx.params.get(param.name) is None:
                    raise click.MissingParameter(ctx=ctx, param=param)
            if stray:
                raise click.UsageError(Message("unexpected arguments: {arguments}",
                                               arguments=" ".join(stray)), ctx)
        return stray


def option_before_its_value(ctx, command, args) -> None:
    """Refuse, before click reads the words, an option followed by another of the command's
    options where its value should be (``--roll --dice 1 2 3 4 5``): click would say that
    ``--dice`` is no whole number, or take ``--json`` for a language."""
    takes = _taking_a_value(command)
    options = {name for param in command.params for name in getattr(param, "opts", ())
               if name.startswith("-")} | set(ctx.help_option_names)
    for word, after in zip(args, args[1:]):
        if word == "--":
            return
        if word in takes and after in options:
            raise click.UsageError(Message("{option} needs a value: {value} is an option of "
                                           "this command", option=max(takes[word].opts, key=len),
                                           value=after), ctx)


def _taking_a_value(command) -> dict:
    """{name: option} of the command's options that take a value."""
    return {name: param for param in command.params if isinstance(param, click.Option)
            and not param.is_flag and not param.count for name in param.opts}


def _before_the_command(group, args) -> list:
    """The words of ``args`` that are the group's own: its options and their values, up to
    the command's name (``dicewise --lang ru advise ... --lang pl``: the first two)."""
    takes = _taking_a_value(group)
    own, words = [], iter(args)
    for word in words:
        if not word.startswith("-") or word == "--":
            break
        own.append(word)
        if word in takes:
            own.append(next(words, ""))
    return own


def option_given_twice(ctx, command, args) -> None:
    """Refuse an option of one value given twice (``--sheet ones=3 --sheet twos=2``): click
    keeps the last and drops the first without a word."""
    takes = _taking_a_value(command)
    seen = set()
    for word in args:
        if word == "--":
            return
        param = takes.get(word.split("=", 1)[0] if word.startswith("--") else word)
        if param is None or param.multiple:
            continue
        if param.name in seen:
            raise click.UsageError(Message("{option} is given twice; give it once",
                                           option=max(param.opts, key=len)), ctx)
        seen.add(param.name)


def _lacking(ctx) -> None:
    """Refuse a game's command (``COMMANDS``) whose ruleset is unknown or lacks it."""
    from ..solver.protocol import COMMANDS, unsupported
    from ..solver.registry import get_game

    ruleset = ctx.params.get("ruleset")
    if ruleset is not None and ctx.command.name in COMMANDS:
        if SPOKEN not in ctx.meta:  # refused while parsing: in the language typed (--lang)
            ctx.meta[SPOKEN] = typed_language(ctx, ctx.command)
        game = get_game(ruleset, ctx.command.name)
        if ctx.command.name not in game.commands:
            raise unsupported(game, ctx.command.name)


class RequiredInTheCommand:
    """A required parameter (its help and usage say so) that ``Command.parse_args`` asks for
    only once the ruleset is known to have the command (``advise risk``: risk has no
    advice, not "missing option --dice")."""

    def value_is_missing(self, value) -> bool:
        return False


class RequiredOption(RequiredInTheCommand, click.Option):
    """An option required after the ruleset (``RequiredInTheCommand``)."""


class RequiredArgument(RequiredInTheCommand, click.Argument):
    """An argument required after the ruleset (``RequiredInTheCommand``)."""


def _usage_error(ctx, error: click.UsageError) -> str:
    """A refused command line, said in the language the command speaks."""
    command = _refused(ctx, error)
    if SPOKEN not in ctx.meta:  # refused while parsing, before the command said its language
        ctx.meta[SPOKEN] = typed_language(ctx, command)
    said = refusal(error, command, ctx.meta.get(TYPED, []))
    return error_text(ctx, Message("{error} (see `{command} --help`)", error=said,
                                   command=_help_path(ctx, error)))


def _refused(ctx, error: click.UsageError) -> click.Command:
    """The command whose command line was refused (click does not always say)."""
    if error.ctx is not None:
        return error.ctx.command
    if ctx.invoked_subcommand:
        return ctx.command.get_command(ctx, ctx.invoked_subcommand)
    return ctx.command


def _help_path(ctx, error: click.UsageError | UnfitArguments) -> str:
    """The command whose help fits the error: a subcommand whose options failed to parse
    reports the group's context, so name the subcommand being invoked."""
    if getattr(error, "ctx", None) is not None and error.ctx is not ctx:
        return error.ctx.command_path
    if ctx.invoked_subcommand:
        return f"{ctx.command_path} {ctx.invoked_subcommand}"
    return ctx.command_path


class LazyGroup(SpokenHelp, Group):
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


def _group_language(ctx: click.Context, param, value: str | None):
    """Keep a group's ``--lang`` for its commands, which check it (its help, like theirs, is
    said in the locale's language where dicewise does not speak the one given)."""
    if value is not None:
        ctx.meta[GROUP_LANG] = value


#: A group's ``--lang``: its help's language, and its commands' unless they are given theirs.
group_lang = click.option("--lang", default=None, expose_value=False, is_eager=True,
                          callback=_group_language,
                          help="en, ru or pl, for this help and the commands after it "
                          "(default: from the locale).")


def fail(ctx: click.Context, message: str):
    """Print one error line on stderr, in the language of ``ctx``'s command, and exit with
    status 2."""
    tr = ctx.meta.get(SPOKEN) or (lambda text: text)
    click.echo(f"dicewise: {tr('error')}: {message}", err=True)
    sys.exit(2)


#: The exit status of a command stopped by Ctrl+C: 128 + SIGINT, as shells expect.
INTERRUPTED = 130
#: ... and by SIGTERM (``kill``, ``timeout``): 128 + SIGTERM.
TERMINATED = 143
#: Where a command's context keeps the signals heard (``interrupted`` says which).
_HEARD = "dicewise.heard"


@contextlib.contextmanager
def _hearing_ctrl_c():
    """A list that is not empty once Ctrl+C was pressed, which still raises
    KeyboardInterrupt.  Some libraries swallow that exception in a callback and fail with an
    error of their own (numba's compiler, through llvmlite's ctypes callbacks, raises
    "no compiled object yet"): such an error after a Ctrl+C is the interrupt, and Python's
    report of the swallowed exception ("Exception ignored on calling ctypes callback
    function" and its traceback) is not printed.  Where the library goes on instead, the
    interrupt is raised again a moment later, so that a Ctrl+C is never lost."""
    heard: list[int] = []
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or \
            previous is not signal.default_int_handler:  # ignored, or someone else's
        yield heard
        return

    def hear(signum, frame):
        heard.append(signum)
        raise KeyboardInterrupt

    unraisable = sys.unraisablehook
    main = threading.main_thread().ident
    listening = threading.Event()

    def again():
        if listening.is_set():
            signal.pthread_kill(main, signal.SIGINT)

    def swallowed(report):
        if not (heard and issubclass(report.exc_type, KeyboardInterrupt)):
            unraisable(report)
        elif listening.is_set():
            # Raised where it could not get out (a ctypes callback, a __del__, a weakref
            # callback) and lost if the code around goes on: said again a moment later, to
            # this thread, in code that can stop
            timer = threading.Timer(_SAY_AGAIN, again)
            timer.daemon = True
            timer.start()

    signal.signal(signal.SIGINT, hear)
    sys.unraisablehook = swallowed
    listening.set()
    try:
        yield heard
    finally:
        listening.clear()
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = unraisable


#: Seconds after a Ctrl+C that a library swallowed before it is raised again.
_SAY_AGAIN = 0.05


@contextlib.contextmanager
def _stopping_on_sigterm(heard: list[int]):
    """SIGTERM stops a command as Ctrl+C does, where nothing else handles it: the command's
    ``finally`` clauses run (a table's build lock is removed, its workers let go), and
    ``interrupted`` says "terminated" with status 143.  Python's default would end the
    process on the spot, leaving the lock file behind."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def stop(signum, frame):
        heard.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupted(ctx: click.Context):
    """Say on stderr, in the language of the command, that it was stopped, and exit with
    status 130 (what a shell or a script reads as "stopped by Ctrl+C"; 143 and
    "terminated" after SIGTERM).  The ``exec``
    clears CPython's note of a Ctrl+C that stopped code run from a string (as SciPy runs
    some of its imports), which would otherwise end ``python -m dicewise`` by SIGINT
    rather than with status 130."""
    stopped = terminated(ctx)
    said = Message("terminated") if stopped else Message("interrupted")
    click.echo(f"dicewise: {error_text(ctx, said)}", err=True)
    exec("")
    sys.exit(TERMINATED if stopped else INTERRUPTED)


def terminated(ctx: click.Context) -> bool:
    """Whether SIGTERM stopped the command (not a Ctrl+C)."""
    return signal.SIGTERM in ctx.find_root().meta.get(_HEARD, ())


COMMANDS = {
    "rules": "games:rules", "solve": "games:solve", "advise": "games:advise",
    "chance": "games:chance",
    "simulate": "measure:simulate", "table": "measure:table",
    "bench-agent": "measure:bench_agent_command", "review": "measure:review",
    "duel": "measure:duel", "risk": "risk:risk",
    "serve": "serve:serve",
    "play": "play_along:play",
}


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dicewise")
@group_lang
def cli():
    """Optimal play for dice games: exact solvers, advice, tables and AI benchmarks."""


def main():
    try:
        cli(prog_name="dicewise")
    except SystemExit as done:
        if done.code == INTERRUPTED:
            _end_now(INTERRUPTED)
        raise


def _end_now(status: int):
    """End the process at once, its output written: a library stopped mid-way by Ctrl+C
    (numba's compiler) may crash or complain while Python tears it down, after the one
    line that was to be all."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)
