"""Digests of code and text: how a table names the rules and the method it was built with.

A table's rules digest is one list of engine modules (``ENGINE``) plus the game's own
modules and settings: a change to any of them makes older tables refuse to load (or be
rebuilt in the cache), so no table outlives the code that made it.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect

#: The engine every solved table depends on, whatever the game: the dice structure, the
#: turn kernel and its compiled loops, the category driver and its max over boxes, scoring
#: helpers, options and sheets (a test walks the driver's imports to keep this list complete).
ENGINE = ("dice", "turn", "compiled", "category", "best_write", "scoring", "options", "sheet")


def digest(*parts: bytes | str) -> str:
    """A short hex digest of some texts (the "rules digest" of a table)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:16]


def source_digest(*modules) -> str:
    """The digest of the source code of some modules (a change to any makes a new table)."""
    return digest(*(inspect.getsource(m) for m in modules))


def engine_modules() -> tuple:
    """The modules of ``ENGINE``, imported."""
    return tuple(importlib.import_module(f"{__package__}.{name}") for name in ENGINE)


def rules_digest(*own_modules, settings: str = "") -> str:
    """The rules digest of a table: the engine, the game's own modules and its settings."""
    return digest(source_digest(*engine_modules()), source_digest(*own_modules), settings)
