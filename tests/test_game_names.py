"""The tournament machinery holds no game's name: outside `welcometo_sim/games/` no
code compares a value with a registered game's name (a literal such as
"welcome-to", or a constant holding one such as `DEFAULT_GAME` or `GAME_NAME`),
and no `WELCOME_TO`-style constant or `require_welcome_to` exists. What a command
needs from a game it asks through `welcometo_sim.games.Capabilities`.

The checker reads the sources with `ast` (docstrings, messages and data keyed by
name are not comparisons); it is tested on small sources of its own below.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from welcometo_sim.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
"""The checkout whose welcometo_sim/ is read (this test file's own)."""

NOT_YET_MIGRATED: frozenset[str] = frozenset()
"""Files skipped while they still compared game names (none left)."""

LEGACY_SHIMS: dict[str, frozenset[str]] = {}
"""Definitions kept only for the files of NOT_YET_MIGRATED, which still import
them; a shim that none of those files uses any more fails the test below."""


def game_names() -> frozenset[str]:
    """The registered games' names."""
    return frozenset(GAMES)


def forbidden_identifiers(names: frozenset[str]) -> frozenset[str]:
    """`WELCOME_TO`-style constants and `require_welcome_to`-style methods of every game."""
    return frozenset(ident for name in names
                     for ident in (re.sub(r"\W", "_", name).upper(), "require_" + re.sub(r"\W", "_", name)))


def name_constants(root: Path, names: frozenset[str]) -> frozenset[str]:
    """Identifiers assigned a game's name anywhere under `root` (`GAME_NAME = "..."`,
    `DEFAULT_GAME = "..."`): comparing with one of these compares with the name."""
    found = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and _is_name_literal(node.value, names):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found.update(_identifier(t) for t in targets if _identifier(t))
    return frozenset(found)


def violations(root: Path, skip: frozenset[str] = NOT_YET_MIGRATED,
               shims: dict[str, frozenset[str]] | None = None) -> list[str]:
    """'path:line: what' for every comparison with a game's name and every
    forbidden identifier in the modules under `root`/welcometo_sim outside games/."""
    package = root / "welcometo_sim"
    names = game_names()
    constants = name_constants(package, names)
    forbidden = forbidden_identifiers(names)
    found: list[tuple[str, int, str]] = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where.startswith("welcometo_sim/games/") or where in skip:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        exempt = _shim_nodes(tree, (shims or {}).get(where, frozenset()))
        for node in ast.walk(tree):
            if id(node) in exempt:
                continue
            problem = _problem(node, names, constants, forbidden)
            if problem:
                found.append((where, node.lineno, problem))
    return [f"{where}:{line}: {problem}" for where, line, problem in sorted(found)]


def _problem(node: ast.AST, names: frozenset[str], constants: frozenset[str],
             forbidden: frozenset[str]) -> str | None:
    if isinstance(node, ast.Compare):
        for operand in (node.left, *node.comparators):
            if _mentions_name(operand, names, constants):
                return f"compares with a game's name ({ast.unparse(node)})"
    if isinstance(node, ast.MatchValue) and _mentions_name(node.value, names, constants):
        return f"matches a game's name ({ast.unparse(node.value)})"
    ident = _identifier(node) or _defined_name(node)
    if ident in forbidden:
        return f"{ident}: ask the game's capabilities instead"
    return None


def _mentions_name(node: ast.AST, names: frozenset[str], constants: frozenset[str]) -> bool:
    """A game's name as a literal or a constant, alone or in a tuple, list or set."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_mentions_name(item, names, constants) for item in node.elts)
    return _is_name_literal(node, names) or _identifier(node) in constants


def _is_name_literal(node: ast.AST | None, names: frozenset[str]) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names


def _identifier(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _defined_name(node: ast.AST) -> str | None:
    """The name a def, class or import binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.alias):
        return node.asname or node.name.rpartition(".")[2]
    return None


def _shim_nodes(tree: ast.AST, shims: frozenset[str]) -> set[int]:
    """The ids of every node of the definitions named in `shims` (assignments and defs)."""
    exempt: set[int] = set()
    for node in ast.walk(tree):
        defined = _defined_name(node)
        if isinstance(node, ast.Assign):
            defined = next((_identifier(t) for t in node.targets if _identifier(t) in shims), None)
        if defined in shims:
            exempt.update(id(inner) for inner in ast.walk(node))
    return exempt


def _uses(path: Path, identifier: str) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(_identifier(node) == identifier or _defined_name(node) == identifier for node in ast.walk(tree))


# ------------------------------------------------------------------ the package


def test_no_module_outside_games_compares_a_games_name() -> None:
    assert violations(ROOT, shims=LEGACY_SHIMS) == []


def test_the_skipped_files_exist() -> None:
    assert all((ROOT / where).is_file() for where in NOT_YET_MIGRATED)


def test_every_skipped_file_still_needs_skipping() -> None:
    for where in NOT_YET_MIGRATED:
        others = NOT_YET_MIGRATED - {where}
        assert any(line.startswith(where + ":") for line in violations(ROOT, others, LEGACY_SHIMS)), \
            f"{where} holds no game name: take it out of NOT_YET_MIGRATED"


def test_every_legacy_shim_is_still_used_by_a_skipped_file() -> None:
    unused = [f"{where}: {name}" for where, shim in LEGACY_SHIMS.items() for name in sorted(shim)
              if not any(_uses(ROOT / skipped, name) for skipped in NOT_YET_MIGRATED)]
    assert unused == [], "remove these shims (and their entry in LEGACY_SHIMS)"


def test_both_games_declare_every_capability() -> None:
    from dataclasses import fields

    from welcometo_sim.games import Capabilities, capabilities

    for game in GAMES:
        declared = capabilities(game)
        assert isinstance(declared, Capabilities)
        assert all(getattr(declared, f.name) is not None for f in fields(Capabilities))


# ------------------------------------------------------------------ the checker


def _package(tmp_path: Path, source: str, where: str = "sim/mine.py") -> Path:
    """A root holding welcometo_sim/`where` with `source` and a games/ module naming a game."""
    module = tmp_path / "welcometo_sim" / where
    module.parent.mkdir(parents=True, exist_ok=True)
    module.write_text(source, encoding="utf-8")
    games = tmp_path / "welcometo_sim" / "games" / "mine.py"
    games.parent.mkdir(parents=True, exist_ok=True)
    games.write_text('GAME_NAME = "shake-that-city"\nif GAME_NAME == "welcome-to":\n    pass\n', encoding="utf-8")
    return tmp_path


def test_the_checker_finds_a_literal_name_compared(tmp_path: Path) -> None:
    root = _package(tmp_path, 'def f(spec):\n    return spec.game != "welcome-to"\n')
    assert violations(root, frozenset()) == [
        "welcometo_sim/sim/mine.py:2: compares with a game's name (spec.game != 'welcome-to')"]


def test_the_checker_finds_a_name_constant_and_a_tuple_of_names(tmp_path: Path) -> None:
    root = _package(tmp_path, "from ..games.mine import GAME_NAME\n"
                              "a = game in (GAME_NAME, 'x')\nb = 'shake-that-city' == game\n")
    assert [line.split(":")[1] for line in violations(root, frozenset())] == ["2", "3"]


def test_the_checker_finds_welcome_to_constants_and_require_welcome_to(tmp_path: Path) -> None:
    root = _package(tmp_path, "from ..config import WELCOME_TO\nspec.require_welcome_to('plans')\n")
    assert violations(root, frozenset()) == [
        "welcometo_sim/sim/mine.py:1: WELCOME_TO: ask the game's capabilities instead",
        "welcometo_sim/sim/mine.py:2: require_welcome_to: ask the game's capabilities instead"]


def test_the_checker_leaves_messages_games_and_skipped_files_alone(tmp_path: Path) -> None:
    root = _package(tmp_path, '"""Plays welcome-to."""\nMESSAGE = "not a welcome-to record"\n'
                              'TABLES = {"welcome-to": 1}\nok = spec.capabilities.trainable\n')
    _package(tmp_path, 'x = game == "welcome-to"\n', "analyses.py")
    assert violations(root, frozenset({"welcometo_sim/analyses.py"})) == []


def test_the_checker_exempts_only_the_named_shims(tmp_path: Path) -> None:
    root = _package(tmp_path, 'WELCOME_TO = DEFAULT\n\ndef require_welcome_to(spec):\n'
                              '    return spec.game == "welcome-to"\n\nok = game == "shake-that-city"\n', "config.py")
    shims = {"welcometo_sim/config.py": frozenset({"WELCOME_TO", "require_welcome_to"})}
    assert [line.split(":")[1] for line in violations(root, frozenset(), shims)] == ["6"]
