"""One turn of a category race (General) played in lockstep from a chooser's decisions.

The two-player duel and the table of N players play turns alike: G games, each with the
mover's whole turn decided in advance as ``layers.Decisions`` (after roll k with roll r:
keep which dice, or write which box), and three throws of five faces per game, a reroll of
n dice taking the first n faces of the next throw.  They differ only in the state they
keep (a lead, or every seat's points), so the turn is played here once.
"""

from __future__ import annotations

import numpy as np

from .. import dice
from ..rulesets.simulate import roll_from
from .layers import Decisions
from .space import TwoPlayerRules


def play_turn(rules: TwoPlayerRules, decisions: Decisions, throws: np.ndarray,
              sheets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play one turn in G games: ``throws`` (G, 3, 5) their dice, ``sheets`` (G,) the
    movers' box masks.  Returns (won (G,) a first-roll five of a kind that ends the game,
    box (G,) the box written (−1 where won), points (G,) what it scored)."""
    g = len(throws)
    won = np.zeros(g, bool)
    box = np.full(g, -1, np.int64)
    points = np.zeros(g, np.int64)
    kept = np.zeros((g, dice.N_FACES), np.int64)
    todo = np.arange(g)
    for k in (1, 2, 3):
        rolls = roll_from(kept[todo], throws[todo, k - 1].astype(np.int64))
        if k == 1:
            ends = rules.ends[rolls]
            won[todo[ends]] = True
            todo, rolls = todo[~ends], rolls[~ends]
        keep = (decisions.keep[k - 1][rolls, todo].astype(np.int64) if k < 3
                else np.full(len(todo), -1))
        writes = keep < 0
        w, wr = todo[writes], rolls[writes]
        box[w] = decisions.box[k - 1][wr, w]
        if (sheets[w] >> box[w] & 1).any():
            raise RuntimeError("a policy wrote a filled box")
        points[w] = rules.points[box[w], k - 1, wr]
        kept[todo[~writes]] = dice.KEEPS[keep[~writes]]
        todo = todo[~writes]
    return won, box, points
