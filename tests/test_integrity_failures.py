"""Every failure a strategy or a worker can cause goes through the error policy.

A strategy that calls ``sys.exit``, raises KeyboardInterrupt itself, raises
an exception that cannot be printed, or kills its worker process (``os._exit``,
a segfault) errs on the very games where a plainly raising strategy errs:
under ``on_error: skip`` the tables are the same and errors.csv names the
strategy, seat, game seed and turn; under ``fail`` the run stops with exit 3
and one line. SIGTERM is handled like Ctrl-C, and workers do not outlive
their parent.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from helpers import run_cli, wtsim
from welcometo_sim.sim.results import read_errors, read_table

BOTS = textwrap.dedent('''
    import ctypes
    import os
    import sys
    import time

    from welcometo_sim.strategies.random import RandomStrategy


    class Unprintable(Exception):
        def __str__(self):
            raise ValueError("no text")


    class Breaks(RandomStrategy):
        """Plays like random, but in a share `rate` of its games (drawn from its
        own generator, so always the same games) it breaks on turn 3, `how`."""

        defaults = {**RandomStrategy.defaults, "rate": 0.2, "how": "raise", "sleep": 0.0}

        def __init__(self, rng, params=None):
            super().__init__(rng, params)
            self.broken = self.rng.random() < self.params["rate"]
            if self.broken and self.params["how"] == "init":
                raise Unprintable()

        def choose_play(self, view, plays):
            if self.params["sleep"]:
                time.sleep(self.params["sleep"])
            if self.broken and view.turn == 3:
                how = self.params["how"]
                if how == "raise":
                    raise RuntimeError("gave up")
                if how == "exit":
                    sys.exit(0)
                if how == "interrupt":
                    raise KeyboardInterrupt
                if how == "unprintable":
                    raise Unprintable()
                if how == "os_exit":
                    os._exit(3)
                if how == "segfault":
                    ctypes.string_at(0)
            return super().choose_play(view, plays)
''')

GAMES = ["--games", "10", "--chunk-size", "5", "--seed", "11", "-q"]
QUIET_ENV = {**os.environ, "PYTHONWARNINGS": "ignore"}
"""For commands whose whole stderr is checked: no warning of the environment (e.g. a stale compiled core)."""


@pytest.fixture(scope="module")
def bots(tmp_path_factory) -> Path:
    """The strategies file, written once: the reference run and each test's runs name the same file."""
    import welcometo_sim.strategies  # noqa: F401  (the bots file imports welcometo_sim.strategies.random)

    path = tmp_path_factory.mktemp("bots") / "bots.py"
    path.write_text(BOTS, encoding="utf-8")
    return path


def config(tmp_path: Path, bots: Path, how: str, extra: str = "", rate: float = 0.2) -> Path:
    path = tmp_path / f"{how}.yaml"
    path.write_text(f"name: {how}\nplayers: [random, {{strategy: '{bots}:Breaks', "
                    f"params: {{how: {how}, rate: {rate}}}}}]\n{extra}", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def raising(tmp_path_factory, bots):
    """The tables and errors of the plainly raising strategy (the reference), played once for the module."""
    folder = tmp_path_factory.mktemp("raise")
    out = folder / "raise"
    code, _, err = run_cli(["run", str(config(folder, bots, "raise")), *GAMES, "--jobs", "1",
                            "--on-error", "skip", "--out", str(out)])
    assert code == 0, err
    errors = read_errors(out)
    assert 0 < len(errors) < 10
    return read_table(out), errors


@pytest.mark.parametrize("how, message", [
    ("exit", "raised SystemExit: 0 in choose_play"),
    ("interrupt", "raised KeyboardInterrupt in choose_play"),
    ("unprintable", "raised Unprintable: (its message cannot be shown) in choose_play"),
])
def test_what_escapes_a_game_is_a_strategy_error(tmp_path, bots, capsys, raising, how, message):
    table, reference = raising
    for jobs in ("1", "2"):
        out = tmp_path / f"{how}-{jobs}"
        code, _, err = wtsim(["run", str(config(tmp_path, bots, how)), *GAMES, "--jobs", jobs,
                              "--on-error", "skip", "--out", str(out)], capsys)
        assert code == 0, err
        assert_frame_equal(read_table(out), table)
        errors = read_errors(out)
        assert (errors["message"] == message).all()
        assert_frame_equal(errors.drop(columns="message"), reference.drop(columns="message"))

    code, _, err = wtsim(["run", str(config(tmp_path, bots, how)), *GAMES, "--jobs", "1",
                          "--out", str(tmp_path / f"{how}-fail")], capsys)
    assert code == 3 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert message in err and "(seat 1)" in err and "turn 3" in err and "Breaks" in err


def test_a_strategy_whose_constructor_raises_is_a_strategy_error(tmp_path, bots, capsys, raising):
    table, reference = raising
    out = tmp_path / "init"
    code, _, err = wtsim(["run", str(config(tmp_path, bots, "init")), *GAMES, "--jobs", "1",
                          "--on-error", "skip", "--out", str(out)], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(out), table)
    errors = read_errors(out)
    assert (errors["message"] == "raised Unprintable: (its message cannot be shown) in __init__").all()
    assert (errors["turn"] == 0).all()
    assert_frame_equal(errors[["game", "seed", "seat", "player", "strategy"]],
                       reference[["game", "seed", "seat", "player", "strategy"]])


@pytest.mark.parametrize("how, death", [("os_exit", "exit code 3"), ("segfault", "killed by SIGSEGV")])
def test_a_worker_killed_by_its_strategy_is_found_and_skipped(tmp_path, bots, capsys, raising, how, death):
    table, reference = raising
    out = tmp_path / how
    code, _, err = wtsim(["run", str(config(tmp_path, bots, how)), *GAMES, "--jobs", "2",
                          "--on-error", "skip", "--out", str(out)], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(out), table)
    errors = read_errors(out)
    assert (errors["message"] == f"crashed its worker process ({death}) in choose_play").all()
    assert_frame_equal(errors.drop(columns="message"), reference.drop(columns="message"))


def test_a_worker_killed_by_its_strategy_fails_the_run_in_one_line(tmp_path, bots, capsys, raising):
    _, reference = raising
    out = tmp_path / "fail"
    code, _, err = wtsim(["run", str(config(tmp_path, bots, "os_exit")), *GAMES, "--jobs", "2",
                          "--out", str(out)], capsys)
    assert code == 3, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    first = reference.iloc[0]
    assert f"crashed its worker process (exit code 3) in choose_play in game seed {first['seed']}, turn 3" in err
    assert "(seat 1)" in err and f"wtsim run --resume {out}" in err


def test_compare_keeps_the_error_policy_for_escaping_strategies(tmp_path, bots, capsys):
    code, _, err = wtsim(["compare", "random", f"{bots}:Breaks", "--games", "6", "--seed", "11",
                          "--jobs", "1", "-q"], capsys)
    assert code == 3 and len(err.splitlines()) == 1
    path = config(tmp_path, bots, "exit", rate=1.0)
    code, _, err = wtsim(["compare", "--config", str(path), "--games", "4", "-q"], capsys)
    assert code == 3 and "raised SystemExit: 0 in choose_play" in err and len(err.splitlines()) == 1


# ------------------------------------------------------------- signals
def _children(pid: int) -> list:
    import psutil

    try:
        return [c for c in psutil.Process(pid).children(recursive=True) if "popen_loky" in " ".join(c.cmdline())]
    except psutil.Error:
        return []


def _wait_for_chunks(folder: Path, count: int, proc: subprocess.Popen, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        chunks = folder / "chunks"
        if chunks.is_dir() and len(list(chunks.glob(".*.json"))) >= count:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("no chunks came")


def _dead(workers: list, limit: float = 5) -> bool:
    import psutil

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if all(not w.is_running() or w.status() == psutil.STATUS_ZOMBIE for w in workers):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_signalled_run_keeps_its_chunks_and_its_workers_die_with_it(tmp_path, bots, capsys, signum):
    path = tmp_path / "slow.yaml"
    path.write_text(f"name: slow\nseed: 5\nplayers: [random, {{strategy: '{bots}:Breaks', "
                    f"params: {{rate: 0.0, sleep: 0.002}}}}]\n", encoding="utf-8")
    out = tmp_path / "stopped"
    argv = ["run", str(path), "--games", "30", "--chunk-size", "3", "--jobs", "2", "--out", str(out), "-q"]
    proc = subprocess.Popen([sys.executable, "-m", "welcometo_sim.cli", *argv], cwd=tmp_path, env=QUIET_ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_chunks(out, 2, proc)
        workers = _children(proc.pid)
        assert workers
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _dead(workers), "workers outlived their parent"
    if signum == signal.SIGKILL:
        return
    assert proc.returncode == 143
    assert err == (f"wtsim: terminated (SIGTERM); finished games are kept in {out}; "
                   f"continue with: wtsim run --resume {out}\n")
    code, _, err = wtsim(["run", "--resume", str(out), "--jobs", "1", "-q"], capsys)
    assert code == 0, err
    clean = tmp_path / "clean"
    code, _, err = wtsim([*argv[:-3], "--out", str(clean), "-q", "--jobs", "1"], capsys)
    assert code == 0, err
    assert_frame_equal(read_table(out), read_table(clean))


def test_a_strategy_error_with_two_workers_is_one_line_on_the_real_stderr(tmp_path, bots):
    """Stopping the pool early used to let joblib print its callbacks' tracebacks."""
    path = config(tmp_path, bots, "raise", rate=0.3)
    out = tmp_path / "fail"
    proc = subprocess.run([sys.executable, "-m", "welcometo_sim.cli", "run", str(path), "--games", "60",
                           "--chunk-size", "2", "--jobs", "2", "--seed", "11", "--out", str(out), "-q"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path, env=QUIET_ENV)
    assert proc.returncode == 3
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "raised RuntimeError: gave up in choose_play" in proc.stderr


def test_a_dead_worker_in_an_in_memory_run_keeps_the_games_in_order(tmp_path, bots):
    """compare, plans, sweep and tune take their chunks in game order."""
    from welcometo_sim.api import resolve_spec
    from welcometo_sim.sim.results import to_frame
    from welcometo_sim.sim.runner import run_chunks

    def played(how: str, jobs: int):
        spec = resolve_spec(config(tmp_path, bots, how), games=10, seed=11, jobs=jobs, chunk_size=3,
                            on_error="skip")
        errors = []
        columns, _ = run_chunks(spec, on_chunk=lambda chunk: errors.extend(chunk.errors))
        return to_frame(columns), pd.DataFrame(errors).sort_values("game", ignore_index=True)

    expected, expected_errors = played("raise", 1)
    frame, errors = played("os_exit", 2)
    assert len(expected_errors) > 0
    assert_frame_equal(frame, expected)
    assert list(errors["game"]) == list(expected_errors["game"])
    assert (errors["message"] == "crashed its worker process (exit code 3) in choose_play").all()


def test_loky_reports_of_chunks_sent_to_a_stopped_pool_are_dropped():
    """After a strategy error the command exits while a worker may still finish
    a chunk: joblib's callback then tries the stopped pool and loky logs the
    refusal (a 25-line traceback after the run's one line). Those reports, and
    only those, are dropped."""
    import logging

    from welcometo_sim.sim.runner import _AFTER_SHUTDOWN

    def report(exc: BaseException) -> logging.LogRecord:
        return logging.LogRecord("concurrent.futures", logging.ERROR, __file__, 1,
                                 "exception calling callback for %r", ("future",), (type(exc), exc, None))

    assert not _AFTER_SHUTDOWN.filter(report(RuntimeError("cannot schedule new futures after interpreter shutdown")))
    assert _AFTER_SHUTDOWN.filter(report(RuntimeError("something else went wrong")))
    assert _AFTER_SHUTDOWN.filter(report(ValueError("after interpreter shutdown")))
