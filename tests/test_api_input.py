"""The Python API's edge: what it returns and what it refuses.

Proves: ``dicewise.solve(...).to_json()`` is exactly what ``dicewise solve --json`` prints;
an argument of the wrong type to any API function is refused, before any work, with one
``DicewiseError`` line that names the parameter and what it takes; and NumPy arrays and
whole numbers, tuples of ``KEY=VALUE`` texts and option dicts are taken as before.
"""

from __future__ import annotations

import functools
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner

import dicewise
from dicewise import api
from dicewise.cli.main import cli
from dicewise.errors import DicewiseError

pytestmark = pytest.mark.usefixtures("shared_cache")

DICE = [2, 2, 4, 6, 6]


@pytest.mark.parametrize("ruleset", ["general", "poker-programs"])
def test_a_solution_is_what_solve_json_prints(ruleset):
    dicewise.solve(ruleset)  # build the table, so that both below load it
    printed = CliRunner().invoke(cli, ["solve", ruleset, "--json"], prog_name="dicewise")
    assert printed.exit_code == 0, printed.output
    solution = dicewise.solve(ruleset)
    assert not solution.built
    assert solution.to_json() == json.loads(printed.stdout)
    assert api.solve_report(solution) == solution.to_json()


def _closed(stream):
    stream.close()
    return stream


def _reading():
    """A text file opened for reading: it has a write method that refuses every write."""
    return open(__file__, encoding="utf-8")


@pytest.mark.parametrize("function, arguments, parameter", [
    ("advise", {"dice": None}, "dice"),
    ("advise", {"dice": 5, "roll": 1}, "dice"),
    ("advise", {"dice": [1.5, 2, 3, 4, 5], "roll": 1}, "dice"),
    ("advise", {"dice": DICE, "roll": "1"}, "roll"),
    ("advise", {"dice": DICE, "roll": 1, "sheet": {"ones": [3]}}, "sheet"),
    ("advise", {"dice": DICE, "roll": 1, "options": 5}, "options"),
    ("advise", {"dice": DICE, "roll": 1, "options": [5]}, "options"),
    ("advise", {"dice": DICE, "roll": 1, "options": {1: 2}}, "options"),
    ("chance", {"target": 200, "sheet": {"ones": 3.5}}, "sheet"),
    ("chance", {"target": 200, "options": 5}, "options"),
    ("simulate", {"games": "10"}, "games"),
    ("simulate", {"games": 10, "progress": 5}, "progress"),
    ("duel", {"games": "10"}, "games"),
    ("solve", {"options": 5}, "options"),
    ("solve", {"table": 5}, "table"),
    ("review", {"lines": 5}, "lines"),
    ("bench_agent", {"agent": 42, "games": 1}, "agent"),
    ("bench_agent", {"agent_command": ["python3", "bot.py"], "games": 1}, "agent_command"),
    ("bench_agent", {"agent_command": "cat", "timeout": "10"}, "timeout"),
    ("bench_agent", {"agent": lambda o: o["legal"][0], "log": 5}, "log"),
    # a binary file: TypeError at the first line written, after the reference was built
    ("bench_agent", {"agent": lambda o: o["legal"][0], "log": io.BytesIO()}, "log"),
    ("chance_two_player", {"sheet": {"ones": [3]}}, "sheet"),
    ("advise_two_player", {"dice": DICE, "roll": 1, "opponent_sheet": {"ones": None}},
     "opponent_sheet"),
    ("advise_players", {"players": 3, "dice": DICE, "roll": 1, "opponent_sheets": 5},
     "opponent_sheets"),
    ("chance_players", {"players": 3, "opponent_sheets": [1, 2]}, "opponent_sheets"),
    ("duel_players", {"players": "3"}, "players"),
    ("exact_race", {"players": "2"}, "players"),
    # the one call of each command, with players as the command takes them
    ("advise", {"dice": DICE, "roll": 1, "players": "3"}, "players"),
    ("advise", {"dice": DICE, "roll": 1, "players": 3, "opponent_sheets": [1]},
     "opponent_sheets"),
    ("chance", {"players": 2.0}, "players"),
    ("duel", {"players": 3, "exact": "yes"}, "exact"),
    # beyond the command line's bounds: NumPy's ValueError, MemoryError or a hang
    ("simulate", {"games": 10**30}, "games"),
    ("duel", {"games": 2**40}, "games"),
    ("strategy_table", {"what": "categories", "games": 10**30}, "games"),
    ("bench_agent", {"agent": lambda o: o["legal"][0], "games": 10**30}, "games"),
    ("duel_players", {"players": 3, "games": 10**30}, "games"),
    ("chance_players", {"players": 3, "opponent_sheets": ["", ""], "games": 10**30}, "games"),
    ("simulate", {"games": 1, "seed": -1}, "seed"),
    ("simulate", {"games": 1, "seed": 2**63}, "seed"),  # beyond what --seed takes
    ("duel_players", {"players": 3, "games": 3, "seed": -1}, "seed"),
    ("duel_two_player", {"seed": -1}, "seed"),  # before the race table's build
    ("solve_two_player", {"workers": -1}, "workers"),
    ("simulate", {"games": 1, "policy": ["optimal"]}, "policy"),  # TypeError: unhashable
    ("duel_players", {"players": 3, "a": ["win"]}, "a"),
    ("strategy_table", {"what": ["opening"]}, "what"),
    ("solve", {"rebuild": "no"}, "rebuild"),  # a truthy text rebuilt the table
    # True judged game 1, 1.0 game 1; "1" was refused as a game the log has not got
    ("review", {"lines": [], "game": True}, "game"),
    ("review", {"lines": [], "game": 1.0}, "game"),
    ("review", {"lines": [], "game": "1"}, "game"),
    # a 0-d array is a Collection that cannot be iterated: TypeError "iteration over a 0-d array"
    ("advise", {"dice": np.array(5), "roll": 1}, "dice"),
    ("simulate", {"games": 1, "options": np.array(2)}, "options"),
    ("chance", {"players": 3, "opponent_sheets": np.array(2)}, "opponent_sheets"),
    ("review", {"lines": np.array(2)}, "lines"),
    # an option's value is one value: numpy's "truth value of an array ... is ambiguous"
    ("solve", {"options": {"straight": np.array(["joker", "plain"])}}, "options"),
    ("solve", {"options": {"straight": ["joker"]}}, "options"),
    ("bench_agent", {"agent": lambda o: o["legal"][0], "on_error": np.array(["stop", "go"])},
     "on_error"),
    # files that take no writes, or give no lines: "not writable", "I/O operation on closed
    # file" once the reference was built
    ("bench_agent", {"agent": lambda o: o["legal"][0], "log": _closed(io.StringIO())}, "log"),
    ("bench_agent", {"agent": lambda o: o["legal"][0], "log": _reading()}, "log"),
    ("review", {"lines": _closed(io.StringIO("{}"))}, "lines"),
    # an act that cannot be called: "'NoneType' object is not callable" at the first decision
    ("bench_agent", {"agent": type("Bot", (), {"act": None})()}, "agent"),
])
def test_an_argument_of_the_wrong_type_is_refused_in_one_line(function, arguments, parameter):
    with pytest.raises(DicewiseError) as refused:
        getattr(api, function)("general", **arguments)
    message = str(refused.value)
    assert message.startswith(f"{parameter} takes ") and "\n" not in message, message


def test_numpy_numbers_tuples_and_dicts_are_taken_as_before():
    plain = api.advise("general", dice=DICE, roll=1, options=["straight=joker"]).to_json()
    assert api.advise("general", dice=np.array(DICE), roll=np.int64(1),
                      options=("straight=joker",)).to_json() == plain
    assert api.advise("general", dice=tuple(DICE), roll=1,
                      options={"straight": "joker"}).to_json() == plain


def _numpy_inside(value, where="") -> list[str]:
    """Where ``value`` (a JSON-like tree) holds a NumPy number instead of Python's own."""
    if isinstance(value, dict):
        return [w for k, v in value.items() for w in _numpy_inside(v, f"{where}.{k}")]
    if isinstance(value, (list, tuple)):
        return [w for i, v in enumerate(value) for w in _numpy_inside(v, f"{where}[{i}]")]
    return [where] if isinstance(value, np.generic) else []


@pytest.mark.parametrize("arguments", [
    {"ruleset": "general", "dice": [6, 6, 5, 5, 5], "roll": 3, "sheet": "ones=3"},
    pytest.param({"ruleset": "general", "dice": [6, 6, 5, 5, 5], "roll": 1, "target": 150},
                 marks=pytest.mark.slow),  # builds General's target table
    {"ruleset": "poker-programs", "dice": [6, 6, 5, 5, 5], "roll": 2},
])
def test_advice_as_json_holds_pythons_numbers_not_numpys(arguments):
    """A write's value was numpy.float64 where a keep's was float: to_json() holds Python's
    numbers, as every other result's does."""
    assert _numpy_inside(api.advise(**arguments).to_json()) == []


def test_a_review_as_json_holds_pythons_numbers_not_numpys():
    """A judged write's values and loss were numpy.float64 in ``review(...).to_json()``."""
    import io

    log = io.StringIO()
    report = api.bench_agent("general", lambda obs: next(a for a in obs["legal"] if "write" in a),
                             games=1, seed=1, log=log).to_json()
    # an agent that never rolls again still gets every stage, for scripts to read alike
    assert report["regret_by_stage"]["roll2"] == report["regret_by_stage"]["roll3"] == 0
    lines = log.getvalue().splitlines()
    assert len(lines) == 10 and all("write" in json.loads(line)["action"] for line in lines)
    assert _numpy_inside(api.review("general", lines).to_json()) == []


def test_option_values_written_as_text_mean_what_key_value_says():
    """The docs write options as text (``school_cross_erases=false``): a dict of such texts
    is the same game as the typed values or the ``KEY=VALUE`` list; bad text is refused."""
    typed = api.simulate("poker-school", games=5, policy="greedy",
                         options={"columns": 1, "school_cross_erases": False})
    for options in ({"columns": "1", "school_cross_erases": "false"},
                    ["columns=1", "school_cross_erases=false"]):
        texts = api.simulate("poker-school", games=5, policy="greedy", options=options)
        assert texts.to_json()["rule_options"] == typed.to_json()["rule_options"]
        assert texts.to_json()["mean"] == typed.to_json()["mean"]
    with pytest.raises(DicewiseError, match="option end_marks takes an integer, not 'x'"):
        api.simulate("ryzykant", games=5, policy="greedy", options={"end_marks": "x"})


def test_numpy_numbers_in_options_and_timeout_are_taken_as_python_numbers():
    # "option end_marks takes an integer, not np.int64(1)"; "timeout takes a number of
    # seconds above 0, not np.int64(3)"
    ryzykant = api.simulate("ryzykant", games=5, policy="greedy",
                            options={"end_marks": np.int64(1)}).to_json()
    assert ryzykant["rule_options"]["end_marks"] == 1
    school = api.simulate("poker-school", games=5, policy="greedy",
                          options={"columns": np.int8(1), "school_cross_erases": np.bool_(False)})
    assert school.rule_options == {"columns": 1, "school_cross_erases": False,
                                   "minimums": "seed"}
    assert json.dumps(school.to_json()["rule_options"]) == json.dumps(school.rule_options)
    for timeout in (np.int64(3), np.float32(2.5)):
        assert api.bench_agent("general", lambda o: o["legal"][0], games=1,
                               timeout=timeout).to_json()["games"] == 1


@pytest.mark.parametrize("dice, roll, message", [
    ([1, 2, 3, 4, 7], 1, "a die shows 1..6, not 7"),
    ([1, 2, 3, 4, 5], 4, "the roll number is 1, 2 or 3, not 4"),
])
def test_two_player_advice_refuses_bad_dice_before_building_its_table(dice, roll, message,
                                                                      tmp_path, monkeypatch):
    # the race table takes minutes to build: a wrong die must not wait for it
    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path))
    with pytest.raises(DicewiseError, match=message):
        api.advise_two_player("general", dice=dice, roll=roll)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("line", [5, None, ["{}"]])
def test_review_refuses_a_line_that_is_no_text(line):
    # AttributeError: 'int' object has no attribute 'strip'
    with pytest.raises(DicewiseError, match=r"line 1: expected \{\"observation\""):
        api.review("general", [line])


@functools.lru_cache(maxsize=None)
def _logged_text() -> str:
    """A line of a bot's log (a game of poker-programs on seed 0: the same line every time),
    played once for the tests below."""
    log = io.StringIO()
    api.bench_agent("poker-programs", lambda o: o["legal"][-1], games=1, log=log)
    return log.getvalue().splitlines()[1]


def _logged_line() -> dict:
    """That line's record, a copy of its own for a test to change."""
    return json.loads(_logged_text())


@pytest.mark.parametrize("key, value", [("roll", 2.5), ("roll", "2"), ("roll", True),
                                        ("dice", [True, 1, 1, 1, 1])])
def test_review_refuses_a_roll_or_die_that_is_no_whole_number(key, value):
    # int() took roll 2.5 for roll 2 and true for roll 1; a die true was a 1
    record = _logged_line()
    record["observation"][key] = value
    with pytest.raises(DicewiseError, match="line 1: (an observation has dice|a die shows)"):
        api.review("poker-programs", [json.dumps(record)])
    assert api.review("poker-programs", [json.dumps(_logged_line())]).decisions  # as written


@pytest.mark.parametrize("turn", [float("nan"), 2.5, "2", True])
def test_review_refuses_a_turn_that_is_no_whole_number(turn):
    # the turn is echoed in every decision: NaN made to_json() invalid JSON
    record = _logged_line()
    record["observation"]["turn"] = turn
    with pytest.raises(DicewiseError, match="line 1: the turn is a whole number from 0 up, not "):
        api.review("poker-programs", [json.dumps(record)])


@pytest.mark.parametrize("key, value, said", [
    ("game", -1, "the game number is a whole number from 0 up, not -1"),
    ("turn", -3, "the turn is a whole number from 0 up, not -3"),
    ("dice", "abc", 'the dice are a list of faces, not "abc"'),  # was "five dice, not 3"
    ("dice", {"1": 2}, 'the dice are a list of faces, not {"1": 2}')])
def test_review_refuses_a_hand_edited_game_turn_or_dice(key, value, said):
    record = _logged_line()
    record["observation"][key] = value
    with pytest.raises(DicewiseError) as refused:
        api.review("poker-programs", [json.dumps(record)])
    assert str(refused.value) == f"line 1: {said}"


def test_a_log_whose_every_decision_was_played_for_a_failed_agent_says_so():
    first = {**_logged_line(), "substituted": "crash"}
    second = json.loads(json.dumps(first))
    second["observation"]["game"] = first["observation"]["game"] + 1
    with pytest.raises(DicewiseError) as refused:
        api.review("poker-programs", [json.dumps(first), json.dumps(second), ""])
    assert str(refused.value) == ("the log holds no decision to judge: each of its 2 decisions "
                                  "was played in a failed agent's place")
    with pytest.raises(DicewiseError) as refused:
        api.review("poker-programs", [json.dumps(first)])
    assert str(refused.value).endswith(": its one decision was played in a failed agent's place")


def test_review_takes_a_numpy_game_number():
    import io

    log = io.StringIO()
    api.bench_agent("poker-programs", lambda o: o["legal"][-1], games=2, log=log)
    lines = log.getvalue().splitlines()
    one = api.review("poker-programs", lines, game=np.int64(1)).to_json()
    assert one == api.review("poker-programs", lines, game=1).to_json()
    assert {d["game"] for d in one["decisions"]} == {1}


def test_a_table_path_with_a_nul_character_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DicewiseError, match="a table path cannot hold a NUL character"):
        api.solve("general", table="a\0b")  # ValueError: embedded null byte
    with pytest.raises(DicewiseError, match="NUL character"):
        api.advise("general", dice=DICE, roll=1, table="\0")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("roll, read", [(2, 2), (np.int64(3), 3), (2.5, None), ("2", None),
                                        (True, None), (None, None)])
def test_an_observed_roll_is_a_whole_number_as_written(roll, read):
    from dicewise.solver.protocol import observed_roll

    if read is None:
        with pytest.raises(TypeError):
            observed_roll({"roll": roll})
    else:
        assert observed_roll({"roll": roll}) == read and type(observed_roll({"roll": roll})) is int


BOT = """import json, sys

def last(observation):
    return observation["legal"][-1]

if __name__ == "__main__":
    for line in sys.stdin:
        print(json.dumps(last(json.loads(line))), flush=True)
"""


def test_bench_agent_takes_a_callable_a_module_function_or_a_program(tmp_path, monkeypatch):
    import sys

    from dicewise.errors import UnfitArguments

    (tmp_path / "bot.py").write_text(BOT)
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "log.jsonl"
    by_callable = api.bench_agent("poker-programs", lambda o: o["legal"][-1], games=2, seed=3,
                                  log=log).to_json()
    by_name = api.bench_agent("poker-programs", "bot:last", games=2, seed=3).to_json()
    by_program = api.bench_agent("poker-programs", agent_command=f"{sys.executable} bot.py",
                                 games=2, seed=3).to_json()
    for report in (by_name, by_program):
        assert (report["mean"], report["regret_total"], report["errors"]) == (
            by_callable["mean"], by_callable["regret_total"], [])
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert logged and all({"observation", "action"} <= set(line) for line in logged)
    with pytest.raises(UnfitArguments, match="exactly one of agent="):
        api.bench_agent("poker-programs", "bot:last", agent_command="cat")
    with pytest.raises(UnfitArguments, match="exactly one of agent="):
        api.bench_agent("poker-programs")


def test_solve_takes_one_player_or_the_race_of_two():
    from dicewise.errors import UnfitArguments

    with pytest.raises(UnfitArguments, match="scheduler and workers are for players=2"):
        api.solve("poker-programs", workers=2)
    with pytest.raises(UnfitArguments, match="players=1 or 2, not 3"):
        api.solve("poker-programs", players=3)
    with pytest.raises(DicewiseError, match="poker-programs is not solved for two players"):
        api.solve("poker-programs", players=2)
    solution = api.solve("poker-programs")
    assert api.solve_report(solution) == solution.to_json()


_DICE = {"dice": [1, 2, 3, 4, 5], "roll": 1}


@pytest.mark.parametrize("function, arguments, said", [
    ("advise", {**_DICE, "players": 2, "target": 100}, "players=2 takes no target"),
    ("advise", {**_DICE, "opponent_sheets": ["ones=3"]},
     "opponent_sheets and opponent_fifths are for players=N"),
    ("advise", {**_DICE, "players": 2, "fifth": "1=1"}, "players=2 takes no fifth or opponent_fifths"),
    ("advise_two_player", {**_DICE, "opponent_sheet": "ones=3", "players": 2}, None),
    ("chance", {}, "give target=T (or players=2)"),
    ("solve", {"players": 3}, "solve takes players=1 or 2, not 3"),
    ("bench_agent", {}, "give exactly one of agent=MODULE:CALLABLE or agent_command=CMD"),
    ("duel", {"exact": True}, "exact is for the two-player race")])
def test_a_python_refusal_names_the_arguments_not_the_flags(function, arguments, said):
    """The library's refusals name the command line's flags there (``--players 2 takes no
    --target``, checked in the CLI's tests); called from Python they name the arguments of
    the call, as one error, not a chain of them."""
    with pytest.raises((DicewiseError, TypeError)) as refused:
        getattr(api, function)("general", **arguments)
    if said is None:  # an argument the function has not: Python's own TypeError, alone
        assert isinstance(refused.value, TypeError) and refused.value.__context__ is None
        return
    assert str(refused.value) == said
    assert refused.value.__context__ is None or refused.value.__suppress_context__
    assert "--" not in said


@pytest.mark.parametrize("function, arguments, said", [
    ("advise", {**_DICE, "table": "/tmp/no--such/my--table.dwt"}, "/tmp/no--such"),
    ("advise", {**_DICE, "sheet": "--target 5"}, "'--target 5'"),
    ("simulate", {"games": 3, "policy": "--games 5"}, "'--games 5'"),
    ("bench_agent", {"agent": "my--seed", "games": 1}, "'my--seed'"),
    ("advise", {**_DICE, "fifth": "6=4"}, "general takes no fifth")])
def test_a_python_refusal_keeps_the_callers_own_words(function, arguments, said):
    """Only what dicewise wrote is reworded: a path, a sheet or a name the caller gave,
    "--" and all, comes back as given."""
    with pytest.raises(DicewiseError) as refused:
        getattr(api, function)("general", **arguments)
    assert said in str(refused.value), str(refused.value)


def test_the_command_line_names_its_flags_and_a_python_call_after_it_its_arguments():
    result = CliRunner().invoke(cli, ["chance", "general"])
    assert result.exit_code == 2 and "give --target T (or --players 2)" in result.output
    with pytest.raises(DicewiseError, match=r"^give target=T \(or players=2\)$"):
        api.chance("general")


def _failing_agent(observation):
    raise RuntimeError("no move")


@pytest.mark.parametrize("function, arguments", [
    ("simulate", {"games": 1}),  # one game's interval: [NaN, NaN]
    ("duel", {"games": 1}),
    ("duel", {"players": 3, "games": 3}),  # one deal: its margin's interval
    ("bench_agent", {"agent": _failing_agent, "games": 1}),  # no game finished: NaN means
])
def test_to_json_is_valid_json_with_null_where_a_number_is_undefined(function, arguments):
    # to_json() gave NaN, which json.dumps writes as the invalid token NaN, where the
    # command prints null
    report = getattr(api, function)("general", **arguments).to_json()
    text = json.dumps(report, allow_nan=False)
    assert "null" in text


def test_one_simulated_game_is_what_simulate_json_prints():
    printed = CliRunner().invoke(cli, ["simulate", "general", "--games", "1", "--json"],
                                 prog_name="dicewise")
    assert printed.exit_code == 0, printed.output
    report = api.simulate("general", games=1).to_json()
    assert report["ci95"] == [None, None]
    assert {k: v for k, v in report.items() if k != "games_per_second"} == {
        k: v for k, v in json.loads(printed.stdout).items() if k != "games_per_second"}


#: What each function of ``dicewise`` returns, as its docstring names it.
RETURNS = {"solve": "Solution", "solve_report": "dicewise solve --json", "advise": "Advice",
           "simulate": "Simulation", "duel": "Duel", "strategy_table": "StrategyTable",
           "bench_agent": "AgentReport", "review": "Review", "chance": "Chance",
           "describe": "dict", "solve_two_player": "TwoPlayerSolution",
           "chance_two_player": "Chance", "advise_two_player": "Advice",
           "duel_two_player": "RaceDuel", "risk_battle": "BattleReport",
           "risk_advise": "AdviceReport", "risk_chain": "ChainReport",
           "risk_table": "ConquestTable", "risk_cards": "CardsReport"}


def test_every_function_of_dicewise_says_what_it_returns():
    import pydoc

    functions = {name for name in dicewise.__all__
                 if callable(getattr(dicewise, name)) and not isinstance(getattr(dicewise, name), type)}
    assert functions == set(RETURNS)
    for name, returned in RETURNS.items():
        doc = pydoc.render_doc(getattr(dicewise, name), renderer=pydoc.plaintext)
        assert returned in doc, (name, returned)
        assert "(*args, **kwargs)" not in doc  # the function's own signature, not the wrapper's


def test_the_race_left_to_its_defaults_is_win_against_optimal():
    """`duel --players 2` with either policy left out plays the race's two policies (B was
    greedy, which the race refused); named, a policy stays as named."""
    from dicewise.api import race_pair

    assert race_pair(None, None) == ("win", "optimal")
    assert race_pair("win", None) == ("win", "optimal")
    assert race_pair("optimal", None) == ("optimal", "win")
    assert race_pair(None, "win") == ("optimal", "win")
    assert race_pair(None, "optimal") == ("win", "optimal")
    assert race_pair("win", "win") == ("win", "win")


@pytest.mark.parametrize("seat", ["a", "b"])
def test_an_empty_policy_name_in_a_duel_is_refused_not_read_as_the_default(seat):
    """Only a policy left out takes the default; '' is a name, and no policy has it."""
    with pytest.raises(DicewiseError, match="unknown policy ''"):
        dicewise.duel("yatzy", games=10, **{seat: ""})


@pytest.mark.parametrize("players", [1, 2])
def test_chance_refuses_a_number_of_games_below_one_where_it_plays_none(players):
    """``games`` counts only at a table of three, but a bad one is refused at any table, as
    `chance --games 0` is."""
    with pytest.raises(DicewiseError, match="at least 1"):
        dicewise.chance("yatzy", target=200, players=1, games=0) if players == 1 else \
            dicewise.chance("yatzy", players=2, games=-3)


def test_an_action_with_an_array_is_no_legal_action_not_a_numpy_error():
    """``Advice.choice_for`` takes the protocol's canonical form (lists): an array in its
    place is refused as no legal action, not with numpy's "truth value ... is ambiguous"."""
    from dicewise.errors import BadAction

    advice = api.advise("general", dice=[2, 2, 4, 6, 6], roll=1)
    assert advice.choice_for({"keep": [6, 6]}).action == {"keep": [6, 6]}
    with pytest.raises(BadAction, match="is not a legal action here"):
        advice.choice_for({"keep": np.array([6, 6])})


@pytest.mark.parametrize("k", ["3", 1.5, True, [2], 0, -1])
def test_advice_top_takes_a_whole_number_of_choices(k):
    advice = api.advise("general", dice=[2, 2, 4, 6, 6], roll=1)
    assert len(advice.top(np.int64(3)).choices) == 3 and advice.top(None) is advice
    assert len(advice.top(1).choices) == 1
    with pytest.raises(DicewiseError, match="top takes a whole number of choices, at least 1, or"):
        advice.top(k)


def test_the_api_module_is_reached_from_a_plain_import_as_the_docs_write_it():
    """docs/players.md and docs/target.md call ``dicewise.api.duel_players(...)`` and
    ``dicewise.api.simulate(...)``: after ``import dicewise`` alone that was an AttributeError."""
    import subprocess
    import sys

    said = subprocess.run([sys.executable, "-c", "import dicewise; print(dicewise.api.__name__, "
                           "callable(dicewise.api.duel_players))"], capture_output=True,
                          text=True, check=True).stdout
    assert said == "dicewise.api True\n"


@pytest.mark.parametrize("ruleset, options, seed", [
    ("general", {}, 3), ("poker-school", {"columns": 1, "school_cross_erases": False}, 3),
    ("yahtzee", {}, 0)])  # game 0 of seed 0: a bonus Yahtzee, counted apart from the sheet
def test_an_observation_goes_straight_to_advise(ruleset, options, seed):
    """A bot passes what it observes to ``advise`` as the README says (the sheet a dict, as
    the agent protocol gives it, with its counters): it plays the best action, so its regret
    is nil."""
    seen = []

    def advised(obs):
        sheet = {**obs["sheet"], **obs.get("counters", {})}
        advice = dicewise.advise(obs["ruleset"], dice=obs["dice"], roll=obs.get("roll"),
                                 sheet=sheet, fifth=obs.get("fifth"), options=obs["options"])
        seen.append((advice.to_json()["points"], obs["points"],
                     obs.get("counters", {}).get("yahtzee_bonus", 0)))
        return advice.best.action

    report = dicewise.bench_agent(ruleset, advised, games=1, seed=seed,
                                  options=options).to_json()
    assert report["errors"] == [] and report["decisions"] > 10
    assert report["regret_total"] == pytest.approx(0, abs=1e-9)
    assert all(advised == observed for advised, observed, _ in seen)  # the same sheet
    if ruleset == "yahtzee":  # these games score a bonus Yahtzee, which only counters hold
        assert any(bonus for *_, bonus in seen)


def test_a_sheet_given_as_a_dict_reads_as_its_notation():
    as_text = dicewise.advise("general", dice=[2, 2, 4, 6, 6], roll=1,
                              sheet="ones=3,straight=25").to_json()
    as_dict = dicewise.advise("general", dice=[2, 2, 4, 6, 6], roll=1,
                              sheet={"ones": 3, "straight": np.int64(25)}).to_json()
    assert as_dict == as_text
    assert dicewise.advise("general", dice=[2, 2, 4, 6, 6], roll=1, sheet={}).to_json() == \
        dicewise.advise("general", dice=[2, 2, 4, 6, 6], roll=1).to_json()
    for bad in ({"ones": [3]}, {"ones": 2.5}, {"ones": "3,straight=25"}, {"ones=3": 25}):
        with pytest.raises(DicewiseError, match="^sheet takes a text in the sheet notation, an"):
            dicewise.advise("general", dice=[2, 2, 4, 6, 6], roll=1, sheet=bad)
