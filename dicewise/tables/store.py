"""One build-or-load for every game's table: cache path, digest, atomic write, refusals.

A game says what its table is (``table_stem``, ``table_kind``, ``rules_digest``) and how to
build it and move it to and from arrays; this module does the rest for every game: where
the file lives, building it under a lock (two processes asking for the same table build it
once and both get it), writing it atomically, validating it on load, dropping the same
game's tables built for older rules, and the checkpoints of a long build (a table spec with
``checkpointed = True`` is built with a :class:`Checkpoints` it may read and write, so a
build that is killed resumes from its finished parts).
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from pathlib import Path
from typing import Callable

try:
    import fcntl
except ImportError:  # no advisory locks: atomic renames still leave one valid file
    fcntl = None

from ..errors import DicewiseError
from ..i18n import SPOKEN, Message, in_language, message_of, os_reason
from ..solver.protocol import Game, Solution
from .files import cannot_read, cannot_write, refuse_empty
from .format import NotATableFile, TableError, read_table, write_table

SUFFIX = ".dwt"

#: ``progress_factory(units, label)`` -> a context manager yielding ``update(done)``; the
#: label is an ``i18n.Message``, which an edge may say in the players' language.
ProgressFactory = Callable[[float, str], contextlib.AbstractContextManager]
#: What a build says while it runs, unless the table's spec has a ``build_label`` of its own.
BUILD_LABEL = "solving {game}"

#: What creating a file fails with in a folder that takes no new file: a read-only disk, a
#: folder not ours to write, a full disk or quota.
NO_NEW_FILE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT})


def cache_dir() -> Path:
    """Where tables are kept: $DICEWISE_CACHE, else $XDG_CACHE_HOME/dicewise, else ~/.cache/dicewise."""
    if os.environ.get("DICEWISE_CACHE"):
        return Path(os.environ["DICEWISE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dicewise"


def default_path(game: Game, rules) -> Path:
    """The cache file of a game with its rules (the rules digest is part of the name)."""
    return cache_dir() / f"{game.table_stem(rules)}-{game.rules_digest(rules)}{SUFFIX}"


def quiet(units, label):
    """A progress factory that shows nothing (where the caller gave none)."""
    return contextlib.nullcontext(None)


#: From this size on, reading a table shows a progress bar (about a second on a slow disk).
READ_BAR_BYTES = 1 << 27


def load(game: Game, rules, path, progress_factory: ProgressFactory | None = None) -> Solution:
    """Read a table, refusing it unless it was built for exactly this game, rules and method
    (a big one with a progress bar from ``progress_factory``)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # read_table says why it cannot be read
    bar = progress_factory if progress_factory is not None and size >= READ_BAR_BYTES else quiet
    with bar(size, Message("reading the table of {ruleset}", ruleset=game.name)) as update:
        table = read_table(path, update, kind=game.table_kind(rules), ruleset=game.name,
                           options=game.rule_options(rules),
                           rules_digest=game.rules_digest(rules))
    meta = table.header.get("meta", {})
    if not isinstance(meta, dict) or "expected_score" not in meta or not (
            meta["expected_score"] is None or isinstance(meta["expected_score"], (int, float))):
        raise TableError(Message("{path} lacks the expected score of a solved game",
                                 path=str(path)))
    meta = dict(meta)
    try:
        payload = game.from_arrays(rules, table.arrays, meta)
    except TableError as e:
        raise TableError(Message("{path}: {why}", path=str(path), why=message_of(e))) from None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):  # checksummed, not ours
        raise TableError(Message("{path} is damaged (its arrays do not match its header)",
                                 path=str(path))) from None
    return Solution(game, rules, payload, meta, path, False, 0.0)


def build(game: Game, rules, path, progress_factory: ProgressFactory | None = None,
          cached: bool = False) -> Solution:
    """Build a table and write it atomically to ``path``; a cache path drops older rules.
    A table that cannot be written (a full disk) is still the answer of a ``cached`` build,
    kept in memory only (with a warning); a file asked for by name is refused."""
    factory = progress_factory or quiet
    label = Message(getattr(game, "build_label", None) or BUILD_LABEL, game=game.name)
    checkpoints = (Checkpoints(game, rules, path, cached=cached)
                   if getattr(game, "checkpointed", False) else None)
    start = time.perf_counter()
    with factory(game.build_units(rules), label) as update:
        if checkpoints is None:
            payload, meta = game.build(rules, update)
        else:
            payload, meta = game.build(rules, update, checkpoints=checkpoints)
    seconds = time.perf_counter() - start
    meta = {**meta, "seconds": round(seconds, 3)}
    try:
        path = _write(game, rules, payload, meta, path)
    except OSError as e:
        if not cached:
            raise DicewiseError(cannot_write(path, e)) from None
        warn(Message("{why}: the table is not kept, so the next call solves it again",
                     why=cannot_write(path, e)))
        return Solution(game, rules, payload, meta, None, True, seconds)
    if checkpoints is not None and not getattr(game, "keep_checkpoints", False):
        checkpoints.clear()
    drop_older_rules(path)
    return Solution(game, rules, payload, meta, path, True, seconds)


def checkpoint_dir(path) -> Path:
    """The folder of a table's checkpoints: beside the table, named after it."""
    path = Path(path)
    return path.with_name(path.name + ".parts")


class Checkpoints:
    """The finished parts of a long build, one checksummed table file each, in a folder beside
    the final table.  A part that fails its checksum or was built for other rules is refused
    with a message naming it: never trusted, never silently redone.  A ``cached`` build whose
    folder takes no new file (read-only, full) goes on without them, as its table will."""

    def __init__(self, game: Game, rules, path, cached: bool = False):
        self.folder, self.cached = checkpoint_dir(path), cached
        self.expect = {"kind": f"{game.table_kind(rules)}-part", "ruleset": game.name,
                       "options": game.rule_options(rules), "rules_digest": game.rules_digest(rules)}

    def _file(self, name: str) -> Path:
        return self.folder / f"{name}{SUFFIX}"

    def get(self, name: str):
        """(arrays, meta) of a finished part, or None where it is not there yet."""
        file = self._file(name)
        if not file.exists():
            return None
        try:
            table = read_table(file, **self.expect)
        except TableError as e:
            raise TableError(Message("checkpoint refused: {why}; delete it to recompute that "
                                     "part", why=message_of(e))) from None
        return table.arrays, dict(table.header.get("meta", {}))

    def refuse(self, name: str, why: str):
        """The error for a part that is readable but does not belong to this build."""
        return TableError(Message("checkpoint refused: {path} {why}; delete it to recompute "
                                  "that part", path=str(self._file(name)), why=why))

    def put(self, name: str, arrays: dict, meta: dict) -> None:
        """Keep a finished part (written atomically), where the folder takes it."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_table(self._file(name), **self.expect, arrays=arrays, meta=meta)
        except OSError as e:
            if not self.cached or e.errno not in NO_NEW_FILE:
                raise

    def clear(self) -> None:
        """Remove the folder once the final table is written."""
        self.clear_folder(self.folder)

    @staticmethod
    def clear_folder(folder: Path) -> None:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def save(game: Game, rules, payload, meta: dict, path) -> Path:
    """Write a payload as the game's table file (atomically); returns the path."""
    try:
        return _write(game, rules, payload, meta, path)
    except OSError as e:  # a full disk, say: the table is named, not "the output"
        raise DicewiseError(cannot_write(path, e)) from None


def _write(game: Game, rules, payload, meta: dict, path) -> Path:
    return Path(write_table(path, kind=game.table_kind(rules), ruleset=game.name,
                            options=game.rule_options(rules), rules_digest=game.rules_digest(rules),
                            arrays=game.to_arrays(payload), meta=meta))


def solution(game: Game, rules, table=None, *, rebuild: bool = False, must_exist: bool = False,
             progress_factory: ProgressFactory | None = None) -> Solution:
    """The solved game: loaded from ``table`` (or the cache), built there if missing.

    An explicit table that must exist (``advise --table``) is never built in its place.  A
    damaged table in the cache is rebuilt with a warning; a damaged explicit table is refused,
    naming ``--rebuild``.
    """
    explicit = table is not None
    if explicit:
        refuse_empty(table)
    path = Path(table) if explicit else default_path(game, rules)
    if not explicit:
        _check_cache(path.parent)
    check_table_path(path)
    if must_exist:
        try:  # not path.exists(), which says False for a file it cannot see (a link loop)
            path.stat()
        except FileNotFoundError:
            raise DicewiseError(Message("table file {path} does not exist",
                                        path=str(path))) from None
        except OSError as e:
            raise DicewiseError(Message("cannot read table file {path}: {why}", path=str(path),
                                        why=os_reason(e))) from None
    if not rebuild and path.exists():
        try:
            loaded = load(game, rules, path, progress_factory)
        except TableError as e:
            if isinstance(e, NotATableFile) and explicit:  # none of ours: never built over
                raise NotATableFile(_rebuild_hint(game, path, e)) from None
            if explicit or must_exist:
                raise TableError(_rebuild_hint(game, path, e)) from None
            warn(Message("{why}; rebuilding it", why=message_of(e)))
        else:
            if not explicit:
                _mark_used(path)
            return loaded
    with _build_lock(path, cached=not explicit):
        if not rebuild and path.exists():  # another process built it while we waited
            try:
                return load(game, rules, path, progress_factory)
            except TableError:
                pass
        return build(game, rules, path, progress_factory, cached=not explicit)


def _rebuild_hint(game, path: Path, refused: TableError) -> Message:
    """Why a table file is refused, and what to do: build it anew where it is stale or
    damaged; keep it and build another where it is sound but for something else (another
    game, kind or options).  The command is a game's ``dicewise solve``, a table's own
    ``solve_command``; tables of other kinds are built in the cache only."""
    command = f"dicewise solve {game.name}" if isinstance(game, Game) else \
        getattr(game, "solve_command", None)
    why, key = message_of(refused), getattr(refused, "key", None)
    if command is None:
        return Message("{why}; this kind of table is built in the cache: leave out --table",
                       why=why)
    if key == "options":
        return Message("{why}; give the --option flags it was built with, or build another "
                       "file: {command} --out FILE (with these --option flags)", why=why,
                       command=command)
    if key == "ruleset":
        return Message("{why}; give a table of {game}, or build one in another file: "
                       "{command} --out FILE (with these --option flags)", why=why,
                       game=game.name, command=command)
    if isinstance(refused, NotATableFile):  # a file of the user's, perhaps: left as it is
        return Message("{why}; give a table file, or build one in another file: {command} "
                       "--out FILE (with these --option flags)", why=why, command=command)
    if key == "kind":
        return Message("{why}; give a table of that kind, or build one in another file: "
                       "{command} --out FILE (with these --option flags)", why=why,
                       command=command)
    return Message("{why}; build it anew: {command} --out {path} --rebuild (with the same "
                   "--option flags)", why=why, command=command, path=str(path))


def _check_cache(folder: Path) -> None:
    """The cache folder, made where missing; one line where it cannot be (a file, /proc)."""
    try:
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DicewiseError(Message("cannot keep tables in {folder}: {why} (DICEWISE_CACHE "
                                    "names the folder for them)", folder=str(folder),
                                    why=os_reason(e))) from None


def check_table_path(path: Path) -> None:
    """A table path is a regular file or a new name in an existing folder: one line otherwise."""
    if "\0" in str(path):  # no system opens it (Python raises ValueError)
        raise DicewiseError(Message("a table path cannot hold a NUL character"))
    try:
        if path.exists() and not path.is_file():
            raise DicewiseError(Message("{path} is not a regular file", path=str(path)))
        if not path.parent.is_dir():
            raise DicewiseError(Message("folder {folder} does not exist",
                                        folder=str(path.parent)))
    except OSError as e:  # a name too long, say
        raise DicewiseError(cannot_read(path, e)) from None


def warn(message: Message) -> None:
    """One warning line on stderr, in the language of the command being run (the store's
    only output besides progress bars)."""
    import sys

    tr = SPOKEN.get()
    print(f"dicewise: {tr('warning')}: {in_language(message, tr)}", file=sys.stderr)


@contextlib.contextmanager
def _build_lock(path: Path, cached: bool = False):
    """An exclusive lock beside ``path`` while it is built (where the platform has flock),
    removed once the table is there.  A ``cached`` table whose folder takes no new file
    (read-only, full) is built without one: it cannot be kept, and it answers the call."""
    if fcntl is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(f".{path.name}.lock")
    try:
        fd = _locked(lock, path.name)
    except OSError as e:  # a folder that takes no files (/proc): refused as --out would be
        if not cached or e.errno not in NO_NEW_FILE:
            raise DicewiseError(cannot_write(path, e)) from None
        fd = None
    if fd is None:  # a cache that keeps nothing: its table only answers this call
        yield
        return
    try:
        try:  # who builds it, for the message of those who wait (a full disk takes no pid)
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except OSError:
            pass
        yield
    finally:  # removed while held, built or cut short: a process waiting on it finds it
        with contextlib.suppress(OSError):  # gone and locks a new one (``_locked``)
            lock.unlink()
        os.close(fd)  # and with it the lock


def _locked(lock: Path, name: str) -> int:
    """A descriptor of the file ``lock``, created where missing and locked exclusively, that
    is still the file at that path once locked (its holder may have removed it meanwhile)."""
    told = False
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not told:
                    warn(_waiting_for(os.pread(fd, 64, 0).decode(errors="replace").strip(), name))
                    told = True
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                if os.path.samestat(os.fstat(fd), os.stat(lock)):
                    return fd
            except FileNotFoundError:
                pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _waiting_for(holder: str, name: str) -> Message:
    """What a build that waits for the lock of ``name`` says of its holder: another process
    by its pid, or this one (a server's other request building the same table)."""
    if holder == str(os.getpid()):
        return Message("waiting for {name}, which this process is already building", name=name)
    if holder:
        return Message("waiting for process {holder}, which is building {name}", holder=holder,
                       name=name)
    return Message("waiting for another process, which is building {name}", name=name)


#: Days a cached table for other rules is kept unused: two versions of dicewise that share
#: a cache (a release and a checkout) keep each other's tables while both are in use.
UNUSED_DAYS = 14


def _mark_used(path: Path) -> None:
    """Note that a cached table was just used (its modification time): ``drop_older_rules``
    keeps it.  A cache that takes no writes keeps it anyway."""
    with contextlib.suppress(OSError):
        os.utime(path)


def drop_older_rules(path, now: float | None = None) -> None:
    """Remove the cache's tables that differ from ``path`` only in their rules digest and
    were not used for ``UNUSED_DAYS``.

    Cache names end in ``-<digest><SUFFIX>``; a table just built in the cache replaces the
    same game's tables built for other rules (older ones, after an upgrade) once no version
    has used them for that long.  A path outside the cache removes nothing.
    """
    path = Path(path)
    if path.parent != cache_dir() or not path.name.endswith(SUFFIX):
        return
    stale = (time.time() if now is None else now) - UNUSED_DAYS * 86400
    stem = path.name[:-len(SUFFIX)].rsplit("-", 1)[0]
    for old in path.parent.glob(f"{stem}-*{SUFFIX}"):
        try:
            unused = old.stat().st_mtime < stale
        except OSError:
            continue
        if old != path and len(old.name) == len(path.name) and unused:
            old.unlink(missing_ok=True)
            old.with_name(f".{old.name}.lock").unlink(missing_ok=True)
            Checkpoints.clear_folder(checkpoint_dir(old))
