"""Every registered ruleset through every command it supports: the real CLI and the Python API.

Proves, for each game of the registry, that each generic command it declares runs end to
end through the real entry point (``dicewise.cli.main:cli``), that ``--json`` speaks one
vocabulary (``rule_options``, ``expected``, ``loss``, ``ci95``, ``approximate``,
``error_estimate``), that the Python API gives the same answers, and that the edges named in
the game-protocol issue hold: ``--out`` refuses devices, FIFOs, folders and missing folders;
``advise --table`` refuses a missing file; a damaged cached table is rebuilt with a warning;
two processes building one table both finish and leave one valid file; ``python -m dicewise``
is the CLI.  The approximate games fit a tiny policy here (their full fits take minutes).
"""

from __future__ import annotations

import functools
import json
import re
import math
import multiprocessing
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

import dicewise
from dicewise.cli.main import cli
from dicewise.solver.protocol import COMMANDS
from dicewise.solver.registry import GAMES, get_game
from dicewise.solver.target.table import ONE_TARGET_ABOVE
from dicewise.tables import store
from lines import unwrapped
from tiers import spread

DICE = ["2", "2", "4", "6", "6"]


def run(*args):
    return CliRunner().invoke(cli, list(args), prog_name="dicewise")


def ok(*args):
    result = run(*args)
    assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
    return result


def one_error_line(result, fragment=""):
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dicewise: error:") and fragment in lines[0], \
        result.stderr


pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process


@pytest.fixture(autouse=True)
def small_fits(monkeypatch):
    """Approximate games fit a tiny policy in tests: each game's room names its settings."""
    for name in GAMES:
        shrink = getattr(get_game(name), "test_settings", None)
        if shrink is not None:
            for target, value in shrink().items():
                monkeypatch.setattr(target[0], target[1], value)


def first_legal(observation):
    """An agent: the first legal action, whatever the game."""
    return observation["legal"][0]


def advise_args(game):
    args = ["advise", game.name, "--dice", *DICE]
    return args + (["--roll", "1"] if "roll" in game.advise_inputs else [])


GAME_NAMES = list(GAMES)
PLAYED = [n for n in GAME_NAMES if "simulate" in get_game(n).commands]
#: Games whose table takes seconds to build (or whose advice searches) even in tests: checked
#: in the slow tier.
SLOW_GAMES = {"yahtzee", "yatzy", "ryzykant", "poker-school"}


def tiered(names, slow=SLOW_GAMES):
    """The games as parameters, those in ``slow`` marked for the slow tier."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in slow else n for n in names]


def test_every_game_is_one_registered_protocol_object():
    for name in GAME_NAMES:
        game = get_game(name)
        assert game.name == name and game.commands <= COMMANDS
        assert "simulate" not in game.commands or game.policies[0] == "optimal"
        for spec in game.option_specs():
            assert spec.name and spec.help
    assert [r["name"] for r in json.loads(ok("rules", "--json").stdout)] == GAME_NAMES


#: The options that take a whole number within a range (``rules`` says it: "(0..42)").
RANGED = {"risk": {"wild_cards"}, "ryzykant": {"end_marks"}, "poker-school": {"columns"}}


@pytest.mark.parametrize("name", GAME_NAMES)
def test_rules_lists_the_options_that_option_sets(name):
    game = get_game(name)
    info = json.loads(ok("rules", name, "--json").stdout)
    assert info["name"] == name and set(info["commands"]) == set(game.commands)
    text = ok("rules", name).stdout
    for spec in game.option_specs():
        assert f"option {spec.name} = " in text
        value = spec.choices[-1] if spec.choices else spec.default
        value = str(value).lower() if isinstance(value, bool) else str(value)
        # every listed option is one that --option accepts (through the API's parser)
        assert game.parse_options([f"{spec.name}={value}"])
    for spec, listed in zip(game.option_specs(), info["options"]):
        # a ranged option says its range, and the values just outside it are refused
        assert (listed["minimum"], listed["maximum"]) == (spec.minimum, spec.maximum)
        if spec.minimum is not None:
            assert f"({spec.minimum}..{spec.maximum})" in text
            for outside in (spec.minimum - 1, spec.maximum + 1):
                with pytest.raises(dicewise.DicewiseError, match=spec.name):
                    game.rules(game.parse_options([f"{spec.name}={outside}"]))
    assert {s.name for s in game.option_specs() if s.minimum is not None} == RANGED.get(name, set())
    if game.option_specs():
        with pytest.raises(dicewise.DicewiseError, match="unknown option"):
            game.parse_options(["no_such_option=1"])


#: What ``solve --json`` prints for every game, and each game's own facts (docs/json.md).
SOLVED = {"ruleset", "rule_options", "expected_score", "approximate", "ci95", "error_estimate",
          "seconds", "built", "table"}
SOLVED_ADDED = {
    "general": {"states", "p_big_general"}, "poker-programs": {"states"}, "yahtzee": {"states"},
    "yatzy": {"states"},
    "poker-school": {"weights", "eval_games", "predicted_start_value", "upper_bound",
                     "upper_bound_steps", "error_fraction", "one_column_exact",
                     "one_column_gap"},
    "ryzykant": {"predicted_start_value", "bellman_residual_rms", "parameters", "eval_games",
                 "expected_score_kind", "exact"},
}


@pytest.mark.parametrize("name", tiered(n for n in GAME_NAMES if "solve" in get_game(n).commands))
def test_solve_and_advise(name, tmp_path):
    game = get_game(name)
    report = json.loads(ok("solve", name, "--json").stdout)
    assert report["ruleset"] == name and math.isfinite(report["expected_score"])
    assert report["approximate"] == (not game.exact)  # of the default options
    assert set(report) == SOLVED | SOLVED_ADDED[name]
    if "upper_bound_steps" in report:
        assert set(report["upper_bound_steps"]) == {"rows", "bonus", "groups", "shipped"}
    if report["approximate"]:
        assert report["error_estimate"] is not None or report["ci95"] is not None
    again = json.loads(ok("solve", name, "--json").stdout)
    assert again["table"] == report["table"] and again["built"] is False
    if "advise" not in game.commands:
        return
    doc = json.loads(ok(*advise_args(game), "--json").stdout)
    assert doc["ruleset"] == name and doc["rule_options"] == report["rule_options"]
    assert doc["best"] == doc["choices"][0] and doc["best"]["loss"] == 0
    for c in doc["choices"]:
        assert {"action", "label", "expected", "loss"} <= set(c)
        assert c["loss"] == pytest.approx(doc["best"]["expected"] - c["expected"], abs=1e-9)
    assert doc["approximate"] == report["approximate"]
    api = dicewise.advise(name, dice=[int(d) for d in DICE],
                          roll=1 if "roll" in game.advise_inputs else None)
    assert api.best.action == doc["best"]["action"]
    assert api.best.expected == pytest.approx(doc["best"]["expected"])
    assert ok(*advise_args(game)).stdout.strip()
    # an explicit table that is missing is refused for every game, nothing is built
    missing = tmp_path / "missing.dwt"
    one_error_line(run(*advise_args(game), "--table", str(missing)), "does not exist")
    assert not missing.exists()


@pytest.mark.slow
@pytest.mark.parametrize("name", PLAYED)
def test_simulate_every_policy_and_duel(name):
    game = get_game(name)
    means = {}
    for policy in game.policies:  # few games: a searching policy plays a few games a second
        data = json.loads(ok("simulate", name, "--games", "40", "--seed", "3", "--policy", policy,
                             "--json").stdout)
        assert data["policy"] == policy and data["games"] == 40
        lo, hi = data["ci95"]
        assert lo <= data["mean"] <= hi
        assert data["approximate"] in (True, False) and "rule_options" in data
        means[policy] = data["mean"]
    default = json.loads(ok("simulate", name, "--games", "40", "--seed", "3", "--json").stdout)
    assert default["policy"] == "optimal" and default["mean"] == means["optimal"]
    assert json.loads(ok("simulate", name, "--games", "40", "--seed", "3", "--policy", "solved",
                         "--json").stdout)["mean"] == means["optimal"]
    api = dicewise.simulate(name, games=40, seed=3, policy="greedy")
    assert api.summary.mean == means["greedy"]
    one_error_line(run("simulate", name, "--policy", "clever"), "unknown policy")
    if "duel" in game.commands:
        d = json.loads(ok("duel", name, "--a", "optimal", "--b", "random", "--games", "40",
                          "--seed", "3", "--json").stdout)
        assert d["wins"] + d["draws"] + d["losses"] == pytest.approx(1)
        assert d["mean_a"] == pytest.approx(means["optimal"]) and d["mean_b"] == pytest.approx(
            means["random"])
        assert d["wins_ci95"][0] <= d["wins"] <= d["wins_ci95"][1]


@pytest.mark.slow  # test_play checks General's strategy tables in the everyday tier
@pytest.mark.parametrize("name", [n for n in GAME_NAMES if "table" in get_game(n).commands])
def test_every_strategy_table(name, tmp_path):
    game = get_game(name)
    assert game.tables, "a game with `table` names its tables"
    for what in game.tables:
        if what == "target" and game.build_units(game.rules({})) > ONE_TARGET_ABOVE:
            continue  # every target of yahtzee and yatzy takes minutes: benchmarks/bench_target.py
        out = tmp_path / f"{what}.csv"
        ok("table", name, "--what", what, "--games", "200", "--out", str(out))
        lines = out.read_text().splitlines()
        assert len(lines) >= 2 and "," in lines[0]
        if len(lines) < 20_000:  # the JSON of a million states is the same rows, only slower
            rows = json.loads(ok("table", name, "--what", what, "--games", "200", "--format",
                                 "json").stdout)
            assert len(rows) == len(lines) - 1
            # for people in Russian: every column and every word said in it
            ru = ok("table", name, "--what", what, "--games", "200", "--format", "text",
                    "--lang", "ru").stdout
            assert len(ru.splitlines()) == len(lines) and not re.search("[A-Za-z]", ru), ru[:2000]
    one_error_line(run("table", name, "--what", "no-such-table"), "unknown table")
    # an empty name is not "the first table", an empty --out or --plot not "none"
    one_error_line(run("table", name, "--what", ""), "unknown table")
    one_error_line(run("table", name, "--out", ""), "an empty file name")
    one_error_line(run("table", name, "--plot", ""), "--plot")


@pytest.mark.parametrize("name", tiered(n for n in GAME_NAMES if "bench-agent" in get_game(n).commands))
def test_bench_agent_and_review(name, tmp_path, monkeypatch):
    (tmp_path / "anybot.py").write_text("def first(obs):\n    return obs['legal'][0]\n")
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "log.jsonl"
    data = json.loads(ok("bench-agent", name, "--agent", "anybot:first", "--games", "2", "--log",
                         str(log), "--json").stdout)
    assert data["games"] == 2 and data["decisions"] > 0 and data["errors"] == []
    assert data["regret_total"] >= 0
    assert data["approximate"] == (not get_game(name).exact)
    assert set(data) == {"ruleset", "rule_options", "agent", "games", "seed", "mean", "ci95",
                         "optimal_mean", "regret_total", "regret_per_game",
                         "regret_per_game_error", "regret_per_decision", "regret_by_stage",
                         "decisions", "win_rate_vs_optimal", "approximate", "error_estimate",
                         "regret_unit", "objective", "costliest", "errors", "error_kinds",
                         "restarts", "stopped"}  # docs/json.md
    # the regret's own error where the values are approximate, none where they are exact
    assert (data["regret_per_game_error"] is None) == get_game(name).exact
    assert data["objective"] == "expected_score"
    assert list(data["regret_by_stage"]) in (["roll1", "roll2", "roll3"], ["decision"])
    assert set(data["win_rate_vs_optimal"]) == {"wins", "draws", "losses"}
    first_observation = json.loads(log.read_text().splitlines()[0])["observation"]
    for c in data["costliest"]:  # with every field of the observation's position
        assert set(c) - {"loss_error", "close_call"} == {
            "game", "turn", "roll", "dice", "sheet", "chose", "best", "chose_label",
            "best_label", "loss"} | set(first_observation) - {"ruleset", "options", "legal"}
    # Approximate values: losses judged come with their error (not where the advice was
    # exact, as a Ryzykant roll whose every split ends the game), and a close call only where
    # that error covers it.
    approximate = not get_game(name).exact
    assert any("loss_error" in c for c in data["costliest"]) == approximate
    for c in data["costliest"]:
        assert not c.get("close_call") or c["loss"] <= c["loss_error"]
    if "review" in get_game(name).commands:
        judged = json.loads(ok("review", name, str(log), "--json").stdout)
        assert len(judged["decisions"]) == data["decisions"]
        assert set(judged) == {"ruleset", "rule_options", "decisions", "total_loss", "games",
                               "substituted_lines", "target"}
        assert (judged["ruleset"], judged["rule_options"]) == (data["ruleset"],
                                                              data["rule_options"])
        assert {frozenset(d) for d in judged["decisions"]} == {frozenset({
            "line", "game", "turn", "roll", "dice", "chose", "chose_expected", "best",
            "best_expected", "loss", "chose_label", "best_label", "loss_error", "close_call",
            "dominated_by"})}
        assert [set(g) for g in judged["games"]] == [{"game", "decisions", "lost", "loss",
                                                       "worst"}] * 2
        assert judged["total_loss"] == pytest.approx(data["regret_total"], rel=1e-9, abs=1e-9)
        assert any(d["loss_error"] is not None for d in judged["decisions"]) == approximate
        for d in judged["decisions"]:
            assert d["loss_error"] is None or (approximate and d["loss_error"] >= 0)
            assert not d["close_call"] or d["loss"] <= d["loss_error"]
            # a choice the rules prove worse is never a close call, and is said so
            assert not (d["dominated_by"] and d["close_call"]) and d["dominated_by"] != d["chose"]
        text = ok("review", name, str(log), "--all").stdout
        assert ("±" in text and "values approximate" in text) == approximate, text
        if name == "poker-school":  # crosses of rows the dice could write, some proven worse
            crossed = tmp_path / "crossed.jsonl"
            lines = [json.loads(line) for line in log.read_text().splitlines()]
            # each cross a game of its own: a log holds one decision a roll of a game
            crosses = [{**r, "action": {"cross": a["write"]}} for r in lines
                       for a in r["observation"]["legal"]
                       if "write" in a and {"cross": a["write"]} in r["observation"]["legal"]]
            crossed.write_text("".join(
                json.dumps({**r, "observation": {**r["observation"], "game": i}}) + "\n"
                for i, r in enumerate(crosses)))
            judged = json.loads(ok("review", name, str(crossed), "--json").stdout)["decisions"]
            proven = [d for d in judged if d["dominated_by"]]
            assert proven and all(d["dominated_by"] == {"write": d["chose"]["cross"]}
                                  and not d["close_call"] and d["loss"] > 0 for d in proven)
    report = dicewise.bench_agent(name, first_legal, games=2, seed=0)
    assert report.to_json()["regret_total"] == pytest.approx(data["regret_total"])


#: Words of the English reports that must not be left in a Russian or Polish one (names a
#: command line types, such as policies, rule options and sheets, are left out first).
ENGLISH = re.compile(r"\b(the|of|for|and|with|against|games?|seed|mean|median|max|wins|"
                     r"draws|states|table|loaded|built|exact|approximate|policy|score|rate|"
                     r"rolls|crosses|premiums|bonuses|seat|rivals|share|points|value|True)\b")


@functools.lru_cache(maxsize=None)
def in_english(*args) -> str:
    """What a command prints in English: run once for the languages compared with it."""
    return ok(*args, "--lang", "en").stdout


@pytest.mark.parametrize("name,lang", spread(PLAYED, ["ru", "pl"],
                                             slow=SLOW_GAMES | {"poker-programs"}))
def test_solve_simulate_and_duel_speak_the_players_language(name, lang):
    """The reports of ``solve``, ``simulate`` and ``duel`` (two policies, and a table of
    three) in Russian and Polish, each report entry a game adds and the sheets of example
    games included; ``--json`` the same in every language."""
    runs = [("solve", name), ("simulate", name, "--games", "30", "--policy", "greedy"),
            ("duel", name, "--games", "30", "--b", "random"),
            ("duel", name, "--games", "30", "--players", "3")]
    for args in runs:
        said = ok(*args, "--lang", lang).stdout
        english = in_english(*args)
        assert unwrapped(said)[0] != unwrapped(english)[0]
        words = " ".join(w for w in said.split() if "=" not in w and "/" not in w)
        assert not ENGLISH.search(words), (args, ENGLISH.search(words), said)
        assert len(unwrapped(said)) == len(unwrapped(english))
        if args[0] != "simulate":
            continue
        for line, shown in zip(unwrapped(english), unwrapped(said)):
            boxes = re.findall(r"([a-z_]+)=", line)  # an example game's sheet names its boxes
            assert sum(f"{box}=" in shown for box in boxes) <= len(boxes) / 2, shown
    script = ("simulate", name, "--games", "30", "--policy", "greedy", "--json")
    scripts = [json.loads(ok(*script, "--lang", lang).stdout), json.loads(in_english(*script))]
    for data in scripts:
        data.pop("games_per_second")
    assert scripts[0] == scripts[1] and scripts[0]["games"] == 30


#: A late sheet of General, the same for every player: its advice and chance among two come
#: from the solved sub-game (the whole race table takes minutes).
LATE = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,straight=20"
#: What a game's commands print for people beside the position every game is advised on:
#: General's chance of a target, advice among two and three players; Risk's own commands.
OWN_RUNS = {
    "general": [("advise", "general", "--roll", "2", "--dice", "3", "3", "5", "6", "6",
                 "--sheet", "ones=3,twos=6,threes=9,straight=25", "--target", "180"),
                ("advise", "general", "--roll", "1", "--dice", *DICE, "--players", "2",
                 "--sheet", LATE, "--opponent-sheet", LATE),
                ("advise", "general", "--roll", "1", "--dice", *DICE, "--players", "3",
                 "--sheet", LATE, "--opponent-sheet", LATE, "--opponent-sheet", LATE),
                ("chance", "general", "--target", "150"),
                ("chance", "general", "--players", "2", "--sheet", LATE, "--opponent-sheet",
                 LATE),
                ("chance", "general", "--players", "3", "--sheet", LATE, "--opponent-sheet",
                 LATE, "--opponent-sheet", LATE, "--games", "20")],
    "ryzykant": [("advise", "ryzykant", "--players", "3", "--dice", "1", "2", "3", "4", "6",
                  "--sheet", "5=2,7=2,8=2,9=2", "--fifth", "6=4", "--opponent-sheet",
                  "6=4,7=2,8=2", "--opponent-fifth", "2=4", "--opponent-sheet", "8=4,9=4",
                  "--opponent-fifth", "3=4")],
    "poker-school": [("advise", "poker-school", "--players", "3", "--roll", "3", "--dice", "6",
                      "6", "3", "2", "1", "--sheet", "pair=12/10", "--opponent-sheet",
                      "fives=15/15", "--opponent-sheet", "sixes=18/18")],
    "risk": [("risk", "battle", "10", "10", "--option", "ties=attacker", "--option",
              "max_defender_dice=1", "--defender-sees-roll", "--dice", "minimax"),
             ("risk", "advise", "9", "6", "--objective", "expected-armies", "-o", "ties=attacker",
              "-o", "max_attacker_dice=2", "--defender-sees-roll"),
             ("risk", "chain", "20", "3", "5", "2", "--garrison", "2", "--target", "0.8",
              "-o", "max_defender_dice=1", "--defender-sees-roll", "--dice", "minimax"),
             ("risk", "cards", "--sets-traded", "5", "--territories", "14", "--hand", "iicw",
              "--wild-cards", "2", "--players", "4", "--conquer-prob", "0.75")],
}


#: Those that build a whole table of their own besides (poker-programs' target table, 9 s),
#: checked in the slow tier.
SLOW_OWN_RUNS = {"poker-programs": [("chance", "poker-programs", "--target", "200")]}


def human_runs(name: str, log) -> list[tuple[str, ...]]:
    """The command lines of ``name`` whose output a player reads at a terminal: its rules,
    solve, advice, a simulation, duels of two policies and at a table of three, its own
    positions (``OWN_RUNS``), and the bot author's bench-agent and review (into ``log``)."""
    game, info = get_game(name), dicewise.describe(name)
    runs = [("rules",), ("rules", name)]
    if "solve" in game.commands:
        runs.append(("solve", name))
    if "advise" in game.commands:
        runs.append(tuple(advise_args(game)))
    if "simulate" in game.commands:
        runs += [("simulate", name, "--games", "20", "--policy", policy)
                 for policy in ("optimal", "greedy")]
    if "duel" in game.commands:
        runs.append(("duel", name, "--games", "20"))
        if 3 in info.get("table", {}).get("players", ()):
            runs.append(("duel", name, "--games", "20", "--players", "3"))
    if "bench-agent" in game.commands:
        runs += [("bench-agent", name, "--agent", "anybot:first", "--games", "2", "--log", log),
                 ("review", name, log, "--all")]
    return runs + OWN_RUNS.get(name, [])


#: The category games run every command, a few seconds each: the slow tier checks them.
WIDE_SLOW = SLOW_GAMES | {"general", "poker-programs"}


@pytest.mark.parametrize("name,lang", spread(GAME_NAMES, ["en", "ru", "pl"], slow=WIDE_SLOW))
def test_what_a_player_reads_fits_80_columns(name, lang, tmp_path, monkeypatch):
    """Every line that rules, solve, advise, simulate, duel, chance, bench-agent, review and
    risk print for people fits a terminal of 80 columns, in every language, however wide the
    terminal: a longer one goes on indented on the next, broken between its entries (a headline
    ran to 139 columns, a row of Russian advice to 111).  The one line left whole is solve's
    table, whose path is never broken."""
    (tmp_path / "anybot.py").write_text("def first(obs):\n    return obs['legal'][0]\n")
    monkeypatch.chdir(tmp_path)
    fits_80_columns(human_runs(name, str(tmp_path / "log.jsonl")), lang)


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
@pytest.mark.parametrize("name", sorted(SLOW_OWN_RUNS))
def test_what_a_player_reads_of_a_whole_table_fits_80_columns(name, lang):
    fits_80_columns(SLOW_OWN_RUNS[name], lang)


def fits_80_columns(runs, lang: str) -> None:
    """Each command line of ``runs``, said in ``lang`` (those for bot authors in English),
    prints no line wider than 80 columns on a terminal of 200."""
    cache = os.environ["DICEWISE_CACHE"]
    for args in runs:
        if args[0] in ("bench-agent", "review"):  # English only, for bot authors
            if lang != "en":
                continue
        else:
            args = (*args, "--lang", lang)
        result = CliRunner().invoke(cli, list(args), prog_name="dicewise",
                                    env={"COLUMNS": "200"})
        assert result.exit_code == 0, (args, result.output, result.exception)
        wide = [line for line in result.stdout.splitlines() if len(line) > 80
                and cache not in line]
        assert not wide, (args, wide)


def test_commands_a_game_lacks_say_so_in_one_line(tmp_path):
    """With what the command requires, without it, and with stray arguments: `advise risk`
    says risk has no advice, not that --dice is missing or 7 4 unexpected."""
    log = tmp_path / "empty.jsonl"
    log.write_text("")
    required = {"advise": ["--dice", *DICE], "bench-agent": ["--agent", "x:y"],
                "review": [str(log)], "chance": ["--target", "100"]}
    for name in GAME_NAMES:
        game = get_game(name)
        for command in sorted(COMMANDS - game.commands):
            one_error_line(run(command, name, *required.get(command, [])),
                           f"{name} has no `{command}`")
            one_error_line(run(command, name), f"{name} has no `{command}`")
            # and with what its own group would take (`advise risk 7 4`)
            one_error_line(run(command, name, "7", "4"), f"{name} has no `{command}`")


@pytest.mark.parametrize("target", ["/dev/full", "fifo", "folder", "missing/t.csv"])
@pytest.mark.parametrize("command", [["table", "general"], ["solve", "general"]])
def test_out_writes_only_a_new_path_or_a_regular_file(tmp_path, target, command):
    if target == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    elif target == "folder":
        path = tmp_path
    elif target == "missing/t.csv":
        path = tmp_path / "missing" / "t.csv"
    else:
        path = target
        if not os.path.exists(path):
            pytest.skip("no /dev/full here")
    one_error_line(run(*command, "--out", str(path)))
    if target == "fifo":
        assert path.is_fifo()  # never replaced by a regular file


def test_a_damaged_cached_table_is_rebuilt_with_a_warning():
    first = dicewise.solve("general")
    raw = first.table.read_bytes()
    first.table.write_bytes(raw[: len(raw) // 2])  # as a full disk leaves it
    result = run("solve", "general", "--json")
    assert result.exit_code == 0
    assert "warning" in result.stderr and "rebuilding" in result.stderr
    assert json.loads(result.stdout)["built"] is True
    assert dicewise.solve("general").expected_score == first.expected_score


def test_a_damaged_explicit_table_names_the_way_out(tmp_path):
    path = tmp_path / "general.dwt"
    ok("solve", "general", "--out", str(path))
    path.write_bytes(path.read_bytes()[:100])
    one_error_line(run("advise", "general", "--roll", "1", "--dice", *DICE, "--table", str(path)),
                   f"dicewise solve general --out {path} --rebuild")
    assert "dicewise solve general --out" in run("advise", "general", "--roll", "1", "--dice",
                                                 *DICE, "--table", str(path), "--lang", "ru").stderr
    ok("solve", "general", "--out", str(path), "--rebuild")
    ok("advise", "general", "--roll", "1", "--dice", *DICE, "--table", str(path))


def _solve_in_a_process(path):
    from dicewise import api

    return api.solve("poker-programs", table=path).expected_score


@pytest.mark.slow  # two spawned interpreters (test_table_cache_edges races two builds)
def test_two_processes_building_one_table_both_finish_with_one_valid_file(tmp_path):
    path = str(tmp_path / "pp.dwt")
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(_solve_in_a_process, [path, path])
    assert results[0] == results[1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pp.dwt"]  # and no lock left
    assert dicewise.solve("poker-programs", table=path).expected_score == results[0]


def test_python_dash_m_dicewise_is_the_cli():
    result = subprocess.run([sys.executable, "-m", "dicewise", "rules", "--json"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert [r["name"] for r in json.loads(result.stdout)] == GAME_NAMES
    bad = subprocess.run([sys.executable, "-m", "dicewise", "solve", "nosuchgame"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("dicewise: error:")
    assert len(bad.stderr.splitlines()) == 1


def test_the_api_refuses_unknown_rulesets_and_options(tmp_path, monkeypatch):
    """Refused before any table is built: an empty cache stays empty."""
    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(dicewise.DicewiseError, match="unknown ruleset"):
        dicewise.solve("nosuchgame")
    with pytest.raises(dicewise.DicewiseError, match="unknown option"):
        dicewise.simulate("general", options=["colour=red"])
    cache = store.cache_dir()
    assert not cache.exists() or not any(cache.iterdir())


def test_a_table_with_a_flipped_bit_or_other_options_names_one_way_out(tmp_path):
    """The file format says what is wrong, the store what to do: one way to rebuild, not two."""
    path = tmp_path / "general.dwt"
    ok("solve", "general", "--out", str(path))
    raw = bytearray(path.read_bytes())
    raw[-100] ^= 0xFF
    damaged = tmp_path / "damaged.dwt"
    damaged.write_bytes(bytes(raw))
    # damaged: built anew in its place; of other options: kept, another file built
    for table, option, way_out in (
            (damaged, [], f"dicewise solve general --out {damaged} --rebuild"),
            (path, ["--option", "straight=plain"], "dicewise solve general --out FILE")):
        said = run("advise", "general", "--roll", "1", "--dice", *DICE, "--table", str(table),
                   *option)
        one_error_line(said, way_out)
        assert said.stderr.count("dicewise solve") == 1, said.stderr
