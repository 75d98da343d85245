"""Play to win a category race of N players, approximately, from single-player tables.

Exact play is out of reach beyond two players (the state holds every sheet and every
score).  This policy follows Pawlewicz's approach for multi-player Yahtzee: at the start
of its turn it takes the distribution of M, the best final total among its rivals — each
rival's remaining points distributed as under the expected-score policy from that rival's
sheet (``target.policy_target_values``: P(remaining ≥ need) for every sheet and need),
rivals independent — and then values ending the turn on sheet s' with p' points as

    V(s', p') = Σ_m P(M = m) · W(s', m + 1 − p') + T(m) · [W(s', m − p') − W(s', m + 1 − p')],

W(s, need) the largest probability of writing at least ``need`` more points
(``target.solve_target``): the chance to finish above m, and a tie at m shared with the k
rivals there, T(m) = E[1/(k + 1); M = m] (½ P(M = m) against one rival).  The turn is
then solved exactly with V as its write values.  V mixes W's of different targets, each
with its own best play, so it overstates the chance a little (it plays as if it knew M);
its choices are what is measured (docs/players.md).
"""

from __future__ import annotations

import numpy as np

from .. import dice
from ..target.values import TargetValues
from ..turn import best_sub_keep_and_keep, solve_turn
from ..two_player.layers import Decisions
from ..two_player.space import TwoPlayerRules

#: Games per batch of the value gather: (games, write vectors, totals) stays ~100 MB.
CHUNK = 256
#: Probability left out at each end of the rivals' best total.
TAIL = 1e-9
#: The largest nudge toward the better expected score among choices of equal chance.
TIE_BREAK = 1e-6


def dense_rows(values: TargetValues, n_states: int) -> tuple[np.ndarray, int]:
    """(n_states, width) of P(≥ need) for need = lo .. lo + width − 1, and lo: every need a
    lookup clamps to (below the fewest points, 1; above the most, 0)."""
    lo = min(int(values.fewest.min()), 0) - 1  # a need every sheet is sure to meet
    hi = int(values.most.max()) + 1
    needs = np.arange(lo, hi + 1)
    out = np.zeros((n_states, len(needs)), np.float64)
    out[values.states] = values.at(values.states[:, None], needs[None, :])
    if np.isnan(out).any():
        raise ValueError("the target table lacks needs a race asks for")
    return out, lo


class WinChooser:
    """The win policy's turns (``decisions``), for any seat, from the two tables."""

    name = "win"

    def __init__(self, rules: TwoPlayerRules, target: TargetValues, rivals: TargetValues,
                 solitaire: np.ndarray):
        n_states = 1 << rules.n
        w, self.w_lo = dense_rows(target, n_states)
        # a tie counts half: U[s, y] = ½ (W(s, y + 1) + W(s, y)) for y = w_lo .. top
        u = (0.5 * (w[:, 1:] + w[:, :-1])).astype(np.float32)
        # padded with sure needs on the left and impossible ones on the right, wide enough
        # that no lookup (a lead or a deficit of a whole sheet) falls outside
        pad = int(rules.max_points.sum()) + int(rules.max_points.max()) + 2
        self.u = np.concatenate([np.ones((n_states, pad), np.float32), u,
                                 np.zeros((n_states, pad), np.float32)], axis=1)
        # D[s, y] = W(s, y) − W(s, y + 1), the chance of exactly y more points (a tie's)
        d = (w[:, :-1] - w[:, 1:]).astype(np.float32)
        self.d = np.concatenate([np.zeros((n_states, pad), np.float32), d,
                                 np.zeros((n_states, pad), np.float32)], axis=1)
        self.w_lo -= pad
        self.e, self.e_lo = dense_rows(rivals, n_states)
        self.rules = rules
        # Equal chances (a race already settled) go to the better expected score: a nudge
        # of at most TIE_BREAK, far below any difference of chance the tables resolve.
        self.solitaire = np.nan_to_num(np.asarray(solitaire, np.float64), nan=0.0)
        self.nudge = TIE_BREAK / max(1.0, float(rules.max_points.sum()))
        self.most_of = np.zeros(n_states, np.int64)
        self.most_of[target.states] = target.most
        ends = rules.ends
        self.first_roll_end = np.where(ends, 1.0, np.nan) if ends.any() else None

    # --- the rivals' best total ------------------------------------------------------

    def best_rival(self, masks: np.ndarray, points: np.ndarray):
        """(lo (G,), pmf (G, K), tie (G, K)): P(M = lo + i), M the best final total of the
        rivals, and E[1/(k + 1); M = lo + i], k the rivals who reach it (a tie's share)."""
        lo = points.max(axis=1)
        hi = (points + self.most_of[masks]).max(axis=1)
        k = int((hi - lo).max()) + 1
        m = lo[:, None] + np.arange(-1, k)[None, :]  # (G, K + 1) totals, from lo − 1
        cdf = np.ones((len(lo), k))
        width = self.e.shape[1]
        # by_count[n]: P(every rival ends at most m, n of them exactly at m)
        by_count = [np.ones((len(lo), k))]
        for j in range(masks.shape[1]):
            # P(p_j + R_j ≤ m) = 1 − P(R_j ≥ m − p_j + 1)
            need = np.clip(m - points[:, j:j + 1] + 1 - self.e_lo, 0, width - 1)
            at_most = 1.0 - self.e[masks[:, j:j + 1], need]
            below, at = at_most[:, :-1], at_most[:, 1:] - at_most[:, :-1]
            cdf *= at_most[:, 1:]
            by_count = [c * below + (by_count[n - 1] * at if n else 0.0)
                        for n, c in enumerate(by_count + [np.zeros_like(cdf)])]
        tie = sum(c / (n + 1) for n, c in enumerate(by_count) if n)
        pmf = np.diff(cdf, axis=1, prepend=0.0)
        # drop the tails that hold less than TAIL of the probability
        first = (cdf <= TAIL).sum(axis=1)
        last = np.minimum((cdf < 1 - TAIL).sum(axis=1), k - 1)
        width = int((last - first).max()) + 1
        at = first[:, None] + np.arange(width)[None, :]
        pmf, tie = (np.where(at < k, np.take_along_axis(x, np.minimum(at, k - 1), axis=1), 0.0)
                    for x in (pmf, tie))
        return lo + first, pmf, tie

    # --- the values of ending the turn ------------------------------------------------

    def vector_values(self, mine: np.ndarray, points: np.ndarray, lo: np.ndarray,
                      pmf: np.ndarray, tie: np.ndarray) -> np.ndarray:
        """(G, n_vec) V of each write vector (box, points); −inf where the box is filled."""
        r = self.rules
        g = len(mine)
        out = np.full((g, r.n_vec), -np.inf)
        for a in range(0, g, CHUNK):
            sl = slice(a, a + CHUNK)
            m, p, l, f = mine[sl], points[sl], lo[sl], pmf[sl]
            k = int(np.flatnonzero(f.any(axis=0)).max()) + 1 if f.any() else 1
            # U counts a tie half; the share it is beyond one rival corrects that
            shared = (tie[sl, :k] - 0.5 * f[:, :k]).astype(np.float32)
            f = f[:, :k].astype(np.float32)
            nxt = m[:, None] | (1 << r.vec_box)[None, :]  # (g, n_vec)
            filled = (m[:, None] >> r.vec_box[None, :]) & 1 == 1
            # need y = M − p' = l + i − p − q, as a column of self.u
            y0 = l - p - self.w_lo  # (g,)
            base = y0[:, None] - r.vec_points[None, :]  # (g, n_vec)
            col = base[:, :, None] + np.arange(k)[None, None, :]
            vals = self.u[nxt[:, :, None], col]  # (g, n_vec, k)
            v = np.einsum("gvk,gk->gv", vals, f, dtype=np.float64)
            if shared.any():
                v += np.einsum("gvk,gk->gv", self.d[nxt[:, :, None], col], shared,
                               dtype=np.float64)
            v += self.nudge * (r.vec_points[None, :] + self.solitaire[nxt])
            out[sl] = np.where(filled, -np.inf, v)
        return out

    def turn_writes(self, vec: np.ndarray):
        """The best write after each roll number, (252, G) values and boxes."""
        r = self.rules
        writes, boxes = [], []
        vec = np.ascontiguousarray(vec.T)  # (n_vec, G)
        for k in range(3):
            if k and np.array_equal(r.vec_of[k], r.vec_of[k - 1]):
                writes.append(writes[-1])
                boxes.append(boxes[-1])
                continue
            best = np.full((dice.N_ROLLS, vec.shape[1]), -np.inf)
            box = np.zeros(best.shape, np.int8)
            for c in range(r.n):  # the first box of the best value, as the solitaire's
                value = vec[r.vec_of[k][:, c]]
                better = value > best
                np.copyto(best, value, where=better)
                box[better] = c
            writes.append(best)
            boxes.append(box)
        return writes, boxes

    def decisions(self, seat: int, masks: np.ndarray, points: np.ndarray) -> Decisions:
        others = np.delete(np.arange(masks.shape[1]), seat)
        vec = self.vector_values(masks[:, seat], points[:, seat],
                                 *self.best_rival(masks[:, others], points[:, others]))
        writes, boxes = self.turn_writes(vec)
        e2, e3 = solve_turn(writes, self.first_roll_end).before_roll
        b3, k3 = best_sub_keep_and_keep(e3)
        b2, k2 = best_sub_keep_and_keep(e2)
        keeps = (np.where(b2 > writes[0], k2, -1), np.where(b3 > writes[1], k3, -1))
        return Decisions(tuple(boxes), keeps)


_TABLES: dict = {}


def win_chooser(game, solitaire: np.ndarray) -> WinChooser:
    """The win chooser of a category race (``game`` a CategoryGame with no extra state),
    its two tables solved once per process (General: a few seconds)."""
    from ..category import StateValues
    from ..target.evaluation import solve_with_policy
    from ..two_player.space import two_player_rules

    key = (game.name, tuple(sorted(game.options.items())))
    if key not in _TABLES:
        solved = StateValues(np.asarray(solitaire), ~np.isnan(solitaire), game.initial_state)
        _TABLES[key] = solve_with_policy(game, solved)
    target, rivals = _TABLES[key]
    return WinChooser(two_player_rules(game), target, rivals, solitaire)
