"""Welcome To…: the game's engine and its place in the game registry, the
same parts as Shake That City's package.

The engine, pure Python with no I/O (compiled where a C compiler is at hand):
`data` (every table), `sheet`, `effects`, `plans`, `scoring`, `cards`,
`boards`, `variant`, `overrides`, `game` (the steppable `GameState` and the
driver that asks strategies), `deal_check` and `record_replay` (records
replayed and checked), and `evaluation/`, the strategy toolkit. `objectives`
is its city plans for `wtsim plans` and `balance`; `env/` is the game for
learning agents (its environments, the observation encoding and the strategy
that seats a trained policy), whose names `welcometo_sim.envs` hands out
(`ENV_EXPORTS`); `replay_view` is a record as `wtsim show` shows it (as text,
and as the replay viewer's page).

What the registry (`welcometo_sim.games`, ``"welcome-to"``) reads of a game
(`load_rules`, `play_game`, `replay`, `render`, `new_state`,
`RESULT_COLUMNS`, `COLUMN_DTYPES`, `CATEGORIES`, `STRATEGIES`, `ENVIRONMENT`,
`OBJECTIVES`, `LEARNING`, `sweep_measures`, `CAPABILITIES`) is defined in
`registration` and read from there on first use. The registration stands on
the config layer, the runner's rows and the strategy loader, which all
import the engine; were it run by this ``__init__``, which Python runs before
any engine module, importing one of those first (``import
welcometo_sim.config``) would import it back half-initialised. What `wtsim
show`, `verify` and `sweep --set` completion read of a game
(`record_problems`, `record_turns`, `record_text`, `sweep_keys`) is defined
beside the code it stands on (`ELSEWHERE`) and read from there on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

REGISTRATION = f"{__name__}.registration"
"""The module that defines the game's registry names."""

REGISTERED = frozenset({
    "GAME_NAME", "RESULT_COLUMNS", "COLUMN_DTYPES", "CATEGORIES", "ENVIRONMENT", "OBJECTIVES", "LEARNING",
    "CAPABILITIES", "STRATEGIES", "Rules", "Result", "load_rules", "play_game", "new_state", "replay", "render",
    "sweep_measures", "play_run_game", "prepare_chunk", "OVERRIDE_KEYS",
})
"""The registry names read from `REGISTRATION`; `STRATEGIES` is built
again at every access, as the registration does (installed entry points are
looked up then)."""


_ENV = f"{__name__}.env"

ENV_EXPORTS: dict[str, str] = {
    "WelcomeToEnv": f"{_ENV}.aec:WelcomeToEnv",
    "SoloEnv": f"{_ENV}.solo:SoloEnv",
    **{name: f"{_ENV}.policy:{name}" for name in ("DecidingStrategy", "PolicyStrategy", "load_policy")},
    **{name: f"{_ENV}.encoding:{name}" for name in ("STEPS", "Decision", "Layout", "encode", "first_legal",
                                                     "layout_for")},
}
"""The names `welcometo_sim.envs` hands out for this game (name ->
``module:attribute``): its environments (the rl extra), and the encoding and
strategies a trained policy plays with (numpy only). Defined here, not in
`REGISTRATION`, which loads the runner's tables (pandas): a strategy that
seats a policy loads no more than the policy needs."""
MOVED_MODULES: dict[str, str] = {f"welcometo_sim.envs.{name}": f"{_ENV}.{name}"
                                 for name in ("aec", "encoding", "policy", "session", "solo")}
"""The old names of its environment modules, kept importable, deprecated
(see welcometo_sim.moved_modules)."""

ELSEWHERE: dict[str, str] = {
    "record_problems": f"{__name__}.record_replay:disagreements",
    "record_turns": f"{__name__}.record_replay:record_turns",
    "record_text": f"{__name__}.replay_view:record_text",
    "sweep_keys": f"{__name__}.overrides:sweep_keys",
}
"""Registry names defined in the module they stand on (name ->
``module:attribute``), loaded only by the command that asks for them:
`verify` and `show --turn` stand on the replay, `show`'s text also on the
printed width of the analysis package, `sweep --set` completion on the data
tables."""


def __getattr__(name: str) -> Any:
    if name in ELSEWHERE:
        module, _, attribute = ELSEWHERE[name].partition(":")
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value
        return value
    if name not in REGISTERED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(REGISTRATION), name)
    if name != "STRATEGIES":
        globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *REGISTERED, *ELSEWHERE})
