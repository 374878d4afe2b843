# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True, auto_pickle=False
"""The learned evaluation's decision in typed code: `Evaluator.decision`
(welcometo_sim/learning/evaluator.py, the reference) for all candidates of
one decision in one call.

It lists the same candidates in the same order, the same street variants,
the same feature indices and the same values bit for bit: every float sum
is done in the order numpy's does it (pairwise with eight accumulators for
rows of eight values or more, as `np.add.reduce` along a contiguous axis),
so that argmax ties break the same way and seeded games stay the same.
The sheet is read through its Python API once per decision (its rows and
the fence masks it already computes); everything per candidate and per
street variant runs in C, the bis spots a play leaves included (as
Sheet.bis_options_after_write lists them).
"""

from libc.stdint cimport int64_t

import numpy as np

from ..learning.features import _estate_values, _needs, static_rows

ctypedef int64_t i64
ctypedef unsigned char u8

# effect uses, as in evaluator.py
cdef enum:
    NO_USE = 0
    USE_FENCE = 1
    USE_ESTATE = 2
    USE_PARK = 3
    USE_POOL = 4
    USE_BIS = 5

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
    POOLS_BUILT = 18
    POOLS_POSSIBLE = 19
    GLOBAL_COLUMNS = 12
    PLAN_STATUS = 3
    PLAN_PROGRESS = 49
    MAX_WIDTH = 32
    MAX_STREETS = 8
    MAX_DECKS = 8

cdef i64[19] ROOM_BUCKETS = [0, 1, 2, 3, 4, 4, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]
cdef i64[8] BUILT_CODES = [7, 8, 9, 9, 10, 10, 10, 10]


cdef inline i64 imin(i64 a, i64 b) nogil:
    return a if a < b else b


cdef inline i64 imax(i64 a, i64 b) nogil:
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


# ------------------------------------------------------------------ candidates
cdef class _Builder:
    """The street variants (spec rows) and candidate rows of one decision,
    appended in the reference's order into arrays sized for the worst case."""

    cdef i64[:, ::1] specs
    cdef i64[:, ::1] table
    cdef Py_ssize_t n_specs, n_rows, n_streets
    cdef object specs_array, table_array

    def __init__(self, Py_ssize_t n_streets, Py_ssize_t max_specs, Py_ssize_t max_rows):
        self.n_streets = n_streets
        self.specs_array = np.empty((max_specs, SPEC), dtype=np.int64)
        self.table_array = np.empty((max_rows, n_streets + 8), dtype=np.int64)
        self.specs = self.specs_array
        self.table = self.table_array
        self.n_specs = 0
        self.n_rows = 0

    cdef Py_ssize_t spec(self, i64 street, i64 house, i64 number, i64 fence, i64 park, i64 pool,
                         i64 bis_house, i64 bis_number) noexcept:
        cdef Py_ssize_t at = self.n_specs
        self.specs[at, STREET] = street
        self.specs[at, WRITE_HOUSE] = house
        self.specs[at, WRITE_NUMBER] = number
        self.specs[at, FENCE] = fence
        self.specs[at, PARK] = park
        self.specs[at, POOL_HOUSE] = pool
        self.specs[at, BIS_HOUSE] = bis_house
        self.specs[at, BIS_NUMBER] = bis_number
        self.n_specs += 1
        return at

    cdef Py_ssize_t row(self, const i64[:, ::1] play_rows, i64 play, i64 use, i64 a, i64 b, i64 c,
                        i64 estate, i64 temp, i64 bis) noexcept:
        """A candidate row: `play`'s street variants (all base streets for a
        refusal), to be changed by the caller at the effect's street."""
        cdef Py_ssize_t at = self.n_rows, s, n = self.n_streets
        for s in range(n):
            self.table[at, s] = s if play < 0 else play_rows[play, s]
        self.table[at, n] = play
        self.table[at, n + 1] = use
        self.table[at, n + 2] = a
        self.table[at, n + 3] = b
        self.table[at, n + 4] = c
        self.table[at, n + 5] = estate
        self.table[at, n + 6] = temp
        self.table[at, n + 7] = bis
        self.n_rows += 1
        return at


cdef void _fences(_Builder out, const i64[:, ::1] fields, const i64[::1] kind, _Sheet sheet,
                  const i64[:, ::1] play_rows) noexcept:
    """Surveyor: every fence slot, with every play of a surveyor offer
    (alone variants first, then the same-street merges, pair by pair)."""
    cdef Py_ssize_t n_plays = fields.shape[0], n_streets = sheet.n_streets
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
            if fields[p, 1] == slot_street[k]:
                out.spec(fields[p, 1], fields[p, 2], fields[p, 3], slot_bit[k], 0, -1, -1, -1)
    for p in range(n_plays):
        if kind[p] != USE_FENCE:
            continue
        for k in range(slot_count):
            at = out.row(play_rows, p, USE_FENCE, slot_street[k], slot_bit[k], 0, -1, 0, 0)
            if fields[p, 1] == slot_street[k]:
                out.table[at, slot_street[k]] = first_merged + merged
                merged += 1
            else:
                out.table[at, slot_street[k]] = first_alone + k


cdef void _estates(_Builder out, const i64[::1] kind, _Sheet sheet, const i64[:, ::1] play_rows) noexcept:
    """Real estate: every column with a box left, with every play of a real-estate offer."""
    cdef Py_ssize_t p, k
    if sheet.n_sizes == 0:
        return
    for p in range(kind.shape[0]):
        if kind[p] != USE_ESTATE:
            continue
        for k in range(sheet.n_sizes):
            out.row(play_rows, p, USE_ESTATE, sheet.sizes[k] + 1, 0, 0, sheet.sizes[k], 0, 0)


cdef void _parks_and_pools(_Builder out, const i64[:, ::1] fields, const i64[::1] kind,
                           _Sheet sheet,
                           const i64[:, ::1] play_rows) noexcept:
    """Landscaper (a park on the written street) and pool (the written pool house)."""
    cdef Py_ssize_t p, at, variant
    cdef i64 street, house
    for p in range(kind.shape[0]):
        street, house = fields[p, 1], fields[p, 2]
        if kind[p] == USE_PARK and sheet.can_park[street]:
            variant = out.spec(street, house, fields[p, 3], -1, 1, -1, -1, -1)
            at = out.row(play_rows, p, USE_PARK, street, 0, 0, -1, 0, 0)
            out.table[at, street] = variant
    for p in range(kind.shape[0]):
        street, house = fields[p, 1], fields[p, 2]
        if kind[p] == USE_POOL and sheet.pool_open[street][house]:
            variant = out.spec(street, house, fields[p, 3], -1, 0, house, -1, -1)
            at = out.row(play_rows, p, USE_POOL, street, house, 0, -1, 0, 0)
            out.table[at, street] = variant


cdef Py_ssize_t _bis_spots_after_write(_Sheet sheet, i64 street, i64 house, i64 number, i64[:, ::1] spots,
                                       Py_ssize_t at) noexcept:
    """Sheet.bis_options_after_write in C: every (street, house, number) a
    bis can write once `number` is in `house`, street by street, house by
    house, the copy of the left neighbour first. Appends them to `spots`
    from row `at`; returns the row after the last. (Padded houses are
    roundabouts behind fences, so they add no spot.)"""
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
                    spots[at, 0], spots[at, 1], spots[at, 2] = s, h, left
                    at += 1
            if h < w - 1 and not sheet.fences[s][h]:
                right = number if s == street and h + 1 == house else sheet.numbers[s][h + 1]
                if right >= 0:
                    spots[at, 0], spots[at, 1], spots[at, 2] = s, h, right
                    at += 1
    return at


cdef void _bis(_Builder out, const i64[:, ::1] fields, const i64[::1] bis_from,
               const i64[:, ::1] bis_spots, const i64[:, ::1] play_rows) noexcept:
    """Bis: every copy the sheet allows once the play is written; equal
    street variants are listed once, in the order first met."""
    cdef Py_ssize_t n_plays = fields.shape[0], p, j, q, found, at
    cdef Py_ssize_t n_keys = 0, total = bis_spots.shape[0]
    if total == 0:
        return
    cdef i64[:, ::1] keys = np.empty((total, 5), dtype=np.int64)
    cdef i64[::1] key_of = np.empty(total, dtype=np.int64)
    cdef i64 street, house, number
    for p in range(n_plays):
        for j in range(bis_from[p], bis_from[p + 1]):
            street = bis_spots[j, 0]
            if street == fields[p, 1]:
                house, number = fields[p, 2], fields[p, 3]
            else:
                house, number = -1, -1
            found = -1
            for q in range(n_keys):
                if (keys[q, 0] == street and keys[q, 1] == house and keys[q, 2] == number
                        and keys[q, 3] == bis_spots[j, 1] and keys[q, 4] == bis_spots[j, 2]):
                    found = q
                    break
            if found < 0:
                found = n_keys
                keys[found, 0], keys[found, 1], keys[found, 2] = street, house, number
                keys[found, 3], keys[found, 4] = bis_spots[j, 1], bis_spots[j, 2]
                n_keys += 1
            key_of[j] = found
    cdef Py_ssize_t first = out.n_specs
    for q in range(n_keys):
        out.spec(keys[q, 0], keys[q, 1], keys[q, 2], -1, 0, -1, keys[q, 3], keys[q, 4])
    for p in range(n_plays):
        for j in range(bis_from[p], bis_from[p + 1]):
            at = out.row(play_rows, p, USE_BIS, bis_spots[j, 0], bis_spots[j, 1], bis_spots[j, 2], -1, 0, 1)
            out.table[at, bis_spots[j, 0]] = first + key_of[j]


# ------------------------------------------------------------- street features
cdef class _Sheet:
    """What a decision needs of the sheet, read once into C arrays: its
    streets as features.sheet_rows pads them (a padded house is a
    roundabout behind a fence), the layout's per-street tables, and what
    the effects may do (fence slots, estate columns, parks, pools)."""

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
    cdef const i64[:, ::1] window_base
    cdef const i64[::1] window_count, gap_base, run_base, park_base


cdef _Sheet _read_sheet(sheet, layout):
    """The typed form of `sheet` for a decision under `layout`."""
    cdef _Sheet out = _Sheet()
    cdef Py_ssize_t s, h, n, width = layout.width, n_streets = len(sheet.numbers)
    if width > MAX_WIDTH or n_streets > MAX_STREETS or len(sheet.real_estate) > 6:
        raise ValueError(f"the native decision takes at most {MAX_STREETS} streets of {MAX_WIDTH} houses "
                         f"and 6 estate sizes, not {n_streets} of {width} and {len(sheet.real_estate)}")
    data = sheet.data
    pool_house, park_points = static_rows(data, width)
    cdef const u8[:, ::1] pool_here = pool_house.view(np.uint8)
    cdef const i64[:, ::1] park_track = park_points
    out.width, out.n_streets, out.n_slots = width, n_streets, 0
    for s in range(n_streets):
        numbers, rounds, bis = sheet.numbers[s], sheet.roundabouts[s], sheet.is_bis[s]
        fences, pools, used = sheet.fences[s], sheet.pools[s], sheet.plan_use[s]
        n = len(numbers)
        for h in range(width):
            out.pool_house[s][h] = pool_here[s, h]
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
        for h in range(MAX_PARKS):
            out.park_points[s][h] = park_track[s, h]
        out.parks[s] = sheet.parks[s]
        out.can_park[s] = sheet.parks[s] < len(data.park_tracks[s]) - 1
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
    out.window_base = layout.window_base
    out.window_count = layout.window_count
    out.gap_base = layout.gap_base
    out.run_base = layout.run_base
    out.park_base = layout.park_base
    return out


cdef void _street_features(_Sheet base, const i64[::1] spec, i64 phase, i64 window_phase,
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
    cdef i64 key, best, cut, parks
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

    # the nearest written numbers either side inside the roundabout segment (features._bounds)
    cut = 0
    for h in range(w):
        cut += rounds[h]
        segment[h] = cut * 32
        empty[h] = numbers[h] < 0 and not rounds[h]
    best = -(1 << 62)
    for h in range(w):
        key = segment[h] + (numbers[h] + 1 if numbers[h] >= 0 else 0)
        best = imax(best, key)
        low[h] = best - segment[h] - 1
    best = 1 << 62
    for h in range(w - 1, -1, -1):
        key = segment[h] + (numbers[h] if numbers[h] >= 0 else MAX_NUMBER + 1)
        best = imin(best, key)
        high[h] = best - segment[h]
    for h in range(w):
        if empty[h]:
            room[h] = imin(imax(high[h] - low[h] - 1, 0), MAX_NUMBER + 1)
            code[h] = ROOM_BUCKETS[room[h]]
        else:
            room[h] = 0
            code[h] = BUILT_CODES[rounds[h] * 4 + bis[h] * 2 + pools[h]]

    # windows of three houses and their two inner fences
    cdef i64 window_base, shift = window_phase * base.window_count[street] * WINDOW_STATES
    for h in range(w - 2):
        window_base = base.window_base[street, h]
        if window_base > 0:
            features[h] = (window_base + shift + ((code[h] * N_CODES + code[h + 1]) * N_CODES + code[h + 2]) * 4
                           + fences[h] * 2 + fences[h + 1])
        else:
            features[h] = 0

    # gaps: runs of empty houses between written numbers
    cdef i64* gaps = features + (w - 2)
    cdef Py_ssize_t end
    cdef i64 length
    cdef i64 bound = MAX_NUMBER + 2
    for h in range(w):
        gaps[h] = 0
        if empty[h] and (h == 0 or not empty[h - 1]):
            end = h
            while end < w and empty[end]:
                end += 1
            length = end - h
            gaps[h] = (base.gap_base[street]
                       + ((phase * MAX_GAP + imin(length, MAX_GAP) - 1) * bound + low[h] + 1) * bound
                       + imin(imax(high[h], 0), bound - 1))

    # fenced runs: length, empty houses, dead house, roundabout, plan use
    cdef i64* runs = features + (2 * w - 2)
    cdef i64 empties, run_length
    cdef bint dead, has_round, has_used
    cdef Py_ssize_t start = 0
    for h in range(COUNTS):
        counts[h] = 0
    for h in range(w):
        runs[h] = 0
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
    for h in range(w):
        if base.pool_house[street][h]:
            counts[POOLS_BUILT] += pools[h]
            if empty[h] and room[h] > 0:
                counts[POOLS_POSSIBLE] += 1
    park_points[0] = base.park_points[street][imin(parks, MAX_PARKS - 1)]


# ------------------------------------------------------------- whole sheet
cdef class _Globals:
    """What global_features needs of a decision's context, typed: the table
    offsets, the context's scalars, the game's tracks and each plan deck's rule."""

    cdef i64 estate, pools, temps, bis, bias, refusals_column, refused_column, roundabouts
    cdef i64 phase, opponent_temps, constant, refused_constant
    cdef const i64[:, ::1] estate_values
    cdef const i64[::1] pool_track, bis_track
    cdef i64 plan_start[MAX_DECKS]    # index of the plan column (all of it unless it counts estates)
    cdef u8 plan_counts[MAX_DECKS]    # 1: start + covered * 7 + reachable
    cdef i64 plan_need[MAX_DECKS][6]  # estates needed per size
    cdef i64 plan_needed[MAX_DECKS]   # estates the plan needs in all (-1: no points to claim here)
    cdef i64 plan_points[MAX_DECKS]   # points when covered
    cdef Py_ssize_t decks


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
    index[11] = g.roundabouts
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


_TRACKS: dict = {}
"""id(data) -> (data, pool track, bis track): a game's tracks as arrays, made
once per data object (kept with them, so its id is not reused)."""


cdef tuple _tracks(data):
    found = _TRACKS.get(id(data))
    if found is None or found[0] is not data:
        if len(_TRACKS) > 64:
            _TRACKS.clear()
        found = _TRACKS[id(data)] = (data, np.array(data.pool_track, dtype=np.int64),
                                     np.array(data.bis_track, dtype=np.int64))
    return found


cdef _Globals _globals(layout, context, refused_context, i64 phase):
    """The typed form of a decision's SheetContext (and of its refusal's, one refusal more)."""
    cdef _Globals g = _Globals()
    cdef Py_ssize_t deck, size
    data = context.data
    offsets = layout.offsets
    g.phase = phase
    g.estate, g.pools, g.temps = offsets["estate"], offsets["pools"], offsets["temps"]
    g.bis, g.bias = offsets["bis"], offsets["bias"]
    g.roundabouts = offsets["roundabouts"] + phase * 3 + min(context.roundabouts, 2)
    g.opponent_temps = context.opponent_temps
    g.estate_values = _estate_values(data)
    _, g.pool_track, g.bis_track = _tracks(data)
    roundabout_points = data.roundabout_track[min(context.roundabouts, len(data.roundabout_track) - 1)]
    refusal_track = data.refusal_track
    g.refusals_column = offsets["refusals"] + (phase * 4 + min(context.refusals, 3)) * 4 \
        + min(context.opponent_refusals, 3)
    g.constant = context.plan_points - roundabout_points - refusal_track[min(context.refusals,
                                                                              len(refusal_track) - 1)]
    if refused_context is not None:
        g.refused_column = offsets["refusals"] + (phase * 4 + min(refused_context.refusals, 3)) * 4 \
            + min(refused_context.opponent_refusals, 3)
        g.refused_constant = (refused_context.plan_points - roundabout_points
                              - refusal_track[min(refused_context.refusals, len(refusal_track) - 1)])
    plans = context.plans
    g.decks = len(plans)
    if g.decks > MAX_DECKS:
        raise ValueError(f"the native decision takes at most {MAX_DECKS} plan decks, not {g.decks}")
    plan_base = offsets["plans"]
    for deck in range(g.decks):
        spec = plans[deck]
        g.plan_start[deck], g.plan_counts[deck], g.plan_needed[deck], g.plan_points[deck] = 0, 0, -1, 0
        for size in range(6):
            g.plan_need[deck][size] = 0
        plan_index = layout.plan_index.get(spec.id)
        if plan_index is None:
            continue
        if context.plan_done[deck]:
            g.plan_start[deck] = plan_base + plan_index * PLAN_STATUS * PLAN_PROGRESS
            continue
        status = 1 if context.plan_high[deck] else 2
        g.plan_start[deck] = plan_base + (plan_index * PLAN_STATUS + status) * PLAN_PROGRESS
        if spec.kind != "estates":
            continue
        g.plan_counts[deck] = 1
        need = _needs(spec.estates)
        for size in range(6):
            g.plan_need[deck][size] = need[0, size]
        if not spec.estate_filter:
            g.plan_needed[deck] = len(spec.estates)
            g.plan_points[deck] = spec.points[0] if context.plan_high[deck] else spec.points[1]
    return g


# ------------------------------------------------------------------ decision
def decide(const double[::1] weights, layout, sheet, list real, list offer_kinds, bint refusal, context,
           refused_context, i64 phase, i64 window_phase):
    """Evaluator.decision's arrays for one decision: (play, use, args, values,
    street features, variant_of, global features), the values before any
    thematic board's points. `real` are the plays (no refusal), `offer_kinds`
    the effect use code of each offer (a temp play uses none)."""
    data = sheet.data
    cdef _Sheet base = _read_sheet(sheet, layout)
    cdef Py_ssize_t n_streets = base.n_streets, width = base.width, n_plays = len(real), p, s, k, v, c, j
    cdef i64[:, ::1] fields = np.empty((n_plays, 5), dtype=np.int64)
    cdef i64[::1] kind = np.empty(n_plays, dtype=np.int64)
    cdef object play
    for p in range(n_plays):
        play = real[p]
        for j in range(5):
            fields[p, j] = play[j]
        kind[p] = NO_USE if fields[p, 4] == 1 else offer_kinds[fields[p, 0]]

    # the bis spots each bis play leaves (none once the bis track is full)
    cdef Py_ssize_t n_bis_plays = 0, n_spots = 0
    cdef bint bis_left = sheet.n_bis < data.max_bis
    for p in range(n_plays):
        n_bis_plays += kind[p] == USE_BIS
    cdef i64[::1] bis_from = np.zeros(n_plays + 1, dtype=np.int64)
    bis_spots_array = np.empty((n_bis_plays * n_streets * width * 2 if bis_left else 0, 3), dtype=np.int64)
    cdef i64[:, ::1] bis_spots = bis_spots_array
    for p in range(n_plays):
        if kind[p] == USE_BIS and bis_left:
            n_spots = _bis_spots_after_write(base, fields[p, 1], fields[p, 2], fields[p, 3], bis_spots, n_spots)
        bis_from[p + 1] = n_spots
    bis_spots = bis_spots[:n_spots]

    cdef Py_ssize_t max_specs = n_streets + n_plays * (2 + 2 * base.n_slots) + n_spots + 2
    cdef Py_ssize_t max_rows = n_plays * (4 + base.n_slots + base.n_sizes) + n_spots + 1
    cdef _Builder out = _Builder(n_streets, max_specs, max_rows)
    for s in range(n_streets):
        out.spec(s, -1, -1, -1, 0, -1, -1, -1)
    cdef i64[:, ::1] play_rows = np.empty((n_plays, n_streets), dtype=np.int64)
    cdef i64 temp_add = int(sheet.temps < data.temp_boxes)
    for p in range(n_plays):
        v = out.spec(fields[p, 1], fields[p, 2], fields[p, 3], -1, 0, -1, -1, -1)
        for s in range(n_streets):
            play_rows[p, s] = s
        play_rows[p, fields[p, 1]] = v
    for p in range(n_plays):
        out.row(play_rows, p, NO_USE, 0, 0, 0, -1, temp_add if fields[p, 4] == 1 else 0, 0)
    if n_plays:
        _fences(out, fields, kind, base, play_rows)
        _estates(out, kind, base, play_rows)
        _parks_and_pools(out, fields, kind, base, play_rows)
        _bis(out, fields, bis_from, bis_spots, play_rows)
    if refusal:
        out.row(play_rows, -1, NO_USE, 0, 0, 0, -1, 0, 0)

    # every street variant's features, summary and value
    cdef Py_ssize_t n_variants = out.n_specs, n_features = 3 * width - 1
    features_array = np.empty((n_variants, n_features), dtype=np.int64)
    cdef i64[:, ::1] features = features_array
    cdef i64[:, ::1] counts = np.empty((n_variants, COUNTS), dtype=np.int64)
    cdef i64 park_points
    cdef double[::1] street_value = np.empty(n_variants, dtype=np.float64)
    for v in range(n_variants):
        _street_features(base, out.specs[v], phase, window_phase, &features[v, 0], &counts[v, 0], &park_points)
        street_value[v] = pairwise_sum(weights, &features[v, 0], n_features) + <double>park_points

    # every candidate's whole-sheet features and value
    cdef _Globals g = _globals(layout, context, refused_context, phase)
    cdef Py_ssize_t n_rows = out.n_rows, n_global = GLOBAL_COLUMNS + g.decks
    table = out.table_array[:n_rows]
    cdef i64[:, ::1] rows = out.table[:n_rows]
    global_array = np.empty((n_rows, n_global), dtype=np.int64)
    cdef i64[:, ::1] global_idx = global_array
    values_array = np.empty(n_rows, dtype=np.float64)
    cdef double[::1] values = values_array
    cdef i64 summed[COUNTS]
    cdef i64 real_estate[6]
    cdef i64 exact, sheet_temps = sheet.temps, sheet_bis = sheet.n_bis
    cdef double streets_sum
    for c in range(n_rows):
        for j in range(COUNTS):
            summed[j] = 0
        streets_sum = -0.0
        for s in range(n_streets):
            v = rows[c, s]
            for j in range(COUNTS):
                summed[j] += counts[v, j]
            streets_sum += street_value[v]
        for k in range(6):
            real_estate[k] = base.real_estate[k]
        if rows[c, n_streets + 5] >= 0:
            real_estate[rows[c, n_streets + 5]] += 1
        _global_features(g, summed, real_estate, sheet_temps + rows[c, n_streets + 6],
                         sheet_bis + rows[c, n_streets + 7], refusal and c == n_rows - 1,
                         &global_idx[c, 0], &exact)
        values[c] = (0.0 + streets_sum) + pairwise_sum(weights, &global_idx[c, 0], n_global) + <double>exact
    s = n_streets
    return (table[:, s], table[:, s + 1], table[:, s + 2:s + 5], values_array, features_array,
            table[:, :s], global_array)
