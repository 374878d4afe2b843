"""Built-in strategies for welcometo_sim, one module each.

Installed as ``welcometo_sim.strategies``: a top-level ``strategies`` package
would collide with other projects'. Inside the repository, where this folder
is on the path, ``import strategies`` and ``strategies.greedy:GreedyStrategy``
keep working and name the same module objects (see `_alias_this_package`).

`BUILTIN` maps each registered name to its 'module:Class'; installed packages
add names through the entry-point group ``welcometo_sim.strategies``.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

INSTALLED_NAME = "welcometo_sim.strategies"

BUILTIN: dict[str, str] = {
    "random": f"{INSTALLED_NAME}.random:RandomStrategy",
    "greedy": f"{INSTALLED_NAME}.greedy:GreedyStrategy",
    "heuristic": f"{INSTALLED_NAME}.heuristic:HeuristicStrategy",
    "planner": f"{INSTALLED_NAME}.planner:PlannerStrategy",
    "specialist": f"{INSTALLED_NAME}.specialist:SpecialistStrategy",
    "safe": f"{INSTALLED_NAME}.safe:SafeStrategy",
    "lookahead": f"{INSTALLED_NAME}.lookahead:LookaheadStrategy",
    "learned": f"{INSTALLED_NAME}.learned:LearnedStrategy",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``strategies.x`` as the module ``welcometo_sim.strategies.x``
    itself (not a second copy of its file), so classes, caches and isinstance
    checks are the same whichever name a caller uses."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(self.old + "."):
            return None
        if importlib.util.find_spec(self.new + fullname[len(self.old):]) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(self.new + spec.name[len(self.old):])
        spec.loader_state = module.__spec__  # the import system sets __spec__ to the alias's: put it back
        return module

    def exec_module(self, module) -> None:
        module.__spec__ = module.__spec__.loader_state


def _alias_this_package() -> None:
    """Imported under its repository folder's name: make that name the
    installed package, and its submodules the installed ones."""
    installed = importlib.import_module(INSTALLED_NAME)
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Alias(__name__, INSTALLED_NAME))
    sys.modules[__name__] = installed


if __name__ == INSTALLED_NAME:
    import welcometo_sim  # noqa: F401  (chooses compiled or source core modules before any strategy loads)
else:
    _alias_this_package()
