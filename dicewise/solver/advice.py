"""The advisor: every distinct choice in a position, with its expected final score.

Turn-start values come from the solved table; the decisions within the turn are solved
again for the one state asked about (a single batch of the turn solver).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DicewiseError
from . import dice
from .category import ROLL_NUMBERS, CategoryGame, StateValues, write_values
from .sheet import Sheet
from .turn import solve_turn


@dataclass(frozen=True)
class Choice:
    """One option: keep some dice and roll the rest, or write a category now."""

    action: str  # "keep" or "write"
    expected: float  # expected final score when this is chosen and play is optimal after
    loss: float  # best expected minus this one's
    dice: tuple[int, ...] | None = None
    category: str | None = None
    score: int | None = None  # what is written in the box (bonuses it earns are in expected);
    # None for a cross

    def describe(self, rolls_left: int | None = None) -> str:
        if self.action == "keep":
            kept = " ".join(map(str, self.dice)) or "nothing"
            left = "" if rolls_left is None else f"; {rolls_left} roll{'s' * (rolls_left > 1)} left"
            if len(self.dice) == dice.N_DICE:
                return f"keep all five (roll none{left})"
            return f"keep {kept} (reroll {dice.N_DICE - len(self.dice)}{left})"
        if self.score is None:
            return f"cross {self.category}"
        return f"write {self.category} for {self.score}"

    def to_json(self) -> dict:
        out = {"action": self.action}
        if self.action == "keep":
            out["dice"] = list(self.dice)
        else:
            out.update(category=self.category, score=self.score)
            if self.score is None:  # games with crosses (poker-school)
                out["cross"] = True
        out.update(expected=self.expected, loss=self.loss)
        return out


@dataclass(frozen=True)
class Advice:
    """The ranked choices of one position, best first."""

    ruleset: str
    options: dict
    sheet: Sheet
    dice: tuple[int, ...]
    roll: int
    choices: tuple[Choice, ...]
    state_value: float  # expected final score at the start of this turn
    ended: str | None = None  # why the game ended with this throw, if it did
    approximate: bool = False
    error_bound: float = 0.0

    @property
    def best(self) -> Choice | None:
        return self.choices[0] if self.choices else None

    def to_json(self) -> dict:
        return {
            "ruleset": self.ruleset,
            "rule_options": self.options,
            "sheet": dict(self.sheet.scores + self.sheet.counters),
            "points": self.sheet.points,
            "roll": self.roll,
            "dice": list(self.dice),
            "turn_start_expected": self.state_value,
            "ended": self.ended,
            "approximate": self.approximate,
            "error_bound": self.error_bound,
            "best": self.best.to_json() if self.best else None,
            "options": [c.to_json() for c in self.choices],
        }


def check_dice(values) -> tuple[int, ...]:
    """Five faces 1..6, sorted, or a DicewiseError (every ruleset's advisor checks dice here)."""
    values = tuple(values)
    if len(values) != dice.N_DICE:
        raise DicewiseError(f"give exactly five dice, not {len(values)}")
    bad = [v for v in values if not isinstance(v, (int, np.integer)) or not 1 <= v <= 6]
    if bad:
        raise DicewiseError(f"a die shows 1..6, not {bad[0]!r}")
    return tuple(sorted(int(v) for v in values))


def check_position(game: CategoryGame, sheet: Sheet, faces, roll: int) -> tuple[int, ...]:
    """Refuse impossible positions before any table is needed; returns the sorted dice."""
    faces = check_dice(faces)
    if roll not in ROLL_NUMBERS:
        raise DicewiseError(f"the roll number is 1, 2 or 3, not {roll}")
    if sheet.mask == (1 << game.n_categories) - 1:
        raise DicewiseError("the sheet is full: the game is over")
    return faces


def advise_position(game: CategoryGame, solved: StateValues, sheet: Sheet, faces, roll: int) -> Advice:
    """Rank every choice after roll ``roll`` (1..3) with dice ``faces`` on ``sheet``."""
    faces = check_position(game, sheet, faces, roll)
    masks, extras = np.array([sheet.mask]), np.array([sheet.extra])
    values = solved.values
    state_value = sheet.points + float(values[sheet.state(game)])
    r = dice.roll_index(dice.counts_of(faces))
    ends = game.first_roll_end()
    if roll == 1 and ends is not None and not np.isnan(ends[r]):
        return Advice(game.name, game.options, sheet, faces, roll, (), state_value,
                      ended="a first-roll five of a kind ends the game")
    writes = []
    for c, name in enumerate(game.category_names):
        if (sheet.mask >> c) & 1:
            continue
        w = game.write(c, roll, masks, extras)
        points, bonus, legal, next_extra = (a[0] for a in w.at(np.array([r]), np.array([0]), 1))
        if not legal:
            continue
        nxt = (sheet.mask | (1 << c)) * game.n_extra + int(next_extra)
        score = int(round(points - bonus))
        writes.append((name, score, sheet.points + points + float(values[nxt])))
    keeps = []
    if roll < 3:
        w = [write_values(game, values, masks, extras, k) for k in ROLL_NUMBERS]
        turn = solve_turn(w, ends)
        before_next = turn.before_roll[roll - 1][:, 0]
        for k in dice.sub_keeps(r):
            keeps.append((tuple(dice.faces_of(dice.KEEPS[k])), sheet.points + float(before_next[k])))
    # Best first; exact ties keep a fixed order (writes, then keeps by their dice).
    ranked = sorted([(-e, 0, n, s) for n, s, e in writes] + [(-e, 1, d, None) for d, e in keeps])
    best = -ranked[0][0]
    choices = [Choice("write", -neg, best + neg, category=key, score=s) if kind == 0 else
               Choice("keep", -neg, best + neg, dice=key) for neg, kind, key, s in ranked]
    return Advice(game.name, game.options, sheet, faces, roll, tuple(choices), state_value)
