"""A provable upper bound on the optimal expected score of ``poker-school``: a Lagrangian
relaxation of the game as a weakly coupled MDP, one small MDP per row.

Why it is an upper bound (every step can only raise the optimum):

1. Erasure only removes points: the optimum without ``school_cross_erases`` is at least
   the optimum with it, so erasure is dropped.
2. Column bonus: 60·[every cell of column j scored] ≤ Σ_r μ[r, j]·[cell j of row r scored]
   for any μ ≥ 0 with Σ_r μ[r, j] = 60; row r earns μ[r, j] when it scores its cell j.
3. The rows are then coupled only by "each turn writes exactly one cell", Σ_r w[r, t] = 1.
   For any multipliers λ_t (any sign) and any policy, E[score] = Σ_t λ_t +
   Σ_r E[score_r − Σ_t λ_t w[r, t]].
4. Row r alone is an MDP over the turns with state (cells written, clean, School reserve):
   each turn it rolls its own dice (keeps and stopping chosen for it alone) and either
   skips or writes its next cell (a score where the dice qualify, or a cross), paying λ_t
   per write; it must fill its C cells by the end.  Any policy of the real game induces a
   (history-dependent) policy of this MDP on row r's share of the dice — the rest of the
   sheet is a function of the same dice history — so each expectation in 3 is at most the
   row's optimal value V_r(λ, μ).  Hence optimum ≤ Σ_t λ_t + Σ_r V_r(λ, μ) for every λ
   and every admissible μ (``relaxed_value``).
5. The bound is convex in (λ, μ); ``upper_bound`` lowers it by projected subgradient steps
   (∂/∂λ_t = 1 − Σ_r P_r(write at t), ∂/∂μ[r, j] = P_r(cell j scored)) and keeps the best.
   Adding a constant to every λ_t changes nothing (each row writes exactly C cells).
6. Rows may also be relaxed in groups (``GROUPS``, a partition of the rows): a group is
   one MDP whose state is each of its rows' states, rolling one set of dice a turn for all
   its rows and writing at most one of their cells (paying λ_t).  Step 4's argument holds
   word for word, so optimum ≤ Σ_t λ_t + Σ_g V_g(λ, μ); and V_g ≤ Σ_{r ∈ g} V_r at the same
   multipliers (a group's policy, played on each row's own dice, is one of the row's), so
   grouping only tightens.  ``upper_bound`` finds the multipliers on the rows alone (a
   sweep of the groups costs about 170 row sweeps) and evaluates the groups once at them;
   ``group_iterations`` steps them further with the groups themselves as the subproblems
   (each group's subgradient parts from its own forward pass), too slow for a build.
7. The dice are priced (``prices``): each turn's dice are thrown once and the turn ends
   with one write (a score or a cross) on them, so for every turn t, roll number n (roll 1,
   or rolls 2–3, which write alike) and roll r, Σ_g [g writes at t after roll n with r] =
   [turn t ends after roll n with r].  Multiplied by any price p_t(n, r) and added, the
   right side's expectation is at most ``dice_value(p_t)``, the most one turn thrown for
   the prices alone can expect (the turn's dice evolve as that turn's, whatever came
   before), and the left side is paid by the groups on their writes; so optimum ≤ Σ_t λ_t
   + Σ_t dice_value(p_t) + Σ_g V_g(λ, μ, p).  A group that writes after the rolls it likes
   now pays for them as the one set of dice would be paid (∂/∂p_t(n, r) = P*_t(n, r) −
   Σ_g P_g(writes at t after n with r)); p = 0 is step 6.
8. The column bonus is shared more tightly: 60·[every cell j scored] ≤ Σ_r μ[r, j]·[cell j
   of row r scored] + ν_j·[cell j of every ``BONUS_ROWS`` row scored] for μ, ν ≥ 0 with
   Σ_r μ[r, j] + ν_j = 60 (each indicator on the right is at least the one on the left).
   The group holding the bonus rows remembers which of their cells were crossed (a bit per
   cell) and earns ν_j when the last of their cells j is scored; ν = 0 is step 7.
9. The keeps are priced: every group follows the one turn's keeps, so for every group g,
   turn t, roll n = 2, 3 and keep k, [g keeps k before roll n at t] = [the turn keeps k
   then].  Multiplied by any price q_{g,t}(n, k) and added, the right sides' expectation
   is at most one turn thrown for the prices and Σ_g q_g (``dice_value``), and each group
   pays its own on its keeps.  A group still follows the turn when it has nothing left to
   write (it may stop when it likes: a write elsewhere), so a full group plays its idle
   turns for its prices (``_idle_turns``).  The prices are found per row (q_g = Σ_{r∈g}
   q_r; a group's policy played on each row's dice pays each row's share, so grouping
   still only tightens); q = 0 is step 8.

The slack that is left: each group still throws its own dice, stops its turn when it
likes and picks its cells' turns; the column bonus is paid per scored cell set, not for
the column.

Since any multipliers give a bound, the full game's build does not step them: it evaluates
the groups (``evaluated``) at multipliers that hours of steps found, which ship with
dicewise (``certificate``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import blas_threads, dice
from .rules import COLUMN_BONUS, N_ROWS, N_SCHOOL, PokerSchoolRules
from ..turn import (TurnValues, best_sub_keep, best_sub_keep_and_keep, keep_values,
                    solve_turn, sparse_keep_to_roll)

NEG = -np.inf
#: School reserves kept in a row state: a reserve after the second of three cells is ≤ 4,
#: so the cap never binds on a reachable state (and capping could only lower the value).
N_RESERVE = 5
#: First lengths of the normalised subgradient steps, λ's divided by the columns (tuned on
#: columns 1 and 3: the bound is flat in λ, and longer λ steps only add noise).
LAMBDA_STEP = 2.0
MU_STEP = 40.0
#: First length of the normalised steps of the dice prices (tuned on columns 1 and 3).
PRICE_STEP = 600.0
#: First length of the normalised steps of the keep prices (tuned on columns 1 and 3).
KEEP_STEP = 10.0
#: Roll numbers a write is priced by: roll 1, and rolls 2–3 (whose writes score alike).
PRICED_ROLLS = 2
#: The rows relaxed together (step 6).  The free rows that want many dice of one face
#: (pair, triplet, full house, four) and chance are one group; two pairs, the straights and
#: poker another, which holds the ``BONUS_ROWS``; each School row takes dice of its own
#: face, and grouping them gained under 0.1 point, so they stay alone.  A group of k free
#: rows has 6^k states (a bonus row 16), so larger groups cost minutes per build.
GROUPS = ((0,), (1,), (2,), (3,), (4,), (5,), (6, 8, 11, 12, 14), (7, 9, 10, 13))
#: Rows whose cells of a column, all scored, earn ν_j of that column's bonus (step 8): the
#: small and big straight and poker, the rows the relaxation scores far more often than
#: play does, and that μ alone gives most of the bonus to.
BONUS_ROWS = (9, 10, 13)
#: Group states solved per call of the turn solver; in a forward pass, which keeps more.
GROUP_CHUNK = 4096
FLOW_CHUNK = 1024
#: Group steps (``group_iterations``) shrink by this factor after a step that raised the
#: bound and grow by ``GROUP_GROW`` after one that lowered it.  Tuned for the few dozen
#: steps the full game affords: on one column 496.8 after 50 steps where 1/√(i+1) alone is
#: at 502.9; it stalls near 495.8 after about 150 (0.95 reaches 493.9 in 300).
GROUP_SHRINK = 0.8
GROUP_GROW = 1.0 / np.sqrt(GROUP_SHRINK)
#: One step with the bonus rows as a group, in progress units of one sweep of the rows.
BONUS_SWEEPS = 30
#: The groups' evaluation in progress units of one sweep of the rows (about its cost).
GROUP_SWEEPS = 100


@dataclass(frozen=True)
class Bound:
    """The best bound found, its multipliers, the bound at every iteration, the time taken."""

    value: float
    lambdas: np.ndarray  # (turns,)
    mu: np.ndarray  # (15, columns)
    history: tuple[float, ...]  # the bound at every subgradient step (rows, then step 8's)
    seconds: float
    groups: tuple = tuple((r,) for r in range(N_ROWS))  # the relaxation ``value`` is of
    prices: np.ndarray | None = None  # (turns, 2, 252) the dice prices (step 7), None: 0
    nu: np.ndarray | None = None  # (columns,) the bonus rows' share (step 8), None: 0
    keep_prices: np.ndarray | None = None  # (turns, 2, 462, 15) the keeps' (step 9), None: 0


@dataclass(frozen=True)
class _Layout:
    """Every row state (cells written k < C, clean, reserve) of every row as one index s.

    Index S (one past the last) is "row full", worth 0.  ``gain[n][roll, s]`` are the
    points of scoring the next cell after roll 1 (n = 0) or rolls 2–3 (n = 1), the premium
    included, −inf where the dice do not qualify; ``score_next[roll, s]`` is the state a
    score leads to, ``cross_next[s]`` the state a cross leads to.
    """

    row: np.ndarray  # (S,)
    cell: np.ndarray  # (S,)
    clean: np.ndarray  # (S,)
    reserve: np.ndarray  # (S,)
    index: np.ndarray  # (15, C + 1, 2, N_RESERVE) state of (row, cell, clean, reserve); S: full
    start: np.ndarray  # (15,) each row's initial state
    gain: np.ndarray  # (2, 252, S)
    score_next: np.ndarray  # (252, S)
    cross_next: np.ndarray  # (S,)

    @property
    def size(self) -> int:
        return len(self.row)


@lru_cache(maxsize=8)
def _layout(game: PokerSchoolRules) -> _Layout:
    C = game.columns
    index = np.full((N_ROWS, C + 1, 2, N_RESERVE), -1)
    states = [(r, k, clean, res) for r in range(N_ROWS) for k in range(C) for clean in (1, 0)
              for res in range(N_RESERVE if r < N_SCHOOL else 1)]
    S = len(states)
    row, cell, clean, reserve = (np.array(a) for a in zip(*states))
    index[row, cell, clean, reserve] = np.arange(S)
    index[:, C] = S
    last = (cell == C - 1) & (clean == 1)
    gain = np.full((2, dice.N_ROLLS, S), NEG)
    score_next = np.empty((dice.N_ROLLS, S), np.int64)
    for r in range(N_ROWS):
        sel = np.flatnonzero(row == r)
        if r < N_SCHOOL:
            have = dice.ROLLS[:, r, None] + reserve[None, sel]
            ok = have >= 3
            points = np.where(ok, 3 * (r + 1) * (1 + last[sel]), NEG)
            gain[:, :, sel] = points[None]
            new_reserve = np.clip(have - 3, 0, N_RESERVE - 1)
        else:
            pts = game.base_points[r, :2, :, None] * (1 + last[sel])  # (2, 252, n)
            gain[:, :, sel] = np.where(pts > 0, pts, NEG)
            new_reserve = np.zeros((dice.N_ROLLS, len(sel)), np.int64)
        score_next[:, sel] = index[r, cell[sel] + 1, clean[sel], new_reserve]
    cross_next = index[row, cell + 1, 0, reserve]
    start = index[np.arange(N_ROWS), 0, 1, 0]
    for a in (row, cell, clean, reserve, index, start, gain, score_next, cross_next):
        a.setflags(write=False)
    return _Layout(row, cell, clean, reserve, index, start, gain, score_next, cross_next)


def _pass_on(mass: np.ndarray, keep: np.ndarray, kept=None) -> np.ndarray:
    """The distribution of the next roll (252, B) when ``mass`` (252, B) keeps ``keep``;
    the mass of each keep (462, B) is appended to ``kept`` if given."""
    B = mass.shape[1]
    flat = np.bincount((keep * B + np.arange(B)).ravel(), mass.ravel(),
                       minlength=dice.N_KEEPS * B).reshape(dice.N_KEEPS, B)
    if kept is not None:
        kept.append(flat)
    return sparse_keep_to_roll().T @ flat


def _end_distribution(write_value, turn, kept=None) -> np.ndarray:
    """Where optimal play ends the turn: P(stop at roll n with each roll) (3, 252, B); the
    keeps' masses before rolls 2 and 3 (462, B) are appended to ``kept`` if given."""
    e2, e3 = turn.before_roll
    best1, keep1 = best_sub_keep_and_keep(e2)
    best2, keep2 = best_sub_keep_and_keep(e3)
    q = np.broadcast_to(dice.ROLL_PROBABILITY[:, None], write_value[0].shape)
    ends = []
    for n, (best, keep) in enumerate(((best1, keep1), (best2, keep2))):
        stop = write_value[n] >= best
        ends.append(np.where(stop, q, 0.0))
        q = _pass_on(np.where(stop, 0.0, q), keep, kept)
    ends.append(q)
    return np.stack(ends)


def _solve_turn(write_value, keep_prices=None, keep_values_wanted: bool = True) -> TurnValues:
    """``solve_turn``, keeping k before roll 2 (3) paying ``keep_prices[0 (1), k]`` (462, B)."""
    if keep_prices is None:
        return solve_turn(write_value, keep_values_wanted=keep_values_wanted)
    e3 = keep_values(write_value[2]) - keep_prices[1]
    v2 = np.maximum(write_value[1], best_sub_keep(e3, overwrite=not keep_values_wanted))
    e2 = keep_values(v2) - keep_prices[0]
    v1 = np.maximum(write_value[0], best_sub_keep(e2, overwrite=not keep_values_wanted))
    return TurnValues((v1, v2, write_value[2]), (e2, e3), dice.ROLL_PROBABILITY @ v1)


def _idle_turns(keep_prices: np.ndarray):
    """Turns played by a unit with nothing left to write, paying ``keep_prices`` (T, 2, 462,
    U) for its keeps and stopping when it likes (a full row still follows the turn's keeps
    in the relaxation, step 9): (each turn's value (T, U), the keeps' masses (T, 2, 462, U),
    the value of turns t.. (T + 1, U))."""
    T, _, K, U = keep_prices.shape
    pay = np.transpose(keep_prices, (1, 2, 0, 3)).reshape(2, K, T * U)
    zero = np.zeros((dice.N_ROLLS, T * U))
    turn = _solve_turn((zero, zero, zero), pay)
    kept = []
    _end_distribution((zero, zero), turn, kept)
    value = turn.value.reshape(T, U)
    tail = np.zeros((T + 1, U))
    tail[:T] = np.cumsum(value[::-1], axis=0)[::-1]
    return value, np.moveaxis(np.stack(kept).reshape(2, K, T, U), 2, 0), tail


def dice_value(prices: np.ndarray, keep_prices=None):
    """Turns thrown for the prices (..., 2, 252) alone, each ending after roll 1 (``[..., 0,
    :]``) or rolls 2–3 (``[..., 1, :]``) and, with ``keep_prices`` (..., 2, 462), paid for
    its keeps before rolls 2 and 3, solved in one batch: (each turn's largest expectation
    (...), where it ends then (..., 2, 252)), and with keep prices the keeps' masses
    (..., 2, 462)."""
    prices = np.asarray(prices, dtype=float)
    flat = prices.reshape(-1, PRICED_ROLLS, dice.N_ROLLS)
    first, later = np.ascontiguousarray(flat[:, 0].T), np.ascontiguousarray(flat[:, 1].T)
    pay = None
    if keep_prices is not None:
        pay = -np.moveaxis(np.asarray(keep_prices, float).reshape(-1, 2, dice.N_KEEPS), 0, -1)
    kept = [] if pay is not None else None
    turn = _solve_turn((first, later, later), pay)
    end = _by_priced_roll(_end_distribution((first, later), turn, kept))  # (2, 252, turns)
    value = turn.value.reshape(prices.shape[:-2])
    ends = np.moveaxis(end, -1, 0).reshape(prices.shape)
    if pay is None:
        return value, ends
    return value, ends, np.moveaxis(np.stack(kept), -1, 0).reshape(prices.shape[:-1] + (dice.N_KEEPS,))


def _by_priced_roll(end: np.ndarray) -> np.ndarray:
    """(3, ...) by roll number as (2, ...) by priced roll number."""
    return np.stack([end[0], end[1] + end[2]])


@dataclass(frozen=True)
class _Sweep:
    """One evaluation of the relaxation: row values and, if asked, the subgradient parts."""

    rows: np.ndarray  # (15,) V_r(λ, μ, p)
    writes: np.ndarray | None  # (T,) Σ_r P_r(write at t)
    scored: np.ndarray | None  # (15, C) P_r(cell j scored)
    priced: np.ndarray | None  # (T, 2, 252) Σ_r P_r(writes at t after roll n with r)
    kept: np.ndarray | None = None  # (T, 2, 462, 15) P_r(keeps k before roll 2, 3 at t)


def _sweep(game: PokerSchoolRules, lambdas: np.ndarray, mu: np.ndarray, prices: np.ndarray,
           forward: bool, progress=None, without=(), keep_prices=None) -> _Sweep:
    """Backward induction of every row MDP at once (one ``solve_turn`` per turn), then
    optionally a forward pass of each row's state distribution under its optimal policy
    (the subgradient's parts, of the rows not ``without``)."""
    lay = _layout(game)
    S, C, T = lay.size, game.columns, len(lambdas)
    mu_state = mu[lay.row, lay.cell]
    # A full row r is state S + r, worth its idle turns left (0 without keep prices).
    score_next = np.where(lay.score_next == S, S + lay.row, lay.score_next)
    cross_next = np.where(lay.cross_next == S, S + lay.row, lay.cross_next)
    idle_kept, tail = None, np.zeros((T + 1, N_ROWS))
    if keep_prices is not None:
        _, idle_kept, tail = _idle_turns(keep_prices)
    value = np.full(S + N_ROWS, NEG)
    value[S:] = tail[T]
    steps = [None] * T
    for t in range(T - 1, -1, -1):
        live = np.flatnonzero(C - lay.cell <= T - t)
        skip = value[live]
        cross = value[cross_next[live]] - lambdas[t]
        after = value[score_next[:, live]] + (mu_state[live] - lambdas[t])
        price = prices[t][:, :, None]  # a cross pays for its dice too
        score = lay.gain[:, :, live] + after[None] - price  # (2, 252, B)
        cross = cross - price
        wv = np.maximum(np.maximum(score, cross), skip)
        kp = None if keep_prices is None else keep_prices[t][:, :, lay.row[live]]
        turn = _solve_turn((wv[0], wv[1], wv[1]), kp, keep_values_wanted=forward)
        if forward:
            kept = [] if keep_prices is not None else None
            end = _end_distribution((wv[0], wv[1]), turn, kept)
            score, cross = score[[0, 1, 1]], cross[[0, 1, 1]]  # (3, 252, B) by roll number
            scores = score >= np.maximum(cross, skip)  # ties: score, then skip, then cross
            writes = end * (scores | (cross > skip))
            mass = (end * scores).sum(axis=0)  # (252, B)
            p_score = mass.sum(axis=0)
            p_write = writes.sum(axis=(0, 1))
            p_skip = np.clip(1.0 - p_write, 0.0, 1.0)
            B = len(live)
            W = S + N_ROWS
            move = np.bincount((np.arange(B) * W + score_next[:, live]).ravel(),
                               mass.ravel(), minlength=B * W).reshape(B, W)
            move[np.arange(B), live] += p_skip
            move[np.arange(B), cross_next[live]] += np.clip(p_write - p_score, 0.0, 1.0)
            steps[t] = (live, move, p_skip, p_score, _by_priced_roll(writes),
                        None if kept is None else np.stack(kept))
        value = np.full(S + N_ROWS, NEG)
        value[S:] = tail[t]
        value[live] = turn.value
        if progress is not None:
            progress(1 / T)
    rows = value[lay.start]
    if not forward:
        return _Sweep(rows, None, None, None)
    dist = np.zeros(S + N_ROWS)
    dist[lay.start] = 1.0
    dist[lay.start[list(without)]] = 0.0
    writes = np.zeros(T)
    scored = np.zeros(N_ROWS * C)
    priced = np.zeros((T, PRICED_ROLLS, dice.N_ROLLS))
    kept = None if keep_prices is None else np.zeros((T, 2, dice.N_KEEPS, N_ROWS))
    for t, (live, move, p_skip, p_score, by_roll, keeps) in enumerate(steps):
        d = dist[live]
        full = dist[S:].copy()
        if keeps is not None:
            kept[t] = keeps @ ((lay.row[live][:, None] == np.arange(N_ROWS)) * d[:, None])
            kept[t] += idle_kept[t] * full
        writes[t] = d @ (1.0 - p_skip)
        priced[t] = by_roll @ d
        scored += np.bincount(lay.row[live] * C + lay.cell[live], d * p_score,
                              minlength=N_ROWS * C)
        dist = d @ move
        dist[S:] += full
    return _Sweep(rows, writes, scored.reshape(N_ROWS, C), priced, kept)


@dataclass(frozen=True)
class _RowPart:
    """One row of a group over the states it reaches, (cells written, crosses, reserve):
    ``crosses`` is the set of crossed cells (a bit each) where the row must remember them
    (a ``BONUS_ROWS`` row of a bonus group), else 1 for "crossed" and 0 for "clean"."""

    row: int
    open: np.ndarray  # (n,) a cell is left to write
    gain: np.ndarray  # (2, 252, n), −inf for a full row
    score_next: np.ndarray  # (252, n) local
    cross_next: np.ndarray  # (n,) local
    cell: np.ndarray  # (n,) the next cell's column (C − 1 for a full row)
    written: np.ndarray  # (n,) cells written
    scored: np.ndarray  # (C, n) cell j is known to be scored


def _row_part(lay: _Layout, r: int, columns: int, masked: bool) -> _RowPart:
    """Row r over the states it reaches from its start (a reserve, say, only grows so far)."""
    C, S = columns, lay.size
    start = (0, 0, 0)
    seen, todo, moves = {start}, [start], {}
    while todo:
        k, crosses, res = state = todo.pop()
        if k == C:
            continue
        s = int(lay.index[r, k, int(crosses == 0), res])
        scorable = np.flatnonzero(np.isfinite(lay.gain[:, :, s]).any(axis=0))
        last = k + 1 == C
        after = lay.score_next[scorable, s]
        score = {int(roll): (k + 1, crosses if masked or not last else 0,
                             0 if last else int(lay.reserve[n]))
                 for roll, n in zip(scorable, np.minimum(after, S - 1))}
        crossed = crosses | (1 << k) if masked else 1
        cross = (k + 1, crossed if masked or not last else 0, 0 if last else res)
        moves[state] = (s, score, cross)
        for nxt in set(score.values()) | {cross}:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    states = sorted(seen)
    n = len(states)
    local = {st: i for i, st in enumerate(states)}
    gain = np.full((2, dice.N_ROLLS, n), NEG)
    score_next = np.tile(np.arange(n), (dice.N_ROLLS, 1))
    cross_next = np.arange(n)
    written, crosses = (np.array(a) for a in zip(*[(k, c) for k, c, _ in states]))
    for i, state in enumerate(states):
        if state in moves:
            s, score, cross = moves[state]
            gain[:, :, i] = lay.gain[:, :, s]
            for roll, nxt in score.items():
                score_next[roll, i] = local[nxt]
            cross_next[i] = local[cross]
    j = np.arange(C)[:, None]
    scored = (written > j) & ((crosses >> j) & 1 == 0 if masked else crosses == 0)
    return _RowPart(r, written < C, gain, score_next, cross_next, np.minimum(written, C - 1),
                    written, scored)


@dataclass(frozen=True)
class _Group:
    """A group of rows as one MDP: state g = Σ_i digit_i × stride_i, digit_i a local state
    of row i (``_RowPart``).  ``bonus`` lists the parts of the ``BONUS_ROWS`` when the group
    holds them all (step 8); ``ready[i][j, g]``: every other one of them has scored cell j."""

    parts: tuple[_RowPart, ...]
    digits: tuple[np.ndarray, ...]  # (G,) each
    strides: tuple[int, ...]
    written: np.ndarray  # (G,) the group's cells written
    cells: int  # the group's cells in all
    start: int
    bonus: tuple[int, ...]
    ready: tuple[np.ndarray, ...]  # (C, G) per part of ``bonus``

    @property
    def size(self) -> int:
        return len(self.written)


@lru_cache(maxsize=32)
def _group(game: PokerSchoolRules, rows: tuple[int, ...]) -> _Group:
    lay = _layout(game)
    holds_bonus = set(BONUS_ROWS) <= set(rows)
    parts = tuple(_row_part(lay, r, game.columns, holds_bonus and r in BONUS_ROWS)
                  for r in rows)
    sizes = [len(p.written) for p in parts]
    strides = tuple(int(x) for x in np.cumprod([1] + sizes[:-1]))
    g = np.arange(int(np.prod(sizes)))
    digits = tuple((g // st) % n for st, n in zip(strides, sizes))
    written = sum(p.written[d] for p, d in zip(parts, digits))
    bonus = tuple(i for i, r in enumerate(rows) if holds_bonus and r in BONUS_ROWS)
    ready = tuple(np.logical_and.reduce([parts[o].scored[:, digits[o]] for o in bonus if o != i]
                                        + [np.ones((game.columns, len(g)), bool)])
                  for i in bonus)
    return _Group(parts, digits, strides, written, game.columns * len(rows), 0, bonus, ready)


def _group_choices(grp: _Group, value: np.ndarray, states: np.ndarray, price: float,
                   mu: np.ndarray, nu: np.ndarray):
    """Every write of group ``states`` valued before the dice's prices: (scores, P arrays
    (2, 252, B), crosses, P arrays (B,), skip (B,)), a write paying ``price``, a score also
    earning μ of its cell and, completing the bonus rows' cells of its column, ν."""
    scores, crosses = [], []
    for i, (part, digit, stride) in enumerate(zip(grp.parts, grp.digits, grp.strides)):
        d = digit[states]
        rest = states - d * stride
        crosses.append(np.where(part.open[d], value[rest + part.cross_next[d] * stride], NEG)
                       - price)
        earned = mu[part.row, part.cell[d]] - price
        if i in grp.bonus:
            ready = grp.ready[grp.bonus.index(i)][part.cell[d], states]
            earned = earned + np.where(ready, nu[part.cell[d]], 0.0)
        after = value[rest[None, :] + part.score_next[:, d] * stride] + earned
        scores.append(part.gain[:, :, d] + after[None])
    return scores, crosses, value[states]


def _group_turn(grp: _Group, value: np.ndarray, states: np.ndarray, price: float,
                mu: np.ndarray, nu: np.ndarray, prices: np.ndarray, keep_prices=None,
                forward: bool = False):
    """The value at turn start of group ``states``: skip, or cross a row's next cell or
    score it, the best by the exact turn solver; with ``forward`` also the turn solve, the
    best write (2, 252, B) and each write's choice (``_choice``, for ``_group_flows``)."""
    scores, crosses, skip = _group_choices(grp, value, states, price, mu, nu)
    # Every score and cross pays the same dice price, and rounding is monotone, so the
    # price is subtracted once from the best of them: the same bits as from each.
    best = np.maximum(scores[0], crosses[0][None, None])
    for score, cross in zip(scores[1:], crosses[1:]):
        np.maximum(best, score, out=best)
        np.maximum(best, cross[None, None], out=best)
    best -= prices[:, :, None]
    np.maximum(best, skip, out=best)
    turn = _solve_turn((best[0], best[1], best[1]), keep_prices, keep_values_wanted=forward)
    if not forward:
        return turn.value
    return turn, best, _choice(best, scores, crosses, skip, prices)


def _choice(best: np.ndarray, scores, crosses, skip, prices) -> np.ndarray:
    """The write that makes ``best`` (2, 252, B), ties to the first of: a score of each
    part, skip, a cross of each part (``_after_options``' order)."""
    P = len(scores)
    choice = np.full(best.shape, P)
    for o in range(2 * P, -1, -1):  # the last match written wins: the first option
        if o == P:
            option = skip[None, None]
        else:
            option = (scores[o] if o < P else crosses[o - P - 1][None, None]) - prices[:, :, None]
        choice[option == best] = o
    return choice


def _live(grp: _Group, t: int, turns: int) -> np.ndarray:
    """The group states to solve at turn t: at most one cell written a turn so far, and
    cells left that the turns left can still fill."""
    left = grp.cells - grp.written
    return np.flatnonzero((grp.written <= t) & (left > 0) & (left <= turns - t))


def _group_keep_prices(grp: _Group, keep_prices, t: int):
    """The group's keep prices at turn t (2, 462, 1): its rows' summed, or None."""
    if keep_prices is None:
        return None
    return keep_prices[t][:, :, [p.row for p in grp.parts]].sum(axis=-1)[:, :, None]


def _group_idle(grp: _Group, keep_prices, T: int):
    """The group's idle turns when all its cells are written: (keeps' masses (T, 2, 462) or
    None, the value of turns t.. (T + 1,))."""
    if keep_prices is None:
        return None, np.zeros(T + 1)
    _, kept, tail = _idle_turns(keep_prices[..., [p.row for p in grp.parts]].sum(
        axis=-1, keepdims=True))
    return kept[..., 0], tail[:, 0]


def _group_values_by_turn(grp: _Group, lambdas, mu, nu, prices, progress=None,
                          keep_prices=None) -> list:
    """V_g at every turn start, backward over the turns (value[t] (G,), value[T] at the end)."""
    T = len(lambdas)
    done = grp.written == grp.cells
    tail = _group_idle(grp, keep_prices, T)[1]
    values = [None] * (T + 1)
    values[T] = np.where(done, 0.0, NEG)
    for t in range(T - 1, -1, -1):
        live = _live(grp, t, T)
        value = np.where(done, tail[t], NEG)
        for a in range(0, len(live), GROUP_CHUNK):
            chunk = live[a:a + GROUP_CHUNK]
            value[chunk] = _group_turn(grp, values[t + 1], chunk, lambdas[t], mu, nu, prices[t],
                                       _group_keep_prices(grp, keep_prices, t))
        values[t] = value
        if progress is not None:
            progress(len(live))
    return values


def _group_value(grp: _Group, lambdas, mu, nu, prices, progress=None, keep_prices=None) -> float:
    """V_g(λ, μ, ν, p, q)."""
    values = _group_values_by_turn(grp, lambdas, mu, nu, prices, progress, keep_prices)
    return float(values[0][grp.start])


@dataclass(frozen=True)
class _Flows:
    """What a group's optimal policy does, in expectation: the subgradient's parts."""

    value: float
    writes: np.ndarray  # (T,) P(write at t)
    scored: np.ndarray  # (15, C) P(cell j of row r scored), its rows only
    priced: np.ndarray  # (T, 2, 252) P(write at t after roll n with r)
    bonus: np.ndarray  # (C,) P(the bonus rows all scored cell j), 0 without them
    kept: np.ndarray  # (T, 2, 462) P(keeps k before roll 2, 3 at t)


def _group_flows(grp: _Group, lambdas, mu, nu, prices, keep_prices=None) -> _Flows:
    """V_g and, by a forward pass of the group's state distribution under its optimal
    policy (ties: a score, then skip, then a cross), the subgradient's parts."""
    T, C = len(lambdas), len(nu)
    values = _group_values_by_turn(grp, lambdas, mu, nu, prices, keep_prices=keep_prices)
    dist = np.zeros(grp.size)
    dist[grp.start] = 1.0
    writes, priced = np.zeros(T), np.zeros((T, PRICED_ROLLS, dice.N_ROLLS))
    scored, bonus = np.zeros((N_ROWS, C)), np.zeros(C)
    P = len(grp.parts)
    kept = np.zeros((T, 2, dice.N_KEEPS))
    done = grp.written == grp.cells
    idle_kept = _group_idle(grp, keep_prices, T)[0]
    for t in range(T):
        live = _live(grp, t, T)
        group_kq = _group_keep_prices(grp, keep_prices, t)
        nxt = np.where(done, dist, 0.0)
        if idle_kept is not None:
            kept[t] += idle_kept[t] * dist[done].sum()
        for a in range(0, len(live), FLOW_CHUNK):
            states = live[a:a + FLOW_CHUNK]
            turn, best, choice = _group_turn(grp, values[t + 1], states, lambdas[t], mu, nu,
                                             prices[t], group_kq, forward=True)
            keeps = []
            mass = _end_distribution((best[0], best[1]), turn, keeps) * dist[states]  # (3, 252, B)
            kept[t] += np.stack(keeps) @ dist[states]
            choice = choice[[0, 1, 1]]  # rolls 2 and 3 write alike
            B = len(states)
            after = _after_options(grp, states)  # (2P + 1, 252, B)
            landing = after[choice, np.arange(dice.N_ROLLS)[:, None], np.arange(B)]
            nxt += np.bincount(landing.ravel(), mass.ravel(), minlength=grp.size)
            wrote = np.where(choice == P, 0.0, mass)
            writes[t] += wrote.sum()
            priced[t] += _by_priced_roll(wrote.sum(axis=-1))
            total = np.bincount((choice * B + np.arange(B)).ravel(), mass.ravel(),
                                minlength=(2 * P + 1) * B).reshape(2 * P + 1, B)
            for i, part in enumerate(grp.parts):
                cell = part.cell[grp.digits[i][states]]
                scored[part.row] += np.bincount(cell, total[i], minlength=C)
                if i in grp.bonus:
                    ready = grp.ready[grp.bonus.index(i)][cell, states]
                    bonus += np.bincount(cell[ready], total[i][ready], minlength=C)
        dist = nxt
    return _Flows(float(values[0][grp.start]), writes, scored, priced, bonus, kept)


def _after_options(grp: _Group, states: np.ndarray) -> np.ndarray:
    """The state each option leads ``states`` (B,) to after each roll (2P + 1, 252, B): a
    score of each part, skip, a cross of each part (``_group_flows``'s order of options)."""
    scores, crosses = [], []
    for part, digit, stride in zip(grp.parts, grp.digits, grp.strides):
        d = digit[states]
        rest = states - d * stride
        scores.append(rest[None, :] + part.score_next[:, d] * stride)
        crosses.append(np.broadcast_to(rest + part.cross_next[d] * stride, scores[-1].shape))
    skip = np.broadcast_to(states, scores[-1].shape)
    return np.stack(scores + [skip] + crosses)


def _check_groups(groups) -> tuple[tuple[int, ...], ...]:
    groups = tuple(tuple(int(r) for r in g) for g in groups)
    if sorted(r for g in groups for r in g) != list(range(N_ROWS)):
        raise ValueError("groups must be a partition of the 15 rows")
    return groups


def group_work(game: PokerSchoolRules, groups=GROUPS) -> int:
    """Group states solved by one evaluation of ``group_values`` (its progress units)."""
    return sum(len(_live(_group(_relaxed(game), rows), t, game.turns))
               for rows in _check_groups(groups) for t in range(game.turns))


def group_values(game: PokerSchoolRules, lambdas, mu, groups=GROUPS, progress=None,
                 prices=None, nu=None, keep_prices=None) -> np.ndarray:
    """Each group MDP's optimal value V_g(λ, μ, ν, p, q) (steps 6 to 9 of the module
    docstring); ``progress(n)`` is told of every n group states solved."""
    lambdas, mu, prices, nu, keep_prices = _check(game, lambdas, mu, prices, nu, keep_prices)
    groups = _check_groups(groups)
    if nu.any() and not any(set(BONUS_ROWS) <= set(g) for g in groups):
        raise ValueError(f"nu needs the rows {BONUS_ROWS} in one group")
    relaxed = _relaxed(game)
    return np.array([_group_value(_group(relaxed, rows), lambdas, mu, nu, prices, progress,
                                  keep_prices) for rows in groups])


def _relaxed(game: PokerSchoolRules) -> PokerSchoolRules:
    """The game the bound is computed on: erasure dropped (step 1 of the module docstring)."""
    return PokerSchoolRules(columns=game.columns, school_cross_erases=False, minimums=game.minimums)


def _check(game: PokerSchoolRules, lambdas, mu, prices=None, nu=None, keep_prices=None):
    """The multipliers as float arrays, checked; ``prices`` and ``nu`` None are 0,
    ``keep_prices`` None stays None (no keep priced)."""
    lambdas = np.asarray(lambdas, dtype=float)
    mu = np.asarray(mu, dtype=float)
    shape = (len(lambdas), PRICED_ROLLS, dice.N_ROLLS)
    prices = np.zeros(shape) if prices is None else np.asarray(prices, dtype=float)
    nu = np.zeros(game.columns) if nu is None else np.asarray(nu, dtype=float)
    if prices.shape != shape or not np.isfinite(prices).all():
        raise ValueError(f"prices must be finite, one (2, 252) array per turn: shape {shape}")
    if keep_prices is not None:
        keep_prices = np.asarray(keep_prices, dtype=float)
        kshape = (len(lambdas), 2, dice.N_KEEPS, N_ROWS)
        if keep_prices.shape != kshape or not np.isfinite(keep_prices).all():
            raise ValueError(f"keep_prices must be finite, one (2, 462, 15) array per turn: "
                             f"shape {kshape}")
    if mu.shape != (N_ROWS, game.columns) or nu.shape != (game.columns,):
        raise ValueError(f"mu must have shape (15, {game.columns}) and nu ({game.columns},)")
    if (mu < 0).any() or (nu < 0).any() or not np.allclose(mu.sum(axis=0) + nu, COLUMN_BONUS):
        raise ValueError("mu and nu must be ≥ 0 with every column summing to the column "
                         "bonus (60)")
    if lambdas.ndim != 1:
        raise ValueError("lambdas must be one multiplier per turn")
    return lambdas, mu, prices, nu, keep_prices


def row_values(game: PokerSchoolRules, lambdas, mu, prices=None, keep_prices=None) -> np.ndarray:
    """(15,) each row MDP's optimal value V_r(λ, μ, p, q), over ``len(lambdas)`` turns.

    ``lambdas`` may be shorter than the game (a row that cannot fill its cells is −inf).
    """
    lambdas, mu, prices, _, keep_prices = _check(game, lambdas, mu, prices, None, keep_prices)
    return _sweep(_relaxed(game), lambdas, mu, prices, forward=False,
                  keep_prices=keep_prices).rows


def _thrown(prices: np.ndarray, keep_prices) -> float:
    """Σ_t of one turn thrown for the dice prices and every row's keep prices."""
    return float(dice_value(prices, None if keep_prices is None
                            else keep_prices.sum(axis=-1))[0].sum())


def relaxed_value(game: PokerSchoolRules, lambdas, mu, groups=None, prices=None,
                  nu=None, keep_prices=None) -> float:
    """The upper bound Σ_t λ_t + Σ_t dice_value(p_t, Σ_r q_r,t) + Σ_r V_r(λ, μ, p, q) for
    these multipliers (valid for any of them), or with Σ_g V_g(λ, μ, ν, p, q) over
    ``groups`` of rows (ν, step 8, needs ``BONUS_ROWS`` in one group)."""
    lambdas, mu, prices, nu, keep_prices = _check(game, lambdas, mu, prices, nu, keep_prices)
    if len(lambdas) != game.turns:
        raise ValueError(f"lambdas must have one multiplier per turn ({game.turns})")
    if groups is None:
        if nu.any():
            raise ValueError(f"nu needs the rows {BONUS_ROWS} in one group")
        values = row_values(game, lambdas, mu, prices, keep_prices)
    else:
        values = group_values(game, lambdas, mu, groups, prices=prices, nu=nu,
                              keep_prices=keep_prices)
    return float(lambdas.sum() + _thrown(prices, keep_prices) + values.sum())


def evaluated(game: PokerSchoolRules, lambdas, mu, groups=GROUPS, prices=None, nu=None,
              keep_prices=None, progress=None) -> Bound:
    """The groups' relaxation at these multipliers (``relaxed_value``, a proven bound at
    any) as a ``Bound``, on one BLAS thread; ``progress`` as ``upper_bound``'s for its groups
    (``GROUP_SWEEPS`` in all)."""
    start = time.perf_counter()
    lambdas, mu, prices, nu, keep_prices = _check(game, lambdas, mu, prices, nu, keep_prices)
    groups = _check_groups(groups)
    share = None
    if progress is not None:
        work = group_work(game, groups)
        share = lambda n: progress(GROUP_SWEEPS * n / work)  # noqa: E731
    with blas_threads.single_blas_thread():
        value = float(lambdas.sum() + _thrown(prices, keep_prices)
                      + group_values(game, lambdas, mu, groups, share, prices, nu,
                                     keep_prices).sum())
    return Bound(value, lambdas, mu, (value,), time.perf_counter() - start, groups, prices,
                 nu if nu.any() else None, keep_prices)


def project_mu(mu: np.ndarray) -> np.ndarray:
    """Euclidean projection of every column of ``mu`` onto {μ ≥ 0, Σ_r μ = 60}."""
    u = -np.sort(-mu, axis=0)
    cum = np.cumsum(u, axis=0) - COLUMN_BONUS
    idx = np.arange(1, len(mu) + 1)[:, None]
    k = (u - cum / idx > 0).sum(axis=0)
    theta = cum[k - 1, np.arange(mu.shape[1])] / k
    return np.maximum(mu - theta, 0.0)


def _step(x: np.ndarray, gradient: np.ndarray, length: float) -> np.ndarray:
    """x moved against ``gradient`` by ``length`` (a normalised subgradient step)."""
    return x - length * gradient / max(float(np.linalg.norm(gradient)), 1e-12)


def upper_bound(game: PokerSchoolRules, iterations: int = 60, progress=None,
                groups=GROUPS, priced: bool = True, keeps: bool | None = None,
                bonus_iterations: int = 0, group_iterations: int = 0) -> Bound:
    """Minimise the rows' relaxation over (λ, μ, and the dice prices if ``priced``, the keep
    prices if ``keeps``, by default as ``priced``) by projected subgradient steps; then, if
    ``bonus_iterations`` and ``groups`` hold the ``BONUS_ROWS`` together, that many more
    steps over ν too with those rows as one group (step 8); then evaluate ``groups`` (None:
    none) at the best multipliers, or take ``group_iterations`` more steps from them with
    ``groups`` as the subproblems (tighter, but each step costs a forward pass of every
    group: about 65 s on the full game); the lowest bound.

    Steps are normalised, λ's, (μ, ν)'s, dice prices and keep prices separately (λ in points
    per write, μ in points of a 60-point bonus), and shrink as 1/√(i+1), the group steps
    also as they fail to lower the bound (``GROUP_SHRINK``); a turn's dice
    prices are kept at mean 0 (λ_t is their level).  ``progress(x)`` gets 1/turns per turn
    of the rows solved, ``BONUS_SWEEPS`` per step of the bonus group and, for the groups,
    their share of ``group_work`` in units of one sweep.  BLAS runs on one thread: hundreds
    of normalised steps amplify the last bits of a threaded sum's order.
    """
    keeps = priced if keeps is None else keeps
    with blas_threads.single_blas_thread():
        return _upper_bound(game, iterations, progress, groups, priced, keeps, bonus_iterations,
                            group_iterations)


@dataclass
class _Search:
    """The subgradient method's state: the multipliers and the best bound so far with its."""

    lambdas: np.ndarray
    mu: np.ndarray
    nu: np.ndarray
    prices: np.ndarray
    keep_prices: np.ndarray | None
    priced: bool
    history: list
    best: tuple = (np.inf,)

    def record(self, bound: float) -> None:
        self.history.append(bound)
        if bound < self.best[0]:
            self.best = (bound, self.lambdas.copy(), self.mu.copy(), self.nu.copy(),
                         self.prices.copy(),
                         None if self.keep_prices is None else self.keep_prices.copy())

    def restart(self) -> None:
        """Back to the best multipliers, the best bound forgotten (a new relaxation)."""
        _, self.lambdas, self.mu, self.nu, self.prices, self.keep_prices = self.best
        self.best = (np.inf,)

    def step(self, i: int, writes, scored, bonus, priced, ends, kept, keeps,
             scale: float = 1.0) -> None:
        """Step ``i`` against the subgradient, its lengths times ``scale``; ``bonus`` None
        leaves ν at 0."""
        step = scale / np.sqrt(i + 1)
        C = self.mu.shape[1]
        self.lambdas = _step(self.lambdas, 1.0 - writes, step * LAMBDA_STEP / C)
        self.lambdas -= self.lambdas.mean()
        if bonus is None:
            self.mu = project_mu(_step(self.mu, scored - scored.mean(axis=0), step * MU_STEP))
        else:
            both = np.vstack([scored, bonus])
            moved = project_mu(_step(np.vstack([self.mu, self.nu]), both - both.mean(axis=0),
                                     step * MU_STEP))
            self.mu, self.nu = moved[:-1], moved[-1]
        if self.priced:
            self.prices = _step(self.prices, ends - priced, step * PRICE_STEP)
            self.prices -= self.prices.mean(axis=(1, 2), keepdims=True)
        if self.keep_prices is not None:
            self.keep_prices = _step(self.keep_prices, keeps[..., None] - kept, step * KEEP_STEP)

    def thrown(self):
        """dice_value of every turn for these prices: (values, ends, keeps or None)."""
        if self.keep_prices is None:
            return (*dice_value(self.prices), None)
        return dice_value(self.prices, self.keep_prices.sum(axis=-1))


def _upper_bound(game: PokerSchoolRules, iterations: int, progress, groups, priced: bool,
                 keeps: bool, bonus_iterations: int, group_iterations: int) -> Bound:
    start = time.perf_counter()
    relaxed = _relaxed(game)
    T, C = game.turns, game.columns
    search = _Search(np.zeros(T), np.full((N_ROWS, C), COLUMN_BONUS / N_ROWS), np.zeros(C),
                     np.zeros((T, PRICED_ROLLS, dice.N_ROLLS)),
                     np.zeros((T, 2, dice.N_KEEPS, N_ROWS)) if keeps else None, priced, [])
    for i in range(iterations + 1):
        s = search
        forward = i < iterations
        sweep = _sweep(relaxed, s.lambdas, s.mu, s.prices, forward=forward, progress=progress,
                       keep_prices=s.keep_prices)
        thrown, ends, kept = s.thrown()
        s.record(float(s.lambdas.sum() + thrown.sum() + sweep.rows.sum()))
        if forward:
            s.step(i, sweep.writes, sweep.scored, None, sweep.priced, ends, sweep.kept, kept)
    singles = tuple((r,) for r in range(N_ROWS))
    candidates = [(search.best, singles)]  # (value and multipliers, the relaxation's groups)
    groups = None if groups is None else _check_groups(groups)
    if bonus_iterations and groups is not None and any(set(BONUS_ROWS) <= set(g) for g in groups):
        _bonus_steps(relaxed, search, iterations, bonus_iterations, progress)
        candidates.append((search.best, tuple(g for g in singles if g[0] not in BONUS_ROWS)
                           + (BONUS_ROWS,)))
    if groups is not None and group_iterations:
        _group_steps(relaxed, search, groups, iterations + bonus_iterations, group_iterations,
                     progress)
        candidates.append((search.best, groups))
    elif groups is not None:
        _, lambdas, mu, nu, prices, keep_prices = search.best
        grouped = evaluated(game, lambdas, mu, groups, prices, nu, keep_prices, progress)
        candidates.append(((grouped.value,) + search.best[1:], groups))
    (value, lambdas, mu, nu, prices, keep_prices), used = min(candidates, key=lambda c: c[0][0])
    return Bound(value, lambdas, mu, tuple(search.history), time.perf_counter() - start, used,
                 prices if priced else None, nu if nu.any() else None, keep_prices)


def _bonus_steps(relaxed: PokerSchoolRules, search: _Search, done: int, iterations: int,
                 progress) -> None:
    """Step 8's multipliers: from the rows' best, ν_j takes the μ of the ``BONUS_ROWS``
    (their cells all scored pay at most what each paid alone), then ``iterations`` steps
    with those rows as one group; ``search.best`` becomes the best of these steps."""
    search.restart()
    rows = list(BONUS_ROWS)
    search.nu = search.mu[rows].sum(axis=0)
    search.mu = search.mu.copy()
    search.mu[rows] = 0.0
    unit = _group(relaxed, BONUS_ROWS)
    others = np.setdiff1d(np.arange(N_ROWS), rows)
    for i in range(iterations + 1):
        s = search
        forward = i < iterations
        sweep = _sweep(relaxed, s.lambdas, s.mu, s.prices, forward=forward, progress=progress,
                       without=rows, keep_prices=s.keep_prices)
        if forward:
            flows = _group_flows(unit, s.lambdas, s.mu, s.nu, s.prices, s.keep_prices)
            value = flows.value
        else:
            value = _group_value(unit, s.lambdas, s.mu, s.nu, s.prices, keep_prices=s.keep_prices)
        if progress is not None:
            progress(BONUS_SWEEPS)
        thrown, ends, keeps = s.thrown()
        s.record(float(s.lambdas.sum() + thrown.sum() + sweep.rows[others].sum() + value))
        if forward:
            kept = None
            if s.keep_prices is not None:
                kept = sweep.kept.copy()
                kept[..., rows] = flows.kept[..., None]
            s.step(done + i, sweep.writes + flows.writes, sweep.scored + flows.scored,
                   flows.bonus, sweep.priced + flows.priced, ends, kept, keeps)


def _group_steps(relaxed: PokerSchoolRules, search: _Search, groups, done: int,
                 iterations: int, progress) -> None:
    """``iterations`` steps over every multiplier from the best so far with ``groups`` as the
    subproblems, each group's subgradient parts from its forward pass (``_group_flows``);
    ``search.best`` becomes the best of them, the first being the groups at the start."""
    search.restart()
    units = [_group(relaxed, rows) for rows in groups]
    holds_bonus = any(u.bonus for u in units)
    T, C = len(search.lambdas), search.mu.shape[1]
    scale = 1.0  # the steps' lengths adapt to whether the last one lowered the bound
    for i in range(iterations + 1):
        s = search
        forward = i < iterations
        writes, priced = np.zeros(T), np.zeros((T, PRICED_ROLLS, dice.N_ROLLS))
        scored, bonus = np.zeros((N_ROWS, C)), np.zeros(C)
        kept = None if s.keep_prices is None else np.zeros((T, 2, dice.N_KEEPS, N_ROWS))
        if not forward:  # the last multipliers: their value alone
            value = sum(_group_value(u, s.lambdas, s.mu, s.nu, s.prices,
                                     keep_prices=s.keep_prices) for u in units)
        else:
            value = 0.0
            for rows, unit in zip(groups, units):
                flows = _group_flows(unit, s.lambdas, s.mu, s.nu, s.prices, s.keep_prices)
                value += flows.value
                writes += flows.writes
                priced += flows.priced
                scored += flows.scored
                bonus += flows.bonus
                if kept is not None:
                    kept[..., list(rows)] = flows.kept[..., None]
        if progress is not None:
            progress(2 * GROUP_SWEEPS if forward else GROUP_SWEEPS)
        thrown, ends, keeps = s.thrown()
        s.record(float(s.lambdas.sum() + thrown.sum() + value))
        if i:
            rose = s.history[-1] > s.history[-2]
            scale *= GROUP_SHRINK if rose else GROUP_GROW
        if forward:
            s.step(done + i, writes, scored, bonus if holds_bonus else None, priced, ends, kept,
                   keeps, scale)
