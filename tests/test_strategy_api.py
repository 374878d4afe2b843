"""Strategy loading, parameters, answer checking, and the example strategy of docs/strategies.md."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from welcometo_sim.config import default_config_path, parse_config
from welcometo_sim.games.welcome_to.game import Seat, StrategyError, play_game
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import (Strategy, StrategyLoadError, load_strategy, parse_strategy,
                                    resolve_params)
from welcometo_sim.api import execute

ROOT = Path(__file__).resolve().parents[1]

LOWEST_FIRST = textwrap.dedent('''
    from welcometo_sim.strategy import Strategy

    class LowestFirst(Strategy):
        """Writes the smallest number it can, as far left as it can."""
        name = "lowest-first"
        defaults = {"use_effects": True}

        def choose_play(self, view, plays):
            legal = [p for p in plays if p is not None]
            return min(legal, key=lambda p: (p.number, p.house))

        def choose_effect(self, view, options):
            return options[0] if self.params["use_effects"] else None
''')


@pytest.fixture()
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "mybots.py"
    path.write_text(LOWEST_FIRST)
    return path


def test_registered_names_load_builtin_classes():
    assert load_strategy("random").name == "random"
    assert load_strategy("greedy").name == "greedy"


def test_inline_parameters_are_nested_and_typed():
    spec = parse_strategy("greedy:weights.flexibility=2,shortlist=6")
    strategy = spec(np.random.default_rng(0))
    assert strategy.params["weights"]["flexibility"] == 2.0
    assert strategy.params["shortlist"] == 6
    assert strategy.params["weights"]["points"] == 1.0  # untouched default


def test_every_strategy_gets_its_own_parameters_and_bad_ones_are_refused_every_time():
    spec = parse_strategy("greedy:weights.flexibility=2")
    first = spec(np.random.default_rng(0))
    first.params["weights"]["flexibility"] = 99.0  # a strategy changing its own params
    first.params["shortlist"] = 1
    second = spec(np.random.default_rng(1))
    assert second.params["weights"]["flexibility"] == 2.0 and second.params["shortlist"] == 4
    assert second.params["weights"] is not first.params["weights"]
    assert resolve_params(load_strategy("greedy"), {"shortlist": 2})["shortlist"] == 2
    for _ in range(2):  # an integer parameter given as 2.0 is refused, also after 2 was accepted
        with pytest.raises(StrategyLoadError, match="must be a number"):
            resolve_params(load_strategy("greedy"), {"shortlist": 2.0})


@pytest.mark.parametrize("text, fragment", [
    ("gredy", "unknown strategy 'gredy'"),
    ("greedy:weights.nope=1", "unknown parameter 'weights.nope'"),
    ("greedy:shortlist=abc", "must be a number"),
    ("no_such_module_xyz:Bot", "cannot import"),
    ("strategies.random:NoSuchClass", "is not a Strategy subclass"),
    ("missing/file.py:Bot", "not found"),
])
def test_bad_references_raise_one_clear_error(text, fragment):
    with pytest.raises(StrategyLoadError) as info:
        parse_strategy(text)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_file_and_module_references_load_the_same_class(bot_file, monkeypatch):
    from_file = load_strategy(f"{bot_file}:LowestFirst")
    monkeypatch.syspath_prepend(str(bot_file.parent))
    from_module = load_strategy("mybots:LowestFirst")
    assert from_file.name == from_module.name == "lowest-first"
    assert issubclass(from_module, Strategy)


def test_the_manual_example_strategy_plays_in_parallel_workers(bot_file, tmp_path):
    """A strategy loaded from a file must also load inside joblib workers, and
    the table must not depend on the number of workers."""
    raw = {"games": 6, "seed": 3, "players": [f"{bot_file}:LowestFirst", "random"]}
    spec = parse_config(raw)
    one = execute(spec.with_overrides(jobs=1), save=False).frame
    two = execute(spec.with_overrides(jobs=2, chunk_size=2), save=False).frame
    assert one.equals(two)
    assert set(one["strategy"]) == {f"{bot_file}:LowestFirst", "random"}
    assert set(one["player"]) == {"lowest-first", "random"}   # shown by its own name


def test_a_custom_strategy_is_shown_by_its_own_name(bot_file):
    spec = parse_config({"players": [f"{bot_file}:LowestFirst", "greedy:shortlist=2",
                                     {"strategy": f"{bot_file}:LowestFirst", "name": "mine"}]})
    assert [p.name for p in spec.players] == ["lowest-first", "greedy:shortlist=2", "mine"]
    assert spec.players[0].strategy.ref == f"{bot_file}:LowestFirst"


class _Cheater(Strategy):
    name = "cheater"

    def choose_play(self, view, plays):
        return plays[0]._replace(number=99)


class _Crasher(Strategy):
    name = "crasher"

    def choose_play(self, view, plays):
        raise ZeroDivisionError("boom")


@pytest.mark.parametrize("cls, fragment", [(_Cheater, "illegal"), (_Crasher, "raised ZeroDivisionError")])
def test_illegal_or_crashing_strategies_are_reported_with_seed_and_turn(cls, fragment):
    seats = [Seat("x", cls.name, lambda rng: cls(rng))]
    with pytest.raises(StrategyError) as info:
        play_game(Variant(), seats, seed=42)
    message = str(info.value)
    assert fragment in message and "seed 42" in message and "turn 1" in message


def test_bundled_default_config_is_the_same_file_as_configs_base():
    assert default_config_path().read_text() == (ROOT / "configs" / "base.yaml").read_text()


def test_default_plan_choice_never_claims_two_plans_on_the_same_houses():
    """A full-street plan and an estate plan on that street are both claimable,
    but not together: the default keeps the more valuable one only (a real case
    found in an advanced game, where the game then rejected the second claim)."""
    from helpers import sheet_from
    from welcometo_sim.games.welcome_to.data import DEFAULT_DATA
    from welcometo_sim.games.welcome_to.game import PlayerView
    from welcometo_sim.games.welcome_to.plans import claim_options
    from welcometo_sim.strategy import complete_all

    sheet = sheet_from("0 | 1 6 7 8 | 9 12 13 | 14 15")
    plans = tuple(DEFAULT_DATA.plan(p) for p in ("full-street-top", "estates-1-1-1-4", "estates-3-4"))
    view = PlayerView(0, 12, sheet, [], None, plans, (None, None, None), (), 0, Variant(advanced=True), 1)
    claimable = claim_options(sheet, plans)
    assert {c.deck for c in claimable} == {1, 3}
    chosen = complete_all(view, claimable)
    assert [c.deck for c in chosen] == [3]          # 7 points beat 6
    view.plan_first_turn = (None, None, 5)          # deck 3 now only worth 3
    assert [c.deck for c in complete_all(view, claimable)] == [1]


def test_the_commented_example_strategy_plays_and_takes_parameters(tmp_path):
    ref = f"{ROOT / 'strategies' / 'example_custom.py'}:ScheduleStrategy"
    spec = parse_config({"games": 4, "seed": 2, "players": [
        {"strategy": ref, "name": "schedule", "params": {"use_bis": True}}, "random"]})
    frame = execute(spec, save=False).frame
    schedule = frame[frame["player"] == "schedule"]
    assert len(schedule) == 4
    assert schedule["total"].mean() > frame[frame["player"] == "random"]["total"].mean()
    with pytest.raises(StrategyLoadError, match="unknown parameter 'fence'"):
        parse_strategy(ref, {"fence": 2})
