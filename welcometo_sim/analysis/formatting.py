"""Numbers as printed tables show them: no ``NaN``, no ``-0.000``, integers as integers.

A printed table is read by people, so a missing value is said in words
(``-`` by default, or a phrase such as "never completed" chosen by the
caller), a value that rounds to zero never carries a minus sign, and a count
stored as a float (``30.0``) prints as ``30``. Intervals print as
``value [low, high]`` so one column holds an estimate and its uncertainty;
every rate prints one way, as a percentage with one decimal whose bounds
drop the repeated sign: ``54.3% [51.2, 57.4]``.

Printed tables follow the width of the output (:func:`output_width`): a
row label longer than :data:`LABEL_LIMIT` (a strategy reference with its
parameters) is shortened in the table, and a legend under it gives the
full label, so one long name does not push the columns off the screen.

These helpers only format: the tables written for scripts (``--json``,
``--csv``, ``--out``) keep the numbers themselves.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

MISSING = "-"
"""What a missing number prints as unless the caller says something better."""

INTERVAL_SUFFIXES = ("_low", "_high")
MAX_WIDTH = 100
"""Printed paragraphs are at most this wide, and output that is not a terminal is this wide."""
MIN_WIDTH = 40
"""Narrower than this, a terminal's width is taken for a mistake and MAX_WIDTH used."""
RATE_COLUMNS = ("win_rate", "share", "a_win_rate", "completion_rate", "high_share", "high_won")
"""Columns holding rates (shares of 0 to 1): printed as percentages (scripts get the fractions)."""
LABEL_LIMIT = 16
"""Row labels longer than this are shortened in printed tables (with a legend)."""
SHORT_MARK = "~"
"""Joins a shortened label's head to its number: `learned~1`."""


def output_width() -> int:
    """How wide printed text may be: ``COLUMNS`` when set, else the terminal's
    width when stdout is one, else MAX_WIDTH (a pipe or a file has no width;
    100 columns read well in an editor or a pasted report)."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) >= MIN_WIDTH:
        return int(columns)
    try:
        is_terminal = sys.stdout.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stdout
        is_terminal = False
    if not is_terminal:
        return MAX_WIDTH
    width = shutil.get_terminal_size((MAX_WIDTH, 24)).columns
    return width if width >= MIN_WIDTH else MAX_WIDTH


def paragraph_width() -> int:
    """How wide a wrapped paragraph of printed text is: the output's width, at
    most MAX_WIDTH (longer lines are hard to read)."""
    return min(MAX_WIDTH, output_width())


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
    when the value is. A percentage's bounds are in percent without the sign:
    ``54.3% [51.2, 57.4]``."""
    if is_missing(value):
        return missing
    text = format_number(value, digits, signed=signed, percent=percent)
    if is_missing(low) or is_missing(high):
        return text
    bounds = (format_number(v, digits, signed=signed, percent=percent).removesuffix("%") for v in (low, high))
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


def table_text(table: pd.DataFrame, digits: int = 3, *, width: int | None = None,
               shorten: bool | Mapping[str, str] = False,
               optional: Iterable[str | tuple[str, ...]] = (), notes: Iterable[str] = (), **options: Any) -> str:
    """The table as aligned plain text (what the commands print), at most
    `width` columns wide (default: :func:`output_width`; see :func:`text_blocks`).

    With `shorten`, row labels longer than LABEL_LIMIT (strategy references
    with parameters) are shortened wherever they appear (row labels, column
    names, text cells such as a verdict) and a legend under the table gives
    each in full; a mapping of full to short labels (one output's several
    tables share one, so a short label means the same player in all of them)
    is used as given. `optional` names columns (or tuples of columns left out
    together) that may be left out, in that order, while the table is too
    wide (a line under it says which); only then does it continue in
    blocks. `notes` are lines printed under the table, before the legend."""
    width = output_width() if width is None else width
    if isinstance(shorten, Mapping):
        present = set(row_labels(table))
        short = {full: brief for full, brief in shorten.items() if full in present}
    else:
        short = short_labels(row_labels(table)) if shorten else {}
    renamed = with_short_labels(table, short)
    options = _renamed_options(options, short)
    text = format_table(renamed, digits, **options)
    left_out: list[str] = []
    for group in optional:
        if not width or _widest(_plain_text(text)) <= width:
            break
        present = [c for c in ((group,) if isinstance(group, str) else group) if c in text.columns]
        text = text.drop(columns=present)
        left_out += present
    if left_out:
        notes = [*notes, f"({', '.join(left_out)}: left out to fit {width} columns; --csv and --json have them)"]
    return "\n".join([text_blocks(text, width), *notes, *legend(short)])


def _renamed_options(options: dict[str, Any], short: dict[str, str]) -> dict[str, Any]:
    """`percent`, `signed` and `missing` naming columns under their shortened labels too."""
    if not short:
        return options
    renamed = dict(options)
    for key in ("percent", "signed"):
        if key in renamed:
            renamed[key] = [short.get(str(c), c) for c in renamed[key]]
    if renamed.get("missing"):
        renamed["missing"] = {short.get(c, c): text for c, text in renamed["missing"].items()}
    return renamed


def row_labels(table: pd.DataFrame) -> list[str]:
    """The text row labels of a table, every level of a MultiIndex, first seen first."""
    values = [part for label in table.index for part in (label if isinstance(label, tuple) else (label,))]
    return list(dict.fromkeys(value for value in values if isinstance(value, str)))


def short_labels(labels: Iterable[str], limit: int = LABEL_LIMIT) -> dict[str, str]:
    """Full label -> short label, for each label longer than `limit`: its head
    (the strategy name before any ':' parameters, at most `limit` - 3
    characters) and a number, unique among all the labels (`learned~1`)."""
    labels = list(dict.fromkeys(map(str, labels)))
    taken, short, numbers = set(labels), {}, {}
    for label in labels:
        if len(label) <= limit:
            continue
        head = label.split(":")[0][:limit - 3]
        number = numbers.get(head, 0) + 1
        while f"{head}{SHORT_MARK}{number}" in taken:
            number += 1
        numbers[head] = number
        short[label] = f"{head}{SHORT_MARK}{number}"
        taken.add(short[label])
    return short


def with_short_labels(table: pd.DataFrame, short: dict[str, str]) -> pd.DataFrame:
    """The table with each long label replaced by its short one: in the row
    labels, in column names (also a label's X_low and X_high) and inside text
    cells (a verdict naming the better player)."""
    if not short:
        return table
    columns = {f"{full}{suffix}": f"{brief}{suffix}" for full, brief in short.items()
               for suffix in ("", *INTERVAL_SUFFIXES)}
    renamed = table.rename(index=short, columns=columns)
    longest_first = sorted(short.items(), key=lambda item: -len(item[0]))

    def replace(cell: Any) -> Any:
        if not isinstance(cell, str):
            return cell
        for full, brief in longest_first:
            cell = cell.replace(full, brief)
        return cell

    for column in renamed.columns:
        if renamed[column].dtype == object or pd.api.types.is_string_dtype(renamed[column]):
            renamed[column] = renamed[column].map(replace)
    return renamed


def legend(short: dict[str, str]) -> list[str]:
    """The lines under a table that give each shortened label in full."""
    return [f"{brief} = {full}" for full, brief in short.items()]


def text_blocks(text: pd.DataFrame, width: int | None = None) -> str:
    """A table of text cells as aligned text. When it is wider than `width`,
    the columns that do not fit go to further blocks below (a blank line
    between), each with the row labels, so a terminal or a pasted report
    never wraps a row in the middle (default width: :func:`output_width`;
    0: one block however wide)."""
    width = output_width() if width is None else width
    if text.empty and not len(text.columns):
        return "(empty)"
    whole = _plain_text(text)
    if not width or _widest(whole) <= width or len(text.columns) < 2:
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
           "merge_intervals", "format_table", "format_index", "table_text", "text_blocks", "MAX_WIDTH",
           "RATE_COLUMNS", "LABEL_LIMIT", "output_width", "paragraph_width", "short_labels", "with_short_labels", "legend",
           "row_labels"]
