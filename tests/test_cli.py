"""The `wtsim` command line and the library entry point `welcometo_sim.run`.

User errors must come out as exactly one line on stderr and exit code 2,
never a traceback. Runs are small and use random players (fast) except where
the bundled default (the strong default strategy in both seats) is the point.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from pandas.testing import assert_frame_equal

import welcometo_sim
from welcometo_sim.compiled_core import engine
from helpers import rendered_houses, user_error, wtsim
from welcometo_sim.cli import main
from welcometo_sim.config import load_config
from welcometo_sim.defaults import STRONG_DEFAULT
from welcometo_sim.games.welcome_to.scoring import SCORE_FIELDS
from welcometo_sim.sim.results import read_table

# Every column RECORDS.md §2 requires.
REQUIRED_COLUMNS = [
    "game", "seed", "seat", "player", "strategy",
    "n_players", "advanced", "expert", "solo", "board",
    "plan1", "plan2", "plan3",
    "total", "rank", "won",
    "plans", "parks", "pools", "temps", "estates", "bonus", "bis", "roundabouts", "refusals",
    "plan1_turn", "plan2_turn", "plan3_turn",
    "plan1_first", "plan2_first", "plan3_first",
    "estates_1", "estates_2", "estates_3", "estates_4", "estates_5", "estates_6",
    "n_temps", "n_bis", "n_pools", "n_parks", "n_refusals", "n_roundabouts",
    "turns", "end_reason",
]
MANIFEST_KEYS = {"version", "seed", "games", "wall_seconds", "games_per_second"}


def run_module(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "welcometo_sim.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def random_config(tmp_path) -> Path:
    path = tmp_path / "three-random.yaml"
    path.write_text(
        "name: three-random\n"
        "games: 5\n"
        "seed: 3\n"
        "players:\n"
        "  - strategy: random\n"
        "    name: alice\n"
        "  - strategy: random\n"
        "    name: bob\n"
        "  - random\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    """One small run (greedy and random) with records, made through the CLI."""
    root = tmp_path_factory.mktemp("recorded")
    config = root / "mixed.yaml"
    config.write_text("name: mixed\nplayers: [greedy, random]\n", encoding="utf-8")
    out = root / "run"
    with _no_exit():
        main(["run", str(config), "--games", "6", "--seed", "5", "--out", str(out), "--records", "--quiet"])
    return out


class _no_exit:
    """Context manager: the command must return normally or exit 0."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is SystemExit:
            assert exc.code in (0, None), f"exit {exc.code}"
            return True
        return False


# ------------------------------------------------------------- user errors
def test_malformed_yaml_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nplayers: [\n  - strategy: greedy\n", encoding="utf-8")
    line = user_error(["run", str(bad), "--out", str(tmp_path / "o")], capsys)
    assert "bad.yaml" in line and "YAML" in line
    assert not (tmp_path / "o").exists()


def test_unknown_strategy_names_the_key(tmp_path, capsys):
    cfg = tmp_path / "unk.yaml"
    cfg.write_text("players:\n  - strategy: gredy\n  - strategy: random\n", encoding="utf-8")
    line = user_error(["run", str(cfg), "--out", str(tmp_path / "o")], capsys)
    assert "players[0].strategy" in line
    assert "gredy" in line


def test_negative_games_is_one_line_exit_2(capsys):
    line = user_error(["run", "--games", "-1"], capsys)
    assert "--games" in line


def test_zero_jobs_is_a_user_error(tmp_path, random_config, capsys):
    line = user_error(["run", str(random_config), "--jobs", "0", "--out", str(tmp_path / "o")], capsys)
    assert "--jobs" in line


def test_unknown_config_key(tmp_path, capsys):
    cfg = tmp_path / "key.yaml"
    cfg.write_text("gamez: 10\nplayers: [random]\n", encoding="utf-8")
    line = user_error(["run", str(cfg)], capsys)
    assert "gamez" in line


def test_unknown_player_key(tmp_path, capsys):
    cfg = tmp_path / "key.yaml"
    cfg.write_text("players:\n  - strategy: random\n    colour: red\n", encoding="utf-8")
    line = user_error(["run", str(cfg)], capsys)
    assert "players[0].colour" in line


def test_missing_config_file(tmp_path, capsys):
    line = user_error(["run", str(tmp_path / "nope.yaml")], capsys)
    assert "nope.yaml" in line


@pytest.mark.parametrize("text, key", [
    ("players: [random]\ngames: 0\n", "games"),
    ("players: [random]\nseed: -3\n", "seed"),
    ("players: [random]\njobs: many\n", "jobs"),
    ("players: []\n", "players"),
    ("42\n", "mapping"),
    ("players: [random]\nvariant: {board: moon}\n", "board"),
    ("players: [random]\nvariant: {plans: [nope, null, null]}\n", "variant.plans[0]"),
    ("players: [{strategy: greedy, params: {weights: {nope: 1}}}]\n", "players[0].params"),
])
def test_bad_config_values(tmp_path, capsys, text, key):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text, encoding="utf-8")
    line = user_error(["run", str(cfg)], capsys)
    assert key in line


def test_user_errors_end_to_end_in_a_subprocess(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("players: [random\n", encoding="utf-8")
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("players:\n  - strategy: nosuch\n", encoding="utf-8")
    for args in (["run", str(bad)], ["run", str(unknown)], ["run", "--games", "-1"],
                 ["run", str(tmp_path / "missing.yaml")]):
        proc = run_module(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert len(proc.stderr.splitlines()) == 1, proc.stderr
        assert proc.stdout == ""
    assert not (tmp_path / "results").exists()


# ---------------------------------------------------------------- running
def test_results_do_not_depend_on_jobs_or_chunks(tmp_path, random_config, capsys):
    common = ["run", str(random_config), "--games", "60", "--seed", "7", "--quiet"]
    code, _, err = wtsim([*common, "--jobs", "2", "--out", str(tmp_path / "j2")], capsys)
    assert code == 0, err
    code, _, err = wtsim([*common, "--jobs", "1", "--chunk-size", "7", "--out", str(tmp_path / "j1")], capsys)
    assert code == 0, err
    code, _, err = wtsim(["run", str(random_config), "--games", "60", "--seed", "8", "--quiet",
                          "--jobs", "1", "--out", str(tmp_path / "s8")], capsys)
    assert code == 0, err
    two, one, other = (read_table(tmp_path / d) for d in ("j2", "j1", "s8"))
    assert len(two) == 60 * 3
    assert_frame_equal(two, one)
    assert list(two["game"]) == [g for g in range(60) for _ in range(3)]
    assert not two[["seed", "total"]].equals(other[["seed", "total"]])
    assert set(two["seed"]).isdisjoint(set(other["seed"]))


def test_output_folder_contents(tmp_path, random_config, capsys):
    out = tmp_path / "run"
    code, stdout, err = wtsim(["run", str(random_config), "--games", "12", "--seed", "4", "--jobs", "1",
                               "--out", str(out), "--records"], capsys)
    assert code == 0, err
    assert {"results.parquet", "config.yaml", "manifest.json", "records.jsonl"} <= {p.name for p in out.iterdir()}
    assert not (out / "results.csv").exists()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert MANIFEST_KEYS <= set(manifest)
    assert manifest["version"] == welcometo_sim.__version__
    assert manifest["engine"] == engine()   # the report's header names it
    assert manifest["seed"] == 4 and manifest["games"] == 12
    assert manifest["wall_seconds"] >= 0 and manifest["games_per_second"] > 0
    lines = (out / "records.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["game"] for line in lines] == list(range(12))
    frame = read_table(out)
    assert len(frame) == 12 * 3
    # The printed summary names the players.
    assert "scores" in stdout and "alice" in stdout and "bob" in stdout
    # The saved config is a valid config that reproduces the run.
    saved = yaml.safe_load((out / "config.yaml").read_text(encoding="utf-8"))
    assert saved["seed"] == 4 and saved["games"] == 12
    code, _, err = wtsim(["run", str(out / "config.yaml"), "--jobs", "1", "--quiet",
                          "--out", str(tmp_path / "again")], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(tmp_path / "again"), frame)


def test_without_records_flag_no_records_file(tmp_path, random_config, capsys):
    out = tmp_path / "run"
    code, _, err = wtsim(["run", str(random_config), "--games", "3", "--out", str(out), "-q"], capsys)
    assert code == 0, err
    assert not (out / "records.jsonl").exists()
    assert (out / "results.parquet").is_file()


def test_csv_format(tmp_path, random_config, capsys):
    code, _, err = wtsim(["run", str(random_config), "--games", "10", "--seed", "2", "--format", "csv",
                          "--out", str(tmp_path / "csv"), "-q"], capsys)
    assert code == 0, err
    code, _, err = wtsim(["run", str(random_config), "--games", "10", "--seed", "2",
                          "--out", str(tmp_path / "pq"), "-q"], capsys)
    assert code == 0, err
    assert (tmp_path / "csv" / "results.csv").is_file()
    assert not (tmp_path / "csv" / "results.parquet").exists()
    raw = pd.read_csv(tmp_path / "csv" / "results.csv")
    assert len(raw) == 30
    assert set(REQUIRED_COLUMNS) <= set(raw.columns)
    from_csv = read_table(tmp_path / "csv")
    from_parquet = read_table(tmp_path / "pq")
    assert_frame_equal(from_csv, from_parquet)


def test_result_table_columns_and_ranks(recorded_run):
    frame = read_table(recorded_run)
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    assert missing == []
    assert len(frame) == 12
    assert (frame["won"] == (frame["rank"] == 1)).all()
    assert (frame[list(SCORE_FIELDS)].sum(axis=1) == frame["total"]).all()
    estate_cols = [f"estates_{s}" for s in range(1, 7)]
    for _game, rows in frame.groupby("game"):
        assert rows["rank"].min() == 1
        keys = [(r["total"], sum(r[c] for c in estate_cols), *(r[c] for c in estate_cols))
                for _i, r in rows.iterrows()]
        for key, rank in zip(keys, rows["rank"]):
            assert rank == 1 + sum(other > key for other in keys)
        # Higher total never ranks worse.
        for _i, a in rows.iterrows():
            for _j, b in rows.iterrows():
                if a["total"] > b["total"]:
                    assert a["rank"] < b["rank"]
        assert rows["turns"].nunique() == 1 and rows["end_reason"].nunique() == 1
        assert set(rows["end_reason"].iloc[0].split("+")) <= {"refusals", "plans", "houses", "deck"}
    assert set(frame["player"]) == {"greedy", "random"}
    assert set(frame["n_players"]) == {2}
    assert not frame["advanced"].any() and not frame["expert"].any() and not frame["solo"].any()
    assert set(frame["board"]) == {"base"}
    for d in (1, 2, 3):
        done = frame[f"plan{d}_turn"].notna()
        assert not frame.loc[~done, f"plan{d}_first"].any()


# --------------------------------------------------------- other commands
def test_summarize_prints_tables(recorded_run, capsys):
    code, out, err = wtsim(["summarize", str(recorded_run)], capsys)
    assert code == 0, err
    for name in ("scores", "breakdown", "endings"):
        assert name in out
    assert "greedy" in out and "random" in out


def test_summarize_csv_is_parseable(recorded_run, capsys):
    code, out, err = wtsim(["summarize", str(recorded_run), "--csv"], capsys)
    assert code == 0, err
    sections: dict[str, list[str]] = {}
    current = None
    for line in out.splitlines():
        if line.startswith("# "):
            current = line[2:]
            sections[current] = []
        elif line.strip():
            assert current is not None, line
            sections[current].append(line)
    assert {"scores", "breakdown", "endings"} <= set(sections)
    scores = pd.read_csv(io.StringIO("\n".join(sections["scores"])), index_col=0)
    assert set(scores.index) == {"greedy", "random"}
    assert (scores["games"] == 6).all()
    breakdown = pd.read_csv(io.StringIO("\n".join(sections["breakdown"])), index_col=0)
    assert set(SCORE_FIELDS) <= set(breakdown.columns)


def test_summarize_json_is_parseable(recorded_run, capsys):
    code, out, err = wtsim(["summarize", str(recorded_run), "--json"], capsys)
    assert code == 0, err
    payload = json.loads(out)
    assert {"scores", "breakdown", "endings"} <= set(payload)
    assert set(payload["scores"]) == {"greedy", "random"}
    frame = read_table(recorded_run)
    mean = frame[frame["player"] == "greedy"]["total"].mean()
    assert payload["scores"]["greedy"]["mean"] == pytest.approx(mean)


def test_summarize_errors(tmp_path, recorded_run, capsys):
    user_error(["summarize", str(tmp_path / "nothing")], capsys)
    user_error(["summarize", str(recorded_run), "--csv", "--json"], capsys)
    empty = tmp_path / "empty"
    empty.mkdir()
    user_error(["summarize", str(empty)], capsys)


def test_show_renders_sheets(recorded_run, capsys):
    records = str(recorded_run / "records.jsonl")
    code, out, err = wtsim(["show", records, "--game", "0"], capsys)
    assert code == 0, err
    record = json.loads((recorded_run / "records.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert "game 0" in out
    assert "seat 0: greedy" in out and "seat 1: random" in out
    for street in range(3):
        assert sum(line.startswith(f"{street}: |") for line in out.splitlines()) == 2
    assert f"end after turn {record['end']['turn']}" in out
    for entry in record["final"]:
        assert f"total {entry['score']['total']}" in out
    assert rendered_houses(out) == [entry["sheet"]["houses"] for entry in record["final"]]


def test_show_after_a_turn(recorded_run, capsys):
    records = str(recorded_run / "records.jsonl")
    code, out, err = wtsim(["show", records, "--game", "1", "--turn", "3"], capsys)
    assert code == 0, err
    assert "game 1" in out and "turn 3" in out
    assert "end after turn" not in out
    record = json.loads((recorded_run / "records.jsonl").read_text(encoding="utf-8").splitlines()[1])
    expected = [[[None] * n for n in (10, 11, 12)] for _ in record["players"]]
    for turn in record["turns"][:3]:
        for a in turn["actions"]:
            if a["written"] is not None:
                w = a["written"]
                expected[a["seat"]][w["street"]][w["house"]] = str(w["number"])
            if a["effect"] is not None and a["effect"]["kind"] == "bis":
                e = a["effect"]
                expected[a["seat"]][e["street"]][e["house"]] = f"{e['number']}b"
    assert rendered_houses(out) == expected


def test_show_unknown_game(recorded_run, capsys):
    line = user_error(["show", str(recorded_run / "records.jsonl"), "--game", "999"], capsys)
    assert "999" in line


def test_show_malformed_record_is_a_user_error(recorded_run, tmp_path, capsys):
    """A record without its `end` block (e.g. cut short) is bad input: one line, exit 2."""
    record = json.loads((recorded_run / "records.jsonl").read_text(encoding="utf-8").splitlines()[0])
    del record["end"]
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(record) + "\n", encoding="utf-8")
    user_error(["show", str(broken), "--game", "0"], capsys)


def test_show_missing_file(tmp_path, capsys):
    user_error(["show", str(tmp_path / "none.jsonl"), "--game", "0"], capsys)


def test_verify_command(recorded_run, tmp_path, capsys):
    records = recorded_run / "records.jsonl"
    code, out, err = wtsim(["verify", str(records)], capsys)
    assert code == 0, err
    assert "6 records checked, 0 with problems" in out
    # A tampered score is reported and the exit code is not 0.
    lines = records.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2])
    record["final"][0]["score"]["total"] += 5
    lines[2] = json.dumps(record)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = wtsim(["verify", str(bad)], capsys)
    assert code != 0 and code != 2
    assert "bad.jsonl:3:" in out
    assert "1 with problems" in out


def test_verify_missing_file(tmp_path, capsys):
    user_error(["verify", str(tmp_path / "none.jsonl")], capsys)


def test_strategies_lists_builtins(capsys):
    code, out, err = wtsim(["strategies"], capsys)
    assert code == 0, err
    names = {line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")}
    assert {"random", "greedy"} <= names


def test_end_to_end_run_in_a_subprocess(tmp_path, random_config):
    proc = run_module("run", str(random_config), "--games", "4", "--out", str(tmp_path / "o"),
                      "--records", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_module("verify", str(tmp_path / "o" / "records.jsonl"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 records checked, 0 with problems" in proc.stdout


def test_python_dash_m_knows_every_command(tmp_path):
    """`python -m welcometo_sim.cli` offers the analysis commands too."""
    proc = run_module("--help", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for command in ("run", "compare", "plans", "sweep", "tune", "verify"):
        assert f"  {command} " in proc.stdout, command
    proc = run_module("compare", "random", "random:roundabout_rate=0.1", "--games", "2", "--quiet",
                      cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "win_rates" in proc.stdout


# ------------------------------------------------------------ library API
def test_run_returns_a_frame_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = welcometo_sim.run(games=10, seed=1)
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == 20
    assert set(REQUIRED_COLUMNS) <= set(frame.columns)
    assert set(frame["player"]) == {STRONG_DEFAULT, "heuristic"}
    assert list(frame["game"]) == [g for g in range(10) for _ in range(2)]
    assert not (tmp_path / "results").exists()
    assert list(tmp_path.iterdir()) == []


def test_bundled_default_config_is_two_players_that_differ():
    spec = load_config(None)
    assert [p.strategy.id for p in spec.players] == [STRONG_DEFAULT, "heuristic"]


def test_default_output_folder_is_under_results(tmp_path, random_config, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = wtsim(["run", str(random_config), "--games", "2", "--quiet"], capsys)
    assert code == 0, err
    folders = list((tmp_path / "results").iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("three-random-")
    assert len(read_table(folders[0])) == 6


def test_run_with_out_writes_the_folder(tmp_path, random_config):
    frame = welcometo_sim.run(random_config, games=3, seed=9, out=tmp_path / "lib")
    assert_frame_equal(read_table(tmp_path / "lib"), frame)
    assert (tmp_path / "lib" / "manifest.json").is_file()
