"""Score sheets as a player writes them (``"ones=3,straight=25"``), checked and encoded.

A sheet names each filled box with the score written in it; a ruleset may also accept
counters (Yahtzee's ``yahtzee_bonus``).  Encoding gives the turn-start state and the
points already earned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DicewiseError
from ..i18n import Box, Message, box_listing, canonical_box
from .category import CategoryRules


@dataclass(frozen=True)
class Sheet:
    """A checked score sheet: the filled boxes, the state it encodes, the points so far."""

    scores: tuple[tuple[str, int], ...]
    counters: tuple[tuple[str, int], ...]
    mask: int
    extra: int
    points: int

    def state(self, game: CategoryRules) -> int:
        return game.state_index(self.mask, self.extra)


def _entries(spec: str):
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep:
            raise DicewiseError(Message("sheet entry {entry} is not of the form category=score",
                                        entry=repr(item)))
        name = name.strip().lower().replace("-", "_").replace(" ", "_")
        if value.strip().lower() in ("x", "х"):  # a scratch, as poker-school writes it
            yield name, 0
            continue
        try:
            yield name, int(value.strip())
        except ValueError:
            raise DicewiseError(Message("sheet entry {entry}: the score must be an integer",
                                        entry=repr(item))) from None


def parse_sheet(game: CategoryRules, spec: str | None) -> Sheet:
    """Check a sheet against the rules of ``game`` and encode it.

    Raises DicewiseError for an unknown or repeated box, a score the box cannot hold, or
    a combination of scores no game can reach.
    """
    names = {n: i for i, n in enumerate(game.category_names)}
    scores: dict[int, int] = {}
    counters: dict[str, int] = {}
    for name, value in _entries(spec or ""):
        if name in game.sheet_counters:
            if name in counters:
                raise DicewiseError(Message("{box} is written twice on the sheet", box=name))
            if value < 0:
                raise DicewiseError(Message("{box}={value} cannot be negative", box=name,
                                            value=value))
            counters[name] = value
            continue
        if name not in names:  # the seeds' names and abbreviations, Russian and Polish too
            name = canonical_box(game.name, game.category_names, name) or name
        if name not in names:
            known = box_listing(game.name, game.category_names + game.sheet_counters)
            raise DicewiseError(Message("unknown category {box} for {game} (categories: {known})",
                                        box=repr(name), game=game.name, known=known))
        c = names[name]
        if c in scores:
            raise DicewiseError(Message("{box} is written twice on the sheet",
                                        box=Box(game.name, name)))
        if value not in game.possible_scores(c):
            allowed = sorted(game.possible_scores(c))
            shown = ", ".join(map(str, allowed if len(allowed) <= 12 else
                                  allowed[:5] + ["..."] + allowed[-3:]))
            raise DicewiseError(Message("{box}={value}: no dice score {value} in {box} "
                                        "(possible: {possible})", box=Box(game.name, name),
                                        value=value, possible=shown))
        scores[c] = value
    mask = sum(1 << c for c in scores)
    extra = game.sheet_extra(scores, counters)
    if not _reachable(game, mask, extra):
        explain = getattr(game, "why_unreachable", None)
        why = explain(scores) if explain else None
        raise DicewiseError(Message("impossible sheet: {why} ({sheet})", sheet=spec, why=why or
                                    Message("no game reaches these scores together")))
    return Sheet(tuple((game.category_names[c], s) for c, s in sorted(scores.items())),
                 tuple(sorted(counters.items())), mask, extra,
                 game.sheet_points(scores, counters))


def _reachable(game: CategoryRules, mask: int, extra: int) -> bool:
    if not 0 <= extra < game.n_extra:
        return False
    return bool(game.reachable_extras(np.array([mask]))[0, extra])
