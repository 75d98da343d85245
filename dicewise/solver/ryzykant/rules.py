"""Ryzykant, the 2+2+1 game (RULES.md section 4): the rules, as pure numpy functions.

Every roll of five dice is split into two pairs and a fifth die.  Each pair's sum (2..12)
gets a mark in the upper table; the fifth die's face gets a mark in the lower table, where
at most three faces may ever be used.  The game ends after the roll that puts the
``end_marks``-th mark at a fifth-die face.  Marks of a sum score in boxes of five whose
value doubles box after box; an unfinished box costs its missing marks.

This module holds only the rules: scoring, the distinct splits of each of the 252 rolls,
their legality for a lower table, batched moves for many games at once, and the sheet
notation.  The solvers live in ``ryzykant_exact`` (reduced games, exactly) and
``ryzykant_approx`` (the full game, approximately).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message
from .. import dice
from ..advice import check_dice
from ..options import option, options_of, parse_options, validate_options

#: Pair sums 2..12 are stored at index ``sum - 2``.
SUMS = np.arange(2, 13)
N_SUMS = 11
#: Points per mark of a sum's first box (RULES.md section 4): v(2..12).
VALUES = np.array([600, 300, 200, 150, 120, 100, 120, 150, 200, 300, 600], dtype=np.int64)
BOX = 5
#: At most this many distinct fifth-die faces may ever be used.
LOWER_FACES = 3
#: Most distinct splits (by effect) of one roll.
MAX_SPLITS = 15


@dataclass(frozen=True)
class RyzykantRules:
    """The ruleset and its options (RULES.md section 4)."""

    name: ClassVar[str] = "ryzykant"
    title: ClassVar[str] = "Ryzykant, the 2+2+1 game, from the Polish seed"
    exact: ClassVar[bool] = False

    end_marks: int = option(10, minimum=1, maximum=10,
                            help="marks at one fifth-die face that end the game")
    puscioch: str = option("score", choices=("score", "reroll"),
                           help="a roll with none of the three chosen faces: 'score' (the rule) "
                                "or 'reroll' (reduced game: thrown again, nothing marked)")

    def __post_init__(self):
        validate_options(self)

    @property
    def options(self) -> dict:
        return options_of(self)

    @property
    def max_lower_marks(self) -> int:
        """Most fifth-die marks a game can hold: three faces one short of the end, plus one."""
        return LOWER_FACES * (self.end_marks - 1) + 1


def ruleset_from(pairs) -> RyzykantRules:
    """The ruleset for a list of ``KEY=VALUE`` option strings."""
    return RyzykantRules(**parse_options(RyzykantRules, pairs))


# -- scoring ------------------------------------------------------------------------------

def box_score(marks, value):
    """Points of one sum with ``marks`` marks and first-box value ``value`` (RULES.md 4).

    With k = marks div 5 full boxes and r = marks mod 5:
    5·v·(2^k − 1) − (r > 0 ? (5 − r)·v·2^k : 0).
    """
    marks = np.asarray(marks, dtype=np.int64)
    k, r = np.divmod(marks, BOX)
    scale = np.left_shift(np.int64(1), k)
    return BOX * value * (scale - 1) - np.where(r > 0, (BOX - r) * value * scale, 0)


def score(upper) -> np.ndarray:
    """Total score of upper tables ``(..., 11)`` of mark counts (an int64 array)."""
    return box_score(upper, VALUES).sum(axis=-1)


def score_table(max_marks: int) -> np.ndarray:
    """``(11, max_marks + 1)``: points of sum index s with n marks, as float64."""
    return box_score(np.arange(max_marks + 1)[None, :], VALUES[:, None]).astype(np.float64)


# -- splits --------------------------------------------------------------------------------

_PAIRINGS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))


def splits_of_dice(faces) -> list[tuple[tuple[int, int], tuple[int, int], int]]:
    """The distinct splits of five dice by effect: ((pair), (pair), fifth), sorted.

    Two splits have the same effect when they mark the same two sums and the same fifth face;
    one representative (pairs as faces, low pair sum first) is kept for each effect.
    """
    faces = sorted(int(f) for f in faces)
    seen = {}
    for i in range(5):
        rest = faces[:i] + faces[i + 1:]
        for (p, q), (s, t) in _PAIRINGS:
            one, two = tuple(sorted((rest[p], rest[q]))), tuple(sorted((rest[s], rest[t])))
            one, two = sorted((one, two), key=lambda pr: (sum(pr), pr))
            key = (sum(one), sum(two), faces[i])
            if key not in seen or (one, two) < seen[key][:2]:
                seen[key] = (one, two, faces[i])
    return [seen[k] for k in sorted(seen)]


def _split_tables():
    a = np.zeros((dice.N_ROLLS, MAX_SPLITS), dtype=np.int64)
    b = np.zeros_like(a)
    f = np.zeros_like(a)
    pairs = np.zeros((dice.N_ROLLS, MAX_SPLITS, 4), dtype=np.int64)
    n = np.zeros(dice.N_ROLLS, dtype=np.int64)
    for r, counts in enumerate(dice.ROLLS):
        splits = splits_of_dice(dice.faces_of(counts))
        n[r] = len(splits)
        for j, (one, two, fifth) in enumerate(splits):
            a[r, j], b[r, j], f[r, j] = sum(one), sum(two), fifth
            pairs[r, j] = one + two
    valid = np.arange(MAX_SPLITS)[None, :] < n[:, None]
    # In a puścioch the fifth die marks nothing: splits differing only by it are the same move.
    first_ab = valid.copy()
    for r in range(dice.N_ROLLS):
        seen = set()
        for j in range(n[r]):
            if (a[r, j], b[r, j]) in seen:
                first_ab[r, j] = False
            seen.add((a[r, j], b[r, j]))
    return a, b, f, pairs, n, valid, first_ab


#: Per roll and split slot: the two pair sums (a <= b), the fifth face (1..6), the pairs'
#: faces, how many slots are used, which are used, and which are first for their two sums.
SPLIT_A, SPLIT_B, SPLIT_F, SPLIT_PAIRS, SPLIT_N, SPLIT_VALID, SPLIT_FIRST_AB = _split_tables()
for _arr in (SPLIT_A, SPLIT_B, SPLIT_F, SPLIT_PAIRS, SPLIT_N, SPLIT_VALID, SPLIT_FIRST_AB):
    _arr.setflags(write=False)
#: ROLL_FACES[r, f]: whether roll r shows face f + 1.
ROLL_FACES = dice.ROLLS > 0


def legal_splits(lower, rolls):
    """Which split slots the rules allow, for a batch of lower tables and rolls.

    Args:
        lower: ``(G, 6)`` marks per fifth-die face.
        rolls: ``(G,)`` roll indices.

    Returns:
        ``(legal (G, 15) bool, puscioch (G,) bool)``.  With fewer than three faces chosen any
        die may be the fifth; with three chosen and one of them in the roll the fifth must be
        a chosen face; with three chosen and none in the roll it is a puścioch: any split,
        nothing marked below (RULES.md 4).
    """
    chosen = np.asarray(lower) > 0
    n_chosen = chosen.sum(axis=1)
    shown = ROLL_FACES[rolls]
    pusc = (n_chosen >= LOWER_FACES) & ~(chosen & shown).any(axis=1)
    fifth = SPLIT_F[rolls] - 1
    fifth_chosen = np.take_along_axis(chosen, np.maximum(fifth, 0), axis=1)
    free = (n_chosen < LOWER_FACES)[:, None]
    legal = SPLIT_VALID[rolls] & (free | fifth_chosen)
    legal = np.where(pusc[:, None], SPLIT_FIRST_AB[rolls], legal)
    return legal, pusc


def apply_splits(ruleset: RyzykantRules, upper, lower, rolls, choice, pusc):
    """New upper and lower tables after split slot ``choice`` of each game, and its end flag.

    Arrays are not modified.  Returns ``(upper, lower, ended)``.
    """
    g = np.arange(len(rolls))
    a = SPLIT_A[rolls, choice] - 2
    b = SPLIT_B[rolls, choice] - 2
    f = SPLIT_F[rolls, choice] - 1
    upper = upper.copy()
    np.add.at(upper, (g, a), 1)
    np.add.at(upper, (g, b), 1)
    lower = lower.copy()
    lower[g, f] += np.where(pusc, 0, 1).astype(lower.dtype)
    ended = lower[g, f] >= ruleset.end_marks
    return upper, lower, ended


# -- positions and the sheet notation ------------------------------------------------------

@dataclass(frozen=True)
class Position:
    """A player's sheet between rolls: marks per pair sum and per fifth-die face."""

    upper: tuple[int, ...] = (0,) * N_SUMS
    lower: tuple[int, ...] = (0,) * 6

    @property
    def rolls(self) -> int:
        """Rolls played so far (each marks two pair sums)."""
        return sum(self.upper) // 2

    @property
    def puscioch(self) -> int:
        """Rolls that marked nothing below."""
        return self.rolls - sum(self.lower)

    @property
    def score(self) -> int:
        """The sheet's score if the game ended now."""
        return int(score(np.array(self.upper)))

    @property
    def sheet(self) -> str:
        return format_sheet(self.upper)

    @property
    def fifth(self) -> str:
        return format_fifth(self.lower)


def format_sheet(upper) -> str:
    """Upper table as ``"6=4,7=7,8=3"`` (pair sum = marks; sums without marks left out)."""
    return ",".join(f"{s}={int(n)}" for s, n in zip(SUMS, upper) if n)


def format_fifth(lower) -> str:
    """Lower table as ``"2=5,5=3"`` (face = marks)."""
    return ",".join(f"{f}={int(n)}" for f, n in zip(range(1, 7), lower) if n)


def _parse_marks(text: str | None, what: str, keys: range) -> dict[int, int]:
    out: dict[int, int] = {}
    if text is None or not text.strip():
        return out
    sums = what == "sheet"
    form, what = (Message("SUM"), Message("sheet")) if sums else (Message("FACE"), Message("fifth"))
    for item in text.split(","):
        key, sep, marks = item.partition("=")
        try:
            if not sep:
                raise ValueError
            k, n = int(key), int(marks)
        except ValueError:
            raise DicewiseError(Message("{what} entry {entry} is not of the form {form}=MARKS",
                                        what=what, entry=repr(item.strip()), form=form)) from None
        if k not in keys:
            raise DicewiseError(Message("{what} entry {entry}: {why}", what=what,
                                        entry=repr(item.strip()),
                                        why=Message("pair sums are 2..12") if sums
                                        else Message("faces are 1..6")))
        if n < 0:
            raise DicewiseError(Message("{what} entry {entry}: marks cannot be negative",
                                        what=what, entry=repr(item.strip())))
        if k in out:
            raise DicewiseError(Message("{what} gives {key} twice", what=what, key=k))
        out[k] = n
    return out


def parse_position(ruleset: RyzykantRules, sheet: str | None = None, fifth: str | None = None) -> Position:
    """Read the sheet notation and check that the position can occur before a roll.

    Raises DicewiseError for an entry that does not parse, a fourth fifth-die face, a face at
    or past ``end_marks`` (the game is over), an odd number of pair marks, more fifth-die
    marks than rolls, rolls without a fifth-die mark while fewer than three faces are
    chosen (a puścioch needs three), or fewer marks than those rolls made on the sums of the
    faces not chosen (a puścioch shows none of the chosen faces, so both its pairs are of the
    other three).
    """
    return check_position(ruleset, read_position(sheet, fifth))


def read_position(sheet: str | None = None, fifth: str | None = None) -> Position:
    """The marks of the sheet notation, read but not checked against the rules."""
    up = _parse_marks(sheet, "sheet", range(2, 13))
    lo = _parse_marks(fifth, "fifth", range(1, 7))
    return Position(tuple(up.get(s, 0) for s in range(2, 13)),
                    tuple(lo.get(f, 0) for f in range(1, 7)))


def check_position(ruleset: RyzykantRules, pos: Position) -> Position:
    """``pos`` if it is a position between rolls of an unfinished game, else DicewiseError."""
    faces = [f for f in range(1, 7) if pos.lower[f - 1] > 0]
    if len(faces) > LOWER_FACES:
        raise DicewiseError(Message("fifth-die faces {faces} are {n} faces; at most {most} may "
                                    "be used", faces=", ".join(map(str, faces)), n=len(faces),
                                    most=LOWER_FACES))
    over = [f for f in faces if pos.lower[f - 1] >= ruleset.end_marks]
    if over:
        f = over[0]
        raise DicewiseError(Message("face {face} has {marks} marks: the game is over when a face "
                                    "reaches {end} (end_marks={end})", face=f,
                                    marks=pos.lower[f - 1], end=ruleset.end_marks))
    total = sum(pos.upper)
    if total % 2:
        raise DicewiseError(Message("the sheet has {total} pair marks; every roll adds two, so "
                                    "the total must be even", total=total))
    if sum(pos.lower) > pos.rolls:
        raise DicewiseError(Message("the sheet records {rolls} rolls ({total} pair marks) but "
                                    "{fifth} fifth-die marks; each roll adds at most one",
                                    rolls=pos.rolls, total=total, fifth=sum(pos.lower)))
    if pos.puscioch and len(faces) < LOWER_FACES:
        raise DicewiseError(Message("the sheet records {rolls} rolls but {fifth} fifth-die "
                                    "marks; a roll without one (puścioch) needs three chosen "
                                    "faces", rolls=pos.rolls, fifth=sum(pos.lower)))
    if pos.puscioch:
        # RULES.md: a puścioch shows none of the three chosen faces, so both its pairs are of
        # the other three; the marks on their sums hold at least two for each puścioch
        others = [f for f in range(1, 7) if f not in faces]
        sums = sorted({a + b for a in others for b in others})
        marked = sum(pos.upper[s - 2] for s in sums)
        if marked < 2 * pos.puscioch:
            raise DicewiseError(Message(
                "{n} of the sheet's rolls had no fifth-die mark (puścioch), so their pairs are "
                "of the faces not chosen ({faces}); but the sums those make ({sums}) have "
                "{marked} marks, not at least {need}", n=pos.puscioch,
                faces=", ".join(map(str, others)), sums=", ".join(map(str, sums)),
                marked=marked, need=2 * pos.puscioch))
    if pos.puscioch and ruleset.puscioch == "reroll":
        raise DicewiseError(Message("with puscioch=reroll every roll marks a fifth die, but the "
                                    "sheet records {rolls} rolls and {fifth} fifth-die marks",
                                    rolls=pos.rolls, fifth=sum(pos.lower)))
    return pos


def parse_dice(values) -> int:
    """The roll index of five dice faces 1..6 (DicewiseError otherwise)."""
    return dice.roll_index(dice.counts_of(check_dice(values)))


@dataclass(frozen=True)
class Move:
    """One distinct split of a roll as the rules allow it in a position."""

    slot: int
    pairs: tuple[tuple[int, int], tuple[int, int]]
    fifth: int
    sums: tuple[int, int]
    puscioch: bool
    ends: bool


def moves(ruleset: RyzykantRules, pos: Position, roll: int) -> list[Move]:
    """The legal distinct splits of roll ``roll`` in position ``pos``."""
    lower = np.array([pos.lower])
    legal, pusc = legal_splits(lower, np.array([roll]))
    out = []
    for j in np.flatnonzero(legal[0]):
        p = SPLIT_PAIRS[roll, j]
        f = int(SPLIT_F[roll, j])
        ends = (not pusc[0]) and pos.lower[f - 1] + 1 >= ruleset.end_marks
        out.append(Move(int(j), ((int(p[0]), int(p[1])), (int(p[2]), int(p[3]))), f,
                        (int(SPLIT_A[roll, j]), int(SPLIT_B[roll, j])), bool(pusc[0]), bool(ends)))
    return out


def play(ruleset: RyzykantRules, pos: Position, roll: int, slot: int) -> tuple[Position, bool]:
    """The position after playing split slot ``slot`` of roll ``roll``, and whether it ended."""
    legal, pusc = legal_splits(np.array([pos.lower]), np.array([roll]))
    if not legal[0, slot]:
        raise DicewiseError(f"split {slot} of this roll is not legal here")
    up, lo, ended = apply_splits(ruleset, np.array([pos.upper]), np.array([pos.lower]),
                                 np.array([roll]), np.array([slot]), pusc)
    return Position(tuple(int(x) for x in up[0]), tuple(int(x) for x in lo[0])), bool(ended[0])


def all_brute_force_effects(faces) -> set[tuple[int, int, int]]:
    """Every (low sum, high sum, fifth) reachable by reading ordered dice as p p q q f.

    The slow, obviously-correct reading the split tables are tested against.
    """
    out = set()
    for d in itertools.permutations(faces):
        s1, s2 = d[0] + d[1], d[2] + d[3]
        out.add((min(s1, s2), max(s1, s2), d[4]))
    return out
