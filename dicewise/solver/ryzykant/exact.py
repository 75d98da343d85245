"""Exact optimal play for small Ryzykant games, and the exact value of any policy there.

Every roll adds two marks to the upper table, so positions reachable from a start after t
rolls form layer t, and layer t depends only on layer t + 1: plain backward induction.
The positions are enumerated forward (all states of a layer as arrays, one vectorised step
per roll outcome), then valued backward with the exact expectation over the 252 rolls.

The game is finite when puściochs cannot happen or are thrown again (``puscioch=reroll``);
with ``puscioch=score`` a player may roll any number of puściochs, so the search stops
after ``max_puscioch`` of them: a position reached by one more is valued at its current
score.  That truncated optimum is bracketed by two more backward passes that value those
positions at proven bounds on their true value instead (``truncation_bounds``), so the
untruncated optimum lies in ``[lower, upper]``; the bracket narrows by about 32 times per
puścioch allowed (a puścioch needs a roll showing none of three faces, 1/32).

Policies are valued on the same layers: a policy that plays the split of highest worth,
where a split's worth is the value model after it (lookahead 0) or ``depth`` rolls of exact
expectation before it (lookahead ``depth``), is valued exactly by computing that worth for
every position of a layer once, by the same backward induction (``solve``'s ``policies``).

Small enough: ``end_marks`` 1 or 2 from the empty sheet, or the last few rolls of any
position (an endgame of the full game); ``optimum`` says which, and refuses the rest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Mapping

import numpy as np

from ...errors import DicewiseError
from .. import dice
from .rules import (BOX, LOWER_FACES, N_SUMS, ROLL_FACES, SPLIT_A, SPLIT_B, SPLIT_F,
                    SPLIT_FIRST_AB, SPLIT_VALID, VALUES, Position, RyzykantRules, score)
from . import approx
from .approx import _FS

_EYE11 = np.eye(N_SUMS, dtype=np.int64)
_EYE6 = np.eye(6, dtype=np.int64)
_BLOCK = 60_000


@dataclass(frozen=True)
class ExactResult:
    """Optimal expected final score from the start, policies' exact expected scores, and,
    when puściochs were cut off, a proven bracket ``[lower, upper]`` of the untruncated
    optimum (both equal to ``optimum`` when nothing was cut)."""

    optimum: float
    policy_value: float | None
    states: int
    layers: int
    truncated: bool
    lower: float = math.nan
    upper: float = math.nan
    policy_values: Mapping[str, float] = field(default_factory=dict)


def max_rolls(ruleset: RyzykantRules, pos: Position, max_puscioch: int) -> int:
    """Most rolls a game can still last from ``pos`` (with at most ``max_puscioch`` puściochy)."""
    e = ruleset.end_marks
    chosen = [c for c in pos.lower if c > 0]
    room = sum(e - 1 - c for c in chosen) + (3 - len(chosen)) * (e - 1)
    extra = 0 if ruleset.puscioch == "reroll" else max_puscioch
    return room + 1 + extra


class _Block:
    """A block of positions and everything about them that does not depend on the roll."""

    def __init__(self, ruleset, U, L, key):
        self.U, self.L, self.key = U, L, key
        self.chosen = L > 0
        self.free = self.chosen.sum(axis=1) < LOWER_FACES
        self.end_next = L + 1 >= ruleset.end_marks                          # (N, 6)
        self.score = score(U).astype(np.float64)
        fs_n = _FS[np.arange(N_SUMS)[None, :], U]
        self.gain1 = _FS[np.arange(N_SUMS)[None, :], U + 1] - fs_n          # (N, 11)
        self.gain2 = _FS[np.arange(N_SUMS)[None, :], U + 2] - fs_n


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


_C = 2.0 ** (2 / BOX)             # growth of a mark's worth over one roll's two marks
#: Lowest points each sum can ever reach from n marks on: a sheet's pathwise lower bound.
_FLOOR = np.minimum.accumulate(_FS[:, ::-1], axis=1)[:, ::-1]


def _envelope(upper) -> np.ndarray:
    """Σ_s g_s(n_s), g_s(n) = 5·v_s·(2^(n/5) − 1): equal to a sum's points when its boxes
    are all closed (n = 5k) and above them when one is open, since an open box's points are
    those of its closed boxes less its missing marks (f(5k + r) ≤ f(5k), r = 1..4)."""
    return (5.0 * VALUES[None, :] * (2.0 ** (np.asarray(upper) / BOX) - 1.0)).sum(axis=1)


def truncation_bounds(ruleset: RyzykantRules, upper, lower) -> tuple[np.ndarray, np.ndarray]:
    """Proven bounds ``(lo, hi)`` on the optimal expected final score from positions before
    a roll, under any number of later puściochs.

    lo: each sum's lowest points from its marks on (a box can only be opened, closed and
    doubled; an open first box costs at most 4·v) — no play can end below it.  hi: the final
    points are at most the envelope Σ_s g_s(n_s) of the final marks (``_envelope``); a mark
    raises g_s by 5·v·(2^(1/5) − 1)·2^(n/5), so, with Q = max over sums of v·2^(n/5) now,
    the i-th further mark of the game raises the envelope by at most
    5·Q·(2^(1/5) − 1)·2^((i−1)/5) and M further marks by at most 5·Q·(2^(M/5) − 1).  The
    game lasts X ≤ R + G more rolls (two marks each), R the rolls its lower table allows
    without puściochs and G a negative binomial count of 1/32 puściochs before them, so
    E[2^(2X/5)] ≤ (c·(31/32)/(1 − c/32))^R with c = 2^(2/5).  (The increment of a single
    mark can reach 6·v·2^k when it closes a box; the envelope is what makes the bound hold.)
    """
    upper = np.asarray(upper, np.int64)
    lower = np.asarray(lower, np.int64)
    lo = _FLOOR[np.arange(N_SUMS)[None, :], upper].sum(axis=1)
    e = ruleset.end_marks
    chosen = lower > 0
    room = np.where(chosen, e - 1 - lower, 0).sum(axis=1) + (LOWER_FACES - chosen.sum(axis=1)) * (e - 1)
    R = room + 1
    q = (VALUES[None, :] * 2.0 ** (upper / BOX)).max(axis=1)
    growth = (_C * (31 / 32) / (1 - _C / 32)) ** R
    hi = _envelope(upper) + 5.0 * q * (growth - 1.0)
    return lo.astype(np.float64), hi


def _policy_spec(policy):
    """("greedy", None, 0) or ("model", Dense, lookahead) for a policy given to ``solve``."""
    if isinstance(policy, str):
        if policy != "greedy":
            raise ValueError(f"unknown policy {policy!r}")
        return "greedy", None, 0
    dense = approx.as_dense(policy)
    return "model", dense, dense.lookahead


def _worth(dense, ruleset, depth, U, L):
    """A model policy's worth of positions before a roll at ``depth`` (0: V)."""
    if depth == 0:
        return approx.values_before(dense, U, L)
    return approx.expected_after(dense, ruleset, U, L, depth)


@dataclass(frozen=True)
class _Encoding:
    """Positions reachable from a start as dense integer keys: the marks added since the
    start, in a mixed radix wide enough for the longest game (``max_rolls``)."""

    U0: np.ndarray
    L0: np.ndarray
    wu: np.ndarray
    wl: np.ndarray

    @classmethod
    def of(cls, ruleset: RyzykantRules, start: Position, max_puscioch: int) -> "_Encoding":
        T = max_rolls(ruleset, start, max_puscioch)
        ru, rl = 2 * T + 1, T + 1
        if ru ** N_SUMS * rl ** 6 >= 2 ** 62:
            raise ValueError(f"{T} more rolls is too long a game for the exact solver")
        return cls(np.array(start.upper, dtype=np.int64), np.array(start.lower, dtype=np.int64),
                   ru ** np.arange(N_SUMS, dtype=np.int64),
                   ru ** N_SUMS * rl ** np.arange(6, dtype=np.int64))

    def key(self, U, L):
        return (U - self.U0) @ self.wu + (L - self.L0) @ self.wl

    def blocks(self, ruleset, U, L):
        """(offset, _Block) over the positions, ``_BLOCK`` at a time."""
        for lo in range(0, len(U), _BLOCK):
            Ub, Lb = U[lo:lo + _BLOCK], L[lo:lo + _BLOCK]
            yield lo, _Block(ruleset, Ub, Lb, self.key(Ub, Lb))


def _forward(ruleset: RyzykantRules, enc: _Encoding, max_puscioch: int, progress):
    """The layers of positions reachable from the start, ``(keys, U, L)`` each, and whether a
    puścioch past ``max_puscioch`` was cut off."""
    reroll = ruleset.puscioch == "reroll"
    lower0 = int(enc.L0.sum())
    layers = [(np.array([enc.key(enc.U0, enc.L0)]), enc.U0[None], enc.L0[None])]
    truncated = False
    while True:
        t = len(layers)
        keys, U, L = layers[-1]
        found = []
        for _, blk in enc.blocks(ruleset, U, L):
            done = t - 1 - (blk.L.sum(axis=1) - lower0)                          # puściochy so far
            for r in range(dice.N_ROLLS):
                dk, legal, pusc, ended, _, a, b, f = _moves(blk, r, enc.wu, enc.wl)
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
            return layers, truncated
        k = np.concatenate([x[0] for x in found])
        k, first = np.unique(k, return_index=True)
        layers.append((k, np.concatenate([x[1] for x in found])[first],
                       np.concatenate([x[2] for x in found])[first]))


def _after_the_end(specs) -> dict:
    """The values past the last layer: the one position every ended game maps to."""
    return {"keys": np.zeros(1, dtype=np.int64), "v": np.zeros(1), "lo": np.zeros(1),
            "hi": np.zeros(1), "pi": {n: np.zeros(1) for n in specs},
            "worth": {n: [np.zeros(1)] * (d + 1) for n, (_, _, d) in specs.items()}}


def _value_layer(ruleset: RyzykantRules, enc: _Encoding, layer, nxt: dict, specs, truncated: bool) -> dict:
    """A layer's values before a roll — the optimum, its bracket, every policy's value and
    its model worths — from the next layer's, by the exact expectation over the 252 rolls."""
    keys, U, L = layer
    N = len(U)
    cur = {"keys": keys, "v": np.zeros(N), "lo": np.zeros(N), "hi": np.zeros(N),
           "pi": {n: np.zeros(N) for n in specs}, "worth": {}}
    for name, (kind, dense, depth) in specs.items():
        if kind == "model":
            cur["worth"][name] = [_worth(dense, ruleset, d, U, L) for d in range(min(depth, 1) + 1)]
            cur["worth"][name] += [np.zeros(N) for _ in range(2, depth + 1)]
    for lo, blk in enc.blocks(ruleset, U, L):
        sl = slice(lo, lo + len(blk.U))
        acc, acc_pi, acc_w = _value_block(ruleset, enc, blk, nxt, specs, truncated)
        for x in ("v", "lo", "hi"):
            cur[x][sl] = acc[x] / acc["norm"]
        for name in specs:
            cur["pi"][name][sl] = acc_pi[name] / acc["norm"]
            for d, arr in acc_w[name].items():
                cur["worth"][name][d][sl] = arr / acc["norm"]
    return cur


def _value_block(ruleset: RyzykantRules, enc: _Encoding, blk: _Block, nxt: dict, specs,
                 truncated: bool):
    """The roll-weighted sums of one block's values (divided by ``norm`` by the caller: with
    ``puscioch=reroll`` a puścioch is thrown again, so the rolls that count sum below 1)."""
    reroll = ruleset.puscioch == "reroll"
    n = len(blk.U)
    acc = {"v": np.zeros(n), "lo": np.zeros(n), "hi": np.zeros(n), "norm": np.zeros(n)}
    acc_pi = {name: np.zeros(n) for name in specs}
    acc_w = {name: {d: np.zeros(n) for d in range(2, depth + 1)}
             for name, (_, _, depth) in specs.items()}
    for r in range(dice.N_ROLLS):
        dk, legal, pusc, ended, final, a, b, f = _moves(blk, r, enc.wu, enc.wl)
        pr = np.where(pusc, 0.0, dice.ROLL_PROBABILITY[r]) if reroll else \
            np.full(n, dice.ROLL_PROBABILITY[r])
        if not pr.any():
            continue
        k = blk.key[:, None] + dk
        pos = np.minimum(np.searchsorted(nxt["keys"], k), len(nxt["keys"]) - 1)
        hit = (nxt["keys"][pos] == k) & ~ended
        cut = legal & ~ended & ~hit                    # followed no further (puścioch)
        if reroll:
            cut &= ~pusc[:, None]                      # thrown again: never played
        if truncated and cut.any():
            rows, slots = np.nonzero(cut)
            Uc = blk.U[rows] + _EYE11[a[slots]] + _EYE11[b[slots]]
            cut_lo, cut_hi = truncation_bounds(ruleset, Uc, blk.L[rows])

        def succ(arr, at_cut=None):
            out = np.where(hit, arr[pos], final)
            if at_cut is not None:
                out[rows, slots] = at_cut
            return out

        def best(vals):
            return np.where(legal, vals, -np.inf).max(axis=1)

        w = np.where(pr > 0, pr, 0.0)
        acc["v"] += w * np.where(pr > 0, best(succ(nxt["v"])), 0.0)
        if truncated:
            at_cut = cut.any()
            acc["lo"] += w * np.where(pr > 0, best(succ(nxt["lo"], cut_lo if at_cut else None)), 0.0)
            acc["hi"] += w * np.where(pr > 0, best(succ(nxt["hi"], cut_hi if at_cut else None)), 0.0)
        acc["norm"] += pr
        for name, (kind, dense, depth) in specs.items():
            def worth_at(d):
                # Past the truncation a policy, like the optimum, is taken to stop
                # with the score it has (``succ`` values those splits at ``final``).
                return succ(nxt["worth"][name][d])
            for d in range(2, depth + 1):
                acc_w[name][d] += w * np.where(pr > 0, best(worth_at(d - 1)), 0.0)
            if kind == "greedy":
                choice = np.argmax(np.where(legal, final, -np.inf), axis=1)
            else:
                choice = np.argmax(np.where(legal, worth_at(depth), -np.inf), axis=1)
            chosen = np.take_along_axis(succ(nxt["pi"][name]), choice[:, None], axis=1)[:, 0]
            acc_pi[name] += w * np.where(pr > 0, chosen, 0.0)
    return acc, acc_pi, acc_w


def solve(ruleset: RyzykantRules, start: Position | None = None, policy=None,
          max_puscioch: int = 2, progress: Callable[[int], None] | None = None,
          policies: Mapping | None = None) -> ExactResult:
    """The optimum from ``start`` (the empty sheet by default) and policies' exact values.

    ``policy`` (valued as ``policy_value``) and the values of ``policies`` (name -> policy,
    valued in ``policy_values``) are ``"greedy"``, a ``ValueModel`` or its ``Dense`` tables:
    the policy playing the split of highest worth at the model's lookahead, first slot on
    ties, as in simulation.  With ``puscioch=score`` at most ``max_puscioch`` puściochs are
    followed (module docstring): past them the optimum and every policy are valued at the
    score they have then, and ``lower``/``upper`` bracket the untruncated optimum.
    ``progress`` is called with 1 per layer, forward and backward.
    """
    enc = _Encoding.of(ruleset, start or Position(), max_puscioch)
    pols = {**({"policy": policy} if policy is not None else {}), **dict(policies or {})}
    specs = {name: _policy_spec(p) for name, p in pols.items()}
    layers, truncated = _forward(ruleset, enc, max_puscioch, progress)
    nxt = _after_the_end(specs)
    for layer in reversed(layers):
        nxt = _value_layer(ruleset, enc, layer, nxt, specs, truncated)
        if progress:
            progress(1)
    n_states = sum(len(x[0]) for x in layers)
    values = {name: float(nxt["pi"][name][0]) for name in specs}
    lower, upper = ((float(nxt["lo"][0]), float(nxt["hi"][0])) if truncated
                    else (float(nxt["v"][0]),) * 2)
    return ExactResult(float(nxt["v"][0]), values.get("policy"), n_states, len(layers), truncated,
                       lower, upper, {k: v for k, v in values.items() if k != "policy"})


# -- the exact optimum of reduced games ------------------------------------------------------------

#: The largest variants ``optimum`` solves: end_marks 1 and 2 from the empty sheet (end_marks=3
#: has some 13 million positions after its sixth roll alone, out of reach here).
MAX_END_MARKS = 2


@dataclass(frozen=True)
class Optimum:
    """The optimum of a reduced game from the empty sheet, as exact as it can be made.

    ``value`` is the optimum (of the game truncated after ``max_puscioch`` puściochs when
    ``exact`` is False); the untruncated optimum lies in ``[lower, upper]`` (a proven
    bracket; both equal ``value`` when exact).  ``fraction`` is the optimum as an exact
    fraction where dicewise computes it in integers (end_marks=1), else None.
    ``policy_values`` are exact expected scores of the policies given to ``optimum``.
    """

    options: Mapping[str, object]
    value: float
    lower: float
    upper: float
    exact: bool
    fraction: Fraction | None
    states: int
    max_puscioch: int | None
    policy_values: Mapping[str, float] = field(default_factory=dict)

    def gap(self, name: str) -> float:
        """The optimum minus the exact value of policy ``name`` (an upper estimate of the loss
        where the optimum is only bracketed: use ``upper`` − value for a proven one)."""
        return self.value - self.policy_values[name]

    def as_dict(self) -> dict:
        return {"options": dict(self.options), "optimum": self.value, "lower": self.lower,
                "upper": self.upper, "exact": self.exact,
                "fraction": None if self.fraction is None else str(self.fraction),
                "states": self.states, "max_puscioch": self.max_puscioch,
                "policies": {k: {"value": v, "gap": self.value - v}
                             for k, v in self.policy_values.items()}}


def quick(ruleset: RyzykantRules) -> bool:
    """Variants whose exact optimum takes under a minute, so a table build computes it too:
    the one-roll game and ``end_marks=2`` with ``puscioch=reroll`` (175,572 positions)."""
    return ruleset.end_marks == 1 or (ruleset.end_marks == 2 and ruleset.puscioch == "reroll")


def one_roll_optimum() -> Fraction:
    """The optimum of the one-roll game (end_marks=1), an exact fraction: every split ends
    the game, so it is the mean over the 7776 ordered rolls of the best split's score."""
    total = 0
    for r in range(dice.N_ROLLS):
        n = int(SPLIT_VALID[r].sum())
        best = max(int(score(np.bincount([SPLIT_A[r, j] - 2, SPLIT_B[r, j] - 2], minlength=N_SUMS)))
                   for j in range(n))
        total += int(dice.ROLL_WEIGHT[r]) * best
    return Fraction(total, 6 ** 5)


def optimum(ruleset: RyzykantRules, policies: Mapping | None = None, max_puscioch: int = 2,
            progress: Callable[[int], None] | None = None) -> Optimum:
    """The exact optimum of a variant small enough (``MAX_END_MARKS``), with the exact values
    of ``policies`` (name -> ``"greedy"`` or a value model, as ``solve``).

    end_marks=1 is exact as a fraction (−576815/972 = −593.4311); end_marks=2 with
    ``puscioch=reroll`` is exact; with the seed's ``puscioch=score`` the game is solved with
    at most ``max_puscioch`` puściochs and bracketed (``solve``).  A larger variant is a
    DicewiseError naming the limit.
    """
    if ruleset.end_marks > MAX_END_MARKS:
        raise DicewiseError(f"end_marks={ruleset.end_marks} is too large a game to solve exactly "
                            f"(at most end_marks={MAX_END_MARKS}); end_marks=3 alone has some "
                            "13 million positions after its sixth roll")
    res = solve(ruleset, policies=policies, max_puscioch=max_puscioch, progress=progress)
    fraction = one_roll_optimum() if ruleset.end_marks == 1 else None
    value = float(fraction) if fraction is not None else res.optimum
    return Optimum(ruleset.options, value, res.lower if res.truncated else value,
                   res.upper if res.truncated else value, not res.truncated, fraction,
                   res.states, max_puscioch if res.truncated else None, dict(res.policy_values))
