"""Ryzykant (RULES.md section 4): scoring, splits, legality, the exact solver, the simulator.

Reference values: the two worked examples of the seed (ryzykant.pl.txt, "Przykład pierwszy"
and "Przykład drugi"), restated in RULES.md section 4.  Everything else is checked against
a slow, direct reading of the rules.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from dicewise.errors import DicewiseError
from dicewise.solver import dice
from dicewise.solver.ryzykant import rules as rz, approx, exact
from dicewise.solver.ryzykant.rules import Position, RyzykantRules

V = dict(zip(range(2, 13), (600, 300, 200, 150, 120, 100, 120, 150, 200, 300, 600)))


# -- scoring -------------------------------------------------------------------------------

def test_seed_example_sevens_eleven_marks():
    """Seed, first example: two closed boxes of sevens and one mark in the third: −100."""
    assert rz.box_score(11, 100) == 500 + 1000 - 4 * 400 == -100


def test_seed_example_tens_thirteen_marks():
    """Seed, second example: two closed boxes of tens, two marks missing in the third: 1400."""
    assert rz.box_score(13, 200) == 1000 + 2000 - 2 * 800 == 1400


def _slow_box_score(n, v):
    """Box by box as the seed tells it: closed boxes pay 5·v·2^i, the open one costs its gaps."""
    total, box = 0, 0
    while n >= 5:
        total += 5 * v * 2 ** box
        n -= 5
        box += 1
    if n:
        total -= (5 - n) * v * 2 ** box
    return total


@given(st.integers(0, 60), st.sampled_from(sorted(set(V.values()))))
def test_box_score_matches_the_seed_reading(n, v):
    assert rz.box_score(n, v) == _slow_box_score(n, v)


@given(st.integers(0, 8), st.integers(0, 4), st.integers(0, 20))
def test_future_change_scales_with_the_box(k, r, x):
    """f(5k + r + x) − f(5k + r) = 2^k (f(r + x) − f(r)): the fact the value model relies on."""
    f = lambda n: int(rz.box_score(n, 100))
    assert f(5 * k + r + x) - f(5 * k + r) == 2 ** k * (f(r + x) - f(r))


def test_sheet_score_sums_the_sums():
    up = np.zeros(11, np.int64)
    up[7 - 2], up[10 - 2] = 11, 13
    assert rz.score(up) == -100 + 1400


# -- splits --------------------------------------------------------------------------------

def test_splits_match_brute_force_over_ordered_dice():
    """For all 252 rolls: the distinct splits are exactly the effects of reading p p q q f."""
    for r, counts in enumerate(dice.ROLLS):
        faces = dice.faces_of(counts)
        table = {(int(rz.SPLIT_A[r, j]), int(rz.SPLIT_B[r, j]), int(rz.SPLIT_F[r, j]))
                 for j in range(rz.SPLIT_N[r])}
        assert table == rz.all_brute_force_effects(faces)
        assert len(table) == rz.SPLIT_N[r]
        for j in range(rz.SPLIT_N[r]):  # the representative dice really are the roll
            p = rz.SPLIT_PAIRS[r, j]
            assert sorted(list(p) + [int(rz.SPLIT_F[r, j])]) == faces
            assert (p[0] + p[1], p[2] + p[3]) == (rz.SPLIT_A[r, j], rz.SPLIT_B[r, j])


def test_split_counts():
    five_of_a_kind = dice.roll_index(dice.counts_of([4] * 5))
    assert rz.SPLIT_N[five_of_a_kind] == 1
    assert rz.SPLIT_N.max() == 15  # five different faces: 5 fifths × 3 pairings


# -- legality, by a direct reading of the rules ---------------------------------------------

def _slow_legal(lower, faces):
    """RULES.md 4, read literally: set of (a, b, fifth or None for a puścioch)."""
    chosen = {f for f in range(1, 7) if lower[f - 1] > 0}
    effects = rz.all_brute_force_effects(faces)
    if len(chosen) == 3 and not chosen & set(faces):
        return {(a, b, None) for a, b, _ in effects}
    if len(chosen) == 3:
        return {(a, b, f) for a, b, f in effects if f in chosen}
    return effects


@st.composite
def lowers(draw):
    """Lower tables: up to three chosen faces with 1..9 marks each."""
    faces = draw(st.lists(st.integers(0, 5), max_size=3, unique=True))
    lower = [0] * 6
    for f in faces:
        lower[f] = draw(st.integers(1, 9))
    return lower


@settings(max_examples=300, deadline=None)
@given(lowers(), st.integers(0, dice.N_ROLLS - 1))
def test_legal_splits_match_the_rules(lower, roll):
    legal, pusc = rz.legal_splits(np.array([lower]), np.array([roll]))
    got = {(int(rz.SPLIT_A[roll, j]), int(rz.SPLIT_B[roll, j]),
            None if pusc[0] else int(rz.SPLIT_F[roll, j])) for j in np.flatnonzero(legal[0])}
    assert got == _slow_legal(lower, dice.faces_of(dice.ROLLS[roll]))
    assert len(got) == legal[0].sum()  # distinct by effect: no two legal slots do the same


@settings(max_examples=200, deadline=None)
@given(lowers(), st.integers(0, dice.N_ROLLS - 1), st.data())
def test_a_move_adds_two_pair_marks_and_at_most_one_below(lower, roll, data):
    rules = RyzykantRules()
    pos = Position((0,) * 11, tuple(lower))
    moves = rz.moves(rules, pos, roll)
    move = data.draw(st.sampled_from(moves))
    nxt, ended = rz.play(rules, pos, roll, move.slot)
    assert sum(nxt.upper) == 2
    assert sum(nxt.lower) - sum(lower) == (0 if move.puscioch else 1)
    assert ended == (max(nxt.lower) >= rules.end_marks) == move.ends
    assert sum(1 for x in nxt.lower if x) <= 3


# -- the sheet notation and bad input --------------------------------------------------------

def test_sheet_notation_round_trip():
    pos = rz.parse_position(RyzykantRules(), "6=4,7=7,8=5", "2=5,5=3")
    assert pos.upper[6 - 2] == 4 and pos.upper[7 - 2] == 7 and pos.lower == (0, 5, 0, 0, 3, 0)
    assert (pos.sheet, pos.fifth) == ("6=4,7=7,8=5", "2=5,5=3")
    assert pos.rolls == 8 and pos.puscioch == 0
    assert rz.parse_position(RyzykantRules(), None, None) == Position()


@pytest.mark.parametrize("sheet, fifth, options, words", [
    ("6=4,7=7,8=3", "2=5,5=3", [], "fifth-die marks; each roll adds at most one"),
    ("6=4,7=7,8=5", "1=1,2=5,5=1,6=1", [], "at most 3"),
    ("7=20", "2=10", [], "game is over"),
    ("7=4", "2=3", ["end_marks=3"], "game is over"),
    ("7=3", "2=1", [], "must be even"),
    ("7=8", "2=2", [], "puścioch"),
    # a puścioch's pairs are of the faces not chosen: sums 8..12 here, 2..6 below
    ("7=8", "4=1,5=1,6=1", [], "sums those make \\(2, 3, 4, 5, 6\\) have 0 marks, not at least 2"),
    ("2=2,7=6", "1=1,2=1,3=1", [], "faces not chosen \\(4, 5, 6\\)"),
    ("7=6,9=2", "1=1,2=1,3=1", ["puscioch=reroll"], "reroll"),
    ("13=2", None, [], "2..12"),
    ("7", None, [], "SUM=MARKS"),
    ("7=1,7=1", None, [], "twice"),
    (None, "7=1", [], "1..6"),
    (None, "2=-1", [], "negative"),
])
def test_impossible_positions_are_refused(sheet, fifth, options, words):
    with pytest.raises(DicewiseError, match=words):
        rz.parse_position(rz.ruleset_from(options), sheet, fifth)


def test_a_puscioch_is_possible_with_three_faces():
    pos = rz.parse_position(RyzykantRules(), "7=6,9=2", "1=1,2=1,3=1")  # 4+5 and 4+5
    assert pos.puscioch == 1


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_every_position_play_reaches_passes_the_checks(seed):
    """The position checks refuse only what cannot happen: every sheet of a game played
    with random rolls and splits (puściochs included) is taken."""
    rules, rng, pos = RyzykantRules(), np.random.default_rng(seed), Position()
    for _ in range(60):
        roll = int(rng.integers(dice.N_ROLLS))
        options = rz.moves(rules, pos, roll)
        pos, ended = rz.play(rules, pos, roll, options[int(rng.integers(len(options)))].slot)
        if ended:
            break
        assert rz.parse_position(rules, pos.sheet, pos.fifth) == pos


@pytest.mark.parametrize("values", [[1, 2, 3, 4], [1, 2, 3, 4, 7], [0, 1, 2, 3, 4], [1, 2, 3, 4, 5, 6]])
def test_bad_dice_are_refused(values):
    with pytest.raises(DicewiseError):
        rz.parse_dice(values)


@pytest.mark.parametrize("options", [["end_marks=0"], ["end_marks=11"], ["end_marks=x"],
                                     ["colour=red"], ["puscioch=maybe"], ["end_marks"]])
def test_bad_options_are_refused(options):
    with pytest.raises(DicewiseError):
        rz.ruleset_from(options)


# -- the exact solver against brute-force expectimax -------------------------------------------

@functools.lru_cache(maxsize=None)
def _effects(roll):
    return sorted(rz.all_brute_force_effects(dice.faces_of(dice.ROLLS[roll])))


def _brute(rules, upper, lower, pusc_left):
    """Expectimax over Positions in plain Python, straight from RULES.md 4."""
    total = 0.0
    for roll in range(dice.N_ROLLS):
        faces = dice.faces_of(dice.ROLLS[roll])
        best = -np.inf
        for a, b, f in _slow_legal(lower, faces):
            up = list(upper)
            up[a - 2] += 1
            up[b - 2] += 1
            if f is None:  # puścioch
                if pusc_left == 0:
                    value = float(rz.score(np.array(up)))  # the exact solver's truncation
                else:
                    value = _brute(rules, tuple(up), lower, pusc_left - 1)
            else:
                lo = list(lower)
                lo[f - 1] += 1
                if lo[f - 1] >= rules.end_marks:
                    value = float(rz.score(np.array(up)))
                else:
                    value = _brute(rules, tuple(up), tuple(lo), pusc_left)
            best = max(best, value)
        total += dice.ROLL_PROBABILITY[roll] * best
    return total


def test_exact_one_roll_game_is_brute_force():
    rules = RyzykantRules(end_marks=1)
    result = exact.solve(rules, policy="greedy")
    assert result.optimum == pytest.approx(_brute(rules, (0,) * 11, (0,) * 6, 0), abs=1e-9)
    assert result.policy_value == pytest.approx(result.optimum)  # every split ends the game


@pytest.mark.slow
def test_exact_with_a_puscioch_is_brute_force():
    """end_marks=2 with three faces chosen: the next roll ends the game unless it is a puścioch."""
    rules = RyzykantRules(end_marks=2)
    start = Position((0, 0, 0, 0, 2, 2, 2, 0, 0, 0, 0), (1, 1, 1, 0, 0, 0))
    result = exact.solve(rules, start, max_puscioch=1)
    assert result.truncated
    assert result.optimum == pytest.approx(_brute(rules, start.upper, start.lower, 1), abs=1e-9)


def test_exact_policy_value_matches_simulation():
    """The greedy policy's exact value equals its simulated mean (within 4 standard errors)."""
    rules = RyzykantRules(end_marks=2, puscioch="reroll")
    start = Position((0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0), (1, 1, 0, 0, 0, 0))
    result = exact.solve(rules, start, policy="greedy")
    assert result.optimum >= result.policy_value - 1e-9
    played = approx.play_games(rules, approx.greedy_policy(rules), 20_000, seed=4,
                               start_upper=start.upper, start_lower=start.lower)
    s = played.scores
    assert abs(s.mean() - result.policy_value) < 4 * s.std() / np.sqrt(len(s))


# -- the simulator ------------------------------------------------------------------------------

@settings(max_examples=10, deadline=None)
@given(st.integers(1, 10), st.sampled_from(["score", "reroll"]), st.integers(0, 2 ** 32 - 1))
def test_finished_games_are_legal_sheets(end_marks, pusc, seed):
    rules = RyzykantRules(end_marks=end_marks, puscioch=pusc)
    rng = np.random.default_rng(seed)

    def random_policy(upper, lower, rolls, legal, p):
        return np.argmax(np.where(legal, rng.random(legal.shape), -1), axis=1)

    g = approx.play_games(rules, random_policy, 200, seed)
    assert (g.upper.sum(axis=1) == 2 * g.rolls).all()
    assert (g.lower.sum(axis=1) + g.puscioch == g.rolls).all()
    assert (g.lower.max(axis=1) == end_marks).all()
    assert ((g.lower == end_marks).sum(axis=1) == 1).all()
    assert ((g.lower > 0).sum(axis=1) <= 3).all()
    assert (g.rolls >= end_marks).all() and (g.rolls <= 3 * (end_marks - 1) + 1 + g.puscioch).all()
    if pusc == "reroll":
        assert (g.puscioch == 0).all()


def test_common_random_numbers():
    """Two policies with one seed see the same rolls, roll for roll."""
    rules = RyzykantRules(end_marks=3)
    seen = {}

    def spy(name, inner):
        def choose(upper, lower, rolls, legal, pusc):
            seen.setdefault(name, []).append(rolls.copy())
            return inner(upper, lower, rolls, legal, pusc)
        return choose

    rng = np.random.default_rng(0)
    approx.play_games(rules, spy("greedy", approx.greedy_policy(rules)), 50, seed=11)
    approx.play_games(rules, spy("random", lambda u, l, r, legal, p: np.argmax(
        np.where(legal, rng.random(legal.shape), -1), axis=1)), 50, seed=11)
    for step in range(3):  # no game of end_marks=3 ends before its third roll
        assert np.array_equal(seen["greedy"][step], seen["random"][step])


def test_value_model_policy_beats_greedy_on_a_small_game():
    rules = RyzykantRules(end_marks=2, puscioch="reroll")
    model, _ = approx.fit(rules, iterations=3, games=4000, seed=3)
    fitted = approx.play_games(rules, approx.model_policy(model, rules), 20_000, seed=9).scores
    greedy = approx.play_games(rules, approx.greedy_policy(rules), 20_000, seed=9).scores
    assert (fitted - greedy).mean() > 0


def test_bellman_residual_is_zero_where_every_split_ends():
    """With end_marks=1 every split ends the game; a model whose start value is the exact
    optimum has residual 0 there."""
    rules = RyzykantRules(end_marks=1)
    opt = exact.solve(rules).optimum
    model = approx.ValueModel.zero()
    res = approx.bellman_residual(model, rules, np.zeros((1, 11), np.int64), np.zeros((1, 6), np.int64))
    assert res[0] == pytest.approx(0.0 - opt)


# -- the value model: counters, split values and the exact expectation, against brute force ------

from fractions import Fraction

from dicewise.solver.ryzykant import bound, policy_table, search


def _random_model(seed: int = 0, lookahead: int = 0) -> approx.ValueModel:
    """A value model with random cells (every term of V non-zero)."""
    rng = np.random.default_rng(seed)
    zero = approx.ValueModel.zero(with_counters=True)
    return approx.ValueModel(rng.normal(0, 60, zero.delta.shape), rng.normal(0, 60, zero.gamma.shape),
                             lookahead)


def _position(rules, seed: int, steps: int):
    """The position after ``steps`` random splits of a game (or fewer, if it ended)."""
    rng = np.random.default_rng(seed)
    pos = Position()
    for _ in range(steps):
        roll = int(approx.draw_rolls(rng, 1)[0])
        moves = rz.moves(rules, pos, roll)
        if rules.puscioch == "reroll" and moves[0].puscioch:
            continue
        nxt, ended = rz.play(rules, pos, roll, moves[rng.integers(len(moves))].slot)
        if ended:
            break
        pos = nxt
    return pos


def _slow_value(model, pos):
    return float(model.value(np.array([pos.upper]), np.array([pos.lower]))[0])


def _slow_worth(rules, model, pos, roll, slot, depth, worths=None):
    """A split's worth straight from the rules: final score, V after it, or the expectation
    (``worths``: those of the positions already met, by position)."""
    nxt, ended = rz.play(rules, pos, roll, slot)
    if ended:
        return float(nxt.score)
    if depth == 0:
        return _slow_value(model, nxt)
    if worths is not None and nxt in worths:
        return worths[nxt]
    worth = float(approx.expected_after(model, rules, np.array([nxt.upper]),
                                        np.array([nxt.lower]), depth)[0])
    if worths is not None:
        worths[nxt] = worth
    return worth


def _slow_expected(rules, model, pos, depth):
    """E over the 252 rolls of the best split's worth at ``depth`` − 1 (rerolled puściochs
    are thrown again: the other rolls' probabilities renormalised)."""
    total = norm = 0.0
    worths = {}  # many splits of many rolls lead to one position: its expectation once
    for roll in range(dice.N_ROLLS):
        moves = rz.moves(rules, pos, roll)
        if rules.puscioch == "reroll" and moves[0].puscioch:
            continue
        p = dice.ROLL_PROBABILITY[roll]
        total += p * max(_slow_worth(rules, model, pos, roll, m.slot, depth - 1, worths)
                         for m in moves)
        norm += p
    return total / norm


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(0, 30))
def test_counters_count_missing_marks_and_open_boxes(seed, extra):
    up = np.random.default_rng(seed).integers(0, 12, size=(1, 11)) + extra
    missing = sum((5 - n % 5) % 5 for n in up[0])
    opened = sum(n % 5 > 0 for n in up[0])
    assert approx.counters(up)[0].tolist() == [min(missing, 30), min(opened, 11)]


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.integers(2, 10), st.sampled_from(["score", "reroll"]), st.integers(0, 10 ** 6),
       st.integers(0, 25))
def test_expected_after_is_the_expectation_over_the_rolls(end_marks, pusc, seed, steps):
    rules = RyzykantRules(end_marks=end_marks, puscioch=pusc)
    pos = _position(rules, seed, steps)
    model = _random_model(seed % 7)
    got = approx.expected_after(model, rules, np.array([pos.upper]), np.array([pos.lower]))[0]
    assert got == pytest.approx(_slow_expected(rules, model, pos, 1), rel=1e-12, abs=1e-9)
    # ... and the split values the policies rank are the worths the rules give.
    roll = seed % dice.N_ROLLS
    legal, pusc_ = rz.legal_splits(np.array([pos.lower]), np.array([roll]))
    for look in (0, 1):
        vals = approx.move_values(model.with_lookahead(look), rules, np.array([pos.upper]),
                                  np.array([pos.lower]), np.array([roll]), legal, pusc_)[0]
        for m in rz.moves(rules, pos, roll):
            assert vals[m.slot] == pytest.approx(_slow_worth(rules, model, pos, roll, m.slot, look),
                                                 rel=1e-12, abs=1e-9)
        assert np.isneginf(vals[~legal[0]]).all()


def test_expected_after_two_rolls_deep_is_the_expectation_of_one_roll_deep():
    rules = RyzykantRules(end_marks=3)
    model = _random_model(3)
    for seed, steps in ((1, 2), (2, 4)):
        pos = _position(rules, seed, steps)
        got = approx.expected_after(model, rules, np.array([pos.upper]), np.array([pos.lower]), 2)[0]
        assert got == pytest.approx(_slow_expected(rules, model, pos, 2), rel=1e-12)


def test_value_model_arrays_round_trip_and_bad_arrays_are_refused():
    model = _random_model(1, lookahead=1)
    back = approx.ValueModel.from_arrays(model.arrays())
    assert np.array_equal(back.delta, model.delta) and np.array_equal(back.gamma, model.gamma)
    assert back.lookahead == 1
    older = approx.ValueModel.from_arrays({"delta": model.delta})   # tables of the previous fit
    assert older.gamma is None and older.lookahead == 0
    from dicewise.errors import TableError
    for bad in ({}, {"delta": np.zeros(3)}, {"delta": model.delta, "gamma": np.zeros(3)},
                {**model.arrays(), "lookahead": np.array([5])}):
        with pytest.raises(TableError, match="rebuild"):
            policy_table.from_arrays(bad)


# -- exact values of the lookahead policies, and the exact optimum of reduced games -------------

@pytest.mark.slow
def test_exact_value_of_lookahead_policies_matches_simulation():
    """Each policy's exact value equals its simulated mean (4 standard errors), and no policy
    beats the optimum."""
    rules = RyzykantRules(end_marks=2, puscioch="reroll")
    start = Position((0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0), (1, 1, 0, 0, 0, 0))
    model = _random_model(5)
    pols = {d: model.with_lookahead(d) for d in (0, 1, 2)}
    res = exact.solve(rules, start, policies=pols)
    for d, m in pols.items():
        assert res.policy_values[d] <= res.optimum + 1e-9
        games = 600 if d == 2 else 4000          # two rolls deep is slow to simulate
        played = approx.play_games(rules, approx.model_policy(m, rules), games, seed=8,
                                   start_upper=start.upper, start_lower=start.lower)
        s = played.scores
        assert abs(s.mean() - res.policy_values[d]) < 4 * s.std() / np.sqrt(len(s))


def test_one_roll_optimum_is_the_exact_fraction():
    """The issue's reference: with end_marks=1 the optimum is −576815/972 = −593.4311."""
    assert exact.one_roll_optimum() == Fraction(-576815, 972)
    opt = exact.optimum(RyzykantRules(end_marks=1), policies={"greedy": "greedy"})
    assert opt.exact and opt.fraction == Fraction(-576815, 972)
    assert opt.value == opt.lower == opt.upper == pytest.approx(-593.4310699588477)
    assert opt.gap("greedy") == pytest.approx(0.0, abs=1e-9)   # every split ends the game
    assert opt.as_dict()["fraction"] == "-576815/972"


def test_variants_too_large_for_the_exact_optimum_are_refused():
    with pytest.raises(DicewiseError, match="too large"):
        exact.optimum(RyzykantRules(end_marks=3))


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 10), st.integers(0, 10 ** 6), st.integers(0, 30))
# Open boxes late in a long game: a mark that closes a box gains 6·v·2^k, which a bound
# adding at most v·2^k per mark missed (found by this test).
@example(end_marks=9, seed=310434, steps=25)
def test_truncation_bounds_bracket_every_game(end_marks, seed, steps):
    """No game from a position ends below its lower bound; the mean of any policy's games
    stays below the upper bound."""
    rules = RyzykantRules(end_marks=end_marks)
    pos = _position(rules, seed, steps)
    lo, hi = exact.truncation_bounds(rules, [pos.upper], [pos.lower])
    assert lo[0] <= pos.score <= hi[0]
    rng = np.random.default_rng(seed)
    for policy in (approx.greedy_policy(rules),
                   lambda u, l, r, legal, p: np.argmax(np.where(legal, rng.random(legal.shape), -1), 1)):
        g = approx.play_games(rules, policy, 300, seed, start_upper=pos.upper, start_lower=pos.lower)
        assert g.scores.min() >= lo[0] and g.scores.mean() <= hi[0]


@pytest.mark.slow
def test_truncated_optimum_is_bracketed_and_the_bracket_narrows():
    """end_marks=2 with three faces chosen: the next roll ends the game unless it is a
    puścioch; following one more puścioch narrows the proven bracket about 32-fold."""
    rules = RyzykantRules(end_marks=2)
    start = Position((0, 0, 0, 0, 2, 2, 2, 0, 0, 0, 0), (1, 1, 1, 0, 0, 0))
    zero = exact.solve(rules, start, max_puscioch=0)
    one = exact.solve(rules, start, max_puscioch=1)
    assert zero.truncated and one.truncated
    for r in (zero, one):
        assert r.lower <= r.optimum <= r.upper
    assert max(zero.lower, one.lower) <= min(zero.upper, one.upper)   # both hold the optimum
    assert one.upper - one.lower < (zero.upper - zero.lower) / 10
    assert one.optimum == pytest.approx(_brute(rules, start.upper, start.lower, 1), abs=1e-9)


# -- the information-relaxation bound -----------------------------------------------------------

def _slow_inner(rules, model, pos, stream, t=0):
    """max over every sequence of splits along ``stream`` of final − Σ penalties (plain Python)."""
    roll = int(stream[t])
    moves = rz.moves(rules, pos, roll)
    if rules.puscioch == "reroll" and moves[0].puscioch:
        return _slow_inner(rules, model, pos, stream, t + 1)
    worth = [_slow_worth(rules, model, pos, roll, m.slot, 0) for m in moves]
    ahead = float(approx.expected_after(model, rules, np.array([pos.upper]), np.array([pos.lower]))[0])
    best = -np.inf
    for m in moves:
        nxt, ended = rz.play(rules, pos, roll, m.slot)
        best = max(best, float(nxt.score) if ended else _slow_inner(rules, model, nxt, stream, t + 1))
    return best - (max(worth) - ahead)


@pytest.mark.parametrize("pusc", ["score", "reroll"])
def test_stream_bound_is_the_best_penalised_path(pusc):
    rules = RyzykantRules(end_marks=2, puscioch=pusc)
    start = Position((0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0))
    model = _random_model(2)
    for seed in range(3):
        stream = approx.draw_rolls(np.random.default_rng([seed, 4]), 40)
        got = bound.stream_bound(model, rules, stream, start=start)
        assert got.bound == pytest.approx(_slow_inner(rules, model, start, stream), rel=1e-12)
        assert got.bound >= got.policy - 1e-9    # the policy's path is one of the paths


def test_bound_of_the_one_roll_game_is_its_optimum_on_every_stream():
    """With one roll the penalty leaves exactly E max (the optimum) on every stream."""
    rules = RyzykantRules(end_marks=1)
    res = bound.information_bound(approx.ValueModel.zero(), rules, streams=5, seed=1)
    assert res.bound == pytest.approx(float(Fraction(-576815, 972)))
    assert res.bound_ci95[1] - res.bound_ci95[0] == pytest.approx(0.0, abs=1e-9)


def test_the_inner_problem_of_the_full_game_is_too_large():
    rules = RyzykantRules()
    stream = approx.draw_rolls(np.random.default_rng(0), 200)
    with pytest.raises(bound.TooLarge, match="positions after"):
        bound.stream_bound(approx.ValueModel.zero(), rules, stream, max_states=20_000)


# -- search and the table's policies ------------------------------------------------------------

def test_search_values_every_split_two_rolls_deep():
    rules = RyzykantRules(end_marks=3)
    model = _random_model(4, lookahead=1)
    pos = _position(rules, 3, 2)
    roll = 77
    found = search.search(model, rules, pos, roll, seconds=60)
    assert found.complete and found.depth == 2
    for slot, q1, q2 in zip(found.slots, found.table, found.searched):
        assert q1 == pytest.approx(_slow_worth(rules, model, pos, roll, slot, 1), rel=1e-12)
        assert q2 == pytest.approx(_slow_worth(rules, model, pos, roll, slot, 2), rel=1e-12)
    # The search policy deepening every split plays the best of these.
    legal, pusc = rz.legal_splits(np.array([pos.lower]), np.array([roll]))
    choice = search.search_policy(model, rules, top=15)(np.array([pos.upper]), np.array([pos.lower]),
                                                        np.array([roll]), legal, pusc)[0]
    assert choice == found.best_slot()


def test_search_advice_ranks_searched_splits_with_the_table_value_beside():
    rules = RyzykantRules(end_marks=3)
    table = policy_table.PolicyTable(_random_model(6, lookahead=1), {"error_estimate": 1.0})
    pos = Position((0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0))
    plain = {(a.sums, a.fifth): a.expected for a in policy_table.advise(rules, table, pos, [1, 3, 4, 4, 6])}
    ranked = policy_table.search_advise(rules, table, pos, [1, 3, 4, 4, 6], seconds=60)
    assert {(a.sums, a.fifth) for a in ranked} == set(plain)
    assert all(a.depth == 2 for a in ranked) and ranked[0].loss == 0
    assert all(x.expected >= y.expected for x, y in zip(ranked, ranked[1:]))
    for a in ranked:
        assert a.table_expected == pytest.approx(plain[(a.sums, a.fifth)])
        assert a.as_dict()["depth"] == 2


def test_policy_names_and_aliases():
    rules = RyzykantRules(end_marks=3)
    table = policy_table.PolicyTable(_random_model(7, lookahead=1), {})
    pos = _position(rules, 9, 3)
    up, lo = np.array([pos.upper]), np.array([pos.lower])
    legal, pusc = rz.legal_splits(lo, np.array([5]))
    picks = {name: policy_table.make_policy(name, rules, table)(up, lo, np.array([5]), legal, pusc)[0]
             for name in policy_table.POLICIES}
    assert picks["solved"] == picks["optimal"]
    with pytest.raises(DicewiseError, match="unknown policy"):
        policy_table.make_policy("clever", rules, table)


def test_tiny_build_measures_the_lookahead_policy():
    rules = RyzykantRules(end_marks=2)
    table = policy_table.build(rules, rounds=2, games=600, eval_games=300)
    m = table.meta
    assert table.model.lookahead == policy_table.LOOKAHEAD and table.model.gamma is not None
    assert m["refine_rounds"] == policy_table.refine_schedule(2, 600)[0]
    assert m["ci95"][0] <= m["expected_score"] <= m["ci95"][1]
    assert m["error_estimate"] >= m["bellman_residual_rms"] >= 0
    again = policy_table.from_arrays(table.arrays(), m)
    assert np.array_equal(again.model.gamma, table.model.gamma) and again.model.lookahead == 1
