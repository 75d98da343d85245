"""poker-school's contested prizes at a table of several players (RULES.md section 3).

A row's premium and a column's 60 go to the first player who earns them; every other
player's premium cell in that row gets a cross that erases nothing, and the others can no
longer earn that column's 60.  Owners are seat numbers, -1 for a prize nobody took yet.

The array functions work on one table (owners ``(15,)`` / ``(C,)``) or on a batch of
tables (``(G, 15)`` / ``(G, C)``), so a simulator of N-player games uses them unchanged.
A forfeited prize is written into a sheet as the rules already read it: a row that is not
``clean`` can earn no premium, a column that is not ``column_clean`` earns no 60 — so the
sheet's points, its final score and every evaluator (which values such a sheet's prizes as
lost) need nothing new.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message, box_listing, canonical_box, notation_word
from .rules import COLUMN_BONUS, N_ROWS, ROW_INDEX, ROW_NAMES, SheetState

NOBODY = -1


# -- arrays: one table or a batch of tables ---------------------------------------------------

def earned_premiums(filled: np.ndarray, clean: np.ndarray, columns: int) -> np.ndarray:
    """(..., 15) whether each row's premium is earned: all its cells hold scores."""
    return (np.asarray(filled) == columns) & np.asarray(clean, bool)


def completed_columns(filled: np.ndarray, column_clean: np.ndarray) -> np.ndarray:
    """(..., C) whether each column is filled in all 15 rows with no cross."""
    column_clean = np.asarray(column_clean, bool)
    columns = column_clean.shape[-1]
    full = (np.asarray(filled)[..., :, None] > np.arange(columns)).all(axis=-2)
    return full & column_clean


def certain_points(sheet: SheetState) -> int:
    """The sheet's points with each column's 60 once it is certain: the column full with no
    cross (a column a rival took first is no longer clean here).  A full sheet's final score."""
    return int(sheet.points + COLUMN_BONUS * completed_columns(sheet.filled,
                                                               sheet.column_clean).sum())


def claim(owner: np.ndarray, earned: np.ndarray, seat) -> np.ndarray:
    """The owners after ``seat`` (scalar or (G,)) earned ``earned``: unowned prizes become its."""
    owner = np.asarray(owner)
    seat = np.asarray(seat)
    if seat.ndim:
        seat = seat.reshape(seat.shape + (1,) * (owner.ndim - seat.ndim))
    return np.where((owner == NOBODY) & np.asarray(earned, bool), seat, owner)


def forfeited(owner: np.ndarray, seat) -> np.ndarray:
    """Whether each prize is lost to ``seat``: another seat took it."""
    owner = np.asarray(owner)
    seat = np.asarray(seat)
    if seat.ndim:
        seat = seat.reshape(seat.shape + (1,) * (owner.ndim - seat.ndim))
    return (owner != NOBODY) & (owner != seat)


# -- one table ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Prizes:
    """Who took each row's premium and each column's 60 at one table (NOBODY: not yet)."""

    premium_owner: tuple[int, ...]
    column_owner: tuple[int, ...]

    @classmethod
    def none(cls, columns: int) -> "Prizes":
        return cls((NOBODY,) * N_ROWS, (NOBODY,) * columns)

    def lost_to(self, seat: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(rows, columns) whose prize another seat took."""
        rows = np.flatnonzero(forfeited(np.array(self.premium_owner), seat))
        cols = np.flatnonzero(forfeited(np.array(self.column_owner), seat))
        return tuple(int(r) for r in rows), tuple(int(c) for c in cols)

    def to_json(self) -> dict:
        return {"premiums": {ROW_NAMES[r]: s for r, s in enumerate(self.premium_owner)
                             if s != NOBODY},
                "columns": {str(j + 1): s for j, s in enumerate(self.column_owner)
                            if s != NOBODY}}


def forfeit(sheet: SheetState, rows=(), columns=()) -> SheetState:
    """``sheet`` with the premiums of ``rows`` and the 60s of ``columns`` lost to rivals.

    The premium cell's cross erases nothing: cells, reserves and points are untouched.  A
    premium the sheet already earned cannot be lost (its owner was first).
    """
    clean = list(sheet.clean)
    column_clean = list(sheet.column_clean)
    for r in rows:
        clean[r] = False
    for j in columns:
        column_clean[j] = False
    return replace(sheet, clean=tuple(clean), column_clean=tuple(column_clean))


def settle(sheets: list[SheetState], prizes: Prizes, seat: int,
           columns: int) -> tuple[list[SheetState], Prizes]:
    """After ``seat`` wrote: it takes every prize it earned first; the others' sheets lose them."""
    mine = sheets[seat]
    premium_owner = claim(np.array(prizes.premium_owner),
                          earned_premiums(mine.filled, mine.clean, columns), seat)
    column_owner = claim(np.array(prizes.column_owner),
                         completed_columns(mine.filled, mine.column_clean), seat)
    new = Prizes(tuple(int(s) for s in premium_owner), tuple(int(s) for s in column_owner))
    out = []
    for other, sheet in enumerate(sheets):
        rows, cols = new.lost_to(other)
        out.append(sheet if other == seat or not (rows or cols) else forfeit(sheet, rows, cols))
    return out, new


# -- the sheet notation ---------------------------------------------------------------------

#: The sheet entry that lists what rivals took: ``taken=fives/pair/column2``.
TAKEN = "taken"


def taken_entry(rows, columns) -> str:
    """The ``taken=...`` entry for premiums of ``rows`` and 60s of ``columns`` lost to rivals."""
    names = [ROW_NAMES[r] for r in sorted(rows)] + [f"column{j + 1}" for j in sorted(columns)]
    return f"{TAKEN}={'/'.join(names)}" if names else ""


def parse_taken(text: str, columns: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(rows, columns) of a ``taken`` entry's value (``fives/pair/column2``)."""
    rows, cols = [], []
    for name in (n.strip().lower().replace("-", "_") for n in text.split("/")):
        if not name:
            continue
        row = canonical_box("poker-school", ROW_NAMES, name)  # as the sheet names rows
        name = notation_word("poker-school", name) or name  # column2 shown as "kolumna 2"
        if name.startswith("column") and name[6:].isdigit():
            j = int(name[6:]) - 1
            if not 0 <= j < columns:
                raise DicewiseError(Message("taken: there is no {name} (columns 1..{n})",
                                            name=name, n=columns))
            cols.append(j)
        elif row is not None:
            rows.append(ROW_INDEX[row])
        else:
            raise DicewiseError(Message("taken: {name} is neither a row nor column1..{n} (rows: "
                                        "{rows})", name=repr(name), n=columns,
                                        rows=box_listing("poker-school", ROW_NAMES)))
    return tuple(sorted(set(rows))), tuple(sorted(set(cols)))


def split_taken(text: str | None, columns: int) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """A sheet's text without its ``taken=`` entry, and the rows and columns that entry lists."""
    kept, rows, cols, seen = [], (), (), False
    for part in (text or "").split(","):
        name, sep, value = part.partition("=")
        # the entry as a sheet shows it in any language (``взяли соперники=пара``)
        if sep and notation_word("poker-school", name) == TAKEN:
            if seen:  # a second entry would replace the first
                raise DicewiseError(Message("taken= given twice (list every prize in one "
                                            "entry: taken=fives/column2)"))
            rows, cols = parse_taken(value, columns)
            seen = True
        elif part.strip():
            kept.append(part)
    return ",".join(kept), rows, cols
