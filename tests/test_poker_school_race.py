"""poker-school at a table (``solver/poker_school/race.py``): contested prizes, the
race-aware view, and the table through ``duel --players N``.

Proves: the first player to earn a premium or a column's 60 takes it and the others lose
it at once (their row or column is no longer clean; their points stand); the race-aware
player weighs exactly the prizes a rival with a clean row or column is near, and a write
that completes such a row is worth its premium more; played tables keep every prize with at most one seat, and a seat's score is
what its sheet holds; duel reports the premiums each seat takes.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from dicewise.cli.main import cli
from dicewise.solver import dice
from dicewise.solver.poker_school import contest, race
from dicewise.solver.poker_school.game import POKER_SCHOOL
from dicewise.solver.poker_school.rules import ROW_INDEX
from dicewise.solver.poker_school.turns import Batch, GreedyEvaluator
from lines import joined, unwrapped

RULES = POKER_SCHOOL.rules({})
PAIR, FOUR = ROW_INDEX["pair"], ROW_INDEX["four"]


def table(n=2, games=1):
    return [Batch.empty(RULES, games) for _ in range(n)]


def owners(games=1):
    return (np.full((games, 15), contest.NOBODY), np.full((games, RULES.columns), contest.NOBODY))


def test_the_first_to_earn_a_premium_takes_it_and_the_others_lose_it():
    a, b = table()
    rows, cols = owners()
    a.filled[0, PAIR] = 3  # a completed its pair row cleanly
    b.filled[0, PAIR] = 2
    b.banked[0] = 40
    race._settle(RULES, [a, b], 0, rows, cols)
    assert rows[0, PAIR] == 0 and (rows[0, np.arange(15) != PAIR] == contest.NOBODY).all()
    assert not b.clean[0, PAIR] and a.clean[0, PAIR] and b.banked[0] == 40
    assert b.clean[0, np.arange(15) != PAIR].all()
    # b completes the row later: nothing changes hands
    b.filled[0, PAIR] = 3
    race._settle(RULES, [a, b], 1, rows, cols)
    assert rows[0, PAIR] == 0


def test_the_first_to_complete_a_column_takes_its_60():
    a, b, c = table(3)
    rows, cols = owners()
    b.filled[0, :] = 1  # b's first column is full and clean
    race._settle(RULES, [a, b, c], 1, rows, cols)
    assert cols[0, 0] == 1 and cols[0, 1] == contest.NOBODY
    assert not a.column_clean[0, 0] and not c.column_clean[0, 0] and b.column_clean[0, 0]
    assert a.column_clean[0, 1:].all()


def test_the_race_weighs_the_prizes_a_rival_is_near():
    me, rival, other = table(3)
    rival.filled[0, PAIR] = 1                              # 2 cells from the premium: near
    other.filled[0, FOUR] = 2
    other.clean[0, FOUR] = False                           # a crossed row is no threat
    rival.filled[0, :] = np.maximum(rival.filled[0, :], 1) - (np.arange(15) < 3)  # 3 rows to go
    rows_owned, cols_owned = owners()
    rows, cols = race.race_bonus(RULES, [me, rival, other], 0, (rows_owned, cols_owned))
    assert rows[0, PAIR] == race.BETA and rows[0, FOUR] == race.BETA  # rival's FOUR: 2 to go
    assert cols[0, 0] == race.BETA and not cols[0, 1:].any()
    rows_owned[0, PAIR] = 1                                # taken: nothing left to race for
    rows, _ = race.race_bonus(RULES, [me, rival, other], 0, (rows_owned, cols_owned))
    assert rows[0, PAIR] == 0


def test_a_write_that_completes_a_raced_row_is_worth_its_premium_more():
    me, _ = table(2, games=2)
    me.filled[:, PAIR] = 2                                 # the next pair completes the row
    me.filled[1, PAIR] = 1                                 # ... in game 0 only
    evaluator = GreedyEvaluator(RULES)
    option = evaluator.row_options(me, PAIR, 2)
    bonus = (np.zeros((2, 15)), np.zeros((2, RULES.columns)))
    bonus[0][:, PAIR] = 1.0
    raced = race._with_bonus(RULES, me, PAIR, 2, option, bonus)
    points = race.turns.free_row_classes(RULES, PAIR, 2)[0]
    finite = np.isfinite(option.score[:, 0])
    assert raced.score[finite, 0] == pytest.approx(option.score[finite, 0] + points[finite])
    assert raced.score[:, 1] == pytest.approx(option.score[:, 1])
    assert (raced.cross == option.cross).all()


def test_played_tables_keep_each_prize_with_one_seat():
    evaluators = {"greedy": GreedyEvaluator(RULES)}
    scores, premiums, columns = race.play_table(RULES, evaluators, ("greedy", "random", "greedy"),
                                                16, [3])
    assert scores.shape == (16, 3)
    assert (premiums.sum(axis=1) <= 15).all() and (columns.sum(axis=1) <= RULES.columns).all()
    assert premiums.sum() > 0


def test_duel_reports_the_premiums_of_each_seat():
    res = CliRunner().invoke(cli, ["duel", "poker-school", "--players", "3", "--a", "greedy",
                                   "--b", "random", "--games", "9", "--seed", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["players"] == 3 and len(data["seats"]) == 3
    assert all("premiums" in s and "column_bonuses" in s for s in data["seats"])
    assert "premiums" in data["rival_extra"]
    bad = CliRunner().invoke(cli, ["duel", "poker-school", "--players", "5", "--a", "greedy",
                                   "--b", "random", "--games", "30"])
    assert bad.exit_code == 2 and "2, 3, 4 players" in bad.stderr


# -- advice at a table (``advise poker-school --players N``) --------------------------------

GREEDY = GreedyEvaluator(RULES)


def choice_of(advice, action):
    return next(c for c in advice.choices if c.action == action)


def test_table_advice_counts_a_prize_a_rival_is_near_once_more():
    # my pair row needs one more cell; the rival's needs one too: writing it now takes the
    # premium (12) from them, so the write's race value is its expected value plus 12
    advice = race.advise_at_table(RULES, GREEDY, "pair=12/10", ["pair=12/12,ones=3"],
                                  [6, 6, 3, 2, 1], 3)
    write = choice_of(advice, {"write": "pair"})
    assert advice.choices[0] is write
    assert write.detail["race_value"] == pytest.approx(write.expected + 12)
    assert "pair" in advice.position["contested"]
    cross = choice_of(advice, {"cross": "twos"})
    assert cross.detail["race_value"] == pytest.approx(cross.expected)  # completes nothing
    assert cross.loss == pytest.approx(write.detail["race_value"] - cross.detail["race_value"])
    assert advice.approximate is False or advice.error_estimate is None  # greedy: no table


def test_without_a_rival_near_the_table_ranks_as_the_solitaire_advisor():
    from dicewise.solver.poker_school.advice import advise

    sheet = "pair=12,fives=15/15,chance=44"
    alone = advise(RULES, GREEDY, RULES.parse_sheet(sheet), [5, 5, 5, 2, 6], 2)
    table = race.advise_at_table(RULES, GREEDY, sheet, ["ones=x,twos=x,threes=x,fours=x"],
                                  [5, 5, 5, 2, 6], 2)
    assert table.position["contested"] == []
    assert [c.action for c in table.choices] == [c.action for c in alone.choices]
    assert [c.detail["race_value"] for c in table.choices] == \
        pytest.approx([c.expected for c in alone.choices])


def test_a_prize_a_rival_earned_is_lost_to_the_mover():
    # the rival completed the pair row cleanly: its premium is theirs, and completing mine
    # earns nothing beyond the cell
    taken = race.advise_at_table(RULES, GREEDY, "pair=12/10", ["pair=12/12/12"],
                                 [6, 6, 3, 2, 1], 3)
    free = race.advise_at_table(RULES, GREEDY, "pair=12/10", ["ones=3/3/3"],
                                [6, 6, 3, 2, 1], 3)
    assert taken.position["prizes"]["premiums"] == {"pair": 1}
    write_taken = choice_of(taken, {"write": "pair"})
    write_free = choice_of(free, {"write": "pair"})
    assert write_free.expected - write_taken.expected == pytest.approx(12)


def test_table_advice_errs_on_the_race_loss_and_shows_it(capsys):
    """Approximate table advice: each race loss carries its ``loss_error`` (how far the search
    moved that loss, as for the solitaire advice), close calls by the race losses, and the
    text shows the ± column and the choices the rules prove worse."""
    from dicewise.cli.games import print_advice
    from dicewise.solver.poker_school import advice as advisor
    from dicewise.solver.poker_school.approx import Features, LinearEvaluator, prior_weights
    from dicewise.solver.poker_school.turns import Batch as B

    lin = LinearEvaluator(RULES, prior_weights(RULES) + np.random.default_rng(4).normal(
        0, 5, Features.of(RULES).size))
    sheet, rivals, faces = "pair=12/10,twos=6", ["pair=12/12,ones=3,fives=15"], [6, 6, 2, 2, 1]
    advice = race.advise_at_table(RULES, lin, sheet, rivals, faces, 3, 6.4)
    mine, others, owners = race.table_sheets(RULES, sheet, rivals)
    bonus = race.race_bonus(RULES, [B.of_sheet(s) for s in (mine, *others)], 0,
                            (np.array([owners.premium_owner]), np.array([owners.column_owner])))
    shallow = advisor.TurnAdvice(RULES, lin, mine, race_bonus=bonus).choices(
        dice.roll_index(dice.counts_of(faces)), 3)
    top = shallow[0].expected
    shallow_loss = {repr(c.action): top - c.expected for c in shallow}
    share = (RULES.turns - sum(mine.filled)) / RULES.turns
    best = advice.best
    # completing the pair row takes its premium (12) from the rival: the race's best, not
    # the solitaire's
    assert best.action == {"write": "pair"}
    assert best.detail["race_value"] - best.expected == pytest.approx(12)
    assert max(c.expected for c in advice.choices) > best.expected
    for c in advice.choices[1:]:
        assert c.loss == pytest.approx(best.detail["race_value"] - c.detail["race_value"])
        floor = advisor.LOSS_ERROR_FLOOR if "write" in c.action or "cross" in c.action \
            else advisor.LOSS_ERROR_KEEP_FLOOR
        want = (advisor.LOSS_ERROR_SCALE * abs(c.loss - shallow_loss[repr(c.action)])
                + advisor.LOSS_ERROR_SLOPE * c.loss + floor * 6.4 * share)
        assert c.loss_error == pytest.approx(want, abs=1e-9), c.label
        dominated = bool(c.detail.get("dominated_by"))
        assert c.close_call == (c.loss <= c.loss_error and not dominated)
    others_ = [c.loss_error - c.loss for c in advice.choices[1:]
               if c.detail.get("dominated_by") != best.action]
    assert best.loss_error == pytest.approx(max(others_ + [0.0]))
    print_advice(advice)
    out = capsys.readouterr().out
    assert " ± " in unwrapped(out)[2] + " "
    assert f"±{advice.choices[1].loss_error:.2f}" in out
    assert "(worse than write pair for 12, by the rules)" in joined(out)  # crossing the pair


@pytest.mark.parametrize("sheet, rivals, message", [
    ("pair=12/10/10", ["pair=12/12/12"], "a prize taken twice: pair"),
    ("pair=12", ["ones=3/3,twos=6"], "different stages"),
    ("", ["ones=3"], None),  # the rival moved before the mover: fine
    # a prize listed as taken went to a rival, whose sheet shows it earned
    ("pair=12,taken=pair", ["ones=3"], "your sheet: taken= lists pair, which no other sheet"),
    ("pair=12", ["ones=3,taken=column2/fives"], "rival sheet 1: taken= lists fives, column2"),
    ("pair=12/12/12,taken=pair", ["pair=12/12/12,taken=pair"], "taken= lists pair"),
    ("pair=12/12/12,taken=pair", ["pair=12/12/12"], None),  # the rival took it first
    ("pair=12/12/12,taken=fives", ["ones=3/3/3", "fives=15/15/15"], None),  # the 2nd rival took it
])
def test_table_positions_a_table_cannot_reach_are_refused(sheet, rivals, message):
    from dicewise.errors import DicewiseError

    if message is None:
        race.table_sheets(RULES, sheet, rivals)
        return
    with pytest.raises(DicewiseError, match=message):
        race.table_sheets(RULES, sheet, rivals)


def test_taken_reads_the_rows_in_russian_and_polish_as_the_sheet_does():
    # the refusal of an unknown name lists the rows in the players' language: those names
    # are read too
    assert contest.parse_taken("пара/piątki/szostki/column1", 3) == (
        (ROW_INDEX["fives"], ROW_INDEX["sixes"], PAIR), (0,))


def test_table_advice_is_approximate_to_the_last_turn():
    """The race value counts a prize a rival is near twice, and the rival may still take it
    first: approximate in the last two turns too, where the solitaire values are exact."""
    sheet = ("ones=x/3/3,twos=x/6/6,threes=9/9/9,fours=12,fives=15/15/15,sixes=24/18/12/x,"
             "pair=10/10/24,two_pairs=36/36/36,triplet=30/18/15,small_straight=15/15/15,"
             "big_straight=40/40/20,full_house=52/44/56,four=48/12/20,poker=10/30/20/x,"
             "chance=23/26/23,taken=ones/twos/threes/fours/two_pairs/triplet/small_straight/"
             "big_straight/full_house/four/column2")
    rival = ("ones=3/3/3/x,twos=6/8/4,threes=9/9/9/x,fours=12/12/12/x,fives=15/15/15,"
             "sixes=x/18/18,pair=24/24/12,two_pairs=44/20/36/x,triplet=15/12/36/x,"
             "small_straight=30/15/30/x,big_straight=20/40/20/x,full_house=46/26/28/x,"
             "four=48/20/24/x,poker=30/5,chance=44/25/22,taken=fives/sixes/pair/poker/chance")
    assert RULES.turns - sum(RULES.parse_sheet(sheet).filled) == 2
    advice = race.advise_at_table(RULES, GREEDY, sheet, [rival], [1, 4, 4, 4, 5], 1, 6.4, 1100.0)
    assert "column3" in advice.position["contested"]  # the rival's column is one row short
    assert advice.approximate and advice.error_estimate == 6.4 and advice.upper_bound == 1100.0
    doc = advice.to_json()  # what advise --players N --json prints (docs/json.md)
    assert doc["approximate"] is True and doc["ranked_by"] == "race_value"
    assert set(doc["prizes"]) == {"premiums", "columns"} and "column3" in doc["contested"]
    assert not {"objective", "turn_start_probability", "policies_differ"} & set(doc)
    assert all("race_value" in c and "probability" not in c for c in doc["choices"])


@pytest.mark.parametrize("args, message", [
    (("--players", "2"), "2 players need 1 rival sheet"),
    (("--players", "2", "--opponent-sheet", "ones=3,taken=pair"),
     "rival sheet 1: taken= lists pair, which no other sheet at the table earned"),
    (("--players", "3", "--opponent-sheet", "", "--opponent-sheet", "pair=12/12"),
     "different stages"),
    (("--players", "5", "--opponent-sheet", "", "--opponent-sheet", "", "--opponent-sheet", "",
      "--opponent-sheet", ""), "seats 2, 3, 4 players"),
])
def test_bad_table_advice_is_one_line(args, message):
    result = CliRunner().invoke(cli, ["advise", "poker-school", "--roll", "1", "--dice", "1",
                                      "2", "3", "4", "5", *args], prog_name="dicewise")
    assert result.exit_code == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


COLUMN_ONE = {"ones": [1, 1, 1, 2, 3], "twos": [2, 2, 2, 1, 3], "threes": [3, 3, 3, 1, 2],
              "fours": [4, 4, 4, 1, 2], "fives": [5, 5, 5, 1, 2], "sixes": [6, 6, 6, 1, 2],
              "pair": [6, 6, 1, 2, 3], "two_pairs": [6, 6, 5, 5, 1], "triplet": [6, 6, 6, 1, 2],
              "small_straight": [1, 2, 3, 4, 5], "big_straight": [2, 3, 4, 5, 6],
              "full_house": [6, 6, 6, 5, 5], "four": [6, 6, 6, 6, 1], "poker": [6, 6, 6, 6, 6],
              "chance": [6, 6, 6, 5, 5]}


def test_a_columns_60_counts_at_the_table_as_soon_as_it_is_certain():
    """The table's points (and the table advice's) hold a column's 60 from the write that
    fills it with no cross, not only at the end of the game: it can no longer be lost."""
    sheet = POKER_SCHOOL.player_sheet(RULES)
    written = 0
    for i, (row, faces) in enumerate(COLUMN_ONE.items()):
        assert sheet.points == written  # no column full yet
        before = sheet.state.points
        sheet = sheet.write({"write": row}, tuple(faces), 2)
        written += sheet.state.points - before
    assert sheet.state.points == written and sheet.points == written + 60 and not sheet.done
    # the table advice says the same of the mover and of a rival
    assert "poker=30" in sheet.text
    rival = sheet.text.replace("poker=30", "poker=x")  # the same but a cross: 30 less, no 60
    advice = race.advise_at_table(RULES, GREEDY, sheet.text, [rival], [1, 2, 3, 4, 6], 1, 6.4,
                                  1100.0)
    assert advice.position["points"] == written + 60
    assert advice.position["opponent_points"] == [written - 30]
    assert f"{written + 60} points against {written - 30}" in advice.headline
    mirrored = race.advise_at_table(RULES, GREEDY, rival, [sheet.text], [1, 2, 3, 4, 6], 1, 6.4,
                                    1100.0)
    assert mirrored.position["opponent_points"] == [written + 60]
