"""Run folders and output files never give a wrong answer with exit 0.

A strategy file or weights file edited between a kill and `--resume`, a
damaged final table, a writer pointed at a file or folder of another command,
a secret file given as `params_file`, a full disk: each ends in the tables of
an uninterrupted run or in one line with exit 2, within seconds.
"""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest
import yaml
from pandas.testing import assert_frame_equal

from helpers import user_error, wtsim
from welcometo_sim.api import execute, resolve_spec, resume
from welcometo_sim.sim.results import ChunkStore, ResultsError, read_table

WEIGHTS = Path(__file__).resolve().parents[1] / "welcometo_sim" / "learning" / "weights" / "base.npz"
STRATEGY_SOURCE = '''from welcometo_sim.strategies.random import RandomStrategy


class Mine(RandomStrategy):
    name = "mine"
    defaults = {**RandomStrategy.defaults, "weights": ""}
'''


class Killed(BaseException):
    """Stands for the process being killed: nothing after it runs."""


def killed_after(monkeypatch, chunks: int) -> None:
    """The next run stops (as if killed) once `chunks` chunks are on disk."""
    write = ChunkStore.write
    written = []

    def counted(self, chunk):
        if len(written) == chunks:
            raise Killed
        write(self, chunk)
        written.append(chunk.start)

    monkeypatch.setattr(ChunkStore, "write", counted)


@pytest.fixture()
def own(tmp_path: Path) -> Path:
    """A config whose players depend on a strategy file and a weights file of the user's."""
    (tmp_path / "mine.py").write_text(STRATEGY_SOURCE, encoding="utf-8")
    shutil.copyfile(WEIGHTS, tmp_path / "w.npz")
    config = tmp_path / "own.yaml"
    config.write_text(yaml.safe_dump({"name": "own", "players": [
        {"strategy": f"{tmp_path / 'mine.py'}:Mine", "params": {"weights": str(tmp_path / "w.npz")}},
        "random"]}), encoding="utf-8")
    return config


def stopped(config: Path, out: Path, monkeypatch, chunks: int = 2) -> None:
    spec = resolve_spec(config, games=8, seed=5, jobs=1, chunk_size=2)
    killed_after(monkeypatch, chunks)
    with pytest.raises(Killed):
        execute(spec, out)
    monkeypatch.undo()


# ------------------------------------------------ 3. resume mixes versions
@pytest.mark.parametrize("edited", ["mine.py", "w.npz"])
def test_resume_refuses_a_strategy_or_data_file_edited_after_the_kill(tmp_path, own, monkeypatch, capsys,
                                                                      edited):
    out = tmp_path / "run"
    stopped(own, out, monkeypatch)
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["depends"]) == [f"data file {tmp_path / 'w.npz'}",
                                           f"strategy source {tmp_path / 'mine.py'}"]
    path = tmp_path / edited
    original = path.read_bytes()
    path.write_bytes(original + (b"\n# tuned\n" if edited.endswith(".py") else b"\0"))
    line = user_error(["run", "--resume", str(out), "-q"], capsys)
    assert f"{path} changed since the run started" in line and "--force" in line
    again = ["run", str(own), "--games", "8", "--seed", "5", "--chunk-size", "2", "--out", str(out), "-q"]
    assert f"holds this run, started before" in user_error(again, capsys)
    path.write_bytes(original)  # restored: the run goes on and equals an uninterrupted one
    code, _, err = wtsim(["run", "--resume", str(out), "-q"], capsys)
    assert code == 0, err
    clean = tmp_path / "clean"
    execute(resolve_spec(own, games=8, seed=5, jobs=1, chunk_size=2), clean)
    assert_frame_equal(read_table(out), read_table(clean))


def test_learned_weights_replaced_between_kill_and_resume_are_refused(tmp_path, monkeypatch, capsys):
    weights = tmp_path / "w.npz"
    shutil.copyfile(WEIGHTS, weights)
    config = tmp_path / "learned.yaml"
    config.write_text(f"players: ['learned:weights={weights}', random]\n", encoding="utf-8")
    out = tmp_path / "run"
    stopped(config, out, monkeypatch, chunks=1)
    shutil.copyfile(WEIGHTS.with_name("solo.npz"), weights)
    line = user_error(["run", "--resume", str(out)], capsys)
    assert f"data file {weights} changed since the run started" in line


def test_a_run_of_built_in_strategies_depends_on_no_file(tmp_path):
    output = execute(resolve_spec(None, games=2, seed=1, jobs=1), tmp_path / "run")
    assert output.manifest["depends"] == {}


def test_a_deleted_strategy_file_stops_the_resume_in_one_line(tmp_path, own, monkeypatch, capsys):
    out = tmp_path / "run"
    stopped(own, out, monkeypatch)
    (tmp_path / "w.npz").unlink()
    line = user_error(["run", "--resume", str(out)], capsys)
    assert f"data file {tmp_path / 'w.npz'} is missing or no longer used since the run started" in line


# ------------------------------------------------ 6. a damaged final table
@pytest.fixture()
def finished(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    code = execute(resolve_spec(None, games=40, seed=2, jobs=1), out, records=True)
    assert code.manifest["status"] == "finished"
    return out


def flip(path: Path, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[bit // 8 % len(data)] ^= 1 << (bit % 8)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("bit", [8 * 200 + 1, 8 * 1000 + 5, -8 * 40 + 2, -8 * 9])
def test_summarize_refuses_a_table_with_a_flipped_bit(finished, capsys, bit):
    manifest = json.loads((finished / "manifest.json").read_text())
    table = finished / "results.parquet"
    assert manifest["files"]["results.parquet"]["bytes"] == table.stat().st_size
    assert set(manifest["files"]) == {"results.parquet", "records.jsonl"}
    flip(table, bit)
    for argv in (["summarize", str(finished)], ["summarize", str(table), "--json"],
                 ["run", "--resume", str(finished)], ["compare", "--results", str(finished)]):
        line = user_error(argv, capsys)
        assert f"{table}: damaged (its SHA-256 is not the one the run recorded" in line, argv
        assert "--force" in line


def test_summarize_refuses_a_table_cut_short_even_without_checksums(finished, capsys):
    """A run folder of an earlier version (no checksums): the manifest's count still holds."""
    manifest = json.loads((finished / "manifest.json").read_text())
    del manifest["files"]
    (finished / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    frame = read_table(finished)
    frame[frame.game < 39].to_parquet(finished / "results.parquet", index=False)
    line = user_error(["summarize", str(finished)], capsys)
    assert "damaged (78 rows where manifest.json counts 40 games of 2 seats, 80 rows)" in line


def test_a_cut_table_is_one_line_and_an_intact_one_is_summarized(finished, capsys):
    code, text, err = wtsim(["summarize", str(finished), "--json"], capsys)
    assert code == 0, err
    assert json.loads(text)["scores"]
    table = finished / "results.parquet"
    table.write_bytes(table.read_bytes()[:-100])
    line = user_error(["summarize", str(finished)], capsys)
    assert "damaged (" in line and "bytes where the run wrote" in line
