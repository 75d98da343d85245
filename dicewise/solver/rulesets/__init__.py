"""The registry of rulesets: every game dicewise knows, by the name the CLI uses.

Category games (solved by the generic engine) are imported here; the others are named by
module so that listing rulesets stays cheap.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from ...errors import DicewiseError
from .general import General
from .poker_programs import PokerPrograms
from .yahtzee import Yahtzee
from .yatzy import Yatzy

CATEGORY_GAMES = {cls.name: cls for cls in (General, PokerPrograms, Yahtzee, Yatzy)}


@dataclass(frozen=True)
class RulesetEntry:
    """One registered game: its name, a line about it, whether it is solved exactly."""

    name: str
    title: str
    exact: bool
    module: str
    cls: str | None = None

    def load(self):
        """The ruleset class (None for games without one, such as Risk)."""
        if self.cls is None:
            return None
        return getattr(importlib.import_module(self.module, __package__), self.cls)


RULESETS = {
    **{name: RulesetEntry(name, cls.title, True, cls.__module__, cls.__name__)
       for name, cls in CATEGORY_GAMES.items()},
    "poker-school": RulesetEntry("poker-school", "Покер with a school and three columns, from the "
                                 "Russian seed", False, "dicewise.solver.poker_school.rules",
                                 "PokerSchool"),
    "ryzykant": RulesetEntry("ryzykant", "Ryzykant, the 2+2+1 game, from the Polish seed", False,
                             "dicewise.solver.ryzykant.rules", "Ryzykant"),
    "risk": RulesetEntry("risk", "Risk battles, stopping, chain attacks and cards, from the French "
                         "seed (exact Markov chains)", True, "dicewise.solver.risk.battle"),
}


def ruleset_entry(name: str) -> RulesetEntry:
    """The registry entry of ``name``, or a DicewiseError listing the known names."""
    try:
        return RULESETS[name]
    except KeyError:
        raise DicewiseError(f"unknown ruleset {name!r} (known: {', '.join(sorted(RULESETS))})") from None


def category_class(name: str):
    """The class of a category ruleset, or a DicewiseError naming what ``name`` is instead."""
    if name not in CATEGORY_GAMES:
        ruleset_entry(name)
        raise DicewiseError(f"{name} is not a five-dice category game")
    return CATEGORY_GAMES[name]


def category_game(name: str, **options):
    """Build a category ruleset by name with typed option values."""
    cls = category_class(name)
    from ..options import option_fields

    known = [f.name for f in option_fields(cls)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise DicewiseError(f"unknown option {', '.join(unknown)} for {name} "
                            f"(options: {', '.join(known) or 'none'})")
    return cls(**options)
