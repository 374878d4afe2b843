# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True, auto_pickle=False
"""`heuristic` seats of a native game: `HeuristicStrategy`'s decisions on
native sheets, the same floats bit for bit.

The Python strategy (strategies/heuristic.py on greedy.py) judges each
legal write by the move evaluator's terms after it
(`evaluation.MoveEvaluator.after_write`, worked out from the sheet's sums
without copying it), keeps the best few writes and every write that can
build a pool, tries each use of their effects on a copy of the sheet after
the write (a new evaluator there: `after_effect`), and refuses when the
sheet after a refusal is worth more (`sheet_terms` of the whole sheet).
Here the same terms come from the native sheet's C state, with the same
operations in the same order, so every value is the Python one to the last
bit and every tie breaks the same way: `tests/test_native_heuristic.py`
compares whole games, records and traces of values against the Python
strategy.

Every number of the evaluation is worked out as the Python code works it
out: the Python integers (estate values, track boxes, counts) are exact in
doubles, and each float sum is taken in the Python order (sums over
streets street by street, `sum()` from 0, products left to right). What
the Python code remembers (per-run changes, plan-progress memos, street
facts cached on the sheet) only spares work there and is not needed here.

`HeuristicSeats.can_play` says which seats this plays: exactly a
`HeuristicStrategy` with its default parameter names, temperature 0 and no
refusal-risk weight (a `Coverage` term not ported), its methods those of
its source; the game driver (game.pyx) asks it with its other conditions
(base board, no expert rules, plain estate plans).
"""

from libc.math cimport pow
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

import numpy as np

from ..games.welcome_to.data import BIS, LANDSCAPER, MAX_NUMBER, MIN_NUMBER, POOL, REAL_ESTATE, SURVEYOR
from .sheet cimport ESTATE_SIZES, MAX_HOUSES, MAX_STREETS, MAX_TRACK, N_DECKS, N_NUMBERS, NO_NUMBER, NativeSheet

if (MIN_NUMBER, MAX_NUMBER + 1) != (0, N_NUMBERS):
    raise ImportError("welcometo_sim.native.heuristic was written for numbers 0..17")

cdef enum:
    BOUNDS = N_NUMBERS + 1   # a gap's bounds: lo + 1 in 0..18, hi in 0..18
    NO_EFFECT = 0
    FENCE = 1
    ESTATE = 2
    PARK = 3
    POOL_USE = 4
    BIS_USE = 5
    MAX_PLANS = N_DECKS
    GREEDY = 1      # a seat's kind
    HEURISTIC = 2

cdef dict EFFECT_CODES = {SURVEYOR: FENCE, REAL_ESTATE: ESTATE, LANDSCAPER: PARK, POOL: POOL_USE, BIS: BIS_USE}

HEURISTIC_HOOKS = ("choose_play", "choose_effect", "choose_plans", "choose_reshuffle", "choose_roundabout",
                   "ranked_moves", "value", "extras", "evaluate", "_evaluator", "_write_extra", "_play_value",
                   "_extras_of", "_effect_value", "_candidates", "_prepare", "size_bonus", "_pool_gain",
                   "refusal_value", "_best_write", "_best_effect", "_scored_one_at_a_time", "_scores_in_bulk",
                   "_coverage_of")
"""The methods a `heuristic` seat decides with, which the native seat plays as written."""

GREEDY_HOOKS = ("choose_play", "choose_effect", "choose_plans", "choose_reshuffle", "choose_roundabout",
                "ranked_moves", "value", "linear_weights", "evaluate", "_evaluator", "_play_value",
                "_effect_value", "_candidates", "refusal_value", "_best_write", "_best_effect",
                "_scored_one_at_a_time", "_scores_in_bulk", "_candidates_in_bulk", "_best_effects_in_bulk",
                "_options_after_write", "_effect_scores_after_write")
"""The methods a `greedy` seat decides with, which the native seat plays as written."""


# ---------------------------------------------------------------- the data
cdef struct Tables:
    # The game data's tracks and the deck's number windows, in C.
    int n_streets
    int houses[MAX_STREETS]
    uint64_t pool_houses[MAX_STREETS]
    int park[MAX_STREETS][MAX_TRACK]
    int park_length[MAX_STREETS]
    int estate[ESTATE_SIZES][MAX_TRACK]
    int estate_length[ESTATE_SIZES]
    int pool[MAX_TRACK]
    int pool_length
    int bis[MAX_TRACK]
    int roundabout[MAX_TRACK]
    int refusal[MAX_TRACK]
    int max_bis, max_refusals, temp_boxes
    int rank_points[MAX_TRACK]
    int n_rank_points
    double weight_sums[BOUNDS][BOUNDS]  # `streets._weight_sums`: [lo + 1][hi]
    double windows[BOUNDS][BOUNDS]      # `streets.deck_windows`: [lo + 1][hi]


cdef int _copy_track(int* into, values, int limit) except -1:
    if len(values) > limit:
        raise ValueError(f"a track of {len(values)} boxes (at most {limit})")
    for index, value in enumerate(values):
        into[index] = value
    return len(values)


cdef int _read_tables(Tables* t, data) except -1:
    """`data`'s tracks and its deck's number weights, as `streets` works them out."""
    cdef int street, size, lo, hi, n
    cdef double total
    cdef double weights[N_NUMBERS]
    cdef double prefix[N_NUMBERS + 1]
    t.n_streets = len(data.street_houses)
    for street in range(t.n_streets):
        t.houses[street] = data.street_houses[street]
        t.pool_houses[street] = 0
        for house in data.pool_houses[street]:
            t.pool_houses[street] |= (<uint64_t>1) << <int>house
        t.park_length[street] = _copy_track(t.park[street], data.park_tracks[street], MAX_TRACK)
    for size in range(ESTATE_SIZES):
        t.estate_length[size] = _copy_track(t.estate[size], data.real_estate_tracks[size], MAX_TRACK)
    t.pool_length = _copy_track(t.pool, data.pool_track, MAX_TRACK)
    _copy_track(t.bis, data.bis_track, MAX_TRACK)
    _copy_track(t.roundabout, data.roundabout_track, MAX_TRACK)
    _copy_track(t.refusal, data.refusal_track, MAX_TRACK)
    t.n_rank_points = _copy_track(t.rank_points, data.temp_rank_points, MAX_TRACK)
    t.max_bis, t.max_refusals, t.temp_boxes = data.max_bis, data.max_refusals, data.temp_boxes
    counts = [0] * N_NUMBERS
    for number, _effect in data.deck:
        counts[number] += 1
    for n in range(N_NUMBERS):  # `number_weights`
        weights[n] = min(1.0, counts[n] / 4) if counts[n] else 0.25
    prefix[0] = 0.0  # `_prefix_weights`
    for n in range(N_NUMBERS):
        prefix[n + 1] = prefix[n] + weights[n]
    for lo in range(-1, N_NUMBERS):
        for hi in range(N_NUMBERS + 1):
            total = 0.0  # sum(weights[max(lo + 1, 0):min(hi, 18)]), left to right
            for n in range(max(lo + 1, 0), min(hi, N_NUMBERS)):
                total += weights[n]
            t.weight_sums[lo + 1][hi] = total
            low, high = max(lo + 1, 0), min(hi, N_NUMBERS)  # `_window`
            t.windows[lo + 1][hi] = prefix[high] - prefix[low] if high > low else 0.0
    return 0


cdef struct Plans:
    # The game's plans (plain estate lists), and as the decision sees them.
    int n
    int sizes[MAX_PLANS][ESTATE_SIZES]
    int n_sizes[MAX_PLANS]
    int points[MAX_PLANS][2]   # while nobody has it, and after
    bint high[MAX_PLANS]       # the view's `plan_first_turn[d] is None`


cdef int _read_plans(Plans* p, tuple plans) except -1:
    cdef int deck, k
    if len(plans) > MAX_PLANS:
        raise ValueError(f"{len(plans)} plans (at most {MAX_PLANS})")
    p.n = len(plans)
    for deck in range(p.n):
        spec = plans[deck]
        if spec.kind != "estates" or len(spec.estates) > ESTATE_SIZES:
            raise ValueError(f"plan {spec.id} is not a plain list of estates")
        p.n_sizes[deck] = len(spec.estates)
        for k in range(p.n_sizes[deck]):
            p.sizes[deck][k] = spec.estates[k]
        p.points[deck][0], p.points[deck][1] = spec.points[0], spec.points[1]
        p.high[deck] = True
    return 0


cdef double _plan_progress(const Plans* p, NativeSheet sheet, const int* unused) noexcept:
    """`plan_progress_from`: the points in reach on the sheet's unfinished
    plans, from its unused completed estates of each size."""
    cdef double total = 0.0
    cdef int deck, k, have, points
    cdef int remaining[ESTATE_SIZES]
    for deck in range(p.n):
        if sheet.turns[deck] >= 0:
            continue
        memcpy(remaining, unused, sizeof(remaining))
        have = 0
        for k in range(p.n_sizes[deck]):
            if remaining[p.sizes[deck][k] - 1] > 0:
                remaining[p.sizes[deck][k] - 1] -= 1
                have += 1
        points = p.points[deck][0] if p.high[deck] else p.points[deck][1]
        total += <double>(points * have) / p.n_sizes[deck]
    return total


# ------------------------------------------------------------- street facts
cdef struct RunState:
    # `MoveEvaluator._run`: (size index, or -1 when it cannot become an
    # estate; 1 completed, 2 completed and unused, 0 not; its built share
    # when not completed).
    int size
    int done
    double share


cdef struct Gap:
    int first, last, lo, hi
    double flex


cdef struct StreetFacts:
    # One street of a sheet: its fenced runs, its gaps and its features
    # (`streets._street_features`), per estate size index.
    int n_runs
    int run_first[MAX_HOUSES]
    int run_length[MAX_HOUSES]
    int run_of[MAX_HOUSES]     # the run holding each house
    int gap_of[MAX_HOUSES]     # the gap holding each house, -1: none
    int n_gaps
    Gap gaps[MAX_HOUSES]
    int completed[ESTATE_SIZES]
    int unused[ESTATE_SIZES]
    int open[ESTATE_SIZES]
    double partial[ESTATE_SIZES]
    double share[ESTATE_SIZES]
    double flex


cdef inline bint _bit(uint64_t mask, int bit) noexcept:
    return (mask >> bit) & 1


cdef void _street_facts(const Tables* t, NativeSheet sheet, int s, StreetFacts* f) noexcept:
    """The facts of street `s` as it stands (`street_gaps`, `Sheet.runs`, `_street_features`)."""
    cdef int n = t.houses[s], house, first, length, end, k, built, lo, hi, value
    cdef uint64_t rounds = sheet.rounds[s], fences = sheet.fences[s]
    cdef bint used, round_in
    cdef double share, numbers
    for k in range(ESTATE_SIZES):
        f.completed[k] = f.unused[k] = f.open[k] = 0
        f.partial[k] = f.share[k] = 0.0
    # the fenced runs, left to right
    f.n_runs = 0
    first = 0
    for end in range(n):
        if end < n - 1 and not _bit(fences, end):
            continue
        length = end + 1 - first
        f.run_first[f.n_runs], f.run_length[f.n_runs] = first, length
        for house in range(first, end + 1):
            f.run_of[house] = f.n_runs
        f.n_runs += 1
        if length <= ESTATE_SIZES:
            built, used, round_in = 0, False, False
            for house in range(first, end + 1):
                built += sheet.numbers[s][house] != NO_NUMBER
                used = used or sheet.plan_use[s][house] != 0
                round_in = round_in or _bit(rounds, house)
            if built == length:
                f.completed[length - 1] += 1
                if not used:
                    f.unused[length - 1] += 1
            elif not round_in:
                share = <double>built / length
                f.partial[length - 1] += pow(share, 2.0)
                f.open[length - 1] += 1
                f.share[length - 1] += share
        first = end + 1
    # the gaps of empty houses between two written numbers, and the flexibility
    f.n_gaps = 0
    lo, first = -1, -1
    for house in range(n):
        f.gap_of[house] = -1
        value = sheet.numbers[s][house]
        if value == NO_NUMBER and not _bit(rounds, house):
            if first < 0:
                first = house
            continue
        if first >= 0:
            hi = N_NUMBERS if _bit(rounds, house) else value
            if lo + 1 < hi:
                _add_gap(t, f, first, house - first, lo, hi)
            first = -1
        lo = -1 if _bit(rounds, house) else value
    if first >= 0 and lo + 1 < N_NUMBERS:
        _add_gap(t, f, first, n - first, lo, N_NUMBERS)
    f.flex = 0.0
    for k in range(f.n_gaps):
        numbers = t.weight_sums[f.gaps[k].lo + 1][f.gaps[k].hi]
        length = f.gaps[k].last - f.gaps[k].first + 1
        f.flex += length if length < numbers else numbers


cdef void _add_gap(const Tables* t, StreetFacts* f, int first, int length, int lo, int hi) noexcept:
    cdef double window = t.windows[lo + 1][hi]
    cdef Gap* gap = &f.gaps[f.n_gaps]
    gap.first, gap.last, gap.lo, gap.hi = first, first + length - 1, lo, hi
    gap.flex = length if length < window else window  # `gap_value`
    for house in range(first, first + length):
        f.gap_of[house] = f.n_gaps
    f.n_gaps += 1


cdef RunState _run(NativeSheet sheet, int s, int first, int length, int extra) noexcept:
    """`MoveEvaluator._run` of the houses first..first+length-1, counting
    the empty house `extra` (-1: none) as built."""
    cdef RunState state
    cdef int house, built = 0
    cdef bint used = False
    state.size, state.done, state.share = -1, 0, 0.0
    if length > ESTATE_SIZES:
        return state
    for house in range(first, first + length):
        if _bit(sheet.rounds[s], house):
            return state
    for house in range(first, first + length):
        built += sheet.numbers[s][house] != NO_NUMBER
        used = used or sheet.plan_use[s][house] != 0
    if first <= extra < first + length and sheet.numbers[s][extra] == NO_NUMBER:
        built += 1
    state.size = length - 1
    if built == length:
        state.done = 1 if used else 2
    else:
        state.share = <double>built / length
    return state


# -------------------------------------------------------------- the terms
cdef struct Terms:
    double points, potential, flex, progress, board, open_value, share_value


cdef struct Evaluation:
    # `MoveEvaluator` of one sheet: its sums and its streets' facts.
    double values[ESTATE_SIZES]
    double worth[ESTATE_SIZES]
    double other_points, temp_gain, bis_cost, pool_gain
    int completed[ESTATE_SIZES]
    int unused[ESTATE_SIZES]
    int open[ESTATE_SIZES]
    double partial[ESTATE_SIZES]
    double share[ESTATE_SIZES]
    double estates, potential, open_value, share_value, flex, progress
    StreetFacts streets[MAX_STREETS]


cdef int _pools_built(NativeSheet sheet, int n_streets) noexcept:
    cdef int s, count = 0
    cdef uint64_t mask
    for s in range(n_streets):
        mask = sheet.pools[s]
        while mask:
            mask &= mask - 1
            count += 1
    return count


cdef long _points_but_temps(const Tables* t, NativeSheet sheet, int refusals) noexcept:
    """The integer part of `other_points` (and of `points_now` without the
    estates): plans, parks, pools, bis, roundabouts and refusals, in
    that order."""
    cdef long total = 0
    cdef int s, deck
    for deck in range(N_DECKS):
        total += sheet.points[deck]
    for s in range(t.n_streets):
        total += t.park[s][sheet.parks[s]]
    return (total + t.pool[_pools_built(sheet, t.n_streets)] - t.bis[sheet.n_bis]
            - t.roundabout[sheet.n_roundabouts] - t.refusal[refusals])


cdef void _evaluate(Evaluation* e, const Tables* t, const Plans* p, NativeSheet sheet, double temp_value,
                    const double* size_bonus) noexcept:
    """`MoveEvaluator(sheet, plans, first_turn, temp_value, size_bonus)`
    (`size_bonus` NULL: None): `_setup` and `_sum_streets`."""
    cdef int k, s, pools = _pools_built(sheet, t.n_streets)
    for k in range(ESTATE_SIZES):
        e.values[k] = t.estate[k][sheet.real_estate[k]]
        e.worth[k] = e.values[k] if size_bonus == NULL else e.values[k] + size_bonus[k]
    e.other_points = <double>_points_but_temps(t, sheet, sheet.refusals) + temp_value * sheet.temps
    e.temp_gain = temp_value * <double>(sheet.temps < t.temp_boxes)
    e.bis_cost = t.bis[min(sheet.n_bis + 1, t.max_bis)] - t.bis[sheet.n_bis]
    e.pool_gain = t.pool[min(pools + 1, t.pool_length - 1)] - t.pool[pools]
    for s in range(t.n_streets):
        _street_facts(t, sheet, s, &e.streets[s])
    # the streets' counts summed element by element, street after street
    for k in range(ESTATE_SIZES):
        e.completed[k], e.unused[k], e.open[k] = \
            e.streets[0].completed[k], e.streets[0].unused[k], e.streets[0].open[k]
        e.partial[k], e.share[k] = e.streets[0].partial[k], e.streets[0].share[k]
        for s in range(1, t.n_streets):
            e.completed[k] += e.streets[s].completed[k]
            e.unused[k] += e.streets[s].unused[k]
            e.open[k] += e.streets[s].open[k]
            e.partial[k] = e.partial[k] + e.streets[s].partial[k]
            e.share[k] = e.share[k] + e.streets[s].share[k]
    e.estates = e.potential = e.open_value = e.share_value = 0.0
    for k in range(ESTATE_SIZES):
        e.estates += e.completed[k] * e.values[k]
    for k in range(ESTATE_SIZES):
        e.potential += e.partial[k] * e.values[k]
    for k in range(ESTATE_SIZES):
        e.open_value += e.open[k] * e.worth[k]
    for k in range(ESTATE_SIZES):
        e.share_value += e.share[k] * e.worth[k]
    e.flex = 0.0
    for s in range(t.n_streets):
        e.flex += e.streets[s].flex
    e.progress = _plan_progress(p, sheet, e.unused)


cdef struct Change:
    double estates, potential, progress, open_value, share_value


cdef Change _change(const Evaluation* e, const Plans* p, NativeSheet sheet, RunState old, RunState new,
                    RunState other_new) noexcept:
    """`MoveEvaluator._change`: the sums after run `old` becomes `new` (and `other_new`)."""
    cdef Change c
    cdef RunState states[3]
    cdef int unused_change[ESTATE_SIZES]
    cdef int k, sign
    cdef bint changed = False
    cdef double value
    states[0], states[1], states[2] = old, new, other_new
    c.estates, c.potential, c.open_value, c.share_value = e.estates, e.potential, e.open_value, e.share_value
    for k in range(ESTATE_SIZES):
        unused_change[k] = 0
    for k in range(3):
        sign = -1 if k == 0 else 1
        if states[k].size < 0:
            continue
        value = e.values[states[k].size]
        if states[k].done:
            c.estates += sign * value
            if states[k].done == 2:
                unused_change[states[k].size] += sign
        else:
            c.potential += <double>sign * states[k].share * states[k].share * value
            c.open_value += sign * e.worth[states[k].size]
            c.share_value += <double>sign * states[k].share * e.worth[states[k].size]
    for k in range(ESTATE_SIZES):
        changed = changed or unused_change[k] != 0
    if not changed:
        c.progress = e.progress
        return c
    for k in range(ESTATE_SIZES):
        unused_change[k] += e.unused[k]
    c.progress = _plan_progress(p, sheet, unused_change)
    return c


cdef Terms _after_write(const Evaluation* e, const Tables* t, const Plans* p, NativeSheet sheet, int s, int house,
                        int number, bint bis, bint temp) noexcept:
    """`MoveEvaluator.after_write` (and `_write_sums`)."""
    cdef const StreetFacts* f = &e.streets[s]
    cdef int run = f.run_of[house], first = f.run_first[run], length = f.run_length[run]
    cdef RunState no_run
    no_run.size, no_run.done, no_run.share = -1, 0, 0.0
    cdef Change c = _change(e, p, sheet, _run(sheet, s, first, length, -1), _run(sheet, s, first, length, house),
                            no_run)
    cdef double points = (e.temp_gain if temp else 0.0) - (e.bis_cost if bis else 0.0)
    cdef double flex = e.flex, left_window, right_window, left, right
    cdef const Gap* gap
    if f.gap_of[house] >= 0:
        gap = &f.gaps[f.gap_of[house]]
        left, left_window = house - gap.first, t.windows[gap.lo + 1][number]
        right, right_window = gap.last - house, t.windows[number + 1][gap.hi]
        flex += (((left if left < left_window else left_window) + (right if right < right_window else right_window))
                 - gap.flex)
    cdef Terms terms
    terms.points = (e.other_points + points) + c.estates
    terms.potential, terms.flex, terms.progress, terms.board = c.potential, flex, c.progress, 0.0
    terms.open_value, terms.share_value = c.open_value, c.share_value
    return terms


cdef Terms _shifted(const Evaluation* e, double points, double estates, double potential, double open_value,
                    double share_value) noexcept:
    """`MoveEvaluator._terms`."""
    cdef Terms terms
    terms.points = (e.other_points + points) + estates
    terms.potential, terms.flex, terms.progress, terms.board = potential, e.flex, e.progress, 0.0
    terms.open_value, terms.share_value = open_value, share_value
    return terms


cdef Terms _after_effect(const Evaluation* e, const Tables* t, const Plans* p, NativeSheet sheet, int kind,
                         int street, int position, int number) noexcept:
    """`MoveEvaluator.after_effect` of one effect use (kind, street, position, number)."""
    cdef const StreetFacts* f
    cdef int run, first, length, left, crossed, gain, index
    cdef Change c
    cdef Terms terms
    if kind == FENCE:  # `after_fence`: the run at the slot splits in two
        f = &e.streets[street]
        run = f.run_of[position]
        first, length = f.run_first[run], f.run_length[run]
        left = position - first + 1
        c = _change(e, p, sheet, _run(sheet, street, first, length, -1), _run(sheet, street, first, left, -1),
                    _run(sheet, street, first + left, length - left, -1))
        terms.points = (e.other_points + 0.0) + c.estates
        terms.potential, terms.flex, terms.progress, terms.board = c.potential, e.flex, c.progress, 0.0
        terms.open_value, terms.share_value = c.open_value, c.share_value
        return terms
    if kind == BIS_USE:
        return _after_write(e, t, p, sheet, street, position, number, True, False)
    if kind == ESTATE:  # `after_real_estate`
        index = position - 1
        gain = t.estate[index][sheet.real_estate[index] + 1] - t.estate[index][sheet.real_estate[index]]
        return _shifted(e, 0.0, e.estates + gain * e.completed[index], e.potential + gain * e.partial[index],
                        e.open_value + gain * e.open[index], e.share_value + gain * e.share[index])
    if kind == PARK:  # `after_landscaper`
        crossed = sheet.parks[street]
        return _shifted(e, t.park[street][crossed + 1] - t.park[street][crossed], e.estates, e.potential,
                        e.open_value, e.share_value)
    return _shifted(e, e.pool_gain, e.estates, e.potential, e.open_value, e.share_value)  # `after_pool`


cdef void _count_run(Evaluation* e, RunState run, int sign) noexcept:
    """`fences.count_run`: one run's state added to (1) or taken from (-1) the per-size counts."""
    if run.size < 0:
        return
    if run.done:
        e.completed[run.size] += sign
        if run.done == 2:
            e.unused[run.size] += sign
    else:
        e.partial[run.size] += <double>sign * run.share * run.share
        e.open[run.size] += sign
        e.share[run.size] += <double>sign * run.share


cdef void _derive(Evaluation* d, const Evaluation* e, const Tables* t, const Plans* p, NativeSheet sheet,
                  NativeSheet after, int s, int house, int number) noexcept:
    """`MoveEvaluator.after_write_evaluator`: the evaluation `e` of `sheet`
    carried over to `after`, the sheet once `number` is written in the empty
    `house` of street `s`: its sums are `e`'s plus the write's change (not
    summed again), its counts `_counts_after_write`, and the written
    street's runs and gaps those of `after`."""
    memcpy(d, e, sizeof(Evaluation))
    cdef const StreetFacts* f = &e.streets[s]
    cdef int run = f.run_of[house]
    cdef RunState no_run, old = _run(sheet, s, f.run_first[run], f.run_length[run], -1)
    cdef RunState new = _run(sheet, s, f.run_first[run], f.run_length[run], house)
    no_run.size, no_run.done, no_run.share = -1, 0, 0.0
    cdef Change c = _change(e, p, sheet, old, new, no_run)
    d.estates, d.potential, d.progress, d.open_value, d.share_value = \
        c.estates, c.potential, c.progress, c.open_value, c.share_value
    d.flex = _after_write(e, t, p, sheet, s, house, number, False, False).flex
    _count_run(d, old, -1)
    _count_run(d, new, 1)
    _street_facts(t, after, s, &d.streets[s])


cdef Terms _sheet_terms(const Evaluation* e, const Tables* t, const Plans* p, NativeSheet sheet, double temp_value,
                        int refusals) noexcept:
    """`sheet_terms` of the sheet `e` was made of, with `refusals` refusals
    (a refusal judged: `refused`), its sums in `sheet_terms`'s order (estate
    sizes worth `e.worth`: their values plus the evaluator's size bonus)."""
    cdef Terms terms
    cdef int s, k
    cdef long estates = 0
    cdef double inner, share
    cdef int unused[ESTATE_SIZES]
    cdef const StreetFacts* f
    for s in range(t.n_streets):
        f = &e.streets[s]
        for k in range(ESTATE_SIZES):
            estates += f.completed[k] * <long>e.values[k]
    terms.points = <double>(_points_but_temps(t, sheet, refusals) + estates) + temp_value * sheet.temps
    terms.potential = terms.flex = terms.open_value = terms.share_value = 0.0
    for s in range(t.n_streets):
        inner = 0.0
        for k in range(ESTATE_SIZES):
            inner += e.streets[s].partial[k] * e.values[k]
        terms.potential += inner
    for s in range(t.n_streets):
        terms.flex += e.streets[s].flex
    for k in range(ESTATE_SIZES):
        unused[k] = 0
        for s in range(t.n_streets):
            unused[k] += e.streets[s].unused[k]
    terms.progress = _plan_progress(p, sheet, unused)
    terms.board = 0.0
    for s in range(t.n_streets):  # each sum in its own order: a street's sizes, then the streets
        inner = share = 0.0
        for k in range(ESTATE_SIZES):
            inner += e.streets[s].open[k] * e.worth[k]
            share += e.streets[s].share[k] * e.worth[k]
        terms.open_value += inner
        terms.share_value += share
    return terms


# ------------------------------------------------------------- the outlook
cdef double _park_potential(const Tables* t, NativeSheet sheet) noexcept:
    """`outlook.park_potential`."""
    cdef double total = 0.0
    cdef int s, n, crossed
    for s in range(t.n_streets):
        n, crossed = t.park_length[s], sheet.parks[s]
        total += <double>(t.park[s][n - 1] * crossed) / (n - 1) - t.park[s][crossed]
    return total


cdef double _park_potential_gain(const Tables* t, NativeSheet sheet, int s) noexcept:
    """`outlook.park_potential_gain`."""
    cdef int n = t.park_length[s], crossed = sheet.parks[s]
    if crossed + 1 >= n:
        return 0.0
    return <double>t.park[s][n - 1] / (n - 1) - (t.park[s][crossed + 1] - t.park[s][crossed])


cdef inline bint _pool_chance(const Tables* t, NativeSheet sheet, int s, int house) noexcept:
    """`outlook.is_pool_chance`: an empty pool house (not a roundabout)."""
    return _bit(t.pool_houses[s], house) and sheet.numbers[s][house] == NO_NUMBER and not _bit(sheet.rounds[s], house)


cdef int _pool_chances(const Tables* t, NativeSheet sheet) noexcept:
    """`outlook.pool_chances`."""
    cdef int s, house, count = 0
    for s in range(t.n_streets):
        for house in range(t.houses[s]):
            if _pool_chance(t, sheet, s, house):
                count += 1
    return count


cdef int _temp_points(const Tables* t, const int* counts, int n, int seat) noexcept:
    """`scoring.temp_points(counts, rank_points, solo=False)[seat]`: the points
    of the seat's count's rank among the distinct counts above 0."""
    cdef int i, j, higher = 0
    cdef bint seen
    if counts[seat] <= 0:
        return 0
    for i in range(n):  # the distinct counts above the seat's, each once
        if counts[i] <= counts[seat]:
            continue
        seen = False
        for j in range(i):
            seen = seen or counts[j] == counts[i]
        higher += not seen
    return t.rank_points[higher] if higher < t.n_rank_points else 0


cdef tuple _written_copy(NativeSheet sheet, list offers, tuple play):
    """(a copy of `sheet` once `play` is written, the uses of its offer's
    effect there): no copy and no uses for a temp play, whose effect is
    decided with the play."""
    if play[4]:
        return None, []
    cdef NativeSheet after = sheet.copy()
    after.apply_play(play)
    return after, after.effect_options(offers[play[0]], play)


cdef int _option_fields(tuple option, int* kind, int* street, int* position, int* number) except -1:
    """An effect use's fields as C numbers (-1 where it has none)."""
    kind[0] = EFFECT_CODES[option[0]]
    street[0] = -1 if option[1] is None else option[1]
    position[0] = -1 if option[2] is None else option[2]
    number[0] = -1 if option[3] is None else option[3]
    return 0


# ---------------------------------------------------------------- the seats
cdef struct Move:
    double value
    int order       # the play's index among the plays, then the candidate's rank
    int play        # index among the plays
    int effect      # index among the effect options after the play, -1: none


cdef class HeuristicSeats:
    """The `heuristic` seats of one native game, each with its parameters,
    deciding as `HeuristicStrategy` does at temperature 0 (see the module's
    docstring). `begin_turn` takes what the views of the turn hold; each
    `choose_*` is one question of the Python game to one seat."""

    cdef Tables tables
    cdef Plans plans
    cdef list params          # each seat's parameters (None: not a seat of these)
    cdef list kinds           # each seat's kind: GREEDY, HEURISTIC or 0
    cdef bint greedy          # the seat deciding now is a `greedy` one
    cdef Evaluation* now
    cdef Evaluation* after
    cdef object now_block, after_block
    # the view of the turn
    cdef int turn, n_players, cards_left
    cdef bint solo
    cdef int public_temps[16]
    cdef int public_refusals[16]
    # the seat's context (`_prepare`)
    cdef double temp_value, later, flex_cap, pool_worth
    cdef double size_bonus[ESTATE_SIZES]
    cdef bint has_bonus
    cdef double w_points, w_temp, w_race, w_potential, w_flex, w_progress, w_board, w_park, w_pool, w_open
    cdef double w_share, commitment, horizon, urgency_turns, flex_margin
    cdef Py_ssize_t shortlist

    def __init__(self, state, strategies, list kinds):
        data = state.variant.data
        _read_tables(&self.tables, data)
        _read_plans(&self.plans, tuple(state.plans))
        if state.n_players > 16:
            raise ValueError("at most 16 seats")
        self.n_players, self.solo = state.n_players, state.variant.solo
        self.kinds = kinds
        self.params = [strategy.params if kind else None for strategy, kind in zip(strategies, kinds)]
        # two working evaluations, in blocks numpy keeps
        self.now_block = np.zeros(sizeof(Evaluation), dtype=np.uint8)
        self.after_block = np.zeros(sizeof(Evaluation), dtype=np.uint8)
        cdef unsigned char[::1] now = self.now_block, after = self.after_block
        self.now, self.after = <Evaluation*>&now[0], <Evaluation*>&after[0]

    def begin_turn(self, list sheets, list first_turn, int turn, int cards_left):
        """What the views of the turn hold: its number, the seats' public
        temps and refusals as it began, the plans' status and the cards left."""
        cdef NativeSheet sheet
        cdef int seat, deck
        self.turn, self.cards_left = turn, cards_left
        for seat in range(self.n_players):
            sheet = sheets[seat]
            self.public_temps[seat], self.public_refusals[seat] = sheet.temps, sheet.refusals
        for deck in range(self.plans.n):
            self.plans.high[deck] = first_turn[deck] is None

    cdef int _prepare(self, NativeSheet sheet, int seat) except -1:
        """`HeuristicStrategy._prepare` for one seat's decision (a `greedy`
        seat: its weights, its temp value)."""
        params = self.params[seat]
        w = params["weights"]
        self.greedy = self.kinds[seat] == GREEDY
        if self.greedy:
            self.w_points, self.w_temp, self.w_potential = w["points"], w["temp"], w["estate_potential"]
            self.w_flex, self.w_progress, self.w_board = w["flexibility"], w["plan_progress"], w["board"]
            self.shortlist = params["shortlist"]
            self.temp_value, self.has_bonus = self.w_temp, False
            return 0
        self.w_points, self.w_temp, self.w_race = w["points"], w["temp"], w["temp_race"]
        self.w_potential, self.w_flex, self.w_progress = w["estate_potential"], w["flexibility"], w["plan_progress"]
        self.w_board, self.w_park, self.w_pool = w["board"], w["park_potential"], w["pool_chance"]
        self.w_open, self.w_share = w["open_estates"], w["built_share"]
        self.commitment, self.horizon = params["plan_commitment"], params["horizon"]
        self.urgency_turns, self.flex_margin = params["urgency_turns"], params["flex_margin"]
        self.shortlist = params["shortlist"]
        cdef Tables* t = &self.tables
        cdef int counts[17]
        cdef int i, n = 0, worst = 0, deck, k, pools, points, before
        cdef double race = 0.0, left
        if not self.solo:
            counts[0] = sheet.temps
            n = 1
            for i in range(self.n_players):
                if i != seat:
                    counts[n] = self.public_temps[i]
                    n += 1
            if n > 1:
                before = _temp_points(t, counts, n, 0)
                counts[0] += 1
                race = _temp_points(t, counts, n, 0) - before
        self.temp_value = self.w_temp + (0.0 if self.solo else self.w_race * race)
        # `turns_left`
        left = max(1.0, self.horizon - self.turn)
        for i in range(self.n_players):
            worst = max(worst, self.public_refusals[i])
        if worst >= t.max_refusals - 1:
            left = min(left, 4.0)
        elif worst >= t.max_refusals - 2:
            left = min(left, 10.0)
        if self.solo:
            left = max(1.0, min(left, <double>(self.cards_left // 3 + 1)))
        self.later = 1.0 if left >= self.urgency_turns else max(0.0, left / self.urgency_turns)
        self.flex_cap = left + self.flex_margin
        pools = _pools_built(sheet, t.n_streets)
        self.pool_worth = t.pool[min(pools + 1, t.pool_length - 1)] - t.pool[pools]
        self.has_bonus = self.commitment != 0  # `plan_size_bonus`
        for k in range(ESTATE_SIZES):
            self.size_bonus[k] = 0.0
        if self.has_bonus:
            for deck in range(self.plans.n):
                if sheet.turns[deck] >= 0:
                    continue
                points = self.plans.points[deck][0] if self.plans.high[deck] else self.plans.points[deck][1]
                for k in range(self.plans.n_sizes[deck]):
                    self.size_bonus[self.plans.sizes[deck][k] - 1] += \
                        self.commitment * points / self.plans.n_sizes[deck]
        return 0

    cdef inline const double* _bonus(self) noexcept:
        return self.size_bonus if self.has_bonus else NULL

    cdef double _value(self, Terms terms) noexcept:
        """`HeuristicStrategy.value`, or `GreedyStrategy.value` for a greedy seat."""
        if self.greedy:
            return (self.w_points * terms.points + self.w_potential * terms.potential + self.w_flex * terms.flex
                    + self.w_progress * terms.progress + self.w_board * terms.board)
        cdef double flex = terms.flex if not (self.flex_cap < terms.flex) else self.flex_cap
        return (self.w_points * terms.points
                + self.later * (self.w_potential * terms.potential + self.w_progress * terms.progress
                                + self.w_open * terms.open_value + self.w_share * terms.share_value)
                + self.w_flex * flex
                + self.w_board * terms.board)

    cdef double _extras(self, NativeSheet sheet) noexcept:
        """`HeuristicStrategy.extras` (no refusal-risk weight)."""
        return self.later * (self.w_park * _park_potential(&self.tables, sheet)
                             + self.w_pool * self.pool_worth * _pool_chances(&self.tables, sheet) / 3)

    cdef double _write_extra(self, NativeSheet sheet, int s, int house) noexcept:
        """`HeuristicStrategy._write_extra` (no refusal-risk weight)."""
        if not _pool_chance(&self.tables, sheet, s, house):
            return 0.0
        return 0.0 - self.later * self.w_pool * self.pool_worth / 3

    cdef double _whole_value(self, NativeSheet sheet, int refusals) except? -1.0:
        """`HeuristicStrategy.evaluate` (`GreedyStrategy.evaluate` for a greedy
        seat) of the sheet with `refusals` refusals."""
        _evaluate(self.after, &self.tables, &self.plans, sheet, self.temp_value, self._bonus())
        terms = _sheet_terms(self.after, &self.tables, &self.plans, sheet, self.temp_value, refusals)
        if self.greedy:
            return self._value(terms)
        return self._value(terms) + self._extras(sheet)

    # ------------------------------------------------------------ questions
    def choose_roundabout(self, NativeSheet sheet, int seat, list offers, Py_ssize_t plain):
        """`GreedyStrategy.choose_roundabout`: none while a write without the
        temp agency fits (`plain` of them), else the empty house whose
        roundabout allows the best such write, when it beats a refusal."""
        if plain > 0:
            return None
        self._prepare(sheet, seat)
        cdef NativeSheet trial
        best_value = self._whole_value(sheet, min(sheet.refusals + 1, self.tables.max_refusals))
        best_house = None
        for house in sheet.roundabout_options():
            trial = sheet.copy()
            trial.build_roundabout(house[0], house[1])
            value = self._best_write(trial, offers)
            if value is not None and value > best_value:
                best_value, best_house = value, house
        return best_house

    cdef object _best_write(self, NativeSheet sheet, list offers):
        """`GreedyStrategy._best_write`: the value of the best write without
        the temp agency, None when none fits."""
        cdef NativeSheet after
        best = None
        for play in sheet.legal_plays(offers):
            if play[4]:
                continue
            after = sheet.copy()
            after.apply_play(play)
            value = self._whole_value(after, after.refusals)
            best = value if best is None or value > best else best
        return best

    def choose_play(self, NativeSheet sheet, int seat, list offers):
        """`GreedyStrategy.choose_play` at temperature 0, with the heuristic's
        evaluation, for a sheet with at least one legal play: (the play, or
        None for a refusal; the effect use planned, or None)."""
        cdef Py_ssize_t plain, count = sheet._count_plays(offers, &plain), i
        self._prepare(sheet, seat)
        fields_array = np.zeros(5 * count + 5, dtype=np.int64)
        cdef int64_t[::1] fields = fields_array
        sheet._play_fields(offers, &fields[0])
        cdef Tables* t = &self.tables
        _evaluate(self.now, t, &self.plans, sheet, self.temp_value, self._bonus())
        cdef double extras = 0.0 if self.greedy else self._extras(sheet)
        moves = []
        for i in range(count):
            value = self._value(_after_write(self.now, t, &self.plans, sheet, fields[5 * i + 1], fields[5 * i + 2],
                                             fields[5 * i + 3], False, fields[5 * i + 4] != 0))
            if not self.greedy:
                value = value + extras + self._write_extra(sheet, fields[5 * i + 1], fields[5 * i + 2])
            moves.append((value, -i))
        moves.sort(reverse=True)  # by value, then in play order (greedy's stable sort by value alone)
        candidates = moves[:self.shortlist]
        for value, order in (() if self.greedy else moves[self.shortlist:]):
            i = -order
            if not fields[5 * i + 4] and offers[fields[5 * i]][1] == POOL \
                    and _pool_chance(t, sheet, fields[5 * i + 1], fields[5 * i + 2]):
                candidates.append((value, order))
        best_value, best_play, best_effect = None, None, None
        for value, order in candidates:
            i = -order
            play = (fields[5 * i], fields[5 * i + 1], fields[5 * i + 2], fields[5 * i + 3], fields[5 * i + 4] != 0)
            if self.greedy:
                effect, value = self._greedy_effect(sheet, offers, play, value)
            else:
                effect, value = self._best_effect(sheet, offers, play, value)
            if best_value is None or value > best_value:
                best_value, best_play, best_effect = value, play, effect
        if plain == 0 and (best_play is None or self._whole_value(
                sheet, min(sheet.refusals + 1, self.tables.max_refusals)) > best_value):
            return None, None
        return best_play, best_effect

    cdef tuple _best_effect(self, NativeSheet sheet, list offers, tuple play, double value):
        """`GreedyStrategy._best_effect` with the heuristic's `_effect_value`:
        (the effect use that judges best after the play, or None; its value)."""
        cdef NativeSheet after
        after, options = _written_copy(sheet, offers, play)
        if not options:
            return None, value
        cdef Tables* t = &self.tables
        _evaluate(self.after, t, &self.plans, after, self.temp_value, self._bonus())
        cdef double extras = self._extras(after), extra, judged
        cdef int kind, street, position, number
        best = None
        for option in options:
            _option_fields(option, &kind, &street, &position, &number)
            extra = extras
            if kind == PARK:
                extra += self.later * self.w_park * _park_potential_gain(t, after, street)
            elif kind == BIS_USE:
                extra += self._write_extra(after, street, position)
            judged = self._value(_after_effect(self.after, t, &self.plans, after, kind, street, position, number)) \
                + extra
            if judged > value:
                best, value = option, judged
        return best, value

    cdef tuple _greedy_effect(self, NativeSheet sheet, list offers, tuple play, double value):
        """`GreedyStrategy._best_effects_in_bulk` of one candidate: each use of
        its effect judged on the evaluation carried over from the sheet's
        (`_derive`, as `after_write_evaluator`, and the shifting effects'
        scores, which equal it), the first of the best kept when it beats
        the write alone."""
        cdef NativeSheet after
        after, options = _written_copy(sheet, offers, play)
        if not options:
            return None, value
        cdef Tables* t = &self.tables
        _derive(self.after, self.now, t, &self.plans, sheet, after, play[1], play[2], play[3])
        cdef double judged, top = 0.0
        cdef int kind, street, position, number
        best = None
        for option in options:
            _option_fields(option, &kind, &street, &position, &number)
            judged = self._value(_after_effect(self.after, t, &self.plans, after, kind, street, position, number))
            if best is None or judged > top:
                best, top = option, judged
        if top > value:
            return best, top
        return None, value
