"""Ryzykant in play: policies, the policy table on disk, simulation, advice and the duel.

Games are played in lockstep (``solver.ryzykant.approx.play_games``): one array step per
roll for all unfinished games.  The rolls come from a seeded stream that no policy can
influence, so every policy run with the same seed plays the same rolls (common random
numbers), which is also what makes the duel fair: the game is played on shared rolls.
"""

from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ...errors import DicewiseError
from .. import dice
from . import rules, approx
from .rules import Position, Ryzykant
from ...tables.cache import cache_dir, drop_older_rules, option_slug
from ...tables.format import digest, read_table, write_table

POLICIES = ("solved", "greedy", "random")
KIND = "ryzykant-policy"
SUFFIX = ".dwt"
#: Games per chunk of a simulation (each chunk has its own fixed piece of the roll stream).
CHUNK = 20_000
#: Build schedule: rounds of policy iteration and games per round.
BUILD_ROUNDS = 60
BUILD_GAMES = 20_000
EVAL_GAMES = 20_000
FORGET = 0.6
#: Positions on which the Bellman residual of a built table is measured.
RESIDUAL_POSITIONS = 2000


# -- the table ------------------------------------------------------------------------------

def rules_digest() -> str:
    """Digest of the code that defines the rules and the approximate solution."""
    return digest(*(inspect.getsource(m) for m in (dice, rules, approx)))


def default_path(ruleset: Ryzykant) -> Path:
    return cache_dir() / f"{ruleset.name}-{option_slug(ruleset.options)}-{rules_digest()}{SUFFIX}"


@dataclass(frozen=True)
class PolicyTable:
    """A fitted value model and what was measured when it was built."""

    model: approx.ValueModel
    meta: dict
    path: Path | None = None

    @property
    def error_estimate(self) -> float:
        return float(self.meta["error_estimate"])


def build(ruleset: Ryzykant, progress: Callable[[int], None] | None = None,
          rounds: int = BUILD_ROUNDS, games: int = BUILD_GAMES,
          eval_games: int = EVAL_GAMES, seed: int = 1) -> PolicyTable:
    """Fit the value model (``rounds`` + 2 progress steps) and measure it.

    The fit is ``approx.fit``; then the policy is played ``eval_games`` times on fresh rolls
    for its expected score, and the Bellman residual is measured on 2000 visited positions.
    """
    start = time.perf_counter()
    model, hist = approx.fit(ruleset, iterations=rounds, games=games, seed=seed,
                             forget=FORGET, progress=progress)
    history = [h["mean"] for h in hist]
    played = approx.play_games(ruleset, approx.model_policy(model, ruleset), eval_games,
                               seed=[99, 1])
    scores = played.scores
    mean, se = float(scores.mean()), float(scores.std(ddof=1) / math.sqrt(len(scores)))
    v0 = float(model.value(np.zeros((1, 11), np.int64), np.zeros((1, 6), np.int64))[0])
    if progress:
        progress(1)
    # Bellman residual over positions the policy visits (a sample).
    rec = approx.play_games(ruleset, approx.model_policy(model, ruleset), 400, seed=[seed, 99, 2],
                            record=True)
    ups = np.concatenate([v[1] for v in rec.visits])
    los = np.concatenate([v[2] for v in rec.visits])
    pick = np.random.default_rng(5).choice(len(ups), size=min(RESIDUAL_POSITIONS, len(ups)),
                                           replace=False)
    res = approx.bellman_residual(model, ruleset, ups[pick], los[pick])
    rms = float(np.sqrt(np.mean(res ** 2)))
    if progress:
        progress(1)
    meta = {
        "expected_score": mean, "ci95": [mean - 1.96 * se, mean + 1.96 * se],
        "eval_games": eval_games, "value_at_start": v0, "bellman_residual_rms": rms,
        "error_estimate": max(abs(v0 - mean), rms), "rounds": rounds, "games_per_round": games,
        "round_means": history, "parameters": int(model.delta.size),
        "seconds": round(time.perf_counter() - start, 2),
    }
    return PolicyTable(model, meta)


def build_steps(rounds: int = BUILD_ROUNDS) -> int:
    """Progress steps of ``build`` (for sizing a progress bar)."""
    return rounds + 2


def save(table: PolicyTable, ruleset: Ryzykant, path=None) -> Path:
    path = Path(path) if path else default_path(ruleset)
    return write_table(path, kind=KIND, ruleset=ruleset.name, options=ruleset.options,
                       rules_digest=rules_digest(), arrays={"delta": table.model.delta},
                       meta=table.meta)


def load(ruleset: Ryzykant, path=None) -> PolicyTable:
    """Read a policy table, refusing one built for other options or other rules."""
    path = Path(path) if path else default_path(ruleset)
    t = read_table(path, kind=KIND, ruleset=ruleset.name, options=ruleset.options,
                   rules_digest=rules_digest())
    delta = np.array(t.arrays["delta"], dtype=np.float64)
    if delta.shape != approx.ValueModel.zero().delta.shape:
        from ...tables.format import TableError
        raise TableError(f"{path} holds a value model of another shape; rebuild it")
    return PolicyTable(approx.ValueModel(delta), dict(t.header["meta"]), path)


def load_or_build(ruleset: Ryzykant, path=None, rebuild: bool = False,
                  progress_factory=None) -> PolicyTable:
    """The table at ``path`` (default: the cache), built and saved first if missing.

    ``progress_factory(length)`` may return a context manager yielding a progress callback.
    """
    target = Path(path) if path else default_path(ruleset)
    if target.exists() and not rebuild:
        return load(ruleset, target)
    schedule = {"rounds": BUILD_ROUNDS, "games": BUILD_GAMES, "eval_games": EVAL_GAMES}
    if progress_factory is not None:
        with progress_factory(build_steps(BUILD_ROUNDS)) as step:
            table = build(ruleset, step, **schedule)
    else:
        table = build(ruleset, **schedule)
    saved = save(table, ruleset, target)
    drop_older_rules(saved)
    return PolicyTable(table.model, table.meta, saved)


# -- policies and simulation ------------------------------------------------------------------

def make_policy(name: str, ruleset: Ryzykant, table: PolicyTable | None = None,
                seed: int = 0) -> approx.Policy:
    """The policy called ``name``; ``solved`` needs the table."""
    if name == "greedy":
        return approx.greedy_policy(ruleset)
    if name == "random":
        rng = np.random.default_rng([seed, 0xA11])

        def choose(upper, lower, rolls, legal, pusc):
            return np.argmax(np.where(legal, rng.random(legal.shape), -1.0), axis=1)

        return choose
    if name == "solved":
        if table is None:
            raise DicewiseError("the solved policy needs a table")
        return approx.model_policy(table.model, ruleset)
    raise DicewiseError(f"unknown policy {name!r} (policies: {', '.join(POLICIES)})")


def play(ruleset: Ryzykant, policy: approx.Policy, games: int, seed: int,
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


def summary(scores: np.ndarray) -> dict:
    """Mean, spread, 95% confidence interval of the mean and percentiles of final scores."""
    scores = np.asarray(scores, dtype=np.float64)
    n = len(scores)
    mean = float(scores.mean())
    std = float(scores.std(ddof=1)) if n > 1 else 0.0
    half = 1.96 * std / math.sqrt(n)
    pct = np.percentile(scores, [5, 25, 50, 75, 95])
    return {"mean": mean, "std": std, "ci95": [mean - half, mean + half],
            "min": float(scores.min()), "max": float(scores.max()),
            "percentiles": {str(p): float(v) for p, v in zip((5, 25, 50, 75, 95), pct)}}


@dataclass(frozen=True)
class DuelResult:
    games: int
    a: str
    b: str
    wins: float
    draws: float
    losses: float
    margin: float
    margin_ci95: tuple[float, float]
    mean_a: float
    mean_b: float

    def rate_ci95(self, p: float) -> tuple[float, float]:
        half = 1.96 * math.sqrt(max(p * (1 - p), 0.0) / self.games)
        return (max(0.0, p - half), min(1.0, p + half))


def duel(scores_a: np.ndarray, scores_b: np.ndarray, a: str, b: str) -> DuelResult:
    """Win/draw/loss rates of A against B, game by game on the same rolls, and the margin."""
    d = np.asarray(scores_a, np.float64) - np.asarray(scores_b, np.float64)
    n = len(d)
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    m = float(d.mean())
    return DuelResult(n, a, b, float((d > 0).mean()), float((d == 0).mean()),
                      float((d < 0).mean()), m, (m - 1.96 * se, m + 1.96 * se),
                      float(np.mean(scores_a)), float(np.mean(scores_b)))


# -- advice ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class SplitAdvice:
    pairs: tuple[tuple[int, int], tuple[int, int]]
    fifth: int
    sums: tuple[int, int]
    expected: float
    loss: float
    ends: bool
    puscioch: bool

    def as_dict(self) -> dict:
        return {"action": "split", "pairs": [list(self.pairs[0]), list(self.pairs[1])],
                "fifth": self.fifth, "sums": list(self.sums), "expected": self.expected,
                "loss": self.loss, "ends_game": self.ends, "puscioch": self.puscioch}


def advise(ruleset: Ryzykant, table: PolicyTable, pos: Position, dice_values) -> list[SplitAdvice]:
    """Every distinct legal split of the roll, best first, by estimated expected final score.

    A split that ends the game is worth its exact final score; any other is worth the
    value model's estimate of the position it leads to.
    """
    roll = rules.parse_dice(dice_values)
    if ruleset.puscioch == "reroll":
        _, pusc = rules.legal_splits(np.array([pos.lower]), np.array([roll]))
        if pusc[0]:
            raise DicewiseError("with puscioch=reroll this roll (none of the three chosen faces)"
                                " is thrown again")
    moves = rules.moves(ruleset, pos, roll)
    up = np.array([pos.upper], dtype=np.int64)
    lo = np.array([pos.lower], dtype=np.int64)
    legal, pusc = rules.legal_splits(lo, np.array([roll]))
    vals = approx.move_values(table.model.dense(), ruleset, up, lo, np.array([roll]), legal, pusc)[0]
    best = max(vals[m.slot] for m in moves)
    out = [SplitAdvice(m.pairs, m.fifth, m.sums, float(vals[m.slot]), float(best - vals[m.slot]),
                       m.ends, m.puscioch) for m in moves]
    return sorted(out, key=lambda s: (-s.expected, s.sums, s.fifth))
