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

from ..rules.scoring import SCORE_FIELDS
from .tables import _group_key, keyed

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


def score_distribution_plot(frame: pd.DataFrame, path: str | os.PathLike, by: str = "player") -> Path:
    """Violin (density) and box (quartiles, median) of final scores per group; diamonds mark means."""
    key = _group_key(frame, by)
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
              loc="best", fontsize=8, framealpha=0.9)
    ax.set_xticks(positions, [f"{_label(g, key)}\n(n={len(v)})" for g, v in zip(groups, samples)])
    ax.set_xlim(0.4, len(groups) + 0.6)
    ax.axhline(0, color="#999999", linewidth=0.8, zorder=0)
    ax.grid(axis="y", alpha=0.3)
    ax.set_xlabel(key)
    ax.set_ylabel("final score (points)")
    ax.set_title(f"Final score distribution per {key}")
    fig.tight_layout()
    return _save(fig, path)


def category_breakdown_plot(frame: pd.DataFrame, path: str | os.PathLike, by: str = "player") -> Path:
    """Stacked bars of the mean points of each score category per group: gains above
    zero, penalties (bis, roundabouts, refusals) below; a diamond marks the mean total."""
    key = _group_key(frame, by)
    _check_rows(frame)
    groups = _group_order(frame, key)
    means = frame.groupby(key, sort=False)[[*SCORE_FIELDS, "total"]].mean().reindex(groups)
    categories = [c for c in SCORE_FIELDS if (means[c] != 0).any()]
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
    key = _group_key(frame, by)
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
    key = _group_key(frame, by)
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
    key = _group_key(frame, by)
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


def plan_completion_plot(frame: pd.DataFrame, path: str | os.PathLike, by: str = "player") -> Path:
    """One panel per group: for each plan id in play, the cumulative share of the
    group's player-games (with that plan in play) that completed it by turn t.
    Colour tells plans of a deck apart, the line style tells the deck."""
    key = _group_key(frame, by)
    _check_rows(frame)
    frame = keyed(frame)
    curves = plan_completion_curves(frame, by)
    groups = _group_order(frame, key)
    decks = _plan_decks(frame)
    plans = [p for p in decks if p in set(curves["plan"])]
    ncols = min(len(groups), 3)
    nrows = -(-len(groups) // ncols)
    fig = _new_figure(4.6 * ncols + 0.6, 3.9 * nrows + 0.7)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    import matplotlib
    from matplotlib.ticker import MaxNLocator

    palette = [*matplotlib.colormaps["tab10"].colors, "black", "#aec7e8"]
    linestyles = {1: "-", 2: "--", 3: ":"}
    style: dict[str, tuple[Any, str]] = {}
    position = {deck: 0 for deck in linestyles}
    for plan in plans:
        deck = decks[plan]
        style[plan] = (palette[position[deck] % len(palette)], linestyles.get(deck, "-."))
        position[deck] += 1
    handles: dict[str, Any] = {}
    for index, group in enumerate(groups):
        ax = axes[index // ncols][index % ncols]
        sub = curves[curves[key] == group]
        for plan, lines in sub.groupby("plan", sort=False):
            color, linestyle = style[plan]
            (line,) = ax.step(lines["turn"], lines["share"] * 100, where="post", color=color,
                              linestyle=linestyle, linewidth=1.7, label=f"n°{decks[plan]} {plan}")
            handles.setdefault(plan, line)
        if sub.empty:
            ax.text(0.5, 0.5, "no plans in play", transform=ax.transAxes, ha="center", va="center")
        games = frame.loc[frame[key] == group, "game"].nunique()
        ax.set_title(f"{_label(group, key)} ({games} games)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.set_ylim(-2, 102)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if index % ncols == 0:
            ax.set_ylabel("share completed (%)")
        if index + ncols >= len(groups):  # lowest panel of its column
            ax.set_xlabel("turn")
            ax.tick_params(labelbottom=True)
    for index in range(len(groups), nrows * ncols):
        axes[index // ncols][index % ncols].set_visible(False)
    fig.suptitle("Plan completion: share of player-games with the plan in play\n"
                 "that completed it by turn t", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    if handles:
        # to the right of the panels; bbox_inches="tight" keeps it inside the image
        fig.legend(handles=[handles[p] for p in plans if p in handles], loc="upper left",
                   bbox_to_anchor=(1.0, 0.93), fontsize=7.5, title="plan (deck, id)",
                   title_fontsize=8)
    return _save(fig, path)


# ------------------------------------------------------------ analysis figures

SKILL_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2")


def plan_balance_plot(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Small multiples, one panel per deck: each plan's points per player-game
    with its 95% interval (error bar), best first, and the deck's average as a
    dashed line; one colour per skill level when the table has a `skill` column.

    ``table`` has columns deck, plan, points_per_game, points_per_game_low,
    points_per_game_high (and optionally skill)."""
    if table.empty:
        raise ValueError("no plans to plot")
    decks = sorted(table["deck"].unique())
    skills = list(dict.fromkeys(table["skill"])) if "skill" in table else [None]
    heights = [table.loc[table["deck"] == d, "plan"].nunique() for d in decks]
    fig = _new_figure(4.3 * len(decks) + 1.0, max(3.0, 0.32 * max(heights) + 1.6))
    axes = fig.subplots(1, len(decks), squeeze=False)[0]
    for ax, deck in zip(axes, decks):
        _plan_panel(ax, table[table["deck"] == deck], skills)
        ax.set_title(f"deck {deck}", fontsize=10)
        ax.set_xlabel("points per player-game")
    if skills != [None]:
        axes[-1].legend(title="skill", fontsize=8, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle("Plan balance: points per player-game with 95% intervals (dashed: deck average)",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return _save(fig, path)


def _plan_panel(ax: Any, block: pd.DataFrame, skills: list) -> None:
    order = (block.groupby("plan")["points_per_game"].mean().sort_values().index.tolist())
    y = {plan: i for i, plan in enumerate(order)}
    step = 0.6 / max(len(skills), 1)
    for k, skill in enumerate(skills):
        rows = block if skill is None else block[block["skill"] == skill]
        offset = (k - (len(skills) - 1) / 2) * step
        ys = np.array([y[p] for p in rows["plan"]]) + offset
        values = rows["points_per_game"].to_numpy(dtype=float)
        low = values - rows["points_per_game_low"].to_numpy(dtype=float)
        high = rows["points_per_game_high"].to_numpy(dtype=float) - values
        ax.errorbar(values, ys, xerr=np.nan_to_num(np.vstack([low, high])), fmt="o", markersize=4,
                    capsize=2.5, color=SKILL_COLORS[k % len(SKILL_COLORS)],
                    label=None if skill is None else str(skill))
    ax.axvline(block["points_per_game"].mean(), color="#777777", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(order)), order, fontsize=7.5)
    ax.set_ylim(-0.7, len(order) - 0.3)
    ax.grid(axis="x", alpha=0.3)


def sweep_plot(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Small multiples, one panel per measure of a long sweep table: the estimate
    at each grid point with its 95% interval as a band, and the baseline (point 0)
    as a dashed line."""
    measures = list(dict.fromkeys(table["measure"]))
    if not measures:
        raise ValueError("the sweep table has no measures")
    ncols = min(3, len(measures))
    nrows = -(-len(measures) // ncols)
    fig = _new_figure(4.2 * ncols, 3.0 * nrows + 0.6)
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
        ax.set_xticks(x)
        ax.set_ylabel("%" if rate else "mean", fontsize=8)
        ax.grid(alpha=0.3)
        if index // ncols == nrows - 1 or index + ncols >= len(measures):
            ax.set_xlabel("grid point")
    for index in range(len(measures), nrows * ncols):
        axes[index // ncols][index % ncols].set_visible(False)
    fig.suptitle("Sweep: each measure per grid point with its 95% interval (dashed: point 0)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return _save(fig, path)


def learning_curve_plot(curve: pd.DataFrame, path: str | os.PathLike) -> Path:
    """The learning curve of a training folder: the evaluation mean score with its
    95% interval (band) against training games, and beside it the share of
    evaluation games ended by refusals and their mean length."""
    if curve.empty:
        raise ValueError("the learning curve has no points")
    fig = _new_figure(11.0, 4.2)
    left, right = fig.subplots(1, 2)
    games = curve["games"].to_numpy(dtype=float)
    if {"ci_low", "ci_high"} <= set(curve.columns):
        left.fill_between(games, curve["ci_low"], curve["ci_high"], color="#a0c4e4", alpha=0.6, linewidth=0,
                          label="95% interval")
    left.plot(games, curve["mean_score"], marker="o", markersize=3.5, color="#4e79a7", label="mean score")
    left.set_xlabel("training games")
    left.set_ylabel("evaluation mean score (points)")
    left.set_title("Evaluation score", fontsize=10)
    left.grid(alpha=0.3)
    left.legend(fontsize=8, loc="lower right")
    if "refusal_end_share" in curve:
        right.plot(games, curve["refusal_end_share"] * 100, marker="o", markersize=3.5, color="#e15759",
                   label="games ended by refusals (%)")
    right.set_ylim(-2, 102)
    right.set_ylabel("ended by refusals (%)")
    right.set_xlabel("training games")
    if "mean_turns" in curve:
        turns = right.twinx()
        turns.plot(games, curve["mean_turns"], marker="s", markersize=3.5, color="#59a14f",
                   label="mean game length (turns)")
        turns.set_ylabel("mean game length (turns)")
        turns.legend(fontsize=8, loc="center right")
    right.legend(fontsize=8, loc="upper right")
    right.set_title("How evaluation games end", fontsize=10)
    right.grid(alpha=0.3)
    fig.suptitle("Learning curve", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return _save(fig, path)


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
