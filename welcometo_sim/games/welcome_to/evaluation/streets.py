"""Street facts: how easy each number is to get, the gaps of empty houses
between written numbers and how many of their houses could still be built,
and the per-street estate counts every sheet term adds up. They are computed
once per street state (:func:`street_facts`) and cached on the sheet until
that street changes, so trying a move on a copy only recomputes the street it
touched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Sequence

from ..data import MAX_ESTATE_SIZE, MAX_NUMBER, MIN_NUMBER
from ..sheet import Sheet

if TYPE_CHECKING:
    from .fences import FenceChange


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
    open: tuple[int, ...] = (0,) * MAX_ESTATE_SIZE
    """unfinished fenced runs of each size that can still become estates"""
    share: tuple[float, ...] = (0.0,) * MAX_ESTATE_SIZE
    """for unfinished fenced runs of each size: sum of built share"""


def number_weights(deck: Sequence[tuple[int, str]]) -> tuple[float, ...]:
    """How easy each number 0..17 is to get: 1 for numbers with at least four
    cards, less for rarer ones; 0, 16 and 17 only come through the temp agency."""
    counts = [0] * NUMBER_RANGE
    for number, _effect in deck:
        counts[number - MIN_NUMBER] += 1
    return tuple(min(1.0, c / 4) if c else 0.25 for c in counts)


_WEIGHT_CACHE: dict[int, tuple[object, tuple[float, ...]]] = {}


def _weights(sheet: Sheet) -> tuple[float, ...]:
    """`number_weights` of the sheet's deck, cached per deck (the deck is kept
    to check the id: a deck freed and another made at its address must not
    get its weights)."""
    deck = sheet.data.deck
    cached = _WEIGHT_CACHE.get(id(deck))
    if cached is None or cached[0] is not deck:
        cached = _WEIGHT_CACHE[id(deck)] = (deck, number_weights(deck))
    return cached[1]


_WEIGHT_SUM_CACHE: dict[int, tuple[object, list[list[float]]]] = {}


def _weight_sums(sheet: Sheet) -> list[list[float]]:
    """`sums[lo + 1][hi]` = the sum, left to right, of the weights of the
    numbers lo < n < hi (lo from -1, hi up to 18), looked up instead of summed
    for every gap. Cached per deck (the deck is kept to check the id)."""
    deck = sheet.data.deck
    cached = _WEIGHT_SUM_CACHE.get(id(deck))
    if cached is None or cached[0] is not deck:
        weights = _weights(sheet)
        sums = [[sum(weights[max(lo + 1, MIN_NUMBER):min(hi, MAX_NUMBER + 1)]) for hi in range(MAX_NUMBER + 2)]
                for lo in range(MIN_NUMBER - 1, MAX_NUMBER + 1)]
        cached = _WEIGHT_SUM_CACHE[id(deck)] = (deck, sums)
    return cached[1]


def street_gaps(sheet: Sheet, street: int, numbers: Sequence[int | None] | None = None
                ) -> list[tuple[int, int, int, int]]:
    """The gaps of a street, left to right: (first house, length, lo, hi) for
    each run of empty houses between two written numbers of a segment (lo / hi
    are -1 / 18 at a street end or roundabout), leaving out dead gaps where no
    number fits (lo + 1 >= hi). The same houses and bounds as
    :meth:`Sheet.street_bounds`, grouped, in one pass over the street.
    `numbers` replaces the street's numbers (a write not made yet)."""
    rounds = sheet.roundabouts[street]
    if numbers is None:
        numbers = sheet.numbers[street]
    gaps = []
    lo, first = MIN_NUMBER - 1, -1
    for house, value in enumerate(numbers):
        if value is None and not rounds[house]:
            if first < 0:
                first = house
            continue
        if first >= 0:
            hi = MAX_NUMBER + 1 if rounds[house] else value
            if lo + 1 < hi:
                gaps.append((first, house - first, lo, hi))
            first = -1
        lo = MIN_NUMBER - 1 if rounds[house] else value
    if first >= 0 and lo + 1 < MAX_NUMBER + 1:
        gaps.append((first, len(numbers) - first, lo, MAX_NUMBER + 1))
    return gaps


def street_flexibility(sheet: Sheet, street: int) -> float:
    """How many empty houses of a street could still be built. Each gap (empty
    houses between two written numbers of a segment) takes at most as many
    houses as there are numbers left that fit in it, rare numbers counting less."""
    return _gaps_flexibility(sheet, street_gaps(sheet, street))


def _gaps_flexibility(sheet: Sheet, gaps: list[tuple[int, int, int, int]]) -> float:
    """`street_flexibility` of a street with these `street_gaps`."""
    weight_sums = _weight_sums(sheet)
    total = 0.0
    for _first, length, lo, hi in gaps:
        numbers = weight_sums[lo + 1][hi]
        total += length if length < numbers else numbers
    return total


class StreetFacts:
    """What evaluation knows about one street as it stands, cached on the sheet
    (``sheet.street_cache[street]``; the sheet drops it whenever the street
    changes, so it always describes the street as it is): its
    :class:`StreetFeatures`, and for move evaluation, filled on first use, the
    gap of each empty house as (first, last, lo, hi, flexibility) (see
    `MoveEvaluator._gap`), the fenced run (first, length) holding each house,
    the `MoveEvaluator._run` state of whole runs by first house, for each
    fence slot the run it would split with its two parts (as `_run` states),
    and what a fence on each slot changes at given estate values (see
    `MoveEvaluator._fence_changes`). Copies of a sheet share the facts of the
    streets they have not changed. `counts` are the per-size counts of its
    features in one vector (completed, unused, partial, open, share), as
    `MoveEvaluator._sum_streets` adds them up, and `street_gaps` its
    :func:`street_gaps`, from which both its flexibility and `gaps` come."""

    __slots__ = ("features", "counts", "street_gaps", "gaps", "runs_at", "whole_runs", "fence_splits",
                 "fence_changes")

    def __init__(self, features: StreetFeatures | None,
                 street_gaps: list[tuple[int, int, int, int]] | None = None) -> None:
        self.features = features
        self.street_gaps = street_gaps
        self.counts: tuple | None = None if features is None else (
            features.completed + features.unused + features.partial + features.open + features.share)
        self.gaps: list[tuple[int, int, int, int, float] | None] | None = None
        self.runs_at: list[tuple[int, int]] | None = None
        self.whole_runs: dict[int, tuple[int, int, float]] = {}
        self.fence_splits: list[tuple] | None = None
        self.fence_changes: tuple[list[int], list[FenceChange | None]] | None = None


def street_facts(sheet: Sheet, street: int) -> StreetFacts:
    """The cached :class:`StreetFacts` of one street."""
    facts = sheet.street_cache[street]
    if facts is None:
        gaps = street_gaps(sheet, street)
        facts = sheet.street_cache[street] = StreetFacts(_street_features(sheet, street, gaps), gaps)
    return facts  # type: ignore[return-value]


def street_features(sheet: Sheet, street: int) -> StreetFeatures:
    """The cached :class:`StreetFeatures` of one street."""
    facts = sheet.street_cache[street]
    if facts is None:
        facts = street_facts(sheet, street)
    return facts.features  # type: ignore[union-attr]


def _street_features(sheet: Sheet, street: int, gaps: list[tuple[int, int, int, int]]) -> StreetFeatures:
    completed = [0] * MAX_ESTATE_SIZE
    unused = [0] * MAX_ESTATE_SIZE
    partial = [0.0] * MAX_ESTATE_SIZE
    open_runs = [0] * MAX_ESTATE_SIZE
    share = [0.0] * MAX_ESTATE_SIZE
    numbers = sheet.numbers[street]
    rounds = sheet.roundabouts[street]
    use = sheet.plan_use[street]
    for first, length, done in sheet.runs(street):
        if length > MAX_ESTATE_SIZE:
            continue
        end = first + length
        if done:
            completed[length - 1] += 1
            if not any(use[first:end]):
                unused[length - 1] += 1
        elif True not in rounds[first:end]:
            built = length - numbers[first:end].count(None)
            partial[length - 1] += (built / length) ** 2
            open_runs[length - 1] += 1
            share[length - 1] += built / length
    return StreetFeatures(tuple(completed), tuple(unused), tuple(partial),
                          _gaps_flexibility(sheet, gaps), tuple(open_runs), tuple(share))


def sheet_features(sheet: Sheet) -> list[StreetFeatures]:
    """The cached :class:`StreetFeatures` of every street, the input of every sheet term."""
    return [street_features(sheet, s) for s in range(len(sheet.numbers))]


# ------------------------- number windows: weighted counts of the numbers between two bounds
def _prefix_weights(sheet: Sheet) -> list[float]:
    """prefix[i] = sum of the number weights of 0..i-1, for O(1) window sums."""
    prefix = [0.0]
    for weight in _weights(sheet):
        prefix.append(prefix[-1] + weight)
    return prefix


def _window(prefix: list[float], lo: int, hi: int) -> float:
    """Weighted count of the numbers n with lo < n < hi."""
    low = max(lo + 1, MIN_NUMBER) - MIN_NUMBER
    high = min(hi, MAX_NUMBER + 1) - MIN_NUMBER
    return prefix[high] - prefix[low] if high > low else 0.0


_WINDOW_CACHE: dict[int, tuple[object, list[float], list[list[float]]]] = {}


def deck_windows(sheet: Sheet) -> tuple[list[float], list[list[float]]]:
    """The number-weight prefix sums of the sheet's deck and the table
    `windows[lo + 1][hi] == _window(prefix, lo, hi)` for every bound a gap can
    have (lo from -1, hi up to 18): move evaluation looks windows up instead of
    computing them. Cached per deck (the deck is kept to check the id)."""
    deck = sheet.data.deck
    cached = _WINDOW_CACHE.get(id(deck))
    if cached is None or cached[0] is not deck:
        prefix = _prefix_weights(sheet)
        table = [[_window(prefix, lo, hi) for hi in range(MAX_NUMBER + 2)]
                 for lo in range(MIN_NUMBER - 1, MAX_NUMBER + 1)]
        cached = _WINDOW_CACHE[id(deck)] = (deck, prefix, table)
    return cached[1], cached[2]


def gap_value(length: int, window: float) -> float:
    """What a gap of `length` empty houses is worth: its length, at most the
    number-weight of the window of numbers that can still fill it."""
    return length if length < window else window
