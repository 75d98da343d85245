"""The N-player duel: policy A in one seat, policy B in every other, seats rotating.

A deal is one set of dice for every seat (the same shared rolls for every seat where the
game shares them).  Each deal is played N times, A moving to the next seat each time and
B's policy in every other seat, so A meets the same dice from every seat and the seat
order's own advantage cancels.  A's share of the win (ties split) is reported with its
Wilson interval (the games of one deal are counted as separate games: their shared dice
make A's results across seats less alike, not more, so the interval is on the safe side),
its mean margin over the rivals' mean score with its interval, and every seat's points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ...errors import DicewiseError
from ...i18n import Plural
from ..stats import mean_ci95, share_ci95
from .seats import Seated, rival_margin, settlements, win_shares

#: Deals per call of the game: bounds the memory of a lockstep table.
DEAL_CHUNK = 8192


@dataclass(frozen=True)
class SeatReport:
    """A's results from one seat (0 moves first), and the rivals' points at that table."""

    seat: int
    games: int
    share: float
    share_ci95: tuple[float, float]
    points: float  # A's mean final score from this seat
    rival_points: float  # the mean final score of the other seats
    settlement: float  # A's mean score minus the table's mean
    extra: Mapping[str, float] = field(default_factory=dict)  # A's mean of each game count

    def to_json(self) -> dict:
        # counted from 1, as people and the advice of a table count seats
        return {"seat": self.seat + 1, "games": self.games, "share": self.share,
                "share_ci95": list(self.share_ci95), "points": self.points,
                "rival_points": self.rival_points, "settlement": self.settlement,
                **{k: v for k, v in self.extra.items()}}


@dataclass(frozen=True)
class TableResult:
    """Policy A against N − 1 players of policy B."""

    players: int
    a: str
    b: str
    games: int
    seed: int
    share: float  # A's mean share of the win (ties split); 1/N is a fair share
    share_ci95: tuple[float, float]  # Wilson over deals, ties the sure ½ they are (stats)
    wins: float  # rate of games A won alone
    ties: float  # rate of games A shared the top
    margin: float  # A's score minus the rivals' mean score, per game
    margin_ci95: tuple[float, float]
    points: float  # A's mean final score
    rival_points: float
    settlement: float  # A's mean settlement (score minus the table's mean)
    settlement_ci95: tuple[float, float]
    instant_wins: float  # rate of games ended at once by a seat (big general)
    seats: tuple[SeatReport, ...]
    rival_extra: Mapping[str, float] = field(default_factory=dict)  # the rivals' mean counts

    def to_json(self) -> dict:
        """The fields, named as two policies' ``duel`` names them (``draws``, ``mean_margin``)."""
        out = {_SAID.get(k, k): (list(v) if isinstance(v, tuple) and k != "seats" else v)
               for k, v in self.__dict__.items() if k not in ("seats", "rival_extra")}
        out["fair_share"] = 1 / self.players
        out["seats"] = [s.to_json() for s in self.seats]
        out["rival_extra"] = dict(self.rival_extra)
        return out


#: A field's JSON name where two policies' duel has one for the same thing.
_SAID = {"ties": "draws", "margin": "mean_margin", "margin_ci95": "mean_margin_ci95"}


def at_least_a_game_a_seat(players: int) -> Plural:
    """Why fewer games than ``players`` cannot rotate A through every seat."""
    return Plural("{players} player needs at least {players} game (one per seat)",
                  "{players} players need at least {players} games (one per seat)", players,
                  players=players)


def play_table(play_seated: Callable[..., Seated], a: str, b: str, players: int, games: int,
               seed: int, progress: Callable[[int], None] | None = None) -> TableResult:
    """Play ``games`` games (rounded up to whole rotations): ``play_seated(seats, deals,
    seed, first_deal)`` plays ``deals`` deals with policy ``seats[j]`` in seat j."""
    if players < 2:
        raise DicewiseError("a table needs at least 2 players")
    if games < players:
        raise DicewiseError(at_least_a_game_a_seat(players))
    deals = -(-games // players)
    parts = {k: [] for k in range(players)}
    for first in range(0, deals, DEAL_CHUNK):
        n = min(DEAL_CHUNK, deals - first)
        for k in range(players):
            seats = tuple(a if j == k else b for j in range(players))
            parts[k].append(play_seated(seats, n, seed, first))
            if progress is not None:
                progress(n)
    return summarise(a, b, players, seed, {k: _joined(v) for k, v in parts.items()})


def _joined(parts: list[Seated]) -> Seated:
    winner = None if parts[0].winner is None else np.concatenate([p.winner for p in parts])
    extra = {k: np.concatenate([p.extra[k] for p in parts]) for k in parts[0].extra}
    return Seated(np.concatenate([p.scores for p in parts]), winner, extra)


def summarise(a: str, b: str, players: int, seed: int, by_seat: Mapping[int, Seated]) -> TableResult:
    """A's results from the tables where A sat in seat k (``by_seat[k]``)."""
    share, alone, tied, margin, points, rivals, settle, instant = ([] for _ in range(8))
    reports = []
    rival_extra = {}
    for k, table in sorted(by_seat.items()):
        g = len(table.scores)
        shares = win_shares(table.scores, table.winner)
        mine = shares[:, k]
        others = np.delete(table.scores, k, axis=1)
        share.append(mine)
        alone.append(mine == 1)
        tied.append((mine > 0) & (mine < 1))
        margin.append(rival_margin(table.scores, np.full(g, k)))
        points.append(table.scores[:, k])
        rivals.append(others.mean(axis=1))
        settle.append(settlements(table.scores)[:, k])
        instant.append(np.zeros(g, bool) if table.winner is None else table.winner >= 0)
        extra = {name: float(np.mean(v[:, k])) for name, v in table.extra.items()}
        for name, v in table.extra.items():
            rival_extra.setdefault(name, []).append(np.delete(np.asarray(v, float), k, axis=1).mean())
        reports.append(SeatReport(k, g, float(mine.mean()), share_ci95(mine),
                                  float(points[-1].mean()), float(rivals[-1].mean()),
                                  float(settle[-1].mean()), extra))
    # The plays of one deal from A's every seat share its dice (in Ryzykant they are the
    # same game): the deal is the independent unit, so the intervals are over deals' means.
    share_ci = _over_deals(share, share=True)
    margin_ci, settle_ci = _over_deals(margin), _over_deals(settle)
    share, margin, settle = (np.concatenate(x) for x in (share, margin, settle))
    n = len(share)
    return TableResult(players, a, b, n, seed, float(share.mean()),
                       share_ci, float(np.concatenate(alone).mean()),
                       float(np.concatenate(tied).mean()), float(margin.mean()),
                       margin_ci, float(np.concatenate(points).mean()),
                       float(np.concatenate(rivals).mean()), float(settle.mean()),
                       settle_ci, float(np.concatenate(instant).mean()), tuple(reports),
                       {k: float(np.mean(v)) for k, v in rival_extra.items()})


def _over_deals(by_seat: list[np.ndarray], share: bool = False) -> tuple[float, float]:
    """The 95% interval of A's mean from each deal's mean over A's seats: ``share_ci95``
    for a share of the win, the normal interval otherwise."""
    deals = np.stack(by_seat, axis=1).mean(axis=1)
    return share_ci95(deals) if share else mean_ci95(deals)
