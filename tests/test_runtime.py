"""Where a solve's layers run: ``solver/runtime.py``.

Proves: every runtime maps ``fn(*shared, item)`` in order and gives the same results (here,
threads, forked processes, Dask's threads), and passes a worker's error on as it was;
forked children read closures and shared arguments as they were at the fork and pickle only
items and results; a ``pool`` forks once, and its children's writes into a
``shared_array`` reach the parent and the next map; two pools open at once keep their own
function; the workers of a command killed outright leave with it; a scheduler is named or
refused in one line.
"""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from dicewise.errors import DicewiseError
from dicewise.solver import runtime

forks = pytest.mark.skipif(not runtime.can_fork(), reason="the system does not fork")


def _scaled(table, factor, i):
    return int(table[i]) * factor


def _pid(_):
    return os.getpid()


@pytest.mark.parametrize("make", [runtime.Serial, lambda: runtime.Threads(2),
                                  pytest.param(lambda: runtime.Forked(2), marks=forks)])
def test_every_runtime_maps_in_order_with_shared_arguments(make):
    table = np.arange(50)
    with make() as where:
        assert list(where.map(_scaled, range(50), table, 3)) == list(range(0, 150, 3))
        assert list(where.map(_scaled, [], table, 3)) == []


def _refuse_three(i):
    if i == 3:
        raise DicewiseError("chunk 3 is refused")
    return i


@pytest.mark.parametrize("make", [runtime.Serial, lambda: runtime.Threads(2),
                                  pytest.param(lambda: runtime.Forked(2), marks=forks)])
def test_an_error_in_a_worker_reaches_the_caller_as_it_was(make):
    with make() as where, pytest.raises(DicewiseError, match="chunk 3 is refused"):
        list(where.map(_refuse_three, range(6)))


def test_dask_threads_map_as_the_others():
    pytest.importorskip("dask")
    table = np.arange(20)
    with runtime.open_runtime("dask-threads", 2) as where:
        assert where.name == "dask-threads"
        assert list(where.map(_scaled, range(20), table, 2)) == list(range(0, 40, 2))


@forks
def test_forked_maps_run_closures_in_children():
    table = np.arange(10)
    with runtime.Forked(2) as where:
        assert list(where.map(lambda i: int(table[i] * 3), range(10))) == list(range(0, 30, 3))
        pids = set(where.map(_pid, range(8)))
    assert os.getpid() not in pids and len(pids) <= 2
    assert not runtime._FORKED


@forks
def test_a_forked_map_of_one_item_runs_it_here_on_one_blas_thread():
    """Nothing to share out, nothing forked (a target solve's small layers forked two workers
    for each one-chunk layer: a third of General's target build); the item runs as a worker
    runs it, on one BLAS thread, and the caller's thread count is back after."""
    from dicewise.solver import blas_threads

    def seen(i):
        return os.getpid(), [get() for _, get in blas_threads._CONTROLS]

    with runtime.Forked(2) as where:
        assert list(where.map(_pid, [])) == []
        assert os.getpid() not in set(where.map(_pid, range(2)))
        if not blas_threads.limited():
            assert list(where.map(_pid, [7])) == [os.getpid()]
            return
        before = [get() for _, get in blas_threads._CONTROLS]
        try:
            for set_, _ in blas_threads._CONTROLS:
                set_(2)
            assert list(where.map(seen, [7])) == [(os.getpid(), [1] * len(before))]
            assert [get() for _, get in blas_threads._CONTROLS] == [2] * len(before)
        finally:
            for (set_, _), n in zip(blas_threads._CONTROLS, before):
                set_(n)
    assert not runtime._FORKED


@forks
def test_forked_pool_shares_memory_across_maps():
    shared = runtime.shared_array(8)
    parent = os.getpid()

    def step(i):
        shared[i] = shared[i - 1] + 1 if i else 1  # reads what an earlier map wrote
        return os.getpid()

    with runtime.Forked(2).pool(step) as run:
        pids = []
        for i in range(8):  # one item a map: each map sees the one before
            pids += list(run([i]))
    assert list(shared) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert parent not in pids and len(set(pids)) <= 2


@forks
def test_pools_open_at_once_keep_their_own_function():
    out = {}

    def job(name, factor):
        with runtime.Forked(2).pool(lambda i: i * factor) as run:
            out[name] = list(run(range(6)))

    threads = [threading.Thread(target=job, args=(n, f)) for n, f in (("a", 2), ("b", 3))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {"a": [0, 2, 4, 6, 8, 10], "b": [0, 3, 6, 9, 12, 15]}
    assert not runtime._FORKED


def test_schedulers_are_named_or_refused_in_one_line(monkeypatch):
    assert runtime.open_runtime(None, 1).name == "serial"
    assert runtime.open_runtime("threads", 2).name == "threads"
    with pytest.raises(DicewiseError, match="unknown scheduler 'gpu'") as e:
        runtime.open_runtime("gpu", 2)
    assert "\n" not in str(e.value)
    monkeypatch.setattr(runtime, "can_fork", lambda: False)
    assert runtime.local(2).name == "threads"
    with pytest.raises(DicewiseError, match="needs a system that can fork"):
        runtime.open_runtime("processes", 2)


_ORPHAN = """
import os, sys, time
from dicewise.solver import runtime
with runtime.Forked(1).pool(lambda i: os.getpid()) as run:
    print(*run([0]), flush=True)
    time.sleep(60)
"""


@forks
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads a process's state in /proc")
def test_forked_workers_leave_with_a_command_killed_outright():
    # a killed command's workers waited on their queue for ever, holding the table's build
    # lock, and every later command that needed the table waited behind them
    import signal
    import subprocess
    import sys
    import time

    with subprocess.Popen([sys.executable, "-c", _ORPHAN], stdout=subprocess.PIPE,
                          text=True) as command:  # its pipe closed after
        worker = int(command.stdout.readline())
        command.send_signal(signal.SIGKILL)
        command.wait()

    def alive():
        try:
            with open(f"/proc/{worker}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has left
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 5
    while alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        assert not alive()
    finally:
        if alive():
            os.kill(worker, signal.SIGKILL)


@forks
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads a process's state in /proc")
def test_a_forked_worker_ends_on_sigterm_though_its_command_hears_it(tmp_path):
    """The command line hears SIGTERM as it hears Ctrl+C (an exception, so that its locks
    are removed); its forked workers inherit that handler, and one busy with an item would
    take SIGTERM for that item's error and go on: a worker ends on SIGTERM at once."""
    import signal
    import threading
    import time

    def heard(signum, frame):
        raise KeyboardInterrupt

    def alive(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has left
        except FileNotFoundError:
            return False

    started = tmp_path / "worker"

    def busy(i):
        started.write_text(str(os.getpid()))
        time.sleep(3)
        return i

    ended = False
    previous = signal.signal(signal.SIGTERM, heard)
    try:
        with runtime.Forked(1).pool(busy) as run:
            reader = threading.Thread(target=lambda: list(_swallowed(run([0]))), daemon=True)
            reader.start()
            deadline = time.monotonic() + 10
            while not started.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            worker = int(started.read_text())
            os.kill(worker, signal.SIGTERM)
            deadline = time.monotonic() + 2
            while alive(worker) and time.monotonic() < deadline:
                time.sleep(0.02)
            ended = not alive(worker)
            reader.join(10)
    except Exception:  # the pool, its worker gone, says it broke: not what is tested here
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert ended


def _swallowed(results):
    """The results, or none once the pool breaks."""
    try:
        yield from results
    except Exception:
        return
