"""The optional compiled core: the same games as the Python engine, and never
a compiled module that is older than its source."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from welcometo_sim import compiled_core
from welcometo_sim.compiled_core import (CORE_MODULES, PACKAGE_ROOT, manifest_name, modules_from_source,
                                         pure_python_requested, read_manifest, source_digest)

GAMES_DIGEST = """
import hashlib, json
from welcometo_sim.compiled_core import engine
from welcometo_sim.games.welcome_to.game import Seat, play_game
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

digest = hashlib.sha256()
variants = [({}, 1), ({}, 4), ({"solo": True}, 1), ({"advanced": True}, 3), ({"expert": True}, 3),
            ({"board": "ice-cream"}, 2), ({"board": "christmas"}, 2), ({"board": "easter"}, 2)]
for strategy, games in (("random", 12), ("greedy", 3), ("heuristic", 2)):
    spec = parse_strategy(strategy)
    for options, players in variants:
        seats = [Seat(f"p{i}", strategy, spec) for i in range(players)]
        for seed in range(games):
            record = play_game(Variant(**options), seats, seed, record=True).record
            digest.update(json.dumps(record, sort_keys=True).encode())
print(engine())
print(digest.hexdigest())
"""
"""Prints the engine, then a digest of the records of random, greedy and
heuristic games in every variant and board."""


def run_python(code: str, pure: bool, path: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, compiled_core.PURE_PYTHON_VARIABLE: "1" if pure else "0"}
    if path is not None:
        env["PYTHONPATH"] = str(path)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          cwd=path or PACKAGE_ROOT, timeout=600)


REQUIRE_COMPILED = "WTSIM_REQUIRE_COMPILED"
"""Set (CI does) to make a missing compiled core fail these tests instead of skipping them."""


def needs_compiled_core(test):
    """Run `test` only where the install has a compiled core; fail without one
    when REQUIRE_COMPILED is set."""
    def checked(*args, **kwargs):
        if not read_manifest():
            if os.environ.get(REQUIRE_COMPILED):
                pytest.fail(f"no compiled core in this install, and {REQUIRE_COMPILED} is set")
            pytest.skip("no compiled core in this install (built without Cython or a C compiler)")
        return test(*args, **kwargs)
    return functools.wraps(test)(checked)


@pytest.mark.parametrize("value, requested", [("", False), ("0", False), (" 0 ", False), ("1", True),
                                               ("yes", True)])
def test_pure_python_is_asked_for_by_any_value_but_empty_or_zero(value, requested):
    assert pure_python_requested({compiled_core.PURE_PYTHON_VARIABLE: value}) is requested
    assert pure_python_requested({}) is False


def write_sources(root: Path) -> dict[str, str]:
    """A source file for every core module under `root`; returns their digests."""
    digests = {}
    for module in CORE_MODULES:
        path = compiled_core.source_path(module, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"NAME = {module!r}\n")
        digests[module] = source_digest(path)
    return digests


def test_only_modules_compiled_from_their_present_source_run_compiled(tmp_path):
    manifest = write_sources(tmp_path)
    assert modules_from_source(manifest, tmp_path) == ([], [])

    changed, not_built = "welcometo_sim.games.welcome_to.sheet", "welcometo_sim.strategies.greedy"
    compiled_core.source_path(changed, tmp_path).write_text("NAME = 'edited'\n")
    del manifest[not_built]
    from_source, stale = modules_from_source(manifest, tmp_path)
    assert sorted(from_source) == sorted([changed, not_built])
    assert stale == [changed]


def test_asking_for_pure_python_loads_every_core_module_from_source(tmp_path):
    manifest = write_sources(tmp_path)
    assert modules_from_source(manifest, tmp_path, pure_python=True) == (list(CORE_MODULES), [])


def test_a_missing_or_broken_manifest_means_nothing_was_compiled(tmp_path):
    assert read_manifest(tmp_path) == {}
    (tmp_path / "welcometo_sim").mkdir()
    (tmp_path / "welcometo_sim" / manifest_name()).write_text("[not a manifest")
    assert read_manifest(tmp_path) == {}
    assert modules_from_source({}, tmp_path)[0] == list(CORE_MODULES)


def test_the_pure_python_engine_runs_every_core_module_from_its_source():
    done = run_python("from welcometo_sim.compiled_core import CORE_MODULES, engine\n"
                      "import importlib\n"
                      "print(engine())\n"
                      "print(all(importlib.import_module(m).__file__.endswith('.py') for m in CORE_MODULES))",
                      pure=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["pure Python", "True"]


@needs_compiled_core
def test_compiled_and_pure_python_engines_play_the_same_games():
    compiled, pure = run_python(GAMES_DIGEST, pure=False), run_python(GAMES_DIGEST, pure=True)
    assert compiled.returncode == 0, compiled.stderr
    assert pure.returncode == 0, pure.stderr
    compiled_engine, compiled_digest = compiled.stdout.split()[0], compiled.stdout.split()[-1]
    assert compiled_engine == "compiled"
    assert pure.stdout.startswith("pure Python\n")
    assert compiled_digest == pure.stdout.split()[-1]


def copy_with_edit(root: Path, module: str) -> None:
    """The installed packages, compiled files included, copied under `root`,
    with a line added to `module`'s source."""
    for package in ("welcometo_sim", "strategies"):
        shutil.copytree(PACKAGE_ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    edited = compiled_core.source_path(module, root)
    edited.write_text(edited.read_text() + "\nEDITED = True\n")


@needs_compiled_core
def test_an_edited_source_runs_instead_of_its_stale_compiled_module(tmp_path):
    copy_with_edit(tmp_path, "welcometo_sim.games.welcome_to.scoring")

    done = run_python("from welcometo_sim.compiled_core import engine\n"
                      "import welcometo_sim.games.welcome_to.scoring as scoring\n"
                      "import welcometo_sim.games.welcome_to.sheet as sheet\n"
                      "print(engine()); print(scoring.EDITED, scoring.__file__.endswith('.py'))\n"
                      "print(sheet.__file__.endswith('.py'))", pure=False, path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == [f"partly compiled ({len(CORE_MODULES) - 1} of {len(CORE_MODULES)} modules)",
                                           "True True", "False"]
    assert "StaleCoreWarning: compiled welcometo_sim.games.welcome_to.scoring" in done.stderr


def test_the_version_says_which_engine_runs():
    from click.testing import CliRunner

    from welcometo_sim import __version__
    from welcometo_sim.cli import cli

    shown = CliRunner().invoke(cli, ["--version"])
    assert shown.exit_code == 0
    from welcometo_sim.native import native_summary

    assert shown.output == f"wtsim, version {__version__} ({compiled_core.engine()} engine, {native_summary()})\n"


@needs_compiled_core
def test_an_edited_strategy_imported_before_the_package_runs_from_source(tmp_path):
    copy_with_edit(tmp_path, "welcometo_sim.strategies.greedy")
    done = run_python("import strategies.greedy as greedy\n"
                      "print(greedy.EDITED, greedy.__file__.endswith('.py'), greedy.__name__)", pure=False, path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True True welcometo_sim.strategies.greedy\n"
    assert "StaleCoreWarning: compiled welcometo_sim.strategies.greedy" in done.stderr
