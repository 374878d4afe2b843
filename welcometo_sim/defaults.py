"""Who plays when nobody says: the strong default strategy and diverse tables.

Balance numbers are only as good as the players behind them: a plan measured
with an opponent that ends the game on refusals by turn 20 says little about
real games. So the bundled configs, `wtsim plans`, `wtsim sweep` and
`wtsim balance` seat :data:`STRONG_DEFAULT`, the strongest fast built-in.

The built-ins are deterministic and every seat sees the same cards, so a
table of one strategy would play one game several times. Where one strategy
fills several seats, each of those seats gets the strategy's exploration
temperature from :data:`EXPLORATION_TEMPERATURE` (softmax sampling over its
move values, seeded per seat), chosen so that the strategy keeps its
strength (docs/configs.md quotes the measurements). A temperature the user set
is never changed.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from pathlib import Path

from .config import WELCOME_TO, ConfigError, PlayerConfig, RunSpec, load_config, players_from_refs
from .sim.results import CONFIG_FILE
from .strategy import StrategySpec, load_strategy, resolve_params

STRONG_DEFAULT = "learned"
"""The strongest fast built-in, about 2 ms a move: +12.75 points a game against `lookahead` (docs/performance.md)."""

EXPLORATION_TEMPERATURE: dict[str, float] = {"learned": 0.07, "greedy": 0.1, "heuristic": 0.25,
                                                "lookahead": 0.1}
"""The temperature each built-in plays with when it fills several seats of a table: in
two-player self-play each keeps its mean score within about a point of its
deterministic play while the seats' totals differ in most games (docs/configs.md,
"The strong default and diverse tables")."""

BASELINE = "random"

DETERMINISTIC_AT_ZERO_TEMPERATURE = frozenset({"greedy", "heuristic", "safe", "specialist", "planner",
                                               "learned"})
"""Welcome To built-ins that draw nothing from their generator when their `temperature`
is 0 (`random` always draws; `lookahead` samples the cards it has not seen). A
strategy not named here (a user's own) is never assumed deterministic."""


def strong_players(count: int) -> tuple[PlayerConfig, ...]:
    """`count` seats of the strong default."""
    return players_from_refs([STRONG_DEFAULT] * count)


def every_seat(players: tuple[PlayerConfig, ...], ref: str, game: str = WELCOME_TO) -> tuple[PlayerConfig, ...]:
    """The same number of seats, every one playing the strategy reference `ref` of `game`."""
    return players_from_refs([ref] * len(players), game)


def diverse(players: tuple[PlayerConfig, ...]) -> tuple[PlayerConfig, ...]:
    """The players, with the exploration temperature set on every seat whose
    strategy fills more than one seat, has a `temperature` parameter and was
    not given one."""
    counts = Counter(p.strategy.ref for p in players)
    return tuple(_explored(p) if counts[p.strategy.ref] > 1 else p for p in players)


def _explored(player: PlayerConfig) -> PlayerConfig:
    spec = player.strategy
    if not isinstance(spec, StrategySpec):  # another game's strategy: exploration is not its parameter
        return player
    cls = load_strategy(spec.ref)
    temperature = EXPLORATION_TEMPERATURE.get(cls.name)
    if temperature is None or "temperature" in spec.params or "temperature" not in cls.defaults:
        return player
    return replace(player, strategy=replace(spec, params={**spec.params, "temperature": temperature}))


def random_warning(players: tuple[PlayerConfig, ...]) -> str | None:
    """One warning line when a seat plays the random baseline (whose games end
    early on refusals, which distorts every balance number), else None."""
    seats = [p.name for p in players
             if isinstance(p.strategy, StrategySpec) and load_strategy(p.strategy.ref).name == BASELINE]
    if not seats:
        return None
    return (f"warning: {', '.join(seats)} play{'s' if len(seats) == 1 else ''} {BASELINE}, whose games "
            f"end early on refusals; balance measured against it is not that of real games "
            f"(the strong default is {STRONG_DEFAULT})")


def _deterministic_key(player: PlayerConfig) -> tuple[str, str] | None:
    """(strategy name, resolved parameters) of a seat that plays the same move
    whenever it is shown the same game, else None."""
    try:
        cls = load_strategy(player.strategy.ref)
        params = resolve_params(cls, player.strategy.params)
    except (ValueError, ImportError, OSError):
        return None
    if cls.name not in DETERMINISTIC_AT_ZERO_TEMPERATURE or params.get("temperature", 0) != 0:
        return None
    return cls.name, repr(sorted(params.items()))


def mirror_seats(spec: RunSpec) -> list[list[int]]:
    """Groups of seats (config order) whose games are mirrors: Welcome To
    outside the expert rules shows every seat the same cards, so seats with the
    same deterministic strategy and parameters write the same sheet every game."""
    if spec.game != WELCOME_TO or spec.variant.expert:
        return []
    groups: dict[tuple[str, str], list[int]] = {}
    for seat, player in enumerate(spec.players):
        key = _deterministic_key(player)
        if key is not None:
            groups.setdefault(key, []).append(seat)
    return [seats for seats in groups.values() if len(seats) > 1]


def mirror_note(spec: RunSpec) -> str | None:
    """One line saying which seats mirror each other (see :func:`mirror_seats`), or None."""
    groups = mirror_seats(spec)
    if not groups:
        return None
    named = "; ".join(f"seats {_and(seats)} ({_and([spec.players[s].name for s in seats])})"
                      for seats in groups)
    return (f"note: {named} are the same deterministic strategy; they see the same cards, "
            f"so every game is a mirror")


def folder_mirror_note(folder: str | os.PathLike) -> str | None:
    """:func:`mirror_note` of a run folder's own config.yaml (None without one)."""
    path = Path(folder) / CONFIG_FILE
    if not path.is_file():
        return None
    try:
        return mirror_note(load_config(path))
    except ConfigError:
        return None


def _and(items: list) -> str:
    words = [str(item) for item in items]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


__all__ = ["STRONG_DEFAULT", "EXPLORATION_TEMPERATURE", "strong_players", "every_seat", "diverse",
           "random_warning", "mirror_seats", "mirror_note", "folder_mirror_note"]
