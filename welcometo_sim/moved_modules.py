"""Old module names kept importable after their modules moved, so that
strategies, configs and notebooks written against them keep working.

An old name is the new module itself, not a copy (the module is registered
under both names), so isinstance checks and patches agree whichever path is
used. It is imported when its old name first is, with a DeprecationWarning
naming the new one. A package whose modules moved installs one
:class:`MovedModules` for its own names; where an old name leads is asked
when it is imported (`new_name` is a function), so that the package need
not know who declares the moves.

This module imports only the standard library.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType
from typing import Callable


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old name under `package` as the module it moved to:
    `new_name(old)` is the new dotted name, or None for a name that did not move."""

    def __init__(self, package: str, new_name: Callable[[str], str | None]) -> None:
        self.package = package
        self.new_name = new_name
        self.specs: dict[str, object] = {}

    def find_spec(self, fullname, path=None, target=None):
        new = self.new_name(fullname) if fullname.startswith(self.package + ".") else None
        if new is None:
            return None
        spec = importlib.util.spec_from_loader(fullname, self)
        spec.loader_state = new
        return spec

    def create_module(self, spec):
        warnings.warn(f"{spec.name} is deprecated: import {spec.loader_state}", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(spec.loader_state)
        self.specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has set the module's __spec__ to the old name's:
        # give the module its own back (it is registered under both names).
        module.__spec__ = self.specs[module.__name__]


def install(finder: MovedModules, *, first: bool) -> None:
    """Puts `finder` on `sys.meta_path`, once per package (importing the package
    again adds none). `first`: ahead of every other finder, so that a file an
    older build left at an old name never loads; otherwise last, so that
    `new_name` is only asked about names no module file answers."""
    if any(isinstance(other, MovedModules) and other.package == finder.package for other in sys.meta_path):
        return
    if first:
        sys.meta_path.insert(0, finder)
    else:
        sys.meta_path.append(finder)
