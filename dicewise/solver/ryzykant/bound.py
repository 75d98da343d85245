"""An upper bound on the optimum by information relaxation (Brown, Smith & Sun, Operations
Research 58(4), 2010): the player is shown the whole stream of rolls in advance and pays a
penalty built from the value model, which no non-anticipating player gains from.

For a position x before a roll and the roll ω, let Φ(x, ω) be the best split's worth by the
model (the exact final score if it ends the game, else V after it) and TV(x) = E_ω Φ(x, ω),
computed exactly over the 252 rolls (``approx.expected_after``).  The penalty of meeting
roll ω in position x is Φ(x, ω) − TV(x): its expectation is zero whatever the player did
before, so for every policy E[final − Σ penalties] = E[final], and

    optimum  <=  E over streams of  max over splits along the stream of (final − Σ penalties).

The inner problem is deterministic: along one stream of rolls, every sequence of splits.
Positions reached after the same number of rolls with the same marks are merged, and the
maximum is found by backward induction over those layers (``stream_bound``) — exact, so
the bound is proven up to the sampling error of the streams.  Under ``puscioch=reroll`` a
puścioch roll passes a position by (no split, no penalty).

The same streams also value the table's policy: its final score minus the penalties along
its own path has the policy's mean and, paired with the bound stream by stream, a narrow
interval for the gap between the policy and the bound.

The obstacle on the full game is the size of the inner problem: the distinct positions
one stream reaches grow about fourfold per roll (3.4 million after ten of a game's ~28
rolls); ``max_states`` stops a stream that outgrows it with a DicewiseError saying so.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ...errors import DicewiseError
from ..stats import mean_ci95
from . import approx
from .rules import N_SUMS, Position, RyzykantRules, apply_splits, legal_splits, score

#: Positions one stream's layers may hold before the inner problem is declared too large.
MAX_STATES = 3_000_000


class TooLarge(DicewiseError):
    """The inner problem of a stream outgrew ``max_states``."""


@dataclass(frozen=True)
class StreamResult:
    """One stream: the inner maximum (the bound's sample), the policy's penalised final score
    and its final score on the same rolls, and how many positions the inner problem held."""

    bound: float
    policy: float
    policy_final: float
    states: int


@dataclass(frozen=True)
class BoundResult:
    """The information-relaxation bound over ``streams`` streams: means and 95% intervals of
    the bound, of the policy (penalised, the same expectation as its score) and of their
    paired difference (the gap between the policy and the bound)."""

    streams: int
    bound: float
    bound_ci95: tuple[float, float]
    policy: float
    policy_ci95: tuple[float, float]
    gap: float
    gap_ci95: tuple[float, float]
    max_states: int
    seconds: float


def _ci(x) -> tuple[float, tuple[float, float]]:
    """The mean of ``x`` and its 95% interval (unbounded for a single sample)."""
    x = np.asarray(x, np.float64)
    return float(x.mean()), mean_ci95(x) if len(x) > 1 else (-math.inf, math.inf)


def _penalties(dense, ruleset: RyzykantRules, U, L, roll: int):
    """For positions before ``roll``: legal slots, puścioch flags, the model's worth of every
    split (−inf where illegal) and the penalty Φ − TV (0 for a puścioch thrown again)."""
    rolls = np.full(len(U), roll)
    legal, pusc = legal_splits(L, rolls)
    worth = approx.after_values(dense, ruleset, U, L, rolls, legal, pusc)
    pen = worth.max(axis=1) - approx.expected_after(dense, ruleset, U, L)
    if ruleset.puscioch == "reroll":
        pen = np.where(pusc, 0.0, pen)
    return legal, pusc, worth, pen


def stream_bound(model, ruleset: RyzykantRules, stream: np.ndarray, policy=None,
                 max_states: int = MAX_STATES, start: Position | None = None) -> StreamResult:
    """The inner maximum along the rolls ``stream`` (long enough for every game to end) from
    ``start`` (the empty sheet by default), and the penalised final score of ``policy`` (the
    table's, by default) on it."""
    dense = approx.as_dense(model)
    policy = policy or approx.model_policy(model, ruleset)
    reroll = ruleset.puscioch == "reroll"
    start = start or Position()
    # Forward: the positions after each roll, merged; each layer keeps, per position and
    # legal split, where it goes (index into the next layer, or −1 with its final score).
    U = np.array([start.upper], np.int64)
    L = np.array([start.lower], np.int64)
    layers, total = [], 1
    pu, pl, p_pen, p_done, p_final = U.copy(), L.copy(), 0.0, False, 0.0
    for t, roll in enumerate(stream):
        if not len(U) and p_done:
            break
        if len(U):
            legal, pusc, _, pen = _penalties(dense, ruleset, U, L, int(roll))
            gi, ji = np.nonzero(legal)
            if reroll:
                keep = ~pusc[gi]
                gi, ji = gi[keep], ji[keep]
            Un, Ln, ended = apply_splits(ruleset, U[gi], L[gi], np.full(len(gi), roll), ji, pusc[gi])
            final = score(Un).astype(np.float64)
            live = ~ended
            key = np.concatenate([Un[live], Ln[live]], axis=1)
            uniq, inv = np.unique(key, axis=0, return_inverse=True)
            nxt = np.full(len(gi), -1)
            nxt[live] = inv.ravel()
            if reroll and pusc.any():        # a puścioch passes the position by
                stay = np.flatnonzero(pusc)
                skey = np.concatenate([U[stay], L[stay]], axis=1)
                uniq, inv2 = np.unique(np.concatenate([uniq, skey]), axis=0, return_inverse=True)
                inv2 = inv2.ravel()
                nxt[live] = inv2[nxt[live]]
                gi = np.concatenate([gi, stay])
                nxt = np.concatenate([nxt, inv2[len(inv2) - len(stay):]])
                final = np.concatenate([final, np.zeros(len(stay))])
            layers.append((len(U), gi, nxt, final, pen))
            U, L = uniq[:, :N_SUMS].copy(), uniq[:, N_SUMS:].copy()
            total += len(U)
            if len(U) > max_states:
                raise TooLarge(f"the inner problem of one stream holds {len(U):,} positions after "
                               f"{t + 1} rolls (limit {max_states:,})")
        if not p_done:   # the policy's own path on the same rolls
            legal, pusc, _, pen = _penalties(dense, ruleset, pu, pl, int(roll))
            if not (reroll and pusc[0]):
                p_pen += float(pen[0])
                choice = policy(pu, pl, np.array([roll]), legal, pusc)
                pu, pl, ended = apply_splits(ruleset, pu, pl, np.array([roll]), choice, pusc)
                if ended[0]:
                    p_done, p_final = True, float(score(pu)[0])
    if len(U) or not p_done:
        raise DicewiseError("the stream of rolls ended before every game did; pass a longer one")
    # Backward: J(x) = max over splits of (J(next) or the final score) − penalty(x, roll).
    J = np.zeros(0)
    for n, gi, nxt, final, pen in reversed(layers):
        val = np.where(nxt >= 0, J[np.maximum(nxt, 0)] if len(J) else 0.0, final)
        best = np.full(n, -np.inf)
        np.maximum.at(best, gi, val)
        J = best - pen
    return StreamResult(float(J[0]), p_final - p_pen, p_final, total)


def information_bound(model, ruleset: RyzykantRules, streams: int = 100, seed: int = 0,
                      max_states: int = MAX_STATES, length: int = 200) -> BoundResult:
    """The bound over ``streams`` streams of ``length`` rolls (stream i from the generator
    seeded ``(seed, i)``), with the table's policy valued on the same streams."""
    start = time.perf_counter()
    policy = approx.model_policy(model, ruleset)
    rows = []
    for i in range(streams):
        stream = approx.draw_rolls(np.random.default_rng([seed, i]), length)
        rows.append(stream_bound(model, ruleset, stream, policy, max_states))
    b, bci = _ci([r.bound for r in rows])
    p, pci = _ci([r.policy for r in rows])
    g, gci = _ci([r.bound - r.policy for r in rows])
    return BoundResult(streams, b, bci, p, pci, g, gci, max(r.states for r in rows),
                       time.perf_counter() - start)
