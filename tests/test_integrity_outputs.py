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
@pytest.fixture(scope="module")
def finished_once(tmp_path_factory) -> Path:
    """A finished run of 40 games with records, played once for the tests that damage a copy of it."""
    out = tmp_path_factory.mktemp("finished") / "run"
    code = execute(resolve_spec(None, games=40, seed=2, jobs=1), out, records=True)
    assert code.manifest["status"] == "finished"
    return out


@pytest.fixture()
def finished(tmp_path: Path, finished_once: Path) -> Path:
    """This test's own copy of the finished run, which it may damage."""
    out = tmp_path / "run"
    shutil.copytree(finished_once, out)
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


# ------------------------------------------------ 7. writers replace only what they own
def played_nothing(monkeypatch) -> list:
    """Records every game played: an --out refused before play leaves it empty."""
    from welcometo_sim import analyses

    calls: list = []
    for name in ("compare", "plans", "sweep", "tune", "balance"):
        original = getattr(analyses, name)
        monkeypatch.setattr(analyses, name, lambda *a, _o=original, **k: calls.append(a) or _o(*a, **k))
    return calls


@pytest.mark.parametrize("argv", [
    ["compare", "random", "random", "--games", "4"],
    ["plans", "--games-per-plan", "1", "--deck", "1"],
    ["sweep", "--set", "seed=1,2", "--games", "2"],
])
def test_analysis_commands_never_write_into_a_run_folder(finished, monkeypatch, capsys, argv):
    before = {p.name: p.read_bytes() for p in finished.iterdir()}
    calls = played_nothing(monkeypatch)
    line = user_error([*argv, "--out", str(finished), "-q"], capsys)
    assert f"--out {finished}: holds a run (manifest.json), which {argv[0]} does not replace" in line
    assert calls == []
    assert {p.name: p.read_bytes() for p in finished.iterdir()} == before
    code, _, err = wtsim(["run", "--resume", str(finished)], capsys)
    assert code == 0 and "already finished" in _ and len(read_table(finished)) == 80


def test_an_analysis_folder_is_replaced_only_by_its_own_command(tmp_path, capsys):
    out = tmp_path / "cmp"
    code, _, err = wtsim(["compare", "random", "random", "--games", "2", "--out", str(out), "-q",
                          "--format", "parquet"], capsys)
    assert code == 0, err
    code, _, err = wtsim(["compare", "random", "random", "--games", "3", "--out", str(out), "-q"], capsys)
    assert code == 0, err  # its own output: replaced, and the table of the other format goes with it
    assert not (out / "results.parquet").exists() and len(read_table(out)) == 3 * 2
    line = user_error(["plans", "--games-per-plan", "1", "--deck", "1", "--out", str(out), "-q"], capsys)
    assert "holds the output of wtsim compare, which plans does not replace" in line
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "results.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    line = user_error(["compare", "random", "random", "--games", "2", "--out", str(mine), "-q"], capsys)
    assert "holds results.csv, which compare did not write" in line
    assert (mine / "results.csv").read_text() == "a,b\n1,2\n"


TUNE = ["tune", "random", "--param", "x=0:1", "--games", "2", "--trials", "1", "--top", "1", "-q"]


def tuned_strategy(tmp_path: Path) -> str:
    (tmp_path / "tunable.py").write_text(
        "from welcometo_sim.strategies.random import RandomStrategy\n\n\n"
        "class Tunable(RandomStrategy):\n    name = 'tunable'\n    defaults = {'x': 0.5}\n", encoding="utf-8")
    return f"{tmp_path / 'tunable.py'}:Tunable"


def test_tune_and_balance_refuse_their_own_input_and_an_existing_file(tmp_path, monkeypatch, capsys):
    victim = tmp_path / "victim.yaml"
    victim.write_text("name: victim\nplayers: [random, random]\n", encoding="utf-8")
    original = victim.read_bytes()
    calls = played_nothing(monkeypatch)
    for force in ([], ["--force"]):
        line = user_error(["balance", str(victim), "--deck", "1", "--out", str(victim), "-q", *force], capsys)
        assert f"--out {victim}: is {victim}, which this command reads" in line
    line = user_error(["tune", tuned_strategy(tmp_path), "--param", "x=0:1", "--out", str(tmp_path / "tunable.py"),
                       "--force", "-q"], capsys)
    assert "tunable.py, which this command reads" in line
    other = tmp_path / "other.yaml"
    other.write_text("keep: me\n", encoding="utf-8")
    line = user_error(["balance", str(victim), "--deck", "1", "--out", str(other), "-q"], capsys)
    assert f"--out {other}: exists; choose another file, or replace it with --force" in line
    line = user_error(["tune", "greedy", "--param", "shortlist=2:4", "--out", str(other), "-q"], capsys)
    assert "exists; choose another file, or replace it with --force" in line
    assert calls == [] and victim.read_bytes() == original and other.read_text() == "keep: me\n"


def test_tune_replaces_an_existing_file_with_force(tmp_path, capsys):
    out = tmp_path / "best.yaml"
    out.write_text("old\n", encoding="utf-8")
    code, _, err = wtsim(["tune", tuned_strategy(tmp_path), "--param", "x=0:1", "--games", "2", "--trials", "1",
                          "--top", "1", "--final-games", "2", "-q", "--out", str(out), "--force"], capsys)
    assert code == 0, err
    assert yaml.safe_load(out.read_text())["strategy"].endswith("tunable.py:Tunable")


# ------------------------------------------------ 8. no secret in a message
SECRET = "root:$6$Zq8.secret-hash:20228:0:99999:7:::"


@pytest.mark.parametrize("content, where", [
    (f"{SECRET}\ndaemon:*:20228:0:99999:7:::\n", "line 1: unknown key"),
    (f"params:\n  weights: {{flexibility: 2}}\n  '{SECRET}': 1\n", "line 3: unknown parameter"),
    (f"strategy: greedy\nparams:\n  shortlist: '{SECRET}'\n", "params.shortlist: must be an integer"),
    (f"strategy: '{SECRET}'\n", "strategy: not a strategy that can be loaded"),
    (f"params: [{SECRET}\n", "malformed YAML"),
])
def test_a_params_file_is_never_quoted(tmp_path, capsys, content, where):
    secret = tmp_path / "shadow"
    secret.write_text(content, encoding="utf-8")
    config = tmp_path / "c.yaml"
    config.write_text(f"players:\n  - {{strategy: greedy, params_file: {secret}}}\n", encoding="utf-8")
    line = user_error(["run", str(config), "--games", "1"], capsys)
    assert where in line and f"params_file: {secret}" in line
    assert "secret-hash" not in line and "20228" not in line


def test_a_shake_that_city_params_file_is_never_quoted(tmp_path, capsys):
    secret = tmp_path / "shadow"
    secret.write_text(f"params:\n  open: '{SECRET}'\n", encoding="utf-8")
    config = tmp_path / "c.yaml"
    config.write_text(f"game: shake-that-city\nplayers:\n  - {{strategy: greedy, params_file: {secret}}}\n"
                      f"  - random\n", encoding="utf-8")
    line = user_error(["run", str(config), "--games", "1"], capsys)
    assert line.endswith("params.open: must be a finite number for strategy 'greedy' (the value is not shown)")
    assert f"players[0].params_file: {secret}: " in line
    assert "secret-hash" not in line


@pytest.mark.parametrize("ref", ["x" * 3000 + ".py:C", "x" * 3000 + ":C", "x" * 3000, "greedy:" + "w" * 3000 + "=1",
                                 "greedy:shortlist='" + "s" * 3000 + "'"])
def test_a_long_strategy_reference_is_echoed_cut_short(capsys, ref):
    line = user_error(["compare", ref, "random", "--games", "2"], capsys)
    assert len(line) < 500 and "..." in line


# ------------------------------------------------ 13. full disks, odd paths, early signals
def full_disk_for_text(monkeypatch) -> None:
    """A YAML file written under its temporary name gets ten bytes, then ENOSPC."""
    original = Path.write_text

    def write_text(path, data, *args, **kwargs):
        if str(path).endswith(".yaml.tmp"):
            original(path, data[:10], *args, **kwargs)
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return original(path, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)


def test_tune_and_balance_on_a_full_disk_leave_no_empty_file(tmp_path, monkeypatch, capsys):
    full_disk_for_text(monkeypatch)
    tuned = tmp_path / "best.yaml"
    line = user_error(["tune", tuned_strategy(tmp_path), "--param", "x=0:1", "--games", "2", "--trials", "1",
                       "--top", "1", "--final-games", "2", "-q", "--out", str(tuned)], capsys)
    assert line == f"wtsim: error: {tuned}: cannot write: no space left on the device"
    config = tmp_path / "two.yaml"
    config.write_text("name: two\nplayers: ['greedy:temperature=0', 'greedy:temperature=0']\n", encoding="utf-8")
    balanced = tmp_path / "balanced.yaml"
    line = user_error(["balance", str(config), "--deck", "1", "--games", "2", "--rounds", "1", "--final-games",
                       "2", "-q", "--out", str(balanced)], capsys)
    assert line == f"wtsim: error: {balanced}: cannot write: no space left on the device"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tunable.py", "two.yaml"]


@pytest.mark.parametrize("command", [TUNE, ["balance", "--deck", "1", "--games", "2", "-q"]])
def test_an_out_file_under_a_file_is_one_line_before_any_game(tmp_path, monkeypatch, capsys, command):
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    calls = played_nothing(monkeypatch)
    out = tmp_path / "afile" / "x.yaml"
    line = user_error([*command, "--out", str(out)], capsys)
    assert line == f"wtsim: error: --out {out}: {tmp_path / 'afile'} is a file, not a folder"
    assert calls == []
    line = user_error([*command, "--out", str(tmp_path)], capsys)
    assert f"'{tmp_path}' is a directory" in line


def test_a_run_that_fails_before_its_manifest_does_not_suggest_resume(tmp_path, monkeypatch, capsys):
    from welcometo_sim.sim import results

    def full(path, payload):
        raise results.output_error(path, OSError(errno.ENOSPC, "No space left on device", str(path)))

    monkeypatch.setattr("welcometo_sim.api.write_json", full)
    out = tmp_path / "run"
    line = user_error(["run", "--games", "2", "--out", str(out), "-q"], capsys)
    assert line == f"wtsim: error: {out / 'manifest.json'}: cannot write: no space left on the device"


def test_sigterm_while_the_commands_are_imported_is_one_line(tmp_path):
    """The signal arrives while pandas is imported (before any handler of the commands)."""
    import subprocess
    import sys

    script = ("import builtins, os, signal\n"
              "real = builtins.__import__\n"
              "def importing(name, *args, **kwargs):\n"
              "    if name == 'pandas':\n"
              "        os.kill(os.getpid(), signal.SIGTERM)\n"
              "    return real(name, *args, **kwargs)\n"
              "builtins.__import__ = importing\n"
              "from welcometo_sim.cli import main\n"
              f"main(['run', '--games', '2', '--out', {str(tmp_path / 'run')!r}])\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 143, proc.stderr
    assert proc.stderr.splitlines()[-1] == "wtsim: terminated (SIGTERM)" and "Traceback" not in proc.stderr
    assert proc.stdout == "" and not (tmp_path / "run").exists()
