# cython: language_level=3
"""The C interface of welcometo_sim/native/sheet.pyx: its sizes, its classes'
fields and their C methods, so that another native module (game.pyx)
can `cimport` them, hold its sheets as `NativeSheet` and call their
methods as C functions instead of through Python attribute lookups.

The build records this file's digest with every module that cimports it
(welcometo_sim/native/modules.py, `NATIVE_DEPENDS`): a module compiled
against an older layout of these classes would read the wrong fields, so
it must be rebuilt, and does not run until it is.
"""

from libc.stdint cimport int64_t, uint64_t

cdef enum:
    MAX_STREETS = 8
    MAX_HOUSES = 64
    MAX_ESTATES = MAX_STREETS * MAX_HOUSES  # completed estates a sheet can hold, at most
    MAX_TRACK = 64
    N_NUMBERS = 18
    ESTATE_SIZES = 6
    N_DECKS = 3
    NO_NUMBER = -1
    BELOW_ALL = -1
    ABOVE_ALL = 18
    EFFECT_FIELDS = 4  # an effect option in C: kind, street, position, number (-1: None)
    MAX_EFFECT_OPTIONS = 2 * MAX_STREETS * MAX_HOUSES  # a bis on either side of every house, at most


# The C codes of the effect kinds with options on the sheet (`effect_code`).
cdef enum:
    NO_EFFECT = -1
    SURVEYOR_EFFECT = 0
    REAL_ESTATE_EFFECT = 1
    LANDSCAPER_EFFECT = 2
    POOL_EFFECT = 3
    BIS_EFFECT = 4


# A completed estate: `size` houses of `street` from `first` on.
cdef struct EstateRun:
    int street
    int first
    int size


cdef class Track:
    cdef int values[MAX_TRACK]
    cdef int length

    cdef int set(self, values, str name) except -1
    cdef int at(self, int index, str name) except? -1


cdef class Layout:
    cdef readonly object data
    cdef int n_streets
    cdef int houses[MAX_STREETS]
    cdef uint64_t pool_houses[MAX_STREETS]
    cdef list park_tracks
    cdef Track pool_track, bis_track, refusal_track, roundabout_track
    cdef list estate_tracks
    cdef int temp_boxes
    cdef int max_bis
    cdef int n_houses
    cdef list _play_rows

    cdef tuple play_rows(self, int offer, int number, bint temp)


cpdef Layout layout_of(data)
cdef int effect_code(kind) except? -2
cdef int offer_fields(offer, int index, int* number, bint* temp) except -1
cdef tuple effect_tuple(const int* fields)


cdef class NativeSheet:
    cdef Layout layout
    cdef signed char numbers[MAX_STREETS][MAX_HOUSES]
    cdef unsigned char plan_use[MAX_STREETS][MAX_HOUSES]
    cdef uint64_t bis[MAX_STREETS]
    cdef uint64_t rounds[MAX_STREETS]
    cdef uint64_t fences[MAX_STREETS]
    cdef uint64_t pools[MAX_STREETS]
    cdef uint64_t fits[MAX_STREETS][N_NUMBERS]
    cdef int parks[MAX_STREETS]
    cdef int real_estate[ESTATE_SIZES]
    cdef int turns[N_DECKS]   # the turn each plan was completed, -1: not yet
    cdef int points[N_DECKS]  # the points each plan scored
    cdef readonly int temps, n_bis, refusals, n_roundabouts
    cdef int filled

    # state
    cdef void _reset(self, Layout layout)
    cdef int _read(self, sheet) except -1
    cdef bint _has_plan_line(self, int street) noexcept
    cpdef NativeSheet copy(self)
    cdef void _refit(self, int street) noexcept
    cdef void _write(self, int street, int house, int number, bint bis) noexcept
    cdef int _check_house(self, int street, int house) except -1
    cdef int _check_deck(self, int deck) except -1

    # plays
    cpdef list legal_plays(self, offers)
    cdef Py_ssize_t _count_plays(self, offers, Py_ssize_t* plain) except -1
    cdef Py_ssize_t _offer_count(self, int number, bint temp, Py_ssize_t* plain) noexcept
    cdef int _offer_play(self, int number, bint temp, Py_ssize_t chosen, int* play) noexcept
    cdef Py_ssize_t _play_fields(self, offers, int64_t* fields) except -1
    cpdef tuple count_plays(self, offers)
    cpdef tuple play_at(self, offers, Py_ssize_t chosen)
    cpdef Py_ssize_t apply_play_at(self, offers, Py_ssize_t chosen) except -1
    cpdef void apply_play(self, play) except *
    cdef void _write_play(self, int street, int house, int number, bint temp) noexcept
    cpdef void refuse(self) noexcept

    # effects, fences, bis, roundabouts
    cpdef list effect_options(self, offer, play)
    cdef int _effect_fields(self, int kind, int street, int house, int* options) noexcept
    cpdef void apply_effect(self, effect) except *
    cdef int _apply_effect_fields(self, const int* effect) except -1
    cdef uint64_t _fence_mask(self, int street) noexcept
    cpdef list fence_options(self)
    cpdef void add_fence(self, int street, int slot) except *
    cpdef list bis_options(self)
    cdef int _bis_fields(self, int* options) noexcept
    cpdef void build_roundabout(self, int street, int house) except *
    cpdef list roundabout_options(self)

    # plans
    cpdef void mark_plan(self, int street, int house, int deck) except *
    cpdef void complete_plan(self, int deck, int turn) except *
    cpdef void set_plan_points(self, int deck, int points) except *
    cpdef int plans_completed(self) noexcept

    # estates and counts
    cdef bint _is_estate(self, int street, int first, int length) noexcept
    cdef bint _unused(self, int street, int first, int length) noexcept
    cdef int _estate_runs(self, bint only_unused, EstateRun* runs) noexcept
    cdef list _estates(self, bint only_unused)
    cpdef list completed_estates(self)
    cpdef list unused_estates(self)
    cpdef list estate_counts(self)
    cpdef bint is_full(self) noexcept
    cdef int _estate_points(self) except? -1
