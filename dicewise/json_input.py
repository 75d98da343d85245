"""JSON that people and programs send dicewise, read strictly: a name given twice in one
object is refused.  RFC 8259 leaves such an object's meaning undefined and Python's ``json``
keeps the last value, so ``{"keep": [6, 6], "keep": [1]}`` would be played as one of two
readings without a word."""

from __future__ import annotations

import json


class RepeatedName(ValueError):
    """A JSON object gives one name twice."""

    def __init__(self, name: str):
        super().__init__(f"the name {json.dumps(name, ensure_ascii=False)} is given twice in one "
                         "object")
        self.name = name


def _unique(pairs):
    seen = {}
    for name, value in pairs:
        if name in seen:
            raise RepeatedName(name)
        seen[name] = value
    return seen


def loads(text):
    """``json.loads`` that refuses an object with a name given twice (``RepeatedName``, a
    ``ValueError``)."""
    return json.loads(text, object_pairs_hook=_unique)
