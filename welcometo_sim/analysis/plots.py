"""Figures made from a result table, one PNG each.

matplotlib is optional (extra ``[plots]``): it is imported inside the functions,
and a missing install raises :class:`PlotDependencyError`. Figures are drawn on
the Agg canvas directly (no pyplot), so nothing here touches the global
matplotlib backend or leaves figures open.

Every function takes the result table (one row per player per game), the
grouping (``by``: player, strategy or seat) and a path, writes one PNG and
returns its :class:`~pathlib.Path`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .tables import group_key, keyed, table_categories
from .sweep import setting_keys

DPI = 110
PLAN_COLUMNS = ("plan1", "plan2", "plan3")
PLAN_TURN_COLUMNS = ("plan1_turn", "plan2_turn", "plan3_turn")
# Fixed colours so a category keeps its colour across runs and figures.
CATEGORY_COLORS = {
    "plans": "#4e79a7", "parks": "#59a14f", "pools": "#76b7b2", "temps": "#f28e2b",
    "estates": "#edc948", "bonus": "#b07aa1", "bis": "#e15759", "roundabouts": "#ff9da7",
    "refusals": "#9c755f",
}
_MISSING_PLAN = {"", "none", "nan", "<na>", "null"}


class PlotDependencyError(ImportError):
    """matplotlib is not installed."""


def _matplotlib() -> tuple[Any, Any]:
    """(Figure, FigureCanvasAgg), or a clear error when matplotlib is missing."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotDependencyError("plots need matplotlib: pip install 'welcometo-sim[plots]'") from None
    return Figure, FigureCanvasAgg


def require_matplotlib() -> None:
    """Raise PlotDependencyError now, before any work, when matplotlib is missing."""
    _matplotlib()


def _new_figure(width: float, height: float) -> Any:
    Figure, FigureCanvasAgg = _matplotlib()
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, path: str | os.PathLike) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=DPI, format="png", bbox_inches="tight", facecolor="white")
    return out


def _group_order(frame: pd.DataFrame, key: str) -> list:
    """Groups by mean total, best first (the order of the summary tables)."""
    return list(frame.groupby(key, sort=False)["total"].mean().sort_values(ascending=False).index)


def _label(value: Any, key: str) -> str:
    return f"seat {value}" if key == "seat" else str(value)


def _check_rows(frame: pd.DataFrame) -> None:
    if frame.empty:
        raise ValueError("the result table has no rows to plot")


def score_distribution_figure(frame: pd.DataFrame, by: str = "player") -> Any:
    """The score violins as a matplotlib Figure (see :func:`score_distribution_plot`).

    The y axis spans the scores (with a margin), not zero: scores sit far from
    zero, and a 0-based axis squashed every violin into the top of the figure."""
    key = group_key(frame, by)
    _check_rows(frame)
    groups = _group_order(frame, key)
    fig = _new_figure(max(6.0, 1.3 * len(groups) + 2.5), 5.0)
    ax = fig.add_subplot()
    positions = np.arange(1, len(groups) + 1)
    samples = [frame.loc[frame[key] == g, "total"].to_numpy(dtype=float) for g in groups]
    for pos, values in zip(positions, samples):
        # a density needs two distinct values; a constant sample gets its box only
        if len(values) > 1 and np.ptp(values) > 0:
            parts = ax.violinplot([values], positions=[pos], widths=0.8, showextrema=False)
            for body in parts["bodies"]:
                body.set_facecolor("#a0c4e4")
                body.set_edgecolor("#4e79a7")
                body.set_alpha(0.7)
    ax.boxplot(samples, positions=positions, widths=0.18, showfliers=True, patch_artist=True,
               boxprops={"facecolor": "white", "edgecolor": "#333333"},
               medianprops={"color": "#e15759", "linewidth": 2},
               flierprops={"marker": ".", "markersize": 4, "markerfacecolor": "#555555",
                           "markeredgecolor": "none"})
    means = [values.mean() for values in samples]
    ax.scatter(positions, means, marker="D", s=30, color="black", zorder=3)
    # legend proxies for the three things drawn per group
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(facecolor="#a0c4e4", edgecolor="#4e79a7", label="distribution (density)"),
                       Line2D([], [], color="#e15759", linewidth=2, label="median (box: quartiles)"),
                       Line2D([], [], marker="D", color="black", linestyle="none", label="mean")],
              loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, framealpha=0.9)
    ax.set_xticks(positions, [f"{_label(g, key)}\n(n={len(v)})" for g, v in zip(groups, samples)])
    ax.set_xlim(0.4, len(groups) + 0.6)
    low, high = score_limits(np.concatenate(samples))
    if low < 0 < high:
        ax.axhline(0, color="#999999", linewidth=0.8, zorder=0)
    ax.set_ylim(low, high)
    ax.grid(axis="y", alpha=0.3)
    ax.set_xlabel(key)
    ax.set_ylabel("final score (points)")
    ax.set_title(f"Final score distribution per {key}")
    fig.tight_layout()
    return fig


def score_limits(values: np.ndarray) -> tuple[float, float]:
    """The y range of a score figure: the lowest to the highest score with a 6%
    margin each side (at least 2 points, so that a constant score still shows)."""
    low, high = float(np.min(values)), float(np.max(values))
    margin = max(0.06 * (high - low), 2.0)
    return low - margin, high + margin


def score_distribution_plot(frame: pd.DataFrame, path: str | os.PathLike, by: str = "player") -> Path:
    """Violin (density) and box (quartiles, median) of final scores per group; diamonds mark means."""
    return _save(score_distribution_figure(frame, by), path)


def category_breakdown_plot(frame: pd.DataFrame, path: str | os.PathLike, by: str = "player") -> Path:
    """Stacked bars of the mean points of each score category per group: gains above
    zero, penalties (bis, roundabouts, refusals) below; a diamond marks the mean total."""
    key = group_key(frame, by)
    _check_rows(frame)
    groups = _group_order(frame, key)
    fields = table_categories(frame)
    means = frame.groupby(key, sort=False)[[*fields, "total"]].mean().reindex(groups)
    categories = [c for c in fields if (means[c] != 0).any()]
    fig = _new_figure(max(6.5, 1.2 * len(groups) + 4.0), 5.0)
    ax = fig.add_subplot()
    x = np.arange(len(groups))
    up = np.zeros(len(groups))
    down = np.zeros(len(groups))
    for category in categories:
        values = means[category].to_numpy(dtype=float)
        base = np.where(values >= 0, up, down)
        ax.bar(x, values, bottom=base, width=0.6, label=category,
               color=CATEGORY_COLORS.get(category, None), edgecolor="white", linewidth=0.6)
        up = up + np.clip(values, 0, None)
        down = down + np.clip(values, None, 0)
    totals = means["total"].to_numpy(dtype=float)
    ax.scatter(x, totals, marker="D", s=36, color="black", zorder=3, label="mean total")
    for xi, total in zip(x, totals):
        ax.annotate(f"{total:.1f}", (xi, total), xytext=(10, 0), textcoords="offset points",
                    va="center", fontsize=8,
                    bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none",
                          "alpha": 0.85})
    ax.axhline(0, color="black", linewidth=0.9)
    ax.use_sticky_edges = False  # zero-height segments would pin the limits to the bar tops
    ax.margins(y=0.08)
    ax.set_xticks(x, [_label(g, key) for g in groups])
    ax.set_xlabel(key)
    ax.set_ylabel("mean points per game (points)")
    ax.set_title(f"Mean points per score category and {key} (penalties below zero)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, title="category",
              title_fontsize=8)
    fig.tight_layout()
    return _save(fig, path)


def pairwise_win_rates(frame: pd.DataFrame, by: str = "player") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(win rate, pairs): the share of shared games in which the row group ranked
    better than the column group (lower rank wins, equal ranks count 1/2), and the
    number of seat pairs behind each cell. The diagonal is empty (NaN)."""
    key = group_key(frame, by)
    frame = keyed(frame)  # a compare table numbers its games again in every match
    groups = _group_order(frame, key)
    rows = pd.DataFrame({"game": frame["game"].to_numpy(), "seat": frame["seat"].to_numpy(),
                         "group": frame[key].to_numpy(), "rank": frame["rank"].to_numpy()})
    pairs = rows.merge(rows, on="game", suffixes=("_a", "_b"))
    # seats of one group in the same game (by strategy: random vs random) are not a pairing
    pairs = pairs[(pairs["seat_a"] != pairs["seat_b"]) & (pairs["group_a"] != pairs["group_b"])]
    score = np.where(pairs["rank_a"] < pairs["rank_b"], 1.0,
                     np.where(pairs["rank_a"] == pairs["rank_b"], 0.5, 0.0))
    pairs = pairs.assign(score=score)
    grouped = pairs.groupby(["group_a", "group_b"])["score"]
    rate = grouped.mean().unstack().reindex(index=groups, columns=groups)
    count = grouped.size().unstack().reindex(index=groups, columns=groups).fillna(0).astype(int)
    rate.index.name = count.index.name = key
    rate.columns.name = count.columns.name = "against"
    return rate, count


def win_rate_heatmap(frame: pd.DataFrame, path: str | os.PathLike, by: str = "player") -> Path:
    """Heat map of pairwise win rates (row vs column, %) with the number of shared
    seat pairs in each cell. A single group gets a 1x1 map with a note."""
    key = group_key(frame, by)
    _check_rows(frame)
    rate, count = pairwise_win_rates(frame, by)
    groups = list(rate.index)
    n = len(groups)
    size = max(5.5, 1.1 * n + 3.0)
    fig = _new_figure(size + 1.2, size)
    ax = fig.add_subplot()
    values = rate.to_numpy(dtype=float) * 100
    masked = np.ma.masked_invalid(values)
    import matplotlib

    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#e8e8e8")
    image = ax.imshow(masked, cmap=cmap, vmin=0, vmax=100, aspect="equal")
    colorbar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    colorbar.set_label("row wins against column (%)")
    fontsize = 10 if n <= 6 else 8
    for i in range(n):
        for j in range(n):
            if np.isnan(values[i, j]):
                note = "only one\n" + key + ":\nno opponents" if n == 1 else "–"
                ax.text(j, i, note, ha="center", va="center", fontsize=fontsize, color="#555555")
                continue
            dark = abs(values[i, j] - 50) > 30
            ax.text(j, i, f"{values[i, j]:.0f}%\n(n={count.iat[i, j]})", ha="center", va="center",
                    fontsize=fontsize, color="white" if dark else "black")
    labels = [_label(g, key) for g in groups]
    ax.set_xticks(range(n), labels, rotation=30 if n > 3 else 0, ha="right" if n > 3 else "center")
    ax.set_yticks(range(n), labels)
    ax.set_xlabel(f"against {key} (column)")
    ax.set_ylabel(f"{key} (row)")
    ax.set_title(f"Pairwise win rate per {key}: share of shared games ranked better\n"
                 "(lower rank wins, a tie counts 1/2; n = seat pairs)", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def plan_completion_curves(frame: pd.DataFrame, by: str = "player") -> pd.DataFrame:
    """Cumulative share (0..1) of player-games that completed a plan by each turn,
    among the player-games where that plan was in play. Columns: the group, ``plan``,
    ``turn`` (1..longest game), ``share``, ``games`` (player-games with the plan)."""
    key = group_key(frame, by)
    parts = []
    for plan_col, turn_col in zip(PLAN_COLUMNS, PLAN_TURN_COLUMNS):
        part = frame[[key, plan_col, turn_col]].rename(columns={plan_col: "plan", turn_col: "done"})
        parts.append(part)
    long = pd.concat(parts, ignore_index=True)
    long["plan"] = long["plan"].astype(str)
    long = long[~long["plan"].str.strip().str.lower().isin(_MISSING_PLAN)]
    max_turn = int(frame["turns"].max()) if "turns" in frame and len(frame) else 0
    done_max = long["done"].max()
    if pd.notna(done_max):
        max_turn = max(max_turn, int(done_max))
    turns = np.arange(1, max_turn + 1)
    out = []
    for (group, plan), sub in long.groupby([key, "plan"], sort=True):
        done = sub["done"].dropna().to_numpy(dtype=float)
        share = np.searchsorted(np.sort(done), turns, side="right") / len(sub)
        out.append(pd.DataFrame({key: group, "plan": plan, "turn": turns, "share": share,
                                 "games": len(sub)}))
    if not out:
        return pd.DataFrame(columns=[key, "plan", "turn", "share", "games"])
    return pd.concat(out, ignore_index=True)


def _plan_decks(frame: pd.DataFrame) -> dict[str, int]:
    """Plan id -> deck number (1..3), in deck order then id order."""
    decks: dict[str, int] = {}
    for deck, column in enumerate(PLAN_COLUMNS, start=1):
        for plan in sorted(frame[column].astype(str).unique()):
            if plan.strip().lower() not in _MISSING_PLAN:
                decks.setdefault(plan, deck)
    return decks


def plan_colors(plans: list[str]) -> dict[str, Any]:
    """A distinct colour for each plan of one deck (tab10, tab20 past ten plans),
    the same in every panel so a plan is followed down a column by its colour."""
    import matplotlib

    palette = matplotlib.colormaps["tab10" if len(plans) <= 10 else "tab20"].colors
    return {plan: palette[i % len(palette)] for i, plan in enumerate(plans)}


def plan_completion_figure(frame: pd.DataFrame, by: str = "player") -> Any:
    """The plan completion curves as a matplotlib Figure (see :func:`plan_completion_plot`).

    One small panel per group (row) and plan deck (column): a deck has at most
    a handful of plans in play, so each line gets its own colour, and each
    column's legend, below it, names the colours once for every group."""
    key = group_key(frame, by)
    _check_rows(frame)
    frame = keyed(frame)
    curves = plan_completion_curves(frame, by)
    groups = _group_order(frame, key)
    decks = _plan_decks(frame)
    in_play = set(curves["plan"])
    columns = sorted({deck for plan, deck in decks.items() if plan in in_play}) or [1]
    fig = _new_figure(3.7 * len(columns) + 1.2, 2.5 * len(groups) + 2.2)
    axes = fig.subplots(len(groups), len(columns), squeeze=False, sharex=True, sharey=True)
    from matplotlib.ticker import MaxNLocator

    for col, deck in enumerate(columns):
        plans = [plan for plan, d in decks.items() if d == deck and plan in in_play]
        colors = plan_colors(plans)
        for row, group in enumerate(groups):
            ax = axes[row][col]
            sub = curves[(curves[key] == group) & curves["plan"].isin(plans)]
            for plan in plans:
                lines = sub[sub["plan"] == plan]
                if not lines.empty:
                    ax.step(lines["turn"], lines["share"] * 100, where="post", color=colors[plan],
                            linewidth=1.6, label=plan)
            if sub.empty:
                ax.text(0.5, 0.5, "no plans in play", transform=ax.transAxes, ha="center", va="center",
                        fontsize=8, color="#555555")
            ax.grid(alpha=0.3)
            ax.set_ylim(-2, 102)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            if row == 0:
                ax.set_title(f"plans n°{deck}", fontsize=10)
            if col == 0:
                games = frame.loc[frame[key] == group, "game"].nunique()
                ax.set_ylabel(f"{_label(group, key)} ({games} games)\ncompleted (%)", fontsize=9)
        bottom = axes[-1][col]
        bottom.set_xlabel("turn")
        if plans:
            bottom.legend(handles=[_line(colors[p], p) for p in plans], loc="upper center",
                          bbox_to_anchor=(0.5, -0.32), ncol=2, fontsize=7.5, frameon=False,
                          title=f"plan n°{deck}", title_fontsize=8)
    fig.suptitle("Plan completion: share of player-games with the plan in play that completed it by "
                 f"turn t\n(rows: {key}; columns: plan deck)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def _line(color: Any, label: str) -> Any:
    """A legend entry for a line of this colour."""
    from matplotlib.lines import Line2D

    return Line2D([], [], color=color, linewidth=1.6, label=label)


def plan_completion_plot(frame: pd.DataFrame, path: str | os.PathLike, by: str = "player") -> Path:
    """For each group and plan deck, the cumulative share of the group's
    player-games (with that plan in play) that completed each plan by turn t."""
    return _save(plan_completion_figure(frame, by), path)


# ------------------------------------------------------------ analysis figures

SKILL_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2")


OUTLIER_COLOR = "#d62728"


def plan_balance_figure(table: pd.DataFrame) -> Any:
    """The plan balance small multiples as a matplotlib Figure (see
    :func:`plan_balance_plot`). Every deck shares one x scale, so a plan's
    worth reads the same in every panel; a plan flagged in ``outlier`` gets a
    red ring, a red label and its flag written under it."""
    if table.empty:
        raise ValueError("no plans to plot")
    decks = sorted(table["deck"].unique())
    skills = list(dict.fromkeys(table["skill"])) if "skill" in table else [None]
    heights = [table.loc[table["deck"] == d, "plan"].nunique() for d in decks]
    fig = _new_figure(4.3 * len(decks) + 1.0, max(3.0, 0.42 * max(heights) + 1.8))
    axes = fig.subplots(1, len(decks), squeeze=False, sharex=True)[0]
    for ax, deck in zip(axes, decks):
        _plan_panel(ax, table[table["deck"] == deck], skills)
        ax.set_title(f"deck {deck}", fontsize=10)
        ax.set_xlabel("points per player-game")
        ax.tick_params(labelbottom=True)
    axes[0].set_xlim(*balance_limits(table))
    handles = [_line(SKILL_COLORS[k % len(SKILL_COLORS)], str(skill)) for k, skill in enumerate(skills)
               if skill is not None]
    if flagged(table).any():
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], marker="o", markersize=10, markerfacecolor="none", linestyle="none",
                              markeredgecolor=OUTLIER_COLOR, markeredgewidth=1.8, label="outlier (flag below)"))
    if handles:
        axes[-1].legend(handles=handles, title="skill" if skills != [None] else None, fontsize=8,
                        title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle("Plan balance: points per player-game with 95% intervals (dashed: deck average; "
                 "one scale for every deck)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


def flagged(table: pd.DataFrame) -> pd.Series:
    """Whether each row has an outlier flag (an `outlier` column with text; '', NA or none is no flag)."""
    if "outlier" not in table:
        return pd.Series(False, index=table.index)
    return table["outlier"].fillna("").astype(str).str.strip() != ""


def balance_limits(table: pd.DataFrame) -> tuple[float, float]:
    """The x range every deck's panel shares: from the lowest interval end (or
    estimate) to the highest, with a 5% margin."""
    columns = [c for c in ("points_per_game", "points_per_game_low", "points_per_game_high") if c in table]
    values = table[columns].to_numpy(dtype=float)
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    margin = max(0.05 * (high - low), 0.1)
    return low - margin, high + margin


def plan_balance_plot(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Small multiples, one panel per deck: each plan's points per player-game
    with its 95% interval (error bar), best first, and the deck's average as a
    dashed line; one colour per skill level when the table has a `skill` column;
    outliers (an `outlier` column with text) marked.

    ``table`` has columns deck, plan, points_per_game, points_per_game_low,
    points_per_game_high (and optionally skill and outlier)."""
    return _save(plan_balance_figure(table), path)


def _plan_panel(ax: Any, block: pd.DataFrame, skills: list) -> None:
    order = (block.groupby("plan")["points_per_game"].mean().sort_values().index.tolist())
    y = {plan: i for i, plan in enumerate(order)}
    step = 0.6 / max(len(skills), 1)
    marks = flagged(block)
    for k, skill in enumerate(skills):
        chosen = block["plan"].notna() if skill is None else block["skill"] == skill
        rows = block[chosen]
        offset = (k - (len(skills) - 1) / 2) * step
        ys = np.array([y[p] for p in rows["plan"]]) + offset
        values = rows["points_per_game"].to_numpy(dtype=float)
        low = values - rows["points_per_game_low"].to_numpy(dtype=float)
        high = rows["points_per_game_high"].to_numpy(dtype=float) - values
        ax.errorbar(values, ys, xerr=np.nan_to_num(np.vstack([low, high])), fmt="o", markersize=4,
                    capsize=2.5, color=SKILL_COLORS[k % len(SKILL_COLORS)],
                    label=None if skill is None else str(skill))
        outliers = marks[chosen].to_numpy()
        if outliers.any():
            ax.scatter(values[outliers], ys[outliers], s=130, facecolors="none", edgecolors=OUTLIER_COLOR,
                       linewidths=1.8, zorder=4, label="outlier")
            for value, y_at, flag in zip(values[outliers], ys[outliers], rows.loc[marks[chosen], "outlier"]):
                ax.annotate(str(flag).replace("_", " "), (value, y_at), xytext=(0, -8), textcoords="offset points", ha="center",
                            va="top", fontsize=6.5, color=OUTLIER_COLOR)
    ax.axvline(block["points_per_game"].mean(), color="#777777", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(order)), order, fontsize=7.5)
    flagged_plans = set(block.loc[marks, "plan"])
    for label in ax.get_yticklabels():
        if label.get_text() in flagged_plans:
            label.set_color(OUTLIER_COLOR)
            label.set_fontweight("bold")
    ax.set_ylim(-0.7, len(order) - 0.3)
    ax.grid(axis="x", alpha=0.3)


SWEEP_TICK_CHARS = 22
"""A swept value longer than this is shortened on the x axis (the report's
points table holds every value in full)."""


def _short(value: Any) -> str:
    """A swept value for a tick: as written, or shortened with '…' (a list keeps
    its first three and last two items)."""
    text = str(value)
    if len(text) <= SWEEP_TICK_CHARS:
        return text
    items = text.split(", ")
    if len(items) > 5:
        return ", ".join([*items[:3], "…", *items[-2:]])
    keep = (SWEEP_TICK_CHARS - 1) // 2
    return text[:keep] + "…" + text[-keep:]


def sweep_axis(table: pd.DataFrame) -> tuple[str, dict[int, str]]:
    """(axis label, tick label per grid point) of a long sweep table: the swept
    key's name and each point's value; with several keys, the names joined by
    ' / ' and each point's values in the same order."""
    keys = setting_keys(table)
    points = table.drop_duplicates("point").set_index("point").sort_index()
    if not keys:
        return "grid point", {int(point): str(point) for point in points.index}
    ticks = {int(point): " / ".join(_short(row[key]) for key in keys) for point, row in points.iterrows()}
    return " / ".join(keys), ticks


def sweep_figure(table: pd.DataFrame) -> Any:
    """The sweep curves as a matplotlib Figure (see :func:`sweep_plot`); the x
    axis names the swept key and each tick the value swept there."""
    measures = list(dict.fromkeys(table["measure"]))
    if not measures:
        raise ValueError("the sweep table has no measures")
    axis_label, ticks = sweep_axis(table)
    long_ticks = max(map(len, ticks.values())) * len(ticks) > 36
    ncols = min(3, len(measures))
    nrows = -(-len(measures) // ncols)
    fig = _new_figure(4.2 * ncols, (3.6 if long_ticks else 3.1) * nrows + 0.6)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for index, measure in enumerate(measures):
        ax = axes[index // ncols][index % ncols]
        rows = table[table["measure"] == measure].sort_values("point")
        rate = rows["kind"].iloc[0] == "rate"
        scale = 100.0 if rate else 1.0
        x = rows["point"].to_numpy(dtype=int)
        values = rows["value"].to_numpy(dtype=float) * scale
        ax.fill_between(x, rows["value_low"].to_numpy(dtype=float) * scale,
                        rows["value_high"].to_numpy(dtype=float) * scale, color="#a0c4e4", alpha=0.6,
                        linewidth=0, label="95% interval")
        ax.plot(x, values, marker="o", color="#4e79a7", linewidth=1.6)
        ax.axhline(values[0], color="#777777", linestyle="--", linewidth=1)
        ax.set_title(measure, fontsize=9)
        ax.set_xticks(x, [ticks[int(point)] for point in x], fontsize=7.5,
                      rotation=25 if long_ticks else 0, ha="right" if long_ticks else "center")
        ax.set_xlim(x.min() - 0.3, x.max() + 0.3)
        ax.set_ylabel("%" if rate else "mean", fontsize=8)
        ax.set_xlabel(axis_label, fontsize=8)
        ax.grid(alpha=0.3)
    for index in range(len(measures), nrows * ncols):
        axes[index // ncols][index % ncols].set_visible(False)
    fig.suptitle("Sweep: each measure per swept value with its 95% interval (dashed: the baseline, the first "
                 "value)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return fig


def sweep_plot(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Small multiples, one panel per measure of a long sweep table: the estimate
    at each grid point with its 95% interval as a band, and the baseline (point 0)
    as a dashed line."""
    return _save(sweep_figure(table), path)


def learning_curve_figure(curve: pd.DataFrame) -> Any:
    """The learning curve as a matplotlib Figure (see :func:`learning_curve_plot`).
    Each panel's legend sits under it, outside the axes, so no line or band
    is hidden behind one; the right panel's two y axes share one legend."""
    if curve.empty:
        raise ValueError("the learning curve has no points")
    fig = _new_figure(11.0, 4.8)
    left, right = fig.subplots(1, 2)
    games = curve["games"].to_numpy(dtype=float)
    if {"ci_low", "ci_high"} <= set(curve.columns):
        left.fill_between(games, curve["ci_low"], curve["ci_high"], color="#a0c4e4", alpha=0.6, linewidth=0,
                          label="95% interval")
    left.plot(games, curve["mean_score"], marker="o", markersize=3.5, color="#4e79a7", label="learner's mean score")
    if "opponent_score" in curve and curve["opponent_score"].notna().any():
        left.plot(games, curve["opponent_score"], marker="s", markersize=3.5, color="#f28e2b",
                  label="opponent's mean score")
    left.set_xlabel("training games")
    left.set_ylabel("evaluation mean score (points)")
    left.set_title("Evaluation score", fontsize=10)
    left.grid(alpha=0.3)
    _legend_below(left, left.get_legend_handles_labels()[0])
    handles = []
    if "refusal_end_share" in curve:
        handles += right.plot(games, curve["refusal_end_share"] * 100, marker="o", markersize=3.5,
                              color="#e15759", label="games ended by refusals (%)")
    right.set_ylim(-2, 102)
    right.set_ylabel("ended by refusals (%)")
    right.set_xlabel("training games")
    if "mean_turns" in curve:
        turns = right.twinx()
        handles += turns.plot(games, curve["mean_turns"], marker="s", markersize=3.5, color="#59a14f",
                              label="mean game length (turns)")
        turns.set_ylabel("mean game length (turns)")
    if handles:
        _legend_below(right, handles)
    right.set_title("How evaluation games end", fontsize=10)
    right.grid(alpha=0.3)
    fig.suptitle("Learning curve", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


def _legend_below(ax: Any, handles: list) -> Any:
    """A one-row legend under the axes' x label, outside the plotting area."""
    return ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=len(handles),
                     fontsize=8, frameon=False)


def learning_curve_plot(curve: pd.DataFrame, path: str | os.PathLike) -> Path:
    """The learning curve of a training folder: the evaluation mean score with its
    95% interval (band) against training games, and beside it the share of
    evaluation games ended by refusals and their mean length."""
    return _save(learning_curve_figure(curve), path)


def interval_plot(rows: pd.DataFrame, path: str | os.PathLike, title: str, xlabel: str) -> Path:
    """Estimates with their 95% intervals as horizontal error bars, one row each,
    with zero marked (a tuning result: the gain over the start and the objective)."""
    fig = _new_figure(7.5, 0.6 * len(rows) + 1.8)
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    values = rows["value"].to_numpy(dtype=float)
    err = np.vstack([values - rows["value_low"].to_numpy(dtype=float),
                     rows["value_high"].to_numpy(dtype=float) - values])
    ax.errorbar(values, y, xerr=np.nan_to_num(err), fmt="o", capsize=4, color="#4e79a7")
    ax.axvline(0, color="#777777", linestyle="--", linewidth=1)
    ax.set_yticks(y, [str(i) for i in rows.index])
    ax.set_ylim(-0.8, len(rows) - 0.2)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _save(fig, path)


def skill_trace_plot(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Skill trace, one panel per deck: each plan's points per player-game at each
    skill level (weakest first, as played), a line per plan named at its right
    end, with its 95% interval as a faint band. A line that rises is a plan
    worth more to stronger players; one that falls is strong only for weak ones.

    ``table`` has columns skill, deck, plan, points_per_game and its _low/_high."""
    skills = list(dict.fromkeys(table["skill"]))
    if len(skills) < 2:
        raise ValueError("a skill trace needs at least two skill levels")
    decks = sorted(table["deck"].unique())
    fig = _new_figure(4.8 * len(decks) + 0.8, 4.6)
    axes = fig.subplots(1, len(decks), squeeze=False, sharey=True)[0]
    import matplotlib

    palette = matplotlib.colormaps["tab10"].colors
    x = {skill: i for i, skill in enumerate(skills)}
    for ax, deck in zip(axes, decks):
        block = table[table["deck"] == deck]
        for k, (plan, rows) in enumerate(block.groupby("plan", sort=True)):
            rows = rows.assign(x=rows["skill"].map(x)).sort_values("x")
            color = palette[k % len(palette)]
            ax.fill_between(rows["x"], rows["points_per_game_low"], rows["points_per_game_high"], color=color,
                            alpha=0.12, linewidth=0)
            ax.plot(rows["x"], rows["points_per_game"], marker="o", markersize=3.5, color=color, linewidth=1.5)
            last = rows.iloc[-1]
            ax.annotate(str(plan), (last["x"], last["points_per_game"]), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=7, color=color)
        ax.set_xticks(range(len(skills)), [str(s) for s in skills], fontsize=8)
        ax.set_xlim(-0.2, len(skills) - 1 + 0.9)
        ax.set_title(f"deck {deck}", fontsize=10)
        ax.set_xlabel("skill (weakest first)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("points per player-game")
    fig.suptitle("Skill trace: points per player-game of each plan by skill level (bands: 95% intervals)",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return _save(fig, path)
