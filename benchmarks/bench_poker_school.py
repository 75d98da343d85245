"""Timed runs of poker-school: the table build, advice latency, policies, measured quality.

    python3 benchmarks/bench_poker_school.py [--games N] [--seed S] [--quick]

Prints JSON after each stage: (1) the full game's table build as ``dicewise solve
poker-school`` does it (fit, evaluation, error estimate, upper bound), timed, written to
the cache; (2) the one-column game (with ``--one-column-erases`` also its erasure variant):
exact optimum and the approximate method's policy on the same dice (paired, common random
numbers), gap with its 95% CI; (3) advice latency; (4) mean ± 95% CI per policy on the full
game, all policies on the same dice.  The exact one-column tables come from the cache when
present (``dicewise solve poker-school -o columns=1`` builds the erasure one: 20+ minutes).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from dicewise.solver.poker_school import advice, table
from dicewise.solver.poker_school.approx import LinearEvaluator, fit_policy
from dicewise.solver.poker_school.game import POKER_SCHOOL
from dicewise.solver.poker_school.turns import play
from dicewise.solver.poker_school.rules import PokerSchool
from dicewise.solver.stats import ScoreSummary
from dicewise.tables import store


def summary(scores):
    half = 1.959964 * scores.std(ddof=1) / np.sqrt(len(scores))
    return {"mean": float(scores.mean()), "std": float(scores.std(ddof=1)),
            "ci95": [float(scores.mean() - half), float(scores.mean() + half)]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    ap.add_argument("--one-column-erases", action="store_true",
                    help="also the one-column game with erasure (its exact solve: 20+ min)")
    args = ap.parse_args()
    if args.quick:
        args.games = 2048
        table.SETTINGS = table.FitSettings(iterations=2, games=512, eval_games=512)
    out = {"games": args.games, "seed": args.seed}

    def report():
        print(json.dumps(out, indent=1), flush=True)

    full = PokerSchool()
    t = time.perf_counter()
    built = store.build(POKER_SCHOOL, full, store.default_path(POKER_SCHOOL, full))
    out["full_build_seconds"] = time.perf_counter() - t
    out["full_build_meta"] = built.meta
    out["table"] = str(built.table)
    report()

    for erases in (False, True) if args.one_column_erases else (False,):
        one = PokerSchool(columns=1, school_cross_erases=erases)
        exact = store.solution(POKER_SCHOOL, one)
        optimum = exact.meta["expected_score"]
        key = f"one_column_erases_{str(erases).lower()}"
        out[key] = {"exact": optimum, "exact_seconds": exact.meta["seconds"]}
        s = table.SETTINGS
        fit = fit_policy(one, iterations=s.iterations, games=s.games, average=s.average)
        a = play(one, args.games, args.seed, "solved", LinearEvaluator(one, fit.weights))
        b = play(one, args.games, args.seed, "solved", exact.payload)
        d = b - a
        half = 1.959964 * d.std(ddof=1) / np.sqrt(len(d))
        out[key].update({"fit_history": fit.history, "exact_policy": summary(b),
                         "approximate_policy": summary(a),
                         "gap": float(d.mean()), "gap_ci95": [float(d.mean() - half),
                                                              float(d.mean() + half)],
                         "gap_percent": float(100 * d.mean() / optimum),
                         "gap_vs_optimum_percent": float(100 * (optimum - a.mean()) / optimum)})
        report()

    position = {"sheet": "fives=15/15,pair=12/x,chance=44", "dice": [5, 5, 5, 2, 6], "roll": 2}
    t = time.perf_counter()
    for _ in range(20):
        advice.turn_advice.cache_clear()  # time the turn's solve, not the memo
        POKER_SCHOOL.advise(built, position)
    out["advice_seconds"] = (time.perf_counter() - t) / 20
    for policy in ("random", "greedy", "optimal"):
        played = POKER_SCHOOL.play(built, policy, args.games, args.seed)
        out[f"full_{policy}"] = {**summary(played.scores),
                                 "games_per_second": args.games / played.seconds,
                                 "percentiles": ScoreSummary.of(played.scores).percentiles}
        report()


if __name__ == "__main__":
    main()
