"""Table play that a game keeps in a module of its own, beside its protocol object.

A game's protocol object answers ``table_players``, ``table_policies`` and
``play_seated``; a game whose table play lives in a separate module (so that its owner's
files stay as they are) is listed here by name, and ``seating(game)`` answers for it from
that module's ``PLAYERS``, ``POLICIES`` and ``play_seated``.
"""

from __future__ import annotations

import importlib

#: game name -> the module of its table play.
TABLES = {"poker-school": "dicewise.solver.poker_school.race"}


class _Module:
    def __init__(self, game, module):
        self.game, self.module = game, module

    def table_players(self, rules):
        return self.module.PLAYERS

    def table_policies(self, rules):
        return self.module.POLICIES

    def play_seated(self, solution, seats, deals, seed, first_deal=0):
        return self.module.play_seated(solution, tuple(seats), deals, seed, first_deal)


def seating(game):
    """What seats a table of ``game``: its protocol object, or its listed module."""
    name = TABLES.get(game.name)
    return game if name is None else _Module(game, importlib.import_module(name))
