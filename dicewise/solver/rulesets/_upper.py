"""The upper section shared by Yatzy and Yahtzee: six face boxes and a bonus at 63."""

from __future__ import annotations

import numpy as np

from .. import dice
from ..category import Category, Write, upper_sum_reachable
from ..scoring import of_face

UPPER_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")
UPPER_GOAL = 63
UPPER_STATES = UPPER_GOAL + 1  # running upper sum, capped at the goal

UPPER = tuple(Category(name, of_face(f)) for f, name in enumerate(UPPER_NAMES, start=1))

#: (64, 64) bool: reachable capped upper sums, by the 6-bit mask of filled upper boxes.
UPPER_REACHABLE = upper_sum_reachable([[f * c for c in range(6)] for f in range(1, 7)], 0,
                                      UPPER_STATES, cap=UPPER_GOAL)


def upper_write(face: int, upper: np.ndarray, points: np.ndarray) -> Write:
    """Writing the ``face`` box: the capped upper sum moves by face × (dice showing it)."""
    moves = np.minimum(upper[None, :] + face * np.arange(6)[:, None], UPPER_GOAL)
    return Write(points, moves, dice.ROLLS[:, face - 1])


def upper_sum_of_sheet(scores: dict[int, int]) -> int:
    return min(sum(s for c, s in scores.items() if c < 6), UPPER_GOAL)
