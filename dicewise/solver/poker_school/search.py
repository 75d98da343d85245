"""Search for poker-school: the next turn solved exactly before the fitted value is consulted.

The table's policy values a write by the fitted value of the sheet it leads to (depth 1).
``SearchEvaluator`` values it at depth 2: the exact expectation of the *next* turn played
optimally against the fitted values (its keeps, stopping and write, by ``turn.solve_turn``),
so one more turn of the game is exact before the model is read.  Wrapped around any
evaluator it is one itself, so the advisor, the simulator and the agents' reference use it
unchanged (policy ``search``).

A write's effect on the sheet is one of a few classes per row (the School's dice shown, a
free row's points), and most classes differ only in the points banked, which add to the
value; the sheets a turn can lead to are therefore collected, stripped of their banked
points, made unique and solved in one batch: about sixty next turns per sheet.  If the
fitted value respects the game's dominance order (``approx.monotone_weights``), so does the
searched one: the next turn's best play can only gain from a better sheet.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..turn import turn_start_value
from .rules import N_ROWS, N_SCHOOL, COLUMN_BONUS
from .turns import NEG, Batch, Evaluator, RowOption, turn_options, turn_write_values, write_effects

#: Next sheets solved per batch (bounds the memory of the turn solver's (252, n) arrays).
SOLVE_BATCH = 4096


class SearchEvaluator(Evaluator):
    """Depth-2 values: a write is worth the exact next turn against ``inner``'s values."""

    def __init__(self, inner: Evaluator):
        self.inner = inner
        self.game = inner.game
        self.approximate = inner.approximate
        self._key = None
        self._options = None

    def base(self, batch: Batch) -> np.ndarray:
        return (batch.banked + batch.standing).astype(float)

    def row_options(self, batch: Batch, row: int, roll_number: int) -> RowOption:
        key = (batch.uid, batch.version)
        if self._key != key:
            self._options = self._search(batch)
            self._key = key
        return self._options[row, 1 if row < N_SCHOOL else min(roll_number, 2)]

    def _search(self, batch: Batch) -> dict:
        """Every open row's options (after roll 1 and after rolls 2-3) for the whole batch."""
        game = self.game
        B = len(batch)
        pieces = []  # (row, roll number, kind, class index, sheet index, next sheet arrays)
        effects = {}
        for row in range(N_ROWS):
            for k in ((1,) if row < N_SCHOOL else (1, 2)):
                e = write_effects(game, batch, row, k)
                effects[row, k] = e
                i, b = np.nonzero(e["ok"])
                if len(b):
                    pieces.append(((row, k, 0), i, b, self._after(batch, row, b, e, i)))
                b = np.flatnonzero(e["open"])
                if len(b) and k == 1:
                    pieces.append(((row, k, 1), np.zeros(len(b), np.int64), b,
                                   self._after(batch, row, b, e, None)))
        values = self._values([p[3] for p in pieces])
        base = self.base(batch)
        out = {}
        for (row, k), e in effects.items():
            if row < N_SCHOOL and k != 1:
                continue
            m = len(e["classes"])
            score = np.full((m, B), NEG)
            cross = np.full(B, NEG)
            out[row, k] = (e["roll_class"], score, cross)
        pos = 0
        for (row, k, kind), i, b, nxt in pieces:
            v = values[pos:pos + len(b)] - base[b]
            pos += len(b)
            roll_class, score, cross = out[row, k]
            if kind == 0:
                score[i, b] = v
            else:
                cross[b] = v
                if row >= N_SCHOOL:
                    out[row, 2][2][b] = v
        return {key: RowOption(rc, s, x) for key, (rc, s, x) in out.items()}

    @staticmethod
    def _after(batch: Batch, row: int, b: np.ndarray, e: dict, cls) -> Batch:
        """The sheets ``b`` after scoring class ``cls`` (None: crossing) in ``row``."""
        filled = batch.filled[b].copy()
        filled[:, row] += 1
        clean = batch.clean[b].copy()
        reserve = batch.reserve[b].copy()
        column_clean = batch.column_clean[b].copy()
        if cls is None:
            clean[:, row] = False
            column_clean[np.arange(len(b)), e["cell"][b]] = False
            points, standing = e["x_points"][b], e["x_standing"][b]
        else:
            points, standing = e["points"][cls, b], e["standing"][cls, b]
            if row < N_SCHOOL:
                reserve[:, row] = e["reserve"][cls, b]
        banked = batch.banked[b] + batch.standing[b] + points - standing
        return Batch(filled, clean, reserve, column_clean, standing, banked)

    def _values(self, sheets: list[Batch]) -> np.ndarray:
        """Expected final score of every sheet at its turn start, by the exact next turn."""
        if not sheets:
            return np.zeros(0)
        fields = ("filled", "clean", "reserve", "column_clean", "standing")
        cat = {f: np.concatenate([getattr(s, f) for s in sheets]) for f in fields}
        banked = np.concatenate([s.banked for s in sheets])
        key = np.concatenate([cat[f].reshape(len(banked), -1).astype(np.int64) for f in fields],
                             axis=1)
        unique, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
        u = {f: a[first] for f, a in cat.items()}
        n = len(first)
        value = np.empty(n)
        over = u["filled"].sum(axis=1) >= self.game.turns
        # A full sheet: its final score (standing premiums and clean columns).
        value[over] = u["standing"][over] + COLUMN_BONUS * u["column_clean"][over].sum(axis=1)
        live = np.flatnonzero(~over)
        for lo in range(0, len(live), SOLVE_BATCH):
            idx = live[lo:lo + SOLVE_BATCH]
            sub = Batch(u["filled"][idx], u["clean"][idx], u["reserve"][idx],
                        u["column_clean"][idx], u["standing"][idx], np.zeros(len(idx), np.int64))
            turn = turn_start_value(turn_write_values(turn_options(self.inner, sub)))
            value[idx] = self.inner.base(sub) + turn
        return banked + value[inverse.reshape(-1)]


@lru_cache(maxsize=4)
def search_evaluator(inner: Evaluator) -> SearchEvaluator:
    """The searching evaluator of a table's evaluator, made once (its turns are memoised
    by the advisor per evaluator)."""
    return SearchEvaluator(inner)
