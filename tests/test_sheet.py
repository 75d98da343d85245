"""Score sheets as players write them (``solver/sheet.py``), read by RULES.md.

Proves: a sheet is parsed into the filled boxes, the state the engine uses and the points
already earned (bonuses included); and every kind of bad sheet is refused with a
DicewiseError naming the problem: a malformed entry, an unknown or repeated box, a score
the box cannot hold (by RULES.md), and a combination of scores no game can reach.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from dicewise.errors import DicewiseError
from dicewise.play.session import TableGame
from dicewise.solver.rulesets import category_game
from dicewise.solver.sheet import parse_sheet


def bit(game, *names):
    return sum(1 << game.category_names.index(n) for n in names)


def test_empty_sheet_is_the_initial_state():
    for name in ("general", "poker-programs", "yahtzee", "yatzy"):
        game = category_game(name)
        for spec in (None, "", " , "):
            sheet = parse_sheet(game, spec)
            assert sheet.mask == 0 and sheet.points == 0 and sheet.scores == ()
            assert sheet.state(game) == game.initial_state


def test_general_sheet():
    game = category_game("general")
    sheet = parse_sheet(game, "ones=3, straight=25")
    assert sheet.mask == bit(game, "ones", "straight")
    assert sheet.points == 28
    assert dict(sheet.scores) == {"ones": 3, "straight": 25}
    # Names as a player writes them: any case, spaces or hyphens for underscores.
    same = parse_sheet(game, "Straight=25,ONES=3")
    assert (same.mask, same.points) == (sheet.mask, sheet.points)
    assert parse_sheet(game, "Full House=30").mask == parse_sheet(game, "full-house=30").mask


def test_yahtzee_sheet_with_bonus_and_upper_sum():
    game = category_game("yahtzee")
    sheet = parse_sheet(game, "sixes=30,fives=25,fours=12,yahtzee=50,yahtzee_bonus=1")
    assert sheet.mask == bit(game, "sixes", "fives", "fours", "yahtzee")
    assert sheet.points == 30 + 25 + 12 + 50 + 100
    assert sheet.extra == 63 + 64  # upper sum capped at 63; the Yahtzee box holds 50
    assert dict(sheet.counters) == {"yahtzee_bonus": 1}
    assert parse_sheet(game, "yahtzee=0").extra == 0  # a scratched Yahtzee arms nothing
    assert parse_sheet(game, "yahtzee=50,twos=6").extra == 6 + 64
    assert parse_sheet(category_game("yahtzee", joker="off"), "yahtzee=50").extra == 0


def test_poker_programs_sheet_with_the_obligatory_bonus():
    game = category_game("poker-programs")
    running = parse_sheet(game, "ones=-3,sixes=6")
    assert running.points == 3
    assert running.extra == 3 + 63  # the running obligatory sum, offset by 63
    done = parse_sheet(game, "ones=0,twos=0,threes=3,fours=-4,fives=0,sixes=6,pair=24")
    assert done.points == 5 + 24 + 50  # sum ≥ 0 earns 50
    lost = parse_sheet(game, "ones=0,twos=0,threes=3,fours=-4,fives=-5,sixes=0")
    assert lost.points == -6  # sum < 0: no bonus


def test_yatzy_sheet():
    game = category_game("yatzy")
    sheet = parse_sheet(game, "sixes=24,fives=20,fours=16,threes=9,two_pairs=22,yatzy=50")
    assert sheet.points == 141 and sheet.extra == 63


@pytest.mark.parametrize("ruleset, spec, message", [
    ("general", "ones", "not of the form category=score"),
    ("general", "ones=three", "must be an integer"),
    ("general", "sevens=7", "unknown category 'sevens'"),
    ("general", "ones=1,ones=2", "ones is written twice"),
    ("general", "twos=7", "twos=7"),
    ("general", "twos=12", "twos=12"),
    ("general", "straight=23", "straight=23"),
    ("general", "four=44", "four=44"),
    ("general", "general=50", "general=50"),
    ("poker-programs", "ones=3", "ones=3"),
    ("poker-programs", "sixes=-19", "sixes=-19"),
    ("poker-programs", "pair=13", "pair=13"),
    ("poker-programs", "chance=60", "chance=60"),
    ("yatzy", "one_pair=7", "one_pair=7"),
    ("yatzy", "chance=4", "chance=4"),
    ("yatzy", "yatzy=25", "yatzy=25"),
    ("yahtzee", "full_house=20", "full_house=20"),
    ("yahtzee", "yahtzee_bonus=-1", "cannot be negative"),
    ("yahtzee", "yahtzee_bonus=1,yahtzee_bonus=1,yahtzee=50,ones=1", "yahtzee_bonus is written twice"),
])
def test_bad_entries_are_refused_with_a_message(ruleset, spec, message):
    with pytest.raises(DicewiseError, match=message):
        parse_sheet(category_game(ruleset), spec)


@pytest.mark.parametrize("ruleset, spec, message", [
    # Free figures only once all six obligatory figures are written (RULES.md section 2).
    ("poker-programs", "pair=12", "impossible sheet"),
    ("poker-programs", "ones=0,twos=0,threes=0,fours=0,fives=0,chance=20", "impossible sheet"),
    # The bonus count needs a Yahtzee box holding 50, and a box filled by each bonus Yahtzee.
    ("yahtzee", "yahtzee_bonus=1", "yahtzee_bonus"),
    ("yahtzee", "yahtzee=0,chance=30,yahtzee_bonus=1", "yahtzee_bonus"),
    ("yahtzee", "yahtzee=50,chance=30,yahtzee_bonus=2", "yahtzee_bonus"),
])
def test_impossible_combinations_are_refused(ruleset, spec, message):
    with pytest.raises(DicewiseError, match=message):
        parse_sheet(category_game(ruleset), spec)


def test_no_bonus_count_under_joker_off():
    game = category_game("yahtzee", joker="off")
    with pytest.raises(DicewiseError, match="yahtzee_bonus"):
        parse_sheet(game, "yahtzee=50,chance=30,yahtzee_bonus=1")


def test_bonus_count_is_only_a_yahtzee_entry():
    with pytest.raises(DicewiseError, match="unknown category 'yahtzee_bonus'"):
        parse_sheet(category_game("yatzy"), "yahtzee_bonus=1")


def test_full_sheets_parse():
    game = category_game("general")
    full = ",".join(f"{n}=0" for n in game.category_names)
    assert parse_sheet(game, full).mask == (1 << 10) - 1


# each solves the whole of Yahtzee (seconds): the slow tier's
@pytest.mark.parametrize("joker", [pytest.param("free", marks=pytest.mark.slow),
                                   pytest.param("forced", marks=pytest.mark.slow),
                                   pytest.param("none", marks=pytest.mark.slow)])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_yahtzee_sheet_a_game_reaches_is_read_back(joker, data):
    """Yahtzees, often: whatever legal writes make a sheet (bonus Yahtzees in every box the
    rule lets them go), the sheet play shows is one that parsing takes, bonuses included."""
    game = TableGame.new("yahtzee", players=1, options={"joker": joker}, advice=False)
    rules = category_game("yahtzee", joker=joker)
    while not game.over:
        face = data.draw(st.integers(1, 6))
        dice = [face] * 5 if data.draw(st.booleans()) else \
            [data.draw(st.integers(1, 6)) for _ in range(5)]
        game.apply("dice " + " ".join(map(str, dice)))
        writes = [a for a in game.legal() if "write" in a]
        assert game.apply(f"write {data.draw(st.sampled_from(writes))['write']}")["ok"]
        parse_sheet(rules, game.sheets[0].text)


@pytest.mark.parametrize("joker, sheet, hosts", [
    ("free", "yahtzee=50,yahtzee_bonus=1,full_house=25", 0),  # a joker needs its upper box
    ("forced", "yahtzee=50,yahtzee_bonus=1,chance=30", 0),  # five sixes go to sixes first
    ("none", "yahtzee=50,yahtzee_bonus=1,ones=2,full_house=25", 0),  # no joker: 0 there
    ("free", "yahtzee=50,yahtzee_bonus=2,ones=5,twos=6,chance=30", 2)])
def test_a_bonus_yahtzee_needs_a_box_that_could_hold_it(joker, sheet, hosts):
    """Each bonus Yahtzee fills a box with what five of a kind scores there: a sheet whose
    boxes could not have taken them all is refused, saying how many could."""
    game = category_game("yahtzee", joker=joker)
    if hosts >= 2:
        parse_sheet(game, sheet)
        return
    with pytest.raises(DicewiseError, match=rf"five of a kind scores there \(boxes that hold "
                                            rf"such a score: {hosts}\)"):
        parse_sheet(game, sheet)
