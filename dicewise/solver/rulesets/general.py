"""Генерал (General), from the Russian seed, as settled by RULES.md section 1.

Ten boxes; Straight, Full House and Four score more when thrown on the first roll.  A five
of a kind on the first roll (a big general) ends the game at once; solitaire, the final
score is then what is written (option ``big_general=sixty`` scores it as a small general
instead).  Because every turn opens with a throw of all five dice, P(a big general in a
game) is 1 − (1 − 6/7776)^10 whatever the policy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import dice
from ..category import Category, CategoryRules
from ..options import option
from ..scoring import FACES, has_kind, is_full_house

UPPER_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")

#: Straights by option: sets of five faces that qualify (RULES.md: a 1 may stand for 2 or 6).
STRAIGHTS = {
    "plain": [(1, 2, 3, 4, 5), (2, 3, 4, 5, 6)],
    "joker": [(1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (1, 3, 4, 5, 6), (1, 1, 3, 4, 5)],
    "circular": [tuple(f for f in range(1, 7) if f != skip) for skip in range(1, 7)],
}

P_BIG_GENERAL_PER_TURN = 6 / 7776
TURNS = 10


def _first_or_later(first: int, later: int):
    return lambda qualifies, k: np.where(qualifies, first if k == 1 else later, 0)


@dataclass(frozen=True)
class General(CategoryRules):
    name = "general"
    title = "Генерал (General), from the Russian seed"
    example_sheet = "ones=3,straight=25,general=x"  # shown by `dicewise rules`
    roll_number_matters = True

    straight: str = option("joker", ("joker", "plain", "circular"),
                           "which dice make a straight: joker (a 1 may stand for 2 or 6) | plain | "
                           "circular (any five distinct faces)")
    big_general: str = option("ends", ("ends", "sixty"),
                              "a first-roll five of a kind ends the game | scores 60 as a small general")

    def _is_straight(self, counts):
        wanted = [dice.counts_of(s) for s in STRAIGHTS[self.straight]]
        return np.any([(counts == w).all(axis=1) for w in wanted], axis=0)

    @property
    def categories(self):
        straight, full, four = _first_or_later(25, 20), _first_or_later(35, 30), _first_or_later(45, 40)
        return tuple(Category(n, lambda c, k, f=f: f * c[:, f - 1])
                     for f, n in zip(FACES, UPPER_NAMES)) + (
            Category("straight", lambda c, k: straight(self._is_straight(c), k)),
            Category("full_house", lambda c, k: full(is_full_house(c), k)),
            Category("four", lambda c, k: four(has_kind(c, 4), k)),
            Category("general", lambda c, k: 60 * has_kind(c, 5)),
        )

    def first_roll_end(self):
        if self.big_general == "sixty":
            return None
        return np.where(dice.ROLLS.max(axis=1) == 5, 0.0, np.nan)

    def solve_facts(self) -> dict:
        """What ``solve`` reports beside the optimum."""
        return {"p_big_general": self.big_general_probability()}

    def big_general_probability(self) -> float:
        """P(a big general happens in a game): the same for every policy (see module doc)."""
        return 1 - (1 - P_BIG_GENERAL_PER_TURN) ** TURNS
