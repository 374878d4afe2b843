"""Features of the learned evaluation: a sheet as indices into weight tables.

The value of a sheet is its exact points so far plus the sum of the weights
its features index (an n-tuple network, as in the TD-learned players of
2048). Every feature is an integer in one flat weight vector; the
:class:`Layout` fixes which range each table occupies, and index 0 is a
null feature (padding) whose weight stays 0.

Features are computed for a whole batch of street states at once with numpy
(:func:`street_features`): the streets of a sheet and the street states of
every candidate of a decision go through one call, each row padded to the
longest street. Tables, per street unless said:

- `window`: every window of three neighbouring houses, each house coded as
  empty (bucketed by how many numbers still fit it), written, written with
  its pool built, bis or roundabout, with the two fences inside the window;
  one table per window position and coarse game phase;
- `gap`: each run of empty houses between written numbers, by its length
  and the numbers that bound it (so, which numbers still fit), per phase;
- `run`: each fenced run (a future estate) by length, empty houses and
  whether one of them can no longer take a number, per phase;
- `park`: the street's crossed parks, per phase;

and for the whole sheet (:func:`global_features`): a bias per phase; per
estate size, the real-estate column crossed with the completed and open
estates of that size; pools built and still possible; the temp count
against the best opponent's; bis, refusals (with the opponents' worst),
roundabouts; and per plan, its id, whether it is still to be had (high or
low) and how far the sheet's estates cover it.

A layout may add feature groups (`Layout.groups`, named in the model file,
so that a file without them loads as before; their tables follow every
other table, in `FEATURE_GROUPS` order, so that a model without a group is
the first part of one with it):

- `cards` sees the next turn's effects, which are public in the standard
  game (the number side of a stack's top card shows the effect it will
  bring): the multiset of the three effects per phase; the estate, pool,
  temp and bis features again, each crossed with how many of the next
  offers carry that effect; and the completed and open estates crossed with
  the surveyors to come. Where the next effects are hidden (solo, expert)
  every count reads "unknown".
- `wide`: per street, every window of four neighbouring houses with its
  three inner fences, each house coded more coarsely than in the windows
  of three (`WIDE_CODES`), per window position and coarse phase.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..games.welcome_to.data import BIS, EFFECTS, POOL, REAL_ESTATE, SURVEYOR, TEMP

MAX_NUMBER = 17
EMPTY = -1
ROOM_BUCKETS = np.array([0, 1, 2, 3, 4, 4, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6], dtype=np.int64)
"""Bucket of an empty house by the count of numbers that still fit it (0..18)."""
WRITTEN, POOLED, BIS_CODE, ROUNDABOUT_CODE = 7, 8, 9, 10
_BUILT_CODES = np.array([WRITTEN, POOLED, BIS_CODE, BIS_CODE] + [ROUNDABOUT_CODE] * 4, dtype=np.int64)
"""Code of a house that is not empty, by roundabout * 4 + bis * 2 + pool built."""
N_CODES = 11
WINDOW_SIZE = 3
WINDOW_STATES = N_CODES ** WINDOW_SIZE * 4
N_PHASES = 6
N_WINDOW_PHASES = 3
MAX_GAP = 12
MAX_RUN = 8
MAX_RUN_EMPTY = 8
MAX_PARKS = 8
PLAN_PROGRESS = 49
PLAN_STATUS = 3
"""Plan status: 0 completed by this sheet, 1 open at its high value, 2 open at its low value."""


FEATURE_GROUPS = ("cards", "wide")
"""The optional table groups a layout may add (see the module docstring)."""
NEXT_UNKNOWN = 4
"""The next-effect count of every kind when the next effects are hidden."""
NEXT_STATES = 5
"""Next-effect counts: 0 to 3 offers, or NEXT_UNKNOWN."""
UNKNOWN_NEXT = (NEXT_UNKNOWN,) * len(EFFECTS)
CARD_COLUMNS = 11
"""Whole-sheet features of the `cards` group: the next effects, six estate
sizes, pools, temps, bis, fences."""
_KIND = {kind: k for k, kind in enumerate(EFFECTS)}
NEXT_SURVEYOR, NEXT_REAL_ESTATE, NEXT_POOL, NEXT_TEMP, NEXT_BIS = (_KIND[k] for k in (SURVEYOR, REAL_ESTATE, POOL,
                                                                                          TEMP, BIS))


WIDE_SIZE = 4
WIDE_CODES = np.array([0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7], dtype=np.int64)
"""A house's code in a wide window, by its code in a window of three: an
empty house in four buckets of how many numbers still fit it (none, 1-2,
3-5, 6 or more), then written, pooled, bis, roundabout."""
N_WIDE_CODES = 8
WIDE_STATES = N_WIDE_CODES ** WIDE_SIZE * 8


def next_counts(effects) -> tuple[int, ...]:
    """Per effect kind (in `EFFECTS` order), how many of the next turn's
    offers carry it; UNKNOWN_NEXT when `effects` is None (hidden)."""
    if effects is None:
        return UNKNOWN_NEXT
    counts = [0] * len(EFFECTS)
    for kind in effects:
        counts[_KIND[kind]] += 1
    return tuple(min(c, NEXT_UNKNOWN - 1) for c in counts)


def phase_of(turn: int) -> int:
    """Game phase of a turn (0..5): turns 1-5, 6-10, ..., 26 and later."""
    return min(max(turn - 1, 0) // 5, N_PHASES - 1)


def window_phase_of(turn: int) -> int:
    """The coarser phase of the window tables (0..2): turns 1-10, 11-20, 21 and later."""
    return min(max(turn - 1, 0) // 10, N_WINDOW_PHASES - 1)


class Layout:
    """Where each table lives in the flat weight vector, for one sheet shape
    and plan catalog."""

    def __init__(self, street_houses: tuple[int, ...], plan_ids: tuple[str, ...],
                 groups: tuple[str, ...] = ()) -> None:
        unknown = [g for g in groups if g not in FEATURE_GROUPS]
        if unknown or len(set(groups)) != len(groups):
            raise ValueError(f"feature groups must be distinct names of {', '.join(FEATURE_GROUPS)}, "
                             f"got {', '.join(groups)}")
        self.street_houses = tuple(street_houses)
        self.plan_ids = tuple(plan_ids)
        self.groups = tuple(g for g in FEATURE_GROUPS if g in groups)
        self.cards, self.wide = "cards" in self.groups, "wide" in self.groups
        self.plan_index = {plan: i for i, plan in enumerate(self.plan_ids)}
        self.offsets: dict[str, int] = {}
        size = 1
        for street, n in enumerate(self.street_houses):
            for name, count in self._street_tables(n):
                self.offsets[f"{name}{street}"] = size
                size += count
        for name, count in self._global_tables():
            self.offsets[name] = size
            size += count
        if self.wide:
            for street, n in enumerate(self.street_houses):
                self.offsets[f"wide{street}"] = size
                size += N_WINDOW_PHASES * max(n - WIDE_SIZE + 1, 0) * WIDE_STATES
        self.size = size
        self.width = max(self.street_houses)
        streets = range(len(self.street_houses))
        windows = self.width - WINDOW_SIZE + 1
        # per street: base index of each window position (phase 0), 0 where the street has no such window
        self.window_base = np.zeros((len(self.street_houses), windows), dtype=np.int64)
        for street in streets:
            own = self.street_houses[street] - WINDOW_SIZE + 1
            self.window_base[street, :own] = self.offsets[f"window{street}"] + np.arange(own) * WINDOW_STATES
        self.window_count = np.array([n - WINDOW_SIZE + 1 for n in self.street_houses], dtype=np.int64)
        # the same for the wide windows (all 0 without the group)
        self.wide_base = np.zeros((len(self.street_houses), max(self.width - WIDE_SIZE + 1, 0)), dtype=np.int64)
        self.wide_count = np.array([max(n - WIDE_SIZE + 1, 0) for n in self.street_houses], dtype=np.int64)
        if self.wide:
            for street in streets:
                own = self.wide_count[street]
                self.wide_base[street, :own] = self.offsets[f"wide{street}"] + np.arange(own) * WIDE_STATES
        self.gap_base = np.array([self.offsets[f"gap{s}"] for s in streets], dtype=np.int64)
        self.run_base = np.array([self.offsets[f"run{s}"] for s in streets], dtype=np.int64)
        self.park_base = np.array([self.offsets[f"park{s}"] for s in streets], dtype=np.int64)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and ((self.street_houses, self.plan_ids, self.groups)
                                              == (other.street_houses, other.plan_ids, other.groups))

    @staticmethod
    def _street_tables(n: int) -> list[tuple[str, int]]:
        return [
            ("window", N_WINDOW_PHASES * (n - WINDOW_SIZE + 1) * WINDOW_STATES),
            ("gap", N_PHASES * MAX_GAP * (MAX_NUMBER + 2) ** 2),
            ("run", N_PHASES * MAX_RUN * MAX_RUN_EMPTY * 2),
            ("park", N_PHASES * MAX_PARKS),
        ]

    def _global_tables(self) -> list[tuple[str, int]]:
        return [
            ("bias", N_PHASES),
            ("estate", 6 * 5 * 7 * 5),
            ("pools", N_PHASES * 10 * 7),
            ("temps", N_PHASES * 12 * 7),
            ("bis", N_PHASES * 10),
            ("refusals", N_PHASES * 4 * 4),
            ("roundabouts", N_PHASES * 3),
            ("plans", len(self.plan_ids) * PLAN_STATUS * PLAN_PROGRESS),
        ] + (self._card_tables() if self.cards else [])

    @staticmethod
    def _card_tables() -> list[tuple[str, int]]:
        """The `cards` group's tables, after the plain ones (so that a model
        without them is the first part of one with them; `wide`'s follow)."""
        return [
            ("next", N_PHASES * NEXT_STATES ** len(EFFECTS)),
            ("next_estate", 6 * 5 * 7 * 5 * NEXT_STATES),
            ("next_pools", N_PHASES * 10 * 7 * NEXT_STATES),
            ("next_temps", N_PHASES * 12 * 7 * NEXT_STATES),
            ("next_bis", N_PHASES * 10 * NEXT_STATES),
            ("next_fences", N_PHASES * 10 * 8 * NEXT_STATES),
        ]

    def offset(self, table: str) -> int:
        return self.offsets[table]


@dataclass
class StreetRows:
    """A batch of street states, one per row, padded to the layout's width:
    a padded house is a roundabout behind a fence, so it forms no gap, no run
    and no window."""

    street: np.ndarray       # (C,) which street each row is
    numbers: np.ndarray      # (C, W) int, EMPTY where no number is written
    roundabouts: np.ndarray  # (C, W) bool (padding included)
    bis: np.ndarray          # (C, W) bool
    fences: np.ndarray       # (C, W - 1) bool (padding fenced off)
    pools: np.ndarray        # (C, W) bool, pool built
    used: np.ndarray         # (C, W) bool, house under a plan line
    pool_house: np.ndarray   # (C, W) bool, the house has a pool symbol
    parks: np.ndarray        # (C,) int, parks crossed
    park_points: np.ndarray  # (C, MAX_PARKS) exact park points after k parks


_STATIC_ROWS: dict[tuple[int, int], tuple[object, np.ndarray, np.ndarray]] = {}


def static_rows(data, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Pool houses (S, W) and park points after k parks (S, MAX_PARKS) of a
    game's data, made once per data object (kept with them, so its id is not reused)."""
    found = _STATIC_ROWS.get((id(data), width))
    if found is None or found[0] is not data:
        streets = len(data.street_houses)
        pool_house = np.zeros((streets, width), dtype=bool)
        park_points = np.zeros((streets, MAX_PARKS), dtype=np.int64)
        for street in range(streets):
            pool_house[street, list(data.pool_houses[street])] = True
            track = data.park_tracks[street]
            park_points[street] = [track[min(k, len(track) - 1)] for k in range(MAX_PARKS)]
        if len(_STATIC_ROWS) > 64:
            _STATIC_ROWS.clear()
        found = _STATIC_ROWS[(id(data), width)] = (data, pool_house, park_points)
    return found[1], found[2]


def sheet_rows(sheet, width: int) -> StreetRows:
    """The streets of a Sheet, one row each, padded to `width` houses."""
    n_streets = len(sheet.numbers)
    numbers = np.full((n_streets, width), EMPTY, dtype=np.int64)
    rounds = np.ones((n_streets, width), dtype=bool)
    bis = np.zeros((n_streets, width), dtype=bool)
    fences = np.ones((n_streets, width - 1), dtype=bool)
    pools = np.zeros((n_streets, width), dtype=bool)
    used = np.zeros((n_streets, width), dtype=bool)
    for street, row in enumerate(sheet.numbers):
        n = len(row)
        numbers[street, :n] = [EMPTY if v is None else v for v in row]
        rounds[street, :n] = sheet.roundabouts[street]
        bis[street, :n] = sheet.is_bis[street]
        fences[street, :n - 1] = sheet.fences[street]
        pools[street, :n] = sheet.pools[street]
        used[street, :n] = sheet.plan_use[street]
    pool_house, park_points = static_rows(sheet.data, width)
    return StreetRows(np.arange(n_streets), numbers, rounds, bis, fences, pools, used, pool_house,
                      np.array(sheet.parks, dtype=np.int64), park_points)


def take_rows(rows: StreetRows, pick: np.ndarray) -> StreetRows:
    """A new batch made of the given rows (copies)."""
    return StreetRows(*(getattr(rows, name)[pick] for name in StreetRows.__dataclass_fields__))


def _bounds(numbers: np.ndarray, roundabouts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per house, the nearest written numbers left (lo, -1 if none) and right
    (hi, 18 if none) inside its roundabout segment."""
    segment = np.cumsum(roundabouts, axis=1) * 32
    written = numbers >= 0
    low_key = segment + np.where(written, numbers + 1, 0)
    low = np.maximum.accumulate(low_key, axis=1) - segment - 1
    high_key = segment + np.where(written, numbers, MAX_NUMBER + 1)
    high = np.minimum.accumulate(high_key[:, ::-1], axis=1)[:, ::-1] - segment
    return low, high


COMPLETED, UNUSED, OPEN = slice(0, 6), slice(6, 12), slice(12, 18)
POOLS_BUILT, POOLS_POSSIBLE = 18, 19
COUNTS = 20


@dataclass
class StreetSummary:
    """What the whole-sheet features need of each street state."""

    counts: np.ndarray          # (C, COUNTS): per estate size the completed estates, those no plan
    #                             uses and the fenced runs still to finish; pools built, pools possible
    park_points: np.ndarray     # (C,) exact park points of the street


def street_features(rows: StreetRows, layout: Layout, turn: int) -> tuple[np.ndarray, StreetSummary]:
    """Feature indices (C, F) of a batch of street states (0 = no feature) and
    their summary. `turn` is the turn whose phase applies."""
    numbers, rounds = rows.numbers, rows.roundabouts
    count, width = numbers.shape
    fence = rows.fences.astype(np.int64)
    empty = (numbers < 0) & ~rounds
    low, high = _bounds(numbers, rounds)
    room = np.where(empty, np.clip(high - low - 1, 0, MAX_NUMBER + 1), 0)
    built = _BUILT_CODES[rounds * 4 + rows.bis * 2 + rows.pools]
    code = np.where(empty, ROOM_BUCKETS[room], built)
    street = rows.street
    phase = phase_of(turn)

    # windows of three houses and their two inner fences
    window = ((code[:, :-2] * N_CODES + code[:, 1:-1]) * N_CODES + code[:, 2:]) * 4 \
        + fence[:, :-1] * 2 + fence[:, 1:]
    base = layout.window_base[street]
    phase_shift = (window_phase_of(turn) * layout.window_count * WINDOW_STATES)[street]
    window_idx = np.where(base > 0, base + phase_shift[:, None] + window, 0)

    # gaps: runs of empty houses between written numbers
    previous_empty = np.zeros_like(empty)
    previous_empty[:, 1:] = empty[:, :-1]
    gap_start = empty & ~previous_empty
    gap_id = np.cumsum(gap_start, axis=1) * empty
    flat_gap = np.arange(count)[:, None] * (width + 1) + gap_id
    gap_length = np.bincount(flat_gap.ravel(), minlength=count * (width + 1))[flat_gap]
    bound = MAX_NUMBER + 2
    gap_idx = (layout.gap_base[street][:, None]
               + ((phase * MAX_GAP + np.minimum(gap_length, MAX_GAP) - 1) * bound + low + 1) * bound
               + np.clip(high, 0, bound - 1))
    gap_idx = np.where(gap_start, gap_idx, 0)

    # fenced runs: one histogram per run property over flat run ids
    run_id = np.zeros((count, width), dtype=np.int64)
    run_id[:, 1:] = np.cumsum(fence, axis=1)
    flat_run = (np.arange(count)[:, None] * width + run_id).ravel()
    cells = count * width
    length = np.bincount(flat_run, minlength=cells)
    empties = np.bincount(flat_run, empty.ravel(), minlength=cells).astype(np.int64)
    dead = np.bincount(flat_run, (empty & (room == 0)).ravel(), minlength=cells) > 0
    has_round = np.bincount(flat_run, rounds.ravel(), minlength=cells) > 0
    has_used = np.bincount(flat_run, rows.used.ravel(), minlength=cells) > 0
    run_start = np.ones((count, width), dtype=bool)
    run_start[:, 1:] = rows.fences
    at = flat_run.reshape(count, width)
    run_idx = (layout.run_base[street][:, None]
               + ((phase * MAX_RUN + np.minimum(length[at], MAX_RUN) - 1) * MAX_RUN_EMPTY
                  + np.minimum(empties[at], MAX_RUN_EMPTY - 1)) * 2 + dead[at])
    run_idx = np.where(run_start & ~has_round[at], run_idx, 0)

    park_idx = layout.park_base[street] + phase * MAX_PARKS + np.minimum(rows.parks, MAX_PARKS - 1)
    street_tables = [window_idx, gap_idx, run_idx, park_idx[:, None]]
    if layout.wide:
        street_tables.append(_wide_features(layout, street, turn, WIDE_CODES[code], fence))

    # per row and estate size: completed, unused and open runs
    is_run = (length > 0) & ~has_round & (length <= 6)
    size_key = (np.arange(cells) // width) * 7 + np.where(is_run, length, 0)
    complete = is_run & (empties == 0)
    still_open = is_run & (empties > 0) & ~dead
    keys = np.concatenate([size_key[complete], size_key[complete & ~has_used] + count * 7,
                           size_key[still_open] + count * 14])
    by_size = np.bincount(keys, minlength=count * 21).reshape(3, count, 7)[:, :, 1:]
    counts = np.empty((count, COUNTS), dtype=np.int64)
    counts[:, :18] = by_size.transpose(1, 0, 2).reshape(count, 18)
    pool_here = rows.pool_house
    counts[:, POOLS_BUILT] = (rows.pools & pool_here).sum(axis=1)
    counts[:, POOLS_POSSIBLE] = (empty & pool_here & (room > 0)).sum(axis=1)
    summary = StreetSummary(counts, rows.park_points[np.arange(count), np.minimum(rows.parks, MAX_PARKS - 1)])
    return np.concatenate(street_tables, axis=1), summary


def _wide_features(layout: Layout, street: np.ndarray, turn: int, code: np.ndarray, fence: np.ndarray
                   ) -> np.ndarray:
    """The `wide` group's street features (C, W - 3): every window of four
    houses (`code`: their wide codes) and its three inner fences."""
    window = ((((code[:, :-3] * N_WIDE_CODES + code[:, 1:-2]) * N_WIDE_CODES + code[:, 2:-1]) * N_WIDE_CODES
               + code[:, 3:]) * 8 + fence[:, :-2] * 4 + fence[:, 1:-1] * 2 + fence[:, 2:])
    base = layout.wide_base[street]
    shift = (window_phase_of(turn) * layout.wide_count * WIDE_STATES)[street]
    return np.where(base > 0, base + shift[:, None] + window, 0)


@dataclass
class SheetContext:
    """Whole-sheet facts shared by every candidate of a decision."""

    turn: int
    refusals: int
    roundabouts: int
    plan_points: int
    plans: tuple            # PlanSpec per deck
    plan_done: tuple[bool, ...]
    plan_high: tuple[bool, ...]
    opponent_temps: int     # best opponent's temp count (solo: 5, one short of the solo bonus)
    opponent_refusals: int
    data: object            # GameData
    next_counts: tuple[int, ...] = UNKNOWN_NEXT  # `next_counts` of the next turn's effects


GLOBAL_COLUMNS = 12
"""Whole-sheet features a state has besides its plans: 6 estate sizes, pools,
temps, bis, bias, refusals, roundabouts (then one per plan deck)."""


def global_features(layout: Layout, context: SheetContext, counts: np.ndarray, real_estate: np.ndarray,
                    temps: np.ndarray, n_bis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Feature indices (C, G) of whole-sheet facts and the exact points (C,)
    they stand for (estates, pools, penalties, plans kept and claimable now).
    Arguments are per-candidate arrays (C rows); `counts` are the street
    summaries' counts summed over the streets. G is GLOBAL_COLUMNS, one per
    plan deck, then CARD_COLUMNS with the `cards` group."""
    count = counts.shape[0]
    data = context.data
    phase = phase_of(context.turn)
    completed, unused, open_runs = counts[:, COMPLETED], counts[:, UNUSED], counts[:, OPEN]
    pools_built, pools_possible = counts[:, POOLS_BUILT], counts[:, POOLS_POSSIBLE]
    n_plans = len(context.plans)
    index = np.empty((count, GLOBAL_COLUMNS + n_plans + (CARD_COLUMNS if layout.cards else 0)), dtype=np.int64)
    index[:, :6] = layout.offset("estate") + (((_SIZES * 5 + np.minimum(real_estate, 4)) * 7
                                               + np.minimum(completed, 6)) * 5 + np.minimum(open_runs, 4))
    index[:, 6] = (layout.offset("pools") + (phase * 10 + np.minimum(pools_built, 9)) * 7
                   + np.minimum(pools_possible, 6))
    index[:, 7] = (layout.offset("temps") + (phase * 12 + np.minimum(temps, 11)) * 7
                   + np.clip(temps - context.opponent_temps, -3, 3) + 3)
    index[:, 8] = layout.offset("bis") + phase * 10 + np.minimum(n_bis, 9)
    index[:, 9] = layout.offset("bias") + phase
    index[:, 10] = (layout.offset("refusals") + (phase * 4 + min(context.refusals, 3)) * 4
                    + min(context.opponent_refusals, 3))
    index[:, 11] = layout.offset("roundabouts") + phase * 3 + min(context.roundabouts, 2)

    estate_values = _estate_values(data)
    points = (completed * estate_values[_SIZES, np.minimum(real_estate, 5)]).sum(axis=1)
    pool_track = np.asarray(data.pool_track)
    bis_track = np.asarray(data.bis_track)
    points += pool_track[np.minimum(pools_built, len(pool_track) - 1)]
    points -= bis_track[np.minimum(n_bis, len(bis_track) - 1)]
    points += (context.plan_points
               - data.roundabout_track[min(context.roundabouts, len(data.roundabout_track) - 1)]
               - data.refusal_track[min(context.refusals, len(data.refusal_track) - 1)])

    plan_base = layout.offset("plans")
    for deck, spec in enumerate(context.plans):
        column = GLOBAL_COLUMNS + deck
        plan_index = layout.plan_index.get(spec.id)
        if plan_index is None:
            index[:, column] = 0
            continue
        if context.plan_done[deck]:
            index[:, column] = plan_base + plan_index * PLAN_STATUS * PLAN_PROGRESS
            continue
        status = 1 if context.plan_high[deck] else 2
        start = plan_base + (plan_index * PLAN_STATUS + status) * PLAN_PROGRESS
        if spec.kind != "estates":
            index[:, column] = start
            continue
        need = _needs(spec.estates)
        covered = np.minimum(need, unused).sum(axis=1)
        reachable = np.minimum(need, unused + open_runs).sum(axis=1)
        index[:, column] = start + np.minimum(covered, 6) * 7 + np.minimum(reachable, 6)
        if not spec.estate_filter:
            points += np.where(covered == len(spec.estates), spec.points[0] if context.plan_high[deck]
                               else spec.points[1], 0)
    if layout.cards:
        _card_features(layout, context, index, GLOBAL_COLUMNS + n_plans, completed, open_runs)
    return index, points


def _card_features(layout: Layout, context: SheetContext, index: np.ndarray, first: int, completed: np.ndarray,
                   open_runs: np.ndarray) -> None:
    """The `cards` group's columns of `index`, from `first` on (the estate,
    pool, temp and bis columns already written)."""
    phase = phase_of(context.turn)
    n = context.next_counts
    effects_key = sum(c * NEXT_STATES ** k for k, c in enumerate(n))
    index[:, first] = layout.offset("next") + phase * NEXT_STATES ** len(EFFECTS) + effects_key
    crossed = ((slice(first + 1, first + 7), "next_estate", slice(0, 6), "estate", NEXT_REAL_ESTATE),
               (first + 7, "next_pools", 6, "pools", NEXT_POOL),
               (first + 8, "next_temps", 7, "temps", NEXT_TEMP),
               (first + 9, "next_bis", 8, "bis", NEXT_BIS))
    for column, table, source_column, source, kind in crossed:
        index[:, column] = (layout.offset(table) + (index[:, source_column] - layout.offset(source)) * NEXT_STATES
                            + n[kind])
    index[:, first + 10] = (layout.offset("next_fences")
                            + ((phase * 10 + np.minimum(completed.sum(axis=1), 9)) * 8
                               + np.minimum(open_runs.sum(axis=1), 7)) * NEXT_STATES + n[NEXT_SURVEYOR])


_SIZES = np.arange(6)[None, :]
_ESTATE_VALUES: dict[tuple, np.ndarray] = {}
_NEEDS: dict[tuple, np.ndarray] = {}


def _estate_values(data) -> np.ndarray:
    """(6, 6) value of one completed estate of size s+1 after k crossed boxes
    (last value repeated; a track of more than six values, which overrides
    allow, is cut to the six the features see)."""
    key = data.real_estate_tracks
    found = _ESTATE_VALUES.get(key)
    if found is None:
        found = _ESTATE_VALUES[key] = np.array(
            [(list(track) + [track[-1]] * 6)[:6] for track in key], dtype=np.int64)
    return found


def _needs(sizes: tuple[int, ...]) -> np.ndarray:
    """(1, 6) estates an estate plan needs per size."""
    found = _NEEDS.get(sizes)
    if found is None:
        found = _NEEDS[sizes] = np.bincount(np.array(sizes) - 1, minlength=6)[None, :6]
    return found
