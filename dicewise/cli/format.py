"""Shared output helpers: JSON for programs, progress bars and figures for people."""

from __future__ import annotations

import functools
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

#: Where a group's ``--lang`` (``dicewise --lang ru advise ...``) is kept: the language of
#: its help and the default of every command under it.
GROUP_LANG = "dicewise.group_lang"


def speak(lang: str | None):
    """The translator of ``--lang`` (else the locale) for the command being run, which its
    error line will use too (a language dicewise does not speak is refused in the locale's).
    A command given no ``--lang`` speaks its group's."""
    if lang is None:
        lang = click.get_current_context().meta.get(GROUP_LANG)
    try:
        tr = i18n.translator(i18n.language(lang))
    except DicewiseError:
        click.get_current_context().meta[SPOKEN] = i18n.translator(i18n.language())
        raise
    ctx = click.get_current_context()
    ctx.meta[SPOKEN] = tr
    ctx.call_on_close(functools.partial(i18n.SPOKEN.reset, i18n.SPOKEN.set(tr)))
    return tr


#: Report keys whose words alone do not read as English (the catalogs translate the key).
ENGLISH_WORDS = {"p_big_general": "probability of a big general in a game"}


def named(key: str, tr) -> str:
    """A report's key (``mean_crosses``) for people, through ``tr``: its translation, else
    its words."""
    key = str(key)
    said = tr(key)
    if said != key:
        return said
    return ENGLISH_WORDS.get(key) or tr(key.replace("_", " "))


def error_text(ctx: click.Context, error: Exception | str) -> str:
    """``error`` (or a message) said in the language of the command that raised it (English
    if it spoke none): a ``Message`` is translated, other text shown as it is."""
    tr = ctx.meta.get(SPOKEN, i18n.translator("en"))
    return i18n.said(error, tr) if isinstance(error, Exception) else i18n.in_language(error, tr)


def counted(n: int, noun: str) -> str:
    """``n`` things in English, for the commands written for bot authors: 1 decision,
    2,000 decisions (``noun`` takes an s)."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


#: Where a line of entries may break: after a comma or a semicolon, before a parenthesis
#: (not before a one-word gloss such as ``единицы (ones)``, which stays with its name),
#: before the bar between alternatives, before an arrow that marks a choice and before
#: the arrow between the territories of a chain of attacks.
_BETWEEN_ENTRIES = re.compile(r"((?<=[,;]) +| +(?=\((?![\w-]+\)))| +(?=\| )| +(?=←)| +(?=-> ))")
#: Where a value's words end and their explanation begins: after a colon (not before a
#: number: ``очков: 43`` and ``value at start: -593.43`` stay whole).
_AFTER_COLON = re.compile(r"((?<=:) +(?! )(?![-+−±]?[\d.]))")
#: The last places an entry too wide for a line may break: after any such colon, and
#: before a quoted name (``поставить крест в графу`` / ``«малый стрит»``).
_LAST_RESORT = re.compile(r"((?<=:) +(?! )(?![-+−±]?[\d.])| +(?=[«„\"]))")
#: Where a value too wide for a line of its own breaks at last: after a slash of a list
#: (``taken=twos/threes/…`` at a table of four), with no space added.
_AFTER_SLASH = re.compile(r"(?<=/)(?=[^/\s])")


#: What a sentence quotes (a player's input, a name), kept on one line where it is short.
_QUOTED = re.compile(r"'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|«[^»\n]{1,40}»|„[^”\n]{1,40}”")
#: A space that textwrap does not break at, for the spaces inside a quotation.
_KEPT_SPACE = "\ue000"


def wrapped(line: str, entries: bool = False, indent: int = 4) -> str:
    """``line`` for a terminal: where it is wider than 80 columns (or the terminal, if that is
    narrower), broken at spaces, each further line indented by ``indent``.  A line of
    ``entries`` (a sheet, a row of advice, a report) is broken only between them: after their
    commas and semicolons, before a parenthesis, a ``|`` or a ``←``; where an entry is too
    wide for a line of its own, after its colon too, and only then inside its parentheses or
    before a quoted name, and last after a slash: ``малый стрит=15``, ``2 броска`` and
    ``(x, если стёрта)`` stay whole."""
    width = min(80, shutil.get_terminal_size().columns)
    if not entries:  # a sentence: broken at any space but inside what it quotes (as typed)
        kept = _QUOTED.sub(lambda m: m.group().replace(" ", _KEPT_SPACE), line)
        return textwrap.fill(kept, width, subsequent_indent=" " * indent, break_long_words=False,
                             break_on_hyphens=False).replace(_KEPT_SPACE, " ")
    pieces = _entries(line, width, width - indent)
    lines = [pieces[0][1]]
    for gap, item in pieces[1:]:
        if len(lines[-1]) + len(gap) + len(item) <= width:
            lines[-1] += gap + item
        else:
            lines.append(" " * indent + item)
    return "\n".join(lines)


def _entries(text: str, first: int, room: int, level: int = 0) -> list[tuple[str, str]]:
    """``text`` as (the spaces before, entry) pairs: split between its entries outside any
    parenthesis, and an entry wider than its line (``first`` columns for the first, ``room``
    for the others) split again after its colons outside a parenthesis (``level`` 1), then
    between the entries inside its parentheses (2), then after any colon or before a quoted
    name (3), then after a slash (4)."""
    pattern = (_BETWEEN_ENTRIES, _AFTER_COLON, _BETWEEN_ENTRIES, _LAST_RESORT,
               _AFTER_SLASH)[level]
    breaks = [m for m in pattern.finditer(text) if level > 1 or not _inside(text, m.start())]
    ends = [0] + [i for m in breaks for i in m.span()] + [len(text)]
    gaps = [""] + [m.group() for m in breaks]
    pieces = []
    for gap, start, end in zip(gaps, ends[0::2], ends[1::2]):
        item = text[start:end]
        if len(item) > (room if pieces else first) and level < 4:
            inner = _entries(item, room if pieces else first, room, level + 1)
            pieces += [(gap, inner[0][1]), *inner[1:]]
        else:
            pieces.append((gap, item))
    return pieces


def _inside(text: str, at: int) -> bool:
    """Whether ``at`` is inside a parenthesis of ``text``."""
    return text.count("(", 0, at) > text.count(")", 0, at)


def say(line: str, indent: int = 4) -> None:
    """Print ``line`` of entries for people, broken to fit 80 columns (``wrapped``)."""
    click.echo(wrapped(line, entries=True, indent=indent))


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


def _ticks_in_language(fig, tr) -> None:
    """The figures on ``fig``'s axes (a colour bar's too) with the decimal mark of the
    language ``tr`` speaks: 0,2 in Russian and Polish (no thousands mark on an axis)."""
    if tr.lang == "en":
        return
    from matplotlib.ticker import ScalarFormatter

    class Said(ScalarFormatter):
        def __call__(self, x, pos=None):
            return i18n.figures_in_language(super().__call__(x, pos), tr)

        def get_offset(self):
            return i18n.figures_in_language(super().get_offset(), tr)

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if type(axis.get_major_formatter()) is ScalarFormatter:
                axis.set_major_formatter(Said())


def write_figure(plt, fig, out) -> None:
    """Render ``fig`` in the format ``out`` names, close it, write it atomically."""
    import io

    image = io.BytesIO()
    try:
        _ticks_in_language(fig, i18n.SPOKEN.get())
        fig.savefig(image, format=image_format(out), dpi=120)
    except Exception as e:  # a format matplotlib names but cannot write here (.pgf: LaTeX)
        why = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise DicewiseError(i18n.Message("cannot draw a .{format} image here ({why})",
                                         format=image_format(out), why=why[:120])) from None
    finally:
        plt.close(fig)
    write_output(out, image.getvalue())
