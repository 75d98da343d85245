"""Timing of the exact core: full solves, a whole-process advise, simulation, and a peer.

Run with the benchmark environment that ``benchmarks/run.sh`` makes (README, "Performance")::

    python benchmarks/bench_core.py --repeat 3

Each figure is the median of ``--repeat`` runs, each in a fresh process so that nothing is
cached in memory.  When the PyPI package ``yatzy-solver`` (a Rust solver; not a dependency
of dicewise) is importable, it solves the same Yahtzee and Yatzy games in the same run,
each of its runs right after one of ours, and the table gives our time / its time.
``--cpu`` adds the CPU seconds of those solves (every process and thread of each side),
which the load changes far less than the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SOLVES = [("general", []), ("poker-programs", []), ("yahtzee", []), ("yatzy", [])]
PEER = {"yahtzee": "american", "yatzy": "yatzy-scandinavian"}


def timed(cmd, env) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def solve_seconds(name, options, env) -> float:
    """Seconds the solver itself reports for a fresh solve (no import or file time)."""
    args = [sys.executable, "-m", "dicewise.cli", "solve", name, "--rebuild", "--json"]
    for o in options:
        args += ["--option", o]
    out = subprocess.run(args, check=True, env=env, capture_output=True, text=True).stdout
    return json.loads(out)["seconds"]


def peer_seconds(variant, clock: str = "perf_counter") -> float | None:
    """The peer's solve of ``variant`` in a fresh process, on ``time.<clock>`` (None if
    the peer is not installed)."""
    code = (f"import time, yatzy_solver as y; t = time.{clock}(); "
            f"y.Solver.build(y.Variant({variant!r})); print(time.{clock}() - t)")
    try:
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError:
        return None
    return float(out.stdout)


def cpu_seconds(name) -> float:
    """CPU seconds of our solve of ``name`` in a fresh process, its forked workers included."""
    code = ("import os; from dicewise.solver.category import solve_states; "
            "from dicewise.solver.rulesets import category_game; "
            f"g = category_game({name!r}); a = os.times(); solve_states(g); b = os.times(); "
            "print(sum(b[:4]) - sum(a[:4]))")
    return float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                text=True).stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--cpu", action="store_true", help="also the CPU seconds of the solves")
    args = parser.parse_args()
    env = dict(os.environ, DICEWISE_CACHE=tempfile.mkdtemp(prefix="dicewise-bench-"))
    load = getattr(os, "getloadavg", lambda: (float("nan"),))  # not on every system
    load_before = load()[0]
    rows = []
    for name, options in SOLVES:
        # Ours and the peer's alternate, so that a change of load meets both alike.
        ours_runs, peer_runs = [], []
        for _ in range(args.repeat):
            ours_runs.append(solve_seconds(name, options, env))
            if name in PEER:
                peer_runs.append(peer_seconds(PEER[name]))
        peer = statistics.median(peer_runs) if peer_runs and None not in peer_runs else None
        rows.append((f"solve {name}", statistics.median(ours_runs), peer))
    advise = [sys.executable, "-m", "dicewise.cli", "advise", "yahtzee", "--roll", "1", "--dice",
              "2", "2", "4", "6", "6", "--sheet", "ones=3,chance=22"]
    timed(advise, env)  # the table is present from here on
    rows.append(("advise yahtzee (whole process)",
                 statistics.median(timed(advise, env) for _ in range(max(args.repeat, 5))), None))
    sim = [sys.executable, "-m", "dicewise.cli", "simulate", "yahtzee", "--games", str(args.games),
           "--seed", "1", "--json"]
    rows.append((f"simulate yahtzee, {args.games:,} optimal games",
                 statistics.median(timed(sim, env) for _ in range(args.repeat)), None))
    print(f"{os.cpu_count()} cores, load average {load_before:.1f} at the start, "
          f"{load()[0]:.1f} at the end (the ratio depends on it: the peer uses every "
          "free core)")
    print(f"{'task':<42} {'dicewise s':>11} {'yatzy-solver s':>15} {'ratio':>7}")
    for task, ours, peer in rows:
        ratio = f"{ours / peer:.2f}" if peer else ""
        peer_s = f"{peer:.2f}" if peer else "—"
        print(f"{task:<42} {ours:>11.2f} {peer_s:>15} {ratio:>7}")
    if args.cpu:
        print_cpu(args.repeat)


def print_cpu(repeat: int):
    """Our CPU seconds and the peer's for the solves both make, alternating, medians."""
    print(f"\n{'solve, CPU seconds':<42} {'dicewise s':>11} {'yatzy-solver s':>15} {'ratio':>7}")
    for name, variant in PEER.items():
        ours, peer = [], []
        for _ in range(repeat):
            ours.append(cpu_seconds(name))
            peer.append(peer_seconds(variant, "process_time"))
        if None in peer:
            print(f"{name:<42} {statistics.median(ours):>11.2f} {'—':>15}")
            continue
        o, p = statistics.median(ours), statistics.median(peer)
        print(f"{name:<42} {o:>11.2f} {p:>15.2f} {o / p:>7.2f}")


if __name__ == "__main__":
    main()
