"""What ``dicewise risk`` answers, as the Python API returns it.

Each command is one call here: it reads the rule options the command takes, solves (with
the progress bar it is given, where the work is long) and returns a result whose
``to_json()`` is what ``dicewise risk COMMAND --json`` prints.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message
from . import advice as advice_module, battles, cards as cards_module, chain as chain_module
from .game import RISK
from .policy import Policy
from .rules import RiskRules
from .work import battle_work, chain_steps, chain_work, table_work

#: Above this much work (``work``) a solve shows its progress bar: about a second on a slow
#: machine.
BAR_WORK = 2_000_000

#: The progress bars' labels.
SOLVING, SEARCHING = Message("solving"), Message("searching")

#: Writing one entry of a CSV table takes about as long as solving five states; so a row
#: of the table (n entries) is as many steps as ten diagonals of its solve (n/2 states each).
_CSV_WORK = 5
_CSV_ROW_STEPS = 2 * _CSV_WORK


def _with_bar(progress, steps: int, work: int, label: Message, solve: Callable):
    """``solve(update)`` under a bar of ``progress`` (a factory (steps, label) -> context
    manager) where the work is large, else ``solve(None)``."""
    if progress is None or work < BAR_WORK:
        return solve(None)
    with progress(steps, label) as update:
        return solve(update)


def command_rules(command: str, options=None) -> RiskRules:
    """The rules of ``dicewise risk COMMAND`` from its options (a dict, or ``KEY=VALUE``
    texts); an option the command does not read is refused."""
    if not (options is None or isinstance(options, Mapping) or (
            isinstance(options, (list, tuple)) and all(isinstance(p, str) for p in options))):
        raise DicewiseError(Message("options takes a dict of option values, KEY=VALUE "
                                    "texts, or None, not {value}", value=repr(options)))
    return RISK.rules(RISK.parse_command_options(command, options))


def battle_policy(dice: str = "max", objective: str = "conquest",
                  exchange_value: float | None = None,
                  threshold: float | None = None) -> Policy:
    """How the sides play; a value of another objective's is refused (it would be ignored):
    ``exchange_value`` is for ``expected-armies``, ``threshold`` for ``threshold``."""
    for flag, value, wants in (("--exchange-value", exchange_value, "expected-armies"),
                               ("--threshold", threshold, "threshold")):
        if value is not None and objective != wants:
            raise DicewiseError(Message("{flag} is for --objective {objective}", flag=flag,
                                        objective=wants))
    return Policy(dice=dice, objective=objective,
                  exchange_value=0.0 if exchange_value is None else exchange_value,
                  threshold=0.5 if threshold is None else threshold)


def policy_json(policy: Policy, rules: RiskRules) -> dict:
    """The policy, with the two rule options it was always shown with (ties, what the
    defender sees); every battle rule is under ``rule_options``."""
    out = {"dice": policy.dice, "defender_sees_roll": rules.defender_sees_roll,
           "objective": policy.objective, "ties": rules.ties}
    if policy.objective == "expected-armies":
        out["exchange_value"] = policy.exchange_value
    if policy.objective == "threshold":
        out["threshold"] = policy.threshold
    return out


# --- battle and advice ---------------------------------------------------------------------

@dataclass(frozen=True)
class BattleReport:
    """A whole battle, A v D, under the rules and the policy: ``battle`` holds its numbers."""

    battle: battles.Battle

    @property
    def rules(self) -> RiskRules:
        return self.battle.rules

    @property
    def policy(self) -> Policy:
        return self.battle.policy

    def to_json(self) -> dict:
        b = self.battle
        return {"attacker": b.attacker, "defender": b.defender, "dice": b.policy.dice,
                "policy": policy_json(b.policy, b.rules), "rule_options": b.rules.battle_options,
                "p_conquer": b.p_conquer,
                "attacker_survivors": {str(k): v for k, v in b.attacker_survivors.items()},
                "defender_survivors": {str(k): v for k, v in b.defender_survivors.items()},
                "stopped": [{"attacker": a, "defender": d, "p": p} for a, d, p in b.stopped],
                "expected_attacker_losses": b.expected_attacker_losses,
                "expected_defender_losses": b.expected_defender_losses,
                "value": b.value}


def risk_battle(attacker: int, defender: int, *, options=None, dice: str = "max",
                objective: str = "conquest", exchange_value: float | None = None,
                threshold: float | None = None, progress=None) -> BattleReport:
    """P(conquer), the survivors and the expected losses of ``attacker`` v ``defender``."""
    rules = command_rules("battle", options)
    policy = battle_policy(dice, objective, exchange_value, threshold)
    return BattleReport(_with_bar(
        progress, battles.battle_steps(attacker, defender, policy),
        battle_work(attacker, defender, rules, policy), SOLVING,
        lambda update: battles.battle(attacker, defender, rules, policy, update)))


@dataclass(frozen=True)
class AdviceReport:
    """What to do now at A v D (``advice``), under ``rules``."""

    advice: advice_module.BattleAdvice
    rules: RiskRules

    @property
    def policy(self) -> Policy:
        return self.advice.policy

    def to_json(self) -> dict:
        a = self.advice
        return {"attacker": a.attacker, "defender": a.defender,
                "policy": policy_json(a.policy, self.rules),
                "rule_options": self.rules.battle_options,
                "go_on": a.go_on, "attacker_dice": a.attacker_dice,
                "defender_dice": a.defender_dice or None, "value": a.value,
                "stop_value": a.stop_value, "p_conquer": a.p_conquer,
                "options": [{"attacker_dice": o.attacker_dice,
                             "defender_dice": o.defender_dice or None, "value": o.value}
                            for o in a.options]}


def risk_advise(attacker: int, defender: int, *, options=None, dice: str = "minimax",
                objective: str = "conquest", exchange_value: float | None = None,
                threshold: float | None = None, progress=None) -> AdviceReport:
    """How many dice to roll now at ``attacker`` v ``defender``, and whether to go on."""
    rules = command_rules("advise", options)
    policy = battle_policy(dice, objective, exchange_value, threshold)
    return AdviceReport(_with_bar(
        progress, advice_module.advise_steps(attacker, defender),
        2 * battle_work(attacker, defender, rules, policy), SOLVING,
        lambda update: advice_module.advise(attacker, defender, rules, policy, update)), rules)


# --- chains ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ChainReport:
    """An attack along a path (``chain``) and, where a target was given, the fewest armies
    that reach it (``target``, ``min_armies``, ``p_at_min``)."""

    chain: chain_module.Chain
    rules: RiskRules
    policy: Policy
    target: float | None = None
    min_armies: int | None = None
    p_at_min: float | None = None

    def to_json(self) -> dict:
        c = self.chain
        out = {"armies": c.armies, "defenders": list(c.defenders), "garrison": c.garrison,
               "policy": policy_json(self.policy, self.rules),
               "rule_options": self.rules.battle_options, "p_all": c.p_all,
               "reached": {str(j): p for j, p in enumerate(c.reached)},
               "expected_final_armies": c.expected_final_armies,
               "expected_armies_left": c.expected_armies_left}
        if self.target:
            out["target"] = {"p": self.target, "min_armies": self.min_armies,
                             "p_at_min": self.p_at_min}
        return out


def risk_chain(armies: int, defenders, *, garrison: int = 1, target: float | None = None,
               options=None, dice: str = "max", progress=None) -> ChainReport:
    """Attack ``defenders`` in order from ``armies``, leaving ``garrison`` behind on each
    territory moved on from; with ``target`` also the fewest armies with P(all) ≥ it."""
    rules = command_rules("chain", options)
    policy = battle_policy(dice)
    if not isinstance(defenders, (list, tuple)):
        raise DicewiseError(Message("defenders takes a list of defending armies, one a "
                                    "territory, not {value}", value=repr(defenders)))
    defenders = chain_module.check_chain(armies, defenders, garrison, target)
    # the search's size, refused before any solve where it would not fit
    bound = chain_module.search_bound(defenders, garrison) if target else None
    c = _with_bar(progress, chain_steps(armies, defenders),
                  chain_work(armies, defenders, rules, policy), SOLVING,
                  lambda update: chain_module.chain_attack(armies, list(defenders), garrison,
                                                           rules, policy, update))
    if not target:
        return ChainReport(c, rules, policy)
    need, p = _with_bar(progress, chain_steps(bound, defenders),
                        chain_work(bound, defenders, rules, policy), SEARCHING,
                        lambda update: chain_module.min_armies(list(defenders), target, garrison,
                                                               rules, policy, update))
    return ChainReport(c, rules, policy, target, need, p)


# --- tables ------------------------------------------------------------------------------

#: What a table file of P(conquer) says of its array.
TABLE_META = {"index": "p_conquer[A, D]: A armies on the attacking territory (rolling at most "
                       "A-1 dice), D defending armies",
              "row_0": "NaN", "row_1": "0 (cannot attack)", "column_0": "1"}


@dataclass(frozen=True)
class ConquestTable:
    """P(conquer) for every A in 2..``n`` and D in 1..``n`` (``p_conquer[A, D]``; a fight to
    the end), and its ``data`` as written: CSV text, a table file's bytes, or None."""

    n: int
    rules: RiskRules
    policy: Policy
    p_conquer: np.ndarray = field(repr=False)
    data: Any = field(default=None, repr=False)
    format: str | None = None

    @property
    def options(self) -> dict:
        """What a table file records as its options: the rules, the dice and ``max``."""
        return {**self.rules.battle_options, "dice": self.policy.dice, "max": self.n}

    def to_json(self) -> dict:
        """What was solved; where it was written out, the options it records (``max`` too)."""
        if self.format is None:
            return {"max": self.n, "options": {**self.rules.battle_options,
                                               "dice": self.policy.dice}}
        return {"format": self.format, "max": self.n, "options": self.options}


def risk_table(n: int, *, options=None, dice: str = "max", format: str | None = None,
               command: str = "table", progress=None) -> ConquestTable:
    """P(conquer) for A, D up to ``n``; ``format`` ``"csv"`` or ``"table"`` (a checksummed
    table file) also gives the bytes to write, under the same progress bar."""
    if format not in (None, "csv", "table"):
        raise DicewiseError(Message("a P(conquer) table is csv or table, not {format}",
                                    format=format))
    rules = command_rules(command, options)
    policy = battle_policy(dice)
    battles.check_table_size(n)
    steps, work = battles.table_steps(n), table_work(n, rules, policy)
    if format == "csv":  # writing it out takes longer than the solve
        steps, work = steps + _CSV_ROW_STEPS * (n - 1), work + _CSV_WORK * n * n

    def solve(update):
        p = battles.conquest_table(n, rules, policy, update)
        return p, (_csv_text(p, update) if format == "csv" else None)

    p, text = _with_bar(progress, steps, work, SOLVING, solve)
    table = ConquestTable(n, rules, policy, p, text, format)
    if format != "table":
        return table
    from ...tables.format import table_bytes

    return replace(table, data=table_bytes(
        kind="risk-conquest", ruleset="risk", options=table.options,
        rules_digest=RISK.rules_digest(rules), arrays={"p_conquer": p},
        meta=TABLE_META))


def _csv_text(p: np.ndarray, progress=None) -> str:
    """P(conquer) as CSV: rows A = 2..n, columns D = 1..n."""
    buf = io.StringIO()
    w = csv.writer(buf)
    n = p.shape[0] - 1
    w.writerow(["A"] + [f"D={d}" for d in range(1, n + 1)])
    for a in range(2, n + 1):
        w.writerow([a] + [repr(float(x)) for x in p[a, 1:]])
        if progress is not None:
            progress(_CSV_ROW_STEPS)
    return buf.getvalue()


# --- cards -------------------------------------------------------------------------------

@dataclass(frozen=True)
class CardsReport:
    """Sets, the chance of holding one, and the armies cards bring (``report``), for the
    inputs asked."""

    report: cards_module.CardReport
    sets_traded: int
    hand: str
    turns: int
    conquer_prob: float
    wild_cards: int

    def to_json(self) -> dict:
        r, look = self.report, self.report.outlook
        out = {"sets_traded": self.sets_traded, "next_set_values": list(r.next_set_values),
               "hand": self.hand,
               "p_set_after": {str(k): float(p) for k, p in enumerate(r.p_set_after)},
               "p_set_after_exact": {str(k): str(p) for k, p in enumerate(r.p_set_after)},
               "card_armies_per_turn": list(look.per_turn), "p_trade_per_turn": list(look.p_trade),
               "card_armies_total": look.total, "turns": self.turns,
               "conquer_prob": self.conquer_prob, "wild_cards": self.wild_cards}
        if r.expected_armies_total is not None:
            out.update(territories=r.territories, reinforcements=r.reinforcements,
                       expected_armies_total=r.expected_armies_total)
        if r.starting_armies is not None:
            out.update(players=r.players, starting_armies=r.starting_armies)
        return out


def risk_cards(*, sets_traded: int = 0, territories: int | None = None, turns: int = 5,
               hand: str | None = None, conquer_prob: float = 1.0, players: int | None = None,
               options: Mapping[str, Any] | None = None) -> CardsReport:
    """Armies from the next sets and the territories held, and the chance of holding a set
    (``hand``: the cards held as letters, ``iic``)."""
    wild = command_rules("cards", options).wild_cards
    report = cards_module.card_report(turns, sets_traded, hand or "", conquer_prob, wild,
                                      territories, players)
    return CardsReport(report, sets_traded, hand or "", turns, conquer_prob, wild)
