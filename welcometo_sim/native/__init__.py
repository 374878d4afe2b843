"""Typed native code for the engine's hot paths, built from ``.pyx`` sources
by ``setup.py`` (see `decision`, the learned evaluation's decision).

The Python code stays the reference: each native module is optional, and
`native_module` tells whether one is built and may run. ``WTSIM_PURE_PYTHON=1``
in the environment makes every caller use the Python reference instead, as
it does for the compiled core. A module compiled from another version of its
``.pyx`` source, or of a ``.pxd`` it depends on, than the one beside it
(edited since the last build) does not run either, with a warning to
rebuild: the build records each module's digest of its sources in a
manifest beside this file (`modules.manifest_name`, `modules.module_digest`).
Nor does a module whose cimported native module is stale: it calls that
module's compiled code.
"""

from __future__ import annotations

import importlib
import json
import warnings
from pathlib import Path
from types import ModuleType

from ..compiled_core import StaleCoreWarning, pure_python_requested
from .modules import NATIVE_MODULES, cimported_modules, manifest_name, module_digest, module_sources

__all__ = ["NATIVE_MODULES", "native_module", "native_status", "stale_reason", "native_summary"]

HERE = Path(__file__).resolve().parent


def native_module(name: str) -> ModuleType | None:
    """The built native module `name` (``"decision"``), or None when it is not
    built, is stale, or pure Python is asked for."""
    if pure_python_requested():
        return None
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ImportError:
        return None
    stale = stale_reason(module.__name__)
    if stale:
        warnings.warn(stale, StaleCoreWarning, stacklevel=2)
        return None
    return module


def stale_reason(module: str, folder: Path = HERE) -> str | None:
    """Why a built native module must not run (its sources beside it, the
    ``.pyx`` and the ``.pxd`` files it depends on, differ from those it was
    compiled from, or a native module it cimports is stale), or None. An
    install without the ``.pyx`` sources has only its build to go by."""
    sources = module_sources(module, folder)
    if not sources[0].is_file():
        return None
    try:
        recorded = json.loads((folder / manifest_name()).read_text(encoding="utf-8")).get(module)
    except (OSError, ValueError, AttributeError):
        recorded = None
    try:
        current = module_digest(module, folder)
    except OSError:  # a .pxd it needs is missing: it cannot have been built from these sources
        current = None
    if current is None or recorded != current:
        names = " and ".join(source.name for source in sources)
        now = "it is" if len(sources) == 1 else "they are"
        return (f"native {module} was not compiled from {names} as {now} now: the Python reference runs "
                f"instead (rebuild with: pip install -e . or python benchmarks/build_native.py)")
    for other in cimported_modules(module):
        reason = stale_reason(other, folder)
        if reason is not None:
            return f"native {module} calls {other}, which is stale: {reason}"
    return None


def native_status() -> dict[str, bool]:
    """Whether each native module is built, importable and current (whatever
    ``WTSIM_PURE_PYTHON`` says): {module name: ready}."""
    ready = {}
    for name in NATIVE_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            ready[name] = False
        else:
            ready[name] = stale_reason(name) is None
    return ready


def native_summary() -> str:
    """What `wtsim --version` says of the native modules: which of them run."""
    short = [name.rsplit(".", 1)[1] for name in NATIVE_MODULES]
    running = [name for name in short if native_module(name) is not None]
    if not running:
        return "no native modules"
    return "native " + ", ".join(running)
