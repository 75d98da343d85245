"""Ryzykant's observation for the environments (``envs``): what an agent sees of a position.

Built from the generic fields of ``envs.observe`` (the ``rl`` extra), each read from the
JSON observation Ryzykant's episode writes.
"""

from __future__ import annotations

import numpy as np

from ...envs.observe import BIG, Encoder, counts_field, keyed_field, number_field


def encoder(rules, actions) -> Encoder:
    """Dice, rolls so far, marks per pair sum and per fifth-die face, points, puścioch."""
    sums = range(2, 13)
    fields = [counts_field(), number_field("turn", 0, BIG),
              keyed_field("sheet", sums, 0, 0, BIG), keyed_field("fifth", range(1, 7), 0, 0, BIG),
              number_field("points", -BIG, BIG), number_field("puscioch", 0, 1, np.int8)]
    return Encoder(fields, len(actions))
