"""Exact optimal play for small Ryzykant games, and the exact value of any policy there.

Every roll adds two marks to the upper table, so positions reachable from a start after t
rolls form layer t, and layer t depends only on layer t + 1: plain backward induction.
The positions are enumerated forward (all states of a layer as arrays, one vectorised step
per roll outcome), then valued backward with the exact expectation over the 252 rolls.

The game is finite when puściochs cannot happen or are thrown again (``puscioch=reroll``);
with ``puscioch=score`` a player may roll any number of puściochs, so the search stops
after ``max_puscioch`` of them: a position reached by one more is valued at its current
score.  Such a position needs ``max_puscioch + 1`` rolls showing none of three faces,
probability 1/32 each, which bounds how much the truncation can matter.

Small enough: ``end_marks`` 1 or 2 from the empty sheet, or the last few rolls of any
position (an endgame of the full game).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import dice
from .ryzykant import (MAX_SPLITS, N_SUMS, SPLIT_A, SPLIT_B, SPLIT_F, Position, Ryzykant,
                       legal_splits, score)

_EYE11 = np.eye(N_SUMS, dtype=np.int64)
_EYE6 = np.eye(6, dtype=np.int64)
_BLOCK = 60_000


@dataclass(frozen=True)
class ExactResult:
    """Optimal expected final score from the start, and a policy's exact expected score."""

    optimum: float
    policy_value: float | None
    states: int
    layers: int
    truncated: bool


def max_rolls(ruleset: Ryzykant, pos: Position, max_puscioch: int) -> int:
    """Most rolls a game can still last from ``pos`` (with at most ``max_puscioch`` puściochy)."""
    e = ruleset.end_marks
    chosen = [c for c in pos.lower if c > 0]
    room = sum(e - 1 - c for c in chosen) + (3 - len(chosen)) * (e - 1)
    extra = 0 if ruleset.puscioch == "reroll" else max_puscioch
    return room + 1 + extra


def _successors(ruleset, U, L, r):
    """For states (U, L) and roll r: next U, L (N, 15, ·), legal, puścioch, ended, final score."""
    N = len(U)
    legal, pusc = legal_splits(L, np.full(N, r))
    a, b, f = SPLIT_A[r] - 2, SPLIT_B[r] - 2, SPLIT_F[r] - 1
    valid = SPLIT_A[r] > 0
    a, b, f = np.where(valid, a, 0), np.where(valid, b, 0), np.where(valid, f, 0)
    dU = _EYE11[a] + _EYE11[b]                                              # (15, 11)
    Un = U[:, None, :] + dU[None]
    mark = np.where(pusc[:, None, None], 0, _EYE6[f][None])                 # (N, 15, 6)
    Ln = L[:, None, :] + mark
    ended = ~pusc[:, None] & (L[:, f] + 1 >= ruleset.end_marks)
    final = score(Un)
    return Un, Ln, legal, pusc, ended, final


def solve(ruleset: Ryzykant, start: Position | None = None,
          policy: Callable | None = None, max_puscioch: int = 2,
          progress: Callable[[int], None] | None = None) -> ExactResult:
    """The optimum from ``start`` (the empty sheet by default) and ``policy``'s exact value.

    ``policy`` has the simulator's signature ``(upper, lower, rolls, legal, pusc) -> slots``.
    ``progress`` is called with 1 per layer, forward and backward.
    """
    start = start or Position()
    U0 = np.array(start.upper, dtype=np.int64)
    L0 = np.array(start.lower, dtype=np.int64)
    T = max_rolls(ruleset, start, max_puscioch)
    ru = 2 * T + 1
    rl = T + 1
    if ru ** N_SUMS * rl ** 6 >= 2 ** 62:
        raise ValueError(f"{T} more rolls is too long a game for the exact solver")
    wu = ru ** np.arange(N_SUMS, dtype=np.int64)
    wl = ru ** N_SUMS * rl ** np.arange(6, dtype=np.int64)
    lower0 = int(L0.sum())
    reroll = ruleset.puscioch == "reroll"

    def key(U, L):
        return (U - U0) @ wu + (L - L0) @ wl

    def too_many_puscioch(t, L):  # after t rolls, with lower tables L
        return (t - (L.sum(axis=-1) - lower0)) > max_puscioch

    # -- forward: the positions of each layer --------------------------------------------
    layers = [(np.array([key(U0, L0)]), U0[None], L0[None])]
    truncated = False
    while True:
        t = len(layers)
        keys, U, L = layers[-1]
        found = []
        for lo in range(0, len(U), _BLOCK):
            Ub, Lb = U[lo:lo + _BLOCK], L[lo:lo + _BLOCK]
            for r in range(dice.N_ROLLS):
                Un, Ln, legal, pusc, ended, _ = _successors(ruleset, Ub, Lb, r)
                keep = legal & ~ended
                if reroll:
                    keep &= ~pusc[:, None]
                cut = too_many_puscioch(t, Ln) & keep
                truncated |= bool(cut.any())
                keep &= ~cut
                if keep.any():
                    k = key(Un[keep], Ln[keep])
                    k, first = np.unique(k, return_index=True)
                    found.append((k, Un[keep][first], Ln[keep][first]))
        if progress:
            progress(1)
        if not found:
            break
        k = np.concatenate([x[0] for x in found])
        k, first = np.unique(k, return_index=True)
        layers.append((k, np.concatenate([x[1] for x in found])[first],
                       np.concatenate([x[2] for x in found])[first]))

    # -- backward: optimum and policy value -----------------------------------------------
    nxt_keys = np.zeros(0, dtype=np.int64)
    nxt_v = nxt_pi = np.zeros(0)
    for t in range(len(layers) - 1, -1, -1):
        keys, U, L = layers[t]
        V = np.zeros(len(U))
        Vpi = np.zeros(len(U))
        for lo in range(0, len(U), _BLOCK):
            Ub, Lb = U[lo:lo + _BLOCK], L[lo:lo + _BLOCK]
            acc = np.zeros(len(Ub))
            acc_pi = np.zeros(len(Ub))
            norm = np.zeros(len(Ub))
            for r in range(dice.N_ROLLS):
                Un, Ln, legal, pusc, ended, final = _successors(ruleset, Ub, Lb, r)
                p = dice.ROLL_PROBABILITY[r]
                if reroll:
                    pr = np.where(pusc, 0.0, p)
                else:
                    pr = np.full(len(Ub), p)
                k = key(Un, Ln)
                pos = np.minimum(np.searchsorted(nxt_keys, k), max(len(nxt_keys) - 1, 0))
                hit = (nxt_keys[pos] == k) if len(nxt_keys) else np.zeros_like(k, dtype=bool)
                cont = np.where(hit, nxt_v[pos] if len(nxt_v) else 0.0, final)
                val = np.where(ended, final, cont)
                best = np.where(legal, val, -np.inf).max(axis=1)
                acc += pr * np.where(pr > 0, best, 0.0)
                norm += pr
                if policy is not None:
                    rolls = np.full(len(Ub), r)
                    choice = policy(Ub, Lb, rolls, legal, pusc)
                    cont_pi = np.where(hit, nxt_pi[pos] if len(nxt_pi) else 0.0, final)
                    val_pi = np.where(ended, final, cont_pi)
                    chosen = np.take_along_axis(val_pi, choice[:, None], axis=1)[:, 0]
                    acc_pi += pr * np.where(pr > 0, chosen, 0.0)
            V[lo:lo + _BLOCK] = acc / norm
            Vpi[lo:lo + _BLOCK] = acc_pi / norm
        nxt_keys, nxt_v, nxt_pi = keys, V, Vpi
        if progress:
            progress(1)
    n_states = sum(len(x[0]) for x in layers)
    return ExactResult(float(nxt_v[0]), float(nxt_pi[0]) if policy is not None else None,
                       n_states, len(layers), truncated)
