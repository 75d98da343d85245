"""dicewise: exact and provably near-exact optimal play for dice games.

The Python API mirrors the CLI for every ruleset: ``solve``, ``advise``, ``simulate``,
``duel``, ``strategy_table``, ``bench_agent``, ``review``, ``chance``, ``describe``, the
two-player ``solve_two_player``, ``chance_two_player``, ``advise_two_player`` and
``duel_two_player``, Risk's ``risk_battle``, ``risk_advise``, ``risk_chain``, ``risk_table``
and ``risk_cards``, and the registry
``RULESETS`` (name -> game).  Results are frozen dataclasses whose ``to_json()`` is what the
command's ``--json`` prints.  Names are imported on first use, so ``import dicewise`` stays
cheap.
"""

__version__ = "0.1.0"

_API = {
    "advise": "api", "solve": "api", "simulate": "api", "duel": "api", "bench_agent": "api",
    "review": "api", "strategy_table": "api", "describe": "api", "solve_report": "api",
    "chance": "api", "chance_two_player": "api", "advise_two_player": "api",
    "solve_two_player": "api", "duel_two_player": "api",
    "risk_battle": "api", "risk_advise": "api", "risk_chain": "api", "risk_table": "api",
    "risk_cards": "api",
    "Solution": "solver.protocol", "Advice": "solver.protocol",
    "DicewiseError": "errors", "RULESETS": "solver.registry",
}

__all__ = sorted(_API) + ["__version__"]


def __getattr__(name):
    import importlib

    if name in _API:
        return getattr(importlib.import_module(f".{_API[name]}", __name__), name)
    if name == "api":  # ``dicewise.api.duel_players(...)`` after a plain ``import dicewise``
        return importlib.import_module(".api", __name__)
    raise AttributeError(f"module 'dicewise' has no attribute {name!r}")
