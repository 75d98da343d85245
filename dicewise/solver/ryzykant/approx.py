"""The approximate solver for Ryzykant: a separable value function fitted by simulation.

The exact state (eleven mark counts and the lower table) is far too large to tabulate, but
the final score is a sum over the eleven pair sums, and a sum's future depends on its own
marks far more than on the others'.  So the value of a position before a roll is
approximated as

    V(x) = sum over sums s of  f_s(n_s) + 2^k_s · D[s, r_s, k_s, L(x)]

where f_s(n) is the points the sum would score if the game ended now, n_s = 5·k_s + r_s its
marks, and L(x) the lower table reduced to its three chosen faces' mark counts, sorted
(which decides how long the game can still last).  D is the expected further change of the
sum's points, in units of its current box value, under the policy.  It is exact that the
change scales by 2^k: f_s(5k + m) − f_s(5k + r) = 2^k · (f_s(m) − f_s(r)).  Sums s and
14 − s share D (the mirror of the dice), and k is capped at 3 in the index.

The policy picks, for each roll, the legal split with the highest value of the position it
leads to (the exact final score when the split ends the game).  D is fitted by approximate
policy iteration with Monte-Carlo returns: play many games in lockstep with the current
policy, and set each cell of D to the mean observed change of its sum until the end of the
game, over the visits of that cell; repeat with the improved policy.  Older rounds' records
fade by a factor per round instead of being dropped, which damps the oscillation of policy
iteration on aggregated states.  Cells never visited keep their previous value (zero at the
start, which makes the first policy greedy).  Every split is valued by lookups in dense
tables, for all games and all 15 split slots at once.

How good the result is, is measured, not assumed: on reduced games (``end_marks`` 1..2,
``puscioch=reroll``) ``ryzykant_exact`` computes the optimum and the policy's exact value;
on the full game the Bellman residual of V under the exact expectation over the 252 next
rolls is reported with every table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import dice
from .rules import (LOWER_FACES, N_SUMS, SPLIT_A, SPLIT_B, SPLIT_F, Ryzykant,
                       apply_splits, legal_splits, score, score_table)

#: Marks of one sum beyond which value lookups are clipped (never reached in practice).
N_MAX = 64
#: Box counts 0, 1, 2 and "3 or more" have their own cells.
K_CELLS = 4
#: Lower classes: c1·100 + c2·10 + c3 for the sorted counts c1 >= c2 >= c3 of chosen faces.
N_CLASSES = 1000
#: Exact points of each sum for up to this many marks (for final scores).
_FS = score_table(256)
_MIRROR = np.minimum(np.arange(N_SUMS), N_SUMS - 1 - np.arange(N_SUMS))  # 0..5
_CUM = np.cumsum(dice.ROLL_WEIGHT)


def lower_class(lower) -> np.ndarray:
    """The class index of lower tables ``(..., 6)``: their top three counts, sorted."""
    top = -np.sort(-np.minimum(np.asarray(lower, dtype=np.int64), 9), axis=-1)[..., :LOWER_FACES]
    return top[..., 0] * 100 + top[..., 1] * 10 + top[..., 2]


def draw_rolls(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` roll indices drawn with the exact probabilities of five fair dice."""
    return np.searchsorted(_CUM, rng.integers(0, 6 ** 5, size=n), side="right")


@dataclass(frozen=True)
class ValueModel:
    """The fitted cells ``D`` (6 mirrored sums × 5 × K_CELLS × N_CLASSES) and their dense form."""

    delta: np.ndarray

    @classmethod
    def zero(cls) -> "ValueModel":
        return cls(np.zeros((6, 5, K_CELLS, N_CLASSES)))

    def dense(self) -> np.ndarray:
        """``(11, N_MAX + 2, N_CLASSES)``: V's term for sum s with n marks in lower class L."""
        n = np.arange(N_MAX + 2)
        k, r = np.divmod(n, 5)
        d = self.delta[_MIRROR[:, None], r[None, :], np.minimum(k, K_CELLS - 1)[None, :]]
        return _FS[:, :N_MAX + 2, None] + (2.0 ** k)[None, :, None] * d

    def value(self, upper, lower) -> np.ndarray:
        """V of positions ``(G, 11)``, ``(G, 6)`` before a roll."""
        return values_before(self.dense(), np.asarray(upper), np.asarray(lower))


def values_before(dense, upper, lower) -> np.ndarray:
    """V of positions before a roll, from the dense table."""
    n = np.minimum(upper, N_MAX)
    cls = lower_class(lower)
    return dense[np.arange(N_SUMS)[None, :], n, cls[:, None]].sum(axis=1)


def immediate_gain(upper, rolls) -> np.ndarray:
    """``(G, 15)``: the change of score each split slot's two marks make."""
    g = np.arange(len(rolls))[:, None]
    a, b = SPLIT_A[rolls] - 2, SPLIT_B[rolls] - 2
    a, b = np.maximum(a, 0), np.maximum(b, 0)
    na, nb = upper[g, a], upper[g, b]
    same = a == b
    gain_a = _FS[a, na + 1 + same] - _FS[a, na]
    gain_b = np.where(same, 0.0, _FS[b, nb + 1] - _FS[b, nb])
    return gain_a + gain_b


def prepare(dense, upper, lower) -> dict:
    """The parts of split values that do not depend on the roll, for positions (G, 11), (G, 6).

    ``s_f[g, f]`` is V of game g's marks in the lower class it reaches by marking face f + 1,
    ``s_0`` the same without a lower mark (a puścioch).
    """
    s = np.arange(N_SUMS)
    n = np.minimum(upper, N_MAX - 2).astype(np.int64)
    lo_f = lower[:, None, :] + np.eye(6, dtype=lower.dtype)[None]            # (G, 6, 6)
    cls_f = lower_class(lo_f)                                                # (G, 6)
    cls_0 = lower_class(lower)                                               # (G,)
    return {"n": n, "cls_f": cls_f, "cls_0": cls_0,
            "s_f": dense[s[None, None, :], n[:, None, :], cls_f[:, :, None]].sum(axis=2),
            "s_0": dense[s[None, :], n, cls_0[:, None]].sum(axis=1),
            "score": score(upper).astype(np.float64), "upper": upper, "lower": lower}


def move_values(dense, ruleset: Ryzykant, upper, lower, rolls, legal, pusc, prep=None) -> np.ndarray:
    """``(G, 15)``: V of the position each legal split slot leads to (−inf where illegal).

    A split that ends the game is worth the exact final score.  ``prep`` (from ``prepare``)
    may be passed when the same positions are valued for many rolls.
    """
    prep = prep or prepare(dense, upper, lower)
    g = np.arange(len(rolls))[:, None]
    n, cls_f, cls_0 = prep["n"], prep["cls_f"], prep["cls_0"]
    f = np.maximum(SPLIT_F[rolls] - 1, 0)
    a, b = np.maximum(SPLIT_A[rolls] - 2, 0), np.maximum(SPLIT_B[rolls] - 2, 0)
    p = pusc[:, None]
    cls = np.where(p, cls_0[:, None], cls_f[g, f])
    base = np.where(p, prep["s_0"][:, None], prep["s_f"][g, f])
    na, nb = n[g, a], n[g, b]
    same = a == b
    val = (base + dense[a, na + 1 + same, cls] - dense[a, na, cls]
           + np.where(same, 0.0, dense[b, nb + 1, cls] - dense[b, nb, cls]))
    ended = ~p & (lower[g, f] + 1 >= ruleset.end_marks)
    final = prep["score"][:, None] + immediate_gain(upper, rolls)
    val = np.where(ended, final, val)
    return np.where(legal, val, -np.inf)


#: A policy maps (upper, lower, rolls, legal, pusc) of the moving games to split slots.
Policy = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def model_policy(model_or_dense, ruleset: Ryzykant) -> Policy:
    """The policy that plays the split of highest V (first slot on ties)."""
    dense = model_or_dense.dense() if isinstance(model_or_dense, ValueModel) else model_or_dense

    def choose(upper, lower, rolls, legal, pusc):
        return np.argmax(move_values(dense, ruleset, upper, lower, rolls, legal, pusc), axis=1)

    return choose


def greedy_policy(ruleset: Ryzykant) -> Policy:
    """The split with the best immediate change of score (first slot on ties)."""

    def choose(upper, lower, rolls, legal, pusc):
        return np.argmax(np.where(legal, immediate_gain(upper, rolls), -np.inf), axis=1)

    return choose


@dataclass
class Games:
    """The result of games played in lockstep: final sheets, roll counts, visited positions."""

    upper: np.ndarray
    lower: np.ndarray
    rolls: np.ndarray
    puscioch: np.ndarray
    visits: list | None = None

    @property
    def scores(self) -> np.ndarray:
        return score(self.upper)


def play_games(ruleset: Ryzykant, policy: Policy, n_games: int, seed: int, *,
               record: bool = False, start_upper=None, start_lower=None,
               max_steps: int = 2000) -> Games:
    """Play ``n_games`` games with ``policy``, all in lockstep, on a seeded stream of rolls.

    Game i's t-th roll depends only on (seed, i, t), never on the policy: two policies
    played with the same seed see the same rolls (common random numbers).  With
    ``record`` the position before every roll of every unfinished game is kept.
    """
    rng = np.random.default_rng(seed)
    upper = np.zeros((n_games, N_SUMS), dtype=np.int64)
    lower = np.zeros((n_games, 6), dtype=np.int64)
    if start_upper is not None:
        upper[:] = start_upper
        lower[:] = start_lower
    alive = np.ones(n_games, dtype=bool)
    rolls_played = np.zeros(n_games, dtype=np.int64)
    pusc_count = np.zeros(n_games, dtype=np.int64)
    visits = [] if record else None
    for _ in range(max_steps):
        idx = np.flatnonzero(alive)
        if not len(idx):
            break
        rolls = draw_rolls(rng, n_games)[idx]
        up, lo = upper[idx], lower[idx]
        legal, pusc = legal_splits(lo, rolls)
        if ruleset.puscioch == "reroll" and pusc.any():
            keep = ~pusc
            idx, rolls, up, lo = idx[keep], rolls[keep], up[keep], lo[keep]
            legal, pusc = legal[keep], pusc[keep]
        if record:
            visits.append((idx, up, lo))
        choice = policy(up, lo, rolls, legal, pusc)
        up, lo, ended = apply_splits(ruleset, up, lo, rolls, choice, pusc)
        upper[idx], lower[idx] = up, lo
        rolls_played[idx] += 1
        pusc_count[idx] += pusc
        alive[idx[ended]] = False
    return Games(upper, lower, rolls_played, pusc_count, visits)


def _cells(up, lo):
    n = np.minimum(up, N_MAX)
    k, r = np.divmod(n, 5)
    return (((_MIRROR[None, :] * 5 + r) * K_CELLS + np.minimum(k, K_CELLS - 1)) * N_CLASSES
            + lower_class(lo)[:, None])


def fit(ruleset: Ryzykant, iterations: int = 16, games: int = 20_000, seed: int = 1,
        forget: float = 0.5, progress: Callable[[int], None] | None = None,
        model: ValueModel | None = None) -> tuple[ValueModel, list[dict]]:
    """Fit D by approximate policy iteration; returns the model and one record per round.

    Each round plays ``games`` games with the policy of the current model (seed
    ``(seed, round)``) and records, for every visit of a cell, the change of its sum's
    points to the end of the game in units of 2^k.  A cell's value is the mean of its
    records over all rounds so far, a round's records weighted by ``forget`` per round of
    age: old policies fade out, yet a rarely visited cell still averages over many rounds,
    which damps the oscillation of policy iteration on aggregated states.  Cells never
    visited keep their value (zero at the start: the first policy is greedy).  ``progress``
    is called with 1 after each round.
    """
    model = model or ValueModel.zero()
    size = model.delta.size
    total = np.zeros(size)
    count = np.zeros(size)
    history = []
    s = np.arange(N_SUMS)[None, :]
    for it in range(iterations):
        played = play_games(ruleset, model_policy(model, ruleset), games, [seed, it], record=True)
        final_fs = _FS[s, played.upper]
        total *= forget
        count *= forget
        for idx, up, lo in played.visits:
            k = np.minimum(up, N_MAX) // 5
            target = (final_fs[idx] - _FS[s, up]) / 2.0 ** k
            cells = _cells(up, lo).ravel()
            total += np.bincount(cells, target.ravel(), minlength=size)
            count += np.bincount(cells, minlength=size)
        seen = count > 0
        delta = model.delta.ravel().copy()
        delta[seen] = total[seen] / count[seen]
        model = ValueModel(delta.reshape(model.delta.shape))
        history.append({"round": it, "games": games, "mean": float(played.scores.mean()),
                        "cells": int(seen.sum())})
        if progress:
            progress(1)
    return model, history


def bellman_residual(model: ValueModel, ruleset: Ryzykant, upper, lower) -> np.ndarray:
    """V(x) − E_roll max_split V(next), exactly over the 252 rolls, for positions ``x``.

    A value function that were exact would have residual 0 everywhere; the root mean square
    over positions the policy visits is the error estimate reported with a table.
    """
    dense = model.dense()
    G = len(upper)
    backup = np.zeros(G)
    norm = np.zeros(G)
    for r in range(dice.N_ROLLS):
        rolls = np.full(G, r)
        legal, pusc = legal_splits(lower, rolls)
        p = dice.ROLL_PROBABILITY[r]
        if ruleset.puscioch == "reroll":
            p = np.where(pusc, 0.0, p)
        best = move_values(dense, ruleset, upper, lower, rolls, legal, pusc).max(axis=1)
        backup += p * np.where(np.isfinite(best), best, 0.0)
        norm += p
    return values_before(dense, upper, lower) - backup / norm
