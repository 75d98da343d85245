"""Ryzykant's CLI functions through click's CliRunner, with a tiny build schedule.

The functions are wrapped in small click commands under the real ``Group`` of
``dicewise.cli.main``, so a DicewiseError becomes one line and exit status 2 as in
``dicewise`` itself.  Tables are built in the per-test cache (see conftest.py).
"""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from dicewise.cli import ryzykant as cli_rz
from dicewise.cli.main import Group
from dicewise.solver.ryzykant import policy_table as game
from dicewise.solver.ryzykant.rules import Ryzykant
from dicewise.tables.format import TableError


@pytest.fixture(autouse=True)
def _small_build(monkeypatch):
    monkeypatch.setattr(game, "BUILD_ROUNDS", 2)
    monkeypatch.setattr(game, "BUILD_GAMES", 2000)
    monkeypatch.setattr(game, "EVAL_GAMES", 2000)
    monkeypatch.setattr(game, "RESIDUAL_POSITIONS", 100)


@click.group(cls=Group)
def app():
    """Test harness."""


@app.command()
@click.option("-o", "options", multiple=True)
@click.option("--out", default=None)
@click.option("--rebuild", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
def solve(options, out, rebuild, as_json):
    cli_rz.solve(list(options), out, rebuild, as_json)


@app.command()
@click.option("-o", "options", multiple=True)
@click.option("--dice", "faces", type=int, nargs=5)
@click.option("--sheet", default=None)
@click.option("--fifth", default=None)
@click.option("--table", default=None)
@click.option("--json", "as_json", is_flag=True)
def advise(options, faces, sheet, fifth, table, as_json):
    cli_rz.advise(list(options), list(faces), sheet, fifth, table, as_json)


@app.command()
@click.option("-o", "options", multiple=True)
@click.option("--games", type=int, default=1000)
@click.option("--seed", type=int, default=0)
@click.option("--policy", default="solved")
@click.option("--json", "as_json", is_flag=True)
def simulate(options, games, seed, policy, as_json):
    cli_rz.simulate(list(options), games, seed, policy, as_json)


app.add_command(cli_rz.duel)

SMALL = ["-o", "end_marks=2"]


def run(*args):
    return CliRunner().invoke(app, list(args))


def _json(result):
    text = result.stdout if hasattr(result, "stdout") else result.output
    return json.loads(text[text.index("{"):])


def test_solve_json_reports_an_approximate_expected_score(tmp_path):
    out = tmp_path / "t.dwt"
    r = run("solve", *SMALL, "--out", str(out), "--json")
    assert r.exit_code == 0, r.output
    d = _json(r)
    assert d["ruleset"] == "ryzykant" and d["options"]["end_marks"] == 2
    assert d["approximate"] is True and d["error_estimate"] >= 0
    lo, hi = d["expected_score_ci95"]
    assert lo <= d["expected_score"] <= hi
    assert d["parameters"] > 0 and out.exists() and d["table"] == str(out)
    again = run("solve", *SMALL, "--out", str(out))  # loads, human-readable
    assert again.exit_code == 0 and "approximate" in again.output


def test_advise_ranks_every_split_best_first():
    r = run("advise", "--dice", "3", "4", "4", "5", "6", "--sheet", "6=1,7=2,8=1",
            "--fifth", "2=1,5=1", *SMALL, "--json")
    assert r.exit_code == 0, r.output
    d = _json(r)
    assert d["approximate"] is True and d["error_bound"] >= 0
    assert d["rule_options"]["end_marks"] == 2  # as the core's advice: options are the choices
    opts = d["options"]
    assert len(opts) == 9  # the nine distinct splits of 3 4 4 5 6
    assert opts[0] == d["best"] and opts[0]["loss"] == 0
    assert all(a["expected"] >= b["expected"] for a, b in zip(opts, opts[1:]))
    for o in opts:
        assert o["action"] == "split"
        assert sorted(o["pairs"][0] + o["pairs"][1] + [o["fifth"]]) == [3, 4, 4, 5, 6]
    # A split that ends the game is worth its exact final score.
    ending = [o for o in opts if o["ends_game"]]
    assert ending and all(o["fifth"] in (5,) for o in ending)


def test_advise_human_output():
    r = run("advise", "--dice", "1", "1", "6", "6", "3", *SMALL)
    assert r.exit_code == 0, r.output
    assert "approximate" in r.output and "1+1" in r.output


@pytest.mark.parametrize("args, words", [
    (["--dice", "3", "4", "4", "5", "6", "--sheet", "6=4,7=7,8=3", "--fifth", "2=5,5=3"], "fifth-die marks"),
    (["--dice", "3", "4", "4", "5", "6", "--fifth", "1=1,2=1,3=1,4=1"], "at most 3"),
    (["--dice", "3", "4", "4", "5", "6", "--sheet", "7=4", "--fifth", "2=2", *SMALL], "game is over"),
    (["--dice", "3", "4", "4", "5", "7"], "1..6"),
    (["--dice", "3", "4", "4", "5", "6", "-o", "end_marks=12"], "end_marks"),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    r = run("advise", *args)
    assert r.exit_code == 2
    assert words in r.output and len(r.output.strip().splitlines()) == 1


def test_simulate_json():
    r = run("simulate", *SMALL, "--games", "3000", "--policy", "greedy", "--seed", "3", "--json")
    assert r.exit_code == 0, r.output
    d = _json(r)
    for key in ("ruleset", "policy", "games", "seed", "mean", "std", "ci95", "percentiles",
                "games_per_second", "min", "max"):
        assert key in d
    assert d["ci95"][0] <= d["mean"] <= d["ci95"][1]
    assert set(d["percentiles"]) == {"5", "25", "50", "75", "95"}
    # The state dump uses advise's sheet notation; a finished sheet parses back.
    from dicewise.solver.ryzykant.rules import parse_position, score
    import numpy as np
    ex = d["example_games"][0]
    with pytest.raises(Exception, match="game is over"):
        parse_position(Ryzykant(end_marks=2), ex["sheet"], ex["fifth"])
    up = np.zeros(11, np.int64)
    for item in ex["sheet"].split(","):
        k, n = map(int, item.split("="))
        up[k - 2] = n
    assert int(score(up)) == ex["score"] and up.sum() == 2 * ex["rolls"]


def test_simulate_human_and_optimal_alias():
    r = run("simulate", *SMALL, "--games", "2000", "--policy", "optimal")
    assert r.exit_code == 0, r.output
    assert "policy solved" in r.output and "95% CI" in r.output and "#" in r.output


def test_simulate_bad_policy():
    r = run("simulate", *SMALL, "--policy", "clever")
    assert r.exit_code == 2 and "unknown policy" in r.output


def test_duel_json():
    r = run("duel", "ryzykant", "--a", "greedy", "--b", "random", "--games", "3000", *SMALL, "--json")
    assert r.exit_code == 0, r.output
    d = _json(r)
    assert d["wins"] + d["draws"] + d["losses"] == pytest.approx(1.0)
    assert d["wins"] > d["losses"] and d["mean_margin"] > 0
    assert d["mean_margin"] == pytest.approx(d["mean_a"] - d["mean_b"])


def test_duel_same_policy_draws_every_game():
    r = run("duel", "ryzykant", "--a", "greedy", "--b", "greedy", "--games", "500", *SMALL, "--json")
    assert _json(r)["draws"] == 1.0


def test_a_table_for_other_options_is_refused(tmp_path):
    out = tmp_path / "t.dwt"
    assert run("solve", *SMALL, "--out", str(out)).exit_code == 0
    with pytest.raises(TableError):
        game.load(Ryzykant(end_marks=3), out)
    r = run("advise", "--dice", "1", "2", "3", "4", "5", "-o", "end_marks=3", "--table", str(out))
    assert r.exit_code == 2 and "rebuild" in r.output
