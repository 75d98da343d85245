"""One player's sheet at a table of several players, as a game plays it decision by decision.

A game that can be played along at the table (``dicewise play``) returns one from
``Game.player_sheet(rules)``; the game in progress (``play/session.py``) holds one per
player and reaches the game's rules only through this interface.  A sheet is immutable:
every write returns a new one, so undo is keeping the old one.

The contract: ``text`` is the sheet in the notation ``advise --sheet`` takes (plus
``position`` for what else the advisor reads, such as Ryzykant's ``fifth``); ``legal``
lists the writes allowed with these dice (keeps are the table's business, not the
sheet's); ``write`` plays one of them (BadAction otherwise), and ``refusal`` says why
another cannot be played.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class PlayerSheet(ABC):
    """A player's sheet between decisions: what is written, the points, whether it is done."""

    @property
    @abstractmethod
    def text(self) -> str:
        """The sheet in the notation ``advise --sheet`` takes."""

    @property
    @abstractmethod
    def points(self) -> float:
        """Points on the sheet now (the final score once ``done``)."""

    @property
    @abstractmethod
    def done(self) -> bool:
        """Whether this player's game is over (the sheet is full, or it ended)."""

    @abstractmethod
    def legal(self, dice: tuple[int, ...], roll: int) -> list[dict]:
        """Every write allowed with ``dice`` after roll ``roll``, as agent-protocol actions."""

    @abstractmethod
    def write(self, action: dict, dice: tuple[int, ...], roll: int) -> "PlayerSheet":
        """The sheet after playing ``action`` (a write, a cross, a split); BadAction if illegal."""

    def refusal(self, action: dict, dice: tuple[int, ...], roll: int):
        """Why ``action``, which is not among ``legal``, cannot be played now: a ``Message``
        for the player, or None where the game says nothing more than what is legal."""
        return None

    def position(self, dice: tuple[int, ...], roll: int) -> dict:
        """The advisor's position for this sheet with these dice (``Game.advise``'s keys)."""
        return {"dice": list(dice), "roll": roll, "sheet": self.text}

    def wins_at_once(self, dice: tuple[int, ...], roll: int) -> bool:
        """Whether these dice win the game at once (General's big general)."""
        return False

    def at_once_reason(self):
        """Why ``wins_at_once`` ends the game, for the players (a ``Message``), or None."""
        return None

    def end_at_once(self) -> "PlayerSheet":
        """The sheet of a game that ``wins_at_once`` ended (nothing more is written)."""
        return self

    def to_json(self) -> dict:
        """The sheet for the table's JSON state (beside ``text`` and ``points``)."""
        return {}
