"""The native game driver (welcometo_sim/native/game.pyx) against the Python
game loop (games/welcome_to/game.py), the reference.

For many seeds, every supported rule set (standard and solo, base and
advanced rules) and every player count, a game of `random` seats played by
`Game.play` natively gives the same result (scores, ranks, end, plan turns,
sheets) and the same record as the same game forced onto the Python loop;
games the driver does not support (other strategies, other parameters,
expert rules, thematic boards) are played by the Python loop.
"""

from __future__ import annotations

import pickle
import random
from types import SimpleNamespace

import pytest

from welcometo_sim.native import native_module
from welcometo_sim.games.welcome_to.data import PlanSpec
from welcometo_sim.games.welcome_to.game import FinalSheets, Game, Seat, play_game, play_seeded_natively
from welcometo_sim.games.welcome_to.sheet import Sheet
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.sim.chunks import game_seed
from welcometo_sim.api import run
from welcometo_sim.strategy import parse_strategy

from native_support import native_or_skip

STATE_SLOTS = ("numbers", "is_bis", "roundabouts", "fences", "plan_use", "parks", "pools", "real_estate", "temps",
               "n_bis", "refusals", "n_roundabouts", "plan_turns", "plan_points", "n_houses", "_filled", "fits")
"""The slots of a `Sheet` that hold its state (the others are caches worked out on first use)."""

native = native_or_skip("game")

CHANGED_TABLES = Variant.with_overrides({
    "tracks": {"pool_track": [0, 5, 7, 40, 41, 42, 43, 44, 45, 46], "refusal_track": [0, 1, 2, 3, 4, 9],
               "real_estate_tracks": [[1, 2], [2, 9], [3, 4, 5, 6, 7, 8, 9], [4], [5, 6], [6, 20]],
               "park_tracks": [[0, 1], [0, 5, 6, 7, 8, 9, 10, 11, 12, 13], [0, 2, 4]],
               "bis_track": [0, 2, 5], "roundabout_track": [0, 1, 2, 9]},
    "plans": {"estates-4-4": {"points": [17, 1]}},
    "add_plans": [{"id": "pairs-of-one", "deck": 1, "estates": [1, 1], "points": [9, 2]}],
    "remove_plans": ["estates-6-6"],
    "deck": {8: [4, 4, 4, 1, 1, 1]}}, advanced=True)
"""Advanced rules on changed tracks, plans and deck (what-if overrides)."""

SUPPORTED = [
    (CHANGED_TABLES, (1, 3)),
    (Variant(), (2, 3, 4, 5)),
    (Variant(advanced=True), (1, 2, 3, 4, 5)),
    (Variant(solo=True), (1,)),
    (Variant(solo=True, advanced=True), (1,)),
    (Variant(), (1,)),
]
"""The rule sets the native driver plays, each with the player counts tried."""

SEEDS = range(60)


def seats(kinds: list[str]) -> list[Seat]:
    return [Seat(f"p{i}", kind, parse_strategy(kind)) for i, kind in enumerate(kinds)]


def played(variant: Variant, kinds: list[str], seed: int, native_allowed: bool) -> tuple[Game, object]:
    """The game and its recorded result, natively when allowed and supported."""
    game = Game(variant, seats(kinds), seed, record=True)
    game.native = native_allowed
    return game, game.play()


def same_result(left, right) -> None:
    assert left.record == right.record
    assert left.scores == right.scores
    assert left.ranks == right.ranks
    assert (left.turns, left.end_reasons, left.plan_first_turn, left.race) == \
        (right.turns, right.end_reasons, right.plan_first_turn, right.race)
    for mine, theirs in zip(left.sheets, right.sheets):
        assert {name: getattr(mine, name) for name in STATE_SLOTS} == \
            {name: getattr(theirs, name) for name in STATE_SLOTS}
        assert (mine.to_record(), mine.unused_estates(), mine.fence_options(), mine.bis_options()) == \
            (theirs.to_record(), theirs.unused_estates(), theirs.fence_options(), theirs.bis_options())


@pytest.mark.parametrize("variant,counts", SUPPORTED,
                         ids=["changed tables", "standard", "advanced", "solo", "solo advanced", "standard alone"])
def test_native_games_equal_python_games(variant: Variant, counts: tuple[int, ...]) -> None:
    native_games = 0
    for n_players in counts:
        for seed in SEEDS:
            game, fast = played(variant, ["random"] * n_players, seed, True)
            fresh = Game(variant, seats(["random"] * n_players), seed)
            native_games += native.can_play(fresh.state, fresh.strategies)
            _, reference = played(variant, ["random"] * n_players, seed, False)
            same_result(fast, reference)
    # advanced games with an advanced plan card (not an estate list: about 65% of them) play in Python
    assert native_games >= len(counts) * len(SEEDS) // (5 if variant.advanced else 1)


def test_the_native_driver_plays_the_supported_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game.play hands a supported game to the driver (and the Python loop is not asked)."""
    monkeypatch.setattr(Game, "_drive", lambda self, one_turn: pytest.fail("the Python loop ran"))
    result = play_game(Variant(), seats(["random", "random"]), 7)
    assert result.end_reasons and result.turns > 0


def test_unrecorded_games_give_the_same_result() -> None:
    for seed in range(10):
        fast = play_game(Variant(advanced=True), seats(["random"] * 3), seed)
        game = Game(Variant(advanced=True), seats(["random"] * 3), seed)
        game.native = False
        reference = game.play()
        assert fast.record is None
        assert (fast.scores, fast.ranks, fast.turns) == (reference.scores, reference.ranks, reference.turns)


@pytest.mark.parametrize("variant,kinds", [
    (Variant(), ["random", "lookahead"]),
    (Variant(), ["random:roundabout_rate=0.5"]),
    (Variant(expert=True), ["random", "random"]),
    (Variant(board="ice-cream"), ["random", "random"]),
], ids=["a lookahead seat", "changed parameters", "expert rules", "a thematic board"])
def test_unsupported_games_fall_back_to_python(variant: Variant, kinds: list[str]) -> None:
    game = Game(variant, seats(kinds), 3, record=True)
    assert not native.can_play(game.state, game.strategies)
    result = game.play()
    _, reference = played(variant, kinds, 3, False)
    same_result(result, reference)


def test_a_game_under_way_goes_on_in_python() -> None:
    """After Game.play_turn the seats' draws are under way: play finishes the game in Python, as before."""
    for seed in range(6):
        game = Game(Variant(), seats(["random", "random"]), seed, record=True)
        game.play_turn()
        assert not native.can_play(game.state, game.strategies)
        finished = game.play()
        reference = Game(Variant(), seats(["random", "random"]), seed, record=True)
        reference.native = False
        reference.play_turn()
        same_result(finished, reference.play())


def test_the_changed_parameters_case_is_a_random_seat() -> None:
    """The fallback above is for the parameters, not for another strategy."""
    game = Game(Variant(), seats(["random:roundabout_rate=0.5"]), 3)
    assert type(game.strategies[0]).__name__ == "RandomStrategy"
    assert game.strategies[0].params["roundabout_rate"] == 0.5


SEEDED_SOLO = [
    Variant(solo=True),
    Variant(solo=True, advanced=True),
    Variant.with_overrides({"deck": {8: [4, 4, 4, 1, 1, 1]}, "remove_plans": ["estates-6-6"],
                            "tracks": {"refusal_track": [0, 1, 2, 3, 4, 9]}}, solo=True),
]
"""Solo rule sets a `random` seat is played from its seed alone (`play_seeded_natively`)."""


def python_result(variant: Variant, kinds: list[str], seed: int, plan_ids=(None, None, None)):
    game = Game(variant, seats(kinds), seed, plan_ids)
    game.native = False
    return game.play()


@pytest.mark.parametrize("variant", SEEDED_SOLO, ids=["solo", "solo advanced", "solo, changed tables"])
def test_solo_games_from_the_seed_alone_equal_python_games(variant: Variant) -> None:
    """The C draws (numpy's PCG64 seeded from the seed sequence, `integers`,
    the list shuffle, `random`) give the same plans, pile and picks as numpy:
    the same games as the Python loop, for small seeds, the run's 63-bit game
    seeds and seeds near 2**64."""
    played = 0
    for seed in [*range(150), *(game_seed(2028, index) for index in range(150)), 2 ** 64 - 1, 2 ** 63 + 5]:
        fast = play_seeded_natively(variant, seats(["random"]), seed)
        if fast is None:  # an advanced plan card (not an estate list): the Python game plays it
            assert variant.advanced
            continue
        played += 1
        same_result(fast, python_result(variant, ["random"], seed))
    assert played >= (80 if variant.advanced else 302)  # about a third of advanced plan cards are estate lists


def test_solo_games_from_the_seed_alone_keep_the_fixed_plans() -> None:
    fixed = ("estates-1-1-1-6", None, "estates-3-4")
    for seed in range(40):
        fast = play_seeded_natively(Variant(solo=True), seats(["random"]), seed, fixed)
        assert [plan.id for plan in fast.plans][::2] == ["estates-1-1-1-6", "estates-3-4"]
        same_result(fast, python_result(Variant(solo=True), ["random"], seed, fixed))


def test_a_random_solo_game_makes_no_python_set_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """`play_game` and a run's games of one plain `random` seat never make a
    `GameState`, generators or a strategy: the game is played from its seed."""
    monkeypatch.setattr(Game, "__init__", lambda *args: pytest.fail("a Game was set up"))
    result = play_game(Variant(solo=True), seats(["random"]), 11)
    score = result.scores[0]
    assert result.turns > 0 and score["total"] == sum(value for key, value in score.items() if key != "total")
    table = run(players=["random"], variant={"solo": True}, games=5, seed=3, jobs=1)
    assert len(table) == 5 and table["total"].notna().all()


def test_a_game_from_its_seed_makes_its_python_sheets_when_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """`FinalSheets`: no Python sheet until one is read, then the same one
    each time; slices, negative indices and pickling give the sheets."""
    fast = play_seeded_natively(Variant(solo=True), seats(["random"]), 4)
    reference = python_result(Variant(solo=True), ["random"], 4)
    assert isinstance(fast.sheets, FinalSheets) and fast.sheets._made == [None]
    first = fast.sheets[0]
    assert fast.sheets[-1] is first and fast.sheets[:] == [first] and list(fast.sheets) == [first]
    assert first.to_record() == reference.sheets[0].to_record() and len(fast.sheets) == 1
    copied = pickle.loads(pickle.dumps(fast))
    assert type(copied.sheets) is list and copied.sheets[0].to_record() == first.to_record()


@pytest.mark.parametrize("kinds,variant,seed", [
    (["random:roundabout_rate=0.5"], Variant(solo=True), 1),
    (["greedy"], Variant(solo=True), 1),
    (["random"], Variant(), 1),
    (["random"], Variant(solo=True, board="ice-cream"), 1),
    (["random"], Variant(solo=True), 2 ** 64),
], ids=["changed parameters", "another strategy", "not solo", "a thematic board", "a seed of 65 bits"])
def test_other_games_are_not_played_from_the_seed_alone(kinds: list[str], variant: Variant, seed: int) -> None:
    assert play_seeded_natively(variant, seats(kinds), seed) is None


PLAN_SETS = [
    ((1,), (1, 1, 1, 1, 1, 1), (2, 2)),  # the first plan's estate is in the six-plan's first 462 choices
    ((1, 1), (1, 1, 1), (1, 1, 1, 1, 1, 1)),
    ((3, 4), (2, 2, 2), (1, 3, 5)),
    ((1, 2), (2, 1), (7,)),  # a size no estate has
    ((6, 6), (5, 5), (4, 4, 4)),
]
"""Plans of plain estate lists, some with many choices (past MAX_CLAIM_OPTIONS) or clashing."""


def random_sheet(rng: random.Random) -> Sheet:
    """A base sheet with random numbers, fences and plan lines: many estates
    of every size, some already under a plan."""
    sheet = Sheet()
    fill, fence = rng.choice([0.6, 0.9, 1.0]), rng.choice([0.3, 0.6, 0.9])
    for street, row in enumerate(sheet.numbers):
        for house in range(len(row)):
            if rng.random() < fill:
                row[house] = rng.randrange(18)
            if house < len(row) - 1 and rng.random() < fence:
                sheet.fences[street][house] = True
            if rng.random() < 0.03:
                sheet.plan_use[street][house] = rng.randrange(1, 4)
    return sheet


@pytest.mark.parametrize("plan_set", range(len(PLAN_SETS)))
def test_native_plan_claims_equal_complete_all(plan_set: int) -> None:
    """`EstatePlans.claim` makes the claims `complete_all` chooses among
    `claim_options` (ranked by current value, checked on the trial sheet),
    with the same records and plan lines, on sheets rich in estates."""
    from welcometo_sim.native.sheet import NativeSheet
    from welcometo_sim.games.welcome_to.game import claim_to_record
    from welcometo_sim.games.welcome_to.plans import apply_claim, claim_options
    from welcometo_sim.strategy import complete_all

    rng = random.Random(plan_set)
    made = 0
    for _ in range(200):
        points = [(rng.randrange(1, 9), rng.randrange(1, 9)) for _ in range(3)]
        plans = tuple(PlanSpec(id=f"p{deck}", deck=deck + 1, kind="estates", points=points[deck], estates=sizes)
                      for deck, sizes in enumerate(PLAN_SETS[plan_set]))
        sheet = random_sheet(rng)
        for deck in range(3):
            if rng.random() < 0.2:
                sheet.plan_turns[deck] = 1
        first_turn = [rng.choice([None, 1]) for _ in range(3)]
        native = NativeSheet.from_sheet(sheet)
        view = SimpleNamespace(plans=plans, plan_first_turn=first_turn, sheet=sheet, turn=5)
        chosen = complete_all(view, claim_options(sheet, plans))
        for claim in chosen:
            apply_claim(sheet, plans, claim, 5)
        assert native_module("game").EstatePlans(plans).claim_records(native, first_turn, 5) \
            == [claim_to_record(claim) for claim in chosen]
        assert native.to_sheet().plan_use == sheet.plan_use and native.plan_turns == sheet.plan_turns
        made += len(chosen)
    assert made >= 5
