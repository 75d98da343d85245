"""Strategy tables and the exact score distribution of the optimal policy.

``opening_table`` and ``state_table`` read the solution; ``category_table`` simulates;
``exact_distribution`` pushes probability forward through every state under the optimal
policy, where the state space times the score range fits in memory.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ... import i18n
from .. import dice
from ..advice import advise_position, turn_keep_values
from ..category import CategoryRules, StateValues
from ..protocol import OPENING_COLUMNS
from ..sheet import Sheet
from .decisions import plan_turns, planned_keeps, write_options
from .simulate import simulate_games

DISTRIBUTION_BUDGET = 50_000_000  # states × score values held at once

#: The exact distributions this process has pushed forward, by rules and table values: a
#: process that simulates one table again (a notebook, a script, the tests) does it once.
_DISTRIBUTIONS: dict[tuple, "ScoreDistribution"] = {}
_DISTRIBUTIONS_KEPT = 8


def _empty_sheet(game: CategoryRules) -> Sheet:
    return Sheet((), (), 0, game.initial_extra, 0)


def _describe(game: CategoryRules, choice):
    """A choice in a few words (said in the players' language where a table is shown); None
    where there is none."""
    if choice is None:
        return None
    if "keep" in choice.action:
        text = "keep " + (" ".join(map(str, choice.action["keep"])) or "nothing")
    else:
        text = f"write {choice.detail['category']} ({choice.detail['score']})"
    return i18n.ChoiceLabel(game.name, choice.action, choice.detail, text)


def filling(progress, length: int, total: int):
    """A step function for ``total`` units of work that fills a bar of ``length`` steps
    (``progress``, the bar's update, or None) in proportion."""
    done = [0, 0]  # units of work, steps of the bar

    def step(units: int = 1):
        done[0] += units
        due = length * done[0] // total
        if progress is not None and due > done[1]:
            progress(due - done[1])
            done[1] = due
    return step


def opening_table(game: CategoryRules, solved: StateValues, progress=None, length: int = 0):
    """First turn, rolls 1 and 2: for every dice, the best choice, its value and the runner-up
    (``progress`` advanced ``length`` steps over the 504 positions)."""
    header = list(OPENING_COLUMNS)
    rows = []
    sheet = _empty_sheet(game)
    keep_values = turn_keep_values(game, solved.values, sheet)
    step = filling(progress, length, 2 * dice.N_ROLLS)
    for k in (1, 2):
        for r in range(dice.N_ROLLS):
            step()
            faces = dice.faces_of(dice.ROLLS[r])
            advice = advise_position(game, solved, sheet, faces, k, keep_values)
            if not advice.choices:
                rows.append([k, " ".join(map(str, faces)), advice.ended, None, None, None, None])
                continue
            best, second = advice.choices[0], advice.choices[1] if len(advice.choices) > 1 else None
            rows.append([k, " ".join(map(str, faces)), _describe(game, best),
                         best.expected, _describe(game, second),
                         second.expected if second else None,
                         second.loss if second else None])
    return header, rows


def state_table(game: CategoryRules, solved: StateValues, progress=None, length: int = 0):
    """Every reachable turn-start state with its expected remaining points (``progress``
    advanced ``length`` steps over the states)."""
    header = ["state", "filled", "extra", "expected_remaining_points"]
    boxes = [i18n.Box(game.name, name) for name in game.category_names]
    rows = []
    states = np.flatnonzero(solved.reachable)
    step = filling(progress, length, max(len(states), 1))
    filled: dict = {}  # one listing per set of filled boxes, shared by its states' rows
    for i, (s, value) in enumerate(zip(states.tolist(), solved.values[states].tolist())):
        if i % 10_000 == 0:
            step(min(10_000, len(states) - i))
        mask, extra = divmod(s, game.n_extra)
        if mask not in filled:
            filled[mask] = i18n.Listing([box for c, box in enumerate(boxes) if mask >> c & 1],
                                        sep="+")
        rows.append([s, filled[mask], extra, value])
    return header, rows


def scratch_boxes(game: CategoryRules) -> np.ndarray:
    """(n_cat,) bool: the boxes whose 0 is a scratch, written where the dice show nothing the
    box counts (RULES.md: "0 where the dice do not qualify").  A box that also scores below 0
    has no scratch: there 0 is a result on its scale, as poker-programs' obligatory figures
    score 0 for exactly three dice of the face, the figure made (RULES.md section 2)."""
    return game.base_points.reshape(game.n_categories, -1).min(axis=1) >= 0


def category_table(game: CategoryRules, solved: StateValues, games: int, seed: int, progress=None):
    """Per box under the optimal policy: how often it is filled, its mean score, its scratch
    rate (the share of its writes that are scratches, ``scratch_boxes``) and the shares of
    its writes made after each roll; a box no game wrote (a game ended early) has no mean
    and no shares (None), not shares of 0."""
    rec = simulate_games(game, solved.values, "optimal", games, seed, progress)
    scratches = scratch_boxes(game)
    header = ["category", "filled_rate", "mean_score_points", "scratch_rate", "written_roll1_rate",
              "written_roll2_rate", "written_roll3_rate", "games"]
    rows = []
    for c, name in enumerate(game.category_names):
        filled = ~np.isnan(rec.box_scores[:, c])
        s = rec.box_scores[filled, c]
        written = len(s)

        def share(count) -> float | None:
            return float(count / written) if written else None

        rows.append([i18n.Box(game.name, name), float(filled.mean()),
                     float(s.mean()) if written else None,
                     share((s == 0).sum() if scratches[c] else 0)]
                    + [share((rec.box_roll[filled, c] == k).sum()) for k in (1, 2, 3)]
                    + [games])
    return header, rows


@dataclass(frozen=True)
class ScoreDistribution:
    """An exact distribution of final scores: P(score = scores[i]) = probability[i]."""

    scores: np.ndarray
    probability: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.scores @ self.probability)

    @property
    def std(self) -> float:
        return float(np.sqrt(((self.scores - self.mean) ** 2) @ self.probability))

    def quantile(self, q: float) -> float:
        return float(self.scores[np.searchsorted(np.cumsum(self.probability), q - 1e-12)])

    def to_json(self) -> dict:
        return {"mean": self.mean, "std": self.std,
                "percentiles": {str(p): self.quantile(p / 100) for p in (5, 25, 50, 75, 95)},
                "min": float(self.scores[0]), "max": float(self.scores[-1])}


def _score_range(game: CategoryRules) -> int:
    """About how many final scores a game has: the boxes' points, the final bonus and a
    first roll's end value, and 500 more for bonuses scored with a box (Yahtzee's can be
    more).  Only the memory estimate uses it: the distribution grows as it needs."""
    pts = game.base_points
    bonus = game.final_bonus(np.arange(game.n_extra))
    end = game.first_roll_end()
    end = np.zeros(1) if end is None else np.nan_to_num(end)
    extremes = [(pts.min(axis=(1, 2)), pts.max(axis=(1, 2))), (bonus.min(), bonus.max()),
                (end.min(), end.max())]
    lo = sum(np.minimum(a, 0).sum() for a, _ in extremes)
    hi = sum(np.maximum(b, 0).sum() for _, b in extremes) + 500
    return int(hi - lo) + 1


def distribution_fits(game: CategoryRules) -> bool:
    from ..category import reachable_states

    return int(reachable_states(game).sum()) * _score_range(game) <= DISTRIBUTION_BUDGET


def turn_outcomes(game: CategoryRules, values: np.ndarray, states: np.ndarray):
    """Under the optimal policy, each state's turn as (state, next state, points, probability)
    rows; next state -1 marks a game ended at once (a big general: its end value as points)."""
    masks, extras = np.divmod(states, game.n_extra)
    plan = plan_turns(game, values, masks, extras)
    b = len(states)
    end = game.first_roll_end()
    out = []
    mass = np.repeat(dice.ROLL_PROBABILITY[:, None], b, axis=1)  # (252, B) after roll 1
    for k in (1, 2, 3):
        rolls, cols = np.nonzero(mass > 0)
        p = mass[rolls, cols]
        if k == 1 and end is not None:
            stop = ~np.isnan(end[rolls])
            out.append((states[cols[stop]], np.full(stop.sum(), -1), end[rolls[stop]], p[stop]))
            rolls, cols, p = rolls[~stop], cols[~stop], p[~stop]
        keep_to = None
        writes = np.ones(len(rolls), bool)
        if k < 3:
            keep = planned_keeps(plan, cols, rolls, k)
            writes = keep < 0
            keep_to = np.zeros((dice.N_KEEPS, b))
            np.add.at(keep_to, (keep[~writes], cols[~writes]), p[~writes])
        w = np.flatnonzero(writes)
        opts = write_options(game, values, masks[cols[w]], extras[cols[w]], rolls[w], k)
        c = opts.value.argmax(axis=1)
        at = np.arange(len(w))
        out.append((states[cols[w]], opts.next_state[at, c], opts.points[at, c], p[w]))
        if k < 3:
            mass = (dice.keep_to_roll().T @ keep_to)
    return [np.concatenate(x) for x in zip(*out)]


def exact_distribution(game: CategoryRules, values: np.ndarray,
                       progress=None) -> ScoreDistribution:
    """The exact distribution of the optimal policy's final score (forward over all states),
    computed once per process for each game and table (``progress`` advanced once a turn)."""
    key = (game, hashlib.blake2b(np.ascontiguousarray(values)).digest())
    if key not in _DISTRIBUTIONS:
        if len(_DISTRIBUTIONS) >= _DISTRIBUTIONS_KEPT:
            del _DISTRIBUTIONS[next(iter(_DISTRIBUTIONS))]
        dist = _pushed_forward(game, values, progress)
        for array in (dist.scores, dist.probability):
            array.flags.writeable = False  # one answer shared by every caller
        _DISTRIBUTIONS[key] = dist
    elif progress is not None:
        progress(game.n_categories)
    return _DISTRIBUTIONS[key]


def _pushed_forward(game: CategoryRules, values: np.ndarray, progress=None) -> ScoreDistribution:
    """Layer by layer: a state's score distribution, convolved with the distribution of the
    points its turn adds on the way to each next state, is added to that state's.  Each
    distribution is held as (its lowest score, probabilities from there on), as wide as its
    scores reach: no bound on the scores is assumed."""
    full_mask = (1 << game.n_categories) - 1
    dist = {game.initial_state: (0, np.ones(1))}
    ended: dict[int, tuple[int, np.ndarray]] = {}
    while dist:
        states = np.array(sorted(dist))
        src, nxt, pts, prob = turn_outcomes(game, values, states)
        shift = np.rint(pts).astype(np.int64)
        done = (nxt < 0) | (nxt // game.n_extra == full_mask)
        last = done & (nxt >= 0)
        shift[last] += np.rint(game.final_bonus(nxt[last] % game.n_extra)).astype(np.int64)
        nxt = np.where(done, -1, nxt)
        order = np.lexsort((shift, nxt, src))
        src, nxt, shift, prob = src[order], nxt[order], shift[order], prob[order]
        cut = np.flatnonzero(np.diff(src) | np.diff(nxt)) + 1
        new: dict[int, tuple[int, np.ndarray]] = {}
        for a, b in zip(np.r_[0, cut], np.r_[cut, len(src)]):
            low, d = dist[int(src[a])]
            p0 = shift[a]
            pmf = np.bincount(shift[a:b] - p0, weights=prob[a:b])
            _add(ended if nxt[a] < 0 else new, int(nxt[a]), low + p0, np.convolve(d, pmf))
        dist = new
        if progress is not None:
            progress(1)
    low, final = ended[-1]
    nz = np.flatnonzero(final > 0)
    return ScoreDistribution((low + nz).astype(float), final[nz])


def _add(held: dict, key: int, low: int, p: np.ndarray) -> None:
    """Add the distribution ``p`` (its first entry the probability of score ``low``) to
    ``held[key]``, widening that one where ``p`` reaches beyond it."""
    if key not in held:
        held[key] = (low, p)
        return
    start, q = held[key]
    first, end = min(start, low), max(start + len(q), low + len(p))
    if (first, end) != (start, start + len(q)):
        wider = np.zeros(end - first)
        wider[start - first:start - first + len(q)] = q
        start, q = first, wider
        held[key] = (start, q)
    q[low - start:low - start + len(p)] += p
