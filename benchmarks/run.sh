#!/usr/bin/env bash
# The benchmark environment: dicewise plus the peer solver yatzy-solver (not a dependency).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv benchmarks/.venv
benchmarks/.venv/bin/pip install -q -e '.[fast]' yatzy-solver
benchmarks/.venv/bin/python benchmarks/bench_core.py "$@"
