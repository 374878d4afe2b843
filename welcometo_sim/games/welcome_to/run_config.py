"""Welcome To's keys of a run config: `variant:` (the rules and the fixed
plans), `overrides:` (changed tables) and `players:` (its strategies).

The run config's other keys (name, games, seed, jobs, ...) are the
machinery's (welcometo_sim.config); it hands these three to the game through
`Capabilities.read_config` and keeps what comes back in the RunSpec:
`players` and `game_params`, the `{variant, overrides}` mapping in the form a
config writes it, from which `load_rules` makes the checked `Rules` the run
plays (`RunSpec.rules`).
"""

from __future__ import annotations

import os
from typing import Any

from ...config_files import ConfigError, PlayerConfig
from ...messages import key_label, shown
from ...player_entries import StrategyLookup, parse_player_entries
from ...strategy import StrategySpec, builtin_strategies, load_strategy
from ..config import other_game_of
from .data import BOARDS
from .overrides import OverrideError
from .variant import Variant, VariantError

GAME_NAME = "welcome-to"
VARIANT_KEYS = {"advanced", "expert", "solo", "board", "plans"}


def parse_variant(raw: Any, where: str, overrides: Any = None) -> tuple[Variant, tuple[str | None, ...]]:
    """A config's `variant:` mapping (with its `overrides:`, which may change
    the plans) as a checked Variant and the plans it fixes (None: drawn from
    the seed); also how `load_game("welcome-to", ...)` reads its parameters."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: variant: must be a mapping")
    for key in raw:
        if key not in VARIANT_KEYS:
            raise ConfigError(f"{where}: variant.{key_label(key)}: unknown key "
                              f"(known: {', '.join(sorted(VARIANT_KEYS))})")
    flags = {}
    for key in ("advanced", "expert", "solo"):
        value = raw.get(key, False)
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: variant.{key}: must be true or false, got {shown(value)}")
        flags[key] = value
    board = raw.get("board", "base")
    if isinstance(board, list):
        raise ConfigError(f"{where}: variant.board: one board per game, got {len(board)}")
    if not isinstance(board, str) or board not in BOARDS:
        raise ConfigError(f"{where}: variant.board: unknown board {shown(board)} (known: {', '.join(BOARDS)})")
    try:
        variant = Variant.with_overrides(overrides, board=board, **flags)
    except OverrideError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    plans = _parse_plans(raw.get("plans"), variant, where)
    return variant, plans


def _parse_plans(raw: Any, variant: Variant, where: str) -> tuple[str | None, ...]:
    """Fixed plan ids per deck (null: drawn at random), checked against the decks."""
    if raw is None:
        return (None, None, None)
    if not isinstance(raw, list) or len(raw) != 3:
        raise ConfigError(f"{where}: variant.plans: must be a list of 3 plan ids (null for random)")
    for deck, plan_id in enumerate(raw, start=1):
        if plan_id is None:
            continue
        ids = [p.id for p in variant.plan_deck(deck)]
        if plan_id not in ids:
            raise ConfigError(
                f"{where}: variant.plans[{deck - 1}]: {shown(plan_id)} is not a plan of deck {deck} "
                f"(known: {', '.join(ids)})"
            )
    return tuple(raw)


def params_of(variant: Variant, plans: tuple[str | None, ...]) -> dict[str, Any]:
    """The `{variant, overrides}` mapping of checked rules, as a config writes them
    (and as `RunSpec.game_params` keeps them)."""
    return {"variant": {k: v for k, v in variant.to_record().items() if k != "overrides"} | {"plans": list(plans)},
            "overrides": variant.overrides or None}


def read_variant_config(raw: dict, where: str, base_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """The RunSpec fields of a config's `players`, `variant` and `overrides`:
    the players and the game's parameters, checked."""
    variant, plans = parse_variant(raw.get("variant", {}), where, raw.get("overrides"))
    players = parse_players(raw.get("players"), where, base_dir)
    try:
        variant.check(len(players))
    except VariantError as exc:
        raise ConfigError(f"{where}: variant: {exc}") from None
    return {"players": players, "game_params": params_of(variant, plans)}


def variant_config_section(spec: Any) -> dict[str, Any]:
    """The `variant` and `overrides` keys of a RunSpec read by :func:`read_variant_config`."""
    return params_of(spec.rules.variant, spec.rules.plans)


def _strategy(ref: str, params: dict) -> StrategySpec:
    """A Welcome To seat's strategy, its parameters checked now (not in a worker)."""
    spec = StrategySpec(ref, params)
    spec.validate()
    return spec


STRATEGY_LOOKUP = StrategyLookup(
    game=GAME_NAME,
    builtins=lambda: dict(sorted(builtin_strategies().items())),
    make=_strategy,
    resolve=load_strategy,
    elsewhere=lambda ref: other_game_of(ref, GAME_NAME),
)
"""Welcome To's strategies as the player-entry parser looks them up: its built-ins
and installed entry points, and any `module:Class` or `file.py:Class` reference."""


def parse_players(raw: Any, where: str, base_dir: str | os.PathLike | None = None) -> tuple[PlayerConfig, ...]:
    """A Welcome To config's `players:` list (entries: a strategy reference, or a
    mapping of PLAYER_KEYS) as PlayerConfigs with unique names; a problem is one
    ConfigError line (see welcometo_sim.player_entries)."""
    return parse_player_entries(raw, where, STRATEGY_LOOKUP, base_dir)
