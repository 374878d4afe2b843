"""Printed numbers (welcometo_sim.analysis.formatting): no NaN, no -0.000, integers as integers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from welcometo_sim.analysis.formatting import format_interval, format_number, merge_intervals, table_text


def test_numbers_never_print_nan_or_a_negative_zero():
    assert format_number(float("nan")) == "-"
    assert format_number(None, missing="never completed") == "never completed"
    assert format_number(pd.NA) == "-"
    assert format_number(-0.0) == "0.000"
    assert format_number(-0.0004) == "0.000"
    assert format_number(-0.0004, signed=True) == "0.000"
    assert format_number(-0.0004, percent=True) == "0.0%"
    assert format_number(0.25, signed=True) == "+0.250"
    assert format_number(-1.5, 1) == "-1.5"


def test_integers_print_as_integers_and_whole_columns_too():
    assert format_number(np.int64(30)) == "30"
    assert format_number(30.0) == "30.000"
    assert format_number(30.0, whole=True) == "30"
    text = table_text(pd.DataFrame({"games": [30.0, 20.0], "mean": [45.0, 44.25]}, index=["a", "b"]))
    assert text.splitlines()[1].split() == ["a", "30", "45.000"]


def test_intervals_merge_into_one_column_and_missing_bounds_drop_out():
    assert format_interval(0.5, 0.25, 0.75, percent=True) == "50.0% [25.0, 75.0]"
    assert format_interval(0.543, 0.5124, 0.5736, percent=True) == "54.3% [51.2, 57.4]"
    assert format_interval(1.0, -0.00001, 2.0, 1, signed=True) == "+1.0 [0.0, +2.0]"
    assert format_interval(1.0, np.nan, 2.0) == "1.000"
    assert format_interval(np.nan, 0, 1, missing="never completed") == "never completed"
    table = pd.DataFrame({"mean": [1.0, np.nan], "mean_low": [0.5, np.nan], "mean_high": [1.5, np.nan],
                          "n": [3, 4]})
    merged = merge_intervals(table, 1, missing={"mean": "never"})
    assert list(merged.columns) == ["mean", "n"]
    assert list(merged["mean"]) == ["1.0 [0.5, 1.5]", "never"]
    printed = table_text(table)
    assert "nan" not in printed.lower() and "-0.0" not in printed


def test_a_transposed_table_has_one_column_per_row_label():
    table = pd.DataFrame({"plans": [2.0, 1.0], "plans_low": [1.0, 0.5], "plans_high": [3.0, 1.5]},
                         index=pd.Index(["a", "b"], name="player"))
    from welcometo_sim.analysis.formatting import format_table

    text = format_table(table, 1, transpose="category")
    assert list(text.columns) == ["a", "b"] and list(text.index) == ["plans"]
    assert text.index.name == "category" and text.loc["plans", "b"] == "1.0 [0.5, 1.5]"


def test_a_wide_table_continues_in_blocks_that_keep_the_row_labels():
    table = pd.DataFrame({f"measure_{i}": [1000.5 + i, 2.25] for i in range(12)}, index=["first", "second"])
    whole = table_text(table, width=0)
    assert max(len(line) for line in whole.splitlines()) > 100
    text = table_text(table, width=100)
    blocks = text.split("\n\n")
    assert len(blocks) >= 2 and max(len(line) for line in text.splitlines()) <= 100
    for block in blocks:
        assert [line.split()[0] for line in block.splitlines()[1:]] == ["first", "second"]
    assert [column for block in blocks for column in block.splitlines()[0].split()] == list(table.columns)
