"""Board values for search strategies, for many candidate placements at once.

A decision compares up to a few hundred placements on one board. Each changes
one building mask, so :meth:`Evaluator.values` scores the board once and, per
candidate, recomputes only the categories that depend on the placed type and
the bonus lines the placement touches; everything is bit operations on ints.

The value of a board: its points now (tile categories, none in the family
variant, and flipped bonus tiles) plus a potential; after the last round, the
exact total (a board that failed the construction goal is worth -1000).
Potential terms and their weights (strategy parameters):

- `open`: per scoring point still to be had next to a free cell: a park without
  a home (or, inland, a factory) beside it, a factory without a factory or a
  road beside it, a road or a shop not linked to a black edge;
- `bonus`: per unflipped bonus tile that can still flip, its points times the
  square of its best condition's progress (share of the line built, of the
  count, of the distinct types), when the line has room enough left;
- `construction`: minus this per construction tile still on the board, times
  (1 + `construction_growth` x rounds played): the risk of a 0 grows;
- `space`: per free cell (room for the rounds to come).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from .board import Board, Layout, remaining_construction
from .data import BUILDINGS
from .scoring import (FACTORY, HOME, PARK, ROAD, SHOP, Points, factories_points, homes_points,
                      linked_roads, parks_points)

FULL, COUNT, DISTINCT = range(3)
DEPENDS: dict[int, tuple[str, ...]] = {
    HOME: ("homes", "parks"),
    SHOP: ("shops",),
    FACTORY: ("factories", "homes", "parks"),
    PARK: ("parks",),
    ROAD: ("roads", "shops", "factories"),
}
"""The categories a placement of each building type can change."""
WEIGHTS = ("open", "bonus", "construction", "construction_growth", "space")


def compiled_conditions(pts: Points, tiles: Sequence[int], layout: Layout) -> list[tuple]:
    """Per bonus slot: (line mask, line size, [(kind, building code, need), ...])."""
    kinds = {"full": FULL, "count": COUNT, "distinct": DISTINCT}
    out = []
    for tile, line in zip(tiles, layout.lines):
        conds = [(kinds[c.kind], BUILDINGS.index(c.building) if c.building else -1,
                  line.bit_count() if c.kind == "full" else c.at_least)
                 for c in pts.conditions[tile]]
        out.append((line, conds))
    return out


def slot_state(line: int, conds: list, masks: Sequence[int], built: int, free: int) -> tuple[bool, float]:
    """(flipped, best progress of a condition the line still has room for)."""
    room = (line & free).bit_count()
    best = 0.0
    for kind, code, need in conds:
        if kind == FULL:
            have = (line & built).bit_count()
        elif kind == COUNT:
            have = (masks[code] & line).bit_count()
        else:
            have = sum(1 for m in masks if m & line)
        if have >= need:
            return True, 1.0
        if need - have <= room:
            share = have / need
            if share > best:
                best = share
    return False, best


class Evaluator:
    """Values of boards for one seat's search (weights: see the module docstring)."""

    def __init__(self, weights: Mapping[str, float]) -> None:
        self.open, self.bonus, self.construction, self.growth, self.space = (
            float(weights[k]) for k in WEIGHTS)
        self._rules = None
        self._tiles: tuple = ()
        self._slots: list[tuple] = []

    def _prepare(self, view) -> None:
        if view.rules is not self._rules or view.tiles != self._tiles:
            self._rules, self._tiles = view.rules, view.tiles
            self._slots = compiled_conditions(view.rules.points, view.tiles, view.rules.layout)

    def value(self, board: Board, view, rounds_left: int) -> float:
        """The value of one board."""
        return self.values(board, view, rounds_left, ((0, 0),))[0]

    def values(self, board: Board, view, rounds_left: int,
               placements: Sequence[tuple[int, int]]) -> list[float]:
        """The value of `board` after each (building code, cell mask) placement."""
        self._prepare(view)
        rules = view.rules
        pts, layout = rules.points, board.layout
        family = rules.variant.family
        strict = rules.variant.uses_construction
        masks = board.masks
        base = _categories(layout, pts, masks)
        built = board.built
        free = layout.full & ~(built | board.blocked)
        slots = self._slots
        base_slots = [slot_state(line, conds, masks, built, free) for line, conds in slots]
        played = view.rounds - rounds_left
        out = []
        for code, mask in placements:
            after = list(masks)
            after[code] |= mask
            tiles = remaining_construction(layout, after, board.construction)
            blocked = 0
            for cell, _ in tiles:
                blocked |= cell
            built2 = built | mask
            free2 = layout.full & ~(built2 | blocked)
            touched = mask | (free2 & ~free)
            cats = dict(base)
            if mask:
                _update(cats, layout, pts, after, code)
            flips, progress = 0, 0.0
            for (line, conds), state in zip(slots, base_slots):
                if line & touched:
                    state = slot_state(line, conds, after, built2, free2)
                if state[0]:
                    flips += 1
                else:
                    progress += state[1] * state[1]
            now = (0 if family else sum(cats.values())) + flips * pts.bonus
            if rounds_left <= 0:
                out.append(-1000.0 - len(tiles) if strict and tiles
                           else now + 0.01 * flips - 0.001 * free2.bit_count())
                continue
            value = now + self.space * free2.bit_count() + self.bonus * pts.bonus * progress
            if self.open and not family:
                value += self.open * open_points(layout, after, free2, cats["_linked"])
            if tiles:
                value -= self.construction * len(tiles) * (1 + self.growth * played)
            out.append(value)
        return out


def _categories(layout: Layout, pts: Points, masks: Sequence[int]) -> dict:
    linked = linked_roads(layout, masks[ROAD])
    return {"roads": linked.bit_count() * pts.road, "parks": parks_points(layout, pts, masks),
            "factories": factories_points(layout, pts, masks),
            "shops": _shops(layout, masks[SHOP], linked), "homes": homes_points(layout, pts, masks),
            "_linked": linked}


def _update(cats: dict, layout: Layout, pts: Points, masks: Sequence[int], code: int) -> None:
    if code == ROAD:
        cats["_linked"] = linked = linked_roads(layout, masks[ROAD])
        cats["roads"] = linked.bit_count() * pts.road
    for name in DEPENDS[code]:
        if name == "parks":
            cats["parks"] = parks_points(layout, pts, masks)
        elif name == "factories":
            cats["factories"] = factories_points(layout, pts, masks)
        elif name == "shops":
            cats["shops"] = _shops(layout, masks[SHOP], cats["_linked"])
        elif name == "homes":
            cats["homes"] = homes_points(layout, pts, masks)


def _shops(layout: Layout, shops: int, linked: int) -> int:
    if not shops:
        return 0
    ok = shops & (layout.black_cells | layout.neighbours(linked))
    return sum(points * (ok & zone).bit_count() for points, zone in layout.zone_masks)


def open_points(layout: Layout, masks: Sequence[int], free: int, linked: int) -> int:
    """Scoring points a board still lacks next to a free cell (see the module docstring)."""
    nb = layout.neighbours
    by_free = nb(free)
    parks, factories = masks[PARK] & by_free, masks[FACTORY] & by_free
    count = 0
    if parks:
        count += (parks & ~nb(masks[HOME])).bit_count()
        if not layout.seaside:
            count += (parks & ~nb(masks[FACTORY])).bit_count()
    if factories:
        count += (factories & ~nb(masks[FACTORY])).bit_count()
        count += (factories & ~nb(masks[ROAD])).bit_count()
    count += (masks[ROAD] & by_free & ~linked).bit_count()
    shops = masks[SHOP] & by_free
    if shops:
        count += (shops & ~(layout.black_cells | nb(linked))).bit_count()
    return count
