"""``dicewise play``: follow a whole game at the table, in the players' language.

In a terminal the game shows the sheets, asks for the dice, shows the best choices for the
player to move and takes the next command; from a pipe it reads the same commands line by
line; with ``--json`` every command answers one JSON line (docs/json.md), the line
``TableGame.apply`` returns.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import click
from click.core import ParameterSource

from .. import i18n
from ..errors import DicewiseError
from ..play.session import TableGame, read_saved, saved_language
from ..api import MAX_SEED, jsonable
from .format import GROUP_LANG, progress, speak, wrapped
from .games import (choice_label, expected_score_mark, number_columns, option_flag, quality,
                    ranked_columns, ranking_head, settled_line)
from .main import Command, interrupted, terminated


@click.command(cls=Command)
@click.argument("ruleset", required=False)
@click.option("--players", type=click.IntRange(1, 6), default=None,
              help="How many play (default 2, or as many as --names).")
@click.option("--names", default=None, help='The players in seat order, e.g. "Ann,Boris,Ola".')
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None,
              help="The seed of the dice dicewise rolls (`roll`); default: a fresh one.")
@click.option("--lang", default=None, help="en, ru or pl (default: from the locale).")
@option_flag
@click.option("--resume", "resume", type=click.Path(), default=None,
              help="Go on with a game saved by `save FILE`.")
@click.option("--top", type=click.IntRange(min=1), default=5, show_default=True,
              help="How many of the best choices to show.")
@click.option("--target", type=click.IntRange(min=0), default=None,
              help="Advise for P(final score ≥ TARGET) instead of the mean.")
@click.option("--objective", type=click.Choice(["auto", "score", "win"]), default="auto",
              show_default=True, help="What advice plays for: auto (two-player General: the "
              "win; otherwise the expected score), score or win.")
@click.option("--advice/--no-advice", "advice", default=None,
              help="Advice at every choice (the default), or the score only: no advice, and "
              "no table to build. With --resume: the saved game's, unless given.")
@click.option("--json", "as_json", is_flag=True,
              help="Answer every command with one JSON line (for scripts).")
def play(ruleset, players, names, seed, lang, options, resume, top, target, objective,
         advice, as_json):
    """Follow a whole game of RULESET for several players, with advice at every choice.

    Commands, one a line: dice D D D D D, roll, advise, pick K, keep D..., write BOX,
    cross ROW, split A+B C+D E, undo, sheet, save FILE, help, quit.  Box names may be typed
    in English, Russian or Polish, or as the seeds abbreviate them."""
    lang = lang or click.get_current_context().meta.get(GROUP_LANG)
    speak(lang)  # the language of its errors and progress lines (a resumed game's, once read)
    if resume is not None:
        saved = read_saved(resume)
        speak(lang or saved_language(saved))  # what is refused is said in the game's language
        objective_given = (click.get_current_context().get_parameter_source("objective")
                           is not ParameterSource.DEFAULT)
        if (players or names or seed is not None or options or target is not None
                or objective_given):
            raise click.UsageError(i18n.Message(
                "--resume takes the game's own settings: give only --lang, --top, --advice, "
                "--no-advice or --json with it"))
        game = TableGame.from_json(saved, progress=progress, ruleset=ruleset, lang=lang or None)
        speak(game.table.lang)
        if click.get_current_context().get_parameter_source("top") is not ParameterSource.DEFAULT:
            game.table.top = top  # else the saved game's
        if advice is not None:
            game.table.advice = advice
    else:
        if not ruleset:
            raise click.UsageError(i18n.Message("name the ruleset (dicewise rules lists them), or "
                                                "--resume FILE"))
        game = TableGame.new(ruleset, players=players,
                             names=[n.strip() for n in names.split(",")] if names else None,
                             options=options, seed=seed, target=target, lang=lang, top=top,
                             objective=objective, advice=advice is not False,
                             progress=progress)
    if as_json:
        return _json_loop(game)
    _people_loop(game, sys.stdin.isatty())


def _json_loop(game: TableGame) -> None:
    for line in sys.stdin:  # a blank line too: one answer a line ("an empty line")
        answer = game.apply(line)
        click.echo(json.dumps(jsonable(answer), ensure_ascii=False))
        if answer.get("quit"):
            return


def _people_loop(game: TableGame, interactive: bool) -> None:
    tr = game.tr
    click.echo(wrapped(tr("{game}: {players}. Type help for the commands.").format(
        game=game.game.name, players=", ".join(game.table.names)), entries=True))
    _show_sheets(game)
    if game.over:
        _show_result(game)
    _prompt_line(game)
    saved = len(game.events)  # the moves a save (or the resumed file) holds
    try:
        while True:
            try:
                line = input("> " if interactive else "")
            except (EOFError, KeyboardInterrupt):  # Ctrl-D or Ctrl-C: leave (saved if need be)
                # SIGTERM (``kill``) is heard as Ctrl+C: the game is saved whoever typed
                # its moves, and the command ends as a terminated one does (status 143)
                ctx = click.get_current_context()
                stopped = terminated(ctx)
                if interactive:
                    click.echo()
                _leave(game, saved, rescue=interactive or stopped)
                if stopped:
                    interrupted(ctx)
                return
            if not line.strip():
                continue
            before = (game.over, len(game.events), game.to_move if not game.over else None)
            sheets = [s.text for s in game.sheets]
            answer = game.apply(line)
            if not answer["ok"]:
                click.echo(wrapped(tr("not done: {error}").format(error=answer["error"])))
                continue
            if answer.get("quit"):
                return _leave(game, saved)
            if "help" in answer:
                for text in answer["help"].values():
                    click.echo(wrapped("  " + text, indent=6))
                continue
            if "saved" in answer:
                click.echo(tr("saved to {path}").format(path=answer["saved"]))
                saved = len(game.events)
                continue
            verb = answer["command"]
            if "picked" in answer:  # a choice the screen may not have shown: say which
                picked = SimpleNamespace(**answer["picked"])  # the action, detail and label
                click.echo(wrapped(tr("played: {choice}").format(choice=_label(game, picked))))
            # after every write (a solitaire game's too) and split, and when the turn passes
            turn_over = before[2] is not None and game.to_move != before[2]
            written = sheets != [s.text for s in game.sheets]
            if verb in ("sheet", "undo") or turn_over or written or game.over:
                _show_sheets(game)
            if game.over and not before[0]:
                _show_result(game)
            if verb == "advise" and not game.over:
                _show_advice(game)
            else:
                _prompt_line(game)
    except KeyboardInterrupt:  # Ctrl-C while a command ran (a table being built): saved too
        if interactive:  # the terminal echoed ^C where the output stood: a line of its own
            click.echo()
        _leave(game, saved, rescue=interactive or terminated(click.get_current_context()))
        raise


def _leave(game: TableGame, saved: int, rescue: bool = False) -> None:
    """Say that the moves after the first ``saved`` (which a save holds) are lost; where
    ``rescue`` (Ctrl+C or Ctrl+D in a terminal: one stray key; SIGTERM) save them instead.
    An ended game too: its last move may be a typo that ended it, which ``undo`` takes
    back."""
    if len(game.events) == saved:
        return
    path = _rescued(game) if rescue else None
    if path is None:
        click.echo(game.tr("the game is not saved: it ends here (save FILE before quit keeps it)"))
    else:
        click.echo(game.tr("the game is saved; this goes on with it:"))
        click.echo(f"    dicewise play --resume {path}")


def _rescued(game: TableGame) -> str | None:
    """Save ``game`` in the working folder under a new name; None where it cannot be."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        path = Path(f"dicewise-{game.game.name}-{stamp}{f'-{n}' if n else ''}.json")
        try:  # claimed as it is written: another table left in the same second takes -1
            return str(game.save(path, new=True))
        except FileExistsError:
            continue
        except (OSError, DicewiseError):
            return None
    return None


def _prompt_line(game: TableGame) -> None:
    """What is awaited, and the advice where a choice is."""
    tr = game.tr
    if game.over:  # a typo that ended the game can still be taken back
        click.echo(tr("undo takes the last move back; save FILE keeps the game; quit leaves"))
        return
    name = game.table.names[game.to_move]
    if game.awaiting == "dice":
        kept = (tr(" (kept: {kept})").format(kept=" ".join(map(str, game.kept)))
                if game.kept else "")
        click.echo(wrapped(tr("{name}: the dice? (dice D D D D D, or roll){kept}").format(
            name=name, kept=kept), entries=True))
        return
    if game.shared:
        click.echo(wrapped(tr("{name}: dice {dice}").format(
            name=name, dice=" ".join(map(str, game.dice)))))
    else:
        click.echo(wrapped(tr("{name}: roll {roll} of 3, dice {dice}").format(
            name=name, roll=game.roll, dice=" ".join(map(str, game.dice)))))
    _show_advice(game)


def _show_advice(game: TableGame) -> None:
    tr = game.tr
    advice = game.advice()
    if advice is None:
        if game.awaiting == "dice":
            click.echo(tr("no advice before the dice: dice D D D D D, or roll"))
        elif not game.table.advice:
            click.echo(tr("advice is off: name the choice"))
        return
    if advice.ended:
        click.echo(tr("the game is over: {why}").format(why=i18n.in_language(advice.ended, tr)))
        return
    settled = settled_line(advice, tr)
    if settled:
        click.echo(wrapped(settled))
    head = ranking_head(advice, tr)
    rows = ranked_columns(advice, lambda c: _label(game, c), tr, compact=True)
    # a wider heading reads on over the numbers' column
    width, loss_width, error_width = number_columns(rows, (max(10, len(head) - 5), 8, 7))
    # Approximate values: each loss with its error, and the choices it cannot tell apart.
    errors = any(ch.loss_error is not None for ch in advice.choices)
    error_head = f" {'±':>{error_width}}" if errors else ""
    # where the choices start: a longer one goes on there
    column = 8 + width + loss_width + len(error_head)
    how = quality(advice.approximate, advice.error_estimate, advice.upper_bound, tr)
    click.echo(wrapped(f"{head:>{width + 5}} {tr('loss'):>{loss_width}}{error_head}  "
                       f"{tr('choice')}   ({how})", entries=True, indent=column))
    for i, (ch, (value, loss, error, note)) in enumerate(zip(advice.choices, rows), 1):
        error = f" {error:>{error_width}}" if errors else ""
        mark = expected_score_mark(advice, ch, i, tr)
        click.echo(wrapped(f"  {i:>2} {value:>{width}} {loss:>{loss_width}}{error}  "
                           f"{_label(game, ch)}{note}{mark}", entries=True, indent=column))


def _label(game: TableGame, choice) -> str:
    """A choice in the players' language (in English the solver's own words, as ``advise``)."""
    if game.table.lang == "en":
        return choice.label
    return choice_label(game.game.name, choice, game.tr)


def _show_sheets(game: TableGame) -> None:
    tr, lang = game.tr, game.table.lang
    state = game.state()
    for i, p in enumerate(state["players"]):
        mark = "*" if state["to_move"] == i else " "
        shown = i18n.sheet_in_language(game.game.name, p["sheet"], lang)
        # what no cell shows (a bonus, premiums) goes with the points, so that what follows
        # the dash is the sheet as `advise --sheet` takes it
        extra = "; ".join(f"{tr(k)} {_notation(game, v, lang)}" for k, v in p.items()
                          if k not in ("name", "sheet", "points", "done") and v)
        points = i18n.Plural("{points} point", "{points} points", abs(p["points"]),
                             points=p["points"]).in_language(tr) + (f" ({extra})" if extra else "")
        click.echo(wrapped(f"{mark} {p['name']}: {points} — {shown or tr('(empty)')}",
                           entries=True))


def _show_result(game: TableGame) -> None:
    tr = game.tr
    result = game.result()
    if result["reason"] == "won_at_once":
        line = tr("{name} wins the game at once").format(name=result["winners"][0])
        why = result.get("why")
        click.echo(line if why is None else f"{line}: {i18n.in_language(why, tr)}")
    winners = ", ".join(result["winners"])
    if len(result["ranking"]) == 1:  # solitaire: a score, not a win
        (only,) = result["ranking"]
        click.echo(tr("the game is over: {name} scored {score}").format(
            name=only["name"], score=only["score"]))
        return
    if len(result["winners"]) == 1:
        click.echo(tr("the game is over; {name} wins").format(name=winners))
    elif len(result["winners"]) == len(result["ranking"]):  # RULES.md: equal totals draw
        click.echo(tr("the game is over: a draw ({names})").format(names=winners))
    else:  # several at the top of a larger table share the win
        click.echo(tr("the game is over; the win is shared: {names}").format(names=winners))
    for r in result["ranking"]:
        line = f"  {r['place']}. {r['name']}: {r['score']}"
        if "settlement" in result:
            line += " (" + tr("settlement {amount}").format(
                amount=tr.number(result["settlement"][r["name"]], "+.2f")) + ")"
        click.echo(line)


def _notation(game: TableGame, value, lang: str) -> str:
    """A sheet's other field for people: notation (Ryzykant's fifth die, ``2=2,5=1``) spaced
    and named as the sheet is, numbers as they are."""
    return i18n.sheet_in_language(game.game.name, value, lang) if isinstance(value, str) \
        else str(value)
