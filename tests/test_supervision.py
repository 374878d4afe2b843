"""No hang, no silent death: games are played in supervised worker processes.

A run of one job (the default of every shipped config) plays in a worker
process the command watches: a strategy that ends its process (``os._exit``
with any code, a SIGKILL of itself) errs on the very games where a plainly
raising strategy errs, named in errors.csv or in one line with exit 3, never
exit 0 with a missing table. A strategy call that never returns is stopped
by the move timeout's watchdog at any --jobs; one that swallows every
exception and loops does not survive SIGTERM of the command; and no worker
or resource tracker outlives a command killed with SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

from helpers import run_cli, wtsim
from welcometo_sim.sim.results import read_errors, read_table

BOTS = textwrap.dedent('''
    import os
    import signal
    import time

    from welcometo_sim.strategies.random import RandomStrategy


    class Ends(RandomStrategy):
        """Plays like random, but in a share `rate` of its games (drawn from its
        own generator, so always the same games) it ends on turn 3, `how`."""

        defaults = {**RandomStrategy.defaults, "rate": 0.2, "how": "raise"}

        def __init__(self, rng, params=None):
            super().__init__(rng, params)
            self.broken = self.rng.random() < self.params["rate"]

        def choose_play(self, view, plays):
            if self.broken and view.turn == 3:
                how = self.params["how"]
                if how == "raise":
                    raise RuntimeError("gave up")
                if how == "exit0":
                    os._exit(0)
                if how == "exit1":
                    os._exit(1)
                if how == "sigkill":
                    os.kill(os.getpid(), signal.SIGKILL)
                if how == "loop":
                    while True:
                        pass
                if how == "stubborn":
                    while True:
                        try:
                            time.sleep(0.01)
                        except BaseException:
                            pass
            return super().choose_play(view, plays)
''')

GAMES = ["--games", "10", "--chunk-size", "5", "--seed", "11", "-q"]
ROOT = Path(__file__).resolve().parents[1]
QUIET_ENV = {**os.environ, "PYTHONWARNINGS": "ignore", "WTSIM_OVERSUBSCRIBE": "1",
             "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
"""For commands run as processes: these sources, no warning of the environment, and two workers even on one core."""
DEATHS = {"exit0": "exit code 0", "exit1": "exit code 1", "sigkill": "killed by SIGKILL"}


@pytest.fixture(scope="module")
def bots(tmp_path_factory) -> Path:
    """The strategies file, written once: the reference run and each test's runs name the same file."""
    import welcometo_sim.strategies  # noqa: F401  (the bots file imports welcometo_sim.strategies.random)

    path = tmp_path_factory.mktemp("bots") / "bots.py"
    path.write_text(BOTS, encoding="utf-8")
    return path


def config(tmp_path: Path, bots: Path, how: str, rate: float = 0.2) -> Path:
    path = tmp_path / f"{how}.yaml"
    path.write_text(f"name: {how}\nplayers: [random, {{strategy: '{bots}:Ends', "
                    f"params: {{how: {how}, rate: {rate}}}}}]\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def raising(tmp_path_factory, bots):
    """The table and errors of the plainly raising strategy (the reference), played once for the module."""
    folder = tmp_path_factory.mktemp("raise")
    out = folder / "raise"
    code, _, err = run_cli(["run", str(config(folder, bots, "raise")), *GAMES, "--jobs", "1",
                            "--on-error", "skip", "--out", str(out)])
    assert code == 0, err
    errors = read_errors(out)
    assert 0 < len(errors) < 10
    return read_table(out), errors


# ------------------------------------------------- a worker that dies (item 2)
@pytest.mark.parametrize("how", ["exit0", "exit1", "sigkill"])
def test_a_strategy_ending_its_process_with_one_job_errs_on_its_games(tmp_path, bots, capsys, raising, how):
    table, reference = raising
    out = tmp_path / how
    code, _, err = wtsim(["run", str(config(tmp_path, bots, how)), *GAMES, "--jobs", "1",
                          "--on-error", "skip", "--out", str(out)], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(out), table)
    errors = read_errors(out)
    assert (errors["message"] == f"crashed its worker process ({DEATHS[how]}) in choose_play").all()
    assert_frame_equal(errors.drop(columns="message"), reference.drop(columns="message"))
    assert json.loads((out / "manifest.json").read_text())["status"] == "finished"


@pytest.mark.parametrize("how", ["exit0", "exit1", "sigkill"])
def test_a_strategy_ending_its_process_with_one_job_fails_the_run_in_one_line(tmp_path, bots, capsys, raising,
                                                                           how):
    _, reference = raising
    out = tmp_path / "fail"
    code, _, err = wtsim(["run", str(config(tmp_path, bots, how)), *GAMES, "--jobs", "1",
                          "--out", str(out)], capsys)
    assert code == 3, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    first = reference.iloc[0]
    assert (f"strategy '{first['strategy']}' (seat 1) crashed its worker process ({DEATHS[how]}) in choose_play "
            f"in game seed {first['seed']}, turn 3") in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and DEATHS[how] in manifest["failure"]


def test_compare_with_one_job_names_the_strategy_that_ended_its_process(tmp_path, bots, capsys):
    path = config(tmp_path, bots, "exit0", rate=1.0)
    code, out, err = wtsim(["compare", "--config", str(path), "--games", "4", "--seed", "3", "--jobs", "1", "-q"],
                           capsys)
    assert code == 3 and out == "", (out, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "crashed its worker process (exit code 0) in choose_play" in err and "turn 3" in err


def test_one_job_and_two_give_the_same_tables_and_records(tmp_path, bots, capsys):
    tables = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        code, _, err = wtsim(["run", str(config(tmp_path, bots, "raise")), *GAMES, "--jobs", jobs,
                              "--on-error", "skip", "--records", "--out", str(out)], capsys)
        assert code == 0, err
        tables.append((read_table(out), read_errors(out), sorted((out / "records.jsonl").read_text().splitlines())))
    assert_frame_equal(tables[0][0], tables[1][0])
    assert_frame_equal(tables[0][1], tables[1][1])
    assert tables[0][2] == tables[1][2] and len(tables[0][2]) == len(tables[0][0]) // 2


# ------------------------------------------- a call that never returns (item 9)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_move_that_never_returns_is_stopped_by_the_move_timeout(tmp_path, bots, raising, capsys, monkeypatch,
                                                                 jobs):
    table, reference = raising
    out = tmp_path / f"loop-{jobs}"
    monkeypatch.setenv("WTSIM_OVERSUBSCRIBE", "1")  # two workers even on one core
    code, _, err = wtsim(["run", str(config(tmp_path, bots, "loop")), *GAMES, "--jobs", jobs, "--on-error", "skip",
                          "--move-timeout", "0.5", "--out", str(out)], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(out), table)
    errors = read_errors(out)
    assert errors["message"].str.fullmatch(
        r"exceeded move_timeout \(\d+(\.\d+)? s > 0\.5 s, stopped\) in choose_play").all(), errors["message"]
    assert_frame_equal(errors.drop(columns="message"), reference.drop(columns="message"))


def test_a_move_that_never_returns_fails_the_run_in_one_line(tmp_path, bots, raising):
    _, reference = raising
    out = tmp_path / "loop-fail"
    proc = subprocess.run([sys.executable, "-m", "welcometo_sim.cli", "run", str(config(tmp_path, bots, "loop")),
                           *GAMES, "--jobs", "1", "--move-timeout", "0.5", "--out", str(out)],
                          capture_output=True, text=True, timeout=300, env=QUIET_ENV)
    assert proc.returncode == 3, proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr
    first = reference.iloc[0]
    assert f"(seat 1) exceeded move_timeout" in proc.stderr
    assert f"in game seed {first['seed']}, turn 3" in proc.stderr


def _descendants(pid: int) -> list:
    import psutil

    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _alive(processes: list) -> list:
    import psutil

    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.Error:
            pass
    return alive


def _command_line(process) -> str:
    import psutil

    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return "(gone)"


def _gone(processes: list, limit: float = 10) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if not _alive(processes):
            return True
        time.sleep(0.1)
    return False


def _wait_for(predicate, proc: subprocess.Popen, limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("the command never got there")


def test_a_strategy_that_swallows_signals_does_not_outlive_sigterm(tmp_path, bots):
    out = tmp_path / "stubborn"
    proc = subprocess.Popen([sys.executable, "-m", "welcometo_sim.cli", "run",
                             str(config(tmp_path, bots, "stubborn", rate=1.0)), *GAMES, "--jobs", "1",
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=QUIET_ENV)
    workers: list = []
    try:
        _wait_for(lambda: (out / "manifest.json").exists() and bool(_descendants(proc.pid)), proc)
        workers = _descendants(proc.pid)
        time.sleep(1.0)  # the strategy is in its loop by now
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for worker in _alive(workers):
            worker.kill()
    assert proc.returncode == 143
    assert err == (f"wtsim: terminated (SIGTERM); finished games are kept in {out}; "
                   f"continue with: wtsim run --resume {out}\n")
    assert workers and _gone(workers), "the worker outlived its command"


# ------------------------------------------------ orphans of SIGKILL (item 10)
@pytest.mark.parametrize("command", [
    ["run", "--games", "2000", "--jobs", "1"],
    ["run", "--games", "2000", "--jobs", "2"],
    ["compare", "random", "greedy", "--games", "2000", "--jobs", "2"],
    ["train", "--games", "1000000", "--jobs", "2"],
], ids=["run-1", "run-2", "compare-2", "train-2"])
def test_no_process_outlives_a_command_killed_with_sigkill(tmp_path, command):
    argv = [*command, "--out", str(tmp_path / "out")] if command[0] != "compare" else command
    expected = 1 if "1" == command[command.index("--jobs") + 1] else 2
    proc = subprocess.Popen([sys.executable, "-m", "welcometo_sim.cli", *argv], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=QUIET_ENV)
    children: list = []
    try:
        def started() -> bool:
            children[:] = _descendants(proc.pid)
            workers = [c for c in children if "resource_tracker" not in _command_line(c)]
            return len(workers) >= expected
        _wait_for(started, proc)
        proc.kill()
        proc.wait()
        assert _gone(children, limit=10), f"left behind: {[_command_line(c) for c in _alive(children)]}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for child in _alive(children):
            child.kill()


# ------------------------------------------- what the worker inherits from the command
COLLECTOR = textwrap.dedent('''
    import gc

    from welcometo_sim.strategies.random import RandomStrategy


    class Collects(RandomStrategy):
        """Plays like random after a full collection of the process's garbage."""

        def choose_play(self, view, plays):
            gc.collect()
            return super().choose_play(view, plays)
''')


class _Finalized:
    """A reference cycle whose finalizer writes the pid of the process it runs in."""

    def __init__(self, marker: Path) -> None:
        self.marker, self.cycle = marker, self

    def __del__(self) -> None:
        with open(self.marker, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()}\n")


def test_the_worker_never_finalizes_what_it_inherited_from_the_command(tmp_path):
    """An object of the command that is garbage when the worker forks is the
    command's to finalize: collected in the worker, an unfinished dask run's
    generator waited forever there on an event loop the fork did not copy."""
    import gc

    from welcometo_sim.api import resolve_spec
    from welcometo_sim.sim.runner import iter_chunks

    (tmp_path / "collector.py").write_text(COLLECTOR, encoding="utf-8")
    path = tmp_path / "collects.yaml"
    path.write_text(f"name: collects\nplayers: [random, {{strategy: '{tmp_path / 'collector.py'}:Collects'}}]\n",
                    encoding="utf-8")
    marker = tmp_path / "finalized"
    spec = resolve_spec(str(path), games=2, seed=1, jobs=1)
    gc.disable()
    try:
        _Finalized(marker)  # garbage from here on, left uncollected until the worker forks
        assert sum(chunk.games for chunk in iter_chunks(spec)) == 2
    finally:
        gc.enable()
    gc.collect()
    assert marker.read_text().split() == [str(os.getpid())]
