"""Risk (RULES.md section 5), solved exactly: rounds, battles, dice, stopping, chains, cards.

The room, one concept a module:

* ``rules``: the rule options (``RiskRules``); ``policy``: how the sides play (``Policy``);
* ``rounds``: one round's outcomes as integer counts of dice rolls;
* ``markov``: a battle as a Markov chain over (A, D), swept diagonal by diagonal;
* ``dice_choice``: the dice both sides roll (max or minimax) on one diagonal;
* ``stopping``: the attacker's objectives and when it stops;
* ``battles``: whole battles and P(conquer) tables; ``advice``: what to do now;
* ``chain``: attacks along a path of territories; ``cards``: sets and reinforcements;
* ``work``: how much work a solve is, for progress bars;
* ``game``: the protocol object ``RISK`` (options, rules, the commands of ``dicewise risk``);
* ``reports``: each command of ``dicewise risk`` as one call of the Python API, with its JSON.

The public functions are importable from here: ``risk.battle(10, 10)``.
"""

from .advice import BattleAdvice, DiceOption, advise, advise_steps
from .battles import Battle, battle, battle_steps, check_table_size, conquest_table, table_steps
from .cards import CardReport, card_report
from .chain import Chain, chain_attack, check_chain, min_armies
from .markov import MAX_ARMIES, MAX_STATES
from .policy import DICE_MODES, OBJECTIVES, Policy
from .rounds import MOVES, round_counts, round_probabilities
from .rules import TIES, RiskRules
from .work import battle_work, chain_steps, chain_work, table_work

__all__ = [
    "Battle", "BattleAdvice", "CardReport", "Chain", "DICE_MODES", "DiceOption", "MAX_ARMIES",
    "MAX_STATES", "MOVES", "OBJECTIVES", "Policy", "RiskRules", "TIES", "advise",
    "advise_steps", "battle", "battle_steps", "battle_work", "card_report", "chain_attack",
    "chain_steps", "chain_work", "check_chain", "check_table_size", "conquest_table",
    "min_armies", "round_counts", "round_probabilities", "table_steps", "table_work",
]
