"""Rebuild the documented headline figures from an empty table cache and compare them with
the figures README.md and docs/ quote.

These figures come from tables that take minutes to build, so no test recomputes them, and
every later run loads them from the cache: a change that moves one (a refactor that breaks
a fit, say) shows only when the table is built again.  Run this before a release, or after
touching a solver whose table is slow to build:

    python3 benchmarks/reproduce.py               # all, about 20 minutes on 2 cores
    python3 benchmarks/reproduce.py --only poker-school --only chance

It exits with status 1 if any figure differs from the documented one by more than its
tolerance (the last digit the docs print).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

#: name: (the command's arguments, [(its JSON field, the documented figure, tolerance)]).
FIGURES = {
    "yahtzee": (["solve", "yahtzee"], [("expected_score", 254.5896095, 1e-6)]),
    "yatzy": (["solve", "yatzy"], [("expected_score", 248.4399894, 1e-6)]),
    "chance": (["chance", "yahtzee", "--target", "250"],
               [("probability", 0.541887, 1e-6), ("probability_expected_score_policy", 0.483693, 1e-6)]),
    "two-player": (["solve", "general", "--players", "2"], [("probability", 0.494986, 1e-6)]),
    "poker-school": (["solve", "poker-school"],
                     [("expected_score", 952.51, 0.005), ("error_estimate", 6.32, 0.005),
                      ("upper_bound", 1099.81, 0.005)]),
    "ryzykant": (["solve", "ryzykant"], [("expected_score", 8288.8, 0.05)]),
}


def run(args: list[str], cache: str) -> tuple[dict, float]:
    """The JSON a dicewise command prints with an empty cache of its own, and its seconds."""
    env = {**os.environ, "DICEWISE_CACHE": cache}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "dicewise", *args, "--json"], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout), time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--only", action="append", choices=sorted(FIGURES),
                        help="check only these (repeatable)")
    names = parser.parse_args().only or list(FIGURES)
    failed = 0
    print(f"{'figure':<52} {'documented':>14} {'now':>16}  ok")
    for name in names:
        args, checks = FIGURES[name]
        with tempfile.TemporaryDirectory() as cache:
            report, seconds = run(args, cache)
        for field, documented, tolerance in checks:
            now = report[field]
            ok = abs(now - documented) <= tolerance
            failed += not ok
            label = f"{' '.join(args)}: {field}"
            print(f"{label:<52} {documented:>14} {now:>16.7f}  {'yes' if ok else 'NO'}")
        print(f"  ({seconds:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
