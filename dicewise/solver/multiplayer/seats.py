"""Games of several players seen seat by seat: final scores, shares of the win, settlements.

A played table of G games and N seats is a (G, N) array of final scores.  The win goes to
the highest total and k players tied at the top share it, 1/k each (RULES.md §1, §3, §4);
a game may also end with one seat's instant win (General's big general), which the game
reports as that seat's index.  A seat's settlement is its score minus the table's mean
score (the money of poker-programs, RULES.md §2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class Seated:
    """Games played together: a row per game, a column per seat (seat 0 moves first).

    ``winner`` is the seat that won at once (−1 where the scores decide); ``extra`` holds
    (G, N) arrays of what the game counts per seat beside the score (premiums taken...).
    """

    scores: np.ndarray  # (G, N) final scores
    winner: np.ndarray | None = None  # (G,) seat of an instant win, −1 for none
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)


def win_shares(scores, winner=None) -> np.ndarray:
    """(G, N) share of the win of every seat: 1/k to each of the k seats tied at the top,
    or 1 to the seat of an instant win."""
    scores = np.asarray(scores, np.float64)
    top = scores == scores.max(axis=1, keepdims=True)
    shares = top / top.sum(axis=1, keepdims=True)
    if winner is not None:
        winner = np.asarray(winner)
        won = winner >= 0
        shares[won] = 0.0
        shares[np.flatnonzero(won), winner[won]] = 1.0
    return shares


def settlements(scores) -> np.ndarray:
    """(G, N) score minus the table's mean score: what each seat is paid."""
    scores = np.asarray(scores, np.float64)
    return scores - scores.mean(axis=1, keepdims=True)


def rival_margin(scores, seat) -> np.ndarray:
    """(G,) the score of ``seat`` (per game) minus the mean score of the other seats."""
    scores = np.asarray(scores, np.float64)
    g, n = scores.shape
    mine = scores[np.arange(g), seat]
    return mine - (scores.sum(axis=1) - mine) / (n - 1)
