"""Run folders own their identity and trust no chunk they cannot check.

A run killed after some chunks, another run into the same folder, chunk
files copied over each other, truncated or with a flipped bit: every case
ends in the tables of an uninterrupted run or in one clear error line, never
in a wrong table. Runs are small (random players, a few games) and stopped
in-process where a real kill would only cost time.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

from helpers import user_error, wtsim
from welcometo_sim.api import execute, resolve_spec, resume
from welcometo_sim.sim import results as results_module
from welcometo_sim.sim.results import ChunkStore, read_table


class Killed(BaseException):
    """Stands for the process being killed: nothing after it runs."""


@pytest.fixture()
def pair(tmp_path: Path) -> Path:
    path = tmp_path / "pair.yaml"
    path.write_text("name: pair\nplayers: [random, {strategy: random, name: other}]\n", encoding="utf-8")
    return path


@pytest.fixture()
def trio(tmp_path: Path) -> Path:
    path = tmp_path / "trio.yaml"
    path.write_text("name: trio\nvariant: {expert: true}\nplayers: [random, random, random]\n",
                    encoding="utf-8")
    return path


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


def args(config: Path, out: Path, *extra: str) -> list[str]:
    return ["run", str(config), "--games", "20", "--chunk-size", "5", "--jobs", "1", "--out", str(out),
            "-q", *extra]


def clean_run(config: Path, folder: Path, seed: int = 3, records: bool = True, fmt: str = "parquet"):
    spec = resolve_spec(config, games=20, seed=seed, jobs=1, chunk_size=5)
    execute(spec, folder, records=records, fmt=fmt)
    return read_table(folder), (folder / "records.jsonl").read_bytes() if records else None


def stopped_run(config: Path, folder: Path, monkeypatch, chunks: int = 2, seed: int = 3,
                records: bool = True, fmt: str = "parquet") -> None:
    spec = resolve_spec(config, games=20, seed=seed, jobs=1, chunk_size=5)
    killed_after(monkeypatch, chunks)
    with pytest.raises(Killed):
        execute(spec, folder, records=records, fmt=fmt)
    monkeypatch.undo()


def chunk_names(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / "chunks").iterdir())


# ------------------------------------------------------------- identity
def test_a_new_run_refuses_a_folder_that_holds_another_run(tmp_path, pair, trio, monkeypatch, capsys):
    out = tmp_path / "x"
    stopped_run(pair, out, monkeypatch, seed=3)
    before = {name: (out / "chunks" / name).read_bytes() for name in chunk_names(out)}
    for other in (args(trio, out, "--seed", "3"), args(pair, out, "--seed", "99"),
                  args(pair, out, "--seed", "3", "--games", "25")):
        line = user_error(other, capsys)
        assert f"--out {out}: holds another run" in line and "--force" in line
    assert {name: (out / "chunks" / name).read_bytes() for name in chunk_names(out)} == before
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 3 and len(manifest["run_id"]) == 32 and len(manifest["fingerprint"]) == 64


def test_force_starts_over_and_deletes_only_the_runs_own_files(tmp_path, pair, trio, monkeypatch, capsys):
    out = tmp_path / "x"
    stopped_run(pair, out, monkeypatch, seed=3)
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    (out / "chunks" / "keep.parquet").write_text("mine too", encoding="utf-8")
    code, _, err = wtsim(args(trio, out, "--seed", "99", "--force"), capsys)
    assert code == 0, err
    expected, _ = clean_run(trio, tmp_path / "clean", seed=99, records=False)
    assert_frame_equal(read_table(out), expected)
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "chunks" / "keep.parquet").read_text() == "mine too"
    assert chunk_names(out) == ["keep.parquet"]
    assert not (out / "records.jsonl").exists()  # the old run's records are gone with it
    assert sorted(p.name for p in out.iterdir()) == ["chunks", "config.yaml", "manifest.json", "notes.txt",
                                                     "results.parquet"]


def test_the_same_run_into_its_own_folder_continues_it(tmp_path, pair, monkeypatch, capsys):
    out = tmp_path / "x"
    stopped_run(pair, out, monkeypatch, seed=3)
    code, _, err = wtsim(args(pair, out, "--seed", "3", "--records", "--jobs", "2"), capsys)
    assert code == 0, err
    assert "holds this run, unfinished; continuing it" in err
    table, records = clean_run(pair, tmp_path / "clean")
    assert_frame_equal(read_table(out), table)
    assert (out / "records.jsonl").read_bytes() == records
    code, text, err = wtsim(args(pair, out, "--seed", "3", "--records"), capsys)
    assert code == 0 and text == f"{out}\n"  # already finished: with -q, stdout is the folder alone


def test_a_folder_of_other_files_is_refused_and_force_writes_beside_them(tmp_path, pair, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "data.csv").write_text("a,b\n", encoding="utf-8")
    line = user_error(args(pair, out), capsys)
    assert "not empty and not a wtsim run folder" in line
    code, _, err = wtsim(args(pair, out, "--force"), capsys)
    assert code == 0, err
    assert (out / "data.csv").read_text() == "a,b\n"
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "records.jsonl").write_text("{}\n", encoding="utf-8")
    line = user_error(args(pair, taken, "--force"), capsys)
    assert "holds records.jsonl, which wtsim did not write" in line


def test_a_stale_records_file_never_survives_beside_a_new_table(tmp_path, pair, capsys):
    out = tmp_path / "x"
    code, _, err = wtsim(args(pair, out, "--records"), capsys)
    assert code == 0, err
    code, _, err = wtsim(args(pair, out, "--force", "--format", "csv"), capsys)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml", "manifest.json", "results.csv"]


@pytest.mark.parametrize("out, problem", [
    ("", "--out: must be a folder path"),
    ("{file}/sub", "cannot create the folder"),
    ("{file}", "is a file"),
    ("/proc/wtsim-run", "cannot create the folder"),
])
def test_impossible_output_folders_are_one_line(tmp_path, pair, capsys, out, problem):
    file = tmp_path / "a-file"
    file.write_text("x", encoding="utf-8")
    line = user_error(args(pair, Path(out.format(file=file))) if out else
                      ["run", str(pair), "--games", "2", "--out", "", "-q"], capsys)
    assert problem in line


# ------------------------------------------------------- chunk checking
def copy_over(chunks: Path, source: str, target: str, with_sidecar: bool) -> None:
    for suffix in (".parquet", ".records.jsonl"):
        shutil.copyfile(chunks / f"{source}{suffix}", chunks / f"{target}{suffix}")
    if with_sidecar:
        shutil.copyfile(chunks / f".{source}.json", chunks / f".{target}.json")


def truncate(path: Path, keep: float = 0.6) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])


def flip(path: Path, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[bit // 8 % len(data)] ^= 1 << (bit % 8)
    path.write_bytes(bytes(data))


TAMPERING = {
    "copied over another (files)": lambda c: copy_over(c, "00-05", "05-10", with_sidecar=False),
    "copied over another (with its sidecar)": lambda c: copy_over(c, "00-05", "05-10", with_sidecar=True),
    "truncated records": lambda c: truncate(c / "05-10.records.jsonl"),
    "truncated table": lambda c: truncate(c / "05-10.parquet"),
    "bit flipped in the table": lambda c: flip(c / "05-10.parquet", 8 * 40 + 3),
    "bit flipped near the footer": lambda c: flip(c / "05-10.parquet", -8 * 30),
    "sidecar deleted": lambda c: (c / ".05-10.json").unlink(),
    "sidecar emptied": lambda c: (c / ".05-10.json").write_bytes(b""),
    "records deleted": lambda c: (c / "05-10.records.jsonl").unlink(),
}


@pytest.mark.parametrize("how", sorted(TAMPERING))
def test_resume_checks_every_chunk_and_plays_a_bad_one_again(tmp_path, pair, monkeypatch, capsys, how):
    out = tmp_path / "x"
    stopped_run(pair, out, monkeypatch, chunks=3)
    TAMPERING[how](out / "chunks")
    code, _, err = wtsim(["run", "--resume", str(out), "-q"], capsys)
    assert code == 0, err
    assert "chunk 5-10" in err and "playing it again" in err and "Traceback" not in err
    table, records = clean_run(pair, tmp_path / "clean")
    assert_frame_equal(read_table(out), table)
    assert (out / "records.jsonl").read_bytes() == records


def test_a_truncated_csv_chunk_is_played_again(tmp_path, pair, monkeypatch, capsys):
    out = tmp_path / "x"
    stopped_run(pair, out, monkeypatch, chunks=3, records=False, fmt="csv")
    path = out / "chunks" / "05-10.csv"
    path.write_bytes(path.read_bytes()[:-7])  # a row cut in the middle
    code, _, err = wtsim(["run", "--resume", str(out), "-q"], capsys)
    assert code == 0, err
    assert "05-10.csv has" in err
    table, _ = clean_run(pair, tmp_path / "clean", records=False, fmt="csv")
    assert_frame_equal(read_table(out), table)


def test_a_chunk_of_another_run_with_the_same_range_is_played_again(tmp_path, pair, monkeypatch, capsys):
    mine, other = tmp_path / "mine", tmp_path / "other"
    stopped_run(pair, mine, monkeypatch, chunks=2)
    stopped_run(pair, other, monkeypatch, chunks=3, seed=99)
    for name in chunk_names(other):
        if name.startswith((".10-15", "10-15")):
            shutil.copyfile(other / "chunks" / name, mine / "chunks" / name)
    output = resume(mine, notify=(notes := []).append)
    assert notes == [f"chunk 10-15 of {mine}: written by another run; playing it again"]
    assert output.played == 10
    table, _ = clean_run(pair, tmp_path / "clean")
    assert_frame_equal(read_table(mine), table)


def test_a_run_folder_of_an_earlier_version_without_identity(tmp_path, pair, monkeypatch, capsys):
    """Its chunks have no sidecars: resume plays them all again; a new run needs --force."""
    out = tmp_path / "old"
    stopped_run(pair, out, monkeypatch, chunks=2)
    manifest = json.loads((out / "manifest.json").read_text())
    for key in ("run_id", "fingerprint"):
        del manifest[key]
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    for sidecar in (out / "chunks").glob(".*.json"):
        sidecar.unlink()
    line = user_error(args(pair, out, "--seed", "3", "--records"), capsys)
    assert "holds another run" in line
    code, _, err = wtsim(["run", "--resume", str(out), "-q"], capsys)
    assert code == 0, err
    assert err.count("no sidecar; playing it again") == 2
    table, records = clean_run(pair, tmp_path / "clean")
    assert_frame_equal(read_table(out), table)
    assert (out / "records.jsonl").read_bytes() == records
    code, _, err = wtsim(args(pair, out, "--seed", "4", "--force"), capsys)
    assert code == 0, err


def test_an_edited_config_is_refused_on_resume(tmp_path, pair, monkeypatch, capsys):
    out = tmp_path / "x"
    stopped_run(pair, out, monkeypatch)
    config = out / "config.yaml"
    config.write_text(config.read_text().replace("name: other", "name: someone"), encoding="utf-8")
    line = user_error(["run", "--resume", str(out)], capsys)
    assert "config.yaml differs from the config the run started with" in line


def test_resume_cleans_the_leftover_chunks_of_a_finished_run(tmp_path, pair, monkeypatch, capsys):
    out = tmp_path / "x"
    spec = resolve_spec(pair, games=10, seed=3, jobs=1, chunk_size=5)
    monkeypatch.setattr(results_module, "remove_chunk_files", lambda folder: None)
    monkeypatch.setattr(ChunkStore, "remove", lambda self: None)
    execute(spec, out)
    monkeypatch.undo()
    assert (out / "chunks").is_dir()
    code, text, _ = wtsim(["run", "--resume", str(out)], capsys)
    assert code == 0 and "already finished" in text
    assert not (out / "chunks").exists()


# ------------------------------------------------------- stateful test
from unittest import mock  # noqa: E402

from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule  # noqa: E402

from welcometo_sim.config import parse_config  # noqa: E402
from welcometo_sim.sim.results import ResultsError  # noqa: E402

import atexit  # noqa: E402
import tempfile  # noqa: E402

from welcometo_sim.sim.dependencies import run_dependencies  # noqa: E402

DEPENDED_ON = Path(tempfile.mkdtemp(prefix="wtsim-stateful-"))
"""A strategy source and a weights file of the user's, which the run depends on
and the machine edits between sessions (edits that change the bytes, not the
play: any change must stop the run, not only one that shows in the table)."""
ORIGINALS = {
    "source": (DEPENDED_ON / "mine.py", b"from welcometo_sim.strategies.random import RandomStrategy\n\n\n"
               b"class Mine(RandomStrategy):\n    name = 'mine'\n    defaults = {'weights': ''}\n"),
    "weights": (DEPENDED_ON / "weights.bin", b"\x00\x01 weights"),
}
for _path, _content in ORIGINALS.values():
    _path.write_bytes(_content)
atexit.register(shutil.rmtree, DEPENDED_ON, True)
STATEFUL_SPEC = parse_config({"name": "pair", "seed": 3, "games": 12, "chunk_size": 3, "jobs": 1, "players": [
    {"strategy": f"{ORIGINALS['source'][0]}:Mine", "params": {"weights": str(ORIGINALS["weights"][0])}},
    {"strategy": "random", "name": "other"}]})
_EXPECTED: dict = {}


def expected_run() -> tuple:
    """The table and records of the run played once, uninterrupted."""
    if not _EXPECTED:
        with tempfile.TemporaryDirectory() as scratch:
            execute(STATEFUL_SPEC, Path(scratch) / "clean", records=True)
            _EXPECTED["run"] = (read_table(Path(scratch) / "clean"),
                                (Path(scratch) / "clean" / "records.jsonl").read_bytes())
    return _EXPECTED["run"]


def version() -> tuple:
    """The bytes of the files the run depends on, as they are now."""
    return tuple(path.read_bytes() for path, _ in ORIGINALS.values())


REFUSED_FOR_A_CHANGED_FILE = ("changed since the run started", "holds this run, started before")


class KilledAt:
    """Stops the process (raises Killed) at its n-th file rename, before it
    happens: the file being written stays under its temporary name."""

    def __init__(self, at: int | None) -> None:
        self.at, self.count = at, 0
        self.replace = os.replace

    def __call__(self, src, dst):
        self.count += 1
        if self.at is not None and self.count >= self.at:
            raise Killed
        return self.replace(src, dst)


class RunFolder(RuleBasedStateMachine):
    """Starts, kills, corruptions and resumes of one run folder, in any order."""

    def __init__(self) -> None:
        super().__init__()
        self.scratch = tempfile.TemporaryDirectory()
        self.folder = Path(self.scratch.name) / "run"
        for path, content in ORIGINALS.values():
            path.write_bytes(content)
        self.played: dict[str, set] = {}
        """Run id -> the versions of the depended-on files its chunks were played with."""

    def _session(self, work, kill_at: int | None) -> None:
        write = ChunkStore.write

        def noted(store, chunk):
            self.played.setdefault(store.run_id, set()).add(version())
            return write(store, chunk)

        with mock.patch.object(os, "replace", KilledAt(kill_at)), mock.patch.object(ChunkStore, "write", noted):
            try:
                work()
            except Killed:
                pass
            except ResultsError as exc:  # a clear, one-line answer, e.g. resume before any manifest
                if "not a run folder" not in str(exc):
                    assert any(reason in str(exc) for reason in REFUSED_FOR_A_CHANGED_FILE), exc
                    manifest = json.loads((self.folder / "manifest.json").read_text())
                    assert manifest["depends"] != run_dependencies(STATEFUL_SPEC), exc
        self.check_one_version()

    def check_one_version(self) -> None:
        """Every chunk of the run in the folder was played with the same files."""
        manifest = results_module.read_manifest(self.folder) if self.folder.is_dir() else {}
        assert len(self.played.get(manifest.get("run_id"), ())) <= 1, "a run mixes two versions of a file"

    @rule(which=st.sampled_from(sorted(ORIGINALS)))
    def edit(self, which):
        path, _ = ORIGINALS[which]
        path.write_bytes(path.read_bytes() + (b"\n# edited\n" if which == "source" else b"\x00"))

    @rule()
    def restore(self):
        for path, content in ORIGINALS.values():
            path.write_bytes(content)

    @precondition(lambda self: (self.folder / "manifest.json").is_file())
    @rule(command=st.sampled_from([["compare", "random", "random", "--games", "2"],
                                   ["sweep", "--set", "seed=1", "--games", "1"]]))
    def overwrite(self, command):
        """Another command pointed at the run folder changes nothing in it."""
        import contextlib
        import io

        from welcometo_sim.cli import main

        before = {p.relative_to(self.folder): p.read_bytes() for p in self.folder.rglob("*") if p.is_file()}
        with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()):
            with pytest.raises(SystemExit) as stopped:
                main([*command, "--out", str(self.folder), "-q"])
        assert stopped.value.code == 2 and "holds a run (manifest.json)" in err.getvalue()
        after = {p.relative_to(self.folder): p.read_bytes() for p in self.folder.rglob("*") if p.is_file()}
        assert after == before

    # A session renames its manifest (and, when it starts, its config) first,
    # then three files per chunk (records, table, sidecar), then the final
    # files: `chunks` and `step` say where it is killed.
    @rule(chunks=st.integers(0, 4), step=st.integers(0, 3))
    def start(self, chunks, step):
        self._session(lambda: execute(STATEFUL_SPEC, self.folder, records=True), 2 + 3 * chunks + step)

    @rule(chunks=st.integers(0, 4), step=st.integers(0, 3))
    def resume(self, chunks, step):
        self._session(lambda: resume(self.folder), 1 + 3 * chunks + step)

    def _chunk_files(self) -> list[Path]:
        """The chunk files on disk, tables first, then records, then sidecars."""
        chunks = self.folder / "chunks"
        if not chunks.is_dir():
            return []
        order = {".parquet": 0, ".jsonl": 1, ".json": 2}
        return sorted((p for p in chunks.iterdir() if p.is_file() and not p.name.endswith(".tmp")),
                      key=lambda p: (order.get(p.suffix, 3), p.name))

    @precondition(lambda self: bool(self._chunk_files()))
    @rule(data=st.data(), how=st.sampled_from(["flip", "truncate", "swap", "delete", "empty"]))
    def corrupt(self, data, how):
        files = self._chunk_files()
        path = data.draw(st.sampled_from(files), label="file")
        content = path.read_bytes()
        if how == "flip" and content:
            bit = data.draw(st.integers(0, 8 * len(content) - 1), label="bit")
            flipped = bytearray(content)
            flipped[bit // 8] ^= 1 << (bit % 8)
            path.write_bytes(bytes(flipped))
        elif how == "truncate" and content:
            path.write_bytes(content[:data.draw(st.integers(1, len(content)), label="keep") - 1])
        elif how == "swap":
            others = [p for p in files if p != path and p.suffix == path.suffix]
            if others:
                shutil.copyfile(data.draw(st.sampled_from(others), label="other"), path)
        elif how == "delete":
            path.unlink()
        else:
            path.write_bytes(b"")

    def teardown(self) -> None:
        try:
            self.restore()
            try:
                output = execute(STATEFUL_SPEC, self.folder, records=True)  # the same run: finished as it is
            except ResultsError as exc:  # started with edited files: only starting over finishes it
                assert "holds this run, started before" in str(exc), exc
                output = execute(STATEFUL_SPEC, self.folder, records=True, force=True)
            assert output.manifest["status"] == "finished"
            table, records = expected_run()
            assert_frame_equal(read_table(self.folder), table)
            assert (self.folder / "records.jsonl").read_bytes() == records
            assert not (self.folder / "chunks").exists()
        finally:
            self.scratch.cleanup()


RunFolder.TestCase.settings = settings(max_examples=40, stateful_step_count=6, deadline=None, database=None,
                                       derandomize=True, suppress_health_check=[HealthCheck.too_slow])
test_any_sequence_of_kills_corruptions_and_resumes_ends_in_the_uninterrupted_table = RunFolder.TestCase


def test_the_machine_refuses_a_resume_after_an_edit_between_kill_and_resume():
    """The sequence the machine exists for, played every time: started, killed
    after a chunk, the strategy source edited, resumed (refused), restored,
    resumed to the end."""
    machine = RunFolder()
    machine.start(chunks=1, step=0)
    machine.edit("source")
    machine.resume(chunks=4, step=3)
    manifest = json.loads((machine.folder / "manifest.json").read_text())
    assert manifest["status"] == "running" and len(machine.played[manifest["run_id"]]) == 1
    machine.restore()
    machine.resume(chunks=9, step=0)
    assert json.loads((machine.folder / "manifest.json").read_text())["status"] == "finished"
    machine.teardown()
