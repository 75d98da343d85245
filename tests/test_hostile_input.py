"""Files, folders, streams and agents that are not what they should be: each is refused in
one line with exit status 2 (or, inside a game, answered and the game goes on), never a
traceback, a hang or a file written where none was asked for."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from dicewise import api
from dicewise.cli.main import cli
from dicewise.errors import DicewiseError
from dicewise.play.session import TableGame
from dicewise.tables import store
from dicewise.tables.format import read_table, write_table
from lines import ERROR_LINE

ADVISE = ["advise", "general", "--roll", "1", "--dice", "2", "2", "4", "6", "6"]

pytestmark = pytest.mark.usefixtures("shared_cache")  # tables built once per test process


def refused(*args, fragment: str = "", env=None) -> str:
    result = CliRunner().invoke(cli, list(args), prog_name="dicewise", env=env)
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(tuple(ERROR_LINE.values())), result.stderr
    assert fragment in lines[0], lines[0]
    return lines[0]


def test_an_output_path_that_names_a_folder_is_refused_and_nothing_written(tmp_path):
    # Path("x/") is Path("x"): the table went to a file named x
    out = tmp_path / "newname"
    refused("table", "general", "--what", "opening", "--out", f"{out}/",
            fragment="names a folder; give a file name")
    refused("risk", "table", "--max", "4", "--out", f"{out}/", fragment="names a folder")
    assert not out.exists()


def test_an_output_through_a_symbolic_link_replaces_the_file_it_names_not_the_link(tmp_path):
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "opening.csv").write_text("old")
    link, dangling = tmp_path / "link.csv", tmp_path / "new.csv"
    link.symlink_to(folder / "opening.csv")
    dangling.symlink_to(folder / "new.csv")
    for out in (link, dangling):
        result = CliRunner().invoke(cli, ["table", "general", "--what", "opening", "--out",
                                          str(out)])
        assert result.exit_code == 0, result.output
        assert out.is_symlink() and out.read_text().startswith("roll,dice,best")
    assert sorted(p.name for p in folder.iterdir()) == ["new.csv", "opening.csv"]
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    refused("table", "general", "--what", "opening", "--out", str(tmp_path / "loop"),
            fragment="symbolic links")


def test_an_empty_file_name_is_no_file_not_the_current_folder():
    # Path("") is ".": a table "is not a regular file", a log "is a directory", and an
    # empty --resume started a new game
    for args in ([*ADVISE, "--table", ""], ["review", "general", ""],
                 ["play", "general", "--resume", ""], ["play", "general", "--resume", " "]):
        refused(*args, fragment="an empty file name")


def test_an_endless_device_is_not_read_as_a_log_or_a_saved_game():
    refused("review", "general", "/dev/zero", fragment="is not a regular file")
    refused("play", "--resume", "/dev/zero", fragment="is not a regular file")


def test_a_log_may_come_through_a_pipe(tmp_path):
    log = tmp_path / "log.jsonl"
    api.bench_agent("general", lambda o: o["legal"][-1], games=1, log=log)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with subprocess.Popen(["cp", str(log), str(fifo)]):  # as `review yahtzee <(cat log)`
        result = CliRunner().invoke(cli, ["review", "general", str(fifo), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == api.review("general", log.read_text().splitlines()).to_json()


def test_a_log_saved_with_a_byte_order_mark_is_read_as_without(tmp_path):
    """Some editors begin a UTF-8 file with a byte-order mark: the log is the same log."""
    log = tmp_path / "log.jsonl"
    api.bench_agent("general", lambda o: o["legal"][0], games=1, log=log)
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())
    result = CliRunner().invoke(cli, ["review", "general", str(marked), "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == api.review("general", log.read_text().splitlines()).to_json()


def test_a_hand_written_log_without_game_numbers_is_summed_up_as_such(tmp_path):
    log = tmp_path / "log.jsonl"
    api.bench_agent("general", lambda o: o["legal"][0], games=1, log=log)
    records = [json.loads(line) for line in log.read_text().splitlines()[:4]]
    for record in records:
        del record["observation"]["game"]
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = CliRunner().invoke(cli, ["review", "general", str(log)])
    assert result.exit_code == 0 and result.stdout.startswith(
        "the lines with no game number: 4 decisions,"), result.stdout


def test_a_saved_game_nested_past_pythons_depth_is_no_saved_game(tmp_path):
    saved = tmp_path / "deep.json"
    saved.write_text("[" * 100_000 + "]" * 100_000)
    refused("play", "--resume", str(saved), fragment="is not a saved dicewise game")


def test_a_file_name_too_long_is_refused_as_a_table():
    long_name = "a" * 300
    refused(*ADVISE, "--table", long_name, fragment="File name too long")
    refused("chance", "general", "--target", "100", "--table", long_name,
            fragment="File name too long")


@pytest.mark.parametrize("cache", ["file", "/proc/dicewise-cache", "long"])
def test_a_cache_that_cannot_hold_tables_is_refused(tmp_path, cache):
    if cache == "file":
        cache = tmp_path / "a-file"
        cache.write_text("")
    elif cache == "long":
        cache = tmp_path / ("c" * 300)
    line = refused(*ADVISE, env={"DICEWISE_CACHE": str(cache)},
                   fragment=f"cannot keep tables in {cache}")
    assert "DICEWISE_CACHE" in line


def test_a_table_whose_checksum_holds_but_whose_header_is_not_ours_is_refused(tmp_path):
    good = tmp_path / "general.dwt"
    api.solve("general", table=good)
    header = read_table(good).header
    expect = {key: header[key] for key in ("kind", "ruleset", "options", "rules_digest")}
    arrays = dict(read_table(good).arrays)
    for name, score in [("text", "x"), ("list", [1, 2])]:
        bad = tmp_path / f"{name}.dwt"
        write_table(bad, **expect, arrays=arrays, meta={**header["meta"], "expected_score": score})
        refused(*ADVISE, "--table", str(bad), fragment="lacks the expected score")
    for name, wrong in [("other", {"values": np.zeros(3)}),
                        ("shape", {k: v[:1] for k, v in arrays.items()})]:
        bad = tmp_path / f"{name}.dwt"
        write_table(bad, **expect, arrays=wrong, meta=header["meta"])
        refused(*ADVISE, "--table", str(bad), fragment=str(bad))


def test_a_table_of_three_never_builds_a_table_it_was_given_to_read(tmp_path):
    missing = tmp_path / "missing.dwt"
    refused(*ADVISE, "--players", "3", "--opponent-sheet", "ones=3", "--opponent-sheet",
            "twos=4", "--table", str(missing), fragment="does not exist")
    assert not missing.exists()


def test_a_table_behind_a_loop_of_links_is_unreadable_not_missing(tmp_path):
    """A link loop exists (Path.exists says False): the error says why it cannot be read."""
    (tmp_path / "a.dwt").symlink_to(tmp_path / "b.dwt")
    (tmp_path / "b.dwt").symlink_to(tmp_path / "a.dwt")
    line = refused(*ADVISE, "--table", str(tmp_path / "a.dwt"), fragment="cannot read")
    assert "does not exist" not in line and "symbolic links" in line.lower(), line
    line = refused(*ADVISE, "--table", str(tmp_path / "a.dwt"), "--lang", "ru")
    assert "не удаётся прочитать" in line and "ссыл" in line, line


def test_a_refused_table_names_the_command_that_builds_the_right_kind(tmp_path):
    other = tmp_path / "poker-programs.dwt"  # another game's table (one of the quick ones)
    shutil.copyfile(api.solve("poker-programs").table, other)  # the cached table
    line = refused("chance", "general", "--target", "100", "--table", str(other))
    assert "built in the cache: leave out --table" in line and "solve" not in line
    # another game's table: kept, and the right one built in another file
    line = refused("chance", "general", "--players", "2", "--table", str(other))
    assert line.endswith("give a table of that kind, or build one in another file: dicewise "
                         "solve general --players 2 --out FILE (with these --option flags)")
    line = refused(*ADVISE, "--table", str(other))
    assert f"{other} is a table of poker-programs, not of general" in line
    assert line.endswith("give a table of general, or build one in another file: dicewise "
                         "solve general --out FILE (with these --option flags)")
    # a table of other options: kept too
    general = tmp_path / "general.dwt"
    api.solve("general", table=general)
    line = refused(*ADVISE, "-o", "straight=plain", "--table", str(general))
    assert "was built with the options big_general=ends, straight=joker, not " in line
    assert "give the --option flags it was built with" in line and "--rebuild" not in line


def _decision(game) -> str:
    return json.dumps({"observation": {"ruleset": "yahtzee", "game": game, "turn": 0, "roll": 1,
                                       "dice": [1, 2, 3, 4, 5]},
                       "action": {"keep": [1, 2, 3, 4, 5]}})


@pytest.mark.parametrize("log, game, why", [
    ([_decision([1])], None, "line 1: the game number is a whole number"),
    ([_decision(0), '{"observation": {"game": 0'], None, "line 2 is not JSON"),
    ([_decision(0), '{"action": {}}'], None, 'line 2: expected {"observation"'),
    ([_decision(0), _decision(1)], 7, "the log has no game 7 (games: 0-1)")])
def test_a_log_that_review_refuses_is_refused_before_its_table_is_built(empty_cache, monkeypatch,
                                                                        log, game, why):
    """What the judging would refuse without a table is refused before one is built (the
    table of poker-school or Ryzykant takes minutes)."""
    def build(*args, **kwargs):
        raise AssertionError("a table was built for a log refused anyway")

    monkeypatch.setattr(store, "build", build)
    with pytest.raises(DicewiseError, match=re.escape(why)):
        api.review("yahtzee", log, game=game)


AGENTS = {
    "exits": "import sys\nsys.exit(0)\n",
    "broken": "def first(:\n",
    "raises": "raise ValueError('boom')\n",
}


@pytest.mark.parametrize("spec, why", [
    ("exits:first", "its module exited (0) on import"),
    ("broken:first", "its module raised SyntaxError"),
    ("raises:first", "its module raised ValueError: boom"),
    (".relative:first", "cannot load agent .relative:first"),
])
def test_an_agent_module_that_fails_on_import_is_refused(tmp_path, monkeypatch, spec, why):
    for name, code in AGENTS.items():
        (tmp_path / f"{name}.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    refused("bench-agent", "yahtzee", "--agent", spec, "--games", "1", fragment=why)


def test_an_agent_answer_nested_past_pythons_depth_is_a_malformed_answer(tmp_path):
    bot = tmp_path / "deep.py"
    bot.write_text("import sys\nfor line in sys.stdin:\n"
                   "    print('[' * 100000 + ']' * 100000, flush=True)\n")
    report = api.bench_agent("general", agent_command=f"{sys.executable} {bot}", games=1,
                             max_failures=3).to_json()
    assert report["error_kinds"] == {"malformed": 3}


def test_a_save_to_a_name_with_a_nul_is_answered_and_the_game_goes_on():
    game = TableGame.new("yahtzee", players=1, seed=1, advice=False)
    answer = game.apply("save a\0b")
    assert not answer["ok"] and "NUL" in answer["error"]
    assert game.apply("roll")["ok"]


def test_a_save_replaces_a_saved_game_but_no_other_file(tmp_path):
    game = TableGame.new("yahtzee", players=1, seed=1, advice=False)
    notes = tmp_path / "notes.txt"
    notes.write_text("not a game\n")
    answer = game.apply(f"save {notes}")
    assert not answer["ok"] and "exists and holds no saved game" in answer["error"]
    assert notes.read_text() == "not a game\n"
    saved = tmp_path / "game.json"
    assert game.apply(f"save {saved}")["ok"] and game.apply("roll")["ok"]
    assert game.apply(f"save {saved}")["ok"]  # saving again under one name
    assert len(TableGame.load(saved).events) == len(game.events)


def test_output_that_cannot_be_written_is_one_line(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    env = {**os.environ, "DICEWISE_CACHE": str(tmp_path)}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "dicewise.cli", "rules", "general"],
                              stdout=full, stderr=subprocess.PIPE, text=True, env=env)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "dicewise: error: cannot write the output: No space left on device"]


def test_a_target_out_of_range_and_a_policy_no_seat_plays_say_so():
    refused("simulate", "general", "--policy", "target:99999999999", "--games", "10",
            fragment="a target is at most 1,000,000,000 points, not 99999999999")
    line = refused("duel", "yahtzee", "--players", "3", "--a", "target:100")
    assert "seats the policies optimal, greedy, random, not 'target:100'" in line
    refused("advise", "general", "--players", "3", "--dice", "1", "2", "3", "4", "5",
            "--opponent-sheet", "", "--opponent-sheet", "", fragment="give the roll number")


def test_a_log_that_cannot_be_written_is_named_before_any_table_is_built(tmp_path,
                                                                        monkeypatch):
    cache = tmp_path / "cache"
    line = refused("bench-agent", "yahtzee", "--agent", "x:y", "--games", "1", "--log",
                   "/proc/no-such-log.jsonl", env={"DICEWISE_CACHE": str(cache)})
    assert "cannot load agent x:y" in line  # the agent first, then the log, then the table
    (tmp_path / "bot.py").write_text("def last(o):\n    return o['legal'][-1]\n")
    monkeypatch.chdir(tmp_path)
    line = refused("bench-agent", "yahtzee", "--agent", "bot:last", "--games", "1", "--log",
                   "/proc/no-such-log.jsonl", env={"DICEWISE_CACHE": str(cache)})
    assert "cannot write /proc/no-such-log.jsonl" in line
    assert not cache.exists() or not any(cache.iterdir())


def test_a_table_that_cannot_be_written_is_named(tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("dicewise.tables.format.write_atomic", full)
    result = CliRunner().invoke(cli, ["solve", "general", "--out", str(tmp_path / "g.dwt")])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (  # after the build's progress line
        f"dicewise: error: cannot write {tmp_path / 'g.dwt'}: No space left on device")


def test_solve_report_takes_only_what_solve_returns():
    with pytest.raises(DicewiseError, match="solution takes what solve returns, not None"):
        api.solve_report(None)
