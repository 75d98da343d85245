"""poker-school at a table (``solver/poker_school/race.py``): contested prizes, the
race-aware view, and the table through ``duel --players N``.

Proves: the first player to earn a premium or a column's 60 takes it and the others lose
it at once (their row or column is no longer clean; their points stand); the race-aware
player counts as lost exactly the prizes a rival with a clean row or column is strictly
closer to; played tables keep every prize with at most one seat, and a seat's score is
what its sheet holds; duel reports the premiums each seat takes.
"""

from __future__ import annotations

import json

import numpy as np
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


def test_the_race_aware_player_gives_up_the_prizes_a_rival_is_closer_to():
    me, rival = table()
    me.filled[0, PAIR], rival.filled[0, PAIR] = 1, 2      # rival closer: lost
    me.filled[0, FOUR], rival.filled[0, FOUR] = 2, 2      # level: I move first, still mine
    me.filled[0, 0], rival.filled[0, 0] = 0, 2
    rival.clean[0, 0] = False                             # a crossed rival row is no threat
    rival.filled[0, :] = np.maximum(rival.filled[0, :], 1)  # rival's column 1 complete but ...
    rival.column_clean[0, 0] = False                      # ... crossed: no threat either
    lost_rows, lost_cols = race.lost_ahead(RULES, [me, rival], 0, owners())
    assert lost_rows[0, PAIR] and not lost_rows[0, FOUR] and not lost_rows[0, 0]
    assert not lost_cols[0, 0]
    rival.column_clean[0, 0] = True
    lost_rows, lost_cols = race.lost_ahead(RULES, [me, rival], 0, owners())
    # columns by rows still to write: 0 against my 14; 12 against 14; 15 against 15
    assert lost_cols[0, 0] and lost_cols[0, 1] and not lost_cols[0, 2]


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
