"""A third game, registered by this test alone (tests/games/toy_race.py: its
State and a StateGame description), plays through the commands with no
change to the machinery: run, summarize, compare, verify, show (text and the
viewer's data), tune, sweep, the PettingZoo environment and the contract's
stepping."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from browser import chromium, needs_chromium

from welcometo_sim.games import GAMES, load_game, register_game
from welcometo_sim.games.contract import play_out

TOY = "toy-race"


@pytest.fixture(autouse=True)
def registered():
    register_game(TOY, "tests.games.toy_race")
    yield
    GAMES.pop(TOY, None)


def wtsim(*args: str):
    from welcometo_sim.cli import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "toy.yaml"
    path.write_text(f"name: toy\ngame: {TOY}\ngames: 40\nseed: 3\njobs: 1\nvariant: {{rounds: 5, limit: 12}}\n"
                    "players:\n  - strategy: random\n  - strategy: first\n")
    return path


def test_a_run_writes_the_games_rows_and_records_that_verify(tmp_path, config):
    out = tmp_path / "run"
    done = wtsim("run", str(config), "--records", "--quiet", "--out", str(out))
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 40 and [r["game"] for r in records] == list(range(40))
    first = records[0]
    assert first["format"] == "welcometo-sim/toy-race/game/1"
    assert [p["strategy"] for p in first["players"]] == ["random", "first"]
    # "first" always takes: its pile is every card of the game, over the limit it scores nothing
    for record in records:
        assert len(record["moves"]) == 2 * 5
        assert all(row["chips"] == 0 for row in record["final"] if row["seat"] == 1)
    verified = wtsim("verify", str(out / "records.jsonl"))
    assert verified.exit_code == 0, verified.output
    summary = wtsim("summarize", str(out), "--json")
    assert summary.exit_code == 0, summary.output


def test_verify_finds_a_record_whose_score_was_changed(tmp_path, config):
    out = tmp_path / "run"
    assert wtsim("run", str(config), "--records", "--quiet", "--out", str(out), "--games", "3").exit_code == 0
    lines = (out / "records.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    record["final"][0]["chips"] += 1
    lines[1] = json.dumps(record)
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(lines) + "\n")
    done = wtsim("verify", str(tampered))
    assert done.exit_code != 0
    assert "final scores" in done.output


def test_the_game_replays_its_record_and_steps_through_the_contract():
    game = load_game(TOY, {"variant": {"rounds": 4}}, 3)
    result = game.play(["random", "random", "first"], 11)
    assert game.replay(result.record).rows == result.rows
    state = play_out(game.new_state(3, 11), lambda decision: decision[2][0])
    assert state.is_over and len(state.scores()) == 3
    page = game_module_page(result.record)
    assert page["kind"] == "text" and len(page["states"]) == len(result.record["moves"]) + 1
    assert "seat 2: pile" in game.render(result.record)


def game_module_page(record):
    from welcometo_sim.games import capabilities
    from importlib import import_module

    module, _, function = capabilities(TOY).viewer.partition(":")
    return getattr(import_module(module), function)(record, None)


def test_compare_ranks_the_strategies_on_paired_seeds(tmp_path, config):
    done = wtsim("compare", "random", "first", "--config", str(config), "--games", "30", "--json")
    assert done.exit_code == 0, done.output
    document = json.loads(done.output)
    pair = document["pairs"]["random vs first"]
    assert pair["games"] == 30 and pair["mean_diff_low"] > 0  # banking beats busting
    assert set(document["breakdown"]["first"]) == {"pile", "chips", "objectives", "total"}


def test_a_strategy_of_another_game_is_one_line(config, capsys):
    from welcometo_sim.cli.commands import main

    with pytest.raises(SystemExit) as stopped:
        main(["compare", "greedy", "first", "--config", str(config), "--games", "4"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "'greedy' is a welcome-to strategy, not one of toy-race" in error


def test_the_pettingzoo_environment_passes_the_api_test():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test, seed_test

    from welcometo_sim.envs import env

    environment = env(game=TOY, players=2)
    api_test(environment, num_cycles=30)
    seed_test(lambda: env(game=TOY, players=2), num_cycles=10)


def test_a_sweep_over_a_game_parameter(config):
    done = wtsim("sweep", str(config), "--set", "variant.limit=12,30", "--games", "20", "--json")
    assert done.exit_code == 0, done.output
    rows = json.loads(done.output)["rows"]
    first_scores = [r for r in rows if r["measure"] == "score first"]
    assert len(first_scores) == 2  # one per grid point
    assert first_scores[1]["value"] > first_scores[0]["value"]  # a higher limit busts "first" less


def test_plans_measures_the_objectives_with_a_skill_trace(config):
    done = wtsim("plans", str(config), "--games-per-plan", "30", "--strategies", "first,random", "--json")
    assert done.exit_code == 0, done.output
    document = json.loads(done.output)
    skill = {(row["plan"], row["skill"]): row for row in document["skill"].values()}
    # "first" always takes: its pile passes 10 in every game, and it never banks a chip
    assert skill[("pile-10", "first")]["completion_rate"] == 1.0
    assert skill[("chips-3", "first")]["completion_rate"] == 0.0


def test_balance_lowers_an_over_strong_objective(tmp_path):
    path = tmp_path / "strong.yaml"
    path.write_text(f"name: strong\ngame: {TOY}\ngames: 40\nseed: 3\njobs: 1\nvariant: {{rounds: 5, limit: 12}}\n"
                    "overrides: {objectives: {pile-10: 20}}\nplayers:\n  - strategy: random\n  - strategy: random\n")
    out = tmp_path / "balanced.yaml"
    done = wtsim("balance", str(path), "--deck", "1", "--games", "40", "--rounds", "2", "--final-games", "40",
                 "--out", str(out), "--quiet")
    assert done.exit_code == 0, done.output
    import yaml

    points = yaml.safe_load(out.read_text())["overrides"]["objectives"]
    assert points["pile-10"] < 20 and points["pile-10"] > points["chips-3"] - 10
    assert wtsim("run", str(out), "--games", "4", "--quiet", "--out", str(tmp_path / "run")).exit_code == 0


@needs_chromium
def test_the_replay_viewer_steps_through_the_game_as_text(tmp_path, config):
    """`show --html` of a kit game: the page opens at the end and steps back
    and forth through the game's text after every decision (headless Chromium)."""
    pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    out = tmp_path / "run"
    assert wtsim("run", str(config), "--records", "--quiet", "--out", str(out), "--games", "2").exit_code == 0
    page = tmp_path / "game.html"
    done = wtsim("show", str(out / "records.jsonl"), "--game", "1", "--html", "--out", str(page))
    assert done.exit_code == 0, done.output
    record = json.loads((out / "records.jsonl").read_text().splitlines()[1])
    game = load_game(TOY, record["variant"], 2)
    with chromium() as driver:
        driver.get(page.resolve().as_uri())
        text = lambda: driver.find_element(By.CSS_SELECTOR, "pre[data-text]").text
        assert text() == str(game_state_after(record, len(record["moves"])))
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        assert text() == str(game_state_after(record, 2))
        finals = driver.execute_script("return [...document.querySelectorAll('td.cat-total')].map(c => c.textContent)")
        assert finals == [str(row["total"]) for row in record["final"]]


def game_state_after(record, steps):
    from tests.games.toy_race import GAME

    return GAME.replayed(record, steps)


def test_train_refuses_a_game_without_a_learned_player_in_one_line(tmp_path, config):
    done = wtsim("train", str(config), "--out", str(tmp_path / "never"), "--games", "1")
    assert done.exit_code == 2
    assert done.output.strip().endswith(f"{config}: game: wtsim train plays Welcome To and Shake That City only, "
                                        f"not {TOY}")
    assert len(done.output.strip().splitlines()) == 1
    assert not (tmp_path / "never").exists()
