"""The one exception type for bad input and bad files; the CLI prints it as one line, exit 2."""

import contextvars

#: True while the command line calls the library: refusals name its flags (``--players 2
#: takes no --target``), which the Python API says as its arguments (``players=2``).
COMMAND_LINE = contextvars.ContextVar("dicewise_command_line", default=False)


class DicewiseError(ValueError):
    """Input or a file that dicewise refuses, with a message a user can act on."""


class UnfitArguments(DicewiseError):
    """Arguments that do not go together (two players and a target): the command line says
    where its help tells which do."""


class TableError(DicewiseError):
    """A table file that cannot be used: unreadable, damaged, or built for other rules."""


class TableMismatch(TableError):
    """A sound table file built for something else: ``key`` says what (``kind``, ``ruleset``,
    ``options`` or ``rules_digest``)."""

    def __init__(self, message, key: str):
        super().__init__(message)
        self.key = key


class NotATableFile(TableError):
    """A file that is no dicewise table at all (so nothing to rebuild in its place)."""


class BadAction(DicewiseError):
    """An agent's answer that is not a legal action in its position."""
