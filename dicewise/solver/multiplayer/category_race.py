"""N players of a category race (General) in lockstep, each on dice of their own.

Whole turns in seat order, the first seat starting, every seat filling its sheet (RULES.md
§1, "N players"); a first-roll five of a kind wins the game at once for the seat that
threw it (unless ``big_general=sixty``).  A *chooser* answers, for G games at the start of
one seat's turn, that turn's choices as ``two_player.layers.Decisions`` ((252, G) boxes
and keeps after each roll): the expected-score chooser looks at its own sheet only, the
win chooser (``win.py``) at every sheet.

The dice of deal d, seat s come from one stream: turn t, roll k shows five faces, and a
roll that rerolls n dice takes the first n of them — so a policy moved to another seat
meets that seat's dice, and two policies in one seat meet the same dice wherever they
keep the same dice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import DicewiseError
from .. import dice
from ..two_player.layers import Decisions, ExpectedScorePolicy, expected_score_policy
from ..two_player.race_turn import play_turn
from ..two_player.space import TwoPlayerRules
from .seats import Seated


def deal_stream(seed: int, first_deal: int, deals: int, players: int, turns: int) -> np.ndarray:
    """(deals, players, turns, 3, 5) faces of the deals ``first_deal`` onwards (the same
    for every call with the same seed and ``first_deal``)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, first_deal, players, 0x7AB1E]))
    return rng.integers(1, 7, size=(deals, players, turns, 3, dice.N_DICE), dtype=np.int8)


class ExpectedChooser:
    """The expected-score policy (``optimal``; ``greedy`` from zero values): its own sheet only."""

    def __init__(self, rules: TwoPlayerRules, values: np.ndarray, name: str = "optimal"):
        self.name = name
        self.table: ExpectedScorePolicy = expected_score_policy(rules, values)

    def decisions(self, seat: int, masks: np.ndarray, points: np.ndarray) -> Decisions:
        mine = masks[:, seat]
        return Decisions(tuple(b[mine].T for b in self.table.box),
                         tuple(k[mine].T for k in self.table.keep))


class RandomChooser:
    """Uniformly among the legal keeps and open boxes after every roll (``random``)."""

    name = "random"

    def __init__(self, rules: TwoPlayerRules, seed):
        self.rules, self.rng = rules, np.random.default_rng(seed)

    def decisions(self, seat: int, masks: np.ndarray, points: np.ndarray) -> Decisions:
        n, g = self.rules.n, len(masks)
        open_ = (masks[:, seat, None] >> np.arange(n)[None, :]) & 1 == 0  # (G, n)
        n_keeps = (dice.SUB_KEEPS >= 0).sum(axis=1)  # (252,)
        boxes, keeps = [], []
        for k in range(3):
            u = self.rng.random((dice.N_ROLLS, g))
            options = open_.sum(axis=1)[None, :] + (n_keeps[:, None] if k < 2 else 0)
            pick = (u * options).astype(np.int64)
            nth = pick - (n_keeps[:, None] if k < 2 else 0)  # the nth open box, if ≥ 0
            order = np.cumsum(open_, axis=1)  # (G, n)
            box = (order[None, :, :] <= np.maximum(nth, 0)[:, :, None]).sum(axis=2)
            boxes.append(np.minimum(box, n - 1).astype(np.int8))
            if k < 2:
                keep = dice.SUB_KEEPS[np.arange(dice.N_ROLLS)[:, None], np.minimum(pick, 31)]
                keeps.append(np.where(nth < 0, keep, -1))
        return Decisions(tuple(boxes), tuple(keeps))


@dataclass(frozen=True)
class Start:
    """A position to play from: every seat's sheet (mask) and points, and the seat to move."""

    masks: tuple[int, ...]
    points: tuple[int, ...]
    to_move: int = 0


def play_race(rules: TwoPlayerRules, choosers, stream: np.ndarray,
              start: Start | None = None) -> Seated:
    """Play every deal of ``stream`` with ``choosers[s]`` in seat s; the (G, N) final scores
    and the seat of each instant win (−1: the scores decide)."""
    g, n = stream.shape[:2]
    if len(choosers) != n:
        raise DicewiseError(f"{n} seats need {n} policies, not {len(choosers)}")
    start = start or Start((0,) * n, (0,) * n, 0)
    masks = np.tile(np.asarray(start.masks, np.int64), (g, 1))
    points = np.tile(np.asarray(start.points, np.int64), (g, 1))
    winner = np.full(g, -1)
    filled = [bin(m).count("1") for m in start.masks]  # every live game's, seat by seat
    seat = start.to_move
    while winner.min() < 0 and min(filled) < rules.n:
        if filled[seat] < rules.n:
            _turn(rules, choosers[seat], seat, filled[seat], masks, points, winner, stream)
            filled[seat] += 1
        seat = (seat + 1) % n
    return Seated(points.astype(np.float64), winner)


def _turn(rules, chooser, seat, t, masks, points, winner, stream) -> None:
    """Turn ``t`` of ``seat`` in every live game."""
    live = np.flatnonzero(winner < 0)
    if len(live) == 0:
        return
    dec = chooser.decisions(seat, masks[live], points[live])
    won, box, scored = play_turn(rules, dec, stream[live, seat, t], masks[live, seat])
    winner[live[won]] = seat
    wrote = live[~won]
    masks[wrote, seat] |= 1 << box[~won]
    points[wrote, seat] += scored[~won]


#: Policies a seat of a category race plays.
RACE_POLICIES = ("win", "optimal", "greedy", "random")


def race_chooser(game, policy: str, solitaire: np.ndarray | None, seed=0):
    """The chooser of a seat: ``win``, ``optimal`` (expected score), ``greedy`` or ``random``."""
    from ..two_player.space import two_player_rules

    rules = two_player_rules(game)
    if policy == "greedy":
        return ExpectedChooser(rules, np.zeros(game.n_states), "greedy")
    if policy == "random":
        return RandomChooser(rules, seed)
    if policy not in RACE_POLICIES:
        raise DicewiseError(f"a {game.name} table seats the policies {', '.join(RACE_POLICIES)}, "
                            f"not {policy!r}")
    if solitaire is None:
        raise DicewiseError(f"the {policy} policy needs the solved game")
    if policy == "optimal":
        return ExpectedChooser(rules, solitaire)
    from .win import win_chooser

    return win_chooser(game, solitaire)


def seated_race(game, solitaire: np.ndarray | None, seats: tuple[str, ...], deals: int, seed: int,
                first_deal: int = 0, start: Start | None = None) -> Seated:
    """``deals`` races of ``len(seats)`` players, seat j playing ``seats[j]``."""
    from ..two_player.space import two_player_rules

    rules = two_player_rules(game)
    choosers = {p: race_chooser(game, p, solitaire, [seed, first_deal, 0xC401CE])
                for p in set(seats)}
    stream = deal_stream(seed, first_deal, deals, len(seats), rules.n)
    return play_race(rules, [choosers[p] for p in seats], stream, start)
