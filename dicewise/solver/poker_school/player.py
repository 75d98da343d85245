"""A player's poker-school sheet at the table, with the prizes rivals took (RULES.md section 3).

Writes go through ``PokerSchoolRules.apply`` (reserves, premiums, the School cross's erasure);
what rivals took first (``contest``) is forfeited on the sheet as a cross that erases
nothing.  The text is the ``advise --sheet`` notation, ``taken=`` included, and reads back
to the same points.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...i18n import Box, Message
from .. import dice
from ..player_sheet import PlayerSheet
from ..protocol import BadAction
from . import contest
from .rules import (N_SCHOOL, ROW_INDEX, ROW_NAMES, SEED_MINIMUMS, PokerSchoolRules, SheetState,
                    figure_points, format_sheet)


@dataclass(frozen=True)
class PokerSchoolSheet(PlayerSheet):
    """The writes in order (row, score or None, dice of the face shown) and the prizes lost."""

    game: PokerSchoolRules
    state: SheetState = field(default=None)
    history: tuple = ()
    lost_rows: tuple[int, ...] = ()
    lost_columns: tuple[int, ...] = ()

    def __post_init__(self):
        if self.state is None:
            object.__setattr__(self, "state", self.game.empty())

    @property
    def text(self) -> str:
        cols = self.game.columns
        parts = []
        for part in filter(None, format_sheet(self.game, self.history).split(",")):
            name, _, cells = part.partition("=")
            entries = cells.split("/")
            if ROW_INDEX[name] in self.lost_rows and len(entries) > cols:
                entries = entries[:cols]  # a premium lost to a rival was never earned
            parts.append(f"{name}={'/'.join(entries)}")
        taken = contest.taken_entry(self.lost_rows, self.lost_columns)
        return ",".join(parts + ([taken] if taken else []))

    @property
    def done(self) -> bool:
        return not self.state.open_rows(self.game.columns)

    @property
    def points(self) -> int:
        """Points now, each column's 60 counted as soon as it is certain (``contest``)."""
        return contest.certain_points(self.state)

    def to_json(self) -> dict:
        """The points no cell shows: the premiums counted (standing ones included) and each
        column's 60 once certain, where there are any."""
        bonuses = self.points - self.state.points
        premiums = self.state.points - sum(score or 0 for _, score, _ in self.history)
        return {k: v for k, v in (("premiums", premiums), ("column_bonuses", bonuses)) if v}

    def _scores(self, faces, roll: int, row: int) -> int | None:
        """Points a write in ``row`` scores with these dice, None where they do not qualify."""
        counts = dice.counts_of(faces)
        if row < N_SCHOOL:
            ok = counts[row] + self.state.reserve[row] >= 3
            return 3 * (row + 1) if ok else None
        points = int(self.game.base_points[row, roll - 1, dice.roll_index(counts)])
        return points or None

    def legal(self, faces, roll: int) -> list[dict]:
        out = []
        for r in self.state.open_rows(self.game.columns):
            if self._scores(faces, roll, r) is not None:
                out.append({"write": ROW_NAMES[r]})
            out.append({"cross": ROW_NAMES[r]})
        return out

    def refusal(self, action: dict, faces, roll: int):
        """A row with no open cell, or dice that do not score the row written."""
        if not (isinstance(action, dict) and len(action) == 1):
            return None
        ((kind, name),) = action.items()
        row = ROW_INDEX.get(name) if isinstance(name, str) else None
        if kind not in ("write", "cross") or row is None:
            return None
        if row not in self.state.open_rows(self.game.columns):
            return Message("{row} has no open cell", row=Box("poker-school", name))
        if kind == "write" and self._scores(faces, roll, row) is None:
            return self._unscored(faces, row)
        return None

    def _unscored(self, faces, row: int) -> Message:
        """Which rule keeps these dice out of ``row``: a School row's three dice of its face,
        a figure's minimum (RULES.md section 3), or a figure the dice do not make."""
        box = Box("poker-school", ROW_NAMES[row])
        counts = dice.counts_of(faces)
        if row < N_SCHOOL:
            return Message("{row} needs three dice showing {face}, the reserve counted (here "
                           "{n}): cross it, or write another row", row=box, face=row + 1,
                           n=int(counts[row]) + self.state.reserve[row])
        made = int(figure_points(counts, ROW_NAMES[row], "none")[0])
        minimum = SEED_MINIMUMS.get(ROW_NAMES[row]) if self.game.minimums == "seed" else None
        if made and minimum is not None and made < minimum:
            return Message("{row} needs at least {minimum} points before any doubling (these "
                           "dice make {points}): cross it, or write another row", row=box,
                           minimum=minimum, points=made)
        return Message("the dice do not score {row}: cross it, or write another row", row=box)

    def write(self, action: dict, faces, roll: int) -> "PokerSchoolSheet":
        (kind, name), = action.items()
        row = ROW_INDEX.get(name)
        open_rows = self.state.open_rows(self.game.columns)
        if kind not in ("write", "cross") or row is None or row not in open_rows:
            allowed = ", ".join(ROW_NAMES[r] for r in open_rows)
            raise BadAction(f"cannot {kind} {name!r} now (open rows: {allowed})")
        shown = int(dice.counts_of(faces)[row]) if row < N_SCHOOL else None
        score = None
        if kind == "write":
            score = self._scores(faces, roll, row)
            if score is None:
                raise BadAction(f"the dice {' '.join(map(str, faces))} do not score {name} "
                                "(cross it instead)")
        state = self.game.apply(self.state, row, score, shown)
        return replace(self, state=state, history=self.history + ((row, score, shown),))

    def forfeit(self, rows, columns) -> "PokerSchoolSheet":
        """This sheet with the prizes of ``rows`` and ``columns`` lost to rivals."""
        rows = tuple(sorted(set(self.lost_rows) | set(rows)))
        columns = tuple(sorted(set(self.lost_columns) | set(columns)))
        return replace(self, state=contest.forfeit(self.state, rows, columns), lost_rows=rows,
                       lost_columns=columns)


def settle(rules: PokerSchoolRules, sheets: list, prizes: contest.Prizes, mover: int):
    """After ``mover`` wrote: the prizes it earned first are its; the others' sheets lose them."""
    states, prizes = contest.settle([s.state for s in sheets], prizes, mover, rules.columns)
    out = []
    for seat, sheet in enumerate(sheets):
        rows, cols = prizes.lost_to(seat)
        new_rows, new_cols = set(rows) - set(sheet.lost_rows), set(cols) - set(sheet.lost_columns)
        out.append(sheet.forfeit(new_rows, new_cols) if new_rows or new_cols else sheet)
    return out, prizes
