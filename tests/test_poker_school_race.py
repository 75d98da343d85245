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
from dicewise.solver.poker_school import contest, race
from dicewise.solver.poker_school.game import POKER_SCHOOL
from dicewise.solver.poker_school.rules import ROW_INDEX
from dicewise.solver.poker_school.turns import Batch, GreedyEvaluator

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
