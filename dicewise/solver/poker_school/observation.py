"""poker-school's observation for the environments (``envs``): the sheet as the game reduces it.

Built from the generic fields of ``envs.observe`` (the ``rl`` extra), each read from the
JSON observation poker-school's episode writes.
"""

from __future__ import annotations

import numpy as np

from ...envs.observe import (BIG, Encoder, box_names, counts_field, number_field,
                             vector_field)
from .. import dice


def encoder(rules, actions) -> Encoder:
    """Dice, roll, turn, and the sheet as the game reduces it (``rules.parse_sheet``): cells
    filled per row, rows without a cross, the School reserve, columns without a cross, the
    premiums a School cross would still erase; points."""
    rows = len(box_names(actions))

    def derive(obs):
        sheet = rules.parse_sheet(",".join(f"{k}={v}" for k, v in (obs.get("sheet") or {}).items()))
        return {"filled": sheet.filled, "clean": sheet.clean, "reserve": sheet.reserve,
                "column_clean": sheet.column_clean, "standing": sheet.standing}
    fields = [counts_field(), number_field("roll", 0, 3, np.int8),
              number_field("turn", 0, rules.turns + 1, np.int16),
              vector_field("filled", rows, 0, rules.columns),
              vector_field("clean", rows, 0, 1),
              vector_field("reserve", 6, 0, 3 * dice.N_DICE),
              vector_field("column_clean", rules.columns, 0, 1),
              number_field("standing", 0, BIG, derive=True),
              number_field("points", 0, BIG)]
    return Encoder(fields, len(actions), derive)
