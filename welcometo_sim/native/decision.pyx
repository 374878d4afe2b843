# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True, auto_pickle=False
"""The learned evaluation's decision in typed code: `Evaluator.decision`
(welcometo_sim/learning/evaluator.py, the reference) for all candidates of
one decision in one call.

It lists the same candidates in the same order, the same street variants,
the same feature indices and the same values bit for bit: every float sum
is done in the order numpy's does it (pairwise with eight accumulators for
rows of eight values or more, as `np.add.reduce` along a contiguous axis),
so that argmax ties break the same way and seeded games stay the same.
Everything per candidate and per street variant runs in C, the bis spots
a play leaves included (as Sheet.bis_options_after_write lists them).

A decision comes in by one of two doors, which share the rest (`_score`):
- a Python player's (`decide`, `values_only`, `best_value`: what
  `Evaluator` asks): its sheet is read through the Python API once per
  decision (its rows and the fence masks it already computes), its plays
  and SheetContext as Python values;
- a native game's (`native_choice`, `native_best_value`: what
  welcometo_sim/native/game.pyx asks for its `learned` seats): the sheet
  and the context come as a sheet image (`SHEET_IMAGE`, int64 values the
  game writes from its native sheet's C state), the plays as five numbers
  each, and the answer is the chosen candidate, so that no Python object
  is made per decision. (This module cimports no other: a native game
  hands it plain arrays.)

A `Decider` is made once per evaluator, or per native game: it holds the
layout's tables and the game data's tracks in C, and keeps its working
arrays from one decision to the next, so a decision allocates only the
arrays it returns (allocating and wrapping a dozen numpy arrays a decision
cost about as much as the feature loops). Two things spare work without
changing a value: a candidate whose whole-sheet inputs (its streets'
counts summed, its real-estate column, temps, bis, refusal) are an earlier
candidate's takes that one's whole-sheet features, sum and points (most
candidates do); and a native game's decisions remember, in a street memo
kept for that game, the value and counts of each street state they meet,
so that a street met before (most are: the streets a turn leaves alone,
the fences and writes the next turns offer again) costs a look-up.
"""

from libc.math cimport isnan
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcpy, memset

import random

import numpy as np

from ..games.welcome_to.data import BIS, LANDSCAPER, POOL, REAL_ESTATE, SURVEYOR
from ..learning.features import _estate_values, _needs, phase_of, static_rows, window_phase_of

ctypedef int64_t i64
ctypedef unsigned char u8
ctypedef unsigned long long u64

# effect uses, as in evaluator.py
cdef enum:
    NO_USE = 0
    USE_FENCE = 1
    USE_ESTATE = 2
    USE_PARK = 3
    USE_POOL = 4
    USE_BIS = 5

cdef dict KIND_CODES = {SURVEYOR: USE_FENCE, REAL_ESTATE: USE_ESTATE, LANDSCAPER: USE_PARK, POOL: USE_POOL,
                        BIS: USE_BIS}
"""The effect use code of each offer's effect (evaluator.py's `_KIND_CODE`;
any other effect, the temp agency, has none)."""

# variant spec columns, as in evaluator.py
cdef enum:
    STREET = 0
    WRITE_HOUSE = 1
    WRITE_NUMBER = 2
    FENCE = 3
    PARK = 4
    POOL_HOUSE = 5
    BIS_HOUSE = 6
    BIS_NUMBER = 7
    SPEC = 8

# A sheet image: what a native game hands a decision of one of its seats
# (`Decider.native_choice`), int64 values. Each street of the layout comes
# first: its house numbers (-1: none; `width` values, the street's own
# houses first), then IMAGE_STREET fields; after the streets, the sheet's
# counters and the decision's context, IMAGE_SHEET fields.
cdef enum:
    IMAGE_HOUSES = 0        # the street's houses
    IMAGE_ROUNDABOUTS = 1   # bit h: house h is a roundabout
    IMAGE_BIS = 2           # bit h: house h holds a bis
    IMAGE_FENCES = 3        # bit h: a fence between houses h and h + 1
    IMAGE_POOLS = 4         # bit h: house h's pool is built
    IMAGE_LINES = 5         # bit h: a plan's line covers house h
    IMAGE_FENCE_SLOTS = 6   # bit h: a fence may go between houses h and h + 1 (Sheet.fence_mask)
    IMAGE_PARKS = 7         # parks crossed
    IMAGE_STREET = 8
    IMAGE_ESTATES = 0       # six values: boxes crossed in each real-estate column
    IMAGE_TEMPS = 6         # temp boxes crossed
    IMAGE_BIS_CROSSED = 7   # bis boxes crossed
    IMAGE_REFUSALS = 8      # refusals crossed
    IMAGE_ROUNDABOUTS_BUILT = 9
    IMAGE_PLAN_POINTS = 10  # sum(sheet.plan_points)
    IMAGE_TURN = 11         # the context's turn: the game's turn + 1
    IMAGE_OPPONENT_TEMPS = 12     # the most temps of an opponent as the turn began (5 without opponents)
    IMAGE_OPPONENT_REFUSALS = 13  # the most refusals of an opponent as the turn began (0 without)
    IMAGE_PLAN_DONE = 14    # MAX_DECKS values: 1 where this sheet completed the plan of that deck
    IMAGE_PLAN_HIGH = 22    # MAX_DECKS values: 1 where nobody had completed it as the turn began
    IMAGE_NEXT = 30         # N_EFFECTS values: features.next_counts of the next turn's effects
    IMAGE_SHEET = 36

SHEET_IMAGE = {
    "street": {"houses": IMAGE_HOUSES, "roundabouts": IMAGE_ROUNDABOUTS, "bis": IMAGE_BIS, "fences": IMAGE_FENCES,
               "pools": IMAGE_POOLS, "lines": IMAGE_LINES, "fence_slots": IMAGE_FENCE_SLOTS, "parks": IMAGE_PARKS,
               "size": IMAGE_STREET},
    "sheet": {"estates": IMAGE_ESTATES, "temps": IMAGE_TEMPS, "bis": IMAGE_BIS_CROSSED, "refusals": IMAGE_REFUSALS,
              "roundabouts": IMAGE_ROUNDABOUTS_BUILT, "plan_points": IMAGE_PLAN_POINTS, "turn": IMAGE_TURN,
              "opponent_temps": IMAGE_OPPONENT_TEMPS, "opponent_refusals": IMAGE_OPPONENT_REFUSALS,
              "plan_done": IMAGE_PLAN_DONE, "plan_high": IMAGE_PLAN_HIGH, "next_counts": IMAGE_NEXT,
              "size": IMAGE_SHEET},
    "plan_decks": MAX_DECKS,
}
"""The offsets of a sheet image's fields (the IMAGE_ constants above): in a
street, after its `width` numbers; in the sheet's part, after the streets.
A native game writes its images with these."""

# features.py constants
cdef enum:
    MAX_NUMBER = 17
    N_CODES = 11
    WINDOW_STATES = 5324  # N_CODES ** 3 * 4
    MAX_GAP = 12
    MAX_RUN = 8
    MAX_RUN_EMPTY = 8
    MAX_PARKS = 8
    COUNTS = 20
    PACKED = 3  # words of COUNTS counts, one byte each
    POOLS_BUILT = 18
    POOLS_POSSIBLE = 19
    GLOBAL_COLUMNS = 12
    PLAN_STATUS = 3
    PLAN_PROGRESS = 49
    MAX_WIDTH = 32
    MAX_STREETS = 8
    MAX_DECKS = 8
    N_WIDE_CODES = 8
    WIDE_STATES = 32768  # N_WIDE_CODES ** 4 * 8
    CARD_COLUMNS = 11
    N_EFFECTS = 6
    NEXT_STATES = 5
    NEXT_SURVEYOR = 0
    NEXT_REAL_ESTATE = 1
    NEXT_POOL = 3
    NEXT_TEMP = 4
    NEXT_BIS = 5

cdef i64[19] ROOM_BUCKETS = [0, 1, 2, 3, 4, 4, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]
cdef i64[8] BUILT_CODES = [7, 8, 9, 9, 10, 10, 10, 10]
cdef i64[11] WIDE_CODES = [0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7]  # features.WIDE_CODES

cdef enum:
    PHASE_TURNS = 64
cdef i64 PHASES[PHASE_TURNS]
cdef i64 WINDOW_PHASES[PHASE_TURNS]
for _turn in range(PHASE_TURNS):  # features.phase_of and window_phase_of of the turns games reach
    PHASES[_turn], WINDOW_PHASES[_turn] = phase_of(_turn), window_phase_of(_turn)


cdef inline i64 imin(i64 a, i64 b) noexcept nogil:
    return a if a < b else b


cdef inline i64 imax(i64 a, i64 b) noexcept nogil:
    return a if a > b else b


cdef inline double pairwise_sum(const double[::1] weights, const i64* index, Py_ssize_t n) noexcept nogil:
    """Sum of weights[index[0..n)] as numpy's pairwise sum adds a row of up
    to 128 values: sequentially below 8, else eight running accumulators
    combined as a tree, then the remainder. Starts from numpy's identity."""
    cdef double r0, r1, r2, r3, r4, r5, r6, r7, res
    cdef Py_ssize_t i
    if n < 8:
        res = -0.0
        for i in range(n):
            res += weights[index[i]]
        return 0.0 + res
    r0 = weights[index[0]]
    r1 = weights[index[1]]
    r2 = weights[index[2]]
    r3 = weights[index[3]]
    r4 = weights[index[4]]
    r5 = weights[index[5]]
    r6 = weights[index[6]]
    r7 = weights[index[7]]
    i = 8
    while i < n - (n % 8):
        r0 += weights[index[i]]
        r1 += weights[index[i + 1]]
        r2 += weights[index[i + 2]]
        r3 += weights[index[i + 3]]
        r4 += weights[index[i + 4]]
        r5 += weights[index[i + 5]]
        r6 += weights[index[i + 6]]
        r7 += weights[index[i + 7]]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += weights[index[i]]
        i += 1
    return 0.0 + res


cdef class _Scratch:
    """A C array of i64 kept from one decision to the next, grown when a
    decision needs more. `need` may move it: take pointers after the call."""

    cdef i64* data
    cdef Py_ssize_t size

    def __dealloc__(self):
        free(self.data)

    cdef i64* need(self, Py_ssize_t n) except NULL:
        cdef i64* grown
        if n > self.size:
            n = max(n, 2 * self.size, 64)
            grown = <i64*>realloc(self.data, n * sizeof(i64))
            if grown == NULL:
                raise MemoryError()
            self.data, self.size = grown, n
        return self.data


# ------------------------------------------------------------------ candidates
cdef class _Builder:
    """The street variants (spec rows of SPEC values) and candidate rows (the
    street variant of each street, then play, use, three arguments, estate,
    temp, bis) of one decision, appended in the reference's order into C
    arrays sized for the worst case and kept for the next decision."""

    cdef i64* specs
    cdef i64* table
    cdef Py_ssize_t n_specs, n_rows, n_streets, row_width
    cdef _Scratch specs_buffer, table_buffer

    def __cinit__(self):
        self.specs_buffer = _Scratch()
        self.table_buffer = _Scratch()

    cdef int reset(self, Py_ssize_t n_streets, Py_ssize_t max_specs, Py_ssize_t max_rows) except -1:
        self.n_streets, self.row_width = n_streets, n_streets + 8
        self.specs = self.specs_buffer.need(max_specs * SPEC)
        self.table = self.table_buffer.need(max_rows * self.row_width)
        self.n_specs = 0
        self.n_rows = 0
        return 0

    cdef inline i64* row_at(self, Py_ssize_t at) noexcept:
        return self.table + at * self.row_width

    cdef Py_ssize_t spec(self, i64 street, i64 house, i64 number, i64 fence, i64 park, i64 pool,
                         i64 bis_house, i64 bis_number) noexcept:
        cdef Py_ssize_t at = self.n_specs
        cdef i64* row = self.specs + at * SPEC
        row[STREET] = street
        row[WRITE_HOUSE] = house
        row[WRITE_NUMBER] = number
        row[FENCE] = fence
        row[PARK] = park
        row[POOL_HOUSE] = pool
        row[BIS_HOUSE] = bis_house
        row[BIS_NUMBER] = bis_number
        self.n_specs += 1
        return at

    cdef Py_ssize_t row(self, const i64* play_rows, i64 play, i64 use, i64 a, i64 b, i64 c,
                        i64 estate, i64 temp, i64 bis) noexcept:
        """A candidate row: `play`'s street variants (all base streets for a
        refusal), to be changed by the caller at the effect's street."""
        cdef Py_ssize_t at = self.n_rows, s, n = self.n_streets
        cdef i64* row = self.row_at(at)
        for s in range(n):
            row[s] = s if play < 0 else play_rows[play * n + s]
        row[n] = play
        row[n + 1] = use
        row[n + 2] = a
        row[n + 3] = b
        row[n + 4] = c
        row[n + 5] = estate
        row[n + 6] = temp
        row[n + 7] = bis
        self.n_rows += 1
        return at


cdef void _fences(_Builder out, const i64* fields, const i64* kind, Py_ssize_t n_plays, _Sheet sheet,
                  const i64* play_rows) noexcept:
    """Surveyor: every fence slot, with every play of a surveyor offer
    (alone variants first, then the same-street merges, pair by pair)."""
    cdef Py_ssize_t n_streets = sheet.n_streets
    cdef Py_ssize_t p, s, k, slot_count = 0, first_alone, at
    cdef i64 slot_street[MAX_WIDTH * 8]
    cdef i64 slot_bit[MAX_WIDTH * 8]
    cdef bint any_player = False
    for p in range(n_plays):
        if kind[p] == USE_FENCE:
            any_player = True
            break
    for s in range(n_streets):
        k = 0
        while (sheet.fence_masks[s] >> k) != 0:
            if (sheet.fence_masks[s] >> k) & 1:
                slot_street[slot_count] = s
                slot_bit[slot_count] = k
                slot_count += 1
            k += 1
    if not any_player or slot_count == 0:
        return
    first_alone = out.n_specs
    for k in range(slot_count):
        out.spec(slot_street[k], -1, -1, slot_bit[k], 0, -1, -1, -1)
    cdef Py_ssize_t first_merged = out.n_specs, merged = 0
    for p in range(n_plays):
        if kind[p] != USE_FENCE:
            continue
        for k in range(slot_count):
            if fields[p * 5 + 1] == slot_street[k]:
                out.spec(fields[p * 5 + 1], fields[p * 5 + 2], fields[p * 5 + 3], slot_bit[k], 0, -1, -1, -1)
    for p in range(n_plays):
        if kind[p] != USE_FENCE:
            continue
        for k in range(slot_count):
            at = out.row(play_rows, p, USE_FENCE, slot_street[k], slot_bit[k], 0, -1, 0, 0)
            if fields[p * 5 + 1] == slot_street[k]:
                out.row_at(at)[slot_street[k]] = first_merged + merged
                merged += 1
            else:
                out.row_at(at)[slot_street[k]] = first_alone + k


cdef void _estates(_Builder out, const i64* kind, Py_ssize_t n_plays, _Sheet sheet,
                   const i64* play_rows) noexcept:
    """Real estate: every column with a box left, with every play of a real-estate offer."""
    cdef Py_ssize_t p, k
    if sheet.n_sizes == 0:
        return
    for p in range(n_plays):
        if kind[p] != USE_ESTATE:
            continue
        for k in range(sheet.n_sizes):
            out.row(play_rows, p, USE_ESTATE, sheet.sizes[k] + 1, 0, 0, sheet.sizes[k], 0, 0)


cdef void _parks_and_pools(_Builder out, const i64* fields, const i64* kind, Py_ssize_t n_plays, _Sheet sheet,
                           const i64* play_rows) noexcept:
    """Landscaper (a park on the written street) and pool (the written pool house)."""
    cdef Py_ssize_t p, at, variant
    cdef i64 street, house
    for p in range(n_plays):
        street, house = fields[p * 5 + 1], fields[p * 5 + 2]
        if kind[p] == USE_PARK and sheet.can_park[street]:
            variant = out.spec(street, house, fields[p * 5 + 3], -1, 1, -1, -1, -1)
            at = out.row(play_rows, p, USE_PARK, street, 0, 0, -1, 0, 0)
            out.row_at(at)[street] = variant
    for p in range(n_plays):
        street, house = fields[p * 5 + 1], fields[p * 5 + 2]
        if kind[p] == USE_POOL and sheet.pool_open[street][house]:
            variant = out.spec(street, house, fields[p * 5 + 3], -1, 0, house, -1, -1)
            at = out.row(play_rows, p, USE_POOL, street, house, 0, -1, 0, 0)
            out.row_at(at)[street] = variant


cdef Py_ssize_t _bis_spots_after_write(_Sheet sheet, i64 street, i64 house, i64 number, i64* spots,
                                       Py_ssize_t at) noexcept:
    """Sheet.bis_options_after_write in C: every (street, house, number) a
    bis can write once `number` is in `house`, street by street, house by
    house, the copy of the left neighbour first. Appends them to `spots`
    (three values a spot) from spot `at`; returns the spot after the last.
    (Padded houses are roundabouts behind fences, so they add no spot.)"""
    cdef Py_ssize_t s, h, w = sheet.width
    cdef i64 value, left, right
    for s in range(sheet.n_streets):
        for h in range(w):
            value = number if s == street and h == house else sheet.numbers[s][h]
            if value >= 0 or sheet.rounds[s][h]:
                continue
            if h > 0 and not sheet.fences[s][h - 1]:
                left = number if s == street and h - 1 == house else sheet.numbers[s][h - 1]
                if left >= 0:
                    spots[3 * at], spots[3 * at + 1], spots[3 * at + 2] = s, h, left
                    at += 1
            if h < w - 1 and not sheet.fences[s][h]:
                right = number if s == street and h + 1 == house else sheet.numbers[s][h + 1]
                if right >= 0:
                    spots[3 * at], spots[3 * at + 1], spots[3 * at + 2] = s, h, right
                    at += 1
    return at


cdef void _bis(_Builder out, const i64* fields, Py_ssize_t n_plays, const i64* bis_from,
               const i64* bis_spots, const i64* play_rows, i64* keys, i64* key_of) noexcept:
    """Bis: every copy the sheet allows once the play is written; equal
    street variants are listed once, in the order first met. `keys` (five
    values a spot) and `key_of` are working space of a spot each."""
    cdef Py_ssize_t p, j, q, found, at
    cdef Py_ssize_t n_keys = 0
    cdef i64 street, house, number
    cdef i64* key
    if bis_from[n_plays] == 0:
        return
    for p in range(n_plays):
        for j in range(bis_from[p], bis_from[p + 1]):
            street = bis_spots[3 * j]
            if street == fields[p * 5 + 1]:
                house, number = fields[p * 5 + 2], fields[p * 5 + 3]
            else:
                house, number = -1, -1
            found = -1
            for q in range(n_keys):
                key = keys + 5 * q
                if (key[0] == street and key[1] == house and key[2] == number
                        and key[3] == bis_spots[3 * j + 1] and key[4] == bis_spots[3 * j + 2]):
                    found = q
                    break
            if found < 0:
                found = n_keys
                key = keys + 5 * found
                key[0], key[1], key[2] = street, house, number
                key[3], key[4] = bis_spots[3 * j + 1], bis_spots[3 * j + 2]
                n_keys += 1
            key_of[j] = found
    cdef Py_ssize_t first = out.n_specs
    for q in range(n_keys):
        key = keys + 5 * q
        out.spec(key[0], key[1], key[2], -1, 0, -1, key[3], key[4])
    for p in range(n_plays):
        for j in range(bis_from[p], bis_from[p + 1]):
            at = out.row(play_rows, p, USE_BIS, bis_spots[3 * j], bis_spots[3 * j + 1], bis_spots[3 * j + 2],
                         -1, 0, 1)
            out.row_at(at)[bis_spots[3 * j]] = first + key_of[j]


# ------------------------------------------------------------- street features
cdef class _Sheet:
    """What a decision needs of the sheet, read into C arrays: its streets as
    features.sheet_rows pads them (a padded house is a roundabout behind a
    fence), the layout's per-street tables (set once), the data's pool
    houses and park points (set when the data changes), and what the
    effects may do (fence slots, estate columns, parks, pools). Read from a
    Python `Sheet` (`_read_sheet`) or from a native game's sheet image
    (`_read_image`): the same fields either way."""

    cdef i64 numbers[MAX_STREETS][MAX_WIDTH]
    cdef u8 rounds[MAX_STREETS][MAX_WIDTH]
    cdef u8 bis[MAX_STREETS][MAX_WIDTH]
    cdef u8 fences[MAX_STREETS][MAX_WIDTH]
    cdef u8 pools[MAX_STREETS][MAX_WIDTH]
    cdef u8 used[MAX_STREETS][MAX_WIDTH]
    cdef u8 pool_house[MAX_STREETS][MAX_WIDTH]
    cdef u8 pool_open[MAX_STREETS][MAX_WIDTH]
    cdef i64 parks[MAX_STREETS]
    cdef u8 can_park[MAX_STREETS]
    cdef i64 park_points[MAX_STREETS][MAX_PARKS]
    cdef i64 fence_masks[MAX_STREETS]
    cdef i64 sizes[6]
    cdef i64 real_estate[6]
    cdef Py_ssize_t n_sizes, n_streets, width, n_slots
    cdef i64 temps, n_bis          # the sheet's temp and bis boxes crossed
    cdef i64 temp_boxes, max_bis   # the data's track lengths
    cdef i64 park_limit[MAX_STREETS]  # parks a street can cross
    cdef i64 estate_limit[6]          # boxes a real-estate column can cross
    cdef Py_ssize_t layout_streets
    cdef i64 window_base[MAX_STREETS][MAX_WIDTH]
    cdef i64 window_count[MAX_STREETS]
    cdef i64 gap_base[MAX_STREETS]
    cdef i64 run_base[MAX_STREETS]
    cdef i64 park_base[MAX_STREETS]
    cdef bint wide                         # the layout has the `wide` group
    cdef i64 wide_base[MAX_STREETS][MAX_WIDTH]
    cdef i64 wide_count[MAX_STREETS]


cdef int _set_layout(_Sheet out, layout) except -1:
    """The layout's per-street tables, once per decider."""
    cdef Py_ssize_t s, h, width = layout.width, n_streets = len(layout.street_houses)
    if width > MAX_WIDTH or n_streets > MAX_STREETS:
        raise ValueError(f"the native decision takes at most {MAX_STREETS} streets of {MAX_WIDTH} houses, "
                         f"not {n_streets} of {width}")
    cdef const i64[:, ::1] window_base = layout.window_base
    cdef const i64[::1] window_count = layout.window_count, gap_base = layout.gap_base
    cdef const i64[::1] run_base = layout.run_base, park_base = layout.park_base
    out.width, out.layout_streets = width, n_streets
    out.wide = layout.wide
    cdef const i64[:, ::1] wide_base = layout.wide_base
    for s in range(n_streets):
        out.wide_count[s] = layout.wide_count[s]
        for h in range(wide_base.shape[1]):
            out.wide_base[s][h] = wide_base[s, h]
        for h in range(window_base.shape[1]):
            out.window_base[s][h] = window_base[s, h]
        out.window_count[s] = window_count[s]
        out.gap_base[s] = gap_base[s]
        out.run_base[s] = run_base[s]
        out.park_base[s] = park_base[s]
    return 0


cdef int _set_data(_Sheet out, data) except -1:
    """The data's pool houses and park points, when a decision's data is
    not the previous decision's."""
    cdef Py_ssize_t s, h, width = out.width
    pool_house, park_points = static_rows(data, width)
    cdef const u8[:, ::1] pool_here = pool_house.view(np.uint8)
    cdef const i64[:, ::1] park_track = park_points
    if pool_here.shape[0] > MAX_STREETS:
        raise ValueError(f"the native decision takes at most {MAX_STREETS} streets, not {pool_here.shape[0]}")
    for s in range(pool_here.shape[0]):
        for h in range(width):
            out.pool_house[s][h] = pool_here[s, h]
        for h in range(MAX_PARKS):
            out.park_points[s][h] = park_track[s, h]
    out.temp_boxes, out.max_bis = data.temp_boxes, data.max_bis
    for s, track in enumerate(data.park_tracks[:MAX_STREETS]):
        out.park_limit[s] = len(track) - 1
    for s, track in enumerate(data.real_estate_tracks[:6]):
        out.estate_limit[s] = len(track) - 1
    return 0


cdef int _read_sheet(_Sheet out, sheet, data) except -1:
    """The typed form of `sheet`'s changing parts, into `out`."""
    cdef Py_ssize_t s, h, n, width = out.width, n_streets = len(sheet.numbers)
    if n_streets > MAX_STREETS or len(sheet.real_estate) > 6:
        raise ValueError(f"the native decision takes at most {MAX_STREETS} streets and 6 estate sizes, "
                         f"not {n_streets} and {len(sheet.real_estate)}")
    park_tracks = data.park_tracks
    out.n_streets, out.n_slots = n_streets, 0
    for s in range(n_streets):
        numbers, rounds, bis = sheet.numbers[s], sheet.roundabouts[s], sheet.is_bis[s]
        fences, pools, used = sheet.fences[s], sheet.pools[s], sheet.plan_use[s]
        n = len(numbers)
        if n > width:
            raise ValueError(f"the native decision's layout has streets of at most {width} houses, not {n}")
        for h in range(width):
            if h < n:
                number = numbers[h]
                out.numbers[s][h] = -1 if number is None else number
                out.rounds[s][h] = bool(rounds[h])
                out.bis[s][h] = bool(bis[h])
                out.pools[s][h] = bool(pools[h])
                out.used[s][h] = bool(used[h])
            else:
                out.numbers[s][h] = -1
                out.rounds[s][h] = 1
                out.bis[s][h] = out.pools[s][h] = out.used[s][h] = 0
            out.pool_open[s][h] = out.pool_house[s][h] and not out.pools[s][h]
            out.fences[s][h] = bool(fences[h]) if h < n - 1 else 1
        out.parks[s] = sheet.parks[s]
        out.can_park[s] = out.parks[s] < len(park_tracks[s]) - 1
        out.fence_masks[s] = sheet.fence_mask(s)
        out.n_slots += int(out.fence_masks[s]).bit_count()
    tracks = data.real_estate_tracks
    out.n_sizes = 0
    for s, crossed in enumerate(sheet.real_estate):
        out.real_estate[s] = crossed
        if crossed < len(tracks[s]) - 1:
            out.sizes[out.n_sizes] = s
            out.n_sizes += 1
    for s in range(len(sheet.real_estate), 6):
        out.real_estate[s] = 0
    out.temps, out.n_bis = sheet.temps, sheet.n_bis
    return 0


cdef int _read_image(_Sheet out, const i64* image) except -1:
    """`_read_sheet` of a sheet image (`SHEET_IMAGE`): the same fields."""
    cdef Py_ssize_t s, h, n, width = out.width, n_streets = out.layout_streets
    cdef const i64* street
    cdef const i64* counters = image + n_streets * (width + IMAGE_STREET)
    cdef i64 mask
    out.n_streets, out.n_slots = n_streets, 0
    for s in range(n_streets):
        street = image + s * (width + IMAGE_STREET)
        n = street[width + IMAGE_HOUSES]
        if not 0 < n <= width:
            raise ValueError(f"a sheet image street of {n} houses, in a layout of {width}")
        for h in range(width):
            if h < n:
                out.numbers[s][h] = street[h]
                out.rounds[s][h] = (street[width + IMAGE_ROUNDABOUTS] >> h) & 1
                out.bis[s][h] = (street[width + IMAGE_BIS] >> h) & 1
                out.pools[s][h] = (street[width + IMAGE_POOLS] >> h) & 1
                out.used[s][h] = (street[width + IMAGE_LINES] >> h) & 1
            else:
                out.numbers[s][h] = -1
                out.rounds[s][h] = 1
                out.bis[s][h] = out.pools[s][h] = out.used[s][h] = 0
            out.pool_open[s][h] = out.pool_house[s][h] and not out.pools[s][h]
            out.fences[s][h] = ((street[width + IMAGE_FENCES] >> h) & 1) if h < n - 1 else 1
        out.parks[s] = street[width + IMAGE_PARKS]
        out.can_park[s] = out.parks[s] < out.park_limit[s]
        mask = street[width + IMAGE_FENCE_SLOTS]
        out.fence_masks[s] = mask
        while mask:
            mask &= mask - 1
            out.n_slots += 1
    out.n_sizes = 0
    for s in range(6):
        out.real_estate[s] = counters[IMAGE_ESTATES + s]
        if out.real_estate[s] < out.estate_limit[s]:
            out.sizes[out.n_sizes] = s
            out.n_sizes += 1
    out.temps, out.n_bis = counters[IMAGE_TEMPS], counters[IMAGE_BIS_CROSSED]
    return 0


cdef void _street_features(_Sheet base, const i64* spec, i64 phase, i64 window_phase,
                           i64* features, i64* counts, i64* park_points) noexcept:
    """features.street_features of one street variant: its base street with
    `spec` applied. Writes its 3W - 1 feature indices, its 20 summary counts
    and its exact park points."""
    cdef Py_ssize_t w = base.width, h, r, street = spec[STREET]
    cdef i64 numbers[MAX_WIDTH]
    cdef u8 rounds[MAX_WIDTH]
    cdef u8 bis[MAX_WIDTH]
    cdef u8 fences[MAX_WIDTH]
    cdef u8 pools[MAX_WIDTH]
    cdef u8 empty[MAX_WIDTH]
    cdef i64 low[MAX_WIDTH]
    cdef i64 high[MAX_WIDTH]
    cdef i64 segment[MAX_WIDTH]
    cdef i64 room[MAX_WIDTH]
    cdef i64 code[MAX_WIDTH]
    cdef i64 best, cut, parks
    for h in range(w):
        numbers[h] = base.numbers[street][h]
        rounds[h] = base.rounds[street][h]
        bis[h] = base.bis[street][h]
        pools[h] = base.pools[street][h]
    for h in range(w - 1):
        fences[h] = base.fences[street][h]
    if spec[WRITE_HOUSE] >= 0:
        numbers[spec[WRITE_HOUSE]] = spec[WRITE_NUMBER]
    if spec[FENCE] >= 0:
        fences[spec[FENCE]] = 1
    parks = base.parks[street] + spec[PARK]
    if spec[POOL_HOUSE] >= 0:
        pools[spec[POOL_HOUSE]] = 1
    if spec[BIS_HOUSE] >= 0:
        numbers[spec[BIS_HOUSE]] = spec[BIS_NUMBER]
        bis[spec[BIS_HOUSE]] = 1

    # the nearest written numbers either side inside the roundabout segment (features._bounds),
    # from the left
    cdef i64 number, at
    cut = 0
    best = -(1 << 62)
    for h in range(w):
        cut += rounds[h]
        at = cut * 32
        segment[h] = at
        number = numbers[h]
        empty[h] = number < 0 and not rounds[h]
        best = imax(best, at + (number + 1 if number >= 0 else 0))
        low[h] = best - at - 1
    # from the right, with each house's room and code, the end of each run of
    # empty houses, and the pool counts
    cdef Py_ssize_t[MAX_WIDTH + 1] empty_end
    for h in range(COUNTS):
        counts[h] = 0
    best = 1 << 62
    empty_end[w] = w
    for h in range(w - 1, -1, -1):
        number = numbers[h]
        best = imin(best, segment[h] + (number if number >= 0 else MAX_NUMBER + 1))
        high[h] = best - segment[h]
        if empty[h]:
            room[h] = imin(imax(high[h] - low[h] - 1, 0), MAX_NUMBER + 1)
            code[h] = ROOM_BUCKETS[room[h]]
            empty_end[h] = empty_end[h + 1] if h + 1 < w and empty[h + 1] else h + 1
        else:
            room[h] = 0
            code[h] = BUILT_CODES[rounds[h] * 4 + bis[h] * 2 + pools[h]]
        if base.pool_house[street][h]:
            counts[POOLS_BUILT] += pools[h]
            if empty[h] and room[h] > 0:
                counts[POOLS_POSSIBLE] += 1

    # windows of three houses and their two inner fences; gaps: runs of empty
    # houses between written numbers (the runs' features are set below)
    cdef i64 window_base, shift = window_phase * base.window_count[street] * WINDOW_STATES
    cdef i64* gaps = features + (w - 2)
    cdef i64* runs = features + (2 * w - 2)
    cdef Py_ssize_t end
    cdef i64 bound = MAX_NUMBER + 2
    for h in range(w):
        if h < w - 2:
            window_base = base.window_base[street][h]
            if window_base > 0:
                features[h] = (window_base + shift
                               + ((code[h] * N_CODES + code[h + 1]) * N_CODES + code[h + 2]) * 4
                               + fences[h] * 2 + fences[h + 1])
            else:
                features[h] = 0
        if empty[h] and (h == 0 or not empty[h - 1]):
            gaps[h] = (base.gap_base[street]
                       + ((phase * MAX_GAP + imin(empty_end[h] - h, MAX_GAP) - 1) * bound + low[h] + 1) * bound
                       + imin(imax(high[h], 0), bound - 1))
        else:
            gaps[h] = 0
        runs[h] = 0

    # fenced runs: length, empty houses, dead house, roundabout, plan use
    cdef i64 empties, run_length
    cdef bint dead, has_round, has_used
    cdef Py_ssize_t start = 0
    while start < w:
        end = start
        while end < w - 1 and not fences[end]:
            end += 1
        end += 1  # the run is houses start .. end - 1
        run_length = end - start
        empties = 0
        dead = has_round = has_used = False
        for h in range(start, end):
            empties += empty[h]
            if empty[h] and room[h] == 0:
                dead = True
            if rounds[h]:
                has_round = True
            if base.used[street][h]:
                has_used = True
        if not has_round:
            runs[start] = (base.run_base[street]
                           + ((phase * MAX_RUN + imin(run_length, MAX_RUN) - 1) * MAX_RUN_EMPTY
                              + imin(empties, MAX_RUN_EMPTY - 1)) * 2 + dead)
            if run_length <= 6:
                if empties == 0:
                    counts[run_length - 1] += 1
                    if not has_used:
                        counts[6 + run_length - 1] += 1
                elif not dead:
                    counts[12 + run_length - 1] += 1
        start = end

    features[3 * w - 2] = base.park_base[street] + phase * MAX_PARKS + imin(parks, MAX_PARKS - 1)
    park_points[0] = base.park_points[street][imin(parks, MAX_PARKS - 1)]
    if base.wide:
        _wide_features(base, street, window_phase, code, fences, features + 3 * w - 1)


cdef void _wide_features(_Sheet base, Py_ssize_t street, i64 window_phase, const i64* code, const u8* fences,
                         i64* out) noexcept:
    """features._wide_features of one street (its houses' codes in windows
    of three, `code`): width - 3 features into `out`."""
    cdef Py_ssize_t h
    cdef i64 wide_base, shift = window_phase * base.wide_count[street] * WIDE_STATES
    for h in range(base.width - 3):
        wide_base = base.wide_base[street][h]
        if wide_base > 0:
            out[h] = (wide_base + shift
                      + (((WIDE_CODES[code[h]] * N_WIDE_CODES + WIDE_CODES[code[h + 1]]) * N_WIDE_CODES
                          + WIDE_CODES[code[h + 2]]) * N_WIDE_CODES + WIDE_CODES[code[h + 3]]) * 8
                      + fences[h] * 4 + fences[h + 1] * 2 + fences[h + 2])
        else:
            out[h] = 0


# ------------------------------------------------------------- whole sheet
cdef class _Globals:
    """What global_features needs of a decision's context, typed: the table
    offsets (set once), the game's tracks (set when the data changes), each
    plan deck's rule (set when the plans change: every decision of a Python
    player, once per game of a native one), and the context's scalars and
    each plan's status (set every decision)."""

    cdef i64 estate, pools, temps, bis, bias, refusals, roundabouts, plans
    cdef i64 refusals_column, refused_column, roundabouts_column
    cdef i64 phase, opponent_temps, constant, refused_constant
    cdef const i64[:, ::1] estate_values
    cdef const i64[::1] pool_track, bis_track, roundabout_track, refusal_track
    cdef i64 max_refusals
    # each plan deck's rule
    cdef Py_ssize_t decks
    cdef i64 plan_column[MAX_DECKS]   # the plan's index in the layout (-1: a plan the model does not know)
    cdef u8 plan_estates[MAX_DECKS]   # it counts estates
    cdef i64 plan_need[MAX_DECKS][6]  # estates needed per size
    cdef i64 plan_total[MAX_DECKS]    # estates the plan needs in all (-1: filtered estates, no points here)
    cdef i64 plan_value[MAX_DECKS][2] # its high and low value
    # each plan deck's status in this decision
    cdef i64 plan_start[MAX_DECKS]    # index of the plan column (all of it unless it counts estates)
    cdef u8 plan_counts[MAX_DECKS]    # 1: start + covered * 7 + reachable
    cdef i64 plan_needed[MAX_DECKS]   # estates the plan needs in all (-1: no points to claim here)
    cdef i64 plan_points[MAX_DECKS]   # points when covered
    # the `cards` group: its table offsets, and the next effects' counts and column in this decision
    cdef bint cards
    cdef i64 next, next_estate, next_pools, next_temps, next_bis, next_fences
    cdef i64 next_counts[N_EFFECTS]
    cdef i64 next_column


cdef void _global_features(_Globals g, const i64* counts, const i64* real_estate, i64 temps, i64 n_bis,
                           bint refused, i64* index, i64* exact) noexcept:
    """features.global_features of one candidate (counts summed over its streets)."""
    cdef Py_ssize_t size, deck
    cdef i64 points = 0, pools_built = counts[POOLS_BUILT], covered, reachable, need, unused
    for size in range(6):
        index[size] = g.estate + (((size * 5 + imin(real_estate[size], 4)) * 7 + imin(counts[size], 6)) * 5
                                  + imin(counts[12 + size], 4))
        points += counts[size] * g.estate_values[size, imin(real_estate[size], 5)]
    index[6] = g.pools + (g.phase * 10 + imin(pools_built, 9)) * 7 + imin(counts[POOLS_POSSIBLE], 6)
    index[7] = g.temps + (g.phase * 12 + imin(temps, 11)) * 7 + imin(imax(temps - g.opponent_temps, -3), 3) + 3
    index[8] = g.bis + g.phase * 10 + imin(n_bis, 9)
    index[9] = g.bias + g.phase
    index[10] = g.refused_column if refused else g.refusals_column
    index[11] = g.roundabouts_column
    points += g.pool_track[imin(pools_built, g.pool_track.shape[0] - 1)]
    points -= g.bis_track[imin(n_bis, g.bis_track.shape[0] - 1)]
    points += g.refused_constant if refused else g.constant
    for deck in range(g.decks):
        if not g.plan_counts[deck]:
            index[GLOBAL_COLUMNS + deck] = g.plan_start[deck]
            continue
        covered = reachable = 0
        for size in range(6):
            need = g.plan_need[deck][size]
            unused = counts[6 + size]
            covered += imin(need, unused)
            reachable += imin(need, unused + counts[12 + size])
        index[GLOBAL_COLUMNS + deck] = g.plan_start[deck] + imin(covered, 6) * 7 + imin(reachable, 6)
        if covered == g.plan_needed[deck]:
            points += g.plan_points[deck]
    exact[0] = points
    if g.cards:
        _card_features(g, counts, index, index + GLOBAL_COLUMNS + g.decks)


cdef void _card_features(_Globals g, const i64* counts, const i64* index, i64* out) noexcept:
    """features._card_features: the `cards` group's columns (`out`), after
    the estate, pool, temp and bis columns of `index` are written."""
    cdef Py_ssize_t size
    cdef i64 completed = 0, open_runs = 0
    out[0] = g.next_column
    for size in range(6):
        out[1 + size] = g.next_estate + (index[size] - g.estate) * NEXT_STATES + g.next_counts[NEXT_REAL_ESTATE]
        completed += counts[size]
        open_runs += counts[12 + size]
    out[7] = g.next_pools + (index[6] - g.pools) * NEXT_STATES + g.next_counts[NEXT_POOL]
    out[8] = g.next_temps + (index[7] - g.temps) * NEXT_STATES + g.next_counts[NEXT_TEMP]
    out[9] = g.next_bis + (index[8] - g.bis) * NEXT_STATES + g.next_counts[NEXT_BIS]
    out[10] = g.next_fences + ((g.phase * 10 + imin(completed, 9)) * 8 + imin(open_runs, 7)) * NEXT_STATES \
        + g.next_counts[NEXT_SURVEYOR]


cdef int _set_next(_Globals g, const i64* counts, i64 phase) except -1:
    """The next effects' counts of this decision (features.next_counts) and
    the column they select; after `_set_scalars` (phase)."""
    cdef Py_ssize_t k
    cdef i64 key = 0, power = 1
    for k in range(N_EFFECTS):
        if not 0 <= counts[k] < NEXT_STATES:
            raise ValueError(f"a next-effect count must be 0 to {NEXT_STATES - 1}, not {counts[k]}")
        g.next_counts[k] = counts[k]
        key += counts[k] * power
        power *= NEXT_STATES
    g.next_column = g.next + phase * power + key
    return 0


cdef int _set_offsets(_Globals g, layout) except -1:
    """The layout's table offsets, once per decider."""
    offsets = layout.offsets
    g.estate, g.pools, g.temps = offsets["estate"], offsets["pools"], offsets["temps"]
    g.bis, g.bias, g.refusals = offsets["bis"], offsets["bias"], offsets["refusals"]
    g.roundabouts, g.plans = offsets["roundabouts"], offsets["plans"]
    g.cards = layout.cards
    if g.cards:
        g.next, g.next_estate, g.next_pools = offsets["next"], offsets["next_estate"], offsets["next_pools"]
        g.next_temps, g.next_bis, g.next_fences = offsets["next_temps"], offsets["next_bis"], offsets["next_fences"]
    return 0


cdef int _set_tracks(_Globals g, data) except -1:
    """The data's estate values and pool, bis, roundabout and refusal tracks,
    when a decision's data is not the previous decision's."""
    g.estate_values = _estate_values(data)
    g.pool_track = np.array(data.pool_track, dtype=np.int64)
    g.bis_track = np.array(data.bis_track, dtype=np.int64)
    g.roundabout_track = np.array(data.roundabout_track, dtype=np.int64)
    g.refusal_track = np.array(data.refusal_track, dtype=np.int64)
    g.max_refusals = data.max_refusals
    return 0


cdef int _set_plans(_Globals g, layout, plans) except -1:
    """Each plan deck's rule: its column in the layout, and for a plan of
    estates the estates it needs and its values."""
    cdef Py_ssize_t deck, size
    g.decks = len(plans)
    if g.decks > MAX_DECKS:
        raise ValueError(f"the native decision takes at most {MAX_DECKS} plan decks, not {g.decks}")
    plan_index_of = layout.plan_index
    for deck in range(g.decks):
        spec = plans[deck]
        plan_index = plan_index_of.get(spec.id)
        g.plan_column[deck] = -1 if plan_index is None else plan_index
        g.plan_estates[deck] = spec.kind == "estates"
        g.plan_total[deck] = -1
        g.plan_value[deck][0], g.plan_value[deck][1] = 0, 0
        for size in range(6):
            g.plan_need[deck][size] = 0
        if plan_index is None or not g.plan_estates[deck]:
            continue
        need = _needs(spec.estates)
        for size in range(6):
            g.plan_need[deck][size] = need[0, size]
        if not spec.estate_filter:
            g.plan_total[deck] = len(spec.estates)
            g.plan_value[deck][0], g.plan_value[deck][1] = spec.points[0], spec.points[1]
    return 0


cdef void _set_status(_Globals g, const u8* done, const u8* high) noexcept:
    """Each plan deck's status: completed by this sheet (`done`), or open at
    its high or low value (`high`)."""
    cdef Py_ssize_t deck
    cdef i64 status
    for deck in range(g.decks):
        g.plan_start[deck], g.plan_counts[deck], g.plan_needed[deck], g.plan_points[deck] = 0, 0, -1, 0
        if g.plan_column[deck] < 0:
            continue
        if done[deck]:
            g.plan_start[deck] = g.plans + g.plan_column[deck] * PLAN_STATUS * PLAN_PROGRESS
            continue
        status = 1 if high[deck] else 2
        g.plan_start[deck] = g.plans + (g.plan_column[deck] * PLAN_STATUS + status) * PLAN_PROGRESS
        if not g.plan_estates[deck]:
            continue
        g.plan_counts[deck] = 1
        if g.plan_total[deck] >= 0:
            g.plan_needed[deck] = g.plan_total[deck]
            g.plan_points[deck] = g.plan_value[deck][0] if high[deck] else g.plan_value[deck][1]


cdef void _set_scalars(_Globals g, i64 roundabouts, i64 refusals, i64 opponent_temps, i64 opponent_refusals,
                       i64 plan_points, bint refusal, i64 phase) noexcept:
    """The context's scalars (a SheetContext's, with the data's tracks set by
    `_set_tracks`) and, with `refusal`, those of its refusal, one refusal
    more (features.context_of(view, 1): only the count changes)."""
    cdef i64 roundabout_points, refused
    g.phase = phase
    g.roundabouts_column = g.roundabouts + phase * 3 + imin(roundabouts, 2)
    g.opponent_temps = opponent_temps
    roundabout_points = g.roundabout_track[imin(roundabouts, g.roundabout_track.shape[0] - 1)]
    g.refusals_column = g.refusals + (phase * 4 + imin(refusals, 3)) * 4 + imin(opponent_refusals, 3)
    g.constant = plan_points - roundabout_points - g.refusal_track[imin(refusals, g.refusal_track.shape[0] - 1)]
    if refusal:
        refused = imin(refusals + 1, g.max_refusals)
        g.refused_column = g.refusals + (phase * 4 + imin(refused, 3)) * 4 + imin(opponent_refusals, 3)
        g.refused_constant = (plan_points - roundabout_points
                              - g.refusal_track[imin(refused, g.refusal_track.shape[0] - 1)])


cdef int _set_context(_Globals g, layout, context, bint refusal, i64 phase) except -1:
    """The typed form of a decision's SheetContext (its data is the sheet's,
    whose tracks `_set_tracks` has read) and, with `refusal`, of its
    refusal's."""
    cdef Py_ssize_t deck
    cdef u8 done[MAX_DECKS]
    cdef u8 high[MAX_DECKS]
    _set_plans(g, layout, context.plans)
    for deck in range(g.decks):
        done[deck], high[deck] = bool(context.plan_done[deck]), bool(context.plan_high[deck])
    _set_status(g, done, high)
    _set_scalars(g, context.roundabouts, context.refusals, context.opponent_temps, context.opponent_refusals,
                 context.plan_points, refusal, phase)
    cdef i64 counts[N_EFFECTS]
    cdef Py_ssize_t k
    next_counts = context.next_counts
    if len(next_counts) != N_EFFECTS:
        raise ValueError(f"a context's next_counts holds {N_EFFECTS} counts, not {len(next_counts)}")
    for k in range(N_EFFECTS):
        counts[k] = next_counts[k]
    _set_next(g, counts, phase)
    return 0


# ------------------------------------------------------------------ decision
cdef object _copied(const i64* source, Py_ssize_t rows, Py_ssize_t columns):
    """A new (rows, columns) int64 array holding `source`'s values."""
    array = np.empty((rows, columns), dtype=np.int64)
    cdef i64[:, ::1] target = array
    if rows and columns:
        memcpy(&target[0, 0], source, rows * columns * sizeof(i64))
    return array


cdef enum:
    SEEN_WIDTH = 32  # the widest key a Seen table takes
cdef unsigned long long SEEN_FACTORS[SEEN_WIDTH]
for _position, _factor in enumerate(random.Random(0).getrandbits(63) | 1 for _ in range(SEEN_WIDTH)):
    SEEN_FACTORS[_position] = _factor


cdef struct Seen:
    # The first of equal keys (`width` values each) met in one decision: an
    # open-addressing table of the keys' indices (`_seen_first`), kept in a
    # Decider's scratch arrays from one decision to the next. A slot holds
    # `stamp << 32 | index`; a slot of another stamp (an earlier decision's)
    # is free, so that a new table needs no clearing.
    i64* slots
    i64* keys       # the keys met, by index
    Py_ssize_t mask
    Py_ssize_t width
    i64 stamp       # this decision's, from 1 on
    Py_ssize_t cleared  # slots cleared (to stamp 0) since the scratch array was made


cdef int _seen_init(Seen* seen, _Scratch slots, _Scratch keys, Py_ssize_t count, Py_ssize_t width) except -1:
    """An empty table for `count` keys (fewer than 2**32) of `width` (at most
    SEEN_WIDTH) values, in the arrays `seen` used before, if any."""
    cdef Py_ssize_t size = 16
    if width > SEEN_WIDTH or count >= (<i64>1) << 32:
        raise ValueError(f"at most {SEEN_WIDTH} values a key and 2**32 keys, not {width} and {count}")
    while size < 2 * count:
        size <<= 1
    seen.slots = slots.need(size)
    seen.keys = keys.need(count * width + 1)
    seen.mask, seen.width = size - 1, width
    seen.stamp += 1
    if size > seen.cleared or seen.stamp >= (<i64>1) << 31:
        memset(seen.slots, 0, slots.size * sizeof(i64))
        seen.cleared, seen.stamp = slots.size, 1
    return 0


cdef Py_ssize_t _seen_first(Seen* seen, const i64* key, Py_ssize_t at) noexcept:
    """The index of the first key equal to `key` met so far, else `at`
    (`key`'s own index, which is then remembered)."""
    cdef Py_ssize_t j, width = seen.width, slot
    cdef unsigned long long hashed = 0, mixer = 0x4CF5AD432745937F
    cdef i64 other
    cdef const i64* kept
    for j in range(width):  # independent products: no chain of multiplications to wait on
        hashed += <unsigned long long>key[j] * SEEN_FACTORS[j]
    hashed ^= hashed >> 33
    hashed *= mixer
    hashed ^= hashed >> 33
    slot = hashed & seen.mask
    while True:
        other = seen.slots[slot]
        if (other >> 32) != seen.stamp:
            seen.slots[slot] = (seen.stamp << 32) | at
            for j in range(width):
                seen.keys[at * width + j] = key[j]
            return at
        other &= ((<i64>1) << 32) - 1
        kept = seen.keys + other * width
        for j in range(width):
            if kept[j] != key[j]:
                break
        else:
            return other
        slot = (slot + 1) & seen.mask


cdef enum:
    STREET_KEY = 6          # words of a street's key in the street memo
    MEMO_ENTRY = 11         # words of a memo entry: key, stamp, value, PACKED counts
    MAX_MEMO_WIDTH = 32     # the memo's keys hold streets of at most 32 houses
    NUMBERS_PER_WORD = 12   # house numbers (plus one: 0 for none) in a key word, five bits each


cdef struct StreetMemo:
    # The value and counts of every street met in one game's native
    # decisions, by the street's state (numbers, roundabouts, bis, fences,
    # pools, plan lines, parks) and the decision's phases: an open-addressing
    # table of MEMO_ENTRY words an entry. An entry is this game's when its
    # stamp is `stamp` (a new game takes a new stamp: the others' entries
    # read as free); entries are never removed during a game, so a search
    # stops at the first free slot.
    u64* entries
    Py_ssize_t size                 # entries, a power of two
    Py_ssize_t used                 # entries of this stamp
    u64 stamp
    u64 numbers[MAX_STREETS][3]     # each base street's key words: its numbers,
    u64 marks[MAX_STREETS][3]       # roundabouts | bis << 32, fences | pools << 32, lines | street << 32 | phases << 48
    i64 parks[MAX_STREETS]


cdef int _memo_start(StreetMemo* memo) except -1:
    """A new game: a new stamp (the table made on first use)."""
    if memo.entries == NULL:
        memo.entries = <u64*>calloc(4096 * MEMO_ENTRY, sizeof(u64))
        if memo.entries == NULL:
            raise MemoryError()
        memo.size = 4096
    memo.stamp += 1
    memo.used = 0
    return 0


cdef bint _street_key_bases(StreetMemo* memo, _Sheet base, i64 phase, i64 window_phase) noexcept:
    """The key words of each base street of this decision; False when a
    number cannot be held by them."""
    cdef Py_ssize_t s, h
    cdef u64 rounds, bis, fences, pools, lines
    for s in range(base.n_streets):
        memo.numbers[s][0] = memo.numbers[s][1] = memo.numbers[s][2] = 0
        rounds = bis = fences = pools = lines = 0
        for h in range(base.width):
            if not -1 <= base.numbers[s][h] <= 30:
                return False
            memo.numbers[s][h // NUMBERS_PER_WORD] |= (<u64>(base.numbers[s][h] + 1)) << ((h % NUMBERS_PER_WORD) * 5)
            rounds |= (<u64>base.rounds[s][h]) << h
            bis |= (<u64>base.bis[s][h]) << h
            fences |= (<u64>base.fences[s][h]) << h
            pools |= (<u64>base.pools[s][h]) << h
            lines |= (<u64>base.used[s][h]) << h
        memo.marks[s][0] = rounds | bis << 32
        memo.marks[s][1] = fences | pools << 32
        memo.marks[s][2] = lines | (<u64>s) << 32 | (<u64>phase) << 48 | (<u64>window_phase) << 56
        memo.parks[s] = base.parks[s]
    return True


cdef inline void _set_number(u64* numbers, i64 house, u64 value) noexcept:
    cdef Py_ssize_t word = house // NUMBERS_PER_WORD, shift = (house % NUMBERS_PER_WORD) * 5
    numbers[word] = (numbers[word] & ~((<u64>31) << shift)) | (value << shift)


cdef bint _street_key(StreetMemo* memo, const i64* spec, u64* key) noexcept:
    """The key of the street variant `spec` (its base street with the spec
    applied, as `_street_features` sees it); False when the key cannot hold
    it (a number or a park count out of its field: then it is not memoized)."""
    cdef Py_ssize_t street = spec[STREET]
    cdef i64 parks = memo.parks[street] + spec[PARK]
    if not 0 <= parks <= 255 or not -1 <= spec[WRITE_NUMBER] <= 30 or not -1 <= spec[BIS_NUMBER] <= 30:
        return False
    key[0], key[1], key[2] = memo.numbers[street][0], memo.numbers[street][1], memo.numbers[street][2]
    key[3], key[4], key[5] = memo.marks[street][0], memo.marks[street][1], memo.marks[street][2]
    if spec[WRITE_HOUSE] >= 0:
        _set_number(key, spec[WRITE_HOUSE], spec[WRITE_NUMBER] + 1)
    if spec[FENCE] >= 0:
        key[4] |= (<u64>1) << spec[FENCE]
    if spec[POOL_HOUSE] >= 0:
        key[4] |= (<u64>1) << (32 + spec[POOL_HOUSE])
    if spec[BIS_HOUSE] >= 0:
        _set_number(key, spec[BIS_HOUSE], spec[BIS_NUMBER] + 1)
        key[3] |= (<u64>1) << (32 + spec[BIS_HOUSE])
    key[5] |= (<u64>parks) << 40
    return True


cdef u64* _memo_find(StreetMemo* memo, const u64* key) noexcept:
    """The entry of `key` in this game, or the free slot where it goes (its
    stamp is then not this game's)."""
    cdef Py_ssize_t j, slot
    cdef u64 hashed = 0, mixer = 0x4CF5AD432745937F
    cdef u64* entry
    for j in range(STREET_KEY):
        hashed += key[j] * SEEN_FACTORS[j]
    hashed ^= hashed >> 33
    hashed *= mixer
    hashed ^= hashed >> 33
    slot = hashed & (memo.size - 1)
    while True:
        entry = memo.entries + slot * MEMO_ENTRY
        if entry[STREET_KEY] != memo.stamp:
            return entry
        for j in range(STREET_KEY):
            if entry[j] != key[j]:
                break
        else:
            return entry
        slot = (slot + 1) & (memo.size - 1)


cdef int _memo_keep(StreetMemo* memo, u64* entry, const u64* key, double value, const u64* counts) except -1:
    """Keep a street's value and packed counts in the free slot `entry`
    (`_memo_find`'s); the table doubles when half full."""
    memcpy(entry, key, STREET_KEY * sizeof(u64))
    entry[STREET_KEY] = memo.stamp
    memcpy(entry + STREET_KEY + 1, &value, sizeof(double))
    memcpy(entry + STREET_KEY + 2, counts, PACKED * sizeof(u64))
    memo.used += 1
    if 2 * memo.used <= memo.size:
        return 0
    cdef u64* old = memo.entries
    cdef Py_ssize_t old_size = memo.size, at
    cdef u64* grown = <u64*>calloc(2 * old_size * MEMO_ENTRY, sizeof(u64))
    if grown == NULL:
        raise MemoryError()
    memo.entries, memo.size = grown, 2 * old_size
    for at in range(old_size):
        entry = old + at * MEMO_ENTRY
        if entry[STREET_KEY] == memo.stamp:
            memcpy(_memo_find(memo, entry), entry, MEMO_ENTRY * sizeof(u64))
    free(old)
    return 0


cdef class Decider:
    """Evaluator.decision in typed code for one layout: made once per
    evaluator (or per native game: `prepare_game`), it keeps the layout's
    tables, the last game data's tracks and its working arrays from one
    decision to the next."""

    cdef readonly object layout
    cdef object data, weights_object
    cdef object native_plans
    """The plans `prepare_native` set for native decisions (None once a Python
    decision has set others)."""
    cdef const i64[::1] image
    cdef const i64[::1] plays
    cdef bint bound
    cdef const double[::1] weights
    cdef _Sheet sheet
    cdef _Globals globals
    cdef _Builder out
    cdef _Scratch fields, kind, bis_from, bis_spots, play_rows, counts, keys, key_of, street_values
    cdef _Scratch features, global_idx, values
    cdef _Scratch seen_slots, seen_keys, packed_counts, whole_sums, whole_points
    cdef Py_ssize_t n_rows, n_features, n_global
    cdef StreetMemo memo
    cdef Seen seen
    cdef bint features_kept
    """Whether the last decision's street features were all worked out (a
    native decision's street memo spares them: `active_features` cannot
    answer)."""
    cdef Py_ssize_t chosen
    """The candidate the last `native_choice` chose."""
    cdef readonly long decisions
    """How many decisions this Decider has computed: `candidate` and
    `active_features` answer of the last one only."""

    def __init__(self, layout):
        self.layout = layout
        self.data = None
        self.weights_object = None
        self.native_plans = None
        self.sheet = _Sheet()
        _set_layout(self.sheet, layout)
        self.globals = _Globals()
        _set_offsets(self.globals, layout)
        self.out = _Builder()
        self.fields, self.kind, self.bis_from, self.bis_spots = _Scratch(), _Scratch(), _Scratch(), _Scratch()
        self.play_rows, self.counts, self.keys, self.key_of = _Scratch(), _Scratch(), _Scratch(), _Scratch()
        self.street_values, self.features, self.global_idx, self.values = _Scratch(), _Scratch(), _Scratch(), _Scratch()
        self.seen_slots, self.seen_keys, self.packed_counts = _Scratch(), _Scratch(), _Scratch()
        self.whole_sums, self.whole_points = _Scratch(), _Scratch()

    def decide(self, weights, sheet, list real, list offer_kinds, bint refusal, context,
               i64 phase, i64 window_phase):
        """Evaluator.decision's arrays for one decision: (play, use, args,
        values, street features, variant_of, global features), the values
        before any thematic board's points. `weights` are float64 and
        contiguous; `real` are the plays (no refusal), `offer_kinds` the
        effect use code of each offer (a temp play uses none)."""
        self._compute(weights, sheet, real, offer_kinds, refusal, context, phase, window_phase)
        cdef Py_ssize_t n_rows = self.n_rows, n_variants = self.out.n_specs, s = self.out.n_streets
        table = _copied(self.out.table, n_rows, self.out.row_width)
        features = _copied(self.features.data, n_variants, self.n_features)
        global_features = _copied(self.global_idx.data, n_rows, self.n_global)
        values = np.empty(n_rows, dtype=np.float64)
        cdef double[::1] written = values
        if n_rows:
            memcpy(&written[0], self.values.data, n_rows * sizeof(double))
        return (table[:, s], table[:, s + 1], table[:, s + 2:s + 5], values, features, table[:, :s],
                global_features)

    def values_only(self, weights, sheet, list real, list offer_kinds, bint refusal, context,
                    i64 phase, i64 window_phase):
        """`decide`'s values alone: a player that keeps one candidate asks
        `candidate` and `active_features` of it next, before any other decision
        (copying every candidate's rows and features cost a tenth of a game)."""
        self._compute(weights, sheet, real, offer_kinds, refusal, context, phase, window_phase)
        values = np.empty(self.n_rows, dtype=np.float64)
        cdef double[::1] written = values
        if self.n_rows:
            memcpy(&written[0], self.values.data, self.n_rows * sizeof(double))
        return values

    def __dealloc__(self):
        free(self.memo.entries)

    def candidate(self, Py_ssize_t index):
        """(play, use, a, b, c) of candidate `index` of the last decision:
        the play's index in `real` (-1: the refusal), the effect use code and
        its three arguments, as `decide`'s arrays hold them."""
        self._check_index(index)
        cdef i64* row = self.out.row_at(index)
        cdef Py_ssize_t s = self.out.n_streets
        return (row[s], row[s + 1], row[s + 2], row[s + 3], row[s + 4])

    def active_features(self, Py_ssize_t index):
        """The active (non-zero) feature indices of candidate `index` of the
        last decision, in `Scored.features`'s order: each street's features,
        then the whole-sheet ones."""
        self._check_index(index)
        if not self.features_kept:
            raise RuntimeError("the last decision was a native game's: its street features were not all worked out")
        cdef i64* row = self.out.row_at(index)
        cdef Py_ssize_t s, j, n = 0, nf = self.n_features, ng = self.n_global
        cdef i64* street
        cdef i64* whole = self.global_idx.data + index * ng
        active = np.empty(self.out.n_streets * nf + ng, dtype=np.int64)
        cdef i64[::1] out = active
        for s in range(self.out.n_streets):
            street = self.features.data + row[s] * nf
            for j in range(nf):
                if street[j] != 0:
                    out[n] = street[j]
                    n += 1
        for j in range(ng):
            if whole[j] != 0:
                out[n] = whole[j]
                n += 1
        return active[:n]

    cdef int _check_index(self, Py_ssize_t index) except -1:
        if index < 0 or index >= self.n_rows:
            raise IndexError(f"candidate {index} of a decision with {self.n_rows}")
        return 0

    def best_value(self, weights, sheet, list real, list offer_kinds, bint refusal, context,
                   i64 phase, i64 window_phase):
        """The largest of `decide`'s values (a search's question, answered
        without making the arrays)."""
        self._compute(weights, sheet, real, offer_kinds, refusal, context, phase, window_phase)
        if self.n_rows == 0:
            raise ValueError("a decision without candidates has no best value")
        cdef double* values = <double*>self.values.data
        cdef double best = values[0]
        cdef Py_ssize_t c
        for c in range(1, self.n_rows):
            if values[c] > best:
                best = values[c]
        return best

    # -------------------------------------------------------- native players
    @property
    def image_size(self):
        """How many values a sheet image (`SHEET_IMAGE`) of this layout holds."""
        return self._image_size()

    cdef Py_ssize_t _image_size(self) noexcept:
        return self.sheet.layout_streets * (self.sheet.width + IMAGE_STREET) + IMAGE_SHEET

    def prepare_native(self, weights, data, tuple plans):
        """Make this Decider ready for the native decisions of one game: its
        weights (float64, contiguous), its data and its plans. It then
        serves that game's native decisions until it ends (a Python decision
        in between sets other plans: the next native one raises)."""
        if tuple(data.street_houses) != tuple(self.layout.street_houses):
            raise ValueError(f"a model for streets of {self.layout.street_houses} houses cannot play streets of "
                             f"{tuple(data.street_houses)}")
        self._use(weights, data)
        _set_plans(self.globals, self.layout, plans)
        _memo_start(&self.memo)
        self.native_plans = plans

    def read_from(self, image, plays):
        """The arrays the next native decisions read: the sheet image
        (`SHEET_IMAGE`, `image_size` int64 values) and the plays (five int64
        numbers each), which the native game rewrites for each decision
        (bound once, not at every call)."""
        self.image, self.plays = image, plays
        self.bound = True

    def native_choice(self, list offers, Py_ssize_t n_plays, bint refusal, bint traced=False):
        """The candidate a `learned` seat at temperature 0 plays in this
        decision: the first of the highest value (`np.argmax`: the first NaN
        if any) among the candidates of the sheet the bound image
        (`read_from`) describes, of its `n_plays` legal plays of `offers`
        (in the bound plays, in `legal_plays` order) and of a refusal when
        `refusal`. Returns (how many candidates, the play's index among the
        plays or -1 for the refusal, the effect use code, its three
        arguments), as `candidate` gives it. With `traced` (a learning
        seat), every street's features are worked out (no street memo), so
        that `chosen_trace` can answer."""
        if n_plays < 1 and not refusal:
            raise ValueError("a decision without candidates has no choice")
        self._native_compute(offers, n_plays, refusal, not traced)
        cdef double* values = <double*>self.values.data
        cdef Py_ssize_t best = 0, c, n = self.n_rows
        if not isnan(values[0]):
            for c in range(1, n):
                if isnan(values[c]):
                    best = c
                    break
                if values[c] > values[best]:
                    best = c
        self.chosen = best
        cdef i64* row = self.out.row_at(best)
        cdef Py_ssize_t s = self.out.n_streets
        return (n, row[s], row[s + 1], row[s + 2], row[s + 3], row[s + 4])

    def last_values(self):
        """The values of the last decision's candidates (a copy), as `decide` gives them."""
        values = np.empty(self.n_rows, dtype=np.float64)
        cdef double[::1] written = values
        if self.n_rows:
            memcpy(&written[0], self.values.data, self.n_rows * sizeof(double))
        return values

    def chosen_trace(self):
        """(active feature indices, value) of the candidate the last
        `native_choice` chose, as `LearnedStrategy` traces its choice for
        training (`features(best)`, `float(values[best])`); that choice must
        have been `traced`."""
        features = self.active_features(self.chosen)
        return features, (<double*>self.values.data)[self.chosen]

    def native_best_value(self, list offers, Py_ssize_t n_plays, bint refusal=False):
        """The largest value of the candidates of the sheet the bound image
        describes, of its `n_plays` legal plays and of a refusal when
        `refusal`: `float(values.max())` of that decision (NaN when one is
        NaN), what `LearnedStrategy.choose_roundabout` compares and what
        its lookahead asks of each sampled next turn (`best_value`)."""
        if n_plays < 1 and not refusal:
            raise ValueError("a decision without candidates has no best value")
        self._native_compute(offers, n_plays, refusal, True)
        cdef double* values = <double*>self.values.data
        cdef double largest = values[0]
        cdef Py_ssize_t c
        if not isnan(largest):
            for c in range(1, self.n_rows):
                if isnan(values[c]):
                    largest = values[c]
                    break
                if values[c] > largest:
                    largest = values[c]
        return largest

    cdef int _use(self, weights, data) except -1:
        """The weights and the game data of the next decisions."""
        if weights is not self.weights_object:
            self.weights = weights
            self.weights_object = weights
        if data is not self.data:
            _set_data(self.sheet, data)
            _set_tracks(self.globals, data)
            self.data = data
        return 0

    cdef int _compute(self, weights, sheet, list real, list offer_kinds, bint refusal, context,
                      i64 phase, i64 window_phase) except -1:
        """One decision of a Python player (a Python `Sheet`, its plays and
        SheetContext) into the working arrays: `_score`."""
        data = sheet.data
        self._use(weights, data)
        self.native_plans = None
        _read_sheet(self.sheet, sheet, data)
        cdef Py_ssize_t n_plays = len(real), p, j
        cdef i64* fields = self.fields.need(n_plays * 5 + 1)
        cdef i64* kind = self.kind.need(n_plays + 1)
        cdef tuple play  # a Play: read as the tuple it is (its class's item lookup costs ten times more)
        for p in range(n_plays):
            play = <tuple>real[p]
            for j in range(5):
                fields[p * 5 + j] = play[j]
            kind[p] = NO_USE if fields[p * 5 + 4] == 1 else offer_kinds[fields[p * 5]]
        _set_context(self.globals, self.layout, context, refusal, phase)
        self._score(n_plays, refusal, phase, window_phase, False)
        return 0

    cdef int _native_compute(self, list offers, Py_ssize_t n_plays, bint refusal, bint remember) except -1:
        """One decision of a native player (its sheet and context as the bound
        sheet image, its `n_plays` legal plays of `offers` as five numbers
        each in the bound plays) into the working arrays: `_score`. The same
        decision as `_compute` of the Python sheet, its plays (with a refusal
        when `refusal`) and `features.context_of` of its view; `remember`
        as for `_score`."""
        if self.native_plans is None:
            raise RuntimeError("native decisions need prepare_native first (a Python decision came in between)")
        if not self.bound:
            raise RuntimeError("native decisions read the arrays bound by read_from: none are")
        cdef const i64[::1] image = self.image, plays = self.plays
        if image.shape[0] != self._image_size() or plays.shape[0] < 5 * n_plays or n_plays < 0:
            raise ValueError(f"a sheet image of {image.shape[0]} values (not {self._image_size()}) "
                             f"or fewer than {n_plays} plays")
        cdef _Sheet base = self.sheet
        _read_image(base, &image[0])
        cdef const i64* counters = &image[base.n_streets * (base.width + IMAGE_STREET)]
        cdef Py_ssize_t p, deck, n_offers = len(offers)
        cdef i64* offer_kind = self.kind.need(n_plays + n_offers + 1) + n_plays + 1
        cdef i64* kind = self.kind.data
        for p in range(n_offers):
            offer_kind[p] = KIND_CODES.get((<tuple>offers[p])[1], NO_USE)
        cdef i64* fields = self.fields.need(n_plays * 5 + 1)
        if n_plays:
            memcpy(fields, &plays[0], n_plays * 5 * sizeof(i64))
        for p in range(n_plays):
            if not 0 <= fields[p * 5] < n_offers:
                raise ValueError(f"play {p} names offer {fields[p * 5]} of {n_offers}")
            kind[p] = NO_USE if fields[p * 5 + 4] == 1 else offer_kind[fields[p * 5]]
        cdef _Globals g = self.globals
        cdef u8 done[MAX_DECKS]
        cdef u8 high[MAX_DECKS]
        for deck in range(g.decks):
            done[deck], high[deck] = counters[IMAGE_PLAN_DONE + deck] != 0, counters[IMAGE_PLAN_HIGH + deck] != 0
        _set_status(g, done, high)
        cdef i64 turn = counters[IMAGE_TURN], phase, window_phase
        if 0 <= turn < PHASE_TURNS:
            phase, window_phase = PHASES[turn], WINDOW_PHASES[turn]
        else:
            phase, window_phase = phase_of(turn), window_phase_of(turn)
        _set_scalars(g, counters[IMAGE_ROUNDABOUTS_BUILT], imin(counters[IMAGE_REFUSALS], g.max_refusals),
                     counters[IMAGE_OPPONENT_TEMPS], counters[IMAGE_OPPONENT_REFUSALS], counters[IMAGE_PLAN_POINTS],
                     refusal, phase)
        _set_next(g, counters + IMAGE_NEXT, phase)
        self._score(n_plays, refusal, phase, window_phase, remember)
        return 0

    cdef int _score(self, Py_ssize_t n_plays, bint refusal, i64 phase, i64 window_phase, bint remember) except -1:
        """The candidates of the sheet in `sheet`, of the `n_plays` plays in
        `fields` (effect use codes in `kind`) and of a refusal when
        `refusal`, their street variants, features and values, with the
        context in `globals`, into the working arrays (`out`, `features`,
        `global_idx`, `values`; sizes in `n_rows`, `n_features`,
        `n_global`): the part of a decision both kinds of player share.
        With `remember` (a native game's decisions: only their values are
        read), the street memo spares the street variants met before."""
        self.decisions += 1
        cdef _Sheet base = self.sheet
        cdef Py_ssize_t n_streets = base.n_streets, width = base.width, p, s, k, v, c, j, same
        cdef i64* fields = self.fields.data
        cdef i64* kind = self.kind.data

        # the bis spots each bis play leaves (none once the bis track is full)
        cdef Py_ssize_t n_bis_plays = 0, n_spots = 0
        cdef bint bis_left = base.n_bis < base.max_bis
        for p in range(n_plays):
            n_bis_plays += kind[p] == USE_BIS
        cdef Py_ssize_t max_spots = n_bis_plays * n_streets * width * 2 if bis_left else 0
        cdef i64* bis_from = self.bis_from.need(n_plays + 1)
        cdef i64* bis_spots = self.bis_spots.need(3 * max_spots + 3)
        bis_from[0] = 0
        for p in range(n_plays):
            if kind[p] == USE_BIS and bis_left:
                n_spots = _bis_spots_after_write(base, fields[p * 5 + 1], fields[p * 5 + 2], fields[p * 5 + 3],
                                                 bis_spots, n_spots)
            bis_from[p + 1] = n_spots

        cdef Py_ssize_t max_specs = n_streets + n_plays * (2 + 2 * base.n_slots) + n_spots + 2
        cdef Py_ssize_t max_rows = n_plays * (4 + base.n_slots + base.n_sizes) + n_spots + 1
        cdef _Builder out = self.out
        out.reset(n_streets, max_specs, max_rows)
        for s in range(n_streets):
            out.spec(s, -1, -1, -1, 0, -1, -1, -1)
        cdef i64* play_rows = self.play_rows.need(n_plays * n_streets + 1)
        cdef i64 temp_add = base.temps < base.temp_boxes
        for p in range(n_plays):
            v = out.spec(fields[p * 5 + 1], fields[p * 5 + 2], fields[p * 5 + 3], -1, 0, -1, -1, -1)
            for s in range(n_streets):
                play_rows[p * n_streets + s] = s
            play_rows[p * n_streets + fields[p * 5 + 1]] = v
        for p in range(n_plays):
            out.row(play_rows, p, NO_USE, 0, 0, 0, -1, temp_add if fields[p * 5 + 4] == 1 else 0, 0)
        if n_plays:
            _fences(out, fields, kind, n_plays, base, play_rows)
            _estates(out, kind, n_plays, base, play_rows)
            _parks_and_pools(out, fields, kind, n_plays, base, play_rows)
            if n_spots:
                _bis(out, fields, n_plays, bis_from, bis_spots, play_rows, self.keys.need(5 * n_spots),
                     self.key_of.need(n_spots))
        if refusal:
            out.row(play_rows, -1, NO_USE, 0, 0, 0, -1, 0, 0)

        # every street variant's features, summary and value (with `remember`,
        # a variant whose street this game's decisions have met already takes
        # its value and counts from the street memo, and its features are not
        # worked out). The counts of a street are at most its houses, so when
        # the streets' houses are fewer than 256 their counts, summed over
        # the streets, add up exactly one per byte (`packed_counts`).
        cdef Py_ssize_t n_variants = out.n_specs, n_features = 3 * width - 1 + (width - 3 if base.wide else 0)
        cdef i64* features = self.features.need(n_variants * n_features)
        cdef i64* counts = self.counts.need(n_variants * COUNTS)
        cdef double* street_value = <double*>self.street_values.need(n_variants)  # i64 and double: 8 bytes
        cdef bint packed = n_streets * width < 256
        cdef u64* packed_counts = <u64*>self.packed_counts.need(n_variants * PACKED + 1)
        cdef u64* packing
        cdef i64 park_points
        cdef const double[::1] table_weights = self.weights
        cdef StreetMemo* memo = &self.memo
        cdef u64 street_key[STREET_KEY]
        cdef u64* known
        remember = remember and packed and width <= MAX_MEMO_WIDTH \
            and _street_key_bases(memo, base, phase, window_phase)
        for v in range(n_variants):
            packing = packed_counts + v * PACKED
            if remember and _street_key(memo, out.specs + v * SPEC, street_key):
                known = _memo_find(memo, street_key)
                if known[STREET_KEY] == memo.stamp:
                    street_value[v] = (<double*>(known + STREET_KEY + 1))[0]
                    memcpy(packing, known + STREET_KEY + 2, PACKED * sizeof(u64))
                    continue
            else:
                known = NULL
            _street_features(base, out.specs + v * SPEC, phase, window_phase, features + v * n_features,
                             counts + v * COUNTS, &park_points)
            street_value[v] = pairwise_sum(table_weights, features + v * n_features, n_features) \
                + <double>park_points
            if packed:
                for j in range(PACKED):
                    packing[j] = 0
                for j in range(COUNTS):
                    packing[j >> 3] |= (<u64>counts[v * COUNTS + j]) << ((j & 7) * 8)
            if known != NULL:
                _memo_keep(memo, known, street_key, street_value[v], packing)
        self.features_kept = not remember

        # every candidate's whole-sheet features and value. The whole-sheet part
        # depends on the counts of the candidate's streets, summed, and on its
        # real-estate column, temps, bis and refusal: most candidates share
        # them with an earlier one (a fence that changes no count, an effect
        # on another street), whose features, sum and points they take. The
        # counts of a street are at most its houses, so when the streets'
        # houses are fewer than 256 the counts summed over the streets add
        # up exactly one per byte: the key of a candidate is then its counts
        # so packed (PACKED words) and one word of its other inputs.
        cdef _Globals g = self.globals
        cdef Py_ssize_t n_rows = out.n_rows, n_global = GLOBAL_COLUMNS + g.decks + (CARD_COLUMNS if g.cards else 0)
        cdef Py_ssize_t row_width = out.row_width
        cdef i64* global_idx = self.global_idx.need(n_rows * n_global)
        cdef double* values = <double*>self.values.need(n_rows)  # i64 and double: 8 bytes each
        cdef double* whole_sums = <double*>self.whole_sums.need(n_rows)
        cdef i64* whole_points = self.whole_points.need(n_rows)
        cdef i64 base_counts[COUNTS]  # the counts of the sheet's streets as they are
        cdef i64 summed[COUNTS]
        cdef i64 real_estate[6]
        cdef u64 key[PACKED + 1]
        cdef i64 exact, sheet_temps = base.temps, sheet_bis = base.n_bis, refused
        cdef double streets_sum, whole_sum
        cdef i64* row
        cdef i64* changed
        cdef i64* unchanged
        cdef Seen* seen = &self.seen
        if packed:
            _seen_init(seen, self.seen_slots, self.seen_keys, n_rows, PACKED + 1)
        if not packed:
            for j in range(COUNTS):
                base_counts[j] = 0
            for s in range(n_streets):
                for j in range(COUNTS):
                    base_counts[j] += counts[s * COUNTS + j]
        for c in range(n_rows):
            row = out.row_at(c)
            refused = refusal and c == n_rows - 1
            streets_sum = -0.0
            for s in range(n_streets):
                streets_sum += street_value[row[s]]
            same = c
            if packed:
                for j in range(PACKED):
                    key[j] = 0
                for s in range(n_streets):
                    packing = packed_counts + row[s] * PACKED
                    for j in range(PACKED):
                        key[j] += packing[j]
                key[PACKED] = (row[n_streets + 5] + 1) | (row[n_streets + 6] << 16) | (row[n_streets + 7] << 32) \
                    | (refused << 48)
                same = _seen_first(seen, <i64*>key, c)
            if same < c:
                if self.features_kept:  # (a native decision reads its values only)
                    memcpy(global_idx + c * n_global, global_idx + same * n_global, n_global * sizeof(i64))
                whole_sum, exact = whole_sums[same], whole_points[same]
            else:
                if packed:  # the counts summed, one per byte of the key
                    for j in range(COUNTS):
                        summed[j] = (key[j >> 3] >> ((j & 7) * 8)) & 0xFF
                else:
                    for j in range(COUNTS):
                        summed[j] = base_counts[j]
                    for s in range(n_streets):
                        v = row[s]
                        if v != s:  # the street's counts out, its variant's in
                            changed, unchanged = counts + v * COUNTS, counts + s * COUNTS
                            for j in range(COUNTS):
                                summed[j] += changed[j] - unchanged[j]
                for k in range(6):
                    real_estate[k] = base.real_estate[k]
                if row[n_streets + 5] >= 0:
                    real_estate[row[n_streets + 5]] += 1
                _global_features(g, summed, real_estate, sheet_temps + row[n_streets + 6],
                                 sheet_bis + row[n_streets + 7], refused, global_idx + c * n_global, &exact)
                whole_sum = pairwise_sum(table_weights, global_idx + c * n_global, n_global)
                whole_sums[c], whole_points[c] = whole_sum, exact
            values[c] = (0.0 + streets_sum) + whole_sum + <double>exact
        self.n_rows, self.n_features, self.n_global = n_rows, n_features, n_global
        return 0
