"""Every category of every ruleset, scored over all 252 rolls and roll numbers 1..3.

Each expected score comes from a straightforward reading of RULES.md written below on
sorted dice tuples (``collections.Counter``, sets), independent of ``solver/scoring.py``.
Every option value of every ruleset is covered.  Proves ``base_points[c, k - 1, r]``
equals the rules, and that ``possible_scores`` admits every score the dice can make.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from dicewise.solver import dice
from dicewise.solver.options import option_fields
from dicewise.solver.rulesets import CATEGORY_GAMES, category_game

ALL_ROLLS = list(itertools.combinations_with_replacement(range(1, 7), 5))
UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


def kinds(d):
    """Counter of faces."""
    return Counter(d)


def best_with(d, n):
    """Highest face shown on at least n dice, or 0."""
    return max([f for f, c in kinds(d).items() if c >= n], default=0)


def is_full(d):
    return sorted(kinds(d).values()) == [2, 3]


def two_distinct_pairs(d):
    faces = sorted((f for f, c in kinds(d).items() if c >= 2), reverse=True)
    return 2 * faces[0] + 2 * faces[1] if len(faces) >= 2 else 0


# -- RULES.md section 1: general -------------------------------------------------------
def general_straight(d, straight):
    if straight == "plain":
        return d in ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))
    if straight == "circular":
        return len(set(d)) == 5
    # joker: each 1 may be read as 1, 2 or 6.
    readings = itertools.product(*[(1, 2, 6) if f == 1 else (f,) for f in d])
    return any(tuple(sorted(x)) in ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6)) for x in readings)


def general_reference(opts):
    def first(a, b):
        return lambda d, k: (a if k == 1 else b)
    cats = {name: (lambda f: lambda d, k: f * d.count(f))(f) for f, name in enumerate(UPPER, 1)}
    cats["straight"] = lambda d, k: (25 if k == 1 else 20) * general_straight(d, opts["straight"])
    cats["full_house"] = lambda d, k: (35 if k == 1 else 30) * is_full(d)
    cats["four"] = lambda d, k: (45 if k == 1 else 40) * (max(kinds(d).values()) >= 4)
    # General: 60 on rolls 2-3; on roll 1 a big general ends the game (option ends) or scores
    # like a small general (option sixty).  With ``ends`` roll 1 never writes it: skip.
    cats["general"] = lambda d, k: (None if k == 1 and opts["big_general"] == "ends"
                                    else 60 * (len(set(d)) == 1))
    return cats


# -- RULES.md section 2: poker-programs ------------------------------------------------
def poker_reference(opts):
    def free(points):
        return lambda d, k: points(d) * (2 if k == 1 else 1)
    cats = {name: (lambda f: lambda d, k: (d.count(f) - 3) * f)(f) for f, name in enumerate(UPPER, 1)}
    cats["pair"] = free(lambda d: 2 * best_with(d, 2))
    cats["two_pairs"] = free(two_distinct_pairs)
    cats["three"] = free(lambda d: 3 * best_with(d, 3))
    cats["small_straight"] = free(lambda d: 15 * (d == (1, 2, 3, 4, 5)))
    cats["big_straight"] = free(lambda d: 20 * (d == (2, 3, 4, 5, 6)))
    cats["full"] = free(lambda d: sum(d) * is_full(d))
    cats["four"] = free(lambda d: 4 * best_with(d, 4))
    cats["poker"] = lambda d, k: free(lambda d: 5 * best_with(d, 5))(d, k) + 50 * (len(set(d)) == 1)
    cats["chance"] = lambda d, k: sum(d)
    return cats


# -- Reference rulesets: yatzy and yahtzee ----------------------------------------------
def upper_sum_cats():
    return {name: (lambda f: lambda d, k: f * d.count(f))(f) for f, name in enumerate(UPPER, 1)}


def yatzy_reference(opts):
    cats = upper_sum_cats()
    cats["one_pair"] = lambda d, k: 2 * best_with(d, 2)
    if opts["two_pairs"] == "distinct":
        cats["two_pairs"] = lambda d, k: two_distinct_pairs(d)
    else:  # the misreading: a single pair also scores (its best pair) in Two Pairs
        cats["two_pairs"] = lambda d, k: max(two_distinct_pairs(d), 2 * best_with(d, 2))
    cats["three_of_a_kind"] = lambda d, k: 3 * best_with(d, 3)
    cats["four_of_a_kind"] = lambda d, k: 4 * best_with(d, 4)
    cats["small_straight"] = lambda d, k: 15 * (d == (1, 2, 3, 4, 5))
    cats["large_straight"] = lambda d, k: 20 * (d == (2, 3, 4, 5, 6))
    cats["full_house"] = lambda d, k: sum(d) * is_full(d)
    cats["chance"] = lambda d, k: sum(d)
    cats["yatzy"] = lambda d, k: 50 * (len(set(d)) == 1)
    return cats


def yahtzee_reference(opts):
    cats = upper_sum_cats()
    cats["three_of_a_kind"] = lambda d, k: sum(d) * (max(kinds(d).values()) >= 3)
    cats["four_of_a_kind"] = lambda d, k: sum(d) * (max(kinds(d).values()) >= 4)
    cats["full_house"] = lambda d, k: 25 * is_full(d)
    runs = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
    cats["small_straight"] = lambda d, k: 30 * any(r <= set(d) for r in runs)
    cats["large_straight"] = lambda d, k: 40 * (set(d) in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}))
    cats["yahtzee"] = lambda d, k: 50 * (len(set(d)) == 1)
    cats["chance"] = lambda d, k: sum(d)
    return cats


REFERENCES = {"general": general_reference, "poker-programs": poker_reference,
              "yatzy": yatzy_reference, "yahtzee": yahtzee_reference}


def all_option_sets(cls):
    fields = option_fields(cls)
    for values in itertools.product(*[f.metadata["choices"] for f in fields]):
        yield {f.name: v for f, v in zip(fields, values)}


CASES = [(name, opts) for name, cls in CATEGORY_GAMES.items() for opts in all_option_sets(cls)]


def test_every_category_game_has_a_reference_here():
    assert set(CATEGORY_GAMES) == set(REFERENCES)


@pytest.mark.parametrize("name, opts", CASES, ids=[f"{n}-{'-'.join(map(str, o.values()))}"
                                                   for n, o in CASES])
def test_base_points_match_the_rules(name, opts):
    game = category_game(name, **opts)
    ref = REFERENCES[name](opts)
    assert game.category_names == tuple(ref), "categories and their order as in RULES.md"
    table = game.base_points
    assert table.shape == (len(ref), 3, 252)
    for c, (cat, points) in enumerate(ref.items()):
        for k in (1, 2, 3):
            for d in ALL_ROLLS:
                want = points(d, k)
                if want is None:
                    continue
                r = dice.roll_index(dice.counts_of(d))
                assert table[c, k - 1, r] == want, f"{name} {opts} {cat} roll {k} dice {d}"


@pytest.mark.parametrize("name, opts", CASES)
def test_possible_scores_are_the_scores_the_dice_make(name, opts):
    """A sheet may hold every score the dice make in a box and no other (Yahtzee's full house
    once took 30 and 40 too, a joker's values of the straights); a scratch, 0, where the
    dice do not qualify, but in Yatzy in any category (RULES.md): a Chance of 0 only there."""
    game = category_game(name, **opts)
    for c in range(game.n_categories):
        made = set(np.unique(game.base_points[c]).tolist()) | ({0} if name == "yatzy" else set())
        assert game.possible_scores(c) == made, game.category_names[c]


def test_general_joker_straights_are_the_four_of_rules_md():
    found = {d for d in ALL_ROLLS if general_straight(d, "joker")}
    assert found == {(1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (1, 3, 4, 5, 6), (1, 1, 3, 4, 5)}
    assert sum(general_straight(d, "circular") for d in ALL_ROLLS) == 6


# Hand-picked lines of RULES.md, each checked directly on the ruleset's table.
def points(name, cat, faces, k, **opts):
    game = category_game(name, **opts)
    return int(game.base_points[game.category_names.index(cat), k - 1,
                                dice.roll_index(dice.counts_of(faces))])


@pytest.mark.parametrize("faces, k, want", [
    ((1, 3, 4, 5, 6), 1, 25), ((1, 1, 3, 4, 5), 2, 20), ((1, 2, 3, 4, 6), 1, 0),
    ((2, 3, 4, 5, 6), 3, 20), ((1, 1, 4, 5, 6), 1, 0)])
def test_general_straight_examples(faces, k, want):
    assert points("general", "straight", faces, k) == want


def test_general_fixed_values_by_roll():
    assert points("general", "full_house", (2, 2, 5, 5, 5), 1) == 35
    assert points("general", "full_house", (2, 2, 5, 5, 5), 3) == 30
    assert points("general", "full_house", (5, 5, 5, 5, 5), 2) == 0  # five of a kind is not one
    assert points("general", "four", (3, 3, 3, 3, 3), 2) == 40
    assert points("general", "four", (3, 3, 3, 3, 6), 1) == 45
    assert points("general", "general", (4, 4, 4, 4, 4), 2) == 60
    assert points("general", "general", (4, 4, 4, 4, 4), 1, big_general="sixty") == 60
    assert points("general", "straight", (1, 3, 4, 5, 6), 1, straight="plain") == 0
    assert points("general", "straight", (1, 2, 4, 5, 6), 2, straight="circular") == 20


def test_general_big_general_ends_the_game_only_on_five_of_a_kind():
    ends = category_game("general").first_roll_end()
    assert ends.shape == (252,)
    for d in ALL_ROLLS:
        r = dice.roll_index(dice.counts_of(d))
        assert (not np.isnan(ends[r])) == (len(set(d)) == 1)
        if len(set(d)) == 1:
            assert ends[r] == 0.0  # the big-general roll itself writes nothing
    assert category_game("general", big_general="sixty").first_roll_end() is None


def test_poker_programs_seed_examples():
    assert points("poker-programs", "poker", (6, 6, 6, 6, 6), 1) == 110  # 30 × 2 + 50
    assert points("poker-programs", "poker", (6, 6, 6, 6, 6), 2) == 80
    assert points("poker-programs", "chance", (6, 6, 6, 6, 6), 1) == 30  # never doubled
    assert points("poker-programs", "threes", (3, 3, 3, 1, 2), 1) == 0
    assert points("poker-programs", "fours", (1, 2, 3, 5, 6), 2) == -12
    assert points("poker-programs", "fives", (5, 5, 5, 5, 5), 3) == 10
    assert points("poker-programs", "two_pairs", (2, 2, 6, 6, 6), 2) == 16  # full house holds two pairs
    assert points("poker-programs", "two_pairs", (2, 6, 6, 6, 6), 2) == 0  # four of a kind does not
    assert points("poker-programs", "two_pairs", (2, 2, 6, 6, 3), 1) == 32
    assert points("poker-programs", "pair", (2, 2, 6, 6, 3), 2) == 12
    assert points("poker-programs", "three", (4, 4, 4, 4, 4), 2) == 12
    assert points("poker-programs", "full", (4, 4, 4, 1, 1), 1) == 28


def test_yatzy_two_pairs_readings():
    assert points("yatzy", "two_pairs", (3, 3, 5, 5, 1), 1) == 16
    assert points("yatzy", "two_pairs", (3, 3, 1, 2, 5), 1) == 0
    assert points("yatzy", "two_pairs", (3, 3, 1, 2, 5), 1, two_pairs="single_pair_counts") == 6
    assert points("yatzy", "two_pairs", (3, 3, 3, 3, 5), 1) == 0
    assert points("yatzy", "four_of_a_kind", (2, 2, 2, 2, 2), 1) == 8
    assert points("yatzy", "full_house", (2, 2, 2, 2, 2), 1) == 0


def test_yahtzee_examples():
    assert points("yahtzee", "small_straight", (1, 2, 3, 4, 6), 1) == 30
    assert points("yahtzee", "small_straight", (1, 2, 3, 5, 6), 1) == 0
    assert points("yahtzee", "large_straight", (1, 2, 3, 4, 5), 3) == 40
    assert points("yahtzee", "three_of_a_kind", (6, 6, 6, 2, 1), 2) == 21
    assert points("yahtzee", "full_house", (6, 6, 6, 6, 6), 1) == 0  # only as a joker
    assert points("yahtzee", "yahtzee", (6, 6, 6, 6, 6), 1) == 50
