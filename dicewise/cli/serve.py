"""``dicewise serve``: the score sheet in the browser, for the players at one table.

The command speaks the player's language (``--lang``, else the locale): its help, its error
lines, and the lines that say where it listens and how to stop it.  The page has a language
switch of its own, and starts in the browser's language."""

from __future__ import annotations

import ipaddress
import json
import os
import signal
import socket
from pathlib import Path

import click

from ..errors import DicewiseError
from ..i18n import Message, os_reason
from .format import say, speak
from .main import INTERRUPTED, Command


def default_games_dir() -> Path:
    """Where the server keeps its games: $XDG_DATA_HOME/dicewise/games, else ~/.local/share."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "dicewise" / "games"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's address on its local network, as phones there reach it (no packet sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # a documentation address: connect() only picks a route
            return s.getsockname()[0]
    except OSError:
        return None


def addresses(host: str, port: int, token: str | None) -> list[str]:
    """The addresses to open: the bound one, or for 0.0.0.0 this machine's own."""
    query = f"/?token={token}" if token else "/"
    if host in ("0.0.0.0", "::", ""):
        names = [n for n in (lan_address(), "127.0.0.1") if n]
    else:
        names = [host]
    return [f"http://{f'[{n}]' if ':' in n else n}:{port}{query}" for n in names]


@click.command(cls=Command)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; 0.0.0.0 lets phones on this network join "
              "(with a token in the address).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="The port (0: any free one).")
@click.option("--games", "games_dir", type=click.Path(), default=None,
              help="The folder of the games the server keeps (default: "
              "~/.local/share/dicewise/games).")
@click.option("--token/--no-token", "use_token", default=None,
              help="Require a random token in the address (default: only when the host is "
              "not a loopback address; --no-token is refused there).")
@click.option("--lang", default=None,
              help="en, ru or pl (default: from the locale); the page has its own language "
              "switch.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the addresses as one JSON line (for scripts) instead of the text.")
def serve(host, port, games_dir, use_token, lang, as_json):
    """Start the score sheet in the browser: pick a game, tap the dice, see every choice.

    On 127.0.0.1 only this machine can open it.  With --host 0.0.0.0 every device on
    the network can, with the address printed (it carries a random token that every
    request must show)."""
    tr = speak(lang)
    try:
        import uvicorn

        from ..web.app import create_app
        from ..web.builds import Builds
        from ..web.guard import new_token
    except ImportError:
        raise DicewiseError(Message("serve needs the web extra: pip install 'dicewise[web]'")) \
            from None
    folder = Path(games_dir) if games_dir else default_games_dir()
    if folder.exists() and not folder.is_dir():
        raise DicewiseError(Message("--games {folder} is a file, not a folder",
                                    folder=str(folder)))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DicewiseError(Message("cannot make the games folder {folder}: {why}",
                                    folder=str(folder), why=os_reason(e))) from None
    loopback = is_loopback(host)
    if use_token is False and not loopback:
        raise DicewiseError(Message("--host {host} is open to the network: it needs its token",
                                    host=host or "''"))  # '' is every address
    token = new_token() if use_token or not loopback else None
    builds = Builds()
    app = create_app(folder, token=token, loopback=loopback, builds=builds)
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)  # requests from now on wait for the server instead of being refused
    except OSError as e:
        why = Message("unknown host name") if isinstance(e, socket.gaierror) else os_reason(e)
        raise DicewiseError(Message("cannot listen on {host}:{port}: {why}", host=host,
                                    port=port, why=why)) from None
    port = sock.getsockname()[1]
    urls = addresses(host, port, token)
    if as_json:  # for scripts: no words, in every language
        click.echo(json.dumps({"urls": urls, "host": host, "port": port, "token": token,
                               "games": str(folder)}))
    else:
        click.echo(tr("dicewise serve: open"))
        for url in urls:
            click.echo(f"  {url}")
        if not loopback:
            say(tr("Anyone on this network with the address (and its token) can play; "
                   "Ctrl+C stops the server."))
        else:
            say(tr("Only this machine can open it (--host 0.0.0.0 for phones on the "
                   "network); Ctrl+C stops the server."))
        click.echo(tr("Games are kept in {folder}").format(folder=folder), err=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    _server(uvicorn, config, builds, f"dicewise: {tr('interrupted')}").run(sockets=[sock])


def _server(uvicorn, config, builds, interrupted: str = "dicewise: interrupted"):
    """A uvicorn server whose Ctrl+C also stops the tables being built: it waits for the
    requests in progress, and a build would keep it for minutes.  A second Ctrl+C ends it
    at once: a build stops only at its next progress step, and some steps take minutes
    (tables and game files are written whole or not at all, so nothing is left half-made)."""

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame):
            if self.should_exit and sig == signal.SIGINT:
                click.echo(interrupted, err=True)
                os._exit(INTERRUPTED)
            builds.stop()
            super().handle_exit(sig, frame)

    return Server(config)
