"""Commands that play games: simulate, table, bench-agent, review."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import click

from ..errors import DicewiseError
from ..play import strategy
from ..play.agents import CallableAgent, ProcessAgent, load_callable
from ..play.bench import bench_agent
from ..play.review import review_lines
from ..play.simulate import POLICIES, simulate as run_simulation
from .format import emit_json, progress
from .games import game_module, json_flag, option_flag, solved_game


def _histogram(summary, width: int = 40) -> list[str]:
    most = max(c for *_, c in summary.histogram) or 1
    return [f"{lo:>8.1f} – {hi:<8.1f} {'#' * round(width * c / most):<{width}} {c}"
            for lo, hi, c in summary.histogram]


@click.command()
@click.argument("ruleset")
@click.option("--games", default=10000, show_default=True, type=click.IntRange(1, 10**8))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--policy", default="optimal", show_default=True,
              help="optimal | greedy | random (ryzykant and poker-school: solved | greedy | random)")
@option_flag
@json_flag
def simulate(ruleset, games, seed, policy, options, as_json):
    """Play many games with a policy and summarise the final scores."""
    module = game_module(ruleset)
    if module is not None:
        return module.simulate(list(options), games, seed, policy, as_json)
    if policy not in POLICIES:
        raise DicewiseError(f"unknown policy {policy!r} (policies: {', '.join(POLICIES)})")
    solution = solved_game(ruleset, options)
    with progress(games, f"simulating {games:,} games") as update:
        summary, _ = run_simulation(solution.game, solution.values.values, policy, games, seed, update)
    exact = strategy.exact_distribution(solution.game, solution.values.values) \
        if policy == "optimal" and strategy.distribution_fits(solution.game) else None
    report = summary.to_json()
    report["solved_expected"] = solution.expected_score
    if exact is not None:
        report["exact"] = exact.to_json()
    if as_json:
        return emit_json(report)
    lo, hi = summary.ci95
    click.echo(f"{ruleset} {policy}: {summary.games:,} games, seed {seed}, "
               f"{summary.games_per_second:,.0f} games/s")
    click.echo(f"mean {summary.mean:.3f} ± {(hi - lo) / 2:.3f} (95% CI {lo:.3f} .. {hi:.3f}), "
               f"std {summary.std:.3f}; optimal expected {solution.expected_score:.4f}")
    p = summary.percentiles
    click.echo(f"min {summary.minimum:g}  p5 {p['5']:g}  p25 {p['25']:g}  median {p['50']:g}  "
               f"p75 {p['75']:g}  p95 {p['95']:g}  max {summary.maximum:g}")
    if "big_general_rate" in summary.extra:
        click.echo(f"big generals: {summary.extra['big_general_rate']:.4%} of games")
    if exact is not None:
        click.echo(f"exact distribution of the optimal policy: mean {exact.mean:.4f}, std "
                   f"{exact.std:.3f}, median {exact.quantile(0.5):g}")
    for line in _histogram(summary):
        click.echo(line)


@click.command()
@click.argument("ruleset")
@click.option("--what", type=click.Choice(["opening", "states", "categories"]), default="opening",
              show_default=True)
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
@click.option("--games", default=20000, show_default=True, type=click.IntRange(1, 10**7),
              help="Games simulated for --what categories.")
@click.option("--seed", default=0, show_default=True, type=int)
@option_flag
def table(ruleset, what, fmt, out, games, seed, options):
    """Write a strategy table: opening keeps, every state's value, or per-category statistics."""
    if game_module(ruleset) is not None:
        raise DicewiseError(f"strategy tables are for the exact category games, not {ruleset}")
    solution = solved_game(ruleset, options)
    game, values = solution.game, solution.values
    if what == "opening":
        header, rows = strategy.opening_table(game, values)
    elif what == "states":
        header, rows = strategy.state_table(game, values)
    else:
        with progress(games, f"simulating {games:,} games") as update:
            header, rows = strategy.category_table(game, values, games, seed, update)
    text = _render(header, rows, fmt)
    if out:
        tmp = Path(out).with_name(Path(out).name + ".tmp")
        tmp.write_text(text)
        tmp.replace(out)
        click.echo(f"wrote {len(rows):,} rows to {out}", err=True)
    else:
        click.echo(text, nl=False)


def _render(header, rows, fmt) -> str:
    if fmt == "json":
        import json

        return json.dumps([dict(zip(header, r)) for r in rows], ensure_ascii=False) + "\n"
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


@click.command("bench-agent")
@click.argument("ruleset")
@click.option("--agent", "agent_spec", help="A Python callable, MODULE:FUNCTION.")
@click.option("--agent-cmd", help="A program speaking JSON lines on stdin/stdout.")
@click.option("--games", default=1000, show_default=True, type=click.IntRange(1, 10**7))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--on-error", type=click.Choice(["continue", "stop"]), default="continue",
              show_default=True, help="After an agent failure: play the optimal action, or stop.")
@click.option("--timeout", default=10.0, show_default=True, type=float,
              help="Seconds an --agent-cmd may take per decision.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False),
              help="Write every observation and action as JSON lines (for `review`).")
@option_flag
@json_flag
def bench_agent_command(ruleset, agent_spec, agent_cmd, games, seed, on_error, timeout, log_path,
                        options, as_json):
    """Score an AI agent against the optimal policy: exact regret of each decision."""
    if bool(agent_spec) == bool(agent_cmd):
        raise click.UsageError("give exactly one of --agent MODULE:CALLABLE or --agent-cmd CMD")
    if game_module(ruleset) is not None:
        raise DicewiseError(f"bench-agent is for the exact category games, not {ruleset}")
    solution = solved_game(ruleset, options)
    agent = CallableAgent(load_callable(agent_spec), agent_spec) if agent_spec else \
        ProcessAgent(agent_cmd, timeout)
    log = open(log_path, "w") if log_path else None
    try:
        with progress(solution.game.n_categories, f"{games:,} games, turn by turn") as update:
            report = bench_agent(solution.game, solution.values.values, agent, games, seed, on_error,
                                 log, update)
    finally:
        agent.close()
        if log:
            log.close()
    data = report.to_json()
    if as_json:
        emit_json(data)
    else:
        _print_agent_report(data)
    if report.stopped:
        raise DicewiseError(f"stopped at the agent's first error: {report.errors[0]['error']}")


def _print_agent_report(d):
    lo, hi = d["ci95"]
    click.echo(f"{d['agent']} on {d['ruleset']}: {d['games']:,} games, seed {d['seed']}")
    click.echo(f"mean {d['mean']:.3f} (95% CI {lo:.3f} .. {hi:.3f}); optimal on the same dice "
               f"{d['optimal_mean']:.3f}")
    click.echo(f"regret {d['regret_per_game']:.4f} points a game, {d['regret_per_decision']:.5f} a "
               f"decision over {d['decisions']:,} decisions")
    stages = ", ".join(f"{k} {v:.3f}" for k, v in d["regret_by_stage"].items())
    click.echo(f"regret by decision (total): {stages}")
    w = d["win_rate_vs_optimal"]
    click.echo(f"against the optimal policy on the same dice: {w['wins']:.1%} wins, "
               f"{w['draws']:.1%} draws, {w['losses']:.1%} losses")
    for c in d["costliest"]:
        click.echo(f"  lost {c['loss']:.3f}: game {c['game']} turn {c['turn']} roll {c['roll']} dice "
                   f"{c['dice']}: chose {c['chose']}, best {c['best']}")
    if d["errors"]:
        click.echo(f"{len(d['errors'])} agent errors; first: game {d['errors'][0]['game']} turn "
                   f"{d['errors'][0]['turn']} roll {d['errors'][0]['roll']}: {d['errors'][0]['error']}"
                   f" (sent {d['errors'][0]['sent']!r})")


@click.command()
@click.argument("ruleset")
@click.argument("log", type=click.File("r"))
@option_flag
@json_flag
def review(ruleset, log, options, as_json):
    """Judge a logged game (agent-protocol JSON lines), decision by decision."""
    if game_module(ruleset) is not None:
        raise DicewiseError(f"review is for the exact category games, not {ruleset}")
    solution = solved_game(ruleset, options)
    judged = review_lines(solution.game, solution.values, log)
    if as_json:
        return emit_json({"decisions": [r.__dict__ | {"dice": list(r.dice)} for r in judged],
                          "total_loss": sum(r.loss for r in judged)})
    for r in judged:
        mark = "ok" if r.loss < 1e-9 else f"lost {r.loss:.3f}"
        click.echo(f"line {r.line} turn {r.turn} roll {r.roll} dice {' '.join(map(str, r.dice))}: "
                   f"chose {r.chose} ({r.chose_expected:.3f}); best {r.best} ({r.best_expected:.3f}) "
                   f"— {mark}")
    click.echo(f"total expected loss {sum(r.loss for r in judged):.4f} over {len(judged)} decisions")
