"""Terms for judging a sheet, shared by strategies (part of the strategy API).

Each term is a plain function of a sheet, so strategies can weight and combine
them. The street-level facts they need are computed once per street state
(:func:`street_features`) and cached on the sheet until that street changes,
so trying a move on a copy only recomputes the street it touched.
"""

from __future__ import annotations

from operator import mul
from typing import NamedTuple, Sequence

from .rules.data import MAX_ESTATE_SIZE, MAX_NUMBER, MIN_NUMBER, PlanSpec
from .rules.sheet import Sheet

NUMBER_RANGE = MAX_NUMBER - MIN_NUMBER + 1


class StreetFeatures(NamedTuple):
    """Facts about one street, per estate size 1..6 (index 0 = size 1)."""

    completed: tuple[int, ...]
    """completed estates of each size"""
    unused: tuple[int, ...]
    """completed estates of each size that no plan uses yet"""
    partial: tuple[float, ...]
    """for unfinished fenced runs of each size: sum of (built share)²"""
    flexibility: float
    """houses of the street that could still be built (see `flexibility`)"""


def number_weights(deck: Sequence[tuple[int, str]]) -> tuple[float, ...]:
    """How easy each number 0..17 is to get: 1 for numbers with at least four
    cards, less for rarer ones; 0, 16 and 17 only come through the temp agency."""
    counts = [0] * NUMBER_RANGE
    for number, _effect in deck:
        counts[number - MIN_NUMBER] += 1
    return tuple(min(1.0, c / 4) if c else 0.25 for c in counts)


_WEIGHT_CACHE: dict[int, tuple[float, ...]] = {}


def _weights(sheet: Sheet) -> tuple[float, ...]:
    key = id(sheet.data.deck)
    weights = _WEIGHT_CACHE.get(key)
    if weights is None:
        weights = _WEIGHT_CACHE[key] = number_weights(sheet.data.deck)
    return weights


def street_flexibility(sheet: Sheet, street: int) -> float:
    """How many empty houses of a street could still be built. Each gap (empty
    houses between two written numbers of a segment) takes at most as many
    houses as there are numbers left that fit in it, rare numbers counting less."""
    weights = _weights(sheet)
    total = 0.0
    gap_len, gap_end, gap_lo, gap_hi = 0, -2, 0, 0
    for house, lo, hi in sheet.street_bounds(street) + [(-2, 0, 0)]:
        if house == gap_end + 1 and lo == gap_lo and hi == gap_hi:
            gap_len, gap_end = gap_len + 1, house
            continue
        if gap_len:
            numbers = sum(weights[max(gap_lo + 1, MIN_NUMBER):min(gap_hi, MAX_NUMBER + 1)])
            total += gap_len if gap_len < numbers else numbers
        gap_len, gap_end, gap_lo, gap_hi = 1, house, lo, hi
    return total


def street_features(sheet: Sheet, street: int) -> StreetFeatures:
    """The cached :class:`StreetFeatures` of one street."""
    cached = sheet.street_cache[street]
    if cached is not None:
        return cached  # type: ignore[return-value]
    completed = [0] * MAX_ESTATE_SIZE
    unused = [0] * MAX_ESTATE_SIZE
    partial = [0.0] * MAX_ESTATE_SIZE
    numbers = sheet.numbers[street]
    rounds = sheet.roundabouts[street]
    use = sheet.plan_use[street]
    for first, length, done in sheet.runs(street):
        if length > MAX_ESTATE_SIZE:
            continue
        houses = range(first, first + length)
        if done:
            completed[length - 1] += 1
            if not any(use[h] for h in houses):
                unused[length - 1] += 1
        elif not any(rounds[h] for h in houses):
            built = sum(numbers[h] is not None for h in houses)
            partial[length - 1] += (built / length) ** 2
    features = StreetFeatures(tuple(completed), tuple(unused), tuple(partial),
                              street_flexibility(sheet, street))
    sheet.street_cache[street] = features
    return features


def sheet_features(sheet: Sheet) -> list[StreetFeatures]:
    return [street_features(sheet, s) for s in range(len(sheet.numbers))]


def estate_values(sheet: Sheet) -> list[int]:
    """Current value of one completed estate of each size 1..6."""
    return [track[k] for track, k in zip(sheet.data.real_estate_tracks, sheet.real_estate)]


def points_now(sheet: Sheet, temp_value: float = 1.0) -> float:
    """The sheet's score if the game ended now, with each temp box worth
    `temp_value` (the real temp points depend on the other players)."""
    data = sheet.data
    values = estate_values(sheet)
    estates = sum(
        count * value
        for features in sheet_features(sheet)
        for count, value in zip(features.completed, values)
    )
    return (
        sum(sheet.plan_points)
        + sum(track[k] for track, k in zip(data.park_tracks, sheet.parks))
        + data.pool_track[sheet.n_pools]
        + estates
        - data.bis_track[sheet.n_bis]
        - data.roundabout_track[sheet.n_roundabouts]
        - data.refusal_track[sheet.refusals]
        + temp_value * sheet.temps
    )


def estate_potential(sheet: Sheet) -> float:
    """Value of unfinished estates: for each fenced run of 1..6 houses that is
    not complete yet, its estate value times the square of the share of its
    houses already built (a half-built estate counts a quarter)."""
    values = estate_values(sheet)
    return sum(
        share * value
        for features in sheet_features(sheet)
        for share, value in zip(features.partial, values)
    )


def flexibility(sheet: Sheet) -> float:
    """Empty houses that could still be built, over all streets (see
    :func:`street_flexibility`). Losing it is what later forces refusals."""
    return sum(features.flexibility for features in sheet_features(sheet))


def plan_progress(sheet: Sheet, plans: Sequence[PlanSpec],
                  first_turn: Sequence[int | None] = (None, None, None)) -> float:
    """Points in reach on unfinished estate plans: each plan's current value
    (high while nobody has it) times the share of its required estates that the
    sheet has unused and completed."""
    available = [0] * MAX_ESTATE_SIZE
    for features in sheet_features(sheet):
        for size, count in enumerate(features.unused):
            available[size] += count
    total = 0.0
    for deck, spec in enumerate(plans):
        if sheet.plan_turns[deck] is not None or spec.kind != "estates":
            continue
        remaining = available[:]
        have = 0
        for size in spec.estates:
            if remaining[size - 1] > 0:
                remaining[size - 1] -= 1
                have += 1
        points = spec.points[0] if first_turn[deck] is None else spec.points[1]
        total += points * have / len(spec.estates)
    return total


def board_value(sheet: Sheet) -> float:
    """The thematic board's points as they stand (street-race bonuses left out).
    Egg thresholds are interpolated linearly so that every egg counts a little."""
    state = sheet.board
    if state is None:
        return 0.0
    total_eggs = getattr(state, "total", None)
    if total_eggs is None:
        return float(state.points(sheet))  # type: ignore[attr-defined]
    eggs = total_eggs()
    steps = [(0, 0), *sorted(sheet.data.egg_scores)]
    for (low, low_points), (high, high_points) in zip(steps, steps[1:]):
        if eggs < high:
            return low_points + (high_points - low_points) * (eggs - low) / (high - low)
    return float(steps[-1][1])


class Terms(NamedTuple):
    """All evaluation terms of a sheet, computed in one pass (see the functions above)."""

    points: float
    estate_potential: float
    flexibility: float
    plan_progress: float
    board: float


def sheet_terms(sheet: Sheet, plans: Sequence[PlanSpec],
                first_turn: Sequence[int | None] = (None, None, None),
                temp_value: float = 1.0) -> Terms:
    """`points_now`, `estate_potential`, `flexibility`, `plan_progress` and
    `board_value` at once, sharing the per-street features: the cheap way for
    search strategies."""
    data = sheet.data
    values = list(map(_track_value, data.real_estate_tracks, sheet.real_estate))
    features = sheet_features(sheet)
    estates = potential = flex = 0.0
    for f in features:
        estates += sum(map(mul, f.completed, values))
        potential += sum(map(mul, f.partial, values))
        flex += f.flexibility
    points = (
        sum(sheet.plan_points)
        + sum(map(_track_value, data.park_tracks, sheet.parks))
        + data.pool_track[sheet.n_pools]
        + estates
        - data.bis_track[sheet.n_bis]
        - data.roundabout_track[sheet.n_roundabouts]
        - data.refusal_track[sheet.refusals]
        + temp_value * sheet.temps
    )
    progress = 0.0
    unused: list[int] | None = None
    for deck, spec in enumerate(plans):
        if sheet.plan_turns[deck] is not None or spec.kind != "estates":
            continue
        if unused is None:
            unused = [sum(counts) for counts in zip(*(f.unused for f in features))]
        remaining = unused[:]
        have = 0
        for size in spec.estates:
            if remaining[size - 1] > 0:
                remaining[size - 1] -= 1
                have += 1
        value = spec.points[0] if first_turn[deck] is None else spec.points[1]
        progress += value * have / len(spec.estates)
    board = board_value(sheet) if sheet.board is not None else 0.0
    return Terms(points, potential, flex, progress, board)


def _track_value(track: Sequence[int], crossed: int) -> int:
    return track[crossed]
