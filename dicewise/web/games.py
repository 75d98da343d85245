"""The games in progress that the server keeps: one file each in its own folder.

Each game is the object ``dicewise play`` plays (``dicewise.play.session``); its file is
the JSON that ``play``'s ``save`` writes, so a game saved from the page resumes in the
terminal and back.  Files are named by a random id that the server chose, written to a
temporary name and renamed over the old one, so a crash mid-write leaves the last good
game; nothing is ever written outside the folder.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path

from .. import i18n
from ..errors import DicewiseError
from ..play import commands
from ..play.session import TableGame
from ..tables.files import write_atomic
from .fields import Fields

ID = re.compile(r"[0-9a-f]{16}")
#: Commands of ``dicewise play`` that the page may not send: the server keeps the files.
REFUSED = {"save": "the page saves the game itself; download it with the save button",
           "quit": "close the page to stop; the game is kept"}


class PageGame(TableGame):
    """A game at the table played from the page: its commands are play's, but for those
    the page does by its buttons (``help`` and an unknown command's refusal leave them out)."""

    elsewhere = frozenset(REFUSED)
#: At most this many game files in the folder, so a flood of new games cannot fill a disk.
MAX_GAMES = 2000
#: Games kept in memory; the others are read from their files when asked for.
IN_MEMORY = 64


class UnknownGame(DicewiseError):
    """A game id that names no game of this server."""


class NotSaved(DicewiseError):
    """A game file that could not be written: the move is not kept (the file is as before)."""


class GameStore:
    """Games by id: created, resumed, commanded and saved, one lock per game.

    The last ``IN_MEMORY`` games stay in memory, the others are read from their files when
    asked for; a game's lock outlives its place in memory (a game dropped while one of its
    commands runs is read again only after that command has written its file).
    """

    def __init__(self, folder: Path, progress=None):
        self.folder = Path(folder)
        self.progress = progress
        self._lock = threading.Lock()  # guards the two dicts, never held during a command
        self._games: OrderedDict[str, object] = OrderedDict()
        self._locks: dict[str, threading.Lock] = {}  # at most MAX_GAMES: one per file

    # --- files -------------------------------------------------------------------------

    def path(self, game_id: str) -> Path:
        if not isinstance(game_id, str) or not ID.fullmatch(game_id):
            # its head only: a path of thousands of characters is not said back whole
            shown = game_id if len(str(game_id)) <= 40 else f"{str(game_id)[:40]}..."
            raise UnknownGame(i18n.Message("no game {game!r} here", game=shown))
        return self.folder / f"{game_id}.json"

    def _write(self, game_id: str, game) -> None:
        """Write the game's file: a temporary file in the folder, then a rename over it."""
        write_atomic(self.path(game_id), json.dumps(_saved(game), ensure_ascii=False).encode())

    def _read(self, game_id: str):
        path = self.path(game_id)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise _missing(game_id) from None
        return PageGame.from_json(json.loads(text), progress=self.progress)

    def _remember(self, game_id: str, game) -> None:
        with self._lock:
            self._games[game_id] = game
            self._games.move_to_end(game_id)
            while len(self._games) > IN_MEMORY:
                self._games.popitem(last=False)

    @contextmanager
    def _held(self, game_id: str):
        """The game ``game_id``, its lock held: from memory, else read from its file."""
        path = self.path(game_id)  # refuses a malformed id before any file is touched
        with self._lock:  # a lock for every game here, none for ids that name none
            lock = self._locks.get(game_id)
            if lock is None and (game_id in self._games or path.exists()):
                lock = self._locks[game_id] = threading.Lock()
        if lock is None:
            raise _missing(game_id)
        with lock:
            with self._lock:
                game = self._games.get(game_id)
            if game is None:
                game = self._read(game_id)
            self._remember(game_id, game)
            yield game

    def _add(self, game) -> str:
        self.folder.mkdir(parents=True, exist_ok=True)
        tr = getattr(game, "tr", i18n.translator("en"))  # said in the game's language
        if sum(1 for _ in self.folder.glob("*.json")) >= MAX_GAMES:
            raise DicewiseError(i18n.Plural(
                "this server already keeps {n} game; remove old ones from {folder}",
                "this server already keeps {n} games; remove old ones from {folder}", MAX_GAMES,
                n=MAX_GAMES, folder=str(self.folder)).in_language(tr))
        game_id = secrets.token_hex(8)
        try:
            self._write(game_id, game)
        except OSError as e:
            raise NotSaved(i18n.Message("cannot save the game ({why})",
                                        why=i18n.os_reason(e)).in_language(tr)) from None
        self._remember(game_id, game)
        return game_id

    # --- what the API asks ---------------------------------------------------------------

    def new(self, data: dict) -> dict:
        """Start a game from ``{"ruleset", "players", "names", "options", "seed", "target",
        "lang"}``; answers ``{"game": id}`` and the game's first line."""
        f = Fields(data, {"ruleset", "players", "names", "options", "seed", "target", "lang",
                          "objective", "top", "advice"})
        kwargs = {"players": f.get("players", int), "names": f.get("names", list),
                  "options": f.options(), "seed": f.get("seed", int),
                  "target": f.get("target", int), "lang": f.get("lang", str),
                  "objective": f.get("objective", str, default="auto"), "top": f.get("top", int),
                  "advice": f.get("advice", bool, default=True)}
        tr = i18n.translator(i18n.language(kwargs["lang"] or "en"))
        try:  # the names, seats and options checked as a resumed game's are (Table.check)
            game = PageGame.new(f.get("ruleset", str, required=True),
                                                   progress=self.progress, **kwargs)
        except DicewiseError as e:  # a bad setting, said in the page's language
            raise DicewiseError(i18n.said(e, tr)) from None
        game_id = self._add(game)
        return {"game": game_id, **game.apply("sheet")}

    def resume(self, data: dict) -> dict:
        """Resume a game from its saved file's JSON (``{"saved": {...}, "lang"}``); with
        ``lang`` a file that is no game is refused in that language, and the game goes on
        in it (the page's)."""
        f = Fields(data, {"saved", "lang"})
        saved, lang = data.get("saved"), f.get("lang", str)  # no object: no saved game, said so
        tr = i18n.translator(i18n.language(lang or "en"))
        try:
            game = PageGame.from_json(saved, progress=self.progress, lang=lang)
        except DicewiseError as e:
            raise DicewiseError(i18n.said(e, tr)) from None
        game_id = self._add(game)
        return {"game": game_id, **game.apply("sheet")}

    def state(self, game_id: str) -> dict:
        with self._held(game_id) as game:
            return {"game": game_id, **game.apply("sheet")}

    def apply(self, game_id: str, command: str, lang: str | None = None,
              events: int | None = None) -> dict:
        """One command of ``dicewise play``: exactly the line its ``--json`` answers; with
        ``lang`` the game goes on in that language first (the page's, which a player may
        change mid-game); with ``events``, the number of events of the game as the page
        showed it, a command made for an earlier moment (another phone played since) is
        refused with the game as it is now, ``moved_on``."""
        try:  # the command's verb as play reads it, whatever spaces part the words
            verb = commands.parse(command).verb
        except DicewiseError:
            verb = None  # the game answers the error itself
        with self._held(game_id) as game:
            spoken = lang is not None and i18n.language(lang) != game.table.lang
            if spoken:
                game.speak(lang)
            if verb in REFUSED:
                answer = {"ok": False, "error": game.tr(REFUSED[verb])}
            elif events is not None and events != len(game.events):
                # played on the position after the one the player saw: another's, perhaps
                answer = {**game.apply("sheet"), "ok": False, "moved_on": True, "error": game.tr(
                    "the game has moved on since this page showed it (a move made elsewhere): "
                    "here it is now")}
            else:
                answer = game.apply(command)
            if answer.get("ok") or spoken:  # a refused move in a new language keeps the language
                try:
                    self._write(game_id, game)
                except OSError as e:
                    with self._lock:  # the next request reads the last good file again
                        self._games.pop(game_id, None)
                    if answer.get("ok"):
                        raise NotSaved(i18n.Message("cannot save the game ({why}); the last "
                                                    "move is not kept", why=i18n.os_reason(e))
                                       .in_language(game.tr)) from None
            return answer

    def download(self, game_id: str):
        """The game's saved file, as ``dicewise play --resume`` reads it."""
        from starlette.responses import Response

        with self._held(game_id) as game:
            text = json.dumps(_saved(game), ensure_ascii=False, indent=1)
        return Response(text, media_type="application/json", headers={
            "content-disposition": f'attachment; filename="dicewise-game-{game_id}.json"'})


def _missing(game_id: str) -> UnknownGame:
    return UnknownGame(i18n.Message("no game {game} here (it may have been played on another "
                                    "server; resume it from its saved file)", game=game_id))


def _saved(game) -> dict:
    saved = game.to_json()
    return json.loads(saved) if isinstance(saved, str) else saved
