# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""numpy's seed derivation in C, for `welcometo_sim.games.seeding` (whose
Python hash is the reference): the PCG64 seed state of the child
``SeedSequence(entropy, spawn_key=(key,))``. Every game makes its game and
seat generators from such children (`seeding.seat_generators`); hashing
their words with Python integers costs a game about as much as the rest of
its set-up, here it is a few dozen C operations. Only what the games use:
an entropy below 2**64 (at most two 32-bit words, padded to the pool size as
numpy pads them when a spawn key follows) and a key below 2**32 (one word).
tests/test_seeding.py compares the states with numpy's over many seeds.
"""

from libc.stdint cimport uint32_t, uint64_t

cdef enum:
    POOL_SIZE = 4
    STATE_WORDS = 8  # a PCG64 seed state: 128 bits of state and 128 of increment

cdef uint32_t INIT_A = 0x43B0D7E5, MULT_A = 0x931E8875
cdef uint32_t INIT_B = 0x8B51F9DD, MULT_B = 0x58F38DED
cdef uint32_t MIX_LEFT = 0xCA01F9DD, MIX_RIGHT = 0x4973F715


cdef inline uint32_t _hashmix(uint32_t value, uint32_t* hash_const) noexcept:
    value ^= hash_const[0]
    hash_const[0] *= MULT_A
    value *= hash_const[0]
    return value ^ (value >> 16)


cdef inline uint32_t _mix(uint32_t x, uint32_t y) noexcept:
    cdef uint32_t result = MIX_LEFT * x - MIX_RIGHT * y
    return result ^ (result >> 16)


cdef void _child_words(uint64_t entropy, uint32_t key, uint32_t* out) noexcept:
    """numpy's `mix_entropy` of the entropy's words and the key, then
    `generate_state` of STATE_WORDS words (`seeding._seeded_pool`,
    `_mixed`, `_state_words`)."""
    cdef uint32_t words[POOL_SIZE]
    cdef uint32_t pool[POOL_SIZE]
    cdef uint32_t hash_const = INIT_A
    cdef int index, src, dst
    words[0], words[1], words[2], words[3] = <uint32_t>entropy, <uint32_t>(entropy >> 32), 0, 0
    for index in range(POOL_SIZE):
        pool[index] = _hashmix(words[index], &hash_const)
    for src in range(POOL_SIZE):
        for dst in range(POOL_SIZE):
            if src != dst:
                pool[dst] = _mix(pool[dst], _hashmix(pool[src], &hash_const))
    for dst in range(POOL_SIZE):
        pool[dst] = _mix(pool[dst], _hashmix(key, &hash_const))
    hash_const = INIT_B
    for index in range(STATE_WORDS):
        out[index] = pool[index & 3] ^ hash_const
        hash_const *= MULT_B
        out[index] *= hash_const
        out[index] ^= out[index] >> 16


def child_words(uint64_t entropy, uint32_t key):
    """``SeedSequence(entropy, spawn_key=(key,)).generate_state(8, np.uint32)``
    as a list of ints (`seeding.SeedFamily.child_words`)."""
    cdef uint32_t words[STATE_WORDS]
    _child_words(entropy, key, words)
    return [words[index] for index in range(STATE_WORDS)]


def child_state(uint64_t entropy, uint32_t key):
    """``SeedSequence(entropy, spawn_key=(key,)).generate_state(4, np.uint64)``
    as a tuple of four ints (the 32-bit words paired little-endian, as
    numpy's view of them): a PCG64's seed state (`SeedFamily.generator`)."""
    cdef uint32_t words[STATE_WORDS]
    _child_words(entropy, key, words)
    return tuple([(<uint64_t>words[2 * index + 1]) << 32 | words[2 * index] for index in range(STATE_WORDS // 2)])
