"""dicewise: exact and provably near-exact optimal play for dice games.

The Python API mirrors the CLI: ``solve``, ``advise`` (category games), and the registry
``RULESETS``.  Results are frozen dataclasses.
"""

__version__ = "0.1.0"

from .api import Solution, advise, make_game, solve  # noqa: E402
from .errors import DicewiseError  # noqa: E402
from .solver.rulesets import RULESETS  # noqa: E402

__all__ = ["RULESETS", "DicewiseError", "Solution", "advise", "make_game", "solve", "__version__"]
