"""dicewise: exact and provably near-exact optimal play for dice games."""

__version__ = "0.1.0"
