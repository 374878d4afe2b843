"""What a reader sees in the report's figures, read off the matplotlib objects:
axis limits, tick labels, line colours, outlier marks and where legends sit.

Each figure is built by its ``*_figure`` function from a small hand-made table
whose numbers make the expected picture plain (scores far from zero, one plan
flagged, swept values with names)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from welcometo_sim.analysis import plots  # noqa: E402
from welcometo_sim.analysis.report import markdown_plain, markdown_text, with_outliers  # noqa: E402

OUTLIER_RED = plots.OUTLIER_COLOR


def rendered(fig):
    """The figure drawn once, so window extents (pixels) are known."""
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def inside(legend, ax, renderer) -> bool:
    """Whether a legend's box overlaps the axes' plotting area."""
    box, area = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    return box.x0 < area.x1 and box.x1 > area.x0 and box.y0 < area.y1 and box.y1 > area.y0


# ------------------------------------------------------------------ scores

def score_table(totals: dict[str, list[int]]) -> pd.DataFrame:
    rows = [{"game": g, "seat": s, "player": name, "strategy": name, "total": total, "rank": 1}
            for s, (name, values) in enumerate(totals.items()) for g, total in enumerate(values)]
    return pd.DataFrame(rows)


def test_score_violins_span_the_scores_not_zero():
    rng = np.random.default_rng(1)
    frame = score_table({"a": list(rng.integers(95, 131, 40)), "b": list(rng.integers(70, 101, 40))})
    fig = plots.score_distribution_figure(frame)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    lowest, highest = frame["total"].min(), frame["total"].max()
    assert lowest - 10 < low < lowest and highest < high < highest + 10
    assert low > 50  # a 0-based axis squashed the violins into the top half
    # the violins fill most of the height: the data span is at least 80% of the axis
    assert (highest - lowest) / (high - low) > 0.8
    assert not inside(ax.get_legend(), ax, rendered(fig))


def test_score_violins_keep_zero_in_view_when_scores_cross_it():
    fig = plots.score_distribution_figure(score_table({"a": [-8, -2, 5, 12, 30], "b": [0, 4, 9, 15, 22]}))
    low, high = fig.axes[0].get_ylim()
    assert low < -8 and high > 30
    assert any(list(line.get_ydata()) == [0, 0] for line in fig.axes[0].lines)  # the zero line


def test_a_constant_score_still_gets_a_visible_range():
    low, high = plots.score_limits(np.array([42.0, 42.0]))
    assert low < 42 < high and high - low >= 4


# -------------------------------------------------------- plan completion

def completion_table() -> pd.DataFrame:
    """Two players; deck 1 plans A1..A4, deck 2 plans B1..B2, deck 3 plan C1."""
    rows = []
    for game in range(8):
        for seat, player in enumerate(("p", "q")):
            rows.append({"game": game, "seat": seat, "player": player, "strategy": player, "total": 50 + seat,
                         "rank": 1 + seat, "turns": 30,
                         "plan1": f"A{game % 4 + 1}", "plan2": f"B{game % 2 + 1}", "plan3": "C1",
                         "plan1_turn": 10 + game + seat, "plan2_turn": None if game % 3 else 20,
                         "plan3_turn": 25})
    frame = pd.DataFrame(rows)
    for column in ("plan1_turn", "plan2_turn", "plan3_turn"):
        frame[column] = pd.array(frame[column], dtype="Int16")
    return frame


def test_plan_completion_has_a_panel_per_group_and_deck_with_a_colour_per_plan():
    fig = plots.plan_completion_figure(completion_table())
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 2 * 3  # players p and q, decks 1 to 3
    grid = np.array(axes).reshape(2, 3)
    decks = {0: {"A1", "A2", "A3", "A4"}, 1: {"B1", "B2"}, 2: {"C1"}}
    for column, plans in decks.items():
        for ax in grid[:, column]:
            labels = [line.get_label() for line in ax.get_lines()]
            assert set(labels) == plans  # only this deck's plans in this column
            colours = [line.get_color() for line in ax.get_lines()]
            assert len(set(map(str, colours))) == len(colours)  # a colour per line
            assert {line.get_linestyle() for line in ax.get_lines()} == {"-"}
        legend = grid[-1, column].get_legend()
        assert {text.get_text() for text in legend.get_texts()} == plans
    # the same plan keeps its colour down a column
    first = {line.get_label(): line.get_color() for line in grid[0, 0].get_lines()}
    second = {line.get_label(): line.get_color() for line in grid[1, 0].get_lines()}
    assert first == second
    renderer = rendered(fig)
    for column in range(3):
        legend = grid[-1, column].get_legend()
        assert legend.get_window_extent(renderer).y1 <= grid[-1, column].get_window_extent(renderer).y0


# ------------------------------------------------------------------ sweep

def sweep_table(keys: dict[str, list]) -> pd.DataFrame:
    points = len(next(iter(keys.values())))
    rows = []
    for point in range(points):
        for measure, kind, value in (("score a", "mean", 60.0 + point), ("win a", "rate", 0.4 + 0.1 * point)):
            rows.append({**{key: values[point] for key, values in keys.items()}, "point": point, "measure": measure,
                         "kind": kind, "n": 10, "value": value, "value_low": value * 0.9, "value_high": value * 1.1,
                         "diff": 0.0, "diff_low": np.nan, "diff_high": np.nan, "change": "baseline"})
    return pd.DataFrame(rows)


def test_sweep_ticks_name_the_swept_values_and_the_axis_the_key():
    fig = plots.sweep_figure(sweep_table({"players.0.params.temperature": [0.1, 0.5, 2.0]}))
    for ax in [ax for ax in fig.axes if ax.get_visible()]:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["0.1", "0.5", "2.0"]
        assert ax.get_xlabel() == "players.0.params.temperature"


def test_sweep_of_two_keys_and_long_lists_reads_each_point():
    table = sweep_table({"games": [10, 20], "tracks.bis_track": ["[0, 1, 3, 6, 9, 12, 16, 20, 24, 28]",
                                                                 "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"]})
    label, ticks = plots.sweep_axis(table)
    assert label == "games / tracks.bis_track"
    assert ticks == {0: "10 / [0, 1, 3, …, 24, 28]", 1: "20 / [0, 0, 0, …, 0, 0]"}
    ax = plots.sweep_figure(table).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == [ticks[0], ticks[1]]


# ------------------------------------------------------------ plan balance

def balance_table(outlier: list) -> pd.DataFrame:
    values = [1.0, 1.5, 2.0, 6.0, 7.0, 12.0]
    return pd.DataFrame({
        "deck": [1, 1, 2, 2, 3, 3], "plan": ["a", "b", "c", "d", "e", "f"],
        "points_per_game": values, "points_per_game_low": [v - 0.5 for v in values],
        "points_per_game_high": [v + 0.5 for v in values], "outlier": outlier})


def test_plan_balance_marks_outliers_and_shares_one_x_scale():
    fig = plots.plan_balance_figure(balance_table(["", None, "", "low completion_rate", "", ""]))
    axes = fig.axes
    assert len(axes) == 3
    assert {ax.get_xlim() for ax in axes} == {axes[0].get_xlim()}
    low, high = axes[0].get_xlim()
    assert low < 0.5 and high > 12.5  # every interval of every deck in view
    deck2 = axes[1]
    rings = [c for c in deck2.collections if c.get_label() == "outlier"]
    assert len(rings) == 1
    assert [tuple(xy) for xy in rings[0].get_offsets()] == [(6.0, 1.0)]  # plan d: the larger of deck 2
    assert tuple(rings[0].get_edgecolor()[0][:3]) == pytest.approx((0.839, 0.153, 0.157), abs=0.01)
    labels = {t.get_text(): t.get_color() for t in deck2.get_yticklabels()}
    assert labels["d"] == OUTLIER_RED and labels["c"] != OUTLIER_RED
    assert "low completion rate" in [t.get_text() for t in deck2.texts]
    for ax in (axes[0], axes[2]):
        assert not [c for c in ax.collections if c.get_label() == "outlier"]
    legend = axes[-1].get_legend()
    assert "outlier (flag below)" in [t.get_text() for t in legend.get_texts()]


def test_plan_balance_without_flags_draws_no_outlier_mark():
    fig = plots.plan_balance_figure(balance_table([""] * 6).drop(columns="outlier"))
    assert not [c for ax in fig.axes for c in ax.collections if c.get_label() == "outlier"]
    assert fig.axes[-1].get_legend() is None


def test_report_outliers_come_from_the_printed_table_and_the_same_rule_per_level():
    points = balance_table([""] * 6).drop(columns="outlier")
    points = points.assign(completion_rate=0.5, completion_rate_low=0.4, completion_rate_high=0.6)
    saved = pd.DataFrame({"outlier": ["high points_per_game", np.nan]}, index=pd.Index(["f", "e"], name="plan"))
    flags = with_outliers(points, saved).set_index("plan")["outlier"]
    assert flags.to_dict() == {"a": "", "b": "", "c": "", "d": "", "e": "", "f": "high points_per_game"}
    # a skill level the saved table does not cover is flagged by flag_outliers on its own rows
    deck = pd.DataFrame({"deck": 1, "plan": list("pqrstu"), "points_per_game": [1.0, 1.1, 1.2, 1.3, 1.4, 9.0]})
    deck = deck.assign(points_per_game_low=deck["points_per_game"] - 0.05,
                       points_per_game_high=deck["points_per_game"] + 0.05,
                       completion_rate=0.5, completion_rate_low=0.4, completion_rate_high=0.6)
    levels = pd.concat([deck.assign(skill="weak"), deck.assign(skill="strong")], ignore_index=True)
    flags = with_outliers(levels, pd.DataFrame({"outlier": [""] * 6}, index=list("pqrstu")), ["weak", "strong"])
    assert flags.loc[(flags["skill"] == "weak") & (flags["plan"] == "u"), "outlier"].item() == \
        "high points_per_game"
    assert (flags.loc[flags["skill"] == "strong", "outlier"] == "").all()  # as printed for the strongest


# ---------------------------------------------------------- learning curve

def test_learning_curve_legends_sit_outside_the_data():
    curve = pd.DataFrame({"games": [0, 500, 1000, 1500], "mean_score": [20.0, 60.0, 80.0, 88.0],
                          "ci_low": [18.0, 57.0, 77.0, 85.0], "ci_high": [22.0, 63.0, 83.0, 91.0],
                          "refusal_end_share": [1.0, 0.7, 0.5, 0.4], "mean_turns": [15.0, 25.0, 30.0, 32.0]})
    fig = plots.learning_curve_figure(curve)
    renderer = rendered(fig)
    left, right, twin = fig.axes
    assert left.get_legend() is not None and right.get_legend() is not None and twin.get_legend() is None
    for ax in (left, right):
        assert not inside(ax.get_legend(), ax, renderer)
    assert [t.get_text() for t in right.get_legend().get_texts()] == ["games ended by refusals (%)",
                                                                     "mean game length (turns)"]


# ------------------------------------------------------------ report text

@pytest.mark.parametrize("text, markdown", [
    ("87.30 [83.38, 91.22]", "87.30 [83.38, 91.22]"),
    ("+10.72 [+6.75, +14.69]", "+10.72 [+6.75, +14.69]"),
    ("76.7% [64.6%, 85.6%]", "76.7% [64.6%, 85.6%]"),
    ("2026-12-03T08:29:11+0000", "2026-12-03T08:29:11+0000"),
    ("win rate (share of games)", "win rate (share of games)"),
    ("a_win_rate", "a_win_rate"),
    ("tracks.bis_track=[0,1,3],[0,0,0]", "tracks.bis_track=[0,1,3],[0,0,0]"),
    ("[1, 2](javascript:x)", "\\[1, 2\\]\\(javascript:x)"),
    ("[click](http://x)", "\\[click\\]\\(http://x)"),
    ("<b>*x*</b> `c` a|b & _y_", "\\<b\\>\\*x\\*\\</b\\> \\`c\\` a\\|b \\& \\_y\\_"),
])
def test_markdown_plain_escapes_only_what_markdown_would_act_on(text, markdown):
    assert markdown_plain(text) == markdown


def test_names_keep_their_full_escape():
    assert markdown_text("a (b) [1, 2]") == "a \\(b\\) \\[1, 2\\]"
