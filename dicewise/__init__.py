"""dicewise: exact and provably near-exact optimal play for dice games.

The Python API mirrors the CLI: ``solve`` and ``advise`` (category games), ``simulate``,
``bench_agent``, and the registry ``RULESETS``.  Results are frozen dataclasses.  Names
are imported on first use, so ``import dicewise`` stays cheap.
"""

__version__ = "0.1.0"

_API = {
    "advise": "api", "solve": "api", "make_game": "api", "Solution": "api",
    "simulate": "api", "bench_agent": "api",
    "DicewiseError": "errors", "RULESETS": "solver.rulesets",
}

__all__ = sorted(_API) + ["__version__"]


def __getattr__(name):
    if name in _API:
        import importlib

        return getattr(importlib.import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module 'dicewise' has no attribute {name!r}")
