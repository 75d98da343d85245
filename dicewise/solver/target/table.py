"""The table of play for a target, W(state, need), as the table store sees it.

A ``TargetTable`` describes the file (its name, kind and rules digest) and moves a
``TargetValues`` to and from arrays; the store builds, caches and validates it as it
does every game's table.  One table holds every target (``target=None``) or, for the large
games, the needs of one target only, which solves in a fraction of the time.
"""

from __future__ import annotations

import sys

import numpy as np

from ...errors import DicewiseError, TableError
from ..digest import digest, source_digest
from . import driver, kernel
from . import values as values_module
from .driver import solve_target
from .values import TargetValues

#: Arrays of a TargetValues, in its field order.
_ARRAYS = ("states", "fewest", "most", "lo", "hi", "offsets", "flat")
#: Games with more reachable states than this solve one target at a time for `chance` and
#: `advise` (every target at once is what `table --what target` asks for).
ONE_TARGET_ABOVE = 100_000
#: The modules a target table's values depend on, beside the game's rules digest (which
#: holds the engine's, ``digest.ENGINE``): the table type, the turn kernel for (state, need)
#: columns, the driver, and this file's layout.
TARGET_MODULES = (values_module, kernel, driver, sys.modules[__name__])


class TargetTable:
    """The W table of one exact game's rules, for every target or for one (solved over the
    game's ``category_rules``)."""

    def __init__(self, game, target: int | None = None, dtype=np.float64):
        self.game, self.target, self.dtype = game, target, np.dtype(dtype)
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
        return self.game.build_units(rules)

    def build(self, rules, progress=None):
        values = solve_target(self.game.category_rules(rules), None, progress, target=self.target,
                              dtype=self.dtype)
        return values, {"expected_score": None, "max_need": values.max_need,
                        "target": values.target, "values": values.n_values,
                        "dtype": self.dtype.name}

    def to_arrays(self, payload) -> dict:
        return {name: getattr(payload, name) for name in _ARRAYS}

    def from_arrays(self, rules, arrays, meta):
        if any(name not in arrays for name in _ARRAYS):
            raise TableError("the table lacks the arrays of a target table")
        n = len(arrays["states"])
        if any(len(arrays[name]) != n for name in _ARRAYS[:-2]):
            raise TableError("the table is damaged (its rows do not match)")
        if n and int(arrays["offsets"].max()) >= len(arrays["flat"]):
            raise TableError("the table is damaged (offsets past its values)")
        engine = self.game.category_rules(rules)
        return TargetValues(
            engine.name, engine.options, *(np.array(arrays[name]) for name in _ARRAYS),
            int(meta["max_need"]), meta.get("target"), engine.initial_state, 0, "optimal")


def table_for(game, rules, target: int | None):
    """The target table ``chance`` and ``advise`` use: every target for the small games,
    the one target asked for the large ones (float32 there: its error is below 1e-6)."""
    if not getattr(rules, "exact", True):
        raise DicewiseError(f"{game.name} with these options has no exact solver, so no play "
                            "for a target")
    if target is not None and game.build_units(rules) > ONE_TARGET_ABOVE:
        return TargetTable(game, target, np.float32)
    return TargetTable(game, None)
