"""The Python API (welcometo_sim.run, compare, plans, sweep, tune) gives what
the commands print: on a dict config and on the same config as a file, the
frames equal the command's --json or --csv output for the same seed."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

import welcometo_sim
from helpers import wtsim
from welcometo_sim.cli.common import json_tables
from welcometo_sim.config import ConfigError

CONFIG = {"games": 4, "seed": 5, "players": ["greedy", "random"]}
ROOT = Path(__file__).resolve().parents[1]
API_PAGE = ROOT / "docs" / "api.md"


@pytest.fixture
def config_path(tmp_path: Path) -> str:
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    return str(path)


def cli_json(argv: list[str], capsys) -> dict:
    code, out, err = wtsim([*argv, "--json", "--quiet"], capsys)
    assert code == 0, err
    return json.loads(out)


def test_run_on_a_dict_equals_the_run_of_the_same_file(config_path):
    from_dict = welcometo_sim.run(CONFIG)
    from_file = welcometo_sim.run(config_path)
    pd.testing.assert_frame_equal(from_dict, from_file)
    assert len(from_dict) == 4 * 2 and set(from_dict["strategy"]) == {"greedy", "random"}


def test_run_overrides_players_variant_and_games():
    frame = welcometo_sim.run(CONFIG, players=["random", "random", "random"], variant={"expert": True}, games=2)
    assert len(frame) == 2 * 3 and frame["expert"].all() and set(frame["strategy"]) == {"random"}


def test_a_bad_key_in_a_dict_is_the_error_of_the_same_key_in_a_file(tmp_path):
    bad = {**CONFIG, "gmaes": 3}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad), encoding="utf-8")
    with pytest.raises(ConfigError) as from_file:
        welcometo_sim.run(str(path))
    assert "gmaes" in str(from_file.value)
    expected = str(from_file.value).replace(str(path), "<dict>")
    for call in (lambda: welcometo_sim.run(bad), lambda: welcometo_sim.compare(config=bad),
                 lambda: welcometo_sim.sweep(bad, ["games=2,3"])):
        with pytest.raises(ConfigError) as from_dict:
            call()
        assert str(from_dict.value) == expected


def test_the_progress_callback_counts_up_to_the_total():
    seen: list[tuple[int, int]] = []
    welcometo_sim.run(CONFIG, games=6, progress=lambda done, total: seen.append((done, total)))
    done = [d for d, _ in seen]
    assert seen[0] == (0, 6) and seen[-1] == (6, 6)
    assert done == sorted(done) and len(set(done)) == len(done) and {t for _, t in seen} == {6}
    seen.clear()
    welcometo_sim.compare(config=CONFIG, games=3, progress=lambda done, total: seen.append((done, total)))
    done = [d for d, _ in seen]
    assert done[0] == 0 and done == sorted(done) and seen[-1][0] == seen[-1][1] >= 3


def test_compare_equals_compare_json(config_path, capsys):
    document = cli_json(["compare", "--config", config_path, "--games", "3"], capsys)
    for config in (CONFIG, config_path):
        result = welcometo_sim.compare(config=config, games=3)
        assert json_tables(result.tables) == {name: document[name] for name in result.tables}
    assert document["command"] == "compare" and document["seed"] == 5


def test_named_strategies_and_sequential_compare_equal_the_json(capsys):
    argv = ["compare", "random", "greedy", "--until-significant", "--batch", "4", "--max-games", "8",
            "--effect", "100", "--seed", "2"]
    document = cli_json(argv, capsys)
    result = welcometo_sim.compare(["random", "greedy"], until_significant=True, batch=4, max_games=8,
                                   effect=100, seed=2)
    assert document["sequential"]["verdict"] == result.sequential.verdict
    assert document["sequential"]["games"] == result.sequential.games == len(result.frame) // 2
    assert document["looks"] == json_tables({"looks": result.sequential.looks})["looks"]
    assert json_tables(result.tables)["pairs"] == document["pairs"]


def test_plans_equals_plans_json(config_path, capsys):
    argv = ["plans", config_path, "--games-per-plan", "1", "--deck", "3", "--strategy", "random"]
    document = cli_json(argv, capsys)
    for config in (CONFIG, config_path):
        study = welcometo_sim.plans(config, games_per_plan=1, decks=[3], strategy="random")
        assert json_tables(study.tables) == {name: document[name] for name in study.tables}
    assert set(document["plans"]) == set(study.trials["forced_plan"])


def test_sweep_equals_sweep_csv(config_path, capsys):
    setting = "variant.board=base,ice-cream"
    code, out, err = wtsim(["sweep", config_path, "--set", setting, "--games", "2", "--csv", "--quiet"], capsys)
    assert code == 0, err
    for config in (CONFIG, config_path):
        table = welcometo_sim.sweep(config, [setting], games=2)
        assert table.to_csv(index=False) == out
    assert table.attrs["facts"]["grid_points"] == 2


def test_tune_equals_tune_json(config_path, capsys, tmp_path):
    args = dict(opponents=["random"], games=2, trials=2, top=1, final_games=2, seed=4)
    argv = ["tune", "greedy", "--param", "shortlist=2:4", "--opponent", "random", "--games", "2", "--trials", "2",
            "--top", "1", "--final-games", "2", "--seed", "4", "--config", config_path,
            "--out", str(tmp_path / "best.yaml")]
    document = cli_json(argv, capsys)
    tuned = welcometo_sim.tune("greedy", {"shortlist": "2:4"}, config=config_path, **args)
    tables = json_tables({"trials": tuned.trials, "finalists": tuned.finalists})
    assert tables == {"trials": document["trials"], "finalists": document["finalists"]}
    assert document["params"] == tuned.best["params"]
    assert yaml.safe_load((tmp_path / "best.yaml").read_text()) == tuned.best
    from_dict = welcometo_sim.tune("greedy", ["shortlist=2:4"], config=CONFIG, **args)
    pd.testing.assert_frame_equal(from_dict.trials, tuned.trials)


def test_compare_json_is_the_only_thing_on_stdout_of_the_real_command(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "welcometo_sim", "compare", "random", "random", "--games", "2",
                           "--json", "--out", str(tmp_path / "cmp")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.load(io.StringIO(proc.stdout))["command"] == "compare"
    assert "tables written to" in proc.stderr


def api_page_examples() -> list[str]:
    """The Python blocks of the manual's "Python API" page."""
    return re.findall(r"```python\n(.*?)```", API_PAGE.read_text(encoding="utf-8"), flags=re.S)


def test_the_api_page_examples_run(tmp_path, monkeypatch):
    examples = api_page_examples()
    assert len(examples) >= 5
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for code in examples:
        exec(compile(code, "docs/api.md", "exec"), namespace)  # noqa: S102


def test_progress_true_draws_a_tqdm_bar(capsys):
    welcometo_sim.run(CONFIG, games=2, progress=True)
    assert "2/2" in capsys.readouterr().err


def test_tune_is_the_function_and_tuning_the_search_module():
    import welcometo_sim.tuning

    assert callable(welcometo_sim.tune) and welcometo_sim.tune.__module__ == "welcometo_sim.analyses"
    assert welcometo_sim.tuning.TuneSettings and welcometo_sim.sweep.__module__ == "welcometo_sim.analyses"


def test_balance_equals_the_config_balance_writes(config_path, capsys, tmp_path):
    out = tmp_path / "balanced.yaml"
    argv = ["balance", config_path, "--deck", "3", "--games", "1", "--rounds", "1", "--final-games", "1",
            "--strategy", "random", "--out", str(out), "-q"]
    code, printed, err = wtsim(argv, capsys)
    assert code == 0, err
    settings = dict(deck=3, games=1, rounds=1, final_games=1, strategy="random")
    from_file = welcometo_sim.balance(config_path, **settings)
    assert yaml.safe_load(out.read_text()) == from_file.config and from_file.config["overrides"] is not None
    from_dict = welcometo_sim.balance(CONFIG, **settings)
    assert from_dict.config == {**from_file.config, "name": "run"}  # a dict's config is named run
    assert "spread (best - worst)" in from_dict.confirmation.index and len(from_dict.rounds) == 1
