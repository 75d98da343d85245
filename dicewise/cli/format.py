"""Shared output helpers: JSON for programs, progress bars and figures for people."""

from __future__ import annotations

import json
import math
import re
import shutil
import sys
import textwrap
import time
from contextlib import contextmanager
from pathlib import Path

import click

from .. import i18n
from ..errors import DicewiseError
from ..tables.files import checked_output, write_output  # noqa: F401  (the commands' --out)


#: Where a command leaves the language it speaks, so that its error line is said in that
#: language too (click shares a context's ``meta`` with the group's).
SPOKEN = "dicewise.translator"


def speak(lang: str | None):
    """The translator of ``--lang`` (else the locale) for the command being run, which its
    error line will use too (a language dicewise does not speak is refused in the locale's)."""
    try:
        tr = i18n.translator(i18n.language(lang))
    except DicewiseError:
        click.get_current_context().meta[SPOKEN] = i18n.translator(i18n.language())
        raise
    click.get_current_context().meta[SPOKEN] = tr
    return tr


def named(key: str, tr) -> str:
    """A report's key (``mean_crosses``) for people, through ``tr``: its translation, else
    its words."""
    key = str(key)
    said = tr(key)
    return said if said != key else tr(key.replace("_", " "))


def error_text(ctx: click.Context, error: Exception | str) -> str:
    """``error`` (or a message) said in the language of the command that raised it (English
    if it spoke none): a ``Message`` is translated, other text shown as it is."""
    tr = ctx.meta.get(SPOKEN, i18n.translator("en"))
    return i18n.said(error, tr) if isinstance(error, Exception) else i18n.in_language(error, tr)


def counted(n: int, noun: str) -> str:
    """``n`` things in English, for the commands written for bot authors: 1 decision,
    2,000 decisions (``noun`` takes an s)."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


def wrapped(line: str, entries: bool = False, indent: int = 4) -> str:
    """``line`` for a terminal: where it is wider than 80 columns (or the terminal, if that is
    narrower), broken at spaces, each further line indented by ``indent``.  A line of
    ``entries`` (a sheet, a row of advice) is broken only between them, after their commas
    and semicolons or before a parenthesis: ``малый стрит=15`` and ``2 броска`` stay whole."""
    width = min(80, shutil.get_terminal_size().columns)
    if not entries:
        return textwrap.fill(line, width, subsequent_indent=" " * indent,
                             break_long_words=False, break_on_hyphens=False)
    parts = re.split(r"((?<=[,;]) +| +(?=\())", line)  # entries, and the spaces between
    lines = [parts[0]]
    for gap, item in zip(parts[1::2], parts[2::2]):
        if len(lines[-1]) + len(gap) + len(item) <= width:
            lines[-1] += gap + item
        else:
            lines.append(" " * indent + item)
    return "\n".join(lines)


def emit_json(obj) -> None:
    """Print one JSON document (NaN and infinities become null)."""
    if hasattr(obj, "to_json"):
        obj = obj.to_json()
    from ..api import jsonable  # not at import: `dicewise --help` needs no NumPy

    click.echo(json.dumps(jsonable(obj), indent=2, ensure_ascii=False))


#: The share of a piece of work done before its bar says the time left: the first steps (a
#: table's first layers, the start-up) say little of the rest, and an estimate from them read
#: ``588d 15:54:06``.
ETA_AFTER = 0.02


@contextmanager
def progress(length: float, label: str):
    """A click progress bar on stderr; yields ``update(done)`` (fractions add up).  The time
    left is shown once ``ETA_AFTER`` of the work is done, estimated from the whole time so
    far (click's own estimate, from the first steps, can be absurd).

    Where stderr is no terminal (a log, a pipe) the label is one line of its own, so it is
    never glued to the output that follows."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and SPOKEN in ctx.meta:  # a table being built, in the command's language
        label = i18n.in_language(label, ctx.meta[SPOKEN])
    if not sys.stderr.isatty():
        click.echo(f"{label} ...", err=True)
        yield _logged_progress(length, label)
        return
    with click.progressbar(length=max(int(math.ceil(length)), 1), label=label, file=sys.stderr,
                           show_eta=False, show_percent=True,
                           item_show_func=lambda left: left) as bar:
        done = [0.0, 0]  # fractional total, whole steps shown
        start = time.monotonic()

        def update(steps: float = 1) -> None:
            done[0] += steps
            whole = int(done[0]) - done[1]
            if whole > 0:
                bar.update(whole, time_left(done[0], length, time.monotonic() - start))
                done[1] += whole

        yield update


def time_left(done: float, length: float, elapsed: float) -> str | None:
    """The time left, ``HH:MM:SS`` (``Nd HH:MM:SS`` past a day), as a bar shows it: None
    (nothing shown) before ``ETA_AFTER`` of the work is done, empty once it is all done."""
    if length <= 0 or done >= length:
        return ""
    if done < ETA_AFTER * length:
        return None
    minutes, seconds = divmod(int(elapsed * (length - done) / done), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    clock = f"{hours:02}:{minutes:02}:{seconds:02}"
    return f"{days}d {clock}" if days else clock


#: Seconds between the lines that say how far a long piece of work has come in a log.
LOG_EVERY = 60


def _logged_progress(length: float, label: str):
    """``update(done)`` for a log: a line ``label ... 40% (2:05)`` once a minute, so that a
    long build shows it is going on (work done within the minute says nothing more)."""
    start = time.monotonic()
    state = {"done": 0.0, "said": start}

    def update(steps: float = 1) -> None:
        state["done"] += steps
        now = time.monotonic()
        if now - state["said"] >= LOG_EVERY:
            state["said"] = now
            minutes, seconds = divmod(int(now - start), 60)
            share = min(state["done"] / length, 1.0) if length > 0 else 1.0
            click.echo(f"{label} ... {share:.0%} ({minutes}:{seconds:02d})", err=True)

    return update


def pyplot(out):
    """matplotlib's pyplot for drawing into ``out`` (checked first), or one clear error."""
    try:
        import matplotlib
    except ImportError:
        raise DicewiseError(i18n.Message("plots need matplotlib: pip install 'dicewise[plot]'")) \
            from None
    checked_output(out)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backend_bases import FigureCanvasBase

    if image_format(out) not in FigureCanvasBase.get_supported_filetypes():
        raise DicewiseError(i18n.Message("cannot draw a .{format} image (name a .png, .svg, "
                                         ".pdf... file)", format=image_format(out)))
    return plt


def image_format(out) -> str:
    return Path(out).suffix[1:].lower() or "png"


def write_figure(plt, fig, out) -> None:
    """Render ``fig`` in the format ``out`` names, close it, write it atomically."""
    import io

    image = io.BytesIO()
    try:
        fig.savefig(image, format=image_format(out), dpi=120)
    finally:
        plt.close(fig)
    write_output(out, image.getvalue())
