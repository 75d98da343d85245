"""Vectorised decisions of category games: best keeps and writes for many positions at once.

A ``TurnPlan`` solves the turn of a batch of turn-start states once; every decision in
that turn (keep or write, which keep, which box) is then a lookup.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import dice
from ..category import CategoryRules, turn_write_values
from ..turn import solve_turn

BATCH = 512


@dataclass(frozen=True)
class TurnPlan:
    """The solved turn of B states: best write value by roll number and keep values."""

    write: tuple[np.ndarray, np.ndarray, np.ndarray]  # (252, B) after roll 1, 2, 3
    keep: tuple[np.ndarray, np.ndarray]  # (462, B) keep values before roll 2 and roll 3


def plan_turns(game: CategoryRules, values: np.ndarray, masks: np.ndarray,
               extras: np.ndarray) -> TurnPlan:
    """Solve the turn of every (mask, extra) given the values of the states that follow."""
    end = game.first_roll_end()
    b = len(masks)
    write = [np.empty((dice.N_ROLLS, b)) for _ in range(3 if game.roll_number_matters else 1)]
    keep = [np.empty((dice.N_KEEPS, b)) for _ in range(2)]
    for lo in range(0, b, BATCH):
        part = slice(lo, lo + BATCH)
        w = turn_write_values(game, values, masks[part], extras[part])
        for target, source in zip(write, w):
            target[:, part] = source
        for target, source in zip(keep, solve_turn(w, end).before_roll):
            target[:, part] = source
    write = tuple(write) if len(write) == 3 else (write[0],) * 3
    keep = tuple(keep)
    return TurnPlan(write, keep)


def best_keeps(keep_values: np.ndarray, cols: np.ndarray, rolls: np.ndarray):
    """For game g (plan column cols[g], roll rolls[g]): the best keep and its value."""
    cand = dice.SUB_KEEPS[rolls]
    vals = np.where(cand >= 0, keep_values[np.maximum(cand, 0), cols[:, None]], -np.inf)
    j = vals.argmax(axis=1)
    pick = np.arange(len(rolls))
    return cand[pick, j], vals[pick, j]


def planned_keeps(plan: TurnPlan, cols: np.ndarray, rolls: np.ndarray,
                  roll_number: int) -> np.ndarray:
    """The keep each position takes after roll ``roll_number`` (1 or 2), or -1 where it
    writes now: the first best keep, taken only when strictly better than writing."""
    keep, keep_value = best_keeps(plan.keep[roll_number - 1], cols, rolls)
    return np.where(keep_value > plan.write[roll_number - 1][rolls, cols], keep, -1)


@dataclass(frozen=True)
class WriteOptions:
    """Every box for G positions: value (points + future, -inf where not allowed), points
    earned now (bonuses included), the box's score, and the state each write leads to (the
    last three read only where the write is allowed)."""

    value: np.ndarray  # (G, n_cat)
    points: np.ndarray  # (G, n_cat)
    score: np.ndarray  # (G, n_cat)
    next_state: np.ndarray  # (G, n_cat)


def write_options(game: CategoryRules, values: np.ndarray, masks: np.ndarray, extras: np.ndarray,
                  rolls: np.ndarray, roll_number) -> WriteOptions:
    """The value of writing each box, for positions (mask, extra, roll, roll number).

    The ruleset is asked once per distinct state; positions then index its answers.
    """
    g, n = len(masks), game.n_categories
    roll_number = np.broadcast_to(np.asarray(roll_number), (g,))
    value, points, score = np.full((g, n), -np.inf), np.zeros((g, n)), np.zeros((g, n))
    next_state = np.zeros((g, n), np.int64)
    for k in np.unique(roll_number):
        sel = np.flatnonzero(roll_number == k)
        states, col = np.unique(masks[sel] * game.n_extra + extras[sel], return_inverse=True)
        m, e = np.divmod(states, game.n_extra)
        r, b = rolls[sel], len(states)
        for c in range(n):
            if ((m >> c) & 1).all():  # filled in every state: nothing to ask the ruleset
                continue
            w = game.write(c, int(k), m, e)
            pts, bonus, legal, ne = w.at(r, col, b)
            legal &= (m[col] >> c) & 1 == 0
            nxt = (m[col] | (1 << c)) * game.n_extra + ne
            value[sel, c] = np.where(legal, pts + values[np.where(legal, nxt, 0)], -np.inf)
            points[sel, c], score[sel, c], next_state[sel, c] = pts, pts - bonus, nxt
    return WriteOptions(value, points, score, next_state)
