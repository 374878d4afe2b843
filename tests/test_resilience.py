"""Resumable runs and the errors policy.

Runs are interrupted for real (a worker killed with SIGKILL in a subprocess,
Ctrl-C in-process, a strategy error under `on_error: fail`) and then resumed;
the finished tables must equal those of a run that was never interrupted.
Players are random (fast); the misbehaving strategies below subclass it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from helpers import user_error, wtsim
from welcometo_sim.api import execute, resolve_spec
from welcometo_sim.sim.results import read_errors, read_summary_frame, read_table

BOTS = textwrap.dedent('''
    import os
    import signal
    import time

    from welcometo_sim.strategies.random import RandomStrategy

    GAMES_STARTED = 0


    class DiesAfter(RandomStrategy):
        """Plays like random; when the game number $DIE_AFTER_GAMES of this process
        starts, the whole run is killed (SIGKILL, like the OOM killer): the command
        (this worker's parent, once it has written the finished chunks) and this
        process. A strategy that kills only its own process is a strategy error
        now (tests/test_supervision.py)."""

        def __init__(self, rng, params=None):
            super().__init__(rng, params)
            global GAMES_STARTED
            GAMES_STARTED += 1
            if str(GAMES_STARTED) == os.environ.get("DIE_AFTER_GAMES"):
                import time
                time.sleep(1.0)
                os.kill(os.getppid(), 9)
                os.kill(os.getpid(), 9)


    class CtrlC(RandomStrategy):
        """Plays like random; the user presses Ctrl-C during game $CTRL_C_AT_GAME
        (the terminal signals the command and its worker process, where this plays)."""

        def __init__(self, rng, params=None):
            super().__init__(rng, params)
            global GAMES_STARTED
            GAMES_STARTED += 1
            if str(GAMES_STARTED) == os.environ.get("CTRL_C_AT_GAME"):
                import time
                kept = os.environ.get("CTRL_C_AFTER_FILE")  # a chunk the run has finished: on disk first
                deadline = time.monotonic() + 30
                while kept and not os.path.exists(kept) and time.monotonic() < deadline:
                    time.sleep(0.01)
                os.kill(os.getpid(), signal.SIGINT)
                os.kill(os.getppid(), signal.SIGINT)


    class Flaky(RandomStrategy):
        """Plays like random, but in a share `rate` of its games (drawn from its
        own generator, so always the same games) it raises on turn 3."""

        defaults = {**RandomStrategy.defaults, "rate": 0.25}

        def __init__(self, rng, params=None):
            super().__init__(rng, params)
            self.broken = self.rng.random() < self.params["rate"]

        def choose_play(self, view, plays):
            if self.broken and view.turn == 3:
                raise RuntimeError("flaky bot gave up")
            return super().choose_play(view, plays)


    class Slow(Flaky):
        """Like Flaky, but instead of raising it thinks for 0.3 s on turn 3."""

        def choose_play(self, view, plays):
            if self.broken and view.turn == 3:
                time.sleep(0.3)
            return RandomStrategy.choose_play(self, view, plays)
''')


@pytest.fixture()
def bots(tmp_path: Path) -> Path:
    path = tmp_path / "bots.py"
    path.write_text(BOTS, encoding="utf-8")
    return path


def config_with(tmp_path: Path, bots: Path, bot: str, extra: str = "", params: str = "{}") -> Path:
    path = tmp_path / f"{bot.lower()}.yaml"
    path.write_text(f"name: {bot.lower()}\nseed: 11\n"
                    f"players: [random, {{strategy: '{bots}:{bot}', params: {params}}}]\n{extra}",
                    encoding="utf-8")
    return path


def run_args(config: Path, out: Path, *extra: str) -> list[str]:
    return ["run", str(config), "--games", "40", "--chunk-size", "5", "--out", str(out), "--quiet", *extra]


def chunk_files(folder: Path) -> list[str]:
    chunks = folder / "chunks"
    return sorted(p.name for p in chunks.iterdir() if not p.name.startswith(".")) if chunks.is_dir() else []


# ------------------------------------------------------------- interrupted
def test_a_killed_run_resumes_to_the_same_tables(tmp_path, bots, capsys):
    config = config_with(tmp_path, bots, "DiesAfter")
    killed = tmp_path / "killed"
    env = {**os.environ, "DIE_AFTER_GAMES": "23"}
    proc = subprocess.run([sys.executable, "-m", "welcometo_sim.cli", *run_args(config, killed, "--records",
                                                                              "--jobs", "1")],
                          env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == -9, proc.stderr
    # Games 0-21 finished: the four chunks of games 0-19 are on disk, the fifth was in flight.
    assert chunk_files(killed) == [f"{a:02d}-{a + 5:02d}.{ext}" for a in range(0, 20, 5)
                                   for ext in ("parquet", "records.jsonl")]
    assert json.loads((killed / "manifest.json").read_text())["status"] == "running"
    assert not (killed / "results.parquet").exists()
    user_error(["summarize", str(killed)], capsys)

    code, out, err = wtsim(["run", "--resume", str(killed), "--jobs", "2"], capsys)
    assert code == 0, err
    assert "20 missing games of 40" in out
    clean = tmp_path / "clean"
    code, _, err = wtsim(run_args(config, clean, "--records", "--jobs", "1"), capsys)
    assert code == 0, err
    assert_frame_equal(read_table(killed), read_table(clean))
    assert (killed / "records.jsonl").read_bytes() == (clean / "records.jsonl").read_bytes()
    assert not (killed / "chunks").exists()
    manifest = json.loads((killed / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["sessions"] == 2 and manifest["errors"] == 0

    code, out, err = wtsim(["run", "--resume", str(killed)], capsys)
    assert code == 0, err
    assert "already finished" in out


def test_ctrl_c_keeps_finished_chunks_and_says_how_to_resume(tmp_path, bots, capsys, monkeypatch):
    import welcometo_sim.strategies  # noqa: F401  (the bots file imports welcometo_sim.strategies.random)

    config = config_with(tmp_path, bots, "CtrlC")
    out = tmp_path / "stopped"
    monkeypatch.setenv("CTRL_C_AT_GAME", "13")
    monkeypatch.setenv("CTRL_C_AFTER_FILE", str(out / "chunks" / "05-10.csv"))  # written by the time game 13 plays
    code, _, err = wtsim(run_args(config, out, "--jobs", "1", "--format", "csv"), capsys)
    assert code == 130
    assert f"wtsim run --resume {out}" in err and len(err.splitlines()) == 1
    assert chunk_files(out) == ["00-05.csv", "05-10.csv"]
    monkeypatch.delenv("CTRL_C_AT_GAME")
    monkeypatch.delenv("CTRL_C_AFTER_FILE")
    code, _, err = wtsim(["run", "--resume", str(out), "-q"], capsys)
    assert code == 0, err
    code, _, err = wtsim(run_args(config, tmp_path / "clean", "--jobs", "1", "--format", "csv"), capsys)
    assert code == 0, err
    assert_frame_equal(read_table(out), read_table(tmp_path / "clean"))


def test_a_run_stopped_while_assembling_is_assembled_by_resume(tmp_path, random_pair, monkeypatch, capsys):
    from welcometo_sim.sim.results import ChunkStore

    def interrupted(self, bounds, records):
        raise KeyboardInterrupt

    out = tmp_path / "stopped"
    args = ["--games", "12", "--seed", "3", "--chunk-size", "5", "--jobs", "1", "-q"]
    monkeypatch.setattr(ChunkStore, "assemble", interrupted)
    code, _, err = wtsim(["run", str(random_pair), *args, "--out", str(out)], capsys)
    assert code == 130, err
    assert chunk_files(out) == ["00-05.parquet", "05-10.parquet", "10-12.parquet"]
    monkeypatch.undo()
    code, text, err = wtsim(["run", "--resume", str(out)], capsys)
    assert code == 0, err
    assert "0 missing games of 12" in text
    code, _, err = wtsim(["run", str(random_pair), *args, "--out", str(tmp_path / "clean")], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(out), read_table(tmp_path / "clean"))


def test_resume_rejects_what_is_not_a_run_and_options_that_change_the_games(tmp_path, capsys):
    line = user_error(["run", "--resume", str(tmp_path)], capsys)
    assert str(tmp_path) in line and "not a run folder" in line
    line = user_error(["run", "--resume", str(tmp_path / "missing")], capsys)
    assert "not a run folder" in line
    line = user_error(["run", "--resume", str(tmp_path), "--games", "5"], capsys)
    assert "--games" in line


# ------------------------------------------------------------ errors policy
def test_on_error_fail_stops_with_exit_3_and_keeps_finished_chunks(tmp_path, bots, capsys):
    config = config_with(tmp_path, bots, "Flaky", params="{rate: 0.05}")
    out = tmp_path / "failed"
    code, _, err = wtsim(run_args(config, out, "--jobs", "1"), capsys)
    assert code == 3
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "Flaky" in err and "raised RuntimeError: flaky bot gave up" in err and "turn 3" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "flaky bot gave up" in manifest["failure"]
    seed = int(err.split("game seed ")[1].split(",")[0])
    # Sequential run: every chunk before the failing game's chunk is on disk, none after.
    clean = execute(resolve_spec(config, games=40, chunk_size=5, on_error="skip"), save=False)
    failing_game = int(clean.errors.loc[clean.errors["seed"] == seed, "game"].iloc[0])
    assert failing_game == clean.errors["game"].min() >= 10
    kept = chunk_files(out)
    assert kept == [f"{a:02d}-{a + 5:02d}.parquet" for a in range(0, failing_game - failing_game % 5, 5)]

    # Resuming with the same policy fails again on the same game; with skip it finishes.
    code, _, err2 = wtsim(["run", "--resume", str(out), "-q"], capsys)
    assert code == 3 and f"game seed {seed}" in err2
    code, _, err = wtsim(["run", "--resume", str(out), "--on-error", "skip", "-q"], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(out), clean.frame)
    assert_frame_equal(read_errors(out), clean.errors)


def test_on_error_skip_lists_errored_games_and_leaves_them_out(tmp_path, bots, capsys):
    config = config_with(tmp_path, bots, "Flaky", "on_error: skip\n")
    code, out, err = wtsim(["run", str(config), "--games", "40", "--jobs", "2", "--chunk-size", "3",
                            "--out", str(tmp_path / "a")], capsys)
    assert code == 0, err
    frame, errors = read_table(tmp_path / "a"), read_errors(tmp_path / "a")
    assert list(errors.columns) == ["game", "seed", "seat", "player", "strategy", "turn", "message"]
    assert 0 < len(errors) < 40
    assert set(frame["game"]).isdisjoint(errors["game"])
    assert set(frame["game"]) | set(errors["game"]) == set(range(40))
    assert (errors["turn"] == 3).all() and (errors["seat"] == 1).all()
    assert errors["strategy"].str.endswith("bots.py:Flaky").all()
    assert (errors["message"] == "raised RuntimeError: flaky bot gave up in choose_play").all()
    assert f"{len(errors)} errored games" in out
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["errors"] == len(errors) and manifest["errors_file"] == "errors.csv"

    # Identical for another chunk size and number of workers.
    code, _, err = wtsim(["run", str(config), "--games", "40", "--jobs", "1", "--chunk-size", "40",
                          "--out", str(tmp_path / "b"), "-q"], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(tmp_path / "b"), frame)
    assert_frame_equal(read_errors(tmp_path / "b"), errors)

    code, out, err = wtsim(["summarize", str(tmp_path / "a"), "--json"], capsys)
    assert code == 0, err
    payload = json.loads(out)
    assert payload["errored_games"] == len(errors)
    assert payload["scores"]["random"]["games"] == 40 - len(errors)


def test_move_timeout_reports_slow_strategies(tmp_path, bots, capsys):
    config = config_with(tmp_path, bots, "Slow", "on_error: skip\nmove_timeout: 0.1\n")
    spec = resolve_spec(config, games=12, jobs=1)
    output = execute(spec, save=False)
    slow_games = output.errors
    assert len(slow_games) > 0
    assert slow_games["message"].str.match(r"exceeded move_timeout \(0\.\d+ s > 0\.1 s\) in choose_play").all()
    assert (slow_games["turn"] == 3).all()
    # Without the limit the same games finish (Slow only thinks longer than Flaky).
    unlimited = execute(dataclasses.replace(spec, move_timeout=None), save=False)
    assert len(unlimited.errors) == 0 and unlimited.frame["game"].nunique() == 12


@pytest.mark.parametrize("text, key", [
    ("on_error: ignore\n", "on_error"),
    ("move_timeout: -1\n", "move_timeout"),
    ("move_timeout: soon\n", "move_timeout"),
    ("backend: spark\n", "backend"),
    ("scheduler: ''\n", "scheduler"),
    ("backend: loky\nscheduler: tcp://h:8786\n", "scheduler"),
])
def test_run_policy_keys_are_checked(tmp_path, capsys, text, key):
    path = tmp_path / "bad.yaml"
    path.write_text("players: [random]\n" + text, encoding="utf-8")
    line = user_error(["run", str(path), "--out", str(tmp_path / "o")], capsys)
    assert f"bad.yaml: {key}:" in line


# ------------------------------------------------------- streaming output
@pytest.fixture()
def random_pair(tmp_path: Path) -> Path:
    path = tmp_path / "pair.yaml"
    path.write_text("name: pair\nplayers: [random, {strategy: random, name: other}]\n", encoding="utf-8")
    return path


def test_chunked_output_equals_the_in_memory_table_for_any_chunk_size(tmp_path, random_pair):
    spec = resolve_spec(random_pair, games=30, seed=5, jobs=1)
    in_memory = execute(spec, save=False).frame
    for chunk_size, fmt in ((1, "parquet"), (7, "csv"), (30, "parquet")):
        out = tmp_path / f"c{chunk_size}"
        written = execute(spec.with_overrides(chunk_size=chunk_size), out, fmt=fmt)
        assert_frame_equal(read_table(out), in_memory)
        assert_frame_equal(written.frame, in_memory)
        assert sorted(p.name for p in out.iterdir()) == ["config.yaml", "manifest.json", f"results.{fmt}"]


def test_workers_send_a_saved_chunk_as_its_table_file(tmp_path, random_pair):
    """The bytes equal the file the parent itself wrote before (a resumed run
    may mix both), and read back as the chunk's typed rows, dtypes included."""
    import io

    from welcometo_sim.sim import chunks
    from welcometo_sim.sim.results import to_frame

    spec = resolve_spec(random_pair, games=6, seed=4, jobs=1)
    expected = to_frame(chunks.play_chunk(spec, 0, 6, False).columns)
    sent = {}
    for fmt in ("parquet", "csv"):
        chunk = chunks.play_chunk(spec, 0, 6, False, table_format=fmt)
        assert chunk.columns == {} and chunk.table_format == fmt
        sent[fmt] = chunk.table
    expected.to_parquet(tmp_path / "by_parent.parquet", index=False)
    expected.to_csv(tmp_path / "by_parent.csv", index=False)
    assert sent["parquet"] == (tmp_path / "by_parent.parquet").read_bytes()
    assert sent["csv"] == (tmp_path / "by_parent.csv").read_bytes()
    assert_frame_equal(pd.read_parquet(io.BytesIO(sent["parquet"])), expected)


def test_a_worker_without_pyarrow_sends_columns_and_the_parent_writes_the_file(tmp_path, random_pair,
                                                                               monkeypatch):
    from welcometo_sim.sim import chunks

    spec = resolve_spec(random_pair, games=6, seed=4, jobs=1)
    expected = execute(spec, tmp_path / "encoded").frame
    monkeypatch.setattr(chunks, "parquet_available", lambda: False)
    chunk = chunks.play_chunk(spec, 0, 6, False, table_format="parquet")
    assert chunk.table is None and chunk.table_format is None and len(chunk.columns["game"]) == 12
    assert_frame_equal(execute(spec, tmp_path / "by_parent", fmt="parquet").frame, expected)
    assert_frame_equal(read_table(tmp_path / "by_parent"), expected)


def test_chunk_files_whose_text_columns_differ_in_arrow_type_assemble_into_one_table(tmp_path, random_pair):
    """Cluster workers with another pandas may store text as large_string."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from welcometo_sim.sim.results import ChunkStore

    spec = resolve_spec(random_pair, games=8, seed=6, jobs=1)
    expected = execute(spec, save=False).frame
    run = tmp_path / "run"
    execute(spec.with_overrides(chunk_size=4), run)
    store = ChunkStore(run, "parquet", 8)
    store.dir.mkdir()
    halves = (expected.iloc[:8], expected.iloc[8:])
    for (start, stop), half in zip(((0, 4), (4, 8)), halves):
        table = pa.Table.from_pandas(half, preserve_index=False)
        if start:  # the other of string and large_string
            other = {pa.string(): pa.large_string(), pa.large_string(): pa.string()}
            table = table.cast(pa.schema([pa.field(f.name, other.get(f.type, f.type), f.nullable)
                                          for f in table.schema], metadata=table.schema.metadata))
            assert table.schema != pq.read_schema(store.table(0, 4))
        pq.write_table(table, store.table(start, stop))
    store.assemble([(0, 4), (4, 8)], records=False)
    assert_frame_equal(read_table(run), expected)


def test_a_chunk_in_another_format_than_the_run_is_refused(tmp_path):
    from welcometo_sim.sim.results import ChunkStore
    from welcometo_sim.sim.runner import ChunkResult

    chunk = ChunkResult(0, 2, {}, [], table_format="csv", table=b"game\n")
    with pytest.raises(ValueError, match="came as csv, the run saves parquet"):
        ChunkStore(tmp_path, "parquet", 2).write(chunk)


def test_a_failed_chunk_comes_back_with_columns_not_a_file(tmp_path, bots):
    from welcometo_sim.sim import chunks

    config = config_with(tmp_path, bots, "Flaky", params="{rate: 1.0}")
    chunk = chunks.play_chunk(resolve_spec(config, games=3, seed=1, jobs=1), 0, 3, False, "parquet")
    assert chunk.failure is not None and chunk.table is None and chunk.table_format is None
    assert set(chunk.columns) == set(chunks.empty_columns())


def test_lean_summary_frame_gives_the_same_tables(tmp_path, random_pair):
    from welcometo_sim.analysis import summary_tables

    frame = execute(resolve_spec(random_pair, games=25, seed=2, jobs=1), tmp_path / "run").frame
    for by in ("player", "strategy", "seat"):
        full, lean = summary_tables(frame, by), summary_tables(read_summary_frame(tmp_path / "run", by), by)
        for name in full:
            assert_frame_equal(lean[name], full[name], check_dtype=False)
    assert len(read_summary_frame(tmp_path / "run").columns) < len(frame.columns) / 2


def _loky_workers() -> list:
    """This process's live loky worker processes (not loky's resource tracker)."""
    import psutil

    workers = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "popen_loky" in " ".join(child.cmdline()) and child.is_running():
                workers.append(child)
        except psutil.Error:
            pass
    return workers


def test_workers_are_released_before_the_final_assembly(tmp_path, random_pair, monkeypatch):
    from welcometo_sim.sim.results import ChunkStore

    alive_at_assembly = []
    assemble = ChunkStore.assemble

    def watched(self, *args, **kwargs):
        alive_at_assembly.append(len(_loky_workers()))
        return assemble(self, *args, **kwargs)

    monkeypatch.setattr(ChunkStore, "assemble", watched)
    spec = resolve_spec(random_pair, games=40, seed=3, jobs=2).with_overrides(chunk_size=10)
    execute(spec, tmp_path / "run")
    assert alive_at_assembly == [0]
    assert len(read_table(tmp_path / "run")) == 80


def test_chunks_are_played_with_fewer_collections_and_the_setting_is_restored(random_pair, monkeypatch):
    import gc

    from welcometo_sim.games.welcome_to import runs
    from welcometo_sim.sim import chunks

    seen = []
    play_one = runs.play_one

    def watched(spec, index, record=False, seed=None):
        seen.append(gc.get_threshold()[0])
        if index == 3:
            raise KeyboardInterrupt  # the chunk is left by an exception
        return play_one(spec, index, record, seed)

    monkeypatch.setattr(runs, "play_one", watched)
    spec = resolve_spec(random_pair, games=4, seed=3, jobs=1)
    before = gc.get_threshold()
    with pytest.raises(KeyboardInterrupt):
        chunks.play_chunk(spec, 0, 4, False)
    assert seen == [chunks.BATCH_GC_THRESHOLD] * 4
    assert gc.get_threshold() == before
