# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True, auto_pickle=False
"""One player's Welcome To sheet in typed code: the state of
`welcometo_sim.games.welcome_to.sheet.Sheet` (the reference) in C arrays and
bitmasks, its legal moves, applying them, and its score.

It is the first slice of a native game loop: a future native game must
pick the same option index with the same random draw as the Python game,
so every list of options comes in exactly the order the Python functions
list it (`effects.legal_plays`, `effects.effect_options`,
`Sheet.bis_options`, `Sheet.fence_options`, `Sheet.roundabout_options`).
Moves come out as plain tuples with the fields of `Play` and `Effect`
(welcometo_sim/native/moves.py makes those of them); moves go in as any
sequence with those fields, a `Play` or an `Effect` included.

Only the base board: a thematic board's state (trucks, lights, eggs)
reacts to writes in ways this slice does not model, so such a sheet is
refused. Any street layout of up to MAX_STREETS streets of up to
MAX_HOUSES houses is accepted, and any tracks (`GameData`).

Layout of the state: per street, bitmasks (bit h = house h, or fence slot
h between houses h and h + 1) of the bis houses, roundabouts, fences and
built pools; per house its number (-1: none) and the plan whose line
covers it (0: none); per street and number the bitmask of the houses
where that number may be written now (`fits`, as `Sheet.fits`), computed
again for a street whenever it changes (a few dozen operations).
"""

from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy, memset

from ..games.welcome_to.data import DEFAULT_DATA, MAX_ESTATE_SIZE as _MAX_ESTATE_SIZE, MAX_NUMBER as _MAX_NUMBER
from ..games.welcome_to.data import MIN_NUMBER as _MIN_NUMBER, TEMP_MODIFIERS as _TEMP_MODIFIERS

# The sizes (MAX_STREETS, N_NUMBERS, ...), the classes' fields and their C
# methods are declared in sheet.pxd, which other native modules cimport.

if (_MIN_NUMBER, _MAX_NUMBER + 1, _MAX_ESTATE_SIZE) != (0, N_NUMBERS, ESTATE_SIZES):
    raise ImportError("welcometo_sim.native.sheet was written for numbers 0..17 and estates of 1..6 houses")

SURVEYOR, REAL_ESTATE, LANDSCAPER, POOL, TEMP, BIS = "surveyor", "real_estate", "landscaper", "pool", "temp", "bis"
cdef dict EFFECT_CODES = {SURVEYOR: SURVEYOR_EFFECT, REAL_ESTATE: REAL_ESTATE_EFFECT, LANDSCAPER: LANDSCAPER_EFFECT,
                          POOL: POOL_EFFECT, BIS: BIS_EFFECT}
cdef tuple EFFECT_KINDS = (SURVEYOR, REAL_ESTATE, LANDSCAPER, POOL, BIS)
"""The effect kinds with options on the sheet, by C code, and back."""
SCORE_FIELDS = ("plans", "parks", "pools", "temps", "estates", "bonus", "bis", "roundabouts", "refusals")

cdef int TEMP_DELTAS[8]
cdef int N_TEMP_DELTAS = len(_TEMP_MODIFIERS)
if N_TEMP_DELTAS > 8:
    raise ImportError("welcometo_sim.native.sheet takes at most 8 temp modifiers")
for _index, _delta in enumerate(_TEMP_MODIFIERS):
    TEMP_DELTAS[_index] = _delta


cdef inline bint has(uint64_t mask, int bit) noexcept nogil:
    return (mask >> bit) & 1


cdef inline int _popcount(uint64_t mask) noexcept:
    cdef int count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


cdef list bits_of(uint64_t mask):
    """The set bits of a mask, low to high (houses left to right)."""
    cdef list result = []
    cdef int bit = 0
    while mask:
        if mask & 1:
            result.append(bit)
        mask >>= 1
        bit += 1
    return result


# ------------------------------------------------------------------ layout
cdef class Track:
    """One scoring track of the game data in C (`values[k]` after k boxes)."""

    cdef int set(self, values, str name) except -1:
        if len(values) > MAX_TRACK:
            raise ValueError(f"the native sheet takes tracks of at most {MAX_TRACK} boxes, "
                             f"{name} has {len(values)}")
        self.length = len(values)
        for index, value in enumerate(values):
            self.values[index] = value
        return 0

    cdef int at(self, int index, str name) except? -1:
        """The track's value after `index` boxes; an index past its end is the
        IndexError the Python sheet raises there."""
        if not 0 <= index < self.length:
            raise IndexError(f"{name} has no box {index}")
        return self.values[index]


cdef Track _track(values, str name):
    cdef Track track = Track.__new__(Track)
    track.set(tuple(values), name)
    return track


cdef class Layout:
    """What a sheet needs of its `GameData`, in C: the street lengths, pool
    houses and every track. Made once per data object and shared by its
    sheets (`layout_of`)."""

    def __init__(self, data):
        sizes = tuple(data.street_houses)
        if not 1 <= len(sizes) <= MAX_STREETS or not all(1 <= n <= MAX_HOUSES for n in sizes):
            raise ValueError(f"the native sheet takes 1 to {MAX_STREETS} streets of 1 to {MAX_HOUSES} houses, "
                             f"not {sizes}")
        if len(data.real_estate_tracks) != ESTATE_SIZES:
            raise ValueError(f"the native sheet takes {ESTATE_SIZES} real-estate tracks, "
                             f"not {len(data.real_estate_tracks)}")
        self.data = data
        self.n_streets = len(sizes)
        self.n_houses = sum(sizes)
        for street, n in enumerate(sizes):
            self.houses[street] = n
            self.pool_houses[street] = 0
            for house in data.pool_houses[street]:
                if 0 <= house < n:  # a pool house off the street can never be built on
                    self.pool_houses[street] |= <uint64_t>1 << house
        self.park_tracks = [_track(track, f"park track {street}") for street, track in enumerate(data.park_tracks)]
        self.estate_tracks = [_track(track, f"real-estate track {size + 1}")
                              for size, track in enumerate(data.real_estate_tracks)]
        self.pool_track = _track(data.pool_track, "the pool track")
        self.bis_track = _track(data.bis_track, "the bis track")
        self.refusal_track = _track(data.refusal_track, "the refusal track")
        self.roundabout_track = _track(data.roundabout_track, "the roundabout track")
        self.temp_boxes = data.temp_boxes
        self.max_bis = data.max_bis
        self._play_rows = []

    cdef tuple play_rows(self, int offer, int number, bint temp):
        """Per street, per house, the play tuple writing `number` there with
        offer `offer` (made on first use, then shared by every sheet of
        this layout: making tuples cost more than finding the houses)."""
        cdef Py_ssize_t key = (offer * N_NUMBERS + number) * 2 + temp
        while len(self._play_rows) <= key:
            self._play_rows.append(None)
        rows = self._play_rows[key]
        if rows is None:
            rows = self._play_rows[key] = tuple(
                tuple((offer, street, house, number, temp) for house in range(self.houses[street]))
                for street in range(self.n_streets))
        return rows


_LAYOUTS = {}
"""Layout per GameData (few exist: one per variant's tables)."""


cpdef Layout layout_of(data):
    """The shared layout of a GameData (made on first use)."""
    layout = _LAYOUTS.get(id(data))
    if layout is None or (<Layout>layout).data is not data:
        if len(_LAYOUTS) >= 256:
            _LAYOUTS.clear()
        layout = _LAYOUTS[id(data)] = Layout(data)
    return layout


cdef int offer_fields(offer, int index, int* number, bint* temp) except -1:
    """An offer's number (checked: 0..17) and whether its effect is the temp
    agency, read once from the Python offer."""
    number[0] = offer[0]
    if not 0 <= number[0] < N_NUMBERS:
        raise ValueError(f"offer {index}: house numbers are 0 to {N_NUMBERS - 1}, not {number[0]}")
    temp[0] = offer[1] == TEMP
    return 0


cdef int _written_numbers(int number, bint temp, int* numbers, bint* temps) noexcept:
    """The (number, temp) pairs an offer can write, in the order of
    `effects.legal_plays`: its number, then with the temp agency each
    number TEMP_MODIFIERS reaches (0..17). Returns how many."""
    cdef int count = 1, delta
    numbers[0], temps[0] = number, False
    if temp:
        for delta in range(N_TEMP_DELTAS):
            if 0 <= number + TEMP_DELTAS[delta] < N_NUMBERS:
                numbers[count], temps[count] = number + TEMP_DELTAS[delta], True
                count += 1
    return count


cdef int effect_code(kind) except? -2:
    """The C code of an effect kind (`EFFECT_CODES`): NO_EFFECT for the temp
    agency and any other kind the sheet has no options for."""
    return EFFECT_CODES.get(kind, NO_EFFECT)


cdef inline void _set_fields(int* options, int index, int kind, int street, int position, int number) noexcept:
    """Option `index` of an effect option list in C (`NativeSheet._effect_fields`)."""
    cdef int* fields = &options[EFFECT_FIELDS * index]
    fields[0], fields[1], fields[2], fields[3] = kind, street, position, number


cdef tuple effect_tuple(const int* fields):
    """An effect option in C as the tuple of `Effect`'s fields (None for -1)."""
    return (EFFECT_KINDS[fields[0]], None if fields[1] < 0 else fields[1], None if fields[2] < 0 else fields[2],
            None if fields[3] < 0 else fields[3])


cdef inline uint64_t _fences_of(uint64_t rounds, int n) noexcept:
    """The fence slots the roundabouts of a street bring (on both sides)."""
    return (rounds | (rounds >> 1)) & ((<uint64_t>1 << (n - 1)) - 1)  # n <= 64: slots 0 .. n - 2


cdef inline int _nth_bit(uint64_t mask, Py_ssize_t n) noexcept:
    """The position of the n-th set bit of a mask (n = 0: the lowest)."""
    cdef int bit = 0
    while True:
        if mask & 1:
            if n == 0:
                return bit
            n -= 1
        mask >>= 1
        bit += 1


# ------------------------------------------------------------------- sheet
cdef class NativeSheet:
    """The state of one player's sheet (base board), with its moves and score.

    `NativeSheet(data)` is an empty sheet; `NativeSheet.from_sheet(sheet)`
    reads a Python `Sheet`; `to_record()` is `Sheet.to_record()`.

    The methods a native game calls every turn are `cpdef` (or `cdef`, as
    `_count_plays`) and declared in sheet.pxd, so that a module holding the
    sheet typed calls them as C functions."""

    def __init__(self, data=DEFAULT_DATA):
        self._reset(layout_of(data))

    cdef void _reset(self, Layout layout):
        """An empty sheet of that layout."""
        self.layout = layout
        memset(self.numbers, NO_NUMBER, sizeof(self.numbers))
        memset(self.plan_use, 0, sizeof(self.plan_use))
        memset(self.bis, 0, sizeof(self.bis))
        memset(self.rounds, 0, sizeof(self.rounds))
        memset(self.fences, 0, sizeof(self.fences))
        memset(self.pools, 0, sizeof(self.pools))
        memset(self.parks, 0, sizeof(self.parks))
        memset(self.real_estate, 0, sizeof(self.real_estate))
        memset(self.points, 0, sizeof(self.points))
        for deck in range(N_DECKS):
            self.turns[deck] = -1
        self.temps = self.n_bis = self.refusals = self.n_roundabouts = self.filled = 0
        for street in range(layout.n_streets):
            self._refit(street)

    @staticmethod
    def from_sheet(sheet):
        """The native copy of a Python `Sheet` (base board only)."""
        cdef NativeSheet native = NativeSheet.__new__(NativeSheet)
        if sheet.board is not None:
            raise ValueError(f"the native sheet plays the base board only, not the {_board_name(sheet)} board")
        native._reset(layout_of(sheet.data))
        native._read(sheet)
        return native

    cdef int _read(self, sheet) except -1:
        cdef int street, house, n
        if len(sheet.real_estate) != ESTATE_SIZES or len(sheet.plan_turns) != N_DECKS:
            raise ValueError("the native sheet takes 6 real-estate columns and 3 plan decks")
        for street in range(self.layout.n_streets):
            n = self.layout.houses[street]
            for house in range(n):
                value = sheet.numbers[street][house]
                self.numbers[street][house] = NO_NUMBER if value is None else value
                if sheet.is_bis[street][house]:
                    self.bis[street] |= <uint64_t>1 << house
                if sheet.roundabouts[street][house]:
                    self.rounds[street] |= <uint64_t>1 << house
                if sheet.pools[street][house]:
                    self.pools[street] |= <uint64_t>1 << house
                if house < n - 1 and sheet.fences[street][house]:
                    self.fences[street] |= <uint64_t>1 << house
                self.plan_use[street][house] = sheet.plan_use[street][house]
                if value is not None or sheet.roundabouts[street][house]:
                    self.filled += 1
            self.parks[street] = sheet.parks[street]
            self._refit(street)
        for size in range(ESTATE_SIZES):
            self.real_estate[size] = sheet.real_estate[size]
        for deck in range(N_DECKS):
            turn = sheet.plan_turns[deck]
            self.turns[deck] = -1 if turn is None else turn
            self.points[deck] = sheet.plan_points[deck]
        self.temps, self.n_bis = sheet.temps, sheet.n_bis
        self.refusals, self.n_roundabouts = sheet.refusals, sheet.n_roundabouts
        return 0

    def to_sheet(self):
        """The Python `Sheet` of the same state: a new sheet whose rows,
        counts and fit masks are set from this one (the masks mean the same
        on both sides: the houses each number may go in), its other caches
        left to be worked out on first use, as on a new sheet. A row with
        nothing on it stays the new sheet's own empty row."""
        from ..games.welcome_to.sheet import Sheet
        cdef Layout layout = self.layout
        cdef int street, house, n, number
        sheet = Sheet(layout.data)
        numbers, is_bis, rounds, fences = sheet.numbers, sheet.is_bis, sheet.roundabouts, sheet.fences
        plan_use, pools, fits = sheet.plan_use, sheet.pools, sheet.fits
        for street in range(layout.n_streets):
            n = layout.houses[street]
            numbers[street] = [None if self.numbers[street][house] == NO_NUMBER
                               else <int>self.numbers[street][house] for house in range(n)]
            if self.bis[street]:
                is_bis[street] = [has(self.bis[street], house) for house in range(n)]
            if self.rounds[street]:
                rounds[street] = [has(self.rounds[street], house) for house in range(n)]
            if self.fences[street]:
                fences[street] = [has(self.fences[street], house) for house in range(n - 1)]
            if self._has_plan_line(street):
                plan_use[street] = [<int>self.plan_use[street][house] for house in range(n)]
            if self.pools[street]:
                pools[street] = [has(self.pools[street], house) for house in range(n)]
            fits[street] = tuple([<object>self.fits[street][number] for number in range(N_NUMBERS)])
            sheet.parks[street] = self.parks[street]
        sheet.real_estate[:] = [self.real_estate[size] for size in range(ESTATE_SIZES)]
        sheet.plan_turns[:] = self.plan_turns
        sheet.plan_points[:] = self.plan_points
        sheet.temps, sheet.refusals, sheet.n_bis = self.temps, self.refusals, self.n_bis
        sheet.n_roundabouts, sheet._filled = self.n_roundabouts, self.filled
        return sheet

    cdef bint _has_plan_line(self, int street) noexcept:
        """Whether a plan's line covers a house of the street."""
        cdef int house
        for house in range(self.layout.houses[street]):
            if self.plan_use[street][house]:
                return True
        return False

    cpdef NativeSheet copy(self):
        """An independent copy (the layout is shared: it never changes)."""
        cdef NativeSheet other = NativeSheet.__new__(NativeSheet)
        other.layout = self.layout
        memcpy(other.numbers, self.numbers, sizeof(self.numbers))
        memcpy(other.plan_use, self.plan_use, sizeof(self.plan_use))
        memcpy(other.bis, self.bis, sizeof(self.bis))
        memcpy(other.rounds, self.rounds, sizeof(self.rounds))
        memcpy(other.fences, self.fences, sizeof(self.fences))
        memcpy(other.pools, self.pools, sizeof(self.pools))
        memcpy(other.fits, self.fits, sizeof(self.fits))
        memcpy(other.parks, self.parks, sizeof(self.parks))
        memcpy(other.real_estate, self.real_estate, sizeof(self.real_estate))
        memcpy(other.turns, self.turns, sizeof(self.turns))
        memcpy(other.points, self.points, sizeof(self.points))
        other.temps, other.n_bis, other.refusals = self.temps, self.n_bis, self.refusals
        other.n_roundabouts, other.filled = self.n_roundabouts, self.filled
        return other

    @property
    def data(self):
        return self.layout.data

    # ------------------------------------------------------------ placement
    cdef void _refit(self, int street) noexcept:
        """Recompute the street's fit masks from its number bounds, as
        `masks_from_bounds(Sheet.street_bounds(street))`: an empty house
        admits the numbers strictly between the nearest written numbers of
        its segment (roundabouts start new segments)."""
        cdef int n = self.layout.houses[street]
        cdef int lows[MAX_HOUSES]
        cdef int low = BELOW_ALL, high = ABOVE_ALL, house, number, value
        cdef uint64_t* masks = self.fits[street]
        memset(masks, 0, sizeof(uint64_t) * N_NUMBERS)
        for house in range(n):
            if has(self.rounds[street], house):
                low = BELOW_ALL
                continue
            lows[house] = low
            if self.numbers[street][house] != NO_NUMBER:
                low = self.numbers[street][house]
        for house in range(n - 1, -1, -1):
            if has(self.rounds[street], house):
                high = ABOVE_ALL
                continue
            value = self.numbers[street][house]
            if value != NO_NUMBER:
                high = value
                continue
            for number in range(lows[house] + 1, high):
                masks[number] |= <uint64_t>1 << house

    cdef void _write(self, int street, int house, int number, bint bis) noexcept:
        """`Sheet.write`: the caller has checked legality."""
        self.numbers[street][house] = number
        if bis:
            self.bis[street] |= <uint64_t>1 << house
            self.n_bis += 1
        else:
            self.bis[street] &= ~(<uint64_t>1 << house)
        self.filled += 1
        self._refit(street)

    cdef int _check_house(self, int street, int house) except -1:
        if not 0 <= street < self.layout.n_streets or not 0 <= house < self.layout.houses[street]:
            raise ValueError(f"no house {house} on street {street} of this sheet")
        return 0

    def write(self, int street, int house, int number, bint bis=False):
        """Write a house number (the caller has checked legality, as for `Sheet.write`)."""
        self._check_house(street, house)
        if not 0 <= number < N_NUMBERS:
            raise ValueError(f"house numbers are 0 to {N_NUMBERS - 1}, not {number}")
        self._write(street, house, number, bis)

    def can_write(self, int street, int house, int number):
        """True when `number` may be written (not as bis) in that house."""
        self._check_house(street, house)
        return 0 <= number < N_NUMBERS and has(self.fits[street][number], house)

    def houses_for(self, int number):
        """Every (street, house) where `number` can be written now."""
        if not 0 <= number < N_NUMBERS:
            return []
        return [(street, house) for street in range(self.layout.n_streets)
                for house in bits_of(self.fits[street][number])]

    cpdef list legal_plays(self, offers):
        """`effects.legal_plays` as (offer, street, house, number, temp) tuples,
        in its order: offer by offer; the plain number, then for a temp
        offer each changed number (TEMP_MODIFIERS order); each number's
        houses street by street, left to right. The tuples are made once per
        layout and shared, as effects.py shares its plays."""
        cdef list plays = []
        cdef int index = 0, k, count, street, house, number
        cdef int numbers[1 + 8]
        cdef bint temps[1 + 8]
        cdef bint temp
        cdef uint64_t mask
        cdef tuple rows
        for offer in offers:
            offer_fields(offer, index, &number, &temp)
            count = _written_numbers(number, temp, numbers, temps)
            for k in range(count):
                rows = self.layout.play_rows(index, numbers[k], temps[k])
                for street in range(self.layout.n_streets):
                    mask = self.fits[street][numbers[k]]
                    house = 0
                    while mask:
                        if mask & 1:
                            plays.append((<tuple>rows[street])[house])
                        mask >>= 1
                        house += 1
            index += 1
        return plays

    cdef Py_ssize_t _count_plays(self, offers, Py_ssize_t* plain) except -1:
        """How many plays `legal_plays(offers)` lists, without listing them
        (a game that draws a play's index needs no more to draw it); sets
        `plain` to how many of them write the offer's own number, without
        the temp agency."""
        cdef Py_ssize_t total = 0
        cdef int index = 0, number
        cdef bint temp
        plain[0] = 0
        for offer in offers:
            offer_fields(offer, index, &number, &temp)
            total += self._offer_count(number, temp, plain)
            index += 1
        return total

    cdef Py_ssize_t _offer_count(self, int number, bint temp, Py_ssize_t* plain) noexcept:
        """How many plays `legal_plays` lists for one offer (its number, and
        whether it brings the temp agency); adds to `plain` how many of
        them write the offer's own number."""
        cdef Py_ssize_t total = 0, here
        cdef int k, count, street
        cdef int numbers[1 + 8]
        cdef bint temps[1 + 8]
        count = _written_numbers(number, temp, numbers, temps)
        for k in range(count):
            for street in range(self.layout.n_streets):
                here = _popcount(self.fits[street][numbers[k]])
                total += here
                if not temps[k]:
                    plain[0] += here
        return total

    cdef int _offer_play(self, int number, bint temp, Py_ssize_t chosen, int* play) noexcept:
        """The play `chosen` (below `_offer_count`) of one offer, in
        `legal_plays` order, as its street, house, written number and
        temp use into play[1..4] (play[0], the offer, is the caller's)."""
        cdef Py_ssize_t seen = 0, here
        cdef int k, count, street
        cdef int numbers[1 + 8]
        cdef bint temps[1 + 8]
        count = _written_numbers(number, temp, numbers, temps)
        for k in range(count):
            for street in range(self.layout.n_streets):
                here = _popcount(self.fits[street][numbers[k]])
                if chosen < seen + here:
                    play[1], play[2] = street, _nth_bit(self.fits[street][numbers[k]], chosen - seen)
                    play[3], play[4] = numbers[k], temps[k]
                    return 0
                seen += here
        return -1

    cdef Py_ssize_t _play_fields(self, offers, int64_t* fields) except -1:
        """The plays `legal_plays(offers)` lists, in its order, as five
        numbers each (offer, street, house, number, temp) into `fields`
        (room for `_count_plays` of them): a native player scores them
        without making their tuples. Returns how many."""
        cdef Py_ssize_t total = 0
        cdef int index = 0, k, count, street, house, number
        cdef int numbers[1 + 8]
        cdef bint temps[1 + 8]
        cdef bint temp
        cdef uint64_t mask
        cdef int64_t* play
        for offer in offers:
            offer_fields(offer, index, &number, &temp)
            count = _written_numbers(number, temp, numbers, temps)
            for k in range(count):
                for street in range(self.layout.n_streets):
                    mask = self.fits[street][numbers[k]]
                    house = 0
                    while mask:
                        if mask & 1:
                            play = fields + 5 * total
                            play[0], play[1], play[2], play[3], play[4] = index, street, house, numbers[k], temps[k]
                            total += 1
                        mask >>= 1
                        house += 1
            index += 1
        return total

    cpdef tuple count_plays(self, offers):
        """(how many plays `legal_plays(offers)` lists, how many of them write
        the offer's own number, without the temp agency): `_count_plays`."""
        cdef Py_ssize_t plain
        cdef Py_ssize_t total = self._count_plays(offers, &plain)
        return total, plain

    cpdef tuple play_at(self, offers, Py_ssize_t chosen):
        """`legal_plays(offers)[chosen]` without listing the other plays
        (IndexError when there are not that many)."""
        cdef Py_ssize_t seen = 0, here, plain = 0
        cdef int index = 0, number
        cdef int play[5]
        cdef bint temp
        if chosen >= 0:
            for offer in offers:
                offer_fields(offer, index, &number, &temp)
                here = self._offer_count(number, temp, &plain)
                if chosen < seen + here:
                    self._offer_play(number, temp, chosen - seen, play)
                    rows = self.layout.play_rows(index, play[3], play[4])
                    return (<tuple>rows[play[1]])[play[2]]
                seen += here
                index += 1
        raise IndexError(f"play {chosen} of {seen} legal plays")

    cpdef Py_ssize_t apply_play_at(self, offers, Py_ssize_t chosen) except -1:
        """Apply the play `legal_plays(offers)[chosen]` without listing the
        plays as Python values (as a native game will take the play its
        random draw or its strategy picked); returns how many legal plays
        there are, and applies nothing when `chosen` is not below that."""
        cdef Py_ssize_t seen = 0, here
        cdef int index = 0, k, count, street, house = -1, at_street = 0, number = 0, offer_number
        cdef bint temp = False, offer_temp
        cdef int numbers[1 + 8]
        cdef bint temps[1 + 8]
        for offer in offers:
            offer_fields(offer, index, &offer_number, &offer_temp)
            count = _written_numbers(offer_number, offer_temp, numbers, temps)
            for k in range(count):
                for street in range(self.layout.n_streets):
                    here = _popcount(self.fits[street][numbers[k]])
                    if seen <= chosen < seen + here:
                        house = _nth_bit(self.fits[street][numbers[k]], chosen - seen)
                        at_street, number, temp = street, numbers[k], temps[k]
                    seen += here
            index += 1
        if house >= 0:  # after counting: the write changes which houses fit
            self._write(at_street, house, number, False)
            if temp and self.temps < self.layout.temp_boxes:
                self.temps += 1
        return seen

    cpdef void apply_play(self, play) except *:
        """`effects.apply_play` on the base board: write the number, and
        cross a temp box when the agency is used (while boxes are left)."""
        cdef int street = play[1], house = play[2], number = play[3]
        self._check_house(street, house)
        self._write_play(street, house, number, play[4])

    cdef void _write_play(self, int street, int house, int number, bint temp) noexcept:
        """`apply_play` of a play the sheet listed (its house checked)."""
        self._write(street, house, number, False)
        if temp and self.temps < self.layout.temp_boxes:
            self.temps += 1

    # --------------------------------------------------------------- effects
    cpdef list effect_options(self, offer, play):
        """`effects.effect_options` as (kind, street, position, number) tuples,
        the fields of `Effect`, in its order."""
        cdef int options[MAX_EFFECT_OPTIONS * EFFECT_FIELDS]
        cdef int kind = effect_code(offer[1]), street = play[1], house = play[2], count, index
        if kind == LANDSCAPER_EFFECT or kind == POOL_EFFECT:
            self._check_house(street, house)
        count = self._effect_fields(kind, street, house, options)
        return [effect_tuple(&options[EFFECT_FIELDS * index]) for index in range(count)]

    cdef int _effect_fields(self, int kind, int street, int house, int* options) noexcept:
        """`effect_options` for an effect of C code `kind` after a play on
        (`street`, `house`), as EFFECT_FIELDS numbers each (kind, street,
        position, number; -1 where the Effect holds None) into `options`
        (room for MAX_EFFECT_OPTIONS). Returns how many."""
        cdef int count = 0, size
        cdef uint64_t mask
        if kind == SURVEYOR_EFFECT:
            for street in range(self.layout.n_streets):
                mask = self._fence_mask(street)
                house = 0
                while mask:
                    if mask & 1:
                        _set_fields(options, count, SURVEYOR_EFFECT, street, house, -1)
                        count += 1
                    mask >>= 1
                    house += 1
        elif kind == REAL_ESTATE_EFFECT:
            for size in range(ESTATE_SIZES):
                if self.real_estate[size] < (<Track>self.layout.estate_tracks[size]).length - 1:
                    _set_fields(options, count, REAL_ESTATE_EFFECT, -1, size + 1, -1)
                    count += 1
        elif kind == LANDSCAPER_EFFECT:
            if self.parks[street] < (<Track>self.layout.park_tracks[street]).length - 1:
                _set_fields(options, 0, LANDSCAPER_EFFECT, street, -1, -1)
                count = 1
        elif kind == POOL_EFFECT:
            if has(self.layout.pool_houses[street], house) and not has(self.pools[street], house):
                _set_fields(options, 0, POOL_EFFECT, street, house, -1)
                count = 1
        elif kind == BIS_EFFECT:
            count = self._bis_fields(options)
        return count

    cpdef void apply_effect(self, effect) except *:
        """`effects.apply_effect`: carry out one legal effect use."""
        cdef int fields[EFFECT_FIELDS]
        kind = effect[0]
        fields[0] = effect_code(kind)
        if fields[0] == NO_EFFECT:
            raise ValueError(f"unknown effect kind {kind!r}")
        fields[1] = -1 if fields[0] == REAL_ESTATE_EFFECT else effect[1]
        fields[2] = -1 if fields[0] == LANDSCAPER_EFFECT else effect[2]
        fields[3] = effect[3] if fields[0] == BIS_EFFECT else -1
        self._apply_effect_fields(fields)

    cdef int _apply_effect_fields(self, const int* effect) except -1:
        """`apply_effect` of an effect as its EFFECT_FIELDS numbers."""
        cdef int kind = effect[0]
        if kind == SURVEYOR_EFFECT:
            self.add_fence(effect[1], effect[2])
        elif kind == REAL_ESTATE_EFFECT:
            if not 1 <= effect[2] <= ESTATE_SIZES:
                raise ValueError(f"estate sizes are 1 to {ESTATE_SIZES}, not {effect[2]}")
            self.real_estate[effect[2] - 1] += 1
        elif kind == LANDSCAPER_EFFECT:
            self._check_house(effect[1], 0)
            self.parks[effect[1]] += 1
        elif kind == POOL_EFFECT:
            self._check_house(effect[1], effect[2])
            self.pools[effect[1]] |= <uint64_t>1 << effect[2]
        elif kind == BIS_EFFECT:
            self._check_house(effect[1], effect[2])
            self._write(effect[1], effect[2], effect[3], True)
        else:
            raise ValueError(f"unknown effect kind {kind}")
        return 0

    # ---------------------------------------------------------------- fences
    cdef uint64_t _fence_mask(self, int street) noexcept:
        """The slots of a street where a fence may go: empty, not inside a bis
        pair (equal numbers), not across one plan's line."""
        cdef uint64_t mask = 0
        cdef int slot, left, line
        for slot in range(self.layout.houses[street] - 1):
            if has(self.fences[street], slot):
                continue
            left = self.numbers[street][slot]
            if left != NO_NUMBER and left == self.numbers[street][slot + 1]:
                continue
            line = self.plan_use[street][slot]
            if line and line == self.plan_use[street][slot + 1]:
                continue
            mask |= <uint64_t>1 << slot
        return mask

    def fence_mask(self, int street):
        """`Sheet.fence_mask`: bit k set when a fence may go on slot k."""
        self._check_house(street, 0)
        return self._fence_mask(street)

    cpdef list fence_options(self):
        """`Sheet.fence_options`: every (street, slot), street by street."""
        return [(street, slot) for street in range(self.layout.n_streets)
                for slot in bits_of(self._fence_mask(street))]

    cpdef void add_fence(self, int street, int slot) except *:
        """`Sheet.add_fence` (the caller has checked the slot is free)."""
        if not 0 <= street < self.layout.n_streets or not 0 <= slot < self.layout.houses[street] - 1:
            raise ValueError(f"no fence slot {slot} on street {street} of this sheet")
        self.fences[street] |= <uint64_t>1 << slot

    # ------------------------------------------------------------------- bis
    cpdef list bis_options(self):
        """`Sheet.bis_options`: every (street, house, number) a bis can write,
        house by house, the copy of the left neighbour first; none once the
        bis track is full."""
        cdef int options[MAX_EFFECT_OPTIONS * EFFECT_FIELDS]
        cdef int count = self._bis_fields(options), index
        cdef int* fields
        result = []
        for index in range(count):
            fields = &options[EFFECT_FIELDS * index]
            result.append((fields[1], fields[2], fields[3]))
        return result

    cdef int _bis_fields(self, int* options) noexcept:
        """`bis_options` as the fields of their bis effects into `options`
        (`_effect_fields`). Returns how many."""
        cdef int street, house, last, count = 0
        if self.n_bis >= self.layout.max_bis:
            return 0
        for street in range(self.layout.n_streets):
            last = self.layout.houses[street] - 1
            for house in range(last + 1):
                if self.numbers[street][house] != NO_NUMBER or has(self.rounds[street], house):
                    continue
                if house > 0 and not has(self.fences[street], house - 1) \
                        and self.numbers[street][house - 1] != NO_NUMBER:
                    _set_fields(options, count, BIS_EFFECT, street, house, self.numbers[street][house - 1])
                    count += 1
                if house < last and not has(self.fences[street], house) \
                        and self.numbers[street][house + 1] != NO_NUMBER:
                    _set_fields(options, count, BIS_EFFECT, street, house, self.numbers[street][house + 1])
                    count += 1
        return count

    # ----------------------------------------------------------- roundabouts
    cpdef void build_roundabout(self, int street, int house) except *:
        """`Sheet.build_roundabout`: an empty house becomes a roundabout, fenced on both sides."""
        self._check_house(street, house)
        self.rounds[street] |= <uint64_t>1 << house
        if house > 0:
            self.fences[street] |= <uint64_t>1 << (house - 1)
        if house < self.layout.houses[street] - 1:
            self.fences[street] |= <uint64_t>1 << house
        self.n_roundabouts += 1
        self.filled += 1
        self._refit(street)

    cpdef list roundabout_options(self):
        """`Sheet.roundabout_options`: every empty house, street by street."""
        return [(street, house) for street in range(self.layout.n_streets)
                for house in range(self.layout.houses[street])
                if self.numbers[street][house] == NO_NUMBER and not has(self.rounds[street], house)]

    # ----------------------------------------------------------------- plans
    cpdef void mark_plan(self, int street, int house, int deck) except *:
        """`Sheet.mark_plan`: plan `deck`'s line over a house."""
        self._check_house(street, house)
        self.plan_use[street][house] = deck

    cpdef void complete_plan(self, int deck, int turn) except *:
        """Plan n°`deck` (1..3) completed on `turn` (the last line of `plans.apply_claim`)."""
        self._check_deck(deck)
        self.turns[deck - 1] = turn

    cpdef void set_plan_points(self, int deck, int points) except *:
        """The points plan n°`deck` scored (the game settles them at the end of a turn)."""
        self._check_deck(deck)
        self.points[deck - 1] = points

    cdef int _check_deck(self, int deck) except -1:
        if not 1 <= deck <= N_DECKS:
            raise ValueError(f"plan decks are 1 to {N_DECKS}, not {deck}")
        return 0

    cpdef void refuse(self) noexcept:
        """A permit refusal, as the game crosses one (never past the track's end)."""
        self.refusals = min(self.refusals + 1, self.layout.refusal_track.length - 1)

    @property
    def plan_turns(self):
        return [None if self.turns[deck] < 0 else self.turns[deck] for deck in range(N_DECKS)]

    @property
    def plan_points(self):
        return [self.points[deck] for deck in range(N_DECKS)]

    # --------------------------------------------------------------- estates
    cdef bint _is_estate(self, int street, int first, int length) noexcept:
        """A run of 1..6 houses all holding a number (a roundabout holds none)."""
        cdef int house
        if length > ESTATE_SIZES:
            return False
        for house in range(first, first + length):
            if self.numbers[street][house] == NO_NUMBER:
                return False
        return True

    cdef bint _unused(self, int street, int first, int length) noexcept:
        """No house of the run serves a plan."""
        cdef int house
        for house in range(first, first + length):
            if self.plan_use[street][house]:
                return False
        return True

    cdef int _estate_runs(self, bint only_unused, EstateRun* runs) noexcept:
        """The completed estates, street by street, left to right, into `runs`
        (room for MAX_ESTATES); with `only_unused`, those no plan line
        covers. Returns how many."""
        cdef int street, start, end, last, count = 0
        for street in range(self.layout.n_streets):
            start = 0
            last = self.layout.houses[street] - 1
            for end in range(last + 1):
                if end < last and not has(self.fences[street], end):
                    continue
                if self._is_estate(street, start, end + 1 - start) \
                        and (not only_unused or self._unused(street, start, end + 1 - start)):
                    runs[count].street, runs[count].first, runs[count].size = street, start, end + 1 - start
                    count += 1
                start = end + 1
        return count

    cdef list _estates(self, bint only_unused):
        """`_estate_runs` as (street, first_house, size) tuples."""
        cdef EstateRun runs[MAX_ESTATES]
        cdef int count = self._estate_runs(only_unused, runs), index
        return [(runs[index].street, runs[index].first, runs[index].size) for index in range(count)]

    cpdef list completed_estates(self):
        """`Sheet.completed_estates`."""
        return self._estates(False)

    cpdef list unused_estates(self):
        """`Sheet.unused_estates`: completed estates none of whose houses serve a plan."""
        return self._estates(True)

    cpdef list estate_counts(self):
        """`Sheet.estate_counts`: completed estates per size 1..6."""
        counts = [0] * ESTATE_SIZES
        for _street, _first, size in self._estates(False):
            counts[size - 1] += 1
        return counts

    # ---------------------------------------------------------------- counts
    cpdef bint is_full(self) noexcept:
        return self.filled == self.layout.n_houses

    def n_built(self):
        return self.filled - self.n_roundabouts

    @property
    def n_pools(self):
        cdef int street, total = 0
        for street in range(self.layout.n_streets):
            total += _popcount(self.pools[street])
        return total

    cpdef int plans_completed(self) noexcept:
        cdef int deck, completed = 0
        for deck in range(N_DECKS):
            completed += self.turns[deck] >= 0
        return completed

    # --------------------------------------------------------------- scoring
    def score(self, int temps, int bonus=0):
        """`scoring.score_sheet`: the breakdown of this sheet's score; `temps`
        and `bonus` depend on the other players or the board."""
        cdef Layout layout = self.layout
        cdef int street, parks = 0
        for street in range(layout.n_streets):
            parks += (<Track>layout.park_tracks[street]).at(self.parks[street], f"park track {street}")
        score = {
            "plans": self.points[0] + self.points[1] + self.points[2],
            "parks": parks,
            "pools": layout.pool_track.at(self.n_pools, "the pool track"),
            "temps": temps,
            "estates": self._estate_points(),
            "bonus": bonus,
            "bis": -layout.bis_track.at(self.n_bis, "the bis track"),
            "roundabouts": -layout.roundabout_track.at(self.n_roundabouts, "the roundabout track"),
            "refusals": -layout.refusal_track.at(self.refusals, "the refusal track"),
        }
        score["total"] = sum([score[field] for field in SCORE_FIELDS])
        return score

    cdef int _estate_points(self) except? -1:
        """`scoring.estate_points`: each completed estate at its column's value."""
        cdef int size, points = 0
        counts = self.estate_counts()
        for size in range(ESTATE_SIZES):
            if counts[size]:
                points += counts[size] * (<Track>self.layout.estate_tracks[size]).at(
                    self.real_estate[size], f"real-estate track {size + 1}")
        return points

    # ---------------------------------------------------------------- record
    def house_label(self, int street, int house):
        """The record's spelling of a house: "7", "7b", "R" or None."""
        self._check_house(street, house)
        if has(self.rounds[street], house):
            return "R"
        value = self.numbers[street][house]
        if value == NO_NUMBER:
            return None
        return f"{value}b" if has(self.bis[street], house) else str(value)

    def to_record(self):
        """`Sheet.to_record()` (RECORDS.md §1) of the same sheet."""
        cdef Layout layout = self.layout
        streets = range(layout.n_streets)
        return {
            "houses": [[self.house_label(s, h) for h in range(layout.houses[s])] for s in streets],
            "fences": [bits_of(self.fences[s]) for s in streets],
            "parks": [self.parks[s] for s in streets],
            "pools": [bits_of(self.pools[s]) for s in streets],
            "real_estate": [self.real_estate[size] for size in range(ESTATE_SIZES)],
            "temps": self.temps,
            "bis": self.n_bis,
            "refusals": self.refusals,
            "roundabouts": self.n_roundabouts,
            "plans": [{"deck": deck + 1, "turn": self.turns[deck], "points": self.points[deck]}
                      for deck in range(N_DECKS) if self.turns[deck] >= 0],
        }


def _board_name(sheet):
    """The name of the thematic board whose state a sheet holds."""
    from ..games.welcome_to.boards import BOARD_RULES
    for name, rules in BOARD_RULES.items():
        state = rules.new_state(sheet.data)
        if state is not None and type(state) is type(sheet.board):
            return name
    return type(sheet.board).__name__
