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
    open_runs = [0] * MAX_ESTATE_SIZE
    share = [0.0] * MAX_ESTATE_SIZE
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
            open_runs[length - 1] += 1
            share[length - 1] += built / length
    features = StreetFeatures(tuple(completed), tuple(unused), tuple(partial),
                              street_flexibility(sheet, street), tuple(open_runs), tuple(share))
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
    return sum(sum(map(mul, features.partial, values)) for features in sheet_features(sheet))


def estate_projection(sheet: Sheet, size_bonus: Sequence[float] | None = None) -> tuple[float, float]:
    """What the unfinished fenced runs (1..6 houses, no roundabout) would be
    worth as estates at today's values: (all of them, each weighted by its
    built share). Most houses get built by the end of a game, so a fenced run
    is likely to score; `estate_potential` is the cautious version.
    `size_bonus[s-1]` is added to the value of a run of s houses (a strategy's
    own idea of what an estate of that size is worth, e.g. for its plans)."""
    values = estate_values(sheet)
    if size_bonus is not None:
        values = [v + b for v, b in zip(values, size_bonus)]
    features = sheet_features(sheet)
    open_value = sum(sum(map(mul, f.open, values)) for f in features)
    share_value = sum(sum(map(mul, f.share, values)) for f in features)
    return open_value, share_value


def flexibility(sheet: Sheet) -> float:
    """Empty houses that could still be built, over all streets (see
    :func:`street_flexibility`). Losing it is what later forces refusals."""
    return sum(features.flexibility for features in sheet_features(sheet))


def plan_progress_from(unused: Sequence[int], plan_turns: Sequence[int | None],
                       plans: Sequence[PlanSpec], first_turn: Sequence[int | None]) -> float:
    """`plan_progress` from the count of unused completed estates per size."""
    total = 0.0
    for deck, spec in enumerate(plans):
        if plan_turns[deck] is not None or spec.kind != "estates":
            continue
        remaining = list(unused)
        have = 0
        for size in spec.estates:
            if remaining[size - 1] > 0:
                remaining[size - 1] -= 1
                have += 1
        points = spec.points[0] if first_turn[deck] is None else spec.points[1]
        total += points * have / len(spec.estates)
    return total


def plan_progress(sheet: Sheet, plans: Sequence[PlanSpec],
                  first_turn: Sequence[int | None] = (None, None, None)) -> float:
    """Points in reach on unfinished estate plans: each plan's current value
    (high while nobody has it) times the share of its required estates that the
    sheet has unused and completed."""
    unused = [sum(counts) for counts in zip(*(f.unused for f in sheet_features(sheet)))]
    return plan_progress_from(unused, sheet.plan_turns, plans, first_turn)


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
    open_estates: float = 0.0
    """value of the unfinished fenced runs as if each were completed (see `estate_projection`)"""
    built_share: float = 0.0
    """the same, each run weighted by the share of its houses already built"""


def sheet_terms(sheet: Sheet, plans: Sequence[PlanSpec],
                first_turn: Sequence[int | None] = (None, None, None),
                temp_value: float = 1.0, size_bonus: Sequence[float] | None = None) -> Terms:
    """`points_now`, `estate_potential`, `flexibility`, `plan_progress` and
    `board_value` of a sheet at once (they share its cached street features)."""
    open_value, share_value = estate_projection(sheet, size_bonus)
    return Terms(points_now(sheet, temp_value), estate_potential(sheet), flexibility(sheet),
                 plan_progress(sheet, plans, first_turn), board_value(sheet), open_value, share_value)


# ----------------------------------------------------------- move evaluation
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


def _gap_value(length: int, window: float) -> float:
    return length if length < window else window


def _gaps_of(bounds: list[tuple[int, int, int]]) -> dict[int, tuple[int, int, int, int]]:
    """house -> (first house, length, lo, hi) of its gap, from a street's bounds."""
    gaps: dict[int, tuple[int, int, int, int]] = {}
    members: list[int] = []
    for index, (house, lo, hi) in enumerate(bounds):
        members.append(house)
        nxt = bounds[index + 1] if index + 1 < len(bounds) else None
        if nxt is None or nxt[0] != house + 1 or nxt[1] != lo or nxt[2] != hi:
            gap = (members[0], len(members), lo, hi)
            for h in members:
                gaps[h] = gap
            members = []
    return gaps


class MoveEvaluator:
    """The evaluation terms of a sheet after one hypothetical move, without
    copying the sheet: a write or a bis changes one run and one gap of one
    street, a fence splits one run, the other effects change counters; each
    move is scored as a change to the sheet's current sums.

    Build it on the sheet before the move; `after_write`, `after_fence`,
    `after_real_estate`, `after_landscaper` and `after_pool` return the
    :class:`Terms` that :func:`sheet_terms` would give after that move (the
    same formulas; sums may differ in the last bits of the float). Boards are
    not modelled: use :func:`sheet_terms` on a copy there.
    """

    def __init__(self, sheet: Sheet, plans: Sequence[PlanSpec],
                 first_turn: Sequence[int | None] = (None, None, None), temp_value: float = 1.0,
                 size_bonus: Sequence[float] | None = None) -> None:
        self.sheet = sheet
        self.plans = plans
        self.first_turn = first_turn
        features = sheet_features(sheet)
        data = sheet.data
        self.values = [track[k] for track, k in zip(data.real_estate_tracks, sheet.real_estate)]
        self.completed = [sum(c) for c in zip(*(f.completed for f in features))]
        self.unused = [sum(c) for c in zip(*(f.unused for f in features))]
        self.partial = [sum(c) for c in zip(*(f.partial for f in features))]
        self.estates = sum(map(mul, self.completed, self.values))
        self.potential = sum(map(mul, self.partial, self.values))
        self.open = [sum(c) for c in zip(*(f.open for f in features))]
        self.share = [sum(c) for c in zip(*(f.share for f in features))]
        self.worth = self.values if size_bonus is None else [
            v + b for v, b in zip(self.values, size_bonus)]
        self.open_value = sum(map(mul, self.open, self.worth))
        self.share_value = sum(map(mul, self.share, self.worth))
        self.flex = sum(f.flexibility for f in features)
        self.prefix = _prefix_weights(sheet)
        n_pools, n_bis, temps = sheet.n_pools, sheet.n_bis, sheet.temps
        self.other_points = (
            sum(sheet.plan_points) + sum(track[k] for track, k in zip(data.park_tracks, sheet.parks))
            + data.pool_track[n_pools] - data.bis_track[n_bis]
            - data.roundabout_track[sheet.n_roundabouts] - data.refusal_track[sheet.refusals]
            + temp_value * temps
        )
        self.temp_gain = temp_value * (temps < data.temp_boxes)
        self.bis_cost = data.bis_track[min(n_bis + 1, data.max_bis)] - data.bis_track[n_bis]
        self.pool_gain = data.pool_track[min(n_pools + 1, len(data.pool_track) - 1)] - data.pool_track[n_pools]
        self.progress = self._plan_progress(self.unused)
        self._progress: dict[tuple[int, ...], float] = {tuple(self.unused): self.progress}
        self._gaps: list[dict[int, tuple[int, int, int, int, float]] | None] = [None] * len(sheet.numbers)
        self._filled: dict[tuple[int, int], tuple[float, float, float, float, float]] = {}

    # ---------------------------------------------------------------- pieces
    def _plan_progress(self, unused: list[int]) -> float:
        return plan_progress_from(unused, self.sheet.plan_turns, self.plans, self.first_turn)

    def _progress_after(self, unused_change: dict[int, int]) -> float:
        """Plan progress once the unused completed estates change by `unused_change`
        (size index -> count)."""
        unused = self.unused[:]
        for size, change in unused_change.items():
            unused[size] += change
        key = tuple(unused)
        progress = self._progress.get(key)
        if progress is None:
            progress = self._progress[key] = self._plan_progress(unused)
        return progress

    def _run_at(self, street: int, house: int) -> tuple[int, int]:
        for first, length, _done in self.sheet.runs(street):
            if first <= house < first + length:
                return first, length
        raise ValueError(f"house {house} is not on street {street}")

    def _run(self, street: int, first: int, length: int, extra: int = -1) -> tuple[int, int, float]:
        """What a run brings, counting house `extra` as built: (size index, or -1
        when it cannot become an estate; 1 completed, 2 completed and unused, 0
        not; its built share squared when not completed)."""
        if length > MAX_ESTATE_SIZE:
            return -1, 0, 0.0
        sheet = self.sheet
        numbers = sheet.numbers[street]
        rounds = sheet.roundabouts[street]
        built = 0
        for h in range(first, first + length):
            if rounds[h]:
                return -1, 0, 0.0
            if numbers[h] is not None or h == extra:
                built += 1
        if built == length:
            use = sheet.plan_use[street]
            return length - 1, 1 if any(use[h] for h in range(first, first + length)) else 2, 0.0
        return length - 1, 0, built / length

    def _gap(self, street: int, house: int) -> tuple[int, int, int, int, float]:
        """(first house, last house, lo, hi, flexibility) of the gap holding an
        empty house (a dead house has no gap: last < first)."""
        gaps = self._gaps[street]
        if gaps is None:
            gaps = self._gaps[street] = {
                h: (first, first + length - 1, lo, hi, _gap_value(length, _window(self.prefix, lo, hi)))
                for h, (first, length, lo, hi) in _gaps_of(self.sheet.street_bounds(street)).items()
            }
        return gaps.get(house, (house, house - 1, 0, 0, 0.0))

    def _terms(self, estates: float, potential: float, flex: float, progress: float,
               points: float = 0.0, open_value: float | None = None,
               share_value: float | None = None) -> Terms:
        return Terms(self.other_points + points + estates, potential, flex, progress, 0.0,
                     self.open_value if open_value is None else open_value,
                     self.share_value if share_value is None else share_value)

    def _change(self, old: tuple[int, int, float], *new: tuple[int, int, float]
                ) -> tuple[float, float, float, float, float]:
        """(estate points, potential, progress, open estates, built share) after
        run `old` becomes the `new` runs."""
        values, worth = self.values, self.worth
        estates, potential = self.estates, self.potential
        open_value, share_value = self.open_value, self.share_value
        unused_change: dict[int, int] = {}
        for (size, done, share), sign in ((old, -1), *((run, 1) for run in new)):
            if size < 0:
                continue
            value = values[size]
            if done:
                estates += sign * value
                if done == 2:
                    unused_change[size] = unused_change.get(size, 0) + sign
            else:
                potential += sign * share * share * value
                open_value += sign * worth[size]
                share_value += sign * share * worth[size]
        changed = any(unused_change.values())
        progress = self._progress_after(unused_change) if changed else self.progress
        return estates, potential, progress, open_value, share_value

    # ----------------------------------------------------------------- moves
    def after_write(self, street: int, house: int, number: int, bis: bool = False,
                    temp: bool = False) -> Terms:
        """Terms after writing `number` in an empty house (a bis when `bis`)."""
        key = (street, house)
        change = self._filled.get(key)
        if change is None:  # the same for every number written there
            first, length = self._run_at(street, house)
            change = self._filled[key] = self._change(self._run(street, first, length),
                                                      self._run(street, first, length, house))
        estates, potential, progress, open_value, share_value = change
        gap_first, gap_last, lo, hi, gap_flex = self._gap(street, house)
        flex = self.flex
        if gap_last >= gap_first:
            prefix = self.prefix
            flex += (_gap_value(house - gap_first, _window(prefix, lo, number))
                     + _gap_value(gap_last - house, _window(prefix, number, hi)) - gap_flex)
        points = (self.temp_gain if temp else 0.0) - (self.bis_cost if bis else 0.0)
        return self._terms(estates, potential, flex, progress, points, open_value, share_value)

    def after_fence(self, street: int, slot: int) -> Terms:
        """Terms after a fence on `slot` (the run there splits in two)."""
        first, length = self._run_at(street, slot)
        left = slot - first + 1
        estates, potential, progress, open_value, share_value = self._change(
            self._run(street, first, length), self._run(street, first, left),
            self._run(street, slot + 1, length - left))
        return self._terms(estates, potential, self.flex, progress, 0.0, open_value, share_value)

    def after_real_estate(self, size: int) -> Terms:
        track = self.sheet.data.real_estate_tracks[size - 1]
        gain = track[self.sheet.real_estate[size - 1] + 1] - track[self.sheet.real_estate[size - 1]]
        index = size - 1
        return self._terms(self.estates + gain * self.completed[index],
                           self.potential + gain * self.partial[index], self.flex, self.progress, 0.0,
                           self.open_value + gain * self.open[index],
                           self.share_value + gain * self.share[index])

    def after_landscaper(self, street: int) -> Terms:
        track, crossed = self.sheet.data.park_tracks[street], self.sheet.parks[street]
        return self._terms(self.estates, self.potential, self.flex, self.progress,
                           track[crossed + 1] - track[crossed])

    def after_pool(self) -> Terms:
        return self._terms(self.estates, self.potential, self.flex, self.progress, self.pool_gain)

    def base(self) -> Terms:
        """Terms of the sheet as it is."""
        return self._terms(self.estates, self.potential, self.flex, self.progress)


# ------------------------------------------------- terms about the future
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


def temp_race_value(own: int, others: Sequence[int], rank_points: Sequence[int]) -> float:
    """Temp-agency points one more temp would win at the current counts: the
    dense ranking of RULES.md §8 with the other players' counts as they stand
    (0 in solo games, whose temp rule needs no race)."""
    from .rules.scoring import temp_points

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
