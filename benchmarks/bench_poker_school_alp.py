"""One column of poker-school (no erasure) bounded by a separable approximate LP.

    python3 benchmarks/bench_poker_school_alp.py [--tied] [--sweeps N] [--price-certificate]

Every bound of ``dicewise.solver.poker_school.bound`` gives each row (or group) dice of its
own and levels off at 493–496 on one column, whose exact optimum is 450.5 (docs/
poker-school.md, "An upper bound on the optimum").  This measures a relaxation of another
kind: it keeps the one set of dice and the one write a turn, and approximates only the
value, separably over the rows,

    U_t(O, k) = c[t, k] + Σ_{r ∈ O} a[k, r, t]      (O the open rows, k the column's clean bit;
                                                    ``--tied``: a the same for both k).

Why it bounds: if U ≥ TU at every reachable state (TU: the turn solved exactly against U at
the next turn), U is at least the optimal value everywhere, by induction from the last turn.
Any U does once shifted: with δ_t the largest violation max(0, TU − U) over the states of
turn t, U + Σ_{t' ≥ t} δ_t' satisfies it, so the *certificate* U_0(start) + Σ_t δ_t bounds the
optimum.  Only scoring writes are offered where the dice qualify: in this game scoring
dominates crossing (``one_column.py``), so that restricted game has the same optimum.

The approximate LP (minimise U_0(start) subject to U ≥ TU) is solved by cutting planes: a
sweep solves the turn at each of the 2¹⁵ × 2 states against U; each violated state adds
the constraint of its best turn strategy, linear in U through where that strategy writes
(which row, and whether the column stays clean).  ``--price-certificate`` also bounds each
turn's largest violation without enumerating the states, by pricing the dice (each open
row plays the turn alone for its write less a price π(n, roll), one turn thrown for π):
what a game too large to enumerate would have to use.

Prints one JSON line per sweep and a summary.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from dicewise.solver import dice
from dicewise.solver.category import solve_states
from dicewise.solver.poker_school.bound import _end_distribution
from dicewise.solver.poker_school.rules import COLUMN_BONUS, N_ROWS, PokerSchoolRules
from dicewise.solver.turn import solve_turn

R = T = N_ROWS  # one column: fifteen rows, fifteen turns
POINTS = PokerSchoolRules(columns=1, school_cross_erases=False).base_points.astype(float)
OPEN = ((np.arange(1 << R)[:, None] >> np.arange(R)) & 1).astype(bool)  # (2^15, 15)
N_OPEN = OPEN.sum(axis=1)
BATCH = 4096


def states_at(t: int) -> np.ndarray:
    """(mask of open rows, clean bit) of every reachable state at turn t, (S, 2)."""
    masks = np.flatnonzero(N_OPEN == R - t)
    clean_bits = np.array((1,) if t == 0 else (0, 1))
    return np.column_stack([np.tile(masks, len(clean_bits)), np.repeat(clean_bits, len(masks))])


def solve_states_turn(states, next_value, strategy=False):
    """The turn at ``states`` against ``next_value(masks, clean)`` of turn t + 1.

    Writing row r scores 2·points (cell and premium) where the dice qualify, else crosses
    (the column is no longer clean).  Returns TU (S,), and with ``strategy`` where the best
    strategy writes, (S, R, 2) by row and clean bit after, and its expected points (S,)."""
    masks, clean = states[:, 0], states[:, 1]
    S = len(masks)
    crossed = np.zeros_like(clean)
    after = [(next_value(masks & ~(1 << r), clean), next_value(masks & ~(1 << r), crossed))
             for r in range(R)]
    write_value, best_row = [], []
    for n in range(3):
        best = np.full((dice.N_ROLLS, S), -np.inf)
        arg = np.zeros((dice.N_ROLLS, S), dtype=np.int64)
        for r in range(R):
            p = POINTS[r, n][:, None]
            value = np.where(p > 0, 2 * p + after[r][0], after[r][1])
            value = np.where(OPEN[masks, r], value, -np.inf)
            better = value > best
            best[better], arg[better] = value[better], r
        write_value.append(best)
        best_row.append(arg)
    turn = solve_turn(write_value)
    if not strategy:
        return turn.value
    ends = _end_distribution(write_value, turn)  # (3, 252, S)
    where = np.zeros((S, R, 2))
    points = np.zeros(S)
    for n in range(3):
        p = POINTS[best_row[n], n, np.arange(dice.N_ROLLS)[:, None]]
        clean_after = np.where(p > 0, clean, 0)
        points += (ends[n] * 2 * p).sum(axis=0)
        index = (np.arange(S) * R + best_row[n]) * 2 + clean_after
        where += np.bincount(index.ravel(), ends[n].ravel(), minlength=S * R * 2).reshape(S, R, 2)
    return turn.value, where, points


def exact_values() -> np.ndarray:
    """The optimal value of every state (2^15, 2) by backward induction."""
    value = np.zeros((1 << R, 2))
    value[0] = (0, COLUMN_BONUS)
    for t in range(T - 1, -1, -1):
        nxt = value.copy()
        states = states_at(t)
        for lo in range(0, len(states), BATCH):
            s = states[lo:lo + BATCH]
            value[s[:, 0], s[:, 1]] = solve_states_turn(s, lambda m, k: nxt[m, k])
    return value


class Separable:
    """The variables of U: c[t, k] then a[k, r, t], t < T (U at turn T is the bonus)."""

    n = 2 * T + 2 * R * T

    def __init__(self, tied: bool):
        self.tied = tied

    @staticmethod
    def c(t, k):
        return 2 * t + k

    @staticmethod
    def a(k, r, t):
        return 2 * T + (k * R + r) * T + t

    def value(self, x, t, masks, clean):
        if t == T:
            return COLUMN_BONUS * np.asarray(clean, float)
        a = x[2 * T:].reshape(2, R, T)[:, :, t]
        return x[2 * t + clean] + (OPEN[masks] * a[clean]).sum(axis=1)

    def constraints(self, t, states, where, points):
        """U_t(s) ≥ points + Σ where·U_{t+1} as rows of A x ≤ b, (S, n) and (S,)."""
        masks, clean = states[:, 0], states[:, 1]
        S = len(masks)
        A = np.zeros((S, self.n))
        rows = np.arange(S)
        A[rows, 2 * t + clean] -= 1
        opened = OPEN[masks].astype(float)
        for r in range(R):
            A[rows, self.a(0, r, t) + clean * R * T] -= opened[:, r]
        b = -points
        total = where.sum(axis=1)  # (S, 2): by clean bit after
        if t + 1 == T:
            b = b - COLUMN_BONUS * total[:, 1]
        else:
            for k in (0, 1):
                A[:, self.c(t + 1, k)] += total[:, k]
                for r in range(R):  # a[k, r, t+1] counts unless r is the row written
                    A[:, self.a(k, r, t + 1)] += opened[:, r] * (total[:, k] - where[:, r, k])
        if self.tied:  # a[0] and a[1] are one variable: fold a[0]'s columns into a[1]'s
            lo = 2 * T
            A[:, lo + R * T:] += A[:, lo:lo + R * T]
            A[:, lo:lo + R * T] = 0
        return sparse.csr_matrix(A), b


def sweep(model: Separable, x):
    """Largest violation of U ≥ TU per turn, (T,), and the violated states' constraints."""
    worst, rows = np.zeros(T), []
    for t in range(T):
        states = states_at(t)
        nxt = lambda m, k: model.value(x, t + 1, m, k)  # noqa: E731
        gap = np.concatenate([solve_states_turn(s, nxt) - model.value(x, t, s[:, 0], s[:, 1])
                              for s in np.array_split(states, -(-len(states) // BATCH))])
        worst[t] = max(gap.max(), 0.0)
        violated = states[gap > 1e-6]  # below this, a cut moves the certificate by nothing
        for lo in range(0, len(violated), BATCH):
            _, where, points = solve_states_turn(violated[lo:lo + BATCH], nxt, strategy=True)
            rows.append(model.constraints(t, violated[lo:lo + BATCH], where, points))
    return worst, rows


def least_squares_start(model: Separable, exact: np.ndarray) -> np.ndarray:
    """The separable U closest to the exact values, turn by turn (and clean bit)."""
    x = np.zeros(model.n)
    for t in range(T):
        masks = np.flatnonzero(N_OPEN == R - t)
        for k in ((1,) if t == 0 else (0, 1)):
            features = np.column_stack([np.ones(len(masks)), OPEN[masks]])
            fit = np.linalg.lstsq(features, exact[masks, k], rcond=None)[0]
            x[model.c(t, k)] = fit[0]
            for r in range(R):
                x[model.a(k, r, t)] = fit[1 + r]
    if model.tied:
        x[2 * T:2 * T + R * T] = x[2 * T + R * T:]
    return x


def price_certificate(model: Separable, x, steps: int = 150) -> float:
    """U_0 plus, per turn, a bound on its largest violation found without enumerating the
    states: TU − U ≤ c-change + Σ_{r ∈ O} h_r + TV[π] + Σ_{r ∈ O} TV[(g_r − π)⁺] for
    any price π, since max_r g_r ≤ π + Σ_r (g_r − π)⁺ and a turn's best value is
    subadditive in its payoffs; the 15 − t rows with the largest terms are taken, π
    lowered by subgradient steps from the worst state's own writes.  Tied U only (g_r
    must not depend on the sheet)."""
    c = x[:2 * T].reshape(T, 2)
    a = x[2 * T + R * T:].reshape(R, T)
    c_at = lambda t, k: COLUMN_BONUS * k if t == T else c[t, k]  # noqa: E731
    a_at = lambda t: np.zeros(R) if t == T else a[:, t]  # noqa: E731
    total = c[0, 1] + a[:, 0].sum()
    for t in range(T):
        for k in ((1,) if t == 0 else (0, 1)):
            h = a_at(t + 1) - a_at(t)
            stays = np.array([c_at(t + 1, 0), c_at(t + 1, k)])
            g = (2 * POINTS + stays[(POINTS > 0).astype(int)] - c_at(t + 1, k)
                 - a_at(t + 1)[:, None, None])
            states = states_at(t)
            states = states[states[:, 1] == k]
            gap = solve_states_turn(states, lambda m, kk: model.value(x, t + 1, m, kk)) \
                - model.value(x, t, states[:, 0], states[:, 1])
            price = np.where(OPEN[states[gap.argmax(), 0]][:, None, None], g, -np.inf).max(axis=0)
            best = np.inf
            for i in range(steps):
                rows_pay = np.maximum(g - price, 0).transpose(1, 2, 0)
                pay = np.concatenate([price[:, :, None], rows_pay], 2)
                turn = solve_turn(list(pay))
                ends = _end_distribution(list(pay), turn)
                terms = h + turn.value[1:]
                rows = np.argsort(-terms)[:R - t]
                best = min(best, c_at(t + 1, k) - c_at(t, k) + turn.value[0] + terms[rows].sum())
                sub = ends[:, :, 0] - sum(ends[:, :, 1 + r] * (g[r] > price) for r in rows)
                price -= 2.0 / np.sqrt(i + 1) * sub / (np.linalg.norm(sub) + 1e-12)
            total += max(best, 0.0)
    return float(total)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tied", action="store_true", help="a[k, r, t] the same for both clean bits")
    ap.add_argument("--sweeps", type=int, default=20, help="cutting-plane sweeps at most")
    ap.add_argument("--price-certificate", action="store_true",
                    help="also certify the final U by dice prices (with --tied)")
    args = ap.parse_args()
    if args.price_certificate and not args.tied:
        ap.error("--price-certificate needs --tied (a row's gain must not depend on the sheet)")
    start = time.perf_counter()
    exact = exact_values()
    game = PokerSchoolRules(columns=1, school_cross_erases=False).one_column
    engine = solve_states(game).expected_score
    assert abs(exact[-1, 1] - engine) < 1e-8, (exact[-1, 1], engine)
    print(json.dumps({"exact_optimum": exact[-1, 1], "engine": engine}), flush=True)
    model = Separable(args.tied)
    objective = np.zeros(model.n)
    objective[model.c(0, 1)] = 1
    objective[[model.a(1, r, 0) for r in range(R)]] = 1
    # A small weight on every other state's U makes the LP's optimum unique (the start's
    # value alone leaves many variables free, and cutting planes then cycle between vertices).
    for t in range(T):
        objective[[model.c(t, 0), model.c(t, 1)]] += 1e-3
        for r in range(R):
            objective[[model.a(0, r, t), model.a(1, r, t)]] += 1e-3 * (R - t) / R
    x = least_squares_start(model, exact)
    rows, best = [], np.inf
    for i in range(args.sweeps):
        worst, new = sweep(model, x)
        u0 = model.value(x, 0, np.array([(1 << R) - 1]), np.array([1]))[0]
        best = min(best, u0 + worst.sum())
        print(json.dumps({"sweep": i, "U0": round(u0, 4),
                          "largest_violation": round(worst.max(), 4),
                          "certificate": round(u0 + worst.sum(), 4),
                          "constraints": sum(len(b) for _, b in rows),
                          "seconds": round(time.perf_counter() - start)}), flush=True)
        if not new:
            break
        rows += new
        lp = linprog(objective, A_ub=sparse.vstack([A for A, _ in rows]),
                     b_ub=np.concatenate([b for _, b in rows]), bounds=(-3000, 3000),
                     method="highs")
        if lp.status != 0:
            raise SystemExit(f"LP: {lp.message}")
        x = lp.x
        if model.tied:
            x[2 * T:2 * T + R * T] = x[2 * T + R * T:]
    summary = {"tied": args.tied, "certified_bound": round(best, 4),
               "above_optimum": f"{best / exact[-1, 1] - 1:.2%}"}
    if args.price_certificate:
        summary["price_certificate"] = round(price_certificate(model, x), 2)
    summary["seconds"] = round(time.perf_counter() - start)
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
