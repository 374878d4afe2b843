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
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from .config_files import (MAX_YAML_BYTES, MAX_YAML_NODES, BoundedLoader, ConfigError, PlayerConfig, bounded_yaml,
                           entry_with_file_params, key_line, merge_params, params_file_path, read_bounded,
                           read_params_file, read_yaml, unique_name)
from .games import DEFAULT_GAME, capabilities, game_key, games_that, known_games
from .games.config import other_game_of
from .messages import shown
from .rules.data import BOARDS
from .rules.overrides import OverrideError, key_label
from .rules.variant import Variant, VariantError
from .strategy import (Strategy, StrategyLoadError, StrategySpec, builtin_strategies, load_strategy,
                       parse_strategy)

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
VARIANT_KEYS = {"advanced", "expert", "solo", "board", "plans"}
PLAYER_KEYS = {"strategy", "name", "params", "params_file"}


@dataclass(frozen=True)
class RunSpec:
    """A fully validated run: what to play, how many games, from which seed."""

    name: str
    players: tuple[PlayerConfig, ...]
    variant: Variant = field(default_factory=Variant)
    plans: tuple[str | None, ...] = (None, None, None)
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
    game_params: dict | None = field(default=None, compare=False)
    """Another game's checked `{variant, overrides}` (None for Welcome To, whose are `variant`)."""

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


def parse_variant(raw: Any, where: str, overrides: Any = None) -> tuple[Variant, tuple[str | None, ...]]:
    """A config's `variant:` mapping (with its `overrides:`, which may change
    the plans) as a checked Variant and the plans it fixes (None: drawn from
    the seed); also how `load_game("welcome-to", ...)` reads its parameters."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: variant: must be a mapping")
    _check_keys(raw, VARIANT_KEYS, where, "variant.")
    flags = {}
    for key in ("advanced", "expert", "solo"):
        value = raw.get(key, False)
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: variant.{key}: must be true or false, got {_short(value)}")
        flags[key] = value
    board = raw.get("board", "base")
    if isinstance(board, list):
        raise ConfigError(f"{where}: variant.board: one board per game, got {len(board)}")
    if not isinstance(board, str) or board not in BOARDS:
        raise ConfigError(f"{where}: variant.board: unknown board {_short(board)} (known: {', '.join(BOARDS)})")
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


def default_player_name(text: str, spec: StrategySpec) -> str:
    """A player's name when the config gives none: the reference as written, but
    a strategy loaded from a file or module that declares its own `name` is
    shown by that name (`mybots.py:LowestFirst` as `lowest-first`), with any
    inline parameters after it."""
    own = load_strategy(spec.ref).name
    if spec.ref in builtin_strategies() or own == Strategy.name:
        return text
    return own + text.strip()[len(spec.ref):]


def read_variant_config(raw: dict, where: str, base_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """The RunSpec fields of a config's `players`, `variant` and `overrides` in the
    schema of this module's docstring (Welcome To's: games.welcome_to declares it)."""
    variant, plans = parse_variant(raw.get("variant", {}), where, raw.get("overrides"))
    players = parse_players(raw.get("players"), where, base_dir)
    try:
        variant.check(len(players))
    except VariantError as exc:
        raise ConfigError(f"{where}: variant: {exc}") from None
    return {"players": players, "variant": variant, "plans": plans}


def variant_config_section(spec: RunSpec) -> dict[str, Any]:
    """The `variant` and `overrides` keys of a RunSpec read by :func:`read_variant_config`."""
    return {"variant": {k: v for k, v in spec.variant.to_record().items() if k != "overrides"}
            | {"plans": list(spec.plans)},
            "overrides": spec.variant.overrides or None}


def parse_players(raw: Any, where: str, base_dir: str | os.PathLike | None = None) -> tuple[PlayerConfig, ...]:
    """A config's `players:` list (entries: a strategy reference, or a mapping of
    PLAYER_KEYS) as PlayerConfigs with unique names; a problem is one ConfigError line."""
    if raw is None:
        raise ConfigError(f"{where}: players: missing (a list of 1 to 12 players)")
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}: players: must be a non-empty list")
    players = []
    taken: set[str] = set()
    for index, entry in enumerate(raw):
        at = f"players[{index}]"
        if isinstance(entry, str):
            entry = {"strategy": entry}
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: {at}: must be a strategy name or a mapping")
        _check_keys(entry, PLAYER_KEYS, where, at + ".")
        if "params_file" in entry:
            entry = _with_params_file(entry, where, at, base_dir)
        ref = entry.get("strategy")
        if not isinstance(ref, str) or not ref:
            raise ConfigError(f"{where}: {at}.strategy: missing or not a string")
        params = entry.get("params") or {}
        if not isinstance(params, dict):
            raise ConfigError(f"{where}: {at}.params: must be a mapping")
        try:
            spec = parse_strategy(ref, params)
        except StrategyLoadError as exc:
            raise ConfigError(f"{where}: {at}.strategy: {_other_game_hint(ref) or exc}") from None
        except yaml.YAMLError as exc:
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise ConfigError(f"{where}: {at}.strategy: {_short(ref)}: malformed parameter value "
                              f"(YAML: {problem})") from None
        except (RecursionError, ValueError, TypeError, LookupError, AttributeError, ArithmeticError) as exc:
            raise ConfigError(f"{where}: {at}.strategy: {_short(ref)}: cannot read a parameter value "
                              f"({type(exc).__name__})") from None
        name = entry.get("name") or default_player_name(ref, spec)
        if not isinstance(name, str):
            raise ConfigError(f"{where}: {at}.name: must be a string")
        players.append(PlayerConfig(unique_name(name, taken), spec))
    return tuple(players)


def _other_game_hint(ref: str) -> str | None:
    """'x is a strategy of game y' for a strategy that only another game knows."""
    return other_game_of(ref, DEFAULT_GAME)


def _with_params_file(entry: dict, where: str, at: str, base_dir: str | os.PathLike | None) -> dict:
    """The player entry with the strategy and parameters of its `params_file`;
    the entry's own `params` override the file's."""
    here, file_ref, file_params = read_params_file(entry["params_file"], where, at, base_dir)
    ref = entry.get("strategy")
    if file_ref is not None:
        _check_file_strategy(file_ref, here)
    if ref is not None and file_ref is not None and ref != file_ref:
        held = shown(file_ref) if file_ref in builtin_strategies() else "another strategy"
        raise ConfigError(f"{here} holds parameters of {held}, not of {shown(ref)}")
    merged = entry_with_file_params(entry, file_ref, file_params, where, at)
    if isinstance(merged["strategy"], str):
        _check_file_params(merged["strategy"], file_params, entry.get("params") or {}, here,
                           params_file_path(entry["params_file"], base_dir))
    return merged


MAX_PARAMS_TRIED = 200
"""Parameters of a params_file tried one by one at most, to name the one a strategy refuses."""


def _check_file_strategy(ref: Any, here: str) -> None:
    """The strategy a params_file names must load; a message names the key, never the value."""
    if not isinstance(ref, str) or not ref.strip():
        raise ConfigError(f"{here}: strategy: must be a strategy name")
    try:
        parse_strategy(ref)
    except Exception:  # noqa: BLE001 - whatever it is, the message would quote the file
        raise ConfigError(f"{here}: strategy: not a strategy that can be loaded (the value is not shown)") from None


def _check_file_params(ref: str, file_params: dict, own_params: dict, here: str, path: Path) -> None:
    """Refuse the parameters of a params_file that the strategy refuses, naming
    the key but not its value (the file may hold secrets). The config's own
    `params` are left to the usual checks, which quote them."""
    try:
        parse_strategy(ref, merge_params(file_params, own_params))
        return
    except Exception:  # noqa: BLE001 - told apart below, without quoting the file
        pass
    try:
        parse_strategy(ref, own_params)
    except Exception:  # noqa: BLE001 - the config's own mistake: reported where it is parsed
        return
    try:
        defaults = load_strategy(parse_strategy(ref).ref).defaults
    except Exception:  # noqa: BLE001
        defaults = {}
    for leaf in _leaves(file_params, defaults)[:MAX_PARAMS_TRIED]:
        single: dict = {}
        node = single
        for part in leaf[:-1]:
            node = node.setdefault(part, {})
        node[leaf[-1]] = _at(file_params, leaf)
        try:
            parse_strategy(ref, merge_params(single, own_params))
        except Exception:  # noqa: BLE001
            name = ".".join(key_label(part) for part in leaf)
            known = _at(defaults, leaf[:-1])
            if not isinstance(known, dict) or leaf[-1] not in known:
                keys = ", ".join(sorted(map(str, known))) if isinstance(known, dict) else "none"
                raise ConfigError(f"{here}: {key_line(path, ('params', *leaf))}"
                                  f"unknown parameter (known: {keys}; the key is not shown)") from None
            raise ConfigError(f"{here}: params.{name}: {_expected(known[leaf[-1]], _at(file_params, leaf))}"
                              f"{shown(ref)} (the value is not shown)") from None
    raise ConfigError(f"{here}: params: refused by strategy {shown(ref)} together (the values are not shown)")


def _expected(default: Any, value: Any) -> str:
    """What a parameter's value must be, as far as its default tells, ending in 'of strategy'."""
    if isinstance(default, bool) and not isinstance(value, bool):
        return "must be true or false for strategy "
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, int) and not isinstance(default, bool) and not (numeric and isinstance(value, int)):
        return "must be an integer for strategy "
    if isinstance(default, float) and not numeric:
        return "must be a finite number for strategy "
    if isinstance(default, dict) and not isinstance(value, dict):
        return "must be a mapping for strategy "
    return "refused by strategy "


def _leaves(params: dict, defaults: Any, prefix: tuple = ()) -> list[tuple]:
    """Key paths of the values of `params`, down to where its defaults stop being mappings."""
    out: list[tuple] = []
    for key, value in params.items():
        default = defaults.get(key) if isinstance(defaults, dict) else None
        if isinstance(value, dict) and isinstance(default, dict) and value:
            out += _leaves(value, default, (*prefix, key))
        else:
            out.append((*prefix, key))
    return out


def _at(tree: Any, path: tuple) -> Any:
    for part in path:
        tree = tree.get(part) if isinstance(tree, dict) else None
    return tree


def players_from_refs(refs: list[str], game: str = DEFAULT_GAME) -> tuple[PlayerConfig, ...]:
    """Players of `game` from command-line strategy references, e.g. ['greedy', 'random']
    (names are resolved in that game's strategy registry)."""
    return capabilities(game).parse_players(list(refs), "command line")


__all__ = ["DEFAULT_GAME", "ConfigError", "RunSpec", "PlayerConfig", "load_config", "parse_config",
           "default_config_path", "players_from_refs",
           # read in config_files.py, importable from here as before
           "MAX_YAML_BYTES", "MAX_YAML_NODES", "BoundedLoader", "bounded_yaml", "read_bounded"]
