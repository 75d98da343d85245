"""Whole solves in one process: a layout's layers from the full sheets back to its root.

The distributed driver (``dicewise/tables/two_player.py``) runs the same chunks
(``layers.solve_chunk``, ``layers.evaluate_chunk``) on threads or a cluster, with
checkpoints; here they run one after another, which is what a sub-game from a late
position needs (seconds).
"""

from __future__ import annotations

import time
from typing import Callable, Iterable

import numpy as np

from ...errors import DicewiseError
from ..category import CategoryRules
from ..runtime import Runtime, Serial
from ..turn import prepare
from .layers import TERMINAL, evaluate_chunk, expected_score_policy, solve_chunk, terminal_values
from .space import Layout, TwoPlayerRules, TwoPlayerValues, build_layout, two_player_rules

CHUNK_COLUMNS = 1 << 19  # columns per unit of work of a layer (a few seconds of one core)
POLICIES = ("win", "expected")
SERIAL = Serial()


def layer_chunks(layout: Layout, t: int, max_columns: int = CHUNK_COLUMNS) -> list[np.ndarray]:
    """The pairs of layer t cut into chunks of about ``max_columns`` states (whole pairs)."""
    s = layout.layer_pairs(t)
    pairs = np.arange(s.start, s.stop)
    if len(pairs) == 0:
        return []
    ends = layout.offset[pairs + 1] - layout.offset[s.start]
    cuts = np.searchsorted(ends, np.arange(max_columns, int(ends[-1]), max_columns), side="left") + 1
    return [c for c in np.split(pairs, np.unique(cuts)) if len(c)]


class LayerRecord:
    """What a whole solve does beside solving each layer: ``saved(t)`` gives layer t as a
    solve before this one left it (a checkpoint), or None; ``solved(t, values, seconds)`` is
    told of each layer as it is finished or resumed (``seconds`` None), last layer first."""

    def saved(self, t: int) -> np.ndarray | None:
        return None

    def solved(self, t: int, values: np.ndarray, seconds: float | None) -> None:
        pass


def backward(layout: Layout, last: np.ndarray, chunk: Callable, runtime: Runtime = SERIAL,
             chunk_columns: int = CHUNK_COLUMNS, shared: tuple = (),
             record: LayerRecord = LayerRecord()) -> np.ndarray:
    """Fill every layer from the full sheets back to the root.

    ``last`` holds the last layer's values, (k, 3) for k arrays solved side by side;
    ``chunk(*shared, t, next_layer_values, pairs)`` returns (k, columns) values of some
    pairs of layer t; ``runtime`` runs the chunks of one layer (``solver.runtime``; here by
    default), sending ``shared`` (the rules, the layout) to its workers once; ``record``
    gives back layers a killed solve left and is told of each one finished (``LayerRecord``).
    """
    prepare(layout.n_values, np.float64)  # the turns are solved in float64 (``layers``)
    values = np.empty((last.shape[0], layout.n_values), dtype=last.dtype)
    for t in layout.layers():
        s = layout.layer_values(t)
        began, saved = time.perf_counter(), record.saved(t)
        if saved is not None:
            values[:, s] = saved
        elif t == 2 * layout.n:
            values[:, s] = last
        else:
            nxt = values[:, layout.layer_values(t + 1)]
            values[:, s] = np.concatenate(list(runtime.map(
                chunk, layer_chunks(layout, t, chunk_columns), *shared, t, nxt)), axis=1)
        record.solved(t, values[:, s], None if saved is not None else time.perf_counter() - began)
    return values


def _solve_rows(rules: TwoPlayerRules, layout: Layout, t: int, nxt: np.ndarray,
                pairs: np.ndarray) -> np.ndarray:
    return solve_chunk(rules, layout, t, nxt[0], pairs)[None]


def solve_layout(rules: TwoPlayerRules, layout: Layout, dtype="float32",
                 runtime: Runtime = SERIAL, chunk_columns: int = CHUNK_COLUMNS,
                 record: LayerRecord = LayerRecord()) -> np.ndarray:
    """The value of every state of a layout (flat, in layout order)."""
    return backward(layout, terminal_values(layout, "value", dtype)[None], _solve_rows, runtime,
                    chunk_columns, (rules, layout), record)[0]


def solve_subgame(game: CategoryRules, mover: int = 0, other: int = 0, dtype="float32",
                  runtime: Runtime = SERIAL) -> TwoPlayerValues:
    """Solve the race from a pair of sheets (masks of filled boxes) to the end of the game.

    ``mover`` is the sheet of the player to move.  Every state reachable from the pair is
    solved, for every difference, with the same arithmetic as the whole game, so values
    agree with the full table wherever both hold them.  From two empty sheets this is the
    whole game (minutes); with half the boxes filled, a second or two.
    """
    rules = two_player_rules(game)
    layout = build_layout(rules, (mover, other))
    return TwoPlayerValues(game, layout, solve_layout(rules, layout, dtype, runtime))


def check_policies(policies: Iterable[str]) -> tuple[str, str]:
    policies = tuple(policies)
    if len(policies) != 2 or any(p not in POLICIES for p in policies):
        raise DicewiseError(f"give two policies out of {', '.join(POLICIES)}, not {policies}")
    return policies


def evaluate_policies(solved: TwoPlayerValues, policies=("win", "expected"), kind: str = "value",
                      solitaire_values: np.ndarray | None = None, runtime: Runtime = SERIAL
                      ) -> TwoPlayerValues:
    """Exact evaluation of a fixed pair of policies over the states of ``solved``.

    ``policies[0]`` is played by the mover of the root pair (the first player, from two
    empty sheets), ``policies[1]`` by the other player: ``"win"`` is the win-optimal policy
    of ``solved``, ``"expected"`` the expected-score-optimal solitaire policy (give
    ``solitaire_values``, the game's ``StateValues.values``).  The result holds, for each
    state, the mover's P(win) + ½P(draw) (``kind="value"``) or P(draw) (``kind="draw"``)
    when both follow their policy from there on.
    """
    return evaluate_many(solved, [(policies, kind)], solitaire_values, runtime)[0]


def evaluate_many(solved: TwoPlayerValues, specs, solitaire_values: np.ndarray | None = None,
                  runtime: Runtime = SERIAL) -> list[TwoPlayerValues]:
    """Several policy evaluations in one pass: ``specs`` lists (policies, kind) pairs as
    ``evaluate_policies`` takes them; the win-optimal choices are found once per state."""
    specs = [(check_policies(p), k) for p, k in specs]
    if any(k not in TERMINAL for _, k in specs):
        raise DicewiseError(f"an evaluation yields one of {', '.join(TERMINAL)}")
    rules, layout = two_player_rules(solved.game), solved.layout
    expected = None
    if any("expected" in p for p, _ in specs):
        if solitaire_values is None:
            raise DicewiseError("the expected-score policy needs the solitaire solution's values")
        expected = expected_score_policy(rules, solitaire_values)
    root = layout.root_layer
    dtype = solved.values.dtype.name
    kinds = tuple(k for _, k in specs)

    def chunk(t, nxt, pairs):
        movers = tuple(p[(t - root) % 2] for p, _ in specs)
        nxt_win = solved.values[layout.layer_values(t + 1)] if "win" in movers else None
        return evaluate_chunk(rules, layout, t, movers, kinds, nxt, nxt_win, expected, pairs)

    last = np.stack([terminal_values(layout, k, dtype) for k in kinds])
    values = backward(layout, last, chunk, runtime)
    return [TwoPlayerValues(solved.game, layout, v) for v in values]


def duel_edge(solved: TwoPlayerValues, solitaire_values: np.ndarray, diff: int = 0,
              runtime: Runtime = SERIAL) -> dict:
    """Exact outcomes of win-optimal play, against itself and against expected-score play.

    From the root pair of ``solved`` at difference ``diff`` (its mover is "first"):

    * ``value``, ``draw``, ``first_wins``: the first player's P(win) + ½P(draw), P(draw) and
      P(win) when both play to win;
    * ``win_first``, ``win_second``, ``alternating``: the win-optimal player's P(win) +
      ½P(draw) against the expected-score player, moving first, second, and their mean
      (seats alternating game by game); ``draw_first``, ``draw_second``: P(draw) there.
    """
    m, o = solved.layout.root
    draw_ww, wf, wf_draw, ws, ws_draw = evaluate_many(solved, [
        (("win", "win"), "draw"),
        (("win", "expected"), "value"), (("win", "expected"), "draw"),
        (("expected", "win"), "value"), (("expected", "win"), "draw")],
        solitaire_values, runtime)
    value, draw = solved.value(m, o, diff), draw_ww.value(m, o, diff)
    first, second = wf.value(m, o, diff), 1.0 - ws.value(m, o, diff)
    return {"value": value, "draw": draw, "first_wins": value - draw / 2,
            "win_first": first, "win_second": second, "alternating": (first + second) / 2,
            "draw_first": wf_draw.value(m, o, diff), "draw_second": ws_draw.value(m, o, diff)}
