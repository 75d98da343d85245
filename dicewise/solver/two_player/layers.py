"""Layer-by-layer backward induction of the two-player race, batched over score differences.

One column of a batch is one state (pair of sheets, difference).  The mover's value of
writing box c for q points is ``1 − V_next(opponent, mover | c, −(d + q))`` (the opponent
moves next, seeing the difference from the other side); the three-roll turn then maximises
it exactly as the solitaire turn maximises expected score, with the keep→roll matrix and
the running maximum over sub-keeps of ``solver/turn.py``.  A first-roll five of a kind
(big general, unless ``big_general=sixty``) is worth 1: it wins at once (RULES.md §1).

Columns of pairs with the same mover are solved together, so a batch gathers only the
write vectors of boxes open to that mover.  ``solve_chunk`` is the unit of work a driver
spreads over threads or a cluster; ``evaluate_chunk`` is the same turn with the choices
fixed by a pair of policies (policy evaluation).

Arithmetic is float64; a layer is stored in the dtype of the values it was given (float32
for the whole game).  Each stored layer is rounded once, by at most 2^-25 for values in
[0, 1], and every step of the induction — 1 − x, maxima, means — is non-expansive, so a
stored value is within 20 · 2^-25 ≈ 6e-7 of the exact one (20 layers are rounded).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import dice
from ..best_write import Partition, best_write, max_plan, scratch_for
from ..turn import best_sub_keep, best_sub_keep_and_keep, turn_value, work_buffer
from ..turn import keep_values_by_die as keep_values
from .space import Layout, TwoPlayerRules

BATCH_COLUMNS = 512  # columns per turn solve: a batch's arrays stay in the core's caches

#: Terminal payoffs at differences −1, 0, +1 (the stored run of two full sheets).
TERMINAL = {"value": (0.0, 0.5, 1.0), "draw": (0.0, 1.0, 0.0)}


def terminal_values(layout: Layout, kind: str = "value", dtype="float32") -> np.ndarray:
    """The values of the last layer (both sheets full): win, draw or loss on points."""
    out = np.empty(layout.layer_values(2 * layout.n).stop - layout.layer_values(2 * layout.n).start,
                   dtype=dtype)
    out[:] = TERMINAL[kind]
    return out


def column_batches(layout: Layout, pairs: np.ndarray, max_columns: int = BATCH_COLUMNS):
    """Split pairs (one layer, ascending) into batches of one mover each, whole pairs each."""
    pairs = np.asarray(pairs)
    if len(pairs) == 0:
        return []
    movers = layout.mover[pairs]
    cuts = np.flatnonzero(np.diff(movers)) + 1
    out = []
    for group in np.split(pairs, cuts):
        widths = layout.width[group]
        start, acc = 0, 0
        for i, w in enumerate(widths):
            if acc and acc + w > max_columns:
                out.append(group[start:i])
                start, acc = i, 0
            acc += int(w)
        out.append(group[start:])
    return out


@dataclass(frozen=True)
class Columns:
    """The states of one batch: a single mover, several opponents, their difference runs."""

    mover: int
    pairs: np.ndarray  # (P,) pair indices
    pair_col: np.ndarray  # (B,) index into ``pairs`` of each column
    diff: np.ndarray  # (B,) the difference of each column
    open_boxes: np.ndarray  # boxes still open to the mover

    @property
    def size(self) -> int:
        return len(self.diff)


def make_columns(layout: Layout, pairs: np.ndarray, pair_col: np.ndarray | None = None,
                 diff: np.ndarray | None = None) -> Columns:
    """The columns of some pairs sharing one mover: every stored difference of each pair,
    or the given states (``pair_col`` into ``pairs``, ``diff``) only."""
    if pair_col is None:
        widths = layout.width[pairs]
        pair_col = np.repeat(np.arange(len(pairs)), widths)
        starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
        diff = layout.lo[pairs][pair_col] + np.arange(int(widths.sum())) - starts[pair_col]
    mover = int(layout.mover[pairs[0]])
    open_boxes = np.flatnonzero([(mover >> c) & 1 == 0 for c in range(layout.n)])
    return Columns(mover, pairs, pair_col, diff, open_boxes)


def write_vector_index(rules: TwoPlayerRules, layout: Layout, cols: Columns, base: int):
    """Where in the next layer's values each write vector of each column looks: (n_vec, B).

    ``base`` is the flat offset of the next layer's first value.  Rows of boxes that are
    filled are left at 0 and never read.
    """
    idx = np.zeros((rules.n_vec, cols.size), dtype=np.int64)
    others = layout.other[cols.pairs]
    for c in cols.open_boxes:
        nxt = layout.pair_of[others, cols.mover | (1 << int(c))].astype(np.int64)
        lo = layout.lo[nxt][cols.pair_col]
        hi = lo + layout.width[nxt][cols.pair_col] - 1
        start = (layout.offset[nxt] - base)[cols.pair_col] - lo
        for v in np.flatnonzero(rules.vec_box == c):
            idx[v] = start + np.clip(-(cols.diff + rules.vec_points[v]), lo, hi)
    return idx


def write_vectors(next_values: np.ndarray, idx: np.ndarray, rules: TwoPlayerRules,
                  cols: Columns, kind: str = "value") -> np.ndarray:
    """The value of each write vector in each column: (n_vec, B) float64, −inf for filled boxes.

    ``kind="value"``: 1 − the opponent's value (zero-sum); ``"draw"``: P(draw) carries over.
    """
    out = np.empty(idx.shape)
    boxes = _box_partitions(rules, 1)
    open_ = np.zeros(rules.n, bool)
    open_[cols.open_boxes] = True
    for c, (rows, _) in enumerate(boxes):  # a box's vectors are one run of rows
        if not open_[c]:
            out[rows] = -np.inf
        elif kind == "value":
            np.subtract(1.0, next_values[idx[rows]], out=out[rows], dtype=np.float64)
        else:
            out[rows] = next_values[idx[rows]]
    return out


def best_writes(u: np.ndarray, rules: TwoPlayerRules, cols: Columns, with_box: bool = False):
    """The best write after each roll number: three (252, B) arrays (and the box chosen).

    The write vectors of roll 1 differ from roll 2's only on a few rolls (Straight, Full
    House and Four score more when thrown), and roll 3's equal roll 2's in General, so
    those are shared where the tables say so.
    """
    def best(vec, rows=None):
        sel = vec if rows is None else vec[rows]
        top = u[sel[:, cols.open_boxes[0]]]
        arg = np.full(top.shape, cols.open_boxes[0], dtype=np.int8) if with_box else None
        for c in cols.open_boxes[1:]:
            cand = u[sel[:, c]]
            if with_box:
                better = cand > top
                arg[better] = c
            np.maximum(top, cand, out=top)
        return top, arg

    if with_box:
        w2, a2 = best(rules.vec_of[1])
    else:
        w2, a2 = _merged_best(u, rules, cols, 1), None
    if np.array_equal(rules.vec_of[2], rules.vec_of[1]):
        w3, a3 = w2, a2
    elif with_box:
        w3, a3 = best(rules.vec_of[2])
    else:
        w3, a3 = _merged_best(u, rules, cols, 2), None
    w1, a1 = w2.copy(), (a2.copy() if with_box else None)
    if len(rules.roll1_rows):
        top, arg = best(rules.vec_of[0], rules.roll1_rows)
        w1[rules.roll1_rows] = top
        if with_box:
            a1[rules.roll1_rows] = arg
    return (w1, w2, w3), (a1, a2, a3)


@lru_cache(maxsize=None)
def _box_partitions(rules: TwoPlayerRules, k: int) -> tuple:
    """Per box, its rows of write vectors (a slice of ``u``) and the partition of the rolls
    by the vector each writes after roll number k + 1."""
    out = []
    for c in range(rules.n):
        rows = np.flatnonzero(rules.vec_box == c)
        lo, hi = int(rows[0]), int(rows[-1]) + 1
        out.append((slice(lo, hi), Partition(rules.vec_of[k][:, c] - lo, hi - lo)))
    return tuple(out)


_PLANS: dict = {}


def _merged_best(u: np.ndarray, rules: TwoPlayerRules, cols: Columns, k: int) -> np.ndarray:
    """The best write value after roll number k + 1 over the open boxes: (252, B), the
    max over each box's write vectors merged by roll classes (``best_write``)."""
    boxes = _box_partitions(rules, k)
    key = (rules, k, cols.mover)
    plan = _PLANS.get(key)
    parts = [boxes[c][1] for c in cols.open_boxes]
    if plan is None:
        plan = _PLANS[key] = max_plan(parts)
    out = np.empty((dice.N_ROLLS, u.shape[1]))
    return best_write(plan, parts, [u[boxes[c][0]] for c in cols.open_boxes], out,
                      scratch_for(u.shape[1]))


@dataclass(frozen=True)
class TurnResult:
    """A solved batch: the value per column, and where asked, every value within the turn."""

    value: np.ndarray  # (B,)
    write: tuple | None = None  # best write value after roll 1, 2, 3: (252, B) each
    write_box: tuple | None = None  # the box of that write (int8)
    keep: tuple | None = None  # keep values before roll 2 and roll 3: (462, B)


def solve_turn_batch(writes, ends: np.ndarray, end_value: float, keep_wanted: bool = False):
    """The three-roll turn, maximising, for a batch: the value (and keep values if wanted)."""
    if not keep_wanted:  # the value alone: the in-place kernel, in one reused buffer
        first_roll_end = np.where(ends, end_value, np.nan)
        work = work_buffer(np.float64, writes[2].shape[1])  # this thread's, reused
        return turn_value(writes, first_roll_end, work), None
    w1, w2, w3 = writes
    e3 = keep_values(w3)
    v2 = np.maximum(w2, best_sub_keep(e3, overwrite=not keep_wanted))
    e2 = keep_values(v2)
    v1 = np.maximum(w1, best_sub_keep(e2, overwrite=not keep_wanted))
    v1[ends] = end_value
    value = dice.ROLL_PROBABILITY @ v1
    return value, ((e2, e3) if keep_wanted else None)


def solve_batch(rules: TwoPlayerRules, layout: Layout, next_values: np.ndarray, base: int,
                pairs: np.ndarray, details: bool = False, cols: Columns | None = None,
                idx: np.ndarray | None = None) -> TurnResult:
    """Solve the turn of every state of some pairs sharing one mover.

    ``cols`` and ``idx`` (``make_columns`` and ``write_vector_index`` of these pairs) may be
    passed when the caller has them already.
    """
    cols = make_columns(layout, pairs) if cols is None else cols
    idx = write_vector_index(rules, layout, cols, base) if idx is None else idx
    u = write_vectors(next_values, idx, rules, cols)
    writes, boxes = best_writes(u, rules, cols, with_box=details)
    value, keeps = solve_turn_batch(writes, rules.ends, 1.0, keep_wanted=details)
    if not details:
        return TurnResult(value)
    return TurnResult(value, writes, boxes, keeps)


def solve_chunk(rules: TwoPlayerRules, layout: Layout, t: int, next_values: np.ndarray,
                pairs: np.ndarray) -> np.ndarray:
    """The values of some pairs of layer t (concatenated runs), given layer t + 1's values.

    Pure function of its arguments: the unit of work of a threaded or distributed solve.
    """
    base = int(layout.offset[layout.layer_start[t + 1]])
    out = np.empty(int(layout.width[pairs].sum()), dtype=next_values.dtype)
    at = 0
    for batch in column_batches(layout, pairs):
        value = solve_batch(rules, layout, next_values, base, batch).value
        out[at:at + len(value)] = value
        at += len(value)
    return out


# -- policy evaluation -----------------------------------------------------------------

@dataclass(frozen=True)
class Decisions:
    """A fixed turn policy for a batch: after roll k (1..3) and roll r, in column j, keep
    ``keep[k - 1][r, j]`` (an index into KEEPS; −1 = write) or write box ``box[k - 1][r, j]``.
    Arrays may have one column, shared by the whole batch."""

    box: tuple  # three (252, B or 1) int arrays
    keep: tuple  # two (252, B or 1) int arrays (after roll 1 and roll 2)


def win_decisions(rules: TwoPlayerRules, layout: Layout, next_values: np.ndarray, base: int,
                  pairs: np.ndarray, cols: Columns | None = None, idx: np.ndarray | None = None
                  ) -> tuple[Decisions, TurnResult]:
    """The win-optimal choices in a batch (from the solved next layer), with the solved turn.

    Keep when the best keep is worth strictly more than the best write; among equal writes
    the first box wins, among equal keeps the first found (as the solitaire simulator).
    """
    turn = solve_batch(rules, layout, next_values, base, pairs, True, cols, idx)
    w1, w2, _ = turn.write
    e2, e3 = turn.keep
    b3, k3 = best_sub_keep_and_keep(e3)
    b2, k2 = best_sub_keep_and_keep(e2)
    keep2 = np.where(b3 > w2, k3, -1)
    keep1 = np.where(b2 > w1, k2, -1)
    return Decisions(turn.write_box, (keep1, keep2)), turn


def evaluate_batch(rules: TwoPlayerRules, u: np.ndarray, decisions: Decisions, kind: str = "value"
                   ) -> np.ndarray:
    """The value of a batch when the mover follows fixed decisions: (B,).

    ``u`` holds the write vectors computed from the evaluated next layer.
    """
    b = u.shape[1]

    def write_value(k):
        box = decisions.box[k - 1].astype(np.int64)
        vec = np.take_along_axis(rules.vec_of[k - 1], box, axis=1)  # (252, B or 1)
        if vec.shape[1] == 1:
            return u[vec[:, 0]]
        return np.take_along_axis(u, vec, axis=0)

    def choose(k, write, kept_values):
        keep = decisions.keep[k - 1]
        keep = np.broadcast_to(keep, (dice.N_ROLLS, b))
        gathered = np.take_along_axis(kept_values, np.maximum(keep, 0), axis=0)
        return np.where(keep >= 0, gathered, write)

    v3 = write_value(3)
    v2 = choose(2, write_value(2), keep_values(v3))
    v1 = choose(1, write_value(1), keep_values(v2))
    v1[rules.ends] = 1.0 if kind == "value" else 0.0
    return dice.ROLL_PROBABILITY @ v1


@dataclass(frozen=True)
class ExpectedScorePolicy:
    """The expected-score-optimal policy of the solitaire solution, for every mask.

    ``box[k - 1][m, r]`` is the box it writes after roll k with roll r on sheet m (when it
    writes), ``keep[k - 1][m, r]`` the keep it takes after roll 1 or 2 (−1: it writes).  It
    looks at its own sheet only: neither the opponent nor the score difference.
    """

    box: tuple  # three (2^n, 252) int8
    keep: tuple  # two (2^n, 252) int16


def expected_score_policy(rules: TwoPlayerRules, solitaire_values: np.ndarray,
                          masks: np.ndarray | None = None) -> ExpectedScorePolicy:
    """The expected-score policy from solved solitaire values (``StateValues.values``).

    Ties are broken as in the win-optimal policy: keep only when strictly better, the
    first of equal boxes and keeps.  With ``masks`` (sheets with a box open), only those
    rows are filled (others write box 0); by default every sheet's.
    """
    from ..turn import solve_turn

    game, n = rules.game, rules.n
    every = masks is None
    masks = np.arange((1 << n) - 1) if every else np.asarray(masks, dtype=np.int64)
    values = np.nan_to_num(np.asarray(solitaire_values, dtype=np.float64), nan=0.0)
    boxes, writes = [], []
    for k in (1, 2, 3):
        total = np.full((n, dice.N_ROLLS, len(masks)), -np.inf)
        for c in range(n):
            open_ = (masks >> c) & 1 == 0
            after = values[masks[open_] | (1 << c)]
            total[c][:, open_] = rules.points[c, k - 1][:, None] + after[None, :]
        boxes.append(total.argmax(axis=0).T.astype(np.int8))
        writes.append(total.max(axis=0))
    end = game.first_roll_end()
    e2, e3 = solve_turn(writes, end).before_roll
    b3, k3 = best_sub_keep_and_keep(e3)
    b2, k2 = best_sub_keep_and_keep(e2)
    keeps = (np.where(b2 > writes[0], k2, -1).T.astype(np.int16),
             np.where(b3 > writes[1], k3, -1).T.astype(np.int16))

    def by_mask(a, fill):  # rows by sheet mask; the full sheet never moves
        out = np.full((1 << n, dice.N_ROLLS), fill, a.dtype)
        out[masks] = a
        return out

    return ExpectedScorePolicy(tuple(by_mask(b, 0) for b in boxes),
                               tuple(by_mask(k, -1) for k in keeps))


def expected_decisions(policy: ExpectedScorePolicy, mover: int) -> Decisions:
    return Decisions(tuple(b[mover][:, None] for b in policy.box),
                     tuple(k[mover][:, None].astype(np.int64) for k in policy.keep))


def evaluate_chunk(rules: TwoPlayerRules, layout: Layout, t: int, movers: tuple, kinds: tuple,
                   next_evals: np.ndarray, next_win: np.ndarray | None,
                   expected: ExpectedScorePolicy | None, pairs: np.ndarray) -> np.ndarray:
    """Policy evaluations of some pairs of layer t, several at once: (k, columns).

    Evaluation i has the mover play ``movers[i]`` and yields ``kinds[i]``: the mover's
    P(win) + ½P(draw) (``"value"``) or P(draw) (``"draw"``), from ``next_evals[i]``, layer
    t + 1's evaluation i (seen from the other player's side).  ``"win"`` takes the
    win-optimal choices (from ``next_win``, the solved values of layer t + 1), computed once
    for all evaluations; ``"expected"`` those of ``expected``.
    """
    base = int(layout.offset[layout.layer_start[t + 1]])
    out = np.empty((len(movers), int(layout.width[pairs].sum())), dtype=next_evals.dtype)
    at = 0
    for batch in column_batches(layout, pairs):
        cols = make_columns(layout, batch)
        idx = write_vector_index(rules, layout, cols, base)
        chosen = {}
        if "win" in movers:
            chosen["win"] = win_decisions(rules, layout, next_win, base, batch, cols, idx)[0]
        if "expected" in movers:
            chosen["expected"] = expected_decisions(expected, cols.mover)
        for i, (policy, kind) in enumerate(zip(movers, kinds)):
            u = write_vectors(next_evals[i], idx, rules, cols, kind)
            out[i, at:at + cols.size] = evaluate_batch(rules, u, chosen[policy], kind)
        at += cols.size
    return out
