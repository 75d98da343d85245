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
   sweep of the groups costs about 170 row sweeps) and evaluates the groups once at them.
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

The slack that is left: each group still throws its own dice (only where its writes end
is priced, not the keeps that lead there) and picks its cells' turns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import blas_threads, dice
from .rules import COLUMN_BONUS, N_ROWS, N_SCHOOL, PokerSchoolRules
from ..turn import best_sub_keep_and_keep, solve_turn, sparse_keep_to_roll

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
#: Roll numbers a write is priced by: roll 1, and rolls 2–3 (whose writes score alike).
PRICED_ROLLS = 2
#: The rows relaxed together (step 6).  The free rows that want many dice of one face
#: (pair, triplet, full house, four, poker) and chance are one group, two pairs and the
#: straights another; each School row takes dice of its own face, and grouping them gained
#: under 0.1 point, so they stay alone.  Six free rows are 6⁶ states, about 80 s; seven
#: would take minutes more.  (Measured on the full game at the rows' multipliers: these
#: groups 1,228.8, five and four free rows 1,247.3, rows alone 1,329.5.)
GROUPS = ((0,), (1,), (2,), (3,), (4,), (5,), (6, 8, 11, 12, 13, 14), (7, 9, 10))
#: Rows whose cells of a column, all scored, earn ν_j of that column's bonus (step 8).
BONUS_ROWS = (9, 10, 13)
#: Group states solved per call of the turn solver; in a forward pass, which keeps more.
GROUP_CHUNK = 4096
FLOW_CHUNK = 1024
#: One step with the bonus rows as a group, in progress units of one sweep of the rows.
BONUS_SWEEPS = 10
#: The groups' evaluation in progress units of one sweep of the rows (about its cost).
GROUP_SWEEPS = 170


@dataclass(frozen=True)
class Bound:
    """The best bound found, its multipliers, the bound at every iteration, the time taken."""

    value: float
    lambdas: np.ndarray  # (turns,)
    mu: np.ndarray  # (15, columns)
    history: tuple[float, ...]  # the rows' bound at every subgradient step
    seconds: float
    groups: tuple = tuple((r,) for r in range(N_ROWS))  # the relaxation ``value`` is of
    prices: np.ndarray | None = None  # (turns, 2, 252) the dice prices (step 7), None: 0
    nu: np.ndarray | None = None  # (columns,) the bonus rows' share (step 8), None: 0


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


def _pass_on(mass: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The distribution of the next roll (252, B) when ``mass`` (252, B) keeps ``keep``."""
    B = mass.shape[1]
    flat = np.bincount((keep * B + np.arange(B)).ravel(), mass.ravel(),
                       minlength=dice.N_KEEPS * B).reshape(dice.N_KEEPS, B)
    return sparse_keep_to_roll().T @ flat


def _end_distribution(write_value, turn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where optimal play ends the turn: P(stop at roll n with each roll) (3, 252, B)."""
    e2, e3 = turn.before_roll
    best1, keep1 = best_sub_keep_and_keep(e2)
    best2, keep2 = best_sub_keep_and_keep(e3)
    q = np.broadcast_to(dice.ROLL_PROBABILITY[:, None], write_value[0].shape)
    ends = []
    for n, (best, keep) in enumerate(((best1, keep1), (best2, keep2))):
        stop = write_value[n] >= best
        ends.append(np.where(stop, q, 0.0))
        q = _pass_on(np.where(stop, 0.0, q), keep)
    ends.append(q)
    return np.stack(ends)


def dice_value(prices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Turns thrown for the prices (..., 2, 252) alone, each ending after roll 1 (``[..., 0,
    :]``) or rolls 2–3 (``[..., 1, :]``), solved in one batch: (each turn's largest
    expectation (...), where it ends then (..., 2, 252))."""
    prices = np.asarray(prices, dtype=float)
    flat = prices.reshape(-1, PRICED_ROLLS, dice.N_ROLLS)
    first, later = np.ascontiguousarray(flat[:, 0].T), np.ascontiguousarray(flat[:, 1].T)
    turn = solve_turn((first, later, later))
    end = _by_priced_roll(_end_distribution((first, later), turn))  # (2, 252, turns)
    return turn.value.reshape(prices.shape[:-2]), np.moveaxis(end, -1, 0).reshape(prices.shape)


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


def _sweep(game: PokerSchoolRules, lambdas: np.ndarray, mu: np.ndarray, prices: np.ndarray,
           forward: bool, progress=None, without=()) -> _Sweep:
    """Backward induction of every row MDP at once (one ``solve_turn`` per turn), then
    optionally a forward pass of each row's state distribution under its optimal policy
    (the subgradient's parts, of the rows not ``without``)."""
    lay = _layout(game)
    S, C, T = lay.size, game.columns, len(lambdas)
    mu_state = mu[lay.row, lay.cell]
    value = np.full(S + 1, NEG)
    value[S] = 0.0
    steps = [None] * T
    for t in range(T - 1, -1, -1):
        live = np.flatnonzero(C - lay.cell <= T - t)
        skip = value[live]
        cross = value[lay.cross_next[live]] - lambdas[t]
        after = value[lay.score_next[:, live]] + (mu_state[live] - lambdas[t])
        price = prices[t][:, :, None]  # a cross pays for its dice too
        score = lay.gain[:, :, live] + after[None] - price  # (2, 252, B)
        cross = cross - price
        wv = np.maximum(np.maximum(score, cross), skip)
        turn = solve_turn((wv[0], wv[1], wv[1]), keep_values_wanted=forward)
        if forward:
            end = _end_distribution((wv[0], wv[1]), turn)
            score, cross = score[[0, 1, 1]], cross[[0, 1, 1]]  # (3, 252, B) by roll number
            scores = score >= np.maximum(cross, skip)  # ties: score, then skip, then cross
            writes = end * (scores | (cross > skip))
            mass = (end * scores).sum(axis=0)  # (252, B)
            p_score = mass.sum(axis=0)
            p_write = writes.sum(axis=(0, 1))
            p_skip = np.clip(1.0 - p_write, 0.0, 1.0)
            B = len(live)
            move = np.bincount((np.arange(B) * (S + 1) + lay.score_next[:, live]).ravel(),
                               mass.ravel(), minlength=B * (S + 1)).reshape(B, S + 1)
            move[np.arange(B), live] += p_skip
            move[np.arange(B), lay.cross_next[live]] += np.clip(p_write - p_score, 0.0, 1.0)
            steps[t] = (live, move, p_skip, p_score, _by_priced_roll(writes))
        value = np.full(S + 1, NEG)
        value[S] = 0.0
        value[live] = turn.value
        if progress is not None:
            progress(1 / T)
    rows = value[lay.start]
    if not forward:
        return _Sweep(rows, None, None, None)
    dist = np.zeros(S + 1)
    dist[lay.start] = 1.0
    dist[lay.start[list(without)]] = 0.0
    writes = np.zeros(T)
    scored = np.zeros(N_ROWS * C)
    priced = np.zeros((T, PRICED_ROLLS, dice.N_ROLLS))
    for t, (live, move, p_skip, p_score, by_roll) in enumerate(steps):
        d = dist[live]
        writes[t] = d @ (1.0 - p_skip)
        priced[t] = by_roll @ d
        scored += np.bincount(lay.row[live] * C + lay.cell[live], d * p_score,
                              minlength=N_ROWS * C)
        full = dist[S]
        dist = d @ move
        dist[S] += full
    return _Sweep(rows, writes, scored.reshape(N_ROWS, C), priced)


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
                   mu: np.ndarray, nu: np.ndarray, prices: np.ndarray):
    """Every write of group ``states`` valued: (scores (P, 2, 252, B) per part, crosses
    (P, B), skip (B,)), a write paying ``price`` and the dice's ``prices``, a score also
    earning μ of its cell and, completing the bonus rows' cells of its column, ν."""
    scores, crosses = [], []
    for i, (part, digit, stride) in enumerate(zip(grp.parts, grp.digits, grp.strides)):
        d = digit[states]
        rest = states - d * stride
        crosses.append(np.where(part.open[d], value[rest + part.cross_next[d] * stride], NEG))
        earned = mu[part.row, part.cell[d]] - price
        if i in grp.bonus:
            ready = grp.ready[grp.bonus.index(i)][part.cell[d], states]
            earned = earned + np.where(ready, nu[part.cell[d]], 0.0)
        after = value[rest[None, :] + part.score_next[:, d] * stride] + earned
        scores.append(part.gain[:, :, d] + after[None])
    scores = np.stack(scores) - prices[None, :, :, None]
    crosses = np.stack(crosses) - price
    return scores, crosses[:, None, None, :] - prices[None, :, :, None], value[states]


def _group_turn(grp: _Group, value: np.ndarray, states: np.ndarray, price: float,
                mu: np.ndarray, nu: np.ndarray, prices: np.ndarray, forward: bool = False):
    """The value at turn start of group ``states``: skip, or cross a row's next cell or
    score it, the best by the exact turn solver; with ``forward`` also the turn solve and
    the write values (for ``_group_flows``)."""
    scores, crosses, skip = _group_choices(grp, value, states, price, mu, nu, prices)
    best = np.maximum(np.maximum(scores.max(axis=0), crosses.max(axis=0)), skip)
    turn = solve_turn((best[0], best[1], best[1]), keep_values_wanted=forward)
    return (turn, best, (scores, crosses, skip)) if forward else turn.value


def _live(grp: _Group, t: int, turns: int) -> np.ndarray:
    """The group states to solve at turn t: at most one cell written a turn so far, and
    cells left that the turns left can still fill."""
    left = grp.cells - grp.written
    return np.flatnonzero((grp.written <= t) & (left > 0) & (left <= turns - t))


def _group_values_by_turn(grp: _Group, lambdas, mu, nu, prices, progress=None) -> list:
    """V_g at every turn start, backward over the turns (value[t] (G,), value[T] at the end)."""
    T = len(lambdas)
    done = grp.written == grp.cells
    values = [None] * (T + 1)
    values[T] = np.where(done, 0.0, NEG)
    for t in range(T - 1, -1, -1):
        live = _live(grp, t, T)
        value = np.where(done, 0.0, NEG)
        for a in range(0, len(live), GROUP_CHUNK):
            chunk = live[a:a + GROUP_CHUNK]
            value[chunk] = _group_turn(grp, values[t + 1], chunk, lambdas[t], mu, nu, prices[t])
        values[t] = value
        if progress is not None:
            progress(len(live))
    return values


def _group_value(grp: _Group, lambdas, mu, nu, prices, progress=None) -> float:
    """V_g(λ, μ, ν, p)."""
    return float(_group_values_by_turn(grp, lambdas, mu, nu, prices, progress)[0][grp.start])


@dataclass(frozen=True)
class _Flows:
    """What a group's optimal policy does, in expectation: the subgradient's parts."""

    value: float
    writes: np.ndarray  # (T,) P(write at t)
    scored: np.ndarray  # (15, C) P(cell j of row r scored), its rows only
    priced: np.ndarray  # (T, 2, 252) P(write at t after roll n with r)
    bonus: np.ndarray  # (C,) P(the bonus rows all scored cell j), 0 without them


def _group_flows(grp: _Group, lambdas, mu, nu, prices) -> _Flows:
    """V_g and, by a forward pass of the group's state distribution under its optimal
    policy (ties: a score, then skip, then a cross), the subgradient's parts."""
    T, C = len(lambdas), len(nu)
    values = _group_values_by_turn(grp, lambdas, mu, nu, prices)
    dist = np.zeros(grp.size)
    dist[grp.start] = 1.0
    writes, priced = np.zeros(T), np.zeros((T, PRICED_ROLLS, dice.N_ROLLS))
    scored, bonus = np.zeros((N_ROWS, C)), np.zeros(C)
    P = len(grp.parts)
    for t in range(T):
        live = _live(grp, t, T)
        nxt = np.where(grp.written == grp.cells, dist, 0.0)
        for a in range(0, len(live), FLOW_CHUNK):
            states = live[a:a + FLOW_CHUNK]
            turn, best, (sc, cr, skip) = _group_turn(grp, values[t + 1], states, lambdas[t],
                                                     mu, nu, prices[t], forward=True)
            mass = _end_distribution((best[0], best[1]), turn) * dist[states]  # (3, 252, B)
            by_n = [0, 1, 1]
            options = np.concatenate([sc[:, by_n], np.broadcast_to(skip, (1, 3) + best.shape[1:]),
                                      cr[:, by_n]])  # (2P + 1, 3, 252, B)
            choice = options.argmax(axis=0)
            for o in range(2 * P + 1):
                m = np.where(choice == o, mass, 0.0)
                total = m.sum(axis=(0, 1))  # (B,)
                if o == P:  # skip
                    np.add.at(nxt, states, total)
                    continue
                writes[t] += total.sum()
                priced[t] += _by_priced_roll(m.sum(axis=-1))
                i = o if o < P else o - P - 1
                part, stride = grp.parts[i], grp.strides[i]
                d = grp.digits[i][states]
                rest = states - d * stride
                if o > P:
                    np.add.at(nxt, rest + part.cross_next[d] * stride, total)
                    continue
                by_roll = m.sum(axis=0)  # (252, B)
                np.add.at(nxt, rest[None, :] + part.score_next[:, d] * stride, by_roll)
                cell = part.cell[d]
                scored[part.row] += np.bincount(cell, total, minlength=C)
                if i in grp.bonus:
                    ready = grp.ready[grp.bonus.index(i)][cell, states]
                    bonus += np.bincount(cell[ready], total[ready], minlength=C)
        dist = nxt
    return _Flows(float(values[0][grp.start]), writes, scored, priced, bonus)


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
                 prices=None, nu=None) -> np.ndarray:
    """Each group MDP's optimal value V_g(λ, μ, ν, p) (steps 6 to 8 of the module
    docstring); ``progress(n)`` is told of every n group states solved."""
    lambdas, mu, prices, nu = _check(game, lambdas, mu, prices, nu)
    groups = _check_groups(groups)
    if nu.any() and not any(set(BONUS_ROWS) <= set(g) for g in groups):
        raise ValueError(f"nu needs the rows {BONUS_ROWS} in one group")
    relaxed = _relaxed(game)
    return np.array([_group_value(_group(relaxed, rows), lambdas, mu, nu, prices, progress)
                     for rows in groups])


def _relaxed(game: PokerSchoolRules) -> PokerSchoolRules:
    """The game the bound is computed on: erasure dropped (step 1 of the module docstring)."""
    return PokerSchoolRules(columns=game.columns, school_cross_erases=False, minimums=game.minimums)


def _check(game: PokerSchoolRules, lambdas, mu, prices=None, nu=None):
    """The multipliers as float arrays, checked; ``prices`` and ``nu`` None are 0."""
    lambdas = np.asarray(lambdas, dtype=float)
    mu = np.asarray(mu, dtype=float)
    shape = (len(lambdas), PRICED_ROLLS, dice.N_ROLLS)
    prices = np.zeros(shape) if prices is None else np.asarray(prices, dtype=float)
    nu = np.zeros(game.columns) if nu is None else np.asarray(nu, dtype=float)
    if prices.shape != shape or not np.isfinite(prices).all():
        raise ValueError(f"prices must be finite, one (2, 252) array per turn: shape {shape}")
    if mu.shape != (N_ROWS, game.columns) or nu.shape != (game.columns,):
        raise ValueError(f"mu must have shape (15, {game.columns}) and nu ({game.columns},)")
    if (mu < 0).any() or (nu < 0).any() or not np.allclose(mu.sum(axis=0) + nu, COLUMN_BONUS):
        raise ValueError("mu and nu must be ≥ 0 with every column summing to the column "
                         "bonus (60)")
    if lambdas.ndim != 1:
        raise ValueError("lambdas must be one multiplier per turn")
    return lambdas, mu, prices, nu


def row_values(game: PokerSchoolRules, lambdas, mu, prices=None) -> np.ndarray:
    """(15,) each row MDP's optimal value V_r(λ, μ, p), over ``len(lambdas)`` turns.

    ``lambdas`` may be shorter than the game (a row that cannot fill its cells is −inf).
    """
    lambdas, mu, prices, _ = _check(game, lambdas, mu, prices)
    return _sweep(_relaxed(game), lambdas, mu, prices, forward=False).rows


def relaxed_value(game: PokerSchoolRules, lambdas, mu, groups=None, prices=None,
                  nu=None) -> float:
    """The upper bound Σ_t λ_t + Σ_t dice_value(p_t) + Σ_r V_r(λ, μ, p) for these
    multipliers (valid for any of them), or with Σ_g V_g(λ, μ, ν, p) over ``groups`` of
    rows (ν, step 8, needs ``BONUS_ROWS`` in one group)."""
    lambdas, mu, prices, nu = _check(game, lambdas, mu, prices, nu)
    if len(lambdas) != game.turns:
        raise ValueError(f"lambdas must have one multiplier per turn ({game.turns})")
    if groups is None:
        if nu.any():
            raise ValueError(f"nu needs the rows {BONUS_ROWS} in one group")
        values = row_values(game, lambdas, mu, prices)
    else:
        values = group_values(game, lambdas, mu, groups, prices=prices, nu=nu)
    return float(lambdas.sum() + dice_value(prices)[0].sum() + values.sum())


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
                groups=GROUPS, priced: bool = True, bonus_iterations: int = 0) -> Bound:
    """Minimise the rows' relaxation over (λ, μ, and the dice prices if ``priced``) by
    projected subgradient steps; then, if ``bonus_iterations`` and ``groups`` hold the
    ``BONUS_ROWS`` together, that many more steps over ν too with those rows as one group
    (step 8); then evaluate ``groups`` (None: none) at the best multipliers; the lowest bound.

    Steps are normalised, λ's, (μ, ν)'s and prices separately (λ in points per write, μ in
    points of a 60-point bonus), and shrink as 1/√(i+1); a turn's prices are kept at mean
    0 (λ_t is their level).  ``progress(x)`` gets 1/turns per turn of the rows solved,
    ``BONUS_SWEEPS`` per step of the bonus group and, for the groups, their share of
    ``group_work`` in units of one sweep.  BLAS runs on one thread: 150 normalised steps
    amplify the last bits of a threaded sum's order.
    """
    with blas_threads.single_blas_thread():
        return _upper_bound(game, iterations, progress, groups, priced, bonus_iterations)


@dataclass
class _Search:
    """The subgradient method's state: the multipliers, the best bound so far and its own."""

    lambdas: np.ndarray
    mu: np.ndarray
    nu: np.ndarray
    prices: np.ndarray
    priced: bool
    history: list
    best: tuple = (np.inf,)

    def record(self, bound: float) -> None:
        self.history.append(bound)
        if bound < self.best[0]:
            self.best = (bound, self.lambdas.copy(), self.mu.copy(), self.nu.copy(),
                         self.prices.copy())

    def step(self, i: int, writes, scored, bonus, priced, ends) -> None:
        """Step ``i`` against the subgradient; ``bonus`` None leaves ν at 0."""
        step = 1.0 / np.sqrt(i + 1)
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


def _upper_bound(game: PokerSchoolRules, iterations: int, progress, groups, priced: bool,
                 bonus_iterations: int) -> Bound:
    start = time.perf_counter()
    relaxed = _relaxed(game)
    T, C = game.turns, game.columns
    search = _Search(np.zeros(T), np.full((N_ROWS, C), COLUMN_BONUS / N_ROWS), np.zeros(C),
                     np.zeros((T, PRICED_ROLLS, dice.N_ROLLS)), priced, [])
    for i in range(iterations + 1):
        s = search
        sweep = _sweep(relaxed, s.lambdas, s.mu, s.prices, forward=i < iterations,
                       progress=progress)
        thrown, ends = dice_value(s.prices)
        s.record(float(s.lambdas.sum() + thrown.sum() + sweep.rows.sum()))
        if i < iterations:
            s.step(i, sweep.writes, sweep.scored, None, sweep.priced, ends)
    value, lambdas, mu, nu, prices = search.best
    used = tuple((r,) for r in range(N_ROWS))
    groups = None if groups is None else _check_groups(groups)
    if bonus_iterations and groups is not None and any(set(BONUS_ROWS) <= set(g) for g in groups):
        value, lambdas, mu, nu, prices = _bonus_steps(relaxed, search, iterations,
                                                      bonus_iterations, progress)
    if groups is not None:
        share = None
        if progress is not None:
            work = group_work(game, groups)
            share = lambda n: progress(GROUP_SWEEPS * n / work)  # noqa: E731
        grouped = float(lambdas.sum() + dice_value(prices)[0].sum()
                        + group_values(game, lambdas, mu, groups, share, prices, nu).sum())
        if grouped < value:
            value, used = grouped, groups
    return Bound(value, lambdas, mu, tuple(search.history), time.perf_counter() - start, used,
                 prices if priced else None, nu if nu.any() else None)


def _bonus_steps(relaxed: PokerSchoolRules, search: _Search, done: int, iterations: int,
                 progress):
    """Step 8's multipliers: from the rows' best, ν_j takes the μ of the ``BONUS_ROWS``
    (their cells all scored pay at most what each paid alone), then ``iterations`` steps
    with those rows as one group; the best (value, λ, μ, ν, p) of these steps."""
    _, lambdas, mu, _, prices = search.best
    rows = list(BONUS_ROWS)
    search.nu = mu[rows].sum(axis=0)
    search.mu = mu.copy()
    search.mu[rows] = 0.0
    search.lambdas, search.prices, search.best = lambdas.copy(), prices.copy(), (np.inf,)
    unit = _group(relaxed, BONUS_ROWS)
    others = np.setdiff1d(np.arange(N_ROWS), rows)
    for i in range(iterations + 1):
        s = search
        forward = i < iterations
        sweep = _sweep(relaxed, s.lambdas, s.mu, s.prices, forward=forward, progress=progress,
                       without=rows)
        if forward:
            flows = _group_flows(unit, s.lambdas, s.mu, s.nu, s.prices)
            value = flows.value
        else:
            value = _group_value(unit, s.lambdas, s.mu, s.nu, s.prices)
        if progress is not None:
            progress(BONUS_SWEEPS)
        thrown, ends = dice_value(s.prices)
        s.record(float(s.lambdas.sum() + thrown.sum() + sweep.rows[others].sum() + value))
        if forward:
            s.step(done + i, sweep.writes + flows.writes, sweep.scored + flows.scored,
                   flows.bonus, sweep.priced + flows.priced, ends)
    return search.best
