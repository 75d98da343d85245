"""Commands that read a game: rules, solve and advise — for every registered ruleset."""

from __future__ import annotations

import click

from .. import api
from .format import checked_output, emit_json, progress

option_flag = click.option("-o", "--option", "options", multiple=True, metavar="KEY=VALUE",
                           help="A rule option (see `dicewise rules RULESET`); repeatable.")
json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


def quality(approximate: bool, error_estimate=None, upper_bound=None) -> str:
    """How sure a value is, in words: exact, or approximate with its measured error."""
    if not approximate:
        return "exact"
    parts = ["approximate"]
    if error_estimate is not None:
        parts.append(f"error estimate ±{error_estimate:.3g}")
    if upper_bound is not None:
        parts.append(f"optimum ≤ {upper_bound:.2f} (proven)")
    return ", ".join(parts)


@click.command()
@click.argument("ruleset", required=False)
@json_flag
def rules(ruleset, as_json):
    """List the rulesets, or show one ruleset's commands, categories and options."""
    info = api.describe(ruleset)
    if as_json:
        return emit_json(info)
    if ruleset is None:
        for r in info:
            click.echo(f"{r['name']:<15} {'exact' if r['exact'] else 'approximate':<12} {r['title']}")
        return
    click.echo(f"{info['name']}: {info['title']} ({'exact' if info['exact'] else 'approximate'})")
    if info["commands"]:
        click.echo("commands: " + ", ".join(info["commands"]))
    if info["own_group"]:
        own = ", ".join(info.get("group_commands", []))
        click.echo(f"its own commands: {own} (see `dicewise {info['own_group']} --help`)")
    if info.get("categories"):
        click.echo("categories: " + ", ".join(info["categories"]))
    if info.get("sheet_counters"):
        click.echo("sheet counters: " + ", ".join(info["sheet_counters"]))
    if info["sheet"]:
        click.echo(f"sheet: {info['sheet']}")
    if info["tables"]:
        click.echo("tables: " + ", ".join(info["tables"]))
    if "simulate" in info["commands"]:
        click.echo("policies: " + ", ".join(info["policies"]))
    for o in info["options"]:
        if isinstance(o["default"], bool):
            choices, default = "true | false", str(o["default"]).lower()
        else:
            choices = " | ".join(map(str, o["choices"])) if o["choices"] else "a number"
            default = o["default"]
        click.echo(f"option {o['name']} = {default}  ({choices}): {o['help']}")


@click.command()
@click.argument("ruleset")
@option_flag
@click.option("--out", type=click.Path(), help="Write the table here (default: the cache).")
@click.option("--rebuild", is_flag=True, help="Solve again even if the table exists.")
@json_flag
def solve(ruleset, options, out, rebuild, as_json):
    """Solve RULESET (or fit its policy), write its table, and print the expected score."""
    if out:
        checked_output(out)
    solution = api.solve(ruleset, options, table=out, rebuild=rebuild, progress=progress)
    report = api.solve_report(solution)
    if as_json:
        return emit_json(report)
    how = f"built in {solution.seconds:.2f} s" if solution.built else "loaded"
    slug = ", ".join(f"{k}={v}" for k, v in report["rule_options"].items()) or "default rules"
    what = quality(solution.approximate, solution.error_estimate, report.get("upper_bound"))
    kind = "expected score of the best policy" if solution.approximate else "optimal expected score"
    line = f"{report['ruleset']} ({slug}): {kind} {report['expected_score']:.7f} ({what}"
    if report.get("ci95"):
        lo, hi = report["ci95"]
        line += f"; 95% CI {lo:.2f} .. {hi:.2f}"
    click.echo(line + f"; {how})")
    shown = {"ruleset", "rule_options", "expected_score", "approximate", "ci95", "error_estimate",
             "seconds", "built", "table", "upper_bound"}
    for key, value in report.items():
        if key not in shown and value is not None:
            click.echo(f"{key.replace('_', ' ')}: {value:,}" if isinstance(value, int)
                       else f"{key.replace('_', ' ')}: {value}")
    click.echo(f"table: {report['table']}")


@click.command()
@click.argument("ruleset")
@click.option("--roll", type=int, default=None, help="Which roll of the turn the dice show (1..3).")
@click.option("--dice", "faces", type=int, nargs=5, required=True, metavar="D D D D D",
              help="The five dice showing.")
@click.option("--sheet", default="", help='The sheet so far, e.g. "ones=3,straight=25" '
              "(see `dicewise rules RULESET`).")
@click.option("--fifth", default=None, help='Fifth-die marks, for games with a fifth die '
              '(ryzykant), e.g. "2=5,5=3".')
@option_flag
@click.option("--table", type=click.Path(), help="Use this table file (it must exist).")
@json_flag
def advise(ruleset, roll, faces, sheet, fifth, options, table, as_json):
    """Rank every choice for these dice: keeps (with rolls left), writes, splits."""
    result = api.advise(ruleset, dice=list(faces), roll=roll, sheet=sheet or None, fifth=fifth,
                        options=options, table=table, progress=progress)
    if as_json:
        return emit_json(result)
    click.echo(result.headline)
    click.echo(f"values: {quality(result.approximate, result.error_estimate, result.upper_bound)}")
    if result.ended:
        click.echo(f"the game is over: {result.ended}")
        return
    click.echo(f"{'':>3} {'expected':>10} {'loss':>9}  choice")
    for i, ch in enumerate(result.choices, 1):
        click.echo(f"{i:>3} {ch.expected:>10.4f} {ch.loss:>9.4f}  {ch.label}")
