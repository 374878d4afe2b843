"""One record envelope for every game: `format`, `game` (the number in the run),
`seed`, `variant` and `players` as {seat, name, strategy}, then the game's own
fields; Shake That City records of the first form (written by the code before
the envelope: tests/data/shake_that_city_records_v1.jsonl) are still read."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from helpers import user_error, wtsim
from welcometo_sim.api import run
from welcometo_sim.games.records import format_game, numbered, record_game, record_index
from welcometo_sim.games.shake_that_city.game import RECORD_FORMAT, current_form, replay
from welcometo_sim.schemas import record_schema
from welcometo_sim.viewer import page_view

DATA = Path(__file__).resolve().parent / "data"
FIRST_FORM = DATA / "shake_that_city_records_v1.jsonl"
CONFIGS = Path(__file__).resolve().parents[1] / "configs"
ENVELOPE = ("format", "game", "seed", "variant", "players")


def first_form_records() -> list[dict]:
    return [json.loads(line) for line in FIRST_FORM.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def both_games(tmp_path_factory) -> dict[str, list[dict]]:
    """Two games of each game's bundled config, as records.jsonl lines."""
    found = {}
    for name in ("solo", "shake-that-city"):
        raw = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text(encoding="utf-8"))
        raw["players"] = [{"strategy": "random"} for _ in raw["players"]]
        raw.update(games=2, jobs=1, seed=4)
        folder = tmp_path_factory.mktemp(name) / "run"
        run(raw, out=folder, records=True, fmt="csv")
        found[name] = [json.loads(line) for line in (folder / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    return found


def test_both_games_records_open_with_the_same_envelope(both_games):
    for name, records in both_games.items():
        for number, record in enumerate(records):
            assert set(ENVELOPE) <= set(record), name
            assert record["game"] == number and isinstance(record["seed"], int)
            assert isinstance(record["variant"], dict)
            assert [list(player) for player in record["players"]] == [["seat", "name", "strategy"]] * len(
                record["players"])
            assert [player["seat"] for player in record["players"]] == list(range(len(record["players"])))
            assert record_index(record) == number
    assert {record_game(r) for r in both_games["solo"]} == {None}
    assert {record_game(r) for r in both_games["shake-that-city"]} == {"shake-that-city"}
    assert list(both_games["shake-that-city"][0])[:5] == list(ENVELOPE)


def test_a_record_format_names_its_game():
    assert format_game(RECORD_FORMAT) == "shake-that-city"
    assert format_game("welcometo-sim/game/1") is None
    assert format_game("other/shake-that-city/game/2") is None


@pytest.mark.parametrize("old", first_form_records(), ids=lambda r: f"game-{r['index']}")
def test_a_first_form_record_renamed_is_what_this_version_writes_for_the_same_game(old):
    renamed = current_form(old)
    assert numbered(replay(old).record, old["index"]) == renamed
    assert list(renamed)[:5] == list(ENVELOPE) and renamed["format"] == RECORD_FORMAT
    assert record_game(old) == record_game(renamed) == "shake-that-city"
    assert record_index(old) == record_index(renamed) == old["index"]
    jsonschema.Draft202012Validator(record_schema("shake-that-city")).validate(renamed)


def test_verify_reads_records_of_the_first_form(capsys):
    code, out, err = wtsim(["verify", str(FIRST_FORM)], capsys)
    assert (code, err) == (0, "")
    assert out == "3 records checked, 0 with problems\n"


def test_verify_finds_a_tampered_first_form_record(tmp_path, capsys):
    records = first_form_records()
    records[1]["scores"][0]["total"] += 1
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, out, _err = wtsim(["verify", str(path)], capsys)
    assert code == 1
    assert out.splitlines() == [f"{path}:2: game 1: the recorded scores differ from the replayed boards' scores",
                                "3 records checked, 1 with problems"]


def test_a_record_of_a_version_not_read_is_one_line_naming_the_versions_read(tmp_path, capsys):
    record = first_form_records()[0]
    record["version"] = 7
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    line = user_error(["verify", str(path)], capsys)
    assert line.startswith(f"wtsim: error: {path}:1: game 0: malformed record: not a shake-that-city record")
    assert f"`format` must be {RECORD_FORMAT!r} (or, the first form, `game` 'shake-that-city' with `version` 1)" in line


def test_show_and_the_viewer_read_the_first_form(capsys):
    code, out, err = wtsim(["show", str(FIRST_FORM), "--game", "2"], capsys)
    assert code == 0, err
    old = first_form_records()[2]
    assert out.startswith(f"shake-that-city, seed {old['seed']}, after round 15\n")
    assert "seat 0 lookahead:" in out and "seat 1 greedy:" in out
    view = page_view(old)
    assert view["game"] == 2 and [p["strategy"] for p in view["players"]] == ["lookahead", "greedy"]
    assert view["variant"]["construction"] is True and "overrides" not in view["variant"]


def test_a_welcome_to_record_keeps_its_overrides_in_the_variant_and_the_schema_accepts_it():
    from welcometo_sim.games.welcome_to import load_rules
    from welcometo_sim.games.welcome_to import play_game as play_welcome_to

    overrides = {"plans": {"estates-1-2-6": {"points": [13, 7]}}}
    record = play_welcome_to(["random", "random"], 3, load_rules({"overrides": overrides}, 2)).record
    assert record["variant"]["overrides"] == overrides
    jsonschema.Draft202012Validator(record_schema()).validate(numbered(record, 0))
