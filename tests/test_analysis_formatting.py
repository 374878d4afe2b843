"""Printed numbers (welcometo_sim.analysis.formatting): no NaN, no -0.000, integers as integers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from welcometo_sim.analysis.formatting import (format_interval, format_number, merge_intervals, short_labels,
                                             table_text)


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


LONG = "learned:weights=training/mine/weights.npz"


def test_long_labels_get_short_unique_names():
    labels = [LONG, "learned:weights=other/weights.npz", "greedy", "learned~3", "a-very-long-name-without-params"]
    short = short_labels(labels)
    assert short == {LONG: "learned~1", "learned:weights=other/weights.npz": "learned~2",
                     "a-very-long-name-without-params": "a-very-long-n~1"}
    assert short_labels(["greedy", "random"]) == {}
    assert short_labels(["learned~1", LONG]) == {LONG: "learned~2"}  # never a label that is already taken


def test_a_table_shortens_long_labels_everywhere_and_gives_them_in_a_legend():
    pairs = pd.DataFrame({"a_win_rate": [0.75], "a_win_rate_low": [0.5], "a_win_rate_high": [0.9],
                          "verdict": [f"{LONG} scores more"]},
                         index=pd.MultiIndex.from_tuples([(LONG, "greedy")], names=["a", "b"]))
    text = table_text(pairs, 1, percent=["a_win_rate"], shorten=True, width=80)
    body, legend_line = text.splitlines()[:-1], text.splitlines()[-1]
    assert legend_line == f"learned~1 = {LONG}"
    assert all(LONG not in line for line in body)
    assert "learned~1 / greedy" in body[-1] and "learned~1 scores more" in body[-1]
    assert "75.0% [50.0, 90.0]" in body[-1]
    matrix = pd.DataFrame({LONG: [np.nan], f"{LONG}_low": [np.nan], f"{LONG}_high": [np.nan],
                           "greedy": [0.25], "greedy_low": [0.1], "greedy_high": [0.5]},
                          index=pd.Index([LONG], name="row vs column"))
    text = table_text(matrix, 1, percent=list(matrix.columns), shorten=True, width=80)
    assert text.splitlines()[0].split() == ["learned~1", "greedy"]  # the columns named by the short label too
    assert "25.0% [10.0, 50.0]" in text and text.splitlines()[-1] == f"learned~1 = {LONG}"
    assert table_text(matrix, 1, width=0).count(LONG) == 2  # without shorten: as it was (column and row)


def test_optional_columns_are_left_out_in_order_only_while_too_wide():
    table = pd.DataFrame({"mean": [45.25], "std": [14.75], "p10": [30.0], "p90": [60.5], "max": [69]},
                         index=pd.Index(["greedy"], name="player"))
    optional = [("p10", "p90"), "std"]
    wide = table_text(table, 1, width=100, optional=optional)
    assert wide.splitlines()[0].split() == ["mean", "std", "p10", "p90", "max"] and "left out" not in wide
    width = max(map(len, table_text(table.drop(columns=["p10", "p90"]), 1, width=0).splitlines()))
    narrow = table_text(table, 1, width=width, optional=optional, notes=["games (every row): 6"])
    assert narrow.splitlines()[0].split() == ["mean", "std", "max"]
    assert narrow.splitlines()[-2:] == ["games (every row): 6",
                                        f"(p10, p90: left out to fit {width} columns; --csv and --json have them)"]
    narrower = table_text(table, 1, width=width - 1, optional=optional)
    assert narrower.splitlines()[0].split() == ["mean", "max"] and "p10, p90, std: left out" in narrower


def test_a_short_label_names_the_same_player_in_every_table_of_one_output(capsys):
    """compare prints pairs in the players' order and ratings best first: a
    short label must not change its meaning from one table to the next."""
    from welcometo_sim.cli.common import print_tables
    eight, sixteen = "learned:lookahead=8", "learned:lookahead=16"
    pairs = pd.DataFrame({"mean_diff": [-2.9, -3.0]}, index=pd.Index([eight, sixteen], name="player"))
    ratings = pd.DataFrame({"rating": [38.2, 31.7]}, index=pd.Index([sixteen, eight], name="player"))
    print_tables({"pairs": pairs, "ratings": ratings}, as_csv=False, as_json=False)
    legends = [line for line in capsys.readouterr().out.splitlines() if " = " in line]
    meaning = {}
    for line in legends:
        brief, full = line.split(" = ")
        assert meaning.setdefault(brief, full) == full, f"{brief} means {meaning[brief]} and {full}"
    assert set(meaning.values()) == {eight, sixteen} and len(legends) == 4
