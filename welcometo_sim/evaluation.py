"""Terms for judging a sheet, shared by strategies (part of the strategy API).

Each term is a plain function of a sheet, so strategies can weight and combine
them. The street-level facts they need are computed once per street state
(:func:`street_features`) and cached on the sheet until that street changes,
so trying a move on a copy only recomputes the street it touched.
"""

from __future__ import annotations

from operator import add, getitem, mul
from typing import Iterable, NamedTuple, Sequence

from .rules.data import (BIS, LANDSCAPER, MAX_ESTATE_SIZE, MAX_NUMBER, MIN_NUMBER, POOL, REAL_ESTATE,
                         SURVEYOR, PlanSpec)
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


_WINDOW_CACHE: dict[int, tuple[object, list[float], list[list[float]]]] = {}


def _windows(sheet: Sheet) -> tuple[list[float], list[list[float]]]:
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


def _gap_value(length: int, window: float) -> float:
    return length if length < window else window


_NO_RUN = (-1, 0, 0.0)
"""The `_run` state of a run that cannot become an estate (it changes no sum)."""

FenceChange = tuple[int, int, int, float, float, float, "dict[int, int] | None"]
"""What a fence changes (see `MoveEvaluator._fence_changes`): the three terms
added to the estate points, the three added to the potential (0 where a run
adds nothing there), and the change of the unused estates by size index (None
when their counts stay the same)."""


def _count_run(counts: list[list], size: int, done: int, share: float, sign: int) -> None:
    """Add (sign 1) or take away (-1) one run's `_run` state to or from the
    per-size counts [completed, unused, partial, open, share]."""
    if size < 0:
        return
    completed, unused, partial, open_runs, shares = counts
    if done:
        completed[size] += sign
        if done == 2:
            unused[size] += sign
    else:
        partial[size] += sign * share * share
        open_runs[size] += sign
        shares[size] += sign * share


def run_fence_changes(empty: Sequence[bool], rounds: Sequence[bool], uses: Sequence[int],
                      values: Sequence[float]) -> list[FenceChange | None]:
    """The `FenceChange` of a fence on each slot inside one fenced run, left
    to right, given for each of its houses whether it is empty, a roundabout,
    and under a plan line: the `MoveEvaluator._change` of the whole run's
    `MoveEvaluator._run` state into the states of its two parts, at the estate
    `values`. The parts' counts come from running totals over the run."""
    length = len(empty)
    built_before, rounds_before, used_before = [0], [0], [0]
    built = round_count = used = 0
    for is_empty, roundabout, use in zip(empty, rounds, uses):
        built += not is_empty
        round_count += roundabout
        used += bool(use)
        built_before.append(built)
        rounds_before.append(round_count)
        used_before.append(used)

    def run_state(part_first: int, part_end: int) -> tuple[int, int, float]:
        """`MoveEvaluator._run` of the houses part_first..part_end-1 of the run."""
        size = part_end - part_first
        if size > MAX_ESTATE_SIZE or rounds_before[part_end] != rounds_before[part_first]:
            return _NO_RUN
        part_built = built_before[part_end] - built_before[part_first]
        if part_built == size:
            return size - 1, 1 if used_before[part_end] != used_before[part_first] else 2, 0.0
        return size - 1, 0, part_built / size

    whole = run_state(0, length)
    changes: list[FenceChange | None] = []
    for cut in range(1, length):
        estate_terms: list[int] = []
        potential_terms: list[float] = []
        unused_change: dict[int, int] = {}
        sign = -1  # the old run first, then the new ones, as in `MoveEvaluator._change`
        for size, done, share in (whole, run_state(0, cut), run_state(cut, length)):
            if size >= 0:
                value = values[size]
                if done:
                    estate_terms.append(sign * value)
                    if done == 2:
                        unused_change[size] = unused_change.get(size, 0) + sign
                else:
                    potential_terms.append(sign * share * share * value)
            sign = 1
        if not estate_terms and not potential_terms:
            changes.append(None)
            continue
        e0, e1, e2 = (estate_terms + [0, 0, 0])[:3]
        p0, p1, p2 = (potential_terms + [0.0, 0.0, 0.0])[:3]
        changes.append((e0, e1, e2, p0, p1, p2, unused_change if any(unused_change.values()) else None))
    return changes


_RUN_FENCE_CHANGES: dict[tuple, list[FenceChange | None]] = {}
"""`run_fence_changes` by (empty, rounds, uses, values) (see `MoveEvaluator._run_fence_changes`)."""
_RUN_FENCE_LIMIT = 50_000
"""Entries kept at most (the memo starts over when full)."""


_PROGRESS_MEMOS: dict[int, tuple[Sequence[PlanSpec], dict[tuple, dict[tuple[int, ...], float]]]] = {}
"""Plan progress memos by id of the plans (kept to check the id), then by
(plan turns, first turns)."""
_PROGRESS_PLANS_LIMIT = 64
"""Sets of plans remembered at most (the memos start over when full): one
per game, while a game and the few around it are played."""


def _progress_memo(plans: Sequence[PlanSpec], plan_turns: Sequence[int | None],
                   first_turn: Sequence[int | None]) -> dict[tuple[int, ...], float]:
    """Plan progress by the counts of unused completed estates per size (see
    :func:`plan_progress_from`), for these plans, completed plans and first
    turns: it depends on nothing else, so every evaluator of the game's
    sheets shares it, turn after turn, until a plan is completed."""
    entry = _PROGRESS_MEMOS.get(id(plans))
    if entry is None or entry[0] is not plans:
        if len(_PROGRESS_MEMOS) >= _PROGRESS_PLANS_LIMIT:
            _PROGRESS_MEMOS.clear()
        entry = _PROGRESS_MEMOS[id(plans)] = (plans, {})
    key = (tuple(plan_turns), tuple(first_turn))
    memo = entry[1].get(key)
    if memo is None:
        memo = entry[1][key] = {}
    return memo


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
        self._progress = _progress_memo(plans, sheet.plan_turns, first_turn)
        self._setup(sheet, plans, first_turn, temp_value, size_bonus)

    def _setup(self, sheet: Sheet, plans: Sequence[PlanSpec], first_turn: Sequence[int | None],
               temp_value: float, size_bonus: Sequence[float] | None) -> None:
        self.sheet = sheet
        self.rows = sheet.numbers  # the numbers it judges (see `after_write_evaluator`)
        self.plans = plans
        self.first_turn = first_turn
        self.temp_value = temp_value
        self.size_bonus = size_bonus
        data = sheet.data
        self.values = list(map(getitem, data.real_estate_tracks, sheet.real_estate))
        self._values_key = tuple(self.values)
        self.worth = self.values if size_bonus is None else [
            v + b for v, b in zip(self.values, size_bonus)]
        self.prefix, self.windows = _windows(sheet)
        n_pools, n_bis, temps = sheet.n_pools, sheet.n_bis, sheet.temps
        self.other_points = (
            sum(sheet.plan_points) + sum(map(getitem, data.park_tracks, sheet.parks))
            + data.pool_track[n_pools] - data.bis_track[n_bis]
            - data.roundabout_track[sheet.n_roundabouts] - data.refusal_track[sheet.refusals]
            + temp_value * temps
        )
        self.temp_gain = temp_value * (temps < data.temp_boxes)
        self.bis_cost = data.bis_track[min(n_bis + 1, data.max_bis)] - data.bis_track[n_bis]
        self.pool_gain = data.pool_track[min(n_pools + 1, len(data.pool_track) - 1)] - data.pool_track[n_pools]
        self._sum_streets([street_facts(sheet, s) for s in range(len(sheet.numbers))])
        # (evaluator it derives from, street, first house and length of the run
        # written), for evaluators made by `after_write_evaluator`
        self._written: tuple[MoveEvaluator, int, int, int] | None = None
        # per street, filled on first use: the change of a write in each house (`_write_change`)
        self._writes: list[list[tuple[float, float, float, float, float] | None] | None] = [
            None] * len(sheet.numbers)

    def _sum_streets(self, facts: list[StreetFacts]) -> None:
        """The sheet-wide sums of the streets' features, street by street."""
        self._facts = facts
        features = [f.features for f in facts]
        size = MAX_ESTATE_SIZE
        # Every per-size count of every street in one vector, summed over the
        # streets element by element: the same additions, in the same order,
        # as sum() per field (0 + x is x for these non-negative numbers).
        vectors = [f.counts for f in facts]
        totals = vectors[0]
        for vector in vectors[1:]:
            totals = list(map(add, totals, vector))
        self.completed = totals[:size]
        self.unused = totals[size:2 * size]
        self.partial = totals[2 * size:3 * size]
        self.estates = sum(map(mul, self.completed, self.values))
        self.potential = sum(map(mul, self.partial, self.values))
        self.open = totals[3 * size:4 * size]
        self.share = totals[4 * size:]
        self.open_value = sum(map(mul, self.open, self.worth))
        self.share_value = sum(map(mul, self.share, self.worth))
        self.flex = sum([f.flexibility for f in features])
        self.progress = self._progress_after({})

    def after_write_evaluator(self, street: int, house: int, number: int) -> "MoveEvaluator":
        """An evaluator of the sheet after `number` is written in the empty
        `house` (no temp, no bis), without copying the sheet: the written house
        counts as built in everything it works out later, and its sums are this
        evaluator's plus the write's change, the very ones `after_write` and
        `write_scores` use. So its `base()` equals ``after_write(street, house,
        number)``, an effect that changes nothing scores exactly what the write
        scores, and the value of an effect is that of the write plus what the
        effect changes. (A new MoveEvaluator on a copy of the sheet gives the
        same terms up to the last bits of the floats, summed in another order.)"""
        other = MoveEvaluator.__new__(MoveEvaluator)
        other.__dict__.update(self.__dict__)
        other.estates, other.potential, other.progress, other.open_value, other.share_value = \
            self._write_change(street, house)
        other.flex = self._write_sums(street, house, number, 0.0)[2]
        other.completed, other.unused, other.partial, other.open, other.share = self._counts_after_write(street, house)
        first, length = self._run_at(street, house)
        row = self.rows[street][:]
        row[house] = number
        other.rows = self.rows[:]
        other.rows[street] = row
        written = StreetFacts(None)  # facts of the street as it will be, kept by this evaluator only
        written.runs_at = self._facts[street].runs_at  # a write moves no fence
        other._facts = self._facts[:]
        other._facts[street] = written
        other._writes = [None] * len(self.rows)
        other._written = (self, street, first, length)
        return other

    def _counts_after_write(self, street: int, house: int) -> list[list]:
        """The per-size counts [completed, unused, partial, open, share] once
        the empty `house` is built (its run's `_run` state changes)."""
        first, length = self._run_at(street, house)
        counts = [self.completed[:], self.unused[:], self.partial[:], self.open[:], self.share[:]]
        for (size, done, share), sign in ((self._whole_run(street, first, length), -1),
                                          (self._run(street, first, length, house), 1)):
            _count_run(counts, size, done, share, sign)
        return counts

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
        """(first house, length) of the fenced run holding `house`."""
        facts = self._facts[street]
        runs = facts.runs_at
        if runs is None:
            runs = facts.runs_at = [
                (first, length) for first, length, _done in self.sheet.runs(street) for _ in range(length)]
        return runs[house]

    def _whole_run(self, street: int, first: int, length: int) -> tuple[int, int, float]:
        """`_run` of a whole fenced run as it stands, remembered: every write in
        the run and every fence inside it start from it."""
        states = self._facts[street].whole_runs
        state = states.get(first)
        if state is None:
            state = states[first] = self._run(street, first, length)
        return state

    def _run(self, street: int, first: int, length: int, extra: int = -1) -> tuple[int, int, float]:
        """What a run brings, counting house `extra` as built: (size index, or -1
        when it cannot become an estate; 1 completed, 2 completed and unused, 0
        not; its built share squared when not completed)."""
        if length > MAX_ESTATE_SIZE:
            return _NO_RUN
        end = first + length
        if True in self.sheet.roundabouts[street][first:end]:
            return _NO_RUN
        numbers = self.rows[street]
        built = length - numbers[first:end].count(None)
        if first <= extra < end and numbers[extra] is None:
            built += 1
        if built == length:
            return length - 1, 1 if any(self.sheet.plan_use[street][first:end]) else 2, 0.0
        return length - 1, 0, built / length

    def _gap(self, street: int, house: int) -> tuple[int, int, int, int, float]:
        """(first house, last house, lo, hi, flexibility) of the gap holding an
        empty house (a dead house has no gap: last < first)."""
        facts = self._facts[street]
        gaps = facts.gaps
        if gaps is None:  # the first look at this street
            gaps = facts.gaps = [None] * len(self.rows[street])
            windows = self.windows
            runs = facts.street_gaps  # None on the street that `after_write_evaluator` wrote on
            if runs is None:
                runs = street_gaps(self.sheet, street, self.rows[street])
            for first, length, lo, hi in runs:
                gap = (first, first + length - 1, lo, hi, _gap_value(length, windows[lo + 1][hi]))
                gaps[first:first + length] = [gap] * length
        return gaps[house] or (house, house - 1, 0, 0, 0.0)

    def _write_change(self, street: int, house: int) -> tuple[float, float, float, float, float]:
        """`_change` of a number written in the empty `house`. One more built
        house changes its run the same way whichever empty house it is, so this
        is computed once per run and remembered for all its houses."""
        changes = self._writes[street]
        if changes is None:
            changes = self._writes[street] = [None] * len(self.rows[street])
        change = changes[house]
        if change is None:  # the first write in this run
            first, length = self._run_at(street, house)
            change = self._change(self._whole_run(street, first, length), self._run(street, first, length, house))
            numbers = self.rows[street]
            for h in range(first, first + length):
                if numbers[h] is None:
                    changes[h] = change
        return change

    def _terms(self, estates: float, potential: float, flex: float, progress: float,
               points: float = 0.0, open_value: float | None = None,
               share_value: float | None = None) -> Terms:
        return tuple.__new__(Terms, (  # several times cheaper than Terms(...) on this hot path
            self.other_points + points + estates, potential, flex, progress, 0.0,
            self.open_value if open_value is None else open_value,
            self.share_value if share_value is None else share_value))

    def _change(self, old: tuple[int, int, float], new: tuple[int, int, float],
                other_new: tuple[int, int, float] = _NO_RUN) -> tuple[float, float, float, float, float]:
        """(estate points, potential, progress, open estates, built share) after
        run `old` becomes run `new` (and `other_new`, when a fence splits it)."""
        values, worth = self.values, self.worth
        estates, potential = self.estates, self.potential
        open_value, share_value = self.open_value, self.share_value
        unused_change: dict[int, int] | None = None
        sign = -1  # the old run first, then the new ones
        for size, done, share in (old, new, other_new):
            if size >= 0:
                value = values[size]
                if done:
                    estates += sign * value
                    if done == 2:
                        if unused_change is None:
                            unused_change = {}
                        unused_change[size] = unused_change.get(size, 0) + sign
                else:
                    potential += sign * share * share * value
                    open_value += sign * worth[size]
                    share_value += sign * share * worth[size]
            sign = 1
        changed = unused_change is not None and any(unused_change.values())
        progress = self._progress_after(unused_change) if changed else self.progress  # type: ignore[arg-type]
        return estates, potential, progress, open_value, share_value

    # ----------------------------------------------------------------- moves
    def after_write(self, street: int, house: int, number: int, bis: bool = False,
                    temp: bool = False) -> Terms:
        """Terms after writing `number` in an empty house (a bis when `bis`)."""
        points = (self.temp_gain if temp else 0.0) - (self.bis_cost if bis else 0.0)
        return tuple.__new__(Terms, self._write_sums(street, house, number, points))

    def _write_sums(self, street: int, house: int, number: int, points: float
                    ) -> tuple[float, float, float, float, float, float, float]:
        """The fields of `after_write`'s Terms; `points` is its temp gain or bis cost."""
        changes = self._writes[street]
        change = changes[house] if changes is not None else None
        if change is None:
            change = self._write_change(street, house)
        estates, potential, progress, open_value, share_value = change
        gaps = self._facts[street].gaps
        gap = gaps[house] if gaps is not None else None
        if gap is None:
            gap = self._gap(street, house)
        gap_first, gap_last, lo, hi, gap_flex = gap
        flex = self.flex
        if gap_last >= gap_first:  # the gap splits at `house` (inlined _gap_value and _window)
            left, left_window = house - gap_first, self.windows[lo + 1][number]
            right, right_window = gap_last - house, self.windows[number + 1][hi]
            flex += ((left if left < left_window else left_window)
                     + (right if right < right_window else right_window) - gap_flex)
        return self.other_points + points + estates, potential, flex, progress, 0.0, open_value, share_value

    def after_fence(self, street: int, slot: int) -> Terms:
        """Terms after a fence on `slot` (the run there splits in two)."""
        return tuple.__new__(Terms, self._fence_sums(street, slot))

    def _fence_sums(self, street: int, slot: int) -> tuple[float, float, float, float, float, float, float]:
        """The fields of `after_fence`'s Terms."""
        estates, potential, progress, open_value, share_value = self._change(*self._fence_splits(street)[slot])
        return self.other_points + 0.0 + estates, potential, self.flex, progress, 0.0, open_value, share_value

    def _fence_splits(self, street: int) -> list[tuple]:
        """For every fence slot of a street, the `_run` states of the run a
        fence there would split and of its two parts (None where a fence is
        already), worked out for the whole street at once and kept with the
        street's facts."""
        facts = self._facts[street]
        splits = facts.fence_splits
        if splits is None:
            splits = facts.fence_splits = [None] * (len(self.rows[street]) - 1)
            run = self._run
            for first, length, _done in self.sheet.runs(street):
                whole = self._whole_run(street, first, length)
                for left in range(1, length):
                    splits[first + left - 1] = (whole, run(street, first, left),
                                                run(street, first + left, length - left))
        return splits

    def _fence_changes(self, street: int) -> list[FenceChange | None]:
        """For every fence slot of a street, what a fence there changes as a
        `FenceChange` (None when it changes no sum, or a fence is there
        already). It depends only on the street and the estate values, so it
        is kept with the street's facts: the evaluators `after_write_evaluator`
        derives share it for the streets they did not write on, and later turns
        for the streets that stay the same."""
        facts = self._facts[street]
        cached = facts.fence_changes
        if cached is None or cached[0] != self.values:
            cached = facts.fence_changes = (self.values, self._work_out_fence_changes(street))
        return cached[1]

    def _work_out_fence_changes(self, street: int) -> list[FenceChange | None]:
        """`_fence_changes` of a street, run by run. On the street an evaluator
        of `after_write_evaluator` wrote on, only the slots of the written run
        differ from the evaluator it derives from."""
        written = self._written
        if written is not None and written[1] == street:
            parent, _street, first, length = written
            changes = parent._fence_changes(street)[:]
            changes[first:first + length - 1] = self._run_fence_changes(street, first, length)
            return changes
        changes = []
        for first, length, _done in self.sheet.runs(street):
            changes += self._run_fence_changes(street, first, length)
            changes.append(None)  # the fence after the run (or the street's end)
        del changes[-1]
        return changes

    def _run_fence_changes(self, street: int, first: int, length: int) -> list[FenceChange | None]:
        """The `FenceChange` of each slot inside one run, left to right (see
        :func:`run_fence_changes`), remembered by the run's pattern: a run of
        the same empty houses, roundabouts and plan lines at the same estate
        values changes the same, wherever and whenever it comes."""
        end = first + length
        sheet = self.sheet
        empty = tuple([number is None for number in self.rows[street][first:end]])
        rounds = tuple(sheet.roundabouts[street][first:end])
        uses = tuple(sheet.plan_use[street][first:end])
        key = (empty, rounds, uses, self._values_key)
        changes = _RUN_FENCE_CHANGES.get(key)
        if changes is None:
            if len(_RUN_FENCE_CHANGES) >= _RUN_FENCE_LIMIT:
                _RUN_FENCE_CHANGES.clear()
            changes = _RUN_FENCE_CHANGES[key] = run_fence_changes(empty, rounds, uses, self.values)
        return changes

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

    def after_effect(self, effect: Sequence) -> Terms:
        """Terms after one effect use (:class:`~welcometo_sim.rules.effects.Effect`:
        a fence, a bis write, a real-estate or park box, or a pool), by kind."""
        kind, street, position, number = effect
        if kind == SURVEYOR:
            return self.after_fence(street, position)
        if kind == BIS:
            return self.after_write(street, position, number, bis=True)
        if kind == REAL_ESTATE:
            return self.after_real_estate(position)
        if kind == LANDSCAPER:
            return self.after_landscaper(street)
        return self.after_pool()

    def base(self) -> Terms:
        """Terms of the sheet as it is."""
        return self._terms(self.estates, self.potential, self.flex, self.progress)

    # --------------------------------------------------------------- scores
    def write_scores(self, plays: Iterable[Sequence], weights: Sequence[float]) -> list[float]:
        """``linear_score(weights, after_write(play.street, play.house,
        play.number, temp=play.temp))`` for each play
        (:class:`~welcometo_sim.rules.effects.Play`), computed with the same
        operations in the same order (so exactly the same floats) but without
        making the Terms: the inner loop of a search that weighs the terms
        linearly. What does not depend on the number is worked out once per
        house: the weighted points and potential (with and without a temp box
        crossed), the weighted plan progress, and where the house lies in its
        gap."""
        w_points, w_potential, w_flex, w_progress, w_board = weights
        board = w_board * 0.0
        other, temp_points, base_flex, windows = self.other_points, self.temp_gain - 0.0, self.flex, self.windows
        by_house: list[list[tuple | None]] = [[None] * len(row) for row in self.rows]
        scores: list[float] = []
        append = scores.append
        for _offer, street, house, number, temp, _truck in plays:
            known = by_house[street][house]
            if known is None:
                estates, potential, progress, _open, _share = self._write_change(street, house)
                gap_first, gap_last, lo, hi, gap_flex = self._gap(street, house)
                # the houses of the gap left and right of this one (-1: a dead house, no gap)
                left, right = (house - gap_first, gap_last - house) if gap_last >= gap_first else (-1, -1)
                known = by_house[street][house] = (
                    w_points * (other + 0.0 + estates) + w_potential * potential,
                    w_points * (other + temp_points + estates) + w_potential * potential,
                    w_progress * progress, left, right, windows[lo + 1], hi, gap_flex)
            plain, with_temp, progress_score, left, right, left_windows, hi, gap_flex = known
            if left < 0:
                flex = base_flex
            else:  # as in `_write_sums`
                left_window, right_window = left_windows[number], windows[number + 1][hi]
                flex = base_flex + ((left if left < left_window else left_window)
                                    + (right if right < right_window else right_window) - gap_flex)
            append((with_temp if temp else plain) + w_flex * flex + progress_score + board)
        return scores

    def effect_scores(self, effects: Iterable[tuple], weights: Sequence[float]) -> list[float]:
        """``linear_score(weights, terms)`` of the Terms after each effect use
        (:class:`~welcometo_sim.rules.effects.Effect`: a fence, a bis write, a
        real-estate or park box, or a pool), like `write_scores`."""
        w_points, w_potential, w_flex, w_progress, w_board = weights
        other, flex_score, board = self.other_points, w_flex * self.flex, w_board * 0.0
        base_estates, base_potential, base_progress = self.estates, self.potential, self.progress
        other_points = other + 0.0  # `other + 0.0 + estates` adds in this order
        unchanged = (w_points * (other_points + base_estates) + w_potential * base_potential + flex_score
                     + w_progress * base_progress + board)
        changes: list[FenceChange | None] = []
        changes_street = -1
        scores = []
        for kind, street, position, number in effects:
            if kind == SURVEYOR:  # `_fence_sums` from the kept `_fence_changes`: most effect uses are fences
                if street != changes_street:
                    changes, changes_street = self._fence_changes(street), street
                change = changes[position]
                if change is None:
                    scores.append(unchanged)
                    continue
                e0, e1, e2, p0, p1, p2, unused_change = change
                estates = base_estates + e0 + e1 + e2
                potential = base_potential + p0 + p1 + p2
                progress = base_progress if unused_change is None else self._progress_after(unused_change)
                scores.append(w_points * (other_points + estates) + w_potential * potential + flex_score
                              + w_progress * progress + board)
                continue
            if kind == BIS:
                sums = self._write_sums(street, position, number, 0.0 - self.bis_cost)
            elif kind == REAL_ESTATE:
                sums = self.after_real_estate(position)
            elif kind == LANDSCAPER:
                sums = self.after_landscaper(street)
            else:
                sums = self.after_pool()
            scores.append(w_points * sums[0] + w_potential * sums[1] + w_flex * sums[2]
                          + w_progress * sums[3] + w_board * sums[4])
        return scores

    def shifting_effect_scores_after_write(self, street: int, house: int, number: int, effects: Sequence[tuple],
                                           weights: Sequence[float]) -> list[float]:
        """``after_write_evaluator(street, house, number).effect_scores(effects,
        weights)`` for real-estate, park and pool uses (`SHIFTING_EFFECTS`),
        the same floats: these only shift the sums, so they are scored from
        this evaluator's change for the write, without deriving an evaluator."""
        w_points, w_potential, w_flex, w_progress, w_board = weights
        estates, potential, progress, _open, _share = self._write_change(street, house)
        flex = self._write_sums(street, house, number, 0.0)[2]
        other, sheet = self.other_points, self.sheet
        counts: list[list] | None = None
        scores = []
        for kind, effect_street, position, _number in effects:
            # the sums of `after_real_estate`, `after_landscaper` and `after_pool`
            # on the evaluator after the write
            if kind == REAL_ESTATE:
                if counts is None:
                    counts = self._counts_after_write(street, house)
                track = sheet.data.real_estate_tracks[position - 1]
                gain = track[sheet.real_estate[position - 1] + 1] - track[sheet.real_estate[position - 1]]
                points = other + 0.0 + (estates + gain * counts[0][position - 1])
                shifted_potential = potential + gain * counts[2][position - 1]
            else:
                if kind == LANDSCAPER:
                    track, crossed = sheet.data.park_tracks[effect_street], sheet.parks[effect_street]
                    points = other + (track[crossed + 1] - track[crossed]) + estates
                else:
                    points = other + self.pool_gain + estates
                shifted_potential = potential
            scores.append(w_points * points + w_potential * shifted_potential + w_flex * flex
                          + w_progress * progress + w_board * 0.0)
        return scores


SHIFTING_EFFECTS = frozenset((REAL_ESTATE, LANDSCAPER, POOL))
"""Effects that only shift the sheet's sums (see `MoveEvaluator.shifting_effect_scores_after_write`)."""


def linear_score(weights: Sequence[float], terms: Terms) -> float:
    """The weighted sum of the first five terms, `weights` in the order points,
    estate_potential, flexibility, plan_progress, board (greedy's evaluation)."""
    w_points, w_potential, w_flex, w_progress, w_board = weights
    return (w_points * terms.points + w_potential * terms.estate_potential + w_flex * terms.flexibility
            + w_progress * terms.plan_progress + w_board * terms.board)


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
