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

from .. import dice
from .rules import (LOWER_FACES, N_SUMS, ROLL_FACES, SPLIT_A, SPLIT_B, SPLIT_F,
                       SPLIT_FIRST_AB, SPLIT_VALID, Position, Ryzykant, score)
from .approx import _FS, move_values, prepare

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


class _Block:
    """A block of positions and everything about them that does not depend on the roll."""

    def __init__(self, ruleset, U, L, key, dense):
        self.U, self.L, self.key = U, L, key
        self.chosen = L > 0
        self.free = self.chosen.sum(axis=1) < LOWER_FACES
        self.end_next = L + 1 >= ruleset.end_marks                          # (N, 6)
        self.score = score(U).astype(np.float64)
        fs_n = _FS[np.arange(N_SUMS)[None, :], U]
        self.gain1 = _FS[np.arange(N_SUMS)[None, :], U + 1] - fs_n          # (N, 11)
        self.gain2 = _FS[np.arange(N_SUMS)[None, :], U + 2] - fs_n
        self.prep = None if dense is None else prepare(dense, U, L)


def _moves(block: _Block, r, wu, wl):
    """For a block of positions and roll r: key change, legal, puścioch, ended, final (N, 15).

    The state key is linear in the marks, so a move's successor key is the state's key plus
    a per-(slot, puścioch) constant: nothing of shape (N, 15, 11) is ever built.
    """
    valid = SPLIT_VALID[r]
    a = np.where(valid, SPLIT_A[r] - 2, 0)
    b = np.where(valid, SPLIT_B[r] - 2, 0)
    f = np.where(valid, SPLIT_F[r] - 1, 0)
    shown = ROLL_FACES[r]
    pusc = ~block.free & ~block.chosen[:, shown].any(axis=1)
    legal = valid[None, :] & (block.free[:, None] | block.chosen[:, f])
    legal = np.where(pusc[:, None], SPLIT_FIRST_AB[r][None, :], legal)
    dk_up = (_EYE11[a] + _EYE11[b]) @ wu                                     # (15,)
    dk = dk_up[None, :] + np.where(pusc[:, None], 0, wl[f][None, :])          # (N, 15)
    ended = ~pusc[:, None] & block.end_next[:, f]
    same = a == b
    gain = np.where(same[None, :], block.gain2[:, a], block.gain1[:, a] + block.gain1[:, b])
    final = block.score[:, None] + gain
    return dk, legal, pusc, ended, final, a, b, f


def solve(ruleset: Ryzykant, start: Position | None = None, policy=None,
          max_puscioch: int = 2, progress: Callable[[int], None] | None = None) -> ExactResult:
    """The optimum from ``start`` (the empty sheet by default) and a policy's exact value.

    ``policy`` is None, ``"greedy"`` or a value model's dense table (``ValueModel.dense()``),
    whose policy is valued exactly.  ``progress`` is called with 1 per layer, forward and
    backward.
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
    dense = policy if isinstance(policy, np.ndarray) else None

    def key(U, L):
        return (U - U0) @ wu + (L - L0) @ wl

    def blocks(U, L, with_policy=False):
        for lo in range(0, len(U), _BLOCK):
            Ub, Lb = U[lo:lo + _BLOCK], L[lo:lo + _BLOCK]
            yield lo, _Block(ruleset, Ub, Lb, key(Ub, Lb), dense if with_policy else None)

    # -- forward: the positions of each layer --------------------------------------------
    layers = [(np.array([key(U0, L0)]), U0[None], L0[None])]
    truncated = False
    while True:
        t = len(layers)
        keys, U, L = layers[-1]
        found = []
        for _, blk in blocks(U, L):
            done = t - 1 - (blk.L.sum(axis=1) - lower0)                          # puściochy so far
            for r in range(dice.N_ROLLS):
                dk, legal, pusc, ended, _, a, b, f = _moves(blk, r, wu, wl)
                keep = legal & ~ended
                if reroll:
                    keep &= ~pusc[:, None]
                else:
                    cut = keep & (pusc & (done + 1 > max_puscioch))[:, None]
                    truncated |= bool(cut.any())
                    keep &= ~cut
                if keep.any():
                    rows, slots = np.nonzero(keep)
                    k, first = np.unique(blk.key[rows] + dk[rows, slots], return_index=True)
                    rows, slots = rows[first], slots[first]
                    Un = blk.U[rows] + _EYE11[a[slots]] + _EYE11[b[slots]]
                    Ln = blk.L[rows] + np.where(pusc[rows, None], 0, _EYE6[f[slots]])
                    found.append((k, Un, Ln))
        if progress:
            progress(1)
        if not found:
            break
        k = np.concatenate([x[0] for x in found])
        k, first = np.unique(k, return_index=True)
        layers.append((k, np.concatenate([x[1] for x in found])[first],
                       np.concatenate([x[2] for x in found])[first]))

    # -- backward: optimum and policy value -----------------------------------------------
    nxt_keys = np.zeros(1, dtype=np.int64)
    nxt_v = nxt_pi = np.zeros(1)
    for t in range(len(layers) - 1, -1, -1):
        keys, U, L = layers[t]
        V = np.zeros(len(U))
        Vpi = np.zeros(len(U))
        for lo, blk in blocks(U, L, with_policy=policy is not None):
            n = len(blk.U)
            acc, acc_pi, norm = np.zeros(n), np.zeros(n), np.zeros(n)
            for r in range(dice.N_ROLLS):
                dk, legal, pusc, ended, final, _, _, _ = _moves(blk, r, wu, wl)
                pr = np.where(pusc, 0.0, dice.ROLL_PROBABILITY[r]) if reroll else \
                    np.full(n, dice.ROLL_PROBABILITY[r])
                if not pr.any():
                    continue
                k = blk.key[:, None] + dk
                pos = np.minimum(np.searchsorted(nxt_keys, k), len(nxt_keys) - 1)
                hit = (nxt_keys[pos] == k) & ~ended
                val = np.where(hit, nxt_v[pos], final)
                best = np.where(legal, val, -np.inf).max(axis=1)
                acc += pr * np.where(pr > 0, best, 0.0)
                norm += pr
                if policy is not None:
                    rolls = np.full(n, r)
                    if dense is None:
                        choice = np.argmax(np.where(legal, final, -np.inf), axis=1)
                    else:
                        choice = np.argmax(move_values(dense, ruleset, blk.U, blk.L, rolls, legal,
                                                       pusc, prep=blk.prep), axis=1)
                    val_pi = np.where(hit, nxt_pi[pos], final)
                    chosen = np.take_along_axis(val_pi, choice[:, None], axis=1)[:, 0]
                    acc_pi += pr * np.where(pr > 0, chosen, 0.0)
            V[lo:lo + n] = acc / norm
            Vpi[lo:lo + n] = acc_pi / norm
        nxt_keys, nxt_v, nxt_pi = keys, V, Vpi
        if progress:
            progress(1)
    n_states = sum(len(x[0]) for x in layers)
    return ExactResult(float(nxt_v[0]), float(nxt_pi[0]) if policy is not None else None,
                       n_states, len(layers), truncated)
