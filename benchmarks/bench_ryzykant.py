"""Ryzykant: the measurements behind the quality table of docs/ryzykant.md.

    python3 benchmarks/bench_ryzykant.py quality --games 200000 --seed 3
    python3 benchmarks/bench_ryzykant.py exact
    python3 benchmarks/bench_ryzykant.py endgame --positions 200 --seed 5
    python3 benchmarks/bench_ryzykant.py budget

``quality``: every policy on the same rolls (common random numbers), mean and 95% CI, and
the paired difference solved − greedy.  ``exact``: reduced games solved exactly beside the
fitted policy's exact value (no sampling error).  ``endgame``: positions of the full game
with at most three rolls left (plus puściochy), taken from games of the solved policy,
solved exactly from there.  ``budget``: table build time and advise latency.
Run them with ``nice``: they take minutes.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

from dicewise.solver.ryzykant import policy_table as game
from dicewise.solver.ryzykant import approx, exact
from dicewise.solver.ryzykant.rules import Position, Ryzykant, ruleset_from


def _ci(x):
    x = np.asarray(x, np.float64)
    m, h = float(x.mean()), 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def quality(args):
    rules = ruleset_from(args.option)
    table = game.load_or_build(rules, rebuild=args.rebuild)
    scores = {}
    for name in ("solved", "greedy", "random"):
        t = time.perf_counter()
        pol = game.make_policy(name, rules, table, args.seed)
        scores[name] = game.play(rules, pol, args.games, args.seed).scores
        m, lo, hi = _ci(scores[name])
        print(json.dumps({"policy": name, "games": args.games, "seed": args.seed, "mean": m,
                          "ci95": [lo, hi], "seconds": round(time.perf_counter() - t, 1)}), flush=True)
    m, lo, hi = _ci(scores["solved"] - scores["greedy"])
    print(json.dumps({"paired": "solved - greedy", "mean": m, "ci95": [lo, hi]}))


def exact_variants(args):
    for opts in (["end_marks=1"], ["end_marks=2", "puscioch=reroll"]):
        rules = ruleset_from(opts)
        t = time.perf_counter()
        table = game.build(rules)
        build_s = time.perf_counter() - t
        t = time.perf_counter()
        res = exact.solve(rules, policy=table.model.dense())
        greedy = exact.solve(rules, policy="greedy").policy_value
        gap = res.optimum - res.policy_value
        print(json.dumps({"options": opts, "optimum": res.optimum, "policy": res.policy_value,
                          "gap": gap, "gap_percent_of_abs_optimum": 100 * gap / abs(res.optimum),
                          "greedy": greedy, "greedy_gap": res.optimum - greedy,
                          "states": res.states, "build_seconds": round(build_s, 1),
                          "exact_seconds": round(time.perf_counter() - t, 1)}), flush=True)


def endgame(args):
    rules = Ryzykant()
    table = game.load_or_build(rules)
    dense = table.model.dense()
    rng = np.random.default_rng(args.seed)
    # Play the solved policy; stop each game at its first position with <= 3 rolls left.
    played = approx.play_games(rules, approx.model_policy(dense, rules), args.positions * 3,
                               [args.seed, 1], record=True)
    starts = {}
    for idx, up, lo in played.visits:
        for i, u, l in zip(idx, up, lo):
            if i in starts:
                continue
            pos = Position(tuple(int(x) for x in u), tuple(int(x) for x in l))
            if exact.max_rolls(rules, pos, 0) <= 3:
                starts[i] = pos
    picks = rng.choice(sorted(starts), size=min(args.positions, len(starts)), replace=False)
    rows = []
    t = time.perf_counter()
    for i in picks:
        pos = starts[i]
        res = exact.solve(rules, pos, policy=dense, max_puscioch=1)
        g = exact.solve(rules, pos, policy="greedy", max_puscioch=1).policy_value
        rows.append((res.optimum, res.policy_value, g, pos.score))
    rows = np.array(rows)
    gap = rows[:, 0] - rows[:, 1]
    m, lo, hi = _ci(gap)
    gm, glo, ghi = _ci(rows[:, 0] - rows[:, 2])
    print(json.dumps({"positions": len(rows), "mean_optimum": rows[:, 0].mean(),
                      "mean_policy": rows[:, 1].mean(), "mean_gap": m, "gap_ci95": [lo, hi],
                      "max_gap": gap.max(), "share_optimal": float((gap < 1e-6).mean()),
                      "mean_greedy_gap": gm, "greedy_gap_ci95": [glo, ghi],
                      "seconds": round(time.perf_counter() - t, 1)}))


def budget(args):
    rules = Ryzykant()
    t = time.perf_counter()
    table = game.build(rules)
    build_s = time.perf_counter() - t
    path = game.save(table, rules, args.out) if args.out else game.save(table, rules)
    t = time.perf_counter()
    tab = game.load(rules, path)
    pos = Position((0, 0, 0, 0, 4, 7, 5, 0, 0, 0, 0), (0, 5, 0, 0, 3, 0))
    ranked = game.advise(rules, tab, pos, [3, 4, 4, 5, 6])
    advise_s = time.perf_counter() - t
    print(json.dumps({"build_seconds": round(build_s, 1), "advise_seconds_after_import": round(advise_s, 3),
                      "best": ranked[0].as_dict(), "expected_score": table.meta["expected_score"],
                      "error_estimate": table.meta["error_estimate"]}))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--games", type=int, default=200_000)
    q.add_argument("--seed", type=int, default=3)
    q.add_argument("-o", "--option", action="append", default=[])
    q.add_argument("--rebuild", action="store_true")
    sub.add_parser("exact")
    e = sub.add_parser("endgame")
    e.add_argument("--positions", type=int, default=200)
    e.add_argument("--seed", type=int, default=5)
    b = sub.add_parser("budget")
    b.add_argument("--out", default=None)
    args = p.parse_args()
    {"quality": quality, "exact": exact_variants, "endgame": endgame, "budget": budget}[args.what](args)


if __name__ == "__main__":
    main()
