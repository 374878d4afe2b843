"""`wtsim report` and the figures behind it (welcometo_sim.analysis.plots / report).

One small greedy-vs-two-random run is shared by the module; the Markdown and
the HTML report are each written once. The figure maths (pairwise win rates,
plan completion curves) are checked on hand-made tables.
"""

from __future__ import annotations

import base64
import contextlib
import io
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest

from helpers import user_error
from welcometo_sim.analysis import plots
from welcometo_sim.analysis.tables import summary_tables
from welcometo_sim.api import execute
from welcometo_sim.cli import main
from welcometo_sim.config import parse_config
from welcometo_sim.sim.results import read_table

FIGURE_FILES = {"scores.png", "breakdown.png", "win_rates.png", "plan_completion.png"}
GAMES, SEED = 20, 5


def check_png(data: bytes | Path) -> np.ndarray:
    """A readable, non-blank PNG of at least 400x400 pixels; returns its pixels."""
    raw = data.read_bytes() if isinstance(data, Path) else data
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = mpimg.imread(io.BytesIO(raw), format="png")
    height, width = pixels.shape[:2]
    assert width >= 400 and height >= 400, (width, height)
    assert float(pixels[..., :3].std()) > 0.01
    # more than a couple of colours: something was drawn, not just a background
    rgb = (pixels[..., :3] * 255).astype(np.uint32).reshape(-1, 3)
    colours = np.unique(rgb[:, 0] << 16 | rgb[:, 1] << 8 | rgb[:, 2])
    assert len(colours) > 20
    return pixels


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report") / "run"
    spec = parse_config({"name": "reptest", "games": GAMES, "seed": SEED,
                         "players": ["greedy", "random", "random"]})
    execute(spec, out=folder)
    return folder


def run_report(argv: list[str]) -> str:
    """Call `wtsim report ...` from a module-scoped fixture (capsys is per test); its stdout."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["report", *argv])
        except SystemExit as exc:
            assert exc.code in (0, None), err.getvalue()
    assert err.getvalue() == ""
    return out.getvalue()


@pytest.fixture(scope="module")
def md_report(run_dir) -> tuple[Path, str]:
    """`wtsim report RUN --md` once: (report.md path, stdout)."""
    stdout = run_report([str(run_dir), "--md"])
    return run_dir / "report" / "report.md", stdout


@pytest.fixture(scope="module")
def html_report(run_dir, tmp_path_factory) -> tuple[Path, str]:
    """`wtsim report RUN --html --out DIR` once: (report.html path, stdout)."""
    target = tmp_path_factory.mktemp("html") / "site"
    stdout = run_report([str(run_dir), "--html", "--out", str(target)])
    return target / "report.html", stdout


# --- Markdown report -----------------------------------------------------------------

def test_md_report_prints_its_path_and_writes_four_readable_pngs(run_dir, md_report):
    path, stdout = md_report
    assert stdout.strip() == str(path)
    assert path.is_file()
    folder = run_dir / "report"
    assert {p.name for p in folder.glob("*.png")} == FIGURE_FILES
    for png in folder.glob("*.png"):
        check_png(png)


def test_md_references_exactly_the_pngs_that_exist(md_report):
    path, _ = md_report
    text = path.read_text(encoding="utf-8")
    refs = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text)
    assert len(refs) == len(set(refs)) == 4
    for ref in refs:
        assert not Path(ref).is_absolute() and "://" not in ref
        assert (path.parent / ref).is_file(), ref
    assert set(refs) == {p.name for p in path.parent.glob("*.png")}


def test_md_header_and_tables_match_the_run(run_dir, md_report):
    path, _ = md_report
    text = path.read_text(encoding="utf-8")
    assert "- **run**: reptest" in text
    assert f"- **seed**: {SEED}" in text
    assert f"- **games**: {GAMES}" in text
    assert "- **players**: greedy, random, random-2" in text
    tables = summary_tables(read_table(run_dir))
    lines = text.splitlines()
    # every scores row: player, games, mean to 2 decimals and win rate in %, each with its interval
    for player, row in tables["scores"].iterrows():
        line = next(l for l in lines if l.startswith(f"| {player} | {GAMES} |"))
        cells = [c.strip().replace("\\", "") for c in line.strip("|").split("|")]
        assert cells[2] == f"{row['mean']:.2f} [{row['mean_low']:.2f}, {row['mean_high']:.2f}]"
        assert cells[-1] == (f"{100 * row['win_rate']:.1f}% [{100 * row['win_rate_low']:.1f}, "
                             f"{100 * row['win_rate_high']:.1f}]")  # the one format of a rate
    # breakdown: a row per category, a column per player (mean and interval); the total row matches
    header = next(l for l in lines if l.startswith("| category | "))
    players = [c.strip().replace("\\", "") for c in header.strip("|").split("|")][1:]
    assert players == list(tables["breakdown"].index)
    rows = [next(l for l in lines if l.startswith(f"| {field} | ")) for field in ("plans", "refusals", "total")]
    cells = [c.strip() for c in rows[-1].strip("|").split("|")][1:]
    for cell, (player, row) in zip(cells, tables["breakdown"].iterrows()):
        assert cell.replace("\\", "") == f"{row['total']:.2f} [{row['total_low']:.2f}, {row['total_high']:.2f}]"
    # every Markdown table is well formed: same number of cells on each of its lines
    for block in re.findall(r"(?:^\|.*\|$\n?)+", text, flags=re.M):
        counts = {l.count("|") - l.count("\\|") for l in block.strip().splitlines()}
        assert len(counts) == 1, block


# --- HTML report ---------------------------------------------------------------------

class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.tables = 0

    def handle_starttag(self, tag, attrs):
        self.tables += tag == "table"
        for name, value in attrs:
            if name in ("src", "href") and value is not None:
                self.refs.append((tag, name, value))


def test_html_is_self_contained_with_embedded_pngs(html_report):
    path, stdout = html_report
    assert stdout.strip() == str(path)
    text = path.read_text(encoding="utf-8")
    parser = _Refs()
    parser.feed(text)
    images = [v for tag, name, v in parser.refs if tag == "img"]
    assert len(images) == 4
    assert text.count("data:image/png;base64,") == 4
    for src in images:
        assert src.startswith("data:image/png;base64,")
        check_png(base64.b64decode(src.split(",", 1)[1], validate=True))
    # nothing else is referenced: no local file (or any other) outside the page
    local = [v for _, _, v in parser.refs if not v.startswith(("data:", "#"))]
    for ref in local:
        assert (path.parent / ref).exists(), f"missing referenced file {ref}"
    assert local == []
    assert parser.tables == 4  # scores, pairs, breakdown, endings
    assert f"<dt>seed</dt><dd>{SEED}</dd>" in text and f"<dt>games</dt><dd>{GAMES}</dd>" in text
    assert "<th>win_rate</th>" in text and "random-2" in text


# --- errors --------------------------------------------------------------------------

def test_missing_results_folder_is_one_line_exit_2(tmp_path, capsys):
    missing = tmp_path / "nowhere"
    line = user_error(["report", str(missing)], capsys)
    assert line.startswith("wtsim: error: ") and str(missing) in line
    assert not missing.exists()


def test_missing_matplotlib_is_one_line_exit_2(run_dir, tmp_path, monkeypatch, capsys):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    target = tmp_path / "r"
    line = user_error(["report", str(run_dir), "--out", str(target)], capsys)
    assert line == "wtsim: error: plots need matplotlib: pip install 'welcometo-sim[plots]'"
    assert not target.exists()
    with pytest.raises(ImportError, match=r"welcometo-sim\[plots\]"):
        plots.score_distribution_plot(read_table(run_dir), tmp_path / "x.png")


# --- figure maths on hand-made tables ------------------------------------------------

def _rows(games: list[list[tuple[str, int]]]) -> pd.DataFrame:
    """A minimal result table: per game a list of (player, rank)."""
    rows = []
    for game, seats in enumerate(games):
        for seat, (player, rank) in enumerate(seats):
            rows.append({"game": game, "seat": seat, "player": player, "strategy": player.split("-")[0],
                         "rank": rank, "total": 10 - rank})
    return pd.DataFrame(rows)


def test_pairwise_win_rates_from_ranks_with_ties_counting_half():
    frame = _rows([
        [("a", 1), ("b", 2), ("c", 3)],
        [("a", 1), ("b", 1), ("c", 3)],   # a and b tie
        [("a", 2), ("b", 1)],             # c not in this game
    ])
    rate, count = plots.pairwise_win_rates(frame)
    assert rate.loc["a", "b"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert rate.loc["b", "a"] == pytest.approx((0 + 0.5 + 1) / 3)
    assert rate.loc["a", "c"] == 1.0 and rate.loc["c", "a"] == 0.0
    assert count.loc["a", "b"] == 3 and count.loc["a", "c"] == 2
    assert np.isnan(rate.loc["a", "a"])
    # rate[i, j] + rate[j, i] == 1 for every pair that shared games
    for i in rate.index:
        for j in rate.columns:
            if i != j:
                assert rate.loc[i, j] + rate.loc[j, i] == pytest.approx(1.0)


def test_pairwise_by_strategy_ignores_seats_of_the_same_strategy():
    frame = _rows([[("x", 1), ("rnd-1", 2), ("rnd-2", 3)], [("x", 3), ("rnd-1", 1), ("rnd-2", 2)]])
    rate, count = plots.pairwise_win_rates(frame, by="strategy")
    assert set(rate.index) == set(rate.columns) == {"x", "rnd"}
    assert rate.loc["x", "rnd"] == pytest.approx(0.5)  # beat both in game 0, lost to both in game 1
    assert count.loc["x", "rnd"] == 4
    assert np.isnan(rate.loc["rnd", "rnd"])


def test_plan_completion_curves_are_cumulative_shares_among_games_with_the_plan():
    frame = pd.DataFrame({
        "game": [0, 1, 2, 3], "seat": [0, 0, 0, 0], "player": ["p"] * 4, "total": [1] * 4,
        "plan1": ["A", "A", "A", "B"], "plan2": ["C"] * 4, "plan3": ["D"] * 4,
        "plan1_turn": pd.array([3, 5, None, 2], dtype="Int16"),
        "plan2_turn": pd.array([None] * 4, dtype="Int16"),
        "plan3_turn": pd.array([4, 4, 4, 4], dtype="Int16"),
        "turns": [6, 6, 6, 6],
    })
    curves = plots.plan_completion_curves(frame)
    share = curves.pivot(index="turn", columns="plan", values="share")
    assert list(share.index) == [1, 2, 3, 4, 5, 6]
    assert list(share["A"]) == pytest.approx([0, 0, 1 / 3, 1 / 3, 2 / 3, 2 / 3])
    assert list(share["B"]) == [0, 1, 1, 1, 1, 1]
    assert list(share["C"]) == [0] * 6
    assert list(share["D"]) == [0, 0, 0, 1, 1, 1]
    assert curves.groupby("plan")["games"].first().to_dict() == {"A": 3, "B": 1, "C": 4, "D": 4}


def test_figures_for_one_player_and_by_seat(run_dir, tmp_path):
    frame = read_table(run_dir)
    solo_like = frame[frame["player"] == "greedy"]
    check_png(plots.win_rate_heatmap(solo_like, tmp_path / "one.png"))  # 1x1 with a note
    check_png(plots.win_rate_heatmap(frame, tmp_path / "seat.png", by="seat"))
    check_png(plots.category_breakdown_plot(frame, tmp_path / "strategy.png", by="strategy"))
