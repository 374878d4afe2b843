"""The package's modules import each other in layers, with no circle.

A circle (a imports b, b imports a, directly or through others) makes the
outcome of an import depend on which module a caller happens to load first,
and a function-level import that dodges one only hides it. So the graph is
read from the source with `ast`, every import counted wherever it stands:
at module level, inside functions and under ``if TYPE_CHECKING:``.

Nodes are modules. A package's ``__init__.py`` is the node of the package
itself (``welcometo_sim.games``), so ``from welcometo_sim.games import GAMES``
is an edge to the package's ``__init__``; a submodule does not get an implicit
edge to its parent packages (Python finishes initialising a package before it
runs the submodules that package imports). The repository's ``strategies/``
folder is installed as ``welcometo_sim.strategies`` and is read under that name.
Imports by ``importlib.import_module`` (the game registry, strategy references
in configs, the package's lazy public names) are data, not edges.
"""

from __future__ import annotations

import ast
import graphlib
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "welcometo_sim"
SOURCE_FOLDERS = {PACKAGE: ROOT / PACKAGE, f"{PACKAGE}.strategies": ROOT / "strategies"}
"""Installed package name -> the folder holding its source."""
ALIASES = {"strategies": f"{PACKAGE}.strategies"}
"""Names a module may import that stand for an installed package."""


def module_files() -> dict[str, Path]:
    """Every module of the package: dotted name -> file."""
    modules = {}
    for package, folder in SOURCE_FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def canonical(name: str) -> str:
    """`name` with an aliased top-level package replaced by its installed name."""
    head, _, rest = name.partition(".")
    if head in ALIASES:
        return ALIASES[head] + ("." + rest if rest else "")
    return name


def absolute_base(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a ``from ... import`` names, with relative levels resolved."""
    if not node.level:
        return canonical(node.module or "")
    anchor = module.split(".") if is_package else module.split(".")[:-1]
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join(anchor + ([node.module] if node.module else []))


def imported_modules(module: str, path: Path, known: set[str]) -> set[str]:
    """The package's own modules that `module` imports anywhere in its source."""
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets.update(canonical(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute_base(node, module, is_package)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.add(submodule if submodule in known else base)
    return {target for target in targets if target in known and target != module}


def function_imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The package's own modules that `module` imports inside a function."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                found.update(canonical(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = absolute_base(node, module, is_package)
                found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                             for alias in node.names)
    return {target for target in found if target in known}


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    files = module_files()
    known = set(files)
    return {module: imported_modules(module, path, known) for module, path in files.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` (module -> modules it imports) as a path of imports
    that ends where it starts, or None."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return list(reversed(error.args[1]))
    return None


def test_the_graph_reads_the_package():
    """The reader finds the modules and resolves relative, aliased and
    ``from package import submodule`` imports to the modules they load."""
    graph = import_graph()
    assert len(graph) > 80
    assert "welcometo_sim.sim.rows" in graph["welcometo_sim.sim.isolated"]
    assert "welcometo_sim.games.welcome_to.evaluation" in graph["welcometo_sim.strategies.greedy"]
    assert "welcometo_sim.strategies.greedy" in graph["welcometo_sim.strategies.heuristic"]
    assert "welcometo_sim.compiled_core" in graph["welcometo_sim"]


@pytest.mark.parametrize("graph, cycle", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
    ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, None),
    ({"a": {"b"}, "b": set(), "c": {"d"}, "d": {"c"}}, ["c", "d", "c"]),
])
def test_find_cycle(graph, cycle):
    assert find_cycle(graph) == cycle


def test_the_package_has_no_import_circle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


LAZY_ON_PURPOSE = {
    ("welcometo_sim.cli.run", "welcometo_sim.analysis.plots"),
    ("welcometo_sim.cli.run", "welcometo_sim.analysis.report"),
    ("welcometo_sim.cli.records", "welcometo_sim.viewer"),
}
"""(importer, imported) pairs of function-level imports kept on purpose: `wtsim
report` and `show --html` load what they alone need, which would otherwise
lengthen the start-up time of every command."""


def test_own_modules_are_imported_inside_functions_only_to_save_start_up_time():
    """A function-level import of the package's own modules hides a circle
    from readers (and from the graph above, were it read at module level
    only): every one must be on the list of those that save start-up time."""
    files = module_files()
    known = set(files)
    lazy = {(module, target) for module, path in files.items()
            for target in function_imports(module, path, known)}
    assert lazy == LAZY_ON_PURPOSE


@pytest.mark.parametrize("old, new", [
    ("welcometo_sim.config:ConfigError", "welcometo_sim.config_files:ConfigError"),
    ("welcometo_sim.config:PlayerConfig", "welcometo_sim.config_files:PlayerConfig"),
    ("welcometo_sim.config:bounded_yaml", "welcometo_sim.config_files:bounded_yaml"),
    ("welcometo_sim.config:read_bounded", "welcometo_sim.config_files:read_bounded"),
    ("welcometo_sim.config:MAX_YAML_BYTES", "welcometo_sim.config_files:MAX_YAML_BYTES"),
    ("welcometo_sim.api:resolve_spec", "welcometo_sim.specs:resolve_spec"),
    ("welcometo_sim.analysis.compare:pair_table", "welcometo_sim.analysis.pairs:pair_table"),
    ("welcometo_sim.analysis:pair_table", "welcometo_sim.analysis.pairs:pair_table"),
    ("welcometo_sim.sim.runner:ChunkResult", "welcometo_sim.sim.chunks:ChunkResult"),
    ("welcometo_sim.sim.runner:game_seed", "welcometo_sim.sim.chunks:game_seed"),
    ("welcometo_sim.sim.runner:game_seeds", "welcometo_sim.sim.chunks:game_seeds"),
    ("welcometo_sim.sim.runner:play_chunk", "welcometo_sim.sim.chunks:play_chunk"),
    ("welcometo_sim.sim.runner:batch_collection", "welcometo_sim.sim.chunks:batch_collection"),
    ("welcometo_sim.sim.results:to_frame", "welcometo_sim.sim.frames:to_frame"),
    ("welcometo_sim.games.shake_that_city.game:Rules", "welcometo_sim.games.shake_that_city.rules:Rules"),
    ("welcometo_sim.games.shake_that_city.game:TILE_SUPPLY", "welcometo_sim.games.shake_that_city.rules:TILE_SUPPLY"),
    ("welcometo_sim.games.shake_that_city:Variant", "welcometo_sim.games.shake_that_city.rules:Variant"),
])
def test_names_that_moved_down_are_still_importable_from_where_they_were(old, new):
    """The same object under its old path, so callers, configs and isinstance
    checks written against the old one keep working."""
    def resolve(path: str):
        module, _, name = path.partition(":")
        return getattr(importlib.import_module(module), name)

    assert resolve(old) is resolve(new)
