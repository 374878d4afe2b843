"""A run's report: the summary tables and four figures, as Markdown or one HTML file.

``write_report(results_dir)`` reads the result table (and ``manifest.json`` when
present), draws the figures of :mod:`.plots` into ``<results_dir>/report/`` (or
``out``) and writes ``report.md`` next to them, which links the PNGs by relative
path, or ``report.html``, which embeds them as base64 data URIs so the file
stands alone.
"""

from __future__ import annotations

import base64
import html
import math
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..sim.results import ResultsError, _write_atomically as write_atomically, read_manifest, read_table
from . import plots
from .tables import summary_tables

REPORT_DIR = "report"
FORMATS = ("md", "html")

# (file name, function, heading, caption)
FIGURES: tuple[tuple[str, Callable[..., Path], str, str], ...] = (
    ("scores.png", plots.score_distribution_plot, "Score distribution",
     "Final scores per {by}: density (violin), quartiles and median (box), mean (diamond)."),
    ("breakdown.png", plots.category_breakdown_plot, "Points per category",
     "Mean points per game of each score category per {by}; penalties are drawn below zero, "
     "the diamond is the mean total."),
    ("win_rates.png", plots.win_rate_heatmap, "Pairwise win rates",
     "Share of shared games in which the row {by} ranked better than the column {by} "
     "(lower rank wins, a tie counts 1/2)."),
    ("plan_completion.png", plots.plan_completion_plot, "Plan completion",
     "Per {by}: for each plan id, the cumulative share of player-games with that plan in play "
     "that completed it by each turn."),
)

TABLE_CAPTIONS = {
    "scores": "Final score distribution per {by} (win rate: share of games ranked first, ties included).",
    "breakdown": "Mean points per game of each score category (penalties negative).",
    "endings": "How games ended (share of games).",
}
PERCENT_COLUMNS = {"win_rate", "share"}

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 1100px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e4e4e4; }
th { text-align: left; background: #f4f4f4; }
td { text-align: right; font-variant-numeric: tabular-nums; }
dl.run { display: grid; grid-template-columns: max-content auto; gap: 0.15em 1em; }
dl.run dt { font-weight: 600; } dl.run dd { margin: 0; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption, p.caption { color: #555; font-size: 0.92em; }
"""


def _cell(value: Any, column: str) -> str:
    """One table cell as text: percentages, integers, 2-decimal floats, blanks for NaN."""
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return f"{100 * int(value):.1f}%" if column in PERCENT_COLUMNS else str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return ""
        if column in PERCENT_COLUMNS:
            return f"{100 * value:.1f}%"
        if column == "games" and value.is_integer():
            return str(int(value))
        return f"{value:.2f}"
    return str(value)


def format_table(table: pd.DataFrame) -> pd.DataFrame:
    """The table with every cell rendered as text (the index as text too)."""
    text = pd.DataFrame({column: [_cell(v, str(column)) for v in table[column].tolist()]
                         for column in table.columns},
                        index=[str(i) for i in table.index])
    text.index.name = table.index.name
    return text


MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()<>#+!|~&")


def markdown_text(value: Any) -> str:
    """Text from a run (its name, player and strategy names) as literal Markdown:
    every character Markdown or HTML would act on is backslash-escaped, so a
    name like `<img src=x onerror=...>` or `[a](http://x)` shows as written."""
    text = " ".join(str(value).splitlines())
    return "".join("\\" + c if c in MARKDOWN_SPECIAL else c for c in text)


def markdown_table(table: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no tabulate needed): index first, numbers right-aligned."""
    text = format_table(table)
    esc = markdown_text

    header = [esc(text.index.name or ""), *(esc(c) for c in text.columns)]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join([":---", *["---:"] * len(text.columns)]) + "|"]
    for index, row in text.iterrows():
        lines.append("| " + " | ".join([esc(index), *(esc(v) for v in row)]) + " |")
    return "\n".join(lines)


def html_table(table: pd.DataFrame) -> str:
    """An HTML table with the index as its first column (one header row)."""
    text = format_table(table)
    text = text.reset_index(names=text.index.name or "")
    return text.to_html(border=0, escape=True, index=False)


def run_facts(frame: pd.DataFrame, manifest: dict, folder: Path) -> list[tuple[str, str]]:
    """(label, value) lines for the report header, from the manifest when there is one."""
    first = frame.iloc[0]
    variant = [f"{int(first['n_players'])} players", f"board {first['board']}"]
    variant += [flag for flag in ("advanced", "expert", "solo") if bool(first[flag])]
    facts = [
        ("run", str(manifest.get("name", folder.name))),
        ("seed", str(manifest.get("seed", "unknown (no manifest.json)"))),
        ("games", str(manifest.get("games", frame["game"].nunique()))),
        ("players", ", ".join(map(str, manifest.get("players", list(dict.fromkeys(frame["player"])))))),
        ("variant", ", ".join(variant)),
    ]
    for key, label in (("created", "created"), ("version", "welcometo-sim version"),
                       ("wall_seconds", "wall time (s)")):
        if key in manifest:
            facts.append((label, str(manifest[key])))
    return facts


def _markdown(title: str, facts: list[tuple[str, str]], tables: dict[str, pd.DataFrame],
              figures: list[tuple[str, str, str]], by: str) -> str:
    parts = [f"# {markdown_text(title)}", ""]
    parts += [f"- **{label}**: {markdown_text(value)}" for label, value in facts]
    parts += [f"- **grouped by**: {by}", "", "## Tables", ""]
    for name, table in tables.items():
        parts += [f"### {name}", "", TABLE_CAPTIONS[name].format(by=by), "", markdown_table(table), ""]
    parts += ["## Figures", ""]
    for file_name, heading, caption in figures:
        parts += [f"### {heading}", "", f"![{heading}]({file_name})", "", caption, ""]
    return "\n".join(parts)


def _html(title: str, facts: list[tuple[str, str]], tables: dict[str, pd.DataFrame],
          figures: list[tuple[str, str, str]], folder: Path, by: str) -> str:
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{e(title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
             f"<h1>{e(title)}</h1>", '<dl class="run">']
    parts += [f"<dt>{e(label)}</dt><dd>{e(value)}</dd>" for label, value in facts]
    parts += [f"<dt>grouped by</dt><dd>{e(by)}</dd>", "</dl>", "<h2>Tables</h2>"]
    for name, table in tables.items():
        parts += [f"<h3>{e(name)}</h3>", f'<p class="caption">{e(TABLE_CAPTIONS[name].format(by=by))}</p>',
                  html_table(table)]
    parts.append("<h2>Figures</h2>")
    for file_name, heading, caption in figures:
        data = base64.b64encode((folder / file_name).read_bytes()).decode("ascii")
        parts += [f"<h3>{e(heading)}</h3>", "<figure>",
                  f'<img alt="{e(heading)}" src="data:image/png;base64,{data}">',
                  f"<figcaption>{e(caption)}</figcaption>", "</figure>"]
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def write_report(results_dir: str | os.PathLike, fmt: str = "md",
                 out: str | os.PathLike | None = None, *, by: str = "player") -> Path:
    """Write the report of a results folder; return the path of report.md or report.html.

    The figures (PNG) go to ``out`` (default ``<results_dir>/report/``) in both
    formats. Each file is written to a temporary name and renamed, so a full disk
    leaves no partial file. Raises ResultsError for a missing or unreadable
    results folder, OutputError (one line) for a file that cannot be written,
    and plots.PlotDependencyError when matplotlib is not installed.
    """
    if fmt not in FORMATS:
        raise ValueError(f"report format {fmt!r} is not one of {', '.join(FORMATS)}")
    plots.require_matplotlib()
    source = Path(results_dir)
    frame = read_table(source)
    if frame.empty:
        raise ResultsError(f"{source}: the result table has no rows")
    folder = source if source.is_dir() else source.parent
    manifest = read_manifest(folder)
    target = Path(out) if out is not None else folder / REPORT_DIR
    target.mkdir(parents=True, exist_ok=True)

    figures = []
    for file_name, draw, heading, caption in FIGURES:
        write_atomically(target / file_name, lambda tmp: draw(frame, tmp, by=by))
        figures.append((file_name, heading, caption.format(by=by)))
    tables = summary_tables(frame, by)
    facts = run_facts(frame, manifest, folder)
    title = f"welcometo-sim report: {facts[0][1]}"
    if fmt == "md":
        path = target / "report.md"
        text = _markdown(title, facts, tables, figures, by)
    else:
        path = target / "report.html"
        text = _html(title, facts, tables, figures, target, by)
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path
