"""welcometo_sim: a tournament simulator for the board game Welcome To…

`run()` plays a config and returns the result table; `analysis` makes the
tables; `strategy` is the API for writing players.
"""

__version__ = "0.1.0"

from .compiled_core import select_core  # noqa: E402

select_core()  # before any engine module is imported

from . import analysis  # noqa: E402
from .api import run  # noqa: E402

__all__ = ["run", "analysis", "__version__"]
