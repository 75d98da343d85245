"""poker-school with one column as a category ruleset: the variant the generic engine solves.

``OneColumnRules`` declares the one-column game of some ``PokerSchoolRules`` (``columns=1``)
to the category engine (``category.solve_states``, play for a target): its boxes are the
fifteen rows, its extra state what the rest of the game depends on.

With one column there are no reserves (a row has no later cell), the premium of a row is
its single cell's score, and the state is the set of filled rows plus whether the column
is still free of crosses (plus, with ``school_cross_erases``, the premiums standing to be
erased).  Writing a score where the dice qualify dominates crossing there (same or more
points now, same or better state), so each row needs one write: the score if the dice
qualify, else the cross.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...errors import DicewiseError
from ..category import Category, CategoryRules, Write
from .rules import (COLUMN_BONUS, N_ROWS, N_SCHOOL, ROW_NAMES, SCHOOL_MASK, PokerSchoolRules,
                    SheetState, row_points)


@dataclass(frozen=True)
class OneColumnRules(CategoryRules):
    """The one-column game of ``rules`` (``columns=1``) as a category ruleset, solved exactly."""

    name = PokerSchoolRules.name
    title = PokerSchoolRules.title
    roll_number_matters = True

    rules: PokerSchoolRules

    def __post_init__(self):
        super().__post_init__()
        if self.rules.columns != 1:
            raise DicewiseError(f"poker-school with columns={self.rules.columns} has no exact "
                                "solver; its policy is approximate")

    @property
    def options(self) -> dict:
        return self.rules.options

    @property
    def categories(self):
        minimums = self.rules.minimums
        return tuple(Category(n, lambda c, k, r=r: row_points(c, r, k, minimums))
                     for r, n in enumerate(ROW_NAMES))

    @property
    def base_points(self) -> np.ndarray:
        return self.rules.base_points

    @cached_property
    def standing_levels(self) -> int:
        """Distinct standing-premium sums the state may carry (1 without erasure).

        Standing premiums matter only while a School row is open, so at most five School
        premiums and the nine free ones can stand.
        """
        if not self.rules.school_cross_erases:
            return 1
        top = self.rules.max_premium
        school = sorted(top[:N_SCHOOL])[1:]
        return int(sum(school) + top[N_SCHOOL:].sum()) + 1

    @property
    def n_extra(self) -> int:  # extra = column clean + 2 × standing premiums
        return 2 * self.standing_levels

    @property
    def initial_extra(self) -> int:
        return 1

    def write(self, c, roll_number, masks, extras):
        """Write row c: its score and premium if the dice qualify, else a cross."""
        points = self.base_points[c, roll_number - 1]  # (252,)
        qualifies = points > 0
        clean, standing = extras % 2, extras // 2
        if not self.rules.school_cross_erases:
            # Cell and premium: the score counts twice; a cross breaks the column.
            nxt = np.stack([np.zeros_like(extras), extras])
            return Write((2 * points)[:, None], nxt, qualifies.astype(np.int64))
        school_done = ((masks | (1 << c)) & SCHOOL_MASK) == SCHOOL_MASK  # (B,)
        values, cls = np.unique(points, return_inverse=True)  # class 0 is the cross (0 points)
        cls = cls.reshape(-1)
        if c < N_SCHOOL:
            new_standing = np.where(values[:, None] > 0, standing[None, :] + values[:, None], 0)
        else:
            new_standing = standing[None, :] + values[:, None]
        new_clean = np.where(values[:, None] > 0, clean[None, :], 0)
        # Once every School row is filled no premium can be erased: bank what stands.
        banked = np.where(school_done[None, :], new_standing, 0)
        new_standing = np.where(school_done[None, :], 0, new_standing)
        nxt = new_clean + 2 * new_standing
        return Write(points[:, None] + banked[cls], nxt, cls)

    def final_bonus(self, extras):
        return COLUMN_BONUS * (extras % 2)

    def reachable_extras(self, masks):
        masks = np.asarray(masks)
        out = np.zeros((len(masks), self.n_extra), dtype=bool)
        out[:, 1] = True
        out[masks != 0, 0] = True
        if self.rules.school_cross_erases:
            bits = (masks[:, None] >> np.arange(N_ROWS)) & 1
            cap = bits @ self.rules.max_premium
            school_done = (masks & SCHOOL_MASK) == SCHOOL_MASK
            cap = np.where(school_done, 0, np.minimum(cap, self.standing_levels - 1))
            levels = np.arange(self.standing_levels)
            ok = levels[None, :] <= cap[:, None]
            out[:, 0::2] = ok & (masks != 0)[:, None]
            out[:, 1::2] = ok
        return out

    def state_of_sheet(self, sheet: SheetState) -> int:
        """The engine's state index of a one-column sheet."""
        mask = sum(1 << r for r in range(N_ROWS) if sheet.filled[r])
        return mask * self.n_extra + int(sheet.column_clean[0]) + 2 * sheet.standing
