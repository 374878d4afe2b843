"""Every command's printed output fits 100 columns, on the base game and on a
three-player expert config; counts print as integers."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
import yaml

from helpers import wtsim
from welcometo_sim.cli import main

CONFIGS = {
    "base": {"games": 4, "seed": 2, "players": ["greedy", "random"]},
    "expert3": {"games": 3, "seed": 2, "variant": {"expert": True, "advanced": True},
                "players": ["greedy", "heuristic", "random"]},
}
WIDTH = 100


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def played(request, tmp_path_factory) -> dict[str, str]:
    """A config file and a finished run of it with records."""
    folder = tmp_path_factory.mktemp(request.param)
    config = folder / "config.yaml"
    config.write_text(yaml.safe_dump(CONFIGS[request.param]), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["run", str(config), "--out", str(folder / "run"), "--records"])
    return {"config": str(config), "run": str(folder / "run"), "folder": str(folder), "printed": out.getvalue()}


def commands(p: dict[str, str]) -> list[list[str]]:
    config, run, folder = p["config"], p["run"], p["folder"]
    return [
        ["summarize", run], ["summarize", run, "--by", "seat"],
        ["compare", "--config", config, "--games", "2", "-q"],
        ["compare", "--config", config, "--games", "2", "--table", "-q"],
        ["compare", "--results", run],
        ["plans", config, "--games-per-plan", "1", "--deck", "2", "--strategy", "random", "-q"],
        ["plans", config, "--games-per-plan", "1", "--deck", "3", "--strategies", "random,greedy", "-q"],
        ["sweep", config, "--set", "games=2,3", "-q"],
        ["tune", "greedy", "--config", config, "--param", "shortlist=2:4", "--param", "weights.points=0:2",
         "--games", "1", "--trials", "1", "--top", "1", "--final-games", "1", "--out", f"{folder}/t.yaml", "-q"],
        ["balance", config, "--deck", "1", "--games", "1", "--rounds", "1", "--final-games", "1",
         "--strategy", "random", "--out", f"{folder}/b.yaml", "-q"],
        ["show", f"{run}/records.jsonl", "--game", "0"],
        ["verify", f"{run}/records.jsonl"],
        ["strategies"],
    ]


def test_every_printed_line_fits_100_columns(played, capsys):
    assert "results in" in played["printed"]
    wide = [f"run: {line}" for line in played["printed"].splitlines() if len(line) > WIDTH]
    for argv in commands(played):
        code, out, err = wtsim(argv, capsys)
        assert code == 0, (argv, err)
        wide += [f"{argv[0]}: {line}" for line in out.splitlines() if len(line) > WIDTH]
    assert not wide, "\n".join(wide)


def test_compare_prints_counts_as_integers(played, capsys):
    code, out, err = wtsim(["compare", "--config", played["config"], "--games", "2", "-q"], capsys)
    assert code == 0, err
    ratings = out.split("\nratings\n", 1)[1].split("\nbreakdown\n", 1)[0]
    header, _names, *rows = ratings.strip("\n").splitlines()
    end = header.index("comparisons") + len("comparisons")  # a right-aligned column ends under its name
    assert rows and all(row[:end].split()[-1].isdigit() for row in rows), ratings
    pairs = out.split("\npairs\n", 1)[1].split("\nratings\n", 1)[0]
    assert re.search(r"\s2\s", pairs) and "%" in pairs, pairs  # games per pair; win rates in percent


def test_csv_and_json_keep_the_full_tables(played, capsys):
    """The widths are those of the text: scripts get every column with its bounds."""
    code, out, _ = wtsim(["compare", "--config", played["config"], "--games", "2", "--json", "-q"], capsys)
    assert code == 0
    assert '"win_low"' in out and '"diff_high"' in out and '"rating_low"' in out
    assert Path(played["config"]).is_file()
