"""Numbers as printed tables show them: no ``NaN``, no ``-0.000``, integers as integers.

A printed table is read by people, so a missing value is said in words
(``-`` by default, or a phrase such as "never completed" chosen by the
caller), a value that rounds to zero never carries a minus sign, and a count
stored as a float (``30.0``) prints as ``30``. Intervals print as
``value [low, high]`` so one column holds an estimate and its uncertainty.

These helpers only format: the tables written for scripts (``--json``,
``--csv``, ``--out``) keep the numbers themselves.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import numpy as np
import pandas as pd

MISSING = "-"
"""What a missing number prints as unless the caller says something better."""

INTERVAL_SUFFIXES = ("_low", "_high")
MAX_WIDTH = 100
"""Printed tables are at most this wide (a terminal's and a report's usual width)."""


def is_missing(value: Any) -> bool:
    """True for None, pandas NA and NaN (not for 0 or an empty string)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(float(value))
    return False


def format_number(value: Any, digits: int = 3, *, signed: bool = False, missing: str = MISSING,
                  percent: bool = False, whole: bool = False) -> str:
    """One number as text.

    Integers (and, with ``whole``, floats holding an integer: a count stored
    as float) print without decimals; other floats with ``digits`` decimals; ``signed`` adds ``+`` to
    positive values (for differences); a value that rounds to zero prints
    without a sign; ``percent`` multiplies by 100 and appends ``%`` (one decimal); a missing
    value prints as ``missing``; infinities as ``inf``/``-inf``."""
    if is_missing(value):
        return missing
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if not isinstance(value, (int, float, np.integer, np.floating)):
        return str(value)
    number = float(value)
    if math.isinf(number):
        return ("+inf" if signed else "inf") if number > 0 else "-inf"
    if percent:
        return _signed(f"{100 * number:.1f}", signed) + "%"
    if isinstance(value, (int, np.integer)) or (whole and number.is_integer()):
        return _signed(str(int(number)), signed)
    return _signed(f"{number:.{digits}f}", signed)


def _signed(text: str, signed: bool) -> str:
    """Drop the sign of a zero ('-0.000' -> '0.000'); add '+' when asked."""
    if text.startswith("-") and not any(c not in "0." for c in text[1:]):
        text = text[1:]
    if signed and not text.startswith("-") and any(c not in "0." for c in text):
        text = "+" + text
    return text


def format_interval(value: Any, low: Any, high: Any, digits: int = 3, *, signed: bool = False,
                    missing: str = MISSING, percent: bool = False) -> str:
    """``value [low, high]``; just ``value`` when the bounds are missing; ``missing``
    when the value is."""
    if is_missing(value):
        return missing
    text = format_number(value, digits, signed=signed, percent=percent)
    if is_missing(low) or is_missing(high):
        return text
    bounds = (format_number(v, digits, signed=signed, percent=percent) for v in (low, high))
    return f"{text} [{', '.join(bounds)}]"


def interval_columns(table: pd.DataFrame) -> list[str]:
    """The columns X of ``table`` that come with ``X_low`` and ``X_high``."""
    return [c for c in table.columns
            if all(f"{c}{suffix}" in table.columns for suffix in INTERVAL_SUFFIXES)]


def merge_intervals(table: pd.DataFrame, digits: int = 3, *, percent: Iterable[str] = (),
                    signed: Iterable[str] = (), missing: dict[str, str] | None = None) -> pd.DataFrame:
    """A copy for printing in which every ``X``, ``X_low``, ``X_high`` triple is one text
    column ``X`` reading ``value [low, high]``; the other columns are unchanged.

    ``percent`` and ``signed`` name columns printed as percentages or with a sign;
    ``missing`` maps a column to what its missing values print as."""
    percent, signed, missing = set(percent), set(signed), dict(missing or {})
    merged = table.copy()
    for column in interval_columns(table):
        low, high = (f"{column}{suffix}" for suffix in INTERVAL_SUFFIXES)
        merged[column] = [
            format_interval(v, lo, hi, digits, signed=column in signed, percent=column in percent,
                            missing=missing.get(column, MISSING))
            for v, lo, hi in zip(table[column], table[low], table[high])]
        merged = merged.drop(columns=[low, high])
    return merged


def format_table(table: pd.DataFrame, digits: int = 3, *, percent: Iterable[str] = (),
                 signed: Iterable[str] = (), missing: dict[str, str] | None = None,
                 transpose: str | None = None) -> pd.DataFrame:
    """The table with every cell as text (intervals merged, see :func:`merge_intervals`),
    index included, ready for ``to_string`` or Markdown: no NaN, no -0.000.

    ``transpose`` names the index of the transposed text (columns become rows):
    a table of many interval columns reads better as one column per row label."""
    text = _format_cells(table, digits, percent=percent, signed=signed, missing=missing)
    if transpose is None:
        return text
    flipped = text.T
    flipped.index.name = transpose
    flipped.columns.name = None
    return flipped


def _format_cells(table: pd.DataFrame, digits: int, *, percent: Iterable[str], signed: Iterable[str],
                  missing: dict[str, str] | None) -> pd.DataFrame:
    percent, signed, missing = set(percent), set(signed), dict(missing or {})
    merged = merge_intervals(table, digits, percent=percent, signed=signed, missing=missing)
    text = pd.DataFrame(
        {column: [cell if isinstance(cell, str) else
                  format_number(cell, digits, signed=column in signed, percent=column in percent,
                                missing=missing.get(column, MISSING), whole=_whole(merged[column]))
                  for cell in merged[column].tolist()]
         for column in merged.columns},
        index=pd.Index([format_index(i) for i in merged.index], name=_index_name(merged.index)))
    return text


def _whole(column: pd.Series) -> bool:
    """True when every number of the column is an integer (counts stored as floats)."""
    numbers = pd.to_numeric(column, errors="coerce").dropna()
    values = numbers.to_numpy(dtype=float)
    return bool(len(values)) and bool(np.all(np.isfinite(values))) and bool(np.all(values == np.round(values)))


def format_index(label: Any) -> str:
    """An index label as text (tuples of a MultiIndex joined by ' / ')."""
    if isinstance(label, tuple):
        return " / ".join(format_number(part, whole=True) for part in label)
    return format_number(label, whole=True)


def _index_name(index: pd.Index) -> str | None:
    if isinstance(index, pd.MultiIndex):
        names = [str(n) for n in index.names if n is not None]
        return " / ".join(names) or None
    return None if index.name is None else str(index.name)


def table_text(table: pd.DataFrame, digits: int = 3, *, width: int | None = MAX_WIDTH, **options: Any) -> str:
    """The table as aligned plain text (what the commands print), at most
    `width` columns wide (see :func:`text_blocks`; None: one block however wide)."""
    return text_blocks(format_table(table, digits, **options), width)


def text_blocks(text: pd.DataFrame, width: int | None = MAX_WIDTH) -> str:
    """A table of text cells as aligned text. When it is wider than `width`,
    the columns that do not fit go to further blocks below (a blank line
    between), each with the row labels, so a terminal or a pasted report
    never wraps a row in the middle."""
    if text.empty and not len(text.columns):
        return "(empty)"
    whole = _plain_text(text)
    if width is None or _widest(whole) <= width or len(text.columns) < 2:
        return whole
    blocks: list[list[int]] = [[]]
    for position in range(len(text.columns)):
        trial = blocks[-1] + [position]
        if blocks[-1] and _widest(_plain_text(text.iloc[:, trial])) > width:
            blocks.append([position])
        else:
            blocks[-1] = trial
    return "\n\n".join(_plain_text(text.iloc[:, block]) for block in blocks)


def _plain_text(text: pd.DataFrame) -> str:
    with pd.option_context("display.width", 10_000, "display.max_columns", None,
                           "display.max_colwidth", None):
        return text.to_string()


def _widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


__all__ = ["MISSING", "is_missing", "format_number", "format_interval", "interval_columns",
           "merge_intervals", "format_table", "format_index", "table_text", "text_blocks", "MAX_WIDTH"]
