"""The advisor (``solver/advice.py``), by properties over random reachable sheets and dice.

Sheets are built the way a game builds them: from the empty sheet, random legal writes
chosen among the advisor's own write options, each then written on the sheet as a player
would ("category=score", plus Yahtzee's bonus count).  Proves, for every such position:
a reachable sheet is accepted, and the write's expected value equals the points and the
table value of the sheet it leads to; at roll 1 the probability-weighted average over all
252 rolls of the best option is the table's turn-start value; a keep's expected value is
the average over its rerolls of the best option one roll later; every option is at most
the best, losses are non-negative and the best loses nothing; the keeps offered are exactly
the distinct sub-multisets of the dice at rolls 1 and 2, and there are none at roll 3.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import dicewise
from dicewise.errors import DicewiseError
from dicewise.solver import dice
from dicewise.solver.advice import advise_position, ranked_choices
from dicewise.solver.category import StateValues
from dicewise.solver.rulesets import category_game
from dicewise.solver.sheet import parse_sheet

FAST = ["general", "poker-programs"]
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                       HealthCheck.function_scoped_fixture])
#: For the expensive properties (hundreds of advisor calls per example): no shrinking, which
#: would take minutes; the failing example is still printed.
NO_SHRINK = dict(SETTINGS, phases=[Phase.explicit, Phase.reuse, Phase.generate])

five_dice = st.one_of(st.integers(1, 6).map(lambda f: (f,) * 5),
                      st.lists(st.integers(1, 6), min_size=5, max_size=5).map(tuple))


def spec_of(entries, bonus):
    items = [f"{c}={s}" for c, s in entries]
    if bonus:
        items.append(f"yahtzee_bonus={bonus}")
    return ",".join(items)


def build_sheet(data, game, values, n_filled):
    """Play n_filled random legal writes from the empty sheet; returns the parsed sheet."""
    entries, bonus = [], 0
    sheet = parse_sheet(game, "")
    for _ in range(n_filled):
        faces = data.draw(five_dice)
        roll = data.draw(st.integers(1, 3))
        advice = advise_position(game, values, sheet, faces, roll)
        if advice.ended:  # a big general: in this sheet's game that turn wrote nothing
            continue
        writes = [c for c in advice.choices if "write" in c.action]
        assert writes, "an open box is always writable"
        choice = writes[data.draw(st.integers(0, len(writes) - 1))]
        entries.append((choice.action["write"], choice.detail["score"]))
        if (game.name == "yahtzee" and len(set(faces)) == 1 and ("yahtzee", 50) in entries[:-1]
                and game.options["joker"] != "off"):
            bonus += 1  # an extra Yahtzee with 50 in the Yahtzee box (RULES.md)
        sheet = parse_sheet(game, spec_of(entries, bonus))  # a reached sheet is accepted
        assert sheet.points + float(values.values[sheet.state(game)]) == pytest.approx(
            choice.expected, abs=1e-9)
    return sheet


def check_position(game, values, sheet, faces, roll):
    advice = advise_position(game, values, sheet, faces, roll)
    assert advice.turn_start_expected == pytest.approx(sheet.points + values.values[sheet.state(game)])
    if advice.ended:
        assert roll == 1 and len(set(faces)) == 1 and advice.choices == ()
        return advice
    best = advice.best
    assert best is advice.choices[0] and best.loss <= 1e-9  # exactly 0: see the test below
    exp = [c.expected for c in advice.choices]
    assert all(e <= best.expected + 1e-9 for e in exp)
    assert all(a >= b - 1e-9 for a, b in zip(exp, exp[1:])), "ranked best first"
    for c in advice.choices:
        assert c.loss >= 0 and c.loss == pytest.approx(best.expected - c.expected, abs=1e-9)
    keeps = [tuple(c.action["keep"]) for c in advice.choices if "keep" in c.action]
    if roll == 3:
        assert keeps == []
    else:
        subs = {tuple(sorted(faces[i] for i in pos)) for n in range(6)
                for pos in itertools.combinations(range(5), n)}
        assert len(keeps) == len(set(keeps)) and set(keeps) == subs
    if roll == 2:  # keeping all five before the last roll is writing them then: worth the
        # best write, and ranked after it however the two sums round
        order = [c.action.get("keep") for c in advice.choices]
        first_write = order.index(None)
        all_five = order.index(sorted(faces))
        assert first_write < all_five
        assert advice.choices[all_five].expected == pytest.approx(
            advice.choices[first_write].expected, rel=1e-12)
    open_boxes = [n for i, n in enumerate(game.category_names) if not sheet.mask >> i & 1]
    written = [c.action["write"] for c in advice.choices if "write" in c.action]
    assert len(written) == len(set(written)) and set(written) <= set(open_boxes)
    if game.name in ("general", "yatzy"):  # no placement rules: every open box is offered
        assert set(written) == set(open_boxes)
    return advice


@pytest.mark.parametrize("name", FAST)
@settings(max_examples=25, **SETTINGS)
@given(data=st.data())
def test_every_position_is_consistent(solved, name, data):
    game, values = solved(name)
    sheet = build_sheet(data, game, values, data.draw(st.integers(0, game.n_categories - 1)))
    check_position(game, values, sheet, data.draw(five_dice), data.draw(st.integers(1, 3)))


@pytest.mark.parametrize("name", ["general", pytest.param("poker-programs",
                                                      marks=pytest.mark.slow)])
@settings(max_examples=2, **NO_SHRINK)
@given(data=st.data())
def test_roll_one_average_is_the_turn_start_value(solved, name, data):
    game, values = solved(name)
    sheet = build_sheet(data, game, values, data.draw(st.integers(0, game.n_categories - 1)))
    total = 0.0
    for r, roll in enumerate(dice.ROLLS):
        advice = check_position(game, values, sheet, dice.faces_of(roll), 1)
        total += dice.ROLL_PROBABILITY[r] * (advice.best.expected if advice.best else sheet.points)
    assert total == pytest.approx(advice.turn_start_expected, abs=1e-9)


@pytest.mark.parametrize("name", FAST)
@settings(max_examples=6, **NO_SHRINK)
@given(data=st.data())
def test_a_keep_is_worth_the_average_of_the_next_roll(solved, name, data):
    game, values = solved(name)
    sheet = build_sheet(data, game, values, data.draw(st.integers(0, game.n_categories - 1)))
    roll = data.draw(st.integers(1, 2))
    advice = advise_position(game, values, sheet, data.draw(five_dice), roll)
    if advice.ended:
        return
    keeps = [c for c in advice.choices if "keep" in c.action and len(c.action["keep"]) >= 2]
    keep = keeps[data.draw(st.integers(0, len(keeps) - 1))]
    kept = tuple(keep.action["keep"])
    free = 5 - len(kept)
    average = np.mean([advise_position(game, values, sheet, kept + t, roll + 1).best.expected
                       for t in itertools.product(range(1, 7), repeat=free)])
    assert average == pytest.approx(keep.expected, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("joker", ["free", "forced"])
@settings(max_examples=15, **NO_SHRINK)
@given(data=st.data())
def test_yahtzee_positions_are_consistent(solved, joker, data):
    game, values = solved("yahtzee", joker=joker)
    sheet = build_sheet(data, game, values, data.draw(st.integers(0, 12)))
    check_position(game, values, sheet, data.draw(five_dice), data.draw(st.integers(1, 3)))


def test_the_best_option_loses_exactly_nothing():
    """Two writes 1e-12 apart: the one listed first (the best) must have loss exactly 0.

    A table is made up so that, after 1-1-2-2-3 on roll 3 of the empty general sheet,
    Ones (2 points, then a state worth 12) and Twos (4 points, then 10 + 1e-12) nearly tie.
    Such near-ties arise in real tables from rounding, position-dependent.
    """
    game = category_game("general")
    values = np.zeros(game.n_states)
    values[0b01], values[0b10] = 12.0, 10.0 + 1e-12
    table = StateValues(values, np.ones(game.n_states, bool), 0)
    advice = advise_position(game, table, parse_sheet(game, ""), [1, 1, 2, 2, 3], 3)
    assert {c.action["write"] for c in advice.choices[:2]} == {"ones", "twos"}
    assert advice.best.loss == 0.0


def test_keeping_all_five_ties_with_the_write_it_leads_to():
    """Before the last roll, keeping all five is writing them a roll later: the same value,
    summed in another order (here the keep's sum came out 2.8e-14 larger).  The write comes
    first, and neither loses anything."""
    advice = dicewise.advise("general", dice=[4, 4, 4, 4, 4], roll=2,
                             sheet="sixes=18,twos=6,fives=5,ones=4,fours=4,threes=3,straight=0")
    first, second = advice.choices[:2]
    assert first.label == "write general for 60" and first.loss == 0.0
    assert second.action == {"keep": [4, 4, 4, 4, 4]} and second.loss == 0.0


def test_choices_of_one_chance_go_by_expected_score():
    """Ranked by a chance (a target, a race), choices equal in chance but for rounding come
    by their expected score, highest first; a tiny chance still beats none at all, and the
    best loses nothing even where a tied chance below it is larger by a rounding."""
    writes = [("ones", 2, 0.5, 120.0), ("twos", 4, 0.5 + 1e-16, 130.0), ("fives", 5, 0.3, 150.0),
              ("four", 0, 1e-20, 100.0), ("general", 0, 0.0, 140.0), ("sixes", 6, 0.0, 145.0)]
    keeps = [((6, 6), 0.5 - 1e-16, 135.0)]
    ranked = ranked_choices(writes, keeps, 2, chances=True)
    assert [c.label.split(" ")[1] for c in ranked] == \
        ["6", "twos", "ones", "fives", "four", "sixes", "general"]
    assert ranked[0].loss == 0.0 and all(c.loss >= 0 for c in ranked)
    assert ranked[3].loss == pytest.approx(0.2) and ranked[5].probability == 0.0
    # ranked by the expected score itself, exact ties keep the fixed order (writes by box)
    plain = ranked_choices([("ones", 2, 10.0, 10.0), ("fives", 5, 12.0, 12.0),
                            ("fours", 4, 10.0, 10.0)], [], 0)
    assert [c.action["write"] for c in plain] == ["fives", "fours", "ones"]


def test_python_api_returns_a_frozen_result():
    advice = dicewise.advise("general", dice=[2, 2, 4, 6, 6], roll=1, sheet="ones=3,straight=25")
    with pytest.raises(dataclasses.FrozenInstanceError):
        advice.ruleset = "yahtzee"
    with pytest.raises(dataclasses.FrozenInstanceError):
        advice.best.expected = 0.0
    assert advice.position["dice"] == [2, 2, 4, 6, 6] and advice.position["roll"] == 1
    assert advice.best.loss == 0


@pytest.mark.parametrize("faces, roll, message", [
    ([1, 2, 3, 4], 1, "five dice"), ([1, 2, 3, 4, 5, 6], 1, "five dice"),
    ([1, 2, 3, 4, 7], 1, "7"), ([0, 2, 3, 4, 5], 2, "0"), ([1, 2, 3, 4, 5], 4, "4"),
    ([1, 2, 3, 4, 5], 0, "roll")])
def test_bad_positions_are_refused(solved, faces, roll, message):
    game, values = solved("general")
    with pytest.raises(DicewiseError, match=message):
        advise_position(game, values, parse_sheet(game, ""), faces, roll)


def test_full_sheet_has_no_advice(solved):
    game, values = solved("general")
    full = parse_sheet(game, ",".join(f"{n}=0" for n in game.category_names))
    with pytest.raises(DicewiseError, match="full"):
        advise_position(game, values, full, [1, 2, 3, 4, 5], 1)


@settings(max_examples=12, **NO_SHRINK)
@given(data=st.data())
def test_advice_through_the_game_is_the_advisors_whatever_was_asked_before(solution, data):
    """A category game keeps the last turn it solved for the next decision of that turn
    (roll 1, then roll 2): positions asked one after another, of one table and of another
    with the same sheets (General with plain straights), and sheets with the same boxes
    filled but another extra state (poker-programs' ones for 1 or for -1), are advised as
    the advisor advises each alone."""
    tables = [solution("general"), solution("general", straight="plain"),
              solution("poker-programs")]
    sheets = {"general": ["", "ones=3", "ones=3,straight=x", "general=x,fives=20"],
              "poker-programs": ["", "ones=1", "ones=-1", "ones=-1,twos=-4"]}
    for _ in range(8):
        table = tables[data.draw(st.integers(0, 2))]
        sheet = data.draw(st.sampled_from(sheets[table.rules.name]))
        faces = data.draw(five_dice)
        roll = data.draw(st.integers(1, 3))
        said = table.game.advise(table, {"sheet": sheet, "dice": list(faces), "roll": roll})
        alone = advise_position(table.rules, table.payload, parse_sheet(table.rules, sheet),
                                faces, roll)
        assert said == alone, (sheet, faces, roll)
