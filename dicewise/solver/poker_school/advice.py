"""The poker-school advisor: every distinct choice after a roll, ranked by expected final score.

The sheet's value after each write comes from an evaluator (the exact one-column table or
the approximate policy's weights); the turn itself is solved exactly for the one sheet
asked about, so keeps and stopping are optimal against those values.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ...errors import DicewiseError
from .. import dice
from ..advice import Choice, check_dice
from .turns import Batch, Evaluator, turn_options, turn_write_values
from .rules import N_SCHOOL, ROW_NAMES, PokerSchool, SheetState
from ..turn import solve_turn


@dataclass(frozen=True)
class Advice:
    """The ranked choices of one position, best first."""

    dice: tuple[int, ...]
    roll: int
    choices: tuple[Choice, ...]
    turn_start_expected: float
    points: int
    approximate: bool
    error_bound: float | None  # measured estimate of the points the policy loses to the optimum
    upper_bound: float | None  # proven: the optimum's expected final score at a game start

    @property
    def best(self) -> Choice:
        return self.choices[0]

    def to_json(self) -> dict:
        return {"dice": list(self.dice), "roll": self.roll, "points": self.points,
                "turn_start_expected": self.turn_start_expected,
                "approximate": self.approximate, "error_bound": self.error_bound,
                "upper_bound": self.upper_bound,
                "error_kind": ("estimate measured on the exact one-column game, not a proof; "
                               "upper_bound is proven") if self.approximate else "exact",
                "best": self.best.to_json(), "options": [c.to_json() for c in self.choices]}


def advise(game: PokerSchool, evaluator: Evaluator, sheet: SheetState, dice_shown, roll: int,
           error_bound: float | None = None, upper_bound: float | None = None) -> Advice:
    """Every distinct choice with ``dice_shown`` after roll ``roll`` (1..3) of a turn."""
    if roll not in (1, 2, 3):
        raise DicewiseError(f"the roll number is 1, 2 or 3, not {roll}")
    counts = dice.counts_of(check_dice(dice_shown))
    if not sheet.open_rows(game.columns):
        raise DicewiseError("the sheet is full: the game is over")
    batch = Batch.of_sheet(sheet)
    options = turn_options(evaluator, batch)
    tv = solve_turn(turn_write_values(options))
    base = float(evaluator.base(batch)[0])
    r = dice.roll_index(counts)
    choices = []
    for row, opt in enumerate(options[0 if roll == 1 else 1]):
        if opt is None:
            continue
        s = float(opt.score[opt.roll_class[r], 0])
        if np.isfinite(s):
            points = 3 * (row + 1) if row < N_SCHOOL else int(game.base_points[row, roll - 1, r])
            choices.append(("write", base + s, ROW_NAMES[row], points))
        choices.append(("write", base + float(opt.cross[0]), ROW_NAMES[row], None))
    if roll < 3:
        keep_values = tv.before_roll[roll - 1][:, 0]
        for k in dice.sub_keeps(r):
            choices.append(("keep", base + float(keep_values[k]), tuple(dice.faces_of(dice.KEEPS[k]))))
    out = [Choice("write", c[1], 0.0, category=c[2], score=c[3]) if c[0] == "write" else
           Choice("keep", c[1], 0.0, dice=c[2]) for c in choices]
    # Best first by exact value, so the best loses exactly nothing; ties in a fixed order.
    out.sort(key=lambda c: (-c.expected, c.action != "write", c.describe()))
    out = [dataclasses.replace(c, loss=out[0].expected - c.expected) for c in out]
    return Advice(tuple(int(d) for d in sorted(dice_shown)), roll, tuple(out),
                  base + float(tv.value[0]), sheet.points, evaluator.approximate, error_bound,
                  upper_bound)
