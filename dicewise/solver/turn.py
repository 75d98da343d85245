"""The three-roll turn, solved exactly and batched over many turn-start states.

Given, for each roll number, the value of writing the best category with every roll
(``(252, B)`` arrays: points now plus the value of the state it leads to), the turn is
solved by backward induction over roll 3 → keeps → roll 2 → keeps → roll 1.

Keep values are one sparse product with the exact keep→roll matrix (4,368 non-zeros
of 116,424); the best keep a roll allows is a running maximum over the multiset lattice
computed from the one-die-smaller keeps, so no (roll × keep) table is ever formed.
``turn_value``, the whole-table solve's kernel, needs only the value at turn start: it
throws the dice one at a time (1,260 products a column) and runs in one reused buffer.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import compiled, dice

_N_SMALL = int(dice.KEEP_START[dice.N_DICE])  # keeps of fewer than five dice


def _parent_groups():
    """Slices of keeps of equal size and equal number of distinct faces, with their parents."""
    groups = []
    distinct = (dice.KEEPS > 0).sum(axis=1)
    for k in range(1, dice.N_DICE + 1):
        for d in range(1, min(k, dice.N_FACES) + 1):
            rows = np.flatnonzero((dice.KEEP_SIZE == k) & (distinct == d))
            if len(rows):
                lo, hi = int(rows[0]), int(rows[-1]) + 1
                assert hi - lo == len(rows)
                groups.append((lo, hi, dice.KEEP_PARENT[lo - 1:hi - 1, :d].T.copy()))
    return groups


_PARENT_GROUPS = _parent_groups()
_KEEP_TO_ROLL = dice.keep_to_roll()


@lru_cache(maxsize=2)
def sparse_keep_to_roll(single: bool = False):
    """The keep→roll probabilities (462, 252) as a sparse matrix (float32 if ``single``)."""
    # scipy is imported here, not at module import: it costs a whole-process advise ~0.3 s
    from scipy import sparse

    return sparse.csr_matrix(_KEEP_TO_ROLL.astype(np.float32) if single else _KEEP_TO_ROLL)


#: Keeps by size, largest first, with their children (the keep plus one die of each face).
_KEEP_LEVELS = [(int(dice.KEEP_START[s]), int(dice.KEEP_START[s + 1]),
                 [dice.KEEP_CHILD[dice.KEEP_START[s]:dice.KEEP_START[s + 1], f].copy()
                  for f in range(dice.N_FACES)])
                for s in range(dice.N_DICE - 1, -1, -1)]


def keep_values(roll_values: np.ndarray) -> np.ndarray:
    """Expected value of every keep (462, B), given the value of every next roll (252, B).

    float64 values go through the exact keep→roll matrix (the expected-score solve and its
    decisions, bit for bit as they always were); float32 values, which trade precision for
    speed anyway, through ``keep_values_by_die``, a quarter faster.
    """
    single = roll_values.dtype == np.float32
    if single and roll_values.ndim == 2:
        return keep_values_by_die(roll_values)
    if roll_values.ndim == 1 or roll_values.shape[1] < 16:
        return (_KEEP_TO_ROLL.astype(np.float32) if single else _KEEP_TO_ROLL) @ roll_values
    return sparse_keep_to_roll(single) @ roll_values


def keep_values_by_die(roll_values: np.ndarray) -> np.ndarray:
    """Expected value of every keep (462, B) given every roll's value (252, B), in the dtype
    of the values.

    Dice are thrown one at a time in effect: a keep's value is the mean of its six
    one-die-larger keeps', down from the rolls.  1,260 additions per column instead of
    the keep→roll matrix's 4,368 products, and exact in the same sense.
    """
    out = np.empty((dice.N_KEEPS, roll_values.shape[1]), dtype=roll_values.dtype)
    out[dice.KEEP_START[dice.N_DICE]:] = roll_values
    sixth = roll_values.dtype.type(1 / dice.N_FACES)
    for lo, hi, children in _KEEP_LEVELS:
        acc = out[lo:hi]
        np.add(out[children[0]], out[children[1]], out=acc)
        for child in children[2:]:
            acc += out[child]
        acc *= sixth
    return out


def best_sub_keep(keep_value: np.ndarray, overwrite: bool = False) -> np.ndarray:
    """For every roll (252, B), the best value over the keeps (sub-multisets) it allows.

    By increasing keep size: the best sub-keep of K is K itself or the best sub-keep of K
    less one die, for each distinct face of K.
    """
    best = keep_value if overwrite else keep_value.copy()
    if not _compiled_lattice(best):
        for lo, hi, parents in _PARENT_SLOTS:
            np.maximum(best[lo:hi], best[parents], out=best[lo:hi])
    return best[_N_SMALL:]


def best_sub_keep_and_keep(keep_value: np.ndarray):
    """``best_sub_keep`` with its arg-max: (best value (252, B), that keep's index (252, B))."""
    best = keep_value.copy()
    arg = np.repeat(np.arange(dice.N_KEEPS)[:, None], keep_value.shape[1], axis=1)
    if _compiled_lattice(best, arg):
        return best[_N_SMALL:], arg[_N_SMALL:]
    for lo, hi, parents in _PARENT_GROUPS:
        acc, acc_arg = best[lo:hi], arg[lo:hi]
        for p in parents:
            better = best[p] > acc
            np.copyto(acc, best[p], where=better)
            np.copyto(acc_arg, arg[p], where=better)
    return best[_N_SMALL:], arg[_N_SMALL:]


def first_best_sub_keep(keep_value: np.ndarray):
    """``best_sub_keep_and_keep`` with ties to the keep of smallest index: the first best of
    ``dice.SUB_KEEPS``, as the simulator chooses, without forming (252, 32, B)."""
    best = keep_value.copy()
    arg = np.empty(keep_value.shape, np.int16)  # 462 keeps: int16 moves a quarter of the bytes
    arg[...] = np.arange(dice.N_KEEPS, dtype=np.int16)[:, None]
    if _compiled_lattice(best, arg, ties_to_first=True):
        return best[_N_SMALL:], arg[_N_SMALL:].astype(np.int64)
    take, tie = np.empty(keep_value.shape, bool), np.empty(keep_value.shape, bool)
    for lo, hi, parents in _PARENT_GROUPS:
        acc, acc_arg, t, e = best[lo:hi], arg[lo:hi], take[:hi - lo], tie[:hi - lo]
        for p in parents:
            other, other_arg = best[p], arg[p]
            np.greater(other, acc, out=t)
            np.equal(other, acc, out=e)
            e &= other_arg < acc_arg
            t |= e
            np.copyto(acc, other, where=t)
            np.copyto(acc_arg, other_arg, where=t)
    return best[_N_SMALL:], arg[_N_SMALL:].astype(np.int64)


#: The best-sub-keep lattice by parent slot: keeps of one size with more than j distinct
#: faces are a contiguous run (keeps are ordered by distinct faces within a size), and
#: ``parents`` is each one's keep less one die of its j-th distinct face.
_PARENT_SLOTS = [(int(lo), int(hi), dice.KEEP_PARENT[lo - 1:hi - 1, j].copy())
                 for k in range(1, dice.N_DICE + 1)
                 for j in range(min(k, dice.N_FACES))
                 for lo, hi in [(int(np.flatnonzero((dice.KEEP_SIZE == k)
                                                    & ((dice.KEEPS > 0).sum(axis=1) > j))[0]),
                                 int(dice.KEEP_START[k + 1]))]]


@lru_cache(maxsize=2)
def _die_levels(single: bool = False):
    """Per keep size s = 4..0: (first, end, end of the next size, ``op``, the factor after
    it), ``op`` being (rows, columns, CSR arrays indptr, indices, data) of the (n_s, n_s+1)
    matrix from each keep to its six one-die-larger keeps, in face order.

    float64: entries 1/6, no factor.  float32: entries 1 and the factor 1/6 after, so that
    each sum is ``keep_values_by_die``'s, rounding for rounding.
    """
    dtype = np.float32 if single else np.float64
    levels = []
    for s in range(dice.N_DICE - 1, -1, -1):
        lo, hi, nxt = (int(dice.KEEP_START[s + i]) for i in range(3))
        n = (hi - lo) * dice.N_FACES
        op = (hi - lo, nxt - hi, np.arange(0, n + 1, dice.N_FACES, dtype=np.int32),
              (dice.KEEP_CHILD[lo:hi] - hi).reshape(-1).astype(np.int32),
              np.full(n, 1 if single else 1 / dice.N_FACES, dtype))
        levels.append((lo, hi, nxt, op, dtype(1 / dice.N_FACES) if single else None))
    return tuple(levels)


def _accumulate_by_numpy(op, x, y, b):
    """y += m @ x for a level's ``op``, child by child in face order (the fallback of
    ``_sparse_accumulate``)."""
    rows, cols, _, indices, data = op
    x, y = x.reshape(cols, b), y.reshape(rows, b)
    children, weights = indices.reshape(rows, -1), data.reshape(rows, -1)
    for j in range(children.shape[1]):
        y += weights[:, j, None] * x[children[:, j]]


def _csr_kernel():
    """scipy's compiled CSR × dense kernel (``csr_matvecs``), or None.

    The extension is loaded by itself where it can be: importing ``scipy.sparse`` would
    cost every solve 0.1 s (it imports numpy's testing, f2py and masked arrays).
    """
    try:
        import importlib.machinery
        import importlib.util
        import os

        import scipy

        folder = os.path.join(os.path.dirname(scipy.__file__), "sparse")
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_sparsetools" + suffix)
            if os.path.exists(path):
                spec = importlib.util.spec_from_file_location("scipy.sparse._sparsetools", path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return module.csr_matvecs
    except Exception:  # an unusual installation: the ordinary import below
        pass
    try:
        from scipy.sparse import _sparsetools

        return _sparsetools.csr_matvecs
    except Exception:  # a scipy without that internal entry point
        return None


@lru_cache(maxsize=1)
def _sparse_accumulate():
    """``f(op, x, y, b)``: y += m @ x in place for a level's ``op`` and flat C-ordered x, y
    of its dtype holding b columns, by scipy's compiled kernel (one call, no temporaries)
    when it is there and agrees with ``_accumulate_by_numpy`` on a test, else by that.
    Either adds each row's products in the order the row stores them."""
    matvecs = _csr_kernel()
    if matvecs is None:
        return _accumulate_by_numpy

    def direct(op, x, y, b):
        matvecs(op[0], op[1], b, op[2], op[3], op[4], x, y)

    try:
        op = _die_levels()[0][3]
        x = np.arange(2.0 * op[1])
        y, expect = np.zeros(2 * op[0]), np.zeros(2 * op[0])
        direct(op, x, y, 2)
        _accumulate_by_numpy(op, x, expect, 2)
        return direct if np.allclose(y, expect, rtol=0, atol=1e-9) else _accumulate_by_numpy
    except Exception:
        return _accumulate_by_numpy


@lru_cache(maxsize=1)
def _compiled_levels():
    """The one-die levels as the compiled sums read them: (first, end) of each keep size,
    largest first, and each keep's six children."""
    levels = compiled.as_index([(lo, hi) for lo, hi, *_ in _die_levels()])
    return levels, compiled.as_index(dice.KEEP_CHILD)


@lru_cache(maxsize=1)
def _compiled_slots():
    """``_PARENT_SLOTS`` as the compiled lattice reads them: the slots' first and end keeps,
    their parents end to end, and where each slot's parents start."""
    lengths = [hi - lo for lo, hi, _ in _PARENT_SLOTS]
    return (compiled.as_index([lo for lo, _, _ in _PARENT_SLOTS]),
            compiled.as_index([hi for _, hi, _ in _PARENT_SLOTS]),
            compiled.as_index(np.concatenate([p for _, _, p in _PARENT_SLOTS])),
            compiled.as_index(np.concatenate([[0], np.cumsum(lengths)[:-1]])))


#: The compiled lattice's "no arg-max wanted".
_NO_ARG = np.zeros((0, 0), np.int64)


def _compiled_lattice(best: np.ndarray, arg: np.ndarray | None = None, ties_to_first=False):
    """Run the compiled lattice over ``best`` (and ``arg``) in place; False where it does not
    apply (numba missing, a narrow batch, an array it is not specialised for)."""
    lattice = compiled.sub_keep_max(best.shape[1]) if best.flags.c_contiguous else None
    if lattice is None:
        return False
    lattice(best, _NO_ARG if arg is None else arg, ties_to_first, *_compiled_slots())
    return True


def prepare(columns: int, dtype) -> None:
    """A long solve's start: ``columns`` of turns ahead in ``dtype``.  Where that makes the
    compiled kernels worth loading, they are compiled (or read from numba's cache) here,
    once, before any worker is forked, and not in every worker of every layer."""
    if compiled.expect(columns):
        turn_value([np.zeros((dice.N_ROLLS, compiled.COMPILED_COLUMNS), dtype)] * 3)


def turn_value(write_value, first_roll_end=None, work: np.ndarray | None = None,
               after_roll: list | None = None) -> np.ndarray:
    """The expected value at turn start (B,) of ``solve_turn``, in one (462, B) buffer.

    The backward pass runs in place: the rolls' rows hold the write values, the smaller
    keeps' rows are filled from them one die at a time (a sparse product per keep size,
    1,260 products a column), the lattice turns keep values into the best sub-keep of
    every roll, and the next roll's values overwrite the rolls' rows.  float32 write values
    give float32 keep values equal bit for bit to ``keep_values_by_die``'s (``solve_turn``'s
    float32 path); anything else is computed in float64.  ``work`` is that buffer, (462, B)
    or flat, of the same dtype (allocated when None); pass the same one batch after batch
    to keep it in cache.  ``after_roll``, if given, receives copies of V2 and V1.  The sums
    and the lattice run compiled (``compiled.py``, the same values bit for bit) where numba
    is installed.
    """
    single = all(np.asarray(w).dtype == np.float32 for w in write_value)
    dtype = np.float32 if single else np.float64
    w1, w2, w3 = (np.asarray(w, dtype=dtype) for w in write_value)
    b = w3.shape[1]
    size = dice.N_KEEPS * b
    flat = np.empty(size, dtype) if work is None else work.reshape(-1)[:size]
    work = flat.reshape(dice.N_KEEPS, b)
    rolls = work[_N_SMALL:]
    levels, accumulate = _die_levels(single), _sparse_accumulate()
    sums = compiled.keep_sums(b)
    rolls[...] = w3
    for roll, w in ((2, w2), (1, w1)):
        if sums is not None:
            sums(work, *_compiled_levels(), dtype(1 / dice.N_FACES), not single)
        else:
            flat[:_N_SMALL * b] = 0
            for lo, hi, nxt, op, factor in levels:
                accumulate(op, flat[hi * b:nxt * b], flat[lo * b:hi * b], b)
                if factor is not None:
                    flat[lo * b:hi * b] *= factor
        best_sub_keep(work, overwrite=True)
        np.maximum(rolls, w, out=rolls)
        if roll == 1 and first_roll_end is not None:
            ends = np.flatnonzero(~np.isnan(first_roll_end))
            rolls[ends] = first_roll_end[ends, None]
        if after_roll is not None:
            after_roll.append(rolls.copy())
    return dice.ROLL_PROBABILITY @ rolls


@dataclass(frozen=True)
class TurnValues:
    """Every value of one turn: by roll after each roll, by keep before rolls 2 and 3."""

    after_roll: tuple[np.ndarray, np.ndarray, np.ndarray]  # V1, V2, V3, each (252, B)
    before_roll: tuple[np.ndarray, np.ndarray] | None  # keep values before roll 2 and 3, (462, B)
    value: np.ndarray  # (B,) expected value at turn start


_LOCAL = threading.local()


def work_buffer(dtype, columns: int) -> np.ndarray:
    """This thread's flat buffer for ``turn_value`` of ``columns`` (grown when wider)."""
    key = np.dtype(dtype).name
    buf = getattr(_LOCAL, key, None)
    if buf is None or buf.size < dice.N_KEEPS * columns:
        buf = np.empty(dice.N_KEEPS * columns, dtype)
        setattr(_LOCAL, key, buf)
    return buf


def turn_start_value(write_value, first_roll_end=None) -> np.ndarray:
    """``solve_turn(...).value`` alone, (B,): float32 write values go through the in-place
    kernel without copying the values after each roll (two fresh (252, B) arrays a call,
    which cost more than the kernel's own passes in page faults), anything else through
    ``solve_turn``."""
    if all(np.ndim(w) == 2 and np.asarray(w).dtype == np.float32 for w in write_value):
        return turn_value(write_value, first_roll_end,
                          work_buffer(np.float32, write_value[2].shape[1]))
    return solve_turn(write_value, first_roll_end, keep_values_wanted=False).value


def solve_turn(write_value, first_roll_end=None, keep_values_wanted: bool = True) -> TurnValues:
    """Solve one turn for a batch of states.

    Args:
        write_value: sequence of three ``(252, B)`` arrays, the best write after roll 1, 2, 3.
        first_roll_end: optional ``(252,)`` array of NaN or the value at which a first-roll
            throw ends the game at once (General's big general).
        keep_values_wanted: False when only ``value`` is needed (saves two copies).
    """
    if not keep_values_wanted and all(np.ndim(w) == 2 and np.asarray(w).dtype == np.float32
                                      for w in write_value):
        # float32 values only: the in-place kernel, equal bit for bit and faster.
        after = []
        value = turn_value(write_value, first_roll_end, work_buffer(np.float32, write_value[2].shape[1]),
                           after)
        return TurnValues((after[1], after[0], write_value[2]), None, value)
    v3 = write_value[2]
    e3 = keep_values(v3)
    v2 = np.maximum(write_value[1], best_sub_keep(e3, overwrite=not keep_values_wanted))
    e2 = keep_values(v2)
    v1 = np.maximum(write_value[0], best_sub_keep(e2, overwrite=not keep_values_wanted))
    if first_roll_end is not None:
        ends = ~np.isnan(first_roll_end)
        v1[ends] = first_roll_end[ends, None]
    value = dice.ROLL_PROBABILITY @ v1
    kept = (e2, e3) if keep_values_wanted else None
    return TurnValues((v1, v2, v3), kept, value)
