"""The process pools of ``solver/parallel.py``.

Proves: a ``forked_pool`` maps in order over processes forked once, whose writes into a
``shared_array`` reach the parent and the next map of the same pool; two pools open at once
in threads of one process each run their own function.
"""

from __future__ import annotations

import os
import threading

import pytest

from dicewise.solver import parallel

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="the system does not fork")


def test_forked_pool_shares_memory_across_maps():
    shared = parallel.shared_array(8)
    parent = os.getpid()

    def step(i):
        shared[i] = shared[i - 1] + 1 if i else 1  # reads what an earlier map wrote
        return os.getpid()

    with parallel.forked_pool(step, 2) as run:
        pids = []
        for i in range(8):  # one item a map: each map sees the one before
            pids += list(run([i]))
    assert list(shared) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert parent not in pids and len(set(pids)) <= 2


def test_pools_open_at_once_keep_their_own_function():
    out = {}

    def job(name, factor):
        with parallel.forked_pool(lambda i: i * factor, 2) as run:
            out[name] = list(run(range(6)))

    threads = [threading.Thread(target=job, args=(n, f)) for n, f in (("a", 2), ("b", 3))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {"a": [0, 2, 4, 6, 8, 10], "b": [0, 3, 6, 9, 12, 15]}
    assert not parallel._FORKED
