"""American Yahtzee with its four readings of the bonus and joker rules (RULES.md).

Extra state: the upper sum capped at 63, and whether the Yahtzee box holds 50 (which
arms the 100-point bonus for every further Yahtzee).  Published optima: joker=free
254.5896095 (Verhoeff), forced 254.5877287, none 253.9702412, off 245.8707745.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message
from .. import dice
from ..category import Category, CategoryRules, Write
from ..options import option
from ..scoring import has_faces, has_kind, is_full_house, total
from ._upper import UPPER, UPPER_GOAL, UPPER_REACHABLE, UPPER_STATES, upper_sum_of_sheet, upper_write

UPPER_BONUS = 35
YAHTZEE_BONUS = 100
THREE_OF_A_KIND, FOUR_OF_A_KIND, FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT, YAHTZEE, CHANCE = \
    range(6, 13)
JOKER_VALUE = {FULL_HOUSE: 25, SMALL_STRAIGHT: 30, LARGE_STRAIGHT: 40}
LOWER = range(6, 13)

_IS_YAHTZEE = dice.ROLLS.max(axis=1) == 5
_YAHTZEE_ROWS = np.array([dice.roll_index([5 * (f == g) for g in range(6)]) for f in range(6)])


def _small_straight(c):
    return has_faces(c, (1, 2, 3, 4)) | has_faces(c, (2, 3, 4, 5)) | has_faces(c, (3, 4, 5, 6))


@dataclass(frozen=True)
class Yahtzee(CategoryRules):
    name = "yahtzee"
    title = "American Yahtzee (reference game)"
    example_sheet = "ones=3,small_straight=30,yahtzee=50,yahtzee_bonus=1"  # `dicewise rules`
    n_extra = 2 * UPPER_STATES  # upper sum + 64 × (Yahtzee box holds 50)
    sheet_counters = ("yahtzee_bonus",)

    joker: str = option("free", ("free", "forced", "none", "off"),
                        "extra-Yahtzee rules: free (Verhoeff) | forced (official) | "
                        "none (bonus, no joker) | off (neither)")

    @property
    def categories(self):
        return UPPER + (
            Category("three_of_a_kind", lambda c, k: total(c) * has_kind(c, 3)),
            Category("four_of_a_kind", lambda c, k: total(c) * has_kind(c, 4)),
            Category("full_house", lambda c, k: 25 * is_full_house(c)),
            Category("small_straight", lambda c, k: 30 * _small_straight(c)),
            Category("large_straight", lambda c, k: 40 * (has_faces(c, (1, 2, 3, 4, 5))
                                                          | has_faces(c, (2, 3, 4, 5, 6)))),
            Category("yahtzee", lambda c, k: 50 * has_kind(c, 5)),
            Category("chance", lambda c, k: total(c)),
        )

    @property
    def _bonus_armed(self) -> bool:
        return self.joker != "off"

    def write(self, c, roll_number, masks, extras):
        upper, armed = extras % UPPER_STATES, extras // UPPER_STATES
        points = self.base_points[c, 0][:, None]
        yahtzee_filled = (masks >> YAHTZEE) & 1 == 1
        special = None
        if yahtzee_filled.any():
            # Only the six five-of-a-kind rolls score differently from the plain boxes.
            sp_points = np.repeat(points[_YAHTZEE_ROWS], len(masks), axis=1)
            face_box_filled = (masks[None, :] >> np.arange(6)[:, None]) & 1 == 1  # (6, B)
            if c in JOKER_VALUE and self.joker in ("free", "forced"):
                sp_points[yahtzee_filled[None, :] & face_box_filled] = JOKER_VALUE[c]
            sp_bonus = None
            if self._bonus_armed:
                sp_bonus = np.broadcast_to(YAHTZEE_BONUS * (armed[None, :] == 1), sp_points.shape)
                sp_points = sp_points + sp_bonus
            legal = None
            if self.joker == "forced":
                legal = self._forced_placement(c, masks, yahtzee_filled, face_box_filled)
            special = (_YAHTZEE_ROWS, sp_points, sp_bonus, legal)
        if c < 6:
            w = upper_write(c + 1, masks, upper, points)
            return Write(w.points, w.next_extra + UPPER_STATES * armed[None, :], w.roll_class,
                         special=special)
        if c == YAHTZEE and self._bonus_armed:
            return Write(points, np.stack([extras, upper + UPPER_STATES]), _IS_YAHTZEE.astype(np.int64),
                         special=special)
        return Write(points, extras[None, :], np.zeros(dice.N_ROLLS, dtype=np.int64), special=special)

    def _forced_placement(self, c, masks, yahtzee_filled, face_box_filled):
        """The official rule, for the six five-of-a-kind rolls (6, B): a further Yahtzee goes
        to its face's box, else to a lower box, else to any box."""
        lower_open = ((masks[:, None] >> np.array(LOWER)[None, :]) & 1 == 0).any(axis=1)
        if c < 6:
            allowed = (np.arange(6)[:, None] == c) | (face_box_filled & ~lower_open[None, :])
        else:
            allowed = face_box_filled
        return ~yahtzee_filled[None, :] | allowed

    final_bonus_kept = True  # the upper sum never falls: the bonus, once earned, stays

    def final_bonus(self, extras):
        return np.where(extras % UPPER_STATES >= UPPER_GOAL, UPPER_BONUS, 0)

    def reachable_extras(self, masks):
        upper = UPPER_REACHABLE[masks & 63]
        armed_ok = ((masks >> YAHTZEE) & 1 == 1) & self._bonus_armed
        return np.concatenate([upper, upper & armed_ok[:, None]], axis=1)

    def sheet_extra(self, scores, counters):
        armed = self._bonus_armed and scores.get(YAHTZEE) == 50
        bonus = counters.get("yahtzee_bonus", 0)
        if bonus:
            if not armed:
                raise DicewiseError(Message("yahtzee_bonus needs yahtzee=50 (and a joker rule "
                                            "other than off)"))
            if bonus > len(scores) - 1:
                raise DicewiseError(Message("yahtzee_bonus={bonus}: each bonus Yahtzee fills "
                                            "another box, and only {filled} are filled",
                                            bonus=bonus, filled=len(scores) - 1))
            hosts = sum(self._could_hold_a_yahtzee(c, s, scores) for c, s in scores.items())
            if bonus > hosts:
                raise DicewiseError(Message(
                    "yahtzee_bonus={bonus}: each bonus Yahtzee fills another box with what five "
                    "of a kind scores there (boxes that hold such a score: {hosts})",
                    bonus=bonus, hosts=hosts))
        return upper_sum_of_sheet(scores) + UPPER_STATES * armed

    def _could_hold_a_yahtzee(self, c: int, value: int, scores: dict) -> bool:
        """Whether box ``c`` holding ``value`` can be where a bonus Yahtzee went: what five of
        a kind scores there under the joker rule, with the upper box the joker (or the forced
        placement) needs filled, as it stays once filled.  Necessary, not sufficient: the
        sheet does not say in which order its boxes were filled."""
        upper_filled = any(f in scores for f in range(6))
        if c < 6:  # its own face's five, or another face's scratch
            return value in (0, 5 * (c + 1))
        if c in (THREE_OF_A_KIND, FOUR_OF_A_KIND, CHANCE):
            face = value // 5 if value % 5 == 0 and 1 <= value // 5 <= 6 else None
            return face is not None and (self.joker != "forced" or face - 1 in scores)
        if c in JOKER_VALUE:
            if value == JOKER_VALUE[c]:
                return self.joker in ("free", "forced") and upper_filled
            return value == 0 and self.joker != "forced"  # no joker yet: it scores nothing
        return False

    def possible_scores(self, c):
        """What the dice give (and a joker): a box scores 0 only where they do not qualify, so
        Chance, which any dice make, never holds 0."""
        extra = {JOKER_VALUE[c]} if c in JOKER_VALUE and self.joker in ("free", "forced") else set()
        return frozenset(int(p) for p in np.unique(self.base_points[c])) | extra

    def sheet_points(self, scores, counters):
        return sum(scores.values()) + YAHTZEE_BONUS * counters.get("yahtzee_bonus", 0)

