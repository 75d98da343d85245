"""poker-school's solve, advise and simulate, called by the generic commands.

The one-column variants are solved exactly (a table of state values); the others get the
fitted approximate policy (a table of feature weights).  Either table is built on first
use, with a progress bar, and kept in the cache.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from pathlib import Path

import click
import numpy as np

from ..errors import DicewiseError
from ..solver.poker_school import simulate as play_module
from ..solver import category
from ..solver.poker_school import advice as poker_school_advice, approx as poker_school_approx, bound as poker_school_bound, turns as poker_school_turns
from ..solver.advice import check_dice
from ..solver.category import solve_states
from ..solver.options import parse_options
from ..solver.poker_school.approx import LinearEvaluator, fit_policy
from ..solver.poker_school.turns import Batch, ExactEvaluator, play
from ..solver.poker_school import rules
from ..tables import cache
from ..tables.format import TableError, digest, read_table, write_table
from .format import emit_json, progress

KIND_EXACT = "poker-school-exact"
KIND_POLICY = "poker-school-policy"
#: Approximate policy iteration: rounds, games per round, fits averaged; evaluation games.
FIT_ITERATIONS = 16
FIT_GAMES = 4096
FIT_AVERAGE = 6
EVAL_GAMES = 16384
EVAL_SEED = 20240
#: Subgradient steps of the upper bound (it is within a point of its limit after about 7).
BOUND_ITERATIONS = 20
#: The approximate method's shortfall on the exact one-column game *with* erasure, as a
#: fraction of its optimum (1.93 of 382.42 points, 100,000 paired games; docs/poker-school.md).
#: That exact solve takes over 20 minutes, too long for every build, so games with erasure
#: use this measured value when it exceeds the one measured at build time (without erasure).
ERASURE_GAP_FRACTION = 0.0050


def make_game(options: list[str]) -> rules.PokerSchool:
    return rules.PokerSchool(**parse_options(rules.PokerSchool, options))


def rules_digest(game: rules.PokerSchool) -> str:
    """Exact tables depend on the rules and the core engine; policy tables on the method too."""
    core = cache.rules_digest(game)
    if game.exact:
        return core
    method = (poker_school_turns, poker_school_approx, poker_school_bound)
    return digest(core, *(inspect.getsource(m) for m in method))


def default_path(game: rules.PokerSchool) -> Path:
    kind = "exact" if game.exact else "policy"
    return cache.cache_dir() / (f"{game.name}-{kind}-{cache.option_slug(game.options)}-"
                                f"{rules_digest(game)}{cache.SUFFIX}")


@dataclass(frozen=True)
class Solved:
    """A loaded or freshly built poker-school table and what it says."""

    game: rules.PokerSchool
    evaluator: poker_school_turns.Evaluator
    meta: dict
    path: Path
    built: bool


def _expected_exact(game, values) -> float:
    return float(values[game.initial_extra])


def build_exact(game, path, bar=None) -> Solved:
    start = time.perf_counter()
    solved = solve_states(game, bar)
    seconds = time.perf_counter() - start
    meta = {"expected_score": solved.expected_score, "states": solved.n_reachable,
            "n_states": game.n_states, "seconds": round(seconds, 3), "exact": True}
    write_table(path, kind=KIND_EXACT, ruleset=game.name, options=game.options,
                rules_digest=rules_digest(game),
                arrays={"reachable": np.packbits(solved.reachable),
                        "values": solved.values[solved.reachable]}, meta=meta)
    return Solved(game, ExactEvaluator(game, solved.values), meta, Path(path), True)


def error_estimate(game, bar=None) -> dict:
    """The approximate method's measured shortfall on the exactly solved one-column game.

    Both policies play the same dice (common random numbers); the mean paired difference,
    as a fraction of the exact optimum, scaled to this game's expected score is the estimate.
    ``bar(x)`` counts one-column games as a third of a game (they have a third of the turns).
    """
    third = None if bar is None else (lambda x: bar(x / 3))
    one = rules.PokerSchool(columns=1, school_cross_erases=False, minimums=game.minimums)
    exact = solve_states(one)
    fit = fit_policy(one, iterations=FIT_ITERATIONS, games=FIT_GAMES, average=FIT_AVERAGE,
                     progress=third)
    a = play(one, EVAL_GAMES, EVAL_SEED, "solved", LinearEvaluator(one, fit.weights), chunk=512,
             progress=third)
    b = play(one, EVAL_GAMES, EVAL_SEED, "solved", ExactEvaluator(one, exact.values), chunk=512,
             progress=third)
    gap = float((b - a).mean())
    return {"one_column_exact": exact.expected_score, "one_column_gap": gap,
            "one_column_gap_fraction": gap / exact.expected_score}


#: Progress units (games) of one subgradient step of the upper bound.
BOUND_UNITS = 100


def policy_build_units(game) -> float:
    """The progress bar's length for ``build_policy``, in games of the game."""
    fit = (FIT_ITERATIONS + 1) * FIT_GAMES + EVAL_GAMES
    one_column = fit + EVAL_GAMES if game.columns > 1 else 0
    return fit + one_column / 3 + BOUND_ITERATIONS * BOUND_UNITS


def build_policy(game, path, bar=None) -> Solved:
    start = time.perf_counter()
    fit = fit_policy(game, iterations=FIT_ITERATIONS, games=FIT_GAMES, average=FIT_AVERAGE,
                     progress=bar)
    ev = LinearEvaluator(game, fit.weights)
    scores = play(game, EVAL_GAMES, EVAL_SEED, "solved", ev, chunk=512, progress=bar)
    est = error_estimate(game, bar) if game.columns > 1 else {}
    bound = poker_school_bound.upper_bound(
        game, iterations=BOUND_ITERATIONS,
        progress=None if bar is None else (lambda x: bar(x * BOUND_UNITS)))
    mean = float(scores.mean())
    half = 1.959964 * float(scores.std(ddof=1)) / np.sqrt(len(scores))
    frac = est.get("one_column_gap_fraction")
    if frac is not None and game.school_cross_erases:
        frac = max(frac, ERASURE_GAP_FRACTION)
    meta = {"expected_score": mean, "ci95": [mean - half, mean + half], "exact": False,
            "fit_history": [list(h) for h in fit.history], "fit_games": fit.games,
            "eval_games": EVAL_GAMES, "seconds": round(time.perf_counter() - start, 3),
            "predicted_start_value": float(ev.state_values(Batch.empty(game, 1))[0]),
            "error_estimate": None if frac is None else max(frac, 0.0) * mean + half,
            "error_fraction": frac, **est,
            # Proven: no policy expects more than this (poker_school_bound), so the policy's
            # shortfall is at most upper_bound − ci95[0] (at 95% confidence).
            "upper_bound": bound.value, "upper_bound_seconds": round(bound.seconds, 3)}
    write_table(path, kind=KIND_POLICY, ruleset=game.name, options=game.options,
                rules_digest=rules_digest(game), arrays={"weights": fit.weights}, meta=meta)
    return Solved(game, ev, meta, Path(path), True)


def load(game, path) -> Solved:
    kind = KIND_EXACT if game.exact else KIND_POLICY
    table = read_table(path, kind=kind, ruleset=game.name, options=game.options,
                       rules_digest=rules_digest(game))
    meta = dict(table.header["meta"])
    if game.exact:
        if meta.get("n_states") != game.n_states:
            raise TableError(f"{path} has {meta.get('n_states')} states, expected {game.n_states}")
        reachable = np.unpackbits(table.arrays["reachable"], count=game.n_states).astype(bool)
        if reachable.sum() != len(table.arrays["values"]):
            raise TableError(f"{path} is damaged (values do not match its reachable states)")
        values = np.full(game.n_states, np.nan)
        values[reachable] = table.arrays["values"]
        return Solved(game, ExactEvaluator(game, values), meta, Path(path), False)
    weights = np.array(table.arrays["weights"])
    if weights.shape != (poker_school_approx.Features.of(game).size,):
        raise TableError(f"{path} is damaged (weights of the wrong size)")
    return Solved(game, LinearEvaluator(game, weights), meta, Path(path), False)


def solved(game, table=None, rebuild=False) -> Solved:
    """Load the game's table, or build it (with a progress bar on stderr)."""
    path = Path(table) if table else default_path(game)
    if path.exists() and not rebuild:
        return load(game, path)
    if game.exact:
        with progress(int(category.reachable_states(game).sum()),
                      f"solving {game.name} exactly") as update:
            built = build_exact(game, path, update)
    else:
        with progress(int(policy_build_units(game)), f"fitting the {game.name} policy") as update:
            built = build_policy(game, path, _whole_steps(update))
    cache.drop_older_rules(path)
    return built


def _whole_steps(update):
    """A progress callback taking fractional steps, for a bar that counts whole ones."""
    done = [0.0, 0]

    def bar(x):
        done[0] += x
        step = int(done[0]) - done[1]
        if step > 0:
            done[1] += step
            update(step)

    return bar


def solve(options: list[str], out: str | None, rebuild: bool, as_json: bool) -> None:
    """``dicewise solve poker-school``: build or load the table and report it."""
    game = make_game(options)
    s = solved(game, out, rebuild)
    m = s.meta
    report = {"ruleset": game.name, "options": game.options,
              "expected_score": m["expected_score"], "exact": bool(m.get("exact")),
              "error_estimate": None if m.get("exact") else m.get("error_estimate"),
              "upper_bound": None if m.get("exact") else m.get("upper_bound"),
              "ci95": m.get("ci95"), "states": m.get("states"),
              "seconds": m.get("seconds"), "built": s.built, "table": str(s.path)}
    if not m.get("exact"):
        report["states"] = None
        report["weights"] = int(poker_school_approx.Features.of(game).size)
    if as_json:
        return emit_json(report)
    slug = cache.option_slug(game.options)
    how = f"built in {m['seconds']:.1f} s" if s.built else "loaded"
    if m.get("exact"):
        click.echo(f"{game.name} {slug}: optimal expected score {m['expected_score']:.7f} "
                   f"({m['states']:,} states, exact, {how})")
    else:
        lo, hi = m["ci95"]
        err = m.get("error_estimate")
        click.echo(f"{game.name} {slug}: approximate policy, expected score {m['expected_score']:.2f} "
                   f"(95% CI {lo:.2f}..{hi:.2f} over {m['eval_games']:,} games; {how})")
        if err is not None:
            click.echo(f"estimated shortfall from the optimum: {err:.2f} points "
                       f"({100 * m['error_fraction']:.2f}%, as measured on the exact one-column game)")
        bound = m.get("upper_bound")
        if bound is not None:
            click.echo(f"proven: no policy expects more than {bound:.2f} (a loose Lagrangian "
                       f"bound), so this one is at most {bound - lo:.2f} points short")
    click.echo(f"table: {s.path}")


def advise(options: list[str], dice: list[int], roll: int, sheet: str | None, table: str | None,
           as_json: bool) -> None:
    """``dicewise advise poker-school``: rank every keep and write for the dice shown."""
    game = make_game(options)
    state = game.parse_sheet(sheet)
    check_dice(dice)
    if roll not in (1, 2, 3):
        raise DicewiseError(f"the roll number is 1, 2 or 3, not {roll}")
    s = solved(game, table)
    err = None if s.meta.get("exact") else s.meta.get("error_estimate")
    bound = None if s.meta.get("exact") else s.meta.get("upper_bound")
    result = poker_school_advice.advise(game, s.evaluator, state, dice, roll, err, bound)
    if as_json:
        out = {"ruleset": game.name, "rule_options": game.options, **result.to_json()}
        return emit_json(out)
    label = "exact" if not result.approximate else (
        "approximate" + (f", estimated shortfall {err:.1f} points" if err is not None else "")
        + (f", optimum ≤ {bound:.1f}" if bound is not None else ""))
    click.echo(f"{game.name}: roll {roll} of 3, dice {' '.join(map(str, result.dice))}; "
               f"{result.points} points written, {result.turn_start_expected:.3f} expected at "
               f"turn start ({label})")
    click.echo(f"{'':>3} {'expected':>10} {'loss':>9}  choice")
    for i, ch in enumerate(result.choices, 1):
        click.echo(f"{i:>3} {ch.expected:>10.4f} {ch.loss:>9.4f}  {ch.describe()}")


def simulate(options: list[str], games: int, seed: int, policy: str, as_json: bool) -> None:
    """``dicewise simulate poker-school``: play many games and summarise the final scores."""
    game = make_game(options)
    if policy not in play_module.POLICIES:
        raise DicewiseError(f"policy {policy!r} is not one of {' | '.join(play_module.POLICIES)}")
    if games < 1:
        raise DicewiseError(f"simulate at least one game, not {games}")
    ev = solved(game).evaluator if policy == "solved" else None
    with progress(games, f"playing {policy}") as update:
        bar = _whole_steps(update)
        sim = play_module.simulate(game, games, seed, policy, ev, progress=bar)
    lo, hi = sim.ci95
    report = {"ruleset": game.name, "options": game.options, "policy": policy, "games": sim.games,
              "seed": seed, "mean": sim.mean, "std": sim.std, "ci95": [lo, hi],
              "min": float(sim.scores.min()), "max": float(sim.scores.max()),
              "percentiles": sim.percentiles, "games_per_second": sim.games_per_second}
    if as_json:
        return emit_json(report)
    p = sim.percentiles
    click.echo(f"{game.name} {cache.option_slug(game.options)}, policy {policy}, {sim.games:,} "
               f"games, seed {seed}")
    click.echo(f"mean {sim.mean:.3f} ± {(hi - lo) / 2:.3f} (95% CI {lo:.3f}..{hi:.3f}), "
               f"std {sim.std:.3f}")
    click.echo(f"min {report['min']:.0f}  p5 {p['5']:.0f}  p25 {p['25']:.0f}  p50 {p['50']:.0f}  "
               f"p75 {p['75']:.0f}  p95 {p['95']:.0f}  max {report['max']:.0f}")
    click.echo(f"{sim.games_per_second:,.0f} games/s")
    for line in sim.histogram():
        click.echo(line)
