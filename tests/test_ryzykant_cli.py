"""Ryzykant through the real command line (``dicewise.cli.main:cli``), with a tiny fit.

Proves: ``solve`` reports an approximate expected score inside its interval and writes the
table; ``advise`` ranks the nine distinct splits of 3 4 4 5 6 best first, each action a
split of exactly those dice, a game-ending split worth its exact score; bad positions are
one line and exit status 2; ``simulate`` and ``duel`` report their statistics (the old
policy name ``solved`` still works); a table built for other options is refused.  Tables
are built in the per-test cache (see conftest.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from dicewise.cli.main import cli
from dicewise.errors import TableError
from dicewise.solver.ryzykant import game as ryzykant_game, policy_table
from dicewise.solver.ryzykant.game import RYZYKANT
from dicewise.solver.ryzykant.rules import RyzykantRules, parse_position, score
from dicewise.tables import store
from lines import joined


@pytest.fixture(autouse=True)
def _small_build(monkeypatch):
    monkeypatch.setattr(ryzykant_game, "BUILD", ryzykant_game.BuildSettings(2, 1000, 1000))
    monkeypatch.setattr(policy_table, "RESIDUAL_POSITIONS", 100)


pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process


SMALL = ["-o", "end_marks=2"]


def run(*args):
    return CliRunner().invoke(cli, list(args), prog_name="dicewise")


def _json(result):
    assert result.exit_code == 0, (result.output, result.exception)
    return json.loads(result.stdout)


def test_solve_json_reports_an_approximate_expected_score(tmp_path):
    out = tmp_path / "t.dwt"
    d = _json(run("solve", "ryzykant", *SMALL, "--out", str(out), "--json"))
    assert d["ruleset"] == "ryzykant" and d["rule_options"]["end_marks"] == 2
    assert d["approximate"] is True and d["error_estimate"] >= 0
    lo, hi = d["ci95"]
    assert lo <= d["expected_score"] <= hi
    assert d["parameters"] > 0 and out.exists() and d["table"] == str(out)
    again = run("solve", "ryzykant", *SMALL, "--out", str(out))  # loads, human-readable
    assert again.exit_code == 0 and "approximate" in again.stdout and "loaded" in again.stdout



def test_solve_of_the_one_roll_game_is_the_exact_optimum(tmp_path, monkeypatch):
    """The one-roll game's optimum is the exact fraction −576815/972 and the table's policy
    attains it, so solve reports it as exact, not as a simulated mean."""
    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path))
    d = _json(run("solve", "ryzykant", "-o", "end_marks=1", "--json"))
    assert d["exact"]["fraction"] == "-576815/972" and d["approximate"] is False
    assert d["expected_score"] == pytest.approx(-576815 / 972, abs=1e-9)
    assert d["ci95"] is None and d["error_estimate"] is None  # exact: nothing to estimate
    human = run("solve", "ryzykant", "-o", "end_marks=1")
    assert "optimal expected score -593.4310700 (exact" in joined(human.stdout)
    assert "fraction: -576815/972" in human.stdout
    # the policy attains the optimum: a gap of 0, not rounding's -1.1e-13
    assert d["exact"]["policies"]["optimal"]["gap"] == 0.0 and "gap: 0\n" in human.stdout
    # every split of the one roll ends the game: advice is each split's final score, exact
    from dicewise.solver import dice
    from dicewise.solver.ryzykant import rules as rz

    rules, start = rz.RyzykantRules(end_marks=1), rz.Position()
    roll = dice.roll_index(dice.counts_of([1, 2, 3, 4, 6]))
    finals = sorted((rz.play(rules, start, roll, m.slot)[0].score
                     for m in rz.moves(rules, start, roll)), reverse=True)
    d = _json(run("advise", "ryzykant", "-o", "end_marks=1", "--dice", "1", "2", "3", "4", "6",
                  "--json"))
    assert d["approximate"] is False and d["error_estimate"] is None
    assert [c["expected"] for c in d["choices"]] == finals
    assert not any("loss_error" in c for c in d["choices"])
    human = run("advise", "ryzykant", "-o", "end_marks=1", "--dice", "1", "2", "3", "4", "6")
    assert "every split ends the game" in human.stdout
    assert "values: exact" in human.stdout and "±" not in human.stdout

def test_advise_ranks_every_split_best_first():
    d = _json(run("advise", "ryzykant", "--dice", "3", "4", "4", "5", "6", "--sheet",
                  "6=1,7=2,8=1", "--fifth", "2=1,5=1", *SMALL, "--json"))
    assert d["approximate"] is True and d["error_estimate"] >= 0
    assert d["rule_options"]["end_marks"] == 2
    choices = d["choices"]
    assert len(choices) == 9  # the nine distinct splits of 3 4 4 5 6
    assert choices[0] == d["best"] and choices[0]["loss"] == 0
    assert all(a["expected"] >= b["expected"] for a, b in zip(choices, choices[1:]))
    for c in choices:
        (a, b), (x, y) = c["action"]["pairs"]
        assert sorted([a, b, x, y, c["action"]["fifth"]]) == [3, 4, 4, 5, 6]
    # A split that ends the game (a second 5 below) is worth its exact final score.
    ending = [c for c in choices if c["ends_game"]]
    assert ending and all(c["action"]["fifth"] == 5 for c in ending)
    for c in ending:
        up = np.zeros(11, np.int64)
        up[4:7] = (1, 2, 1)  # the sheet 6=1,7=2,8=1
        for s in c["sums"]:
            up[s - 2] += 1
        assert c["expected"] == score(up)


def test_advise_human_output():
    r = run("advise", "ryzykant", "--dice", "1", "1", "6", "6", "3", *SMALL)
    assert r.exit_code == 0, r.output
    assert "approximate" in r.stdout and "1+1" in r.stdout
    one = run("advise", "ryzykant", "--dice", "3", "4", "4", "5", "6", "--sheet", "6=1,8=1",
              "--fifth", "2=1", *SMALL)
    assert "; 1 roll, " in one.stdout, one.output


def test_advise_at_a_table_ranks_splits_by_the_chance_to_finish_ahead():
    table = ["--players", "3", "--sheet", "6=1,7=2,8=1", "--fifth", "2=1,5=1",
             "--opponent-sheet", "6=2,9=2", "--opponent-fifth", "3=1,4=1",
             "--opponent-sheet", "5=2,10=1,11=1", "--opponent-fifth", "4=1,6=1"]
    d = _json(run("advise", "ryzykant", "--dice", "3", "4", "4", "5", "6", *table, *SMALL,
                  "--json"))
    assert d["objective"] == "win" and d["approximate"] is True and d["players"] == 3
    assert d["opponents_ended"] == [False, False]  # docs/json.md: the position at a table
    assert len(d["opponent_sheets"]) == len(d["opponent_fifths"]) == 2
    assert d["opponent_points"] == [score(_upper({6: 2, 9: 2})), score(_upper({5: 2, 10: 1,
                                                                              11: 1}))]
    chances = [c["probability"] for c in d["choices"]]
    assert len(chances) == 9 and all(0 <= p <= 1 for p in chances)
    assert chances == sorted(chances, reverse=True) and d["choices"][0]["loss"] == 0
    alone = _json(run("advise", "ryzykant", "--dice", "3", "4", "4", "5", "6", "--sheet",
                      "6=1,7=2,8=1", "--fifth", "2=1,5=1", *SMALL, "--json"))
    assert {str(c["action"]) for c in alone["choices"]} == \
        {str(c["action"]) for c in d["choices"]}
    assert d["expected_score_choice"] in [c["action"] for c in d["choices"]]
    human = run("advise", "ryzykant", "--dice", "3", "4", "4", "5", "6", *table, *SMALL)
    assert human.exit_code == 0 and "chance to finish ahead" in human.stdout


def _upper(marks):
    up = np.zeros(11, np.int64)
    for s, n in marks.items():
        up[s - 2] = n
    return up


def test_advice_at_a_table_where_a_rival_has_finished():
    # The rival split this roll first and its second 2 below ended its game (end_marks=2):
    # the mover is still advised, and the rival's points are those of its finished sheet.
    d = _json(run("advise", "ryzykant", "--dice", "3", "4", "4", "5", "6", "--players", "2",
                  "--sheet", "6=2,7=2", "--fifth", "2=1,5=1", "--opponent-sheet",
                  "6=2,7=2,8=2", "--opponent-fifth", "2=2,5=1", *SMALL, "--json"))
    assert d["objective"] == "win" and d["opponent_points"] == [score(_upper({6: 2, 7: 2,
                                                                              8: 2}))]
    assert len(d["choices"]) == 9 and d["opponents_ended"] == [True]


@pytest.mark.parametrize("args, words", [
    (["--players", "2", "--sheet", "6=1,7=1", "--fifth", "2=1", "--opponent-sheet",
      "6=2,7=2,8=2", "--opponent-fifth", "1=1,3=1,4=1"], "different stages"),
    (["--players", "2", "--opponent-sheet", "6=2", "--opponent-fifth", "1=3"], "past the end"),
    (["--players", "2", "--opponent-sheet", "", "--opponent-fifth", "", "--opponent-fifth", ""],
     "more --opponent-fifth"),
    (["--players", "3", "--opponent-sheet", ""], "3 players need 2 rival sheets"),
    (["--opponent-fifth", "1=1"], "are for --players N"),
])
def test_bad_table_positions_are_one_line(args, words):
    r = run("advise", "ryzykant", "--dice", "3", "4", "4", "5", "6", *args, *SMALL)
    assert r.exit_code == 2, r.output
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, words", [
    (["--dice", "3", "4", "4", "5", "6", "--sheet", "6=4,7=7,8=3", "--fifth", "2=5,5=3"],
     "fifth-die marks"),
    (["--dice", "3", "4", "4", "5", "6", "--fifth", "1=1,2=1,3=1,4=1"], "at most 3"),
    (["--dice", "3", "4", "4", "5", "6", "--sheet", "7=4", "--fifth", "2=2", *SMALL],
     "game is over"),
    (["--dice", "3", "4", "4", "5", "7"], "1..6"),
    (["--dice", "3", "4", "4", "5", "6", "-o", "end_marks=12"], "end_marks"),
    (["--dice", "3", "4", "4", "5", "6", "--roll", "2"], "no --roll"),
    # Sheets the rules allow, with many puściochy on one sum, past what dicewise can value:
    # they were valued as smaller sheets (80 marks), overflowed (260) or failed (256).
    (["--dice", "1", "2", "3", "4", "5", "--sheet", "12=80", "--fifth", "1=5,2=5,3=5"],
     "at most 58 marks a sum"),
    (["--dice", "1", "2", "3", "4", "5", "--sheet", "12=260", "--fifth", "1=9,2=9,3=9"],
     "sum 12 has 260 marks"),
    (["--dice", "6", "6", "6", "6", "6", "--sheet", "12=256", "--fifth", "1=9,2=9,3=9"],
     "sum 12 has 256 marks"),
    (["--dice", "1", "2", "3", "4", "5", "--players", "2", "--opponent-sheet", "12=80",
      "--opponent-fifth", "1=5,2=5,3=5"], "at most 58 marks a sum"),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    r = run("advise", "ryzykant", *args)
    assert r.exit_code == 2
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith("dicewise: error:")


def test_bad_input_builds_no_table(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path))
    assert run("advise", "ryzykant", "--dice", "3", "4", "4", "5", "7").exit_code == 2
    assert not list(tmp_path.iterdir())


def test_simulate_json():
    d = _json(run("simulate", "ryzykant", *SMALL, "--games", "3000", "--policy", "greedy",
                  "--seed", "3", "--json"))
    for key in ("ruleset", "policy", "games", "seed", "mean", "std", "ci95", "percentiles",
                "games_per_second", "min", "max", "mean_rolls", "mean_puscioch"):
        assert key in d
    assert d["ci95"][0] <= d["mean"] <= d["ci95"][1]
    assert set(d["percentiles"]) == {"5", "25", "50", "75", "95"}
    # The example games use advise's sheet notation; a finished sheet parses back as over.
    ex = d["example_games"][0]
    with pytest.raises(Exception, match="game is over"):
        parse_position(RyzykantRules(end_marks=2), ex["sheet"], ex["fifth"])
    up = np.zeros(11, np.int64)
    for item in ex["sheet"].split(","):
        k, n = map(int, item.split("="))
        up[k - 2] = n
    assert int(score(up)) == ex["score"] and up.sum() == 2 * ex["rolls"]


def test_simulate_human_and_solved_alias():
    r = run("simulate", "ryzykant", *SMALL, "--games", "500", "--policy", "solved")
    assert r.exit_code == 0, r.output
    assert "optimal" in r.stdout and "95% CI" in r.stdout and "#" in r.stdout


def test_simulate_bad_policy():
    r = run("simulate", "ryzykant", *SMALL, "--policy", "clever")
    assert r.exit_code == 2 and "unknown policy" in r.stderr


def test_duel_json():
    d = _json(run("duel", "ryzykant", "--a", "greedy", "--b", "random", "--games", "3000", *SMALL,
                  "--json"))
    assert d["wins"] + d["draws"] + d["losses"] == pytest.approx(1.0)
    assert d["wins"] > d["losses"] and d["mean_margin"] > 0
    assert d["mean_margin"] == pytest.approx(d["mean_a"] - d["mean_b"])


def test_duel_same_policy_draws_every_game():
    d = _json(run("duel", "ryzykant", "--a", "greedy", "--b", "greedy", "--games", "500", *SMALL,
                  "--json"))
    assert d["draws"] == 1.0


@pytest.mark.slow
def test_a_table_for_other_options_is_refused(tmp_path):
    out = tmp_path / "t.dwt"
    assert run("solve", "ryzykant", *SMALL, "--out", str(out)).exit_code == 0
    with pytest.raises(TableError):
        store.load(RYZYKANT, RyzykantRules(end_marks=3), out)
    r = run("advise", "ryzykant", "--dice", "1", "2", "3", "4", "5", "-o", "end_marks=3",
            "--table", str(out))
    # a sound table of other options is kept: its options named, another file built
    assert r.exit_code == 2 and "give the --option flags it was built with" in r.stderr
    assert "dicewise solve ryzykant --out FILE" in r.stderr


@pytest.mark.slow
def test_simulate_search_reports_its_paired_gain_over_the_table_policy():
    d = _json(run("simulate", "ryzykant", "--policy", "search", "--games", "24", "--seed", "2",
                  *SMALL, "--json"))
    table = _json(run("simulate", "ryzykant", "--games", "24", "--seed", "2", *SMALL, "--json"))
    paired = d["against_optimal"]
    assert paired["policy"] == "optimal" and paired["games"] == 24
    assert paired["mean"] == pytest.approx(table["mean"])
    assert paired["gain"] == pytest.approx(d["mean"] - table["mean"])
    lo, hi = paired["gain_ci95"]
    assert lo <= paired["gain"] <= hi
    human = run("simulate", "ryzykant", "--policy", "search", "--games", "24", *SMALL)
    assert "against optimal on the same rolls (paired)" in human.stdout
