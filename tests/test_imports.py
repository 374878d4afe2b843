"""The package imports in any order: no module imports one that imports it
back half-initialised, and importing the package or a strategy does not load
the tables' dependencies (pandas), which only `run` and `analysis` need."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

ORDERS = [
    ["import welcometo_sim", "import strategies", "from welcometo_sim import run"],
    ["import strategies", "from welcometo_sim import run", "import welcometo_sim"],
    ["from welcometo_sim import run", "import strategies.greedy", "import welcometo_sim.analysis"],
    ["import strategies.greedy", "import welcometo_sim.analysis", "import welcometo_sim.evaluation"],
    ["import welcometo_sim.config", "import strategies", "import welcometo_sim.api"],
    ["import welcometo_sim.strategy", "import welcometo_sim.games.welcome_to", "import welcometo_sim"],
    ["import welcometo_sim.evaluation", "import strategies.heuristic", "from welcometo_sim import analysis"],
    ["import welcometo_sim.games.welcome_to.sheet", "import welcometo_sim.config", "import strategies"],
    ["import welcometo_sim.games.records", "import welcometo_sim.games.welcome_to", "import welcometo_sim.sim.rows"],
    ["import welcometo_sim.player_entries", "import welcometo_sim.games.shake_that_city", "import welcometo_sim.api"],
    ["import welcometo_sim.rules.game", "import welcometo_sim.games.seeding", "import welcometo_sim.games.kit"],
]


def run_python(code: str) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter started in the repository."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("order", ORDERS, ids=lambda order: " / ".join(s.split()[-1] for s in order))
def test_modules_import_in_any_order(order):
    """Each order in a fresh process, then the public names: `run` is the
    library entry point and `analysis` the tables, whichever came first."""
    code = "\n".join([*order, "import welcometo_sim",
                      "assert callable(welcometo_sim.run) and welcometo_sim.run.__module__ == 'welcometo_sim.api'",
                      "assert welcometo_sim.analysis.summary_tables",
                      "import strategies; assert 'greedy' in strategies.BUILTIN"])
    done = run_python(code)
    assert done.returncode == 0, done.stderr


def test_the_package_and_a_strategy_import_without_pandas():
    code = ("import sys, welcometo_sim, strategies.greedy\n"
            "assert 'pandas' not in sys.modules, 'pandas'\n"
            "assert 'welcometo_sim.api' not in sys.modules, 'api'\n"
            "print(sorted(welcometo_sim.__all__))")
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['__version__',", "'analysis',", "'balance',", "'compare',", "'plans',",
                                   "'run',", "'sweep',", "'tune']"]


def test_an_unknown_attribute_is_an_attribute_error():
    import welcometo_sim

    with pytest.raises(AttributeError, match="no_such_name"):
        welcometo_sim.no_such_name  # noqa: B018
    assert {"run", "analysis", "__version__"} <= set(dir(welcometo_sim))


def test_the_evaluation_path_of_custom_strategies_names_the_same_objects():
    """`welcometo_sim.evaluation` (the path custom strategies import) re-exports
    Welcome To's strategy toolkit, whose parts live in `games.welcome_to.evaluation`: the
    same classes, so isinstance checks and caches agree whichever path is used."""
    from welcometo_sim import evaluation
    from welcometo_sim.compiled_core import FORMER_CORE_MODULES
    from welcometo_sim.games.welcome_to import evaluation as toolkit
    from welcometo_sim.games.welcome_to.evaluation import moves, outlook, streets, terms

    assert evaluation.__all__ == toolkit.__all__ and len(toolkit.__all__) >= 30
    for name in toolkit.__all__:
        assert getattr(evaluation, name) is getattr(toolkit, name), name
    assert evaluation.MoveEvaluator is moves.MoveEvaluator and evaluation.Coverage is outlook.Coverage
    assert evaluation.Terms is terms.Terms and evaluation.street_gaps is streets.street_gaps
    assert "welcometo_sim.evaluation" in FORMER_CORE_MODULES and evaluation.__file__.endswith("evaluation.py")


def test_the_registry_reads_welcome_to_from_its_package_whatever_was_imported_first():
    """The package hands out its registration's names on first use, and the
    registry's `replay` stays the game's function once the engine's
    `record_replay` module is loaded too."""
    code = ("import welcometo_sim.games.welcome_to.record_replay as engine_replay\n"
            "import welcometo_sim.games.welcome_to as package\n"
            "from welcometo_sim.games import load_game\n"
            "from welcometo_sim.games.welcome_to import registration\n"
            "game = load_game('welcome-to')\n"
            "assert package.replay is registration.replay and callable(package.replay)\n"
            "assert package.CAPABILITIES is registration.CAPABILITIES\n"
            "assert package.OBJECTIVES == 'welcometo_sim.games.welcome_to.objectives:OBJECTIVES'\n"
            "assert 'greedy' in package.STRATEGIES and engine_replay.verify\n"
            "result = game.play(['random', 'random'], 7)\n"
            "assert game.replay(result.record)\n")
    done = run_python(code)
    assert done.returncode == 0, done.stderr


def test_the_old_rules_paths_are_the_moved_modules_with_a_deprecation_warning():
    """`welcometo_sim.rules.X` (deprecated) is the module that moved, not a
    copy: the same classes under both names."""
    code = ("import importlib, sys, warnings\n"
            "from welcometo_sim.rules import MOVED\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always')\n"
            "    import welcometo_sim.rules.plans\n"
            "assert [(w.category, w.filename) for w in caught] == [(DeprecationWarning, '<string>')], caught\n"
            "for old, new in MOVED.items():\n"
            "    with warnings.catch_warnings(record=True) as caught:\n"
            "        warnings.simplefilter('always')\n"
            "        module = importlib.import_module(old)\n"
            "    assert module is sys.modules[new] and module.__spec__.name == new, old\n"
            "    if old != 'welcometo_sim.rules.plans':\n"
            "        assert [str(w.message) for w in caught] == [f'{old} is deprecated: import {new}'], caught\n"
            "warnings.simplefilter('ignore')\n"
            "from welcometo_sim.rules.sheet import Sheet\n"
            "from welcometo_sim.rules import evaluation, replay\n"
            "from welcometo_sim.rules.evaluation.moves import MoveEvaluator\n"
            "import welcometo_sim.games.welcome_to.sheet as sheet, welcometo_sim.games.welcome_to.evaluation as toolkit\n"
            "assert Sheet is sheet.Sheet and evaluation is toolkit and MoveEvaluator is toolkit.MoveEvaluator\n"
            "assert replay.__name__ == 'welcometo_sim.games.welcome_to.record_replay'\n"
            "print(len(MOVED))")
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == 21
