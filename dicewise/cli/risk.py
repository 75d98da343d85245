"""``dicewise risk``: battles, advice, chain attacks, tables, plots and cards for Risk.

Each command parses, calls one function of the Python API (``dicewise.api.risk_battle``
and the others, ``dicewise.solver.risk.reports``) and formats the result: for people by default, in their language (``--lang``, else the locale), and JSON
with ``--json``.  Rule options are read with ``--option KEY=VALUE`` against the options the
game declares (``dicewise rules risk``); ``--ties``, ``--defender-sees-roll`` and
``--wild-cards`` are aliases of three of them.  Bad input of any kind is a DicewiseError,
printed by the group as one line with exit status 2, in the command's language.
"""

from __future__ import annotations

import difflib
import math
import re
import textwrap

import click
from click.core import ParameterSource

from .. import api
from ..errors import DicewiseError
from ..i18n import Message
from ..solver import risk as rk
from ..solver.risk.game import RISK
from .format import (checked_output, emit_json, progress, pyplot, say, speak, write_figure,
                     write_output)
from .games import lang_flag
from .helptext import SpokenHelp
from .main import Command, Group, group_lang, option_before_its_value, option_given_twice

class _Int(click.types.IntParamType):
    """A whole number; an option where one is wanted (``--dise``) is an unknown option."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and value.startswith("--"):
            raise _no_such_option(value, ctx)
        return super().convert(value, param, ctx)


def _no_such_option(name: str, ctx) -> click.NoSuchOption:
    """An unknown option taken for an argument, refused as click refuses one elsewhere: by
    its name, with the command's options it may be a misspelling of."""
    known = [o for p in (ctx.command.get_params(ctx) if ctx else ()) for o in p.opts
             if o.startswith("-")]
    return click.NoSuchOption(name, possibilities=difflib.get_close_matches(name, known),
                              ctx=ctx)


class _Decimal(click.types.FloatParamType):
    """A number that may be written with a decimal comma, as Russian and Polish write it
    (``0,45``); a comma that may set thousands apart (``1,000``) is refused as before."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and re.fullmatch(r"[-+]?\d+,\d+", value.strip()) \
                and not re.fullmatch(r"[-+]?[1-9]\d{0,2},\d{3}", value.strip()):
            value = value.replace(",", ".")
        return super().convert(value, param, ctx)


INT, FLOAT = _Int(), _Decimal()


class _NumbersCommand(SpokenHelp, click.Command):
    """A command whose arguments are numbers, which may be negative (to be refused with a
    clear message, not taken for options): click then takes an unknown option for an
    argument, and one after the arguments is refused as an unknown option, not as an extra
    argument."""

    def parse_args(self, ctx, args):
        option_before_its_value(ctx, self, args)
        option_given_twice(ctx, self, args)
        rest = super().parse_args(ctx, args)
        for word in rest:
            if word.startswith("-") and not word[1:].isdigit():
                raise _no_such_option(word, ctx)
        if rest:
            raise click.UsageError(Message("unexpected arguments: {arguments}",
                                           arguments=" ".join(rest)), ctx)
        return rest


_ARGS = {"ignore_unknown_options": True, "allow_extra_args": True,
         "help_option_names": ["-h", "--help"]}


def _option_flag(command):
    names = ", ".join(s.name for s in RISK.command_option_specs(command))
    return click.option("-o", "--option", "options", multiple=True, metavar="KEY=VALUE",
                        help=f"A rule option ({names}; see `dicewise rules risk`); repeatable.")


def _rule_options(command):
    """``--option`` and the aliases of the battle rules."""
    def deco(f):
        f = click.option("--defender-sees-roll", is_flag=True,
                         help="Same as --option defender_sees_roll=true: the defender picks 1 or "
                              "2 dice after seeing the attacker's dice (needs --dice minimax).")(f)
        f = click.option("--ties", type=click.Choice(rk.TIES), default=None,
                         help="Same as --option ties=...: who wins tied dice "
                              "(default: defender).")(f)
        return _option_flag(command)(f)
    return deco


def _dice_options(command, default="max"):
    def deco(f):
        f = click.option("--dice", type=click.Choice(rk.DICE_MODES), default=default,
                         show_default=True,
                         help="max: both roll the most dice allowed; minimax: the attacker "
                              "picks its count, the defender replies to minimise.")(f)
        return _rule_options(command)(f)
    return deco


def _options(options, **aliases) -> list[str]:
    """The ``--option`` pairs with the alias flags given (None or False: not given) among
    them; an option given both ways is refused."""
    pairs = list(options)
    given = {pair.partition("=")[0].strip() for pair in pairs}
    for key, value in aliases.items():
        if value is None or value is False:
            continue
        if key in given:
            raise DicewiseError(Message("option {key} given twice ({flag} and --option "
                                        "{key}=...)", key=key,
                                        flag="--" + key.replace("_", "-")))
        pairs.append(f"{key}={str(value).lower() if isinstance(value, bool) else value}")
    return pairs


#: The words of --dice and --objective, said in the players' language (English as typed).
_WORDS = {"max": Message("max"), "minimax": Message("minimax"), "conquest": Message("conquest"),
          "expected-armies": Message("expected-armies"), "threshold": Message("threshold")}


def _word(typed: str, tr) -> str:
    return _WORDS[typed].in_language(tr) if typed in _WORDS else typed


def _rules_text(rules: rk.RiskRules, tr) -> str:
    """The battle rules for people: the tie rule, and any option off the seed's default."""
    parts = [tr("ties to the attacker") if rules.ties == "attacker" else
             tr("ties to the defender")]
    if rules.defender_sees_roll:
        parts.append(tr("defender sees the roll"))
    if (rules.max_attacker_dice, rules.max_defender_dice) != (3, 2):
        parts.append(tr("at most {attacker} v {defender} dice").format(
            attacker=rules.max_attacker_dice, defender=rules.max_defender_dice))
    return ", ".join(parts)


def _headline(attacker: int, defender: int, dice: str, rules: rk.RiskRules,
              policy: rk.Policy, tr) -> str:
    """A battle and how it is fought: ``10 v 10  (dice max, ties to the defender, ...)``,
    the objective with its threshold or a conquest's worth where it has one."""
    battle = tr("{attacker} v {defender}").format(attacker=attacker, defender=defender)
    objective = _word(policy.objective, tr) + (" " + tr.number(policy.threshold, "g")
                                               if policy.objective == "threshold" else "")
    how = [tr("dice {dice}").format(dice=_word(dice, tr)), _rules_text(rules, tr),
           tr("objective {objective}").format(objective=objective)]
    if policy.objective == "expected-armies":
        how.append(tr("a conquest worth {armies} armies").format(
            armies=tr.number(policy.exchange_value, "g")))
    return f"{battle}  ({', '.join(how)})"


def _objective_options(f):
    f = click.option("--threshold", type=FLOAT, default=0.5, show_default=True,
                     help="For --objective threshold: stop when P(conquer) from here is "
                          "below this.")(f)
    f = click.option("--exchange-value", type=FLOAT, default=0.0, show_default=True,
                     help="For --objective expected-armies: armies a conquest is worth.")(f)
    f = click.option("--objective", type=click.Choice(rk.OBJECTIVES), default="conquest",
                     show_default=True,
                     help="conquest: maximise P(conquer); expected-armies: maximise own minus "
                          "defending armies at the end; threshold: stop below a P(conquer).")(f)
    return f


def _json_option(f):
    f = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")(f)
    return lang_flag(f)


def _given(name: str, value):
    """``value`` where the flag was given, None where it is the default (the API then
    refuses a flag of another objective, which would be ignored)."""
    source = click.get_current_context().get_parameter_source(name)
    return None if source is ParameterSource.DEFAULT else value


def _pct(p: float, tr) -> str:
    """``p`` in percent to four decimals; a chance that is not certain never reads 100%
    (nor one that is not nil 0%)."""
    if 0 < p < 0.0000005:
        return "<" + tr.number(0.0001, ".4f") + "%"
    if 0.9999995 <= p < 1:
        return ">" + tr.number(99.9999, ".4f") + "%"
    return tr.number(100 * p, ".4f") + "%"


def _aligned(rows, width: int | None = None) -> None:
    """Lines of (label, value) for people, the values in one column after the widest label
    (or ``width``): labels differ in length from one language to another."""
    width = width or max(len(label) for label, _ in rows)
    for label, value in rows:
        say(f"{label:<{width}} {value}")


class _Group(SpokenHelp, Group):
    """The Risk group: its help and its commands' list in the locale's language."""


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@group_lang
def risk():
    """Risk: exact battles, optimal dice and stopping, chain attacks, tables, cards.

    A is every army on the attacking territory (it rolls at most A-1 dice), D the
    defending armies.
    """


@risk.command(cls=_NumbersCommand, context_settings=_ARGS)
@click.argument("attacker", type=INT)
@click.argument("defender", type=INT)
@_dice_options("battle")
@_objective_options
@_json_option
def battle(attacker, defender, options, ties, defender_sees_roll, dice, objective,
           exchange_value, threshold, lang, as_json):
    """P(conquer), survivors' distributions and expected losses of A v D."""
    tr = speak(lang)
    report = api.risk_battle(
        attacker, defender,
        options=_options(options, ties=ties, defender_sees_roll=defender_sees_roll),
        dice=dice, objective=objective, exchange_value=_given("exchange_value", exchange_value),
        threshold=_given("threshold", threshold), progress=progress)
    if as_json:
        return emit_json(report)
    b, rules, policy = report.battle, report.rules, report.policy
    say(_headline(attacker, defender, dice, rules, policy, tr))
    rows = [(tr("P(conquer)"), f"{tr.number(b.p_conquer, '.12f')}  ({_pct(b.p_conquer, tr)})"),
            (tr("expected attacker losses"), tr.number(b.expected_attacker_losses, ".6f")),
            (tr("expected defender losses"), tr.number(b.expected_defender_losses, ".6f"))]
    stops = [(tr("P(attacker stops)"), tr.number(sum(p for *_, p in b.stopped), ".12f"))] \
        if b.stopped else []
    width = max(len(label) for label, _ in rows + stops)
    _aligned(rows, width)
    if objective == "expected-armies":
        say(tr("expected armies, own minus defending (+ exchange value) {value}").format(
            value=tr.number(b.value, ".6f")))
    if stops:
        _aligned(stops, width)
    _dist(tr("attacker armies left on conquest"), b.attacker_survivors, tr)
    _dist(tr("defenders left when not conquered"), b.defender_survivors, tr)


def _dist(title, d, tr, limit=25):
    """A distribution ``{n: p}`` under its title: its ``limit`` likeliest values, in order."""
    if not d:
        return
    say(f"{title}:")
    items = sorted(d.items(), key=lambda kv: -kv[1])[:limit]
    for n, p in sorted(items):
        click.echo(f"  {n:>6}  {tr.number(p, '.10f')}")
    if len(d) > limit:
        rest = sum(d.values()) - sum(p for _, p in items)
        say("  (" + tr.ngettext("{n} less likely value: {p} together",
                                "{n} less likely values: {p} together", len(d) - limit)
            .format(n=len(d) - limit, p=tr.number(rest, ".3e")) + ")")


@risk.command(cls=_NumbersCommand, context_settings=_ARGS)
@click.argument("attacker", type=INT)
@click.argument("defender", type=INT)
@_dice_options("advise", default="minimax")
@_objective_options
@_json_option
def advise(attacker, defender, options, ties, defender_sees_roll, dice, objective,
           exchange_value, threshold, lang, as_json):
    """How many dice to roll now at A v D, and whether to go on or stop."""
    tr = speak(lang)
    report = api.risk_advise(
        attacker, defender,
        options=_options(options, ties=ties, defender_sees_roll=defender_sees_roll),
        dice=dice, objective=objective, exchange_value=_given("exchange_value", exchange_value),
        threshold=_given("threshold", threshold), progress=progress)
    if as_json:
        return emit_json(report)
    adv, rules, policy = report.advice, report.rules, report.policy
    what = {"conquest": tr("P(conquer)"), "expected-armies": tr("E[own - defending armies]"),
            "threshold": tr("P(conquer) playing on")}[objective]
    say(_headline(attacker, defender, dice, rules, policy, tr))
    if adv.go_on:
        reply = (tr("the defender replies with {n}").format(n=adv.defender_dice)
                 if adv.defender_dice else tr("the defender chooses after seeing your dice"))
        say(tr.ngettext("roll {n} die ({reply}); go on", "roll {n} dice ({reply}); go on",
                        adv.attacker_dice).format(n=adv.attacker_dice, reply=reply))
    else:
        say(tr("stop attacking"))
    for o in adv.options:
        reply = (tr("defender {n}").format(n=o.defender_dice) if o.defender_dice
                 else tr("defender sees the roll"))
        say("  " + tr.ngettext("{n} die ({reply}): {what} {value}",
                               "{n} dice ({reply}): {what} {value}", o.attacker_dice).format(
            n=o.attacker_dice, reply=reply, what=what, value=tr.number(o.value, ".10f")))
    if adv.stop_value is not None:
        stop = (tr("stop now: {value}  (threshold {threshold})") if objective == "threshold"
                else tr("stop now: {value}"))
        say("  " + stop.format(value=tr.number(adv.stop_value, ".10f"),
                               threshold=tr.number(threshold, "g")))
    say(tr("P(conquer) under this policy {value}").format(value=tr.number(adv.p_conquer, ".10f")))


@risk.command(cls=_NumbersCommand, context_settings=_ARGS)
@click.argument("armies", type=INT)
@click.argument("defenders", type=INT, nargs=-1, required=True)
@click.option("--garrison", type=INT, default=1, show_default=True,
              help="Armies left behind on each territory the attack moves on from.")
@click.option("--target", type=FLOAT, default=None,
              help="Also find the fewest armies with P(all conquered) >= this.")
@_dice_options("chain")
@_json_option
def chain(armies, defenders, garrison, target, options, ties, defender_sees_roll, dice, lang,
          as_json):
    """Attack territories with DEFENDERS armies in order, starting from ARMIES.

    After each conquest all but --garrison armies move on (at least the dice of the last
    round, as the rules require).
    """
    tr = speak(lang)
    report = api.risk_chain(
        armies, defenders, garrison=garrison, target=target,
        options=_options(options, ties=ties, defender_sees_roll=defender_sees_roll), dice=dice,
        progress=progress)
    if as_json:
        return emit_json(report)
    c, rules = report.chain, report.rules
    against = tr.ngettext("{armies} army against {chain}", "{armies} armies against {chain}",
                          armies).format(armies=armies, chain=" -> ".join(map(str, defenders)))
    how = [tr("garrison {garrison}").format(garrison=garrison),
           tr("dice {dice}").format(dice=_word(dice, tr)), _rules_text(rules, tr)]
    say(f"{against}  ({', '.join(how)})")
    everything = tr("P(all conquered)")
    say(f"{everything}   {tr.number(c.p_all, '.12f')}  ({_pct(c.p_all, tr)})")
    say(tr("territories conquered:"))
    for j, p in enumerate(c.reached):
        click.echo(f"  {j:>3}  {tr.number(p, '.10f')}")
    _aligned([(tr("expected armies on the last territory, if all conquered"),
               "—" if math.isnan(c.expected_final_armies)
               else tr.number(c.expected_final_armies, ".6f")),
              (tr("expected armies left along the path, all outcomes"),
               tr.number(c.expected_armies_left, ".6f"))])
    if report.target:
        say(tr("fewest armies for P(all) >= {target}: {armies} (P = {p})").format(
            target=tr.number(target, "g"), armies=report.min_armies,
            p=tr.number(report.p_at_min, ".10f")))


@risk.command(cls=Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--max", "n", type=INT, required=True, help="Largest A and D in the table.")
@click.option("--format", "fmt", type=click.Choice(["csv", "table"]), default="csv",
              show_default=True,
              help="csv: plain CSV (rows A, columns D); table: a dicewise table file.")
@click.option("--out", type=click.Path(), required=True,
              help="File to write.")
@_dice_options("table")
@_json_option
def table(n, fmt, out, options, ties, defender_sees_roll, dice, lang, as_json):
    """Write P(conquer) for every A in 2..MAX and D in 1..MAX (a fight to the end).

    A table file records the rule options, the dice and MAX (its options) and the
    digest of the solver's code: reading it back refuses other rules or another solver.
    """
    tr = speak(lang)
    checked_output(out)  # before the solve; written at the end
    result = api.risk_table(
        n, options=_options(options, ties=ties, defender_sees_roll=defender_sees_roll),
        dice=dice, format=fmt, progress=progress)
    write_output(out, result.data)
    if as_json:
        emit_json({"out": str(out), **result.to_json()})
    else:
        say(tr("wrote P(conquer) for A = 2..{n}, D = 1..{n} to {out} ({format})").format(
            n=n, out=out, format=fmt))


@risk.command(cls=Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--max", "n", type=INT, default=40, show_default=True,
              help="Largest A and D shown.")
@click.option("--out", type=click.Path(), required=True,
              help="Image file to write: PNG, or another format by its suffix (.svg, .pdf).")
@_dice_options("plot")
@_json_option
def plot(n, out, options, ties, defender_sees_roll, dice, lang, as_json):
    """A heatmap of P(conquer) for A, D up to MAX (needs matplotlib)."""
    tr = speak(lang)
    if not 2 <= n <= 1000:
        raise DicewiseError(Message("--max for a plot must be 2..1000, not {n}", n=n))
    plt = pyplot(out)  # before the solve; written at the end
    result = api.risk_table(
        n, options=_options(options, ties=ties, defender_sees_roll=defender_sees_roll),
        dice=dice, command="plot", progress=progress)
    p, rules = result.p_conquer, result.rules
    fig, ax = plt.subplots(figsize=(7, 6))
    try:
        im = ax.imshow(p[2:, 1:], origin="lower", extent=(0.5, n + 0.5, 1.5, n + 0.5),
                       aspect="auto", cmap="RdYlGn", vmin=0, vmax=1)
        even = None
        if n > 2:  # a contour needs two rows of A (--max 2 has only A = 2)
            even = ax.contour(range(1, n + 1), range(2, n + 1), p[2:, 1:], levels=[0.5],
                              colors="k", linewidths=0.8)
        from matplotlib.ticker import MaxNLocator  # armies are whole: no tick at 2.5

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(tr("D (defending armies)"))
        ax.set_ylabel(tr("A (armies on the attacking territory)"))
        title = tr("Risk: P(conquer), dice {dice}, {rules}").format(
            dice=_word(dice, tr), rules=_rules_text(rules, tr))
        ax.set_title(textwrap.fill(title, 60))  # longer rules ran off the image
        bar = fig.colorbar(im, ax=ax, label=tr("P(conquer)"))
        if even is not None:  # the black line is where P(conquer) = 0.5: marked on the bar
            bar.add_lines(even)
        fig.tight_layout()
    except BaseException:
        plt.close(fig)
        raise
    write_figure(plt, fig, out)
    if as_json:
        emit_json({"out": str(out), **result.to_json()})
    else:
        say(tr("wrote a P(conquer) heatmap for A, D up to {n} to {out}").format(n=n, out=out))


@risk.command(cls=Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--sets-traded", type=INT, default=0, show_default=True,
              help="Sets traded so far in the game (by all players).")
@click.option("--territories", type=INT, default=None, help="Territories you hold.")
@click.option("--turns", type=INT, default=5, show_default=True,
              help="Turns to look ahead for armies from cards.")
@click.option("--hand", default=None,
              help="Cards held, as letters: i, c, a (the three kinds), w (wild); e.g. iic.")
@click.option("--conquer-prob", type=FLOAT, default=1.0, show_default=True,
              help="Probability of conquering at least one territory (earning a card) per turn.")
@click.option("--wild-cards", type=INT, default=None,
              help="Same as --option wild_cards=N: wild cards in the deck (default: 0, as in "
                   "the seed rules).")
@click.option("--players", type=INT, default=None,
              help="Show the starting armies for 3..6 players.")
@_option_flag("cards")
@_json_option
def cards(sets_traded, territories, turns, hand, conquer_prob, wild_cards, players, options,
          lang, as_json):
    """Armies from sets and territories, and the chance of holding a set.

    Cards are drawn independently with the three kinds equally likely; you trade a set as
    soon as you hold one, and no one else trades in the turns looked at.
    """
    tr = speak(lang)
    result = api.risk_cards(sets_traded=sets_traded, territories=territories, turns=turns,
                            hand=hand, conquer_prob=conquer_prob, players=players,
                            options=_options(options, wild_cards=wild_cards))
    if as_json:
        return emit_json(result)
    report, wild_cards = result.report, result.wild_cards
    look, total = report.outlook, report.expected_armies_total
    if report.starting_armies is not None:
        say(tr("starting armies for {players} players: {armies} each").format(
            players=players, armies=report.starting_armies))
    if report.reinforcements is not None:
        say(tr.ngettext("reinforcements for {territories} territory: {armies} a turn",
                        "reinforcements for {territories} territories: {armies} a turn",
                        territories).format(territories=territories,
                                            armies=report.reinforcements))
    say(tr("next sets traded (after {traded}): {values} armies").format(
        traded=sets_traded, values=", ".join(map(str, report.next_set_values))))
    say(tr.ngettext("P(holding a set) after k cards from an empty hand ({wild} wild card in "
                    "the deck):",
                    "P(holding a set) after k cards from an empty hand ({wild} wild cards in "
                    "the deck):",
                    wild_cards).format(wild=wild_cards) if wild_cards else
        tr("P(holding a set) after k cards from an empty hand:"))
    for k, p in enumerate(report.p_set_after):
        if k:
            click.echo(f"  {k}  {tr.number(float(p), '.6f')}  ({p})")
    say(tr.ngettext("armies from cards in the next {turns} turn (hand '{hand}', P(card a "
                    "turn) {p}):",
                    "armies from cards in the next {turns} turns (hand '{hand}', P(card a "
                    "turn) {p}):", turns).format(turns=turns, hand=hand or "",
                                                 p=tr.number(conquer_prob, "g")))
    width = max(2, len(str(len(look.per_turn))))  # turn 99 above turn 100, aligned
    for t, (g, q) in enumerate(zip(look.per_turn, look.p_trade), 1):
        say("  " + tr("turn {turn}: {armies}  (P(trade) {p})").format(
            turn=f"{t:>{width}}", armies=tr.number(g, ".4f"), p=tr.number(q, ".4f")))
    say("  " + tr("total {armies}").format(armies=tr.number(look.total, ".4f")))
    if total is not None:
        say(tr.ngettext("expected armies in {turns} turn, territories and cards: {armies}",
                        "expected armies in {turns} turns, territories and cards: {armies}",
                        turns).format(turns=turns, armies=tr.number(total, ".4f")))
