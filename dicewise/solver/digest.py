"""Digests of code and text: how a table names the rules and the method it was built with."""

from __future__ import annotations

import hashlib
import inspect


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
