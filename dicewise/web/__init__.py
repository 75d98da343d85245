"""The browser score sheet of ``dicewise serve``: an ASGI app over the advisor and the game
in progress (the optional extra ``dicewise[web]``: Starlette and uvicorn)."""

from __future__ import annotations


def create_app(*args, **kwargs):
    """The ASGI application (see :func:`dicewise.web.app.create_app`)."""
    from .app import create_app as create

    return create(*args, **kwargs)
