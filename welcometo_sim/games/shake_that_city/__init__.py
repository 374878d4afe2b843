"""Shake That City: a roll-and-place city-building game (rules: seed 001).

Entry points: :func:`play_game`, :func:`replay`, :func:`load_rules` and the
strategy API in :mod:`.strategies`; :data:`GAME` is the object the game
registry (`welcometo_sim.games`) hands out.
"""

from __future__ import annotations

from .board import Board, Layout, Move
from .data import BUILDINGS, DataError, load_data
from .game import (GAME_NAME, GameResult, GameState, ReplayError, Rules, StrategyError, Variant,
                   boards_at, load_rules, play_game, render, replay)
from .scoring import CATEGORIES, Score, score
from .strategies import STRATEGIES, Strategy
from .. import Capabilities, GameRefusal, load_game
from ..config import parse_game, strategy_lookup
from ...player_entries import parse_player_entries

RESULT_COLUMNS: tuple[str, ...] = (
    "seed", "seat", "player", "strategy", "n_players", "side", "family", "construction", "solo",
    "wild_nights", "total", "rank", "won", *CATEGORIES, "flipped", "empty_cells",
    "construction_left", "qualified", "passes",
)
"""The columns of a result row, in table order."""
TEXT_COLUMNS = ("player", "strategy", "side")
BOOL_COLUMNS = ("family", "construction", "solo", "wild_nights", "won", "qualified")
COLUMN_DTYPES: dict[str, str] = {c: "str" if c in TEXT_COLUMNS else "bool" if c in BOOL_COLUMNS
                                 else "int64" for c in RESULT_COLUMNS}
"""The pandas dtype of every result column (for tables of many games)."""
ENVIRONMENT = "welcometo_sim.games.shake_that_city.env:ShakeThatCityEnv"
"""The PettingZoo AEC environment (the rl extra)."""
OBJECTIVES = "welcometo_sim.games.shake_that_city.objectives:OBJECTIVES"
"""The objectives capability (see welcometo_sim.games.objectives), loaded by
the commands that balance them (it plays games through the runner)."""
LEARNING = "welcometo_sim.games.shake_that_city.training:LEARNING"
"""What `wtsim train` plays and saves (see welcometo_sim.learning.train)."""



def sweep_measures(frame, rows, games) -> dict:
    """Shake That City's measures of a sweep's grid point (see
    welcometo_sim.analysis.sweep), per player-game: each score category, the
    flipped bonus tiles, the empty cells, the rounds passed, and with the
    construction tiles the share of seats that cleared them all."""
    measures = {f"{category} per player-game": ("mean", rows[category].astype(float)) for category in CATEGORIES}
    measures["bonus tiles flipped per player-game"] = ("mean", rows["flipped"].astype(float))
    measures["empty cells per player-game"] = ("mean", rows["empty_cells"].astype(float))
    measures["rounds passed per player-game"] = ("mean", rows["passes"].astype(float))
    if rows["construction"].any():
        measures["qualified (construction cleared)"] = ("rate", rows["qualified"].astype(float))
    return measures


def new_state(rules: Rules, n_players: int, seed: int) -> GameState:
    """A game with these rules at its start, to step (see welcometo_sim.games.contract)."""
    return GameState(rules, n_players, seed)


# ------------------------------------------------------------------ capabilities
def _read_config(raw: dict, where: str, base_dir=None) -> dict:
    """The RunSpec fields of a config's players and its `{variant, overrides}`, checked by the game."""
    players, params = parse_game(GAME_NAME, raw, where, base_dir)
    return {"players": players, "game_params": params}


def _config_section(spec) -> dict:
    """The `variant` and `overrides` a run of this game writes back, as its config gave them."""
    params = spec.game_params or {}
    return {"variant": dict(params.get("variant") or {}), "overrides": params.get("overrides") or None}


def _strategy_class(ref: str) -> type:
    """A strategy of this game by its registered name."""
    if ref not in STRATEGIES:
        raise GameRefusal(f"unknown {GAME_NAME} strategy {ref!r} (strategies: {', '.join(STRATEGIES)})")
    return STRATEGIES[ref]


def _strategy_params(cls: type, params: dict) -> dict:
    """The strategy's defaults overlaid with `params`, as the strategy checks them."""
    try:
        return dict(cls(None, params).params)
    except (ValueError, TypeError) as exc:
        raise GameRefusal(str(exc)) from None


def _variant_label(row) -> str:
    """'shake-that-city, 2 players' from a result row."""
    return f"{GAME_NAME}, {int(row['n_players'])} players" if "n_players" in row.index else GAME_NAME


STRATEGY_LOOKUP = strategy_lookup(GAME_NAME, STRATEGIES)
"""Its strategies as the player-entry parser (welcometo_sim.player_entries) looks them
up: the registered names of STRATEGIES only."""


CAPABILITIES = Capabilities(
    title="Shake That City",
    read_config=_read_config,
    config_section=_config_section,
    parse_players=lambda entries, where, base_dir=None: parse_player_entries(entries, where, STRATEGY_LOOKUP,
                                                                             base_dir),
    check_seats=lambda spec, n: load_game(GAME_NAME, spec.game_params or {}, n),
    strategy_class=_strategy_class,
    strategy_params=_strategy_params,
    variant_label=_variant_label,
    viewer="welcometo_sim.games.shake_that_city.replay_view:shake_view",
    trainable=True,
)
"""What the machinery asks of Shake That City (see welcometo_sim.games.Capabilities)."""


__all__ = ["CAPABILITIES", "STRATEGY_LOOKUP", "BUILDINGS", "OBJECTIVES", "ENVIRONMENT", "GameState", "new_state", "sweep_measures", "Board", "CATEGORIES", "COLUMN_DTYPES", "DataError", "GAME_NAME", "GameResult", "Layout",
           "Move", "RESULT_COLUMNS", "ReplayError", "Rules", "STRATEGIES", "Score", "Strategy",
           "StrategyError", "Variant", "load_data", "load_rules", "boards_at", "play_game", "render", "replay", "score"]


ENV_EXPORTS: dict[str, str] = {"ShakeThatCityEnv": ENVIRONMENT}
"""The names `welcometo_sim.envs` hands out for Shake That City (name -> ``module:attribute``)."""
MOVED_MODULES: dict[str, str] = {"welcometo_sim.envs.city": "welcometo_sim.games.shake_that_city.env"}
"""The old name of its environment module, deprecated (see welcometo_sim.moved_modules)."""


def record_turns(record) -> int | None:
    """How many rounds a record lists (None when its `rounds` is no list):
    `wtsim show --turn` takes 0 to this."""
    rounds = record.get("rounds")
    return len(rounds) if isinstance(rounds, list) else None
