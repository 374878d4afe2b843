"""The HTML replay viewer's Python side: the states it embeds are the replay's,
the page stands alone, and records it cannot draw are one clear error."""

from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest

from welcometo_sim.games import load_game
from welcometo_sim.games.records import numbered
from welcometo_sim.games.welcome_to import load_rules, play_game
from welcometo_sim.games.welcome_to.boards import joined
from welcometo_sim.games.welcome_to.record_replay import replay
from welcometo_sim.games.shake_that_city.game import boards_at
from welcometo_sim.games.welcome_to.replay_view import game_view
from welcometo_sim.viewer import ViewerError, page_view, render_html, write_html


@lru_cache(maxsize=None)
def _record_text(board: str = "base", advanced: bool = False, expert: bool = False, seed: int = 5) -> str:
    rules = load_rules({"variant": {"board": board, "advanced": advanced, "expert": expert}})
    return json.dumps(play_game(["greedy", "random"], seed, rules).record)


def recorded(**variant) -> dict:
    """A fresh copy of a two-seat greedy-against-random game's record."""
    return json.loads(_record_text(**variant))


def embedded(page: str) -> dict:
    """The game JSON a page carries, read back as the browser reads it."""
    match = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', page, re.S)
    assert match, "no game data in the page"
    return json.loads(match.group(1))


def test_each_embedded_state_is_the_replay_at_that_turn():
    record = recorded()
    view = game_view(record)
    turns = [turn["turn"] for turn in record["turns"]]
    assert [state["turn"] for state in view["states"]] == [0] + turns
    for state in view["states"]:
        replayed = replay(record, until_turn=state["turn"])
        for seat, sheet in enumerate(replayed.sheets):
            drawn = state["sheets"][seat]
            expected = sheet.to_record()
            assert {key: drawn[key] for key in expected} == expected
            assert drawn["plan_use"] == sheet.plan_use
            assert drawn["estates"] == [list(e) for e in sheet.completed_estates()]
        assert state["plan_first"] == replayed.first_turn


def test_the_final_breakdown_is_the_records_score_block():
    record = recorded()
    view = game_view(record)
    assert [(f["seat"], f["rank"], f["score"]) for f in view["final"]] == \
        [(f["seat"], f["rank"], f["score"]) for f in record["final"]]
    assert view["end"] == record["end"]


def test_turns_list_offers_and_each_seats_choice():
    record = recorded()
    view = game_view(record)
    first = record["turns"][0]
    assert view["turns"][0]["offers"] == first["offers"]
    action = first["actions"][0]
    text = view["turns"][0]["actions"][0]["text"]
    if action["refusal"]:
        assert text.startswith("refused")
    else:
        written = action["written"]
        assert f"wrote {written['number']} on street {written['street']} house {written['house']}" in text


def test_the_page_is_self_contained_and_carries_the_view():
    record = recorded()
    page = render_html(record)
    assert not re.search(r"https?://", page)
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=", page)
    assert embedded(page) == json.loads(json.dumps(game_view(record)))


def test_a_player_name_cannot_end_the_script_element():
    record = recorded()
    record["players"][0]["name"] = "</script><b>x</b>"
    page = render_html(record)
    assert embedded(page)["players"][0]["name"] == "</script><b>x</b>"
    assert page.count("</script>") == 2  # the data element's and the drawing script's


def test_the_seed_keeps_every_digit():
    record = recorded()
    assert game_view(record)["seed"] == str(record["seed"])


@pytest.mark.parametrize("board", ["ice-cream", "christmas", "easter"])
def test_board_marks_are_the_replayed_board_state(board):
    record = recorded(board=board)
    view = game_view(record)
    end = replay(record)
    for seat, sheet in enumerate(end.sheets):
        drawn = view["states"][-1]["sheets"][seat]["board"]
        if board == "ice-cream":
            assert drawn["cones"] == sheet.board.cones and drawn["trucks"] == sheet.board.direction
        elif board == "christmas":
            assert drawn["lights"] == [[joined(sheet, s, k) for k in range(len(row) - 1)]
                                       for s, row in enumerate(sheet.numbers)]
        else:
            assert drawn["eggs"] == sheet.board.collected
            assert drawn["egg_points"] == sheet.board.points(sheet)
    assert view["states"][-1]["street_race"] == end.race


def test_expert_turns_carry_each_seats_hand():
    record = recorded(expert=True, advanced=True)
    view = game_view(record)
    assert view["turns"][0]["hands"] == record["turns"][0]["hands"]
    assert [a["passed"] for a in view["turns"][0]["actions"]] == \
        [a["passed"] for a in record["turns"][0]["actions"]]


def test_another_games_record_is_refused():
    record = load_game("shake-that-city").play(["random", "random"], 3).record
    with pytest.raises(ViewerError, match="Welcome To records only"):
        game_view(record)


def test_write_html_writes_the_page(tmp_path):
    path = write_html(recorded(), tmp_path / "game.html")
    assert embedded(path.read_text(encoding="utf-8"))["game"] == 0
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.fixture
def records_file(tmp_path):
    """A records.jsonl of one Welcome To game (game 0) and one Shake That City game (game 1)."""
    other = load_game("shake-that-city").play(["random", "random"], 3).record
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(recorded()) + "\n" + json.dumps(numbered(other, 1)) + "\n", encoding="utf-8")
    return path


def test_show_html_writes_the_page_next_to_the_records(records_file, capsys):
    from helpers import wtsim

    code, out, err = wtsim(["show", str(records_file), "--game", "0", "--html"], capsys)
    assert code == 0, err
    assert out.strip() == str(records_file.parent / "game-0.html")
    view = embedded((records_file.parent / "game-0.html").read_text(encoding="utf-8"))
    # without --turn the page opens on the finished game, beside its final breakdown
    assert view["start"] == view["end"]["turn"] == view["states"][-1]["turn"] == recorded()["end"]["turn"]


def test_show_html_out_and_turn(records_file, tmp_path, capsys):
    from helpers import wtsim

    target = tmp_path / "page.html"
    code, out, err = wtsim(["show", str(records_file), "-g", "0", "--html", "--out", str(target), "-t", "4"], capsys)
    assert code == 0, err
    assert out.strip() == str(target)
    assert embedded(target.read_text(encoding="utf-8"))["start"] == 4


def test_show_html_of_a_shake_that_city_record(records_file, capsys):
    from helpers import wtsim

    code, out, err = wtsim(["show", str(records_file), "--game", "1", "--html"], capsys)
    assert code == 0, err
    view = embedded((records_file.parent / "game-1.html").read_text(encoding="utf-8"))
    assert view["kind"] == "shake-that-city" and view["game"] == 1


def test_shake_that_city_boards_are_the_games_replay_round_by_round():
    record = load_game("shake-that-city").play(["greedy", "random"], 4).record
    view = page_view(record)
    assert [state["turn"] for state in view["states"]] == list(range(len(record["rounds"]) + 1))
    for state in view["states"]:
        assert state["boards"] == [board.grid() for board in boards_at(record, state["turn"])]
    assert view["states"][-1]["boards"] == record["boards"]
    assert [f["score"] for f in view["final"]] == record["scores"]
    assert [t["pattern"] for t in view["turns"]] == [r["pattern"] for r in record["rounds"]]
    assert not re.search(r"https?://", render_html(record))


@pytest.mark.parametrize("argv, message", [
    (["--game", "0", "--out", "x.html"], "--out goes with --html"),
    (["--game", "0", "--html", "--out", "/nonexistent-folder/x.html"], "/nonexistent-folder/x.html: cannot write"),
])
def test_show_html_user_errors_are_one_line(records_file, capsys, argv, message):
    from helpers import user_error

    line = user_error(["show", str(records_file), *argv], capsys)
    assert line.startswith("wtsim: error: ") and message in line


def test_a_run_report_links_the_highest_and_lowest_scoring_games(tmp_path, capsys):
    from helpers import wtsim
    from welcometo_sim.sim.results import read_table
    from welcometo_sim.viewer.pages import replay_pages

    pytest.importorskip("matplotlib")
    config = tmp_path / "mixed.yaml"
    config.write_text("name: mixed\ngames: 4\nseed: 3\nplayers:\n  - strategy: greedy\n  - strategy: random\n",
                      encoding="utf-8")
    run = tmp_path / "run"
    code, _, err = wtsim(["run", str(config), "--records", "--out", str(run), "--quiet"], capsys)
    assert code == 0, err
    code, out, err = wtsim(["report", str(run)], capsys)
    assert code == 0, err
    frame = read_table(run)
    best, worst = (int(frame.loc[index, "game"]) for index in (frame["total"].idxmax(), frame["total"].idxmin()))
    report = (run / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Game replays" in report
    for game in {best, worst}:
        assert f"](game-{game}.html)" in report
        assert embedded((run / "report" / f"game-{game}.html").read_text(encoding="utf-8"))["game"] == game
    assert len(replay_pages(run, frame)) == len({best, worst})
    (run / "records.jsonl").unlink()
    assert replay_pages(run, frame) == []  # no records, no links


def test_show_html_of_a_record_that_does_not_replay_is_one_line(tmp_path, capsys):
    from helpers import user_error

    record = recorded()
    first, second = [a for turn in record["turns"] for a in turn["actions"] if a["seat"] == 0 and a["written"]][:2]
    second["written"] = {**second["written"], "street": first["written"]["street"],
                         "house": first["written"]["house"]}  # a house already written
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    line = user_error(["show", str(path), "--game", "0", "--html"], capsys)
    assert re.match(rf"wtsim: error: {re.escape(str(path))}:1: game 0: (cannot be replayed|malformed record): ", line)
    assert not (tmp_path / "game-0.html").exists()


def test_report_pages_of_a_shake_that_city_run(records_file, tmp_path):
    import pandas as pd

    from welcometo_sim.viewer.pages import replay_pages

    frame = pd.DataFrame({"game": [1, 1], "seat": [0, 1], "player": ["a", "b"], "total": [30, 12]})
    pages = replay_pages(records_file.parent, frame)
    assert [(page.label, page.file_name) for page in pages] == [
        ("highest score: game 1, seat 0 (a) with 30; lowest score: game 1, seat 1 (b) with 12", "game-1.html")]
    pages[0].write(tmp_path / "game-1.html")
    assert embedded((tmp_path / "game-1.html").read_text(encoding="utf-8"))["kind"] == "shake-that-city"


def test_the_page_template_ships_as_package_data():
    from fnmatch import fnmatch

    from test_packaging import PYPROJECT, ROOT

    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["welcometo_sim"]
    template = (ROOT / "welcometo_sim" / "viewer" / "viewer.html")
    assert template.is_file()
    assert any(fnmatch(template.relative_to(ROOT / "welcometo_sim").as_posix(), p) for p in patterns)
