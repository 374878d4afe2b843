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

from collections import Counter
from dataclasses import replace

from .config import PlayerConfig, players_from_refs
from .strategy import load_strategy

STRONG_DEFAULT = "learned"
"""The strongest fast built-in, about 2 ms a move: +12.75 points a game against `lookahead` (docs/performance.md)."""

EXPLORATION_TEMPERATURE: dict[str, float] = {"learned": 0.07, "greedy": 0.1, "heuristic": 0.25,
                                                "lookahead": 0.1}
"""The temperature each built-in plays with when it fills several seats of a table: in
two-player self-play each keeps its mean score within about a point of its
deterministic play while the seats' totals differ in most games (docs/configs.md,
"The strong default and diverse tables")."""

BASELINE = "random"


def strong_players(count: int) -> tuple[PlayerConfig, ...]:
    """`count` seats of the strong default."""
    return players_from_refs([STRONG_DEFAULT] * count)


def every_seat(players: tuple[PlayerConfig, ...], ref: str) -> tuple[PlayerConfig, ...]:
    """The same number of seats, every one playing the strategy reference `ref`."""
    return players_from_refs([ref] * len(players))


def diverse(players: tuple[PlayerConfig, ...]) -> tuple[PlayerConfig, ...]:
    """The players, with the exploration temperature set on every seat whose
    strategy fills more than one seat, has a `temperature` parameter and was
    not given one."""
    counts = Counter(p.strategy.ref for p in players)
    return tuple(_explored(p) if counts[p.strategy.ref] > 1 else p for p in players)


def _explored(player: PlayerConfig) -> PlayerConfig:
    spec = player.strategy
    cls = load_strategy(spec.ref)
    temperature = EXPLORATION_TEMPERATURE.get(cls.name)
    if temperature is None or "temperature" in spec.params or "temperature" not in cls.defaults:
        return player
    return replace(player, strategy=replace(spec, params={**spec.params, "temperature": temperature}))


def random_warning(players: tuple[PlayerConfig, ...]) -> str | None:
    """One warning line when a seat plays the random baseline (whose games end
    early on refusals, which distorts every balance number), else None."""
    seats = [p.name for p in players if load_strategy(p.strategy.ref).name == BASELINE]
    if not seats:
        return None
    return (f"warning: {', '.join(seats)} play{'s' if len(seats) == 1 else ''} {BASELINE}, whose games "
            f"end early on refusals; balance measured against it is not that of real games "
            f"(the strong default is {STRONG_DEFAULT})")


__all__ = ["STRONG_DEFAULT", "EXPLORATION_TEMPERATURE", "strong_players", "every_seat", "diverse",
           "random_warning"]
