"""Shared output helpers: JSON for programs, progress bars for people, safe output files."""

from __future__ import annotations

import json
import math
import os
import stat
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import click

from .. import i18n
from ..errors import DicewiseError


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


def emit_json(obj) -> None:
    """Print one JSON document (NaN and infinities become null)."""
    if hasattr(obj, "to_json"):
        obj = obj.to_json()
    click.echo(json.dumps(_clean(obj), indent=2, ensure_ascii=False))


def _clean(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item"):  # numpy scalars
        return _clean(obj.item())
    return obj


@contextmanager
def progress(length: float, label: str):
    """A click progress bar on stderr; yields ``update(done)`` (fractions add up).

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
                           show_eta=True, show_percent=True) as bar:
        done = [0.0, 0]  # fractional total, whole steps shown

        def update(steps: float = 1) -> None:
            done[0] += steps
            whole = int(done[0]) - done[1]
            if whole > 0:
                bar.update(whole)
                done[1] += whole

        yield update


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


def checked_output(path) -> Path:
    """An ``--out`` path: a new name in an existing folder, or a regular file to replace.

    Devices, FIFOs and directories are refused (and never read): one line, exit 2.
    """
    if not str(path).strip():  # Path("") is the current folder
        raise DicewiseError(i18n.Message("an empty file name; give a file name"))
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise DicewiseError(_cannot_write(path, e)) from None
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise DicewiseError(i18n.Message("{path} is a directory; give a file name",
                                             path=str(path)))
        raise DicewiseError(i18n.Message("{path} is not a regular file; give a file name",
                                         path=str(path)))
    if not path.parent.is_dir():
        raise DicewiseError(i18n.Message("{path}: folder {folder} does not exist", path=str(path),
                                         folder=str(path.parent)))
    return path


def write_output(path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temporary file, then rename), checked first."""
    path = checked_output(path)
    raw = data.encode() if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise DicewiseError(_cannot_write(path, e)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise DicewiseError(_cannot_write(path, e)) from None
    return path


def _cannot_write(path, error: OSError) -> i18n.Message:
    return i18n.Message("cannot write {path}: {why}", path=str(path), why=error.strerror)


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
        raise DicewiseError(i18n.Message("cannot draw a .{format} image (--out names a .png, "
                                         ".svg, .pdf... file)", format=image_format(out)))
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
