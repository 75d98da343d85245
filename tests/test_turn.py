"""The batched three-roll turn solver (``solver/turn.py``) against brute force.

Proves: ``keep_values`` is the product with the dense keep→roll matrix built here from
ordered throws; ``best_sub_keep`` is the maximum over the sub-multisets of each roll taken
from subsets of dice positions; ``solve_turn`` equals a plain recursive expectimax over the
three rolls (keep anything, reroll the rest, or stop and write), on random write values,
with and without a first roll that ends the game.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from dicewise.solver import dice
from dicewise.solver.turn import (best_sub_keep, best_sub_keep_and_keep, first_best_sub_keep, keep_values,
                                   solve_turn, turn_value)

FACES = range(1, 7)
ROLL_OF = {tuple(f for f in FACES for _ in range(int(r[f - 1]))): i for i, r in enumerate(dice.ROLLS)}
KEEP_OF = {tuple(f for f in FACES for _ in range(int(k[f - 1]))): i for i, k in enumerate(dice.KEEPS)}


def throws_from(kept: tuple[int, ...]) -> Counter:
    """How many ordered throws of the free dice lead from ``kept`` to each roll (by sorted faces)."""
    return Counter(tuple(sorted(kept + t)) for t in itertools.product(FACES, repeat=5 - len(kept)))


TRANSITIONS = {kept: throws_from(kept) for kept in KEEP_OF}
SUBSETS = {roll: {tuple(sorted(roll[i] for i in pos)) for n in range(6)
                  for pos in itertools.combinations(range(5), n)} for roll in ROLL_OF}


def dense_keep_to_roll() -> np.ndarray:
    m = np.zeros((462, 252))
    for kept, outcomes in TRANSITIONS.items():
        for roll, ways in outcomes.items():
            m[KEEP_OF[kept], ROLL_OF[roll]] = ways / 6 ** (5 - len(kept))
    return m


def brute_turn(write, ends=None):
    """Expectimax over one turn, written out: values by roll tuple for roll 1, 2, 3."""
    w1, w2, w3 = write
    v3 = {roll: w3[i] for roll, i in ROLL_OF.items()}

    def keep_value(v):
        return {kept: sum(ways * v[roll] for roll, ways in out.items()) / 6 ** (5 - len(kept))
                for kept, out in TRANSITIONS.items()}

    e3 = keep_value(v3)
    v2 = {roll: np.maximum(w2[i], np.max([e3[k] for k in SUBSETS[roll]], axis=0))
          for roll, i in ROLL_OF.items()}
    e2 = keep_value(v2)
    v1 = {roll: np.maximum(w1[i], np.max([e2[k] for k in SUBSETS[roll]], axis=0))
          for roll, i in ROLL_OF.items()}
    if ends is not None:
        for roll, i in ROLL_OF.items():
            if not np.isnan(ends[i]):
                v1[roll] = np.full_like(v1[roll], ends[i])
    start = sum(ways * v1[roll] for roll, ways in TRANSITIONS[()].items()) / 6**5
    return v1, v2, v3, e2, e3, start


def as_rolls(v):
    return np.array([v[roll] for roll in ROLL_OF])


def as_keeps(e):
    return np.array([e[kept] for kept in KEEP_OF])


def test_keep_values_is_the_dense_matrix_product():
    rng = np.random.default_rng(1)
    v = rng.normal(size=(252, 5))
    assert np.allclose(keep_values(v), dense_keep_to_roll() @ v, rtol=0, atol=1e-12)


def test_best_sub_keep_is_the_max_over_sub_multisets():
    rng = np.random.default_rng(2)
    e = rng.normal(size=(462, 4))
    e[rng.random(462) < 0.3] = -np.inf  # ties and unusable keeps must not confuse the maximum
    got = best_sub_keep(e)
    assert got.shape == (252, 4)
    for roll, r in ROLL_OF.items():
        want = np.max([e[KEEP_OF[k]] for k in SUBSETS[roll]], axis=0)
        assert np.array_equal(got[r], want), roll


def test_best_sub_keep_and_keep_names_a_keep_the_roll_allows_with_that_value():
    rng = np.random.default_rng(3)
    e = rng.normal(size=(462, 3))
    best, keep = best_sub_keep_and_keep(e)
    assert np.array_equal(best, best_sub_keep(e))
    for roll, r in ROLL_OF.items():
        allowed = {KEEP_OF[k] for k in SUBSETS[roll]}
        for b in range(3):
            assert keep[r, b] in allowed and e[keep[r, b], b] == best[r, b]


def test_best_sub_keep_does_not_modify_its_input():
    e = np.random.default_rng(3).normal(size=(462, 2))
    copy = e.copy()
    best_sub_keep(e)
    assert np.array_equal(e, copy)


@pytest.mark.parametrize("seed, same_every_roll, with_end", [
    (10, False, False), (11, True, False), (12, False, True)])
def test_solve_turn_equals_brute_force_expectimax(seed, same_every_roll, with_end):
    rng = np.random.default_rng(seed)
    b = 3
    if same_every_roll:
        w = rng.integers(0, 60, size=(252, b)).astype(float)
        write = (w, w, w)
    else:
        write = tuple(rng.normal(20, 10, size=(252, b)) for _ in range(3))
    ends = None
    if with_end:
        ends = np.full(252, np.nan)
        ends[dice.ROLLS.max(axis=1) == 5] = 0.0
        ends[rng.integers(0, 252, 5)] = 7.5
    got = solve_turn(write, ends)
    v1, v2, v3, e2, e3, start = brute_turn(write, ends)
    assert np.allclose(got.after_roll[0], as_rolls(v1), rtol=0, atol=1e-9)
    assert np.allclose(got.after_roll[1], as_rolls(v2), rtol=0, atol=1e-9)
    assert np.allclose(got.after_roll[2], as_rolls(v3), rtol=0, atol=1e-9)
    assert np.allclose(got.before_roll[0], as_keeps(e2), rtol=0, atol=1e-9)
    assert np.allclose(got.before_roll[1], as_keeps(e3), rtol=0, atol=1e-9)
    assert got.value.shape == (b,)
    assert np.allclose(got.value, start, rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed, same_every_roll, with_end", [
    (20, False, False), (21, True, False), (22, False, True)])
def test_turn_value_equals_brute_force_expectimax(seed, same_every_roll, with_end):
    """The whole-table kernel (dice thrown one at a time, in one reused buffer) against the
    expectimax written out, and against ``solve_turn`` on wide batches."""
    rng = np.random.default_rng(seed)
    if same_every_roll:
        w = rng.integers(0, 60, size=(252, 3)).astype(float)
        write = (w, w, w)
    else:
        write = tuple(rng.normal(20, 10, size=(252, 3)) for _ in range(3))
    ends = None
    if with_end:
        ends = np.full(252, np.nan)
        ends[dice.ROLLS.max(axis=1) == 5] = 0.0
        ends[rng.integers(0, 252, 5)] = 7.5
    start = brute_turn(write, ends)[-1]
    work = np.full(dice.N_KEEPS * 40, np.nan)  # a buffer wider than the batch, reused
    assert np.allclose(turn_value(write, ends, work), start, rtol=0, atol=1e-9)
    assert np.allclose(turn_value(write, ends), start, rtol=0, atol=1e-9)
    wide = tuple(rng.normal(100, 40, size=(252, 40)) for _ in range(3))
    assert np.allclose(turn_value(wide, ends, work), solve_turn(wide, ends, False).value,
                       rtol=0, atol=1e-11)
    assert np.allclose(turn_value(write, ends, work), start, rtol=0, atol=1e-9)


@pytest.mark.parametrize("b, with_end", [(1, False), (5, True), (300, True)])
def test_float32_values_only_turn_is_bit_for_bit_the_full_solve(b, with_end):
    """The in-place float32 kernel that a values-only ``solve_turn`` takes adds each keep's
    six children in the order ``keep_values_by_die`` does: every value is the same float."""
    rng = np.random.default_rng(b)
    write = tuple(rng.random((252, b)).astype(np.float32) for _ in range(3))
    ends = None
    if with_end:
        ends = np.full(252, np.nan)
        ends[rng.integers(0, 252, 5)] = 0.25
    for w in (write, (write[0],) * 3):
        full, fast = solve_turn(w, ends, True), solve_turn(w, ends, False)
        assert fast.before_roll is None and fast.after_roll[0].dtype == np.float32
        assert np.array_equal(fast.value, full.value)
        for x, y in zip(fast.after_roll, full.after_roll):
            assert np.array_equal(x, y)


def test_turn_value_is_the_same_without_scipy_s_kernel(monkeypatch):
    """The kernel's fallback where scipy lacks the compiled entry point it calls: the same
    float32 values bit for bit (children added in the same order), float64 to rounding."""
    from dicewise.solver import turn

    assert turn._sparse_accumulate() is not turn._accumulate_by_numpy  # the kernel is found
    rng = np.random.default_rng(9)
    write = tuple(rng.normal(50, 20, size=(252, 30)) for _ in range(3))
    single = tuple(w.astype(np.float32) for w in write)
    fast, fast32 = turn_value(write), turn_value(single)
    monkeypatch.setattr(turn, "_sparse_accumulate", lambda: turn._accumulate_by_numpy)
    assert np.allclose(turn_value(write), fast, rtol=0, atol=1e-12)
    assert np.array_equal(turn_value(single), fast32)


def test_solve_turn_simple_reference_values():
    """Hand-checkable cases: a constant write value, and the chance of a Yahtzee in a turn."""
    const = np.full((252, 1), 4.0)
    assert solve_turn((const, const, const)).value[0] == pytest.approx(4.0)
    # Value 1 for a five of a kind after any roll, 0 otherwise: the turn value is the chance
    # of five of a kind within three rolls, 2,783,176 / 6^10 = 0.0460286 (the classic Markov
    # chain result, e.g. the Wikipedia article "Yahtzee": "about 4.6%").
    yz = (dice.ROLLS.max(axis=1) == 5).astype(float)[:, None]
    assert solve_turn((yz, yz, yz)).value[0] == pytest.approx(2783176 / 6**10, abs=1e-12)


def test_first_best_sub_keep_is_the_first_best_of_the_sub_keeps():
    """Ties go to the first best keep of SUB_KEEPS (the simulator's choice); values drawn
    from four levels so that ties are everywhere."""
    rng = np.random.default_rng(7)
    kv = rng.integers(0, 4, size=(dice.N_KEEPS, 64)).astype(float)
    cand = dice.SUB_KEEPS
    every = np.where(cand[:, :, None] >= 0, kv[np.maximum(cand, 0)], -np.inf)  # (252, 32, B)
    first = every.argmax(axis=1)
    best, keep = first_best_sub_keep(kv)
    assert np.array_equal(keep, np.take_along_axis(cand, first, axis=1))
    assert np.array_equal(best, every.max(axis=1))
