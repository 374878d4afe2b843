"""The built-in strategy ladder: loading and parameters, behaviour on
hand-built positions, legal answers in every variant (a property test over
game seeds, every record replayed), and strategies from an installed
package's entry point, in the test process and in `wtsim run` workers."""

from __future__ import annotations

import importlib
import inspect
import json
import math
import os
import subprocess
import sys
import textwrap
from collections import Counter
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import sheet_from
from strategies import BUILTIN
from strategies.greedy import GreedyStrategy, has_refusal
from strategies.learned import shipped_path
from strategies.lookahead import CardCounter, LookaheadStrategy
from welcometo_sim.config import load_config
from welcometo_sim.games.welcome_to.data import DEFAULT_DATA, POOL, POOL_HOUSES
from welcometo_sim.games.welcome_to.effects import Effect, Offer, Play, apply_play, effect_options, legal_plays
from welcometo_sim.games.welcome_to.game import Game, PlayerView, PublicSeat, Seat, play_game
from welcometo_sim.games.welcome_to.record_replay import verify
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import StrategyLoadError, StrategySpec, load_strategy, parse_strategy

ROOT = Path(__file__).resolve().parents[1]
CONFIG_DIR = ROOT / "configs"
PLANS = (DEFAULT_DATA.plan("estates-3-3-3"), DEFAULT_DATA.plan("estates-4-5"), DEFAULT_DATA.plan("estates-2-5"))

LADDER = [name for name in BUILTIN if name != "lookahead"] + ["lookahead:samples=2"]
"""Every built-in strategy with its default parameters; lookahead with a
smaller sampling budget (its default costs about three times as much per
game, and the code it runs is the same)."""


def seats(refs: list[str]) -> list[Seat]:
    specs = [parse_strategy(ref) for ref in refs]
    return [Seat(f"{i}-{spec.id}", spec.id, spec) for i, spec in enumerate(specs)]


# ------------------------------------------------------ loading and parameters
@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_builtin_strategy_loads_and_its_module_says_its_idea(name):
    cls = load_strategy(name)
    assert cls.name == name
    assert f"{cls.__module__}:{cls.__qualname__}" == BUILTIN[name]
    doc = inspect.getmodule(cls).__doc__
    assert doc is not None and doc.startswith(f"`{name}`: ")
    assert len(doc.split()) >= 30, doc   # the idea, not only the name


def _leaves(params: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted path, value) of every parameter that is not a mapping."""
    for key, value in params.items():
        if isinstance(value, dict):
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _another(value: Any) -> Any:
    """A legal value different from `value`, of the same type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):  # a file parameter: learned's weights
        return str(shipped_path("solo"))
    return value + 0.25


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_default_round_trips_through_inline_overrides(name):
    defaults = dict(_leaves(load_strategy(name).defaults))
    assert defaults
    changed = {path: _another(value) for path, value in defaults.items()}
    inline = ",".join(f"{path}={json.dumps(value)}" for path, value in changed.items())
    strategy = parse_strategy(f"{name}:{inline}")(np.random.default_rng(0))
    played = dict(_leaves(strategy.params))
    assert played == changed
    assert [type(v) for v in played.values()] == [type(v) for v in changed.values()]
    for path, value in changed.items():   # and one at a time, the others untouched
        spec = parse_strategy(f"{name}:{path}={json.dumps(value)}")
        one = dict(_leaves(spec(np.random.default_rng(0)).params))
        assert one == {**defaults, path: value}


def test_one_nested_weight_overridden_inline():
    strategy = parse_strategy("heuristic:weights.pool_chance=1.5")(np.random.default_rng(0))
    assert strategy.params["weights"]["pool_chance"] == 1.5
    assert strategy.params["weights"]["park_potential"] == load_strategy("heuristic").defaults["weights"][
        "park_potential"]


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_an_unknown_parameter_is_one_line_naming_it(name):
    with pytest.raises(StrategyLoadError) as info:
        parse_strategy(f"{name}:no_such_parameter=1")
    message = str(info.value)
    assert "\n" not in message
    assert f"strategy {name!r}" in message and "unknown parameter 'no_such_parameter'" in message


# ------------------------------------------------------ hand-built positions
def position(sheet, offers: list[Offer], turn: int = 4) -> PlayerView:
    """Seat 0 of a two-player base game at `turn`, the opponent with 4 houses and no temps."""
    public = (PublicSeat(sheet.temps, sheet.refusals, (None, None, None), sheet.n_built()),
              PublicSeat(0, 0, (None, None, None), 4))
    return PlayerView(0, turn, sheet, offers, ("surveyor", "bis", "temp"), PLANS, (None, None, None),
                      public, 81 - 3 * turn, Variant(), 2)


class OneMoveAtATimeGreedy(GreedyStrategy):
    """greedy judging every move on its own (copies of the sheet for the
    effects), as any subclass that changes its evaluation does."""

    def _scores_in_bulk(self) -> bool:
        return False


class EveryOtherCandidate:
    """`_candidates` of its own: every other write of the ten best."""

    def _candidates(self, view, scored):
        return scored[:10:2]


@pytest.mark.parametrize("seed, players, own_candidates", [(3, 4, False), (8, 2, False), (21, 1, False),
                                                           (5, 2, True)])
def test_greedy_in_bulk_ranks_moves_as_when_judging_them_one_at_a_time(seed, players, own_candidates):
    """greedy scores all writes, then the effect uses after its shortlist, in
    bulk: writes ranked by score alone, effect options listed once per
    decision for the effects that do not depend on the write, scores from the
    evaluator that scored the writes. At every decision of a game it ranks the
    same moves, with the same effects and (up to float rounding) values, as
    when judging one move at a time; so does a subclass with its own
    `_candidates`, which are chosen from all the writes."""
    checked = 0
    bases = (EveryOtherCandidate, GreedyStrategy) if own_candidates else (GreedyStrategy,)
    one_at_a_time_class = type("OneAtATime", (EveryOtherCandidate, OneMoveAtATimeGreedy) if own_candidates
                               else (OneMoveAtATimeGreedy,), {})

    class CheckedGreedy(*bases):  # type: ignore[misc]
        def choose_play(self, view, plays):
            nonlocal checked
            in_bulk = self.ranked_moves(view, plays)
            one_at_a_time = one_at_a_time_class(np.random.default_rng(0)).ranked_moves(view, plays)
            assert [(play, effect) for _, play, effect in in_bulk] == [
                (play, effect) for _, play, effect in one_at_a_time]
            assert [value for value, _, _ in in_bulk] == pytest.approx(
                [value for value, _, _ in one_at_a_time], abs=1e-9)
            checked += 1
            return super().choose_play(view, plays)

    play_game(Variant(), [Seat(f"p{i}", "checked", CheckedGreedy) for i in range(players)], seed)
    assert checked > 20 * players


def test_has_refusal_finds_none_among_the_plays():
    plays = [Play(0, 0, 3, 5), Play(1, 2, 0, 0, True)]
    assert not has_refusal(plays)
    assert has_refusal([*plays, None]) and has_refusal([None, *plays]) and has_refusal([None])
    assert not has_refusal([])


@pytest.mark.parametrize("name", ["greedy", "heuristic", "lookahead"])
def test_a_refusal_is_judged_on_a_sheet_whose_refusals_are_full(name):
    """Searches may ask what a refusal is worth on a sheet that already has
    every refusal (a sampled future); it counts like the engine: the last box."""
    sheet = sheet_from("0 1 . 3")
    sheet.refusals = sheet.data.max_refusals
    strategy = parse_strategy(name)(np.random.default_rng(0))
    view = position(sheet, [Offer(7, POOL, 0, 0), Offer(8, "surveyor", 1, 1), Offer(9, "landscaper", 2, 2)])
    assert strategy.refusal_value(view) == strategy.evaluate(sheet, view) - (
        strategy.params.get("refusal_cost", 0.0))
    assert sheet.refusals == sheet.data.max_refusals  # judged on a copy


@pytest.mark.parametrize("name", ["heuristic", "planner", "specialist", "safe", "lookahead"])
def test_a_pool_card_that_fits_a_pool_house_builds_the_pool(name):
    # top street 0 1 . 3 4 5 . . 11 12: houses 6 and 7 (both pool houses) take
    # 6..10. The pool card's 7 can go there (3 points now) or on the empty
    # middle and bottom streets; the other two cards bring a fence or a park.
    sheet = sheet_from("0 1 . 3 4 5 . . 11 12")
    offers = [Offer(7, POOL, 0, 0), Offer(8, "surveyor", 1, 1), Offer(9, "landscaper", 2, 2)]
    strategy = parse_strategy(name)(np.random.default_rng(0))
    play = strategy.choose_play(position(sheet, offers), list(legal_plays(sheet, offers)))
    assert (play.offer, play.number, play.temp) == (0, 7, False)
    assert play.house in POOL_HOUSES[play.street]
    apply_play(sheet, play)
    options = [*effect_options(sheet, offers[0], play), None]
    assert strategy.choose_effect(position(sheet, offers), options) == Effect(POOL, play.street, play.house)


@pytest.mark.parametrize("variant, n_players", [(Variant(), 2), (Variant(expert=True), 3), (Variant(solo=True), 1)],
                         ids=["base", "expert", "solo"])
def test_lookahead_without_samples_plays_exactly_like_heuristic(variant, n_players):
    """One whole game for each card source: shared stacks, expert hands, the solo deck.
    Lookahead's own weights go to heuristic, and its refusal cost is set to 0
    (a refusal by choice is then judged the same way)."""
    weights = {"weights": LookaheadStrategy.defaults["weights"]}
    specs = (parse_strategy("heuristic", weights), parse_strategy("lookahead:samples=0,refusal_cost=0"))
    records = [play_game(variant, [Seat(f"p{i}", "s", spec) for i in range(n_players)], 3, record=True).record
               for spec in specs]
    assert records[0] == records[1]


def test_lookahead_with_samples_chooses_differently_from_heuristic():
    """So that the test above compares two strategies that can differ."""
    turns = [play_game(Variant(), [Seat(f"p{i}", "s", parse_strategy(ref)) for i in range(2)], 5,
                       record=True).record["turns"]
             for ref in ("heuristic", "lookahead:samples=2")]
    assert turns[0] != turns[1]


def _counter_view(turn: int, cards_left: int, cards: list[tuple[int, str]]) -> SimpleNamespace:
    """What CardCounter reads of a view, for a player holding `cards` (solo or expert)."""
    offers = [Offer(n, e, i, i) for i, (n, e) in enumerate(cards)]
    return SimpleNamespace(turn=turn, cards_left=cards_left, hand=list(cards), offers=offers)


def test_card_counter_removes_seen_cards_and_starts_over_after_a_shuffle():
    deck = list(DEFAULT_DATA.deck)
    counter = CardCounter(deck)
    counter.update(_counter_view(1, 78, [(7, "pool"), (7, "bis"), (15, "surveyor")]))
    assert Counter(deck) - Counter(counter.unseen) == Counter([(7, "pool"), (7, "bis"), (15, "surveyor")])
    counter.update(_counter_view(1, 78, [(1, "surveyor"), (2, "surveyor"), (3, "pool")]))  # same turn: ignored
    assert len(counter.unseen) == 78
    counter.update(_counter_view(2, 75, [(1, "surveyor"), (2, "surveyor"), (3, "pool")]))
    assert len(counter.unseen) == 75
    assert (1, "surveyor") not in counter.unseen and (15, "surveyor") not in counter.unseen
    counter.update(_counter_view(3, 78, [(4, "bis"), (6, "temp"), (8, "pool")]))
    # cards left went up: every card is unseen again except the three shown now
    assert Counter(deck) - Counter(counter.unseen) == Counter({(4, "bis"): 1, (6, "temp"): 1, (8, "pool"): 1})


class CountingGreedy(GreedyStrategy):
    """greedy that keeps a CardCounter up to date with every view it is shown,
    and asks for the plan reshuffle (so that the count must start over)."""

    name = "counting-greedy"

    def __init__(self, rng, params=None) -> None:
        super().__init__(rng, params)
        self.counter = CardCounter(list(DEFAULT_DATA.deck))
        self.turns: list[int] = []

    def choose_play(self, view, plays):
        self.counter.update(view)
        self.turns.append(view.turn)
        return super().choose_play(view, plays)

    def choose_reshuffle(self, view) -> bool:
        return True


@pytest.mark.parametrize("seed, event", [(1, "plan-reshuffle"), (11, "deck-reshuffled")])
def test_card_counter_follows_the_cards_still_to_come_in_a_standard_game(seed, event):
    """In the standard game an offer's number is on the card on top of its stack,
    whose effect is public as `next_effects[i]`; the offer's effect is on another
    card, the one flipped onto the discard pile. Next turn's numbers come from
    the cards under the tops, so at every turn the counter must still count
    every card under the tops as unseen and no longer count the cards on top."""
    greedy = parse_strategy("greedy")
    game = Game(Variant(), [Seat("counting", "counting", CountingGreedy), Seat("greedy", greedy.id, greedy)],
                seed, record=True)
    cards = game.deck.cards
    checked = 0
    while not game.play_turn():
        counting = game.strategies[0]
        if counting.turns[-1] != game.turn:  # no play was possible: nothing was shown to it
            continue
        unseen = Counter(counting.counter.unseen)
        still_to_come = Counter(cards[c] for stack in game.deck.stacks for c in stack[:-1])
        on_top = Counter(cards[stack[-1]] for stack in game.deck.stacks)
        missing = still_to_come - unseen
        assert not missing, f"turn {game.turn}: cards still to come counted as seen: {dict(missing)}"
        counted = on_top - (Counter(cards) - unseen)
        assert not counted, f"turn {game.turn}: cards on top counted as unseen: {dict(counted)}"
        checked += 1
    assert checked > 20
    assert any(event in turn["events"] for turn in game.turn_records)


# ------------------------------------------------- legal answers, every variant
RULE_VARIANTS = ("base", "advanced", "expert", "solo")
BOARD_VARIANTS = ("ice-cream", "christmas", "easter", "advanced-expert-ice-cream")
BASELINES = ("baseline-random",)  # the base game again, against the random floor
SEEDS = st.integers(min_value=0, max_value=2**62)


@lru_cache(maxsize=None)
def table_size(name: str) -> int:
    return len(load_config(CONFIG_DIR / f"{name}.yaml").players)


def ladder_tables(n_players: int, start: int) -> list[list[str]]:
    """Tables of `n_players` whose seats cycle through the ladder from `start`,
    enough of them that every strategy sits at one."""
    games = math.ceil(len(LADDER) / n_players)
    return [[LADDER[(start + g * n_players + i) % len(LADDER)] for i in range(n_players)]
            for g in range(games)]


def play_the_ladder(name: str, seed: int) -> None:
    """Every ladder strategy plays a game of the variant; the engine raises
    StrategyError on any illegal answer, and every record must replay."""
    config = load_config(CONFIG_DIR / f"{name}.yaml")
    for g, refs in enumerate(ladder_tables(table_size(name), seed % len(LADDER))):
        result = play_game(config.rules.variant, seats(refs), seed + g, config.rules.plans, record=True)
        assert result.turns > 0
        assert verify(result.record) == [], (name, seed + g, refs)


LEGALITY = settings(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", RULE_VARIANTS)
@settings(LEGALITY, max_examples=2)
@given(seed=SEEDS)
def test_no_strategy_ever_answers_illegally(name, seed):
    play_the_ladder(name, seed)


@pytest.mark.parametrize("name", BOARD_VARIANTS)
@settings(LEGALITY, max_examples=1)
@given(seed=SEEDS)
def test_no_strategy_ever_answers_illegally_on_a_thematic_board(name, seed):
    """Boards cost about ten times as much per game (moves are tried on copied
    sheets there), hence one seed per board each run."""
    play_the_ladder(name, seed)


def test_every_bundled_variant_is_played_and_every_table_seats_the_whole_ladder():
    welcome_to = {path.stem for path in CONFIG_DIR.glob("*.yaml") if "\ngame:" not in path.read_text()}
    assert welcome_to == {*RULE_VARIANTS, *BOARD_VARIANTS, *BASELINES}
    for n in (1, 2, 3):
        for start in range(len(LADDER)):
            assert {ref for table in ladder_tables(n, start) for ref in table} == set(LADDER)


# ------------------------------------------------------ installed entry points
CAUTIOUS = textwrap.dedent('''
    """`cautious`: the smallest number it can write, as far left as it can."""
    from welcometo_sim.strategy import Strategy

    class Cautious(Strategy):
        name = "cautious"
        defaults = {"use_effects": False}

        def choose_play(self, view, plays):
            legal = [p for p in plays if p is not None]
            return min(legal, key=lambda p: (p.temp, p.number, p.street, p.house))

        def choose_effect(self, view, options):
            return options[0] if self.params["use_effects"] else None
''')


@pytest.fixture()
def installed_package(tmp_path: Path, monkeypatch) -> Path:
    """A `mybots` distribution installed in `tmp_path` (as pip would lay it
    out) registering `cautious` in the welcometo_sim.strategies group."""
    (tmp_path / "mybots.py").write_text(CAUTIOUS)
    info = tmp_path / "mybots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mybots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[welcometo_sim.strategies]\ncautious = mybots:Cautious\n")
    sys.modules.pop("mybots", None)
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()   # also forgets importlib.metadata's cached path listings
    yield tmp_path
    sys.modules.pop("mybots", None)  # other tests import a different `mybots`


def test_an_installed_entry_point_is_a_registered_name(installed_package):
    spec = parse_strategy("cautious:use_effects=true")
    assert spec == StrategySpec("cautious", {"use_effects": True})
    cls = load_strategy("cautious")
    assert (cls.__module__, cls.__name__) == ("mybots", "Cautious")
    result = play_game(Variant(), [Seat("c", spec.id, spec), *seats(["greedy"])], 9, record=True)
    assert verify(result.record) == []
    assert result.record["players"][0]["strategy"] == "cautious"


def test_an_installed_entry_point_plays_in_wtsim_run_workers(installed_package):
    config = installed_package / "tiny.yaml"
    config.write_text("name: tiny\ngames: 4\nseed: 2\nplayers:\n  - cautious\n  - random\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(installed_package),
                                                                        os.environ.get("PYTHONPATH")]))}
    out = installed_package / "out"
    proc = subprocess.run([sys.executable, "-m", "welcometo_sim.cli", "run", str(config), "--jobs", "2",
                           "--chunk-size", "1", "--format", "csv", "--out", str(out), "--quiet"],
                          cwd=installed_package, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_csv(out / "results.csv")
    assert sorted(frame["strategy"]) == ["cautious"] * 4 + ["random"] * 4
    assert json.loads((out / "manifest.json").read_text())["jobs"] == 2


def test_random_draws_in_blocks_the_numbers_of_single_draws():
    from strategies.random import DRAWS_PER_BLOCK, RandomStrategy

    strategy = RandomStrategy(np.random.default_rng(42))
    single = np.random.default_rng(42)
    drawn = [strategy.uniform() for _ in range(2 * DRAWS_PER_BLOCK + 5)]
    assert drawn == [single.random() for _ in range(2 * DRAWS_PER_BLOCK + 5)]
