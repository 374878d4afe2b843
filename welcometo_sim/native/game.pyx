# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Whole games of built-in `random` and `learned` seats, played on native sheets.

`play` takes a game just set up by `GameState` (plans drawn, deck
shuffled: the game's generator has made the same draws as for the Python
game) and plays it from the first deal to the end, as `Game.play` would
with every seat a `RandomStrategy` of default parameters or a
`LearnedStrategy` at temperature 0, with or without lookahead (its family's
shipped model, a weights file or a model handed over, and a learning
seat's trace): the same decisions in the same order, over the same options
(the native sheet lists options in the Python order), with the same draws
from the seats' generators. The standard game's deck stays the Python card
source (a few calls a turn); the solo pile, made and shuffled by
`SoloDeck`, is drawn from here. At the end the sheets go back to the state
as Python sheets, so that `GameState.result` gives the same result and
record as the Python game; `play` also returns their scores and rank keys,
worked out on the native sheets, which `Game.play` hands to
`GameState.scored_result` instead of scoring the Python sheets again.

A `random` seat draws each pick from its own generator at the same
position of its stream as the strategy, in blocks of `DRAWS_PER_BLOCK`
(`SeatDraws`); its plays and effect options are counted, picked and
applied in C from the turn's offers read into C once (`Offers`; in solo
straight from the three cards revealed, `CardFields`), so that no Python
offer, play or effect is made unless the game is recorded. A `learned` seat draws nothing (nor does the Python one at
temperature 0): each of its decisions is the native decision's
(welcometo_sim/native/decision.pyx, `Decider.native_choice`, the same
candidates and values bit for bit as `Evaluator.values` gives the Python
seat), made from the sheet's C state written as a sheet image, its legal
plays listed by the sheet as C numbers, and the context the Python seat's
view gives (`LearnedSeats`): no Python sheet, view or play list is made.
The advanced variant's roundabouts are played too: a learned seat probes
each empty house only when no offer fits its sheet, as the strategy does.

A solo game of one plain `random` seat is played from its seed alone
(`play_seeded_solo`): the game's and the seat's generators are numpy's
PCG64, stepped in C (`wtsim_pcg64`), with numpy's bounded draws and list
shuffle, so the plans, the pile and the picks are those `GameState` and
the strategy would draw, and no Python state, generator or strategy is
made: in such a game the set-up cost as much as the play.

`can_play` says which games this driver plays; `games/welcome_to/game.py`
asks it before handing a game over, and plays every other game in Python:
other strategies or parameters, a strategy whose methods are not its
source's, expert rules, thematic boards, plans that are not plain estate
lists.

The sheets are typed `NativeSheet`s (cimported from sheet.pxd), so every
move, option list and count is a C call on the sheet, and the plans a seat
completes are found in C on the sheet's estates (`EstatePlans`), with the
same claims, in the same order, as `plans.claim_options`, `complete_all`
and `checked_claim` give the Python game (every built-in completes its
plans so).
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int64_t, uint32_t, uint64_t

import os
from pathlib import Path

import numpy as np

from ..games.welcome_to.cards import SoloDeck, _pair_grids
from ..games.welcome_to.data import SOLO_CARD

cdef Py_ssize_t SOLO_CARD_ID = SOLO_CARD
from ..games.welcome_to.effects import TEMP, effect
from ..games.welcome_to.game import end_reasons, solo_card_came_up
from ..games.welcome_to.plans import MAX_CLAIM_OPTIONS
from ..games.welcome_to.scoring import temp_points
from ..strategies.random import DRAWS_PER_BLOCK, RandomStrategy
from .sheet cimport (EFFECT_FIELDS, ESTATE_SIZES, MAX_EFFECT_OPTIONS, MAX_ESTATES, N_DECKS, EstateRun,
                     NativeSheet, effect_code, effect_tuple, offer_fields)

ctypedef int64_t i64

cdef Py_ssize_t BLOCK = DRAWS_PER_BLOCK

cdef enum:
    MAX_OFFERS = 8  # a turn's offers: 3 in the standard game, 6 in solo


# A turn's offers in C, read once for every `random` seat's decisions: each
# offer's number, whether it brings the temp agency, and its effect's C code
# (`sheet.effect_code`).
cdef struct Offers:
    int n
    Py_ssize_t plays[MAX_OFFERS]  # each offer's plays on the sheet `_count_plays` last counted
    int number[MAX_OFFERS]
    bint temp[MAX_OFFERS]
    int effect[MAX_OFFERS]
cdef tuple SOLO_GRIDS = _pair_grids(3)
"""The solo offers' (number card, effect card) pairs, in `pair_offers` order, with their offer grids."""
cdef int SOLO_NUMBER_FROM[6]
cdef int SOLO_EFFECT_FROM[6]
for _index, (_number_from, _effect_from, _grid) in enumerate(SOLO_GRIDS):
    SOLO_NUMBER_FROM[_index], SOLO_EFFECT_FROM[_index] = _number_from, _effect_from
cdef int CLAIM_OPTIONS = MAX_CLAIM_OPTIONS

evaluator_module = learned_module = LearnedStrategy = Evaluator = candidate_of = load_model = shipped_path = None
shipped_family = next_turn_cards = next_counts = None
HeuristicStrategy = GreedyStrategy = heuristic_module = None
NO_USE = 0
"""What learned seats are played with (`learning.evaluator` and
`strategies.learned`), imported by `_load_learned` when a game first has a
learned seat: games of random seats never load them."""


cdef int _load_learned() except -1:
    global evaluator_module, learned_module, LearnedStrategy, Evaluator, candidate_of, load_model, shipped_path
    global NO_USE, shipped_family, next_turn_cards, next_counts
    if LearnedStrategy is None:
        from ..learning.features import next_counts
        from ..learning import evaluator as evaluator_module
        from ..learning.evaluator import NO_USE, Evaluator, candidate_of
        from ..strategies import learned as learned_module
        from ..learning.search import next_turn_cards
        from ..strategies.learned import LearnedStrategy, load_model, shipped_family, shipped_path
    return 0


cdef int _load_heuristic() except -1:
    global HeuristicStrategy, GreedyStrategy, heuristic_module
    if HeuristicStrategy is None:
        from ..strategies.greedy import GreedyStrategy
        from ..strategies.heuristic import HeuristicStrategy
        from . import heuristic as heuristic_module
    return 0


cdef extern from *:
    """
    /* numpy's bitgen_t (numpy/random/bitgen.h), the C face of every BitGenerator. */
    typedef struct {
        void *state;
        uint64_t (*next_uint64)(void *st);
        uint32_t (*next_uint32)(void *st);
        double (*next_double)(void *st);
        uint64_t (*next_raw)(void *st);
    } wtsim_bitgen_t;
    """
    ctypedef struct wtsim_bitgen_t:
        void* state
        double (*next_double)(void* st) noexcept nogil


cdef extern from *:
    """
    /* numpy's PCG64 (numpy/random/src/pcg64: XSL-RR output of a 128-bit LCG
       with numpy's multiplier), seeded as `PCG64(seed_sequence)` seeds it
       from `generate_state(4, np.uint64)`, and the draws a fresh solo game
       makes of it as numpy makes them: `next_uint32` (the low half of a
       64-bit draw, then the high half), `Generator.integers` (Lemire's
       bounded draw on 32 bits), `Generator.shuffle` of a list
       (`random_interval`: masked rejection) and `Generator.random`. */
    typedef struct {
        __uint128_t state, inc;
        int has_uint32;
        uint32_t uinteger;
    } wtsim_pcg64;

    static inline uint64_t wtsim_pcg64_next64(wtsim_pcg64 *rng) {
        const __uint128_t mult = (((__uint128_t)2549297995355413924ULL) << 64) | 4865540595714422341ULL;
        rng->state = rng->state * mult + rng->inc;
        uint64_t high = (uint64_t)(rng->state >> 64), mixed = high ^ (uint64_t)rng->state;
        unsigned rot = (unsigned)(high >> 58);
        return (mixed >> rot) | (mixed << ((-rot) & 63));
    }

    static inline void wtsim_pcg64_seed(wtsim_pcg64 *rng, uint64_t state_high, uint64_t state_low,
                                        uint64_t inc_high, uint64_t inc_low) {
        rng->state = 0;
        rng->inc = (((((__uint128_t)inc_high) << 64) | inc_low) << 1) | 1;
        wtsim_pcg64_next64(rng);
        rng->state += (((__uint128_t)state_high) << 64) | state_low;
        wtsim_pcg64_next64(rng);
        rng->has_uint32 = 0;
        rng->uinteger = 0;
    }

    static inline uint32_t wtsim_pcg64_next32(wtsim_pcg64 *rng) {
        uint64_t next;
        if (rng->has_uint32) {
            rng->has_uint32 = 0;
            return rng->uinteger;
        }
        next = wtsim_pcg64_next64(rng);
        rng->has_uint32 = 1;
        rng->uinteger = (uint32_t)(next >> 32);
        return (uint32_t)(next & 0xffffffffULL);
    }

    static double wtsim_pcg64_next_double(void *rng) {
        return (wtsim_pcg64_next64((wtsim_pcg64 *)rng) >> 11) * (1.0 / 9007199254740992.0);
    }

    /* `Generator.integers(low, high)` below 2**32 apart (high excluded). */
    static inline int64_t wtsim_pcg64_integers(wtsim_pcg64 *rng, int64_t low, int64_t high) {
        uint32_t range = (uint32_t)(high - 1 - low), range_excl = range + 1, leftover, threshold;
        uint64_t m;
        if (range == 0)
            return low;
        m = ((uint64_t)wtsim_pcg64_next32(rng)) * range_excl;
        leftover = (uint32_t)(m & 0xffffffffULL);
        if (leftover < range_excl) {
            threshold = (UINT32_MAX - range) % range_excl;
            while (leftover < threshold) {
                m = ((uint64_t)wtsim_pcg64_next32(rng)) * range_excl;
                leftover = (uint32_t)(m & 0xffffffffULL);
            }
        }
        return low + (int64_t)(m >> 32);
    }

    /* numpy's `random_interval`: a value in [0, max] (max below 2**32). */
    static inline uint32_t wtsim_pcg64_interval(wtsim_pcg64 *rng, uint32_t max) {
        uint32_t mask = max, value;
        if (max == 0)
            return 0;
        mask |= mask >> 1;
        mask |= mask >> 2;
        mask |= mask >> 4;
        mask |= mask >> 8;
        mask |= mask >> 16;
        while ((value = (wtsim_pcg64_next32(rng) & mask)) > max)
            ;
        return value;
    }
    """
    ctypedef struct wtsim_pcg64:
        pass
    void wtsim_pcg64_seed(wtsim_pcg64* rng, uint64_t state_high, uint64_t state_low, uint64_t inc_high,
                          uint64_t inc_low) noexcept nogil
    double wtsim_pcg64_next_double(void* rng) noexcept nogil
    int64_t wtsim_pcg64_integers(wtsim_pcg64* rng, int64_t low, int64_t high) noexcept nogil
    uint32_t wtsim_pcg64_interval(wtsim_pcg64* rng, uint32_t max) noexcept nogil


cdef class SeatDraws:
    """A seat's `RandomStrategy.uniform`: the numbers of `rng.random()`,
    which the strategy draws `DRAWS_PER_BLOCK` at a time and hands out in
    order. They are drawn here one at a time from the generator's bit
    generator in C (`Generator.random` fills a block with the same
    `next_double` calls), and `finish` draws the rest of the last block, so
    that the generator ends where the strategy's would. A generator of
    another type than numpy's is asked for whole blocks, as the strategy
    asks it."""

    cdef object rng
    cdef wtsim_bitgen_t* bitgen  # NULL: blocks from rng.random
    cdef double[::1] block
    cdef Py_ssize_t next
    cdef wtsim_pcg64 own  # the generator of a seat made by `seeded` (no numpy one)
    cdef wtsim_bitgen_t own_bitgen

    def __cinit__(self, rng):
        self.rng = rng
        self.next = BLOCK
        self.bitgen = NULL
        if type(rng) is np.random.Generator:
            self.bitgen = <wtsim_bitgen_t*>PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")

    @staticmethod
    cdef SeatDraws seeded(tuple seed_state):
        """The draws of a seat whose generator would be ``PCG64`` of this seed
        state (`seeding.SeedFamily.generator`), made in C: no numpy
        generator is made for a game nobody sees the generators of."""
        cdef SeatDraws draws = SeatDraws(None)
        wtsim_pcg64_seed(&draws.own, seed_state[0], seed_state[1], seed_state[2], seed_state[3])
        draws.own_bitgen.state = &draws.own
        draws.own_bitgen.next_double = wtsim_pcg64_next_double
        draws.bitgen = &draws.own_bitgen
        return draws

    cdef double uniform(self) except? -1.0:
        if self.next >= BLOCK:
            if self.bitgen == NULL:
                self.block = self.rng.random(BLOCK)
            self.next = 0
        self.next += 1
        if self.bitgen != NULL:
            return self.bitgen.next_double(self.bitgen.state)
        return self.block[self.next - 1]

    cdef Py_ssize_t pick(self, Py_ssize_t count) except -1:
        """`RandomStrategy.pick`'s index among `count` options."""
        return <Py_ssize_t>(self.uniform() * count)

    cdef void finish(self) noexcept:
        """The game is over: the rest of the block begun is drawn (and unused,
        as the strategy leaves it)."""
        if self.bitgen != NULL:
            while self.next < BLOCK:
                self.bitgen.next_double(self.bitgen.state)
                self.next += 1


def can_play(state, strategies) -> bool:
    """Whether `play` plays this game exactly as the Python game: a game not
    started yet; every seat exactly a `RandomStrategy` with its default
    parameters that has drawn nothing yet, or exactly a `LearnedStrategy`
    as the Python game would play it natively too (`_plays_learned`); each
    strategy's hooks those of its class's source (a method set on the class
    since, as a test's probe, may answer otherwise); the base board (its
    tables as published or changed by overrides: the native sheet reads
    them), the standard or solo game (not expert), and plans that are all
    plain estate lists (at most one per deck of the sheet)."""
    variant = state.variant
    if state.turn != 0 or state.decision is None or state.decision.kind != "deal":
        return False  # a game already under way (Game.play_turn) goes on in Python
    if variant.expert or variant.board != "base" or len(state.plans) > N_DECKS:
        return False
    for plan in state.plans:
        if plan.kind != "estates" or plan.estate_filter:
            return False
    learned = False
    for strategy in strategies:
        kind = type(strategy)
        if kind is RandomStrategy:
            if strategy.params != RandomStrategy.defaults or strategy._draws:
                return False
            continue
        if kind.__name__ == "LearnedStrategy":  # its module is loaded: it made this seat
            _load_learned()
        elif getattr(kind, "name", None) in HEURISTIC_NAMES:
            _load_heuristic()
        if kind is LearnedStrategy:
            if not _plays_learned(strategy) or _seat_model(strategy, variant) is None:
                return False
            learned = True
        elif HeuristicStrategy is not None and issubclass(kind, HeuristicStrategy):
            if not _is_preset(kind, HeuristicStrategy) or not _plays_heuristic(strategy) \
                    or not _as_written(kind, heuristic_module.HEURISTIC_HOOKS):
                return False
        elif GreedyStrategy is not None and issubclass(kind, GreedyStrategy):
            if not _is_preset(kind, GreedyStrategy) or not _plays_greedy(strategy) \
                    or not _as_written(kind, heuristic_module.GREEDY_HOOKS):
                return False
        else:
            return False
    if not _as_written(RandomStrategy, RANDOM_HOOKS):
        return False
    return not learned or (_as_written(LearnedStrategy, LEARNED_HOOKS) and _as_written(Evaluator, EVALUATOR_PATH))


def plain_random_seat(factory) -> bool:
    """Whether a seat's factory builds the registered `random` strategy with
    its default parameters (a `StrategySpec` of "random" and nothing else),
    answering with the methods of its source (see `can_play`): such a seat
    may be played from its seed alone (`play_seeded_solo`)."""
    from ..strategy import StrategySpec, load_strategy
    return type(factory) is StrategySpec and factory.ref == "random" and not factory.params \
        and load_strategy("random") is RandomStrategy and _as_written(RandomStrategy, RANDOM_HOOKS)


RANDOM_HOOKS = ("choose_play", "choose_effect", "choose_plans", "choose_reshuffle", "choose_roundabout",
                "uniform", "pick")
"""The methods a `random` seat answers with, which the native seat plays as written."""

LEARNED_HOOKS = ("choose_play", "choose_effect", "choose_plans", "choose_reshuffle", "choose_roundabout",
                 "evaluator", "_pick")
"""The methods a `learned` seat answers with, which the native seat plays as written."""

EVALUATOR_PATH = ("values", "decision", "native_decision", "reference_decision", "best_value", "_native_call",
                  "_native_weights")
"""The methods of `Evaluator` a `learned` seat's decisions go through."""


cdef dict _WRITTEN = {}
"""(class, names) -> (the methods found, whether they are as written): a
class's methods are checked again only when one of them is another object."""


def _as_written(cls, names) -> bool:
    """Whether each method `names` of `cls` is the one its class's source
    defines (by its qualified name and module), not a function set on the
    class since."""
    cdef Py_ssize_t index
    found = tuple([getattr(cls, name, None) for name in names])
    known = _WRITTEN.get((cls, names))
    if known is not None:
        for index in range(len(found)):
            if found[index] is not (<tuple>known[0])[index]:
                break
        else:
            return known[1]
    written = _checked_as_written(cls, names)
    _WRITTEN[cls, names] = (found, written)
    return written


def _checked_as_written(cls, names) -> bool:
    """`_as_written`, worked out."""
    for name in names:
        for owner in cls.__mro__:
            if name in owner.__dict__:
                method = owner.__dict__[name]
                if getattr(method, "__qualname__", None) != f"{owner.__qualname__}.{name}" \
                        or getattr(method, "__module__", None) != owner.__module__:
                    return False
                break
        else:
            return False
    return True


def _plays_learned(strategy) -> bool:
    """Whether a `LearnedStrategy` seat plays here as in the Python game:
    temperature 0 (the best candidate, no draw from its generator but the
    lookahead's samples), nothing decided or traced yet (a learning seat's
    trace starts empty; a seat that looks ahead keeps none), and Python
    games that would score its decisions with the native decision too
    (`evaluator._NATIVE`: not switched off). Its model (`_seat_model`) is
    checked apart."""
    params = strategy.params
    if set(params) != set(LearnedStrategy.defaults) or params["temperature"] != 0:
        return False
    trace = strategy.trace
    if params["lookahead"] > 0 and trace is not None:
        return False
    return strategy._evaluator is None and (trace is None or (type(trace) is list and len(trace) == 0)) \
        and strategy._planned is None and evaluator_module._NATIVE is not None


HEURISTIC_NAMES = frozenset({"greedy", "heuristic", "safe", "planner", "specialist"})
"""The built-ins the native seats of heuristic.pyx play: `greedy`,
`heuristic` and its presets (`_is_preset`)."""

PRESET_KEYS = frozenset({"__module__", "__qualname__", "__doc__", "name", "defaults", "__annotations__"})
"""What a preset of `heuristic` (safe, planner, specialist) defines: its name
and its default parameters, nothing it decides with."""


def _is_preset(kind, base) -> bool:
    """Whether a subclass of `base` (or `base` itself) only sets other
    default parameters: it then decides as `base` does."""
    for cls in kind.__mro__:
        if cls is base:
            return True
        if not set(cls.__dict__) <= PRESET_KEYS:
            return False
    return False


def _plays_greedy(strategy) -> bool:
    """Whether a `GreedyStrategy` seat plays here as in the Python game: its
    parameters and weights by their default names (any values), at
    temperature 0, and no effect planned yet."""
    params, defaults = strategy.params, GreedyStrategy.defaults
    if set(params) != set(defaults) or set(params["weights"]) != set(defaults["weights"]):
        return False
    return params["temperature"] == 0 and strategy._planned_effect is None


def _plays_heuristic(strategy) -> bool:
    """Whether a `HeuristicStrategy` seat plays here as in the Python game:
    its parameters and weights by their default names (any values), at
    temperature 0 (no draw from its generator), without the refusal-risk
    weight (its `Coverage` term is not in the native seat), and nothing
    decided yet (a new strategy: no turn prepared, no effect planned)."""
    params, defaults = strategy.params, HeuristicStrategy.defaults
    if set(params) != set(defaults) or set(params["weights"]) != set(defaults["weights"]):
        return False
    return params["temperature"] == 0 and not params["weights"]["refusal_risk"] \
        and strategy._turn_key is None and strategy._planned_effect is None


cdef dict _MODEL_KEYS = {}
"""The key `load_model` files a model under (its resolved path), by the
family or weights parameter it stands for and the folder it was resolved
from, worked out once: resolving a path costs more than a game's setup."""


cdef object _seat_model(strategy, variant):
    """The model a `learned` seat plays `variant` with, the one its Python
    evaluator would load (`LearnedStrategy.evaluator`: the model handed
    over, else its `weights` file, else its family's shipped model), when
    the native decision can play it on the variant's sheets (streets of
    the model's lengths, float64 weights in one block, as
    `Evaluator._native_weights` asks): else None."""
    model = strategy._model
    if model is None:
        path = strategy.params["weights"]
        where = (path or shipped_family(variant), os.getcwd() if path else None)
        key = _MODEL_KEYS.get(where)
        if key is None:
            key = _MODEL_KEYS[where] = str((Path(path) if path else shipped_path(where[0])).resolve())
        model = learned_module._MODELS.get(key)
        if model is None:
            model = load_model(key)
    weights = model.weights
    if model.layout.street_houses != tuple(variant.data.street_houses) or weights.dtype != np.float64 \
            or not weights.flags.c_contiguous:
        return None
    return model


cdef class EstatePlans:
    """The game's plans, each a plain list of estate sizes (`can_play`), in C:
    per deck, how many estates of each size it takes and its two values.

    `claim` finds, on a native sheet, the claims a built-in seat makes in a
    turn (`Strategy.choose_plans`), as the Python game does:
    `plans.claim_options` lists, per plan the sheet has not completed, its
    first MAX_CLAIM_OPTIONS choices of unused
    estates (sizes ascending, `itertools.combinations` of the estates of
    each size in sheet order, their `product`); `complete_all` ranks the
    claims by the plan's current value, highest first, ties in list order;
    and each plan's first claim that `checked_claim` still accepts on the
    trial sheet, where the claims chosen before it are marked, is taken.
    Estates are disjoint runs of houses, so on the trial sheet a listed
    claim is still valid exactly when none of its estates was used by an
    earlier chosen claim; that is what `claim` checks."""

    cdef int n_plans
    cdef int need[N_DECKS][ESTATE_SIZES + 1]  # estates of each size (1..6) a plan takes
    cdef int total[N_DECKS]                   # how many estates in all
    cdef bint possible[N_DECKS]               # False: it takes a size no estate has
    cdef int high[N_DECKS]                    # its value while nobody has it
    cdef int low[N_DECKS]                     # and once someone has

    def __init__(self, tuple plans):
        cdef int deck, size
        if len(plans) > N_DECKS:
            raise ValueError(f"a native sheet has {N_DECKS} plan decks, not {len(plans)}")
        self.n_plans = len(plans)
        for deck, spec in enumerate(plans):
            self.total[deck] = len(spec.estates)
            self.possible[deck] = True
            for size in range(ESTATE_SIZES + 1):
                self.need[deck][size] = 0
            for size in spec.estates:
                if 1 <= size <= ESTATE_SIZES:
                    self.need[deck][size] += 1
                else:  # no estate has that size: claim_options never lists the plan
                    self.possible[deck] = False
            self.high[deck], self.low[deck] = spec.points[0], spec.points[1]

    cdef int claim(self, NativeSheet sheet, list first_turn, int turn, action) except -1:
        """Complete on `sheet` the plans its seat claims this turn (plan lines
        and completion turn) and add them to the action record when there is
        one. `first_turn` is the game's, as it was at the turn's start."""
        cdef EstateRun runs[MAX_ESTATES]
        cdef bint used[MAX_ESTATES]
        cdef int picked[MAX_ESTATES]
        cdef int have[ESTATE_SIZES + 1]
        cdef int order[N_DECKS]
        cdef int value[N_DECKS]
        cdef int n_runs, deck, size, index, k, ranked, n_picked
        n_runs = -1  # the sheet's unused estates, read once the first plan might be completed
        for deck in range(self.n_plans):  # complete_all's order: by value, highest first, ties in deck order
            value[deck] = self.high[deck] if first_turn[deck] is None else self.low[deck]
            k = deck
            while k > 0 and value[order[k - 1]] < value[deck]:
                order[k] = order[k - 1]
                k -= 1
            order[k] = deck
        for ranked in range(self.n_plans):
            deck = order[ranked]
            if sheet.turns[deck] >= 0 or not self.possible[deck]:
                continue
            if n_runs < 0:
                n_runs = sheet._estate_runs(True, runs)
                for size in range(ESTATE_SIZES + 1):
                    have[size] = 0
                for index in range(n_runs):
                    have[runs[index].size] += 1
                    used[index] = False
            if self.total[deck] > n_runs:
                continue  # the usual case: too few estates yet
            for size in range(1, ESTATE_SIZES + 1):
                if have[size] < self.need[deck][size]:
                    break
            else:
                n_picked = self._first_free_choice(deck, runs, n_runs, used, picked)
                if n_picked:
                    self._complete(sheet, deck, runs, picked, n_picked, used, turn, action)
        return 0

    def claim_records(self, NativeSheet sheet, list first_turn, int turn):
        """`claim` from Python (tests/test_native_game.py checks it against
        `complete_all` on many sheets): the records of the claims it made."""
        action = {"plans": []}
        self.claim(sheet, first_turn, turn, action)
        return action["plans"]

    cdef int _first_free_choice(self, int deck, EstateRun* runs, int n_runs, bint* used,
                                int* picked) noexcept:
        """The first of the plan's listed choices (at most MAX_CLAIM_OPTIONS,
        in `_estate_options` order) whose estates are all unused: their
        indices in `runs` into `picked`, in the claim's order; returns how
        many, or 0 when no listed choice is free."""
        cdef int sizes[ESTATE_SIZES]    # the sizes the plan takes, ascending: one group each
        cdef int counts[ESTATE_SIZES]   # estates the plan takes of that size
        cdef int of_size[ESTATE_SIZES][MAX_ESTATES]  # the group's estates (indices in runs), sheet order
        cdef int available[ESTATE_SIZES]
        cdef int chosen[ESTATE_SIZES][MAX_ESTATES]   # the group's combination: positions in of_size
        cdef int n_groups = 0, group, index, k, n_picked, listed = 0
        cdef bint free
        for size in range(1, ESTATE_SIZES + 1):
            if self.need[deck][size]:
                sizes[n_groups], counts[n_groups], available[n_groups] = size, self.need[deck][size], 0
                n_groups += 1
        for index in range(n_runs):
            for group in range(n_groups):
                if runs[index].size == sizes[group]:
                    of_size[group][available[group]] = index
                    available[group] += 1
        for group in range(n_groups):
            for k in range(counts[group]):
                chosen[group][k] = k
        while listed < CLAIM_OPTIONS:
            listed += 1
            free, n_picked = True, 0
            for group in range(n_groups):
                for k in range(counts[group]):
                    index = of_size[group][chosen[group][k]]
                    free = free and not used[index]
                    picked[n_picked] = index
                    n_picked += 1
            if free:
                return n_picked
            # the next choice in itertools.product order: the last group's combination turns fastest
            group = n_groups - 1
            while group >= 0 and not _next_combination(chosen[group], counts[group], available[group]):
                group -= 1
            if group < 0:
                return 0  # every choice listed
        return 0

    cdef int _complete(self, NativeSheet sheet, int deck, EstateRun* runs, int* picked, int n_picked,
                       bint* used, int turn, action) except -1:
        """`plans.apply_claim` of the claim of plan `deck` (0-based) with the
        estates `picked`, and its record."""
        cdef int k, house
        cdef EstateRun run
        estates = [] if action is not None else None
        for k in range(n_picked):
            run = runs[picked[k]]
            used[picked[k]] = True
            for house in range(run.first, run.first + run.size):
                sheet.mark_plan(run.street, house, deck + 1)
            if estates is not None:
                estates.append([run.street, run.first, run.size])
        sheet.complete_plan(deck + 1, turn)
        if action is not None:
            action["plans"].append({"deck": deck + 1, "estates": estates})
        return 0

    cdef int settle(self, list sheets, list first_turn, int turn) except -1:
        """`game.settle_plans` on native sheets: every plan completed this turn
        scores its high value for all who completed it when nobody had
        before, else its low value."""
        cdef int deck, points
        cdef NativeSheet sheet
        for deck in range(self.n_plans):
            completed = False
            for sheet in sheets:
                completed = completed or sheet.turns[deck] == turn
            if not completed:
                continue
            if first_turn[deck] is None:
                first_turn[deck] = turn
            points = self.high[deck] if first_turn[deck] == turn else self.low[deck]
            for sheet in sheets:
                if sheet.turns[deck] == turn:
                    sheet.set_plan_points(deck + 1, points)
        return 0


cdef bint _next_combination(int* chosen, int count, int available) noexcept:
    """Advance `chosen` (`count` increasing positions among `available`) to
    the next combination in `itertools.combinations` order; at the last one,
    go back to the first and return False."""
    cdef int k = count - 1, j
    while k >= 0 and chosen[k] == k + available - count:
        k -= 1
    if k < 0:
        for j in range(count):
            chosen[j] = j
        return False
    chosen[k] += 1
    for j in range(k + 1, count):
        chosen[j] = chosen[j - 1] + 1
    return True


# ------------------------------------------------------------- learned seats
cdef Py_ssize_t STREET_SIZE, HOUSES, ROUNDABOUTS, BIS, FENCES, POOLS, LINES, FENCE_SLOTS, PARKS
cdef Py_ssize_t ESTATES, TEMPS, BIS_CROSSED, REFUSALS, ROUNDABOUTS_BUILT, PLAN_POINTS, TURN
cdef Py_ssize_t OPPONENT_TEMPS, OPPONENT_REFUSALS, PLAN_DONE, PLAN_HIGH, IMAGE_DECKS, NEXT_COUNTS
cdef object IMAGE_READ = None
"""The sheet image offsets (`decision.SHEET_IMAGE`) above, read from the
decision module that reads the images (set on the first learned game)."""


cdef int _read_image_offsets(decision) except -1:
    """Take the offsets of a sheet image's fields from the decision module."""
    global STREET_SIZE, HOUSES, ROUNDABOUTS, BIS, FENCES, POOLS, LINES, FENCE_SLOTS, PARKS
    global ESTATES, TEMPS, BIS_CROSSED, REFUSALS, ROUNDABOUTS_BUILT, PLAN_POINTS, TURN
    global OPPONENT_TEMPS, OPPONENT_REFUSALS, PLAN_DONE, PLAN_HIGH, IMAGE_DECKS, NEXT_COUNTS, IMAGE_READ
    if IMAGE_READ is decision:
        return 0
    street, sheet = decision.SHEET_IMAGE["street"], decision.SHEET_IMAGE["sheet"]
    STREET_SIZE, HOUSES, ROUNDABOUTS, BIS = street["size"], street["houses"], street["roundabouts"], street["bis"]
    FENCES, POOLS, LINES, FENCE_SLOTS = street["fences"], street["pools"], street["lines"], street["fence_slots"]
    PARKS = street["parks"]
    ESTATES, TEMPS, BIS_CROSSED, REFUSALS = sheet["estates"], sheet["temps"], sheet["bis"], sheet["refusals"]
    ROUNDABOUTS_BUILT, PLAN_POINTS, TURN = sheet["roundabouts"], sheet["plan_points"], sheet["turn"]
    OPPONENT_TEMPS, OPPONENT_REFUSALS = sheet["opponent_temps"], sheet["opponent_refusals"]
    PLAN_DONE, PLAN_HIGH, IMAGE_DECKS = sheet["plan_done"], sheet["plan_high"], decision.SHEET_IMAGE["plan_decks"]
    NEXT_COUNTS = sheet["next_counts"]
    if IMAGE_DECKS < N_DECKS:
        raise ValueError(f"a sheet image holds {IMAGE_DECKS} plan decks, a native sheet {N_DECKS}")
    IMAGE_READ = decision
    return 0


cdef list _IDLE_DECIDERS = []
"""Deciders no game uses now, kept for the next learned games (making one
reads the model's layout tables)."""


cdef object _take_decider(decision, layout):
    """An idle Decider of `decision` for `layout`, or a new one."""
    cdef Py_ssize_t index
    for index in range(len(_IDLE_DECIDERS)):
        decider = _IDLE_DECIDERS[index]
        if type(decider) is decision.Decider and decider.layout is layout:
            return _IDLE_DECIDERS.pop(index)
    return decision.Decider(layout)


class _SampleView:
    """What `search.next_turn_cards` reads of a seat's view, in a native game."""

    __slots__ = ("unseen", "variant", "hand", "next_effects", "offers")

    def __init__(self, LearnedSeats seats, list offers):
        self.unseen, self.hand, self.offers = seats.unseen, seats.hand, offers
        self.variant = seats.variant
        self.next_effects = None if seats.solo else seats.deck.next_effects()


cdef class LearnedSeats:
    """The `learned` seats of one native game, as `LearnedStrategy` plays
    them at temperature 0, each with its own model
    (`_seat_model`; seats of one model share a Decider).

    Each decision is the native decision's (`Decider.native_choice`, the
    one the Python game's seats would ask through `Evaluator.values`), of
    the sheet's C state written as a sheet image, its legal plays listed
    by the sheet as C numbers and the context of `features.context_of`
    (the public seats and the plans' status as the turn began), so that no
    Python sheet, view or play list is made: the seat then plays the best
    candidate (the first of the highest value, as `np.argmax`) and its
    effect use when the effect's options hold it (`choose_effect`), builds
    a roundabout only when nothing else fits (`choose_roundabout`: each
    empty house tried, the first of the best values kept), completes its
    plans as every built-in does (`EstatePlans`) and never asks for a
    reshuffle. Nothing is drawn from the seat's generator, as in Python,
    but by a seat that looks ahead: it re-judges its best candidates on
    samples of the next turn's cards that `search.next_turn_cards` draws
    from its generator (`_look_ahead`). A learning seat (a `trace` list) gets each decision's chosen afterstate
    appended to its trace as the strategy appends it: (active features,
    value)."""

    cdef list deciders
    """Each seat's Decider (None for a `random` seat)."""
    cdef list traces
    """Each seat's trace list, None for a seat that keeps none."""
    cdef list lookahead
    """Each learned seat's (samples of the next turn, candidates looked
    ahead from, its generator), None for a seat that does not look ahead."""
    cdef object deck, hand, unseen
    """The turn's card source, the solo hand (else None) and the unseen
    cards (worked out when a lookahead first asks)."""
    cdef bint solo
    cdef int max_refusals
    cdef readonly object variant
    cdef object image_array, plays_array
    cdef i64[::1] image, plays
    cdef Py_ssize_t width, n_streets, n_decks, n_players
    cdef bint alone
    cdef i64 context_turn
    cdef bint plan_high[N_DECKS]
    cdef list opponent_temps, opponent_refusals
    cdef tuple next_counts
    """`features.next_counts` of the next turn's effects as the decisions see
    them: this turn's next effects, or a lookahead sample's turn after."""
    cdef list afterstates
    """Candidates scored per seat (`LearnedStrategy.afterstates_scored`)."""

    def __init__(self, state, strategies):
        decision = evaluator_module._NATIVE
        _read_image_offsets(decision)
        plans = tuple(state.plans)
        by_weights = {}
        self.deciders, self.traces, self.lookahead = [], [], []
        self.variant = state.variant
        self.solo, self.max_refusals = state.variant.solo, state.variant.data.max_refusals
        for strategy in strategies:
            if type(strategy) is not LearnedStrategy:
                self.deciders.append(None)
                self.traces.append(None)
                self.lookahead.append(None)
                continue
            params = strategy.params
            self.lookahead.append((params["lookahead"], params["lookahead_width"], strategy.rng)
                                  if params["lookahead"] > 0 else None)
            model = _seat_model(strategy, state.variant)
            decider = by_weights.get(id(model.weights))
            if decider is None:
                decider = by_weights[id(model.weights)] = _take_decider(decision, model.layout)
                decider.prepare_native(model.weights, state.variant.data, plans)
                self.width, self.n_streets = model.layout.width, len(model.layout.street_houses)
            self.deciders.append(decider)
            self.traces.append(strategy.trace)
        self.image_array = np.zeros(decider.image_size, dtype=np.int64)
        self.image = self.image_array
        self._grow_plays(64)
        self.n_decks, self.n_players = len(state.plans), state.n_players
        self.alone = state.variant.solo or self.n_players == 1
        self.afterstates = [0] * self.n_players

    cdef int _grow_plays(self, Py_ssize_t count) except -1:
        self.plays_array = np.zeros(5 * count, dtype=np.int64)
        self.plays = self.plays_array
        for decider in self._distinct_deciders():
            decider.read_from(self.image_array, self.plays_array)
        return 0

    cdef list _distinct_deciders(self):
        """The game's Deciders, each once."""
        cdef list distinct = []
        for decider in self.deciders:
            if decider is not None and all([decider is not other for other in distinct]):
                distinct.append(decider)
        return distinct

    cdef int end_game(self) except -1:
        """The game is over: its Deciders go back to the idle ones."""
        for decider in self._distinct_deciders():
            if len(_IDLE_DECIDERS) < 8:
                _IDLE_DECIDERS.append(decider)
        self.deciders = []
        return 0

    cdef int begin_turn(self, list sheets, list first_turn, int turn, deck, hand) except -1:
        """What the seats' views hold of the turn's start: the plans whose high
        value is still to be had and each seat's best opponent's temps and
        refusals (`context_of`: 5 and 0 without opponents); and for a
        lookahead, the card source and the solo hand (None otherwise)."""
        cdef Py_ssize_t seat, other
        cdef NativeSheet sheet
        cdef int temps, refusals
        self.deck, self.hand, self.unseen = deck, hand, None
        self.context_turn = turn + 1
        self.next_counts = next_counts(deck.next_effects())
        for seat in range(self.n_decks):
            self.plan_high[seat] = first_turn[seat] is None
        if self.alone:
            self.opponent_temps, self.opponent_refusals = [5] * self.n_players, [0] * self.n_players
            return 0
        self.opponent_temps, self.opponent_refusals = [], []
        for seat in range(self.n_players):
            temps = refusals = -1
            for other in range(self.n_players):
                if other != seat:
                    sheet = sheets[other]
                    temps, refusals = max(temps, sheet.temps), max(refusals, sheet.refusals)
            self.opponent_temps.append(temps)
            self.opponent_refusals.append(refusals)
        return 0

    cdef object play_seat(self, NativeSheet sheet, int seat, list offers, bint advanced, int max_roundabouts,
                          bint recording):
        """One learned seat's decisions of a turn before its plans
        (roundabout, play, effect), as the Python game asks them and
        `LearnedStrategy` answers; the seat's action record when recording,
        else None."""
        cdef Py_ssize_t count, plain
        cdef i64* fields
        action = _new_action(seat) if recording else None
        if advanced and sheet.n_roundabouts < max_roundabouts and sheet._count_plays(offers, &plain) == 0:
            _build_roundabout(sheet, self._best_roundabout(sheet, seat, offers), action)
        play = planned = None
        count = sheet._count_plays(offers, &plain)
        if count:
            self._describe(sheet, seat, offers, count)
            decider = self.deciders[seat]
            trace = self.traces[seat]
            candidates, index, use, a, b, c = decider.native_choice(offers, count, plain == 0, trace is not None)
            self.afterstates[seat] += candidates
            if trace is not None:
                trace.append(decider.chosen_trace())
            if self.lookahead[seat] is not None and candidates > 1:
                play, planned = self._look_ahead(sheet, seat, offers, decider)
            elif index >= 0:
                play, planned = self._candidate(index, use, a, b, c)
        _finish_play(sheet, offers, play, planned, action)
        return action

    cdef tuple _candidate(self, i64 index, i64 use, i64 a, i64 b, i64 c):
        """(play, effect use) of a candidate as the Decider gives it: its
        play's index among the bound plays (-1: the refusal), the use's code
        and arguments."""
        cdef i64* fields
        if index < 0:
            return None, None
        fields = &self.plays[5 * <Py_ssize_t>index]
        play = (fields[0], fields[1], fields[2], fields[3], fields[4] != 0)
        return (play, None) if use == NO_USE else candidate_of([play], 0, use, a, b, c)

    cdef tuple _look_ahead(self, NativeSheet sheet, int seat, list offers, decider):
        """`LearnedStrategy.choose_play` with lookahead (`search.lookahead_values`,
        then the best of its values, the first of equal ones): the `width`
        best candidates of the decision just made, each judged by the mean
        over `draws` samples of the next turn's cards (the same samples for
        each, drawn from the seat's generator by `next_turn_cards` itself) of
        the best value of that next turn on its afterstate, or by its own
        value when the game ends after it. Returns (play, effect use)."""
        draws, width, rng = self.lookahead[seat]
        values = decider.last_values()
        order = np.argsort(-values, kind="stable")[:width]
        chosen = []  # the candidates' moves, read before the next turns' decisions overwrite them
        for index in order:
            play_index, use, a, b, c = decider.candidate(int(index))
            chosen.append(self._candidate(play_index, use, a, b, c))
        if self.unseen is None:
            self.unseen = self.deck.unseen(seat)
        samples = [next_turn_cards(_SampleView(self, offers), rng) for _ in range(draws)]
        # each sample's offers and the turn after's effects, counted once for every candidate
        looks = [(sample.offers, next_counts(sample.next_effects)) for sample in samples]
        judged = np.empty(len(order))
        cdef NativeSheet after
        cdef Py_ssize_t slot, count, plain
        cdef double total
        self.context_turn += 1  # the next turn's views
        turn_counts = self.next_counts
        try:
            for slot in range(len(order)):
                play, planned = chosen[slot]
                after = sheet.copy()
                if play is None:
                    after.refusals = min(after.refusals + 1, self.max_refusals)
                else:
                    after.apply_play(play)
                    if planned is not None:
                        after.apply_effect(planned)
                if _some_sheet_ends([after], self.max_refusals) or (self.solo and len(self.unseen) < 3):
                    judged[slot] = values[order[slot]]
                    continue
                total = 0.0
                for next_offers, counts in looks:
                    self.next_counts = counts
                    count = after._count_plays(next_offers, &plain)
                    self._describe(after, seat, next_offers, count)
                    total += decider.native_best_value(next_offers, count, plain == 0)
                judged[slot] = total / draws
        finally:
            self.context_turn -= 1
            self.next_counts = turn_counts
        return chosen[int(np.argmax(judged))]

    cdef object _best_roundabout(self, NativeSheet sheet, int seat, list offers):
        """`LearnedStrategy.choose_roundabout` when no offer fits the sheet:
        the empty house whose roundabout lets the best candidate score most
        (the first of equal values), None when no roundabout makes a play."""
        cdef NativeSheet trial
        cdef Py_ssize_t count, plain
        best = best_value = None
        for street, house in sheet.roundabout_options():
            trial = sheet.copy()
            trial.build_roundabout(street, house)
            count = trial._count_plays(offers, &plain)
            if not count:
                continue
            self._describe(trial, seat, offers, count)
            value = self.deciders[seat].native_best_value(offers, count)
            if best_value is None or value > best_value:
                best, best_value = (street, house), value
        return best

    cdef int _describe(self, NativeSheet sheet, int seat, list offers, Py_ssize_t count) except -1:
        """The sheet image of `sheet` for seat `seat` this turn, and its
        `count` legal plays of `offers`, for the decider."""
        if 5 * count > self.plays.shape[0]:
            self._grow_plays(2 * count)
        sheet._play_fields(offers, &self.plays[0])
        cdef i64* image = &self.image[0]
        cdef i64* street
        cdef Py_ssize_t s, h, n, deck, width = self.width
        cdef i64 lines, points = 0
        for s in range(self.n_streets):
            street = image + s * (width + STREET_SIZE)
            n = sheet.layout.houses[s]
            lines = 0
            for h in range(width):
                street[h] = sheet.numbers[s][h] if h < n else -1
                if h < n and sheet.plan_use[s][h]:
                    lines |= (<i64>1) << h
            street[width + HOUSES] = n
            street[width + ROUNDABOUTS] = <i64>sheet.rounds[s]
            street[width + BIS] = <i64>sheet.bis[s]
            street[width + FENCES] = <i64>sheet.fences[s]
            street[width + POOLS] = <i64>sheet.pools[s]
            street[width + LINES] = lines
            street[width + FENCE_SLOTS] = <i64>sheet._fence_mask(s)
            street[width + PARKS] = sheet.parks[s]
        cdef i64* counters = image + self.n_streets * (width + STREET_SIZE)
        for s in range(ESTATE_SIZES):
            counters[ESTATES + s] = sheet.real_estate[s]
        for deck in range(N_DECKS):
            points += sheet.points[deck]
        counters[TEMPS], counters[BIS_CROSSED], counters[REFUSALS] = sheet.temps, sheet.n_bis, sheet.refusals
        counters[ROUNDABOUTS_BUILT], counters[PLAN_POINTS], counters[TURN] = sheet.n_roundabouts, points, \
            self.context_turn
        counters[OPPONENT_TEMPS] = self.opponent_temps[seat]
        counters[OPPONENT_REFUSALS] = self.opponent_refusals[seat]
        for deck in range(IMAGE_DECKS):
            counters[PLAN_DONE + deck] = deck < N_DECKS and sheet.turns[deck] >= 0
            counters[PLAN_HIGH + deck] = deck < self.n_decks and self.plan_high[deck]
        for s in range(len(self.next_counts)):
            counters[NEXT_COUNTS + s] = self.next_counts[s]
        return 0


def play(state, strategies) -> tuple:
    """Play `state` (at its first deal) to the end for `strategies` (for which
    `can_play` holds); the state then holds the finished game. Returns the
    sheets' scores and rank keys (`_scored`), for `GameState.scored_result`."""
    cdef int n_players = state.n_players, seat
    cdef list sheets = [NativeSheet(state.variant.data) for _ in range(n_players)]
    cdef list draws = [SeatDraws(strategy.rng) if type(strategy) is RandomStrategy else None
                       for strategy in strategies]
    cdef LearnedSeats learned = None
    cdef list heuristic_seat = [_searcher_kind(strategy) for strategy in strategies]
    heuristic = heuristic_module.HeuristicSeats(state, strategies, heuristic_seat) \
        if any(heuristic_seat) else None
    if True in [draws[seat] is None and not heuristic_seat[seat] for seat in range(n_players)]:  # a learned seat
        learned = LearnedSeats(state, strategies)
    try:
        turn, reasons = _play_turns(state.variant, state.deck, EstatePlans(tuple(state.plans)), state.first_turn,
                                    state.turn_records, sheets, draws, heuristic_seat, heuristic, learned)
    finally:
        if learned is not None:
            learned.end_game()
    for seat in range(n_players):
        if draws[seat] is not None:
            (<SeatDraws>draws[seat]).finish()
        elif not heuristic_seat[seat]:
            strategies[seat].afterstates_scored += learned.afterstates[seat]
    state.sheets = [sheet.to_sheet() for sheet in sheets]
    state.turn, state.end, state.decision = turn, reasons, None
    return _scored(state.variant, sheets, [state.bonus(seat) for seat in range(n_players)])


def play_seeded_solo(variant, game_state: tuple, seat_state: tuple, plan_decks, plan_ids) -> tuple | None:
    """A solo game of one `random` seat of default parameters, from its seed
    to its scores, with no Python set-up: what `GameState` and the seat's
    `RandomStrategy` would draw from their generators (``PCG64`` of the
    seed states `game_state` and `seat_state`, `seeding.seat_generators`'
    children 0 and 1) is drawn here in C, the same numbers as numpy's: the
    plans (`draw_plans` from the variant's `plan_decks`, with the fixed
    `plan_ids`), the solo pile (`SoloDeck`) and the seat's picks. The
    variant is one `can_play` takes (solo, base board, not expert).
    Returns None when the drawn plans are not all plain estate lists (the
    game is then played in Python from the start), else (plans, the native
    sheets, scores, rank keys, last turn, end reasons, first completions)
    for `GameResult` (whose `FinalSheets` make the Python sheets when read)."""
    cdef wtsim_pcg64 game_rng
    cdef int deck, index, n_cards
    cdef uint32_t place
    wtsim_pcg64_seed(&game_rng, game_state[0], game_state[1], game_state[2], game_state[3])
    chosen = []
    for deck in range(N_DECKS):
        cards = plan_decks[deck]
        if not cards:
            return None  # numpy refuses to draw from nothing: the Python game says so
        index = wtsim_pcg64_integers(&game_rng, 0, len(cards))
        plan_id = plan_ids[deck]
        chosen.append(variant.data.plan(plan_id) if plan_id else cards[index])
    plans = tuple(chosen)
    for plan in plans:
        if plan.kind != "estates" or plan.estate_filter:
            return None
    cards = variant.data.deck
    n_cards = len(cards)
    pile = list(range(n_cards))
    for index in range(n_cards - 1, 0, -1):  # Generator.shuffle of the sorted card ids (`_shuffled`)
        place = wtsim_pcg64_interval(&game_rng, index)
        pile[index], pile[place] = pile[place], pile[index]
    pile.insert(wtsim_pcg64_integers(&game_rng, n_cards // 2 + 1, n_cards + 1), SOLO_CARD)
    solo_deck = SoloDeck.in_order(cards, pile)
    cdef list sheets = [NativeSheet(variant.data)]
    first_turn = [None] * N_DECKS
    turn, reasons = _play_turns(variant, solo_deck, EstatePlans(plans), first_turn, None, sheets,
                                [SeatDraws.seeded(seat_state)], [0], None, None)
    scores, keys = _scored(variant, sheets, [0])
    return plans, sheets, scores, keys, turn, reasons, first_turn


cdef tuple _play_turns(variant, deck, EstatePlans plans, list first_turn, list turn_records, list sheets,
                       list draws, list heuristic_seat, heuristic, LearnedSeats learned):
    """The game's turns, from the first deal to its end, on `sheets` (one per
    seat; a seat is played by its `draws` when it is a `random` seat, else by
    `heuristic` when `heuristic_seat` says so, else by `learned`), with the
    deck's cards, the plans and the first completions of the game
    (`first_turn`, changed in place); each turn is appended to
    `turn_records` unless it is None. Returns (the last turn, the end
    reasons)."""
    cdef int n_players = len(sheets), turn = 0, seat
    cdef bint recording = turn_records is not None, reshuffle_pending = False, claimed
    cdef bint solo = variant.solo, advanced = variant.advanced
    cdef double rate = RandomStrategy.defaults["roundabout_rate"]
    cdef NativeSheet sheet
    data = variant.data
    cards = deck.cards
    cdef int max_roundabouts = data.max_roundabouts, max_refusals = data.max_refusals
    cdef list actions = None, revealed = None, events = None
    cdef list pile = deck.pile if solo else None, discards = deck.discards if solo else None
    cdef Offers offered
    cdef CardFields table = card_fields(cards) if solo else None
    cdef bint python_offers = recording or learned is not None or heuristic is not None or table is None
    cdef bint solo_card, nobody_had_a_plan, exhausted
    while True:
        turn += 1
        solo_card = False
        if solo:
            revealed = []
            solo_card = _solo_reveal(deck, pile, revealed)
            events = ["solo-card"] if solo_card else []
            offers = _solo_offers(cards, revealed) if python_offers else None
        elif reshuffle_pending:
            deck.reshuffle_all()
            reshuffle_pending = False
            events = ["plan-reshuffle", *deck.begin_turn()]
            offers = deck.offers()
        else:
            events = deck.begin_turn()
            offers = deck.offers()
        if solo_card or (not solo and "solo-card" in events):
            solo_card_came_up(first_turn, turn)
        if solo and not python_offers:
            table.read_solo(revealed, &offered)
        else:
            _read_offers(offers, &offered)
        nobody_had_a_plan = not solo and first_turn.count(None) == len(first_turn)
        if learned is not None:
            learned.begin_turn(sheets, first_turn, turn, deck,
                               [cards[card] for card in revealed] if solo else None)
        if heuristic is not None:
            heuristic.begin_turn(sheets, first_turn, turn, len(pile) - deck.solo_card_waiting if solo else -1)
        if recording:
            actions = []
        claimed = False
        for seat in range(n_players):
            sheet = sheets[seat]
            if heuristic_seat[seat]:
                action = _play_heuristic_seat(heuristic, sheet, seat, offers, advanced, max_roundabouts,
                                              recording)
            elif draws[seat] is None:
                action = learned.play_seat(sheet, seat, offers, advanced, max_roundabouts, recording)
            else:
                action = _play_seat(sheet, draws[seat], seat, offers, &offered, advanced, max_roundabouts,
                                    rate, recording)
            plans.claim(sheet, first_turn, turn, action)
            if recording:
                actions.append(action)
            claimed = claimed or _claimed_now(sheet, turn)
        if solo:  # SoloDeck.record and end_turn
            deal_record = {"offers": [list(cards[card]) for card in revealed]} if recording else None
            discards.extend(revealed)
        else:
            deal_record = deck.record() if recording else None
            deck.end_turn(())
        if claimed:
            plans.settle(sheets, first_turn, turn)
        if claimed and nobody_had_a_plan:
            reshuffle_pending = _ask_reshuffles(sheets, draws, turn, actions)
        if recording:
            turn_records.append({"turn": turn, "events": events, **deal_record, "actions": actions})
        exhausted = len(pile) - deck.solo_card_waiting < 3 if solo else deck.exhausted()
        if exhausted or _some_sheet_ends(sheets, max_refusals):
            return turn, end_reasons(sheets, exhausted)


cdef int _searcher_kind(strategy):
    """The kind of seat of heuristic.pyx that plays `strategy` (`can_play` held):
    2 for `heuristic` and its presets, 1 for `greedy`, 0 for none."""
    if HeuristicStrategy is None or not isinstance(strategy, GreedyStrategy):
        return 0
    return 2 if isinstance(strategy, HeuristicStrategy) else 1


cdef tuple _scored(variant, list sheets, list bonuses):
    """`scoring.score_game` and `scoring.rank_key` of the finished game,
    worked out on the native sheets (`NativeSheet.score` is `score_sheet`),
    with each seat's board bonus: (the scores, the rank keys)."""
    cdef NativeSheet sheet
    cdef Py_ssize_t seat
    temps = temp_points([sheet.temps for sheet in sheets], variant.data.temp_rank_points, variant.solo)
    scores, keys = [], []
    for seat in range(len(sheets)):
        sheet = sheets[seat]
        score = sheet.score(temps[seat], bonuses[seat])
        counts = sheet.estate_counts()
        scores.append(score)
        keys.append((score["total"], sum(counts), *counts))
    return scores, keys


cdef bint _solo_reveal(deck, list pile, list revealed) except -1:
    """`SoloDeck.begin_turn`: the next three construction cards off the pile
    (the deck's own, so its other questions stay right) into `revealed`,
    past the solo card when it comes up; whether it did (the turn's
    "solo-card" event)."""
    cdef bint solo_card = False
    cdef Py_ssize_t card
    while len(revealed) < 3:
        card = pile.pop()
        if card == SOLO_CARD_ID:
            solo_card = True
            deck.solo_card_waiting = False
        else:
            revealed.append(card)
    return solo_card


cdef bint _ask_reshuffles(list sheets, list draws, int turn, list actions) except -1:
    """The standard game's first plan completions: each seat that completed
    one this turn may ask for a reshuffle (in seat order; a learned, greedy
    or heuristic seat never asks, `Strategy.choose_reshuffle`); whether one did. `actions`
    (None unless recording) notes who asked."""
    cdef int seat
    cdef bint asked = False
    cdef SeatDraws seat_draws
    for seat in range(len(sheets)):
        if draws[seat] is None or not _claimed_now(<NativeSheet>sheets[seat], turn):
            continue
        seat_draws = draws[seat]
        if seat_draws.uniform() < 0.5:
            asked = True
            if actions is not None:
                actions[seat]["reshuffle"] = True
    return asked


cdef list _solo_offers(cards, list revealed):
    """The six offers of the revealed cards (`cards.pair_offers`)."""
    hand = (cards[revealed[0]], cards[revealed[1]], cards[revealed[2]])
    return [grid[hand[i][0]][hand[j][1]] for i, j, grid in SOLO_GRIDS]


cdef class CardFields:
    """Each construction card's `Offers` fields (its number, whether its
    effect is the temp agency, the effect's C code), so that a solo turn's
    offers are read in C from the three cards revealed (`read_solo`)."""

    cdef object cards
    cdef Py_ssize_t n
    cdef int* number
    cdef bint* temp
    cdef int* effect

    def __cinit__(self, cards):
        cdef Py_ssize_t card
        self.cards, self.n = cards, len(cards)
        self.number = <int*>PyMem_Malloc(max(self.n, 1) * sizeof(int))
        self.temp = <bint*>PyMem_Malloc(max(self.n, 1) * sizeof(bint))
        self.effect = <int*>PyMem_Malloc(max(self.n, 1) * sizeof(int))
        if not self.number or not self.temp or not self.effect:
            raise MemoryError()
        for card in range(self.n):
            offer_fields(cards[card], card, &self.number[card], &self.temp[card])
            self.effect[card] = effect_code(cards[card][1])

    def __dealloc__(self):
        PyMem_Free(self.number)
        PyMem_Free(self.temp)
        PyMem_Free(self.effect)

    cdef int read_solo(self, list revealed, Offers* offered) except -1:
        """The six offers of the revealed cards (`_solo_offers`) into `offered`."""
        cdef int index
        cdef int hand[3]
        for index in range(3):
            hand[index] = revealed[index]
        offered.n = 6
        for index in range(6):
            offered.number[index] = self.number[hand[SOLO_NUMBER_FROM[index]]]
            offered.temp[index] = self.temp[hand[SOLO_EFFECT_FROM[index]]]
            offered.effect[index] = self.effect[hand[SOLO_EFFECT_FROM[index]]]
        return 0


cdef dict _CARD_FIELDS = {}
"""CardFields per deck of cards (few exist: one per variant's tables)."""


cdef CardFields card_fields(cards):
    """The shared CardFields of a deck of cards, or None when a card's
    number is not one a sheet takes (its offers are then read from Python,
    which says which)."""
    found = _CARD_FIELDS.get(id(cards))
    if found is None or (<CardFields>found).cards is not cards:
        try:
            found = CardFields(cards)
        except ValueError:
            return None
        if len(_CARD_FIELDS) >= 64:
            _CARD_FIELDS.clear()
        _CARD_FIELDS[id(cards)] = found
    return found


cdef int _read_offers(list offers, Offers* offered) except -1:
    """The turn's offers into `offered`."""
    cdef int index
    if len(offers) > MAX_OFFERS:
        raise ValueError(f"the native game takes at most {MAX_OFFERS} offers a turn, not {len(offers)}")
    offered.n = len(offers)
    for index in range(offered.n):
        offer = offers[index]
        offer_fields(offer, index, &offered.number[index], &offered.temp[index])
        offered.effect[index] = effect_code(offer[1])
    return 0


cdef Py_ssize_t _count_plays(NativeSheet sheet, Offers* offered, Py_ssize_t* plain) noexcept:
    """`sheet._count_plays` of the turn's offers, read from C."""
    cdef Py_ssize_t total = 0
    cdef int index
    plain[0] = 0
    for index in range(offered.n):
        offered.plays[index] = sheet._offer_count(offered.number[index], offered.temp[index], plain)
        total += offered.plays[index]
    return total


cdef void _play_at(NativeSheet sheet, Offers* offered, Py_ssize_t chosen, int* play) noexcept:
    """`sheet.play_at` of the turn's offers (`chosen` below what
    `_count_plays` just counted on `sheet`), as its five fields (offer,
    street, house, number, temp) into `play`."""
    cdef Py_ssize_t seen = 0, here
    cdef int index
    for index in range(offered.n):
        here = offered.plays[index]
        if chosen < seen + here:
            play[0] = index
            sheet._offer_play(offered.number[index], offered.temp[index], chosen - seen, play)
            return
        seen += here


cdef object _play_seat(NativeSheet sheet, SeatDraws draws, int seat, list offers, Offers* offered, bint advanced,
                       int max_roundabouts, double rate, bint recording):
    """One seat's decisions of a turn before its plans (roundabout, play,
    effect), as the Python game asks them and `RandomStrategy` answers; the
    seat's action record when recording, else None. The plays and effect
    options are counted and picked in C (`offered`), in the order of the
    Python lists."""
    cdef Py_ssize_t index, count, plain
    cdef list houses
    cdef int play[5]
    cdef int options[MAX_EFFECT_OPTIONS * EFFECT_FIELDS]
    cdef bint played = False
    action = _new_action(seat) if recording else None
    if advanced and sheet.n_roundabouts < max_roundabouts:
        houses = sheet.roundabout_options()
        if houses and draws.uniform() < rate:
            street, house = houses[draws.pick(len(houses))]
            sheet.build_roundabout(street, house)
            if recording:
                action["roundabout"] = {"street": street, "house": house}
    count = _count_plays(sheet, offered, &plain)
    if count:
        index = draws.pick(count + (plain == 0))  # a refusal is an option when every play needs the temp agency
        if index < count:
            _play_at(sheet, offered, index, play)
            played = True
    if not played:
        sheet.refuse()
        if recording:
            action["refusal"] = True
        return action
    sheet._write_play(play[1], play[2], play[3], play[4])
    if recording:
        offer = offers[play[0]]
        action["number_from"], action["effect_from"] = offer.number_from, offer.effect_from
        action["written"] = {"street": play[1], "house": play[2], "number": play[3]}
    if play[4]:
        if recording:
            action["effect"] = {"kind": TEMP}
        return action
    count = sheet._effect_fields(offered.effect[play[0]], play[1], play[2], options)
    if count:
        index = draws.pick(count + 1)
        if index < count:
            sheet._apply_effect_fields(&options[EFFECT_FIELDS * index])
            if recording:
                action["effect"] = effect(*effect_tuple(&options[EFFECT_FIELDS * index])).to_record()
    return action


cdef int _finish_play(NativeSheet sheet, list offers, play, planned, action) except -1:
    """A seat's play as the Python game makes it once the strategy chose: a
    refusal (`play` None), or the write, then its effect use when it is a
    temp or `planned` is among the effect's options after the write (as
    `choose_effect` keeps the use it planned); recorded into `action`
    unless it is None."""
    if play is None:
        sheet.refuse()
        if action is not None:
            action["refusal"] = True
        return 0
    offer = offers[<Py_ssize_t>play[0]]
    sheet.apply_play(play)
    if action is not None:
        action["number_from"], action["effect_from"] = offer.number_from, offer.effect_from
        action["written"] = {"street": play[1], "house": play[2], "number": play[3]}
    if play[4]:
        if action is not None:
            action["effect"] = {"kind": TEMP}
    elif planned is not None and planned in sheet.effect_options(offer, play):
        sheet.apply_effect(planned)
        if action is not None:
            action["effect"] = effect(*planned).to_record()
    return 0


cdef int _build_roundabout(NativeSheet sheet, house, action) except -1:
    """The roundabout a seat chose (`house`: (street, house), or None for
    none), built and recorded into `action` unless it is None."""
    if house is None:
        return 0
    sheet.build_roundabout(house[0], house[1])
    if action is not None:
        action["roundabout"] = {"street": house[0], "house": house[1]}
    return 0


cdef dict _new_action(int seat):
    """A seat's action record before it decides anything (`Game._begin_seat`)."""
    return {"seat": seat, "roundabout": None, "refusal": False, "number_from": None, "effect_from": None,
            "written": None, "truck": None, "effect": None, "plans": [], "reshuffle": False}


cdef object _play_heuristic_seat(heuristic, NativeSheet sheet, int seat, list offers, bint advanced,
                                 int max_roundabouts, bint recording):
    """One `heuristic` seat's decisions of a turn before its plans
    (roundabout, play, effect), as the Python game asks them; the seat's
    action record when recording, else None."""
    cdef Py_ssize_t count, plain
    action = _new_action(seat) if recording else None
    if advanced and sheet.n_roundabouts < max_roundabouts:
        sheet._count_plays(offers, &plain)
        _build_roundabout(sheet, heuristic.choose_roundabout(sheet, seat, offers, plain), action)
    play = planned = None
    count = sheet._count_plays(offers, &plain)
    if count:
        play, planned = heuristic.choose_play(sheet, seat, offers)
    _finish_play(sheet, offers, play, planned, action)
    return action


cdef bint _some_sheet_ends(list sheets, int max_refusals) except -1:
    """Whether a sheet meets an end condition of `game.end_reasons` (which
    then names them): cheaper than asking it after every turn."""
    cdef NativeSheet sheet
    for sheet in sheets:
        if sheet.refusals >= max_refusals or sheet.plans_completed() == N_DECKS or sheet.is_full():
            return True
    return False


cdef bint _claimed_now(NativeSheet sheet, int turn) noexcept:
    """Whether the seat completed a plan this turn."""
    cdef int deck
    for deck in range(N_DECKS):
        if sheet.turns[deck] == turn:
            return True
    return False
