"""Score sheets as a player writes them (``"ones=3,straight=25"``), checked and encoded.

A sheet names each filled box with the score written in it; a ruleset may also accept
counters (Yahtzee's ``yahtzee_bonus``).  Encoding gives the turn-start state and the
points already earned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DicewiseError
from ..i18n import canonical_box
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
            raise DicewiseError(f"sheet entry {item!r} is not of the form category=score")
        name = name.strip().lower().replace("-", "_").replace(" ", "_")
        if value.strip().lower() in ("x", "х"):  # a scratch, as poker-school writes it
            yield name, 0
            continue
        try:
            yield name, int(value.strip())
        except ValueError:
            raise DicewiseError(f"sheet entry {item!r}: the score must be an integer") from None


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
                raise DicewiseError(f"{name} is written twice on the sheet")
            if value < 0:
                raise DicewiseError(f"{name}={value} cannot be negative")
            counters[name] = value
            continue
        if name not in names:  # the seeds' names and abbreviations, Russian and Polish too
            name = canonical_box(game.name, game.category_names, name) or name
        if name not in names:
            known = ", ".join(game.category_names + game.sheet_counters)
            raise DicewiseError(f"unknown category {name!r} for {game.name} (categories: {known})")
        c = names[name]
        if c in scores:
            raise DicewiseError(f"category {name} is written twice on the sheet")
        if value not in game.possible_scores(c):
            allowed = sorted(game.possible_scores(c))
            shown = ", ".join(map(str, allowed if len(allowed) <= 12 else
                                  allowed[:5] + ["..."] + allowed[-3:]))
            raise DicewiseError(f"{name}={value}: no dice score {value} in {name} "
                                f"(possible: {shown})")
        scores[c] = value
    mask = sum(1 << c for c in scores)
    extra = game.sheet_extra(scores, counters)
    if not _reachable(game, mask, extra):
        explain = getattr(game, "why_unreachable", None)
        why = explain(scores) if explain else None
        raise DicewiseError(f"impossible sheet: {why or 'no game reaches these scores together'}"
                            f" ({spec})")
    return Sheet(tuple((game.category_names[c], s) for c, s in sorted(scores.items())),
                 tuple(sorted(counters.items())), mask, extra,
                 game.sheet_points(scores, counters))


def _reachable(game: CategoryRules, mask: int, extra: int) -> bool:
    if not 0 <= extra < game.n_extra:
        return False
    return bool(game.reachable_extras(np.array([mask]))[0, extra])
