"""What keeps the server safe to open to a room: the token, the size cap, the host check.

Pure ASGI middleware, outermost first: every request is refused with a short JSON error
(or a one-line page) before it reaches the application when it is too large, names a
host that this server does not answer to, or lacks the token.
"""

from __future__ import annotations

import json
import re
import secrets
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from .. import i18n

#: The cookie that carries the token after the first page load, so static files need no query.
TOKEN_COOKIE = "dicewise_token"
#: The header the page sends the token in on every API call.
TOKEN_HEADER = b"x-dicewise-token"
#: Hosts a server bound to a loopback address answers to (a guard against DNS rebinding).
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")
#: A Host header: the name (an IPv6 literal in brackets), then an optional port.
HOST = re.compile(r"(\[[^\[\]]*\]|[^:\[\]]*)(?::[0-9]*)?")

SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
     b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def new_token() -> str:
    """A fresh random token for a server open to the network."""
    return secrets.token_urlsafe(16)


async def refuse(send, status: int, message: str, html: bool = False) -> None:
    """Answer a request with ``{"ok": false, "error": message}`` (or a one-line page)."""
    if html:
        body = ("<!doctype html><meta charset=utf-8><title>dicewise</title>"
                f"<p>{message}</p>").encode()
        kind = b"text/html; charset=utf-8"
    else:
        body = json.dumps({"ok": False, "error": message}).encode()
        kind = b"application/json"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode()),
                            *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


def request_language(scope) -> str:
    """What a refusal made before the request's body is read is said in: the request's
    ``?lang=`` where dicewise speaks it, else its Accept-Language (the page sends its own
    language there), else English."""
    lang = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", [""])[-1]
    return lang if lang in i18n.LANGUAGES else accepted_language(scope)


def accepted_language(scope) -> str:
    """The language of the request's Accept-Language that dicewise speaks first (by weight,
    then order), else English."""
    header = dict(scope.get("headers", [])).get(b"accept-language", b"").decode("latin-1")
    ranked = []
    for order, part in enumerate(header.split(",")):
        tag, _, weight = part.strip().partition(";q=")
        try:
            ranked.append((-float(weight or 1), order, tag.split("-")[0].strip().lower()))
        except ValueError:
            continue
    return next((tag for *_, tag in sorted(ranked) if tag in i18n.LANGUAGES), "en")


def _wants_html(scope) -> bool:
    return not scope.get("path", "").startswith("/api/")


class SecurityHeaders:
    """Adds the content security policy and its companions to every response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimit:
    """Refuses a request body over ``limit`` bytes with 413, whether declared or streamed.

    A body sent without a length is read here first (up to the limit) and handed on whole,
    so the application never sees a request cut short.
    """

    def __init__(self, app, limit: int):
        self.app = app
        self.limit = limit

    def _too_large(self, scope) -> str:
        """The refusal of a body over the limit, in the request's language."""
        tr = i18n.translator(request_language(scope))
        return tr.ngettext("the request is too large (at most {limit} byte)",
                           "the request is too large (at most {limit} bytes)",
                           self.limit).format(limit=tr.number(self.limit))

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None:
            if not declared.isdigit():
                return await refuse(send, 400, "a bad Content-Length header")
            if int(declared) > self.limit:
                return await refuse(send, 413, self._too_large(scope))
            return await self.app(scope, receive, send)  # the server holds it to its length
        if scope.get("method") in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        body, more = [], True
        size = 0
        while more:
            msg = await receive()
            if msg["type"] != "http.request":  # the client went away
                return
            body.append(msg.get("body", b""))
            size += len(body[-1])
            if size > self.limit:
                return await refuse(send, 413, self._too_large(scope))
            more = msg.get("more_body", False)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class HostCheck:
    """Answers only requests addressed to one of ``names`` (any port): a page on another site
    cannot reach a loopback server by pointing its own name at 127.0.0.1."""

    def __init__(self, app, names=LOOPBACK_NAMES):
        self.app = app
        self.names = {n.lower() for n in names}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        host = dict(scope.get("headers", [])).get(b"host", b"").decode("latin-1").lower()
        # a name or an IPv6 literal in brackets, then at most a port: "[::1].attacker.example"
        # names no loopback address
        address = HOST.fullmatch(host)
        if address is None or address.group(1) not in self.names:
            return await refuse(send, 400, "this server answers only to its own address",
                                _wants_html(scope))
        await self.app(scope, receive, send)


class TokenCheck:
    """Requires the server's token on every request: in the query (``?token=``, which also
    sets a cookie), in the ``X-Dicewise-Token`` header, or in that cookie."""

    def __init__(self, app, token: str):
        self.app = app
        self.token = token

    def _presented(self, scope) -> tuple[str | None, bool]:
        """(the token the request carries, whether it came in the query string)."""
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if query.get("token"):
            return query["token"][0], True
        headers = dict(scope.get("headers", []))
        if TOKEN_HEADER in headers:
            return headers[TOKEN_HEADER].decode("latin-1"), False
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
        except Exception:  # a malformed cookie header is as good as none
            return None, False
        morsel = cookie.get(TOKEN_COOKIE)
        return (morsel.value if morsel else None), False

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        token, from_query = self._presented(scope)
        if token is None or not secrets.compare_digest(token.encode(), self.token.encode()):
            said = i18n.translator(request_language(scope))(
                "open the address with its token, as `dicewise serve` printed it")
            return await refuse(send, 403, said, _wants_html(scope))
        if not from_query:
            return await self.app(scope, receive, send)

        cookie = f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict".encode()

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                   (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)
