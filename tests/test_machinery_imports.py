"""The tournament machinery imports no game: outside `welcometo_sim/games/` no
module imports a game's package (`welcometo_sim.games.welcome_to`,
`welcometo_sim.games.shake_that_city`, or any game registered in `GAMES`),
except the few that belong to one game's learned player and native core and
say so below. What the machinery needs of a game it asks through the
registry (`welcometo_sim.games`): capabilities, rules, rows, records, views.

The imports are read with `ast` (function-level ones included), so a lazy
import inside a function counts like one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

from welcometo_sim.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "welcometo_sim"

GAME_OWNED: dict[str, str] = {
    "welcometo_sim/learning/evaluator.py": "Welcome To's learned value (the `learned` strategy's model)",
    "welcometo_sim/learning/features.py": "Welcome To's learned value: its n-tuple features",
    "welcometo_sim/learning/search.py": "Welcome To's decision-time search over its learned value",
    "welcometo_sim/strategy.py": "Welcome To's strategy API for strategy authors (`from welcometo_sim.strategy import ...`)",
    "welcometo_sim/evaluation.py": "deprecated alias of games/welcome_to/evaluation",
    "welcometo_sim/rules/__init__.py": "deprecated alias of the moved Welcome To modules",
}
"""Modules outside games/ that belong to one game, with why. Everything else
outside games/ is machinery and imports no game package."""

def game_packages() -> frozenset[str]:
    """The dotted packages of the registered games."""
    return frozenset(GAMES.values())


def imported_modules(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute dotted module) of every import in the file at `path`
    (under `root`), relative imports resolved against its package."""
    parts = path.relative_to(root).with_suffix("").parts
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found.extend((node.lineno, f"{module}.{alias.name}") for alias in node.names)
    return found


def machinery_files() -> list[Path]:
    """Every Python and Cython source under welcometo_sim/ outside games/ and GAME_OWNED."""
    files = []
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx")]):
        where = path.relative_to(ROOT).as_posix()
        if where.startswith(("welcometo_sim/games/", "welcometo_sim/native/")) or where in GAME_OWNED:
            continue
        files.append(path)
    return files


def violations() -> list[str]:
    """'path:line: imports module' for every machinery import of a game package."""
    games = game_packages()
    found = []
    for path in machinery_files():
        where = path.relative_to(ROOT).as_posix()
        for line, module in imported_modules(path):
            if any(module == game or module.startswith(game + ".") for game in games):
                found.append(f"{where}:{line}: imports {module}")
    return sorted(set(found))


def test_the_machinery_imports_no_game() -> None:
    assert violations() == []


def test_game_owned_files_exist() -> None:
    missing = [where for where in GAME_OWNED if not (ROOT / where).exists()]
    assert missing == []


def test_the_checker_resolves_relative_imports(tmp_path: Path) -> None:
    probe = PACKAGE / "sim" / "chunks.py"
    modules = [module for _, module in imported_modules(probe)]
    assert "welcometo_sim.config" in modules  # `from ..config import RunSpec`
    assert "welcometo_sim.config.RunSpec" in modules


def test_the_checker_finds_a_lazy_relative_import_of_a_game(tmp_path: Path) -> None:
    module = tmp_path / "welcometo_sim" / "sim" / "probe.py"
    module.parent.mkdir(parents=True)
    module.write_text("def later():\n    from ..games.welcome_to.game import Game\n    return Game\n")
    modules = [module for _, module in imported_modules(module, tmp_path)]
    assert "welcometo_sim.games.welcome_to.game" in modules
    assert any(m.startswith(game + ".") for m in modules for game in game_packages())
