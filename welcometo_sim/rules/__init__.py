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

from ..moved_modules import MovedModules, install

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


install(MovedModules(__name__, MOVED.get), first=True)  # ahead of any compiled file an older build left here
