"""The table of play for a target, W(state, need), as the table store sees it.

A ``TargetTable`` describes the file (its name, kind and rules digest) and moves a
``TargetValues`` to and from arrays; the store builds, caches and validates it as it
does every game's table.  One table holds every target (``target=None``) or, for the large
games, the needs of one target only, which solves in a fraction of the time.
"""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np

from ...errors import DicewiseError, TableError
from ..digest import digest, source_digest
from ..category import StateValues
from . import driver, evaluation, kernel
from . import values as values_module
from .evaluation import solve_with_policy
from .values import TargetValues

#: Arrays of a TargetValues, in its field order, and the expected-score policy's values.
_ARRAYS = ("states", "fewest", "most", "lo", "hi", "offsets", "flat", "policy_flat")
#: Games with more reachable states than this solve one target at a time for `chance` and
#: `advise` (every target at once is what `table --what target` asks for).
ONE_TARGET_ABOVE = 100_000
#: The modules a target table's values depend on, beside the game's rules digest (which
#: holds the engine's, ``digest.ENGINE``): the table type, the turn kernel for (state, need)
#: columns, the driver, the policy's pass, and this file's layout.
TARGET_MODULES = (values_module, kernel, driver, evaluation, sys.modules[__name__])


class TargetTable:
    """The W table of one exact game's rules, for every target or for one (solved over the
    game's ``category_rules``), with the expected-score policy's chances beside: both are
    solved in one pass (``evaluation.solve_with_policy``) from ``expected``, the game's
    expected-score values (``Game.state_values``), which a build needs."""

    def __init__(self, game, target: int | None = None, dtype=np.float64,
                 expected: StateValues | None = None):
        self.game, self.target, self.dtype, self.expected = game, target, np.dtype(dtype), expected
        self.name = game.name

    def rule_options(self, rules) -> dict:
        return self.game.rule_options(rules)

    def table_stem(self, rules) -> str:
        which = "all" if self.target is None else f"t{self.target}"
        return f"{self.game.table_stem(rules)}-target-{which}-{self.dtype.name}"

    def table_kind(self, rules) -> str:
        return "target-chances"

    def rules_digest(self, rules) -> str:
        """The game's rules digest and every module the values are solved with."""
        return digest(self.game.rules_digest(rules), source_digest(*TARGET_MODULES))

    def build_units(self, rules) -> float:
        """The game's states, twice for one target: the points a sheet can hold are found by
        a pass of their own before the solve."""
        states = self.game.build_units(rules)
        return states if self.target is None else 2 * states

    def build(self, rules, progress=None):
        if self.expected is None:
            raise ValueError("a target table is built from the game's expected-score values")
        values, policy = solve_with_policy(self.game.category_rules(rules), self.expected, None,
                                           progress, target=self.target, dtype=self.dtype)
        values = replace(values, policy_flat=policy.flat)
        return values, {"expected_score": None, "max_need": values.max_need,
                        "target": values.target, "values": values.n_values,
                        "dtype": self.dtype.name}

    def to_arrays(self, payload) -> dict:
        return {name: getattr(payload, name) for name in _ARRAYS}

    def from_arrays(self, rules, arrays, meta):
        if any(name not in arrays for name in _ARRAYS):
            raise TableError("the table lacks the arrays of a target table")
        n = len(arrays["states"])
        if any(len(arrays[name]) != n for name in _ARRAYS[:-3]):
            raise TableError("the table is damaged (its rows do not match)")
        if len(arrays["policy_flat"]) != len(arrays["flat"]):
            raise TableError("the table is damaged (its two kinds of values do not match)")
        if n and int(arrays["offsets"].max()) >= len(arrays["flat"]):
            raise TableError("the table is damaged (offsets past its values)")
        engine = self.game.category_rules(rules)
        states, fewest, most, lo, hi, offsets, flat, policy = (np.array(arrays[name])
                                                               for name in _ARRAYS)
        return TargetValues(engine.name, engine.options, states, fewest, most, lo, hi, offsets,
                            flat, int(meta["max_need"]), meta.get("target"), engine.initial_state,
                            0, "optimal", policy)


def table_for(game, rules, target: int | None, expected: StateValues | None = None,
              every: bool = False):
    """The target table ``chance`` and ``advise`` use: every target for the small games,
    the one target asked for the large ones (float32 there: its error is below 1e-6);
    with ``every``, every target in any game (float32 for the large ones: the curve of
    ``table --what target``).  ``expected``: the game's expected-score values, which a
    build needs."""
    if not getattr(rules, "exact", True):
        raise DicewiseError(f"{game.name} with these options has no exact solver, so no play "
                            "for a target")
    large = game.build_units(rules) > ONE_TARGET_ABOVE
    if large and (every or target is not None):
        return TargetTable(game, None if every else target, np.float32, expected)
    return TargetTable(game, None, expected=expected)
