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
#: Group states solved per call of the turn solver.
GROUP_CHUNK = 4096
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
    for a in (row, cell, start, gain, score_next, cross_next):
        a.setflags(write=False)
    return _Layout(row, cell, start, gain, score_next, cross_next)


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
           forward: bool, progress=None) -> _Sweep:
    """Backward induction of every row MDP at once (one ``solve_turn`` per turn), then
    optionally a forward pass of each row's state distribution under its optimal policy."""
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
    """One row of a group, over its reachable states (local index; ``full`` = row full)."""

    row: int
    full: int
    gain: np.ndarray  # (2, 252, full + 1), −inf for the full row
    score_next: np.ndarray  # (252, full + 1) local
    cross_next: np.ndarray  # (full + 1,) local
    cell: np.ndarray  # (full + 1,) the next cell's column (0 for the full row)
    written: np.ndarray  # (full + 1,) cells written


@dataclass(frozen=True)
class _Group:
    """A group of rows as one MDP: state g = Σ_i digit_i × stride_i, digit_i a local state
    of row i (``_RowPart``)."""

    parts: tuple[_RowPart, ...]
    digits: tuple[np.ndarray, ...]  # (G,) each
    strides: tuple[int, ...]
    written: np.ndarray  # (G,) the group's cells written
    cells: int  # the group's cells in all
    start: int


def _row_part(lay: _Layout, r: int, columns: int) -> _RowPart:
    """Row r over the states it reaches from its start (a reserve, say, only grows so far)."""
    S = lay.size
    seen, todo = {int(lay.start[r])}, [int(lay.start[r])]
    while todo:
        s = todo.pop()
        scorable = np.isfinite(lay.gain[:, :, s]).any(axis=0)
        for nxt in set(lay.score_next[scorable, s].tolist()) | {int(lay.cross_next[s])}:
            if nxt != S and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    idx = np.array(sorted(seen))
    n = len(idx)
    local = np.full(S + 1, n)
    local[idx] = np.arange(n)
    gain = np.full((2, dice.N_ROLLS, n + 1), NEG)
    gain[:, :, :n] = lay.gain[:, :, idx]
    score_next = np.full((dice.N_ROLLS, n + 1), n)
    score_next[:, :n] = local[lay.score_next[:, idx]]
    return _RowPart(r, n, gain, score_next, np.append(local[lay.cross_next[idx]], n),
                    np.append(lay.cell[idx], 0), np.append(lay.cell[idx], columns))


@lru_cache(maxsize=32)
def _group(game: PokerSchoolRules, rows: tuple[int, ...]) -> _Group:
    lay = _layout(game)
    parts = tuple(_row_part(lay, r, game.columns) for r in rows)
    sizes = [p.full + 1 for p in parts]
    strides = tuple(int(x) for x in np.cumprod([1] + sizes[:-1]))
    g = np.arange(int(np.prod(sizes)))
    digits = tuple((g // st) % n for st, n in zip(strides, sizes))
    written = sum(p.written[d] for p, d in zip(parts, digits))
    start = sum(st * int(np.flatnonzero(p.written == 0)[0]) for st, p in zip(strides, parts))
    return _Group(parts, digits, strides, written, game.columns * len(rows), start)


def _group_turn(grp: _Group, value: np.ndarray, states: np.ndarray, price: float,
                mu: np.ndarray, prices: np.ndarray) -> np.ndarray:
    """The value at turn start of group ``states``: skip, or cross a row's next cell or
    score it (paying ``price`` and the dice's ``prices``), the best by the exact turn solver."""
    best = np.full((2, dice.N_ROLLS, len(states)), NEG)
    for part, digit, stride in zip(grp.parts, grp.digits, grp.strides):
        d = digit[states]
        rest = states - d * stride
        cross = value[rest + part.cross_next[d] * stride] - price
        np.maximum(best, np.where(d < part.full, cross, NEG), out=best)
        after = value[rest[None, :] + part.score_next[:, d] * stride] + (mu[part.row, part.cell[d]] - price)
        np.maximum(best, part.gain[:, :, d] + after[None], out=best)
    best -= prices[:, :, None]
    np.maximum(best, value[states], out=best)
    return solve_turn((best[0], best[1], best[1]), keep_values_wanted=False).value


def _live(grp: _Group, t: int, turns: int) -> np.ndarray:
    """The group states to solve at turn t: at most one cell written a turn so far, and
    cells left that the turns left can still fill."""
    left = grp.cells - grp.written
    return np.flatnonzero((grp.written <= t) & (left > 0) & (left <= turns - t))


def _group_value(grp: _Group, lambdas: np.ndarray, mu: np.ndarray, prices: np.ndarray,
                 progress=None) -> float:
    """V_g(λ, μ, p): backward over the turns, each over the states the group can be in then."""
    T = len(lambdas)
    done = grp.written == grp.cells
    value = np.where(done, 0.0, NEG)
    for t in range(T - 1, -1, -1):
        live = _live(grp, t, T)
        nxt = np.where(done, 0.0, NEG)
        for a in range(0, len(live), GROUP_CHUNK):
            chunk = live[a:a + GROUP_CHUNK]
            nxt[chunk] = _group_turn(grp, value, chunk, lambdas[t], mu, prices[t])
        value = nxt
        if progress is not None:
            progress(len(live))
    return float(value[grp.start])


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
                 prices=None) -> np.ndarray:
    """Each group MDP's optimal value V_g(λ, μ, p) (steps 6 and 7 of the module docstring);
    ``progress(n)`` is told of every n group states solved."""
    lambdas, mu, prices = _check(game, lambdas, mu, prices)
    relaxed = _relaxed(game)
    return np.array([_group_value(_group(relaxed, rows), lambdas, mu, prices, progress)
                     for rows in _check_groups(groups)])


def _relaxed(game: PokerSchoolRules) -> PokerSchoolRules:
    """The game the bound is computed on: erasure dropped (step 1 of the module docstring)."""
    return PokerSchoolRules(columns=game.columns, school_cross_erases=False, minimums=game.minimums)


def _check(game: PokerSchoolRules, lambdas, mu, prices=None):
    """The multipliers as float arrays, checked; ``prices`` None is every price 0."""
    lambdas = np.asarray(lambdas, dtype=float)
    mu = np.asarray(mu, dtype=float)
    shape = (len(lambdas), PRICED_ROLLS, dice.N_ROLLS)
    prices = np.zeros(shape) if prices is None else np.asarray(prices, dtype=float)
    if prices.shape != shape or not np.isfinite(prices).all():
        raise ValueError(f"prices must be finite, one (2, 252) array per turn: shape {shape}")
    if mu.shape != (N_ROWS, game.columns):
        raise ValueError(f"mu must have shape (15, {game.columns})")
    if (mu < 0).any() or not np.allclose(mu.sum(axis=0), COLUMN_BONUS):
        raise ValueError("mu must be ≥ 0 with every column summing to the column bonus (60)")
    if lambdas.ndim != 1:
        raise ValueError("lambdas must be one multiplier per turn")
    return lambdas, mu, prices


def row_values(game: PokerSchoolRules, lambdas, mu, prices=None) -> np.ndarray:
    """(15,) each row MDP's optimal value V_r(λ, μ, p), over ``len(lambdas)`` turns.

    ``lambdas`` may be shorter than the game (a row that cannot fill its cells is −inf).
    """
    lambdas, mu, prices = _check(game, lambdas, mu, prices)
    return _sweep(_relaxed(game), lambdas, mu, prices, forward=False).rows


def relaxed_value(game: PokerSchoolRules, lambdas, mu, groups=None, prices=None) -> float:
    """The upper bound Σ_t λ_t + Σ_t dice_value(p_t) + Σ_r V_r(λ, μ, p) for these
    multipliers (valid for any of them), or with Σ_g V_g(λ, μ, p) over ``groups`` of rows."""
    lambdas, mu, prices = _check(game, lambdas, mu, prices)
    if len(lambdas) != game.turns:
        raise ValueError(f"lambdas must have one multiplier per turn ({game.turns})")
    values = (row_values(game, lambdas, mu, prices) if groups is None
              else group_values(game, lambdas, mu, groups, prices=prices))
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
                groups=GROUPS, priced: bool = True) -> Bound:
    """Minimise the rows' relaxation over (λ, μ, and the dice prices if ``priced``) by
    projected subgradient steps, then evaluate ``groups`` (None: none) at the best
    multipliers; the lower of the two bounds.

    Steps are normalised, λ's, μ's and prices separately (λ in points per write, μ in
    points of a 60-point bonus), and shrink as 1/√(i+1); a turn's prices are kept at mean
    0 (λ_t is their level).  ``progress(x)`` gets 1/turns per turn of the rows solved and,
    for the groups, their share of ``group_work`` in units of one sweep.  BLAS runs on one
    thread: 150 normalised steps amplify the last bits of a threaded sum's order.
    """
    with blas_threads.single_blas_thread():
        return _upper_bound(game, iterations, progress, groups, priced)


def _upper_bound(game: PokerSchoolRules, iterations: int, progress, groups, priced: bool) -> Bound:
    start = time.perf_counter()
    relaxed = _relaxed(game)
    T, C = game.turns, game.columns
    lambdas = np.zeros(T)
    mu = np.full((N_ROWS, C), COLUMN_BONUS / N_ROWS)
    prices = np.zeros((T, PRICED_ROLLS, dice.N_ROLLS))
    best = (np.inf, lambdas, mu, prices)
    history = []
    for i in range(iterations + 1):
        sweep = _sweep(relaxed, lambdas, mu, prices, forward=i < iterations, progress=progress)
        thrown, ends = dice_value(prices)
        bound = float(lambdas.sum() + thrown.sum() + sweep.rows.sum())
        history.append(bound)
        if bound < best[0]:
            best = (bound, lambdas.copy(), mu.copy(), prices.copy())
        if i == iterations:
            break
        step = 1.0 / np.sqrt(i + 1)
        lambdas = _step(lambdas, 1.0 - sweep.writes, step * LAMBDA_STEP / C)
        lambdas -= lambdas.mean()
        mu = project_mu(_step(mu, sweep.scored - sweep.scored.mean(axis=0), step * MU_STEP))
        if priced:
            prices = _step(prices, ends - sweep.priced, step * PRICE_STEP)
            prices -= prices.mean(axis=(1, 2), keepdims=True)
    value, lambdas, mu, prices = best
    used = tuple((r,) for r in range(N_ROWS))
    if groups is not None:
        groups = _check_groups(groups)
        share = None
        if progress is not None:
            work = group_work(game, groups)
            share = lambda n: progress(GROUP_SWEEPS * n / work)  # noqa: E731
        grouped = float(lambdas.sum() + dice_value(prices)[0].sum()
                        + group_values(game, lambdas, mu, groups, share, prices).sum())
        if grouped < value:
            value, used = grouped, groups
    return Bound(value, lambdas, mu, tuple(history), time.perf_counter() - start, used,
                 prices if priced else None)
