"""Shake That City's player count and shared tile supply, as the rules give them:
1 to 4 seats (one only with the solo rules), refused otherwise by `run` and
`verify`; a supply of 40 tiles per type (the `tile_supply` variant key) that,
once short, closes a colour to the players who take after it ran out."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from helpers import user_error, wtsim
from welcometo_sim.games.shake_that_city import (BUILDINGS, DataError, ReplayError, Strategy, load_rules,
                                                 play_game, replay)
from welcometo_sim.games.shake_that_city.game import TILE_SUPPLY

OVERDRAWN = (r"^round \d+, seat \d: (the recorded move is not legal"
             r"|a move is recorded where none can be placed)")


def write_config(tmp_path: Path, players: list, variant: dict | None = None) -> Path:
    path = tmp_path / "stc.yaml"
    path.write_text(yaml.safe_dump({"game": "shake-that-city", "games": 2, "variant": variant or {},
                                    "players": players}))
    return path


def tiles_taken(result) -> Counter:
    """Building tiles on all boards by type: what the shared supply gave out."""
    taken: Counter = Counter()
    for board in result.boards:
        for code, mask in enumerate(board.masks):
            taken[BUILDINGS[code]] += mask.bit_count()
    return taken


def records_file(tmp_path: Path, *records: dict) -> Path:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# --- seats ----------------------------------------------------------------------------------------

def test_five_seats_are_refused_by_run_in_one_line(capsys, tmp_path):
    config = write_config(tmp_path, ["greedy"] * 5)
    line = user_error(["run", str(config), "--out", str(tmp_path / "out")], capsys)
    assert line == f"wtsim: error: {config}: players: 5 seats: Shake That City is for 1 to 4 players"
    assert not (tmp_path / "out").exists()


def test_one_seat_without_the_solo_rules_is_refused_in_one_line(capsys, tmp_path):
    config = write_config(tmp_path, ["greedy"])
    line = user_error(["run", str(config), "--out", str(tmp_path / "out")], capsys)
    assert line == (f"wtsim: error: {config}: variant.solo: one seat plays the solo rules: "
                    f"set solo: true (or seat 2 to 4 players)")


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_two_to_four_seats_play_and_one_seat_plays_solo(seats):
    assert len(play_game(["random"] * seats, 1).rows) == seats
    assert play_game(["random"], 1, {"variant": {"solo": True}}).rows[0]["solo"]


def test_verify_rejects_records_with_seats_the_rules_do_not_allow(capsys, tmp_path):
    five = play_game(["random"] * 4, 3).record
    for key in ("players", "scores", "boards"):
        five[key].append(five[key][0])
    for entry in five["rounds"]:
        entry["moves"].append(entry["moves"][0])
    lone = play_game(["random", "random"], 4).record
    for key in ("players", "scores", "boards"):
        lone[key].pop()
    for entry in lone["rounds"]:
        entry["moves"].pop()
    # Seats the record schema does not allow make a malformed record: one line, exit 2.
    for record, problem in ((five, "5 seats: Shake That City is for 1 to 4 players"),
                            (lone, "one seat plays the solo rules")):
        folder = tmp_path / str(len(record["players"]))
        folder.mkdir()
        code, _out, err = wtsim(["verify", str(records_file(folder, record))], capsys)
        assert code == 2 and len(err.splitlines()) == 1
        assert problem in err


# --- tile supply ----------------------------------------------------------------------------------

def test_the_supply_is_forty_of_each_type_by_default_and_kept_in_the_record():
    assert load_rules({}).variant.tile_supply == TILE_SUPPLY == 40
    record = play_game(["random", "random"], 2).record
    assert record["variant"]["tile_supply"] == 40
    assert play_game(["random", "random"], 2, {"variant": {"tile_supply": None}}).record[
        "variant"]["tile_supply"] is None


@pytest.mark.parametrize("value", [-1, "40", True, 2.5])
def test_a_bad_supply_is_one_line_naming_the_key(value):
    with pytest.raises(DataError, match=r"^variant\.tile_supply: expected a number of tiles"):
        load_rules({"variant": {"tile_supply": value}}, 2)


@pytest.mark.parametrize("seed", range(12))
def test_a_game_changes_only_when_a_type_would_run_past_the_supply(seed):
    """Four greedy seats on the same seed, unlimited and with 40 per type: the
    games are the same exactly when the unlimited one took at most 40 of each."""
    seats = ["greedy"] * 4
    unlimited = play_game(seats, seed, {"variant": {"tile_supply": None}})
    limited = play_game(seats, seed)
    assert max(tiles_taken(limited).values()) <= 40
    same = limited.record["rounds"] == unlimited.record["rounds"]
    assert same == (max(tiles_taken(unlimited).values()) <= 40)


class SeesTheSupply(Strategy):
    """Takes the largest placement and checks the supply it is shown at every decision."""

    name = "sees-the-supply"
    shown: list[dict] = []

    def choose(self, view, moves):
        SeesTheSupply.shown.append({"supply": dict(view.supply), "allowed": view.allowed,
                                    "needs": {m.building: view.masks[m].bit_count() for m in moves}})
        return max(moves, key=lambda m: (view.masks[m].bit_count(), m.building, -m.row, -m.col))


def test_a_short_supply_closes_a_colour_and_the_game_replays():
    SeesTheSupply.shown = []
    rules = {"variant": {"tile_supply": 6}}
    result = play_game([SeesTheSupply(), SeesTheSupply(), SeesTheSupply()], 9, rules)
    assert all(taken <= 6 for taken in tiles_taken(result).values())
    assert any(min(view["supply"].values()) < 6 for view in SeesTheSupply.shown)
    for view in SeesTheSupply.shown:
        assert all(need <= view["supply"][building] for building, need in view["needs"].items())
        assert all(building in view["allowed"] for building in view["needs"])
    assert sum(row["passes"] for row in result.rows) > 0, "once the supply is gone, nobody builds"
    again = replay(json.loads(json.dumps(result.record)))
    assert again.rows == result.rows


def test_replay_holds_a_record_to_its_supply():
    unlimited = play_game(["greedy"] * 4, 0, {"variant": {"tile_supply": None}})
    most = max(tiles_taken(unlimited).values())
    record = json.loads(json.dumps(unlimited.record))
    record["variant"]["tile_supply"] = most - 1
    with pytest.raises(ReplayError, match=OVERDRAWN):
        replay(record)


def test_a_record_from_before_the_supply_replays_with_an_unlimited_one():
    """Records written before `tile_supply` existed were played with no limit."""
    seed = next(s for s in range(30)
                if max(tiles_taken(play_game(["greedy"] * 4, s, {"variant": {"tile_supply": None}})).values()) > 40)
    record = play_game(["greedy"] * 4, seed, {"variant": {"tile_supply": None}}).record
    del record["variant"]["tile_supply"]
    assert replay(record).record["scores"] == record["scores"]
    record["variant"]["tile_supply"] = 40
    with pytest.raises(ReplayError, match=OVERDRAWN):
        replay(record)
