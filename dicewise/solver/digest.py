"""Digests of code and text: how a table names the rules and the method it was built with.

A table's rules digest is one list of engine modules (``ENGINE``) plus the game's own
modules and settings: a change to any of them makes older tables refuse to load (or be
rebuilt in the cache), so no table outlives the code that made it. Only the code counts:
comments, docstrings and blank lines cannot change a table, so editing them rebuilds none
(the fitted poker-school table takes minutes).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import re

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


#: What the code text must see of Python's tokens: string literals (from their quotes: the
#: prefix is found by looking back), comments, brackets, line continuations and the ends of
#: lines and statements. Each string is written unrolled (runs, then one escape or quote at a
#: time), which the regular expression engine scans several times faster.
_TOKENS = re.compile(r"""
    (?P<string>
        '''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*''' | \"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"
      | '[^'\\\n]*(?:\\.[^'\\\n]*)*' | "[^"\\\n]*(?:\\.[^"\\\n]*)*" )
  | (?P<comment> \#[^\n]* )
  | (?P<open> [(\[{] ) | (?P<close> [)\]}] )
  | (?P<continued> \\\n ) | (?P<end> [\n;] )
""", re.VERBOSE | re.DOTALL)


def code_text(source: str) -> str:
    """Python source without what cannot change what it computes: comments, docstrings
    (every statement that is only a string), trailing spaces and blank lines.

    One pass of a regular expression, since digests are taken on every table load (``ast``
    and ``tokenize`` take about 0.15 s over the poker-school modules; the tests hold this to
    them). A string is cut only from a statement of its own: one that shares its line with
    code (``def f(): "..."``) stays, which only keeps more text.
    """
    source = source.replace("\r\n", "\n").replace("\r", "\n") + "\n"
    cuts, strings, depth, statement, comments = [], [], 0, 0, 0
    for token in _TOKENS.finditer(source):
        kind, span = token.lastgroup, token.span()
        if kind == "comment":
            cuts.append(span)
        elif kind == "string":
            start = span[0]
            while start > span[0] - 2 and source[start - 1] in "rRbBuUfF":  # its prefix
                start -= 1
            if "f" not in source[start:span[0]].lower():  # formatting may run code: kept
                strings.append((start, span[1]))
        elif kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(depth - 1, 0)
        elif kind == "end" and depth == 0:
            if strings:  # the statement from `statement` on: strings (joined), nothing else?
                rest = _without(source, strings + cuts[comments:], statement, span[0])
                if not rest.strip(" \t\f\\\n"):
                    cuts.append((strings[0][0], strings[-1][1]))
            strings, statement, comments = [], span[1], len(cuts)
    kept = (line.rstrip() for line in _without(source, cuts, 0, len(source)).split("\n"))
    return "\n".join(line for line in kept if line.strip())


def _without(text: str, spans, start: int, end: int) -> str:
    """``text[start:end]`` with the (start, end) spans, which lie in it, taken out."""
    pieces, at = [], start
    for a, b in sorted(spans):
        pieces.append(text[at:a])
        at = max(at, b)
    return "".join(pieces) + text[at:end]


def source_digest(*modules) -> str:
    """The digest of the code of some modules (a change to any makes a new table)."""
    return digest(*(_code_text_of(m) for m in modules))


@functools.cache
def _code_text_of(module) -> str:
    return code_text(inspect.getsource(module))


def engine_modules() -> tuple:
    """The modules of ``ENGINE``, imported."""
    return tuple(importlib.import_module(f"{__package__}.{name}") for name in ENGINE)


def rules_digest(*own_modules, settings: str = "") -> str:
    """The rules digest of a table: the engine, the game's own modules and its settings."""
    return digest(source_digest(*engine_modules()), source_digest(*own_modules), settings)
