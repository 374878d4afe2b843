"""Terms for judging a sheet, shared by strategies (part of the strategy API).

Each term is a plain function of a sheet, so strategies can weight and combine
them. Points-valued terms are in game points; the potential terms are rough
estimates whose scale is documented on each function.
"""

from __future__ import annotations

from typing import Sequence

from .rules.data import MAX_ESTATE_SIZE, MAX_NUMBER, MIN_NUMBER, PlanSpec
from .rules.scoring import estate_points
from .rules.sheet import Sheet

NUMBER_RANGE = MAX_NUMBER - MIN_NUMBER + 1


def points_now(sheet: Sheet, temp_value: float = 1.0) -> float:
    """The sheet's score if the game ended now, with each temp box worth
    `temp_value` (the real temp points depend on the other players)."""
    data = sheet.data
    return (
        sum(sheet.plan_points)
        + sum(track[k] for track, k in zip(data.park_tracks, sheet.parks))
        + data.pool_track[sheet.n_pools]
        + estate_points(sheet)
        - data.bis_track[sheet.n_bis]
        - data.roundabout_track[sheet.n_roundabouts]
        - data.refusal_track[sheet.refusals]
        + temp_value * sheet.temps
    )


def estate_potential(sheet: Sheet) -> float:
    """Expected-ish value of unfinished estates: for each fenced run of 1..6
    houses that is not complete yet, its estate value times the square of the
    share of its houses already built (a half-built estate counts a quarter)."""
    tracks = sheet.data.real_estate_tracks
    total = 0.0
    for street, numbers in enumerate(sheet.numbers):
        rounds = sheet.roundabouts[street]
        for first, length, done in sheet.runs(street):
            if done or length > MAX_ESTATE_SIZE:
                continue
            houses = range(first, first + length)
            if any(rounds[h] for h in houses):
                continue
            built = sum(numbers[h] is not None for h in houses)
            value = tracks[length - 1][sheet.real_estate[length - 1]]
            total += value * (built / length) ** 2
    return total


def number_weights(deck: Sequence[tuple[int, str]]) -> tuple[float, ...]:
    """How easy each number 0..17 is to get: 1 for numbers with at least four
    cards, less for rarer ones; 0, 16 and 17 only come through the temp agency."""
    counts = [0] * NUMBER_RANGE
    for number, _effect in deck:
        counts[number - MIN_NUMBER] += 1
    return tuple(min(1.0, c / 4) if c else 0.25 for c in counts)


_WEIGHT_CACHE: dict[int, tuple[float, ...]] = {}


def flexibility(sheet: Sheet) -> float:
    """How many empty houses could still be built. Each gap (empty houses between
    two written numbers of a street segment) can take at most as many houses as
    there are numbers left that fit in it, rare numbers counting less.
    Losing flexibility is what later forces permit refusals."""
    key = id(sheet.data.deck)
    weights = _WEIGHT_CACHE.get(key)
    if weights is None:
        weights = _WEIGHT_CACHE[key] = number_weights(sheet.data.deck)
    total = 0.0
    for street in range(len(sheet.numbers)):
        gap_len, gap_end, gap_lo, gap_hi = 0, -2, 0, 0
        for house, lo, hi in sheet.street_bounds(street) + [(-2, 0, 0)]:
            if house == gap_end + 1 and (lo, hi) == (gap_lo, gap_hi):
                gap_len, gap_end = gap_len + 1, house
                continue
            if gap_len:
                numbers = sum(weights[max(gap_lo + 1, MIN_NUMBER):min(gap_hi, MAX_NUMBER + 1)])
                total += min(gap_len, numbers)
            gap_len, gap_end, gap_lo, gap_hi = 1, house, lo, hi
    return total


def plan_progress(sheet: Sheet, plans: Sequence[PlanSpec],
                  first_turn: Sequence[int | None] = (None, None, None)) -> float:
    """Points in reach on unfinished estate plans: each plan's current value
    (high while nobody has it) times the share of its required estates that the
    sheet has unused and completed."""
    available: dict[int, int] = {}
    for _street, _first, size in sheet.unused_estates():
        available[size] = available.get(size, 0) + 1
    total = 0.0
    for deck, spec in enumerate(plans):
        if sheet.plan_turns[deck] is not None or spec.kind != "estates":
            continue
        remaining = dict(available)
        have = 0
        for size in spec.estates:
            if remaining.get(size, 0) > 0:
                remaining[size] -= 1
                have += 1
        points = spec.points[0] if first_turn[deck] is None else spec.points[1]
        total += points * have / len(spec.estates)
    return total
