"""Shake That City's shipped formats against what the code writes: records of
every variant (the shipped configs) validate against
welcometo_sim/schemas/shake-that-city.record.schema.json, broken ones do
not, and written tables have exactly the columns and dtypes of
`table_schema("shake-that-city")`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from helpers import user_error, wtsim
from welcometo_sim.api import execute
from welcometo_sim.cli.info import complete_schema_game
from welcometo_sim.config import parse_config
from welcometo_sim.games.shake_that_city.game import GAME_NAME, RECORD_FORMAT
from welcometo_sim.schemas import (SCHEMA_GAMES, TABLE_FORMATS, UnknownSchemaGame, record_schema,
                                   table_schema)
from welcometo_sim.sim.results import read_table

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
VARIANTS = {path.stem.removeprefix("shake-that-city").lstrip("-") or "base": path
            for path in sorted(CONFIGS.glob("shake-that-city*.yaml"))}


def played(folder: Path, config: Path, fmt: str = "csv", games: int = 2, **changes) -> Path:
    """A short run of a shipped config, its slower lookahead seats played by greedy."""
    raw = yaml.safe_load(config.read_text(encoding="utf-8"))
    players = [p if p["strategy"] != "lookahead" else {**p, "strategy": "greedy"} for p in raw["players"]]
    raw.update(games=games, jobs=1, players=players, **changes)
    execute(parse_config(raw), folder, records=True, fmt=fmt)
    return folder


def lines_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "records.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, list[dict]]:
    """Two games of every shipped Shake That City config, as their records.jsonl lines."""
    root = tmp_path_factory.mktemp("stc-records")
    return {name: lines_of(played(root / name, path)) for name, path in VARIANTS.items()}


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = record_schema(GAME_NAME)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(validator, record: dict) -> list[str]:
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(record)]


def test_the_configs_cover_every_variant():
    assert set(VARIANTS) == {"base", "seaside", "family", "construction", "solo", "wild-nights",
                             "solo-wild-nights"}


def test_schema_names_the_game_and_its_record_version():
    schema = record_schema(GAME_NAME)
    assert schema["properties"]["format"]["const"] == RECORD_FORMAT == f"welcometo-sim/{GAME_NAME}/game/2"
    assert schema["$id"] == f"urn:welcometo-sim:schema:{GAME_NAME}:2"
    assert record_schema() != schema and record_schema()["properties"]["format"]["const"] == "welcometo-sim/game/1"


def test_both_games_records_share_the_envelope():
    """The same field names, in the same order, for format, game number, seed,
    variant and players, and the same player entries."""
    ours, welcome_to = record_schema(GAME_NAME), record_schema()
    envelope = ["format", "game", "seed", "variant", "players"]
    assert list(ours["properties"])[:5] == envelope == [k for k in welcome_to["properties"] if k != "deal"][:5]
    assert set(envelope) <= set(ours["required"]) & set(welcome_to["required"])
    for key in ("game", "seed"):
        assert {k: v for k, v in ours["properties"][key].items() if k != "description"} == \
               {k: v for k, v in welcome_to["properties"][key].items() if k != "description"}
    assert ours["properties"]["players"]["items"]["required"] == \
        welcome_to["properties"]["players"]["items"]["required"] == ["seat", "name", "strategy"]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_writes_records_the_schema_accepts(records, validator, variant):
    assert len(records[variant]) == 2
    for record in records[variant]:
        assert record["format"] == RECORD_FORMAT and isinstance(record["game"], int)
        assert problems(validator, record) == []


def test_the_records_hold_what_the_schema_tells_apart(records):
    """Wilds taken under Wild Nights, construction tiles in the construction and
    solo games only, the seaside side, passes (null moves)."""
    def moves(name):
        return [m for r in records[name] for entry in r["rounds"] for m in entry["moves"]]

    assert any(m is not None and m[1] for m in moves("wild-nights"))
    assert all(m is None or not m[1] for m in moves("base"))
    assert all(len(r["construction"]) == 4 for name in ("construction", "solo") for r in records[name])
    assert all(r["construction"] == [] for r in records["base"] + records["family"])
    assert records["seaside"][0]["variant"]["side"] == "seaside"
    assert any(m is None for name in records for m in moves(name))


def test_a_record_with_overrides_is_held_to_the_engine_limits_not_the_shipped_data(tmp_path, validator):
    record = lines_of(played(tmp_path, VARIANTS["base"], games=1, overrides={"rounds": 10}))[0]
    assert len(record["rounds"]) == 10
    assert problems(validator, record) == []
    record["variant"]["overrides"] = {}
    assert problems(validator, record), "a record of the shipped data has 15 rounds"


def _move(record: dict) -> list:
    return next(m for entry in record["rounds"] for m in entry["moves"] if m is not None)


def _set_move(record: dict, index: int, value) -> None:
    _move(record)[index] = value


def _pattern(record: dict, text: str) -> None:
    record["rounds"][0]["pattern"] = text


MUTATIONS = {
    "seed missing": lambda r: r.pop("seed"),
    "scores missing": lambda r: r.pop("scores"),
    "game number missing": lambda r: r.pop("game"),
    "the game's name as its number": lambda r: r.update(game=GAME_NAME),
    "another game": lambda r: r.update(format="welcometo-sim/game/1"),
    "another version": lambda r: r.update(format=f"welcometo-sim/{GAME_NAME}/game/3"),
    "the first form's index": lambda r: r.update(index=0),
    "a player without a strategy": lambda r: r["players"][0].pop("strategy"),
    "players as names": lambda r: r.update(players=[p["name"] for p in r["players"]]),
    "overrides missing": lambda r: r["variant"].pop("overrides"),
    "a seed that is text": lambda r: r.update(seed=str(r["seed"])),
    "qualified as text": lambda r: r["scores"][0].update(qualified="yes"),
    "a negative score": lambda r: r["scores"][0].update(roads=-1),
    "a row outside any board": lambda r: _set_move(r, 2, 8),
    "a column outside the shipped board": lambda r: _set_move(r, 3, 6),
    "a move of no building": lambda r: _set_move(r, 0, "tower"),
    "a wild taken without Wild Nights": lambda r: _set_move(r, 1, True),
    "a move one value short": lambda r: _move(r).pop(),
    "a colour that is no cube": lambda r: _pattern(r, "HSFPRXHSF"),
    "a wild cube without Wild Nights": lambda r: _pattern(r, "HSFPRWHSF"),
    "a pattern one cube short": lambda r: _pattern(r, "HSFPRHSF"),
    "a board letter that is no building": lambda r: r["boards"][0].__setitem__(0, "WWWWWW"),
    "a board row one cell short": lambda r: r["boards"][0].__setitem__(0, "HHHHH"),
    "a board one row short": lambda r: r["boards"][0].pop(),
    "a corner tile that is not 1": lambda r: r["tiles"].reverse(),
    "a tile twice": lambda r: r["tiles"].__setitem__(1, r["tiles"][2]),
    "construction tiles without the variant": lambda r: r.update(construction=[[1, 1, 0]]),
    "family and solo together": lambda r: r["variant"].update(family=True, solo=True),
    "an unknown side": lambda r: r["variant"].update(side="mountain"),
    "a start player seat out of range": lambda r: r.update(start_player=12),
    "five seats": lambda r: [r[key].extend(r[key][:1] * 3) for key in ("players", "scores", "boards")],
    "one seat without the solo rules": lambda r: [r[key].pop() for key in ("players", "scores", "boards")],
    "a negative tile supply": lambda r: r["variant"].update(tile_supply=-1),
    "an unknown field": lambda r: r.update(comment="x"),
    "an unknown score field": lambda r: r["scores"][0].update(style=3),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_the_schema_rejects_broken_records(records, validator, name):
    record = copy.deepcopy(records["base"][0])
    assert problems(validator, record) == []
    MUTATIONS[name](record)
    assert problems(validator, record), name


def test_construction_games_need_their_tiles(records, validator):
    record = copy.deepcopy(records["construction"][0])
    record["construction"][0][2] = 4
    assert problems(validator, record), "the shipped data has 4 pairs, 0-3"
    record["construction"] = []
    assert problems(validator, record)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_written_tables_have_the_documented_columns_and_dtypes(tmp_path, fmt):
    document = table_schema(GAME_NAME)
    assert document["format"] == TABLE_FORMATS[GAME_NAME] != TABLE_FORMATS["welcome-to"]
    names = [column["name"] for column in document["columns"]]
    folder = played(tmp_path / fmt, VARIANTS["construction"], fmt=fmt, games=3)
    if fmt == "parquet":
        assert pq.read_schema(folder / "results.parquet").names == names
    else:
        assert (folder / "results.csv").read_text(encoding="utf-8").splitlines()[0].split(",") == names
    frame = read_table(folder)
    expected = pd.DataFrame({c["name"]: pd.Series([], dtype=c["dtype"]) for c in document["columns"]})
    assert list(frame.columns) == names
    assert frame.dtypes.astype(str).to_dict() == expected.dtypes.astype(str).to_dict()
    assert not any(c["nullable"] for c in document["columns"]) and not frame.isna().any().any()
    assert {"roads", "bonus", "qualified", "wild_nights"} <= set(names) and "plan1" not in names


def test_unknown_games_have_no_schema():
    assert SCHEMA_GAMES == ("welcome-to", GAME_NAME)
    for build in (record_schema, table_schema):
        with pytest.raises(UnknownSchemaGame, match="known: welcome-to, shake-that-city"):
            build("monopoly")


@pytest.mark.parametrize("document", ["record", "table"])
def test_wtsim_schema_prints_the_games_documents(capsys, document):
    build = record_schema if document == "record" else table_schema
    code, out, err = wtsim(["schema", document, "--game", GAME_NAME], capsys)
    assert code == 0, err
    assert json.loads(out) == build(GAME_NAME)
    code, out, err = wtsim(["schema", document, "--game", "welcome-to"], capsys)
    assert code == 0, err
    assert json.loads(out) == build()


def test_wtsim_schema_of_an_unknown_game_is_one_line(capsys):
    line = user_error(["schema", "record", "--game", "monopoly"], capsys)
    assert line == "wtsim: error: no schema for game 'monopoly' (known: welcome-to, shake-that-city)"


def test_the_shell_completes_the_games_with_a_schema():
    assert [item.value for item in complete_schema_game("")] == list(SCHEMA_GAMES)
    assert [item.value for item in complete_schema_game("sh")] == [GAME_NAME]
    assert complete_schema_game("x") == []
