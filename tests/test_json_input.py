"""JSON read from people and programs: a name given twice in one object is refused everywhere
dicewise reads JSON it did not write itself (an agent's answer, a log, a saved game, a request
to the server), never read as one of its two values."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from dicewise import api, json_input
from dicewise.cli.main import cli
from dicewise.errors import DicewiseError
from dicewise.play.agents import ProcessAgent
from dicewise.play.bench import bench_agent
from lines import ERROR_LINE

NAMES = st.text(max_size=3)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(NAMES, inner, max_size=3), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_json_with_distinct_names_reads_as_json_reads_it(value):
    text = json.dumps(value)
    assert json_input.loads(text) == json.loads(text)


@settings(max_examples=200, deadline=None)
@given(JSON, NAMES, st.integers(), st.integers(), st.integers(0, 3))
def test_a_name_given_twice_at_any_depth_is_refused(value, name, first, second, depth):
    key = json.dumps(name)
    twice = f'{{{key}: {first}, "x": {json.dumps(value)}, {key}: {second}}}'
    text = "[" * depth + twice + "]" * depth
    with pytest.raises(json_input.RepeatedName) as refused:
        json_input.loads(text)
    assert refused.value.name == name and "given twice" in str(refused.value)
    assert isinstance(refused.value, ValueError)


def test_an_agent_answer_with_a_name_twice_is_a_malformed_answer(solution, tmp_path):
    bot = tmp_path / "twice.py"
    bot.write_text("import json, sys\nfor line in sys.stdin:\n"
                   "    print('{\"write\": \"ones\", \"write\": \"sixes\"}', flush=True)\n")
    agent = ProcessAgent(f"{sys.executable} {bot}", timeout=5)
    try:
        data = bench_agent(solution("general"), agent, 1, seed=1, on_error="stop").to_json()
    finally:
        agent.close()
    assert data["decisions"] == 0 and data["error_kinds"] == {"malformed": 1}
    assert 'the name "write" is given twice' in data["stopped"]


def test_a_log_line_with_a_name_twice_is_refused_in_one_line(tmp_path):
    log = tmp_path / "log.jsonl"
    api.bench_agent("general", lambda o: o["legal"][0], games=1, log=log)
    first = log.read_text().splitlines()[0]
    assert api.review("general", [first]).decisions  # as written
    line = '{"action": {"write": "ones"}, ' + first[1:]
    with pytest.raises(DicewiseError, match='line 1: the name "action" is given twice'):
        api.review("general", [line])


@pytest.mark.parametrize("lang, said", [
    ("en", 'saved.json is not a saved dicewise game (it gives "names" twice in one object)'),
    ("ru", 'saved.json — не сохранённая партия dicewise (в ней "names" дважды в одном объекте)'),
    ("pl", 'saved.json nie jest zapisaną grą dicewise ("names" występuje w niej dwa razy w '
           'jednym obiekcie)')])
def test_a_saved_game_with_a_name_twice_is_no_saved_game(tmp_path, monkeypatch, lang, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "saved.json").write_text('{"format": "dicewise-table-game", "names": ["Ann"], '
                                         '"names": ["Bob"]}')
    result = CliRunner().invoke(cli, ["play", "general", "--resume", "saved.json", "--lang", lang])
    assert result.exit_code == 2 and result.stderr == f"{ERROR_LINE[lang]}{said}\n"
