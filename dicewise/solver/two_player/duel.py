"""The two policies as lockstep players, and a duel simulated on shared dice.

A policy answers, for G games at the start of a turn (mover's sheet, opponent's sheet,
difference), the whole turn's choices as ``Decisions``: after roll k with roll r, keep
which dice or write which box.  ``WinPolicy`` plays to win (from solved two-player
values); ``ExpectedPolicy`` maximises its expected score (the solitaire solution) and
ignores the opponent.  Both are exactly the choices ``solve.evaluate_policies`` scores,
so a simulation estimates what that evaluation computes.

``simulate_duel`` plays every game twice on the same dice, once with each player moving
first (the seats alternate), all games in lockstep.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message
from .. import dice
from ..stats import mean_ci95
from .layers import (BATCH_COLUMNS, Decisions, ExpectedScorePolicy, expected_score_policy,
                     make_columns, win_decisions)
from .race_turn import play_turn
from .space import TwoPlayerValues, check_pair, two_player_rules



class WinPolicy:
    """The win-optimal policy of a solved race (full table or sub-game)."""

    name = "win"

    def __init__(self, values: TwoPlayerValues):
        self.values = values
        self.rules = two_player_rules(values.game)

    def decisions(self, mover: np.ndarray, other: np.ndarray, diff: np.ndarray) -> Decisions:
        """The turn's choices in G positions: arrays (252, G) (box int8, keep int16)."""
        layout, rules = self.values.layout, self.rules
        g = len(mover)
        box = [np.zeros((dice.N_ROLLS, g), np.int8) for _ in range(3)]
        keep = [np.full((dice.N_ROLLS, g), -1, np.int16) for _ in range(2)]
        pair = layout.pair_of[mover, other].astype(np.int64)
        if (pair < 0).any():
            raise DicewiseError("a position outside the solved two-player states")
        lo, hi = layout.lo[pair], layout.lo[pair] + layout.width[pair] - 1
        diff = np.clip(diff, lo, hi)
        states, inverse = np.unique(np.stack([pair, diff]), axis=1, return_inverse=True)
        inverse = inverse.ravel()
        movers = layout.mover[states[0]]
        layer = np.searchsorted(layout.layer_start, states[0], side="right") - 1
        # the games of each distinct state, as runs of ``order``
        order = np.argsort(inverse, kind="stable")
        first = np.searchsorted(inverse[order], np.arange(states.shape[1] + 1))
        for m, t in np.unique(np.stack([movers, layer]), axis=1).T:
            base = int(layout.offset[layout.layer_start[t + 1]])
            nxt = self.values.values[layout.layer_values(t + 1)]
            group = np.flatnonzero((movers == m) & (layer == t))
            for lo in range(0, len(group), BATCH_COLUMNS):
                sel = group[lo:lo + BATCH_COLUMNS]
                pairs, pair_col = np.unique(states[0, sel], return_inverse=True)
                cols = make_columns(layout, pairs, pair_col.ravel(), states[1, sel])
                dec, _ = win_decisions(rules, layout, nxt, base, pairs, cols)
                runs = [order[first[s]:first[s + 1]] for s in sel]
                where = np.concatenate(runs)
                col_of = np.repeat(np.arange(len(sel)), [len(r) for r in runs])
                for k in range(3):
                    box[k][:, where] = dec.box[k][:, col_of]
                for k in range(2):
                    keep[k][:, where] = dec.keep[k][:, col_of]
        return Decisions(tuple(box), tuple(keep))


class ExpectedPolicy:
    """The expected-score-optimal policy: the solitaire solution's choices on one's own sheet."""

    name = "optimal"

    def __init__(self, game, solitaire_values: np.ndarray):
        self.table: ExpectedScorePolicy = expected_score_policy(two_player_rules(game),
                                                                solitaire_values)

    def decisions(self, mover: np.ndarray, other: np.ndarray, diff: np.ndarray) -> Decisions:
        return Decisions(tuple(b[mover].T for b in self.table.box),
                         tuple(k[mover].T for k in self.table.keep))


#: Policy names a duel accepts; ``optimal`` is the solitaire optimum, i.e. expected-score play.
POLICY_NAMES = ("win", "optimal")


def make_policy(name: str, values: TwoPlayerValues, solitaire_values: np.ndarray | None = None):
    """A lockstep player by name: ``win`` (from ``values``) or ``optimal`` (from the
    solitaire solution's values)."""
    if check_policy_name(name) == "win":
        return WinPolicy(values)
    if solitaire_values is None:
        raise DicewiseError("the expected-score policy needs the solitaire solution's values")
    return ExpectedPolicy(values.game, solitaire_values)


def check_policy_name(name) -> str:
    """The policy ``name`` names (``POLICY_NAMES``; ``expected``, the solver's own word, is
    ``optimal``), else a DicewiseError."""
    if name == "expected":
        return "optimal"
    if name not in POLICY_NAMES:
        raise DicewiseError(Message("unknown two-player policy {name!r} (policies: {policies})",
                                    name=name, policies=", ".join(POLICY_NAMES)))
    return name


@dataclass(frozen=True)
class DuelResult:
    """Player A against player B, seats alternating, on shared dice."""

    a: str
    b: str
    games: int
    seed: int
    wins: float  # the rate of games A won
    draws: float
    losses: float
    value: float  # A's (wins + ½ draws) / games
    ci95: tuple[float, float]  # over pairs of games on the same dice
    value_first: float  # A's value in the games where A moved first
    value_second: float
    instant_wins: float  # the rate of games a first-roll five of a kind ended

    def to_json(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def simulate_duel(values: TwoPlayerValues, policy_a, policy_b, games: int = 10000, seed: int = 0,
                  start: tuple[int, int, int] | None = None) -> DuelResult:
    """Play A against B from ``start`` (mover's sheet, opponent's sheet, difference; the
    layout's root at difference 0 by default), half the games with A moving first.

    Game pair i uses one dice stream twice: turn j, roll k of both games shows the same
    five faces, and a roll that rerolls n dice takes the first n of them.
    """
    if games < 2:
        raise DicewiseError(Message("a duel needs at least 2 games (one per seat)"))
    rules, n = two_player_rules(values.game), values.layout.n
    m0, o0, d0 = start if start is not None else (*values.layout.root, 0)
    check_pair(n, m0, o0)
    pairs = games // 2
    turns = 2 * n - bin(m0).count("1") - bin(o0).count("1")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xD0E1]))
    stream = rng.integers(1, 7, size=(pairs, turns, 3, dice.N_DICE), dtype=np.int8)
    score = np.zeros((2, pairs))  # A's score (1, ½, 0) in each game, by A's seat
    big = 0
    for seat in (0, 1):  # seat 0: A is the mover at the start
        sheets = np.array([[m0, o0]] * pairs, dtype=np.int64)  # [root mover, other]
        lead = np.full(pairs, d0, dtype=np.int64)  # root mover's points minus the other's
        winner = np.full(pairs, -1)  # 0 / 1: who won by a big general
        for j in range(turns):
            side = j % 2  # 0: the root mover moves
            policy = policy_a if side == seat else policy_b
            live = np.flatnonzero(winner < 0)
            if len(live) == 0:
                break
            me, them = sheets[live, side], sheets[live, 1 - side]
            sign = 1 if side == 0 else -1
            dec = policy.decisions(me, them, sign * lead[live])
            won, box, scored = play_turn(rules, dec, stream[live, j], sheets[live, side])
            winner[live[won]] = side
            wrote = live[~won]
            sheets[wrote, side] |= 1 << box[~won]
            lead[wrote] += sign * scored[~won]
        big += int((winner >= 0).sum())
        a_side = seat  # A plays side ``seat``: 0 is the root mover
        a_lead = lead if a_side == 0 else -lead
        on_points = np.where(a_lead > 0, 1.0, np.where(a_lead == 0, 0.5, 0.0))
        score[seat] = np.where(winner < 0, on_points, (winner == a_side).astype(float))
    flat = score.ravel()
    per_pair = score.mean(axis=0)
    return DuelResult(getattr(policy_a, "name", "a"), getattr(policy_b, "name", "b"), 2 * pairs,
                      seed, float((flat == 1).mean()), float((flat == 0.5).mean()),
                      float((flat == 0).mean()), float(flat.mean()), mean_ci95(per_pair),
                      float(score[0].mean()), float(score[1].mean()), big / flat.size)
