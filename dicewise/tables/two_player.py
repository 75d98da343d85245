"""The two-player solve as a job: layers cut into chunks, run on threads or a Dask cluster,
every finished layer checkpointed, the result one table file.

Runners (``scheduler``):

* ``None`` — ``"processes"`` where the system can fork and more than one worker is asked
  for, else local threads (Dask's threaded scheduler when ``dask`` is installed);
* ``"processes"`` — ``workers`` forked processes per layer, which read the layer's inputs
  copy-on-write: the runner that scales on one machine (one layer-10 slice of 5.2 million
  states: 28–30 s on one process, 15 s on two; threads took 32 s on one and 36 s on two,
  the Python between numpy calls holding the GIL);
* ``"threads"`` — the plain thread pool even when Dask is installed;
* ``"local"`` — a ``dask.distributed`` LocalCluster of ``workers`` single-threaded processes;
* ``"tcp://host:port"`` — an existing ``dask.distributed`` scheduler.

Every runner runs the same pure function, ``solver.two_player.layers.solve_chunk``, on the
same chunks; only where they run differs.  Dask is optional: nothing here imports it
unless a Dask runner is asked for or found.

Checkpoints are table files (``format.write_table``: checksummed, written atomically), one
per finished layer, in a folder beside the final file.  A solve that is killed resumes
from them; a checkpoint that fails its checksum, or was built for other rules, is refused
with a message naming it — never trusted, never silently redone.  The folder is removed
once the final table is written.
"""

from __future__ import annotations

import inspect
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import DicewiseError
from ..solver import category, dice, scoring, turn
from ..solver.category import CategoryGame
from ..solver.two_player import layers as layers_module, solve as solve_module, space
from ..solver.parallel import can_fork, forked_map
from ..solver.two_player.layers import solve_chunk, terminal_values
from ..solver.two_player.space import Layout, TwoPlayerValues, build_layout, two_player_rules
from .format import TableError, digest, read_table, write_table
from .store import SUFFIX, cache_dir

KIND = "two-player"
LAYER_KIND = "two-player-layer"
DTYPE = "float32"


def rules_digest(game: CategoryGame) -> str:
    """Digest of the code that defines the game's rules and the two-player solver."""
    ruleset = sys.modules[type(game).__module__]
    modules = (dice, turn, category, scoring, ruleset, space, layers_module, solve_module)
    return digest(*(inspect.getsource(m) for m in modules))


def _option_slug(options: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in sorted(options.items())) or "default"


def _root_slug(root) -> str:
    return "" if tuple(root) == (0, 0) else f"-from-{root[0]}-{root[1]}"


def default_path(game: CategoryGame, root=(0, 0)) -> Path:
    """The cache file of the two-player table (the rules digest is part of the name)."""
    return cache_dir() / (f"{game.name}-2p-{_option_slug(game.options)}{_root_slug(root)}"
                          f"-{rules_digest(game)}{SUFFIX}")


def checkpoint_dir(path) -> Path:
    """Where the layers of a solve writing ``path`` are checkpointed."""
    path = Path(path)
    return path.with_name(path.name + ".layers")


# -- runners ---------------------------------------------------------------------------

class _LocalMap:
    """The layer's chunks mapped on this machine: over processes forked per layer (the
    children read the layer copy-on-write) or over a thread pool."""

    def __init__(self, name: str, workers: int):
        self.name, self.workers = name, workers
        self.pool = ThreadPoolExecutor(workers) if name == "threads" else None
        self.map = self.pool.map if self.pool else forked_map(workers)

    def run_layer(self, rules, layout, t, nxt, chunks):
        return list(self.map(lambda pairs: solve_chunk(rules, layout, t, nxt, pairs), chunks))

    def close(self):
        if self.pool:
            self.pool.shutdown()


class _DaskThreads:
    name = "dask-threads"

    def __init__(self, workers: int):
        import dask

        self.dask, self.workers = dask, workers

    def run_layer(self, rules, layout, t, nxt, chunks):
        tasks = [self.dask.delayed(solve_chunk, pure=True)(rules, layout, t, nxt, c) for c in chunks]
        return list(self.dask.compute(*tasks, scheduler="threads", num_workers=self.workers))

    def close(self):
        pass


class _Distributed:
    name = "dask-distributed"

    def __init__(self, scheduler: str, workers: int, timeout: float):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise DicewiseError(f"scheduler {scheduler!r} needs dask.distributed: "
                                "pip install dask distributed") from None
        self.cluster = None
        try:
            if scheduler == "local":
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                            processes=True, dashboard_address=None)
                self.client = Client(self.cluster)
            else:
                self.client = Client(scheduler, timeout=f"{timeout}s")
        except Exception as e:  # noqa: BLE001 - OSError, TimeoutError, ValueError for a bad address
            if self.cluster is not None:
                self.cluster.close()
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise DicewiseError(f"cannot reach the Dask scheduler at {scheduler}: {reason}") from None
        self.workers = len(self.client.scheduler_info().get("workers", {})) or workers
        self.shared = None

    def run_layer(self, rules, layout, t, nxt, chunks):
        if self.shared is None:
            self.shared = self.client.scatter([rules, layout], broadcast=True)
        rules_f, layout_f = self.shared
        nxt_f = self.client.scatter(nxt, broadcast=True)
        futures = [self.client.submit(solve_chunk, rules_f, layout_f, t, nxt_f, c, pure=False)
                   for c in chunks]
        out = self.client.gather(futures)
        self.client.cancel([nxt_f])
        return out

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _dask_installed() -> bool:
    try:
        import dask  # noqa: F401
    except ImportError:
        return False
    return True


def make_runner(scheduler: str | None, workers: int | None, timeout: float = 10.0):
    """The runner a ``scheduler`` names (see the module doc); ``timeout``: seconds to reach
    a distributed scheduler."""
    workers = workers or os.cpu_count() or 1
    if scheduler is None:
        if workers > 1 and can_fork():
            return _LocalMap("processes", workers)
        return _DaskThreads(workers) if _dask_installed() else _LocalMap("threads", workers)
    if scheduler == "processes":
        if not can_fork():
            raise DicewiseError("scheduler 'processes' needs a system that can fork; use threads")
        return _LocalMap("processes", workers)
    if scheduler == "threads":
        return _LocalMap("threads", workers)
    if scheduler == "dask-threads":
        if not _dask_installed():
            raise DicewiseError("scheduler 'dask-threads' needs dask: pip install dask")
        return _DaskThreads(workers)
    if scheduler == "local" or "://" in scheduler:
        return _Distributed(scheduler, workers, timeout)
    raise DicewiseError(f"unknown scheduler {scheduler!r} (processes, threads, dask-threads, local, or a "
                        "dask.distributed address such as tcp://host:8786)")


# -- checkpoints and the final table ----------------------------------------------------

def _expect(game: CategoryGame) -> dict:
    return {"ruleset": game.name, "options": game.options, "rules_digest": rules_digest(game)}


def _read_layer(file: Path, game: CategoryGame, layout: Layout, t: int) -> np.ndarray:
    try:
        table = read_table(file, kind=LAYER_KIND, **_expect(game))
    except TableError as e:
        raise TableError(f"checkpoint refused: {e}") from None
    meta = table.header.get("meta", {})
    s = layout.layer_values(t)
    values = table.arrays.get("values")
    if (meta.get("layer") != t or list(meta.get("root", [])) != list(layout.root)
            or values is None or len(values) != s.stop - s.start):
        raise TableError(f"checkpoint refused: {file} does not hold layer {t} of this solve; "
                         "delete it to recompute that layer")
    return values


@dataclass(frozen=True)
class TwoPlayerSolution:
    """A solved race and how it was obtained."""

    values: TwoPlayerValues
    path: Path
    seconds: float  # time spent solving in this call (0 when loaded)
    built: bool
    runner: str  # processes, threads, dask-threads, dask-distributed, or "table" when loaded
    workers: int
    resumed_layers: int  # layers read back from checkpoints
    layer_seconds: dict  # layer -> seconds, for the layers solved in this call

    @property
    def value(self) -> float:
        """P(win) + ½P(draw) of the root's mover at difference 0 (the first player's, from
        two empty sheets)."""
        return self.values.root_value


def save(path, values: TwoPlayerValues, meta: dict) -> Path:
    """Write a solved race as one table file (atomically)."""
    game, layout = values.game, values.layout
    return write_table(path, kind=KIND, **_expect(game), arrays={"values": values.values},
                       meta={"root": list(layout.root), "pairs": layout.n_pairs,
                             "n_values": layout.n_values, "root_value": values.root_value, **meta})


def load(path, game: CategoryGame, root=(0, 0)) -> TwoPlayerValues:
    """Read a two-player table, refusing it unless built for this game, rules and root."""
    table = read_table(path, kind=KIND, **_expect(game))
    meta = table.header.get("meta", {})
    if list(meta.get("root", [])) != list(root):
        raise TableError(f"{path} holds the race from {meta.get('root')}, not from {list(root)}")
    layout = build_layout(two_player_rules(game), tuple(root))
    values = table.arrays.get("values")
    if values is None or len(values) != layout.n_values:
        raise TableError(f"{path} is damaged (its values do not match the two-player states)")
    return TwoPlayerValues(game, layout, values)


def solve_two_player(game: CategoryGame, path=None, *, root=(0, 0), scheduler: str | None = None,
                     workers: int | None = None, rebuild: bool = False,
                     chunk_columns: int = solve_module.CHUNK_COLUMNS,
                     keep_checkpoints: bool = False, connect_timeout: float = 10.0,
                     progress: Callable[[int, int], None] | None = None) -> TwoPlayerSolution:
    """Solve two-player ``game`` (from two empty sheets, or from ``root``) and write its table.

    An existing table is loaded instead unless ``rebuild``.  ``progress(layer, states)``
    is called as each layer is finished; ``connect_timeout`` bounds the wait for a
    distributed scheduler.  Returns the solution with its timings.
    """
    path = Path(path) if path else default_path(game, root)
    if path.exists() and not rebuild:
        values = load(path, game, root)
        return TwoPlayerSolution(values, path, 0.0, False, "table", 0, 0, {})
    rules = two_player_rules(game)
    layout = build_layout(rules, tuple(root))
    folder = checkpoint_dir(path)
    values = np.empty(layout.n_values, dtype=DTYPE)
    timings, resumed = {}, 0
    start = time.perf_counter()
    runner = make_runner(scheduler, workers, connect_timeout)
    try:
        for t in layout.layers():
            s = layout.layer_values(t)
            file = folder / f"layer-{t:02d}{SUFFIX}"
            if file.exists():
                values[s] = _read_layer(file, game, layout, t)
                resumed += 1
            else:
                began = time.perf_counter()
                if t == 2 * layout.n:
                    values[s] = terminal_values(layout, "value", DTYPE)
                else:
                    chunks = solve_module.layer_chunks(layout, t, chunk_columns)
                    nxt = values[layout.layer_values(t + 1)]
                    values[s] = np.concatenate(runner.run_layer(rules, layout, t, nxt, chunks))
                timings[t] = round(time.perf_counter() - began, 3)
                write_table(file, kind=LAYER_KIND, **_expect(game), arrays={"values": values[s]},
                            meta={"layer": t, "root": list(layout.root), "seconds": timings[t]})
            if progress is not None:
                progress(t, s.stop - s.start)
    finally:
        runner.close()
    seconds = time.perf_counter() - start
    solved = TwoPlayerValues(game, layout, values)
    save(path, solved, {"seconds": round(seconds, 3), "runner": runner.name, "workers": runner.workers,
                        "layer_seconds": {str(k): v for k, v in timings.items()},
                        "resumed_layers": resumed, "dtype": DTYPE})
    if not keep_checkpoints:
        shutil.rmtree(folder, ignore_errors=True)
    return TwoPlayerSolution(solved, path, seconds, True, runner.name, runner.workers, resumed, timings)
