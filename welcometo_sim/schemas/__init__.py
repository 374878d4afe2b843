"""The formats that leave the simulator, as documents other programs can check
against (docs/RECORDS.md describes them in words), for each game:

- `record_schema`: the JSON Schema (draft 2020-12) of one game record, a line
  of records.jsonl. Every game's records open with the same envelope
  (``format``, ``game`` number, ``seed``, ``variant``, ``players``). Welcome
  To's carry ``"format": "welcometo-sim/game/1"`` (``record.schema.json``);
  Shake That City's ``"format": "welcometo-sim/shake-that-city/game/2"``
  (``shake-that-city.record.schema.json``). Both files ship beside this one.
- `table_schema`: the result table's columns in order, with their pandas
  dtypes, format ``welcometo-sim/table/1`` (Welcome To) or
  ``welcometo-sim/shake-that-city/table/1``; made from the column list the
  writer itself uses, so the two cannot drift apart.

- `output_schema`: the JSON Schema (draft 2020-12) of what a command prints
  with ``--json`` (``json-<command>.schema.json``, one per command that has
  ``--json``). Every number in those documents is a JSON number (a missing
  one null), every 95% interval the fields ``X``, ``X_low``, ``X_high``.

Each carries its format version: a change of a field's meaning gets a new one.
``wtsim schema record`` and ``wtsim schema table`` print them (``--game``
picks the game); ``wtsim schema json COMMAND`` prints a command's.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from ..sim.rows import dtypes_of, table_columns_of

DEFAULT_GAME = "welcome-to"
RECORD_SCHEMA_FILES = {
    "welcome-to": "record.schema.json",
    "shake-that-city": "shake-that-city.record.schema.json",
}
"""Game -> its shipped record schema; the games `wtsim schema` knows."""
TABLE_FORMATS = {
    "welcome-to": "welcometo-sim/table/1",
    "shake-that-city": "welcometo-sim/shake-that-city/table/1",
}
TABLE_FORMAT = TABLE_FORMATS[DEFAULT_GAME]
NULLABLE_DTYPES = ("Int16",)
"""Dtypes whose columns may be empty (a plan never completed has no turn)."""
SCHEMA_GAMES = tuple(RECORD_SCHEMA_FILES)
OUTPUT_COMMANDS = ("run", "summarize", "compare", "plans", "sweep", "tune", "balance", "strategies")
"""The commands with --json, each with a shipped schema of its document."""


class UnknownSchemaGame(ValueError):
    """A game with no shipped schema; the message names the games that have one."""


def _checked(game: str) -> str:
    if game not in RECORD_SCHEMA_FILES:
        raise UnknownSchemaGame(f"no schema for game {game!r} (known: {', '.join(SCHEMA_GAMES)})")
    return game


def record_schema(game: str = DEFAULT_GAME) -> dict[str, Any]:
    """The JSON Schema of one of `game`'s records, as shipped with the package
    (read fresh each call, so callers may change their copy)."""
    name = RECORD_SCHEMA_FILES[_checked(game)]
    return json.loads(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"))


def output_schema(command: str) -> dict[str, Any]:
    """The JSON Schema of `wtsim COMMAND --json`'s document, as shipped (read
    fresh each call). Raises ValueError naming the commands for another name."""
    if command not in OUTPUT_COMMANDS:
        raise ValueError(f"no --json schema for command {command!r} (known: {', '.join(OUTPUT_COMMANDS)})")
    text = resources.files(__name__).joinpath(f"json-{command}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def table_schema(game: str = DEFAULT_GAME) -> dict[str, Any]:
    """`game`'s result table columns in the order they are written: name, pandas
    dtype and whether the column may hold missing values."""
    dtypes = dtypes_of(_checked(game))
    columns = [{"name": name, "dtype": dtypes[name], "nullable": dtypes[name] in NULLABLE_DTYPES}
               for name in table_columns_of(game)]
    return {"format": TABLE_FORMATS[game], "columns": columns}


__all__ = ["OUTPUT_COMMANDS", "SCHEMA_GAMES", "TABLE_FORMAT", "TABLE_FORMATS", "UnknownSchemaGame",
           "output_schema", "record_schema", "table_schema"]
