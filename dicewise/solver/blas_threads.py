"""One BLAS thread while a table is fitted, so that a fitted table does not depend on the
machine's thread count.

A multi-threaded BLAS splits long sums (dot products, norms, the updates of a linear solve)
between threads and adds the parts in an order that depends on how many threads there are;
the last bits of a fit then differ, policy iteration amplifies them, and two machines build
different tables from the same code.  ``single_blas_thread`` sets the OpenBLAS libraries that
numpy and scipy load to one thread for the duration of a block and restores them after.  A
BLAS that is not OpenBLAS (MKL, Accelerate) is left alone: ``limited()`` says whether the
limit took hold.
"""

from __future__ import annotations

import ctypes
import glob
import os
from contextlib import contextmanager

#: (set, get) symbol names of OpenBLAS builds: plain, numpy's 64-bit, scipy's.
_SYMBOLS = (("openblas_set_num_threads", "openblas_get_num_threads"),
            ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
            ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
            ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"))


def _library_files() -> list[str]:
    """The OpenBLAS shared libraries bundled with the installed numpy and scipy."""
    import numpy
    import scipy

    files = []
    for package in (numpy, scipy):
        root = os.path.dirname(os.path.dirname(package.__file__))
        name = package.__name__
        for folder in (os.path.join(root, f"{name}.libs"), os.path.join(root, name, ".dylibs")):
            files += sorted(glob.glob(os.path.join(folder, "*openblas*")))
    return files


def _controls():
    """(set, get) function pairs of every OpenBLAS found; empty when there is none."""
    out = []
    for path in _library_files():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for set_name, get_name in _SYMBOLS:
            if hasattr(lib, set_name) and hasattr(lib, get_name):
                setter, getter = getattr(lib, set_name), getattr(lib, get_name)
                setter.argtypes, setter.restype = [ctypes.c_int], None
                getter.argtypes, getter.restype = [], ctypes.c_int
                out.append((setter, getter))
                break
    return out


_CONTROLS = None


def limited() -> bool:
    """Whether ``single_blas_thread`` can limit the BLAS of this installation."""
    global _CONTROLS
    if _CONTROLS is None:
        _CONTROLS = _controls()
    return bool(_CONTROLS)


@contextmanager
def single_blas_thread():
    """Run the block with one BLAS thread (where the BLAS is OpenBLAS), then restore."""
    limited()
    before = [get() for _, get in _CONTROLS]
    try:
        for set_, _ in _CONTROLS:
            set_(1)
        yield
    finally:
        for (set_, _), n in zip(_CONTROLS, before):
            set_(n)
