"""Ryzykant in play: the policy table, its policies, simulation, advice and the duel.

The table is a value model (``approx``) fitted in two stages — Monte-Carlo policy
iteration for the per-sum cells, then fitted value iteration with the exact expectation
over the 252 next rolls for those cells and the counter terms together — and played with
a lookahead of one roll: each split is worth the exact expectation, over the next roll, of
the best split then by the value model (``approx.move_values``).  That policy is
``optimal`` (alias ``solved``); ``value`` plays the model without the lookahead, ``search``
looks two rolls ahead (``search``), ``greedy`` and ``random`` need no table.

Games are played in lockstep (``approx.play_games``): one array step per roll for all
unfinished games.  The rolls come from a seeded stream that no policy can influence, so
every policy run with the same seed plays the same rolls (common random numbers), which is
also what makes the duel fair: the game is played on shared rolls.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ...errors import DicewiseError, TableError
from ...i18n import Message
from ..stats import mean_ci95
from . import rules, approx, exact
from .rules import Position, RyzykantRules

#: Policy names (``solved`` is the older name of ``optimal``).
POLICIES = ("optimal", "solved", "search", "value", "greedy", "random")
ALIASES = {"solved": "optimal"}
#: Policies that play from the table.
TABLE_POLICIES = frozenset({"optimal", "search", "value"})
KIND = "ryzykant-policy"
#: Games per chunk of a simulation (each chunk has its own fixed piece of the roll stream).
CHUNK = 20_000
#: Build schedule: rounds of Monte-Carlo policy iteration and games per round, then rounds
#: of fitted value iteration and games per round, then the evaluation.
BUILD_ROUNDS = 20
BUILD_GAMES = 20_000
REFINE_ROUNDS = 16
REFINE_LOOKAHEAD_ROUNDS = 10
REFINE_GAMES = 6_000
#: How far the refinement's targets carry each game's outcome back (``approx.refine``).
TRACE = 0.7
EVAL_GAMES = 20_000
FORGET = 0.6
#: The lookahead of the table's policy (rolls expected over exactly before the model).
LOOKAHEAD = 1
#: Positions on which the Bellman residual of a built table is measured.
RESIDUAL_POSITIONS = 2000


# -- the table (built here; saved, loaded and cached by the game's table store) -------------

@dataclass(frozen=True)
class PolicyTable:
    """A fitted value model and what was measured when it was built."""

    model: approx.ValueModel
    meta: dict
    path: Path | None = None

    @property
    def error_estimate(self) -> float:
        return float(self.meta["error_estimate"])

    def arrays(self) -> dict:
        """The table's arrays for a file (``from_arrays`` reads them back)."""
        return self.model.arrays()


def from_arrays(arrays, meta=None, path=None) -> PolicyTable:
    """A table from ``PolicyTable.arrays()`` (TableError, "rebuild it", if they do not fit)."""
    try:
        model = approx.ValueModel.from_arrays(arrays)
    except (ValueError, KeyError) as e:
        raise TableError(f"the table does not hold this solver's value model ({e}); "
                         "rebuild it") from None
    return PolicyTable(model, dict(meta or {}), path)


def refine_schedule(rounds: int = BUILD_ROUNDS, games: int = BUILD_GAMES) -> tuple[int, int, int]:
    """Rounds, games per round and rounds played by the table's policy of the second stage,
    scaled with the first stage's, so a tiny schedule (tests) refines a little and the
    default refines ``REFINE_ROUNDS`` rounds, the last ``REFINE_LOOKAHEAD_ROUNDS`` of them
    on the positions the table's policy meets."""
    return ((REFINE_ROUNDS * rounds) // BUILD_ROUNDS, min(REFINE_GAMES, games),
            (REFINE_LOOKAHEAD_ROUNDS * rounds) // BUILD_ROUNDS)


def build(ruleset: RyzykantRules, progress: Callable[[int], None] | None = None,
          rounds: int = BUILD_ROUNDS, games: int = BUILD_GAMES,
          eval_games: int = EVAL_GAMES, seed: int = 1) -> PolicyTable:
    """Fit the value model (``build_steps(rounds)`` progress steps) and measure its policy.

    ``rounds`` rounds of ``approx.fit`` (``games`` games each), then ``refine_schedule``'s
    rounds of ``approx.refine``; the table's policy (lookahead ``LOOKAHEAD``) is then played
    ``eval_games`` times on fresh rolls for its expected score, and the Bellman residual is
    measured on ``RESIDUAL_POSITIONS`` positions it visits.  A variant whose exact optimum
    is quick to find (``exact.quick``) also gets it in ``meta["exact"]``, with the policy's
    exact value and gap (``exact.Optimum.as_dict``).
    """
    start = time.perf_counter()
    model, hist = approx.fit(ruleset, iterations=rounds, games=games, seed=seed,
                             forget=FORGET, progress=progress)
    r_rounds, r_games, r_look = refine_schedule(rounds, games)
    model, refined = approx.refine(approx.ValueModel(model.delta, None, 0), ruleset,
                                   rounds=r_rounds, games=r_games, seed=seed, progress=progress,
                                   lookahead_rounds=r_look, trace=TRACE)
    model = model.with_lookahead(LOOKAHEAD)
    policy = approx.model_policy(model, ruleset)
    played = approx.play_games(ruleset, policy, eval_games, seed=[99, 1])
    scores = played.scores
    mean, ci95 = float(scores.mean()), mean_ci95(scores)
    empty_up, empty_lo = np.zeros((1, 11), np.int64), np.zeros((1, 6), np.int64)
    v0 = float(model.value(empty_up, empty_lo)[0])
    ahead0 = float(approx.expected_after(model, ruleset, empty_up, empty_lo)[0])
    if progress:
        progress(1)
    # Bellman residual over positions the policy visits (a sample).
    rec = approx.play_games(ruleset, policy, 200, seed=[seed, 99, 2], record=True)
    ups, los = approx.visited(rec)
    pick = np.random.default_rng(5).choice(len(ups), size=min(RESIDUAL_POSITIONS, len(ups)),
                                           replace=False)
    res = approx.bellman_residual(model, ruleset, ups[pick], los[pick])
    rms = float(np.sqrt(np.mean(res ** 2)))
    if progress:
        progress(1)
    meta = {
        "expected_score": mean, "ci95": list(ci95),
        "eval_games": eval_games, "policy": f"lookahead {LOOKAHEAD}",
        "expected_score_kind": str(score_kind(eval_games, exact=False)),
        "value_at_start": ahead0, "model_value_at_start": v0, "bellman_residual_rms": rms,
        "error_estimate": max(abs(ahead0 - mean), rms), "rounds": rounds,
        "games_per_round": games, "refine_rounds": r_rounds, "refine_games": r_games,
        "refine_lookahead_rounds": r_look,
        "round_means": [h["mean"] for h in hist],
        "refine_means": [h["mean"] for h in refined],
        "refine_target_rms": [h["residual_rms"] for h in refined], "trace": TRACE,
        "parameters": model.parameters, "seconds": round(time.perf_counter() - start, 2),
    }
    if exact.quick(ruleset):
        # The policy's exact value replaces the simulated mean, and its exact distance to
        # the optimum the error estimate (zero in the one-roll game).
        optimum = exact.optimum(ruleset, {"optimal": model})
        value = optimum.policy_values["optimal"]
        loss = max(optimum.value - value, 0.0)
        meta.update(exact=optimum.as_dict(), expected_score=value, ci95=None,
                    approximate=loss > 1e-9, error_estimate=loss,
                    expected_score_kind=str(score_kind(eval_games, exact=True)),
                    simulated_mean=mean)
        if progress:
            progress(1)
    return PolicyTable(model, meta)


def score_kind(eval_games: int, exact: bool) -> Message:
    """What a table's expected score is: the build records it, ``solve`` says it."""
    if exact:
        return Message("exact value of the table's policy")
    return Message("simulated mean of the table's policy over {games} games", games=eval_games)


def build_steps(rounds: int = BUILD_ROUNDS, games: int = BUILD_GAMES,
                ruleset: RyzykantRules | None = None) -> int:
    """Progress steps of ``build`` (for sizing a progress bar)."""
    solves_exactly = ruleset is not None and exact.quick(ruleset)
    return rounds + refine_schedule(rounds, games)[0] + 2 + solves_exactly


# -- policies and simulation ------------------------------------------------------------------

def make_policy(name: str, ruleset: RyzykantRules, table: PolicyTable | None = None,
                seed: int = 0) -> approx.Policy:
    """The policy called ``name`` (``POLICIES``); the table's policies need ``table``.

    ``optimal`` (``solved``): the table's policy, one roll of exact lookahead; ``value``: the
    value model alone; ``search``: two rolls of lookahead (``search.search_policy``);
    ``greedy``: the best immediate change of score; ``random``: uniform over legal splits
    (seeded by ``seed``).
    """
    name = ALIASES.get(name, name)
    if name == "greedy":
        return approx.greedy_policy(ruleset)
    if name == "random":
        rng = np.random.default_rng([seed, 0xA11])

        def choose(upper, lower, rolls, legal, pusc):
            return np.argmax(np.where(legal, rng.random(legal.shape), -1.0), axis=1)

        return choose
    if name in TABLE_POLICIES:
        if table is None:
            raise DicewiseError(f"the {name} policy needs the fitted table")
        if name == "optimal":
            return approx.model_policy(table.model, ruleset)
        if name == "value":
            return approx.model_policy(table.model, ruleset, lookahead=0)
        from .search import search_policy
        return search_policy(table.model, ruleset)
    raise DicewiseError(f"unknown policy {name!r} (policies: {', '.join(POLICIES)})")


def play(ruleset: RyzykantRules, policy: approx.Policy, games: int, seed: int,
         progress: Callable[[int], None] | None = None) -> approx.Games:
    """Play ``games`` games in chunks; chunk c plays the stream piece ``(seed, c)``."""
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")
    parts = []
    for c, lo in enumerate(range(0, games, CHUNK)):
        n = min(CHUNK, games - lo)
        parts.append(approx.play_games(ruleset, policy, n, seed=[seed, c]))
        if progress:
            progress(n)
    return approx.Games(*(np.concatenate([getattr(p, k) for p in parts])
                          for k in ("upper", "lower", "rolls", "puscioch")))


# -- advice ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class SplitAdvice:
    """One legal split valued: ``expected`` final score at ``depth`` rolls of exact
    expectation before the value model (1: the table's policy; 2: searched), ``loss``
    against the best, and, for searched advice, the table's own value ``table_expected``."""

    pairs: tuple[tuple[int, int], tuple[int, int]]
    fifth: int
    sums: tuple[int, int]
    expected: float
    loss: float
    ends: bool
    puscioch: bool
    depth: int = LOOKAHEAD
    table_expected: float | None = None

    def as_dict(self) -> dict:
        out = {"action": "split", "pairs": [list(self.pairs[0]), list(self.pairs[1])],
               "fifth": self.fifth, "sums": list(self.sums), "expected": self.expected,
               "loss": self.loss, "ends_game": self.ends, "puscioch": self.puscioch,
               "depth": self.depth}
        if self.table_expected is not None:
            out["table_expected"] = self.table_expected
        return out


def _roll(ruleset: RyzykantRules, pos: Position, dice_values) -> int:
    roll = rules.parse_dice(dice_values)
    if ruleset.puscioch == "reroll":
        _, pusc = rules.legal_splits(np.array([pos.lower]), np.array([roll]))
        if pusc[0]:
            raise DicewiseError("with puscioch=reroll this roll (none of the three chosen faces)"
                                " is thrown again")
    return roll


def advise(ruleset: RyzykantRules, table: PolicyTable, pos: Position, dice_values) -> list[SplitAdvice]:
    """Every distinct legal split of the roll, best first, by estimated expected final score.

    A split that ends the game is worth its exact final score; any other is worth what the
    table's policy expects of it (``approx.move_values``: the exact expectation over the
    next roll of the best split then by the value model).
    """
    roll = _roll(ruleset, pos, dice_values)
    moves = rules.moves(ruleset, pos, roll)
    up = np.array([pos.upper], dtype=np.int64)
    lo = np.array([pos.lower], dtype=np.int64)
    legal, pusc = rules.legal_splits(lo, np.array([roll]))
    vals = approx.move_values(table.model, ruleset, up, lo, np.array([roll]), legal, pusc)[0]
    best = max(vals[m.slot] for m in moves)
    depth = table.model.lookahead
    out = [SplitAdvice(m.pairs, m.fifth, m.sums, float(vals[m.slot]), float(best - vals[m.slot]),
                       m.ends, m.puscioch, depth) for m in moves]
    return sorted(out, key=lambda s: (-s.expected, s.sums, s.fifth))


def search_advise(ruleset: RyzykantRules, table: PolicyTable, pos: Position, dice_values,
                  seconds: float = 2.0) -> list[SplitAdvice]:
    """Searched advice: every legal split valued two rolls deep (``search.search``) within
    about ``seconds``, best first; a split the budget did not reach keeps its table value
    (``depth`` 1) and is ranked after the searched ones.  Each carries the table's value
    as ``table_expected``, so the two can be compared split by split."""
    from .search import search

    roll = _roll(ruleset, pos, dice_values)
    moves = {m.slot: m for m in rules.moves(ruleset, pos, roll)}
    found = search(table.model, ruleset, pos, roll, seconds)
    done = ~np.isnan(found.searched)
    best = float(np.max(found.searched[done]))
    out = []
    for slot, q1, q2, d in zip(found.slots, found.table, found.searched, done):
        m = moves[int(slot)]
        value = float(q2) if d else float(q1)
        out.append(SplitAdvice(m.pairs, m.fifth, m.sums, value, best - value, m.ends, m.puscioch,
                               found.depth if d else 1, float(q1)))
    return sorted(out, key=lambda s: (-(s.depth == found.depth), -s.expected, s.sums, s.fifth))
