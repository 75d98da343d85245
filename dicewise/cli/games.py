"""Commands that read a game: rules, solve and advise — for every registered ruleset."""

from __future__ import annotations

import click
from click.core import ParameterSource

from .. import api, i18n
from ..errors import UnfitArguments
from .format import checked_output, emit_json, named, progress, say, speak
from .main import Command, RequiredOption

option_flag = click.option("-o", "--option", "options", multiple=True, metavar="KEY=VALUE",
                           help="A rule option (see `dicewise rules RULESET`); repeatable.")
json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
players_flag = click.option("--players", type=click.IntRange(1, 2), default=1, show_default=True,
                            help="2: the two-player race (P(win) + ½P(draw)), where solved.")
#: ``--players`` of the commands that seat a table (duel, advise, chance): 2 is the exact race
#: where it is solved, more players (or a game without it) the approximate table play.
seats_flag = click.option("--players", type=click.IntRange(1, 6), default=1, show_default=True,
                          help="Players at the table: 2 is the exact race where it is solved; "
                               "3 or more play approximately (see `dicewise rules RULESET`).")
opponent_flag = click.option("--opponent-sheet", multiple=True,
                             help="A rival's sheet (yours is --sheet); once for each rival.")
lang_flag = click.option("--lang", default=None,
                         help="en, ru or pl (default: from the locale); --json stays in English.")

target_flag = click.option("--target", type=click.IntRange(min=0), default=None,
                           help="Play for P(final score ≥ TARGET) instead of the mean.")


def quality(approximate: bool, error_estimate=None, upper_bound=None,
            tr=i18n.translator("en")) -> str:
    """How sure a value is, in words (through ``tr``, a translator): exact, or approximate
    with its measured error."""
    if not approximate:
        return tr("exact")
    parts = [tr("approximate")]
    if error_estimate is not None:
        parts.append(tr("error estimate ±{error}").format(error=tr.number(error_estimate, ".3g")))
    if upper_bound is not None:
        parts.append(tr("a whole game's optimum ≤ {bound} (proven)").format(
            bound=tr.number(upper_bound, ".2f")))
    return i18n.between_figures(tr).join(parts)


def dominated_note(choice, choices, label=lambda c: c.label, tr=str) -> str:
    """What follows a choice the rules prove worse than another (``dominated_by``): that
    choice, named by ``label``, so that an error wider than its loss is not read as a close
    call; for one never better than the best (``never_best``) that; else nothing."""
    better = choice.detail.get("dominated_by")
    if better:
        better_label = next((label(c) for c in choices if c.action == better), None)
        return "  (" + tr("worse than {choice}, by the rules").format(
            choice=better_label or " ".join(f"{k} {v}" for k, v in better.items())) + ")"
    if choice.detail.get("never_best") and choice.loss > 0:
        return "  (" + tr("never better than the best, by the rules") + ")"
    return ""


def _listed(values, tr) -> str:
    """``112 and 37``, ``112, 37 and 40`` (one entry of a line of entries: no comma before
    the last, where a line may break)."""
    *others, last = map(str, values)
    return tr("{others} and {last}").format(others=", ".join(others), last=last) \
        if others else last


@click.command(cls=Command)
@click.argument("ruleset", required=False)
@lang_flag
@json_flag
def rules(ruleset, lang, as_json):
    """List the rulesets, or show one ruleset's commands, categories and options."""
    tr = speak(lang)
    info = api.describe(ruleset)
    if as_json:
        return emit_json(info)

    def kind(exact: bool) -> str:
        return tr("exact") if exact else tr("approximate")

    if ruleset is None:
        width = max(12, *(len(kind(r["exact"])) + 1 for r in info))
        for r in info:  # a long title goes on under the titles
            say(f"{r['name']:<15} {kind(r['exact']):<{width}} {tr(r['title'])}", 16 + width + 1)
        return
    name = info["name"]
    say(f"{name}: {tr(info['title'])} ({kind(info['exact'])})")
    if info["commands"]:
        notes = info.get("command_notes", {})
        say(tr("commands: {commands}").format(commands=", ".join(
            c + (f" ({tr(notes[c])})" if c in notes else "") for c in info["commands"])))
    if info["own_group"]:
        say(tr("its own commands: {commands} (see `dicewise {group} --help`)").format(
            commands=", ".join(info.get("group_commands", [])), group=info["own_group"]))
    english = tr.lang == "en"  # elsewhere each box's own name, then the one typed in English
    for key, line in (("categories", tr("categories: {boxes}")), ("rows", tr("rows: {boxes}"))):
        if info.get(key):
            say(line.format(boxes=", ".join(
                c if english else f"{i18n.box_label(name, c, tr.lang)} ({c})" for c in info[key])))
    if info.get("sheet_counters"):
        say(tr("sheet counters: {counters}").format(
            counters=", ".join(info["sheet_counters"])))
    if info["sheet"]:
        say(tr("sheet: {notation}").format(notation=i18n.in_language(info["sheet"], tr)))
    if info["tables"]:
        say(tr("tables: {tables}").format(tables=", ".join(info["tables"])))
    if "simulate" in info["commands"]:
        say(tr("policies: {policies}").format(policies=", ".join(info["policy_names"])))
    if info.get("table"):
        t = info["table"]
        players = ", ".join(map(str, t["players"]))
        say(tr("at a table (duel --players N): {players} players; policies there: "
               "{policies}").format(players=players, policies=", ".join(t["seat_policies"])))
    for o in info["options"]:
        if isinstance(o["default"], bool):
            choices, default = "true | false", str(o["default"]).lower()
        else:
            if o["choices"]:
                choices = " | ".join(map(str, o["choices"]))
            elif o.get("minimum") is not None:
                choices = f'{o["minimum"]}..{o["maximum"]}'
            else:
                choices = tr("a number")
            default = o["default"]
        say(tr("option {name} = {default}  ({choices}): {help}").format(
            name=o["name"], default=default, choices=choices, help=tr(o["help"])))


@click.command(cls=Command)
@click.argument("ruleset")
@option_flag
@click.option("--out", type=click.Path(), help="Write the table here (default: the cache).")
@click.option("--rebuild", is_flag=True, help="Solve again even if the table exists.")
@players_flag
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Two players: processes (default where the system forks), threads, "
                   "dask-threads, local (a Dask LocalCluster) or the tcp:// address of a "
                   "Dask scheduler.")
@click.option("--workers", type=click.IntRange(1, 1024), default=None,
              help="Two players: processes, threads or local Dask workers (default: the "
                   "cores).")
@lang_flag
@json_flag
def solve(ruleset, options, out, rebuild, players, scheduler, workers, lang, as_json):
    """Solve RULESET (or fit its policy), write its table, and print the expected score.

    With --players 2 the two-player race is solved (resumable: every finished layer is
    checkpointed beside the table, and a killed solve goes on from there)."""
    tr = speak(lang)
    if out is not None:
        checked_output(out)
    solved = api.solve(ruleset, options, table=out, rebuild=rebuild, players=players,
                       scheduler=scheduler, workers=workers, progress=progress)
    report = api.solve_report(solved)
    if as_json:
        return emit_json(report)
    if players == 2:
        how = (tr("solved in {seconds} s on {runner}").format(
            seconds=tr.number(solved.seconds, ".1f"), runner=solved.runner) if solved.built
            else tr("loaded"))
        say(tr.ngettext("{ruleset}, two players: the first player's P(win) + ½P(draw) = "
                        "{value} ({states} state, {how})",
                        "{ruleset}, two players: the first player's P(win) + ½P(draw) = "
                        "{value} ({states} states, {how})", report["states"]).format(
            ruleset=report["ruleset"], value=tr.number(report["probability"], ".6f"),
            states=tr.number(report["states"]), how=how))
        _say_table(report["table"], tr)
        return
    solution = solved
    how = (tr("built in {seconds} s").format(seconds=tr.number(solution.seconds, ".2f"))
           if solution.built else tr("loaded"))
    slug = i18n.options_text(report["rule_options"]) or tr("default rules")
    what = quality(solution.approximate, solution.error_estimate, report.get("upper_bound"), tr)
    if report.get("ci95"):
        lo, hi = report["ci95"]
        what += "; " + tr("95% CI {low} .. {high}").format(low=tr.number(lo, ".2f"),
                                                            high=tr.number(hi, ".2f"))
    kind = ("{ruleset} ({rules}): expected score of the best policy {value} ({quality}; {how})"
            if solution.approximate else
            "{ruleset} ({rules}): optimal expected score {value} ({quality}; {how})")
    say(tr(kind).format(ruleset=report["ruleset"], rules=slug,
                        value=tr.number(report["expected_score"], ".7f"), quality=what, how=how))
    shown = {"ruleset", "rule_options", "expected_score", "approximate", "ci95", "error_estimate",
             "seconds", "built", "table", "upper_bound"}
    for key, value in report.items():
        if key not in shown:
            for line in _report_lines(key, value, tr):
                say(line, 4 + len(line) - len(line.lstrip()))  # under its key
    _say_table(report["table"], tr)


def _say_table(path: str | None, tr) -> None:
    """Where the table is (a path is never broken), or that the cache could not keep it."""
    click.echo(tr("table: {path}").format(path=path) if path is not None else
               tr("table: not kept (the cache takes no file)"))


def _report_lines(key, value, tr, indent: str = "", typed: bool = False):
    """A report entry as lines, a nested mapping indented under its key (None is left out);
    a ``typed`` key (a rule option, a policy) keeps the name a command line gives it."""
    if value is None:
        return
    name = indent + (str(key) if typed else named(key, tr))
    if isinstance(value, dict):
        yield f"{name}:"
        for k, v in value.items():
            yield from _report_lines(k, v, tr, indent + "  ", key in ("options", "policies"))
    elif isinstance(value, bool):  # a rule option's as --option takes it, else yes or no
        yield f"{name}: {i18n.option_text(value) if typed else tr('yes') if value else tr('no')}"
    elif isinstance(value, int):
        yield f"{name}: {tr.number(value)}"
    elif isinstance(value, float):  # ten figures for people; --json keeps every digit
        yield f"{name}: {tr.number(value, '.10g')}"
    else:
        yield f"{name}: {i18n.in_language(value, tr)}"


@click.command(cls=Command)
@click.argument("ruleset")
@click.option("--roll", type=int, default=None, help="Which roll of the turn the dice show (1..3).")
@click.option("--dice", "faces", type=int, nargs=5, required=True, metavar="D D D D D",
              cls=RequiredOption, help="The five dice showing.")
@click.option("--sheet", default="", help='The sheet so far, e.g. "ones=3,straight=25" '
              "(see `dicewise rules RULESET`).")
@click.option("--fifth", default=None, help='Fifth-die marks, for games with a fifth die '
              '(ryzykant), e.g. "2=5,5=3".')
@option_flag
@click.option("--table", type=click.Path(), help="Use this table file (it must exist).")
@target_flag
@seats_flag
@opponent_flag
@click.option("--opponent-fifth", multiple=True,
              help="A rival's fifth-die marks (ryzykant), once for each --opponent-sheet, in "
                   "the same order.")
@click.option("--top", type=click.IntRange(min=1), default=None,
              help="Show the best K choices only.")
@lang_flag
@json_flag
def advise(ruleset, roll, faces, sheet, fifth, options, table, target, players, opponent_sheet,
           opponent_fifth, top, lang, as_json):
    """Rank every choice for these dice: keeps (with rolls left), writes, splits.

    With --target T every choice is ranked by P(final ≥ T); with --players 2 by
    P(win) + ½P(draw) against --opponent-sheet where that race is solved; at any other
    table by the game's win policy against the rivals (--opponent-sheet once each;
    approximate).  The expected-score choice is shown beside."""
    tr = speak(lang)
    result = api.advise(ruleset, dice=list(faces), roll=roll, sheet=sheet or None, fifth=fifth,
                        options=options, table=table, target=target, players=players,
                        opponent_sheets=list(opponent_sheet),
                        opponent_fifths=list(opponent_fifth), progress=progress)
    shown = result.top(top)
    if as_json:
        return emit_json(shown)
    print_advice(shown, hidden=len(result.choices) - len(shown.choices), tr=tr)


def print_advice(result, hidden: int = 0, tr=i18n.translator("en")) -> None:
    """Ranked choices for people, in the language of ``tr``: by expected final score, or by
    the chance played for."""
    english = getattr(tr, "lang", "en") == "en"

    def label(choice):  # English: the solver's own words, with the rolls left after a keep
        return choice.label if english else choice_label(result.ruleset, choice, tr)

    say(i18n.in_language(result.headline, tr))
    say(tr("values: {quality}").format(
        quality=quality(result.approximate, result.error_estimate, result.upper_bound, tr)))
    if result.ended:
        say(tr("the game is over: {why}").format(why=i18n.in_language(result.ended, tr)))
        return
    settled = settled_line(result, tr)
    if settled:
        say(settled)
    chance = result.objective != "expected_score"
    ranked_by = result.position.get("ranked_by")
    head = ranking_head(result, tr)
    rows = ranked_columns(result, label, tr)
    # a wider heading reads on over the numbers' column, blank in its line
    width, loss_width, error_width = number_columns(
        rows, (max(15 if chance else 10, len(head) - 4), 9, 8))
    errors = any(ch.loss_error is not None for ch in result.choices)
    error_head = f" {'±':>{error_width}}" if errors else ""
    # the expected score beside: two spaces at least from the loss, whose heading would
    # read on into its own (Polish "strata oczekiwane", the expected loss)
    side = max(10, len(tr("expected")) + 2,
               *(len(tr.number(ch.expected, ".4f")) + 1 for ch in result.choices
                 if ch.expected is not None))
    beside = f" {tr('expected'):>{side}}" if chance or ranked_by else ""
    click.echo(f"{head:>{width + 4}} {tr('loss'):>{loss_width}}{error_head}{beside}  "
               f"{tr('choice')}")
    # where the choices start: a choice too long for its line goes on there
    column = 7 + width + loss_width + len(error_head) + len(beside)
    for i, (ch, (value, loss, error, note)) in enumerate(zip(result.choices, rows), 1):
        mark = expected_score_mark(result, ch, i, tr)
        error = f" {error:>{error_width}}" if errors else ""
        expected = "" if ch.expected is None else tr.number(ch.expected, ".4f")
        tail = f" {expected:>{side}}" if beside else ""
        say(f"{i:>3} {value:>{width}} {loss:>{loss_width}}{error}{tail}  {label(ch)}{note}{mark}",
            column)
    if ((chance or ranked_by) and result.best is not None
            and result.expected_score_choice == result.best.action):
        say(tr("the expected-score policy makes the same choice here"))
    if hidden:
        say(tr.ngettext("... and {n} more choice (--top K shows the best K)",
                        "... and {n} more choices (--top K shows the best K)", hidden)
            .format(n=hidden))


def number_columns(rows, least) -> tuple[int, ...]:
    """The widths of the value, loss and error columns of ``ranked_columns``' rows: each at
    least its ``least``, and as wide as its widest number and a space (Ryzykant's run to
    five digits before the point)."""
    return tuple(max(w, *(len(r[i]) + 1 for r in rows)) for i, w in enumerate(least))


def expected_score_mark(advice, choice, rank: int, tr) -> str:
    """"← the expected-score choice" beside the choice that the mean would take, where the
    advice ranks by something else (a chance, a race's value) and it is not the first."""
    other = advice.objective != "expected_score" or advice.position.get("ranked_by")
    if other and rank > 1 and choice.action == advice.expected_score_choice:
        return "  ← " + tr("the expected-score choice")
    return ""


def settled_line(advice, tr) -> str | None:
    """One line where no choice can move the chance of the target any more (``settled``):
    then the choices are ranked by the expected score; None elsewhere."""
    target = advice.position.get("target")
    if advice.settled == "out_of_reach":
        line = i18n.Message("the target {target} can no longer be reached from here: the "
                            "choices are ranked by expected score", target=target)
    elif advice.settled == "certain":
        line = i18n.Message("the target {target} is certain from here: the choices that keep it "
                            "certain are ranked by expected score", target=target)
    else:
        return None
    return i18n.in_language(line, tr)


def ranked_columns(advice, label, tr, compact: bool = False) -> list[tuple[str, str, str, str]]:
    """Each choice's value, loss, loss error and note ("close call", or the choice the rules
    prove it worse than, named by ``label``) as text: what ``advise`` prints, and the game at
    the table with fewer digits (``compact``)."""
    chance = advice.objective != "expected_score"
    ranked_by = advice.position.get("ranked_by")  # another value in points than the mean
    digits = (4 if compact else 6) if chance else (2 if compact else 4)
    rows = []
    for ch in advice.choices:
        value = ch.probability if chance else ch.detail[ranked_by] if ranked_by else ch.expected
        error = ("" if ch.loss_error is None else
                 "±" + tr.number(ch.loss_error, f".{4 if chance else 2}f"))
        note = f"  ({tr('close call')})" if ch.close_call \
            else dominated_note(ch, advice.choices, label, tr)
        rows.append((tr.number(value, f".{digits}f"), tr.number(ch.loss, f".{digits}f"), error,
                     note))
    return rows


def ranking_head(advice, tr) -> str:
    """The heading of what the choices are ranked by: the chance played for (the share of
    the win among three or more), the expected final score, or another value in points."""
    ranked_by = advice.position.get("ranked_by")
    if advice.objective == "expected_score":
        return tr(ranked_by.replace("_", " ")) if ranked_by else tr("expected")
    if advice.objective != "win":
        return tr("P(≥ target)")
    return tr("share of win") if advice.position.get("players", 2) > 2 else tr("P(win)+½P(draw)")


def choice_label(ruleset: str, choice, tr) -> str:
    """A choice for people in the language of ``tr`` (box names translated)."""
    return i18n.choice_text(ruleset, choice.action, choice.detail, tr) or choice.label


@click.command(cls=Command)
@click.argument("ruleset")
@target_flag
@seats_flag
@click.option("--sheet", default="", help="The sheet so far (the player to move's).")
@click.option("--games", default=2000, show_default=True, type=click.IntRange(1, 10**7),
              help="Three or more players: games played out from the position.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, api.MAX_SEED),
              help="Three or more players: the dice of the games played out.")
@opponent_flag
@option_flag
@click.option("--table", type=click.Path(), help="Use this table file (it must exist).")
@lang_flag
@json_flag
def chance(ruleset, target, players, sheet, games, seed, opponent_sheet, options, table, lang,
           as_json):
    """The chance to reach --target from the start of the next turn (under the target policy
    and under the expected-score policy), with --players 2 the chance to win, with --players
    N (3..6) the approximate share of the win against the rivals' sheets."""
    tr = speak(lang)
    given = click.get_current_context().get_parameter_source
    if players <= 2 and ParameterSource.COMMANDLINE in (given("games"), given("seed")):
        raise UnfitArguments(i18n.Message("--games and --seed are for --players N (3 or more)"))
    result = api.chance(ruleset, target=target, sheet=sheet, players=players,
                        opponent_sheets=list(opponent_sheet), games=games, seed=seed,
                        options=options, table=table, progress=progress)
    if as_json:
        return emit_json(result)
    if players > 2:
        d = result.to_json()
        lo, hi = d["simulated_ci95"]
        say(tr.ngettext(
            "{ruleset}, {players} players, seat {seat} to move with {points} against {rivals}: "
            "share of the win {share} (95% CI {low} .. {high}) over {games} game played out, the "
            "win policy against rivals playing for the best mean; its own estimate {estimate} "
            "(approximate)",
            "{ruleset}, {players} players, seat {seat} to move with {points} against {rivals}: "
            "share of the win {share} (95% CI {low} .. {high}) over {games} games played out, "
            "the win policy against rivals playing for the best mean; its own estimate "
            "{estimate} (approximate)", d["games"]).format(
            ruleset=d["ruleset"], players=d["players"], seat=d["seat"], points=d["points"],
            rivals=_listed(d["opponent_points"], tr), share=tr.number(d["simulated"], ".4f"),
            low=tr.number(lo, ".4f"), high=tr.number(hi, ".4f"), games=tr.number(d["games"]),
            estimate=tr.number(d["probability"], ".4f")))
        return
    data = result.to_json()
    if players == 2:
        draw = data["p_draw"]
        extra = "" if draw is None else tr(" (P(win) {win}, P(draw) {draw})").format(
            win=tr.number(data["p_win"], ".6f"), draw=tr.number(draw, ".6f"))
        mover = (tr("the first player to move") if data["seat"] == "first" else
                 tr("the second player to move"))
        source = tr("from the table") if data["source"] == "table" else tr("from the sub-game")
        say(tr("{ruleset}, two players, {mover} with {points} against {rival}: P(win) + "
               "½P(draw) = {chance}{extra}; {source}").format(
            ruleset=data["ruleset"], mover=mover, points=data["points"],
            rival=data["opponent_points"], chance=tr.number(data["probability"], ".6f"),
            extra=extra,
            source=source))
        return
    say(tr.ngettext("{ruleset}: P(final ≥ {target}) with {points} point written = "
                    "{chance} playing for it, {mean_chance} playing for the best mean",
                    "{ruleset}: P(final ≥ {target}) with {points} points written = "
                    "{chance} playing for it, {mean_chance} playing for the best mean",
                    abs(data["points"])).format(
        ruleset=data["ruleset"], target=data["target"], points=data["points"],
        chance=tr.number(data["probability"], ".6f"),
        mean_chance=tr.number(data["probability_expected_score_policy"], ".6f")))
