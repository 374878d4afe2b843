"""A run's columns as its typed result table, and as the bytes of a table file.

Workers encode their own chunks (`chunks`) and the parent reads and writes
run folders (`results`): both need these, so they sit below both.
"""

from __future__ import annotations

import io

import pandas as pd

from .rows import dtypes_of, game_of_columns, table_columns_of


def to_frame(columns: dict[str, list]) -> pd.DataFrame:
    """Columns from the runner -> the typed result table, with the types of the
    columns' game; a nullable column (an `Int16` plan turn, None where no plan
    was completed) is built as such, since None in a plain column would be NaN."""
    game = game_of_columns(columns)
    dtypes = dtypes_of(game)
    frame = pd.DataFrame({name: pd.array(columns[name], dtype=dtypes[name]) if _nullable(dtypes[name])
                          else columns[name] for name in table_columns_of(game)})
    return frame.astype(dtypes)


def _nullable(dtype: str) -> bool:
    """Whether a dtype name is one of pandas' nullable integer types (Int16, ...)."""
    return dtype.startswith("Int")


def encode_table(columns: dict[str, list], fmt: str) -> bytes:
    """The bytes of a chunk's table file in format `fmt`, the same on every
    machine (Parquet through pyarrow, CSV lines ending in \\n). Workers encode
    their own chunks, so the parent only writes the bytes and renames the
    file: its CPU time would otherwise be taken from the workers playing
    beside it."""
    frame = to_frame(columns)
    if fmt == "parquet":
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False, engine="pyarrow")
        return buffer.getvalue()
    return frame.to_csv(index=False, lineterminator="\n").encode("utf-8")


def parquet_available() -> bool:
    """Whether pyarrow, which writes and reads Parquet tables, is installed."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True
