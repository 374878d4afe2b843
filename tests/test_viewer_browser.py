"""The HTML replay viewer in a real headless Chromium: stepping with the slider
and the arrow keys draws the sheets the record replays to at that turn, and
the final breakdown is the record's score block."""

from __future__ import annotations

import json

import pytest

from browser import chromium, needs_chromium
from welcometo_sim.games import load_game
from welcometo_sim.games.shake_that_city.game import boards_at
from welcometo_sim.games.welcome_to import load_rules, play_game
from welcometo_sim.games.welcome_to.record_replay import replay
from welcometo_sim.viewer import write_html

pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(json.dumps(play_game(["greedy", "random"], 11).record))


@pytest.fixture(scope="module")
def browser():
    with chromium() as driver:
        yield driver


def opened(browser, record: dict, folder, name: str = "game.html"):
    """The browser showing the viewer page of `record`."""
    browser.get(write_html(record, folder / name).resolve().as_uri())
    return browser


@pytest.fixture(scope="module")
def page(browser, record, tmp_path_factory):
    return opened(browser, record, tmp_path_factory.mktemp("viewer"))


def drawn_houses(driver) -> dict:
    """(seat, street, house) -> the label drawn in that house cell."""
    cells = driver.execute_script(
        "return [...document.querySelectorAll('.house')].map(c => [c.dataset.seat, c.dataset.street, "
        "c.dataset.house, c.querySelector('.num').textContent]);")
    return {(int(s), int(t), int(h)): label for s, t, h, label in cells}


def drawn_fences(driver) -> dict:
    cells = driver.execute_script(
        "return [...document.querySelectorAll('.fence')].map(c => [c.dataset.seat, c.dataset.street, "
        "c.dataset.slot, c.dataset.fence]);")
    return {(int(s), int(t), int(k)): state == "on" for s, t, k, state in cells}


def assert_drawn_as_replayed(driver, record: dict, turn: int) -> None:
    assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-turn") == str(turn)
    state = replay(record, until_turn=turn)
    houses, fences = drawn_houses(driver), drawn_fences(driver)
    for seat, sheet in enumerate(state.sheets):
        for street, row in enumerate(sheet.to_record()["houses"]):
            for house, label in enumerate(row):
                assert houses[seat, street, house] == (label or ""), (seat, street, house)
            for slot in range(len(row) - 1):
                assert fences[seat, street, slot] == sheet.fences[street][slot]
        for street, parks in enumerate(sheet.parks):
            track = driver.find_element(By.CSS_SELECTOR, f'[data-track="parks-{street}"][data-seat="{seat}"]')
            assert track.get_attribute("data-value") == str(parks)
        temps = driver.find_element(By.CSS_SELECTOR, f'[data-track="temps"][data-seat="{seat}"]')
        assert temps.get_attribute("data-value") == str(min(sheet.temps, sheet.data.temp_boxes))


def test_slider_and_arrow_keys_draw_the_replayed_sheets(page, record):
    middle = record["turns"][len(record["turns"]) // 2]["turn"]
    page.execute_script("const s = document.getElementById('turn'); s.value = arguments[0]; "
                        "s.dispatchEvent(new Event('input'));", middle)
    assert_drawn_as_replayed(page, record, middle)
    body = page.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    assert_drawn_as_replayed(page, record, middle + 2)
    body.send_keys(Keys.ARROW_LEFT)
    assert_drawn_as_replayed(page, record, middle + 1)
    actions = page.find_elements(By.CSS_SELECTOR, "[data-action]")
    assert len(actions) == len(record["players"])
    body.send_keys(Keys.END)
    assert_drawn_as_replayed(page, record, record["end"]["turn"])


def test_final_breakdown_is_the_records_score_block(page, record):
    for entry in record["final"]:
        for category, points in [*entry["score"].items(), ("rank", entry["rank"])]:
            cell = page.find_element(By.CSS_SELECTOR, f'td[data-seat="{entry["seat"]}"][data-cat="{category}"]')
            assert cell.text == str(points), (entry["seat"], category)


def test_ice_cream_cones_and_trucks_are_the_replayed_board(browser, tmp_path):
    rules = load_rules({"variant": {"board": "ice-cream"}})
    record = json.loads(json.dumps(play_game(["greedy", "greedy"], 4, rules).record))
    turn = record["turns"][len(record["turns"]) // 2]["turn"]
    driver = opened(browser, record, tmp_path)
    driver.execute_script("location.hash = 'turn=' + arguments[0]; location.reload();", turn)
    assert_drawn_as_replayed(driver, record, turn)
    fates = {1: "open", 2: "sold", 3: "lost"}
    for seat, sheet in enumerate(replay(record, until_turn=turn).sheets):
        drawn = driver.execute_script(
            "return [...document.querySelectorAll('.house[data-seat=\"' + arguments[0] + '\"]')].map(c => "
            "[c.dataset.street, c.dataset.house, (c.querySelector('.cone') || {dataset: {}}).dataset.cone]);",
            seat)
        cones = {(int(s), int(h)): fate for s, h, fate in drawn if fate}
        assert cones == {(s, h): fates[c] for s, row in enumerate(sheet.board.cones) for h, c in enumerate(row) if c}
        trucks = [t.get_attribute("data-truck") for t in
                  driver.find_elements(By.CSS_SELECTOR, f'.street[data-seat="{seat}"] [data-truck]')]
        assert trucks == [d or "" for d in sheet.board.direction]


def test_shake_that_city_boards_step_round_by_round(browser, tmp_path):
    record = load_game("shake-that-city").play(["greedy", "random"], 4).record
    driver = opened(browser, record, tmp_path)
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.HOME, *[Keys.ARROW_RIGHT] * 5)
    assert body.get_attribute("data-turn") == "5"
    for seat, board in enumerate(boards_at(record, 5)):
        drawn = driver.execute_script(
            "return [...document.querySelectorAll('.cell[data-seat=\"' + arguments[0] + '\"]')]"
            ".map(c => [c.dataset.row, c.dataset.col, c.dataset.cell]);", seat)
        rows = board.grid()
        assert {(int(r), int(c)): letter for r, c, letter in drawn} == \
            {(r, c): letter for r, row in enumerate(rows) for c, letter in enumerate(row)}
    totals = [driver.find_element(By.CSS_SELECTOR, f'td[data-seat="{seat}"][data-cat="total"]').text
              for seat in range(len(record["players"]))]
    assert totals == [str(score["total"]) for score in record["scores"]]


def test_a_page_written_with_a_start_turn_opens_there(browser, record, tmp_path):
    browser.get(write_html(record, tmp_path / "game.html", start=3).resolve().as_uri())
    assert_drawn_as_replayed(browser, record, 3)


def test_a_page_opens_on_the_finished_game_beside_its_final_score(browser, record, tmp_path):
    driver = opened(browser, record, tmp_path, "end.html")
    end = record["end"]["turn"]
    assert_drawn_as_replayed(driver, record, end)
    slider = driver.find_element(By.ID, "turn")
    assert slider.get_attribute("value") == slider.get_attribute("max") == str(len(record["turns"]))
    assert driver.find_element(By.ID, "turn-label").text == f"turn {end} of {end}"
    panel = driver.find_element(By.ID, "final-panel")
    assert panel.get_attribute("data-final") == "now" and "ahead" not in panel.get_attribute("class")
    assert panel.find_element(By.TAG_NAME, "h2").text == "Final score"


def test_stepping_back_dims_the_final_score_and_says_which_turn_the_sheets_show(browser, record, tmp_path):
    driver = opened(browser, record, tmp_path, "back.html")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
    assert_drawn_as_replayed(driver, record, 0)
    panel = driver.find_element(By.ID, "final-panel")
    assert panel.get_attribute("data-final") == "ahead" and "ahead" in panel.get_attribute("class")
    assert float(panel.value_of_css_property("opacity")) < 1
    heading = panel.find_element(By.TAG_NAME, "h2").text
    assert heading == f"Final score (at the end, after turn {record['end']['turn']}; the sheets show the start)"
