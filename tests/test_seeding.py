"""The fast seed derivation gives numpy's SeedSequence streams, bit for bit."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from welcometo_sim.games import seeding
from welcometo_sim.games.shake_that_city import game as city_game
from welcometo_sim.games.shake_that_city import load_rules as city_rules
from welcometo_sim.games.welcome_to import game as welcome_to_game
from welcometo_sim.games.seeding import SeedFamily, seat_generators
from welcometo_sim.sim.runner import game_seed, game_seeds

SEEDS = st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 2**63 - 1), st.integers(0, 2**200), st.integers(0, 2**2000))


def numpy_child(seed: int, key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed, spawn_key=(key,))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=SEEDS, key=st.one_of(st.integers(0, 12), st.integers(0, 2**70)))
def test_child_words_equal_numpys_generate_state(seed, key):
    expected = numpy_child(seed, key).generate_state(8, np.uint32).tolist()
    assert SeedFamily(seed).child_words(key, 8) == expected


@settings(max_examples=100, deadline=None, derandomize=True)
@given(seed=SEEDS, key=st.integers(0, 12))
def test_generators_equal_default_rng_of_the_child(seed, key):
    ours = SeedFamily(seed).generator(key)
    theirs = np.random.default_rng(numpy_child(seed, key))
    assert ours.bit_generator.state == theirs.bit_generator.state
    assert ours.random(5).tolist() == theirs.random(5).tolist()
    assert ours.integers(0, 1000, 5).tolist() == theirs.integers(0, 1000, 5).tolist()


@pytest.mark.parametrize("seed", [0, 1, 7, 2**32, 2**63 - 1])
def test_game_generators_are_the_children_of_the_game_seed(seed):
    game, seats = seat_generators(seed, 4)
    children = np.random.SeedSequence(seed).spawn(5)
    expected = [np.random.default_rng(c).bit_generator.state for c in children]
    assert [g.bit_generator.state for g in (game, *seats)] == expected


def test_both_games_take_their_generators_from_the_one_scheme():
    assert welcome_to_game.seat_generators is seat_generators
    assert city_game.seat_generators is seat_generators


@pytest.mark.parametrize("seed", [0, 3, 2**40 + 1])
def test_a_shake_that_city_deal_is_drawn_from_numpys_child_zero(seed):
    rules = city_rules(None, 2)
    numpy_game = np.random.default_rng(numpy_child(seed, 0))
    setup = city_game.draw_setup(rules, numpy_game, 2)
    first_shake = city_game.shake(numpy_game, city_game.start_shaker(rules.data, rules.variant.wild_nights),
                                  rules.data.pattern_size ** 2)
    dealt = city_game.deal(rules, seed, 2)
    assert dealt.setup == setup
    assert dealt.patterns[0] == first_shake


@pytest.mark.parametrize("run_seed,index", [(0, 0), (1, 5), (12345, 99999), (2**40, 3)])
def test_game_seed_is_63_bits_of_the_run_seeds_child(run_seed, index):
    first = numpy_child(run_seed, index).generate_state(1, np.uint64)[0]
    assert game_seed(run_seed, index) == int(first >> np.uint64(1))


def test_a_prepared_generator_still_spawns_and_pickles_like_numpys():
    ours = SeedFamily(5).generator(2)
    theirs = np.random.default_rng(numpy_child(5, 2))
    assert [g.random() for g in ours.spawn(2)] == [g.random() for g in theirs.spawn(2)]
    copy = pickle.loads(pickle.dumps(ours))
    assert copy.random(3).tolist() == ours.random(3).tolist()
    assert ours.bit_generator.seed_seq.generate_state(3).tolist() == numpy_child(5, 2).generate_state(3).tolist()


def test_negative_seeds_are_refused_like_numpy():
    with pytest.raises(ValueError):
        np.random.SeedSequence(-1)
    with pytest.raises(ValueError, match="non-negative"):
        SeedFamily(-1)


# ------------------------------------------------ seeds hashed together
@pytest.fixture
def empty_store(monkeypatch):
    """An empty store of prepared states for the test, the real one untouched."""
    store: dict = {}
    monkeypatch.setattr(seeding, "_PREPARED", store)
    return store


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seeds=st.lists(st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 2**64 - 1), st.integers(2**64, 2**80)),
                      min_size=1, max_size=40),
       children=st.integers(1, 6))
def test_generators_of_prepared_seeds_equal_default_rng_of_the_child(seeds, children):
    """The arrays' hash gives numpy's states: every child's generator, and one
    beyond the prepared children, is numpy's; seeds of 64 bits or more are
    left to the one-at-a-time path."""
    with pytest.MonkeyPatch.context() as patch:
        store: dict = {}
        patch.setattr(seeding, "_PREPARED", store)
        seeding.prepare_families(seeds, children)
        assert set(store) == {seed for seed in seeds if seed < 2**64}
        for seed in seeds:
            for key in range(children + 1):
                ours = SeedFamily(seed).generator(key)
                theirs = np.random.default_rng(numpy_child(seed, key))
                assert ours.bit_generator.state == theirs.bit_generator.state


def test_prepared_states_are_used_and_the_store_is_bounded(empty_store, monkeypatch):
    seeding.prepare_families([3, 4], 2)
    empty_store[3][1][:] = 0  # a state no hash gives: the generator must come from the store
    assert SeedFamily(3).generator(1).bit_generator.state["state"]["inc"] == 1
    assert SeedFamily(3).generator(0).random() == np.random.default_rng(numpy_child(3, 0)).random()
    monkeypatch.setattr(seeding, "_PREPARED_LIMIT", 3)
    seeding.prepare_families([5, 6], 2)  # 2 + 2 > 3: the store is emptied first
    assert sorted(empty_store) == [5, 6]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=SEEDS, keys=st.lists(st.one_of(st.integers(0, 2**32 - 1), st.integers(2**32, 2**70)), max_size=30))
def test_children_uint64_equal_child_uint64_one_by_one(seed, keys):
    family = SeedFamily(seed)
    assert family.children_uint64(keys) == [SeedFamily(seed).child_uint64(key) for key in keys]


@pytest.mark.parametrize("run_seed,start,stop", [(0, 0, 50), (12345, 99_990, 100_010), (2**63 - 1, 2**32 - 4, 2**32 + 3)])
def test_game_seeds_of_a_chunk_equal_game_seed_one_by_one(run_seed, start, stop):
    assert game_seeds(run_seed, start, stop) == [game_seed(run_seed, i) for i in range(start, stop)]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(run_seed=st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 2**128 - 1)),
       start=st.one_of(st.integers(0, 1000), st.integers(0, 2**40)), players=st.integers(1, 5))
def test_a_chunks_seeds_and_generators_are_numpys(run_seed, start, players):
    """The path a run's worker takes (the chunk's game seeds hashed together,
    their children prepared, each game's generators) gives numpy's streams."""
    stop = start + 6
    expected_seeds = [int(numpy_child(run_seed, i).generate_state(1, np.uint64)[0] >> np.uint64(1))
                      for i in range(start, stop)]
    seeds = game_seeds(run_seed, start, stop)
    assert seeds == expected_seeds
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(seeding, "_PREPARED", {})
        seeding.prepare_families(seeds, 1 + players)
        for seed in seeds:
            game, seats = seat_generators(seed, players)
            theirs = [np.random.default_rng(numpy_child(seed, k)) for k in range(1 + players)]
            assert [g.bit_generator.state for g in (game, *seats)] == [g.bit_generator.state for g in theirs]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**64 - 1), key=st.one_of(st.integers(0, 12), st.integers(0, 2**32 - 1)))
def test_the_native_hash_gives_numpys_states(seed, key):
    native = seeding._native_seeding()
    if native is None:
        pytest.skip("the native seeding module is not built")
    child = numpy_child(seed, key)
    assert native.child_words(seed, key) == child.generate_state(8, np.uint32).tolist()
    assert list(native.child_state(seed, key)) == child.generate_state(4, np.uint64).tolist()
