"""The table store at its edges: a cache folder that takes no new file answers as a full disk
does, a build leaves no lock file beside its table, and processes building one table at once
all get it."""

from __future__ import annotations

import builtins
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import dicewise
from dicewise.cli.main import cli
from dicewise.errors import DicewiseError
from dicewise.solver.registry import get_game
from dicewise.solver.rulesets import category_game
from dicewise.tables import store, two_player
from test_tables import _race_root  # a late two-player position: its race solves at once

NOT_KEPT = ": the table is not kept, so the next call solves it again"


def _dicewise(args, cache, prefix=()):
    """``dicewise ARGS`` in a process of its own, with ``cache`` as its table cache."""
    return subprocess.run([*prefix, sys.executable, "-m", "dicewise", *args], text=True,
                          capture_output=True, env={**os.environ, "DICEWISE_CACHE": str(cache)})


@pytest.fixture
def read_only():
    """``read_only(folder)``: the prefix of commands that cannot write ``folder``, by its mode
    where that stops us, else by a read-only bind mount of their own (root ignores modes)."""
    sealed = []

    def seal(folder: Path) -> tuple:
        folder.chmod(0o555)
        sealed.append(folder)
        probe = folder / "probe"
        try:
            probe.touch()
        except PermissionError:
            return ()
        probe.unlink()
        mount = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"'
        prefix = ("unshare", "-m", "sh", "-c", mount, "sh", str(folder))
        try:
            tried = subprocess.run([*prefix, "touch", str(probe)], capture_output=True)
        except FileNotFoundError:
            pytest.skip("no read-only folder here: root ignores modes, and no unshare")
        if tried.returncode == 0 or b"Read-only" not in tried.stderr:
            probe.unlink(missing_ok=True)
            pytest.skip("no read-only folder here: root ignores modes, and unshare cannot mount")
        return prefix

    yield seal
    for folder in sealed:
        folder.chmod(0o755)


def test_a_read_only_cache_answers_and_says_the_table_is_not_kept(tmp_path, read_only,
                                                                   monkeypatch):
    """With a read-only cache, a table already there loads without a word, and a missing one
    is built and answers as on a full disk: the same answer, one warning line more, exit 0."""
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv("DICEWISE_CACHE", str(folder))
    dicewise.solve("general")
    tables = sorted(os.listdir(folder))
    prefix = read_only(folder)
    plain = ["solve", "general", "-o", "straight=plain", "--json"]
    kept = _dicewise(plain, tmp_path / "writable")
    assert kept.returncode == 0, kept.stderr

    loaded = _dicewise(["solve", "general", "--json"], folder, prefix)
    assert loaded.returncode == 0 and loaded.stderr == "", loaded.stderr
    assert json.loads(loaded.stdout)["built"] is False

    built = _dicewise(plain, folder, prefix)
    assert built.returncode == 0, built.stderr
    answer, expected = json.loads(built.stdout), json.loads(kept.stdout)
    assert answer["table"] is None and answer["built"] is True
    for key in ("seconds", "table"):
        del answer[key], expected[key]
    assert answer == expected
    *rest, warning = built.stderr.splitlines(keepends=True)
    assert "".join(rest) == kept.stderr
    name = get_game("general").table_stem(category_game("general", straight="plain"))
    assert warning.startswith(f"dicewise: warning: cannot write {folder}/{name}-")
    assert warning.endswith(f"{NOT_KEPT}\n")
    for_people = _dicewise(plain[:-1] + ["--lang", "pl"], folder, prefix)
    assert for_people.stdout.splitlines()[-1] == (
        "tabela: nie zachowana (pamięć podręczna nie przyjmuje plików)"), for_people.stdout
    assert sorted(os.listdir(folder)) == tables


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC,
                                  errno.EDQUOT], ids=errno.errorcode.get)
def test_a_cache_that_takes_no_new_file_answers_whatever_the_reason(tmp_path, monkeypatch,
                                                                     capsys, code):
    """Read-only, not ours to write, full, over quota: the cached table answers unkept (the
    race table's checkpoints too); a table asked for by name there is refused in one line."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("DICEWISE_CACHE", str(cache))
    real = {"os": (os.open, os.mkdir), "open": builtins.open}

    def refused(file):
        raise OSError(code, os.strerror(code), str(file))

    def os_open(file, flags, *args, **kwargs):
        if flags & os.O_CREAT and Path(file).parent == cache:
            refused(file)
        return real["os"][0](file, flags, *args, **kwargs)

    def mkdir(file, *args, **kwargs):
        if Path(file).parent == cache:
            refused(file)
        return real["os"][1](file, *args, **kwargs)

    def open_(file, mode="r", *args, **kwargs):
        if set(mode) & set("wax+") and isinstance(file, (str, Path)) and \
                Path(file).parent == cache:
            refused(file)
        return real["open"](file, mode, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(os, "mkdir", mkdir)
    monkeypatch.setattr(builtins, "open", open_)

    solved = dicewise.solve("general")
    assert solved.built and solved.table is None
    path = store.default_path(get_game("general"), category_game("general"))
    assert capsys.readouterr().err == (
        f"dicewise: warning: cannot write {path}: {os.strerror(code)}{NOT_KEPT}\n")
    race = two_player.solve_two_player(category_game("general"), root=_race_root(), workers=1)
    assert race.built and race.path is None and race.to_json()["table"] is None
    assert capsys.readouterr().err.endswith(f": {os.strerror(code)}{NOT_KEPT}\n")
    with pytest.raises(DicewiseError, match=os.strerror(code)):
        dicewise.solve("general", table=cache / "asked.dwt")
    assert os.listdir(cache) == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="a folder of Linux's /proc")
def test_a_cache_folder_that_takes_no_files_at_all_is_still_refused():
    """A folder where no file can ever be (not a full or read-only one) is refused in one line."""
    result = CliRunner().invoke(cli, ["solve", "general"], prog_name="dicewise",
                                env={"DICEWISE_CACHE": "/proc"})
    name = store.default_path(get_game("general"), category_game("general")).name
    assert result.exit_code == 2 and result.stderr.splitlines() == [
        f"dicewise: error: cannot write /proc/{name}: No such file or directory"]


def test_a_built_table_leaves_no_lock_file_beside_it(tmp_path):
    """`solve --out` leaves only the file asked for (built or rebuilt), the cache only its
    tables, a race table neither a lock nor its checkpoints."""
    outs = tmp_path / "outs"
    outs.mkdir()
    for again in ([], ["--rebuild"]):
        result = CliRunner().invoke(cli, ["solve", "general", "--out", str(outs / "g.dwt"),
                                          *again])
        assert result.exit_code == 0, result.stderr
        assert os.listdir(outs) == ["g.dwt"]
    two_player.solve_two_player(category_game("general"), outs / "race.dwt", root=_race_root(),
                                workers=1)
    assert sorted(os.listdir(outs)) == ["g.dwt", "race.dwt"]
    assert dicewise.solve("general").built
    assert os.listdir(store.cache_dir()) == [dicewise.solve("general").table.name]


def test_a_build_cut_short_leaves_no_lock_file_beside_it(tmp_path):
    """A build stopped by an error or Ctrl+C takes its lock file with it: the cache holds
    no stray file for it, and the next build locks afresh."""
    path = tmp_path / "t.dwt"
    for stop in (KeyboardInterrupt, OSError):
        with pytest.raises(stop), store._build_lock(path):
            assert os.listdir(tmp_path) == [f".{path.name}.lock"]
            raise stop()
        assert os.listdir(tmp_path) == []
    with store._build_lock(path):
        path.write_bytes(b"built")
    assert os.listdir(tmp_path) == [path.name]


HOLDER = """
import sys, time
from pathlib import Path
from dicewise.tables import store
path = Path(sys.argv[1])
with store._build_lock(path):
    print("locked", flush=True)
    time.sleep(0.3)
    path.write_bytes(b"built")
"""


def test_a_process_that_waited_on_a_lock_its_holder_removed_locks_the_file_there(tmp_path):
    """The holder removes the lock file as it lets go; the process that waited on it then
    holds the file at that path, not the removed one, so a third one waits as it should."""
    import fcntl

    path = tmp_path / "t.dwt"
    lock = path.with_name(f".{path.name}.lock")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "locked"
    with store._build_lock(path):
        assert holder.wait() == 0 and path.exists()
        holder.stdout.close()
        fd = os.open(lock, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    assert os.listdir(tmp_path) == ["t.dwt"]


RACER = """
import sys
from dicewise.cli.main import cli
print("ready", flush=True)
sys.stdin.readline()
cli.main(["solve", "poker-programs", "--json"], prog_name="dicewise")
"""


def test_two_processes_building_one_table_at_once_both_get_it(tmp_path, monkeypatch):
    """Two processes that ask an empty cache for one table at the same moment: one builds it,
    the other waits and loads it, and the cache holds the valid table and nothing else."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("DICEWISE_CACHE", str(cache))
    racers = [subprocess.Popen([sys.executable, "-c", RACER], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
    for racer in racers:
        assert racer.stdout.readline() == "ready\n"
    for racer in racers:  # both go at once
        racer.stdin.write("go\n")
        racer.stdin.flush()
    answers = []
    for racer in racers:
        out, err = racer.communicate(timeout=60)
        assert racer.returncode == 0, err
        answers.append(json.loads(out))
    assert sorted(a["built"] for a in answers) == [False, True]
    assert len({(a["expected_score"], a["table"]) for a in answers}) == 1
    assert os.listdir(cache) == [Path(answers[0]["table"]).name]
    again = dicewise.solve("poker-programs")
    assert not again.built and again.expected_score == answers[0]["expected_score"]


@pytest.mark.parametrize("links", [True, False])
def test_a_new_file_never_replaces_one_written_under_its_name(tmp_path, monkeypatch, links):
    """``write_atomic(..., new=True)``: the name is taken whole or not at all; a file there
    is kept and FileExistsError raised, with no temporary file left; without hard links
    (some file systems) the file is created exclusively instead."""
    from dicewise.tables.files import write_atomic

    if not links:
        monkeypatch.setattr(os, "link", lambda *a: (_ for _ in ()).throw(
            OSError(errno.EPERM, "no links here")))
    path = tmp_path / "game.json"
    assert write_atomic(path, b"first", new=True) == path and path.read_bytes() == b"first"
    with pytest.raises(FileExistsError):
        write_atomic(path, b"second", new=True)
    assert path.read_bytes() == b"first" and os.listdir(tmp_path) == ["game.json"]
