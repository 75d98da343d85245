"""The tables being built right now, so the page can say "building the table for the first time".

The store calls a progress factory only when it builds a table; the server hands it
:meth:`Builds.factory`, and the page polls ``GET /api/status`` while an answer is slow.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time

from ..errors import DicewiseError


class BuildStopped(DicewiseError):
    """A table build given up because the server is stopping."""


class Builds:
    """A thread-safe registry of table builds in progress: label, units done, units in all."""

    def __init__(self):
        self._lock = threading.Lock()
        self._running: dict[int, dict] = {}
        self._ids = itertools.count()
        self._stopping = threading.Event()

    def stop(self) -> None:
        """Every build in progress gives up at its next step, and none starts: the server is
        stopping, and would otherwise wait minutes for them (a table is written whole or
        not at all; a two-player build's checkpoints are kept)."""
        self._stopping.set()

    def _check(self) -> None:
        if self._stopping.is_set():
            raise BuildStopped("the server is stopping: the table was not built")

    @contextlib.contextmanager
    def factory(self, units: float, label: str):
        """A progress factory for ``dicewise.api`` (``(units, label) -> update(done)``)."""
        self._check()
        key = next(self._ids)
        entry = {"label": label, "done": 0.0, "units": float(units), "since": time.time()}
        with self._lock:
            self._running[key] = entry

        def update(steps: float = 1) -> None:
            self._check()
            with self._lock:
                entry["done"] += steps

        try:
            yield update
        finally:
            with self._lock:
                del self._running[key]

    def snapshot(self) -> list[dict]:
        """The builds in progress: ``{"label", "game", "fraction", "seconds"}`` each, oldest
        first (``game``: the ruleset the table is for, which the page names in its language)."""
        now = time.time()
        with self._lock:
            entries = list(self._running.values())
        return [{"label": str(e["label"]),
                 "game": getattr(e["label"], "fields", {}).get("game", str(e["label"])),
                 "fraction": min(1.0, e["done"] / e["units"]) if e["units"] > 0 else None,
                 "seconds": round(now - e["since"], 1)} for e in entries]
