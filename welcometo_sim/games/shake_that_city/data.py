"""Shake That City's data tables: `data.yaml` loaded, overridden and checked.

Every number the rules engine uses comes from here, so a designer can try other
values (or the real ones, where `data.yaml` marks an assumption) through a
config's `overrides:` block, which has the shape of `data.yaml` itself: a
mapping replaces the keys it names (recursively), any other value replaces the
default whole. Every problem is a :class:`DataError` naming the key path.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

import yaml

BUILDINGS: tuple[str, ...] = ("home", "shop", "factory", "park", "road")
"""Building types in code order (index = code); the cube colour of each is in `cube_colours`."""
WILD = "wild"
LETTERS: dict[str, str] = {"home": "H", "shop": "S", "factory": "F", "park": "P", "road": "R",
                           WILD: "W"}
EDGES = ("north", "east", "south", "west")
CONDITION_KINDS = ("full", "count", "distinct")
MAX_BOARD_SIDE = 8
"""Boards are bit-sets in Python ints; 8x8 keeps every mask in 64 bits."""
MAX_CUBES = 60
MAX_POINTS = 1000


class DataError(ValueError):
    """Bad game data; `path` names the key (e.g. 'overrides.board.rows')."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem

    def __reduce__(self):
        """Pickled with both arguments (a worker process sends it back whole)."""
        return type(self), (self.path, self.problem)


@dataclass(frozen=True)
class Side:
    """One side of the player board: which edges are black or beach, and its shop zones."""

    name: str
    black_edges: tuple[str, ...]
    beach_edges: tuple[str, ...]
    zones: tuple[str, ...]


@dataclass(frozen=True)
class Condition:
    """One way to flip a bonus tile, checked on the line its slot points to."""

    kind: str
    building: str | None = None
    at_least: int = 0


@dataclass(frozen=True)
class GameData:
    """The checked data tables (read-only, shared by every game of a run)."""

    cubes: tuple[int, ...]
    rounds: int
    free_rounds: int
    pattern_size: int
    rows: int
    cols: int
    zone_points: tuple[tuple[str, int], ...]
    sides: tuple[Side, ...]
    scoring: tuple[tuple[str, Any], ...]
    north_columns: tuple[int, ...]
    west_rows: tuple[int, ...]
    corner_tile: int
    tiles: tuple[tuple[int, tuple[Condition, ...]], ...]
    tile_points: tuple[tuple[int, int], ...]
    """(tile id, points when flipped) for every tile: `bonus.points`, else `scoring.bonus`."""
    construction_cells: tuple[tuple[int, int], ...]
    construction_pairs: tuple[tuple[int, int], ...]
    solo_win: int
    solo_win_wild: int
    wild_start: int
    wild_rounds: tuple[int, ...]

    def side(self, name: str) -> Side:
        """The board side called `name`."""
        for side in self.sides:
            if side.name == name:
                return side
        raise DataError("variant.side", f"unknown side {name!r} (known: "
                        f"{', '.join(s.name for s in self.sides)})")

    def points(self, key: str) -> Any:
        """A scoring value of `data.yaml`'s `scoring` block."""
        return dict(self.scoring)[key]

    @property
    def tile_ids(self) -> tuple[int, ...]:
        return tuple(t for t, _ in self.tiles)

    def conditions(self, tile: int) -> tuple[Condition, ...]:
        return dict(self.tiles)[tile]

    def tile_value(self, tile: int) -> int:
        """The points bonus tile `tile` scores when flipped."""
        return dict(self.tile_points)[tile]


@lru_cache(maxsize=1)
def default_tables() -> str:
    """The text of the shipped `data.yaml`."""
    return resources.files(__package__).joinpath("data.yaml").read_text(encoding="utf-8")


def raw_defaults() -> dict:
    """The shipped data as plain, fresh (mutable) Python values."""
    return yaml.safe_load(default_tables())


def merge(base: Any, change: Any, path: str) -> Any:
    """`change` laid over `base`: mappings key by key (unknown keys rejected), the rest replaced."""
    if not isinstance(base, dict):
        return change
    if not isinstance(change, Mapping):
        raise DataError(path, f"expected a mapping, got {type(change).__name__}")
    out = dict(base)
    by_text = {str(k): k for k in base}
    for key, value in change.items():
        if key not in base and str(key) not in by_text:
            known = ", ".join(str(k) for k in base)
            raise DataError(f"{path}.{key}", f"unknown key (known: {known})")
        key = key if key in base else by_text[str(key)]   # JSON records turn 2: into "2":
        out[key] = merge(base[key], value, f"{path}.{key}")
    return out


@lru_cache(maxsize=64)
def _load_cached(frozen_overrides: str) -> GameData:
    overrides = yaml.safe_load(frozen_overrides) or {}
    return build(merge(raw_defaults(), overrides, "overrides"))


def load_data(overrides: Mapping | None = None) -> GameData:
    """The game data with `overrides` (the shape of `data.yaml`) applied and checked."""
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise DataError("overrides", "expected a mapping")
    try:
        text = yaml.safe_dump(dict(overrides), sort_keys=True)
    except yaml.YAMLError as exc:
        raise DataError("overrides", f"cannot be written as data ({exc.__class__.__name__})") from None
    return _load_cached(text)


def _int(value: Any, path: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(path, f"expected an integer, got {value!r}")
    if not lo <= value <= hi:
        raise DataError(path, f"{value} is out of range {lo}..{hi}")
    return value


def _mapping(value: Any, path: str) -> dict:
    if not isinstance(value, dict):
        raise DataError(path, "expected a mapping")
    return value


def _list(value: Any, path: str) -> list:
    if not isinstance(value, list):
        raise DataError(path, "expected a list")
    return value


def _building(value: Any, path: str) -> int:
    if value not in BUILDINGS:
        raise DataError(path, f"unknown building {value!r} (known: {', '.join(BUILDINGS)})")
    return BUILDINGS.index(value)


def build(raw: dict) -> GameData:
    """Checks merged raw data and freezes it into :class:`GameData`."""
    cubes = _mapping(raw["cubes"], "cubes")
    counts = tuple(_int(cubes.get(b), f"cubes.{b}", 0, MAX_CUBES) for b in BUILDINGS)
    size = _int(raw["pattern_size"], "pattern_size", 1, 3)
    if sum(counts) < size * size:
        raise DataError("cubes", f"{sum(counts)} cubes cannot fill a {size}x{size} pattern")
    rounds = _int(raw["rounds"], "rounds", 1, 100)
    board = _mapping(raw["board"], "board")
    rows = _int(board["rows"], "board.rows", size, MAX_BOARD_SIDE)
    cols = _int(board["cols"], "board.cols", size, MAX_BOARD_SIDE)
    zone_points = _mapping(board["zone_points"], "board.zone_points")
    for zone, pts in zone_points.items():
        _int(pts, f"board.zone_points.{zone}", 0, MAX_POINTS)
    sides = tuple(_side(name, spec, rows, cols, zone_points)
                  for name, spec in _mapping(board["sides"], "board.sides").items())
    scoring = _scoring(_mapping(raw["scoring"], "scoring"))
    data = GameData(
        cubes=counts, rounds=rounds,
        free_rounds=_int(raw["free_rounds"], "free_rounds", 0, rounds),
        pattern_size=size, rows=rows, cols=cols,
        zone_points=tuple(sorted(zone_points.items())), sides=sides,
        scoring=scoring,
        **_bonus(_mapping(raw["bonus"], "bonus"), rows, cols, dict(scoring)["bonus"]),
        **_construction(_mapping(raw["construction"], "construction"), rows, cols),
        solo_win=_int(raw["solo"]["win"], "solo.win", 0, 100 * MAX_POINTS),
        solo_win_wild=_int(raw["solo"]["win_wild_nights"], "solo.win_wild_nights", 0,
                           100 * MAX_POINTS),
        wild_start=_int(raw["wild_nights"]["start"], "wild_nights.start", 0, MAX_CUBES),
        wild_rounds=tuple(_int(r, f"wild_nights.added_rounds[{i}]", 1, rounds)
                          for i, r in enumerate(_list(raw["wild_nights"]["added_rounds"],
                                                      "wild_nights.added_rounds"))),
    )
    return data


def _side(name: Any, spec: Any, rows: int, cols: int, zone_points: dict) -> Side:
    path = f"board.sides.{name}"
    spec = _mapping(spec, path)
    edges = {}
    for key in ("black_edges", "beach_edges"):
        values = _list(spec.get(key, []), f"{path}.{key}")
        for value in values:
            if value not in EDGES:
                raise DataError(f"{path}.{key}", f"unknown edge {value!r} (known: {', '.join(EDGES)})")
        edges[key] = tuple(values)
    if set(edges["black_edges"]) & set(edges["beach_edges"]):
        raise DataError(path, "an edge cannot be black and beach")
    zones = _list(spec.get("zones"), f"{path}.zones")
    if len(zones) != rows or any(not isinstance(z, str) or len(z) != cols for z in zones):
        raise DataError(f"{path}.zones", f"expected {rows} strings of {cols} zone letters")
    for line in zones:
        for letter in line:
            if letter not in zone_points:
                raise DataError(f"{path}.zones", f"zone {letter!r} has no entry in board.zone_points")
    return Side(str(name), edges["black_edges"], edges["beach_edges"], tuple(zones))


def _scoring(spec: dict) -> tuple[tuple[str, Any], ...]:
    out = []
    for key, value in spec.items():
        if isinstance(value, bool):
            out.append((key, value))
        else:
            out.append((key, _int(value, f"scoring.{key}", 0, MAX_POINTS)))
    return tuple(out)


def _bonus(spec: dict, rows: int, cols: int, flip_points: int) -> dict:
    north = tuple(_int(c, f"bonus.north_columns[{i}]", 0, cols - 1)
                  for i, c in enumerate(_list(spec["north_columns"], "bonus.north_columns")))
    west = tuple(_int(r, f"bonus.west_rows[{i}]", 0, rows - 1)
                 for i, r in enumerate(_list(spec["west_rows"], "bonus.west_rows")))
    tiles = []
    for tile, conditions in _mapping(spec["tiles"], "bonus.tiles").items():
        path = f"bonus.tiles.{tile}"
        tile_id = _int(tile, path, 0, 10_000)
        parsed = tuple(_condition(c, f"{path}[{i}]")
                       for i, c in enumerate(_list(conditions, path)))
        if not parsed:
            raise DataError(path, "a tile needs at least one condition")
        tiles.append((tile_id, parsed))
    corner = _int(spec["corner_tile"], "bonus.corner_tile", 0, 10_000)
    if corner not in dict(tiles):
        raise DataError("bonus.corner_tile", f"tile {corner} is not in bonus.tiles")
    if len(tiles) - 1 != len(north) + len(west):
        raise DataError("bonus.tiles", f"{len(tiles) - 1} tiles besides the corner one for "
                        f"{len(north) + len(west)} north and west slots")
    return {"north_columns": north, "west_rows": west, "corner_tile": corner,
            "tiles": tuple(tiles), "tile_points": _tile_points(spec.get("points"), dict(tiles), flip_points)}


def _tile_points(spec: Any, tiles: dict, flip_points: int) -> tuple[tuple[int, int], ...]:
    """Every tile's points when flipped: its `bonus.points` entry, else `flip_points`."""
    given = {} if spec is None else _mapping(spec, "bonus.points")
    points = dict.fromkeys(tiles, flip_points)
    by_text = {str(tile): tile for tile in tiles}
    for key, value in given.items():
        tile = by_text.get(str(key))
        if tile is None:
            raise DataError(f"bonus.points.{key}", f"not a bonus tile (known: {', '.join(by_text)})")
        points[tile] = _int(value, f"bonus.points.{key}", 0, MAX_POINTS)
    return tuple(points.items())


def _condition(spec: Any, path: str) -> Condition:
    spec = _mapping(spec, path)
    kind = spec.get("kind")
    if kind not in CONDITION_KINDS:
        raise DataError(f"{path}.kind", f"unknown kind {kind!r} (known: {', '.join(CONDITION_KINDS)})")
    unknown = set(spec) - {"kind", "building", "at_least"}
    if unknown:
        raise DataError(f"{path}.{sorted(map(str, unknown))[0]}", "unknown key")
    if kind == "full":
        return Condition("full")
    at_least = _int(spec.get("at_least"), f"{path}.at_least", 1, MAX_BOARD_SIDE)
    if kind == "distinct":
        return Condition("distinct", None, min(at_least, len(BUILDINGS)))
    _building(spec.get("building"), f"{path}.building")
    return Condition("count", spec["building"], at_least)


def _construction(spec: dict, rows: int, cols: int) -> dict:
    cells = []
    for i, cell in enumerate(_list(spec["cells"], "construction.cells")):
        path = f"construction.cells[{i}]"
        if not isinstance(cell, list) or len(cell) != 2:
            raise DataError(path, "expected [row, col]")
        cells.append((_int(cell[0], path, 0, rows - 1), _int(cell[1], path, 0, cols - 1)))
    if len(set(cells)) != len(cells):
        raise DataError("construction.cells", "a cell is listed twice")
    pairs = []
    for i, pair in enumerate(_list(spec["pairs"], "construction.pairs")):
        path = f"construction.pairs[{i}]"
        if not isinstance(pair, list) or len(pair) != 2:
            raise DataError(path, "expected [building, building]")
        pairs.append((_building(pair[0], path), _building(pair[1], path)))
    if len(pairs) != len(cells):
        raise DataError("construction.pairs", f"{len(pairs)} tiles for {len(cells)} cells")
    return {"construction_cells": tuple(cells), "construction_pairs": tuple(pairs)}
