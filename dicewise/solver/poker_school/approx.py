"""The approximate policy for ``poker-school``: a linear value of sheet features, fitted by
approximate policy iteration, played through the exact within-turn solver.

The method (also in docs/poker-school.md):

1. **Value of a sheet at a turn start** ≈ the points it holds plus a linear function of
   features, each interpolated linearly in the number of turns left T between K knots:

   * per row: the row's state (cells written, whether it is still clean, the School
     reserve capped at 3) — the row's expected further points, premium included;
   * per column still without a cross: how many of its cells are open, and which — its
     chance of the 60 bonus, which a Poker cell left open threatens more than a Chance cell
     (a weight per count plus one per open row; a clean column with no open cell is worth
     exactly 60, not fitted);
   * the standing premiums, piecewise linear in their sum S (``STANDING_KNOTS``) with
     weights per number of open School cells — what survives a later School cross, which
     optimal play guards harder the more is at stake;
   * an intercept (none for a full sheet, whose value the rules give exactly: its points,
     standing premiums and clean columns).
   (Per pair of rows, the product of their open cells was tried as well: with it the policy
   iteration oscillated well below the plain features' value.)

2. **Turns are solved exactly** against that value: every write of every row (a score
   where the dice allow it, or a cross) is valued as its immediate points plus the value
   of the sheet it leads to, and ``turn.solve_turn`` gives the optimal keeps and stopping
   for those write values.  The policy is that one-step look-ahead.

3. **Fitting** (approximate policy iteration): start from prior weights (every open cell
   gets a turn played for it alone: ``prior_weights``), play a batch of games with the
   current policy (lockstep, ``poker_school_turns.play``), regress on the features the
   λ-return of every sheet (the final score mixed with the turn solver's exact
   expectation of each turn under the current values), ridge-regularised towards the
   previous weights, and repeat; the policy kept has the mean weights of the last fits.

The method is the same for every variant; on the exactly solvable one-column variants its
value is measured against the exact optimum (docs/poker-school.md), and that relative gap
is the error estimate reported with the full game's advice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .. import dice
from .turns import NEG, Batch, Evaluator, RowOption, play, write_effects
from .rules import COLUMN_BONUS, N_ROWS, N_SCHOOL, PokerSchoolRules

RESERVE_CAP = 3
#: Knots of the standing premiums' value, piecewise linear in their sum S: the share a later
#: School cross erases falls as S grows, because more is then spent on the School rows.
STANDING_KNOTS = np.array([0.0, 25, 50, 100, 150, 200, 300, 400])


@dataclass(frozen=True)
class Features:
    """The feature layout of a variant: sizes and offsets of the weight vector."""

    columns: int
    turns: int
    knots: int

    @classmethod
    def of(cls, game: PokerSchoolRules) -> "Features":
        return cls(game.columns, game.turns, min(10, game.turns // 2 + 1))

    @property
    def n_codes(self) -> int:  # row state codes: cells written × clean × reserve
        return self.columns * 2 * (RESERVE_CAP + 1)

    @property
    def n_row(self) -> int:
        return N_ROWS * self.n_codes * self.knots

    @property
    def n_col(self) -> int:
        return self.columns * (N_ROWS + 1) * self.knots

    @property
    def n_bands(self) -> int:
        return len(STANDING_KNOTS) - 1

    @property
    def n_std(self) -> int:
        return (N_SCHOOL * self.columns + 1) * self.n_bands * self.knots

    @property
    def n_cell(self) -> int:  # per column and row: the row's cell there, open in a clean column
        return self.columns * N_ROWS * self.knots

    @property
    def size(self) -> int:
        return self.n_row + self.n_col + self.n_std + self.n_cell + self.knots

    def hat(self, turns_left: np.ndarray):
        """Knot indices and weights of the linear interpolation in turns left: lo, hi, w_hi."""
        x = np.asarray(turns_left, float) * (self.knots - 1) / self.turns
        lo = np.minimum(np.floor(x).astype(np.int64), self.knots - 2)
        return lo, lo + 1, x - lo


def row_codes(f: Features, batch: Batch) -> np.ndarray:
    """(B, 15) the code of every row's state; ``n_codes`` for a full row."""
    res = np.zeros(batch.filled.shape, np.int64)
    res[:, :N_SCHOOL] = np.minimum(batch.reserve, RESERVE_CAP)
    code = (batch.filled * 2 + batch.clean) * (RESERVE_CAP + 1) + res
    return np.where(batch.filled >= f.columns, f.n_codes, code)


def column_open(f: Features, batch: Batch) -> np.ndarray:
    """(B, C) open cells of each column."""
    return (batch.filled[:, :, None] <= np.arange(f.columns)[None, None, :]).sum(axis=1)


def open_cells(f: Features, batch: Batch) -> np.ndarray:
    """(B, C, 15) whether row r's cell in column j is still open."""
    return batch.filled[:, None, :] <= np.arange(f.columns)[None, :, None]


def school_open(f: Features, batch: Batch) -> np.ndarray:
    return (f.columns - batch.filled[:, :N_SCHOOL]).sum(axis=1)


def standing_hats(standing: np.ndarray):
    """The piecewise linear basis in the standing premiums: (knot lo, knot hi, value lo, value hi).

    Knot 0 (S = 0) has no weight; beyond the last knot the last one's value grows in
    proportion to S.
    """
    s = np.asarray(standing, float)
    k = np.clip(np.searchsorted(STANDING_KNOTS, s, side="right") - 1, 0, len(STANDING_KNOTS) - 2)
    t = (s - STANDING_KNOTS[k]) / (STANDING_KNOTS[k + 1] - STANDING_KNOTS[k])
    beyond = t > 1
    hi = np.where(beyond, s / STANDING_KNOTS[-1], t)
    return k, k + 1, np.where(beyond, 0.0, 1 - t), hi


def design(f: Features, batch: Batch):
    """Sparse feature rows (B, size) of the sheets at a turn start, and their known value."""
    B = len(batch)
    T = f.columns * N_ROWS - batch.filled.sum(axis=1)
    lo, hi, w = f.hat(T)
    rows, cols, vals = [], [], []

    def add(mask, group, value):
        """Features ``group * knots + knot`` of the sheets (rows of ``group``) where ``mask``."""
        full = np.broadcast_shapes(np.shape(mask), np.shape(group), np.shape(value))
        group, mask, value = (np.broadcast_to(a, full) for a in (group, mask, value))
        shape = (B,) + (1,) * (group.ndim - 1)
        sheet = np.broadcast_to(np.arange(B).reshape(shape), group.shape)
        for knot, weight in ((lo, 1 - w), (hi, w)):
            rows.append(sheet[mask])
            cols.append((group * f.knots + knot.reshape(shape))[mask])
            vals.append((value * weight.reshape(shape))[mask])

    code = row_codes(f, batch)
    row_mask = code < f.n_codes
    add(row_mask, np.arange(N_ROWS)[None, :] * f.n_codes + code, np.ones((B, N_ROWS)))
    open_ = column_open(f, batch)
    col_mask = batch.column_clean & (open_ > 0)
    add(col_mask, f.n_row // f.knots + np.arange(f.columns)[None, :] * (N_ROWS + 1) + open_,
        np.ones((B, f.columns)))
    so = school_open(f, batch)
    k_lo, k_hi, v_lo, v_hi = standing_hats(batch.standing)
    std_group = (f.n_row + f.n_col) // f.knots + so * f.n_bands - 1
    add((so > 0) & (k_lo > 0), std_group + k_lo, v_lo)
    add((so > 0) & (batch.standing > 0), std_group + k_hi, v_hi)
    cells = (np.arange(f.columns)[:, None] * N_ROWS + np.arange(N_ROWS)[None, :])[None]
    add(open_cells(f, batch) & batch.column_clean[:, :, None],
        (f.n_row + f.n_col + f.n_std) // f.knots + cells, np.ones((B, f.columns, N_ROWS)))
    add(np.ones(B, bool), np.full(B, (f.n_row + f.n_col + f.n_std + f.n_cell) // f.knots),
        np.ones(B))
    from scipy import sparse  # only fitting needs it; advice stays quick to start

    A = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(B, f.size))
    known = COLUMN_BONUS * (batch.column_clean & (open_ == 0)).sum(axis=1)
    return A, known


def isotonic(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """The weighted least-squares nondecreasing fit along the last axis (short axes only).

    Uses the max-min formula iso[i] = max_{j<=i} min_{k>=i} mean(values[j..k]), exact for
    any length and vectorised over the leading axes; the axes here have 4 to 8 entries.
    """
    v = np.asarray(values, float)
    # Unseen features weigh a little, so that every mean is defined.
    c = np.ones_like(v) if weights is None else np.maximum(np.asarray(weights, float), 1e-3)
    n = v.shape[-1]
    cw = np.concatenate([np.zeros(v.shape[:-1] + (1,)), np.cumsum(c * v, axis=-1)], axis=-1)
    cc = np.concatenate([np.zeros(v.shape[:-1] + (1,)), np.cumsum(c, axis=-1)], axis=-1)
    out = np.empty_like(v)
    for i in range(n):
        best = None
        for j in range(i + 1):
            worst = None
            for k in range(i, n):
                m = (cw[..., k + 1] - cw[..., j]) / (cc[..., k + 1] - cc[..., j])
                worst = m if worst is None else np.minimum(worst, m)
            best = worst if best is None else np.maximum(best, worst)
        out[..., i] = best
    # Sequences already in order come back bit for bit (the formula's sums round).
    ordered = (np.diff(v, axis=-1) >= 0).all(axis=-1, keepdims=True)
    return np.where(ordered, v, out)


def monotone_weights(f: Features, weights: np.ndarray, counts: np.ndarray | None = None,
                     sweeps: int = 8) -> np.ndarray:
    """The weights made to respect the game's dominance order (docs/poker-school.md).

    The value must not fall, all else equal, with more School reserve, with a clean row
    instead of a crossed one, with a clean column instead of a crossed one, or with more
    standing premiums (each point of premium worth at least −1 later, so that points plus
    standing value never fall).  Together these make a write that keeps the reserve worth at
    least the cross of the same row, in the value and in the turn solved against it.  The
    repair is a least-squares projection weighted by ``counts`` (how often each feature was
    seen: the diagonal of the fit's normal equations), alternated between the constraint
    groups, then made exact by a last pass that only raises clean-row values.  Weights that
    already satisfy every constraint come back unchanged.
    """
    w = np.array(weights, float)
    c = np.ones(f.size) if counts is None else np.asarray(counts, float)
    R1 = RESERVE_CAP + 1
    # Rows: (15, cells written, clean, reserve, knot); only the School has reserves.
    rows = w[:f.n_row].reshape(N_ROWS, f.columns, 2, R1, f.knots)
    rc = c[:f.n_row].reshape(N_ROWS, f.columns, 2, R1, f.knots)
    school, sc = rows[:N_SCHOOL], rc[:N_SCHOOL]
    for _ in range(sweeps):
        school[:] = np.moveaxis(isotonic(np.moveaxis(school, 3, -1), np.moveaxis(sc, 3, -1)),
                                -1, 3)
        # Clean at least crossed: pool a violating pair at its weighted mean.
        x, y = rows[:, :, 0], rows[:, :, 1]
        cx, cy = rc[:, :, 0], rc[:, :, 1]
        bad = y < x
        mean = (cx * x + cy * y) / np.maximum(cx + cy, 1e-12)
        x[bad] = mean[bad]
        y[bad] = mean[bad]
    school[:] = np.moveaxis(isotonic(np.moveaxis(school, 3, -1)), -1, 3)
    rows[:, :, 1] = np.maximum(rows[:, :, 1], rows[:, :, 0])
    w[:f.n_row] = rows.reshape(-1)
    # Clean columns with open cells: their count's weight at least nothing (a crossed
    # column's value). With the open rows' weights the evaluator raises a clean column's
    # value to 0 where it would fall below (``LinearEvaluator._colval``).
    o = f.n_row
    col = w[o:o + f.n_col].reshape(f.columns, N_ROWS + 1, f.knots)
    col[:, 1:] = np.maximum(col[:, 1:], 0.0)
    w[o:o + f.n_col] = col.reshape(-1)
    # Standing premiums: u = value + S at the knots must not fall, with u = 0 at S = 0.
    o += f.n_col
    std = w[o:o + f.n_std].reshape(N_SCHOOL * f.columns + 1, f.n_bands, f.knots)
    stc = c[o:o + f.n_std].reshape(std.shape)
    knots = STANDING_KNOTS[1:, None]
    # (The nondecreasing fit clipped at 0 is the projection with the bound u >= 0.)
    u = std + knots
    ordered = (np.diff(u, axis=1) >= 0).all(axis=1, keepdims=True) & (u[:, :1] >= 0)
    u = np.maximum(np.moveaxis(isotonic(np.moveaxis(u, 1, -1), np.moveaxis(stc, 1, -1)), -1, 1),
                   0.0)
    std[:] = np.where(ordered, std, u - knots)
    w[o:o + f.n_std] = std.reshape(-1)
    return w


class LinearEvaluator(Evaluator):
    """Sheet values from fitted feature weights (see the module docstring)."""

    approximate = True

    def __init__(self, game: PokerSchoolRules, weights: np.ndarray,
                 offsets: np.ndarray | None = None):
        self.game = game
        self.f = f = Features.of(game)
        if weights.shape != (f.size,):
            raise ValueError(f"weights of shape {weights.shape}, expected ({f.size},)")
        # The fit's measured error by cells left (``Calibration``): one number a turn, so it
        # moves every value of a turn alike and never a choice, only what values read.
        cells = f.columns * N_ROWS
        self.offsets = np.zeros(cells + 1) if offsets is None else np.asarray(offsets, float)
        if self.offsets.shape != (cells + 1,) or self.offsets[0] != 0:
            raise ValueError(f"offsets of shape {self.offsets.shape}, expected ({cells + 1},) "
                             "and none for a full sheet")
        # Fitted weights already respect the dominance order; any others are made to.
        self.weights = weights = monotone_weights(f, weights)
        self.w_row = np.concatenate([weights[:f.n_row].reshape(N_ROWS, f.n_codes, f.knots),
                                     np.zeros((N_ROWS, 1, f.knots))], axis=1)
        o = f.n_row
        self.w_col = weights[o:o + f.n_col].reshape(f.columns, N_ROWS + 1, f.knots).copy()
        self.w_col[:, 0, :] = 0.0
        o += f.n_col
        self.w_std = np.zeros((N_SCHOOL * f.columns + 1, f.n_bands + 1, f.knots))
        self.w_std[1:, 1:] = weights[o:o + f.n_std].reshape(-1, f.n_bands, f.knots)[1:]
        o += f.n_std
        self.w_cell = weights[o:o + f.n_cell].reshape(f.columns, N_ROWS, f.knots)
        o += f.n_cell
        self.w_int = weights[o:]
        self._cache_key = None

    def base(self, batch):
        return (batch.banked + batch.standing).astype(float)

    def state_values(self, batch) -> np.ndarray:
        """Approximate expected final score of sheets at a turn start."""
        f = self.f
        A, known = design(f, batch)
        # The features' sum, with each clean column's part raised to 0 where it is below.
        lo, hi, w = f.hat(f.columns * N_ROWS - batch.filled.sum(axis=1))
        cells = self._cell_weights(batch, lo, hi, w).sum(axis=2)
        linear = self._column_linear(np.arange(f.columns)[None, :], column_open(f, batch),
                                     lo[:, None], hi[:, None], w[:, None], cells)
        below = np.where(batch.column_clean, np.maximum(-linear, 0.0), 0.0).sum(axis=1)
        left = f.columns * N_ROWS - batch.filled.sum(axis=1)
        return self.base(batch) + known + A @ self.weights + below + self.offsets[left]

    def _prepare(self, batch):
        """Per-sheet pieces shared by all rows' options at this turn (cached per batch state)."""
        key = (batch.uid, batch.version)
        if self._cache_key == key:
            return self._cache
        f = self.f
        T1 = np.maximum(f.columns * N_ROWS - batch.filled.sum(axis=1) - 1, 0)
        lo, hi, w = f.hat(T1)
        code = row_codes(f, batch)
        all_rows = np.arange(N_ROWS)[None, :]
        row_now = (self.w_row[all_rows, code, lo[:, None]] * (1 - w[:, None])
                   + self.w_row[all_rows, code, hi[:, None]] * w[:, None])
        open_ = column_open(f, batch)
        cols = np.arange(f.columns)[None, :]
        cell = self._cell_weights(batch, lo, hi, w)
        cell_sum = cell.sum(axis=2)
        col_now = self._colval(cols, batch.column_clean, open_, lo[:, None], hi[:, None],
                               w[:, None], cell_sum)
        so = school_open(f, batch)
        std_w = self._standing_value
        # A write that fills the sheet ends the game: every other term of it is already 0.
        intercept = np.where(T1 > 0, self.w_int[lo] * (1 - w) + self.w_int[hi] * w, 0.0)
        intercept += self.offsets[T1]
        others = row_now.sum(axis=1) + col_now.sum(axis=1) + intercept
        self._cache_key = key
        self._cache = dict(lo=lo, hi=hi, w=w, code=code, row_now=row_now, open=open_,
                           col_now=col_now, cell=cell, cell_sum=cell_sum, so=so, std_w=std_w,
                           others=others)
        return self._cache

    def _standing_value(self, so, standing, lo, hi, w):
        """Value of standing premiums ``standing`` (B,) or (m, B) with ``so`` (B,) School cells open."""
        k_lo, k_hi, v_lo, v_hi = standing_hats(standing)
        ws = self.w_std
        at = lambda k: ws[so, k, lo] * (1 - w) + ws[so, k, hi] * w  # noqa: E731
        return at(k_lo) * v_lo + at(k_hi) * v_hi

    def _cell_weights(self, batch, lo, hi, w):
        """(B, C, 15) the weight of each row's cell in each column, 0 where it is written."""
        cell = (self.w_cell[:, :, lo] * (1 - w) + self.w_cell[:, :, hi] * w).transpose(2, 0, 1)
        return cell * open_cells(self.f, batch)

    def _column_linear(self, j, n_open, lo, hi, w, cells):
        """A clean column's weights: its count's plus its open rows' (``cells``)."""
        return self.w_col[j, n_open, lo] * (1 - w) + self.w_col[j, n_open, hi] * w + cells

    def _colval(self, j, clean, n_open, lo, hi, w, cells):
        """A column's value: 0 once crossed; clean, its weights (never below a crossed
        column's 0), and 60 when full."""
        v = self._column_linear(j, n_open, lo, hi, w, cells)
        return np.where(clean, np.maximum(v, 0.0) + COLUMN_BONUS * (n_open == 0), 0.0)

    def row_options(self, batch, row, roll_number):
        f = self.f
        p = self._prepare(batch)
        e = write_effects(self.game, batch, row, roll_number)
        B = len(batch)
        b = np.arange(B)
        lo, hi, w = p["lo"], p["hi"], p["w"]
        j = np.minimum(e["cell"], f.columns - 1)
        filled1 = batch.filled[:, row] + 1
        done = filled1 >= f.columns
        # Row term after the write.
        res = np.minimum(e["reserve"], RESERVE_CAP)  # (m, B)
        code_s = np.where(done[None, :], f.n_codes,
                          ((filled1 * 2 + batch.clean[:, row])[None, :]) * (RESERVE_CAP + 1) + res)
        code_x = np.where(done, f.n_codes, (filled1 * 2) * (RESERVE_CAP + 1)
                          + (np.minimum(batch.reserve[:, row], RESERVE_CAP) if row < N_SCHOOL else 0))
        wr = self.w_row[row]
        row_s = wr[code_s, lo[None, :]] * (1 - w) + wr[code_s, hi[None, :]] * w
        row_x = wr[code_x, lo] * (1 - w) + wr[code_x, hi] * w
        # Column term of the written cell's column.
        n_open = p["open"][b, j]
        clean_j = batch.column_clean[b, j]
        col_old = p["col_now"][b, j]
        # Scored, the cell leaves the column's open ones; crossed, the column is lost.
        col_s = self._colval(j, clean_j, n_open - 1, lo, hi, w,
                             p["cell_sum"][b, j] - p["cell"][b, j, row])
        col_x = np.zeros(B)
        # Standing premiums.
        so1 = np.maximum(p["so"] - (row < N_SCHOOL), 0)
        common = p["others"] - p["row_now"][:, row] - col_old
        std = p["std_w"]
        score = e["points"] + row_s + (col_s + common)[None, :] + std(so1, e["standing"], lo, hi, w)
        score = np.where(e["ok"], score, NEG)
        cross = e["x_points"] + row_x + col_x + common + std(so1, e["x_standing"], lo, hi, w)
        cross = np.where(e["open"], cross, NEG)
        return RowOption(e["roll_class"], score, cross)


@dataclass(frozen=True)
class Fit:
    """A fitted approximate policy: its weights and what the fit measured."""

    weights: np.ndarray
    history: tuple  # (policy iteration, mean final score of the games played with it)
    games: int
    seconds: float


class _Recorder:
    """Collects features and λ-return targets of played games into normal equations.

    The target of the sheet at turn t is G_t = (1 − λ) E_t + λ G_{t+1}, G_end = the final
    score, where E_t is the exact expectation of the turn under the current values (the
    turn solver's value): λ = 1 is the Monte Carlo return, λ = 0 fitted value iteration.
    """

    def __init__(self, game: PokerSchoolRules, lam: float = 1.0):
        self.game = game
        self.lam = lam
        self.expected = {}
        self.f = Features.of(game)
        from scipy import sparse

        self.AtA = sparse.csr_matrix((self.f.size, self.f.size))
        self.Atb = np.zeros(self.f.size)
        self.parts = []
        self.finals = []

    def backup(self, t, expected):
        if expected is not None:
            self.expected[t] = expected

    def __call__(self, t, batch):
        if t < self.game.turns:
            A, known = design(self.f, batch)
            self.parts.append((A, known + batch.banked + batch.standing))
            return
        final = batch.final_scores()
        self.finals.append(final)
        from scipy import sparse

        A = sparse.vstack([a for a, _ in self.parts]).tocsr()
        g = final.astype(float)
        targets = []
        for t in range(len(self.parts) - 1, -1, -1):
            if t in self.expected:
                g = (1 - self.lam) * self.expected[t] + self.lam * g
            targets.append(g - self.parts[t][1])
        y = np.concatenate(targets[::-1])
        self.expected = {}
        self.AtA = self.AtA + (A.T @ A).tocsr()
        self.Atb += A.T @ y
        self.parts = []


def dedicated_turn(game: PokerSchoolRules, row: int, reserve: int = 0) -> tuple[float, float]:
    """(expected points, chance of a score) of a turn played only for the next cell of ``row``."""
    from ..turn import solve_turn

    if row < N_SCHOOL:
        hit = (dice.ROLLS[:, row] + reserve >= 3).astype(float)[:, None]
        w = (hit, hit, hit)
    else:
        w = tuple((game.base_points[row, k] > 0).astype(float)[:, None] for k in (0, 1, 1))
    p = float(solve_turn(w).value[0])
    if row < N_SCHOOL:
        return 3 * (row + 1) * p, p
    pts = tuple(game.base_points[row, k].astype(float)[:, None] for k in (0, 1, 1))
    return float(solve_turn(pts).value[0]), p


def prior_weights(game: PokerSchoolRules) -> np.ndarray:
    """Starting weights: every open cell gets a turn played for it alone, premiums and
    columns succeed when every such turn does.  Optimistic where turns compete, but it
    starts the policy iteration from a policy that already values premiums and columns.
    """
    f = Features.of(game)
    C = f.columns
    w_row = np.zeros((N_ROWS, f.n_codes))
    success = []
    for r in range(N_ROWS):
        value, p = dedicated_turn(game, r)
        success.append(p)
        for res in range(RESERVE_CAP + 1 if r < N_SCHOOL else 1):
            v_next, p_next = dedicated_turn(game, r, res) if res else (value, p)
            for j in range(C):
                for clean in (0, 1):
                    code = (j * 2 + clean) * (RESERVE_CAP + 1) + res
                    later = C - j - 1
                    total = v_next + later * value
                    if clean:
                        total += value * p_next * p ** later
                    w_row[r, code] = total
    weights = np.zeros(f.size)
    weights[:f.n_row] = np.repeat(w_row.reshape(-1), f.knots)
    p_mean = float(np.mean(success))
    col = np.array([[COLUMN_BONUS * p_mean ** n for n in range(N_ROWS + 1)]] * C)
    weights[f.n_row:f.n_row + f.n_col] = np.repeat(col.reshape(-1), f.knots)
    return weights


def fit_policy(game: PokerSchoolRules, iterations: int = 16, games: int = 4096, seed: int = 1,
               ridge: float = 3.0, lam: float = 0.7, average: int = 1, progress=None) -> Fit:
    """Approximate policy iteration (module docstring); ``progress(x)`` in games played.

    The policy returned has the mean weights of the last ``average`` fits: successive fits
    scatter around a level (each regresses on 4,096 noisy games), and their mean is steadier.
    """
    import time

    start = time.perf_counter()
    f = Features.of(game)
    weights = monotone_weights(f, prior_weights(game))
    fitted = []
    history = []
    for it in range(iterations + 1):
        if it == iterations and fitted:
            weights = np.mean(fitted[-average:], axis=0)
        ev = LinearEvaluator(game, weights)
        rec = _Recorder(game, 1.0 if it == 0 else lam)
        scores = play(game, games, seed + 1000 * it, "solved", ev,
                      record=rec, chunk=512, progress=progress)
        history.append((it, float(scores.mean())))
        if it == iterations:
            break
        lhs = rec.AtA.toarray() + ridge * np.eye(f.size)
        rhs = rec.Atb + ridge * weights
        weights = monotone_weights(f, np.linalg.solve(lhs, rhs), rec.AtA.diagonal())
        fitted.append(weights)
    return Fit(weights, tuple(history), games, time.perf_counter() - start)


class Calibration:
    """The offsets that make ``ev``'s values read as what its play scores: passed as
    ``record`` to ``turns.play`` with ``ev``, it takes, by cells left, the mean of (final
    score − the fitted value of the sheet) over the games' turn-start sheets (``offsets``).

    The fit is a compromise over all turns, and leaves the early turns' values about 20
    points below what play then scores; one constant a turn moves no choice (every write of
    a turn leads to a sheet with the same number of cells left) but makes the values shown
    an estimate of the policy's expected score, to within the sampling error of the games.
    """

    def __init__(self, game: PokerSchoolRules, ev: LinearEvaluator):
        self.game, self.ev = game, ev
        self.cells = game.columns * N_ROWS
        self.total, self.count = np.zeros(self.cells + 1), np.zeros(self.cells + 1)
        self._seen: list = []

    def __call__(self, t, batch):
        if t < self.game.turns:
            self._seen.append((self.cells - batch.filled.sum(axis=1), self.ev.state_values(batch)))
            return
        final = batch.final_scores().astype(float)
        for left, value in self._seen:
            np.add.at(self.total, left, final - value)
            np.add.at(self.count, left, 1)
        self._seen.clear()

    def offsets(self) -> np.ndarray:
        offsets = np.where(self.count > 0, self.total / np.maximum(self.count, 1), 0.0)
        offsets[0] = 0.0  # a full sheet's value is the rules' own
        return offsets
