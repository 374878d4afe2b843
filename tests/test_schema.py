"""The shipped formats against what the code writes: every variant's game
records validate against welcometo_sim/schemas/record.schema.json, and
written result tables (Parquet and CSV) have exactly the columns and dtypes
of `table_schema()`. Mutated records must fail, so the schema is no formality.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pandas as pd
import pyarrow.parquet as pq
import pytest

from helpers import wtsim
from welcometo_sim.api import execute
from welcometo_sim.config import parse_config
from welcometo_sim.games.welcome_to.game import RECORD_FORMAT
from welcometo_sim.schemas import TABLE_FORMAT, record_schema, table_schema
from welcometo_sim.sim.results import read_table

VARIANTS = {
    "base": {},
    "advanced": {"advanced": True},
    "expert": {"expert": True},
    "solo": {"solo": True},
    "ice-cream": {"board": "ice-cream"},
    "christmas": {"board": "christmas"},
    "easter": {"board": "easter"},
    "advanced-expert-easter": {"advanced": True, "expert": True, "board": "easter"},
}


def played(folder: Path, variant: dict, fmt: str = "parquet", games: int = 3) -> Path:
    players = ["random"] if variant.get("solo") else ["random", "random", "random"]
    spec = parse_config({"name": "schema", "games": games, "seed": 11, "jobs": 1, "variant": variant,
                         "players": players})
    execute(spec, folder, records=True, fmt=fmt)
    return folder


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, list[dict]]:
    """A few games of every variant, as their records.jsonl lines."""
    root = tmp_path_factory.mktemp("records")
    found = {}
    for name, variant in VARIANTS.items():
        folder = played(root / name, variant)
        lines = (folder / "records.jsonl").read_text(encoding="utf-8").splitlines()
        found[name] = [json.loads(line) for line in lines]
    return found


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = record_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(validator, record: dict) -> list[str]:
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(record)]


def test_schema_is_versioned_with_the_record_format(validator):
    schema = record_schema()
    assert schema["properties"]["format"] == {"const": RECORD_FORMAT}
    assert schema["$id"].endswith(":game:" + RECORD_FORMAT.rsplit("/", 1)[1])


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_writes_records_the_schema_accepts(records, validator, variant):
    assert len(records[variant]) == 3
    for record in records[variant]:
        assert problems(validator, record) == []


def test_records_use_what_the_schema_tells_apart(records):
    """The variants cover expert hands, solo, and the three board blocks."""
    expert_turn = records["expert"][0]["turns"][0]
    assert "hands" in expert_turn and "offers" not in expert_turn
    assert all("passed" in action for action in expert_turn["actions"])
    boards = {name: set(records[name][0]["final"][0]["sheet"]["board"]) for name in ("ice-cream", "christmas", "easter")}
    assert boards == {"ice-cream": {"trucks", "sold", "lost", "finished"}, "christmas": {"longest"},
                      "easter": {"eggs"}}


def mutate(record: dict, change) -> dict:
    copied = copy.deepcopy(record)
    change(copied)
    return copied


def _first_action(record: dict) -> dict:
    return record["turns"][0]["actions"][0]


MUTATIONS = {
    "final missing": lambda r: r.pop("final"),
    "another format": lambda r: r.update(format="welcometo-sim/game/2"),
    "a house that is no number": lambda r: r["final"][0]["sheet"]["houses"][0].__setitem__(0, "7x"),
    "a street one house short": lambda r: r["final"][0]["sheet"]["houses"][1].pop(),
    "an unknown effect": lambda r: r["turns"][0]["offers"].__setitem__(0, [3, "teleport"]),
    "a refusal that writes": lambda r: _first_action(r).update(refusal=True),
    "a passed card outside expert": lambda r: _first_action(r).update(passed=1),
    "a street out of range": lambda r: _first_action(r).update(written={"street": 3, "house": 0, "number": 5}),
    "an unknown field": lambda r: r.update(comment="x"),
    "an unknown end reason": lambda r: r["end"].update(reasons=["boredom"]),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_the_schema_rejects_broken_records(records, validator, name):
    record = next(r for r in records["base"] if _first_action(r)["written"] is not None)
    assert problems(validator, record) == []
    assert problems(validator, mutate(record, MUTATIONS[name])), name


def test_expert_records_without_hands_are_rejected(records, validator):
    record = records["expert"][0]

    def to_offers(r: dict) -> None:
        r["turns"][0]["offers"] = r["turns"][0].pop("hands")[0]

    assert problems(validator, mutate(record, to_offers))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_written_tables_have_the_documented_columns_and_dtypes(tmp_path, fmt):
    document = table_schema()
    assert document["format"] == TABLE_FORMAT
    names = [column["name"] for column in document["columns"]]
    folder = played(tmp_path / fmt, VARIANTS["ice-cream"], fmt=fmt, games=4)
    if fmt == "parquet":
        assert pq.read_schema(folder / "results.parquet").names == names
    else:
        assert (folder / "results.csv").read_text(encoding="utf-8").splitlines()[0].split(",") == names
    frame = read_table(folder)
    expected = pd.DataFrame({c["name"]: pd.Series([], dtype=c["dtype"]) for c in document["columns"]})
    assert list(frame.columns) == names
    assert frame.dtypes.astype(str).to_dict() == expected.dtypes.astype(str).to_dict()
    nullable = {c["name"] for c in document["columns"] if c["nullable"]}
    assert {name for name in names if frame[name].isna().any()} <= nullable
    assert nullable == {"plan1_turn", "plan2_turn", "plan3_turn"}


def test_wtsim_schema_prints_both_documents(capsys):
    code, out, err = wtsim(["schema", "record"], capsys)
    assert code == 0, err
    assert json.loads(out) == record_schema()
    code, out, err = wtsim(["schema", "table"], capsys)
    assert code == 0, err
    assert json.loads(out) == table_schema()
