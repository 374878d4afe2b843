"""Terms about the future: park tracks' final bonuses in reach, pool houses
still empty, which numbers still fit (:class:`Coverage` for many writes), the
chance of a refusal next turn, the temp race, and how many turns are left and
how much later-paying terms still count."""

from __future__ import annotations

from typing import Sequence

from ..data import MIN_NUMBER
from ..scoring import temp_points
from ..sheet import Sheet
from .streets import NUMBER_RANGE, street_gaps


def park_potential(sheet: Sheet) -> float:
    """The share of each park track's final bonus already earned but not yet
    scored: a track with k of n parks crossed counts final·k/n minus its value
    now. The big last box of a park track rewards finishing it; this term lets
    every crossed park count its fair share of that bonus."""
    total = 0.0
    for track, crossed in zip(sheet.data.park_tracks, sheet.parks):
        total += track[-1] * crossed / (len(track) - 1) - track[crossed]
    return total


def park_potential_gain(sheet: Sheet, street: int) -> float:
    """How much `park_potential` changes when one more park of `street` is crossed."""
    track, crossed = sheet.data.park_tracks[street], sheet.parks[street]
    if crossed + 1 >= len(track):
        return 0.0  # the track is full: nothing more to cross
    return track[-1] / (len(track) - 1) - (track[crossed + 1] - track[crossed])


def pool_chances(sheet: Sheet) -> int:
    """Empty pool houses: places where a pool card can still score a pool."""
    count = 0
    for numbers, rounds, houses in zip(sheet.numbers, sheet.roundabouts, sheet.data.pool_houses):
        for house in houses:
            if numbers[house] is None and not rounds[house]:
                count += 1
    return count


def is_pool_chance(sheet: Sheet, street: int, house: int) -> bool:
    """Whether (street, house) is an empty pool house (writing there uses it up)."""
    return (house in sheet.data.pool_houses[street] and sheet.numbers[street][house] is None
            and not sheet.roundabouts[street][house])


def fitting_numbers(sheet: Sheet) -> list[bool]:
    """`fits[n]` for n in 0..17: whether the number n can be written in some
    empty house of the sheet (it lies between the bounds of a gap)."""
    fits = [False] * NUMBER_RANGE
    for street in range(len(sheet.numbers)):
        for _first, _length, lo, hi in street_gaps(sheet, street):
            fits[lo + 1 - MIN_NUMBER:hi - MIN_NUMBER] = [True] * (hi - lo - 1)
    return fits


def fitting_share(sheet: Sheet) -> float:
    """The share of the deck's cards whose number can be written in some empty
    house of the sheet (see :func:`fitting_numbers`)."""
    counts = _deck_counts(sheet)
    return sum(c for c, fit in zip(counts, fitting_numbers(sheet)) if fit) / (sum(counts) or 1)


_DECK_COUNTS: dict[int, tuple[object, list[int]]] = {}


def _deck_counts(sheet: Sheet) -> list[int]:
    """Cards of each number 0..17 in the deck, cached per deck."""
    deck = sheet.data.deck
    cached = _DECK_COUNTS.get(id(deck))
    if cached is None or cached[0] is not deck:
        counts = [0] * NUMBER_RANGE
        for number, _effect in deck:
            counts[number - MIN_NUMBER] += 1
        cached = _DECK_COUNTS[id(deck)] = (deck, counts)
    return cached[1]


class Coverage:
    """Which numbers a sheet can still take, for judging many writes on it:
    `cover[n]` counts the gaps that take n, `gap_of[street][house]` is the
    gap (first, length, lo, hi) of each empty house (None: dead or built),
    `share` the share of the deck's numbers that fit somewhere."""

    __slots__ = ("cover", "gap_of", "weights", "total", "share", "_sole")

    def __init__(self, sheet: Sheet) -> None:
        counts = self.weights = _deck_counts(sheet)
        self.total = sum(counts) or 1
        cover = self.cover = [0] * NUMBER_RANGE
        self.gap_of: list[list[tuple[int, int, int, int] | None]] = []
        for street in range(len(sheet.numbers)):
            row: list[tuple[int, int, int, int] | None] = [None] * len(sheet.numbers[street])
            for gap in street_gaps(sheet, street):
                first, length, lo, hi = gap
                row[first:first + length] = [gap] * length
                for n in range(lo + 1 - MIN_NUMBER, hi - MIN_NUMBER):
                    cover[n] += 1
            self.gap_of.append(row)
        self.share = sum(w for w, c in zip(counts, cover) if c) / self.total
        self._sole: dict[tuple[int, int, int, int], list[tuple[int, int]]] = {}

    def share_after_write(self, street: int, house: int, number: int) -> float:
        """`share` once `number` is written on (street, house)."""
        gap = self.gap_of[street][house]
        if gap is None:
            return self.share
        sole = self._sole.get(gap)
        if sole is None:
            _first, _length, lo, hi = gap
            cover, weights = self.cover, self.weights
            sole = self._sole[gap] = [(n, weights[n - MIN_NUMBER]) for n in range(lo + 1, hi)
                                      if cover[n - MIN_NUMBER] == 1 and weights[n - MIN_NUMBER]]
        if not sole:
            return self.share
        first, length = gap[0], gap[1]
        left = house > first
        right = house < first + length - 1
        lost = 0
        for n, weight in sole:
            if (left and n < number) or (right and n > number):
                continue
            lost += weight
        return self.share - lost / self.total


def refusal_chance(sheet: Sheet, numbers: Sequence[int], temps: Sequence[float]) -> float:
    """The chance that no offer of the next turn can be written: one offer per
    entry of `temps`, the chance that its effect is the temp agency (1 or
    True when it is known to be: its number may move by up to 2), each number
    drawn from `numbers` (the cards that may come; independent draws).
    0 when `numbers` is empty."""
    if not numbers:
        return 0.0
    fits = fitting_numbers(sheet)
    plain = sum(1 for n in numbers if fits[n - MIN_NUMBER]) / len(numbers)
    widened = plain
    if any(temps):
        near = [any(fits[max(0, n - 2):n + 3]) for n in range(NUMBER_RANGE)]
        widened = sum(1 for n in numbers if near[n - MIN_NUMBER]) / len(numbers)
    chance = 1.0
    for temp in temps:
        chance *= 1.0 - (temp * widened + (1 - temp) * plain)
    return chance


def temp_race_value(own: int, others: Sequence[int], rank_points: Sequence[int]) -> float:
    """Temp-agency points one more temp would win at the current counts: the
    dense ranking of RULES.md §8 with the other players' counts as they stand
    (0 in solo games, whose temp rule needs no race)."""
    if not others:
        return 0.0
    before = temp_points([own, *others], rank_points, solo=False)[0]
    after = temp_points([own + 1, *others], rank_points, solo=False)[0]
    return float(after - before)


def turns_left(turn: int, refusals: Sequence[int], max_refusals: int, cards_left: int,
               horizon: int = 30) -> int:
    """A rough estimate of the turns still to play: the typical game length
    `horizon`, cut short when any player is one or two refusals from ending
    the game, or the deck is nearly out (solo)."""
    left = max(1, horizon - turn)
    worst = max(refusals, default=0)
    if worst >= max_refusals - 1:
        left = min(left, 4)
    elif worst >= max_refusals - 2:
        left = min(left, 10)
    return max(1, min(left, cards_left // 3 + 1)) if cards_left >= 0 else left


def urgency(left: int, turns: float) -> float:
    """Weight of terms that pay only later: 1 while `turns` or more turns
    remain, falling linearly to 0 as the end nears."""
    return 1.0 if left >= turns else max(0.0, left / turns)
