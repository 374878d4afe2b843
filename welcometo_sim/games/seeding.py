"""The one seat-generator scheme of every game, and numpy's seed derivation
computed quickly for the many games of a run.

A run seeds game i with 63 bits of ``SeedSequence(run_seed, spawn_key=(i,))``,
and every game seeds its own generator and each seat's with the children
``SeedSequence(game_seed, spawn_key=(k,))`` (child 0: the game's chance, a
Welcome To deck and plans or a Shake That City set-up and shakes; child
k + 1: seat k's strategy): :func:`seat_generators` makes them. numpy makes each of these in about 30 µs, mostly
argument handling around a few dozen 32-bit integer operations: in a random
one-player game that is a tenth of the time. This module computes the same
words with the same hash (numpy's SeedSequence algorithm, pool size 4),
mixes the seed's words once for all children of a game, and hands each PCG64
its state ready-made. The streams are numpy's, bit for bit
(`tests/test_seeding.py` compares them over many seeds).

The hash works the same on numpy arrays of uint32 (whose arithmetic wraps
as the masks do): `prepare_families` hashes the seeds of a whole chunk of
games at once, and `SeedFamily.children_uint64` the game seeds of a run.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.random.bit_generator import ISpawnableSeedSequence

from ..native import native_module

_MASK = 0xFFFFFFFF
_POOL_SIZE = 4
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_LEFT, _MIX_RIGHT = 0xCA01F9DD, 0x4973F715
_PCG64_WORDS = 8
"""32-bit words of a PCG64 seed state (state and increment, 128 bits each)."""


def _words(value: int) -> list[int]:
    """A non-negative integer as 32-bit words, least significant first (0 is [0])."""
    if value < 0:
        raise ValueError(f"seeds must be non-negative, got {value}")
    words = []
    while value:
        words.append(value & _MASK)
        value >>= 32
    return words or [0]


def _mixed(pool: list, hash_const: int, words: Sequence) -> tuple[list, int]:
    """Mix further entropy words into a full pool (the last loop of numpy's
    `mix_entropy`); returns the new pool and hash constant. Pool and words
    are ints, or all uint32 arrays (one element per seed), as in the
    functions below."""
    pool = pool[:]
    for word in words:
        for dst in range(_POOL_SIZE):
            value = word ^ hash_const
            hash_const = hash_const * _MULT_A & _MASK
            value = value * hash_const & _MASK
            value ^= value >> 16
            mixed = (_MIX_LEFT * pool[dst] - _MIX_RIGHT * value) & _MASK
            pool[dst] = mixed ^ mixed >> 16
    return pool, hash_const


def _seeded_pool(words: Sequence[int]) -> tuple[list[int], int]:
    """numpy's `mix_entropy` of the first `_POOL_SIZE` words (0 where missing):
    the pool and the hash constant the remaining words continue from."""
    hash_const = _INIT_A
    pool = []
    for index in range(_POOL_SIZE):
        value = (words[index] if index < len(words) else 0) ^ hash_const
        hash_const = hash_const * _MULT_A & _MASK
        value = value * hash_const & _MASK
        pool.append(value ^ value >> 16)
    for src in range(_POOL_SIZE):
        for dst in range(_POOL_SIZE):
            if src != dst:
                value = pool[src] ^ hash_const
                hash_const = hash_const * _MULT_A & _MASK
                value = value * hash_const & _MASK
                value ^= value >> 16
                mixed = (_MIX_LEFT * pool[dst] - _MIX_RIGHT * value) & _MASK
                pool[dst] = mixed ^ mixed >> 16
    return _mixed(pool, hash_const, words[_POOL_SIZE:])


def _state_words(pool: Sequence[int], n_words: int) -> list[int]:
    """numpy's `SeedSequence.generate_state` as 32-bit words."""
    hash_const = _INIT_B
    out = []
    for index in range(n_words):
        value = pool[index & 3] ^ hash_const
        hash_const = hash_const * _MULT_B & _MASK
        value = value * hash_const & _MASK
        out.append(value ^ value >> 16)
    return out


_PREPARED: dict[int, np.ndarray] = {}
"""PCG64 seed states worked out by `prepare_families`, by entropy: an array
(children, 4) of uint64, child k's ``generate_state(4, np.uint64)``."""

_PREPARED_LIMIT = 4096
"""At most this many entropies are kept prepared (a chunk's worth and more);
preparing more first empties the store."""


def prepare_families(entropies: Sequence[int], n_children: int) -> None:
    """Work out, for many entropy values at once, the PCG64 seed states of
    their children 0 .. n_children - 1, which `SeedFamily.generator` then
    takes instead of hashing one seed at a time: numpy runs the same hash
    over arrays of all the seeds' words. Values of 64 bits or more are left
    to the one-at-a-time path."""
    values = [entropy for entropy in entropies if 0 <= entropy < 1 << 64]
    if not values or n_children < 1:
        return
    if len(_PREPARED) + len(values) > _PREPARED_LIMIT:
        _PREPARED.clear()
    seeds = np.array(values, dtype=np.uint64)
    zeros = np.zeros(len(values), dtype=np.uint32)
    words = [(seeds & _MASK).astype(np.uint32), (seeds >> 32).astype(np.uint32), zeros, zeros]
    pool, hash_const = _seeded_pool(words)  # numpy pads a seed's words to the pool size, as here
    children = []
    for key in range(n_children):
        key_words = [np.full(len(values), word, dtype=np.uint32) for word in _words(key)]
        child_pool, _ = _mixed(pool, hash_const, key_words)
        state = np.stack(_state_words(child_pool, _PCG64_WORDS), axis=1)  # (seeds, 8) uint32
        children.append(state.view(np.uint64))  # little-endian word pairs, as numpy's view
    for entropy, states in zip(values, np.stack(children, axis=1)):
        _PREPARED[entropy] = states


class SeedFamily:
    """The children ``SeedSequence(entropy, spawn_key=(k,))`` of one entropy
    value, sharing the mixing of the entropy's words (done on first need:
    prepared children need none)."""

    __slots__ = ("entropy", "_pool", "_hash_const")

    def __init__(self, entropy: int) -> None:
        if entropy < 0:
            raise ValueError(f"seeds must be non-negative, got {entropy}")
        self.entropy = entropy
        self._pool: list[int] | None = None
        self._hash_const = 0

    def _mixed_entropy(self) -> tuple[list[int], int]:
        """The pool and hash constant after the entropy's own words, mixed on
        first need (a game whose children were prepared never needs them)."""
        if self._pool is None:
            run = _words(self.entropy)
            run += [0] * (_POOL_SIZE - len(run))  # numpy pads the run entropy when a spawn key follows
            self._pool, self._hash_const = _seeded_pool(run)
        return self._pool, self._hash_const

    def child_words(self, key: int, n_words: int) -> list[int]:
        """The first `n_words` 32-bit words of child `key`'s generate_state."""
        if n_words <= _PCG64_WORDS and self.entropy < 1 << 64 and 0 <= key < 1 << 32 \
                and _native_seeding() is not None:
            return _NATIVE_SEEDING[0].child_words(self.entropy, key)[:n_words]
        pool, _ = _mixed(*self._mixed_entropy(), _words(key))
        return _state_words(pool, n_words)

    def child_uint64(self, key: int) -> int:
        """Child `key`'s first generate_state word as uint64."""
        low, high = self.child_words(key, 2)
        return high << 32 | low

    def children_uint64(self, keys: Sequence[int]) -> list[int]:
        """`child_uint64` of each key, hashed together (keys below 2**32:
        one word each; larger keys one at a time)."""
        if not keys or min(keys) < 0 or max(keys) >= 1 << 32:
            return [self.child_uint64(key) for key in keys]
        entropy_pool, hash_const = self._mixed_entropy()
        pool = [np.full(len(keys), word, dtype=np.uint32) for word in entropy_pool]
        pool, _ = _mixed(pool, hash_const, [np.array(keys, dtype=np.uint32)])
        low, high = _state_words(pool, 2)
        return ((high.astype(np.uint64) << 32) | low).tolist()

    def generator(self, key: int) -> np.random.Generator:
        """``default_rng(SeedSequence(entropy, spawn_key=(key,)))``, made quickly
        (from the state `prepare_families` worked out, when it did)."""
        prepared = _PREPARED.get(self.entropy)
        if prepared is not None and key < len(prepared):
            state = prepared[key].copy()
        elif self.entropy < 1 << 64 and 0 <= key < 1 << 32 and _native_seeding() is not None:
            state = np.array(_NATIVE_SEEDING[0].child_state(self.entropy, key), dtype=np.uint64)
        else:
            state = np.array(self.child_words(key, _PCG64_WORDS), dtype=np.uint32).view(np.uint64)
        return np.random.Generator(np.random.PCG64(_PreparedSeed(self.entropy, key, state)))


_NATIVE_SEEDING: list = []
"""The native hash (welcometo_sim/native/seeding.pyx) once looked up ([module or None])."""


def _native_seeding():
    """The native module that hashes a child's state in C, the same words
    as `SeedFamily.child_words` (None when it is not built, is stale, or
    WTSIM_PURE_PYTHON asks for Python). Looked up on the first generator
    made, as the compiled core is chosen by then."""
    if not _NATIVE_SEEDING:
        _NATIVE_SEEDING.append(native_module("seeding"))
    return _NATIVE_SEEDING[0]


class _PreparedSeed(ISpawnableSeedSequence):
    """Stands in for ``SeedSequence(entropy, spawn_key=(key,))`` when a PCG64 is
    made: hands over the state computed above; anything else a caller may ask
    of the generator's seed sequence (spawning, other state sizes, pickling)
    is answered by a real SeedSequence, made on first need."""

    __slots__ = ("entropy", "key", "state", "real")

    def __init__(self, entropy: int, key: int, state: np.ndarray) -> None:
        self.entropy, self.key, self.state = entropy, key, state
        self.real: np.random.SeedSequence | None = None

    def sequence(self) -> np.random.SeedSequence:
        if self.real is None:
            self.real = np.random.SeedSequence(self.entropy, spawn_key=(self.key,))
        return self.real

    def generate_state(self, n_words: int, dtype: type = np.uint32) -> np.ndarray:
        if n_words == _PCG64_WORDS // 2 and (dtype is np.uint64 or np.dtype(dtype) == np.uint64):
            return self.state.copy()
        return self.sequence().generate_state(n_words, dtype)

    def spawn(self, n_children: int) -> list[np.random.SeedSequence]:
        return self.sequence().spawn(n_children)

    def __reduce__(self):
        return self.sequence().__reduce__()


def seat_generators(seed: int, n_players: int) -> tuple[np.random.Generator, list[np.random.Generator]]:
    """The game's own generator (its chance: deals, shakes) and one independent
    generator per seat: ``default_rng`` of the children
    ``SeedSequence(seed, spawn_key=(i,))`` (those of
    ``SeedSequence(seed).spawn(1 + n_players)``). Every game makes its
    generators here, so a seat's stream depends on the seed and the seat alone."""
    family = SeedFamily(seed)
    return family.generator(0), [family.generator(i) for i in range(1, 1 + n_players)]
