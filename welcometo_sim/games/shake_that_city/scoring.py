"""End-of-game scoring of a board, per category, and the ranking of a table.

Every rule is a few bit operations on the board's masks (see `board.py`):

- roads: 1 point per road linked to a black edge, directly or through roads;
- parks: at most 2 each: next to a home, and next to a factory (inland) or on the beach edge (seaside);
- factories: at most 2 each: next to another factory, next to a road;
- shops: linked to a black edge (directly or through a linked road), worth their zone's points;
- homes: 2 per group of adjacent homes, 0 when the group touches a factory; seaside: +1 per
  group on the beach edge;
- bonus: 3 (or the tile's own `bonus.points`) per bonus tile one of whose conditions holds on the
  line its slot points to.

The point values are `data.yaml`'s `scoring` block.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import NamedTuple, Sequence

from .board import Board, Layout
from .data import BUILDINGS, GameData

HOME, SHOP, FACTORY, PARK, ROAD = range(5)
CATEGORIES: tuple[str, ...] = ("roads", "parks", "factories", "shops", "homes", "bonus")
"""Score columns of a result row, in table order (`total` is their sum for a qualified player)."""


class Score(NamedTuple):
    """One board's end-of-game score."""

    roads: int
    parks: int
    factories: int
    shops: int
    homes: int
    bonus: int
    flipped: int
    empty: int
    construction_left: int
    qualified: bool
    total: int

    def as_dict(self) -> dict:
        return self._asdict()


class Points:
    """Scoring values of a game's data, looked up once (the hot path reads attributes)."""

    def __init__(self, data: GameData) -> None:
        get = data.points
        self.road = get("road")
        self.park_home = get("park_home")
        self.park_factory = get("park_factory")
        self.park_beach = get("park_beach")
        self.factory_factory = get("factory_factory")
        self.factory_road = get("factory_road")
        self.home_group = get("home_group")
        self.home_beach = get("home_beach")
        self.home_beach_despite_factory = bool(get("home_beach_despite_factory"))
        self.bonus = get("bonus")
        self.conditions = MappingProxyType({tile: data.conditions(tile) for tile in data.tile_ids})
        self.tile_points = MappingProxyType(dict(data.tile_points))
        self._frozen = True

    def __setattr__(self, name: str, value: object) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError("scoring values are read-only")
        object.__setattr__(self, name, value)


def linked_roads(layout: Layout, roads: int) -> int:
    """Roads linked to a black edge, directly or through other roads."""
    return layout.flood(roads & layout.black_cells, roads)


def roads_points(layout: Layout, pts: Points, roads: int) -> int:
    return linked_roads(layout, roads).bit_count() * pts.road


def parks_points(layout: Layout, pts: Points, masks: Sequence[int]) -> int:
    parks = masks[PARK]
    if not parks:
        return 0
    nb = layout.neighbours
    points = (parks & nb(masks[HOME])).bit_count() * pts.park_home
    if layout.seaside:
        return points + (parks & layout.beach_cells).bit_count() * pts.park_beach
    return points + (parks & nb(masks[FACTORY])).bit_count() * pts.park_factory


def factories_points(layout: Layout, pts: Points, masks: Sequence[int]) -> int:
    factories = masks[FACTORY]
    if not factories:
        return 0
    nb = layout.neighbours
    return ((factories & nb(factories)).bit_count() * pts.factory_factory
            + (factories & nb(masks[ROAD])).bit_count() * pts.factory_road)


def linked_shops(layout: Layout, shops: int, roads: int) -> int:
    """Shops on a black edge or next to a road linked to one."""
    if not shops:
        return 0
    reach = layout.black_cells | layout.neighbours(linked_roads(layout, roads))
    return shops & reach


def shops_points(layout: Layout, masks: Sequence[int]) -> int:
    linked = linked_shops(layout, masks[SHOP], masks[ROAD])
    return sum(points * (linked & zone).bit_count() for points, zone in layout.zone_masks)


def home_groups(layout: Layout, homes: int) -> list[int]:
    """The groups of orthogonally adjacent homes, as masks."""
    groups = []
    while homes:
        group = layout.flood(homes & -homes, homes)
        groups.append(group)
        homes &= ~group
    return groups


def homes_points(layout: Layout, pts: Points, masks: Sequence[int]) -> int:
    homes = masks[HOME]
    if not homes:
        return 0
    near_factory = layout.neighbours(masks[FACTORY])
    points = 0
    for group in home_groups(layout, homes):
        spoilt = bool(group & near_factory)
        if not spoilt:
            points += pts.home_group
        if group & layout.beach_cells and (not spoilt or pts.home_beach_despite_factory):
            points += pts.home_beach
    return points


def condition_holds(condition, line: int, masks: Sequence[int], built: int) -> bool:
    """Whether one bonus condition holds on the cells of `line`."""
    if condition.kind == "full":
        return not line & ~built
    if condition.kind == "count":
        return (masks[BUILDINGS.index(condition.building)] & line).bit_count() >= condition.at_least
    return sum(1 for m in masks if m & line) >= condition.at_least


def flipped_tiles(layout: Layout, pts: Points, tiles: Sequence[int], masks: Sequence[int]) -> list[bool]:
    """For each bonus slot, whether its tile (`tiles[slot]`) is flipped."""
    built = masks[0] | masks[1] | masks[2] | masks[3] | masks[4]
    return [any(condition_holds(c, line, masks, built) for c in pts.conditions[tile])
            for tile, line in zip(tiles, layout.lines)]


def score(board: Board, pts: Points, tiles: Sequence[int], family: bool = False,
          construction: bool = False) -> Score:
    """The full breakdown of one board (family: only bonus tiles score; construction:
    a board with construction tiles left scores a total of 0)."""
    layout, masks = board.layout, board.masks
    flags = flipped_tiles(layout, pts, tiles, masks)
    flipped = sum(flags)
    if family:
        parts = [0, 0, 0, 0, 0]
    else:
        parts = [roads_points(layout, pts, masks[ROAD]), parks_points(layout, pts, masks),
                 factories_points(layout, pts, masks), shops_points(layout, masks),
                 homes_points(layout, pts, masks)]
    bonus = sum(pts.tile_points[tile] for tile, flag in zip(tiles, flags) if flag)
    left = len(board.construction)
    qualified = not (construction and left)
    total = sum(parts) + bonus if qualified else 0
    return Score(*parts, bonus, flipped, board.empty_cells, left, qualified, total)


def tile_points(board: Board, pts: Points) -> int:
    """Points of the buildings alone (no bonus tiles): what most moves change."""
    layout, masks = board.layout, board.masks
    return (roads_points(layout, pts, masks[ROAD]) + parks_points(layout, pts, masks)
            + factories_points(layout, pts, masks) + shops_points(layout, masks)
            + homes_points(layout, pts, masks))


def ranks(scores: Sequence[Score]) -> list[int]:
    """Competition ranks (1 = best): qualified players first (construction variant),
    then total, more flipped bonus tiles, fewer empty cells; players still tied share
    the rank (and the win)."""
    keys = [(s.qualified, s.total, s.flipped, -s.empty) for s in scores]
    return [1 + sum(other > key for other in keys) for key in keys]
