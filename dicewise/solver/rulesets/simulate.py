"""Simulation of category games, all games in lockstep, on common random numbers.

The dice of game g come from one stream fixed by the seed: turn t, roll k holds five
faces, and a roll that rerolls n dice takes the first n of them.  Every policy therefore
sees the same dice wherever it keeps the same dice, so policies compare pair by pair.
``play_lockstep`` plays the games; a ``Chooser`` makes their decisions (here the
expected-score policies; ``solver/target/chooser.py`` plays for a target with the same loop).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from ...errors import DicewiseError
from .. import dice
from ..category import CategoryRules
from .decisions import WriteOptions, plan_turns, planned_keeps, write_options

POLICIES = ("optimal", "greedy", "random")
CHUNK = 16384  # games per lockstep block: more games share turn plans, memory stays bounded


def _stream_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, 0x0D1CE]))


def dice_stream(seed: int, games: int, turns: int) -> np.ndarray:
    """(games, turns, 3, 5) faces 1..6: the dice every policy draws from."""
    return _stream_rng(seed).integers(1, 7, size=(games, turns, 3, dice.N_DICE), dtype=np.int8)


class _Cursor:
    """Where one stream's ``dice_chunks`` stand: the chunk last drawn and the game it starts at."""

    def __init__(self, seed: int, turns: int, chunk: int, first: int):
        self.chunks = dice_chunks(seed, 2**62, turns, chunk, first)
        self.start, self.dice = 0, next(self.chunks)


#: Streams an agent's episodes walk (seed, turns) -> their ``_Cursor``, the latest last.
_CURSORS: dict = {}


def game_dice(seed: int, index: int, turns: int, chunk: int = 1024) -> np.ndarray:
    """``dice_stream(seed, index + 1, turns)[index]``: the dice of game ``index`` alone.

    The stream cannot be entered midway (``dice_chunks``), so game k needs the k games
    before it drawn (game 0 of a fresh seed, an environment's every ``reset()``, only its
    own); the stream's place is kept, then ``chunk`` games at a time, so that games asked
    for in order (an agent's games 0, 1, 2...) each draw only their own dice.
    """
    key = (seed, turns, chunk)
    cursor = _CURSORS.pop(key, None)
    if cursor is None or index < cursor.start:
        cursor = _Cursor(seed, turns, chunk, index + 1)
    while index >= cursor.start + len(cursor.dice):
        cursor.start += len(cursor.dice)
        cursor.dice = next(cursor.chunks)
    _CURSORS[key] = cursor
    while len(_CURSORS) > 8:  # the streams used longest ago go first
        del _CURSORS[next(iter(_CURSORS))]
    return cursor.dice[index - cursor.start].copy()


def dice_chunks(seed: int, games: int, turns: int, chunk: int = 0, first: int = 0):
    """``dice_stream(seed, games, turns)`` ``chunk`` games at a time (a generator; the first
    chunk ``first`` games where given), so that a run of any length holds one chunk of dice,
    not every game's (2 GiB for 10⁷ games).

    One call of ``integers`` cannot be split: it draws its faces from the bytes of 32-bit
    words, low byte first, by Lemire's method (a byte b gives ⌊6b/256⌋ + 1 and is drawn
    again where 6b mod 256 < 4), and a second call would start on a fresh word.  So the
    words are drawn here and the faces made from them as that call makes them; faces made
    past a chunk wait for the next.  ``tests/test_play.py`` holds the two streams equal.
    """
    rng = _stream_rng(seed)
    per_game = turns * 3 * dice.N_DICE
    chunk = chunk or games
    pending = np.zeros(0, np.int8)
    shift = np.array([0, 8, 16, 24], np.uint32)
    lo, size = 0, first or chunk
    while lo < games:
        g = min(size, games - lo)
        lo, size = lo + g, chunk
        while len(pending) < g * per_game:
            need = g * per_game - len(pending)
            words = rng.integers(0, 2**32, size=need // 4 + need // 64 + 4, dtype=np.uint32)
            m = ((words[:, None] >> shift) & 0xFF).ravel().astype(np.uint16) * 6
            pending = np.concatenate([pending, ((m >> 8) + 1)[(m & 0xFF) >= 4].astype(np.int8)])
        yield pending[:g * per_game].reshape(g, turns, 3, dice.N_DICE)
        pending = pending[g * per_game:]


_FACE_CODE = (dice.N_DICE + 1) ** np.arange(dice.N_FACES)  # a face's weight in a keep's code


def roll_from(kept: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Roll indices after keeping ``kept`` (G, 6) and throwing the first free faces (G, 5)."""
    free = dice.N_DICE - kept.sum(axis=1)
    thrown = np.arange(dice.N_DICE)[None, :] < free[:, None]
    code = kept @ _FACE_CODE + np.where(thrown, _FACE_CODE[faces - 1], 0).sum(axis=1)
    return dice.keep_index_of_code(code) - dice.KEEP_START[dice.N_DICE]


def throw(kept, faces, end_value, roll_number: int, todo, live, ended):
    """One throw for the positions ``todo`` still rolling: their rolls, after marking in
    ``ended`` the games a first-roll throw ends at once.  Returns (todo, rolls) of the rest."""
    rolls = roll_from(kept[todo], faces)
    if roll_number == 1 and end_value is not None:
        stop = ~np.isnan(end_value[rolls])
        ended[live[todo[stop]]] = True
        todo, rolls = todo[~stop], rolls[~stop]
    return todo, rolls


@dataclass(frozen=True)
class GameRecords:
    """What happened in each simulated game."""

    scores: np.ndarray  # (G,) final scores
    box_scores: np.ndarray  # (G, n_cat) score written in each box, NaN if never written
    box_roll: np.ndarray  # (G, n_cat) roll number (1..3) the box was written after, 0 if never
    ended_early: np.ndarray  # (G,) the game ended at once (General's big general)


class Chooser(Protocol):
    """The decisions of a lockstep simulation: a plan per turn, then keeps and boxes.

    Positions are indices into the turn's live games (the ``states`` given to ``plan``)."""

    def plan(self, states: np.ndarray, points: np.ndarray) -> None:
        """Prepare the turn of the live games at turn-start ``states`` with ``points``."""

    def keep(self, todo, masks, extras, rolls, roll_number: int) -> np.ndarray:
        """The keep of each position after roll 1 or 2, or -1 where it writes now."""

    def write(self, todo, masks, extras, rolls, roll_number: int) -> tuple[np.ndarray, WriteOptions]:
        """The box each position writes, and the options it chose from."""


def simulate_games(game: CategoryRules, values: np.ndarray, policy: str, games: int, seed: int,
                   progress: Callable[[int], None] | None = None,
                   boxes: bool = True) -> GameRecords:
    """Play ``games`` games of ``game`` with a policy: optimal (from ``values``), greedy or
    random (``boxes`` as ``play_lockstep``'s)."""
    if policy not in POLICIES:
        raise DicewiseError(f"unknown policy {policy!r} (policies: {', '.join(POLICIES)})")
    choice_rng = np.random.default_rng(np.random.SeedSequence([seed, 0xC401CE]))
    guide = values if policy == "optimal" else np.zeros_like(values)
    chooser = ExpectedScore(game, guide, random=choice_rng if policy == "random" else None)
    return play_lockstep(game, chooser, games, seed, progress, boxes)


def play_lockstep(game: CategoryRules, chooser: Chooser, games: int, seed: int,
                  progress: Callable[[int], None] | None = None,
                  boxes: bool = True) -> GameRecords:
    """Play ``games`` games from the empty sheet on the dice stream of ``seed``, ``CHUNK``
    games at a time, every decision made by ``chooser``; ``boxes`` False keeps only the
    scores and the early ends (the box records, (games, boxes) each, are left empty)."""
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")
    parts = []
    for chunk in dice_chunks(seed, games, game.n_categories, CHUNK):
        points, box_scores, box_roll, ended = _play_chunk(game, chooser, chunk)
        if not boxes:
            box_scores, box_roll = box_scores[:0].copy(), box_roll[:0].copy()  # not views
        parts.append((points, box_scores, box_roll, ended))
        if progress is not None:
            progress(len(chunk))
    return GameRecords(*(np.concatenate([p[i] for p in parts]) for i in range(4)))


def _play_chunk(game, chooser: Chooser, stream):
    g, n = len(stream), game.n_categories
    masks = np.zeros(g, np.int64)
    extras = np.full(g, game.initial_extra, np.int64)
    points = np.zeros(g)
    box_scores, box_roll = np.full((g, n), np.nan), np.zeros((g, n), np.int64)
    ended = np.zeros(g, bool)
    end_value = game.first_roll_end()
    for t in range(n):
        live = np.flatnonzero(~ended)
        if len(live) == 0:
            break
        chooser.plan(masks[live] * game.n_extra + extras[live], points[live])
        kept = np.zeros((len(live), dice.N_FACES), np.int64)
        todo = np.arange(len(live))  # positions in ``live`` still rolling this turn
        for k in (1, 2, 3):
            todo, rolls = throw(kept, stream[live[todo], t, k - 1], end_value, k, todo, live, ended)
            gi = live[todo]
            keep = (chooser.keep(todo, masks[gi], extras[gi], rolls, k) if k < 3
                    else np.full(len(todo), -1))
            go_on = keep >= 0
            rows = np.flatnonzero(~go_on)
            w_games = gi[rows]
            write, opts = chooser.write(todo[rows], masks[w_games], extras[w_games], rolls[rows], k)
            at = np.arange(len(rows))
            points[w_games] += opts.points[at, write]
            box_scores[w_games, write] = opts.score[at, write]
            box_roll[w_games, write] = k
            masks[w_games], extras[w_games] = np.divmod(opts.next_state[at, write], game.n_extra)
            if k < 3:
                kept[todo[go_on]] = dice.KEEPS[keep[go_on]]
                todo = todo[go_on]
    full = ~ended
    points[full] += game.final_bonus(extras[full])
    return points, box_scores, box_roll, ended


class ExpectedScore:
    """Play for the expected final score by ``guide`` values (``optimal``; zeros make
    ``greedy``), or, given a ``random`` generator, uniformly among the legal choices."""

    def __init__(self, game: CategoryRules, guide: np.ndarray,
                 random: np.random.Generator | None = None):
        self.game, self.guide, self.random = game, guide, random

    def plan(self, states, points):
        uniq, self.cols = np.unique(states, return_inverse=True)
        self.turn = (None if self.random is not None
                     else plan_turns(self.game, self.guide, *np.divmod(uniq, self.game.n_extra)))

    def keep(self, todo, masks, extras, rolls, roll_number):
        if self.random is None:
            return planned_keeps(self.turn, self.cols[todo], rolls, roll_number)
        opts = write_options(self.game, self.guide, masks, extras, rolls, roll_number)
        n_keeps = (dice.SUB_KEEPS[rolls] >= 0).sum(axis=1)
        n_boxes = np.isfinite(opts.value).sum(axis=1)
        pick = (self.random.random(len(rolls)) * (n_keeps + n_boxes)).astype(np.int64)
        return np.where(pick < n_keeps, dice.SUB_KEEPS[rolls, np.minimum(pick, 31)], -1)

    def write(self, todo, masks, extras, rolls, roll_number):
        opts = write_options(self.game, self.guide, masks, extras, rolls, roll_number)
        if self.random is not None:
            return _random_box(opts.value, self.random), opts
        return opts.value.argmax(axis=1), opts


def _random_box(value, rng):
    """A uniformly random allowed box for each row of a (G, n_cat) value array."""
    allowed = np.isfinite(value)
    u = rng.random(len(value))[:, None] * allowed.sum(axis=1, keepdims=True)
    return (np.cumsum(allowed, axis=1) <= u).sum(axis=1)
