"""The dask backend: chunks run on a dask.distributed cluster through joblib's
dask backend and give exactly the loky backend's tables for the same seed.

The clusters here are in-process (threads) to keep the tests quick; a real
cluster runs the same code with workers on other machines.
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
