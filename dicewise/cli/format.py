"""Shared output helpers: JSON for programs, aligned text and progress bars for people."""

from __future__ import annotations

import json
import math
import sys
from contextlib import contextmanager

import click


def emit_json(obj) -> None:
    """Print one JSON document (NaN and infinities become null)."""
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
def progress(length: int, label: str):
    """A click progress bar on stderr; yields a callback taking the number of steps done."""
    with click.progressbar(length=length, label=label, file=sys.stderr, show_eta=True,
                           show_percent=True) as bar:
        yield bar.update
