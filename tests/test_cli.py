"""The command line (``cli/``), through click's CliRunner.

Proves: ``rules`` lists every registered ruleset and shows a category game's boxes and
options; ``solve --json`` prints exactly the keys of issue 2 and writes the table; ``rules``,
``simulate`` and ``duel --json`` print exactly the keys docs/json.md lists;
``advise --json`` has the documented shape and agrees with the Python API; and every kind of
bad input (wrong number of dice, a face outside 1..6, a roll outside 1..3, an unknown
ruleset, option key or value, a bad sheet) exits with status 2 and exactly one line on
stderr beginning ``dicewise: error:``, with no traceback; so does any sheet, dice and
roll drawn at random (hypothesis), or else ``advise`` answers with a ranked list.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import dicewise
from dicewise.cli.main import cli
from dicewise.solver.registry import RULESETS
from dicewise.solver.rulesets import CATEGORY_GAMES, category_game
from lines import joined, unwrapped
from tiers import spread

pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process


def run(*args):
    return CliRunner().invoke(cli, list(args), prog_name="dicewise")


def ok(*args):
    result = run(*args)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def test_rules_lists_every_ruleset():
    out = unwrapped(ok("rules").stdout)
    assert [line.split()[0] for line in out] == list(RULESETS)
    for line in out:
        assert line.split()[1] in ("exact", "approximate")
    rows = json.loads(ok("rules", "--json").stdout)
    assert [r["name"] for r in rows] == list(RULESETS)


@pytest.mark.parametrize("name", list(CATEGORY_GAMES))
def test_rules_of_a_category_game(name):
    game = category_game(name)
    out = joined(ok("rules", name).stdout)
    assert "categories: " + ", ".join(game.category_names) in out
    for key in game.options:
        assert f"option {key} = " in out
    info = json.loads(ok("rules", name, "--json").stdout)
    assert info["categories"] == list(game.category_names)
    assert [o["name"] for o in info["options"]] == list(game.options)


#: What ``rules RULESET --json`` holds for every game, and what each kind of game adds
#: (docs/json.md).
RULES_KEYS = {"name", "title", "exact", "commands", "policies", "policy_names", "tables",
              "advise_inputs", "sheet", "own_group", "command_notes", "options"}
RULES_ADDED = {
    "general": {"table", "categories", "sheet_counters"},
    "poker-programs": {"table", "categories", "sheet_counters"},
    "yahtzee": {"table", "categories", "sheet_counters"},
    "yatzy": {"table", "categories", "sheet_counters"},
    "poker-school": {"table", "rows", "school_rows", "cells_per_row", "turns", "solution",
                     "actions"},
    "ryzykant": {"table", "pair_sums", "box_values", "box", "fifth_faces", "end_marks",
                 "action"},
    "risk": {"group_commands", "command_help", "command_options"},
}


@pytest.mark.parametrize("name", list(RULESETS))
def test_rules_json_holds_what_docs_json_lists(name):
    info = json.loads(ok("rules", name, "--json").stdout)
    assert set(info) == RULES_KEYS | RULES_ADDED[name]
    for option in info["options"]:
        assert set(option) == {"name", "default", "choices", "help", "minimum", "maximum"}
    if "table" in info:  # the games with duel: the table sizes and who plays there
        assert set(info["table"]) == {"players", "policies", "seat_policies"}
        assert set(info["table"]["policies"]) <= set(info["table"]["seat_policies"])
    if "group_commands" in info:  # Risk: a help line and the options of each own command
        assert set(info["command_help"]) == set(info["command_options"]) == \
            set(info["group_commands"])
    assert set(json.loads(ok("rules", "--json").stdout)[0]) == {"name", "exact", "title"}


SIMULATE_KEYS = {"ruleset", "rule_options", "policy", "seed", "games", "mean", "std", "ci95",
                 "min", "max", "percentiles", "histogram", "games_per_second", "approximate",
                 "expected_score", "error_estimate"}


def test_simulate_and_duel_json_hold_what_docs_json_lists():
    """Policies that need no table: the keys of ``simulate`` and ``duel`` (General's optimal
    simulation in test_play, a table of several in test_multiplayer)."""
    sim = json.loads(ok("simulate", "general", "--games", "20", "--policy", "greedy",
                        "--json").stdout)
    assert set(sim) == SIMULATE_KEYS | {"ended_on_first_roll_rate"}
    assert sim["expected_score"] is None and sim["error_estimate"] is None
    assert set(sim["percentiles"]) == {"5", "25", "50", "75", "95"}
    assert all(len(bar) == 3 and bar[0] < bar[1] for bar in sim["histogram"])
    assert sum(bar[2] for bar in sim["histogram"]) == 20
    duel = json.loads(ok("duel", "general", "--a", "greedy", "--b", "random", "--games", "20",
                         "--json").stdout)
    assert set(duel) == {"ruleset", "rule_options", "a", "b", "seed", "games", "wins",
                         "wins_ci95", "draws", "draws_ci95", "losses", "losses_ci95",
                         "mean_margin", "mean_margin_ci95", "mean_a", "mean_b"}


def test_rules_general_names_the_sheet_boxes():
    out = joined(ok("rules", "general").stdout)
    assert "ones, twos, threes, fours, fives, sixes, straight, full_house, four, general" in out
    assert "joker | plain | circular" in out and "ends | sixty" in out


@pytest.mark.parametrize("line, indent, shown", [
    # between entries; a name's one-word gloss stays with it, never "единицы" / "(ones)"
    ("графы: единицы (ones), две пары (two_pairs), тройки (threes)", 4,
     "графы: единицы (ones),\n    две пары (two_pairs),\n    тройки (threes)"),
    # before a parenthesis, kept whole where it fits a line: "2 броска" stays whole too
    ("оставить 3 3 6 6 (перебросить 1; ещё 1 бросок)", 4,
     "оставить 3 3 6 6\n    (перебросить 1; ещё 1 бросок)"),
    # a value and its explanation, where there is no entry to break between
    ("the target 500 can no longer be reached: the choices are ranked", 4,
     "the target 500 can no longer be reached:\n    the choices are ranked"),
    # before the arrow that marks a choice, under the choices
    ("  2  0.1125  keep 6 6  ← the expected-score choice", 13,
     "  2  0.1125  keep 6 6\n             ← the expected-score choice"),
    # before a quoted name as the last resort, never inside it
    ("  4   331.4330  поставить крест в графу «малый стрит»", 16,
     "  4   331.4330  поставить крест в графу\n                «малый стрит»"),
    # a list too wide for a line of its own, after a slash (what rivals took, at a table)
    ("* Zz: 512 — pair=12, taken=twos/threes/fours/fives/triplet/big_straight", 4,
     "* Zz: 512 — pair=12, taken=twos/threes/\n    fours/fives/triplet/big_straight"),
    # a number is never parted from its label: no break, the line stays as it is
    ("value at start: -593.4310700 and more words", 4,
     "value at start: -593.4310700 and more words")])
def test_a_long_line_breaks_between_entries_not_inside_one(line, indent, shown, monkeypatch):
    """``wrapped`` on a terminal of 40 columns: where a line of entries breaks, and where not."""
    from dicewise.cli.format import wrapped

    monkeypatch.setenv("COLUMNS", "40")
    assert wrapped(line, entries=True, indent=indent) == shown


def test_solve_json(tmp_path, solved):
    out = tmp_path / "general.dwt"
    report = json.loads(ok("solve", "general", "--json", "--out", str(out)).stdout)
    common = {"ruleset", "rule_options", "expected_score", "approximate", "ci95", "error_estimate",
              "seconds", "built", "table"}
    assert set(report) == common | {"states", "p_big_general"}
    assert report["approximate"] is False and report["built"] is True
    _, values = solved("general")
    assert report["ruleset"] == "general"
    assert report["rule_options"] == {"straight": "joker", "big_general": "ends"}
    assert report["expected_score"] == pytest.approx(values.expected_score, abs=1e-9)
    assert report["states"] == values.n_reachable
    assert report["seconds"] >= 0 and Path(report["table"]) == out and out.exists()
    # RULES.md: solvers also report P(big general in a game); every turn opens with a throw
    # of five dice, 6 of the 7776 throws are five of a kind, so 1 - (1 - 6/7776)^10.
    assert report["p_big_general"] == pytest.approx(1 - (1 - 6 / 7776) ** 10, rel=1e-12)


def test_solve_uses_the_cache_and_options(solved, empty_cache):
    first = json.loads(ok("solve", "general", "-o", "straight=plain", "--json").stdout)
    assert first["rule_options"]["straight"] == "plain"
    assert first["expected_score"] == pytest.approx(solved("general", straight="plain")[1].expected_score)
    assert Path(first["table"]).exists()
    again = json.loads(ok("solve", "general", "--option", "straight=plain", "--json").stdout)
    assert again["table"] == first["table"] and again["built"] is False and first["built"]
    assert "optimal expected score" in ok("solve", "general", "-o", "straight=plain").stdout


def test_advise_json_shape():
    args = ["advise", "general", "--roll", "1", "--dice", "2", "2", "4", "6", "6",
            "--sheet", "ones=3,straight=25"]
    doc = json.loads(ok(*args, "--json").stdout)
    assert doc["best"] == doc["choices"][0]
    assert doc["best"]["loss"] == 0
    assert doc["rule_options"] == {"straight": "joker", "big_general": "ends"}
    assert doc["dice"] == [2, 2, 4, 6, 6] and doc["roll"] == 1 and doc["points"] == 28
    writes = [o for o in doc["choices"] if "write" in o["action"]]
    keeps = [o for o in doc["choices"] if "keep" in o["action"]]
    for o in keeps:
        assert list(o) == ["action", "label", "expected", "loss", "dice", "rolls_left"]
        assert o["rolls_left"] == 2
        assert o["action"] == {"keep": o["dice"]}
    for o in writes:
        assert list(o) == ["action", "label", "expected", "loss", "category", "score"]
        assert o["action"] == {"write": o["category"]}
    assert {o["category"] for o in writes} == {"twos", "threes", "fours", "fives", "sixes",
                                               "full_house", "four", "general"}
    assert len(keeps) == 3 * 2 * 3  # 0-2 twos, 0-1 four, 0-2 sixes
    expected = [o["expected"] for o in doc["choices"]]
    assert expected == sorted(expected, reverse=True)
    api = dicewise.advise("general", dice=[2, 2, 4, 6, 6], roll=1, sheet="ones=3,straight=25")
    assert json.loads(json.dumps([c.to_json() for c in api.choices])) == doc["choices"]
    text = ok(*args).stdout
    assert "keep" in text and "write" in text


def test_advise_roll_three_lists_only_writes():
    sheet = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,full_house=30,four=40"
    doc = json.loads(ok("advise", "general", "--roll", "3", "--dice", "5", "4", "3", "2", "1",
                        "--sheet", sheet, "--json").stdout)
    assert all(list(o["action"]) == ["write"] for o in doc["choices"])
    assert {o["category"]: o["score"] for o in doc["choices"]} == {"straight": 20, "general": 0}
    assert doc["best"]["category"] == "straight"


DICE = ["--dice", "1", "2", "3", "4", "5"]


@pytest.mark.parametrize("args, fragment", [
    (["advise", "general", "--roll", "1", "--dice", "1", "2", "3", "4"], "--dice takes 5 values"),
    (["advise", "general", "--roll", "1", "--dice", "1", "2", "3", "4", "5", "6"],
     "unexpected arguments: 6"),
    (["advise", "general", *DICE], "--roll"),
    (["advise", "nosuchgame", "--roll", "1", *DICE], "unknown ruleset 'nosuchgame'"),
    (["solve", "nosuchgame"], "unknown ruleset"),
    (["rules", "nosuchgame"], "unknown ruleset"),
    (["advise", "general", "--roll", "1", *DICE, "-o", "colour=red"], "unknown option 'colour'"),
    (["advise", "general", "--roll", "1", *DICE, "-o", "straight=bent"], "straight=bent"),
    (["advise", "general", "--roll", "1", *DICE, "-o", "straight"], "KEY=VALUE"),
    (["solve", "yatzy", "-o", "two_pairs=maybe"], "two_pairs=maybe"),
    (["advise", "general", "--roll", "1", *DICE, "--sheet", "twos=7"], "twos=7"),
    (["advise", "general", "--roll", "1", *DICE, "--sheet", "straight=23"], "straight=23"),
    (["advise", "general", "--roll", "1", *DICE, "--sheet", "ones=1,ones=2"], "twice"),
    (["advise", "general", "--roll", "1", *DICE, "--sheet", "eights=8"], "unknown category"),
    (["advise", "poker-programs", "--roll", "1", *DICE, "--sheet", "pair=12"], "impossible sheet"),
    (["advise", "yahtzee", "--roll", "1", *DICE, "--sheet", "yahtzee_bonus=1"], "yahtzee_bonus"),
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(args, fragment):
    assert_one_error_line(run(*args), fragment)


@pytest.mark.parametrize("args, help_of", [
    (["advise", "general", "--roll", "1", "--dice", "1", "2", "3"], "dicewise advise --help"),
    (["--bogus"], "dicewise --help"),
    (["risk", "--bogus"], "dicewise risk --help"),
    (["risk", "battle", "3"], "dicewise risk battle --help"),
])
def test_usage_errors_name_the_help_of_the_command_at_fault(args, help_of):
    assert_one_error_line(run(*args), help_of)


@pytest.mark.parametrize("command, known", [
    ("rules", "general, poker-programs, poker-school, risk, ryzykant, yahtzee, yatzy"),
    ("play", "general, poker-programs, poker-school, ryzykant, yahtzee, yatzy"),
    ("chance", "general, poker-programs, poker-school, yahtzee, yatzy"),
])
def test_an_unknown_ruleset_lists_the_games_the_command_plays(command, known):
    """`play nosuch` offered risk, which play then refused: the list is what the command takes."""
    assert_one_error_line(run(command, "nosuch"), f"unknown ruleset 'nosuch' (known: {known})")


def test_a_bare_group_shows_its_help_not_an_error():
    r = run("risk")
    assert "Usage: dicewise risk" in r.output and "error" not in r.output


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
@pytest.mark.parametrize("group", [[], ["risk"]])
def test_a_groups_help_says_each_commands_first_sentence_whole(group, lang):
    """The list of commands wraps each one's first sentence, never cutting it to "...", in
    every language: what a command is for is the one thing the list says."""
    r = run(*group, "--lang", lang, "--help")
    listed = r.output.split("\n\n")[-1].splitlines()[1:]  # the last section: the commands
    assert len(listed) > 5 and not any(line.rstrip().endswith("...") for line in listed), listed
    said = " ".join(" ".join(listed).split())
    first = {"": "Rank every choice for these dice: keeps (with rolls left), writes, splits",
             "risk": "Attack territories with DEFENDERS armies in order, starting from ARMIES"}
    if lang == "en":
        assert first[" ".join(group)] in said


@pytest.mark.parametrize("args, said", [
    (["bench-agent", "general", "--agent-cmd", "--games", "2"],
     "--agent-cmd needs a value: --games is an option of this command"),
    (["advise", "general", "--roll", "1", "--sheet", "--dice", "1", "2", "3", "4", "5"],
     "--sheet needs a value: --dice is an option of this command"),
    (["simulate", "general", "-o", "--json"], "--option needs a value: --json is an option"),
    (["advise", "general", "--roll", "--dice", "1", "2", "3", "4", "5"],  # not "no number"
     "--roll needs a value: --dice is an option of this command"),
    (["simulate", "general", "--seed", "--games", "3"], "--seed needs a value: --games is an"),
    (["risk", "battle", "5", "3", "--dice", "--json"], "--dice needs a value: --json is an"),
    (["risk", "battle", "5", "3", "--lang", "--json"], "--lang needs a value: --json is an"),
    (["advise", "general", "--sheet", "--help"], "--sheet needs a value: --help is an option"),
    (["advise", "general", "--roll", "1", "--dice", "1", "2", "3", "4", "5", "--lang", "ru",
      "--sheet", "--json"], "--sheet: нужно значение, а --json — ключ этой команды"),
])
def test_an_option_left_without_its_value_is_named(args, said):
    """An option whose value was left out takes the next option as it: that is said, not
    the stray words after it, nor a missing option the user did type."""
    r = run(*args)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.stderr
    assert said in r.stderr, r.stderr


@pytest.mark.parametrize("args, said", [
    (["advise", "general", "--roll", "1", "--dice", "1", "2", "3", "4", "5", "--sheet",
      "ones=3", "--sheet", "twos=2"], "--sheet is given twice; give it once"),
    (["advise", "general", "--roll", "1", "--dice", "1", "2", "3", "4", "5", "--roll=3"],
     "--roll is given twice"),
    (["simulate", "general", "--games", "3", "--seed", "1", "--seed", "2", "--lang", "pl"],
     "--seed podano dwa razy; podaj raz"),
    (["risk", "battle", "5", "3", "--dice", "2", "--dice", "3"], "--dice is given twice")])
def test_an_option_of_one_value_given_twice_is_refused(args, said):
    """click keeps an option's last value and drops the first without a word: a sheet
    typed in two parts would lose one."""
    r = run(*args)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and said in r.stderr, r.stderr


def test_options_that_repeat_still_repeat():
    r = run("simulate", "general", "--games", "2", "-o", "straight=joker", "-o",
            "big_general=ends", "--json", "--json")
    assert r.exit_code == 0, r.stderr


FULL = ",".join(f"{n}=0" for n in category_game("general").category_names)
BAD_POSITIONS = [
    (["--roll", "1", "--dice", "1", "2", "3", "4", "7"], "a die shows 1..6, not 7"),
    (["--roll", "1", "--dice", "0", "2", "3", "4", "5"], "a die shows 1..6, not 0"),
    (["--roll", "4", *DICE], "not 4"),
    (["--roll", "0", *DICE], "not 0"),
    (["--roll", "1", *DICE, "--sheet", FULL], "the sheet is full"),
]


@pytest.mark.parametrize("args, fragment", BAD_POSITIONS)
def test_bad_position_with_the_table_present(args, fragment):
    ok("solve", "general")
    assert_one_error_line(run("advise", "general", *args), fragment)


@pytest.mark.parametrize("args, fragment", BAD_POSITIONS)
def test_bad_position_is_refused_before_any_solve(args, fragment, empty_cache):
    assert_one_error_line(run("advise", "general", *args), fragment)
    assert not any(empty_cache.iterdir())  # no table was built to find the position bad


def assert_one_error_line(result, fragment):
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("dicewise: error:") and fragment in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""


def _sheets(name):
    """Sheets of ``name``'s boxes with any values, the game's own and others."""
    value = st.one_of(st.just("x"), st.integers(-5, 80).map(str),
                      st.sampled_from(["", "-0", "1.5", "abc"]))
    boxes = st.lists(st.sampled_from([*category_game(name).category_names, "eights"]),
                     max_size=6)
    return boxes.flatmap(lambda names: st.lists(value, min_size=len(names), max_size=len(names))
                         .map(lambda values: ",".join(f"{n}={v}" for n, v in zip(names, values))))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), name=st.sampled_from(["general", "poker-programs"]),
       dice=st.one_of(st.lists(st.integers(1, 6), min_size=5, max_size=5),
                      st.lists(st.integers(-1, 8), min_size=4, max_size=6)),
       roll=st.one_of(st.integers(1, 3), st.integers(0, 4)))
def test_any_position_is_advised_or_refused_in_one_line(data, name, dice, roll):
    ok("solve", name)  # once: the table stays in this test's cache
    sheet = data.draw(_sheets(name))
    result = run("advise", name, "--roll", str(roll), "--dice", *map(str, dice),
                 "--sheet", sheet, "--json")
    event("advised" if result.exit_code == 0 else "refused")
    if result.exit_code == 0:
        doc = json.loads(result.stdout)
        assert doc["choices"] or doc["ended"]  # a first-roll General ends the game
    else:
        assert_one_error_line(result, "")


def test_every_help_page_is_plain_text_and_says_what_each_option_is():
    """No reST markup (``--json``) from a docstring, and no option without a line of help."""
    import click

    def pages(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from pages(sub, [*path, name])

    for path, command in pages(cli, ["dicewise"]):
        text = command.get_help(click.Context(command, info_name=" ".join(path)))
        assert "``" not in text, path
        bare = [p.opts for p in command.params if isinstance(p, click.Option) and not p.help
                and not p.hidden and "--help" not in p.opts]
        assert not bare, (path, bare)


@pytest.mark.parametrize("args,lang", spread(
    [("simulate", "general", "--games", "1", "--policy", "greedy"),
     ("duel", "general", "--games", "1"), ("duel", "general", "--players", "3", "--games", "3")],
    ["en", "ru", "pl"]))
def test_one_game_leaves_its_interval_undefined_with_a_dash_not_nan(args, lang):
    """One game (one per seat) has no interval of its mean: the text shows a dash, as the
    JSON shows null, in every language, not "nan"."""
    out = ok(*args, "--lang", lang).stdout
    assert "nan" not in out and "— .. —" in out, out


def test_a_policy_refused_names_every_policy_and_target_play_where_there_is_none():
    unknown = run("simulate", "general", "--policy", "foo")
    assert unknown.exit_code == 2 and unknown.stderr == (
        "dicewise: error: unknown policy 'foo' for general (policies: optimal, greedy, random, "
        "target:T)\n")
    none = run("simulate", "ryzykant", "--policy", "target:300", "--games", "10")
    assert none.exit_code == 2 and none.stderr.startswith(
        "dicewise: error: ryzykant has no play for a target (policies: optimal, search")
    negative = run("duel", "general", "--a", "target:-5", "--b", "optimal")
    assert negative.exit_code == 2 and "a whole number of points, at least 0, not -5" in negative.stderr
    assert "policies: optimal, greedy, random, target:T" in ok("rules", "yahtzee").stdout


@pytest.mark.slow  # solves Ryzykant's end_marks=1 exactly (4 s)
def test_solve_speaks_to_people_not_in_pythons_reprs():
    """Ten figures of a float, yes or no, and rule options as --option takes them."""
    out = ok("solve", "ryzykant", "-o", "end_marks=1", "--lang", "en").stdout
    assert "exact: yes" in out and "True" not in out
    gap = next(line for line in out.splitlines() if "gap:" in line).split(": ")[1]
    assert len(gap.lstrip("-").split("e")[0].replace(".", "")) <= 10, gap  # not 1.1368683772161603e-13
    out = ok("solve", "poker-school", "-o", "columns=1", "-o", "school_cross_erases=false").stdout
    assert "school_cross_erases=false" in out.splitlines()[0]
    # in words, as Russian and Polish say it, not the key's "p big general"
    assert "\nprobability of a big general in a game: 0.007689312597\n" in ok(
        "solve", "general", "--lang", "en").stdout


def test_the_typed_value_of_an_option_is_the_last_one_given_as_click_takes_it():
    from dicewise.cli.typed import typed_value

    names = ["--lang", "-l"]
    assert typed_value(["simulate", "--lang", "ru", "--lang", "pl"], names) == "pl"
    assert typed_value(["--lang=ru", "-l", "pl"], names) == "pl"
    assert typed_value(["-l", "ru", "--lang=pl"], names) == "pl"
    assert typed_value(["--lang", "pl", "general"], ["--games"]) is None
    assert typed_value(["--lang"], names) is None  # the option with no value after it
    assert typed_value(["--dice", "1", "2", "3", "--dice", "4", "5", "6"], ["--dice"], 3) == "4 5 6"


def test_the_time_left_is_shown_from_the_moment_its_share_is_done():
    from dicewise.cli import format as fmt

    assert fmt.ETA_AFTER == 0.02
    assert fmt.time_left(0.99, 50, 1) is None  # under 2% of the work done: nothing yet
    assert fmt.time_left(1, 50, 1) == "00:00:49"  # 2% done in a second: 49 s to go


def test_a_log_never_says_more_than_all_the_work_done(monkeypatch, capsys):
    """Fractions of progress may add up past the length (rounding): a log says 100%."""
    from dicewise.cli import format as fmt

    monkeypatch.setattr(fmt, "LOG_EVERY", 0)
    update = fmt._logged_progress(10, "building")
    update(4)
    update(7.5)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in lines] == ["building ... 40%", "building ... 100%"]


def test_a_log_hears_how_far_long_work_has_come(monkeypatch):
    """Where stderr is no terminal, a line a minute (here: at every step) says the share done,
    so a long build in a log is not one silent line."""
    from dicewise.cli import format as fmt

    monkeypatch.setattr(fmt, "LOG_EVERY", 0)
    play = ("simulate", "poker-programs", "--games", "1024", "--policy", "greedy", "--lang", "en")
    lines = ok(*play).stderr.splitlines()
    assert lines[0] == "playing 1,024 games (greedy) ..."
    assert lines[-1].startswith("playing 1,024 games (greedy) ... 100% (0:")
    monkeypatch.setattr(fmt, "LOG_EVERY", 60)  # short work: the label alone
    assert ok(*play).stderr == "playing 1,024 games (greedy) ...\n"


def test_a_bar_says_the_time_left_only_once_it_means_something(monkeypatch):
    """On a terminal, no estimate from the first steps of a long build (click's read
    ``588d 15:54:06``): the bar and its share alone, then the time left from the whole time so
    far once a few percent are done."""
    import io
    import sys
    import time

    from dicewise.cli import format as fmt

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    now = [1000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    monkeypatch.setattr(sys, "stderr", Terminal())
    shown = []
    with fmt.progress(1_000_000, "building") as update:
        for seconds, steps in ((5, 10), (5, 10), (60, 15_000), (60, 35_000), (60, 450_000)):
            now[0] += seconds
            update(steps)
            shown.append(sys.stderr.getvalue().split("\r")[-1].replace("\x1b[?25l", "").strip())
    # 0.001% done after 5 s: click's own estimate was 5d 18:53:15; 1.5% after 70 s: none yet
    assert all(re.fullmatch(r"building\s+\[-+\]\s+[01]%", line) for line in shown[:3]), shown
    assert shown[3].endswith(" 5%  00:41:08") and shown[4].endswith(" 50%  00:03:09"), shown
    assert fmt.time_left(0.05, 1, 3 * 86400) == "57d 00:00:00"
    assert fmt.time_left(1, 1, 10) == "" and fmt.time_left(0, 0, 10) == ""


@pytest.mark.parametrize("lang,args,said", [
    # English is Polish's path with the message untranslated: CI's second step runs it
    pytest.param("en", ["simulate", "general", "--games", "1000000", "--policy", "greedy"],
                 "dicewise: interrupted", marks=pytest.mark.slow),
    ("pl", ["simulate", "general", "--games", "1000000", "--policy", "greedy"],
     "dicewise: przerwano"),
    # forked workers, which a terminal's Ctrl+C reaches too, end without a word
    ("ru", ["solve", "general", "--players", "2", "--scheduler", "processes", "--workers", "2"],
     "dicewise: прервано")])
def test_ctrl_c_says_so_in_the_players_language_and_exits_130(lang, args, said, tmp_path):
    """Ctrl+C during a long command (here once its progress line is out): one line in the
    player's language, not click's English "Aborted!", and status 130 as shells expect.
    Nothing more runs after that line: Python's teardown, where a library stopped mid-way
    (numba's compiler) could crash or complain, is skipped (here it would say "torn down")."""
    import os
    import signal
    import subprocess
    import sys
    import time

    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import atexit, sys\natexit.register(lambda: print('torn down', file=sys.stderr))\n")
    env = {**os.environ, "DICEWISE_CACHE": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(site), *filter(None, [os.environ.get(
               "PYTHONPATH")])])}
    # Ctrl+C heard as at a terminal, even where these tests run in the background of a
    # shell, whose children inherit SIGINT ignored (and Python then never raises it)
    command = subprocess.Popen([sys.executable, "-m", "dicewise.cli", *args, "--lang", lang],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        started = command.stderr.readline().decode()
        assert started.endswith(" ...\n"), started
        time.sleep(1.5 if "--workers" in args else 0.3)  # the work under way (workers forked)
        os.killpg(command.pid, signal.SIGINT)  # as a terminal's Ctrl+C: every process
        out, err = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
    assert command.returncode == 130, err.decode()
    assert err.decode().splitlines() == [said] and not out


def test_sigterm_stops_a_build_as_ctrl_c_does_and_takes_its_lock_away(tmp_path):
    """``kill`` (SIGTERM) during a table's build: one line, status 143, and the build's lock
    file removed with its workers gone, where Python's default would end the process on
    the spot and leave the lock behind."""
    import os
    import signal
    import subprocess
    import sys
    import time

    command = subprocess.Popen(
        [sys.executable, "-m", "dicewise.cli", "solve", "general", "--players", "2",
         "--scheduler", "processes", "--workers", "2", "--lang", "ru"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "DICEWISE_CACHE": str(tmp_path)}, start_new_session=True)
    try:
        started = command.stderr.readline().decode()
        assert started.endswith(" ...\n"), started
        time.sleep(1.5)  # the workers forked and at work
        assert list(tmp_path.glob(".*.lock"))
        command.terminate()  # the main process alone, as `kill PID` does
        out, err = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
    assert command.returncode == 143, err.decode()
    assert err.decode().splitlines() == ["dicewise: остановлено сигналом завершения"] and not out
    assert not list(tmp_path.glob(".*.lock"))
    for _ in range(100):  # the workers follow their parent out
        try:
            os.killpg(command.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("a worker outlived its command")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_a_request_larger_than_the_memory_is_one_line_and_status_2(tmp_path):
    """A machine with little memory left (here 40 MiB above what the program has once
    loaded) refuses a battle of nine million states in one line, not with a traceback."""
    import subprocess
    import sys

    program = tmp_path / "little_memory.py"
    program.write_text(
        "import resource, sys\n"
        "import numpy, scipy.sparse\n"
        "from dicewise.cli.main import main\n"
        "size = next(int(line.split()[1]) for line in open('/proc/self/status')\n"
        "            if line.startswith('VmSize')) * 1024\n"
        "resource.setrlimit(resource.RLIMIT_AS, (size + 40 * 2**20, resource.RLIM_INFINITY))\n"
        "sys.argv = ['dicewise', *sys.argv[1:]]\n"
        "main()\n")
    done = subprocess.run([sys.executable, str(program), "risk", "battle", "3000", "3000"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == ("dicewise: error: not enough memory for this "
                                            "request; ask for less (fewer games, smaller "
                                            "armies or tables)")
    assert "Traceback" not in done.stderr


def test_rules_of_poker_school_names_its_rows_as_sheets_write_them():
    """The README: `rules` prints the names a sheet uses; poker-school's are rows."""
    from dicewise.solver.poker_school.rules import ROW_NAMES

    assert "rows: " + ", ".join(ROW_NAMES) in joined(ok("rules", "poker-school").stdout)
    assert "строки: единицы (ones), " in joined(ok("rules", "poker-school", "--lang", "ru").stdout)


def test_ctrl_c_that_a_library_swallowed_still_ends_as_an_interrupt(monkeypatch):
    """numba's compiler swallows the KeyboardInterrupt of a Ctrl+C in a callback and fails
    with an error of its own: that error is still the interrupt (one line, status 130),
    while the same error without a Ctrl+C stays an error."""
    import ctypes
    import os
    import signal
    import sys
    import time

    import click
    from click.testing import CliRunner

    from dicewise.cli.main import Group

    @click.group(cls=Group)
    def group():
        pass

    def callback():  # Ctrl+C while C code runs Python: the exception cannot get out
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)

    @group.command()
    @click.option("--press/--no-press")
    def compile(press):
        if press:
            ctypes.CFUNCTYPE(None)(callback)()  # Python reports it as unraisable and goes on
        raise RuntimeError("no compiled object yet")

    reported = []  # what Python would print: "Exception ignored on calling ctypes callback"
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    # Ctrl+C heard as at a terminal, even where the tests run in the background of a shell
    # (SIGINT inherited ignored)
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result = CliRunner().invoke(group, ["compile", "--press"])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, inherited)
    assert result.exit_code == 130, result.output
    assert result.stderr.splitlines() == ["dicewise: interrupted"] and not reported
    assert sys.unraisablehook == reported.append
    result = CliRunner().invoke(group, ["compile", "--no-press"])
    assert isinstance(result.exception, RuntimeError)


@pytest.mark.parametrize("where", ["ctypes callback", "__del__"])
def test_ctrl_c_that_a_library_swallowed_and_went_on_is_not_lost(where, monkeypatch):
    """A Ctrl+C raised where the exception cannot get out (a ctypes callback, a finaliser)
    while the code around goes on: the command still stops soon, one line and status 130,
    instead of working on to its end as though no key had been pressed."""
    import ctypes
    import os
    import signal
    import sys
    import time

    import click
    from click.testing import CliRunner

    from dicewise.cli.main import Group

    @click.group(cls=Group)
    def group():
        pass

    def press():  # Ctrl+C while code that cannot pass the exception on runs
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)

    class Finalised:
        def __del__(self):
            press()

    @group.command()
    def work():
        if where == "ctypes callback":
            ctypes.CFUNCTYPE(None)(press)()
        else:
            Finalised()  # dropped at once: its __del__ runs here
        for _ in range(300):  # a long solve going on: 30 s
            time.sleep(0.1)
        click.echo("finished")

    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        start = time.monotonic()
        result = CliRunner().invoke(group, ["work"])
        took = time.monotonic() - start
    finally:
        signal.signal(signal.SIGINT, inherited)
    assert result.exit_code == 130, result.output
    assert result.stderr.splitlines() == ["dicewise: interrupted"] and not reported
    assert took < 15, took  # not the 30 s of work


def test_advice_columns_stay_aligned_however_wide_the_numbers(capsys):
    """Ryzykant's values run to five digits before the point: a loss of 10,080 ran into
    the value before it and pushed its row's choice a column right."""
    from dicewise.cli.games import print_advice
    from dicewise.solver.protocol import Advice, Choice

    values = [19100.0, 17700.0, 9020.0, 150.25]
    choices = tuple(Choice({"write": f"box{i}"}, f"write box{i}", v, values[0] - v,
                           loss_error=123456.5 if i else 1.5)
                    for i, v in enumerate(values))
    print_advice(Advice("general", {}, {}, choices, "a position", approximate=True))
    head, *rows = capsys.readouterr().out.splitlines()[2:]
    ends = [[m.end() for m in re.finditer(r"\S+", line)][1:4] for line in rows]
    assert all(e == ends[0] for e in ends[1:]), "\n".join([head] + rows)
    assert [m.end() for m in re.finditer(r"\S+", head)][:3] == ends[0]
    assert all(re.match(r" +\d+ +[\d.]+ +[\d.]+ +±[\d.]+  write box\d", r) for r in rows)


@pytest.mark.parametrize("game", ["yahtzee", "ryzykant"])
def test_exact_for_two_players_of_a_game_without_a_solved_race_says_what_is_missing(game):
    """Two players were asked for: what the game lacks is a race solved exactly."""
    r = run("duel", game, "--players", "2", "--exact", "--games", "10")
    assert r.exit_code == 2 and f"--exact is for a two-player race solved exactly, which {game} " \
        "has not" in r.stderr, r.stderr


@pytest.mark.parametrize("args", [["--lang", "ru", "--lang", "pl", "rules"],
                                  ["risk", "--lang", "ru", "--lang=pl", "battle", "5", "3"]])
def test_a_groups_option_given_twice_is_refused_and_a_commands_own_is_its_own(args):
    r = run(*args)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "--lang" in r.stderr, r.stderr
    assert run("--lang", "ru", "rules", "--lang", "pl").exit_code == 0
