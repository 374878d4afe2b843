"""`learned` seats in the native game driver (welcometo_sim/native/game.pyx)
against the Python game loop with `LearnedStrategy` (the reference).

For several seeds of every supported family (two players, three and four
players, solo, a game alone, advanced rules), with learned seats alone and
mixed with `random` seats, a game played natively gives the same record,
result rows and sheets as the same game forced onto the Python loop; the
seats' generators are left as the Python game leaves them, and the
candidates scored are counted the same. Games the driver cannot promise to
play the same (other parameters, a model handed over, a trace asked, a
subclass, a method replaced, the native decision switched off) are played
by the Python loop.
"""

from __future__ import annotations


import numpy as np
import pytest

from welcometo_sim.games.welcome_to.game import Game, Seat, play_game
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.learning import evaluator as evaluator_module
from welcometo_sim.learning.evaluator import Evaluator
from welcometo_sim.learning.features import Layout
from welcometo_sim.learning.model import ValueModel
from welcometo_sim.native import native_module
from welcometo_sim.strategies.learned import LearnedStrategy, load_model, shipped_path
from welcometo_sim.strategy import parse_strategy

from native_support import native_or_skip

native = native_or_skip("game", needs_all=True)


def seats(kinds: list[str]) -> list[Seat]:
    return [Seat(f"p{i}", kind, parse_strategy(kind)) for i, kind in enumerate(kinds)]


def played(variant: Variant, kinds: list[str], seed: int, native_allowed: bool) -> Game:
    """The finished game (its result in `game.finished`), natively when allowed and supported."""
    game = Game(variant, seats(kinds), seed, record=True)
    game.native = native_allowed
    game.finished = game.play()
    return game


def same_games(fast: Game, reference: Game) -> None:
    """The same record, result rows and sheets, and the seats' generators and
    counts of scored candidates left alike."""
    left, right = fast.finished, reference.finished
    assert left.record == right.record
    assert (left.scores, left.ranks, left.turns, left.end_reasons, left.plan_first_turn, left.race) == \
        (right.scores, right.ranks, right.turns, right.end_reasons, right.plan_first_turn, right.race)
    assert [sheet.to_record() for sheet in left.sheets] == [sheet.to_record() for sheet in right.sheets]
    for mine, theirs in zip(fast.strategies, reference.strategies):
        assert mine.rng.bit_generator.state == theirs.rng.bit_generator.state
        assert getattr(mine, "afterstates_scored", None) == getattr(theirs, "afterstates_scored", None)


FAMILIES = [
    (Variant(), ["learned", "learned"], range(6)),
    (Variant(), ["learned", "random"], range(4)),
    (Variant(), ["random", "learned", "learned"], range(3)),
    (Variant(), ["learned", "random", "learned", "random"], range(3)),
    (Variant(), ["learned"] * 4, range(2)),
    (Variant(solo=True), ["learned"], range(6)),
    (Variant(), ["learned"], range(3)),
]
"""The rule sets and seats played natively, each with its seeds (every game
of these families has plans of plain estate lists)."""


@pytest.mark.parametrize("variant,kinds,seeds", FAMILIES,
                         ids=["2 learned", "learned and random", "3 players", "4 players mixed", "4 learned",
                              "solo", "alone"])
def test_native_learned_games_equal_python_games(variant, kinds, seeds) -> None:
    for seed in seeds:
        fresh = Game(variant, seats(kinds), seed)
        assert native.can_play(fresh.state, fresh.strategies)
        same_games(played(variant, kinds, seed, True), played(variant, kinds, seed, False))


ADVANCED = [
    (Variant(advanced=True), ["learned"], 9),                     # roundabout probes and refusals
    (Variant(solo=True, advanced=True), ["learned"], 5),          # a roundabout built
    (Variant(advanced=True), ["learned", "learned", "random"], 79),
    (Variant(solo=True, advanced=True), ["learned"], 23),         # a refusal (rare: the base model refuses seldom)
]
"""Advanced games (those whose plans are plain estate lists) where learned
seats build roundabouts when nothing else fits, or refuse."""


@pytest.mark.parametrize("variant,kinds,seed", ADVANCED, ids=["alone", "solo", "3 players", "refusals"])
def test_native_learned_roundabouts_and_refusals_equal_python(variant, kinds, seed) -> None:
    fresh = Game(variant, seats(kinds), seed)
    assert native.can_play(fresh.state, fresh.strategies)
    fast = played(variant, kinds, seed, True)
    same_games(fast, played(variant, kinds, seed, False))
    learned = {seat for seat, kind in enumerate(kinds) if kind == "learned"}
    acts = [action for turn in fast.finished.record["turns"] for action in turn["actions"] if action["seat"] in learned]
    assert any(action["roundabout"] or action["refusal"] for action in acts)


def test_the_native_driver_plays_learned_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game.play hands a learned game to the driver (and the Python loop is not asked)."""
    monkeypatch.setattr(Game, "_drive", lambda self, one_turn: pytest.fail("the Python loop ran"))
    result = play_game(Variant(), seats(["learned", "learned"]), 11)
    assert result.end_reasons and result.turns > 0


def test_unrecorded_learned_games_give_the_same_result() -> None:
    for seed in range(3):
        fast = play_game(Variant(), seats(["learned", "random", "learned"]), seed)
        game = Game(Variant(), seats(["learned", "random", "learned"]), seed)
        game.native = False
        reference = game.play()
        assert fast.record is None
        assert (fast.scores, fast.ranks, fast.turns) == (reference.scores, reference.ranks, reference.turns)


def probe_subclass(rng):
    class Probe(LearnedStrategy):
        pass
    return Probe(rng)


@pytest.mark.parametrize("variant,kinds", [
    (Variant(), ["learned:temperature=0.5", "learned"]),
    (Variant(), ["learned", "lookahead"]),
    (Variant(expert=True), ["learned", "learned"]),
    (Variant(board="easter"), ["learned", "learned"]),
], ids=["temperature", "a lookahead seat", "expert rules", "a thematic board"])
def test_unsupported_learned_games_fall_back_to_python(variant, kinds) -> None:
    game = Game(variant, seats(kinds), 3, record=True)
    assert not native.can_play(game.state, game.strategies)
    game.finished = game.play()
    same_games(game, played(variant, kinds, 3, False))


def test_learned_seats_the_driver_cannot_vouch_for_are_played_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """A trace already under way, a model the native decision cannot read
    (weights not float64 in one block, streets of other lengths), a
    subclass, a replaced method of the strategy or of the evaluator, or the
    native decision switched off: the driver declines the game. A model
    handed over and an empty trace (a learning seat) it plays."""
    def declined(*factories) -> bool:
        game = Game(Variant(), [Seat(f"p{i}", "learned", factory) for i, factory in enumerate(factories)], 5)
        return not native.can_play(game.state, game.strategies)

    def traced_already(rng):
        strategy = LearnedStrategy(rng, None, None, trace=True)
        strategy.trace.append((np.array([1]), 0.0))
        return strategy

    default = parse_strategy("learned")
    model = load_model(shipped_path("base"))
    strided = ValueModel(model.layout, np.repeat(model.weights, 2)[::2])
    other_streets = Layout((9, 11, 12), model.layout.plan_ids)
    shorter = ValueModel(other_streets, np.zeros(other_streets.size))
    assert not declined(default, default)
    assert not declined(default, lambda rng: LearnedStrategy(rng, None, model))
    assert not declined(default, lambda rng: LearnedStrategy(rng, None, None, trace=True))
    assert declined(default, traced_already)
    assert declined(default, lambda rng: LearnedStrategy(rng, {"lookahead": 2}, None, trace=True))
    assert declined(default, lambda rng: LearnedStrategy(rng, None, strided))
    assert declined(default, lambda rng: LearnedStrategy(rng, None, ValueModel(model.layout,
                                                                               model.weights.astype(np.float32))))
    assert declined(default, lambda rng: LearnedStrategy(rng, None, shorter))
    assert declined(default, probe_subclass)
    with monkeypatch.context() as patched:
        patched.setattr(LearnedStrategy, "choose_effect", lambda self, view, options: None)
        assert declined(default, default)
    with monkeypatch.context() as patched:
        patched.setattr(Evaluator, "values", lambda self, view, plays: self.decision(view, plays))
        assert declined(default, default)
    with monkeypatch.context() as patched:
        patched.setattr(evaluator_module, "_NATIVE", None)
        assert declined(default, default)
    assert not declined(default, default)


def test_a_learned_game_under_way_goes_on_in_python() -> None:
    game = Game(Variant(), seats(["learned", "learned"]), 4, record=True)
    game.play_turn()
    assert not native.can_play(game.state, game.strategies)
    game.finished = game.play()
    reference = Game(Variant(), seats(["learned", "learned"]), 4, record=True)
    reference.native = False
    reference.play_turn()
    reference.finished = reference.play()
    same_games(game, reference)


def test_native_and_python_learned_games_interleaved_play_as_alone() -> None:
    """Native games and Python games of learned seats in turn (each with
    Deciders of its own) play as each does alone."""
    variant = Variant()
    games = [played(variant, ["learned", "learned"], seed, seed % 2 == 0) for seed in range(4)]
    for seed, game in enumerate(games):
        same_games(game, played(variant, ["learned", "learned"], seed, seed % 2 == 1))


def sheet_image(decision, layout, view) -> np.ndarray:
    """The sheet image (`decision.SHEET_IMAGE`) of a Python view's sheet and
    context, as a native game writes it for the same decision."""
    fields = decision.SHEET_IMAGE
    street, whole = fields["street"], fields["sheet"]
    width, sheet = layout.width, view.sheet
    image = np.zeros(len(layout.street_houses) * (width + street["size"]) + whole["size"], dtype=np.int64)

    def bits(flags) -> int:
        return sum(1 << house for house, flag in enumerate(flags) if flag)

    for s, numbers in enumerate(sheet.numbers):
        at = s * (width + street["size"])
        image[at:at + width] = [-1 if number is None else number for number in numbers] + [-1] * (width - len(numbers))
        at += width
        image[at + street["houses"]] = len(numbers)
        image[at + street["roundabouts"]] = bits(sheet.roundabouts[s])
        image[at + street["bis"]] = bits(sheet.is_bis[s])
        image[at + street["fences"]] = bits(sheet.fences[s])
        image[at + street["pools"]] = bits(sheet.pools[s])
        image[at + street["lines"]] = bits(sheet.plan_use[s])
        image[at + street["fence_slots"]] = sheet.fence_mask(s)
        image[at + street["parks"]] = sheet.parks[s]
    at = len(layout.street_houses) * (width + street["size"])
    image[at + whole["estates"]:at + whole["estates"] + 6] = sheet.real_estate
    context = evaluator_module.context_of(view)
    for name, value in (("temps", sheet.temps), ("bis", sheet.n_bis), ("refusals", sheet.refusals),
                        ("roundabouts", sheet.n_roundabouts), ("plan_points", sum(sheet.plan_points)),
                        ("turn", context.turn), ("opponent_temps", context.opponent_temps),
                        ("opponent_refusals", context.opponent_refusals)):
        image[at + whole[name]] = value
    for deck in range(len(view.plans)):
        image[at + whole["plan_done"] + deck] = context.plan_done[deck]
        image[at + whole["plan_high"] + deck] = context.plan_high[deck]
    image[at + whole["next_counts"]:at + whole["next_counts"] + len(context.next_counts)] = context.next_counts
    return image


ORIGINAL_CHOOSE_PLAY = LearnedStrategy.choose_play


def test_a_sheet_image_decides_as_the_python_sheet(monkeypatch: pytest.MonkeyPatch) -> None:
    """The native entry of the decision, given the image of a Python view's
    sheet and its plays, picks the candidate `LearnedStrategy` picks from
    `Evaluator.decision` (the first of the best values), and counts the same
    candidates, decision after decision of a game (its street memo kept)."""
    decision = native_module("decision")
    model = load_model(shipped_path("base"))
    evaluator = Evaluator(model.weights, model.layout)
    decider = decision.Decider(model.layout)
    checked = []

    def choose_play(self, view, plays):
        if not checked:
            decider.prepare_native(model.weights, view.sheet.data, tuple(view.plans))
        real = [play for play in plays if play is not None]
        scored = evaluator.decision(view, plays)
        decider.read_from(sheet_image(decision, model.layout, view),
                          np.array([play[:5] for play in real], dtype=np.int64).ravel())
        answer = decider.native_choice(list(view.offers), len(real), None in plays)
        best = int(np.argmax(scored.values))
        assert answer == (len(scored), int(scored.play[best]), int(scored.use[best]), *map(int, scored.args[best]))
        checked.append(best)
        return ORIGINAL_CHOOSE_PLAY(self, view, plays)

    monkeypatch.setattr(LearnedStrategy, "choose_play", choose_play)
    game = Game(Variant(), [Seat("p0", "learned", LearnedStrategy)], 8)  # a seat alone: one seat's decisions
    game.play()
    assert len(checked) > 20
    with pytest.raises(RuntimeError, match="native"):
        decider.active_features(0)


def test_a_decider_checks_its_native_calls() -> None:
    """A Decider decides natively only once prepared for a game and given its
    arrays, and only on an image of its layout's size."""
    decision = native_module("decision")
    model = load_model(shipped_path("base"))
    decider = decision.Decider(model.layout)
    layout = decision.SHEET_IMAGE
    width, streets = model.layout.width, len(model.layout.street_houses)
    assert decider.image_size == streets * (width + layout["street"]["size"]) + layout["sheet"]["size"]
    with pytest.raises(RuntimeError, match="prepare_native"):
        decider.native_choice([], 0, True)
    decider.prepare_native(model.weights, Variant().data, tuple(Game(Variant(), seats(["learned"]), 1).plans))
    with pytest.raises(RuntimeError, match="read_from"):
        decider.native_choice([], 0, True)
    decider.read_from(np.zeros(decider.image_size + 1, np.int64), np.zeros(5, np.int64))
    with pytest.raises(ValueError, match="sheet image"):
        decider.native_choice([], 0, True)


def learning_seats(model, players: int, opponent: str | None = None) -> list[Seat]:
    """`wtsim train`'s seats: the learner (the model handed over, a trace kept)
    everywhere, or at seat 0 with `opponent` at the others."""
    learners = players if opponent is None else 1
    seats_ = [Seat(f"learner{i}", "learned", lambda rng: LearnedStrategy(rng, None, model, trace=True))
              for i in range(learners)]
    return seats_ + [Seat(f"other{i}", opponent, parse_strategy(opponent)) for i in range(learners, players)]


def same_traces(fast: Game, reference: Game) -> int:
    """The same trace seat by seat: the same feature indices and values of
    every chosen afterstate, bit for bit; how many entries in all."""
    entries = 0
    for mine, theirs in zip(fast.strategies, reference.strategies):
        mine_trace, their_trace = getattr(mine, "trace", None), getattr(theirs, "trace", None)
        assert (mine_trace is None) == (their_trace is None)
        if mine_trace is None:
            continue
        assert len(mine_trace) == len(their_trace) > 0
        for (features, value), (their_features, their_value) in zip(mine_trace, their_trace):
            assert features.dtype == their_features.dtype
            assert np.array_equal(features, their_features)
            assert value == their_value and type(value) is type(their_value)
        entries += len(mine_trace)
    return entries


def vars_of(game: Game) -> tuple:
    """(state, strategies): what `can_play` is asked of a game."""
    return game.state, game.strategies


def other_model(seed: int) -> ValueModel:
    """The base model's weights, moved by noise: a model that plays other games."""
    model = load_model(shipped_path("base"))
    noise = np.random.default_rng(seed).normal(0.0, 0.5, model.weights.shape)
    return ValueModel(model.layout, model.weights + noise * (model.weights != 0))


TRAINING = [
    (Variant(), 2, None),
    (Variant(), 2, "learned"),
    (Variant(), 3, "random"),
    (Variant(solo=True), 1, None),
    (Variant(advanced=True), 2, None),
]


@pytest.mark.parametrize("variant,players,opponent", TRAINING,
                         ids=["self-play", "against learned", "against random", "solo", "advanced"])
def test_learning_seats_play_natively_with_the_python_games_traces(variant, players, opponent) -> None:
    """A learning seat (its model handed over, a trace kept) plays natively
    the game the Python loop plays, and keeps the same trace: the features
    and value of each chosen afterstate."""
    model = other_model(1)
    playable = [seed for seed in range(40)
                if native.can_play(*vars_of(Game(variant, learning_seats(model, players, opponent), seed)))]
    assert len(playable) >= 3
    for seed in playable[:3]:  # (advanced games whose plans are plain estate lists)
        fast = Game(variant, learning_seats(model, players, opponent), seed, record=True)
        fast.finished = fast.play()
        reference = Game(variant, learning_seats(model, players, opponent), seed, record=True)
        reference.native = False
        reference.finished = reference.play()
        same_games(fast, reference)
        assert same_traces(fast, reference) >= 10 * (players if opponent is None else 1)


def test_seats_of_different_models_each_play_their_own() -> None:
    """Two learned seats of two models at one table (the learner against the
    shipped model, or two weights files): each decides with its own weights,
    natively as in Python, and the games differ from one model's."""
    mixed = [Seat("a", "learned", lambda rng: LearnedStrategy(rng, None, other_model(2))),
             Seat("b", "learned", parse_strategy("learned"))]
    for seed in range(3):
        fast = Game(Variant(), mixed, seed, record=True)
        assert native.can_play(fast.state, fast.strategies)
        fast.finished = fast.play()
        reference = Game(Variant(), mixed, seed, record=True)
        reference.native = False
        reference.finished = reference.play()
        same_games(fast, reference)
        assert fast.finished.sheets[0].to_record() != fast.finished.sheets[1].to_record()


def test_a_weights_file_seat_plays_natively(tmp_path) -> None:
    """`learned:weights=PATH` plays its file's model natively, as in Python."""
    path = tmp_path / "moved.npz"
    other_model(3).save(path)
    kinds = [f"learned:weights={path}", "learned"]
    fresh = Game(Variant(), seats(kinds), 2)
    assert native.can_play(fresh.state, fresh.strategies)
    same_games(played(Variant(), kinds, 2, True), played(Variant(), kinds, 2, False))


def test_a_training_shard_moves_the_weights_as_the_python_games_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """`wtsim train`'s shard of games, each learned from before the next is
    played: natively, the weights after it are those of the Python games,
    bit for bit (the decisions of each game read the weights the games
    before it left)."""
    from welcometo_sim.games.welcome_to.training import LEARNING
    from welcometo_sim.learning.train import Learner, TrainSettings

    settings = TrainSettings(variant=Variant().to_record(), players=2, seed=1, rate=0.05)
    start = np.array(other_model(4).weights)
    after = []
    for natively in (True, False):
        monkeypatch.setattr(Game, "native", natively)
        weights = start.copy()
        LEARNING.play_shard(weights, settings, [(index, 100 + index) for index in range(4)],
                            Learner(weights, settings, settings.rate))
        after.append(weights)
    assert not np.array_equal(after[0], start)
    assert np.array_equal(after[0], after[1])


LOOKAHEAD = [
    (Variant(solo=True), ["learned:lookahead=8"], range(4)),
    (Variant(), ["learned:lookahead=4", "heuristic"], range(4)),
    (Variant(), ["learned:lookahead=3,lookahead_width=2", "learned:lookahead=2", "random"], range(3)),
    (Variant(advanced=True, solo=True), ["learned:lookahead=4"], range(25)),
]


@pytest.mark.parametrize("variant,kinds,seeds", LOOKAHEAD, ids=["solo", "against heuristic", "3 players", "advanced"])
def test_lookahead_seats_play_natively_as_in_python(variant, kinds, seeds) -> None:
    """`learned:lookahead=N` (the search setting) plays natively the game the
    Python loop plays: the same samples of the next turn drawn from the
    seat's generator (left in the same state), the same candidates looked
    ahead from and the same picks."""
    playable = 0
    for seed in seeds:
        fresh = Game(variant, seats(kinds), seed)
        if not native.can_play(fresh.state, fresh.strategies):
            continue
        playable += 1
        same_games(played(variant, kinds, seed, True), played(variant, kinds, seed, False))
    assert playable >= 3
    lookahead = played(variant, kinds, seeds[0], True)
    plain = played(variant, [kind.split(":")[0] for kind in kinds], seeds[0], True)
    assert lookahead.finished.record != plain.finished.record  # the lookahead changed some pick
