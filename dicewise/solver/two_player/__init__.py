"""Two-player General: the race solved exactly (RULES.md §1, "Two players").

Two players alternate whole turns, ten each, the first player starting; the higher total
wins, equal totals draw, and a first-roll five of a kind wins at once (unless
``big_general=sixty``).  A state is (mover's sheet, opponent's sheet, score difference);
its value is the mover's P(win) + ½·P(draw), both players maximising their own.

* ``space``  — the state space: pairs of sheets, bounded difference runs, layers.
* ``layers`` — the batched turn of one layer's chunk (solve, or evaluate fixed policies).
* ``solve``  — whole solves in one process: the sub-game from a position, policy evaluation.
* ``advice`` — every choice of a position ranked by its chance, the expected-score choice beside.
* ``duel``   — the two policies as lockstep players, and a simulation on shared dice.

Pure numpy, no I/O; ``dicewise/tables/two_player.py`` runs the whole game's solve over
threads or a Dask cluster with checkpoints.
"""

from .advice import advise_two_player, chance, seat_of
from .duel import (DuelResult, ExpectedPolicy, WinPolicy, check_policy_name, make_policy,
                   simulate_duel)
from .solve import duel_edge, evaluate_many, evaluate_policies, solve_layout, solve_subgame
from .space import Layout, TwoPlayerRules, TwoPlayerValues, build_layout, two_player_rules

__all__ = ["Layout", "TwoPlayerRules", "TwoPlayerValues", "build_layout", "two_player_rules",
           "solve_layout", "solve_subgame", "evaluate_policies", "evaluate_many", "duel_edge",
           "advise_two_player", "chance", "seat_of",
           "WinPolicy", "ExpectedPolicy", "check_policy_name", "make_policy", "DuelResult",
           "simulate_duel"]
