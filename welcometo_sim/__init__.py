"""welcometo_sim: a tournament simulator for the board game Welcome To…

`run()` plays a config and returns the result table; `compare()`, `plans()`,
`sweep()`, `tune()` and `balance()` are the analyses of `wtsim` as DataFrames;
`analysis` makes the tables; `strategy` is the API for writing players.

`run` and `analysis` load on first use: importing the package (as every
strategy module and worker process does) only chooses the compiled or source
core, so no module the package imports can import it back half-initialised,
and a strategy does not pay for pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from .compiled_core import select_core  # noqa: E402

select_core()  # before any engine module is imported

__all__ = ["run", "compare", "plans", "sweep", "tune", "balance", "analysis", "__version__"]

_LAZY = {"run": ("welcometo_sim.api", "run"), "analysis": ("welcometo_sim.analysis", None),
         **{name: ("welcometo_sim.analyses", name) for name in ("compare", "plans", "sweep", "tune", "balance")}}
"""Public names loaded on first access: name -> (module, attribute or None for the module)."""


def __getattr__(name: str) -> Any:
    """`welcometo_sim.run`, the analyses and `welcometo_sim.analysis`, imported when first used."""
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'welcometo_sim' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
