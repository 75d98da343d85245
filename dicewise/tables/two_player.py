"""The two-player solve as a job: layers cut into chunks, run where ``scheduler`` says
(``solver.runtime.open_runtime``: forked processes by default, threads, Dask's threaded
scheduler or a ``dask.distributed`` cluster), every finished layer checkpointed, the result
one table file.

Every runtime runs the same pure function, ``solver.two_player.layers.solve_chunk``, on the
same chunks; only where they run differs.  Forked processes are the runtime that scales on
one machine (one layer-10 slice of 5.2 million states: 28–30 s on one process, 15 s on two;
threads took 32 s on one and 36 s on two, the Python between numpy calls holding the GIL).

The table is one more table spec of the table store (``RaceTable``): the store names the
file, locks it while it is built, writes it atomically, validates it on load, rebuilds a
damaged cached file with a warning, refuses a damaged explicit one naming ``--rebuild``,
drops tables of older rules and keeps the checkpoints, one per finished layer, from which a
killed solve resumes (a damaged or foreign checkpoint is refused, never silently redone).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import TableError
from ..i18n import Message
from ..solver.category import CategoryRules
from ..solver.digest import digest, source_digest
from ..solver.two_player import layers as layers_module, solve as solve_module, space
from ..solver.runtime import Runtime, check_scheduler, open_runtime
from ..solver.two_player.space import Layout, TwoPlayerValues, build_layout, two_player_rules
from . import store
from .store import checkpoint_dir  # noqa: F401 - where a solve's layers are checkpointed

KIND = "two-player"
DTYPE = "float32"


# -- the table -------------------------------------------------------------------------

class RaceTable:
    """The two-player race of a category game as the table store sees it: from two empty
    sheets, or from ``root`` (a pair of filled-box masks); how to run its layers (runner,
    workers, chunk size) is chosen here and is not part of the file's identity."""

    checkpointed = True

    def __init__(self, rules: CategoryRules, root=(0, 0), *, scheduler: str | None = None,
                 workers: int | None = None, chunk_columns: int = solve_module.CHUNK_COLUMNS,
                 keep_checkpoints: bool = False, connect_timeout: float = 10.0):
        from ..solver.registry import get_game

        self.game, self.root = get_game(rules.name), tuple(int(r) for r in root)
        self.name = self.game.name
        self.scheduler, self.workers = check_scheduler(scheduler), workers
        self.chunk_columns = chunk_columns
        self.keep_checkpoints, self.connect_timeout = keep_checkpoints, connect_timeout
        self.build_label = "solving {game} for two players"

    @property
    def solve_command(self) -> str:
        """The command that builds this table into a file (``store`` names it)."""
        return f"dicewise solve {self.name} --players 2"

    def rule_options(self, rules) -> dict:
        return self.game.rule_options(rules)

    def table_stem(self, rules) -> str:
        root = "" if self.root == (0, 0) else f"-from-{self.root[0]}-{self.root[1]}"
        return f"{self.game.table_stem(rules)}-2p{root}"

    def table_kind(self, rules) -> str:
        return KIND

    def rules_digest(self, rules) -> str:
        return digest(self.game.rules_digest(rules),
                      source_digest(space, layers_module, solve_module))

    def layout(self, rules) -> Layout:
        return build_layout(two_player_rules(rules), self.root)

    def build_units(self, rules) -> float:
        return self.layout(rules).n_values

    def build(self, rules: CategoryRules, progress=None, *, checkpoints: store.Checkpoints):
        """Solve the layers from the last back to the root's, each checkpointed."""
        layout = self.layout(rules)
        record = _Checkpointed(checkpoints, layout, progress)
        with open_runtime(self.scheduler, self.workers, self.connect_timeout) as runtime:
            values = solve_module.solve_layout(two_player_rules(rules), layout, DTYPE,
                                               _Counted(runtime, record), self.chunk_columns,
                                               record)
        solved = TwoPlayerValues(rules, layout, values)
        return solved, {"expected_score": None, "root": list(layout.root), "pairs": layout.n_pairs,
                        "n_values": layout.n_values, "root_value": solved.root_value,
                        "runner": runtime.name, "workers": runtime.workers,
                        "layer_seconds": {str(k): v for k, v in record.timings.items()},
                        "resumed_layers": record.resumed, "dtype": DTYPE}

    def to_arrays(self, payload: TwoPlayerValues) -> dict:
        return {"values": payload.values}

    def from_arrays(self, rules, arrays, meta) -> TwoPlayerValues:
        if list(meta.get("root", [])) != list(self.root):
            raise TableError(f"it holds the race from {meta.get('root')}, not from {list(self.root)}")
        layout = self.layout(rules)
        values = arrays.get("values")
        if values is None or len(values) != layout.n_values:
            raise TableError("it is damaged (its values do not match the two-player states)")
        return TwoPlayerValues(rules, layout, values)


class _Checkpointed(solve_module.LayerRecord):
    """A race table's layers as the solve finishes them: each kept as a checkpoint (or read
    back from one), timed, and counted to the store's progress chunk by chunk
    (``chunk_done``) or, where it was not solved in chunks, whole."""

    def __init__(self, checkpoints: store.Checkpoints, layout: Layout, progress):
        self.checkpoints, self.layout, self.progress = checkpoints, layout, progress
        self.timings: dict[int, float] = {}
        self.resumed = 0
        self._counted = 0  # states of the layer under way already counted

    def chunk_done(self, states: int) -> None:
        self._counted += states
        if self.progress is not None:
            self.progress(states)

    def saved(self, t):
        part = self.checkpoints.get(f"layer-{t:02d}")
        if part is None:
            return None
        arrays, meta = part
        s = self.layout.layer_values(t)
        values = arrays.get("values")
        if (meta.get("layer") != t or list(meta.get("root", [])) != list(self.layout.root)
                or values is None or len(values) != s.stop - s.start):
            raise self.checkpoints.refuse(f"layer-{t:02d}", f"does not hold layer {t} of this solve")
        self.resumed += 1
        return values

    def solved(self, t, values, seconds):
        if seconds is not None:
            self.timings[t] = round(seconds, 3)
            self.checkpoints.put(f"layer-{t:02d}", {"values": values[0]},
                                 {"layer": t, "root": list(self.layout.root), "seconds": self.timings[t]})
        left, self._counted = values.shape[1] - self._counted, 0
        if self.progress is not None and left:
            self.progress(left)


class _Counted(Runtime):
    """The build's runtime, each chunk counted to the progress as it comes back: the bar
    moves within a layer, and a server that is stopping (its progress raises) gives up after
    the chunk under way, seconds, not at the end of the layer (up to a minute)."""

    def __init__(self, runtime: Runtime, record: _Checkpointed):
        self.runtime, self.record = runtime, record
        self.name, self.workers = runtime.name, runtime.workers

    def map(self, fn, items, *shared):
        results = self.runtime.map(fn, items, *shared)
        try:
            for values in results:  # (k, columns): k arrays solved side by side
                self.record.chunk_done(values.shape[-1])
                yield values
        finally:  # stopped: the chunks not begun are dropped, as the runtime's own map does
            getattr(results, "close", lambda: None)()


@dataclass(frozen=True)
class TwoPlayerSolution:
    """A solved race and how it was obtained."""

    values: TwoPlayerValues
    path: Path | None  # None where the cache could not keep the table
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

    def to_json(self) -> dict:
        """What ``dicewise solve --players 2 --json`` prints."""
        values = self.values
        return {"ruleset": values.game.name, "rule_options": values.game.options, "players": 2,
                "probability": self.value, "pairs": values.layout.n_pairs,
                "states": values.layout.n_values, "seconds": round(self.seconds, 3),
                "built": self.built, "runner": self.runner, "workers": self.workers,
                "resumed_layers": self.resumed_layers,
                "table": str(self.path) if self.path else None}


def default_path(game: CategoryRules, root=(0, 0)) -> Path:
    """The cache file of the two-player table (the rules digest is part of the name)."""
    return store.default_path(RaceTable(game, root), game)


def solve_two_player(game: CategoryRules, path=None, *, root=(0, 0), scheduler: str | None = None,
                     workers: int | None = None, rebuild: bool = False, must_exist: bool = False,
                     chunk_columns: int = solve_module.CHUNK_COLUMNS,
                     keep_checkpoints: bool = False, connect_timeout: float = 10.0,
                     progress=None) -> TwoPlayerSolution:
    """Solve two-player ``game`` (from two empty sheets, or from ``root``) through the table
    store: loaded when its table exists (unless ``rebuild``), else built and kept.

    ``progress`` is the store's factory ``(units, label) -> context manager yielding
    update(states)``, called as each chunk of a layer is solved (a layer read back from its
    checkpoint counts at once); ``connect_timeout`` bounds the wait
    for a distributed scheduler.  Returns the solution with its timings.
    """
    spec = RaceTable(game, root, scheduler=scheduler, workers=workers, chunk_columns=chunk_columns,
                     keep_checkpoints=keep_checkpoints, connect_timeout=connect_timeout)
    solved = store.solution(spec, game, path, rebuild=rebuild, must_exist=must_exist,
                            progress_factory=progress)
    meta = solved.meta
    if not solved.built:
        return TwoPlayerSolution(solved.payload, solved.table, 0.0, False, "table", 0, 0, {})
    return TwoPlayerSolution(solved.payload, solved.table, solved.seconds, True, meta["runner"],
                             meta["workers"], meta["resumed_layers"],
                             {int(k): v for k, v in meta["layer_seconds"].items()})


def exact_edge(values: TwoPlayerValues, solitaire_values, progress=None) -> dict:
    """``solve.duel_edge`` on this machine's fastest runtime, its layers counted to a
    progress bar (``progress``: a ``store.ProgressFactory``) as its chunks come back."""
    from types import SimpleNamespace

    from ..solver import runtime as runtime_module

    with runtime_module.local() as where:
        if progress is None:
            return solve_module.duel_edge(values, solitaire_values, runtime=where)
        layout = values.layout
        last = layout.layer_values(2 * layout.n)  # given, not solved: no chunk of it
        label = Message("evaluating win against expected-score play exactly")
        with progress(layout.n_values - (last.stop - last.start), label) as update:
            counted = _Counted(where, SimpleNamespace(chunk_done=update))
            return solve_module.duel_edge(values, solitaire_values, runtime=counted)
