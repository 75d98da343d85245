"""The dice engine (``solver/dice.py``) against brute-force enumeration of ordered dice.

Proves: there are 252 rolls and 462 keeps, each listed once; every exact keep→roll count
equals the number of ordered throws of the free dice (``itertools.product``) that turn the
keep into that roll; the index maps, the one-die lattice (children, parents) and
``sub_keeps`` equal their definitions evaluated by brute force over dice positions.
Reference counts: C(10, 5) = 252 multisets of five faces, C(11, 5) = 462 of zero to five
(stars and bars), 6^5 = 7776 ordered throws.
"""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import numpy as np
import pytest

from dicewise.solver import dice


def as_tuple(counts) -> tuple[int, ...]:
    """Sorted faces of a face-count vector, computed here without the module's helpers."""
    return tuple(f for f in range(1, 7) for _ in range(int(counts[f - 1])))


def counts(faces) -> tuple[int, ...]:
    c = Counter(faces)
    return tuple(c[f] for f in range(1, 7))


def test_number_of_rolls_and_keeps():
    assert dice.N_ROLLS == len(dice.ROLLS) == comb(10, 5) == 252
    assert dice.N_KEEPS == len(dice.KEEPS) == comb(11, 5) == 462
    assert dice.KEEPS.shape == (462, 6) and dice.ROLLS.shape == (252, 6)


def test_keeps_are_every_multiset_once_ordered_by_size():
    got = [as_tuple(k) for k in dice.KEEPS]
    want = {t for n in range(6) for t in itertools.combinations_with_replacement(range(1, 7), n)}
    assert len(set(got)) == len(got)
    assert set(got) == want
    sizes = [len(t) for t in got]
    assert sizes == sorted(sizes)
    assert list(dice.KEEP_SIZE) == sizes
    for k in range(6):
        lo, hi = dice.KEEP_START[k], dice.KEEP_START[k + 1]
        assert (dice.KEEP_SIZE[lo:hi] == k).all() and hi - lo == comb(k + 5, 5)
    assert (dice.KEEPS[dice.ROLL_AS_KEEP] == dice.ROLLS).all()
    assert (dice.ROLLS.sum(axis=1) == 5).all()


def test_roll_weights_count_ordered_throws():
    brute = Counter(counts(t) for t in itertools.product(range(1, 7), repeat=5))
    assert len(brute) == 252
    for r, roll in enumerate(dice.ROLLS):
        assert dice.ROLL_WEIGHT[r] == brute[tuple(roll)]
    assert dice.ROLL_WEIGHT.sum() == 6**5 == 7776
    assert dice.ROLL_PROBABILITY.sum() == pytest.approx(1.0, abs=1e-15)
    assert np.allclose(dice.ROLL_PROBABILITY, dice.ROLL_WEIGHT / 7776, rtol=0, atol=1e-17)
    # Spot values: five of a kind 1 way, 1-2-3-4-5 5! = 120 ways, a full house 5!/(3!2!) = 10.
    assert dice.ROLL_WEIGHT[dice.roll_index([5, 0, 0, 0, 0, 0])] == 1
    assert dice.ROLL_WEIGHT[dice.roll_index([1, 1, 1, 1, 1, 0])] == 120
    assert dice.ROLL_WEIGHT[dice.roll_index([0, 3, 0, 2, 0, 0])] == 10


def test_keep_to_roll_counts_match_ordered_throws_of_the_free_dice():
    assert dice.KEEP_TO_ROLL_COUNT.shape == (462, 252)
    assert np.issubdtype(dice.KEEP_TO_ROLL_COUNT.dtype, np.integer)
    roll_of = {tuple(r): i for i, r in enumerate(dice.ROLLS)}
    for k, keep in enumerate(dice.KEEPS):
        kept = as_tuple(keep)
        free = 5 - len(kept)
        brute = np.zeros(252, dtype=np.int64)
        for throw in itertools.product(range(1, 7), repeat=free):
            brute[roll_of[counts(kept + throw)]] += 1
        assert (dice.KEEP_TO_ROLL_COUNT[k] == brute).all(), kept
        assert dice.KEEP_TO_ROLL_DENOMINATOR[k] == 6**free == brute.sum()


def test_keep_to_roll_rows_sum_to_six_to_the_free_dice():
    assert (dice.KEEP_TO_ROLL_COUNT.sum(axis=1) == 6 ** (5 - dice.KEEP_SIZE)).all()
    p = dice.keep_to_roll()
    assert np.allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    assert (dice.KEEP_TO_ROLL_COUNT > 0).sum() == 4368  # the non-zeros the turn solver documents
    # Keeping nothing is a fresh throw; keeping five dice keeps exactly that roll.
    assert np.allclose(p[0], dice.ROLL_PROBABILITY, rtol=0, atol=1e-17)
    assert (dice.KEEP_TO_ROLL_COUNT[dice.ROLL_AS_KEEP] == np.eye(252, dtype=np.int64)).all()


def test_index_maps_and_face_conversions_round_trip():
    for k, keep in enumerate(dice.KEEPS):
        assert dice.keep_index(keep) == k
        assert dice.faces_of(keep) == list(as_tuple(keep))
        assert (dice.counts_of(as_tuple(keep)) == keep).all()
    for r, roll in enumerate(dice.ROLLS):
        assert dice.roll_index(roll) == r
        assert dice.roll_index(list(roll)) == r
    assert list(dice.counts_of([6, 1, 6, 3, 6])) == [1, 0, 1, 0, 0, 3]


def test_sub_keeps_are_the_sub_multisets_over_subsets_of_positions():
    keep_of = {as_tuple(k): i for i, k in enumerate(dice.KEEPS)}
    for r, roll in enumerate(dice.ROLLS):
        faces = as_tuple(roll)
        brute = {keep_of[tuple(sorted(faces[i] for i in pos))]
                 for n in range(6) for pos in itertools.combinations(range(5), n)}
        got = dice.sub_keeps(r)
        assert len(set(got.tolist())) == len(got)
        assert set(got.tolist()) == brute, faces
    # 1-2-3-4-5 allows all 2^5 subsets; a five of a kind only its six sizes.
    assert len(dice.sub_keeps(dice.roll_index([1, 1, 1, 1, 1, 0]))) == 32
    assert len(dice.sub_keeps(dice.roll_index([0, 0, 0, 0, 0, 5]))) == 6


def test_keep_children_and_parents():
    keep_of = {as_tuple(k): i for i, k in enumerate(dice.KEEPS)}
    n_small = int(dice.KEEP_START[5])
    assert dice.KEEP_CHILD.shape == (n_small, 6)
    for k in range(n_small):
        for f in range(1, 7):
            assert dice.KEEP_CHILD[k, f - 1] == keep_of[tuple(sorted(as_tuple(dice.KEEPS[k]) + (f,)))]
    assert dice.KEEP_PARENT.shape == (461, 5)
    for k in range(1, 462):
        faces = as_tuple(dice.KEEPS[k])
        distinct = sorted(set(faces))
        want = []
        for f in distinct:
            less = list(faces)
            less.remove(f)
            want.append(keep_of[tuple(less)])
        assert list(dice.KEEP_PARENT[k - 1]) == want + [-1] * (5 - len(want))


@pytest.mark.parametrize("name", ["KEEPS", "KEEP_SIZE", "KEEP_START", "ROLLS", "ROLL_WEIGHT",
                                  "ROLL_PROBABILITY", "KEEP_CHILD", "KEEP_PARENT",
                                  "KEEP_TO_ROLL_COUNT", "KEEP_TO_ROLL_DENOMINATOR"])
def test_shared_tables_are_read_only(name):
    arr = getattr(dice, name)
    with pytest.raises(ValueError):
        arr[0] = arr[0]


def test_batched_keep_indices_and_sub_keep_table():
    assert (dice.keep_indices(dice.KEEPS) == np.arange(462)).all()
    assert (dice.keep_indices(dice.ROLLS) == dice.ROLL_AS_KEEP).all()
    assert dice.SUB_KEEPS.shape == (252, 32)
    for r in range(252):
        row = dice.SUB_KEEPS[r]
        keeps = dice.sub_keeps(r)
        assert list(row[:len(keeps)]) == list(keeps) and (row[len(keeps):] == -1).all()
