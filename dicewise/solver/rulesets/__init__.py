"""The declarative category games, by name: the rulesets the generic engine solves.

The registry of every game (these and the others) is ``solver/registry.py``.
"""

from __future__ import annotations

from ...errors import DicewiseError
from .general import General
from .poker_programs import PokerPrograms
from .yahtzee import Yahtzee
from .yatzy import Yatzy

CATEGORY_GAMES = {cls.name: cls for cls in (General, PokerPrograms, Yahtzee, Yatzy)}


def category_class(name: str):
    """The class of a category ruleset, or a DicewiseError naming what ``name`` is instead."""
    if name not in CATEGORY_GAMES:
        raise DicewiseError(f"{name!r} is not a five-dice category game "
                            f"(those are: {', '.join(CATEGORY_GAMES)})")
    return CATEGORY_GAMES[name]


def category_game(name: str, **options):
    """Build a category ruleset by name with typed option values."""
    cls = category_class(name)
    from ..options import unknown_options, option_fields

    known = [f.name for f in option_fields(cls)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise DicewiseError(unknown_options(", ".join(unknown), name, known))
    return cls(**options)
