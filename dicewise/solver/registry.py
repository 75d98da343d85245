"""The registry: every game dicewise knows, by the name the command line uses.

One line per game: its name and where its protocol object lives.  Games are imported on
first use, so listing names stays cheap and one game's imports never slow another's.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from ..errors import DicewiseError
from ..i18n import Message

#: name -> "module:attribute" of the game's protocol object (a ``protocol.Game``).
GAMES = {
    "general": "dicewise.solver.rulesets.game:GENERAL",
    "poker-programs": "dicewise.solver.rulesets.game:POKER_PROGRAMS",
    "yahtzee": "dicewise.solver.rulesets.game:YAHTZEE",
    "yatzy": "dicewise.solver.rulesets.game:YATZY",
    "risk": "dicewise.solver.risk.game:RISK",
    "ryzykant": "dicewise.solver.ryzykant.game:RYZYKANT",
    "poker-school": "dicewise.solver.poker_school.game:POKER_SCHOOL",
}


def get_game(name: str, command: str | None = None):
    """The protocol object of ``name``, or a DicewiseError listing the known names (those
    with ``command``, where one is named: ``play`` offers no Risk)."""
    if not isinstance(name, str) or name not in GAMES:
        known = [n for n in sorted(GAMES) if command is None or command in get_game(n).commands]
        raise DicewiseError(Message("unknown ruleset {name!r} (known: {known})", name=name,
                                    known=", ".join(known)))
    module, attr = GAMES[name].split(":")
    return getattr(importlib.import_module(module), attr)


class _Registry(Mapping):
    """``RULESETS``: a read-only mapping name -> game that imports each game when asked."""

    def __getitem__(self, name):
        if name not in GAMES:
            raise KeyError(name)
        return get_game(name)

    def __iter__(self):
        return iter(GAMES)

    def __len__(self):
        return len(GAMES)


RULESETS = _Registry()
