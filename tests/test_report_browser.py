"""The HTML report of a run in a real headless Chromium: every figure loads as
an image with a size, every table is there with its rows, and the links to
the best and the worst game open their replay pages on the finished game."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser import chromium, needs_chromium
from helpers import wtsim
from welcometo_sim.analysis.report import FIGURES
from welcometo_sim.sim.results import read_table

pytest.importorskip("matplotlib")
pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
from selenium.webdriver.common.by import By  # noqa: E402

pytestmark = needs_chromium
TABLES = ("scores", "pairs", "breakdown", "endings")


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[Path, Path]:
    """(run folder, report.html) of a small greedy-against-random run with records."""
    from welcometo_sim.cli import main

    folder = tmp_path_factory.mktemp("report-browser")
    config = folder / "mixed.yaml"
    config.write_text("name: mixed\ngames: 6\nseed: 4\nplayers:\n  - strategy: greedy\n  - strategy: random\n",
                      encoding="utf-8")
    run = folder / "run"
    for argv in (["run", str(config), "--records", "--out", str(run), "--quiet"],
                 ["report", str(run), "--html", "--out", str(folder / "site")]):
        try:
            main(argv)
        except SystemExit as exc:
            assert exc.code in (0, None), argv
    return run, folder / "site" / "report.html"


@pytest.fixture(scope="module")
def page(report):
    with chromium() as driver:
        driver.get(report[1].resolve().as_uri())
        yield driver


def test_every_figure_loads_with_a_size(page):
    sizes = page.execute_script(
        "return [...document.querySelectorAll('figure img')].map(i => [i.alt, i.complete, i.naturalWidth, "
        "i.naturalHeight, i.getBoundingClientRect().width]);")
    page_width = page.execute_script("return document.body.getBoundingClientRect().width;")
    assert [alt for alt, *_ in sizes] == [heading for _, _, heading, _ in FIGURES]
    for alt, complete, width, height, shown in sizes:
        assert complete and width >= 400 and height >= 300, (alt, width, height)
        assert 0 < shown <= page_width, (alt, shown, page_width)  # drawn, and no wider than the page


def test_every_table_is_there_with_a_row_per_group(page, report):
    headings = [h.text for h in page.find_elements(By.TAG_NAME, "h3")]
    assert [h for h in headings if h in TABLES] == list(TABLES)
    tables = page.find_elements(By.CSS_SELECTOR, "body > table")
    assert len(tables) == len(TABLES)
    scores = tables[0]
    rows = scores.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert sorted(r.find_elements(By.TAG_NAME, "td")[0].text for r in rows) == ["greedy", "random"]
    frame = read_table(report[0])
    for row in rows:
        cells = row.find_elements(By.TAG_NAME, "td")
        games = frame.loc[frame["player"] == cells[0].text, "game"].nunique()
        assert cells[1].text == str(games)
        assert cells[2].text.count("[") == 1  # a mean with its interval
    for table in tables[1:]:
        assert table.find_elements(By.CSS_SELECTOR, "tbody tr")


def test_links_open_the_best_and_the_worst_game(page, report):
    run, html = report
    frame = read_table(run)
    best = frame.loc[frame["total"].idxmax()]
    worst = frame.loc[frame["total"].idxmin()]
    links = {a.get_attribute("href").rsplit("/", 1)[-1]: a.text
             for a in page.find_elements(By.CSS_SELECTOR, "ul a[href^='game-']")}
    expected = {f"game-{int(best['game'])}.html", f"game-{int(worst['game'])}.html"}
    assert set(links) == expected
    assert any(f"highest score: game {int(best['game'])}" in text for text in links.values())
    assert any(f"lowest score: game {int(worst['game'])}" in text for text in links.values())
    try:
        for name in sorted(links):
            page.find_element(By.CSS_SELECTOR, f"a[href='{name}']").click()
            body = page.find_element(By.TAG_NAME, "body")
            game = int(name.removeprefix("game-").removesuffix(".html"))
            turns = int(frame.loc[frame["game"] == game, "turns"].iloc[0])
            assert page.find_element(By.ID, "title").text.startswith(f"Game {game} ")
            assert body.get_attribute("data-turn") == str(turns)  # opened on the finished game
            page.back()
    finally:
        page.get(html.resolve().as_uri())
