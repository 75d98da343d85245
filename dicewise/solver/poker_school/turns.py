"""Poker-school turns for many sheets at once: sheet batches, evaluators, the turn and play.

Every policy of ``poker-school`` (exact, approximate, greedy) is the same thing: a value of
the sheet after a write (an *evaluator*) plus the exact within-turn solver
(``turn.solve_turn``).  This module holds that common part:

* ``Batch``: B sheets as dense arrays (filled cells, clean rows, reserves, clean columns,
  standing premiums, banked points), and ``apply_writes`` to write one cell in each;
* evaluators: ``row_options`` gives, for one row, the value of scoring it by the class of
  the roll (the row's distinct scores, or the dice of its face for the School) and of
  crossing it; ``ExactEvaluator`` reads the exact one-column table, ``GreedyEvaluator``
  counts immediate points only;
* ``turn_values`` (the write values for roll 1 and rolls 2–3, solved by ``solve_turn``),
  and ``play`` that runs B games in lockstep with common random numbers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from .. import dice
from .rules import (COLUMN_BONUS, N_ROWS, N_SCHOOL, SCHOOL_MASK, PokerSchoolRules,
                                    SheetState, row_points)
from ..turn import solve_turn

NEG = -np.inf
#: SUB_KEEPS[r]: the keeps roll r allows, padded with the index of the empty keep.
SUB_KEEPS = np.where(dice.SUB_KEEPS < 0, dice.SUB_KEEPS[:, :1], dice.SUB_KEEPS)
#: Roll index of every face-count vector code, for turning dice into roll indices fast.
_ROLL_CODE = dice.ROLLS @ (6 ** np.arange(6))
_ROLL_OF_CODE = np.full(6 ** 6, -1)
_ROLL_OF_CODE[_ROLL_CODE] = np.arange(dice.N_ROLLS)


def roll_of_counts(counts: np.ndarray) -> np.ndarray:
    """Roll indices (N,) of face counts (N, 6) of five dice."""
    return _ROLL_OF_CODE[counts @ (6 ** np.arange(6))]


@dataclass
class Batch:
    """B sheets in lockstep (working memory of the simulator and the fitter, mutated in place)."""

    filled: np.ndarray  # (B, 15) cells written per row
    clean: np.ndarray  # (B, 15) no cross in the row yet
    reserve: np.ndarray  # (B, 6) School reserves
    column_clean: np.ndarray  # (B, C) no cross in the column yet
    standing: np.ndarray  # (B,) earned premiums a School cross would erase
    banked: np.ndarray  # (B,) every other point so far
    uid: int = field(default_factory=itertools.count().__next__)  # for evaluators' caches
    version: int = 0  # writes applied so far

    @classmethod
    def empty(cls, game: PokerSchoolRules, n: int) -> "Batch":
        return cls(np.zeros((n, N_ROWS), np.int64), np.ones((n, N_ROWS), bool),
                   np.zeros((n, N_SCHOOL), np.int64), np.ones((n, game.columns), bool),
                   np.zeros(n, np.int64), np.zeros(n, np.int64))

    @classmethod
    def of_sheet(cls, sheet: SheetState) -> "Batch":
        return cls(np.array([sheet.filled]), np.array([sheet.clean]), np.array([sheet.reserve]),
                   np.array([sheet.column_clean]), np.array([sheet.standing]),
                   np.array([sheet.banked]))

    def __len__(self):
        return len(self.banked)

    def take(self, index) -> "Batch":
        """The sheets ``self[index]`` (an index array, repeats allowed, or a mask), copied."""
        return Batch(self.filled[index], self.clean[index], self.reserve[index],
                     self.column_clean[index], self.standing[index], self.banked[index])

    def turns_left(self, game: PokerSchoolRules) -> np.ndarray:
        return game.turns - self.filled.sum(axis=1)

    def final_scores(self) -> np.ndarray:
        return self.banked + self.standing + COLUMN_BONUS * self.column_clean.sum(axis=1)


def school_classes() -> np.ndarray:
    """(6, 252): dice showing each face in every roll (the School rows' roll classes)."""
    return dice.ROLLS.T.copy()


_SCHOOL_CLASS = school_classes()


@dataclass(frozen=True)
class RowOption:
    """Values of writing the next cell of one row, for B sheets (expected final − base).

    Scoring: ``score[roll_class[roll], b]`` (−inf where the dice do not allow a score);
    crossing: ``cross[b]`` (−inf where the row is full).
    """

    roll_class: np.ndarray  # (252,)
    score: np.ndarray  # (m, B)
    cross: np.ndarray  # (B,)

    def score_at(self, rolls: np.ndarray | None) -> np.ndarray:
        """(252, B) for every roll, or (B,) at one roll index per sheet."""
        if rolls is None:
            return self.score[self.roll_class]
        return self.score[self.roll_class[rolls], np.arange(self.score.shape[1])]


class Evaluator:
    """The value of sheets after a write; subclasses implement ``row_options`` and ``base``."""

    game: PokerSchoolRules
    approximate = True

    def base(self, batch: Batch) -> np.ndarray:
        """(B,) the part of the expected final score the option values are relative to."""
        raise NotImplementedError

    def row_options(self, batch: Batch, row: int, roll_number: int) -> RowOption:
        raise NotImplementedError


def free_row_classes(game: PokerSchoolRules, row: int, roll_number: int):
    """(points of each class (m,), class of each roll (252,)); class 0 is 0 points (no score)."""
    points = game.base_points[row, roll_number - 1]
    values, cls = np.unique(np.concatenate([[0], points]), return_inverse=True)
    return values, cls.reshape(-1)[1:]


def write_effects(game: PokerSchoolRules, batch: Batch, row: int, roll_number: int):
    """What scoring and crossing the next cell of ``row`` does, by roll class.

    Returns a dict: ``open`` (B,) row not full; ``cell`` (B,) its column; ``classes`` (m,)
    a class's shown dice (School) or points (free rows); ``roll_class`` (252,); for scoring
    ``ok`` (m, B), ``points`` (m, B) immediate points (premium included), ``standing``
    (m, B), ``reserve`` (m, B) the row's next reserve; for crossing ``x_points`` (B,) and
    ``x_standing`` (B,).
    """
    C = game.columns
    j = batch.filled[:, row]
    is_open = j < C
    completes = (j == C - 1) & batch.clean[:, row]
    erases = game.school_cross_erases
    if row < N_SCHOOL:
        face = row + 1
        shown = np.arange(6)[:, None]
        have = shown + batch.reserve[None, :, row]
        ok = have >= 3
        points = np.broadcast_to(3 * face, ok.shape)
        reserve = np.maximum(have - 3, 0)
        roll_class = _SCHOOL_CLASS[row]
        classes = np.arange(6)
    else:
        classes, roll_class = free_row_classes(game, row, roll_number)
        points = np.broadcast_to(classes[:, None], (len(classes), len(batch)))
        ok = points > 0
        reserve = np.zeros_like(points)
    premium = points * completes[None, :]
    # Immediate points: every change of banked + standing (a premium counts when earned).
    points = points + premium
    if erases:
        standing = batch.standing[None, :] + premium
        x_standing = batch.standing * (row >= N_SCHOOL)
        x_points = x_standing - batch.standing
        # The School is complete after this write: what stands can no longer be erased.
        school_open = (C - batch.filled[:, :N_SCHOOL]).sum(axis=1)
        done_after = school_open - (row < N_SCHOOL) * is_open == 0
        standing = np.where(done_after[None, :], 0, standing)
        x_standing = np.where(done_after, 0, x_standing)
    else:
        standing = np.zeros_like(points)
        x_standing = np.zeros(len(batch), np.int64)
        x_points = np.zeros(len(batch), np.int64)
    return dict(open=is_open, cell=j, classes=classes, roll_class=roll_class, ok=ok & is_open,
                points=points, standing=standing, reserve=reserve, x_points=x_points,
                x_standing=x_standing)


def apply_writes(game: PokerSchoolRules, batch: Batch, rows: np.ndarray, scored: np.ndarray,
                 counts: np.ndarray, roll_number: np.ndarray) -> None:
    """Write the next cell of ``rows[b]`` in every sheet b: a score if ``scored[b]``, else a cross.

    ``counts`` (B, 6) are the dice written, ``roll_number`` (B,) the roll they came from.  A
    score the dice do not allow is written as a cross.  Returns (scored (B,): whether a score
    was written, points (B,): the cell's points, 0 for a cross).
    """
    B = len(batch)
    idx = np.arange(B)
    j = batch.filled[idx, rows]
    C = game.columns
    if np.any(j >= C):
        raise ValueError("write in a full row")
    batch.version += 1
    points = np.zeros(B, np.int64)
    school = rows < N_SCHOOL
    # School rows: 3f with the reserve; free rows: their figure, doubled on roll 1.
    face = rows + 1
    shown = counts[idx, np.minimum(rows, N_SCHOOL - 1)]
    res = batch.reserve[idx, np.minimum(rows, N_SCHOOL - 1)]
    school_ok = school & (shown + res >= 3)
    for r in range(N_SCHOOL, N_ROWS):
        sel = rows == r
        if sel.any():
            for k in (1, 2, 3):
                s2 = sel & (roll_number == k)
                if s2.any():
                    points[s2] = row_points(counts[s2], r, k, game.minimums)
    points[school] = np.where(school_ok[school], 3 * face[school], 0)
    scored = scored & (points > 0)
    new_res = np.where(school & scored, shown + res - 3, res)
    batch.reserve[idx[school], rows[school]] = new_res[school]
    completes = (j == C - 1) & batch.clean[idx, rows] & scored
    batch.filled[idx, rows] += 1
    cross = ~scored
    batch.clean[idx[cross], rows[cross]] = False
    batch.column_clean[idx[cross], j[cross]] = False
    batch.banked += np.where(scored, points, 0)
    premium = np.where(completes, points, 0)
    if game.school_cross_erases:
        batch.standing[cross & school] = 0
        batch.standing += premium
        done = (batch.filled[:, :N_SCHOOL] == C).all(axis=1)
        batch.banked[done] += batch.standing[done]
        batch.standing[done] = 0
    else:
        batch.banked += premium
    return scored, np.where(scored, points, 0)


class GreedyEvaluator(Evaluator):
    """Immediate points only (cell, premium, erased premiums): the greedy policy."""

    approximate = True

    def __init__(self, game: PokerSchoolRules):
        self.game = game

    def base(self, batch):
        return (batch.banked + batch.standing).astype(float)

    def row_options(self, batch, row, roll_number):
        e = write_effects(self.game, batch, row, roll_number)
        score = np.where(e["ok"], e["points"], NEG).astype(float)
        cross = np.where(e["open"], e["x_points"], NEG).astype(float)
        return RowOption(e["roll_class"], score, cross)


class ExactEvaluator(Evaluator):
    """The exact one-column values (``category.solve_states``) as an evaluator."""

    approximate = False

    def __init__(self, game: PokerSchoolRules, values: np.ndarray):
        self.game = game
        self.one_column = game.one_column  # the states of ``values`` (DicewiseError unless exact)
        self.values = values

    def base(self, batch):
        return batch.banked.astype(float)

    def _masks_extras(self, batch):
        masks = (batch.filled[:, :] > 0) @ (1 << np.arange(N_ROWS))
        extras = batch.column_clean[:, 0].astype(np.int64) + 2 * batch.standing
        return masks, extras

    def state_values(self, batch) -> np.ndarray:
        masks, extras = self._masks_extras(batch)
        return self.values[masks * self.one_column.n_extra + extras]

    def row_options(self, batch, row, roll_number):
        g, one = self.game, self.one_column
        masks, extras = self._masks_extras(batch)
        is_open = (masks >> row) & 1 == 0
        w = one.write(row, roll_number, masks, extras)
        nxt = (masks | (1 << row))[None, :] * one.n_extra + w.next_extra
        future = np.where(is_open[None, :], self.values[np.minimum(nxt, len(self.values) - 1)], NEG)
        points_all = np.broadcast_to(w.points, (dice.N_ROLLS, len(batch)))
        classes, roll_class = free_row_classes(g, row, roll_number)
        # A row's write depends on the roll only through its points: one representative each.
        present = np.zeros(len(classes), bool)
        present[roll_class] = True
        rep = np.zeros(len(classes), np.int64)
        rep[roll_class] = np.arange(dice.N_ROLLS)
        score = points_all[rep] + future[w.roll_class[rep]]
        score[0] = NEG
        score[~present] = NEG
        # Crossing: the column is no longer clean; a School cross erases what stands.
        standing = extras // 2
        if g.school_cross_erases and row < N_SCHOOL:
            standing = np.zeros_like(standing)
        school_done = ((masks | (1 << row)) & SCHOOL_MASK) == SCHOOL_MASK
        cross_points = np.where(school_done, standing, 0) if g.school_cross_erases else 0
        standing = np.where(school_done, 0, standing)
        nxt_x = (masks | (1 << row)) * one.n_extra + 2 * standing
        cross = np.where(is_open, self.values[np.minimum(nxt_x, len(self.values) - 1)] + cross_points,
                         NEG)
        return RowOption(roll_class, score, cross)


def turn_options(ev: Evaluator, batch: Batch):
    """Every open row's options after roll 1 and after rolls 2–3: two lists of 15 (None if full)."""
    out = []
    for k in (1, 2):
        opts = []
        for r in range(N_ROWS):
            if (batch.filled[:, r] >= ev.game.columns).all():
                opts.append(None)
            elif k == 2 and r < N_SCHOOL:
                opts.append(out[0][r])  # the School never doubles
            else:
                opts.append(ev.row_options(batch, r, k))
        out.append(opts)
    return out


def turn_write_values(options):
    """The best write after roll 1 and after rolls 2–3, (252, B) each, from ``turn_options``."""
    out = []
    for opts in options:
        best = None
        for opt in opts:
            if opt is None:
                continue
            v = np.maximum(opt.score, opt.cross[None, :])[opt.roll_class]
            best = v if best is None else np.maximum(best, v, out=best)
        out.append(best)
    return out[0], out[1], out[1]


def best_writes(options, rolls: np.ndarray, roll_number: int):
    """The best write at each sheet's roll: (value (B,), row (B,), scored (B,) bool)."""
    B = len(rolls)
    best = np.full(B, NEG)
    row = np.zeros(B, np.int64)
    scored = np.zeros(B, bool)
    for r, opt in enumerate(options[0 if roll_number == 1 else 1]):
        if opt is None:
            continue
        s = opt.score_at(rolls)
        for value, is_score in ((s, True), (opt.cross, False)):
            better = value > best + 1e-9
            best = np.where(better, value, best)
            row = np.where(better, r, row)
            scored = np.where(better, is_score, scored)
    return best, row, scored


def best_keeps(keep_values: np.ndarray, rolls: np.ndarray):
    """The best keep each sheet's roll allows: (value (B,), keep index (B,))."""
    subs = SUB_KEEPS[rolls]  # (B, 32)
    vals = keep_values[subs, np.arange(len(rolls))[:, None]]
    i = vals.argmax(axis=1)
    return vals[np.arange(len(rolls)), i], subs[np.arange(len(rolls)), i]


def draw_turn(rng: np.random.Generator, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """One turn of a chunk's dice stream: three throws of five dice (faces 0..5) and one
    uniform number (the random policy's choice) for each of the chunk's ``chunk`` slots."""
    return rng.integers(0, 6, size=(3, chunk, 5)), rng.random(chunk)


def play(game: PokerSchoolRules, n_games: int, seed: int, policy: str = "solved",
         evaluator: Evaluator | None = None, record=None, chunk: int = 4096,
         progress=None, on_write=None) -> np.ndarray:
    """Final scores of ``n_games`` games played in lockstep (chunks of ``chunk`` games).

    Dice come from one stream per chunk seeded by (seed, chunk number): every turn draws five
    fresh dice per roll for each of the chunk's ``chunk`` slots (``draw_turn``), however many
    games the chunk plays, so game i sees the same dice whatever ``n_games`` and whatever is
    kept (common random numbers).  ``policy``: ``random`` (write the first roll in a
    uniformly random open row: a score if the dice allow one, else a cross), or
    ``greedy``/``solved`` (the exact turn solver on ``evaluator``'s values).
    ``record(t, batch)`` is called at every turn start and with ``t = game.turns`` when a
    chunk's games are over; ``record.backup(t, e)``, if defined, gets each sheet's expected
    final score at the start of turn t by the evaluator's values.  ``on_write(t, games, rows,
    scored, points, counts, roll_numbers)`` sees every turn's writes: the games' indices, the
    rows written, whether a score (not a cross) was written and its points, the dice written
    and the roll they came from.
    """
    scores = []
    for c, lo in enumerate(range(0, n_games, chunk)):
        n = min(chunk, n_games - lo)
        rng = np.random.default_rng([seed, c])
        batch = Batch.empty(game, n)
        for t in range(game.turns):
            throws, choice_rng = draw_turn(rng, chunk)
            if record is not None:
                record(t, batch)
            expected, writes = _play_turn(game, batch, throws[:, :n], choice_rng[:n], policy,
                                          evaluator)
            if record is not None and hasattr(record, "backup"):
                record.backup(t, expected)
            if on_write is not None:
                on_write(t, lo + np.arange(n), *writes)
            if progress is not None:
                progress(n / game.turns)
        if record is not None:
            record(game.turns, batch)
        scores.append(batch.final_scores())
    return np.concatenate(scores) if scores else np.zeros(0)


def roll_after_keep(kept: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """Face counts (B, 6) after keeping ``kept`` (B, 6) and throwing the first free dice of
    ``fresh`` (B, 5; faces 0..5) — how every throw of the stream is read."""
    idx = np.arange(len(kept))
    mask = np.arange(5)[None, :] < (5 - kept.sum(axis=1))[:, None]
    new = kept.copy()
    for i in range(5):
        sel = mask[:, i]
        np.add.at(new, (idx[sel], fresh[sel, i]), 1)
    return new


def _counts(faces: np.ndarray) -> np.ndarray:
    """Face counts (N, 6) of dice faces 0..5 given as (N, k)."""
    out = np.zeros((len(faces), 6), np.int64)
    for i in range(faces.shape[1]):
        np.add.at(out, (np.arange(len(faces)), faces[:, i]), 1)
    return out


def _play_turn(game, batch, throws, choice_rng, policy, ev):
    """One turn of every sheet; returns (expected final scores at its start or None, the
    writes: rows, scored, points, counts, roll numbers)."""
    n = len(batch)
    counts = _counts(throws[0])
    if policy == "random":
        open_ = batch.filled < game.columns
        k = (choice_rng * open_.sum(axis=1)).astype(np.int64)
        rows = np.argmax(np.cumsum(open_, axis=1) > k[:, None], axis=1)
        roll_no = np.ones(n, np.int64)
        scored, points = apply_writes(game, batch, rows, np.ones(n, bool), counts, roll_no)
        return None, (rows, scored, points, counts, roll_no)
    options = turn_options(ev, batch)
    base = ev.base(batch)  # before the turn's writes change the sheet
    value, writes = play_solved_turn(game, batch, throws, options)
    return base + value, writes


def play_solved_turn(game, batch, throws, options, shown=None, roll_number: int = 1):
    """One turn of every sheet played best for the write values ``options``
    (``turn_options``): each stops when writing is worth as much as keeping.  Returns (the
    turn's value at its start, the writes: rows, scored, points, counts, roll numbers).

    A turn already under way starts from the face counts ``shown`` (B, 6) after roll
    ``roll_number``; its later rolls read ``throws[roll_number:]`` as usual.
    """
    n = len(batch)
    counts = _counts(throws[0]) if shown is None else shown
    v = solve_turn(turn_write_values(options))
    e2, e3 = v.before_roll
    done = np.zeros(n, bool)
    final_row = np.zeros(n, np.int64)
    final_scored = np.zeros(n, bool)
    roll_no = np.full(n, 3)
    final_counts = counts.copy()
    for k in range(roll_number, 4):
        rolls = roll_of_counts(counts)
        w, row, scored = best_writes(options, rolls, k)
        if k < 3:
            kv, keep = best_keeps(e2 if k == 1 else e3, rolls)
            stop = ~done & (w >= kv - 1e-9)
        else:
            stop = ~done
        final_row[stop], final_scored[stop], roll_no[stop] = row[stop], scored[stop], k
        if k < 3:
            final_counts[stop] = counts[stop]
            done |= stop
            counts = np.where(done[:, None], counts, roll_after_keep(dice.KEEPS[keep], throws[k]))
        else:
            final_counts[stop] = counts[stop]
    scored, points = apply_writes(game, batch, final_row, final_scored, final_counts, roll_no)
    return v.value, (final_row, scored, points, final_counts, roll_no)
