"""The search evaluation of :mod:`.evaluation` on numpy arrays: many boards at once.

`lookahead` values every reply to every sampled shake after each of its
candidate moves: several hundred boards per decision. Here they are rows of
`uint64` arrays (one bit-set per building type), scored with array operations,
so a decision costs a few hundred numpy calls instead of a Python loop per
board. The values are bit-for-bit those of :meth:`Evaluator.values` (the same
operations in the same order; `tests/test_shake_that_city_games.py` checks it).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .board import Board, Layout
from .evaluation import COUNT, FULL, Evaluator
from .scoring import FACTORY, HOME, PARK, ROAD, SHOP, Points

U64 = np.uint64

if hasattr(np, "bitwise_count"):
    def popcount(a: np.ndarray) -> np.ndarray:
        """Set bits per element, as int64."""
        return np.bitwise_count(a).astype(np.int64)
else:  # numpy < 2.0
    _BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)

    def popcount(a: np.ndarray) -> np.ndarray:
        """Set bits per element, as int64."""
        return _BYTE_BITS[np.ascontiguousarray(a, dtype=U64).view(np.uint8)].reshape(-1, 8).sum(1)


class _Geometry:
    """A layout's masks as numpy scalars."""

    def __init__(self, layout: Layout) -> None:
        self.cols = U64(layout.cols)
        self.one = U64(1)
        self.not_first = U64(layout.not_first_col)
        self.not_last = U64(layout.not_last_col)
        self.full = U64(layout.full)
        self.black = U64(layout.black_cells)
        self.beach = U64(layout.beach_cells)
        self.zones = [(points, U64(zone)) for points, zone in layout.zone_masks]
        self.seaside = layout.seaside

    def nb(self, m: np.ndarray) -> np.ndarray:
        one, cols = self.one, self.cols
        return (((m << one) & self.not_first) | ((m >> one) & self.not_last)
                | (m << cols) | (m >> cols)) & self.full

    def flood(self, seed: np.ndarray, within: np.ndarray) -> np.ndarray:
        reach = seed & within
        while True:
            grown = (reach | self.nb(reach)) & within
            if np.array_equal(grown, reach):
                return reach
            reach = grown


def batch_values(evaluator: Evaluator, view, rounds_left: int, boards: Sequence[Board],
                 rows: Sequence[tuple[int, int, int]]) -> np.ndarray:
    """Values of `boards[b]` after placing (code, mask) for every row (b, code, mask)."""
    evaluator._prepare(view)
    rules = view.rules
    layout, pts = rules.layout, rules.points
    geo = _Geometry(layout)
    index = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    codes = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    placed = np.fromiter((r[2] for r in rows), dtype=U64, count=len(rows))
    base = np.array([b.masks for b in boards], dtype=U64).reshape(len(boards), 5)[index]
    masks = [base[:, t] | np.where(codes == t, placed, U64(0)) for t in range(5)]
    nbs = [geo.nb(m) for m in masks]
    built = masks[0] | masks[1] | masks[2] | masks[3] | masks[4]
    left, free = _construction(layout, boards, index, masks, nbs, built, geo)
    linked = geo.flood(masks[ROAD] & geo.black, masks[ROAD])
    reach = geo.black | geo.nb(linked)
    cats = _categories(geo, pts, masks, nbs, linked, reach)
    flips, flipped, progress = _slots(evaluator._slots, evaluator._slot_points, evaluator._slot_weights,
                                      masks, built, free)
    family = rules.variant.family
    now = (0 if family else cats) + flipped
    free_count = popcount(free)
    if rounds_left <= 0:
        final = now + 0.01 * flips - 0.001 * free_count
        if rules.variant.uses_construction:
            final = np.where(left > 0, -1000.0 - left, final)
        return final
    value = now + evaluator.space * free_count + evaluator.bonus * (pts.bonus or 1) * progress
    if evaluator.open and not family:
        value = value + evaluator.open * _open_points(geo, masks, nbs, free, linked, reach)
    construction = evaluator.construction * (1 + evaluator.growth * (view.rounds - rounds_left))
    return value - construction * left


def _construction(layout: Layout, boards, index, masks, nbs, built, geo):
    """Construction tiles left per row, and the free cells."""
    n = len(index)
    left = np.zeros(n, dtype=np.int64)
    blocked = np.zeros(n, dtype=U64)
    cells: dict[int, int] = {}
    present = np.zeros((len(boards), len(layout.pairs)), dtype=bool)
    for b, board in enumerate(boards):
        for cell, pair in board.construction:
            present[b, pair] = True
            cells[pair] = cell
    for pair, cell in cells.items():
        a, other = layout.pairs[pair]
        kept = present[index, pair] & ((masks[a] & nbs[other]) == 0)
        left += kept
        blocked |= np.where(kept, U64(cell), U64(0))
    return left, geo.full & ~(built | blocked)


def _categories(geo: _Geometry, pts: Points, masks, nbs, linked, reach) -> np.ndarray:
    """Tile points per row: roads, parks, factories, shops, homes (in that order)."""
    roads = popcount(linked) * pts.road
    parks = masks[PARK]
    park_points = popcount(parks & nbs[HOME]) * pts.park_home
    if geo.seaside:
        park_points = park_points + popcount(parks & geo.beach) * pts.park_beach
    else:
        park_points = park_points + popcount(parks & nbs[FACTORY]) * pts.park_factory
    factories = masks[FACTORY]
    factory_points = (popcount(factories & nbs[FACTORY]) * pts.factory_factory
                      + popcount(factories & nbs[ROAD]) * pts.factory_road)
    ok = masks[SHOP] & reach
    shop_points = np.zeros(len(ok), dtype=np.int64)
    for points, zone in geo.zones:
        shop_points = shop_points + points * popcount(ok & zone)
    return roads + park_points + factory_points + shop_points + _homes(geo, pts, masks, nbs)


def _homes(geo: _Geometry, pts: Points, masks, nbs) -> np.ndarray:
    remaining = masks[HOME].copy()
    near = nbs[FACTORY]
    points = np.zeros(len(remaining), dtype=np.int64)
    zero = U64(0)
    while remaining.any():
        low = remaining & (~remaining + geo.one)
        group = geo.flood(low, remaining)
        has = group != zero
        spoilt = (group & near) != zero
        points += np.where(has & ~spoilt, pts.home_group, 0)
        beach = has & ((group & geo.beach) != zero)
        if not pts.home_beach_despite_factory:
            beach &= ~spoilt
        points += np.where(beach, pts.home_beach, 0)
        remaining &= ~group
    return points


def _slots(slots, points, weights, masks, built, free) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the flipped bonus tiles, their points, and the weighted sum of
    squared progress of the others (see evaluation.slot_points)."""
    n = len(built)
    flips = np.zeros(n, dtype=np.int64)
    flipped_points = np.zeros(n, dtype=np.int64)
    progress = np.zeros(n, dtype=np.float64)
    for (line, conds), tile_points, weight in zip(slots, points, weights):
        line = U64(line)
        room = popcount(line & free)
        flipped = np.zeros(n, dtype=bool)
        best = np.zeros(n, dtype=np.float64)
        for kind, code, need in conds:
            if kind == FULL:
                have = popcount(line & built)
            elif kind == COUNT:
                have = popcount(masks[code] & line)
            else:
                have = sum(((m & line) != 0).astype(np.int64) for m in masks)
            flipped |= have >= need
            if need:
                share = np.where(need - have <= room, have / need, 0.0)
                best = np.maximum(best, share)
        flips += flipped
        flipped_points += flipped * tile_points
        progress = progress + np.where(flipped, 0.0, weight * best * best)
    return flips, flipped_points, progress


def _open_points(geo: _Geometry, masks, nbs, free, linked, reach) -> np.ndarray:
    by_free = geo.nb(free)
    parks = masks[PARK] & by_free
    count = popcount(parks & ~nbs[HOME])
    if not geo.seaside:
        count = count + popcount(parks & ~nbs[FACTORY])
    factories = masks[FACTORY] & by_free
    count = count + popcount(factories & ~nbs[FACTORY]) + popcount(factories & ~nbs[ROAD])
    count = count + popcount(masks[ROAD] & by_free & ~linked)
    return count + popcount(masks[SHOP] & by_free & ~reach)
