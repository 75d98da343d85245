"""Ryzykant's solve, advise, simulate and duel: parse, call ``play.ryzykant``, format.

The generic commands (``dicewise solve/advise/simulate ryzykant``) call the plain functions
here; ``duel`` is a command of its own.  Every number from the policy table is an estimate
and is labelled so, with the table's error estimate.  Bad input is a DicewiseError.
"""

from __future__ import annotations

import time

import click
import numpy as np

from ..errors import DicewiseError
from ..solver.ryzykant import policy_table as game
from ..solver.ryzykant.rules import (Position, format_fifth, format_sheet, parse_dice, parse_position,
                               ruleset_from)
from .format import emit_json, progress

#: The generic simulate command's default policy name means the solved policy here.
_ALIASES = {"optimal": "solved"}


def _table(ruleset, path=None, rebuild=False):
    """The policy table, built (with a progress bar) if it is missing."""
    return game.load_or_build(ruleset, path, rebuild,
                              progress_factory=lambda n: progress(n, f"fitting {ruleset.name}"))


def solve(options: list[str], out: str | None, rebuild: bool, as_json: bool) -> None:
    """Build (or load) the approximate policy table and summarise it."""
    ruleset = ruleset_from(options)
    start = time.perf_counter()
    table = _table(ruleset, out, rebuild)
    m = table.meta
    report = {"ruleset": ruleset.name, "options": ruleset.options, "approximate": True,
              "expected_score": m["expected_score"], "expected_score_ci95": m["ci95"],
              "expected_score_kind": f"simulated mean of the solved policy over {m['eval_games']} games",
              "value_at_start": m["value_at_start"], "error_estimate": m["error_estimate"],
              "bellman_residual_rms": m["bellman_residual_rms"], "parameters": m["parameters"],
              "build_seconds": m["seconds"], "seconds": round(time.perf_counter() - start, 3),
              "table": str(table.path)}
    if as_json:
        return emit_json(report)
    lo, hi = m["ci95"]
    click.echo(f"ryzykant {_slug(ruleset)}: approximate policy, expected score "
               f"{m['expected_score']:.1f} (95% CI {lo:.1f}..{hi:.1f}; the model says "
               f"{m['value_at_start']:.1f}, error estimate ±{m['error_estimate']:.1f})")
    click.echo(f"{m['parameters']:,} parameters, built in {m['seconds']:.1f} s; table: {table.path}")


def _slug(ruleset):
    return ",".join(f"{k}={v}" for k, v in ruleset.options.items())


def advise(options: list[str], dice: list[int], sheet: str | None, fifth: str | None,
           table: str | None, as_json: bool) -> None:
    """Rank every distinct split of the dice by estimated expected final score."""
    ruleset = ruleset_from(options)
    pos = parse_position(ruleset, sheet, fifth)
    parse_dice(dice)  # refuse bad dice before any table is built
    tab = _table(ruleset, table)
    ranked = game.advise(ruleset, tab, pos, dice)
    err = tab.error_estimate
    if as_json:
        opts = [r.as_dict() for r in ranked]
        return emit_json({"ruleset": ruleset.name, "rule_options": ruleset.options,
                          "dice": sorted(dice), "sheet": pos.sheet, "fifth": pos.fifth,
                          "score_now": pos.score, "best": opts[0], "options": opts,
                          "approximate": True, "error_bound": err,
                          "error_kind": "estimate (not a proof), see the table's meta"})
    click.echo(f"ryzykant: dice {' '.join(map(str, sorted(dice)))}; sheet "
               f"{pos.sheet or '(empty)'}; fifth {pos.fifth or '(none)'}; "
               f"{pos.rolls} rolls, {pos.score} points now")
    click.echo(f"expected final scores are approximate (error estimate ±{err:.0f})")
    click.echo(f"{'':>3} {'expected':>10} {'loss':>8}  pairs      fifth")
    for i, r in enumerate(ranked, 1):
        (a, b), (c, d) = r.pairs
        note = " (puścioch: no fifth-die mark)" if r.puscioch else (" (ends the game)" if r.ends else "")
        fifth_txt = "-" if r.puscioch else str(r.fifth)
        click.echo(f"{i:>3} {r.expected:>10.1f} {r.loss:>8.1f}  {a}+{b} {c}+{d}    {fifth_txt}{note}")


def _policy(name, ruleset, seed):
    name = _ALIASES.get(name, name)
    if name not in game.POLICIES:
        raise DicewiseError(f"unknown policy {name!r} (policies: {', '.join(game.POLICIES)})")
    tab = _table(ruleset) if name == "solved" else None
    return name, game.make_policy(name, ruleset, tab, seed)


def _play(ruleset, name, policy, games, seed):
    start = time.perf_counter()
    with progress(games, f"playing {games:,} games ({name})") as step:
        played = game.play(ruleset, policy, games, seed, step)
    return played, time.perf_counter() - start


def _histogram(scores, width=40, bins=16):
    counts, edges = np.histogram(scores, bins=bins)
    top = max(int(counts.max()), 1)
    return [f"{edges[i]:>9.0f} .. {edges[i + 1]:>9.0f} {'#' * round(width * c / top):<{width}} {c}"
            for i, c in enumerate(counts)]


def simulate(options: list[str], games: int, seed: int, policy: str, as_json: bool) -> None:
    """Play ``games`` games with a policy and summarise the final scores."""
    ruleset = ruleset_from(options)
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")
    name, pol = _policy(policy, ruleset, seed)
    played, seconds = _play(ruleset, name, pol, games, seed)
    s = game.summary(played.scores)
    report = {"ruleset": ruleset.name, "options": ruleset.options, "policy": name,
              "games": games, "seed": seed, **s,
              "mean_rolls": float(played.rolls.mean()), "mean_puscioch": float(played.puscioch.mean()),
              "games_per_second": games / max(seconds, 1e-9),
              "example_games": [{"sheet": format_sheet(played.upper[i]),
                                 "fifth": format_fifth(played.lower[i]),
                                 "rolls": int(played.rolls[i]), "score": int(played.scores[i])}
                                for i in range(min(3, games))]}
    if as_json:
        return emit_json(report)
    lo, hi = s["ci95"]
    click.echo(f"ryzykant {_slug(ruleset)}, policy {name}, {games:,} games, seed {seed}")
    click.echo(f"mean {s['mean']:.1f}  (95% CI {lo:.1f} .. {hi:.1f}), std {s['std']:.1f}")
    p = s["percentiles"]
    click.echo(f"min {s['min']:.0f}  p5 {p['5']:.0f}  p25 {p['25']:.0f}  median {p['50']:.0f}  "
               f"p75 {p['75']:.0f}  p95 {p['95']:.0f}  max {s['max']:.0f}")
    click.echo(f"rolls per game {report['mean_rolls']:.2f}, puściochy {report['mean_puscioch']:.3f}; "
               f"{report['games_per_second']:,.0f} games/s")
    for line in _histogram(played.scores):
        click.echo(line)
    for i, ex in enumerate(report["example_games"], 1):
        click.echo(f"game {i}: --sheet \"{ex['sheet']}\" --fifth \"{ex['fifth']}\" "
                   f"({ex['rolls']} rolls) -> {ex['score']}")


class _Int(click.types.IntParamType):
    def fail(self, message, param=None, ctx=None):
        name = param.human_readable_name if param is not None else "value"
        raise DicewiseError(f"invalid value for {name}: {message}")


@click.command()
@click.argument("ruleset")
@click.option("--a", "policy_a", default="solved", show_default=True, help="solved | greedy | random")
@click.option("--b", "policy_b", default="greedy", show_default=True, help="solved | greedy | random")
@click.option("--games", default=100_000, show_default=True, type=_Int())
@click.option("--seed", default=0, show_default=True, type=_Int())
@click.option("-o", "--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A rule option; repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
def duel(ruleset, policy_a, policy_b, games, seed, options, as_json):
    """Two policies play the same rolls: win/draw/loss rates of A against B, mean margin."""
    if ruleset != "ryzykant":
        raise DicewiseError(f"duel is for ryzykant (shared rolls), not {ruleset!r}")
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")
    rules = ruleset_from(list(options))
    name_a, pol_a = _policy(policy_a, rules, seed)
    name_b, pol_b = _policy(policy_b, rules, seed + 1)
    played_a, _ = _play(rules, name_a, pol_a, games, seed)
    played_b, _ = _play(rules, name_b, pol_b, games, seed)
    d = game.duel(played_a.scores, played_b.scores, name_a, name_b)
    report = {"ruleset": rules.name, "options": rules.options, "a": name_a, "b": name_b,
              "games": games, "seed": seed,
              "wins": d.wins, "wins_ci95": list(d.rate_ci95(d.wins)),
              "draws": d.draws, "draws_ci95": list(d.rate_ci95(d.draws)),
              "losses": d.losses, "losses_ci95": list(d.rate_ci95(d.losses)),
              "mean_margin": d.margin, "mean_margin_ci95": list(d.margin_ci95),
              "mean_a": d.mean_a, "mean_b": d.mean_b}
    if as_json:
        return emit_json(report)
    click.echo(f"ryzykant {_slug(rules)}: {name_a} (A) against {name_b} (B), {games:,} games "
               f"on the same rolls, seed {seed}")
    for label, key in (("A wins", "wins"), ("draws", "draws"), ("B wins", "losses")):
        lo, hi = report[key + "_ci95"]
        click.echo(f"{label:<7} {100 * report[key]:6.2f}%  (95% CI {100 * lo:.2f} .. {100 * hi:.2f})")
    lo, hi = d.margin_ci95
    click.echo(f"mean margin A − B {d.margin:.1f} (95% CI {lo:.1f} .. {hi:.1f}); "
               f"means {d.mean_a:.1f} vs {d.mean_b:.1f}")


__all__ = ["solve", "advise", "simulate", "duel", "Position", "format_sheet", "format_fifth"]
