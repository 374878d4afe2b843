"""Shake That City's static rules: the variant, the data tables and board
geometry a game is played with, and a move as records write it.

The bottom of the game's own layers: the moves open to a player (`moves.py`),
the strategies (`strategies.py`) and the round loop (`game.py`) all read the
rules, and the rules import none of them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from .board import Layout, Move
from .data import BUILDINGS, DataError, GameData, load_data
from .scoring import Points

MIN_PLAYERS, MAX_PLAYERS = 1, 4
"""The rules are for 1 to 4 players (seed 001); one player plays the solo rules."""
TILE_SUPPLY = 40
"""Building tiles of each type in the published box (a shared supply)."""
VARIANT_KEYS = ("family", "construction", "solo", "wild_nights", "side", "start_player",
                "tile_supply")


@dataclass(frozen=True)
class Variant:
    """Which rules are on. `solo` implies the construction tiles; `start_player`
    None draws the first start player at random from the game seed;
    `tile_supply` is the shared supply of building tiles of each type (None:
    unlimited), so a colour whose tiles have run out cannot be taken."""

    family: bool = False
    construction: bool = False
    solo: bool = False
    wild_nights: bool = False
    side: str = "inland"
    start_player: int | None = None
    tile_supply: int | None = TILE_SUPPLY

    @property
    def uses_construction(self) -> bool:
        return self.construction or self.solo


@dataclass(frozen=True)
class Rules:
    """A game's static rules: data tables, variant and board geometry (read-only)."""

    data: GameData
    variant: Variant
    layout: Layout = field(compare=False)
    points: Points = field(compare=False)
    overrides_json: str = "{}"

    @property
    def solo_target(self) -> int:
        """Points a solo game needs to be won."""
        return self.data.solo_win_wild if self.variant.wild_nights else self.data.solo_win

    def params(self) -> dict:
        """The parameters that rebuild these rules (what records keep)."""
        return {"variant": asdict(self.variant), "overrides": json.loads(self.overrides_json)}


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def make_variant(spec: Mapping | None, n_players: int | None = None) -> Variant:
    """A checked :class:`Variant` from a config's `variant:` mapping."""
    spec = dict(spec or {})
    for key in spec:
        if key not in VARIANT_KEYS:
            raise DataError(f"variant.{key}", f"unknown key (known: {', '.join(VARIANT_KEYS)})")
    for key in ("family", "construction", "solo", "wild_nights"):
        if not isinstance(spec.get(key, False), bool):
            raise DataError(f"variant.{key}", "expected true or false")
    if not isinstance(spec.get("side", "inland"), str):
        raise DataError("variant.side", "expected a side name")
    start = spec.get("start_player")
    if start is not None and (isinstance(start, bool) or not isinstance(start, int) or start < 0):
        raise DataError("variant.start_player", "expected a seat number or null")
    supply = spec.get("tile_supply", TILE_SUPPLY)
    if supply is not None and (isinstance(supply, bool) or not isinstance(supply, int)
                               or supply < 0):
        raise DataError("variant.tile_supply", "expected a number of tiles per type (0 or more) "
                        "or null for an unlimited supply")
    variant = Variant(**spec)
    if variant.solo and variant.family:
        raise DataError("variant", "solo and family cannot be combined (the solo win counts every category)")
    if n_players is not None:
        _check_seats(variant, n_players)
    return variant


def _check_seats(variant: Variant, n_players: int) -> None:
    """The rules' player count: 1 to 4, and one player exactly when solo.

    A single seat without `solo: true` is refused rather than switched to the
    solo rules: the solo rules change the game (construction tiles, a closed
    colour, a points target), so a config or record has to say it plays them."""
    if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise DataError("players", f"{n_players} seats: Shake That City is for "
                        f"{MIN_PLAYERS} to {MAX_PLAYERS} players")
    if variant.solo and n_players != 1:
        raise DataError("variant.solo", f"solo is for exactly 1 player, not {n_players}")
    if not variant.solo and n_players == 1:
        raise DataError("variant.solo", "one seat plays the solo rules: set solo: true "
                        "(or seat 2 to 4 players)")
    if variant.start_player is not None and variant.start_player >= n_players:
        raise DataError("variant.start_player", f"seat {variant.start_player} of {n_players}")


def load_rules(params: Mapping | Rules | None = None, n_players: int | None = None) -> Rules:
    """Rules from `{variant: {...}, overrides: {...}}` (both optional), checked."""
    if isinstance(params, Rules):
        make_variant(asdict(params.variant), n_players)
        return params
    params = dict(params or {})
    unknown = set(params) - {"variant", "overrides"}
    if unknown:
        raise DataError(sorted(map(str, unknown))[0], "unknown key (known: variant, overrides)")
    data = load_data(params.get("overrides"))
    variant = make_variant(params.get("variant"), n_players)
    return Rules(data, variant, _layout(data, variant.side), Points(data),
                 json.dumps(_plain(params.get("overrides") or {}), sort_keys=True))


_LAYOUTS: dict[tuple[int, str], tuple[GameData, Layout]] = {}


def _layout(data: GameData, side: str) -> Layout:
    key = (id(data), side)
    cached = _LAYOUTS.get(key)
    if cached is None or cached[0] is not data:
        cached = _LAYOUTS[key] = (data, Layout(data, side))
    return cached[1]


def parse_move(entry: Any) -> Move | None:
    """A record's move entry (`[building, wild, row, col]` or null) as a Move."""
    if entry is None:
        return None
    building, wild, row, col = entry
    if building not in BUILDINGS:
        raise ValueError(f"unknown building {building!r}")
    return Move(building, bool(wild), int(row), int(col))
