"""The Python API's edge: what it returns and what it refuses.

Proves: ``dicewise.solve(...).to_json()`` is exactly what ``dicewise solve --json`` prints;
an argument of the wrong type to any API function is refused, before any work, with one
``DicewiseError`` line that names the parameter and what it takes; and NumPy arrays and
whole numbers, tuples of ``KEY=VALUE`` texts and option dicts are taken as before.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import dicewise
from dicewise import api
from dicewise.cli.main import cli
from dicewise.errors import DicewiseError

pytestmark = pytest.mark.usefixtures("module_cache")

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


@pytest.mark.parametrize("function, arguments, parameter", [
    ("advise", {"dice": None}, "dice"),
    ("advise", {"dice": 5, "roll": 1}, "dice"),
    ("advise", {"dice": [1.5, 2, 3, 4, 5], "roll": 1}, "dice"),
    ("advise", {"dice": DICE, "roll": "1"}, "roll"),
    ("advise", {"dice": DICE, "roll": 1, "sheet": {"ones": 3}}, "sheet"),
    ("advise", {"dice": DICE, "roll": 1, "options": 5}, "options"),
    ("advise", {"dice": DICE, "roll": 1, "options": [5]}, "options"),
    ("advise", {"dice": DICE, "roll": 1, "options": {1: 2}}, "options"),
    ("chance", {"target": 200, "sheet": {"ones": 3}}, "sheet"),
    ("chance", {"target": 200, "options": 5}, "options"),
    ("simulate", {"games": "10"}, "games"),
    ("simulate", {"games": 10, "progress": 5}, "progress"),
    ("duel", {"games": "10"}, "games"),
    ("solve", {"options": 5}, "options"),
    ("solve", {"table": 5}, "table"),
    ("review", {"lines": 5}, "lines"),
    ("bench_agent", {"agent": None, "games": 1}, "agent"),
    ("chance_two_player", {"sheet": {"ones": 3}}, "sheet"),
    ("advise_two_player", {"dice": DICE, "roll": 1, "opponent_sheet": {"ones": 3}},
     "opponent_sheet"),
    ("advise_players", {"players": 3, "dice": DICE, "roll": 1, "opponent_sheets": 5},
     "opponent_sheets"),
    ("chance_players", {"players": 3, "opponent_sheets": [1, 2]}, "opponent_sheets"),
    ("duel_players", {"players": "3"}, "players"),
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
