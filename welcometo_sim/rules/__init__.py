"""Deprecated: the old home of Welcome To…'s rules, kept so that strategies
and notebooks written against it keep working.

The engine is `welcometo_sim.games.welcome_to` now (`...rules.sheet` is
`welcometo_sim.games.welcome_to.sheet`, `...rules.replay` is
`welcometo_sim.games.welcome_to.record_replay`), and the two modules both
games use are `welcometo_sim.games.seeding` and
`welcometo_sim.games.record_format`. Each old name (`MOVED`) is the new
module itself, not a copy: ``welcometo_sim.rules.sheet.Sheet is
welcometo_sim.games.welcome_to.sheet.Sheet``, so isinstance checks and
patches agree whichever path is used. A module is imported when its old name
first is, with a DeprecationWarning naming the new one.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

_GAME = "welcometo_sim.games.welcome_to"

MOVED: dict[str, str] = {
    **{f"{__name__}.{name}": f"{_GAME}.{name}"
       for name in ("boards", "cards", "data", "deal_check", "effects", "game", "overrides", "plans", "scoring",
                    "sheet", "variant", "evaluation", "evaluation.fences", "evaluation.moves", "evaluation.outlook",
                    "evaluation.plan_progress", "evaluation.streets", "evaluation.terms")},
    f"{__name__}.replay": f"{_GAME}.record_replay",
    f"{__name__}.seeding": "welcometo_sim.games.seeding",
    f"{__name__}.record_format": "welcometo_sim.games.record_format",
}
"""Old module name -> the module it is now."""


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old name as the module it moved to. First on `sys.meta_path`,
    so that a compiled file an older build left in this folder never loads."""

    def __init__(self) -> None:
        self.specs: dict[str, object] = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        warnings.warn(f"{spec.name} is deprecated: import {MOVED[spec.name]}", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(MOVED[spec.name])
        self.specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has set the module's __spec__ to the old name's:
        # give the module its own back (it is registered under both names).
        module.__spec__ = self.specs[module.__name__]


if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
    sys.meta_path.insert(0, MovedModules())
