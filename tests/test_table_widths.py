"""Printed tables follow the output's width: every command's output fits 100
columns (the width of output that is not a terminal), the common tables
(scores, pairs, ratings, breakdown) fit 80 in one block, long strategy
labels are shortened with a legend, rates print one way, counts as integers."""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

import pytest
import yaml

from helpers import wtsim
from welcometo_sim.analysis import formatting
from welcometo_sim.cli import main

LONG_GREEDY = "greedy:shortlist=5,weights.points=1.25"
WEIGHTS = "training/mine/weights.npz"
"""A learned player's own weights, relative to the folder wtsim runs in (each test runs in its config's)."""
CONFIGS = {
    "base": {"games": 4, "seed": 2, "players": ["greedy", "random"]},
    "expert3": {"games": 3, "seed": 2, "variant": {"expert": True, "advanced": True},
                "players": ["greedy", "heuristic", "random"]},
    "long-labels": {"games": 4, "seed": 2, "players": [f"learned:weights={WEIGHTS}", LONG_GREEDY, "random"]},
}
WIDTH = 100
NARROW = 80
TABLES = ("scores", "breakdown", "endings", "pairs", "win_rates", "ratings")
COMMON = ("scores", "pairs", "ratings", "breakdown")
RATE = re.compile(r"\d{1,3}\.\d% \[\d{1,3}\.\d, \d{1,3}\.\d\]")


PLAYED: dict[str, dict] = {}


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def played(request, tmp_path_factory) -> dict:
    """A config file and a finished run of it with records (printed 100 columns wide)."""
    return play(request.param, tmp_path_factory)


@pytest.fixture(scope="module")
def long_labels(tmp_path_factory) -> dict:
    return play("long-labels", tmp_path_factory)


def play(name: str, tmp_path_factory) -> dict:
    """The config `name` played once per test module."""
    if name in PLAYED:
        return PLAYED[name]
    folder = tmp_path_factory.mktemp(name)
    weights = folder / WEIGHTS  # a learned player named by a long reference
    weights.parent.mkdir(parents=True)
    weights.write_bytes((Path(formatting.__file__).parents[1] / "learning" / "weights" / "base.npz").read_bytes())
    raw = CONFIGS[name]
    config = folder / "config.yaml"
    config.write_text(yaml.safe_dump(raw), encoding="utf-8")
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", str(WIDTH))
        patch.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            main(["run", str(config), "--out", str(folder / "run"), "--records"])
    PLAYED[name] = {"config": str(config), "run": str(folder / "run"), "folder": str(folder),
                    "printed": out.getvalue(), "players": list(raw["players"])}
    return PLAYED[name]


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


PRINTED: dict[tuple, tuple[int, str, str]] = {}


def printed(argv: list[str], capsys) -> tuple[int, str, str]:
    """`wtsim ARGV` for a command that writes no file (summarize, compare), run
    once per module for each width and folder: the same seeded command at the
    same width prints the same, and several tests read what it printed."""
    key = (tuple(argv), os.environ.get("COLUMNS"), os.getcwd())
    if key not in PRINTED:
        PRINTED[key] = wtsim(argv, capsys)
    return PRINTED[key]


def sections(out: str) -> dict[str, str]:
    """The printed tables by name: the lines under each name line, up to the
    next name (the last compare table of a command printing several)."""
    found: dict[str, list[str]] = {}
    name = None
    for line in out.splitlines():
        if line in TABLES:
            name = line
            found[name] = []
        elif name is not None:
            found[name].append(line)
    return {name: "\n".join(lines).strip("\n") for name, lines in found.items()}


def test_every_printed_line_fits_100_columns(played, capsys, monkeypatch):
    monkeypatch.chdir(played["folder"])
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    assert "results in" in played["printed"]
    wide = [f"run: {line}" for line in played["printed"].splitlines() if len(line) > WIDTH]
    for argv in commands(played):
        if argv[0] in ("plans", "balance", "tune", "sweep") and "learned" in Path(played["config"]).read_text():
            continue  # the analyses are the same for every config; their learned games would only be slow
        code, out, err = printed(argv, capsys) if argv[0] in ("summarize", "compare") else wtsim(argv, capsys)
        assert code == 0, (argv, err)
        wide += [f"{argv[0]}: {line}" for line in out.splitlines() if len(line) > WIDTH]
    assert not wide, "\n".join(wide)


def narrow_outputs(played: dict[str, str], capsys) -> dict[str, str]:
    """What summarize and compare (fresh and from a folder) print."""
    outputs = {}
    for argv in (["summarize", played["run"]], ["compare", "--config", played["config"], "--games", "2", "-q"],
                 ["compare", "--results", played["run"]]):
        code, out, err = printed(argv, capsys)
        assert code == 0, (argv, err)
        outputs[" ".join(argv[:2])] = out
    return outputs


def test_the_common_tables_fit_80_columns_in_one_block(played, capsys, monkeypatch):
    monkeypatch.chdir(played["folder"])
    monkeypatch.setenv("COLUMNS", str(NARROW))
    for command, out in narrow_outputs(played, capsys).items():
        tables = sections(out)
        expected = {"scores", "breakdown"} if command.startswith("summarize") else {"pairs", "ratings", "breakdown"}
        assert expected <= set(tables), (command, out)
        for name in COMMON:
            if name not in tables:
                continue
            text = tables[name]
            assert max(map(len, text.splitlines())) <= NARROW, (command, name, text)
            assert "\n\n" not in text, f"{command}: {name} continues in a second block:\n{text}"


def test_a_wider_terminal_shows_every_column(long_labels, capsys, monkeypatch):
    monkeypatch.chdir(long_labels["folder"])
    monkeypatch.setenv("COLUMNS", str(NARROW))
    narrow = sections(wtsim(["summarize", long_labels["run"]], capsys)[1])["scores"]
    monkeypatch.setenv("COLUMNS", "160")
    wide = sections(wtsim(["summarize", long_labels["run"]], capsys)[1])["scores"]
    header = wide.splitlines()[0].split()
    assert {"p10", "p90", "std", "median", "mean", "win_rate"} <= set(header)
    assert "left out" not in wide
    assert "p10" not in narrow.splitlines()[0] and "p10, p90: left out to fit 80 columns" in narrow


def test_long_labels_are_shortened_with_a_legend(long_labels, capsys, monkeypatch):
    monkeypatch.chdir(long_labels["folder"])
    monkeypatch.setenv("COLUMNS", str(NARROW))
    long = [p for p in long_labels["players"] if len(p) > formatting.LABEL_LIMIT]
    assert len(long) == 2
    for command, out in narrow_outputs(long_labels, capsys).items():
        tables = sections(out)
        expected = {"scores", "breakdown", "pairs"} if command.startswith("summarize") else {
            "win_rates", "pairs", "ratings", "breakdown"}
        assert expected <= set(tables), (command, out)
        for name, text in tables.items():
            if name == "endings":  # how games ended: no player in it
                continue
            legend = dict(line.split(" = ", 1)[::-1] for line in text.splitlines() if " = " in line)
            assert set(long) <= set(legend), (command, name, text)
            table = "\n".join(line for line in text.splitlines() if " = " not in line)
            for full in long:
                assert full not in table, (command, name, text)  # only the legend names it in full
                assert legend[full] in table and len(legend[full]) <= formatting.LABEL_LIMIT
    assert legend[LONG_GREEDY] == "greedy~1" and "learned~1" in legend.values()


def test_rates_print_as_percentages_with_one_decimal_everywhere(played, capsys, monkeypatch):
    monkeypatch.chdir(played["folder"])
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    for command, out in narrow_outputs(played, capsys).items():
        for name, text in sections(out).items():
            for line in text.splitlines():
                without = RATE.sub("", line)
                assert "%" not in without, (command, name, line)  # every rate has the one format
        rates = sections(out).get("win_rates", "")
        assert not re.search(r"\b0\.\d{3}\b", rates), rates  # no fractions among the win rates


def test_compare_prints_counts_as_integers(played, capsys, monkeypatch):
    monkeypatch.chdir(played["folder"])
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    code, out, err = printed(["compare", "--config", played["config"], "--games", "2", "-q"], capsys)
    assert code == 0, err
    ratings = sections(out)["ratings"]
    header, _names, *lines = ratings.splitlines()
    rows = [line for line in lines if not line.startswith("fit") and " = " not in line]
    end = header.index("comparisons") + len("comparisons")  # a right-aligned column ends under its name
    assert rows and all(row[:end].split()[-1].isdigit() for row in rows), ratings
    pairs = sections(out)["pairs"]
    one_pair = len(played["players"]) == 2  # one row: its games stay a column
    games = re.search(r"\s2\s", pairs) if one_pair else "games (every row): 2" in pairs
    assert games and "%" in pairs, pairs  # games per pair (a line when every pair played as many); rates in %


def test_csv_and_json_keep_the_full_tables(played, capsys, monkeypatch):
    monkeypatch.chdir(played["folder"])
    """The widths are those of the text: scripts get every column with its bounds and full labels."""
    monkeypatch.setenv("COLUMNS", str(NARROW))
    code, out, _ = wtsim(["compare", "--config", played["config"], "--games", "2", "--json", "-q"], capsys)
    assert code == 0
    assert '"a_win_rate_low"' in out and '"mean_diff_high"' in out and '"rating_low"' in out
    assert "~1" not in out and all(player in out for player in played["players"])
    code, out, _ = wtsim(["summarize", played["run"], "--csv"], capsys)
    assert code == 0 and "p10" in out and "~1" not in out


def test_the_width_is_columns_then_the_terminal_then_100(monkeypatch):
    monkeypatch.setenv("COLUMNS", "132")
    assert formatting.output_width() == 132
    monkeypatch.delenv("COLUMNS")
    assert formatting.output_width() == formatting.MAX_WIDTH  # not a terminal: pytest captures stdout
    monkeypatch.setattr(sys, "stdout", _Terminal())
    monkeypatch.setattr(formatting.shutil, "get_terminal_size", lambda fallback: os.terminal_size((90, 30)))
    assert formatting.output_width() == 90
    assert formatting.paragraph_width() == 90
    monkeypatch.setattr(formatting.shutil, "get_terminal_size", lambda fallback: os.terminal_size((220, 30)))
    assert formatting.output_width() == 220 and formatting.paragraph_width() == formatting.MAX_WIDTH


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True
