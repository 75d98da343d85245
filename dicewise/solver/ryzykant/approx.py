"""The approximate solver for Ryzykant: a value function of the position before a roll.

The exact state (eleven mark counts and the lower table) is far too large to tabulate, but
the final score is a sum over the eleven pair sums.  So the value of a position ``x``
before a roll (the position a split leads to) is approximated as

    V(x) = sum over sums s of  f_s(n_s) + 2^k_s · D[s, r_s, k_s, L(x)]
           + sum over counters c of  G_c[L(x), z_c(x)]

where f_s(n) is the points the sum would score if the game ended now, n_s = 5·k_s + r_s
its marks, and L(x) the *clock*: the lower table reduced to its three chosen faces' mark
counts, sorted, which says how long the game can still last.  D is the expected further
change of a sum's points in units of its current box value (the change scales by 2^k
exactly: f_s(5k + m) − f_s(5k + r) = 2^k · (f_s(m) − f_s(r))); sums s and 14 − s share D
(the mirror of the dice) and k is capped at 3 in the index.  The counters see what one sum
cannot: how many marks the open boxes still miss in all (``missing``) and how many boxes
are open (``open``), beside the clock — whether the game can still be steered to an end
with every box closed.

**Policies.**  A split that ends the game is worth its exact final score.  Any other is
worth, at ``lookahead`` 0, V of the position it leads to; at ``lookahead`` 1 (the tables
``policy_table`` builds), the exact expectation over the 252 next rolls of the best split
then by V (``expected_after``).  The policy plays the split of highest worth, first slot
on ties.

**Fitting.**  ``fit`` is the first stage (and the whole of the previous solver): approximate
policy iteration with Monte-Carlo returns, cell by cell, for D alone.  ``refine`` then
fits D and G together by fitted value iteration: it plays games with the current
policy (in its last rounds the lookahead policy, so the positions are those the table's
policy meets), computes for every visited position the exact one-roll backup
E_roll max_split V(next) (``expected_after``), and moves the parameters to the damped
least-squares fit of those targets.  The backup is where the exact expectation comes in;
it is also what ``bellman_residual`` measures.

How good the result is, is measured, not assumed: ``exact`` computes the optimum and any
of these policies' exact values on reduced games, ``search`` looks deeper at advice time,
and ``bound`` bounds the optimum from above by information relaxation where its inner
problem is small enough.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import dice, fixed_order
from .rules import (LOWER_FACES, N_SUMS, ROLL_FACES, SPLIT_A, SPLIT_B, SPLIT_F, SPLIT_FIRST_AB,
                    SPLIT_VALID, RyzykantRules, apply_splits, legal_splits, score, score_table)

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
_S = np.arange(N_SUMS)
_N = np.arange(N_MAX + 3)

#: The global counters z_c(x) = sum over sums of h_c(n_s), each capped: marks the open
#: boxes miss, and open boxes.
COUNTERS = ("missing", "open")
_H = np.stack([np.where(_N % 5 > 0, 5 - _N % 5, 0), (_N % 5 > 0).astype(np.int64)])
_CAPS = np.array([30, 11])
Z_CELLS = int(_CAPS.max()) + 1


def lower_class(lower) -> np.ndarray:
    """The class index of lower tables ``(..., 6)``: their top three counts, sorted."""
    top = -np.sort(-np.minimum(np.asarray(lower, dtype=np.int64), 9), axis=-1)[..., :LOWER_FACES]
    return top[..., 0] * 100 + top[..., 1] * 10 + top[..., 2]


def draw_rolls(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` roll indices drawn with the exact probabilities of five fair dice."""
    return np.searchsorted(_CUM, rng.integers(0, 6 ** 5, size=n), side="right")


def counters(upper) -> np.ndarray:
    """``(G, len(COUNTERS))``: the global counters of upper tables ``(G, 11)``, capped."""
    n = np.minimum(np.asarray(upper), N_MAX)
    return np.minimum(_H[:, n].sum(axis=-1).T, _CAPS[None, :])


# -- the value model ---------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Dense:
    """A value model as lookup tables: ``sums[s, n, L]`` (V's term for sum s with n marks in
    class L), ``gamma[c, L, z]`` (counter terms, or None) and the policy's ``lookahead``."""

    sums: np.ndarray
    gamma: np.ndarray | None = None
    lookahead: int = 0


@dataclass(frozen=True, eq=False)
class ValueModel:
    """The fitted cells: ``delta`` (6 mirrored sums × 5 × K_CELLS × N_CLASSES), ``gamma``
    (len(COUNTERS) × N_CLASSES × Z_CELLS, or None for the separable model) and the
    lookahead of the policy the model plays (0 or 1)."""

    delta: np.ndarray
    gamma: np.ndarray | None = None
    lookahead: int = 0

    @classmethod
    def zero(cls, with_counters: bool = False) -> "ValueModel":
        gamma = np.zeros((len(COUNTERS), N_CLASSES, Z_CELLS)) if with_counters else None
        return cls(np.zeros((6, 5, K_CELLS, N_CLASSES)), gamma)

    @functools.cached_property
    def _dense(self) -> Dense:
        n = np.arange(N_MAX + 3)
        k, r = np.divmod(n, 5)
        d = self.delta[_MIRROR[:, None], r[None, :], np.minimum(k, K_CELLS - 1)[None, :]]
        sums = _FS[:, :N_MAX + 3, None] + (2.0 ** k)[None, :, None] * d
        return Dense(sums, self.gamma, self.lookahead)

    def dense(self) -> Dense:
        """The lookup tables (made once per model)."""
        return self._dense

    def value(self, upper, lower) -> np.ndarray:
        """V of positions ``(G, 11)``, ``(G, 6)`` before a roll."""
        return values_before(self.dense(), np.asarray(upper), np.asarray(lower))

    def with_lookahead(self, lookahead: int) -> "ValueModel":
        return ValueModel(self.delta, self.gamma, lookahead)

    @property
    def parameters(self) -> int:
        return int(self.delta.size + (0 if self.gamma is None else self.gamma.size))

    def arrays(self) -> dict:
        """The model as named arrays, for a table file (``from_arrays`` reads them back)."""
        out = {"delta": self.delta, "lookahead": np.array([self.lookahead], np.int64)}
        if self.gamma is not None:
            out["gamma"] = self.gamma
        return out

    @classmethod
    def from_arrays(cls, arrays) -> "ValueModel":
        """The model of ``arrays()``; ValueError when an array is missing or misshapen."""
        zero = cls.zero(with_counters=True)
        delta = arrays.get("delta")
        if delta is None or tuple(np.shape(delta)) != zero.delta.shape:
            raise ValueError(f"expected a value model delta of shape {zero.delta.shape}")
        gamma = arrays.get("gamma")
        if gamma is not None and tuple(np.shape(gamma)) != zero.gamma.shape:
            raise ValueError(f"expected counter cells of shape {zero.gamma.shape}")
        look = int(np.asarray(arrays.get("lookahead", [0])).ravel()[0])
        if look not in (0, 1):
            raise ValueError(f"lookahead {look} is not 0 or 1")
        return cls(np.array(delta, dtype=np.float64),
                   None if gamma is None else np.array(gamma, dtype=np.float64), look)


def as_dense(model) -> Dense:
    """A ``Dense`` from a model, a ``Dense`` or a bare ``sums`` array (the older tables)."""
    if isinstance(model, ValueModel):
        return model.dense()
    if isinstance(model, Dense):
        return model
    return Dense(np.asarray(model))


def values_before(dense, upper, lower) -> np.ndarray:
    """V of positions before a roll, from the dense tables."""
    dense = as_dense(dense)
    n = np.minimum(upper, N_MAX)
    cls = lower_class(lower)
    v = dense.sums[_S[None, :], n, cls[:, None]].sum(axis=1)
    if dense.gamma is not None:
        z = counters(upper)
        for c in range(len(COUNTERS)):
            v = v + dense.gamma[c, cls, z[:, c]]
    return v


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

    ``s_f[g, f]`` is V's sum terms for game g's marks in the lower class it reaches by
    marking face f + 1, ``s_0`` the same without a lower mark (a puścioch); ``z`` the
    counters and ``dz1``/``dz2`` how one or two more marks on each sum change them.
    """
    dense = as_dense(dense)
    n = np.minimum(upper, N_MAX - 2).astype(np.int64)
    lo_f = lower[:, None, :] + np.eye(6, dtype=lower.dtype)[None]            # (G, 6, 6)
    cls_f = lower_class(lo_f)                                                # (G, 6)
    cls_0 = lower_class(lower)                                               # (G,)
    sums = dense.sums
    prep = {"n": n, "cls_f": cls_f, "cls_0": cls_0,
            "s_f": sums[_S[None, None, :], n[:, None, :], cls_f[:, :, None]].sum(axis=2),
            "s_0": sums[_S[None, :], n, cls_0[:, None]].sum(axis=1),
            "score": score(upper).astype(np.float64), "upper": upper, "lower": lower}
    if dense.gamma is not None:
        h0 = _H[:, n]                                                        # (C, G, 11)
        prep["z"] = h0.sum(axis=2)                                           # (C, G)
        prep["dz1"] = _H[:, n + 1] - h0
        prep["dz2"] = _H[:, n + 2] - h0
    return prep


def after_values(dense, ruleset: RyzykantRules, upper, lower, rolls, legal, pusc, prep=None) -> np.ndarray:
    """``(G, 15)``: V of the position each legal split slot leads to (−inf where illegal).

    A split that ends the game is worth the exact final score.  ``prep`` (from ``prepare``)
    may be passed when the same positions are valued for many rolls.
    """
    dense = as_dense(dense)
    prep = prep or prepare(dense, upper, lower)
    sums = dense.sums
    g = np.arange(len(rolls))[:, None]
    n, cls_f, cls_0 = prep["n"], prep["cls_f"], prep["cls_0"]
    f = np.maximum(SPLIT_F[rolls] - 1, 0)
    a, b = np.maximum(SPLIT_A[rolls] - 2, 0), np.maximum(SPLIT_B[rolls] - 2, 0)
    p = pusc[:, None]
    cls = np.where(p, cls_0[:, None], cls_f[g, f])
    base = np.where(p, prep["s_0"][:, None], prep["s_f"][g, f])
    na, nb = n[g, a], n[g, b]
    same = a == b
    val = (base + sums[a, na + 1 + same, cls] - sums[a, na, cls]
           + np.where(same, 0.0, sums[b, nb + 1, cls] - sums[b, nb, cls]))
    if dense.gamma is not None:
        for c in range(len(COUNTERS)):
            dz1, dz2 = prep["dz1"][c], prep["dz2"][c]
            z = prep["z"][c][:, None] + np.where(same, dz2[g, a], dz1[g, a] + dz1[g, b])
            val = val + dense.gamma[c, cls, np.clip(z, 0, _CAPS[c])]
    ended = ~p & (lower[g, f] + 1 >= ruleset.end_marks)
    final = prep["score"][:, None] + immediate_gain(upper, rolls)
    val = np.where(ended, final, val)
    return np.where(legal, val, -np.inf)


def move_values(dense, ruleset: RyzykantRules, upper, lower, rolls, legal, pusc, prep=None) -> np.ndarray:
    """``(G, 15)``: what each legal split slot is worth to the model's policy (−inf where
    illegal): the exact final score for a split that ends the game, else V of the position
    it leads to (lookahead 0) or the exact expectation over the next roll of the best split
    then by V (lookahead 1).  ``prep`` is ``prepare``'s, for lookahead 0.
    """
    dense = as_dense(dense)
    if dense.lookahead == 0:
        return after_values(dense, ruleset, upper, lower, rolls, legal, pusc, prep)
    return lookahead_values(dense, ruleset, upper, lower, rolls, legal, pusc, dense.lookahead)


def lookahead_values(dense, ruleset: RyzykantRules, upper, lower, rolls, legal, pusc,
                     depth: int = 1) -> np.ndarray:
    """``(G, 15)``: each legal split's exact final score if it ends the game, else the
    expectation over ``depth`` more rolls, each played by its best split, of V then."""
    dense = as_dense(dense)
    gi, ji = np.nonzero(legal)
    out = np.full(legal.shape, -np.inf)
    up, lo, ended = apply_splits(ruleset, upper[gi], lower[gi], rolls[gi], ji, pusc[gi])
    val = score(up).astype(np.float64)
    live = ~ended
    if live.any():
        val[live] = expected_after(dense, ruleset, up[live], lo[live], depth)
    out[gi, ji] = val
    return out


# -- the exact expectation over the next roll ----------------------------------------------------

#: The pairs of sums a <= b, and the index of (a, b) among them.
_TA, _TB = np.triu_indices(N_SUMS)
_N_PAIRS = len(_TA)                                           # 66
_TRI = np.zeros((N_SUMS, N_SUMS), np.int64)
_TRI[_TA, _TB] = np.arange(_N_PAIRS)
_DIAG = _TRI[np.arange(N_SUMS), np.arange(N_SUMS)]


@dataclass(frozen=True)
class _RollIndex:
    """How the 252 rolls' legal splits read a position's table, for one set of chosen faces.

    The table has one row of 66 pairs of sums per face a split may mark (``rows``: faces
    0..5, and 6 for a puścioch) and −inf at the end.  Rolls are ordered by their number of
    legal splits, most first (``order``); ``slots[:, j]`` indexes the table for the j-th legal
    split of each roll (−inf past its last), and ``width[j]`` is how many of the ordered
    rolls have a j-th split.  ``puscioch`` marks the rolls (in the original order) that
    show none of three chosen faces.
    """

    rows: np.ndarray
    order: np.ndarray
    slots: np.ndarray
    width: np.ndarray
    puscioch: np.ndarray


@functools.cache
def _roll_index(chosen: int) -> _RollIndex:
    """The ``_RollIndex`` of a set of chosen lower faces (bit f = face f + 1), with the
    legality of ``rules.legal_splits`` (RULES.md 4)."""
    faces = np.array([(chosen >> f) & 1 for f in range(6)], dtype=bool)
    full = faces.sum() >= LOWER_FACES
    rows = np.append(np.flatnonzero(faces), 6) if full else np.arange(6)
    row_of = np.full(7, -1)
    row_of[rows] = np.arange(len(rows))
    pad = len(rows) * _N_PAIRS
    a, b, f = SPLIT_A - 2, SPLIT_B - 2, SPLIT_F - 1
    a, b, f = np.where(SPLIT_VALID, a, 0), np.where(SPLIT_VALID, b, 0), np.where(SPLIT_VALID, f, 0)
    marked = row_of[f] * _N_PAIRS + _TRI[a, b]
    if not full:
        idx, pusc = np.where(SPLIT_VALID, marked, pad), np.zeros(dice.N_ROLLS, bool)
    else:
        shows = (ROLL_FACES & faces[None, :]).any(axis=1)
        free = row_of[6] * _N_PAIRS + _TRI[a, b]
        idx = np.where(shows[:, None], np.where(SPLIT_VALID & faces[f], marked, pad),
                       np.where(SPLIT_FIRST_AB, free, pad))
        pusc = ~shows
    idx = -np.sort(-np.where(idx == pad, -1, idx), axis=1)          # legal ones first
    idx = np.where(idx < 0, pad, idx)
    count = (idx != pad).sum(axis=1)
    order = np.argsort(-count, kind="stable")
    width = (count[order][:, None] > np.arange(idx.shape[1])[None, :]).sum(axis=0)
    return _RollIndex(rows, order, idx[order], width, pusc)


def _split_tables(dense: Dense, ruleset: RyzykantRules, upper, lower, rows) -> np.ndarray:
    """``(G, len(rows)·66 + 1)``: for positions before a roll, the worth T[f, a, b] (a <= b)
    of marking sums a, b and face f, for the faces f in ``rows`` (6: no face, a puścioch) —
    the exact final score where that ends the game, else V after it — flattened, with −inf
    appended."""
    G, F = len(upper), len(rows)
    n = np.minimum(upper, N_MAX - 2)
    cls = np.empty((G, F), np.int64)
    for i, f in enumerate(rows):
        lo = lower.copy()
        if f < 6:
            lo[:, f] += 1
        cls[:, i] = lower_class(lo)
    out = np.empty((G, F * _N_PAIRS + 1))
    out[:, -1] = -np.inf
    T = out[:, :-1].reshape(G, F, _N_PAIRS)
    sums = dense.sums
    d = [sums[_S[None, None, :], n[:, None, :] + i, cls[:, :, None]] for i in range(3)]
    d1 = d[1] - d[0]                                                         # (G, F, 11)
    np.add(d1[:, :, _TA], d1[:, :, _TB], out=T)
    T += d[0].sum(axis=2)[:, :, None]
    T[:, :, _DIAG] += d[2] - d[0] - 2 * d1                                   # a == b: two marks
    if dense.gamma is not None:
        for c in range(len(COUNTERS)):
            h = [_H[c, n + i] for i in range(3)]                             # (G, 11)
            dz1 = h[1] - h[0]
            z = h[0].sum(axis=1)[:, None] + dz1[:, _TA] + dz1[:, _TB]
            z[:, _DIAG] += h[2] - h[0] - 2 * dz1
            T += dense.gamma[c][cls[:, :, None], np.clip(z, 0, _CAPS[c])[:, None, :]]
    ends = lower + 1 >= ruleset.end_marks                                    # (G, 6)
    if ends[:, rows[rows < 6]].any():
        g1 = _FS[_S, upper + 1] - _FS[_S, upper]
        E = score(upper).astype(np.float64)[:, None] + g1[:, _TA] + g1[:, _TB]
        E[:, _DIAG] += _FS[_S, upper + 2] - _FS[_S, upper] - 2 * g1
        for i, f in enumerate(rows):
            if f < 6:
                hit = np.flatnonzero(ends[:, f])
                T[hit, i] = E[hit]
    return out


def _best_per_roll(T: np.ndarray, index: _RollIndex) -> np.ndarray:
    """``(G, 252)`` in ``index.order``: the best legal split's entry of T for each roll."""
    best = T[:, index.slots[:, 0]]
    for j in range(1, index.slots.shape[1]):
        w = index.width[j]
        if not w:
            break
        np.maximum(best[:, :w], T[:, index.slots[:w, j]], out=best[:, :w])
    return best


def roll_weights(ruleset: RyzykantRules, pusc: np.ndarray) -> np.ndarray:
    """The probabilities of the 252 rolls, given a position whose puścioch rolls are ``pusc``:
    under ``puscioch=reroll`` those are thrown again, so the rest are renormalised."""
    w = dice.ROLL_PROBABILITY
    if ruleset.puscioch == "reroll":
        w = np.where(pusc, 0.0, w)
    return w / w.sum()


def expected_after(dense, ruleset: RyzykantRules, upper, lower, depth: int = 1,
                   block: int = 2000) -> np.ndarray:
    """E over the next roll of the best split's worth, for positions before a roll.

    Exact over the 252 rolls.  At ``depth`` 1 a split's worth is its final score if it ends
    the game, else V after it; at ``depth`` d > 1 it is ``expected_after`` at depth d − 1.
    A split's effect is its two sums and its face, so every split of every roll is a lookup
    into one table T[f, a, b] per position (at most 7·66 entries: the faces a split may
    mark, a <= b), indexed by the legality pattern of its chosen faces: depth 1 computes the table from V's per-sum terms without
    building a position, depth d values at most 7·66 positions at depth d − 1.
    """
    dense = as_dense(dense)
    upper = np.asarray(upper, dtype=np.int64)
    lower = np.asarray(lower, dtype=np.int64)
    G = len(upper)
    out = np.empty(G)
    if G == 0:
        return out
    chosen = ((lower > 0) * (1 << np.arange(6))).sum(axis=1)
    for c in np.unique(chosen):
        index = _roll_index(int(c))
        w = roll_weights(ruleset, index.puscioch)[index.order]
        rows = np.flatnonzero(chosen == c)
        for lo in range(0, len(rows), block):
            r = rows[lo:lo + block]
            T = (_split_tables(dense, ruleset, upper[r], lower[r], index.rows) if depth == 1
                 else _deep_tables(dense, ruleset, upper[r], lower[r], index.rows, depth))
            out[r] = fixed_order.rows_times(_best_per_roll(T, index), w)
    return out


def _deep_tables(dense: Dense, ruleset: RyzykantRules, upper, lower, rows, depth: int) -> np.ndarray:
    """As ``_split_tables``, with each entry that does not end the game worth
    ``expected_after`` at ``depth`` − 1 of the position it leads to (at most 7·66 positions
    per position, since a split's effect is its two sums and its face)."""
    G, F = len(upper), len(rows)
    gi, ri, pi = (x.ravel() for x in np.meshgrid(np.arange(G), np.arange(F), np.arange(_N_PAIRS),
                                                  indexing="ij"))
    fi = rows[ri]
    k = np.arange(len(gi))
    up = upper[gi].copy()
    np.add.at(up, (k, _TA[pi]), 1)
    np.add.at(up, (k, _TB[pi]), 1)
    lo = lower[gi].copy()
    marked = fi < 6
    lo[k[marked], fi[marked]] += 1
    ended = marked & (lo[k, np.minimum(fi, 5)] >= ruleset.end_marks)
    worth = score(up).astype(np.float64)
    live = ~ended
    worth[live] = expected_after(dense, ruleset, up[live], lo[live], depth - 1)
    out = np.full((G, F * _N_PAIRS + 1), -np.inf)
    out[gi, ri * _N_PAIRS + pi] = worth
    return out


# -- policies and lockstep play ----------------------------------------------------------------

#: A policy maps (upper, lower, rolls, legal, pusc) of the moving games to split slots.
Policy = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def model_policy(model_or_dense, ruleset: RyzykantRules, lookahead: int | None = None) -> Policy:
    """The policy that plays the split of highest worth (``move_values``; first slot on
    ties), at the model's own lookahead unless ``lookahead`` is given."""
    dense = as_dense(model_or_dense)
    if lookahead is not None and lookahead != dense.lookahead:
        dense = Dense(dense.sums, dense.gamma, lookahead)

    def choose(upper, lower, rolls, legal, pusc):
        return np.argmax(move_values(dense, ruleset, upper, lower, rolls, legal, pusc), axis=1)

    return choose


def greedy_policy(ruleset: RyzykantRules) -> Policy:
    """The split with the best immediate change of score (first slot on ties)."""

    def choose(upper, lower, rolls, legal, pusc):
        return np.argmax(np.where(legal, immediate_gain(upper, rolls), -np.inf), axis=1)

    return choose


@dataclass
class Games:
    """The result of games played in lockstep: final sheets, roll counts, and with ``record``
    the positions visited (``visits``: per step, the games still playing and their upper and
    lower tables) and the rolls they met there (``visit_rolls``)."""

    upper: np.ndarray
    lower: np.ndarray
    rolls: np.ndarray
    puscioch: np.ndarray
    visits: list | None = None
    visit_rolls: list | None = None

    @property
    def scores(self) -> np.ndarray:
        return score(self.upper)


def play_games(ruleset: RyzykantRules, policy: Policy, n_games: int, seed, *,
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
    visit_rolls = [] if record else None
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
            visit_rolls.append(rolls)
        if not len(idx):
            continue
        choice = policy(up, lo, rolls, legal, pusc)
        up, lo, ended = apply_splits(ruleset, up, lo, rolls, choice, pusc)
        upper[idx], lower[idx] = up, lo
        rolls_played[idx] += 1
        pusc_count[idx] += pusc
        alive[idx[ended]] = False
    return Games(upper, lower, rolls_played, pusc_count, visits, visit_rolls)


def visited(games: Games) -> tuple[np.ndarray, np.ndarray]:
    """The recorded positions of ``play_games(..., record=True)``, stacked: (upper, lower)."""
    return (np.concatenate([v[1] for v in games.visits]),
            np.concatenate([v[2] for v in games.visits]))


# -- fitting --------------------------------------------------------------------------------------

def _cells(up, lo):
    n = np.minimum(up, N_MAX)
    k, r = np.divmod(n, 5)
    return (((_MIRROR[None, :] * 5 + r) * K_CELLS + np.minimum(k, K_CELLS - 1)) * N_CLASSES
            + lower_class(lo)[:, None])


def fit(ruleset: RyzykantRules, iterations: int = 16, games: int = 20_000, seed: int = 1,
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
    is called with 1 after each round.  The counter terms of ``model``, if any, are kept
    and take part in the policy, not in the fit.
    """
    model = model or ValueModel.zero()
    size = model.delta.size
    total = np.zeros(size)
    count = np.zeros(size)
    history = []
    s = np.arange(N_SUMS)[None, :]
    for it in range(iterations):
        played = play_games(ruleset, model_policy(model, ruleset, 0), games, [seed, it], record=True)
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
        model = ValueModel(delta.reshape(model.delta.shape), model.gamma, model.lookahead)
        history.append({"round": it, "games": games, "mean": float(played.scores.mean()),
                        "cells": int(seen.sum())})
        if progress:
            progress(1)
    return model, history


def _design(upper, lower):
    """The sparse design matrix of V − (current points) in the model's cells, for positions."""
    from scipy import sparse

    G = len(upper)
    k = np.minimum(upper, N_MAX) // 5
    cls = lower_class(lower)
    n_delta = 6 * 5 * K_CELLS * N_CLASSES
    z = counters(upper)
    rows = [np.repeat(np.arange(G), N_SUMS)] + [np.arange(G)] * len(COUNTERS)
    cols = [_cells(upper, lower).ravel()] + [
        n_delta + (c * N_CLASSES + cls) * Z_CELLS + z[:, c] for c in range(len(COUNTERS))]
    vals = [(2.0 ** k).ravel()] + [np.ones(G)] * len(COUNTERS)
    shape = (G, n_delta + len(COUNTERS) * N_CLASSES * Z_CELLS)
    return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=shape)


def refine(model: ValueModel, ruleset: RyzykantRules, rounds: int = 12, games: int = 5000,
           seed: int = 1, damp: float = 1.0, progress: Callable[[int], None] | None = None,
           lookahead_rounds: int = 0, trace: float = 0.0) -> tuple[ValueModel, list[dict]]:
    """Fitted value iteration from ``model``: D and the counter terms G together.

    Each round plays ``games`` games with the current model's policy (seed
    ``(seed, 7, round)``; lookahead 0, or lookahead 1 in the last ``lookahead_rounds``
    rounds, so the positions are those the table's policy meets), computes at every
    visited position x_t the exact backup TV(x_t) = E_roll max_split V(next)
    (``expected_after``) and fits V to the targets

        y_t = TV(x_t) + trace · (y_(t+1) − Φ_t),   y at the end = the final score,

    where Φ_t is the best split's worth by V on the roll the game really met: with
    ``trace`` 0 the one-roll backup, with 1 the game's final score less the luck of its
    rolls as V sees it (an unbiased estimate of the played policy's value with a control
    variate), in between a blend that carries the game's outcome back faster than one roll
    per round.  The parameters move by the damped least-squares fit of y − V (``damp``
    pulls rarely visited cells towards their old values).  Returns the model (with counter
    terms) and one record per round.
    """
    if model.gamma is None:
        model = ValueModel(model.delta, ValueModel.zero(True).gamma, model.lookahead)
    history = []
    for it in range(rounds):
        look = 1 if it >= rounds - lookahead_rounds else 0
        played = play_games(ruleset, model_policy(model, ruleset, look), games, [seed, 7, it],
                            record=True)
        dense = Dense(model.dense().sums, model.gamma, 0)
        steps = []
        for (idx, up, lo), rolls in zip(played.visits, played.visit_rolls):
            ahead = expected_after(dense, ruleset, up, lo)
            legal, pusc = legal_splits(lo, rolls)
            luck = after_values(dense, ruleset, up, lo, rolls, legal, pusc).max(axis=1)
            steps.append((idx, ahead, luck))
        carry = played.scores.astype(np.float64)        # y of each game's next position
        targets = []
        for idx, ahead, luck in reversed(steps):
            y = ahead + trace * (carry[idx] - luck)
            carry[idx] = y
            targets.append(y)
        up, lo = visited(played)
        target = np.concatenate(targets[::-1])
        resid = target - values_before(dense, up, lo)
        step, _ = fixed_order.damped_least_squares(_design(up, lo), resid, damp, 200)
        nd = model.delta.size
        model = ValueModel(model.delta + step[:nd].reshape(model.delta.shape),
                           model.gamma + step[nd:].reshape(model.gamma.shape), model.lookahead)
        history.append({"round": it, "games": games, "mean": float(played.scores.mean()),
                        "positions": len(up), "residual_rms": float(np.sqrt(np.mean(resid ** 2)))})
        if progress:
            progress(1)
    return model, history


def bellman_residual(model, ruleset: RyzykantRules, upper, lower) -> np.ndarray:
    """V(x) − E_roll max_split V(next), exactly over the 252 rolls, for positions ``x``.

    A value function that were exact would have residual 0 everywhere; the root mean square
    over positions the policy visits is the error estimate reported with a table.
    """
    dense = as_dense(model)
    dense = Dense(dense.sums, dense.gamma, 0)
    upper = np.asarray(upper, dtype=np.int64)
    lower = np.asarray(lower, dtype=np.int64)
    return values_before(dense, upper, lower) - expected_after(dense, ruleset, upper, lower)
