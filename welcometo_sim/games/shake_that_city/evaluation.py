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

from .board import Board, Layout
from .data import BUILDINGS
from .scoring import FACTORY, HOME, PARK, ROAD, SHOP, Points, homes_points, linked_roads

FULL, COUNT, DISTINCT = range(3)
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


def slot_points(pts: Points, tiles: Sequence[int]) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Per bonus slot: its tile's points, and its weight in the progress term
    (points over `scoring.bonus`, the progress term's unit: exactly 1.0 for
    every tile when no tile has points of its own, so that such games value
    boards to the last bit as before tiles could)."""
    points = tuple(pts.tile_points[tile] for tile in tiles)
    unit = pts.bonus or 1
    return points, tuple(p / unit for p in points)


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
        self._slot_points: tuple[int, ...] = ()
        self._slot_weights: tuple[float, ...] = ()

    def _prepare(self, view) -> None:
        if view.rules is not self._rules or view.tiles != self._tiles:
            self._rules, self._tiles = view.rules, view.tiles
            self._slots = compiled_conditions(view.rules.points, view.tiles, view.rules.layout)
            self._slot_points, self._slot_weights = slot_points(view.rules.points, view.tiles)

    def value(self, board: Board, view, rounds_left: int) -> float:
        """The value of one board."""
        return self.values(board, view, rounds_left, ((0, 0),))[0]

    def values(self, board: Board, view, rounds_left: int,
               placements: Sequence[tuple[int, int]]) -> list[float]:
        """The value of `board` after each (building code, cell mask) placement."""
        self._prepare(view)
        rules = view.rules
        base = _Base(board, rules.points)
        family, strict = rules.variant.family, rules.variant.uses_construction
        unit = rules.points.bonus or 1
        slots, points, weights = self._slots, self._slot_points, self._slot_weights
        base_slots = [slot_state(line, conds, base.masks, base.built, base.free)
                      for line, conds in slots]
        construction = self.construction * (1 + self.growth * (view.rounds - rounds_left))
        out = []
        for code, mask in placements:
            cand = base.after(code, mask)
            touched = mask | (cand.free & ~base.free)
            flips, flipped, progress = 0, 0, 0.0
            for (line, conds), state, tile_points, weight in zip(slots, base_slots, points, weights):
                if line & touched:
                    state = slot_state(line, conds, cand.masks, cand.built, cand.free)
                if state[0]:
                    flips += 1
                    flipped += tile_points
                else:
                    progress += weight * state[1] * state[1]
            now = (0 if family else cand.points) + flipped
            left = cand.tiles_left
            if rounds_left <= 0:
                out.append(-1000.0 - left if strict and left
                           else now + 0.01 * flips - 0.001 * cand.free.bit_count())
                continue
            value = now + self.space * cand.free.bit_count() + self.bonus * unit * progress
            if self.open and not family:
                value += self.open * cand.open_points()
            out.append(value - construction * left)
        return out


class _Base:
    """A board's masks, neighbour masks and category points, to derive candidates from."""

    __slots__ = ("layout", "pts", "masks", "nbs", "built", "free", "linked", "reach", "cats",
                 "tiles", "tiles_left", "points")

    def __init__(self, board: Board | None, pts: Points, parent: "_Base | None" = None) -> None:
        if board is None:
            return
        layout = self.layout = board.layout
        self.pts = pts
        self.masks = masks = list(board.masks)
        nb = layout.neighbours
        self.nbs = [nb(m) for m in masks]
        self.built = board.built
        self.tiles = board.construction
        self.tiles_left = len(self.tiles)
        self.free = layout.full & ~(self.built | board.blocked)
        self.linked = linked_roads(layout, masks[ROAD])
        self.reach = layout.black_cells | nb(self.linked)
        self.cats = [self.linked.bit_count() * pts.road, _parks(self), _factories(self),
                     _shops(self), _homes(self)]
        self.points = sum(self.cats)

    def after(self, code: int, mask: int) -> "_Base":
        """The candidate after placing `mask` of building `code` (shares what did not change)."""
        if not mask:
            return self
        layout = self.layout
        cand = _Base(None, self.pts)
        cand.layout, cand.pts = layout, self.pts
        cand.masks = masks = list(self.masks)
        masks[code] |= mask
        cand.nbs = nbs = list(self.nbs)
        nbs[code] = layout.neighbours(masks[code])
        cand.built = built = self.built | mask
        kept = self.tiles
        if kept:
            pairs = layout.pairs
            kept = tuple(t for t in kept if not masks[pairs[t[1]][0]] & nbs[pairs[t[1]][1]])
        cand.tiles, cand.tiles_left = kept, len(kept)
        blocked = 0
        for cell, _ in kept:
            blocked |= cell
        cand.free = layout.full & ~(built | blocked)
        cand.cats = cats = list(self.cats)
        if code == ROAD:
            cand.linked = linked_roads(layout, masks[ROAD])
            cand.reach = layout.black_cells | layout.neighbours(cand.linked)
            cats[0] = cand.linked.bit_count() * self.pts.road
        else:
            cand.linked, cand.reach = self.linked, self.reach
        for index in RECOMPUTE[code]:
            cats[index] = CATEGORY_FUNCTIONS[index](cand)
        cand.points = sum(cats)
        return cand

    def open_points(self) -> int:
        """Scoring points the board still lacks next to a free cell (see the module docstring)."""
        masks, nbs = self.masks, self.nbs
        by_free = self.layout.neighbours(self.free)
        count = 0
        parks = masks[PARK] & by_free
        if parks:
            count += (parks & ~nbs[HOME]).bit_count()
            if not self.layout.seaside:
                count += (parks & ~nbs[FACTORY]).bit_count()
        factories = masks[FACTORY] & by_free
        if factories:
            count += (factories & ~nbs[FACTORY]).bit_count() + (factories & ~nbs[ROAD]).bit_count()
        count += (masks[ROAD] & by_free & ~self.linked).bit_count()
        count += (masks[SHOP] & by_free & ~self.reach).bit_count()
        return count


def _parks(b: _Base) -> int:
    parks = b.masks[PARK]
    if not parks:
        return 0
    pts = b.pts
    points = (parks & b.nbs[HOME]).bit_count() * pts.park_home
    if b.layout.seaside:
        return points + (parks & b.layout.beach_cells).bit_count() * pts.park_beach
    return points + (parks & b.nbs[FACTORY]).bit_count() * pts.park_factory


def _factories(b: _Base) -> int:
    factories = b.masks[FACTORY]
    if not factories:
        return 0
    return ((factories & b.nbs[FACTORY]).bit_count() * b.pts.factory_factory
            + (factories & b.nbs[ROAD]).bit_count() * b.pts.factory_road)


def _shops(b: _Base) -> int:
    ok = b.masks[SHOP] & b.reach
    if not ok:
        return 0
    return sum(points * (ok & zone).bit_count() for points, zone in b.layout.zone_masks)


def _homes(b: _Base) -> int:
    return homes_points(b.layout, b.pts, b.masks)


CATEGORY_FUNCTIONS = (None, _parks, _factories, _shops, _homes)
"""Category index (roads, parks, factories, shops, homes) -> its function on a _Base."""
RECOMPUTE: dict[int, tuple[int, ...]] = {
    HOME: (4, 1),
    SHOP: (3,),
    FACTORY: (2, 4, 1),
    PARK: (1,),
    ROAD: (3, 2),
}
"""The categories (other than roads, handled with the linked roads) a placement of each type changes."""
