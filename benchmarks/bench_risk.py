"""Timings and accuracy of the Risk solver on large battles, tables and chains.

Run from the repository root (``nice`` it on a shared machine)::

    nice python3 benchmarks/bench_risk.py            # everything, best of 3
    nice python3 benchmarks/bench_risk.py --quick    # one run each, smaller sizes

Prints a Markdown table: wall-clock and CPU seconds (each the best of the runs; on a
busy machine the CPU time is the steadier figure) and, for battles, how far the
end-state probabilities are from summing to 1.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time

from dicewise.solver import risk as rk


def _cpu():
    """CPU seconds of this process and its finished children."""
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def best_of(runs, fn):
    """The fastest of ``runs`` calls of ``fn`` as (wall, cpu) seconds, and its last result."""
    wall = cpu = float("inf")
    out = None
    for _ in range(runs):
        t, c = time.perf_counter(), _cpu()
        out = fn()
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, _cpu() - c)
    return (wall, cpu), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one run each, smaller sizes")
    args = ap.parse_args(argv)
    runs = 1 if args.quick else 3
    n = 300 if args.quick else 1000

    rows = []

    def battle(label, policy, a=n, d=n, rules=rk.RiskRules()):
        secs, b = best_of(runs, lambda: rk.battle(a, d, rules, policy))
        rows.append((f"battle {a} v {d}, {label}", secs,
                     f"P(conquer) {b.p_conquer:.15f}; "
                     f"|sum - 1| {abs(b.total_probability - 1):.1e}"))

    battle("max dice", rk.Policy())
    battle("minimax dice", rk.Policy(dice="minimax"))
    battle("minimax, defender sees roll", rk.Policy(dice="minimax"),
           rules=rk.RiskRules(defender_sees_roll=True))
    battle("expected armies (optimal stopping)", rk.Policy(objective="expected-armies"))
    battle("threshold 0.5", rk.Policy(objective="threshold", threshold=0.5))
    battle("max dice", rk.Policy(), a=20 * n, d=10)

    secs, adv = best_of(runs, lambda: rk.advise(n, n))
    rows.append((f"advise {n} v {n}, minimax", secs, f"roll {adv.attacker_dice}"))
    secs, t = best_of(runs, lambda: rk.conquest_table(n))
    rows.append((f"P(conquer) table A, D <= {n}, max dice", secs, f"P[10, 10] {t[10, 10]:.17g}"))
    path = [10] * 10
    secs, c = best_of(runs, lambda: rk.chain_attack(150, path))
    rows.append(("chain 150 v 10 x 10", secs, f"P(all) {c.p_all:.12f}"))
    secs, (need, p) = best_of(runs, lambda: rk.min_armies(path, 0.8))
    rows.append(("fewest armies for P(all) >= 0.8, 10 x 10", secs, f"{need} armies (P {p:.6f})"))

    cmd = [sys.executable, "-c", "from dicewise.cli.risk import risk; "
           f"risk(['battle', '{n}', '{n}', '--json'], standalone_mode=False)"]
    secs, _ = best_of(runs, lambda: subprocess.run(cmd, check=True, capture_output=True))
    rows.append((f"`dicewise risk battle {n} {n} --json` (new process)", secs, "includes imports"))

    print(f"Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, best of {runs}\n")
    print("| case | wall s | CPU s | result |")
    print("|---|---:|---:|---|")
    for label, (wall, cpu), note in rows:
        print(f"| {label} | {wall:.3f} | {cpu:.3f} | {note} |")


if __name__ == "__main__":
    main()
