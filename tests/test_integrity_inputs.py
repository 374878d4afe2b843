"""Bounded inputs and one-line errors.

An alias bomb, a huge count, /dev/zero as a file, more workers than cores, a
full disk or an output folder that cannot exist: each is answered in one
line with exit code 2 (or handled), quickly, never with a traceback.
"""

from __future__ import annotations

import errno
import json
import time
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from helpers import user_error, wtsim
from welcometo_sim.sim.results import read_table

LAUGHS = "".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n',
        *(f"{b}: &{b} [{','.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefg", "bcdefgh")),
    ]
)


def quick_user_error(argv: list[str], capsys, seconds: float = 1.5) -> str:
    started = time.perf_counter()
    line = user_error(argv, capsys)
    assert time.perf_counter() - started < seconds, argv
    return line


@pytest.fixture()
def pair(tmp_path: Path) -> Path:
    path = tmp_path / "pair.yaml"
    path.write_text("name: pair\nplayers: [random, {strategy: random, name: other}]\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("key, value", [
    ("name", "*h"), ("games", "*h"), ("variant", "{board: *h}"), ("on_error", "*h"), ("scheduler", "*h"),
    ("overrides", "{plans: *h}"), ("players", "[{strategy: random, params: {weights: *h}}]"),
])
def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path, capsys, key, value):
    path = tmp_path / "bomb.yaml"
    players = "" if key == "players" else "players: [random]\n"
    path.write_text(f"{LAUGHS}{players}{key}: {value}\n", encoding="utf-8")
    assert len(path.read_bytes()) < 1000
    line = quick_user_error(["run", str(path), "--out", str(tmp_path / "o"), "-q"], capsys)
    assert "expands to more than" in line
    assert not (tmp_path / "o").exists()


def test_an_alias_that_contains_itself_is_refused(tmp_path, capsys):
    path = tmp_path / "loop.yaml"
    path.write_text("players: [random]\nname: &n [*n]\n", encoding="utf-8")
    assert "refers to the value that contains it" in quick_user_error(["run", str(path), "-q"], capsys)


def test_shared_values_within_the_bounds_still_load(tmp_path):
    from welcometo_sim.config import bounded_yaml, load_config

    assert bounded_yaml("a: &a [1, 2]\nb: [*a, *a]\n") == {"a": [1, 2], "b": [[1, 2], [1, 2]]}
    path = tmp_path / "shared.yaml"
    path.write_text("players:\n  - {strategy: greedy, params: &p {shortlist: 3}}\n"
                    "  - {strategy: greedy, name: other, params: *p}\n", encoding="utf-8")
    assert [p.strategy.params for p in load_config(path).players] == [{"shortlist": 3}] * 2


@pytest.mark.parametrize("text, problem", [
    ("games: 100000000000000000000000000000\n", "games: must be at most 100000000"),
    ("games: " + "9" * 4000 + "\n", "games: must be at most"),
    ("seed: " + "9" * 200 + "\n", "seed: must be at most"),
    ("chunk_size: 1000000000000\n", "chunk_size: must be at most"),
    ("jobs: 100000\n", "jobs: must be at most"),
    (f"name: {'x' * 300}\n", "name: at most 200 bytes"),
])
def test_huge_numbers_and_names_in_a_config(tmp_path, capsys, text, problem):
    path = tmp_path / "big.yaml"
    path.write_text("players: [random]\n" + text, encoding="utf-8")
    line = quick_user_error(["run", str(path), "-q"], capsys)
    assert problem in line and len(line) < 300


@pytest.mark.parametrize("argv", [
    ["run", "--games", "100000000000000000000"],
    ["run", "--games", "1e20"],
    ["run", "--seed", "9" * 100],
    ["run", "--jobs", "-100"],
    ["run", "--move-timeout", "nan"],
    ["run", "--move-timeout", "inf"],
    ["plans", "--games-per-plan", "100000000000000000000000"],
    ["compare", "random", "random", "--games", "100000000000000000000"],
    ["compare", "greedy:shortlist=[", "random", "--games", "2"],
])
def test_huge_or_impossible_options(tmp_path, capsys, argv):
    line = quick_user_error([*argv, "-q"], capsys)
    assert "Traceback" not in line


def test_a_run_with_nan_timeout_from_the_library_is_refused(pair):
    from welcometo_sim.api import resolve_spec
    from welcometo_sim.config import ConfigError

    for value in (float("nan"), float("inf"), -1.0):
        with pytest.raises(ConfigError, match="--move-timeout: must be a positive number"):
            resolve_spec(pair, move_timeout=value)


def test_dev_zero_as_any_input_file(tmp_path, capsys):
    zero = "/dev/zero"
    assert "larger than" in quick_user_error(["run", zero, "-q"], capsys)
    path = tmp_path / "params.yaml"
    path.write_text(f"players: [{{strategy: random, params_file: {zero}}}]\n", encoding="utf-8")
    assert "params_file: /dev/zero: not a regular file" in quick_user_error(["run", str(path), "-q"], capsys)
    assert "a line longer than" in quick_user_error(["verify", zero], capsys, seconds=3)
    assert "a line longer than" in quick_user_error(["show", zero, "-g", "0"], capsys, seconds=3)


def test_a_record_with_a_huge_integer_is_one_line(tmp_path, capsys):
    path = tmp_path / "big.jsonl"
    path.write_text('{"game": ' + "9" * 5000 + "}\n", encoding="utf-8")
    assert "big.jsonl:1: not valid JSON" in quick_user_error(["verify", str(path)], capsys)


def test_more_jobs_than_cores_are_capped(tmp_path, pair, capsys, monkeypatch):
    from joblib import cpu_count

    from welcometo_sim.sim.runner import effective_jobs

    code, _, err = wtsim(["run", str(pair), "--games", "4", "--jobs", "500", "--out", str(tmp_path / "o"), "-q"],
                         capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "o" / "manifest.json").read_text())["jobs"] == min(500, cpu_count())
    monkeypatch.setenv("WTSIM_OVERSUBSCRIBE", "1")
    assert effective_jobs(500) == 500


# ------------------------------------------------------------ full disks
def _full_disk(monkeypatch, after: int = 0):
    """Writes of whole files fail with ENOSPC after `after` of them succeeded."""
    calls = []

    def failing(original):
        def write(self, *args, **kwargs):
            calls.append(self)
            if len(calls) > after:
                raise OSError(errno.ENOSPC, "No space left on device", str(self))
            return original(self, *args, **kwargs)
        return write

    monkeypatch.setattr(Path, "write_bytes", failing(Path.write_bytes))
    monkeypatch.setattr(Path, "write_text", failing(Path.write_text))


def test_a_full_disk_while_chunks_are_written_is_one_line_and_resumable(tmp_path, pair, capsys, monkeypatch):
    out = tmp_path / "full"
    argv = ["run", str(pair), "--games", "12", "--chunk-size", "3", "--jobs", "1", "--records", "-q"]
    _full_disk(monkeypatch, after=6)  # config, manifest, two chunks' records and tables, then full
    code, _, err = wtsim([*argv, "--out", str(out)], capsys)
    monkeypatch.undo()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "no space left on the device" in err
    assert f"wtsim run --resume {out}" in err
    assert not [p for p in (out / "chunks").iterdir() if p.name.endswith(".tmp")]
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    code, _, err = wtsim(["run", "--resume", str(out), "-q"], capsys)
    assert code == 0, err
    code, _, err = wtsim([*argv, "--out", str(tmp_path / "clean")], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(out), read_table(tmp_path / "clean"))


def test_compare_on_a_full_disk_leaves_no_empty_table(tmp_path, capsys, monkeypatch):
    out = tmp_path / "cmp"

    def full(self, path=None, *args, **kwargs):
        if path is not None:
            Path(path).write_bytes(b"")
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return original(self, path, *args, **kwargs)

    original = pd.DataFrame.to_csv
    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    line = user_error(["compare", "random", "random", "--games", "3", "--jobs", "1", "--out", str(out), "-q"],
                      capsys)
    assert "no space left on the device" in line
    assert [p.name for p in out.iterdir()] == []


def test_summarize_of_a_parquet_run_without_pyarrow(tmp_path, pair, capsys, monkeypatch):
    from welcometo_sim.sim import results

    out = tmp_path / "run"
    code, _, err = wtsim(["run", str(pair), "--games", "3", "--out", str(out), "-q"], capsys)
    assert code == 0, err
    monkeypatch.setattr(results, "parquet_available", lambda: False)
    assert "needs pyarrow" in user_error(["summarize", str(out)], capsys)
