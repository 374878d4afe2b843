"""The dask backend: chunks run on a dask.distributed cluster through joblib's
dask backend and give exactly the loky backend's tables for the same seed.

The clusters here are in-process (threads) to keep the tests quick; a real
cluster runs the same code with workers on other machines. The tests of a
cluster that fails (a worker killed by its strategy, the scheduler killed,
no worker at all) start a scheduler and a worker process of their own.
"""

from __future__ import annotations

import logging
import sys

import dask.distributed as distributed
import pytest
from pandas.testing import assert_frame_equal

from helpers import user_error, wtsim
from welcometo_sim.sim.results import read_table


@pytest.fixture()
def pair_config(tmp_path):
    path = tmp_path / "pair.yaml"
    path.write_text("name: pair\nseed: 4\nplayers: [random, {strategy: random, name: other}]\n",
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0", silence_logs=logging.ERROR) as local:
        yield local


def run(config, out, *extra):
    return ["run", str(config), "--games", "30", "--chunk-size", "4", "--out", str(out), "-q", *extra]


def test_dask_cluster_gives_the_loky_tables(tmp_path, pair_config, cluster, capsys):
    code, _, err = wtsim(run(pair_config, tmp_path / "dask", "--records", "--scheduler", cluster.scheduler_address),
                         capsys)
    assert code == 0, err
    code, _, err = wtsim(run(pair_config, tmp_path / "loky", "--records", "--jobs", "2", "--chunk-size", "7"),
                         capsys)
    assert code == 0, err
    assert_frame_equal(read_table(tmp_path / "dask"), read_table(tmp_path / "loky"))
    assert (tmp_path / "dask" / "records.jsonl").read_bytes() == (tmp_path / "loky" / "records.jsonl").read_bytes()
    assert "backend: dask" in (tmp_path / "dask" / "config.yaml").read_text()


def test_a_run_of_shake_that_city_on_dask_gives_the_loky_tables(tmp_path, cluster, capsys):
    """The second game goes through the same chunks, so the cluster changes nothing either."""
    config = tmp_path / "city.yaml"
    config.write_text("name: city\ngame: shake-that-city\nseed: 4\n"
                      "players: [greedy, {strategy: random, name: other}]\n", encoding="utf-8")
    code, _, err = wtsim(run(config, tmp_path / "dask", "--records", "--scheduler", cluster.scheduler_address),
                         capsys)
    assert code == 0, err
    code, _, err = wtsim(run(config, tmp_path / "loky", "--records", "--jobs", "2", "--chunk-size", "7"), capsys)
    assert code == 0, err
    dask_table = read_table(tmp_path / "dask")
    assert "bonus" in dask_table.columns and len(dask_table) == 60  # the game's own categories, 30 games x 2
    assert_frame_equal(dask_table, read_table(tmp_path / "loky"))
    assert (tmp_path / "dask" / "records.jsonl").read_bytes() == (tmp_path / "loky" / "records.jsonl").read_bytes()


def test_without_an_address_a_local_cluster_is_started(tmp_path, pair_config, monkeypatch, capsys):
    started = []

    class InProcessCluster(distributed.LocalCluster):
        def __init__(self, **kwargs):
            started.append(kwargs)
            super().__init__(**{**kwargs, "processes": False})

    monkeypatch.setattr(distributed, "LocalCluster", InProcessCluster)
    code, _, err = wtsim(run(pair_config, tmp_path / "local", "--backend", "dask", "--jobs", "2"), capsys)
    assert code == 0, err
    assert [kwargs["n_workers"] for kwargs in started] == [2]
    code, _, err = wtsim(run(pair_config, tmp_path / "loky", "--jobs", "1"), capsys)
    assert code == 0, err
    assert_frame_equal(read_table(tmp_path / "local"), read_table(tmp_path / "loky"))


def test_missing_dask_is_one_line_naming_the_extra(tmp_path, pair_config, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    line = user_error(run(pair_config, tmp_path / "o", "--backend", "dask"), capsys)
    assert "welcometo-sim[dask]" in line
    assert not (tmp_path / "o").exists()


def test_scheduler_needs_the_dask_backend(tmp_path, pair_config, capsys):
    line = user_error(run(pair_config, tmp_path / "o", "--backend", "loky", "--scheduler", "tcp://h:8786"), capsys)
    assert "--scheduler" in line and "dask" in line


# ------------------------------------------------------------ a cluster that fails
CLUSTER_SCRIPT = """
import logging, sys, time
import dask
import dask.distributed as distributed

if __name__ == "__main__":
    dask.config.set({"distributed.scheduler.allowed-failures": 0})
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.CRITICAL)
    print(cluster.scheduler_address, flush=True)
    time.sleep(120)
"""

STRATEGIES = """
import os, time
from welcometo_sim.strategy import Strategy

class Slow(Strategy):
    name = "slow"
    def choose_play(self, view, plays):
        time.sleep(0.01)
        return plays[0]

class Killer(Strategy):
    name = "killer"
    def choose_play(self, view, plays):
        if view.turn == 3 and self.rng.random() < 0.1:
            os._exit(1)
        return plays[0]
"""


@pytest.fixture()
def process_cluster(tmp_path):
    """A scheduler and one worker process in a process of their own (started
    in about 2 s): (address, process); a task that kills its worker fails at once."""
    import subprocess

    script = tmp_path / "cluster.py"
    script.write_text(CLUSTER_SCRIPT, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, start_new_session=True)
    try:
        address = proc.stdout.readline().strip()
        assert address.startswith("tcp://"), address
        yield address, proc
    finally:
        import os
        import signal

        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def bots_config(tmp_path, strategy: str):
    (tmp_path / "bots.py").write_text(STRATEGIES, encoding="utf-8")
    path = tmp_path / "bots.yaml"
    path.write_text(f"name: bots\nseed: 1\nplayers: [{{strategy: {tmp_path / 'bots.py'}:{strategy}}}, random]\n",
                    encoding="utf-8")
    return path


def test_a_strategy_that_kills_its_dask_worker_is_a_strategy_error(tmp_path, process_cluster, capsys):
    import time

    address, _proc = process_cluster
    started = time.monotonic()
    code, _out, err = wtsim(run(bots_config(tmp_path, "Killer"), tmp_path / "o", "--scheduler", address), capsys)
    assert code == 3, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "strategy error: strategy" in lines[0] and "Killer' (seat 0) crashed its worker process" in lines[0]
    assert "turn 3" in lines[0] and "--resume" in lines[0]
    assert time.monotonic() - started < 60


def test_the_scheduler_going_away_is_one_line_and_exit_3(tmp_path, process_cluster, capsys):
    import os
    import signal
    import threading
    import time

    address, proc = process_cluster
    out = tmp_path / "o"

    def kill_after_the_first_chunk() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list((out / "chunks").glob("*.parquet")) \
                and not list((out / "chunks").glob("*.csv")):
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_after_the_first_chunk, daemon=True)
    killer.start()
    started = time.monotonic()
    code, _out, err = wtsim(run(bots_config(tmp_path, "Slow"), out, "--scheduler", address), capsys)
    killer.join()
    assert code == 3, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"wtsim: worker error: lost {address}") or \
        lines[0].startswith(f"wtsim: worker error: the dask scheduler at {address} went away"), lines[0]
    assert "continue with: wtsim run --resume" in lines[0]
    assert time.monotonic() - started < 40
    assert '"status": "failed"' in (out / "manifest.json").read_text(encoding="utf-8")


def test_a_cluster_without_workers_stops_instead_of_waiting_forever(tmp_path, pair_config, monkeypatch, capsys):
    import time

    from welcometo_sim.sim import runner

    monkeypatch.setattr(runner, "NO_WORKER_SECONDS", 1.0)
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as empty:
        started = time.monotonic()
        code, _out, err = wtsim(run(pair_config, tmp_path / "o", "--scheduler", empty.scheduler_address), capsys)
    assert code == 3, err
    assert err.splitlines() == [err.rstrip("\n")]
    assert f"worker error: {empty.scheduler_address} has had no worker for 1 s" in err
    assert time.monotonic() - started < 15


def test_a_move_that_never_returns_on_a_dask_worker_is_stopped_by_the_move_timeout(tmp_path, cluster, capsys):
    """Under --move-timeout, a cluster worker plays its chunk in a supervised
    process whose watchdog stops the call: the errors and the table of a local
    run, instead of a task that holds its worker forever."""
    from test_supervision import BOTS

    from welcometo_sim.sim.results import read_errors

    bots = tmp_path / "bots.py"
    bots.write_text(BOTS, encoding="utf-8")
    path = tmp_path / "loop.yaml"
    path.write_text(f"name: loop\nseed: 11\nplayers: [random, {{strategy: '{bots}:Ends', params: {{how: loop}}}}]\n",
                    encoding="utf-8")
    options = ["--games", "10", "--chunk-size", "5", "--on-error", "skip", "--move-timeout", "0.5", "-q"]
    local, remote = tmp_path / "local", tmp_path / "remote"
    code, _out, err = wtsim(["run", str(path), *options, "--jobs", "1", "--out", str(local)], capsys)
    assert code == 0, err
    code, _out, err = wtsim(["run", str(path), *options, "--scheduler", cluster.scheduler_address,
                             "--out", str(remote)], capsys)
    assert code == 0, err
    errors = read_errors(remote)
    assert len(errors) > 0
    assert errors["message"].str.fullmatch(
        r"exceeded move_timeout \(\d+(\.\d+)? s > 0\.5 s, stopped\) in choose_play").all(), errors["message"]
    assert_frame_equal(read_table(remote), read_table(local))
    assert_frame_equal(errors.drop(columns="message"), read_errors(local).drop(columns="message"))


def test_a_cluster_stopped_while_it_is_made_is_closed_and_never_closed_again_at_exit():
    """Ctrl-C or SIGTERM while the local cluster starts: the cluster is closed
    by the run, and dask's own close at interpreter exit (which fails on a
    cluster whose workers were starting, with a traceback) skips it."""
    from welcometo_sim.sim import runner

    made = []

    def interrupted_factory(**options):
        made.append(distributed.LocalCluster(processes=False, **options))
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner._local_cluster(interrupted_factory, 1)
    assert made[0].shutdown_on_close is False
    assert made[0].status.name == "closed"


@pytest.mark.parametrize("delay", [0.0, 1.5])
def test_sigterm_while_a_dask_run_starts_is_one_line(tmp_path, pair_config, delay):
    import os
    import signal
    import subprocess
    import time

    out = tmp_path / "o"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))}
    # enough games that the run is still playing when the signal comes (the
    # native core plays 2,000 random games in well under a second)
    proc = subprocess.Popen([sys.executable, "-m", "welcometo_sim", "run", str(pair_config), "--backend", "dask",
                             "--games", "200000", "--out", str(out), "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while not (out / "manifest.json").exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    time.sleep(delay)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert len(err.splitlines()) == 1 and err.startswith("wtsim: terminated (SIGTERM)"), err
