"""Покер with a school and three columns, from the Russian seed (RULES.md section 3).

Fifteen rows (the School, Ones..Sixes, then nine free figures), each with ``columns`` cells
filled strictly left to right and a premium; 15 × ``columns`` turns.  This module holds the
rules and nothing else that is heavy:

* the scoring of every row over face counts (``row_points``), minimums and roll-1 doubling;
* the School's reserves, the premium and the School-cross erasure, applied to one sheet
  (``SheetState``, ``parse_sheet``: the ``row=cells`` notation, validated).

The exact variant ``columns=1`` is a category ruleset of its own (``one_column.py``,
``PokerSchoolRules.one_column``) that the generic engine solves; the full game
(``columns`` 2 or 3) is solved approximately by ``dicewise.solver.poker_school.approx``.

Readings where RULES.md is silent (also in docs/poker-school.md):

* A School cell is written in the sheet notation as the sum of the dice of its face that
  were *shown* (``fives=20`` = four fives: 15 points and one five banked), so reserves are
  derived from the cells; ``3f`` means exactly three, fewer draws on the reserve.  Each such
  cell scores ``3f``.  ``x`` is a cross (the reserve stays).
* A row's premium may be typed as one more entry after its last cell (its points, or ``x``
  when a School cross erased it); left out, an earned premium is taken as standing.
* A free-row cell is written with the points it scored (doubled on roll 1); a value that
  only a roll-1 doubling can give (``chance=44``) is read as a roll-1 write.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...errors import DicewiseError
from ...i18n import Box, Message, box_listing
from .. import dice
from ..category import ROLL_NUMBERS
from ..options import option, options_of, validate_options
from ..scoring import FACES, best_face_with, best_two_pairs, has_faces, total

ROW_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes", "pair", "two_pairs",
             "triplet", "small_straight", "big_straight", "full_house", "four", "poker", "chance")
N_ROWS = len(ROW_NAMES)
N_SCHOOL = 6
SCHOOL_MASK = (1 << N_SCHOOL) - 1
COLUMN_BONUS = 60
#: RULES.md section 3, option ``minimums=seed``: the undoubled sum a figure must reach.
SEED_MINIMUMS = {"pair": 10, "two_pairs": 18, "triplet": 12, "full_house": 22, "four": 12,
                 "chance": 22}
ROW_INDEX = {n: i for i, n in enumerate(ROW_NAMES)}


def _full_house(counts):
    """3f + 2g for three dice of one face and two of another, else 0."""
    three = np.where(counts == 3, FACES, 0).max(axis=1)
    two = np.where(counts == 2, FACES, 0).max(axis=1)
    return np.where((three > 0) & (two > 0), 3 * three + 2 * two, 0)


_FIGURES = {
    "pair": lambda c: 2 * best_face_with(c, 2),
    "two_pairs": best_two_pairs,
    "triplet": lambda c: 3 * best_face_with(c, 3),
    "small_straight": lambda c: 15 * has_faces(c, (1, 2, 3, 4, 5)),
    "big_straight": lambda c: 20 * has_faces(c, (2, 3, 4, 5, 6)),
    "full_house": _full_house,
    "four": lambda c: 4 * best_face_with(c, 4),
    "poker": lambda c: 5 * best_face_with(c, 5),
    "chance": total,
}


def figure_points(counts, row: str, minimums: str = "seed") -> np.ndarray:
    """Undoubled points of a free row for face counts (N, 6); 0 where the dice do not qualify.

    Every figure's best reading is its largest, so one minimum test on it settles it.
    """
    counts = np.atleast_2d(counts)
    points = _FIGURES[row](counts)
    if minimums == "seed" and row in SEED_MINIMUMS:
        points = np.where(points >= SEED_MINIMUMS[row], points, 0)
    return points.astype(np.int64)


def row_points(counts, row: int, roll_number: int, minimums: str = "seed") -> np.ndarray:
    """Points of a cell of row ``row`` written with these dice, ignoring reserves; 0 = a cross.

    School rows score 3f with three or more dice of face f (never doubled); free rows score
    their figure, doubled on roll 1.
    """
    counts = np.atleast_2d(counts)
    if row < N_SCHOOL:
        return np.where(counts[:, row] >= 3, 3 * (row + 1), 0)
    points = figure_points(counts, ROW_NAMES[row], minimums)
    return points * (2 if roll_number == 1 else 1)


@dataclass(frozen=True)
class SheetState:
    """One sheet, reduced to what the rest of the game depends on, plus the points so far.

    ``filled[r]`` cells of row r are written; ``clean[r]`` says none of them is a cross;
    ``reserve[f-1]`` is the School reserve of face f; ``column_clean[j]`` says column j has
    no cross so far; ``standing`` is the sum of earned premiums that a School cross would
    still erase (0 unless ``school_cross_erases``); ``banked`` is every other point so far
    (cells and premiums that can no longer be erased).  Column bonuses are paid at the end.
    """

    filled: tuple[int, ...]
    clean: tuple[bool, ...]
    reserve: tuple[int, ...]
    column_clean: tuple[bool, ...]
    standing: int = 0
    banked: int = 0

    @property
    def points(self) -> int:
        """Points on the sheet now (standing premiums included, column bonuses not)."""
        return self.banked + self.standing

    def open_rows(self, columns: int) -> list[int]:
        return [r for r in range(N_ROWS) if self.filled[r] < columns]


def _row(name: str) -> Box:
    """A row's name in an error message, said in the players' language."""
    return Box("poker-school", name)


def empty_sheet(columns: int) -> SheetState:
    return SheetState((0,) * N_ROWS, (True,) * N_ROWS, (0,) * N_SCHOOL, (True,) * columns)


@dataclass(frozen=True)
class PokerSchoolRules:
    """The rules of ``poker-school`` with its options; exact for ``columns=1`` only."""

    name = "poker-school"
    title = "Покер with a school and three columns, from the Russian seed"

    columns: int = option(3, None, "cells per row; the premium is the last cell's score",
                          minimum=1, maximum=3)
    school_cross_erases: bool = option(True, None, "a School cross erases every premium earned so "
                                       "far (false: it voids only its own row's premium)")
    minimums: str = option("seed", ("seed", "none"), "figure minimums: seed (Pair 10, Two Pairs "
                           "18, Triplet 12, Full House 22, Four 12, Chance 22) | none")

    def __post_init__(self):
        validate_options(self)

    # -- declarations ---------------------------------------------------------------
    @property
    def options(self) -> dict:
        return options_of(self)

    @cached_property
    def base_points(self) -> np.ndarray:
        """Points of a cell of every row for every roll, by roll number: (15, 3, 252) ints."""
        table = np.array([[row_points(dice.ROLLS, r, k, self.minimums) for k in ROLL_NUMBERS]
                          for r in range(N_ROWS)])
        table.setflags(write=False)
        return table

    @property
    def exact(self) -> bool:
        """Whether the game is solved exactly: only the one-column game is small enough."""
        return self.columns == 1

    @cached_property
    def one_column(self):
        """The one-column game as the category ruleset the engine solves (``OneColumnRules``);
        a DicewiseError for more columns."""
        from .one_column import OneColumnRules

        return OneColumnRules(self)

    @property
    def turns(self) -> int:
        return N_ROWS * self.columns

    @cached_property
    def max_premium(self) -> np.ndarray:
        """(15,) the largest premium each row can earn (its largest last-cell score)."""
        return np.array([int(self.base_points[r].max()) for r in range(N_ROWS)])

    # -- one sheet ------------------------------------------------------------------
    def empty(self) -> SheetState:
        return empty_sheet(self.columns)

    def cell_scores(self, row: int) -> frozenset[int]:
        """Every score a cell of ``row`` can hold (a free row's doubled values included)."""
        return frozenset(int(p) for p in np.unique(self.base_points[row]) if p > 0)

    def apply(self, sheet: SheetState, row: int, score: int | None, shown: int | None = None,
              erase: bool = True) -> SheetState:
        """Write the next cell of ``row``: ``score`` points, or a cross when ``score`` is None.

        For a School row ``shown`` is the number of dice of its face that were shown; the
        cell scores 3f when ``shown`` + reserve ≥ 3 (RULES.md section 3), else it must be a
        cross.  ``erase=False`` leaves standing premiums alone on a School cross (for reading
        a sheet, whose order of writes is unknown).  Raises DicewiseError for a write the
        rules do not allow.
        """
        if not 0 <= row < N_ROWS:
            raise DicewiseError(f"no row {row}")
        name = ROW_NAMES[row]
        j = sheet.filled[row]
        if j >= self.columns:
            raise DicewiseError(Message("row {row} is full (cells: {n})", row=_row(name),
                                        n=self.columns))
        filled = list(sheet.filled)
        clean = list(sheet.clean)
        reserve = list(sheet.reserve)
        column_clean = list(sheet.column_clean)
        standing, banked = sheet.standing, sheet.banked
        filled[row] += 1
        if score is None:
            clean[row] = False
            column_clean[j] = False
            if row < N_SCHOOL and self.school_cross_erases and erase:
                standing = 0
        else:
            if row < N_SCHOOL:
                face = row + 1
                if shown is None:
                    shown = score // face if score % face == 0 else -1
                if not 0 <= shown <= 5 or shown + reserve[row] < 3:
                    raise DicewiseError(Message(
                        "{row} cell {cell}: {entry} is not a School entry this row can hold "
                        "(dice of face {face} shown, with reserve {reserve}; three are needed)",
                        # the entry as the sheet writes it: the sum of the dice shown
                        row=_row(name), cell=j + 1, entry=shown * face if shown >= 0 else score,
                        face=face, reserve=reserve[row]))
                reserve[row] = shown + reserve[row] - 3
                score = 3 * face
            elif score not in self.cell_scores(row):
                allowed = ", ".join(map(str, sorted(self.cell_scores(row))))
                raise DicewiseError(Message("{row} cannot hold {score} (possible: {allowed}, or "
                                            "x)", row=_row(name), score=score, allowed=allowed))
            banked += score
            if filled[row] == self.columns and clean[row]:
                if self.school_cross_erases:
                    standing += score
                else:
                    banked += score
        if self.school_cross_erases and all(filled[r] == self.columns for r in range(N_SCHOOL)):
            banked, standing = banked + standing, 0
        return SheetState(tuple(filled), tuple(clean), tuple(reserve), tuple(column_clean),
                          standing, banked)

    def final_score(self, sheet: SheetState) -> int:
        """Score of a full sheet: its points plus 60 for each column without a cross."""
        return sheet.points + COLUMN_BONUS * sum(sheet.column_clean)

    def parse_sheet(self, text: str | None) -> SheetState:
        """Read the ``row=cells`` notation (see the module docstring) into a validated sheet.

        Rows are comma-separated; a row's cells left to right joined by ``/``, ``x`` for a
        cross; one more entry is the row's premium (its points, or ``x`` if erased).  At a
        table of several players, ``taken=fives/column2`` lists the prizes rivals took.
        """
        from .contest import forfeit, split_taken

        text, taken_rows, taken_columns = split_taken(text, self.columns)
        rows: dict[int, list[str]] = {}
        for part in (text or "").split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, cells = part.partition("=")
            name = name.strip().lower().replace("-", "_")
            if not sep:
                raise DicewiseError(Message("sheet entry {entry} is not of the form row=cells",
                                            entry=repr(part)))
            if name not in ROW_INDEX:  # the seed's names, Russian and Polish too
                from ...i18n import canonical_box

                name = canonical_box(self.name, ROW_NAMES, name) or name
            if name not in ROW_INDEX:
                raise DicewiseError(Message("unknown row {row} (rows: {rows})", row=repr(name),
                                            rows=box_listing("poker-school", ROW_NAMES)))
            if ROW_INDEX[name] in rows:
                raise DicewiseError(Message("row {row} given twice", row=_row(name)))
            entries = [e.strip().lower() for e in cells.split("/")] if cells.strip() else []
            rows[ROW_INDEX[name]] = entries
        # Write every row's cells; premium entries are checked after all cells are known.
        # Prizes rivals took (``taken=``, contest.py) are lost before any cell is written.
        sheet = forfeit(self.empty(), taken_rows, taken_columns)
        premiums: dict[int, str] = {}
        for r in sorted(rows):
            entries = rows[r]
            name = ROW_NAMES[r]
            for i, e in enumerate(entries):
                if e == "":
                    if any(x != "" for x in entries[i + 1:]):
                        raise DicewiseError(Message("row {row}: a cell after an empty one",
                                                    row=_row(name)))
                    raise DicewiseError(Message("row {row}: empty cell {cell}", row=_row(name),
                                                cell=i + 1))
            if len(entries) > self.columns + 1:
                raise DicewiseError(Message("row {row} has {n} entries, more than its cells "
                                            "({cells}) and a premium", row=_row(name), n=len(entries),
                                            cells=self.columns))
            for i, e in enumerate(entries[:self.columns]):
                sheet = self.apply(sheet, r, *self._parse_cell(r, i, e), erase=False)
            if len(entries) == self.columns + 1:
                premiums[r] = entries[-1]
        return self._settle_premiums(sheet, rows, premiums, taken_rows)

    def _parse_cell(self, row: int, i: int, text: str):
        name = ROW_NAMES[row]
        if text == "x":
            return (None,)
        try:
            value = int(text)
        except ValueError:
            raise DicewiseError(Message("row {row} cell {cell}: {entry} is neither a score nor x",
                                        row=_row(name), cell=i + 1, entry=repr(text))) from None
        if row < N_SCHOOL:
            face = row + 1
            if value % face or not 0 <= value // face <= 5:
                raise DicewiseError(Message("row {row} cell {cell}: {value} is not a sum of 0..5 "
                                            "dice showing {face}", row=_row(name), cell=i + 1,
                                            value=value, face=face))
            return (3 * face, value // face)
        return (value,)

    def _settle_premiums(self, sheet: SheetState, rows, premiums, taken_rows=()) -> SheetState:
        """Check typed premiums and apply erased ones ('x') to the standing sum."""
        erased = 0
        # A School row that rivals took (``taken=``) is not clean but has no cross: no erasure.
        any_school_cross = any(r < N_SCHOOL and "x" in cells[:self.columns]
                               for r, cells in rows.items())
        for r, text in premiums.items():
            name = ROW_NAMES[r]
            cells = rows[r][:self.columns]
            if r in taken_rows:
                raise DicewiseError(Message("row {row}: a premium that cannot exist (rivals "
                                            "took it)", row=_row(name)))
            if not sheet.clean[r]:
                raise DicewiseError(Message("row {row}: a premium that cannot exist (the row has "
                                            "a cross)", row=_row(name)))
            last = 3 * (r + 1) if r < N_SCHOOL else int(cells[-1])
            if text == "x":
                if not (self.school_cross_erases and any_school_cross):
                    raise DicewiseError(Message("row {row}: an erased premium needs a School "
                                                "cross and school_cross_erases=true",
                                                row=_row(name)))
                erased += last
                continue
            try:
                value = int(text)
            except ValueError:
                raise DicewiseError(Message("row {row}: premium {entry} is neither a score nor x",
                                            row=_row(name), entry=repr(text))) from None
            if value != last:
                raise DicewiseError(Message("row {row}: a premium of {value} cannot exist (it "
                                            "equals the last cell's score, {last})",
                                            row=_row(name), value=value, last=last))
        if not erased:
            return sheet
        if sheet.standing >= erased:
            standing, banked = sheet.standing - erased, sheet.banked
        else:  # every School row is full: the premiums were banked
            standing, banked = sheet.standing, sheet.banked - erased
        return SheetState(sheet.filled, sheet.clean, sheet.reserve, sheet.column_clean,
                          standing, banked)


def format_sheet(game: PokerSchoolRules, history) -> str:
    """The notation of a sheet written by ``history`` = [(row, score or None, shown)], in order.

    A row whose premium a later School cross erased gets one more entry, ``x``, so that the
    notation reads back to the same points; premiums that stand are left out (the default).
    """
    cells: dict[int, list[str]] = {}
    earned: set[int] = set()
    erased: set[int] = set()
    for row, score, shown in history:
        if score is None:
            text = "x"
            if row < N_SCHOOL and game.school_cross_erases:
                erased |= earned
        elif row < N_SCHOOL:
            text = str(shown * (row + 1))
        else:
            text = str(score)
        cells.setdefault(row, []).append(text)
        if len(cells[row]) == game.columns and "x" not in cells[row]:
            earned.add(row)
    return ",".join(f"{ROW_NAMES[r]}={'/'.join(c + ['x'] * (r in erased))}"
                    for r, c in sorted(cells.items()))
