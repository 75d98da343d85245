"""The ASGI application behind ``dicewise serve``: the page, its static files and the JSON API.

``POST /api/advise`` answers exactly what ``dicewise advise --json`` prints for the same
position; ``/api/game/...`` drives the game in progress of ``dicewise play`` and answers
its ``--json`` lines.  Every error is ``{"ok": false, "error": "..."}`` with a 4xx status;
nothing a request sends can stop the server.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import __version__, api, i18n
from ..errors import DicewiseError
from . import guard, strings
from .builds import Builds
from .fields import BadRequest, Fields, read_json
from .games import GameStore, NotSaved, UnknownGame

STATIC = Path(__file__).with_name("static")
#: The largest request body accepted: a saved game of four players is a few kilobytes.
BODY_LIMIT = 256 * 1024

log = logging.getLogger("dicewise.web")


class DicewiseJSON(JSONResponse):
    """A JSON response in the command line's convention (UTF-8 text, null for NaN)."""

    def render(self, content) -> bytes:
        if hasattr(content, "to_json"):
            content = content.to_json()
        return json.dumps(api.jsonable(content), ensure_ascii=False, allow_nan=False).encode()


def error(message: str, status: int = 400) -> DicewiseJSON:
    return DicewiseJSON({"ok": False, "error": message}, status_code=status)


def _lang(data: dict) -> str | None:
    """The language a request asks to be answered in, where it names one as text."""
    lang = data.get("lang")
    return lang if isinstance(lang, str) else None


def unread(request, e: BadRequest) -> DicewiseJSON:
    """A request refused before its body is read: said in its ``?lang=``, else the language
    of its Accept-Language (the body's ``lang`` is not known yet)."""
    return error(said(e, guard.request_language(request.scope)), e.status)


def said(e: DicewiseError, lang: str | None) -> str:
    """An error in ``lang`` where it was raised with a ``Message`` (English where ``lang``
    is none that dicewise speaks)."""
    try:
        tr = i18n.translator(i18n.language(lang or "en"))
    except DicewiseError:
        tr = i18n.translator("en")
    return i18n.said(e, tr)


ADVISE_FIELDS = {"ruleset", "dice", "roll", "sheet", "fifth", "options", "target", "players",
                 "opponent_sheet", "opponent_sheets", "opponent_fifths", "top", "lang"}


def advise_request(data: dict, progress=None):
    """Advice for the position in an advise request, as ``dicewise advise`` gives it: one
    player, two (``opponent_sheet``) or more (``opponent_sheets``, one per rival); an
    impossible position is refused in the request's ``lang`` (default English)."""
    try:
        f = Fields(data, ADVISE_FIELDS)
        i18n.language(f.get("lang", str) or "en")  # a language dicewise does not speak: refused
        return _advice(f, progress)
    except DicewiseError as e:
        raise DicewiseError(said(e, _lang(data))) from None


def _advice(f: Fields, progress):
    """The advice an advise request's fields ask for."""
    ruleset = f.get("ruleset", str, required=True)
    dice, roll = f.dice(), f.get("roll", int)
    sheet, options = f.get("sheet", str), f.options()
    players = f.get("players", int, default=1)
    target, fifth = f.get("target", int), f.get("fifth", str)
    rivals = f.get("opponent_sheets", list, default=[])
    if not all(isinstance(r, str) for r in rivals):
        raise BadRequest(i18n.Message("opponent_sheets must be a list of sheets (texts)"))
    if f.get("opponent_sheet", str) is not None:
        rivals = [f.get("opponent_sheet", str), *rivals]
    top = f.get("top", int)
    if top is not None and top < 1:
        raise BadRequest(i18n.Message("top must be 1 or more"))
    fifths = f.get("opponent_fifths", list, default=[])
    if not all(isinstance(r, str) for r in fifths):
        raise BadRequest(i18n.Message("opponent_fifths must be a list of fifth-die marks (texts)"))
    result = api.advise(ruleset, dice=dice, roll=roll, sheet=sheet or None, fifth=fifth,
                        options=options, target=target, players=players, opponent_sheets=rivals,
                        opponent_fifths=fifths, progress=progress)
    return result.top(top)


def create_app(games_dir, *, token: str | None = None, loopback: bool = True,
               body_limit: int = BODY_LIMIT, builds: Builds | None = None):
    """The application: games kept in ``games_dir``; ``token`` required when given; a
    loopback server answers only to its loopback names; table builds reported to
    ``builds`` (which the server stops when it stops)."""
    builds = builds or Builds()
    store = GameStore(Path(games_dir), progress=builds.factory)

    async def answer(work, *args, lang: str | None = None):
        """Run blocking work off the event loop and turn its outcome into a response (a
        game that is not here said in ``lang``, the page's)."""
        try:
            result = await run_in_threadpool(work, *args)
        except BadRequest as e:
            return error(said(e, lang), e.status)
        except UnknownGame as e:
            return error(said(e, lang), 404)
        except NotSaved as e:
            return error(str(e), 507)
        except DicewiseError as e:
            return error(str(e))
        except Exception as e:  # a defect, not bad input: the server answers and goes on
            log.exception("request failed")
            return error(f"internal error: {type(e).__name__}: {e}", 500)
        if isinstance(result, Response):
            return result
        refused = isinstance(result, dict) and result.get("ok") is False  # a bad game command
        status = 409 if refused and result.get("moved_on") else 400 if refused else 200
        return DicewiseJSON(result, status_code=status)

    async def index(request):
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    async def status(request):
        return DicewiseJSON({"version": __version__, "building": builds.snapshot(),
                             "languages": list(i18n.LANGUAGES)})

    async def page_strings(request):
        query = request.query_params
        return await answer(strings.catalog, query.get("lang"), query.get("ruleset"))

    async def rules(request):
        ruleset = request.path_params.get("ruleset")
        return await answer(api.describe, ruleset)

    async def advise(request):
        try:
            data = await read_json(request)
        except BadRequest as e:
            return unread(request, e)
        return await answer(advise_request, data, builds.factory)

    async def new_game(request):
        try:
            data = await read_json(request)
        except BadRequest as e:
            return unread(request, e)
        return await answer(store.new, data, lang=_lang(data))

    async def resume_game(request):
        try:
            data = await read_json(request)
        except BadRequest as e:
            return unread(request, e)
        return await answer(store.resume, data, lang=_lang(data))

    async def game_state(request):
        return await answer(store.state, request.path_params["game"],
                            lang=request.query_params.get("lang"))

    async def game_command(request):
        try:
            data = await read_json(request)
        except BadRequest as e:
            return unread(request, e)
        try:  # a field refused in the request's language
            fields = Fields(data, {"command", "lang", "events"})
            command = fields.get("command", str, required=True)
            lang, events = fields.get("lang", str), fields.get("events", int)
            if events is not None and events < 0:  # a count the page saw: never below 0
                raise BadRequest(i18n.Message("events must be 0 or more"))
        except BadRequest as e:
            return error(said(e, _lang(data)), e.status)
        return await answer(store.apply, request.path_params["game"], command, lang, events,
                            lang=lang)

    async def game_file(request):
        return await answer(store.download, request.path_params["game"],
                            lang=request.query_params.get("lang"))

    async def not_found(request, exc):
        if request.url.path.startswith("/api/"):
            why = (i18n.Message("no such address: {path}", path=request.url.path)
                   if exc.status_code == 404 else
                   i18n.Message("{method} is not allowed at {path}", method=request.method,
                                path=request.url.path) if exc.status_code == 405 else
                   exc.detail)
            lang = guard.request_language(request.scope)
            return error(i18n.in_language(why, i18n.translator(lang)), exc.status_code)
        return Response(f"{exc.status_code} {exc.detail}", status_code=exc.status_code,
                        media_type="text/plain; charset=utf-8")

    routes = [
        Route("/", index),
        Route("/api/status", status),
        Route("/api/strings", page_strings),
        Route("/api/rules", rules),
        Route("/api/rules/{ruleset}", rules),
        Route("/api/advise", advise, methods=["POST"]),
        Route("/api/game", new_game, methods=["POST"]),
        Route("/api/game/resume", resume_game, methods=["POST"]),
        Route("/api/game/{game}", game_state, methods=["GET"]),
        Route("/api/game/{game}", game_command, methods=["POST"]),
        Route("/api/game/{game}/file", game_file, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found})
    app.router.redirect_slashes = False  # /api/game/ is no address: a JSON 404, not a redirect
    app.state.builds, app.state.games = builds, store
    wrapped = app
    if token:
        wrapped = guard.TokenCheck(wrapped, token)
    if loopback:
        wrapped = guard.HostCheck(wrapped)
    wrapped = guard.BodyLimit(wrapped, body_limit)
    return guard.SecurityHeaders(wrapped)
