"""Risk's protocol object: its rule options, its rules and the commands of its own group.

Risk is no five-dice sheet game: it has none of the generic commands (solve, advise,
simulate...) and no solved table, only questions asked of exact Markov chains, which its
own command group ``dicewise risk`` answers.  So the object declares the options (read by
``dicewise rules risk`` and by ``--option`` of the group), turns them into ``RiskRules``,
names the digest of the code behind a P(conquer) table file, and refuses the rest with the
protocol's ``unsupported``.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...errors import DicewiseError
from ...i18n import Message
from ..digest import rules_digest
from ..options import OptionSpec, option_specs, parse_option_pairs
from ..protocol import Game, unsupported
from . import battles, dice_choice, markov, policy, rounds, rules as rules_module, stopping
from .rules import BATTLE_OPTIONS, CARD_OPTIONS, RiskRules

#: The commands of ``dicewise risk``: a line of help, and the rule options each one reads.
GROUP_COMMANDS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "battle": ("P(conquer), survivors' distributions and expected losses of A v D",
               BATTLE_OPTIONS),
    "advise": ("how many dice to roll now at A v D, and whether to go on or stop", BATTLE_OPTIONS),
    "chain": ("attack a path of territories in order; the fewest armies for a target",
              BATTLE_OPTIONS),
    "table": ("write P(conquer) for every A, D up to a bound (CSV or a table file)",
              BATTLE_OPTIONS),
    "plot": ("a heatmap of P(conquer) (needs matplotlib)", BATTLE_OPTIONS),
    "cards": ("armies from sets and territories, and the chance of holding a set",
              CARD_OPTIONS),
}


class RiskGame(Game):
    """Risk battles and cards (RULES.md section 5), answered by ``dicewise risk``."""

    name = "risk"
    title = "Risk battles, stopping, chain attacks and cards, from the French seed"
    exact = True
    commands = frozenset()
    policies = ()
    policy_aliases = {}
    advise_inputs = frozenset()
    own_group = "risk"

    # --- rules and options -------------------------------------------------------------

    def option_specs(self) -> tuple[OptionSpec, ...]:
        return option_specs(RiskRules)

    def rules(self, options: Mapping[str, Any]) -> RiskRules:
        options = dict(options or {})
        known = [s.name for s in self.option_specs()]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise DicewiseError(Message("unknown option {names} for risk (options: {known})",
                                        names=", ".join(unknown), known=", ".join(known)))
        return RiskRules(**options)

    def rule_options(self, rules: RiskRules) -> dict:
        return rules.options

    def describe(self, rules: RiskRules) -> dict:
        """The commands of ``dicewise risk`` (in place of the generic ones, which Risk has
        none of), a line of help each, and the rule options each one reads."""
        return {"group_commands": list(GROUP_COMMANDS),
                "command_help": {name: line for name, (line, _) in GROUP_COMMANDS.items()},
                "command_options": {name: list(keys)
                                    for name, (_, keys) in GROUP_COMMANDS.items()}}

    def command_option_specs(self, command: str) -> tuple[OptionSpec, ...]:
        """The rule options that ``dicewise risk COMMAND`` reads, in declaration order."""
        if command not in GROUP_COMMANDS:
            raise DicewiseError(Message("risk has no command {command!r} (commands: {known})",
                                        command=command, known=", ".join(GROUP_COMMANDS)))
        keys = GROUP_COMMANDS[command][1]
        return tuple(s for s in self.option_specs() if s.name in keys)

    def parse_command_options(self, command: str, options) -> dict:
        """Typed values of the options given to ``dicewise risk COMMAND`` (``KEY=VALUE``
        strings, a dict or None); an option of Risk that the command does not read is
        refused, not ignored."""
        specs = self.command_option_specs(command)
        reads = [s.name for s in specs]
        others = {s.name for s in self.option_specs()} - set(reads)
        keys = list(options) if isinstance(options, Mapping) else \
            [pair.partition("=")[0].strip() for pair in options or ()]
        for key in keys:
            if key in others:
                raise DicewiseError(Message("option {key} does not change `dicewise risk "
                                            "{command}` (it reads: {reads})", key=key,
                                            command=command, reads=", ".join(reads)))
        if isinstance(options, Mapping):
            return self.parse_options(options)
        return parse_option_pairs(f"risk {command}", specs, options or ())

    # --- tables: Risk has no solved table, only the P(conquer) file of `risk table` --------

    def rules_digest(self, rules: RiskRules) -> str:
        """The digest of the code behind a P(conquer) table: the rules, the rounds and the
        battle sweep (a change to any makes older table files refuse to load)."""
        return rules_digest(rules_module, policy, rounds, dice_choice, markov, stopping, battles)

    def table_kind(self, rules):
        raise unsupported(self, "solve")

    def build(self, rules, progress=None):
        raise unsupported(self, "solve")

    def to_arrays(self, payload):
        raise unsupported(self, "solve")

    def from_arrays(self, rules, arrays, meta):
        raise unsupported(self, "solve")


RISK = RiskGame()
