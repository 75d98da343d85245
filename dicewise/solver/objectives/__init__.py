"""What play is for: the expected score, P(final ≥ T), or the race against a rival.

An objective is one small object.  It says what it values (``name``: the ``objective`` of
the advice it gives), refuses in one line the modes that make no sense with it, and gives
the *referee* that judges decisions under it: the object ``bench-agent`` and ``review``
consult (episodes to play, advice on an observation, the reference player's scores).  The
expected score's referee is the game itself; play for a target and the two-player race
each have one of their own (``target.py``, ``race.py``).  A new objective is one module.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import DicewiseError, UnfitArguments
from ...i18n import Message, Number


@dataclass(frozen=True)
class Objective:
    """What a player plays for, as the user spelled it (``--target T``, ``--players 2``)."""

    name: str  # expected_score, target, win
    target: int | None = None
    players: int = 1


#: The largest target taken: far above any game's score (so its chance is 0), and small
#: enough for the solvers' 64-bit needs.
MAX_TARGET = 10**9


def check_target(target) -> int:
    """A target is a whole number of points, at least 0 (and at most ``MAX_TARGET``)."""
    import numpy as np

    if isinstance(target, bool) or not isinstance(target, (int, np.integer)) or target < 0:
        raise DicewiseError(Message("a target is a whole number of points, at least 0, not "
                                    "{target!r}", target=target))
    if target > MAX_TARGET:
        raise DicewiseError(Message("a target is at most {high} points, not {target}",
                                    high=Number(MAX_TARGET), target=target))
    return int(target)


def objective_of(*, target=None, players: int = 1, opponent_sheet=None) -> Objective:
    """The objective that a command's modes ask for, or one line saying why they clash."""
    if players == 2:
        if target is not None:
            raise UnfitArguments("--players 2 plays for P(win) + ½P(draw) and takes no --target")
        return Objective("win", None, 2)
    if players > 2:
        if target is not None:
            raise UnfitArguments(f"--players {players} plays to win and takes no --target")
        return Objective("win", None, players)
    if players != 1:
        raise DicewiseError(f"the number of players is 1 or more, not {players}")
    if opponent_sheet:
        raise UnfitArguments("--opponent-sheet is for --players 2")
    if target is not None:
        return Objective("target", check_target(target))
    return Objective("expected_score")
