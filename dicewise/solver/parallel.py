"""Maps over forked processes: how the solvers use more than one core.

numpy releases the GIL inside its loops, but a solver's chunk makes many small numpy calls,
and the Python between them keeps threads from scaling (measured: two threads no faster
than one on a two-player layer, two forked processes 2.0× faster).  A pool forked for each
call lets the children read the caller's arrays copy-on-write; only items and results are
pickled.
"""

from __future__ import annotations

import itertools
import mmap
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from functools import partial

import numpy as np


def forked_map(workers: int):
    """``map(fn, items)`` over ``workers`` processes forked for the call: the results in
    order, each as soon as it is done.

    ``fn`` may be any closure: it is set before the fork, so the children read it and what
    it holds (a layer, a table) copy-on-write, and only the items and results are pickled.
    """
    context = multiprocessing.get_context("fork")

    def map_fn(fn, items):
        _FORKED["fn"] = fn
        try:
            with ProcessPoolExecutor(workers, mp_context=context) as pool:
                yield from pool.map(_call_forked, items)
        finally:
            _FORKED.clear()

    return map_fn


@contextmanager
def forked_pool(fn, workers: int):
    """A ``map(items)`` of ``fn`` over ``workers`` processes forked once for the whole
    ``with`` block (results in order), for many short maps where a pool per map would cost
    more than the work.

    ``fn`` is read by the children as it was at the fork: what it must see change between
    maps belongs in memory shared before the fork (``shared_array``).
    """
    context = multiprocessing.get_context("fork")
    key = next(_POOL_KEYS)  # pools open at once in threads of one process keep apart
    _FORKED[key] = fn
    try:
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            yield lambda items: pool.map(partial(_call_pool, key), items)
    finally:
        _FORKED.pop(key, None)


def shared_array(n: int, dtype=np.float64) -> np.ndarray:
    """A zeroed array in anonymous shared memory: processes forked after it is made read
    and write the same memory."""
    dtype = np.dtype(dtype)
    return np.frombuffer(mmap.mmap(-1, max(1, n * dtype.itemsize)), dtype=dtype, count=n)


def local_map(workers: int | None = None):
    """The fastest ``map`` on this machine: forked processes where the system forks and
    more than one worker is wanted (default: the cores), else the builtin ``map``."""
    workers = workers or os.cpu_count() or 1
    return forked_map(workers) if workers > 1 and can_fork() else map


def can_fork() -> bool:
    """Whether this process may fork workers: the system forks, and this is not a daemonic
    process (a worker of a ``multiprocessing`` pool, which may have no children)."""
    return ("fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon)


#: What a ``forked_map`` call runs (set in the parent before it forks).
_FORKED: dict = {}


def _call_forked(item):
    return _FORKED["fn"](item)


_POOL_KEYS = itertools.count()


def _call_pool(key, item):
    return _FORKED[key](item)

