"""The hot loops compiled with numba, when the ``fast`` extra is installed: the turn
kernel's one-die sums and sub-keep lattice, and the target kernel's reads.

Each is a loop numpy runs as many passes over a (462, B) buffer, the lattice gathering each
parent's row into a temporary first.  Compiled, each row is read and written in one loop
over the columns, with no temporaries: a turn 2–2.5× faster a column.  The values are the
same bit for bit: every sum adds the same terms in the same order (numba does not fuse a
multiply and an add without ``fastmath``), a maximum and the reads' integer arithmetic do
not depend on order, and ties go where numpy's versions send them.  Without numba, or with
``DICEWISE_KERNEL=numpy``, each accessor returns None and the numpy passes run.
"""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np


def _keep_sums(work, levels, children, sixth, by_sixth):
    """The keeps' expected values in place over ``work`` (462, B) from its rolls' rows, by
    the one-die recursion as ``turn._die_levels`` orders it: each keep's six children in
    face order, each times 1/6 (``by_sixth``, float64) or summed and then times 1/6
    (float32)."""
    columns = work.shape[1]
    for level in range(levels.shape[0]):
        for k in range(levels[level, 0], levels[level, 1]):
            row = work[k]
            for b in range(columns):
                row[b] = 0.0
            for f in range(6):
                child = work[children[k, f]]
                if by_sixth:
                    for b in range(columns):
                        row[b] += sixth * child[b]
                else:
                    for b in range(columns):
                        row[b] += child[b]
            if not by_sixth:
                for b in range(columns):
                    row[b] *= sixth


def _sub_keep_max(best, arg, ties_to_first, slot_lo, slot_hi, parents, parent_start):
    """The sub-keep lattice in place over ``best`` (462, B), slot by slot as
    ``turn._PARENT_SLOTS`` orders it.  An empty ``arg``: the maximum as ``np.maximum`` takes
    it (NaN spreads); else ``arg`` (462, B) follows each better parent, a tie going to the
    parent of smaller keep index where ``ties_to_first``, as in ``turn``'s numpy versions."""
    columns = best.shape[1]
    with_arg = arg.shape[0] > 0
    for slot in range(slot_lo.shape[0]):
        start = parent_start[slot] - slot_lo[slot]
        for k in range(slot_lo[slot], slot_hi[slot]):
            row = best[k]
            parent = best[parents[start + k]]
            if not with_arg:
                for b in range(columns):
                    if parent[b] > row[b] or parent[b] != parent[b]:
                        row[b] = parent[b]
                continue
            row_arg = arg[k]
            parent_arg = arg[parents[start + k]]
            for b in range(columns):
                if parent[b] > row[b] or (ties_to_first and parent[b] == row[b]
                                          and parent_arg[b] < row_arg[b]):
                    row[b] = parent[b]
                    row_arg[b] = parent_arg[b]


def _read(flat, need, state, shift, cap, base, illegal, idx, value):
    """Where each class reads and what (``target.kernel.RunReads``): for class q and column
    c of chunk state ``state[c]``, idx = clip(need − shift, 0, cap) + base, value =
    flat[idx], or −inf where ``illegal`` (an empty ``illegal``: nowhere)."""
    checked = illegal.shape[0] > 0
    last = flat.shape[0] - 1
    for q in range(idx.shape[0]):
        for c in range(idx.shape[1]):
            j = state[c]
            i = min(max(need[c] - shift[q, j], 0), cap[q, j]) + base[q, j]
            idx[q, c] = i
            if checked and illegal[q, j]:
                value[q, c] = -np.inf
            else:
                value[q, c] = flat[min(max(i, 0), last)]


@lru_cache(maxsize=1)
def _numba():
    """The numba module where it is installed and compiles (a trivial function, as a
    broken installation would fail on the first real batch), else None."""
    try:
        import numba

        if numba.njit(lambda x: x + 1)(1) != 2:
            return None
    except Exception:  # not installed, or its compiler does not work here
        return None
    return numba


@lru_cache(maxsize=None)
def _compiled(name: str):
    """numba's compilation of the kernel ``name`` (cached on disk where it can be), or None."""
    if os.environ.get("DICEWISE_KERNEL", "").lower() == "numpy":
        return None
    numba = _numba()
    if numba is None:
        return None
    kernel = {"sums": _keep_sums, "lattice": _sub_keep_max, "read": _read}[name]
    try:
        return numba.njit(cache=True, boundscheck=False)(kernel)
    except Exception:  # no writable cache location: compile for this process alone
        try:
            return numba.njit(boundscheck=False)(kernel)
        except Exception:
            return None


#: Batches narrower than this (an advice's) stay in numpy.
COMPILED_COLUMNS = 32
#: Batch columns a process sees in numpy before it loads numba (about 0.3 s to import, more
#: than it saves in a solve of Yahtzee's or Yatzy's expected score), so that only long solves
#: pay for it; a driver of a long solve announces it at the start (``expect``).
WORTH_COLUMNS = 8_000_000
_columns_seen = 0


def expect(columns: int) -> bool:
    """Count ``columns`` of batch work ahead; whether the compiled kernels are now wanted."""
    global _columns_seen
    _columns_seen += columns
    return _columns_seen >= WORTH_COLUMNS and _compiled("sums") is not None


def _for(name: str, columns: int):
    """The compiled kernel ``name`` for a batch of ``columns``, or None: numba missing or
    turned off, a narrow batch, or not yet ``WORTH_COLUMNS`` of work in this process."""
    if columns < COMPILED_COLUMNS or not expect(columns):
        return None
    return _compiled(name)


def keep_sums(columns: int):
    """``f(work, levels, children, sixth, by_sixth)``, the compiled one-die sums for a batch
    of ``columns``, or None (``_for``)."""
    return _for("sums", columns)


def sub_keep_max(columns: int):
    """``f(best, arg, ties_to_first, slot_lo, slot_hi, parents, parent_start)``, the
    compiled sub-keep lattice for a batch of ``columns``, or None (``_for``)."""
    return _for("lattice", columns)


def class_reads(columns: int):
    """``f(flat, need, state, shift, cap, base, illegal, idx, value)``, the compiled reads
    of a batch's ``columns`` classes, or None (``_for``)."""
    return _for("read", columns)


def as_index(array) -> np.ndarray:
    """An index array in the one integer type the compiled pass is specialised for."""
    return np.ascontiguousarray(array, dtype=np.int64)
