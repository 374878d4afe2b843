"""Typed native code for the engine's hot paths, built from ``.pyx`` sources
by ``setup.py`` (see `decision`, the learned evaluation's decision).

The Python code stays the reference: each native module is optional, and
`native_module` tells whether one is built and may run. ``WTSIM_PURE_PYTHON=1``
in the environment makes every caller use the Python reference instead, as
it does for the compiled core.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..compiled_core import pure_python_requested
from .modules import NATIVE_MODULES

__all__ = ["NATIVE_MODULES", "native_module", "native_status"]


def native_module(name: str) -> ModuleType | None:
    """The built native module `name` (``"decision"``), or None when it is not
    built or pure Python is asked for."""
    if pure_python_requested():
        return None
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError:
        return None


def native_status() -> dict[str, bool]:
    """Whether each native module is built and importable (whatever
    ``WTSIM_PURE_PYTHON`` says): {module name: built}."""
    built = {}
    for name in NATIVE_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            built[name] = False
        else:
            built[name] = True
    return built
