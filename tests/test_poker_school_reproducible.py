"""Fitted tables are a function of the code and their options alone (``solver/blas_threads.py``).

Proves: (1) ``single_blas_thread`` sets the BLAS of numpy and scipy to one thread inside its
block and restores the count after; (2) a small poker-school variant and a small Ryzykant
variant, each fitted twice in fresh processes told to use one and two BLAS threads
(``OPENBLAS_NUM_THREADS``), give the same table arrays bit for bit, the same expected score
and the same upper bound; (3) fitted with another processor's BLAS kernels (OpenBLAS's
generic x86-64 ones, ``OPENBLAS_CORETYPE``), Ryzykant's table is the same bits
(``solver/fixed_order.py``), and poker-school's, whose weights then differ in their last
bits, scores the same and proves the same bound to 1e-12.
"""

from __future__ import annotations

import math
import os
import platform
import re
import subprocess
import sys

import pytest

from dicewise.solver import blas_threads

BUILD = r"""
import hashlib, sys
import numpy as np
from dicewise.solver.registry import get_game
name = sys.argv[1]
game = get_game(name)
if name == "poker-school":
    from dicewise.solver.poker_school import table
    table.SETTINGS = table.FitSettings(iterations=2, games=128, average=2, eval_games=64,
                                       bound_iterations=1, bound_groups=False,
                                       measure_gap=False)
    rules = game.rules({"columns": 2})
else:
    from dicewise.solver.ryzykant import game as module, policy_table
    module.BUILD = module.BuildSettings(rounds=2, games=2000, eval_games=2000)
    policy_table.RESIDUAL_POSITIONS = 100
    rules = game.rules({"end_marks": 3})
payload, meta = game.build(rules)
h = hashlib.sha256()
for key, arr in sorted(game.to_arrays(payload).items()):
    h.update(key.encode()); h.update(np.ascontiguousarray(arr).tobytes())
print(h.hexdigest(), meta["expected_score"], meta.get("upper_bound"))
"""


def test_single_blas_thread_limits_and_restores():
    if not blas_threads.limited():
        pytest.skip("this numpy does not use OpenBLAS")
    before = [get() for _, get in blas_threads._CONTROLS]
    try:
        for set_threads, _ in blas_threads._CONTROLS:  # the tests run on one (conftest.py)
            set_threads(2)
        with blas_threads.single_blas_thread():
            assert [get() for _, get in blas_threads._CONTROLS] == [1] * len(before)
        assert [get() for _, get in blas_threads._CONTROLS] == [2] * len(before)
    finally:
        for (set_threads, _), threads in zip(blas_threads._CONTROLS, before):
            set_threads(threads)


def _build(name: str, threads: int, kernels: str | None = None) -> str:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
    if kernels is not None:
        env["OPENBLAS_CORETYPE"] = kernels
    out = subprocess.run([sys.executable, "-c", BUILD, name], env=env, capture_output=True,
                         text=True, timeout=600, check=True)
    return out.stdout.strip()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["poker-school", "ryzykant"])
def test_a_table_is_the_same_whatever_the_blas_threads(name):
    one, two = _build(name, 1), _build(name, 2)
    assert one == two
    digest, score, bound = one.split()  # the table's digest, its score and its bound
    assert re.fullmatch("[0-9a-f]{64}", digest) and math.isfinite(float(score))
    assert (bound == "None") == (name == "ryzykant")  # poker-school's is proven, a number
    assert bound == "None" or float(score) < float(bound)


@pytest.mark.slow
@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                    reason="OpenBLAS's generic x86-64 kernels (OPENBLAS_CORETYPE=Prescott)")
@pytest.mark.parametrize("name", ["poker-school", "ryzykant"])
def test_a_table_is_the_same_whatever_the_processors_blas_kernels(name):
    """The kernels a BLAS picks for this processor against the SSE3 ones every x86-64 runs:
    sums in another order, as another machine's would be."""
    if not blas_threads.limited():
        pytest.skip("this numpy does not use OpenBLAS")
    here, generic = _build(name, 1).split(), _build(name, 1, "Prescott").split()
    if name == "ryzykant":
        assert here == generic
    else:
        assert here[1] == generic[1]
        assert math.isclose(float(here[2]), float(generic[2]), rel_tol=1e-12)
