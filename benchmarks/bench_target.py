"""Timing of play for a target (``solver/target/``): W(state, need) for every target or one.

Run from the repository root::

    python benchmarks/bench_target.py                  # general, poker-programs, yahtzee T=250
    python benchmarks/bench_target.py --every yahtzee  # also yahtzee for every target (minutes)

Each job runs in a fresh process (so its peak memory is its own) and prints one JSON line:
wall and CPU seconds of W alone and of W with the expected-score policy's chances in one pass,
as a target table is built (CPU counts the forked workers: on a busy machine wall time says
little), the (state, need) values solved, the bytes of W and the peak resident memory, and
P(final ≥ T) from the empty sheet aiming at T beside the expected-score policy's.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

JOBS = {
    "general": dict(game="general", target=None, dtype="float64", show=(100, 150, 200)),
    "poker-programs": dict(game="poker-programs", target=None, dtype="float64", show=(150, 200, 250)),
    "yahtzee-250": dict(game="yahtzee", target=250, dtype="float32", show=(250,)),
    "yahtzee-250-float64": dict(game="yahtzee", target=250, dtype="float64", show=(250,), policy=False),
    "yatzy-250": dict(game="yatzy", target=250, dtype="float32", show=(250,)),
    "yahtzee-every": dict(game="yahtzee", target=None, dtype="float32", show=(200, 250, 300, 400),
                          policy=False),
    "yatzy-every": dict(game="yatzy", target=None, dtype="float32", show=(200, 250, 300), policy=False),
}


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the forked workers)."""
    own, kids = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run_job(name: str) -> dict:
    from dicewise.solver.category import solve_states
    from dicewise.solver.rulesets import category_game
    from dicewise.solver.target.driver import solve_target
    from dicewise.solver.target.evaluation import expected_policy_chances, solve_with_policy

    job = JOBS[name]
    game = category_game(job["game"])
    wall, cpu = time.perf_counter(), _cpu()
    values = solve_target(game, target=job["target"], dtype=job["dtype"])
    wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    out = {"job": name, "dtype": job["dtype"], "target": job["target"] or "every",
           "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "values": values.n_values,
           "states": len(values.states), "table_MB": round(values.flat.nbytes / 2**20, 1),
           "aiming": {t: round(float(values.at(game.initial_state, t)), 6) for t in job["show"]}}
    del values
    if job.get("policy", True):
        solved = solve_states(game)
        # As a target table is built: W and the expected-score policy's chances in one pass.
        wall, cpu = time.perf_counter(), _cpu()
        _, policy = solve_with_policy(game, solved, target=job["target"], dtype=job["dtype"])
        out.update(with_policy_wall_s=round(time.perf_counter() - wall, 2),
                   with_policy_cpu_s=round(_cpu() - cpu, 2),
                   expected_score_policy={t: round(float(policy.at(game.initial_state, t)), 6)
                                          for t in job["show"]})
        if job["target"] is None:  # the exact forward distribution agrees (docs/target.md)
            exact = expected_policy_chances(game, solved, max(job["show"]))
            out["policy_against_exact"] = float(max(abs(exact[t] - policy.at(game.initial_state, t))
                                                    for t in job["show"]))
    out["peak_MB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", nargs="*", default=[], choices=["yahtzee", "yatzy"],
                        help="also solve these reference games for every target")
    parser.add_argument("--jobs", nargs="*", help="run only these jobs: " + ", ".join(JOBS))
    parser.add_argument("--job", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.job:
        print(json.dumps(run_job(args.job)))
        return
    names = args.jobs or ["general", "poker-programs", "yahtzee-250"] + [f"{g}-every" for g in args.every]
    for name in names:
        out = subprocess.run([sys.executable, __file__, "--job", name], check=True, capture_output=True,
                             text=True).stdout
        print(out.strip(), flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
