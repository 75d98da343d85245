"""The best write for every roll: the max over the open boxes, merged by roll classes.

Every objective (expected score, P(final ≥ T), the race) needs, for each of the 252 rolls
and each column of a batch, the best value over the boxes it may write.  A box's value
depends on the roll only through a few *classes* (rolls that write the same points to the
same state: Chance has 26, a straight 2), so each box gives a small ``(Q, C)`` table and
a ``(252,)`` class of each roll.  Boxes are merged pairwise into joint classes (the
distinct pairs) while the joint stays small, then the joint is spread over the rolls and
the remaining boxes are taken row by row.  The plan of merges depends only on the boxes'
partitions, so it is built once and reused for every batch with the same open boxes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import dice

#: Merge boxes while the joint classes stay below this: a merge costs 3 passes over the
#: joint, a box taken row by row 2 passes over all 252 rolls.
MERGE_LIMIT = 160


@dataclass(frozen=True)
class Partition:
    """The classes of one box's rolls: ``inv[r]`` is the class of roll r, of ``n`` classes."""

    inv: np.ndarray  # (252,) int64
    n: int


def partition(*keys: np.ndarray) -> tuple[np.ndarray, Partition]:
    """(first roll of each class, the partition) of the rolls by equal keys, each key a
    (252,) array; rolls equal in every key share a class."""
    key = np.stack([np.asarray(k, dtype=np.float64) for k in keys], axis=1)
    _, first, inv = np.unique(key, axis=0, return_index=True, return_inverse=True)
    return first, Partition(inv.reshape(-1).astype(np.int64), len(first))


@dataclass(frozen=True)
class MaxPlan:
    """How to take the max over some boxes: ``merges`` (box, joint rows, box rows) build the
    joint classes, ``inv`` spreads them over the rolls, ``direct`` boxes follow row by row."""

    merges: tuple  # (position of the box, rows of the joint so far or None, rows of the box)
    inv: np.ndarray  # (252,) joint class of each roll
    direct: tuple  # positions of the boxes taken row by row


def max_plan(parts: Sequence[Partition], limit: int = MERGE_LIMIT, greedy: bool = True) -> MaxPlan:
    """The merge plan of boxes with these partitions, while the joint classes stay under
    ``limit``: greedily the merge that leaves the fewest (``greedy``; for plans reused many
    times), else the boxes by their number of classes (one trial merge each)."""
    left = sorted(range(len(parts)), key=lambda i: parts[i].n)
    first = left.pop(0)
    merges = [(first, None, None)]
    inv = parts[first].inv
    direct = []
    while left:
        best = None
        for i in (left if greedy else left[:1]):
            code = inv * parts[i].n + parts[i].inv
            _, at, joint = np.unique(code, return_index=True, return_inverse=True)
            if best is None or len(at) < best[1]:
                best = (i, len(at), at, joint.reshape(-1))
        i, size, at, joint = best
        left.remove(i)
        if size > limit:
            if greedy:
                direct = [i] + left
                break
            direct.append(i)
            continue
        merges.append((i, inv[at], parts[i].inv[at]))
        inv = joint
    return MaxPlan(tuple(merges), inv.astype(np.int64), tuple(direct))


class Scratch:
    """Reused buffers for ``best_write`` of batches up to ``columns`` wide (fresh arrays of
    this size cost page faults that rival the arithmetic)."""

    def __init__(self, columns: int, dtype=np.float64):
        self.columns, self.dtype = columns, np.dtype(dtype)
        self.buffers = [np.empty(dice.N_ROLLS * columns, self.dtype) for _ in range(3)]

    def view(self, i: int, rows: int, cols: int) -> np.ndarray:
        return self.buffers[i][:rows * cols].reshape(rows, cols)


_LOCAL = threading.local()


def scratch_for(columns: int, dtype=np.float64) -> Scratch:
    """This thread's scratch for batches of ``columns`` (grown when a wider one comes)."""
    key = np.dtype(dtype).name
    scratch = getattr(_LOCAL, key, None)
    if scratch is None or scratch.columns < columns:
        scratch = Scratch(max(columns, 512), dtype)
        setattr(_LOCAL, key, scratch)
    return scratch


def best_write(plan: MaxPlan, parts: Sequence[Partition], values: Sequence[np.ndarray],
               out: np.ndarray, scratch: Scratch) -> np.ndarray:
    """``out[r, j]`` = max over the boxes of ``values[i][parts[i].inv[r], j]``: (252, C).

    ``values[i]`` is box i's (Q_i, C) table of class values (−inf where it may not be written).
    """
    # The indices are in range; mode="clip" lets take write into ``out`` without the
    # bounds-checked copy that mode="raise" makes first.
    c = out.shape[1]
    joint = None
    for step, (i, rows, box_rows) in enumerate(plan.merges):
        v = values[i]
        if joint is None:
            joint = v
            continue
        buf = scratch.view(step % 2, len(rows), c)
        joint.take(rows, axis=0, out=buf, mode="clip")
        other = scratch.view(2, len(rows), c)
        v.take(box_rows, axis=0, out=other, mode="clip")
        np.maximum(buf, other, out=buf)
        joint = buf
    joint.take(plan.inv, axis=0, out=out, mode="clip")
    if plan.direct:
        other = scratch.view(2, dice.N_ROLLS, c)
        for i in plan.direct:
            values[i].take(parts[i].inv, axis=0, out=other, mode="clip")
            np.maximum(out, other, out=out)
    return out
