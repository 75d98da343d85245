"""The compiled kernels (``solver/compiled.py``, the ``fast`` extra) against the numpy passes.

Proves: with numba installed, the turn kernel and the target kernel's reads give the same
values bit for bit as without it (float32 and float64, with a first roll that ends the game,
with impossible writes), so a table is the same file whichever is installed; and that
``DICEWISE_KERNEL=numpy`` turns them off.  Skipped where numba is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from dicewise.solver import compiled, turn  # noqa: E402


@contextmanager
def kernels(on: bool):
    """The compiled kernels for every batch (``on``) or for none, as without numba."""
    saved = compiled.COMPILED_COLUMNS, compiled.WORTH_COLUMNS, compiled._columns_seen
    compiled.COMPILED_COLUMNS, compiled.WORTH_COLUMNS = (1, 0) if on else (10**9, 10**18)
    try:
        yield
    finally:
        compiled.COMPILED_COLUMNS, compiled.WORTH_COLUMNS, compiled._columns_seen = saved


def _turns(write, ends):
    """turn_value's start values, and its values after rolls 2 and 1."""
    after = []
    return turn.turn_value(write, ends, after_roll=after), after


@settings(max_examples=25, deadline=None)
@given(columns=st.integers(1, 70), single=st.booleans(), with_end=st.booleans(),
       impossible=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_turn_kernel_is_bit_for_bit_the_numpy_passes(columns, single, with_end, impossible, seed):
    rng = np.random.default_rng(seed)
    dtype = np.float32 if single else np.float64
    write = [rng.normal(40, 25, size=(252, columns)).astype(dtype) for _ in range(3)]
    if impossible:  # rolls that write nothing (−inf), as a filled sheet's are
        write[2][rng.integers(0, 252, 20)] = -np.inf
    ends = None
    if with_end:
        ends = np.full(252, np.nan)
        ends[rng.integers(0, 252, 4)] = 60.0
    with kernels(True):
        fast, fast_after = _turns(write, ends)
    with kernels(False):
        slow, slow_after = _turns(write, ends)
    assert fast.dtype == slow.dtype
    assert np.array_equal(fast, slow)
    for x, y in zip(fast_after, slow_after):
        assert np.array_equal(x, y)


def test_turn_kernel_runs_compiled_on_wide_batches(monkeypatch):
    """A whole-table batch takes the compiled loops (it is not silently the numpy ones)."""
    monkeypatch.setattr(compiled, "WORTH_COLUMNS", 0)
    calls = []
    for name in ("keep_sums", "sub_keep_max"):
        kernel = getattr(compiled, name)(256)
        assert kernel is not None

        def counted(*args, kernel=kernel, name=name):
            calls.append((name, args[0].shape))
            return kernel(*args)

        monkeypatch.setattr(compiled, name, lambda columns, counted=counted: counted)
    write = [np.random.default_rng(1).random((252, 256)) for _ in range(3)]
    turn.turn_value(write)
    assert calls == [("keep_sums", (462, 256)), ("sub_keep_max", (462, 256))] * 2


@settings(max_examples=25, deadline=None)
@given(columns=st.integers(1, 70), single=st.booleans(), levels=st.sampled_from([3, 1000]),
       nan=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_sub_keep_lattices_are_the_numpy_ones(columns, single, levels, nan, seed):
    """The best sub-keep with and without its keep, ties to the first keep or not: the same
    values and the same keeps (few distinct values make many ties); NaN spreads as in
    ``np.maximum``."""
    rng = np.random.default_rng(seed)
    keep_value = rng.integers(0, levels, (462, columns)).astype(np.float32 if single else float)
    if nan:
        keep_value[rng.integers(0, 462, 3), rng.integers(0, columns, 3)] = np.nan
    functions = [turn.first_best_sub_keep, turn.best_sub_keep_and_keep,
                 lambda v: (turn.best_sub_keep(v),)]
    if nan:
        functions = functions[2:]  # the keep of a NaN maximum is not defined
    for f in functions:
        with kernels(True):
            fast = f(keep_value)
        with kernels(False):
            slow = f(keep_value)
        for x, y in zip(fast, slow):
            assert x.dtype == y.dtype
            assert np.array_equal(x, y, equal_nan=True)


@settings(max_examples=25, deadline=None)
@given(states=st.integers(1, 12), columns=st.integers(1, 90), single=st.booleans(),
       illegal=st.sampled_from(["none", "some", "one gather"]), seed=st.integers(0, 2**32 - 1))
def test_class_reads_are_the_numpy_reads(states, columns, single, illegal, seed):
    """``RunReads.read`` compiled against its numpy ``index`` and ``values``: the same
    indices and the same values, −inf where a write is illegal."""
    from types import SimpleNamespace

    from dicewise.solver.target.kernel import Columns, RunReads, Workspace

    rng = np.random.default_rng(seed)
    dtype = np.float32 if single else np.float64
    flat = rng.random(5000).astype(dtype)
    gathers = []
    for g in range(3):
        q = int(rng.integers(1, 6))
        bad = None
        if illegal == "some" or (illegal == "one gather" and g == 1):
            bad = rng.random((q, states)) < 0.3
        gathers.append(SimpleNamespace(moves=SimpleNamespace(n_classes=q),
                                       shift=rng.integers(0, 60, (q, states)),
                                       cap=rng.integers(0, 200, (q, states)),
                                       base=rng.integers(0, 4800, (q, states)), illegal=bad))
    reads = RunReads(gathers)
    j = np.sort(rng.integers(0, states, columns))
    cols = Columns.of(j, rng.integers(-20, 260, columns))
    fast_ws, slow_ws = (Workspace(dtype, columns, reads.n_classes) for _ in range(2))
    with kernels(True):
        idx, value = (a.copy() for a in reads.read(flat, cols, fast_ws))
    slow_idx = reads.index(cols, slow_ws)
    assert np.array_equal(idx, slow_idx)
    assert np.array_equal(value, reads.values(flat, slow_idx, cols, slow_ws))


@pytest.mark.slow
@pytest.mark.parametrize("name, target, dtype", [("general", 150, "float64"),
                                                 ("poker-programs", 200, "float32")])
def test_target_tables_are_the_same_with_and_without_numba(name, target, dtype):
    """A target table with the expected-score policy's column, solved both ways: the same
    values bit for bit (the reads are integer arithmetic and gathers, the turn as above)."""
    from dicewise.solver.category import solve_states
    from dicewise.solver.rulesets import category_game
    from dicewise.solver.target.evaluation import solve_with_policy

    game = category_game(name)
    solved = solve_states(game)
    with kernels(True):
        fast = solve_with_policy(game, solved, target=target, dtype=dtype, workers=1)
    with kernels(False):
        slow = solve_with_policy(game, solved, target=target, dtype=dtype, workers=1)
    for x, y in zip(fast, slow):
        assert x.flat.dtype == np.dtype(dtype)
        assert np.array_equal(x.flat, y.flat)


def test_only_a_long_solve_loads_numba():
    """General's whole solve is shorter than importing numba: it stays in numpy; a solve
    announced long (``turn.prepare``) loads and compiles the kernels before it starts."""
    code = ("import sys; from dicewise.solver import compiled, turn; "
            "from dicewise.solver.category import solve_states; "
            "from dicewise.solver.rulesets import category_game; "
            "solve_states(category_game('general'), workers=1); print('numba' in sys.modules); "
            "turn.prepare(10**8, 'float32'); print('numba' in sys.modules, "
            "compiled.keep_sums(64) is not None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True"]


def test_the_numpy_passes_can_be_chosen():
    """``DICEWISE_KERNEL=numpy`` turns the compiled kernels off (and numba is not imported)."""
    code = ("import sys, numpy as np; from dicewise.solver import compiled, turn; "
            "compiled.WORTH_COLUMNS = 0; turn.turn_value([np.ones((252, 64))] * 3); "
            "print(compiled.keep_sums(64) is not None, 'numba' in sys.modules)")
    env = dict(os.environ, DICEWISE_KERNEL="numpy")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
