"""The machinery follows a game's declared capabilities, not its name: changing a
capability changes what a command does, and what both games declare gives the
behaviour they had before (configs written back, tables, refusals)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from welcometo_sim.config import ConfigError, load_config, parse_config
from welcometo_sim.defaults import mirror_seats
from welcometo_sim.games import DEFAULT_GAME, capabilities, game_module
from welcometo_sim.games.welcome_to.rows import COLUMNS, column_dtypes
from welcometo_sim.sim.rows import dtypes_of, game_of_columns, table_columns_of

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
STC = CONFIGS / "shake-that-city.yaml"


def _declare(monkeypatch, game: str, **changes) -> None:
    """The game declares `changes` for the rest of the test."""
    module = game_module(game)
    monkeypatch.setattr(module, "CAPABILITIES", replace(module.CAPABILITIES, **changes))


def test_a_command_a_game_cannot_do_is_refused_naming_the_command_and_the_game() -> None:
    spec = load_config(STC)
    with pytest.raises(ConfigError) as error:
        spec.require("move_timeout", "run --move-timeout")
    assert str(error.value) == f"{STC}: game: wtsim run --move-timeout plays Welcome To only, not shake-that-city"


def test_a_game_that_declares_a_capability_is_let_through(monkeypatch) -> None:
    _declare(monkeypatch, "shake-that-city", move_timeout=True)
    spec = load_config(STC)
    assert spec.require("move_timeout", "run --move-timeout") is spec
    assert spec.require("trainable", "train") is spec  # both games have a learned player to train


def test_the_refusal_names_every_game_that_can(monkeypatch) -> None:
    _declare(monkeypatch, "shake-that-city", move_timeout=True)
    spec = load_config(CONFIGS / "base.yaml")
    _declare(monkeypatch, DEFAULT_GAME, move_timeout=False)
    with pytest.raises(ConfigError, match="plays Shake That City only, not welcome-to$"):
        spec.require("move_timeout", "run --move-timeout")


def test_mirrored_seats_follow_the_games_shared_draws(monkeypatch) -> None:
    spec = parse_config({"players": ["greedy", "greedy"]})
    assert mirror_seats(spec) == [[0, 1]]
    _declare(monkeypatch, DEFAULT_GAME, shared_draws=lambda spec: False)
    assert mirror_seats(spec) == []


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda path: path.name)
def test_a_config_written_back_reads_as_the_same_run(path: Path) -> None:
    spec = load_config(path)
    again = parse_config(spec.to_dict(), str(path), base_dir=path.parent)
    assert again == spec
    assert again.to_dict() == spec.to_dict()
    assert ("game" in spec.to_dict()) == (spec.game != DEFAULT_GAME)


def test_welcome_to_keeps_its_table_columns_and_types() -> None:
    assert table_columns_of("welcome-to") == COLUMNS
    assert dtypes_of("welcome-to") == column_dtypes()


@pytest.mark.parametrize("game", ["welcome-to", "shake-that-city"])
def test_a_tables_columns_tell_its_game(game: str) -> None:
    assert game_of_columns(table_columns_of(game)) == game


def test_columns_of_no_game_are_read_as_the_default_games() -> None:
    assert game_of_columns(["game", "player", "total"]) == DEFAULT_GAME


def test_a_tuned_strategy_of_another_game_is_looked_up_in_its_registry() -> None:
    from welcometo_sim.tuning import TuneError, strategy_class

    assert strategy_class("greedy", "shake-that-city") is capabilities("shake-that-city").strategy_class("greedy")
    with pytest.raises(TuneError, match=r"^tune: unknown shake-that-city strategy 'nope' \(strategies: "):
        strategy_class("nope", "shake-that-city")
