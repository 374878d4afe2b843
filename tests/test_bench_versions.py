"""`benchmarks/bench_versions.py`: the swap of one function between two
versions inside running games, its checksum of the games, and its errors."""

from __future__ import annotations

import types

import pytest

from helpers import benchmark_module
from welcometo_sim.games.welcome_to import effects, game


@pytest.fixture(scope="module")
def bench():
    return benchmark_module("bench_versions")


def test_a_function_against_itself_at_head_plays_the_same_games_and_is_put_back(bench):
    figures = bench.compare("HEAD", "welcometo_sim.games.welcome_to.effects:legal_plays", "random:1", 4)
    assert figures["same"] is True
    assert figures["bindings"] >= 2  # effects' own name and the game's import of it
    assert game.legal_plays is effects.legal_plays
    assert figures["old_us"] > 0 and figures["new_us"] > 0


def test_a_version_that_plays_other_moves_is_reported(bench, monkeypatch):
    todays = effects.legal_plays

    def reversed_plays(sheet, offers):
        return todays(sheet, offers)[::-1]

    old = types.SimpleNamespace(legal_plays=reversed_plays)
    monkeypatch.setattr(bench, "old_module", lambda revision, name: old)
    monkeypatch.setattr(bench, "lookup", lambda root, path, where: getattr(root, path[-1]))
    figures = bench.compare("HEAD", "welcometo_sim.games.welcome_to.effects:legal_plays", "random:1", 6)
    assert figures["same"] is False
    assert game.legal_plays is effects.legal_plays


def test_a_strategy_class_is_swapped_where_the_loader_keeps_it(bench, monkeypatch):
    from strategies.random import RandomStrategy
    from welcometo_sim import strategy

    class Reversed(RandomStrategy):
        def choose_play(self, view, plays):
            return super().choose_play(view, plays[::-1])

    old = types.SimpleNamespace(RandomStrategy=Reversed)
    monkeypatch.setattr(bench, "old_module", lambda revision, name: old)
    monkeypatch.setattr(bench, "lookup", lambda root, path, where: getattr(root, path[-1]))
    figures = bench.compare("HEAD", "strategies.random:RandomStrategy", "random:1", 6)
    assert figures["same"] is False  # the games saw the old class, through the loader's cache
    assert figures["bindings"] >= 2
    assert strategy.load_strategy("random") is RandomStrategy


@pytest.mark.parametrize("target, line, message", [
    ("welcometo_sim.games.welcome_to.effects", "random:1", "expected MODULE:NAME"),
    ("welcometo_sim.games.welcome_to.effects:no_such_function", "random:1", "has no no_such_function"),
    ("no_such_module:x", "random:1", "No module named 'no_such_module'"),
    ("welcometo_sim.games.welcome_to.effects:legal_plays", "random:9", "1 to 5 players or solo"),
])
def test_bad_targets_and_lines_are_one_line_errors(bench, target, line, message):
    with pytest.raises(bench.VersionError, match=message):
        bench.compare("HEAD", target, line, 2)


def test_an_unknown_revision_names_the_file_it_asked_git_for(bench):
    with pytest.raises(bench.VersionError, match="no-such-revision:welcometo_sim/games/welcome_to/effects.py"):
        bench.compare("no-such-revision", "welcometo_sim.games.welcome_to.effects:legal_plays", "random:1", 2)


def test_an_old_module_that_does_not_load_beside_todays_code_is_one_line(bench, monkeypatch):
    shown = types.SimpleNamespace(returncode=0, stdout="from .sheet import a_name_long_gone\n", stderr="")
    monkeypatch.setattr(bench.subprocess, "run", lambda *args, **kwargs: shown)
    with pytest.raises(bench.VersionError, match="does not load beside today's code: ImportError"):
        bench.compare("HEAD", "welcometo_sim.games.welcome_to.effects:legal_plays", "random:1", 2)
