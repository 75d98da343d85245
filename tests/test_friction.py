"""Friction a new player met, fixed: examples that work, errors that name the real problem,
a short list of choices on request, honest labels."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from dicewise.cli.main import cli
from dicewise.solver.registry import GAMES, get_game
from lines import joined, unwrapped

pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process

DICE = ["--dice", "2", "2", "4", "6", "6"]


def run(*args):
    """(exit status, stdout) of a command; errors are read from ``fails``."""
    result = CliRunner().invoke(cli, list(args), prog_name="dicewise")
    return result.exit_code, result.stdout


def fails(*args) -> str:
    result = CliRunner().invoke(cli, list(args), prog_name="dicewise")
    assert result.exit_code == 2 and not result.stdout, result.output
    return result.stderr


@pytest.mark.parametrize("name", [n for n in GAMES if "advise" in get_game(n).commands])
def test_every_sheet_example_that_rules_shows_is_accepted(name):
    code, out = run("rules", name)
    assert code == 0
    line = next(l for l in unwrapped(out) if l.startswith("sheet:"))
    examples = re.findall(r'"([^"]*=[^"]*)"', line)
    assert examples, line
    game = get_game(name)
    rules = game.rules({})
    for example in examples:
        position = {"dice": [2, 2, 4, 6, 6], "roll": 1, "sheet": example}
        if "fifth" in game.advise_inputs:  # Ryzykant: the sheet and its fifth-die marks
            position = {"dice": [2, 2, 4, 6, 6], "sheet": examples[0], "fifth": examples[1]}
        game.check_position(rules, position)


def test_rules_lists_a_command_with_where_it_works():
    code, out = run("rules", "poker-school")
    assert "chance (one column only: --option columns=1)" in out
    data = json.loads(run("rules", "poker-school", "--json")[1])
    assert data["command_notes"] == {"chance": "one column only: --option columns=1"}
    assert "play" in data["commands"]


def test_advise_top_keeps_the_best_k():
    code, out = run("advise", "general", "--roll", "1", *DICE, "--json", "--top", "3")
    full = json.loads(run("advise", "general", "--roll", "1", *DICE, "--json")[1])
    short = json.loads(out)
    assert short["choices"] == full["choices"][:3] and short["best"] == full["best"]
    code, out = run("advise", "general", "--roll", "1", *DICE, "--top", "4")
    rows = [l for l in out.splitlines() if re.match(r"\s+\d+\s", l)]
    assert len(rows) == 4
    assert f"and {len(full['choices']) - 4} more choices (--top K" in out


@pytest.mark.parametrize("roll, label", [
    (2, "keep all five (reroll none), then write"),
    # after roll 1 the five go to roll 2 as they are and may still be rolled, so its value
    # can pass every write of roll 1: it is no stop
    (1, "keep all five (reroll none; 2 rolls left)")])
def test_keeping_all_five_says_what_it_does(roll, label):
    full = json.loads(run("advise", "general", "--roll", str(roll), *DICE, "--json")[1])
    keep = [c for c in full["choices"] if c["action"] == {"keep": [2, 2, 4, 6, 6]}]
    assert [c["label"] for c in keep] == [label] and keep[0]["rolls_left"] == 3 - roll
    ru = run("advise", "general", "--roll", str(roll), *DICE, "--lang", "ru", "--top", "30")[1]
    assert ("ещё 2 броска" in ru) == (roll == 1)


@pytest.mark.parametrize("args,message", [
    (["advise", "poker-programs", "--roll", "1", *DICE, "--sheet", "ones=0,pair=24"],
     "pair is a free figure, written only after all six obligatory ones (still open: twos, "
     "threes, fours, fives, sixes)"),
    (["advise", "poker-programs", "--roll", "1", *DICE, "--sheet", "ones=3"],
     "no dice score 3 in ones (possible: -3, -2, -1, 0, 1, 2)"),
    (["advise", "ryzykant", "--players", "2", *DICE, "--fifth", "2=1"],
     "2 players need 1 rival sheet (--opponent-sheet, once each; \"\" for an empty one), not 0"),
    (["advise", "yahtzee", "--players", "2", "--roll", "1", *DICE],
     "yahtzee has no play to win at a table"),
    (["advise", "general", "--players", "3", "--roll", "1", *DICE, "--fifth", "1",
      "--opponent-sheet", "", "--opponent-sheet", ""], "general takes no --fifth"),
    (["advise", "general", "--players", "3", "--roll", "1", *DICE, "--opponent-fifth", "1=1",
      "--opponent-sheet", "", "--opponent-sheet", ""], "general takes no --opponent-fifth"),
])
def test_errors_name_the_real_problem(args, message):
    err = fails(*args)
    assert message in err and err.count("\n") == 1 and err.startswith("dicewise: error: ")


def test_a_scratch_is_x_in_the_category_games():
    from dicewise.solver.rulesets import category_game
    from dicewise.solver.sheet import parse_sheet

    sheet = parse_sheet(category_game("poker-programs"),
                        "ones=0,twos=0,threes=0,fours=0,fives=0,sixes=0,poker=x")
    assert dict(sheet.scores)["poker"] == 0
    code, out = run("advise", "general", "--roll", "2", *DICE, "--json", "--sheet", "four=x")
    assert code == 0 and json.loads(out)["sheet"]["four"] == 0


# Every error of a program in turn: an illegal move, then a line that is not JSON (which
# starts it afresh) in even starts, an exit in odd ones (its starts counted in a file).
BOT = '''import json, os, sys
starts = os.path.join(os.path.dirname(os.path.abspath(__file__)), "starts")
n = int(open(starts).read()) if os.path.exists(starts) else 0
open(starts, "w").write(str(n + 1))
for i, line in enumerate(sys.stdin):
    obs = json.loads(line)
    if i == 2:
        print(json.dumps({"write": "nowhere"}), flush=True)
    elif i == 3 and n % 2 == 0:
        print("garbage", flush=True)
    elif i == 5:
        sys.exit(1)
    else:
        print(json.dumps(obs["legal"][0]), flush=True)
'''


@pytest.mark.slow
def test_bench_agent_reports_for_people_and_review_sums_up_each_game(tmp_path):
    import sys

    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    log = tmp_path / "game.jsonl"
    result = CliRunner().invoke(cli, ["bench-agent", "general", "--agent-cmd",
                                      f"{sys.executable} {bot}", "--games", "2", "--seed", "1",
                                      "--max-failures", "9", "--log", str(log)])
    out = joined(result.stdout)
    assert result.exit_code == 0, result.output
    costly = out[out.index("the costliest"):out.index("agent errors")]
    assert "{" not in costly  # actions as the game's labels
    assert re.search(r"chose (keep|write) .*; best (keep|write) ", out)
    assert "after roll 1" in out and "after roll 3" in out
    data = json.loads(CliRunner().invoke(cli, ["bench-agent", "general", "--agent-cmd",
                                               f"{sys.executable} {bot}", "--games", "2",
                                               "--seed", "1", "--max-failures", "9",
                                               "--json"]).stdout)
    kinds = data["error_kinds"]
    assert kinds["malformed"] >= 1 and kinds["crash"] >= 1 and kinds["illegal"] >= 1
    assert data["restarts"] == kinds["crash"] + kinds["malformed"] + kinds.get("timeout", 0)
    assert f"{len(data['errors'])} agent errors (" in out
    assert f"restarted {data['restarts']} times" in out
    from dicewise.cli.format import counted  # one of a thing is not "1 decisions"

    assert counted(1, "decision") == "1 decision" and counted(0, "time") == "0 times"
    assert counted(2000, "agent error") == "2,000 agent errors"
    assert "games ..." not in out  # progress goes to stderr only

    code, text = run("review", "general", str(log))
    assert code == 0
    assert re.search(r"^game 0: \d+ decisions, \d+ of them lost points", text, re.M)
    assert re.search(r"^game 1: ", text, re.M) and "in 2 games" in text
    code, one = run("review", "general", str(log), "--game", "1", "--json")
    data = json.loads(one)
    assert {d["game"] for d in data["decisions"]} == {1} and len(data["games"]) == 1
    assert data["total_loss"] == pytest.approx(data["games"][0]["loss"])
    assert "the log has no game 5 (games: 0-1)" in fails("review", "general", str(log),
                                                        "--game", "5")
    # The command prints what the API returns.
    from dicewise import api

    assert api.review("general", log.read_text().splitlines(), game=1).to_json() == data


@pytest.mark.slow
def test_simulate_headings_say_what_is_simulated():
    code, out = run("simulate", "general", "--games", "200")
    out = joined(out)
    assert "exact score distribution (computed, not simulated)" in out
    assert "the 200 simulated games' scores:" in out
    assert out.index("the 200 simulated games' scores:") < out.index(" – ")


@pytest.mark.slow
def test_tables_for_people_are_rounded_and_csv_keeps_full_precision():
    code, text = run("table", "general", "--what", "opening", "--format", "text")
    code, csv_text = run("table", "general", "--what", "opening")
    assert re.search(r"\s171\.011\s", text) and "171.0112805233" in csv_text  # all its digits
    assert not re.search(r"\d\.\d{5,}", text)
    code, js = run("table", "general", "--what", "opening", "--format", "json")
    ended = [row for row in json.loads(js) if "ends the game" in row["best"]]  # 1 1 1 1 1..
    assert ended and all(row[k] is None for row in ended for k in (
        "expected", "runner_up", "runner_up_expected", "margin"))
    assert ",,,," in csv_text  # and empty cells in the CSV


@pytest.mark.parametrize("args", [
    ["duel", "poker-programs", "--games", "10", "--seed", "-1"],
    ["simulate", "general", "--games", "10", "--seed", "-1"],
    ["play", "general", "--seed", "-1"],
    ["play", "general", "--players", "0"],
    ["play", "general", "--lang", "de"],
    ["play", "risk"],
    ["play"],
    ["review", "general", "/nonexistent.jsonl"],
])
def test_bad_command_lines_answer_one_line(args):
    err = fails(*args)
    assert err.startswith("dicewise: error: ") and err.count("\n") == 1


def test_a_pick_that_is_no_number_is_one_line_and_the_game_goes_on():
    """`pick ²` (a digit that is no decimal) and a pick of thousands of digits were a
    traceback: now each is one line, and the game goes on."""
    lines = ["dice 2 2 4 6 6", "pick ²", "pick " + "9" * 5000, "pick 1", "sheet"]
    result = CliRunner().invoke(cli, ["play", "general", "--players", "1", "--no-advice",
                                      "--lang", "en"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0 and result.exception is None, result.output
    refused = [line for line in result.stdout.splitlines() if line.startswith("not done: ")]
    assert refused == ["not done: pick takes the number of a choice of the advice, as pick 1"] * 2 \
        + ["not done: advice is off: name the choice"]


def test_a_table_for_people_rounds_and_aligns():
    from dicewise.cli.measure import _text_table

    text = _text_table(["roll", "dice", "value", "p"], [[1, "1 1 1 1 4", 171.011281, 0.0123456],
                                                      [2, "6 6 6 6 6", None, 1.0]])
    lines = text.splitlines()
    assert lines[1] == "   1  1 1 1 1 4  171.011  0.0123"
    assert lines[2] == "   2  6 6 6 6 6           1.0000"  # a column of chances: as 0.0123
    assert len({len(line) for line in lines[:3]}) == 1


def test_a_resumed_game_keeps_its_number_of_choices_and_a_finished_one_its_result(tmp_path):
    """`--top` given when a game began holds after `--resume`, unless given again; a game
    that ended shows its result when resumed, and its last move can still be taken back."""
    path = tmp_path / "game.json"
    play = ["play", "general", "--players", "2", "--objective", "score", "--seed", "4",
            "--top", "2", "--lang", "en"]
    result = CliRunner().invoke(cli, play, input=f"dice 2 2 4 6 6\nsave {path}\n")
    assert result.exit_code == 0 and "saved to" in result.stdout

    def rows(args, lines="advise\n"):
        out = CliRunner().invoke(cli, ["play", "--resume", str(path), *args], input=lines).stdout
        return len(re.findall(r"^ +\d+ +\d+\.\d\d +\d+\.\d\d  ", out, re.M))

    assert rows([]) == 2 * 2  # the prompt's advice and the advise command's, two choices each
    assert rows(["--top", "3"]) == 2 * 3
    game = json.loads(path.read_text())
    game["events"] = [{"dice": [4, 4, 4, 4, 4]}]  # a big general on roll 1 wins at once
    path.write_text(json.dumps(game))
    out = CliRunner().invoke(cli, ["play", "--resume", str(path)], input="undo\n").stdout
    assert out.index("the game is over") < out.index("Player 1: the dice?")


def test_a_saved_game_that_does_not_replay_is_refused_in_its_own_language(tmp_path):
    """The refusal of a damaged save speaks the saved game's language unless --lang says
    otherwise, the reason included."""
    path = tmp_path / "game.json"
    result = CliRunner().invoke(cli, ["play", "general", "--players", "2", "--objective",
                                      "score", "--lang", "ru"],
                                input=f"dice 2 2 4 6 6\nsave {path}\n")
    assert result.exit_code == 0
    game = json.loads(path.read_text())
    game["events"].append({"pick": 40})
    path.write_text(json.dumps(game))
    said = {}
    for args in ([], ["--lang", "pl"], ["--lang", "en"]):
        result = CliRunner().invoke(cli, ["play", "--resume", str(path), *args])
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
        said[tuple(args)] = result.stderr
    assert 'это не ход партии: {"pick": 40}' in said[()]
    assert "to nie jest ruch partii" in said[("--lang", "pl")]
    assert 'not an event of a game: {"pick": 40}' in said[("--lang", "en")]
