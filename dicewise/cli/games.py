"""Commands shared by every game: rules, solve and advise.

Category games are handled here; the approximate games provide the same operations in
their own modules (``cli/ryzykant.py``, ``cli/poker_school.py``), and Risk has its own
command group.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import click

from .. import api
from ..errors import DicewiseError
from ..solver.options import option_fields
from ..solver.rulesets import CATEGORY_GAMES, RULESETS, ruleset_entry
from ..tables import cache
from .format import emit_json, progress

#: Games whose solve/advise/simulate live in their own CLI module.
OWN_MODULE = {"ryzykant": "ryzykant", "poker-school": "poker_school"}


def game_module(name: str):
    """The CLI module of a game handled outside the category engine, or None."""
    entry = ruleset_entry(name)
    if entry.name == "risk":
        raise DicewiseError("risk has its own commands: see `dicewise risk --help`")
    if entry.name in OWN_MODULE:
        return importlib.import_module(f".{OWN_MODULE[entry.name]}", __package__)
    return None


option_flag = click.option("-o", "--option", "options", multiple=True, metavar="KEY=VALUE",
                           help="A rule option (see `dicewise rules RULESET`); repeatable.")
json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


def solved_game(ruleset, options, table=None, rebuild=False, must_exist=False):
    """Load or build a category game's table, with a progress bar while building.

    An explicit table that must exist (``advise --table``) is never built in its place.
    """
    game = api.make_game(ruleset, options)
    path = Path(table) if table else cache.default_path(game)
    if must_exist and not path.exists():
        raise DicewiseError(f"table file {path} does not exist")
    if path.exists() and not rebuild:
        return api.solve(game, table=path)
    with progress(cache.reachable_count(game), f"solving {game.name}") as update:
        return api.solve(game, table=path, rebuild=True, progress=update)


@click.command()
@click.argument("ruleset", required=False)
@json_flag
def rules(ruleset, as_json):
    """List the rulesets, or show one ruleset's categories and options."""
    if ruleset is None:
        rows = [{"name": e.name, "exact": e.exact, "title": e.title} for e in RULESETS.values()]
        if as_json:
            return emit_json(rows)
        for r in rows:
            kind = "exact" if r["exact"] else "approximate"
            click.echo(f"{r['name']:<15} {kind:<12} {r['title']}")
        return
    entry = ruleset_entry(ruleset)
    cls = entry.load()
    options = [] if cls is None else [
        {"name": f.name, "default": f.default, "choices": f.metadata["choices"],
         "help": f.metadata["help"]} for f in option_fields(cls)]
    categories = list(cls().category_names) if ruleset in CATEGORY_GAMES else None
    info = {"name": entry.name, "title": entry.title, "exact": entry.exact,
            "categories": categories, "options": options,
            "sheet_counters": list(cls.sheet_counters) if ruleset in CATEGORY_GAMES else None}
    if as_json:
        return emit_json(info)
    click.echo(f"{entry.name}: {entry.title} ({'exact' if entry.exact else 'approximate'})")
    if categories:
        click.echo("categories: " + ", ".join(categories))
    if info["sheet_counters"]:
        click.echo("sheet counters: " + ", ".join(info["sheet_counters"]))
    for o in options:
        if isinstance(o["default"], bool):
            choices, default = "true | false", str(o["default"]).lower()
        else:
            choices = " | ".join(map(str, o["choices"])) if o["choices"] else "integer"
            default = o["default"]
        click.echo(f"option {o['name']} = {default}  ({choices}): {o['help']}")
    if entry.name == "risk":
        click.echo("commands: dicewise risk --help")


@click.command()
@click.argument("ruleset")
@option_flag
@click.option("--out", type=click.Path(dir_okay=False), help="Write the table here (default: the cache).")
@click.option("--rebuild", is_flag=True, help="Solve again even if the table exists.")
@json_flag
def solve(ruleset, options, out, rebuild, as_json):
    """Solve RULESET, write its table, and print the optimal expected score."""
    module = game_module(ruleset)
    if module is not None:
        return module.solve(list(options), out, rebuild, as_json)
    solution = solved_game(ruleset, options, out, rebuild)
    report = {"ruleset": solution.game.name, "options": solution.game.options,
              "expected_score": solution.expected_score, "states": solution.values.n_reachable,
              "seconds": round(solution.seconds, 3), "table": str(solution.table)}
    if ruleset == "general":
        report["p_big_general"] = solution.game.big_general_probability()
    if as_json:
        return emit_json(report)
    how = f"solved in {solution.seconds:.2f} s" if solution.built else "loaded"
    click.echo(f"{solution.game.name} {cache.option_slug(solution.game.options)}: optimal expected "
               f"score {solution.expected_score:.7f} ({report['states']:,} states, {how})")
    if "p_big_general" in report:
        click.echo(f"P(big general in a game) = {report['p_big_general']:.6f}")
    click.echo(f"table: {solution.table}")


@click.command()
@click.argument("ruleset")
@click.option("--roll", type=int, default=None, help="Which roll of the turn the dice show (1..3).")
@click.option("--dice", "faces", type=int, nargs=5, required=True, metavar="D D D D D",
              help="The five dice showing.")
@click.option("--sheet", default="", help='Filled boxes, e.g. "ones=3,straight=25".')
@click.option("--fifth", default=None, help='Ryzykant only: fifth-die marks, e.g. "2=5,5=3".')
@option_flag
@click.option("--table", type=click.Path(dir_okay=False), help="Use this table file.")
@json_flag
def advise(ruleset, roll, faces, sheet, fifth, options, table, as_json):
    """Rank every choice for these dice: keeps (with rolls left) and writes."""
    module = game_module(ruleset)
    if ruleset == "ryzykant":
        return module.advise(list(options), list(faces), sheet or None, fifth, table, as_json)
    if fifth is not None:
        raise click.UsageError("--fifth is only for ryzykant")
    if roll is None:
        raise click.UsageError("give --roll 1, 2 or 3")
    if module is not None:
        return module.advise(list(options), list(faces), roll, sheet or None, table, as_json)
    game = api.make_game(ruleset, options)
    from ..solver.sheet import parse_sheet
    from ..solver.advice import advise_position, check_position

    checked = parse_sheet(game, sheet)
    check_position(game, checked, faces, roll)
    solution = solved_game(ruleset, options, table, must_exist=bool(table))
    result = advise_position(game, solution.values, checked, faces, roll)
    if as_json:
        return emit_json(result.to_json())
    click.echo(f"{game.name}: roll {roll} of 3, dice {' '.join(map(str, result.dice))}; "
               f"{checked.points} points written, {result.state_value:.3f} expected at turn start")
    if result.ended:
        click.echo(f"the game is over: {result.ended}")
        return
    click.echo(f"{'':>3} {'expected':>10} {'loss':>9}  choice")
    for i, ch in enumerate(result.choices, 1):
        click.echo(f"{i:>3} {ch.expected:>10.4f} {ch.loss:>9.4f}  {ch.describe(3 - roll)}")
