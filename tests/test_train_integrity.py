"""`wtsim train` and weights files that can be trusted: exact budgets with a
curve, resumes that refuse what they would ignore, finite weights only,
weights files and checkpoints read within bounds, folders checked before
any game, and workers that die with the train process."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from helpers import run_cli, user_error, wtsim
from welcometo_sim.learning.features import Layout
from welcometo_sim.learning.model import ModelError, ValueModel
from welcometo_sim.learning.train import CHECKPOINT, TrainSettings, TrainingError, load_state, new_state, train
from welcometo_sim.games.welcome_to.variant import Variant

ROOT = Path(__file__).resolve().parents[1]
SOLO_CONFIG = str(ROOT / "configs" / "solo.yaml")
SOLO = Variant(solo=True)
SMALL = ["--round-games", "4", "--eval-every", "8", "--eval-games", "4", "--quiet"]
"""Two shards of four games a round: eight games a round, an evaluation point every round."""


def settings(**changes) -> TrainSettings:
    base = dict(variant=SOLO.to_record(), players=1, seed=4, shards=2, round_games=4, eval_every=8, eval_games=4)
    return TrainSettings(**{**base, **changes})


def digest(weights: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(weights, dtype=np.float64).tobytes()).hexdigest()[:16]


def trained(folder: Path, games: int, jobs: int = 1, **changes):
    return train(new_state(settings(**changes)), games=games, seconds=None, jobs=jobs, folder=folder, command="t")


# ------------------------------------------------------------ budgets
@pytest.mark.parametrize("changes, games, jobs, expected", [
    ({}, 16, 1, "08367fc70488a0de"),
    ({"shards": 3, "round_games": 2, "eval_every": 12, "rate_after": ((6, 0.1),)}, 12, 1, "f23fa50808a957eb"),
    ({"variant": Variant().to_record(), "players": 2, "seed": 7}, 16, 2, "a9b354c7fe5866e3"),
])
def test_a_whole_number_of_rounds_trains_the_weights_it_always_did(tmp_path, changes, games, jobs, expected):
    """Digests of the weights these settings trained before partial rounds existed."""
    state = trained(tmp_path, games, jobs, **changes)
    assert state.games == games
    assert digest(state.weights) == expected


def test_a_budget_inside_a_round_trains_exactly_that_many_games_and_draws_its_curve(tmp_path, capsys):
    code, stdout, err = wtsim(["train", SOLO_CONFIG, "--out", str(tmp_path / "cli"), "--games", "6", *SMALL],
                              capsys)
    assert code == 0, err
    assert "trained 6 games" in stdout and "last evaluation at 6 games" in stdout
    rows = (tmp_path / "cli" / "curve.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == ["0", "6"]
    assert ValueModel.load(tmp_path / "cli" / "weights.npz").meta["games"] == 6
    one = trained(tmp_path / "one", 10, jobs=1)
    two = trained(tmp_path / "two", 10, jobs=2)
    assert one.games == two.games == 10
    assert [row["games"] for row in one.curve] == [0, 8, 10]
    assert np.array_equal(one.weights, two.weights)
    assert not np.array_equal(one.weights, trained(tmp_path / "eight", 8).weights)


def test_stopping_inside_rounds_and_resuming_trains_one_straight_run(tmp_path):
    folder = tmp_path / "stops"
    trained(folder, 5)
    assert load_state(folder).open_round is not None
    for games, jobs in ((7, 2), (10, 1), (16, 2)):
        state = train(load_state(folder), games=games, seconds=None, jobs=jobs, folder=folder, command="t")
        assert state.games == games
    assert load_state(folder).open_round is None
    assert digest(state.weights) == "08367fc70488a0de"   # the straight 16 games above
    assert [row["games"] for row in state.curve] == [0, 5, 7, 8, 10, 16]


# ------------------------------------------------------------ resume options
def test_resume_refuses_options_that_differ_from_the_checkpoint(tmp_path, capsys):
    out = tmp_path / "t"
    code, _, err = wtsim(["train", SOLO_CONFIG, "--out", str(out), "--games", "8", "--seed", "4", *SMALL], capsys)
    assert code == 0, err
    before = (out / CHECKPOINT).read_bytes()
    line = user_error(["train", "--out", str(out), "--games", "16", "--resume", "--seed", "999", "--shards", "3",
                       "--rate", "0.9", "--eval-every", "15", "-q"], capsys)
    assert "--seed 999, --shards 3, --rate 0.9, --eval-every 15 differ" in line
    assert "seed 4, shards 2, rate 0.3, eval-every 8" in line
    assert "--games 4 is fewer than the 8 games" in user_error(
        ["train", "--out", str(out), "--games", "4", "--resume", "-q"], capsys)
    assert (out / CHECKPOINT).read_bytes() == before
    code, stdout, err = wtsim(["train", "--out", str(out), "--games", "12", "--resume", "--seed", "4", "--rate",
                               "0.3", "--rate-after", "16:0.1", "-q"], capsys)
    assert code == 0, err
    assert err == f"wtsim: resuming {out} at 8 games, training to 12 games in all, learning-rate steps 16:0.1 added\n"
    assert "trained 12 games" in stdout
    assert load_state(out).settings.rate_after == ((16, 0.1),)


# ------------------------------------------------------------ finite weights
def write_checkpoint(out: Path, weights: np.ndarray, document: dict | None = None, **arrays) -> None:
    """Replace the checkpoint in `out` by one with these weights (and state document)."""
    path = out / CHECKPOINT
    with np.load(path) as archive:
        state = json.loads(str(archive["state"]))
    state = document if document is not None else state
    np.savez_compressed(path, weights=weights, state=np.array(json.dumps(state)), **arrays)


@pytest.fixture(scope="module")
def trained_once(tmp_path_factory) -> Path:
    """A training folder of 8 games, trained once for the tests that damage a copy of it."""
    out = tmp_path_factory.mktemp("trained") / "t"
    code, _, err = run_cli(["train", SOLO_CONFIG, "--out", str(out), "--games", "8", *SMALL])
    assert code == 0, err
    return out


@pytest.fixture
def checkpoint(tmp_path, trained_once) -> Path:
    """A training folder of 8 games: this test's own copy, which it may damage."""
    out = tmp_path / "t"
    shutil.copytree(trained_once, out)
    return out


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e39])
def test_training_on_weights_that_are_not_finite_is_refused(checkpoint, capsys, bad):
    weights = load_state(checkpoint).weights
    weights[123] = bad
    write_checkpoint(checkpoint, weights)
    line = user_error(["train", "--out", str(checkpoint), "--games", "16", "--resume", "-q"], capsys)
    assert "weights are not all finite" in line and CHECKPOINT in line


def test_an_update_that_makes_the_weights_not_finite_stops_the_training(checkpoint, capsys):
    weights = np.full(load_state(checkpoint).weights.shape, 3e38)
    weights[0] = 0.0
    write_checkpoint(checkpoint, weights)
    code, _, err = wtsim(["train", "--out", str(checkpoint), "--games", "16", "--resume", "-q"], capsys)
    notice, line = err.splitlines()   # what the resume does, then why it stopped
    assert code == 2 and notice.startswith("wtsim: resuming ")
    assert "the weights stopped being finite in training games 8 to 16" in line
    kept = load_state(checkpoint)
    assert kept.games == 8 and np.all(kept.weights[1:] == 3e38)
    with pytest.raises(ModelError):
        ValueModel(ValueModel.load(checkpoint / "weights.npz").layout,
                   np.full(kept.weights.shape, np.inf)).save(checkpoint / "other.npz")
    assert not (checkpoint / "other.npz").exists()


# ------------------------------------------------------------ crafted weights files
META = {"format": "welcometo-sim/value-model/1",
        "layout": {"street_houses": [10, 11, 12], "plan_ids": []}}


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def header_only(shape: tuple[int, ...]) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f4", "fortran_order": False, "shape": shape})
    return buffer.getvalue() + b"\0" * 64


def huge_header(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("weights.npy", header_only((9_000_000_000,)))
        archive.writestr("meta.npy", npy(np.array(json.dumps(META))))


def huge_layout(path: Path) -> None:
    meta = {**META, "layout": {"street_houses": [10**12], "plan_ids": []}}
    np.savez(path, weights=np.zeros(3, np.float32), meta=np.array(json.dumps(meta)))


def zip_bomb(path: Path) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("meta.npy", npy(np.array(json.dumps(META))))
        with archive.open("weights.npy", "w", force_zip64=True) as member:
            member.write(header_only((25_000_000,))[:-64])
            for _ in range(25):
                member.write(b"\0" * 4_000_000)


@pytest.mark.parametrize("craft, reason", [
    (huge_header, "'weights' holds 36000000000 bytes of data, more than"),
    (huge_layout, "its layout's street_houses must be 1 to 8 streets of 3 to 32 houses"),
    (zip_bomb, "'weights' unpacks to 100000128 bytes, more than"),
])
def test_a_crafted_weights_file_is_refused_before_it_is_allocated(tmp_path, capsys, craft, reason):
    path = tmp_path / "crafted.npz"
    craft(path)
    assert path.stat().st_size < 1_000_000
    tracemalloc.start()
    try:
        with pytest.raises(ModelError, match="crafted.npz"):
            ValueModel.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20
    line = user_error(["compare", f"learned:weights={path}", "greedy", "--games", "2", "-q"], capsys)
    assert reason in line


def test_a_weights_file_for_other_streets_is_refused_when_the_config_is_read(tmp_path, capsys):
    ValueModel.empty(Layout((3, 4), ("x",))).save(tmp_path / "small.npz")
    config = tmp_path / "mine.yaml"
    config.write_text(f"name: mine\nplayers:\n  - {{strategy: learned, params: {{weights: "
                      f"'{tmp_path / 'small.npz'}'}}}}\n  - greedy\n", encoding="utf-8")
    line = user_error(["run", str(config), "--games", "2", "--out", str(tmp_path / "runs"), "-q"], capsys)
    assert "players[0]" in line and "streets of (3, 4) houses" in line
    assert not (tmp_path / "runs").exists()


# ------------------------------------------------------------ damaged checkpoints
def truncated(out: Path) -> None:
    path = out / CHECKPOINT
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def bad_crc(out: Path) -> None:
    path = out / CHECKPOINT
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("weights.npy")
    at = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def edited(change):
    def edit(out: Path) -> None:
        with np.load(out / CHECKPOINT) as archive:
            document = json.loads(str(archive["state"]))
            weights = archive["weights"]
        change(document)
        write_checkpoint(out, weights, document)
    return edit


def not_a_mapping(out: Path) -> None:
    write_checkpoint(out, load_state(out).weights, [])


def without_weights(out: Path) -> None:
    with np.load(out / CHECKPOINT) as archive:
        state = archive["state"]
    np.savez(out / CHECKPOINT, state=state)


def short_weights(out: Path) -> None:
    write_checkpoint(out, np.zeros(10))


@pytest.mark.parametrize("damage, reason", [
    (truncated, "not a readable checkpoint"),
    (bad_crc, "'weights' is damaged"),
    (without_weights, "no 'weights' array"),
    (short_weights, "'weights' has shape (10,)"),
    (edited(lambda d: d.pop("games")), "games: missing"),
    (edited(lambda d: d.update(games="8")), "games: must be a number, got str"),
    (edited(lambda d: d.update(curve=[5])), "curve: every point must hold the numbers"),
    (edited(lambda d: d["settings"].update(shards="2")), "shards: must be a number, got str"),
    (edited(lambda d: d["settings"].update(eval_games=10**12)), "--eval-games must be 1 to 100000"),
    (edited(lambda d: d["settings"].pop("variant")), "variant: missing"),
    (edited(lambda d: d["settings"].update(colour=1)), "unknown fields ['colour']"),
    (edited(lambda d: d.update(open_round={"games": 0})), "a round starting at 0 games cannot be open at 8"),
    (edited(lambda d: d.update(games=5, open_round={"games": 0})), "no 'round_weights' array"),
    (not_a_mapping, "its state is not a mapping"),
])
def test_a_damaged_checkpoint_is_one_line_on_resume(checkpoint, capsys, damage, reason):
    damage(checkpoint)
    line = user_error(["train", "--out", str(checkpoint), "--games", "16", "--resume", "-q"], capsys)
    assert str(checkpoint / CHECKPOINT) in line and reason in line
    with pytest.raises(TrainingError):
        load_state(checkpoint)


# ------------------------------------------------------------ unwritable folders
@pytest.fixture
def no_games(monkeypatch):
    """Fail the test if any training or evaluation game is played."""
    import welcometo_sim.learning.train as training

    def played(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(training, "evaluate", played)
    monkeypatch.setattr(training, "play_shard", played)


def test_out_under_a_file_is_one_line_before_any_game(tmp_path, capsys, no_games):
    (tmp_path / "afile").write_text("x")
    line = user_error(["train", SOLO_CONFIG, "--out", str(tmp_path / "afile" / "t"), "--games", "8", *SMALL],
                      capsys)
    assert "afile" in line and "cannot create the folder" in line
    line = user_error(["train", SOLO_CONFIG, "--out", str(tmp_path / "afile"), "--games", "8", *SMALL], capsys)
    assert "afile" in line and "is a file" in line


@pytest.mark.parametrize("code, reason", [(errno.ENOSPC, "no space left on the device"),
                                          (errno.EROFS, "Read-only file system")])
def test_a_folder_that_cannot_take_the_files_is_one_line_before_any_game(tmp_path, capsys, monkeypatch, no_games,
                                                                        code, reason):
    def refuse(handle, **arrays):
        raise OSError(code, os.strerror(code), str(getattr(handle, "name", "")))

    monkeypatch.setattr(np, "savez_compressed", refuse)
    out = tmp_path / "t"
    line = user_error(["train", SOLO_CONFIG, "--out", str(out), "--games", "8", *SMALL], capsys)
    assert reason in line and CHECKPOINT in line
    assert not [p for p in out.iterdir() if p.name.endswith(".partial")]


def test_a_disk_that_fills_during_training_keeps_the_last_checkpoint(tmp_path, capsys, monkeypatch):
    original = np.savez_compressed
    saves = []

    def filling(handle, **arrays):
        saves.append(1)
        if len(saves) > 4:   # the first save, then the checkpoint and model at 0 games, then full
            raise OSError(errno.ENOSPC, "No space left on device", str(handle.name))
        return original(handle, **arrays)

    monkeypatch.setattr(np, "savez_compressed", filling)
    out = tmp_path / "t"
    line = user_error(["train", SOLO_CONFIG, "--out", str(out), "--games", "16", *SMALL], capsys)
    assert "no space left on the device" in line
    monkeypatch.undo()
    assert load_state(out).games == 0
    code, _, err = wtsim(["train", "--out", str(out), "--games", "16", "--resume", "-q"], capsys)
    assert code == 0, err
    assert digest(load_state(out).weights) == digest(trained(tmp_path / "clean", 16, seed=1).weights)


# ------------------------------------------------------------ orphans
def test_killing_train_kills_its_workers(tmp_path):
    import psutil

    out = tmp_path / "t"
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "welcometo_sim", "train", SOLO_CONFIG, "--out", str(out),
                             "--games", "4000", "--jobs", "2", "--round-games", "50", "--eval-every", "100",
                             "--eval-games", "4", "-q"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        curve = out / "curve.csv"
        while not (curve.exists() and len(curve.read_text().splitlines()) > 1):   # workers have played
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        children = psutil.Process(proc.pid).children(recursive=True)
        assert sum("loky" in " ".join(child.cmdline()) for child in children) >= 2
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 5
        alive = children
        while alive and time.monotonic() < deadline:
            time.sleep(0.1)
            alive = [child for child in alive if child.is_running() and child.status() != psutil.STATUS_ZOMBIE]
    finally:
        if proc.poll() is None:
            proc.kill()
    for child in alive:
        child.kill()
    assert not alive, [" ".join(child.cmdline()) for child in alive]


def test_the_report_of_a_training_reads_a_crafted_model_within_bounds(tmp_path):
    from welcometo_sim.analysis.report import _model_meta

    with zipfile.ZipFile(tmp_path / "weights.npz", "w") as archive:
        buffer = io.BytesIO()
        np.lib.format.write_array_header_1_0(buffer, {"descr": "<U1", "fortran_order": False, "shape": (10**10,)})
        archive.writestr("meta.npy", buffer.getvalue() + b"\0" * 64)
    tracemalloc.start()
    try:
        assert _model_meta(tmp_path) == {}
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20
    ValueModel(Layout((3, 4), ("x",)), np.zeros(Layout((3, 4), ("x",)).size), {"games": 7}).save(
        tmp_path / "weights.npz")
    assert _model_meta(tmp_path)["games"] == 7
