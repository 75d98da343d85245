"""Where the layers of a solve run: one ``Runtime`` for every solver (the category solve,
play for a target, the two-player race and its policy evaluations).

A layer is cut into items (chunks of states) that are independent once the next layer is
solved.  ``runtime.map(fn, items, *shared)`` yields ``fn(*shared, item)`` for each item, in
order, wherever the runtime runs them:

* ``Serial`` — here, one after another;
* ``Threads`` — a thread pool of this process;
* ``Forked`` — processes forked for the map, which read ``shared`` (a layer, a table)
  copy-on-write, so only the items and the results are pickled;
* ``DaskThreads`` — Dask's threaded scheduler;
* ``Distributed`` — a ``dask.distributed`` cluster (a local one, or one at an address), to
  which each shared object is scattered once and kept while it is passed again.

numpy releases the GIL inside its loops, but a solver's chunk makes many small numpy calls,
and the Python between them keeps threads from scaling (measured: two threads no faster
than one on a two-player layer, two forked processes 2.0× faster), so ``local`` forks where
the system does.  ``runtime.pool(fn)`` serves many short maps of one function whose changing
inputs live in ``shared_array`` memory: ``Forked`` forks once for all of them.

Dask is optional: nothing here imports it unless a Dask runtime is asked for; nor are
``multiprocessing`` and the executors imported before they are used (20 ms of every
command's start-up).
"""

from __future__ import annotations

import itertools
import mmap
import os
from contextlib import contextmanager
from functools import partial
from typing import Callable, Iterable, Iterator

import numpy as np

from ..errors import DicewiseError
from ..i18n import Message
from . import blas_threads


class Runtime:
    """Runs the items of a layer; ``name`` and ``workers`` say where and on how many."""

    name = "serial"
    workers = 1

    def map(self, fn: Callable, items: Iterable, *shared) -> Iterator:
        """``fn(*shared, item)`` for each item, in order, each as soon as it is done."""
        return (fn(*shared, item) for item in items)

    @contextmanager
    def pool(self, fn: Callable):
        """``run(items)``: many maps of ``fn``, whose inputs that change between maps live
        in ``shared_array`` memory."""
        yield lambda items: self.map(fn, items)

    def close(self) -> None:
        """Let the workers go."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Serial(Runtime):
    """Every item in this process, one after another."""


class Threads(Runtime):
    """A pool of ``workers`` threads of this process."""

    name = "threads"

    def __init__(self, workers: int):
        from concurrent.futures import ThreadPoolExecutor

        self.workers = workers
        self._executor = ThreadPoolExecutor(workers)

    def map(self, fn, items, *shared):
        return self._executor.map(partial(fn, *shared), items)

    def close(self):
        self._executor.shutdown()


class Forked(Runtime):
    """``workers`` processes forked for each map (or once for a ``pool``): ``fn`` and
    ``shared`` may be anything, closures included, since the children read them as they
    were at the fork; only items and results are pickled."""

    name = "processes"

    def __init__(self, workers: int):
        if not can_fork():
            raise DicewiseError(Message("scheduler 'processes' needs a system that can fork; use "
                                        "threads"))
        self.workers = workers

    def map(self, fn, items, *shared):
        items = list(items)
        if len(items) < 2:  # nothing to share out: forking would cost more than the item
            with blas_threads.single_blas_thread():  # as a worker runs it, to the last bit
                results = [fn(*shared, item) for item in items]
            yield from results
            return
        with self.pool(partial(fn, *shared)) as run:
            yield from run(items)

    @contextmanager
    def pool(self, fn):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("fork")
        blas_threads.limited()  # found here, once: the workers inherit what it found
        key = next(_POOL_KEYS)  # pools open at once in threads of one process keep apart
        _FORKED[key] = fn
        try:
            executor = ProcessPoolExecutor(self.workers, mp_context=context,
                                           initializer=_worker_start, initargs=(os.getpid(),))

            def run(items):
                with _interrupts_held():  # the workers are forked here, on the first map
                    futures = [executor.submit(_call_forked, key, item) for item in items]
                return _results(futures)

            try:
                yield run
            except BaseException:  # stopped (Ctrl+C): the items not begun are not waited for
                executor.shutdown(wait=False, cancel_futures=True)
                raise
            executor.shutdown()
        finally:
            _FORKED.pop(key, None)


class DaskThreads(Runtime):
    """Dask's threaded scheduler with ``workers`` threads."""

    name = "dask-threads"

    def __init__(self, workers: int):
        try:
            import dask
        except ImportError:
            raise DicewiseError(Message("scheduler 'dask-threads' needs dask: pip install "
                                        "'dicewise[distributed]'")) from None
        self._dask, self.workers = dask, workers

    def map(self, fn, items, *shared):
        delayed = self._dask.delayed
        shared = [delayed(s) for s in shared]  # each tokenised once, not once per item
        tasks = [delayed(fn, pure=True)(*shared, item) for item in items]
        yield from self._dask.compute(*tasks, scheduler="threads", num_workers=self.workers)


class Distributed(Runtime):
    """A ``dask.distributed`` cluster: ``"local"`` (a LocalCluster of ``workers``
    single-threaded processes) or the address of a running scheduler."""

    name = "dask-distributed"

    def __init__(self, address: str, workers: int, timeout: float = 10.0):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise DicewiseError(Message("scheduler {address!r} needs dask.distributed: pip "
                                        "install 'dicewise[distributed]'", address=address)) \
                from None
        self._cluster = None
        try:
            if address == "local":
                self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                             processes=True, dashboard_address=None)
                self._client = Client(self._cluster)
            else:
                self._client = Client(address, timeout=f"{timeout}s")
        except Exception as e:  # noqa: BLE001 - OSError, TimeoutError, ValueError for a bad address
            if self._cluster is not None:
                self._cluster.close()
            raise DicewiseError(_unreachable(address, timeout, e)) from None
        self.workers = len(self._client.scheduler_info().get("workers", {})) or workers
        self._scattered: dict[int, tuple] = {}  # id -> (object, its future)

    def map(self, fn, items, *shared):
        kept = {}
        for s in shared:  # an object passed again (the rules, a layout) is not sent again
            if isinstance(s, _INLINE):
                continue
            found = self._scattered.get(id(s))
            kept[id(s)] = found if found is not None and found[0] is s else (
                s, self._client.scatter(s, broadcast=True))
        self._client.cancel([f for k, (_, f) in self._scattered.items() if k not in kept])
        self._scattered = kept
        args = [s if isinstance(s, _INLINE) else kept[id(s)][1] for s in shared]
        futures = [self._client.submit(fn, *args, item, pure=False) for item in items]
        yield from self._client.gather(futures)

    @contextmanager
    def pool(self, fn):
        raise DicewiseError(Message("a dask.distributed cluster shares no memory with this "
                                    "process"))
        yield  # pragma: no cover

    def close(self):
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


#: Shared arguments small enough to travel with each task (a layer's number) unscattered.
_INLINE = (int, float, str, bytes, type(None))


def _unreachable(address: str, timeout: float, error: Exception) -> Message:
    """Why a scheduler could not be reached, in our words: Dask says a refused or silent
    address as an OSError after the timeout (a malformed one never gets here:
    ``check_scheduler`` refuses it first)."""
    if isinstance(error, (OSError, TimeoutError)) and address != "local":
        return Message("cannot reach the Dask scheduler at {address}: no answer within "
                       "{seconds} s", address=address, seconds=f"{timeout:g}")
    reason = str(error).splitlines()[0] if str(error) else type(error).__name__
    return Message("cannot reach the Dask scheduler at {address}: {reason}", address=address,
                   reason=reason)


def local(workers: int | None = None) -> Runtime:
    """The fastest runtime on this machine: ``workers`` forked processes where the system
    forks (default: one per core), threads where it does not, this process for one."""
    workers = workers or os.cpu_count() or 1
    if workers == 1:
        return Serial()
    return Forked(workers) if can_fork() else Threads(workers)


def open_runtime(scheduler: str | None, workers: int | None = None, timeout: float = 10.0) -> Runtime:
    """The runtime ``scheduler`` names (``None``: ``local``); ``timeout``: seconds to reach
    a distributed scheduler."""
    if scheduler is None:
        return local(workers)
    workers = workers or os.cpu_count() or 1
    if scheduler == "processes":
        return Forked(workers)
    if scheduler == "threads":
        return Threads(workers)
    if scheduler == "dask-threads":
        return DaskThreads(workers)
    check_scheduler(scheduler)  # what is left: "local" or an address, else refused
    return Distributed(scheduler, workers, timeout)


def check_scheduler(scheduler: str | None) -> str | None:
    """``scheduler`` itself where it names a runtime, else refused in one line (before any
    work starts: opening it may come minutes later)."""
    if scheduler in (None, "processes", "threads", "dask-threads", "local"):
        return scheduler
    if "://" in scheduler:
        _check_address(scheduler)
        return scheduler
    raise DicewiseError(Message("unknown scheduler {scheduler!r} (processes, threads, "
                                "dask-threads, local, or a dask.distributed address such as "
                                "tcp://host:8786)", scheduler=scheduler))


def _check_address(address: str) -> None:
    """Refuse an address Dask cannot parse, before any client is made: a client that fails
    on one, once collected, can deadlock the next one made in the same process."""
    try:
        from distributed.comm.addressing import parse_address, parse_host_port
        from distributed.comm.registry import get_backend
    except ImportError:  # said when the scheduler is opened
        return
    try:
        scheme, location = parse_address(address)
        get_backend(scheme)
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except (ValueError, TypeError):
        raise DicewiseError(Message("{address} is not the address of a Dask scheduler (one "
                                    "looks like tcp://host:8786)", address=address)) from None


def shared_array(n: int, dtype=np.float64) -> np.ndarray:
    """A zeroed array in anonymous shared memory: processes forked after it is made read
    and write the same memory."""
    dtype = np.dtype(dtype)
    return np.frombuffer(mmap.mmap(-1, max(1, n * dtype.itemsize)), dtype=dtype, count=n)


def can_fork() -> bool:
    """Whether this process may fork workers: the system forks, and this is not a daemonic
    process (a worker of a ``multiprocessing`` pool, which may have no children)."""
    import multiprocessing  # here: it costs every command's start-up 20 ms

    return ("fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon)


#: What the children of a forked pool run, by pool (set in the parent before it forks).
_FORKED: dict = {}
_POOL_KEYS = itertools.count()


@contextmanager
def _interrupts_held():
    """Ctrl+C held back from this thread while it forks workers (a Ctrl+C on the way is
    heard when this ends): no worker is born hearing it, and the threads the pool starts
    meanwhile keep this thread's mask, so they never take it."""
    import signal

    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _worker_start(parent: int) -> None:
    """A forked worker's start: deaf to Ctrl+C, and gone when ``parent`` is.

    A command killed outright (SIGKILL, or SIGTERM, which Python does not turn into an
    exception) cannot let its workers go, and they would wait on their queue for ever,
    holding the table's build lock they inherited: every later command needing that table
    waited for them."""
    import threading

    _deaf_to_interrupts()
    threading.Thread(target=_exit_with, args=(parent,), daemon=True,
                     name="dicewise-orphan-watch").start()


def _exit_with(parent: int) -> None:
    import time

    while os.getppid() == parent:
        time.sleep(_ORPHAN_WATCH)
    os._exit(1)


#: Seconds between the looks a forked worker takes for its parent (gone: it exits).
_ORPHAN_WATCH = 0.2


def _deaf_to_interrupts() -> None:
    """A forked worker's start: Ctrl+C, which a terminal sends to every process of the
    command, is for the command alone, which says it was interrupted and lets its workers
    go after the items under way; a worker hearing it would print a traceback, or die
    while the command still waits on it.  SIGTERM, which the command hears as it hears
    Ctrl+C (``cli.main``), ends a worker at once again, as a pool that stops its workers
    expects."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _results(futures):
    """The futures' results in order.  The wait wakes every ``_HEAR_EVERY`` seconds: a
    Ctrl+C that the system gave to another thread of this process (a BLAS thread) is heard
    then, not once the items under way are done.  Futures left unread are cancelled, as
    ``Executor.map`` does."""
    from concurrent.futures import TimeoutError

    try:
        for future in futures:
            while True:
                try:
                    result = future.result(timeout=_HEAR_EVERY)
                    break
                except TimeoutError:
                    if future.done():  # the item's own TimeoutError, not the wait's
                        raise
            yield result
    finally:
        for future in futures:
            future.cancel()


#: Seconds between the looks a parent waiting on its forked workers takes for a Ctrl+C.
_HEAR_EVERY = 0.2


def _call_forked(key, item):
    # One BLAS thread per worker: the workers already keep every core busy, and OpenBLAS's
    # threads, spinning while they wait for a core, made a chunk of a solve 2 to 3 times
    # slower (docs/target.md).  The values came out bit for bit the same (Yahtzee, Yatzy).
    with blas_threads.single_blas_thread():
        return _FORKED[key](item)
