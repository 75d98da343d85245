"""The JSON API of ``dicewise serve``, over real HTTP on 127.0.0.1 against a real server.

Proves: ``POST /api/advise`` answers exactly what ``dicewise advise --json`` prints for the
same position (fixed positions and random ones); bad input of every kind (unknown ruleset,
impossible dice, bad JSON, a plain form, unknown fields, an oversized body declared or
streamed, an unknown address or game) is a 4xx ``{"ok": false, "error"}`` and the server
answers the next request; fuzzed bodies never get a 5xx; a server with a token refuses
every request without it and takes it from the query (which sets a cookie), the header or
the cookie; a loopback server refuses other host names; the page loads nothing from
outside; ``dicewise serve`` refuses an open host without a token, and says its lines (where
to open the page, how to stop it, its refusals) in ``--lang`` or the locale's language.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the web extra (starlette, uvicorn) is not installed")

from click.testing import CliRunner  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dicewise import i18n  # noqa: E402
from dicewise.cli.main import cli  # noqa: E402
from dicewise.cli.serve import addresses  # noqa: E402
from dicewise.web.builds import Builds  # noqa: E402
from lines import ERROR_LINE  # noqa: E402

STATIC = Path(__file__).resolve().parents[1] / "dicewise" / "web" / "static"


class Server:
    """``dicewise serve`` in a subprocess on a free port of 127.0.0.1, and requests to it."""

    def __init__(self, tmp: Path, *extra: str):
        self.cache = tmp / "cache"
        self.games = tmp / "games"
        env = {**os.environ, "DICEWISE_CACHE": str(self.cache), "PYTHONUNBUFFERED": "1"}
        # its output in a file, which never fills as a pipe nobody reads would
        fd, log = tempfile.mkstemp(prefix="serve-", suffix=".log", dir=tmp)
        os.close(fd)
        self.log = Path(log)
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "dicewise", "serve", "--port", "0", "--games",
                 str(self.games), *extra], stdout=out, stderr=subprocess.STDOUT, text=True,
                env=env)
        self.url = None
        deadline = time.monotonic() + 30
        while self.url is None and time.monotonic() < deadline and self.process.poll() is None:
            found = re.search(r"(http://\S+)\n", self.said())  # a whole line
            if found:
                self.url = found.group(1)
            else:
                time.sleep(0.02)
        if self.url is None:
            self.stop()
            raise RuntimeError("dicewise serve printed no address")
        parts = urlsplit(self.url)
        self.host, self.port = parts.hostname, parts.port
        self.token = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p).get("token")

    def said(self) -> str:
        """Everything the server has printed so far (its log too)."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def request(self, method: str, path: str, body=None, headers=None, raw: bytes | None = None):
        """(status, headers, parsed JSON or text) of one request."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        headers = dict(headers or {})
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        text = response.read().decode()
        conn.close()
        kind = response.getheader("content-type", "")
        return response.status, dict(response.getheaders()), (
            json.loads(text) if kind.startswith("application/json") else text)

    def post(self, path: str, body, **kw):
        return self.request("POST", path, body=body, **kw)

    def alive(self) -> bool:
        return self.request("GET", "/api/status")[0] == 200

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("web"))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def token_server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("web-token"), "--token")
    yield s
    s.stop()


def cli_advise(server, monkeypatch, *args) -> dict:
    """What ``dicewise advise ... --json`` prints, on the server's table cache."""
    monkeypatch.setenv("DICEWISE_CACHE", str(server.cache))
    result = CliRunner().invoke(cli, ["advise", *args, "--json"], prog_name="dicewise")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- the advisor -----------------------------------------------------------------------

def test_status_and_page(server):
    status, headers, data = server.request("GET", "/api/status")
    assert status == 200 and data["building"] == [] and data["languages"] == ["en", "ru", "pl"]
    status, headers, page = server.request("GET", "/")
    assert status == 200 and "/static/app.js" in page
    assert "default-src 'self'" in headers["content-security-policy"]
    for name in ("app.js", "style.css", "favicon.svg"):
        assert server.request("GET", f"/static/{name}")[0] == 200


def test_rules_are_describe(server):
    status, _, rows = server.request("GET", "/api/rules")
    assert status == 200 and "general" in [r["name"] for r in rows]
    status, _, general = server.request("GET", "/api/rules/general")
    assert status == 200 and general["categories"][0] == "ones"
    status, _, data = server.request("GET", "/api/rules/nope")
    assert status == 400 and "unknown ruleset 'nope'" in data["error"]


@pytest.mark.parametrize("ruleset, body, args", [
    ("general", {"dice": [2, 2, 4, 6, 6], "roll": 1, "sheet": "ones=3,straight=25"},
     ["--dice", "2", "2", "4", "6", "6", "--roll", "1", "--sheet", "ones=3,straight=25"]),
    ("general", {"dice": [1, 1, 1, 5, 6], "roll": 3, "options": {"straight": "plain"}},
     ["--dice", "1", "1", "1", "5", "6", "--roll", "3", "--option", "straight=plain"]),
    ("poker-programs", {"dice": [3, 3, 3, 4, 5], "roll": 2, "top": 3},
     ["--dice", "3", "3", "3", "4", "5", "--roll", "2", "--top", "3"]),
    ("general", {"dice": [6, 6, 6, 6, 2], "roll": 2, "options": ["big_general=sixty"], "top": 1},
     ["--dice", "6", "6", "6", "6", "2", "--roll", "2", "--option", "big_general=sixty",
      "--top", "1"]),
])
def test_advise_is_what_the_command_prints(server, monkeypatch, ruleset, body, args):
    status, _, data = server.post("/api/advise", {"ruleset": ruleset, **body})
    assert status == 200, data
    assert data == cli_advise(server, monkeypatch, ruleset, *args)


@pytest.mark.slow  # solves General for a target (about 4 s)
def test_advise_for_a_target_is_what_the_command_prints(server, monkeypatch):
    sheet = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,straight=25,full_house=30"
    body = {"ruleset": "general", "dice": [6, 6, 6, 2, 3], "roll": 2, "sheet": sheet, "target": 160}
    status, _, data = server.post("/api/advise", body)
    assert status == 200, data
    assert data["objective"] == "target"
    assert data == cli_advise(server, monkeypatch, "general", "--dice", "6", "6", "6", "2", "3",
                              "--roll", "2", "--sheet", sheet, "--target", "160")


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dice=st.lists(st.integers(1, 6), min_size=5, max_size=5), roll=st.integers(1, 3),
       filled=st.sets(st.sampled_from(["ones", "twos", "fours", "straight", "four"]), max_size=4))
def test_random_positions_agree_with_the_command(server, monkeypatch, dice, roll, filled):
    scores = {"ones": 2, "twos": 4, "fours": 12, "straight": 0, "four": 0}
    sheet = ",".join(f"{b}={scores[b]}" for b in sorted(filled))
    status, _, data = server.post("/api/advise", {"ruleset": "general", "dice": dice,
                                                   "roll": roll, "sheet": sheet})
    args = ["--dice", *map(str, dice), "--roll", str(roll), "--sheet", sheet]
    assert status == 200, data
    assert data == cli_advise(server, monkeypatch, "general", *args)


# --- bad input ---------------------------------------------------------------------------

BAD = [
    ({"ruleset": "generl", "dice": [1, 2, 3, 4, 5], "roll": 1}, "unknown ruleset"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 7], "roll": 1}, "1..6"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4], "roll": 1}, "five"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 4}, "roll"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "sheet": "ones=7"}, "ones"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "options": {"straight": "x"}},
     "straight"),
    ({"ruleset": "general", "dice": "12345", "roll": 1}, "dice must be a list"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": True}, "roll must be an integer"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "colour": "red"}, "unknown field colour"),
    ({"dice": [1, 2, 3, 4, 5]}, "give ruleset"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "target": -3}, "target"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "players": 0},
     "a table seats 1 to 6 players, not 0"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "players": 7},
     "a table seats 1 to 6 players, not 7"),  # as 0 is, where it once listed 2..6 (1 plays)
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "top": 0}, "top"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "opponent_sheet": ""},
     "are for --players N"),  # the words of `advise`, whose one call to the API the page makes
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "players": 2}, "roll"),
    ({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "players": 2,
      "opponent_fifths": ["x"]}, "--fifth"),  # as advise --players 2 refuses --opponent-fifth
]


def test_an_impossible_position_is_refused_in_the_requests_language(server):
    body = {"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "sheet": "ones=7"}
    said = {}
    for lang in ("en", "ru", "pl", None):
        status, _, data = server.post("/api/advise", body if lang is None else {**body,
                                                                                "lang": lang})
        assert status == 400 and data["ok"] is False
        said[lang] = data["error"]
    assert said[None] == said["en"] and said["en"].startswith("ones=7: no dice score 7 in ones")
    assert said["ru"].startswith("единицы=7: кости не дают 7 в графе «единицы»")
    assert said["pl"].startswith("jedynki=7: kości nie dają 7 w rubryce „jedynki”")
    status, _, data = server.post("/api/advise", {**body, "lang": "de"})
    assert status == 400 and "unknown language 'de'" in data["error"]


@pytest.mark.parametrize("body, words", BAD)
def test_bad_positions_are_4xx_with_the_reason(server, body, words):
    status, _, data = server.post("/api/advise", body)
    assert 400 <= status < 500 and data["ok"] is False
    assert words.lower() in data["error"].lower(), data["error"]
    assert server.alive()


def test_bad_requests_are_4xx_json(server):
    cases = [
        (server.request("POST", "/api/advise", raw=b"{not json",
                        headers={"Content-Type": "application/json"}), 400, "not valid JSON"),
        (server.request("POST", "/api/advise", raw=b"ruleset=general",
                        headers={"Content-Type": "application/x-www-form-urlencoded"}), 415, "JSON"),
        (server.request("POST", "/api/advise", raw=b'{"ruleset": "general", "ruleset": "yatzy"}',
                        headers={"Content-Type": "application/json"}), 400,
         'the request is ambiguous: the name "ruleset" is given twice in one object'),
        (server.request("POST", "/api/advise", raw=b"[1, 2]",
                        headers={"Content-Type": "application/json"}), 400, "JSON object"),
        (server.request("POST", "/api/advise", raw=b"\xff\xfe",
                        headers={"Content-Type": "application/json"}), 400, "not valid JSON"),
        (server.request("POST", "/api/advise", raw=b'{"roll": ' + b"9" * 5000 + b"}",
                        headers={"Content-Type": "application/json"}), 400, "not valid JSON"),
        (server.request("POST", "/api/game", raw=b"[" * 100000 + b"]" * 100000,
                        headers={"Content-Type": "application/json"}), 400, "not valid JSON"),
        (server.request("GET", "/api/nothing"), 404, "no such address"),
        (server.request("GET", "/api/advise"), 405, ""),
        (server.request("GET", "/api/game/0123456789abcdef"), 404, ""),
        (server.request("GET", "/api/game/..%2F..%2Fetc%2Fpasswd"), 404, ""),
        (server.post("/api/game/0123456789abcdef", {"command": "roll"}), 404, ""),
        # a trailing slash is no address (it was an empty redirect)
        (server.post("/api/game/", {"command": "roll"}), 404, "no such address: /api/game/"),
        (server.request("GET", "/api/rules/"), 404, "no such address"),
    ]
    for (status, _, data), expected, words in cases:
        assert status == expected, data
        assert data["ok"] is False and words in data["error"]
    assert server.alive()


@pytest.mark.parametrize("path, body", [
    ("/api/game", {"ruleset": "general", "names": ["Ann", "\ud800"]}),
    ("/api/advise", {"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1,
                     "options": {"\ud800": 1}}),
    ("/api/game/resume", {"saved": {"format": "dicewise-table-game", "version": 1,
                                    "ruleset": "general", "names": ["\udcff"], "events": []}})])
def test_half_a_character_is_refused_as_no_text(server, path, body):
    """JSON may escape a lone surrogate (half of a character, ``\\ud800``): refused where the
    request is read, not a 500 once a game file or an answer that quotes it is written."""
    status, _, data = server.post(path, body)  # json.dumps escapes it, as a browser would
    assert status == 400 and data["ok"] is False, data
    assert "half of a character" in data["error"] and "\\ud" in data["error"], data
    assert server.alive()


def test_oversized_bodies_are_refused(server):
    big = {"ruleset": "general", "dice": [1, 2, 3, 4, 5], "sheet": "x" * 300_000}
    status, _, data = server.post("/api/advise", big)
    assert status == 413 and "too large" in data["error"]
    # the same body streamed in chunks, with no length declared
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    payload = json.dumps(big).encode()
    chunks = (payload[i:i + 65536] for i in range(0, len(payload), 65536))
    conn.request("POST", "/api/advise", body=chunks, encode_chunked=True,
                 headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    assert response.status == 413 and b"too large" in response.read()
    conn.close()
    assert server.alive()


@pytest.mark.parametrize("headers, query, said", [
    ({"Accept-Language": "ru"}, "", "запрос слишком велик (не больше 262\xa0144 байт)"),
    ({"Accept-Language": "ru"}, "?lang=pl", "żądanie jest za duże (najwyżej 262\xa0144 bajty)"),
    ({}, "?lang=xx", "the request is too large (at most 262,144 bytes)")])
def test_an_oversized_body_is_refused_in_the_requests_language(server, headers, query, said):
    """A body too large is refused before its ``lang`` is read: in the request's ``?lang=``,
    else its Accept-Language, which the page sets to its own language (a Russian page
    resuming a file over the limit said so in English)."""
    big = json.dumps({"saved": {}, "lang": "ru", "pad": "x" * 300_000}).encode()
    status, _, data = server.request("POST", "/api/game/resume" + query, raw=big,
                                     headers={"Content-Type": "application/json", **headers})
    assert status == 413 and data["error"] == said, data


JSON_BODY = {"Content-Type": "application/json"}


@pytest.mark.parametrize("method, path, raw, headers, status, said", [
    # where the JSON goes wrong, not the parser's English words for what
    ("POST", "/api/advise", b"{bad", {**JSON_BODY, "Accept-Language": "ru"}, 400,
     "запрос — не корректный JSON (строка 1, позиция 2)"),
    ("POST", "/api/advise?lang=pl", b'{"a": 1,\n "b": ]}', JSON_BODY, 400,
     "żądanie nie jest poprawnym JSON-em (wiersz 2, kolumna 7)"),
    ("POST", "/api/advise?lang=pl", b'{"a": "\xff"}', JSON_BODY, 400,
     "żądanie nie jest poprawnym JSON-em (nie UTF-8)"),
    ("POST", "/api/advise?lang=pl", b"{}", {"Content-Type": "text/plain"}, 415,
     "wyślij żądanie jako JSON (Content-Type: application/json)"),
    ("POST", "/api/game", b"[1]", {**JSON_BODY, "Accept-Language": "pl-PL,pl;q=0.9"}, 400,
     "żądanie musi być obiektem JSON"),
    ("POST", "/api/game/resume", b'{"a": 1, "a": 2}', {**JSON_BODY, "Accept-Language": "ru"},
     400, 'запрос неоднозначен: имя "a" дано дважды в одном объекте'),
    ("GET", "/api/nothing", None, {"Accept-Language": "ru"}, 404, "нет такого адреса: /api/nothing"),
    ("DELETE", "/api/status?lang=pl", None, {}, 405,
     "metoda DELETE nie jest dozwolona pod adresem /api/status"),
    ("DELETE", "/api/status", None, {"Accept-Language": "de"}, 405,
     "DELETE is not allowed at /api/status")])
def test_a_request_refused_before_its_body_is_read_is_said_in_its_language(
        server, method, path, raw, headers, status, said):
    """Malformed JSON, another content type, an address or method the API has not: said in
    the request's ?lang=, else its Accept-Language (they were English whatever was asked)."""
    answer = server.request(method, path, raw=raw, headers=headers)
    assert answer[0] == status and answer[2] == {"ok": False, "error": said}, answer[2]


def test_a_body_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(server):
    """The limit is the most a body may be: at it the request is answered, one byte over it
    is a 413, whether the length is declared or the body streamed without one."""
    from dicewise.web.app import BODY_LIMIT

    position = json.dumps({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1}).encode()

    def padded(size: int) -> bytes:
        return position + b" " * (size - len(position))  # JSON may end in white space

    def streamed(payload: bytes) -> int:
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        chunks = (payload[i:i + 65536] for i in range(0, len(payload), 65536))
        conn.request("POST", "/api/advise", body=chunks, encode_chunked=True,
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        conn.close()
        return response.status

    headers = {"Content-Type": "application/json"}
    status, _, data = server.request("POST", "/api/advise", raw=padded(BODY_LIMIT), headers=headers)
    assert status == 200 and data["best"], data
    status, _, data = server.request("POST", "/api/advise", raw=padded(BODY_LIMIT + 1),
                                     headers=headers)
    assert status == 413 and "too large" in data["error"]
    assert streamed(padded(BODY_LIMIT)) == 200
    assert streamed(padded(BODY_LIMIT + 1)) == 413
    assert server.alive()


def test_a_client_gone_before_its_body_leaves_no_traceback(server):
    """A request that declares a body and goes away before sending it all is no defect of the
    server: nothing in its log but what uvicorn says of a malformed request, sent after it
    as a marker, and the next request is answered."""
    import socket

    before = len(server.said())
    for path in ("/api/advise", "/api/game", "/api/game/resume", "/api/game/0123456789abcdef"):
        with socket.create_connection((server.host, server.port), timeout=10) as sock:
            sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: "
                         "application/json\r\nContent-Length: 100\r\n\r\n{}".encode())
    time.sleep(0.05)  # the server sees each go before the marker comes
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(b"GET /\xff HTTP/1.1\r\n\r\n")
        sock.recv(1024)
    deadline = time.monotonic() + 10
    while "Invalid HTTP request" not in server.said()[before:] and time.monotonic() < deadline:
        time.sleep(0.01)
    logged = server.said()[before:]
    assert "Invalid HTTP request" in logged and "Traceback" not in logged, logged
    assert server.alive()


def test_json_is_taken_with_a_charset_and_in_any_case(server):
    body = json.dumps({"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1}).encode()
    for kind in ("application/json; charset=utf-8", "Application/JSON", "application/json ;"):
        status, _, data = server.request("POST", "/api/advise", raw=body,
                                         headers={"Content-Type": kind})
        assert status == 200 and data["best"], (kind, data)
    for kind in ("text/plain; charset=utf-8", "application/jsonp", "multipart/form-data"):
        status, _, data = server.request("POST", "/api/advise", raw=body,
                                         headers={"Content-Type": kind})
        assert status == 415 and "JSON" in data["error"], (kind, data)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
                        st.text(max_size=6), inner, max_size=4), max_leaves=12)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.fixed_dictionaries({}, optional={
    "ruleset": st.sampled_from(["general", "poker-programs", "risk", "nope"]) | JSON,
    "dice": st.lists(st.integers(-1, 8), max_size=6) | JSON,
    "roll": st.integers(-1, 4) | JSON, "sheet": st.text(max_size=20) | JSON,
    "options": JSON, "target": st.integers(-5, 400) | JSON, "players": JSON, "fifth": JSON}))
def test_fuzzed_requests_never_break_the_server(server, body):
    status, _, data = server.post("/api/advise", body)
    assert status == 200 or (400 <= status < 500 and data["ok"] is False and data["error"]), data


# --- safety -----------------------------------------------------------------------------

def test_a_loopback_server_answers_only_to_its_own_names(server):
    assert server.request("GET", "/api/status", headers={"Host": f"localhost:{server.port}"})[0] == 200
    status, _, data = server.request("GET", "/api/status",
                                     headers={"Host": f"attacker.example:{server.port}"})
    assert status == 400 and data["ok"] is False


def test_a_loopback_server_answers_to_its_ipv6_name_with_or_without_a_port(server):
    for host in (f"[::1]:{server.port}", "[::1]", f"127.0.0.1:{server.port}", "localhost"):
        assert server.request("GET", "/api/status", headers={"Host": host})[0] == 200, host
    for host in (f"[::2]:{server.port}", "[::1", f"[::1].attacker.example:{server.port}",
                 f"localhost.attacker.example:{server.port}", "127.0.0.2"):
        status, _, data = server.request("GET", "/api/status", headers={"Host": host})
        assert status == 400 and data["ok"] is False, host


def test_a_token_is_required_on_every_request(token_server):
    s = token_server
    assert s.token and len(s.token) >= 16 and s.url.endswith(f"/?token={s.token}")
    for path in ("/", "/static/app.js", "/api/status", "/api/rules"):
        assert s.request("GET", path)[0] == 403
        assert s.request("GET", path, headers={"X-Dicewise-Token": "wrong"})[0] == 403
    status, _, data = s.post("/api/advise", {"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1})
    assert status == 403 and "token" in data["error"]
    status, headers, page = s.request("GET", f"/?token={s.token}")
    assert status == 200 and "app.js" in page
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert s.request("GET", "/static/app.js", headers={"Cookie": cookie.split(";")[0]})[0] == 200
    assert s.request("GET", "/api/status", headers={"X-Dicewise-Token": s.token})[0] == 200
    assert s.request("GET", "/api/status", headers={"Cookie": "dicewise_token=wrong"})[0] == 403
    assert s.request("GET", "/api/status", headers={"Cookie": "\x7f;;=="})[0] == 403
    # the refusal in the browser's language, by Accept-Language (the page is not read yet)
    for accepted, words in [("ru-RU,ru;q=0.9,en;q=0.8", "откройте адрес"),
                            ("de;q=1, pl;q=0.7, ru;q=0.5", "otwórz adres"),
                            ("en;q=0.2, ru;q=0.9", "откройте адрес"),
                            ("de, fr;q=x", "open the address"), ("", "open the address")]:
        status, _, data = s.request("GET", "/api/status", headers={"Accept-Language": accepted})
        assert status == 403 and data["error"].startswith(words), (accepted, data)


def test_the_page_loads_nothing_from_outside():
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text.replace(
            "http://www.w3.org/2000/svg", "")), path.name


def test_open_hosts_print_addresses_with_the_token():
    urls = addresses("0.0.0.0", 8765, "abc")
    assert urls[-1] == "http://127.0.0.1:8765/?token=abc"
    assert all(u.endswith(":8765/?token=abc") for u in urls)
    assert addresses("127.0.0.1", 9000, None) == ["http://127.0.0.1:9000/"]


def test_serve_refuses_an_open_host_without_a_token(tmp_path):
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--no-token", "--games",
                                      str(tmp_path)], prog_name="dicewise")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "dicewise: error: --host 0.0.0.0 is open to the network: it needs its token"]
    every = CliRunner().invoke(cli, ["serve", "--host", "", "--no-token", "--games",
                                     str(tmp_path)], prog_name="dicewise")
    assert every.stderr.strip() == ("dicewise: error: --host '' is open to the network: it "
                                    "needs its token")
    afile = tmp_path / "file"
    afile.write_text("")
    result = CliRunner().invoke(cli, ["serve", "--games", str(afile)], prog_name="dicewise")
    assert result.exit_code == 2 and "is a file" in result.stderr


def test_serve_refuses_a_port_in_use(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--port", str(port), "--games", str(tmp_path)],
                                    prog_name="dicewise")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"dicewise: error: cannot listen on 127.0.0.1:{port}")
    assert len(result.stderr.strip().splitlines()) == 1


def test_serve_prints_its_address_as_json(tmp_path):
    env = {**os.environ, "DICEWISE_CACHE": str(tmp_path / "cache"), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-m", "dicewise", "serve", "--port", "0",
                                "--games", str(tmp_path / "games"), "--token", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=env)
    try:
        line = json.loads(process.stdout.readline())
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stdout.close()
    assert line["host"] == "127.0.0.1" and line["port"] > 0 and len(line["token"]) >= 16
    assert line["urls"] == [f"http://127.0.0.1:{line['port']}/?token={line['token']}"]
    assert line["games"] == str(tmp_path / "games")



def _spoken(lang: str, how: str, args: list[str], monkeypatch) -> list[str]:
    """``args`` run with ``--lang`` or the locale's language (``how``): the language asked."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    if how == "locale":
        monkeypatch.setenv("LANG", f"{lang}_{lang.upper()}.UTF-8")
        return args
    return [*args, "--lang", lang]


@pytest.mark.parametrize("lang,how", [("ru", "locale"),
                                      pytest.param("pl", "--lang", marks=pytest.mark.slow)])
def test_serve_says_where_it_listens_and_how_to_stop_it_in_the_players_language(
        lang, how, tmp_path, monkeypatch):
    """Where to open the page, who can open it, how to stop the server, where the games are
    kept, and that Ctrl+C stopped it (status 130): in ``--lang`` or the locale's language, as
    every command a player runs (they were English whatever was asked)."""
    import signal

    tr = i18n.translator(lang)
    games = tmp_path / "games"
    args = _spoken(lang, how, ["serve", "--port", "0", "--games", str(games)], monkeypatch)
    env = {**os.environ, "DICEWISE_CACHE": str(tmp_path / "cache"), "PYTHONUNBUFFERED": "1"}
    # Ctrl+C heard as at a terminal, even where the tests run in the background of a shell
    process = subprocess.Popen([sys.executable, "-m", "dicewise", *args], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        said = [process.stdout.readline() for _ in range(3)]
        while said[-1] and not said[-1].rstrip().endswith("."):  # broken to fit 80 columns
            said.append(process.stdout.readline())
        kept = process.stderr.readline()
        port = urlsplit(said[1].strip()).port
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/status")
        assert conn.getresponse().status == 200  # serving: now Ctrl+C
        conn.close()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    only_here = "Only this machine can open it (--host 0.0.0.0 for phones on the network); " \
                "Ctrl+C stops the server."
    assert said[:2] == [tr("dicewise serve: open") + "\n", f"  http://127.0.0.1:{port}/\n"]
    assert " ".join(line.strip() for line in said[2:]) == tr(only_here), said
    assert max(len(line.rstrip("\n")) for line in said) <= 80, said
    assert tr(only_here) != only_here and tr("dicewise serve: open") != "dicewise serve: open"
    assert process.returncode == 130 and not out
    assert kept == tr("Games are kept in {folder}").format(folder=games) + "\n"
    assert err.splitlines() == [f"dicewise: {tr('interrupted')}"], err


@pytest.mark.parametrize("lang,how", [("ru", "locale"), ("pl", "--lang"), ("pl", "locale"),
                                      ("ru", "--lang")])
def test_serve_refuses_in_the_players_language(lang, how, tmp_path, monkeypatch):
    """A port out of range (refused by the command line's parser), an open host without its
    token, a file for the games folder, a port in use, a missing web extra: one line, exit 2,
    in ``--lang`` or the locale's language (they were English whatever was asked)."""
    import socket

    tr = i18n.translator(lang)
    afile = tmp_path / "file"
    afile.write_text("")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        cases = [
            (["serve", "--port", "99999"], i18n.Message(
                "{error} (see `{command} --help`)", command="dicewise serve", error=i18n.Message(
                    "{name} {value}: {wanted}", name="--port", value="99999",
                    wanted=i18n.Message("give a whole number from {low} to {high}", low=0,
                                        high=65535)))),
            (["serve", "--host", "0.0.0.0", "--no-token", "--games", str(tmp_path)],
             i18n.Message("--host {host} is open to the network: it needs its token",
                          host="0.0.0.0")),
            (["serve", "--games", str(afile)],
             i18n.Message("--games {folder} is a file, not a folder", folder=str(afile))),
            (["serve", "--port", str(port), "--games", str(tmp_path)],
             i18n.Message("cannot listen on {host}:{port}: {why}", host="127.0.0.1", port=port,
                          why=i18n.Message("Address already in use"))),
        ]
        for args, message in cases:
            result = CliRunner().invoke(cli, _spoken(lang, how, args, monkeypatch),
                                        prog_name="dicewise")
            shown = message.in_language(tr)
            assert result.exit_code == 2 and not result.stdout, result.output
            assert result.stderr == f"{ERROR_LINE[lang]}{shown}\n", args
            assert shown != str(message)
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # the web extra is not installed
    result = CliRunner().invoke(cli, _spoken(lang, how, ["serve"], monkeypatch))
    message = i18n.Message("serve needs the web extra: pip install 'dicewise[web]'")
    assert result.exit_code == 2 and result.stderr == (
        f"{ERROR_LINE[lang]}{message.in_language(tr)}\n") != f"dicewise: error: {message}\n"


def test_builds_in_progress_are_reported():
    builds = Builds()
    assert builds.snapshot() == []
    with builds.factory(10, "solving yahtzee") as update:
        update(4)
        (entry,) = builds.snapshot()
        assert entry["label"] == "solving yahtzee" and entry["fraction"] == pytest.approx(0.4)
    assert builds.snapshot() == []
    from dicewise.i18n import Message

    with builds.factory(10, Message("solving {game} for two players", game="general")):
        (entry,) = builds.snapshot()  # the page names the game in its own language
        assert entry["game"] == "general" and entry["label"] == "solving general for two players"
        assert json.loads(json.dumps(builds.snapshot())) == [entry]


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_ctrl_c_stops_the_server_while_a_table_is_built(tmp_path):
    """Ctrl+C while a request builds the two-player table (minutes): the server and every
    worker of the build are gone within seconds, the request is answered, no table is left
    (before, the port closed but the build went on to its end)."""
    import signal
    import threading

    s = Server(tmp_path)
    answered = []
    ask = threading.Thread(target=lambda: answered.append(s.post("/api/advise", {
        "ruleset": "general", "players": 2, "dice": [1, 2, 3, 4, 6], "roll": 1})))
    ask.start()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        building = s.request("GET", "/api/status")[2]["building"]
        if any("two players" in b["label"] for b in building):
            break
        time.sleep(0.2)
    else:
        s.stop()
        pytest.fail("the two-player table was never reported as being built")
    time.sleep(2)  # well into the build
    workers = _children(s.process.pid)
    s.process.send_signal(signal.SIGINT)
    try:
        s.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        s.stop()
        pytest.fail("the server went on after Ctrl+C")
    ask.join(timeout=30)
    assert answered and answered[0][0] >= 400, answered
    time.sleep(1)
    assert not {pid for pid in workers if Path(f"/proc/{pid}").exists()
                and (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
                     != "Z")}
    assert not list(s.cache.glob("*-2p*.dwt"))


@pytest.mark.slow
def test_a_second_ctrl_c_ends_the_server_at_once(tmp_path):
    """A build stops only at its next progress step, and some steps take minutes (play for
    a target in one-column poker-school: 18 minutes at 0%); a second Ctrl+C then logged a
    CancelledError traceback and still waited for that step.  Now it ends the server at
    once, says so in the server's language, and exits as a Ctrl+C does (130)."""
    import signal
    import threading

    s = Server(tmp_path, "--lang", "pl")

    def ask_for_a_build():
        with contextlib.suppress(OSError):  # the server ends before it answers
            s.post("/api/advise", {"ruleset": "general", "players": 2,
                                   "dice": [1, 2, 3, 4, 6], "roll": 1})

    ask = threading.Thread(target=ask_for_a_build, daemon=True)
    ask.start()
    deadline = time.monotonic() + 120
    while not s.request("GET", "/api/status")[2]["building"]:
        if time.monotonic() > deadline:
            s.stop()
            pytest.fail("no table was ever reported as being built")
        time.sleep(0.2)
    s.process.send_signal(signal.SIGINT)
    time.sleep(0.3)
    s.process.send_signal(signal.SIGINT)
    try:
        code = s.process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        s.stop()
        pytest.fail("the server went on after a second Ctrl+C")
    assert code == 130
    said = s.said()
    assert "dicewise: przerwano" in said and "Traceback" not in said, said


# --- the game in progress ------------------------------------------------------------------

@pytest.fixture
def session():
    return pytest.importorskip("dicewise.play.session",
                               reason="the game in progress is not installed")


def test_a_game_answers_what_play_answers(server, session, monkeypatch):
    monkeypatch.setenv("DICEWISE_CACHE", str(server.cache))
    new = {"ruleset": "general", "players": 2, "names": ["Ann", "Bob"], "seed": 4,
           "objective": "score"}
    status, _, first = server.post("/api/game", new)
    assert status == 200, first
    game_id = first.pop("game")
    twin = session.TableGame.new("general", players=2, names=["Ann", "Bob"], seed=4,
                                 objective="score")
    assert first == json.loads(json.dumps(twin.apply("sheet")))
    for command in ["roll", "pick 1", "roll", "keep", "roll", "pick 2", "undo", "pick 1",
                    "dice 1 2 3 4 5", "write nowhere", "roll"]:
        status, _, answer = server.post(f"/api/game/{game_id}", {"command": command})
        expected = json.loads(json.dumps(twin.apply(command)))
        assert answer == expected, command
        assert status == (200 if expected["ok"] else 400)
    saved = json.loads((server.games / f"{game_id}.json").read_text())
    assert saved == twin.to_json()
    assert not [p for p in server.games.iterdir() if p.suffix != ".json"]
    status, headers, downloaded = server.request("GET", f"/api/game/{game_id}/file")
    assert status == 200 and "attachment" in headers["content-disposition"]
    assert downloaded == saved
    status, _, again = server.request("GET", f"/api/game/{game_id}")
    assert status == 200 and again["state"] == json.loads(json.dumps(twin.state()))
    # the page's language, changed mid-game, is the game's from the next command on
    twin.speak("ru")
    status, _, answer = server.post(f"/api/game/{game_id}", {"command": "write nowhere",
                                                             "lang": "ru"})
    assert status == 400 and answer == json.loads(json.dumps(twin.apply("write nowhere")))
    assert re.search("[а-я]", answer["error"]), answer
    status, _, answer = server.post(f"/api/game/{game_id}", {"command": "sheet", "lang": "xx"})
    assert status == 400 and "unknown language" in answer["error"]


def test_a_move_made_for_a_game_that_has_moved_on_is_refused(server, session):
    """Two phones on one game: a tap on a page that still shows an earlier moment (its
    ``events``) would play for the position after it, another player's; refused (409) with
    the game as it is now, which the page draws, and nothing played."""
    status, _, first = server.post("/api/game", {"ruleset": "ryzykant", "players": 2,
                                                 "seed": 3, "advice": False})
    game_id = first["game"]
    seen = server.post(f"/api/game/{game_id}", {"command": "dice 1 2 3 4 5"})[2]["state"]
    split = {"command": "split 1+2 3+4 5", "events": seen["events"]}
    assert server.post(f"/api/game/{game_id}", split)[0] == 200  # the first phone's tap
    status, _, answer = server.post(f"/api/game/{game_id}", split)  # the second, stale
    assert status == 409 and answer["ok"] is False and "moved on" in answer["error"], answer
    now = server.request("GET", f"/api/game/{game_id}")[2]["state"]
    assert answer["state"] == now and now["events"] == 2 and now["to_move"] == 1
    status, _, answer = server.post(f"/api/game/{game_id}", {"command": "undo", "events": 1,
                                                             "lang": "pl"})
    assert status == 409 and answer["error"].startswith("odkąd ta strona pokazała grę")
    status, _, answer = server.post(f"/api/game/{game_id}", {"command": "undo", "events": "2"})
    assert status == 400 and "events must be an integer" in answer["error"]
    # no page saw fewer than no events: a 400 in the request's language, not "moved on"
    status, _, answer = server.post(f"/api/game/{game_id}", {"command": "undo", "events": -1,
                                                             "lang": "ru"})
    assert (status, answer["error"]) == (400, "поле events должно быть не меньше 0"), answer
    assert server.post(f"/api/game/{game_id}", {"command": "undo", "events": 2})[0] == 200


def test_a_refused_move_in_a_new_language_keeps_it_in_the_file(server, session):
    """The page's language comes with a move the game refuses: the game goes on in it, in
    its file as in memory (it was memory only, and the game read again from its file spoke
    the old language and named its players in it)."""
    game_id = server.post("/api/game", {"ruleset": "general", "players": 2, "seed": 1,
                                        "advice": False})[2]["game"]
    for lang, command, status in [("ru", "write sixes", 400), ("pl", "save x", 400),
                                  ("en", "undo", 409)]:
        body = {"command": command, "lang": lang, **({"events": 5} if status == 409 else {})}
        assert server.post(f"/api/game/{game_id}", body)[0] == status
        on_disk = json.loads((server.games / f"{game_id}.json").read_text(encoding="utf-8"))
        assert on_disk["lang"] == lang, (command, on_disk)
        assert on_disk == server.request("GET", f"/api/game/{game_id}/file")[2]
    assert on_disk["names"] == ["Player 1", "Player 2"] and on_disk["events"] == []


def test_a_saved_game_resumes_and_the_page_cannot_write_files(server, session, tmp_path):
    status, _, first = server.post("/api/game", {"ruleset": "general", "players": 1, "seed": 2,
                                                 "names": ["Solo"]})
    game_id = first["game"]
    server.post(f"/api/game/{game_id}", {"command": "roll"})
    saved = server.request("GET", f"/api/game/{game_id}/file")[2]
    status, _, resumed = server.post("/api/game/resume", {"saved": saved})
    assert status == 200 and resumed["game"] != game_id
    assert resumed["state"] == server.request("GET", f"/api/game/{game_id}")[2]["state"]
    outside = tmp_path / "escaped.json"
    for space in (" ", "\t", "\u00a0", "  "):  # however the words are parted, as play reads them
        for verb in ("save", "Save", "SAVE"):
            status, _, answer = server.post(f"/api/game/{game_id}",
                                            {"command": f"{verb}{space}{outside}"})
            assert status == 400 and answer["ok"] is False and not outside.exists()
    status, _, answer = server.post(f"/api/game/{game_id}", {"command": "quit"})
    assert status == 400 and "close the page" in answer["error"]
    # the commands the page offers are those it takes: not save and quit (its buttons)
    status, _, answer = server.post(f"/api/game/{game_id}", {"command": "frobnicate"})
    assert status == 400 and answer["error"] == (
        "unknown command 'frobnicate' (commands: dice, roll, advise, pick, keep, write, undo, "
        "sheet, help)")
    status, _, answer = server.post(f"/api/game/{game_id}", {"command": "help"})
    assert status == 200 and list(answer["help"]) == ["dice", "roll", "advise", "pick", "keep",
                                                      "write", "undo", "sheet", "help"]
    for line in ("pick ²", "pick " + "9" * 5000):  # int() refuses both: once a 500
        status, _, answer = server.post(f"/api/game/{game_id}", {"command": line})
        assert status == 400 and answer["error"].startswith("pick takes the number"), answer
    status, _, answer = server.post("/api/game/resume", {"saved": {"format": "nope"}})
    assert status == 400 and "not a saved dicewise game" in answer["error"]
    damaged = {**saved, "events": [{"dice": [9, 9, 9, 9, 9]}]}
    status, _, answer = server.post("/api/game/resume", {"saved": damaged})
    assert status == 400 and answer["ok"] is False
    for body, words in [({"saved": {**saved, "lang": 5}}, "unknown language"),
                        ({"saved": {**saved, "names": "abc"}}, "every player needs a name")]:
        status, _, answer = server.post("/api/game/resume", body)
        assert status == 400 and words in answer["error"], answer
    for body, words in [({"ruleset": "general", "names": [1, 2]}, "every player needs a name"),
                        ({"ruleset": "poker-school", "players": 3, "target": 500}, "target"),
                        ({"ruleset": "ryzykant", "target": 500}, "no play for a target"),
                        ({"ruleset": "general", "players": 99}, "players"),
                        ({"ruleset": "nope"}, "unknown ruleset"),
                        ({"ruleset": "general", "lang": "xx"}, "language")]:
        status, _, answer = server.post("/api/game", body)
        assert status == 400 and words in answer["error"], answer
    for lang, words in [("en", "two players have the same name"),
                        ("ru", "у двух игроков одинаковое имя"),
                        ("pl", "dwóch graczy ma to samo imię")]:  # in the page's language
        status, _, answer = server.post("/api/game", {"ruleset": "general", "lang": lang,
                                                      "names": ["Ann", "Ann"]})
        assert status == 400 and answer["error"] == words, answer
    status, _, answer = server.post("/api/game", {"ruleset": "general", "lang": "ru",
                                                  "options": {"straight": "foo"}})
    assert status == 400 and answer["error"].startswith("параметр straight=foo"), answer
    assert server.alive()


def test_the_page_is_told_of_a_lost_or_damaged_game_in_its_language(server, session):
    """What the page shows a player as it resumes a saved file or opens a game's link: a
    file that is no game and a game that is not here, said in the page's language."""
    for lang, words in [("ru", "это не сохранённая партия dicewise"),
                        ("pl", "to nie jest zapisana gra dicewise")]:
        status, _, answer = server.post("/api/game/resume", {"saved": {"format": "nope"},
                                                             "lang": lang})
        assert status == 400 and answer["error"] == words, answer
    status, _, answer = server.post("/api/game/resume", {"saved": {"format": "nope"}})
    assert status == 400 and answer["error"] == "this is not a saved dicewise game"
    missing = "0123456789abcdef"
    for lang, words in [(None, f"no game {missing} here"), ("ru", f"здесь нет игры {missing}"),
                        ("pl", f"nie ma tu gry {missing}")]:
        query = f"?lang={lang}" if lang else ""
        status, _, answer = server.request("GET", f"/api/game/{missing}{query}")
        assert status == 404 and answer["error"].startswith(words), answer
        status, _, answer = server.post(f"/api/game/{missing}", {"command": "roll", "lang": lang})
        assert status == 404 and answer["error"].startswith(words), answer
        status, _, answer = server.request("GET", f"/api/game/{missing}/file{query}")
        assert status == 404 and answer["error"].startswith(words), answer
    for path in ("/api/game/nothing?lang=ru", "/api/game/nothing/file?lang=ru"):
        status, _, answer = server.request("GET", path)
        assert status == 404 and answer["error"] == "здесь нет игры 'nothing'", answer
    status, _, answer = server.request("GET", "/api/game/" + "a" * 5000)  # said back cut short
    assert status == 404 and answer["error"] == f"no game '{'a' * 40}...' here", answer
    status, _, answer = server.request("GET", f"/api/game/{missing}?lang=xx")  # English
    assert status == 404 and answer["error"].startswith(f"no game {missing} here"), answer
    # a game resumed from the page goes on in the page's language
    status, _, first = server.post("/api/game", {"ruleset": "general", "players": 2, "seed": 3})
    saved = server.request("GET", f"/api/game/{first['game']}/file")[2]
    status, _, resumed = server.post("/api/game/resume", {"saved": saved, "lang": "pl"})
    assert status == 200 and [p["name"] for p in resumed["state"]["players"]] == [
        "Gracz 1", "Gracz 2"], resumed


def damaged_saves(session) -> dict:
    """A saved game (no advice: no table to build) with each field broken as a hand might
    break it, and the words that refuse it in English."""
    saved = session.TableGame.new("general", players=2, seed=5, advice=False).to_json()
    return {"options": ({**saved, "options": 5}, "its options are not an object"),
            "options list": ({**saved, "options": ["straight=plain"]},
                             "its options are not an object"),
            "events": ({**saved, "events": 5}, "its events are not a list"),
            "events text": ({**saved, "events": "abc"}, "its events are not a list"),
            "no events": ({k: v for k, v in saved.items() if k != "events"},
                          "it has no events"),
            "no names": ({k: v for k, v in saved.items() if k != "names"}, "it has no names"),
            "action": ({**saved, "events": [{"dice": [1, 2, 3, 4, 5]}, {"action": 5}]},
                       'not an event of a game: {"action": 5}'),
            "names": ({**saved, "names": 5}, "every player needs a name")}


@pytest.mark.parametrize("path, body, english", [
    ("/api/game", {"ruleset": "general", "players": "2"}, 'players must be an integer, not "2"'),
    ("/api/game", {"ruleset": "general", "advice": "no"}, "advice must be true or false"),
    ("/api/game", {"ruleset": "general", "colour": 1}, "unknown field colour"),
    ("/api/advise", {"ruleset": "general", "dice": [1, 2, "3", 4, 5], "roll": 1},
     "dice must be a list of whole numbers"),
    ("/api/advise", {"ruleset": "general", "dice": [1, 2, 3, 4, 5], "roll": 1, "top": 0},
     "top must be 1 or more"),
    ("/api/advise", {"ruleset": "general", "roll": 1}, "give dice"),
    ("/api/game/resume", {"saved": [1, 2]}, "this is not a saved dicewise game"),
    ("/api/game/resume", {"saved": None}, "this is not a saved dicewise game")])
def test_a_field_of_the_wrong_kind_is_refused_in_the_requests_language(server, path, body,
                                                                       english):
    """The page can send a file that is no saved game: its refusal, like every field's, is
    said in the page's language."""
    status, _, answer = server.post(path, body)
    assert status == 400 and english in answer["error"], answer
    for lang in ("ru", "pl"):
        status, _, answer = server.post(path, {**body, "lang": lang})
        said = answer["error"]
        english_words = r"\b(must|give|unknown|saved|integer|list)\b"
        assert status == 400 and not re.search(english_words, said), said


def test_a_damaged_save_is_refused_in_the_pages_language(server, session):
    """Every broken field of a saved file: one line in the page's language, no Python words."""
    for name, (saved, words) in damaged_saves(session).items():
        status, _, answer = server.post("/api/game/resume", {"saved": saved})
        assert status == 400 and words in answer["error"], (name, answer)
        english = answer["error"]
        for lang in ("ru", "pl"):
            status, _, answer = server.post("/api/game/resume", {"saved": saved, "lang": lang})
            said = answer["error"]
            assert status == 400 and said != english and "\n" not in said, (name, said)
            assert not re.search(r"object|iterable|Error|dictionary|sequence", said), (name, said)
            assert not said.startswith(english.split()[0]), (name, said)  # not English
    # a save is held to a new game's checks: the same names, seats and options refused
    saved = session.TableGame.new("general", players=2, seed=5, advice=False).to_json()
    for lang in ("en", "ru"):
        for change, new in [({"names": ["A" * 5000, "B"]}, {"names": ["A" * 41, "B"]}),
                            ({"names": ["A" * 41, "B"]}, {"names": ["A" * 41, "B"]}),
                            ({"names": list("abcdefg")}, {"names": list("abcdefg")}),
                            ({"options": {"straight": "foo"}}, {"options": {"straight": "foo"}})]:
            status, _, refused = server.post("/api/game", {"ruleset": "general", "lang": lang,
                                                           **new})
            assert status == 400, refused
            status, _, answer = server.post("/api/game/resume", {"saved": {**saved, **change},
                                                                 "lang": lang})
            assert status == 400 and answer["error"] == refused["error"], (change, answer)
    status, _, answer = server.post("/api/game/resume", {"saved": {**saved, "names": [
        "A" * 40, "B"]}})
    assert status == 200, answer
    # a game with no table play (Risk) is refused as such, before its options (whose own
    # refusal is English), in the page's language
    from dicewise import i18n

    for lang in ("ru", "pl"):
        expected = i18n.translator(lang)("{game} has no `{command}` (see `dicewise {group} "
                                         "--help`)").format(game="risk", command="play",
                                                            group="risk")
        status, _, answer = server.post("/api/game/resume", {"saved": {**saved, "ruleset": "risk"},
                                                             "lang": lang})
        assert status == 400 and answer["error"] == expected, answer
        status, _, answer = server.post("/api/game", {"ruleset": "risk", "lang": lang,
                                                      "options": {"straight": "plain"}})
        assert status == 400 and answer["error"] == expected, answer
    # a move the rules refuse as the file replays is said in the page's language too
    saved = session.TableGame.new("general", players=2, seed=5, advice=False).to_json()
    bad = {**saved, "events": [{"dice": [1, 2, 3, 4, 5]}, {"action": {"write": "nowhere"}}]}
    status, _, answer = server.post("/api/game/resume", {"saved": bad, "lang": "ru"})
    assert status == 400 and "сейчас нельзя" in answer["error"], answer


@pytest.mark.slow  # starts two servers and builds General's table (about 4 s)
def test_games_outlive_the_server(tmp_path, session):
    first = Server(tmp_path)
    try:
        game_id = first.post("/api/game", {"ruleset": "general", "players": 1, "seed": 9})[2]["game"]
        rolled = first.post(f"/api/game/{game_id}", {"command": "roll"})[2]["state"]
    finally:
        first.stop()
    second = Server(tmp_path)
    try:
        status, _, again = second.request("GET", f"/api/game/{game_id}")
        assert status == 200 and again["state"] == rolled
    finally:
        second.stop()


# --- the page's words ----------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["ru", "pl"])
def test_every_word_of_the_page_is_translated(lang, tmp_path):
    from dicewise import i18n
    from dicewise.web import strings

    folder = i18n.LOCALE_DIR / lang / "LC_MESSAGES"
    po = i18n.read_po(folder / f"{strings.DOMAIN}.po")
    i18n.write_mo(po, tmp_path / "x.mo")
    assert (tmp_path / "x.mo").read_bytes() == (folder / f"{strings.DOMAIN}.mo").read_bytes()
    assert set(po) <= set(strings.MESSAGES)
    for msgid, msgstr in po.items():
        assert re.findall(r"\{\w+\}", msgid) == re.findall(r"\{\w+\}", msgstr), msgid
    # the page's catalog holds every word itself, whatever the command line's catalog holds
    assert [m for m in strings.MESSAGES if m not in po and m != "Start"] == []
    shown = strings.catalog(lang)["messages"]
    assert all(shown[m] == po.get(m, m) for m in strings.MESSAGES)


def test_the_strings_endpoint(server):
    status, _, ru = server.request("GET", "/api/strings?lang=ru&ruleset=general")
    assert status == 200 and ru["lang"] == "ru"
    assert ru["messages"]["Undo"] == "Отменить" and ru["boxes"]["ones"] == "единицы"
    status, _, en = server.request("GET", "/api/strings?lang=xx")
    assert status == 200 and en["lang"] == "en" and en["messages"]["Undo"] == "Undo"
    for lang, code in [("RU", "ru"), ("ru-RU", "ru"), ("pl_PL", "pl")]:  # as a game reads them
        status, _, said = server.request("GET", f"/api/strings?lang={lang}")
        assert status == 200 and said["lang"] == code, said["lang"]
    # the games as the page lists them: titles, options' help, sheet notations
    status, _, general = server.request("GET", "/api/rules/general")
    assert ru["messages"][general["title"]] == "Генерал, по русскому источнику"
    assert ru["messages"][general["sheet"]].startswith("заполненные графы парами графа=очки")
    assert all(ru["messages"][o["help"]] != o["help"] for o in general["options"])
    assert general["title"] not in en["messages"]  # English shows the text itself
    # a game's own wording of the page's words: poker-school's rows are «строки» in Russian
    assert ru["phrases"] == {}
    status, _, school = server.request("GET", "/api/strings?lang=ru&ruleset=poker-school")
    assert school["phrases"]["cross {box}"] == "поставить крест в строке «{box}»"
    assert school["phrases"]["write {box}"] == "записать в строку «{box}»"
    status, _, english = server.request("GET", "/api/strings?lang=en&ruleset=poker-school")
    assert english["phrases"] == {}


def test_a_write_that_fails_leaves_the_last_good_game(tmp_path, monkeypatch):
    from dicewise.web.games import GameStore

    class Saved:
        def __init__(self, events):
            self.events = events

        def to_json(self):
            return {"format": "dicewise-table-game", "events": self.events}

    store = GameStore(tmp_path)
    store._write("0123456789abcdef", Saved([1]))
    path = tmp_path / "0123456789abcdef.json"
    assert json.loads(path.read_text())["events"] == [1]

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError):
        store._write("0123456789abcdef", Saved([1, 2]))
    assert json.loads(path.read_text())["events"] == [1]
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    with pytest.raises(Exception, match="no game"):
        store.path("../../etc/passwd")


def test_a_move_that_cannot_be_saved_is_not_kept(tmp_path, monkeypatch, session):
    from dicewise.web.games import GameStore, NotSaved

    store = GameStore(tmp_path)
    first = store.new({"ruleset": "general", "players": 1, "seed": 3, "advice": False})
    game_id = first["game"]
    store.apply(game_id, "roll")
    kept = store.state(game_id)["state"]

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    fsync = os.fsync
    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(NotSaved, match="No space left on device"):
        store.apply(game_id, "write ones")
    monkeypatch.setattr(os, "fsync", fsync)
    assert store.state(game_id)["state"] == kept


def test_a_game_dropped_from_memory_mid_command_is_not_played_twice(tmp_path, monkeypatch,
                                                                      session):
    """A game pushed out of memory while one of its commands runs is read again from its
    file only after that command has saved it: no move is lost to a stale copy."""
    import threading

    from dicewise.web import games

    monkeypatch.setattr(games, "IN_MEMORY", 1)
    store = games.GameStore(tmp_path)
    game_id = store.new({"ruleset": "general", "players": 1, "seed": 3, "advice": False})["game"]
    with store._held(game_id) as game:
        inside, release = threading.Event(), threading.Event()
        apply = game.apply

        def slow_apply(command):  # a command that takes a while (a table being built, say)
            inside.set()
            release.wait(10)
            return apply(command)

        game.apply = slow_apply
    first = threading.Thread(target=store.apply, args=(game_id, "roll"))
    first.start()
    assert inside.wait(10)
    store.new({"ruleset": "general", "players": 1, "seed": 4, "advice": False})  # drops it
    second = threading.Thread(target=store.apply, args=(game_id, "write ones"))
    second.start()
    second.join(0.5)
    assert second.is_alive()  # it waits for the first command, not for a copy of the file
    release.set()
    first.join(10)
    second.join(10)
    saved = json.loads((tmp_path / f"{game_id}.json").read_text())
    assert [list(e) for e in saved["events"]] == [["dice"], ["action"]]  # the roll, then ones
    assert store.state(game_id)["state"]["players"][0]["sheet"].startswith("ones=")


def test_an_id_that_names_no_game_leaves_nothing_behind(tmp_path):
    from dicewise.web.games import GameStore, UnknownGame

    store = GameStore(tmp_path)
    for n in range(100):
        with pytest.raises(UnknownGame, match="no game"):
            store.state(f"{n:016x}")
    assert store._locks == {} and not list(tmp_path.iterdir())
