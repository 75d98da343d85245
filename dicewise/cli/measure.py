"""Commands that measure play over many games: simulate, duel, table, bench-agent, review —
for every ruleset."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from pathlib import Path

import click

from .. import api, i18n
from ..errors import DicewiseError
from ..tables.files import cannot_read, checked_input
from .format import (checked_output, counted, emit_json, named, progress, pyplot, say, speak,
                     write_figure, write_output)
from .games import json_flag, lang_flag, option_flag, players_flag, quality, seats_flag
from .main import Command, RequiredArgument


def _histogram(histogram, tr, width: int = 40) -> list[str]:
    most = max(c for *_, c in histogram) or 1
    return [f"{tr.number(lo, '.1f'):>9} – {tr.number(hi, '.1f'):<9} "
            f"{'#' * round(width * c / most):<{width}} {c}" for lo, hi, c in histogram]


def _bound(value: float, spec: str, tr) -> str:
    """An interval's bound (or half-width) as ``spec`` writes it in the language of ``tr``; a
    dash where one game leaves the interval undefined (``null`` in the JSON), not "nan"."""
    return "—" if value is None or math.isnan(value) else tr.number(value, spec)


games_flag = click.option("--games", default=10000, show_default=True, type=click.IntRange(1, 10**8),
                          help="How many games to play.")
seed_flag = click.option("--seed", default=0, show_default=True, type=click.IntRange(0, api.MAX_SEED),
                         help="The dice stream: the same seed gives the same dice.")


@click.command(cls=Command)
@click.argument("ruleset")
@games_flag
@seed_flag
@click.option("--policy", default="optimal", show_default=True,
              help="optimal (the best policy dicewise has) | greedy | random | target:T (the "
                   "best chance of a final score ≥ T, in the exact games); `dicewise rules "
                   "RULESET` lists a game's policies.")
@option_flag
@lang_flag
@json_flag
def simulate(ruleset, games, seed, policy, options, lang, as_json):
    """Play many games with a policy and summarise the final scores."""
    tr = speak(lang)
    sim = api.simulate(ruleset, games=games, seed=seed, policy=policy, options=options,
                       progress=progress)
    if as_json:
        return emit_json(sim)
    s = sim.summary
    lo, hi = s.ci95
    speed = round(sim.games_per_second)
    say(tr("{ruleset} {policy}: {games}, seed {seed}, {speed}").format(
        ruleset=sim.ruleset, policy=sim.policy, games=_games(s.games, tr), seed=seed,
        speed=tr.ngettext("{n} game/s", "{n} games/s", speed).format(n=tr.number(speed))))
    say(tr("mean {mean} ± {half} (95% CI {low} .. {high}), std {std}").format(
        mean=tr.number(s.mean, ".3f"), half=_bound((hi - lo) / 2, ".3f", tr),
        low=_bound(lo, ".3f", tr), high=_bound(hi, ".3f", tr), std=tr.number(s.std, ".3f")))
    if sim.expected_score is not None:
        say(tr("the optimal policy's expected score: {value} ({quality})").format(
            value=tr.number(sim.expected_score, ".4f"),
            quality=quality(sim.approximate, sim.error_estimate, tr=tr)))
    p = s.percentiles
    say(tr("min {p0}, p5 {p5}, p25 {p25}, median {p50}, p75 {p75}, p95 {p95}, max {p100}")
        .format(p0=tr.number(s.minimum, "g"), p100=tr.number(s.maximum, "g"),
                **{f"p{q}": tr.number(p[str(q)], "g") for q in (5, 25, 50, 75, 95)}))
    for key, value in sim.extra.items():
        if key == "exact":
            say(tr("the optimal policy's exact score distribution (computed, not "
                   "simulated): mean {mean}, std {std}, median {median}").format(
                mean=tr.number(value["mean"], ".4f"), std=tr.number(value["std"], ".3f"),
                median=tr.number(value["percentiles"]["50"], "g")))
        elif key == "against_optimal":
            lo, hi = value["gain_ci95"]
            say(tr("against optimal on the same rolls (paired): {gain} a game (95% CI "
                   "{low} .. {high}); optimal's mean {mean}").format(
                gain=tr.number(value["gain"], "+.3f"), low=_bound(lo, "+.3f", tr),
                high=_bound(hi, "+.3f", tr),
                mean=tr.number(value["mean"], ".3f")))
        elif key == "example_games":
            for i, example in enumerate(value, 1):
                facts = (f"{named(k, tr)} " + (i18n.sheet_in_language(sim.ruleset, v, tr.lang)
                                               if k in ("sheet", "fifth") else str(v))
                         for k, v in example.items())
                line = tr("game {number}: {facts}").format(number=i, facts="; ".join(facts))
                say(line)
        elif key == "probability":  # the chance the target's rate measures, solved
            say(tr("P(final ≥ {target}) solved, playing for it: {p}").format(
                target=sim.extra["target"], p=tr.number(value, ".4f")))
        elif isinstance(value, float):
            low_high = sim.extra.get(f"{key}_ci95")  # a measured rate's interval beside it
            interval = "" if low_high is None else " (" + tr("95% CI {low} .. {high}").format(
                low=tr.number(low_high[0], ".4f"), high=tr.number(low_high[1], ".4f")) + ")"
            say(f"{named(key, tr)}: {tr.number(value, '.4f')}{interval}")
    say(tr.ngettext("the {games} simulated game's scores:",
                    "the {games} simulated games' scores:", s.games).format(
        games=tr.number(s.games)))
    for line in _histogram(s.histogram, tr):
        click.echo(line)


@click.command(cls=Command)
@click.argument("ruleset")
@click.option("--a", "policy_a", default=None,
              help="Policy A (default: optimal; in the two-player race, win).")
@click.option("--b", "policy_b", default=None,
              help="Policy B (default: greedy; in the two-player race, optimal).")
@games_flag
@seed_flag
@seats_flag
@click.option("--exact", is_flag=True, help="Two players: also the exact value of win against "
              "optimal by policy evaluation (three solves' time).")
@option_flag
@lang_flag
@json_flag
def duel(ruleset, policy_a, policy_b, games, seed, players, exact, options, lang, as_json):
    """Two policies play the same dice: win/draw/loss rates of A against B, mean margin.

    With --players 2 (or the policy `win`) they play the two-player race against each
    other, seats alternating: `win` plays to win, `optimal` for the best mean.  With
    --players N, A sits at a table of N with B in every other seat, the seats rotating."""
    tr = speak(lang)
    d = api.duel(ruleset, a=policy_a, b=policy_b, games=games, seed=seed, players=players,
                 exact=exact, options=options, progress=progress)
    if as_json:
        return emit_json(d)
    if isinstance(d, api.TableDuel):
        return _print_table(d, tr)
    if isinstance(d, api.RaceDuel):
        return _print_race(d, tr)
    c = d.comparison
    say(tr("{ruleset}: {a} (A) against {b} (B), {games} on the same dice, seed {seed}")
        .format(ruleset=d.ruleset, a=d.a, b=d.b, games=_games(c.games, tr), seed=seed))
    outcomes = [(tr("A wins"), c.wins), (tr("draws"), c.draws), (tr("B wins"), c.losses)]
    width = max(len(label) for label, _ in outcomes) + 1
    for label, rate in outcomes:
        lo, hi = c.rate_ci95(rate)
        ci = tr("95% CI {low} .. {high}").format(low=_bound(100 * lo, ".2f", tr),
                                                  high=_bound(100 * hi, ".2f", tr))
        click.echo(f"{label:<{width}} {tr.number(100 * rate, '6.2f')}%  ({ci})")
    lo, hi = c.margin_ci95
    say(tr("mean margin A − B {margin} (95% CI {low} .. {high}); means {a} vs {b}").format(
        margin=tr.number(c.margin, ".3f"), low=_bound(lo, ".3f", tr), high=_bound(hi, ".3f", tr),
        a=tr.number(c.mean_a, ".3f"),
        b=tr.number(c.mean_b, ".3f")))


def _games(games: int, tr) -> str:
    """``games`` counted in the language of ``tr``: 1 game, 22 games; 22 gry, 25 gier."""
    return tr.ngettext("{n} game", "{n} games", games).format(n=tr.number(games))


def _print_race(race, tr) -> None:
    """The two-player race: A's wins, draws and losses, its value by seat, the exact value."""
    r = race.result
    lo, hi = r.ci95
    say(tr("{ruleset}, two players: {a} (A) against {b} (B), {games} on shared dice, "
           "seats alternating, seed {seed}").format(
        ruleset=race.ruleset, a=r.a, b=r.b, games=_games(r.games, tr), seed=r.seed))
    wins, draws, losses = (round(share * r.games) for share in (r.wins, r.draws, r.losses))
    say(tr("A: {wins}, {draws}, {losses}; P(win) + ½P(draw) = {value} (95% CI {low} .. "
           "{high}); moving first {first}, second {second}")
        .format(wins=tr.ngettext("{n} win", "{n} wins", wins).format(n=tr.number(wins)),
                draws=tr.ngettext("{n} draw", "{n} draws", draws).format(
                    n=tr.number(draws)),
                losses=tr.ngettext("{n} loss", "{n} losses", losses).format(
                    n=tr.number(losses)),
                value=tr.number(r.value, ".5f"), low=_bound(lo, ".5f", tr),
                high=_bound(hi, ".5f", tr),
                first=tr.number(r.value_first, ".5f"), second=tr.number(r.value_second, ".5f")))
    if r.instant_wins:  # as a table of N says it
        say(tr("games won at once: {rate}").format(rate=tr.number(r.instant_wins, ".4f")))
    if race.exact is not None:
        first, second = race.exact_by_seat
        say(tr("exact, by policy evaluation: {value} (first {first}, second {second})")
            .format(value=tr.number(race.exact["alternating"], ".5f"),
                    first=tr.number(first, ".5f"),
                    second=tr.number(second, ".5f")))


def _print_table(duel, tr) -> None:
    """A's results at a table of N: its share of the win, margin, and every seat's points."""
    r = duel.result
    lo, hi = r.share_ci95
    line = tr("{ruleset}, {players} players: {a} (A) in one seat, {b} (B) in the others, {games}, "
              "seats rotating, seed {seed}" if r.players > 2 else
              "{ruleset}, {players} players: {a} (A) in one seat, {b} (B) in the other, {games}, "
              "seats rotating, seed {seed}").format(
        ruleset=duel.ruleset, players=r.players, a=r.a, b=r.b, games=_games(r.games, tr),
        seed=r.seed)
    say(line + (" (" + tr("approximate policy") + ")" if duel.approximate else ""))
    say(tr("A's share of the win {share} (95% CI {low} .. {high}; a fair share is {fair}); "
           "won alone {wins}, shared the top {ties}").format(
        share=tr.number(r.share, ".4f"), low=_bound(lo, ".4f", tr), high=_bound(hi, ".4f", tr),
        fair=tr.number(1 / r.players, ".4f"),
        wins=tr.number(r.wins, ".4f"), ties=tr.number(r.ties, ".4f")))
    lo, hi = r.margin_ci95
    say(tr("A's margin over the rivals' mean {margin} (95% CI {low} .. {high}); A's points "
           "{points}, the rivals' {rivals}").format(
        margin=tr.number(r.margin, "+.3f"), low=_bound(lo, "+.3f", tr),
        high=_bound(hi, "+.3f", tr),
        points=tr.number(r.points, ".3f"),
        rivals=tr.number(r.rival_points, ".3f")))
    lo, hi = r.settlement_ci95
    say(tr("A's settlement (score − the table's mean) {settlement} (95% CI {low} .. "
           "{high})").format(settlement=tr.number(r.settlement, "+.3f"),
                             low=_bound(lo, "+.3f", tr), high=_bound(hi, "+.3f", tr)))
    if r.instant_wins:
        say(tr("games won at once: {rate}").format(
            rate=tr.number(r.instant_wins, ".4f")))
    for s in r.seats:
        slo, shi = s.share_ci95
        extra = "".join(f"{i18n.between_figures(tr)}{named(k, tr)} {tr.number(v, '.3f')}"
                        for k, v in s.extra.items())
        say(tr("seat {seat}: A's share {share} ({low} .. {high}), A's points {points}, the "
               "rivals' {rivals}, A's settlement {settlement}").format(
            seat=s.seat + 1, share=tr.number(s.share, ".4f"), low=tr.number(slo, ".4f"),
            high=tr.number(shi, ".4f"),
            points=tr.number(s.points, ".3f"), rivals=tr.number(s.rival_points, ".3f"),
            settlement=tr.number(s.settlement, "+.3f")) + extra)
    if r.rival_extra:
        say(tr("the rivals: {facts}").format(facts=i18n.between_figures(tr).join(
            f"{named(k, tr)} {tr.number(v, '.3f')}" for k, v in r.rival_extra.items())))


@click.command(cls=Command)
@click.argument("ruleset")
@click.option("--what", default=None, help="Which table (`dicewise rules RULESET` lists them; "
              "default: the first).")
@click.option("--format", "fmt", type=click.Choice(["text", "csv", "json"]), default=None,
              help="text: aligned and rounded for people (the default on a terminal); csv and "
                   "json keep full precision (csv is the default elsewhere).")
@click.option("--out", type=click.Path(), help="Write here instead of stdout.")
@click.option("--games", default=20000, show_default=True, type=click.IntRange(1, 10**7),
              help="Games simulated for tables of policy statistics.")
@seed_flag
@click.option("--plot", "plot_out", type=click.Path(),
              help="Also draw the table's curves here (the target table; needs matplotlib).")
@option_flag
@lang_flag
@json_flag
def table(ruleset, what, fmt, out, games, seed, plot_out, options, lang, as_json):
    """Write a strategy table for people: best choices, state values, policy statistics
    (--json is --format json).  The text format speaks --lang; csv and json keep the
    columns' and choices' English names for programs."""
    tr = speak(lang)
    if as_json and out is None:  # the table itself on stdout, as JSON
        if fmt not in (None, "json"):
            raise click.UsageError(i18n.Message("--json is --format json, not --format {fmt}",
                                                fmt=fmt))
        fmt = "json"
    elif as_json and fmt is None:  # a file in JSON, and on stdout what was written
        fmt = "json"
    if out is not None:
        checked_output(out)  # before any solve
    plt = None
    if plot_out is not None:
        if what != "target":
            raise click.UsageError(i18n.Message("--plot draws the target table (--what target)"))
        if out is not None and Path(out).resolve() == Path(plot_out).resolve():
            raise click.UsageError(i18n.Message("--out and --plot name one file, {path}: the "
                                                "plot would replace the table", path=out))
        plt = pyplot(plot_out)
    result = api.strategy_table(ruleset, what, options=options, games=games, seed=seed,
                                progress=progress)
    if fmt is None:
        fmt = "text" if not out and sys.stdout.isatty() else "csv"
    text = _table_text(result, fmt, tr)
    if plt is not None:  # first: a plot that cannot be written is refused before the table
        _plot_target(plt, result, plot_out, tr)
    if out is not None:
        write_output(out, text)
        rows = len(result.rows)
        if as_json:  # the rows are in the file; what was written, for the script
            return emit_json({"out": str(out), "ruleset": result.ruleset, "what": result.what,
                              "format": fmt, "rows": rows})
        click.echo(tr.ngettext("wrote {n} row to {path}", "wrote {n} rows to {path}", rows)
                   .format(n=tr.number(rows), path=out), err=True)
    else:
        click.echo(text, nl=False)


#: From this many rows on, writing a table out (text, csv or json) shows a progress bar: a
#: table of every state (yatzy's 958,976 rows) took 8 s to align after its bar had closed.
_BAR_ROWS = 50_000
#: Rows written between two steps of that bar.
_ROW_STEP = 10_000


def _table_text(result, fmt: str, tr) -> str:
    """The table ``result`` as ``fmt`` writes it, with a bar on stderr for a long one."""
    rows = result.rows
    if len(rows) < _BAR_ROWS:
        return _formatted(result, fmt, tr, lambda steps=1: None)
    with progress(len(rows), i18n.Message("writing table {what}", what=result.what)) as update:
        return _formatted(result, fmt, tr, update)


def _formatted(result, fmt: str, tr, update) -> str:
    header, rows = result.header, result.rows
    if fmt == "text":
        return _text_table(header, rows, tr, update)
    if fmt == "json":  # what json.dumps writes of the whole list, a chunk of rows at a time
        parts = []
        for start in range(0, len(rows), _ROW_STEP):
            chunk = result.json_rows(start, start + _ROW_STEP)
            parts.append(", ".join(json.dumps(row, ensure_ascii=False) for row in chunk))
            update(len(chunk))
        return "[" + ", ".join(parts) + "]\n"
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for start in range(0, len(rows), _ROW_STEP):
        chunk = rows[start:start + _ROW_STEP]
        writer.writerows(chunk)
        update(len(chunk))
    return buf.getvalue()


def _people(value, fraction: bool, tr) -> str:
    """A cell for people in the language of ``tr``: floats rounded (3 decimals, 4 below 1 and
    in a ``fraction`` column, one of shares and chances, so that its 1 reads 1.0000 beside
    0.9992; a chance too small for that reads "<0.0001", not as none), empty for None; text
    as it is (a ``Message`` or box name, said in the players' language by the caller)."""
    if value is None:
        return ""
    if isinstance(value, float):
        if 0 < abs(value) < 0.00005:
            return "<" + tr.number(0.0001) if value > 0 else ">-" + tr.number(0.0001)
        return tr.number(value, ".4f") if fraction or abs(value) < 1 else tr.number(value, ".3f")
    return value if isinstance(value, str) else str(value)


def _text_table(header, rows, tr=i18n.translator("en"), update=lambda steps=1: None) -> str:
    """Aligned columns, numbers to the right, the words in the language of ``tr``
    (``update(n)`` after every n rows put into words, for a progress bar)."""
    english = tr.lang == "en"  # English keeps the columns' own names
    fraction = [all(not isinstance(row[i], float) or abs(row[i]) <= 1 for row in rows)
                for i in range(len(header))]
    cells = [[h if english else tr(h) for h in header]]
    for start in range(0, len(rows), _ROW_STEP):
        chunk = rows[start:start + _ROW_STEP]
        cells += [[i18n.in_language(_people(v, f, tr), tr) for v, f in zip(row, fraction)]
                  for row in chunk]
        update(len(chunk))
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    numeric = [all(isinstance(row[i], (int, float)) or row[i] in (None, "") for row in rows)
               for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(r, widths, numeric))
             .rstrip() for r in cells]
    return "\n".join(lines) + "\n"


def _plot_target(plt, result, out, tr) -> None:
    """P(final ≥ T) against T: playing for T, and playing for the best mean (the words in
    the language of ``tr``)."""
    target = [r[0] for r in result.rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(target, [r[1] for r in result.rows], label=tr("playing for T"))
    ax.plot(target, [r[2] for r in result.rows], label=tr("playing for the best mean"), ls="--")
    ax.set_xlabel(tr("target T (points)"))
    ax.set_ylabel(tr("P(final score ≥ T)"))
    ax.set_title(tr("{ruleset}: the chance to reach a target").format(ruleset=result.ruleset))
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    write_figure(plt, fig, out)
    click.echo(tr("wrote the plot to {path}").format(path=out), err=True)


@click.command("bench-agent", cls=Command)
@click.argument("ruleset")
@click.option("--agent", "agent_spec", help="A Python callable, MODULE:FUNCTION.")
@click.option("--agent-cmd", help="A program speaking JSON lines on stdin/stdout.")
@click.option("--games", default=1000, show_default=True, type=click.IntRange(1, 10**7),
              help="How many games the agent plays.")
@seed_flag
@click.option("--on-error", type=click.Choice(["continue", "stop"]), default="continue",
              show_default=True, help="After an agent failure: play the best action, or stop.")
@click.option("--max-failures", default=3, show_default=True, type=click.IntRange(1, 10**6),
              help="Stop after this many agent failures in a row.")
@click.option("--timeout", default=10.0, show_default=True, type=click.FloatRange(0.001, 3600),
              help="Seconds an --agent-cmd may take per decision.")
@click.option("--log", "log_path", type=click.Path(),
              help="Write every observation and action as JSON lines (for `review`).")
@click.option("--target", type=click.IntRange(min=0), default=None,
              help="Judge by P(final ≥ TARGET): the regret is the probability each decision loses.")
@players_flag
@click.option("--sheet", default="", help="Two players: the start position's first sheet "
              "(the player to move; empty by default).")
@click.option("--opponent-sheet", default="", help="Two players: the other start sheet.")
@option_flag
@json_flag
def bench_agent_command(ruleset, agent_spec, agent_cmd, games, seed, on_error, max_failures,
                        timeout, log_path, target, players, sheet, opponent_sheet, options, as_json):
    """Score an AI agent against the optimal policy: the regret of each decision."""
    report = api.bench_agent(ruleset, agent_spec or None, agent_command=agent_cmd or None,
                             timeout=timeout, games=games, seed=seed, on_error=on_error,
                             max_failures=max_failures, options=options, log=log_path,
                             target=target, players=players, sheet=sheet,
                             opponent_sheet=opponent_sheet, progress=progress)
    data = report.to_json()
    if as_json:
        emit_json(data)
    else:
        _print_agent_report(data)
    if report.stopped:
        raise DicewiseError(report.stopped)


#: The regret's stages as people name them.
STAGES = {"roll1": "after roll 1", "roll2": "after roll 2", "roll3": "after roll 3",
          "decision": "every split"}


def _print_agent_report(d):
    lo, hi = d["ci95"]
    if not d["games"]:  # stopped in its first game: nothing measured, only the errors
        say(f"{d['agent']} on {d['ruleset']}: no game finished, seed {d['seed']}")
        _print_agent_errors(d)
        return
    games = f"{d['games']:,} games" if d["games"] > 1 else "1 game"
    say(f"{d['agent']} on {d['ruleset']}: {games}, seed {d['seed']}")
    ci = f" (95% CI {lo:,.3f} .. {hi:,.3f})" if d["games"] > 1 else ""  # none from one game
    race = d.get("objective") == "win"  # each game's score is its outcome: 1, ½ or 0
    if race:
        say(f"P(win)+½P(draw) {d['mean']:.3f}{ci}; the win-optimal player in its seat on the "
            f"same dice {d['optimal_mean']:.3f}")
    else:
        say(f"mean {d['mean']:,.3f}{ci}; optimal on the same dice {d['optimal_mean']:,.3f}")
    per_decision = (f"{d['regret_per_decision']:,.5f} a decision over "
                    f"{counted(d['decisions'], 'decision')}"
                    if d["decisions"] else "no decision of the agent's own (every one failed)")
    summed = d.get("regret_per_game_error")  # the regret's own error, not the table's
    error = (f"; its decisions' loss errors add up to ±{summed:,.4f} a game"
             if summed is not None else "")
    say(f"regret {d['regret_per_game']:,.4f} {d['regret_unit']} a game, {per_decision} "
        f"({quality(d['approximate'], d['error_estimate'])}{error})")
    stages = "; ".join(f"{STAGES.get(k, k)} {v:,.3f}" for k, v in d["regret_by_stage"].items())
    say(f"regret by stage (total over the games): {stages}")
    w = d["win_rate_vs_optimal"]
    if race:
        say(f"against the win-optimal player on the same dice: a better outcome in "
            f"{w['wins']:.1%} of the games, the same in {w['draws']:.1%}, a worse in "
            f"{w['losses']:.1%}")
    else:
        say(f"against the optimal policy on the same dice: {w['wins']:.1%} wins, "
            f"{w['draws']:.1%} draws, {w['losses']:.1%} losses")
    if d["costliest"]:
        click.echo("the costliest decisions:")
    for c in d["costliest"]:
        where = " ".join(f"{k} {c[k]}" for k in ("game", "turn", "roll") if c.get(k) is not None)
        chose = c.get("chose_label") or json.dumps(c["chose"])
        best = c.get("best_label") or json.dumps(c["best"])
        error = _error_text(c.get("loss_error"), c.get("close_call"))
        loss = _amount(d["regret_unit"] == "probability")(c["loss"])
        say(f"  lost {loss}{error}: {where}, dice "
            f"{' '.join(map(str, c['dice']))}: chose {chose}; best {best}", 6)
    _print_agent_errors(d)


def _amount(chance: bool):
    """How a loss or a value is printed: points to 3 decimals, a chance to 6 (a target's
    losses run to 1e-5, which 3 decimals would show as 0.000)."""
    return (lambda x: f"{x:.6f}") if chance else (lambda x: f"{x:.3f}")


def _print_agent_errors(d):
    if d["errors"]:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(d.get("error_kinds", {}).items()))
        # an agent program is started again after a crash, hang or malformed line; an
        # agent called in process never is, so nothing is said of restarts there
        restarts = d.get("restarts", 0)
        again = f"; the program was restarted {counted(restarts, 'time')}" if restarts else ""
        say(f"{counted(len(d['errors']), 'agent error')} ({kinds}){again}")
        e = d["errors"][0]
        error = e["error"] if e["error"].startswith(f"{e['kind']}:") else \
            f"{e['kind']}: {e['error']}"  # an illegal action's error says what, not its kind
        # JSON, or the lines as they came, their breaks shown as \n (the report's line is one)
        sent = "" if e["sent"] is None else " (sent {})".format(e["sent"].replace("\n", "\\n"))
        say(f"first: game {e['game']} turn {e['turn']}: {error}{sent}")


@click.command(cls=Command)
@click.argument("ruleset")
@click.argument("log", type=click.Path(allow_dash=True), cls=RequiredArgument)
@click.option("--game", "game_index", type=int, default=None,
              help="Only the decisions of game N of the log (its `game` field).")
@click.option("--all", "show_all", is_flag=True,
              help="Every decision, not only those that lost points.")
@click.option("--target", type=click.IntRange(min=0), default=None,
              help="Judge by P(final ≥ TARGET) (a log of bench-agent --target says its own).")
@option_flag
@json_flag
def review(ruleset, log, game_index, show_all, target, options, as_json):
    """Judge a logged game (agent-protocol JSON lines): a summary of each game, and the
    decisions that lost points (--all: every decision; --game N: one game)."""
    try:
        lines = (sys.stdin.read() if log == "-" else
                 checked_input(log).read_text(encoding="utf-8", errors="replace")).splitlines()
    except OSError as e:
        raise DicewiseError(cannot_read(log, e)) from None
    judged = api.review(ruleset, lines, game=game_index, target=target, options=options,
                        progress=progress)
    if as_json:
        return emit_json(judged.to_json())
    summary = judged.games
    f = _amount(judged.target is not None)
    lost_what = ("points" if judged.target is None else
                 f"some of the chance of reaching {judged.target}")  # played for a target
    for g in summary:
        worst = g["worst"]
        tail = (f"; the worst, line {worst['line']}: {worst['chose']} instead of "
                f"{worst['best']} (lost {f(worst['loss'])}"
                f"{_error_text(worst['loss_error'], worst['close_call'])})" if worst else "")
        which = f"game {g['game']}" if g["game"] is not None else "the lines with no game number"
        say(f"{which}: {counted(g['decisions'], 'decision')}, {g['lost']} of "
            f"them lost {lost_what}, {f(g['loss'])} in all{tail}")
    shown = [r for r in judged.decisions if show_all or r.loss >= 1e-9]
    if shown:
        say(f"decisions that lost {lost_what}:" if not show_all else "every decision:")
    for r in shown:
        mark = "ok" if r.loss < 1e-9 else \
            f"lost {f(r.loss)}{_error_text(r.loss_error, r.close_call)}"
        where = " ".join(f"{k} {v}" for k, v in (("game", r.game), ("turn", r.turn),
                                                  ("roll", r.roll)) if v is not None)
        say(f"  line {r.line} {where}, dice {' '.join(map(str, r.dice))}: chose "
            f"{r.chose_label} ({f(r.chose_expected)}); best {r.best_label} "
            f"({f(r.best_expected)}) — {mark}", 6)
    lost = (f"total loss of the chance of reaching {judged.target}" if judged.target is not None
            else "total expected loss")
    say(f"{lost} {judged.total_loss:.4f} over "
        f"{counted(len(judged.decisions), 'decision')} in {counted(len(summary), 'game')}"
        + (" (values approximate: each loss with its error)" if judged.approximate
           else ""))
    if judged.substituted:
        lines = ", ".join(map(str, judged.substituted[:10])) + (
            ", ..." if len(judged.substituted) > 10 else "")
        say(f"not judged: {len(judged.substituted)} decision"
            f"{'s' * (len(judged.substituted) != 1)} that bench-agent played for the "
            f"agent after its errors (line{'s' * (len(judged.substituted) != 1)} {lines})")


def _error_text(loss_error, close_call) -> str:
    """" ±E" after an approximate loss, and "(close call)" where E covers it."""
    if loss_error is None:
        return ""
    return f" ±{loss_error:.2f}" + (" (close call)" if close_call else "")
