"""The full poker-school game bounded by cells that share each turn's dice, and by an
information relaxation on top of them.

    python3 benchmarks/bench_poker_school_cells.py [--steps N] [--games G] [--seed S]

Every bound of ``dicewise.solver.poker_school.bound`` gives each row (or group of rows)
dice of its own (docs/poker-school.md, "An upper bound on the optimum").  This measures a
relaxation of the opposite kind: every turn's one set of dice is shared by all 45 cells,
and what the rows carry from turn to turn is what is relaxed.

1. A cell (r, j) written after roll n with roll d is credited r̃ = its score, doubled in the
   third column (the premium is that cell's score, so it is paid there whether or not the
   row's other cells were scored), plus μ[r, j] of column j's bonus (μ ≥ 0, 60 a column),
   and in a School row f, 3f + π_f·(c − 3) for c dice of face f whatever the reserve
   (π_f ≥ 0: a row's scored cells bank Σ(c − 3) ≥ 0).  A cross is credited 0.  Erasure and
   the order of a row's cells are dropped.  Along any game the score is at most Σ_t r̃.
2. *Cells*: each cell is written once; priced by λ_c, every turn may write any cell, so
   optimum ≤ Σ_c λ_c + 45·Turn(h), h(n, d) = max_c (r̃_c(n, d) − λ_c), Turn one turn solved
   for h.  Lowered by projected subgradient steps over λ, μ, π.
3. *Information relaxation*: each drawn game's 45 turns of dice are known in advance
   (five dice a roll, a reroll taking the first free ones), and each throw is penalised by
   the turn's value of h after it less its expectation (mean 0 under any real policy).
   The game's best is then an assignment of turns to cells, each cell once (turn t on cell c
   worth the best path through its dice for r̃_c, less the penalties); its mean over the
   drawn games is a bound with a confidence interval, at most the cells' bound (the penalty
   of h is ideal for h).

Prints one JSON line per stage.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy.optimize import linear_sum_assignment

from dicewise.solver import dice
from dicewise.solver.poker_school import bound
from dicewise.solver.poker_school.rules import N_ROWS, N_SCHOOL, PokerSchoolRules
from dicewise.solver.turn import solve_turn

GAME = PokerSchoolRules(school_cross_erases=False)
T, C = GAME.turns, GAME.columns
POINTS = GAME.base_points[:, :2, :].astype(float)  # (15, 2, 252): after roll 1, rolls 2–3
SHOWN = dice.ROLLS.T.astype(float)  # (6, 252): dice of each face
ROLL_START = dice.KEEP_START[dice.N_DICE]


def credits(mu: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """(45, 2, 252): what writing each cell after roll 1 or rolls 2–3 is credited (a score
    where the dice allow one and it beats a cross, else the cross's 0)."""
    out = np.empty((N_ROWS, C, 2, dice.N_ROLLS))
    for r in range(N_ROWS):
        for j in range(C):
            premium = 2.0 if j == C - 1 else 1.0
            if r < N_SCHOOL:
                score = np.broadcast_to(3 * (r + 1) * premium + pi[r] * (SHOWN[r] - 3),
                                        (2, dice.N_ROLLS))
            else:
                score = np.where(POINTS[r] > 0, POINTS[r] * premium, -np.inf)
            out[r, j] = np.maximum(score + mu[r, j], 0.0)
    return out.reshape(N_ROWS * C, 2, dice.N_ROLLS)


def cells_bound(lam, mu, pi):
    """Σλ + 45·Turn(h) and its subgradient in λ, μ, π."""
    credit = credits(mu, pi)
    priced = credit - lam.reshape(-1)[:, None, None]
    h, best = priced.max(axis=0), priced.argmax(axis=0)
    value, ends = bound.dice_value(h[None])
    ends = ends[0]  # where the turn ends: P(after roll 1 or rolls 2–3, with each roll)
    written = np.bincount(best.ravel(), ends.ravel(), minlength=N_ROWS * C)
    scored = credit[best, np.arange(2)[:, None], np.arange(dice.N_ROLLS)] > 0
    scored_mass = np.bincount(best.ravel(), (ends * scored).ravel(), minlength=N_ROWS * C)
    g_pi = np.zeros(N_SCHOOL)
    for f in range(N_SCHOOL):
        school = scored & (best // C == f)
        g_pi[f] = T * (ends * school * (SHOWN[f] - 3)).sum()
    return (float(lam.sum() + T * value[0]), (1 - T * written).reshape(N_ROWS, C),
            (T * scored_mass).reshape(N_ROWS, C), g_pi)


def lower_cells_bound(steps: int, length: float = 20.0):
    """The best cells' bound found in ``steps`` normalised subgradient steps, and its
    multipliers."""
    lam, mu, pi = np.zeros((N_ROWS, C)), np.full((N_ROWS, C), 60.0 / N_ROWS), np.full(N_SCHOOL, 2.0)
    best = (np.inf, None)
    for i in range(steps):
        value, g_lam, g_mu, g_pi = cells_bound(lam, mu, pi)
        if value < best[0]:
            best = (value, (lam.copy(), mu.copy(), pi.copy()))
        norm = np.sqrt((g_lam ** 2).sum() + (g_mu ** 2).sum() + (g_pi ** 2).sum()) or 1.0
        a = length / np.sqrt(i + 1) / norm
        lam, mu, pi = lam - a * g_lam, bound.project_mu(mu - a * g_mu), np.maximum(pi - a * g_pi, 0)
    return best


def _prefix_counts(faces: np.ndarray) -> np.ndarray:
    """(T, 6, 6): the face counts of the first m dice of each turn's roll (m = 0..5)."""
    onehot = np.eye(dice.N_FACES, dtype=np.int64)[faces]
    return np.concatenate([np.zeros((len(faces), 1, dice.N_FACES), np.int64),
                           np.cumsum(onehot, axis=1)], axis=1)


class Relaxation:
    """The information relaxation at the cells' multipliers: one drawn game at a time."""

    def __init__(self, lam, mu, pi):
        self.credit = credits(mu, pi)
        h = (self.credit - lam.reshape(-1)[:, None, None]).max(axis=0)
        first, later = np.ascontiguousarray(h[0][:, None]), np.ascontiguousarray(h[1][:, None])
        turn = solve_turn((first, later, later))
        self.after = [a[:, 0] for a in turn.after_roll]  # h's value after rolls 1, 2, 3
        self.before = [a[:, 0] for a in turn.before_roll]  # by keep, before rolls 2, 3
        self.value = float(turn.value[0])

    def game(self, throws: np.ndarray) -> float:
        """The best assignment of a drawn game's turns (T, 3 rolls, 5 dice; faces 0..5) to
        cells, every path through a turn's dice paying its penalties."""
        v1, v2, v3 = self.after
        e2, e3 = self.before
        turns = np.arange(T)
        roll1 = dice.keep_indices(_prefix_counts(throws[:, 0])[:, 5]) - ROLL_START
        fresh2, fresh3 = _prefix_counts(throws[:, 1]), _prefix_counts(throws[:, 2])
        keep1 = dice.SUB_KEEPS[roll1]  # (T, 32), −1 past the roll's keeps
        k1 = np.maximum(keep1, 0)
        roll2 = dice.keep_indices(dice.KEEPS[k1] + fresh2[turns[:, None], 5 - dice.KEEP_SIZE[k1]]) - ROLL_START
        # a path's penalties telescope into what each keep gives up against h's best
        gap1 = np.where(keep1 >= 0, e2[k1] - v1[roll1][:, None], -np.inf)
        keep2 = dice.SUB_KEEPS[roll2]  # (T, 32, 32)
        k2 = np.maximum(keep2, 0)
        roll3 = dice.keep_indices(dice.KEEPS[k2] + fresh3[turns[:, None, None],
                                                          5 - dice.KEEP_SIZE[k2]]) - ROLL_START
        gap2 = np.where(keep2 >= 0, e3[k2] - v2[roll2][..., None], -np.inf)
        later = np.full((T, dice.N_ROLLS), -np.inf)  # the best path to each roll 2 or 3
        np.maximum.at(later, (np.broadcast_to(turns[:, None], roll2.shape), roll2),
                      gap1 - v2[roll2])
        np.maximum.at(later, (np.broadcast_to(turns[:, None, None], roll3.shape), roll3),
                      gap1[..., None] + gap2 - v3[roll3])
        worth = np.maximum(self.credit[:, 0, roll1].T - v1[roll1][:, None],
                           (self.credit[None, :, 1, :] + later[:, None, :]).max(axis=2))
        worth += self.value
        rows, cols = linear_sum_assignment(worth, maximize=True)
        return float(worth[rows, cols].sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20_000, help="subgradient steps (cells)")
    ap.add_argument("--games", type=int, default=400, help="drawn games (information relaxation)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t = time.perf_counter()
    value, (lam, mu, pi) = lower_cells_bound(args.steps)
    print(json.dumps({"stage": "cells", "steps": args.steps, "bound": value,
                      "seconds": round(time.perf_counter() - t, 1)}), flush=True)
    t = time.perf_counter()
    relaxation = Relaxation(lam, mu, pi)
    rng = np.random.default_rng(args.seed)
    games = np.array([relaxation.game(rng.integers(0, 6, size=(T, 3, dice.N_DICE)))
                      for _ in range(args.games)])
    half = 1.959964 * games.std(ddof=1) / np.sqrt(len(games))
    print(json.dumps({"stage": "information relaxation", "games": args.games, "seed": args.seed,
                      "bound": float(games.mean()),
                      "ci95": [float(games.mean() - half), float(games.mean() + half)],
                      "std": float(games.std(ddof=1)),
                      "seconds": round(time.perf_counter() - t, 1)}), flush=True)


if __name__ == "__main__":
    main()
