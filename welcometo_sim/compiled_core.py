"""The optional compiled core: the modules the games spend their time in
(`CORE_MODULES`: the rules engine, the move evaluator, the strategy base
class, the random and greedy strategies), compiled by Cython from their
unchanged Python sources when the package is installed with a C compiler
at hand (see ``setup.py``). It plays the same games, move
for move, with about 1.25 times fewer instructions per game (the figures
are in benchmarks/README.md).

A compiled module is only used while it matches its source: the build writes
the SHA-256 of each source it compiled into ``_compiled.<python tag>.json``
next to this file, and `select_core` (run by the package's ``__init__`` before any engine
module is imported) makes every core module whose source has changed since,
or that was not compiled, load from its ``.py`` file. So editing a rule in
an editable install takes effect at once (with a warning to rebuild), and a
stale compiled module never plays. ``WTSIM_PURE_PYTHON=1`` in the
environment loads every core module from source, as profilers and
``benchmarks/bench_versions.py`` need.

This module imports only the standard library: ``setup.py`` reads
`CORE_MODULES` and `source_digest` from it before the package is built.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
import warnings
from pathlib import Path
from typing import Mapping

CORE_MODULES = (
    "welcometo_sim.games.welcome_to.boards",
    "welcometo_sim.games.welcome_to.cards",
    "welcometo_sim.games.welcome_to.data",
    "welcometo_sim.games.welcome_to.effects",
    "welcometo_sim.games.welcome_to.game",
    "welcometo_sim.games.welcome_to.plans",
    "welcometo_sim.games.welcome_to.scoring",
    "welcometo_sim.games.seeding",
    "welcometo_sim.games.views",
    "welcometo_sim.games.welcome_to.sheet",
    "welcometo_sim.games.welcome_to.evaluation.streets",
    "welcometo_sim.games.welcome_to.evaluation.terms",
    "welcometo_sim.games.welcome_to.evaluation.plan_progress",
    "welcometo_sim.games.welcome_to.evaluation.fences",
    "welcometo_sim.games.welcome_to.evaluation.moves",
    "welcometo_sim.games.welcome_to.evaluation.outlook",
    "welcometo_sim.strategy",
    "welcometo_sim.strategies.random",
    "welcometo_sim.strategies.greedy",
)
"""The modules the build compiles: those the games spend their time in."""

RENAMED_PACKAGES = {"welcometo_sim.strategies": "strategies"}
"""Packages installed under another name than their repository folder's:
installed name -> folder beside ``welcometo_sim/`` (a top-level ``strategies``
package in site-packages would collide with other projects). The folder's
name stays importable inside the repository, as the same modules."""

FORMER_CORE_MODULES = ("welcometo_sim.evaluation",)
"""Modules an older build compiled that are Python only now: they always load
from source, so a compiled file such a build left beside one never runs.
(The engine's modules that moved from ``welcometo_sim/rules/`` to
``welcometo_sim/games/`` have no source at their old names: the deprecated
`welcometo_sim.rules` imports those names as the new modules, ahead of any
compiled file an older build left there.)"""

PURE_PYTHON_VARIABLE = "WTSIM_PURE_PYTHON"
"""Set (to anything but empty or 0) to load every core module from source."""

def manifest_name(extension_suffix: str | None = None) -> str:
    """The build's manifest next to this file, {module name: SHA-256 of the
    source it was compiled from}, one per kind of compiled file (this
    Python's by default): a build for another Python version leaves this
    one's compiled files, and its record of them, alone."""
    suffix = extension_suffix or sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return "_compiled" + suffix.rsplit(".", 1)[0] + ".json"

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
"""The folder holding the `welcometo_sim` package."""


class StaleCoreWarning(UserWarning):
    """A compiled core module is older than its source, which is used instead."""


def source_path(module: str, root: Path = PACKAGE_ROOT) -> Path:
    """The ``.py`` file of a core module under `root`: where an install puts
    it, else (in the repository) in the folder of its renamed package."""
    path = root.joinpath(*module.split(".")).with_suffix(".py")
    for package, folder in RENAMED_PACKAGES.items():
        if module.startswith(package + ".") and not (root.joinpath(*package.split(".")) / "__init__.py").is_file():
            return (root / folder).joinpath(*module[len(package) + 1:].split(".")).with_suffix(".py")
    return path


def installed_name(module: str) -> str | None:
    """The installed name of a module named by its repository folder
    (``strategies.greedy`` -> ``welcometo_sim.strategies.greedy``), None for
    any other module."""
    for package, folder in RENAMED_PACKAGES.items():
        if module == folder or module.startswith(folder + "."):
            return package + module[len(folder):]
    return None


def source_digest(path: Path) -> str:
    """The SHA-256 of a source file's bytes, as the build records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pure_python_requested(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the environment asks for the source modules only."""
    return environ.get(PURE_PYTHON_VARIABLE, "").strip() not in ("", "0")


def read_manifest(root: Path = PACKAGE_ROOT) -> dict[str, str]:
    """The build's {module: source digest} (empty when nothing was compiled)."""
    try:
        manifest = json.loads((root / "welcometo_sim" / manifest_name()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def modules_from_source(manifest: dict[str, str], root: Path = PACKAGE_ROOT,
                        pure_python: bool = False) -> tuple[list[str], list[str]]:
    """The core modules that must load from source, and among them the stale
    ones: compiled from a source that has changed since. A module the build
    did not compile loads from source too (a compiled file left over from an
    older build may still lie beside it)."""
    if pure_python:
        return list(CORE_MODULES), []
    from_source, stale = [], []
    for module in CORE_MODULES:
        recorded = manifest.get(module)
        if recorded is not None and recorded == source_digest(source_path(module, root)):
            continue
        from_source.append(module)
        if recorded is not None:
            stale.append(module)
    return from_source, stale


class SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the listed modules' ``.py`` files ahead of any compiled file
    beside them, and the listed packages in their folders (a renamed package
    in the repository the running `welcometo_sim` comes from)."""

    def __init__(self, sources: dict[str, Path], packages: dict[str, Path] | None = None) -> None:
        self.sources = sources
        self.packages = packages or {}

    def find_spec(self, fullname, path=None, target=None):
        folder = self.packages.get(fullname)
        if folder is not None:
            return importlib.util.spec_from_file_location(fullname, folder / "__init__.py",
                                                          submodule_search_locations=[str(folder)])
        source = self.sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def repository_packages(root: Path = PACKAGE_ROOT) -> dict[str, Path]:
    """Renamed packages whose folder lies beside this `welcometo_sim` (it runs
    from the repository, installed editable or not): their name -> folder, so
    that `welcometo_sim.strategies` is always the strategies of this checkout."""
    return {package: root / folder for package, folder in RENAMED_PACKAGES.items()
            if not (root.joinpath(*package.split(".")) / "__init__.py").is_file()
            and (root / folder / "__init__.py").is_file()}


def select_core(root: Path = PACKAGE_ROOT) -> None:
    """Make the core modules that must not run compiled load from source
    (once per process; call before any core module is imported)."""
    if any(isinstance(finder, SourceFinder) for finder in sys.meta_path):
        return
    from_source, stale = modules_from_source(read_manifest(root), root, pure_python_requested())
    if stale:
        warnings.warn(f"compiled {', '.join(stale)} differs from the source, which runs instead "
                      f"(rebuild with: pip install -e .)", StaleCoreWarning, stacklevel=2)
    sources = {name: source_path(name, root) for name in [*from_source, *FORMER_CORE_MODULES]}
    sys.meta_path.insert(0, SourceFinder({name: path for name, path in sources.items() if path.is_file()},
                                         repository_packages(root)))


def engine() -> str:
    """How the core runs in this process: "compiled", "pure Python", or
    "partly compiled (n of m modules)" (imports the core modules)."""
    compiled = 0
    for name in CORE_MODULES:
        module = importlib.import_module(name)
        loader = getattr(module, "__loader__", None)
        compiled += isinstance(loader, importlib.machinery.ExtensionFileLoader)
    if compiled == len(CORE_MODULES):
        return "compiled"
    if compiled == 0:
        return "pure Python"
    return f"partly compiled ({compiled} of {len(CORE_MODULES)} modules)"
