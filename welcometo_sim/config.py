"""Run configurations: the YAML schema, its defaults, and one-line errors.

A config file looks like::

    name: base
    games: 1000
    seed: 1
    jobs: 1
    variant: {advanced: false, expert: false, solo: false, board: base}
    players:
      - strategy: greedy
        name: greedy-a
        params: {weights: {flexibility: 2.0}}
      - strategy: random

Every problem is reported as one :class:`ConfigError` line naming the file and
the key, e.g. ``configs/x.yaml: players[1].strategy: unknown strategy 'gredy'``.
"""

from __future__ import annotations

import os
import json
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from .config_files import (MAX_YAML_BYTES, MAX_YAML_NODES, BoundedLoader, ConfigError, PlayerConfig, bounded_yaml,
                           read_bounded, read_yaml)
from .games import DEFAULT_GAME, capabilities, game_key, games_that, known_games, load_game
from .messages import key_label, shown

DEFAULT_CONFIG_NAME = "base.yaml"
MAX_GAMES = 100_000_000
"""Games of one run at most (a bigger study is several runs with different seeds)."""
MAX_SEED = 2**128 - 1
MAX_JOBS = 4096
MAX_NAME_BYTES = 200
"""A run name becomes a folder name, with a timestamp after it."""
TOP_KEYS = {"name", "game", "games", "seed", "jobs", "chunk_size", "variant", "players", "overrides",
            "rotate_seats", "on_error", "move_timeout", "backend", "scheduler"}
ON_ERROR_POLICIES = ("fail", "skip")
BACKENDS = ("loky", "dask")


@dataclass(frozen=True)
class RunSpec:
    """A fully validated run: what to play, how many games, from which seed."""

    name: str
    players: tuple[PlayerConfig, ...]
    games: int = 1000
    seed: int = 0
    jobs: int = 1
    chunk_size: int | None = None
    rotate_seats: bool = False
    on_error: str = "fail"
    move_timeout: float | None = None
    backend: str = "loky"
    scheduler: str | None = None
    source: str = "<dict>"
    game: str = DEFAULT_GAME
    game_params: dict | None = field(default=None, hash=False)
    """The game's checked parameters, `{variant, overrides}` as a config writes them
    (None: the game's defaults); `rules` is what the game makes of them."""

    @cached_property
    def rules(self) -> Any:
        """The game's checked rules for this run (`load_game(game, game_params).rules`),
        made once per RunSpec (and once per process for the same parameters);
        whether they seat the run's players is `capabilities.check_seats`'s to say."""
        return loaded_game(self.game, self.game_params, None).rules

    @property
    def capabilities(self) -> Any:
        """What the machinery may ask the run's game (a games.Capabilities)."""
        return capabilities(self.game)

    def seated(self, index: int) -> tuple[PlayerConfig, ...]:
        """The players of game `index` in seat order: as configured, or rotated by
        one seat per game when `rotate_seats` is set (game i starts at player i mod n)."""
        if not self.rotate_seats:
            return self.players
        shift = index % len(self.players)
        return self.players[shift:] + self.players[:shift]

    def require(self, capability: str, command: str) -> "RunSpec":
        """Itself, or a ConfigError naming the command and the game when the game
        lacks `capability` (a field of games.Capabilities), e.g. `require("trainable", "train")`."""
        if not getattr(self.capabilities, capability):
            raise ConfigError(f"{self.source}: game: wtsim {command} plays {' and '.join(games_that(capability))} "
                              f"only, not {self.game}")
        return self

    def with_overrides(self, **changes: Any) -> "RunSpec":
        """A copy with some fields replaced (values of None are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def to_dict(self) -> dict:
        """The config as resolved, in the YAML schema (written next to results); the
        game writes its own `variant` and `overrides` (see games.Capabilities.config_section)."""
        section = self.capabilities.config_section(self)
        return {
            "name": self.name,
            **game_key(self.game),
            "games": self.games,
            "seed": self.seed,
            "jobs": self.jobs,
            "chunk_size": self.chunk_size,
            "rotate_seats": self.rotate_seats,
            "variant": section["variant"],
            "players": [
                {"name": p.name, "strategy": p.strategy.ref, "params": p.strategy.params}
                for p in self.players
            ],
            "overrides": section["overrides"],
            "on_error": self.on_error,
            "move_timeout": self.move_timeout,
            "backend": self.backend,
            "scheduler": self.scheduler,
        }


def loaded_game(name: str, params: dict | None, n_players: int | None) -> Any:
    """The game `name` with `params` checked for `n_players` seats (None: any),
    loaded once per process for the same arguments (a Game is read-only)."""
    return _loaded_game(name, json.dumps(params or {}, sort_keys=True), n_players)


@lru_cache(maxsize=64)
def _loaded_game(name: str, params_json: str, n_players: int | None) -> Any:
    return load_game(name, json.loads(params_json), n_players)


def default_config_path() -> Path:
    """The bundled default config, shipped inside the package."""
    return Path(str(resources.files("welcometo_sim") / "configs" / DEFAULT_CONFIG_NAME))


def load_config(path: str | os.PathLike | None = None) -> RunSpec:
    """Read and validate a YAML config file (the bundled default when None)."""
    path = Path(path) if path is not None else default_config_path()
    return parse_config(read_yaml(path), str(path), default_name=path.stem, base_dir=path.parent)


def parse_config(raw: Any, where: str = "<config>", default_name: str = "run",
                 base_dir: str | os.PathLike | None = None) -> RunSpec:
    """Validate a config mapping (as loaded from YAML) into a RunSpec. Relative
    `params_file` paths are read from `base_dir` (the config's folder; default
    the working directory)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: the config must be a mapping of keys, got {type(raw).__name__}")
    _check_keys(raw, TOP_KEYS, where, "")
    name = raw.get("name", default_name)
    if not isinstance(name, str) or not name.strip() or "/" in name or not name.isprintable():
        raise ConfigError(f"{where}: name: must be a non-empty printable string without '/', got {_short(name)}")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise ConfigError(f"{where}: name: at most {MAX_NAME_BYTES} bytes (it names the run folder), "
                          f"got {len(name.encode('utf-8'))}")
    game = _game_name(raw, where)
    return RunSpec(
        name=name,
        game=game,
        **capabilities(game).read_config(raw, where, base_dir),
        games=_int(raw, "games", where, 1000, minimum=1, maximum=MAX_GAMES),
        seed=_int(raw, "seed", where, 0, minimum=0, maximum=MAX_SEED),
        jobs=_int(raw, "jobs", where, 1, minimum=-64, maximum=MAX_JOBS),
        chunk_size=_int(raw, "chunk_size", where, None, minimum=1, maximum=MAX_GAMES),
        rotate_seats=_bool(raw, "rotate_seats", where),
        **_run_policy(raw, where),
        source=where,
    )


def _game_name(raw: dict, where: str) -> str:
    """The config's `game:` (default games.DEFAULT_GAME), checked against the registered games."""

    game = raw.get("game", DEFAULT_GAME)
    known = known_games()
    if game not in known:
        raise ConfigError(f"{where}: game: unknown game {_short(game)} (known: {', '.join(known)})")
    return game


def _run_policy(raw: dict, where: str) -> dict[str, Any]:
    """How the run behaves, not what it plays: error policy, move time limit, backend
    (a scheduler address implies the dask backend)."""
    scheduler = _address(raw, "scheduler", where)
    backend = _choice(raw, "backend", where, BACKENDS, default="dask" if scheduler else "loky")
    if scheduler and backend != "dask":
        raise ConfigError(f"{where}: scheduler: needs backend: dask, not {backend}")
    return {
        "on_error": _choice(raw, "on_error", where, ON_ERROR_POLICIES, default="fail"),
        "move_timeout": _seconds(raw, "move_timeout", where),
        "backend": backend,
        "scheduler": scheduler,
    }


def _choice(raw: dict, key: str, where: str, choices: tuple[str, ...], default: str) -> str:
    value = raw.get(key)
    if value is None:
        return default
    if value not in choices:
        raise ConfigError(f"{where}: {key}: must be one of {', '.join(choices)}, got {_short(value)}")
    return value


def _seconds(raw: dict, key: str, where: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 \
            or value == float("inf"):
        raise ConfigError(f"{where}: {key}: must be a positive number of seconds, got {_short(value)}")
    return float(value)


def _address(raw: dict, key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: {key}: must be a scheduler address such as tcp://host:8786, got {_short(value)}")
    return value.strip()


def _check_keys(mapping: dict, allowed: set[str], where: str, prefix: str) -> None:
    for key in mapping:
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            raise ConfigError(f"{where}: {prefix}{key_label(key)}: unknown key (known: {known})")


_short = shown
"""Config values are quoted in messages as every user value is (see welcometo_sim.messages)."""


def _int(raw: dict, key: str, where: str, default: int | None, minimum: int,
         maximum: int | None = None) -> Any:
    value = raw.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{where}: {key}: must be an integer, got {_short(value)}")
    if value < minimum:
        raise ConfigError(f"{where}: {key}: must be at least {minimum}, got {_short(value)}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{where}: {key}: must be at most {maximum}, got {_short(value)}")
    if key == "jobs" and value == 0:
        raise ConfigError(f"{where}: jobs: must not be 0 (use 1, N, or -1 for all cores)")
    return value


def _bool(raw: dict, key: str, where: str) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {key}: must be true or false, got {_short(value)}")
    return value


def players_from_refs(refs: list[str], game: str = DEFAULT_GAME) -> tuple[PlayerConfig, ...]:
    """Players of `game` from command-line strategy references, e.g. ['greedy', 'random']
    (names are resolved in that game's strategy registry)."""
    return capabilities(game).parse_players(list(refs), "command line")


__all__ = ["DEFAULT_GAME", "ConfigError", "RunSpec", "PlayerConfig", "load_config", "parse_config",
           "default_config_path", "players_from_refs",
           # read in config_files.py, importable from here as before
           "MAX_YAML_BYTES", "MAX_YAML_NODES", "BoundedLoader", "bounded_yaml", "read_bounded"]
