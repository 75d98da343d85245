"""The ``risk`` command group, standalone and under the main ``dicewise`` group."""

from __future__ import annotations

import csv
import importlib.util
import json
import os

import numpy as np
import pytest
from click.testing import CliRunner

from dicewise.cli.main import cli
from dicewise.cli.risk import risk
from dicewise.solver.registry import get_game
from dicewise.solver.risk import RiskRules
from dicewise.solver.risk.game import GROUP_COMMANDS, RISK
from dicewise.tables.format import TableError, read_table


@pytest.fixture(scope="module")
def main_cli():
    """The main group, which registers the Risk commands."""
    assert cli.get_command(None, "risk") is risk
    return cli


def run(args, group=risk):
    return CliRunner().invoke(group, args)


def run_json(args):
    r = run(args + ["--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


#: The keys of each command's JSON, as docs/json.md lists them.
BATTLE = {"attacker", "defender", "dice", "policy", "rule_options", "p_conquer",
          "attacker_survivors", "defender_survivors", "stopped", "expected_attacker_losses",
          "expected_defender_losses", "value"}
ADVISE = {"attacker", "defender", "policy", "rule_options", "go_on", "attacker_dice",
          "defender_dice", "value", "stop_value", "p_conquer", "options"}
CHAIN = {"armies", "defenders", "garrison", "policy", "rule_options", "p_all", "reached",
         "expected_final_armies", "expected_armies_left"}
CARDS = {"sets_traded", "next_set_values", "hand", "p_set_after", "p_set_after_exact",
         "card_armies_per_turn", "p_trade_per_turn", "card_armies_total", "turns",
         "conquer_prob", "wild_cards"}


def test_battle_json():
    out = run_json(["battle", "10", "10"])
    assert set(out) == BATTLE
    assert out["p_conquer"] == pytest.approx(0.47993525647768026, abs=1e-15)
    total = sum(out["attacker_survivors"].values()) + sum(out["defender_survivors"].values())
    assert total == pytest.approx(1.0, abs=1e-12)
    assert out["dice"] == "max"


def test_battle_minimax_and_human_output():
    out = run_json(["battle", "30", "25", "--dice", "minimax"])
    assert 0 < out["p_conquer"] < 1 and out["policy"]["dice"] == "minimax"
    r = run(["battle", "10", "10"])
    assert r.exit_code == 0 and "P(conquer)" in r.output and "0.4799352564" in r.output


def test_advise():
    out = run_json(["advise", "7", "4", "--objective", "conquest"])
    assert set(out) == ADVISE
    assert [set(o) for o in out["options"]] == [{"attacker_dice", "defender_dice", "value"}] * 3
    assert out["go_on"] and out["attacker_dice"] == 3 and out["defender_dice"] == 2
    out = run_json(["advise", "3", "2", "--objective", "expected-armies"])
    assert not out["go_on"] and out["stop_value"] == 1.0
    r = run(["advise", "7", "4"])
    assert r.exit_code == 0 and "roll 3 dice" in r.output


def test_chain_and_target():
    assert set(run_json(["chain", "20", "3", "5", "2"])) == CHAIN
    out = run_json(["chain", "20", "3", "5", "2", "--garrison", "1", "--target", "0.8"])
    assert set(out) == CHAIN | {"target"} and set(out["target"]) == {"p", "min_armies", "p_at_min"}
    assert sum(out["reached"].values()) == pytest.approx(1.0, abs=1e-12)
    assert out["target"]["min_armies"] == 16 and out["target"]["p_at_min"] >= 0.8
    r = run(["chain", "20", "3", "5", "2"])
    assert r.exit_code == 0 and "P(all conquered)" in r.output


def test_a_chain_never_conquered_has_no_final_armies_rather_than_zero():
    """Two armies cannot take two territories: the armies left on the last one, given that
    all were conquered, are undefined (a conquered territory holds at least one army)."""
    out = run_json(["chain", "2", "3", "3"])
    assert out["p_all"] == 0.0 and out["expected_final_armies"] is None
    assert out["expected_armies_left"] > 0
    line = next(x for x in run(["chain", "2", "3", "3"]).output.splitlines()
                if x.startswith("expected armies on the last territory"))
    assert line.split()[-1] == "—"
    assert run_json(["chain", "9", "3", "3"])["expected_final_armies"] >= 1


@pytest.mark.parametrize("lang", ["en", "ru", "pl"])
def test_a_long_chain_is_broken_between_its_territories(lang):
    chain = ["3", "5", "2", "10", "4", "6", "7", "8", "9"] * 2
    r = run(["chain", "20", *chain, "--lang", lang])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert max(map(len, lines)) <= 80, r.output
    assert lines[1].startswith("    -> ")


def test_cards():
    assert set(run_json(["cards"])) == CARDS
    out = run_json(["cards", "--sets-traded", "5", "--territories", "14"])
    assert set(out) == CARDS | {"territories", "reinforcements", "expected_armies_total"}
    assert set(run_json(["cards", "--territories", "14", "--players", "4"])) == \
        CARDS | {"territories", "reinforcements", "expected_armies_total", "players",
                 "starting_armies"}
    assert out["reinforcements"] == 4 and out["next_set_values"][0] == 15
    assert out["p_set_after_exact"]["3"] == "1/3"
    r = run(["cards", "--sets-traded", "5", "--territories", "14", "--hand", "iic",
             "--wild-cards", "2", "--players", "4"])
    assert r.exit_code == 0 and "30 each" in r.output


def test_table_csv_and_table_file(tmp_path):
    path = tmp_path / "risk.csv"
    r = run(["table", "--max", "12", "--format", "csv", "--out", str(path)])
    assert r.exit_code == 0, r.output
    described = run_json(["table", "--max", "12", "--format", "csv", "--out", str(path)])
    assert set(described) == {"out", "format", "max", "options"}
    rows = list(csv.reader(path.open()))
    assert rows[0][:3] == ["A", "D=1", "D=2"] and len(rows) == 12  # header + A = 2..12
    a10 = next(row for row in rows if row[0] == "10")
    assert float(a10[10]) == pytest.approx(0.47993525647768026, abs=1e-15)

    tab = tmp_path / "risk.tab"
    r = run(["table", "--max", "12", "--format", "table", "--out", str(tab)])
    assert r.exit_code == 0, r.output
    options = {"ties": "defender", "defender_sees_roll": False, "max_attacker_dice": 3,
               "max_defender_dice": 2, "dice": "max", "max": 12}
    digest = RISK.rules_digest(RiskRules())
    t = read_table(tab, kind="risk-conquest", ruleset="risk", options=options,
                   rules_digest=digest)
    assert t.arrays["p_conquer"][10, 10] == pytest.approx(0.47993525647768026, abs=1e-15)
    assert np.isnan(t.arrays["p_conquer"][0]).all()
    with pytest.raises(TableError):
        read_table(tab, kind="risk-conquest", ruleset="risk",
                   options={**options, "ties": "attacker"}, rules_digest=digest)


@pytest.mark.parametrize("args", [
    ["battle", "1", "5"], ["battle", "-3", "5"], ["battle", "5", "-2"], ["battle", "x", "3"],
    ["battle", "10", "10", "--dice", "foo"], ["battle", "10", "10", "--defender-sees-roll"],
    ["battle", "100000", "100000"], ["battle", "40000", "40000"],
    ["battle", "5", "3", "--ties", "nobody"], ["advise", "5", "3", "--threshold", "2",
                                               "--objective", "threshold"],
    ["chain", "20", "3", "--target", "1.5"], ["chain", "20", "3", "--target", "0"],
    ["chain", "20", "3", "0"], ["chain", "20", "3", "--garrison", "0"],
    ["chain", "20", "3", "--garison", "2"],
    ["table", "--max", "1", "--out", "x.csv"], ["table", "--max", "100000", "--out", "x.csv"],
    ["cards", "--hand", "iqz"], ["cards", "--territories", "0"], ["cards", "--sets-traded", "-1"],
    ["cards", "--players", "9"], ["cards", "--conquer-prob", "2"],
    # wild cards in the hand that the deck does not have (it has none by default)
    ["cards", "--hand", "iw"], ["cards", "--hand", "ww", "--wild-cards", "1"],
    # --option: unknown, malformed, a bad value, one the command does not read, given twice
    ["battle", "5", "3", "-o", "glory=1"], ["battle", "5", "3", "--option", "ties"],
    ["battle", "5", "3", "-o", "ties=nobody"], ["battle", "5", "3", "-o", "max_attacker_dice=4"],
    ["battle", "5", "3", "-o", "max_defender_dice=two"],
    ["battle", "5", "3", "-o", "defender_sees_roll=maybe"],
    ["battle", "5", "3", "-o", "defender_sees_roll=true"],  # needs --dice minimax
    ["battle", "5", "3", "-o", "wild_cards=2"], ["cards", "-o", "ties=attacker"],
    ["cards", "-o", "wild_cards=43"], ["cards", "-o", "wild_cards=-1"],
    ["battle", "5", "3", "-o", "ties=attacker", "-o", "ties=defender"],
    ["battle", "5", "3", "-o", "ties=attacker", "--ties", "attacker"],
    ["advise", "5", "3", "-o", "defender_sees_roll=false", "--defender-sees-roll"],
    ["cards", "--wild-cards", "2", "-o", "wild_cards=2"],
    ["table", "--max", "5", "--out", "x.csv", "-o", "max_defender_dice=3"],
    ["plot", "--max", "5", "--out", "x.png", "-o", "ties=nobody"],
    ["chain", "20", "3", "-o", "bogus=1"], ["plot", "--max", "5", "--out", "risk.xyz"],
])
@pytest.mark.parametrize("through_main", [False, True])
def test_bad_input_one_line_exit_2(args, through_main, main_cli):
    r = run(["risk", *args], main_cli) if through_main else run(args)
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dicewise: error: "), r.output


def test_plot(tmp_path):
    out = tmp_path / "risk.png"
    r = run(["plot", "--max", "12", "--out", str(out)])
    if importlib.util.find_spec("matplotlib") is None:
        assert r.exit_code == 2
        assert r.output.strip() == ("dicewise: error: plots need matplotlib: "
                                    "pip install 'dicewise[plot]'")
    else:
        assert r.exit_code == 0, r.output
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        r = run(["plot", "--max", "6", "--out", str(out), "--json"])
        assert r.exit_code == 0 and json.loads(r.output)["max"] == 6
        assert set(json.loads(r.output)) == {"out", "max", "options"}
        # --max 2 has one row (A = 2), and its 0.5 contour raised matplotlib's TypeError
        r = run(["plot", "--max", "2", "--out", str(out)])
        assert r.exit_code == 0, r.output


def test_help_lists_commands(main_cli):
    r = run(["risk", "--help"], main_cli)
    assert r.exit_code == 0
    for name in ("battle", "advise", "chain", "table", "plot", "cards"):
        assert name in r.output


@pytest.mark.parametrize("command", [["table", "--format", "csv"], ["table", "--format", "table"],
                                     ["plot"]])
@pytest.mark.parametrize("where", ["under a file", "missing folder", "a directory", "a fifo"])
def test_unwritable_output_is_one_line(tmp_path, command, where):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    out = {"under a file": blocker / "risk.out", "missing folder": tmp_path / "no" / "risk.out",
           "a directory": tmp_path, "a fifo": tmp_path / "fifo"}[where]
    if where == "a fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(out)
    r = run([*command, "--max", "5", "--out", str(out)])
    assert r.exit_code == 2
    assert r.output.startswith("dicewise: error: ") and r.output.count("\n") == 1, r.output
    assert blocker.read_text() == "not a folder"


# --------------------------------------------------------------------------- rule options


def test_the_registry_names_risk():
    assert get_game("risk") is RISK
    assert RISK.own_group == "risk" and RISK.exact and not RISK.commands
    assert RISK.rules({}) == RiskRules()


def test_option_specs_are_what_option_accepts():
    # Every declared option is read by some command, and `--option` takes exactly those.
    names = [s.name for s in RISK.option_specs()]
    assert names == ["ties", "defender_sees_roll", "max_attacker_dice", "max_defender_dice",
                     "wild_cards"]
    read = set()
    for command in GROUP_COMMANDS:
        for spec in RISK.command_option_specs(command):
            read.add(spec.name)
            value = str(spec.default).lower()  # booleans are written true | false
            assert RISK.parse_command_options(command, [f"{spec.name}={value}"]) == {
                spec.name: spec.default}
            r = run([command, "--help"])
            assert "--option" in r.output and spec.name in r.output
    assert read == set(names)
    assert set(GROUP_COMMANDS) == set(risk.commands)
    assert set(RISK.describe(RiskRules())["group_commands"]) == set(risk.commands)


def test_options_change_the_answer():
    # Ties to the attacker; a defender who sees the roll (0.3632 at 10 v 10, docs/risk.md);
    # two dice a side at most.
    def p(*args):
        return run_json(["battle", "10", "10", *args])["p_conquer"]

    base = p()
    assert p("-o", "ties=attacker") == p("--ties", "attacker") > base
    sees = p("--dice", "minimax", "-o", "defender_sees_roll=true")
    assert sees == p("--dice", "minimax", "--defender-sees-roll") == pytest.approx(0.3632, abs=1e-4)
    out = run_json(["battle", "10", "10", "-o", "max_attacker_dice=2"])
    assert out["p_conquer"] < base and out["rule_options"]["max_attacker_dice"] == 2
    r = run(["battle", "10", "10", "-o", "max_attacker_dice=2", "-o", "ties=attacker"])
    assert "ties to the attacker, at most 2 v 2 dice" in r.output


def test_wild_cards_option_and_alias():
    by_option = run_json(["cards", "-o", "wild_cards=2"])
    assert by_option == run_json(["cards", "--wild-cards", "2"])
    assert by_option["wild_cards"] == 2
    assert by_option["p_set_after_exact"] != run_json(["cards"])["p_set_after_exact"]


def test_rules_risk_lists_the_options(main_cli):
    r = run(["rules", "risk"], main_cli)
    assert r.exit_code == 0, r.output
    for spec in RISK.option_specs():
        assert spec.name in r.output


def test_table_file_records_the_rule_options(tmp_path):
    tab = tmp_path / "two.tab"
    r = run(["table", "--max", "8", "--format", "table", "--out", str(tab),
             "-o", "max_defender_dice=1"])
    assert r.exit_code == 0, r.output
    options = {"ties": "defender", "defender_sees_roll": False, "max_attacker_dice": 3,
               "max_defender_dice": 1, "dice": "max", "max": 8}
    rules = RiskRules(max_defender_dice=1)
    t = read_table(tab, kind="risk-conquest", ruleset="risk", options=options,
                   rules_digest=RISK.rules_digest(rules))
    from dicewise.solver.risk import conquest_table

    assert np.array_equal(t.arrays["p_conquer"][1:], conquest_table(8, rules)[1:])


@pytest.mark.parametrize("args, why", [
    (["battle", "5", "3", "--exchange-value", "5"],
     "--exchange-value is for --objective expected-armies"),
    (["advise", "5", "3", "--threshold", "0.4"], "--threshold is for --objective threshold"),
    (["battle", "5", "3", "--objective", "threshold", "--exchange-value", "1"],
     "--exchange-value is for --objective expected-armies"),
    (["table", "--max", "4", "--out", "x.csv", "--format", "bogus"],
     "--format bogus: give one of csv | table"),
])
def test_a_flag_of_another_objective_or_a_bad_choice_is_refused_by_its_name(args, why):
    result = run(args)
    assert result.exit_code == 2 and why in result.stderr, result.output
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("args, said", [
    (["battle", "10", "10", "--dise", "minimax"], "no such option --dise (did you mean --dice"),
    (["advise", "7", "4", "--treshold", "0.3"], "no such option --treshold (did you mean --thr"),
    (["chain", "20", "3", "--garison", "2"], "no such option --garison (did you mean --garr"),
    (["battle", "10", "10", "-x"], "no such option -x"),
    (["battle", "10", "10", "6"], "unexpected arguments: 6"),
])
def test_an_unknown_option_after_the_armies_is_refused_as_an_option(args, said):
    # Negative armies are taken as arguments (to be refused by name), and so was a misspelt
    # option after them: "Got unexpected extra arguments (--dise minimax)".
    result = run(args)
    assert result.exit_code == 2 and said in result.stderr, result.output
    assert len(result.stderr.splitlines()) == 1


def test_the_bar_of_a_csv_table_lasts_until_its_text_is_written(monkeypatch, tmp_path):
    # Writing a large table as CSV takes longer than solving it (10 M entries: about 9 s
    # against 2 s): the bar used to end with the solve, and the command then sat silent.
    from contextlib import contextmanager

    import dicewise.cli.risk as cli_risk
    from dicewise.solver.risk import reports, table_steps

    bar = {"open": False, "length": 0, "done": 0}

    @contextmanager
    def recorded(length, label):
        bar.update(open=True, length=length)
        yield lambda steps=1: bar.update(done=bar["done"] + steps)
        bar["open"] = False

    csv_text, in_bar = reports._csv_text, []

    def watched(*args):
        in_bar.append(bar["open"])
        return csv_text(*args)

    monkeypatch.setattr(cli_risk, "progress", recorded)
    monkeypatch.setattr(reports, "BAR_WORK", 0)
    monkeypatch.setattr(reports, "_csv_text", watched)
    r = run(["table", "--max", "12", "--out", str(tmp_path / "risk.csv")])
    assert r.exit_code == 0, r.output
    assert in_bar == [True] and bar["done"] == bar["length"] > table_steps(12)


def test_the_search_for_the_fewest_armies_shows_progress(monkeypatch):
    # `chain 2 1000 1000 --target 0.99 --dice minimax --defender-sees-roll` searched for
    # 6 s without a word on stderr: the bar covered the chain only, not the search.
    from dicewise.solver.risk import reports

    monkeypatch.setattr(reports, "BAR_WORK", 0)  # every solve shows its progress
    r = run(["chain", "20", "3", "5", "2", "--target", "0.8"])
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines() == ["solving ...", "searching ..."]


def test_the_turns_of_the_card_outlook_line_up_past_99():
    """`cards --turns 100` wrote "turn 99:" and "turn 100:" with their values in other
    columns; the turn numbers are padded to the widest."""
    lines = [line for line in run(["cards", "--turns", "100"]).output.splitlines()
             if line.lstrip().startswith("turn")]
    assert len(lines) == 100 and len({line.index(":") for line in lines}) == 1, lines[:2]


@pytest.mark.parametrize("args, head", [
    (["battle", "5", "3", "--objective", "threshold", "--threshold", "0.9"],
     "5 v 3  (dice max, ties to the defender, objective threshold 0.9)"),
    (["battle", "5", "3", "--objective", "expected-armies", "--exchange-value", "4"],
     "5 v 3  (dice max, ties to the defender, objective expected-armies, a conquest worth 4 "
     "armies)"),
    (["advise", "5", "3", "--objective", "threshold", "--threshold", "0.25"],
     "5 v 3  (dice minimax, ties to the defender, objective threshold 0.25)")])
def test_the_headline_says_the_objectives_threshold_or_a_conquests_worth(args, head):
    """What the attacker plays for was said without the number that sets it."""
    from dicewise.cli.main import cli

    lines = CliRunner().invoke(cli, ["risk", *args]).output.splitlines()
    said = lines[0]
    for line in lines[1:]:  # a headline over 80 columns goes on, indented
        if not line.startswith("    "):
            break
        said += " " + line.strip()
    assert said == head


def test_the_chance_of_a_set_says_it_is_from_an_empty_hand_whatever_the_hand():
    """``--hand`` changes the armies from cards, not the chance of a set after k cards, which
    is from an empty hand: said so (it read as the hand's own)."""
    from dicewise.cli.main import cli

    out = [CliRunner().invoke(cli, ["risk", "cards", *hand]).output for hand in ([], ["--hand",
                                                                                   "ii"])]
    block = [o[o.index("P(holding"):o.index("armies from cards")] for o in out]
    assert block[0] == block[1] and block[0].startswith(
        "P(holding a set) after k cards from an empty hand:\n")


def test_the_python_api_answers_what_each_command_prints(tmp_path):
    """Each command is one call of the Python API: its ``to_json()`` is the command's JSON,
    options given as a dict or as the command's KEY=VALUE texts alike."""
    import dicewise

    cases = [
        (["battle", "7", "4", "--ties", "attacker"],
         lambda: dicewise.risk_battle(7, 4, options={"ties": "attacker"})),
        (["advise", "6", "3", "--objective", "threshold", "--threshold", "0.3"],
         lambda: dicewise.risk_advise(6, 3, objective="threshold", threshold=0.3)),
        (["chain", "12", "3", "2", "--target", "0.7", "-o", "defender_sees_roll=true",
          "--dice", "minimax"],
         lambda: dicewise.risk_chain(12, [3, 2], target=0.7, dice="minimax",
                                     options=["defender_sees_roll=true"])),
        (["cards", "--hand", "ic", "--territories", "14", "--wild-cards", "2"],
         lambda: dicewise.risk_cards(hand="ic", territories=14, options={"wild_cards": 2}))]
    for args, call in cases:
        r = run([*args, "--json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout) == json.loads(json.dumps(dicewise.api.jsonable(
            call().to_json()))), args
    out = tmp_path / "risk.csv"
    r = run(["table", "--max", "6", "--out", str(out), "--json"])
    table = dicewise.risk_table(6, format="csv")
    assert json.loads(r.stdout) == {"out": str(out), **table.to_json()}
    assert out.read_bytes() == table.data.encode() and table.p_conquer.shape == (7, 7)
    with pytest.raises(dicewise.DicewiseError, match="^threshold is for objective=threshold$"):
        dicewise.risk_battle(5, 3, threshold=0.4)
    with pytest.raises(dicewise.DicewiseError, match="does not change `dicewise risk battle`"):
        dicewise.risk_battle(5, 3, options={"wild_cards": 1})
    # a Python caller's slips: one line each, not a traceback or a text read letter by letter
    with pytest.raises(dicewise.DicewiseError, match="options takes a dict"):
        dicewise.risk_battle(5, 3, options="ties=attacker")
    with pytest.raises(dicewise.DicewiseError, match="defenders takes a list"):
        dicewise.risk_chain(5, 3)


def test_a_risk_function_told_an_unknown_command_says_so():
    import dicewise

    with pytest.raises(dicewise.DicewiseError, match="risk has no command 'bogus' \\(commands: battle,"):
        dicewise.risk_table(5, command="bogus")
