"""The two formats that leave the simulator, as documents other programs can
check against (docs/RECORDS.md describes them in words):

- `record_schema`: the JSON Schema (draft 2020-12) of one game record, a line
  of records.jsonl, format ``welcometo-sim/game/1``; shipped as
  ``record.schema.json`` beside this file.
- `table_schema`: the result table's columns in order, with their pandas
  dtypes, format ``welcometo-sim/table/1``; made from the column list the
  writer itself uses, so the two cannot drift apart.

Each carries its format version: a change of a field's meaning gets a new one.
``wtsim schema record`` and ``wtsim schema table`` print them.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from ..sim.rows import COLUMNS, column_dtypes

RECORD_SCHEMA_FILE = "record.schema.json"
TABLE_FORMAT = "welcometo-sim/table/1"
NULLABLE_DTYPES = ("Int16",)
"""Dtypes whose columns may be empty (a plan never completed has no turn)."""


def record_schema() -> dict[str, Any]:
    """The JSON Schema of a game record, as shipped with the package."""
    text = resources.files(__name__).joinpath(RECORD_SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def table_schema() -> dict[str, Any]:
    """The result table's columns in the order they are written: name, pandas
    dtype and whether the column may hold missing values."""
    dtypes = column_dtypes()
    columns = [{"name": name, "dtype": dtypes[name], "nullable": dtypes[name] in NULLABLE_DTYPES}
               for name in COLUMNS]
    return {"format": TABLE_FORMAT, "columns": columns}


__all__ = ["record_schema", "table_schema", "TABLE_FORMAT"]
