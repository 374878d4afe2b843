"""Reports of every kind of folder: tables with 95% intervals and figures, as
Markdown or one HTML file.

``write_report(path)`` recognises what it is given (:func:`folder_kind`): a run
folder, a ``compare``, ``plans`` or ``sweep`` ``--out`` folder, a ``train``
folder (``curve.csv``, ``weights.npz``; only read) or a ``tune`` YAML file. It
draws the figures of :mod:`.plots` into the report folder and writes
``report.md`` next to them, which links the PNGs by relative path, or
``report.html``, which embeds them as base64 data URIs so the file stands alone.
"""

from __future__ import annotations

import base64
import html
import os
import re
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import yaml

from ..compiled_core import engine
from ..config_files import bounded_yaml, read_bounded
from ..defaults import folder_mirror_note
from ..games.objectives import Objective, objectives_of
from ..games.tables import summary_tables as any_game_tables
from ..learning.archive import ArchiveError, BoundedNpz
from ..learning.model import MAX_MODEL_BYTES, read_json
from ..sim.results import (OutputError, ResultsError, read_manifest, read_small_json, read_table,
                           write_atomically)
from ..config import RunSpec
from ..games import capabilities
from ..sim.rows import game_of_columns
from ..viewer.pages import replay_pages
from . import plots
from .compare import ratings
from .formatting import RATE_COLUMNS, format_table as text_table
from .plan_balance import flag_outliers
from .stats import mean_interval, rate_interval
from .sweep import MEASURE_COLUMNS, measure_table, points_table
from .tables import keyed, table_columns

REPORT_DIR = "report"
FORMATS = ("md", "html")
KINDS = ("run", "compare", "plans", "sweep", "tune", "train")
ANALYSIS_FILE = "analysis.json"
TRAIN_FILES = ("curve.csv", "weights.npz", "checkpoint.npz")
CURVE_COLUMNS = ("games", "seconds", "mean_score", "ci_low", "ci_high", "refusal_end_share", "mean_turns",
                 "opponent_score", "margin", "margin_low", "margin_high", "win_share")

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
    "scores": "Final score distribution per {by}: mean with its 95% t interval; win rate (share of "
              "player-games ranked first, ties included) with its 95% Wilson interval.",
    "breakdown": "Mean points per game of each score category per {by} with its 95% t interval "
                 "(penalties negative).",
    "endings": "How games ended: share of games with its 95% Wilson interval.",
    "pairs": "Head to head, as `wtsim compare` prints it: a's win rate against b (a tie counts 1/2, "
             "Wilson interval) and the mean paired score difference a − b (bootstrap interval).",
    "ratings": "Bradley–Terry ratings (Elo scale, mean 0) with 95% intervals.",
}
REPLAYS_CAPTION = ("The games of the highest and the lowest score, each as a page that replays the record "
                   "turn by turn (slider or arrow keys), written next to this report.")
RUN_PAIRS_CAPTION = ("Each pair of players over the games both played: a's win rate against b (lower rank wins, "
                     "a tie counts 1/2; Wilson interval) and the mean paired score difference a − b (the same "
                     "deal for both, t interval).")
PERCENT_COLUMNS = RATE_COLUMNS
SIGNED_COLUMNS = ("mean_diff", "diff", "gain")
OWN_INDEX = ("breakdown", "endings")
"""Summary tables whose index is the report's own words (score categories, end reasons)."""
TRANSPOSED = {"breakdown": "category"}
"""Tables shown with their columns as rows (one interval column per player)."""

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


@dataclass
class Section:
    """One table of a report: its name, caption and numbers (printed without NaN)."""

    name: str
    caption: str
    table: pd.DataFrame
    percent: tuple[str, ...] = PERCENT_COLUMNS
    missing: dict[str, str] = field(default_factory=dict)
    signed: tuple[str, ...] = SIGNED_COLUMNS
    transpose: str | None = None
    names: bool = True
    """Whether the index holds names a user chose (players, strategies, plans):
    those are escaped in full in Markdown; the report's own labels are not."""


@dataclass
class Figure:
    """One PNG of a report: its file, how to draw it (to a path), heading and caption."""

    file_name: str
    draw: Callable[[Path], Any]
    heading: str
    caption: str


@dataclass
class Content:
    """What a report shows: title, header facts, tables and figures."""

    title: str
    facts: list[tuple[str, str]]
    sections: list[Section]
    figures: list[Figure]
    pages: list[Any] = field(default_factory=list)
    """Viewer pages (welcometo_sim.viewer.pages.Page) written beside the report and linked."""


def format_table(table: pd.DataFrame, percent: tuple[str, ...] = PERCENT_COLUMNS,
                 missing: dict[str, str] | None = None,
                 signed: tuple[str, ...] = SIGNED_COLUMNS, transpose: str | None = None) -> pd.DataFrame:
    """The table with every cell rendered as text: intervals as 'value [low, high]',
    rates as percentages, differences signed, 2 decimals, no NaN (a dash, or the
    column's `missing` text)."""
    return text_table(table, 2, percent=percent, signed=signed, missing=missing, transpose=transpose)


MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()<>#+!|~&")
NAME_FACTS = frozenset({"run", "players", "strategies", "strategy", "opponents", "start", "folder", "file"})
"""Header facts that hold names a user chose (run, players, strategies, files):
written with :func:`markdown_text`, every special character escaped."""


def markdown_text(value: Any) -> str:
    """Text from a run (its name, player and strategy names) as literal Markdown:
    every character Markdown or HTML would act on is backslash-escaped, so a
    name like `<img src=x onerror=...>` or `[a](http://x)` shows as written."""
    text = " ".join(str(value).splitlines())
    return "".join("\\" + c if c in MARKDOWN_SPECIAL else c for c in text)


ALWAYS_ESCAPED = frozenset("\\`*<>&|~")
"""Characters that act wherever they stand in a line (code, emphasis, HTML,
entities, table cells, strikethrough)."""
_NUMBER = r"[+\-−]?(?:\d+(?:\.\d+)?|inf)%?"
_NUMBER_LIST = re.compile(rf"\[ ?{_NUMBER}(?:, ?{_NUMBER})* ?\](?![(\[:])")
"""'[83.38, 91.22]', '[+6.75, +14.69]', '[64.6%, 85.6%]', '[0,1,3]': brackets
around numbers that cannot start a link (no link follows, and the report
defines no link references)."""


def markdown_plain(value: Any) -> str:
    """Text the report writes itself (numbers with their intervals, dates,
    captions, column names) as Markdown with only the escapes it needs, so the
    raw file reads '87.30 [83.38, 91.22]', not '87.30 \\[83.38, 91.22\\]'.

    Safe for any text that does not open a line (as every use here): the
    characters that act anywhere are escaped; '_' only where it could open or
    close emphasis (not between two letters or digits); brackets unless they
    hold only numbers (an interval, a list); '(' right after ']' (so no inline link forms).
    '+', '#', '(' , '!' and the rest act only at a line's start or after '['."""
    text = " ".join(str(value).splitlines())
    kept = {i for match in _NUMBER_LIST.finditer(text) for i in (match.start(), match.end() - 1)}
    out = []
    for i, char in enumerate(text):
        escape = (char in ALWAYS_ESCAPED or (char in "[]" and i not in kept)
                  or (char == "_" and not _between_word_characters(text, i))
                  or (char == "(" and i > 0 and text[i - 1] == "]"))
        out.append("\\" + char if escape else char)
    return "".join(out)


def _between_word_characters(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()


def markdown_table(section: Section | pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no tabulate needed): index first, numbers right-aligned.
    The index (player, strategy, plan names) is escaped as names are; the header
    and the cells, numbers the report formatted, get only the escapes they need."""
    section = section if isinstance(section, Section) else Section("", "", section)
    text = format_table(section.table, section.percent, section.missing, section.signed, section.transpose)
    plain = markdown_plain
    header = [plain(text.index.name or ""), *(plain(c) for c in text.columns)]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join([":---", *["---:"] * len(text.columns)]) + "|"]
    for index, row in text.iterrows():
        name = markdown_text(index) if section.names else plain(index)
        lines.append("| " + " | ".join([name, *(plain(v) for v in row)]) + " |")
    return "\n".join(lines)


def html_table(section: Section | pd.DataFrame) -> str:
    """An HTML table with the index as its first column (one header row)."""
    section = section if isinstance(section, Section) else Section("", "", section)
    text = format_table(section.table, section.percent, section.missing, section.signed, section.transpose)
    text = text.reset_index(names=text.index.name or "")
    return text.to_html(border=0, escape=True, index=False)


# ------------------------------------------------------------------ kinds


def _analysis(folder: Path) -> dict:
    path = folder / ANALYSIS_FILE
    if not path.is_file():
        return {}
    try:
        document = read_small_json(path)
    except (OSError, ValueError, RecursionError) as exc:
        raise ResultsError(f"{path}: unreadable: {exc}") from None
    return document if isinstance(document, dict) else {}


def _tune_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.y*ml") if p.suffix in (".yaml", ".yml") and _is_tune(p))


def _read_yaml(path: Path) -> Any:
    """A small YAML file read with the bounds of config files (None when it cannot be read)."""
    try:
        return bounded_yaml(read_bounded(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError, yaml.YAMLError):
        return None


def _is_tune(path: Path) -> bool:
    document = _read_yaml(path)
    return isinstance(document, dict) and isinstance(document.get("tuning"), dict)


def folder_kind(path: str | os.PathLike) -> str:
    """What `path` holds: run, compare, plans, sweep (an analysis command's --out
    folder, by its analysis.json), train (curve.csv beside the model) or tune (a
    `wtsim tune` YAML file, or a folder holding exactly one)."""
    source = Path(path)
    if source.is_file() and source.suffix in (".yaml", ".yml"):
        if not _is_tune(source):
            raise ResultsError(f"{source}: not a `wtsim tune` file (no tuning block)")
        return "tune"
    if not source.is_dir():
        return "run"
    if (source / "curve.csv").is_file() and any((source / f).is_file() for f in TRAIN_FILES[1:]):
        return "train"
    command = _analysis(source).get("command")
    if command in ("compare", "plans", "sweep"):
        return command
    tables = [source / f"results.{fmt}" for fmt in ("parquet", "csv") if (source / f"results.{fmt}").is_file()]
    if not tables:
        return "tune" if _tune_files(source) else "run"
    return _kind_by_columns(tables[0])


def _kind_by_columns(path: Path) -> str:
    """compare or plans when the result table has their columns (a folder
    without analysis.json), else run."""
    try:
        columns = set(table_columns(path))
    except (OSError, ValueError, ImportError):
        return "run"  # reading the table will say what is wrong
    return "compare" if "match" in columns else "plans" if "forced_plan" in columns else "run"


def default_target(path: Path, kind: str) -> Path:
    """Where a report goes without --out: the folder's report/ (a tune file's
    <name>-report/ beside it; a training folder is only read, so its report goes
    to results/<name>-training-report/)."""
    if kind == "tune":
        file = path if path.is_file() else _tune_files(path)[0]
        return file.with_name(f"{file.stem}-report")
    if kind == "train":
        return Path("results") / f"{path.resolve().name}-training-report"
    folder = path if path.is_dir() else path.parent
    return folder / REPORT_DIR


# ------------------------------------------------------------------ facts


def _package_version() -> str:
    try:
        return version("welcometo-sim")
    except PackageNotFoundError:
        return "unknown"


def engine_fact(recorded: dict) -> tuple[str, str]:
    """The engine line of a header: what the folder recorded, else this process's."""
    if recorded.get("engine"):
        return ("engine", f"{recorded['engine']}, welcometo-sim {recorded.get('version', '?')}")
    return ("engine", f"{engine()}, welcometo-sim {_package_version()} (this report's; not recorded "
                      "in the folder)")


def _config_players(folder: Path) -> list[str]:
    """'name = strategy:key=value' for each player of the run's config.yaml."""
    path = folder / "config.yaml"
    config = _read_yaml(path) if path.is_file() else None
    if not isinstance(config, dict):
        return []
    out = []
    for player in config.get("players") or []:
        if isinstance(player, dict):
            params = ",".join(f"{k}={v}" for k, v in _flat(player.get("params") or {}))
            ref = str(player.get("strategy")) + (f":{params}" if params else "")
            out.append(f"{player.get('name')} = {ref}")
    return out


def _flat(params: dict, prefix: str = "") -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for key, value in params.items():
        items += _flat(value, f"{prefix}{key}.") if isinstance(value, dict) else [(f"{prefix}{key}", value)]
    return items


def _variant(frame: pd.DataFrame) -> str:
    """The variant as the game of the table says it, from its first row."""
    return capabilities(game_of_columns(frame.columns)).variant_label(frame.iloc[0])


def _strategies(frame: pd.DataFrame) -> str:
    pairs = frame[["player", "strategy"]].drop_duplicates()
    return ", ".join(p if p == s else f"{p} = {s}" for p, s in zip(pairs["player"], pairs["strategy"]))


def run_facts(frame: pd.DataFrame, manifest: dict, folder: Path) -> list[tuple[str, str]]:
    """(label, value) lines for the report header, from the manifest when there is one."""
    facts = [
        ("run", str(manifest.get("name", folder.name))),
        ("seed", str(manifest.get("seed", "unknown (no manifest.json)"))),
        ("games", str(manifest.get("games", frame["game"].nunique()))),
        ("players", ", ".join(map(str, manifest.get("players", list(dict.fromkeys(frame["player"])))))),
        ("strategies", "; ".join(_config_players(folder)) or _strategies(frame)),
        ("variant", _variant(frame)),
        engine_fact(manifest),
    ]
    for key, label in (("created", "created"), ("version", "welcometo-sim version"),
                       ("wall_seconds", "wall time (s)")):
        if key in manifest:
            facts.append((label, str(manifest[key])))
    mirror = folder_mirror_note(folder)
    if mirror:
        facts.append(("note", mirror.removeprefix("note: ")))
    return facts


# --------------------------------------------------------------- contents


def _frame_figures(frame: pd.DataFrame, by: str) -> list[Figure]:
    """The figures the table's game says its columns allow (games.Capabilities.report_figures)."""
    drawn = capabilities(game_of_columns(frame.columns)).report_figures
    return [Figure(name, (lambda path, draw=draw: draw(frame, path, by=by)), heading, caption.format(by=by))
            for name, draw, heading, caption in FIGURES if name in drawn]


def _summary_sections(frame: pd.DataFrame, by: str, names: tuple[str, ...]) -> list[Section]:
    tables = any_game_tables(frame, by, pairs="pairs" in names)
    captions = {**TABLE_CAPTIONS, **({"pairs": RUN_PAIRS_CAPTION} if "match" not in frame else {})}
    return [Section(name, captions[name].format(by=by), tables[name], transpose=TRANSPOSED.get(name),
                    names=name not in OWN_INDEX)
            for name in names if name in tables]


def _read_frame(folder: Path) -> pd.DataFrame:
    frame = read_table(folder)
    if frame.empty:
        raise ResultsError(f"{folder}: the result table has no rows")
    return keyed(frame)


def run_content(folder: Path, by: str) -> Content:
    """A run folder (or its result table file): its summary tables and the four figures."""
    frame = _read_frame(folder)
    folder = folder if folder.is_dir() else folder.parent
    facts = run_facts(frame, read_manifest(folder), folder)
    return Content(f"welcometo-sim report: {facts[0][1]}", facts,
                   _summary_sections(frame, by, ("scores", "pairs", "breakdown", "endings")),
                   _frame_figures(frame, by), replay_pages(folder, frame))


def compare_content(folder: Path, by: str) -> Content:
    """A `wtsim compare --out` folder: head to head, ratings, summary, figures;
    games keyed by (match, game)."""
    frame = _read_frame(folder)
    meta = _analysis(folder)
    per_pair = frame.groupby("match")["game"].nunique() if "match" in frame else pd.Series([frame["game"].nunique()])
    facts = [("analysis", f"wtsim compare ({'one table' if meta.get('table') else 'round robin of pairs'})"),
             ("seed", str(meta.get("seed", "unknown"))),
             ("games", f"{int(frame['game'].nunique())} ({', '.join(map(str, sorted(set(per_pair))))} per match)"),
             ("strategies", _strategies(frame)), ("variant", _variant(frame)), engine_fact(meta)]
    sections = _summary_sections(frame, "player", ("pairs",))
    sections.append(Section("ratings", TABLE_CAPTIONS["ratings"], ratings(frame)))
    sections += _summary_sections(frame, by, ("scores", "breakdown", "endings"))
    return Content(f"welcometo-sim report: compare {folder.name}", facts, sections, _frame_figures(frame, by))


def _saved_table(folder: Path, name: str) -> pd.DataFrame | None:
    for fmt in ("csv", "parquet", "json"):
        path = folder / f"{name}.{fmt}"
        if path.is_file():
            try:
                if fmt == "csv":
                    return pd.read_csv(path, index_col=0)
                if fmt == "parquet":
                    return pd.read_parquet(path)
                return pd.read_json(path, orient="table")
            except (OSError, ValueError) as exc:
                raise ResultsError(f"{path}: cannot read the table: {exc}") from None
    return None


def _plan_values(saved: pd.DataFrame | None, game: str) -> dict[str, tuple[int, int]]:
    """Plan id -> (high, low) points: from the saved plans table's
    `high_points` and `low_points` columns (or, in folders written before
    those, its `points` text '8/4'), else the game's objectives as bundled."""
    values: dict[str, tuple[int, int]] = {}
    if saved is not None and {"high_points", "low_points"} <= set(saved.columns):
        for plan, high, low in zip(saved.index, saved["high_points"], saved["low_points"]):
            if not (pd.isna(high) or pd.isna(low)):
                values[str(plan)] = (int(high), int(low))
    elif saved is not None and "points" in saved.columns:
        for plan, text in saved["points"].items():
            high, _, low = str(text).partition("/")
            if high.strip().lstrip("-").isdigit() and low.strip().lstrip("-").isdigit():
                values[str(plan)] = (int(high), int(low))
    if not values:
        values = _bundled_values(game)
    return values


def _bundled_values(game: str) -> dict[str, tuple[int, int]]:
    """Objective id -> (high, low) points of `game`'s objectives with its default
    rules (none when the game has no objectives or needs more to list them)."""
    try:
        catalogue = objectives_of(game).catalogue(RunSpec(name="defaults", players=(), game=game))
    except ValueError:  # NoObjectives, or rules that need the run's seats
        return {}
    return {str(key): (int(goal.points[0]), int(goal.points[1])) for key, goal in catalogue.items()}


def plan_points_table(trials: pd.DataFrame, values: dict[str, tuple[int, int]]) -> pd.DataFrame:
    """Per forced plan (and skill level, when the trials have one): its deck, the
    completion rate over player-games (Wilson interval) and the points per
    player-game with a t interval over games (the seats of one game are averaged
    first, since they share the deal)."""
    decks = {p: int(d) for p, d in _plan_decks(trials).items()}
    goals = objectives_of(game_of_columns(trials.columns))
    keys = ["skill", "forced_plan"] if "skill" in trials.columns else ["forced_plan"]
    rows = []
    for key, block in trials.groupby(keys, sort=False):
        plan = key[-1] if isinstance(key, tuple) else key
        deck = decks.get(plan)
        if deck is None or plan not in values:
            continue
        high, low = values[plan]
        turns, first = goals.outcome(block, Objective(str(plan), str(plan), deck, (high, low)))
        done = ~np.isnan(turns)
        first = first & done
        points = pd.Series(np.where(first, high, np.where(done, low, 0)), index=block.index, dtype=float)
        per_game = points.groupby(block["game"]).mean()
        mean, p_low, p_high = mean_interval(per_game.to_numpy())
        p_low, p_high = max(p_low, 0.0), min(p_high, float(high))  # a plan gives 0 to `high` points
        rate, r_low, r_high = rate_interval(int(done.sum()), len(block))
        row = {"deck": deck, "plan": plan, "points": f"{high}/{low}", "player_games": len(block),
               "completion_rate": rate, "completion_rate_low": r_low, "completion_rate_high": r_high,
               "points_per_game": mean, "points_per_game_low": p_low, "points_per_game_high": p_high}
        if not goals.races:
            row["points"] = f"{high}"
        if "skill" in keys:
            row = {"skill": key[0], **row}
        rows.append(row)
    return pd.DataFrame(rows)


def _plan_decks(trials: pd.DataFrame) -> dict[str, int]:
    """Forced plan id -> its deck: its `forced_deck`, or (folders written
    before that column) the slot that always holds it in its block."""
    if "forced_deck" in trials.columns:
        return {plan: int(block["forced_deck"].iloc[0]) for plan, block in trials.groupby("forced_plan", sort=False)}
    decks = {}
    for plan, block in trials.groupby("forced_plan", sort=False):
        for slot in (1, 2, 3):
            if (block[f"plan{slot}"].astype(str) == str(plan)).all():
                decks[plan] = slot
                break
    return decks


def with_outliers(points: pd.DataFrame, saved: pd.DataFrame | None, skills: Any = None) -> pd.DataFrame:
    """`points` with an `outlier` column ('' for none): the flags `wtsim plans`
    printed (its saved table, of the strongest skill level in a skill trace),
    and for a level that table does not cover, the same rule
    (:func:`.plan_balance.flag_outliers`) applied to that level's rows."""
    printed = None
    if saved is not None and "outlier" in saved.columns:
        printed = saved["outlier"].fillna("").astype(str)
        printed.index = printed.index.astype(str)
    levels = points.groupby("skill", sort=False) if "skill" in points else [(None, points)]
    strongest = (list(skills) if isinstance(skills, (list, tuple)) and skills else [None])[-1]
    flags = pd.Series("", index=points.index, dtype=object)
    for level, block in levels:
        if printed is not None and (level is None or str(level) == str(strongest)):
            flags[block.index] = block["plan"].astype(str).map(printed).fillna("").to_numpy()
        else:
            computed = flag_outliers(block.set_index("plan"))
            flags[block.index] = computed.reindex(block["plan"]).fillna("").to_numpy()
    return points.assign(outlier=flags)


def plans_content(folder: Path, by: str) -> Content:
    """A `wtsim plans --out` folder: points per player-game per plan with
    intervals, small multiples per deck, and the saved plan table."""
    trials = read_table(folder)
    if "forced_plan" not in trials.columns:
        raise ResultsError(f"{folder}: not a `wtsim plans` folder (no forced_plan column)")
    meta = _analysis(folder)
    saved = _saved_table(folder, "plans")
    points = plan_points_table(trials, _plan_values(saved, game_of_columns(trials.columns)))
    if points.empty:
        raise ResultsError(f"{folder}: no plan of the results is known (no plans table, not a bundled plan)")
    points = with_outliers(points, saved, meta.get("skills"))
    facts = [("analysis", "wtsim plans"), ("seed", str(meta.get("seed", "unknown"))),
             ("games per plan", str(meta.get("games_per_plan", "unknown"))),
             ("plans", str(points["plan"].nunique())), ("strategies", _strategies(trials)),
             ("variant", _variant(trials)), engine_fact(meta)]
    if meta.get("skills"):
        facts.insert(4, ("skill levels", _listed(meta["skills"], ", ")))
    sorted_points = points.sort_values([*(["skill"] if "skill" in points else []), "deck", "points_per_game"],
                                       ascending=[*([True] if "skill" in points else []), True, False])
    sections = [Section("plan points", "Per plan: completion rate over player-games (95% Wilson interval) and "
                        "points per player-game from that plan (95% t interval over games).",
                        sorted_points.set_index([*(["skill"] if "skill" in points else []), "plan"]))]
    if saved is not None:
        sections.append(Section("plans", "The table `wtsim plans` printed (saved in the folder).", saved,
                                missing={"median_turn": "never completed", "high_share": "never completed"}))
    figure = Figure("plan_balance.png", lambda path: plots.plan_balance_plot(points, path), "Plan balance",
                    "One panel per deck: each plan's points per player-game with its 95% interval; the "
                    "dashed line is the deck's average. A plan far from the line, with an interval that "
                    "does not reach it, is worth more (or less) than its deck's others.")
    figures = [figure]
    if "skill" in points and points["skill"].nunique() > 1:
        figures.append(Figure("skill_trace.png", lambda path: plots.skill_trace_plot(points, path), "Skill trace",
                              "One panel per deck: each plan's points per player-game at each skill level "
                              "(the same seeds), weakest first; a rising line is a plan worth more to "
                              "stronger players, a falling one is strong only for weak players."))
    return Content(f"welcometo-sim report: plans {folder.name}", facts, sections, figures)


def sweep_content(folder: Path, by: str) -> Content:
    """A `wtsim sweep --out` folder: the grid points, one table per measure with
    its difference to point 0, and the measures' curves with interval bands."""
    saved = _saved_table(folder, "sweep")
    if saved is None:
        raise ResultsError(f"{folder}: no sweep table (sweep.csv, .parquet or .json) in this folder")
    table = saved.reset_index() if "point" not in saved.columns else saved
    missing = [c for c in MEASURE_COLUMNS if c not in table.columns]
    if missing or table.empty:
        raise ResultsError(f"{folder}: not a `wtsim sweep` table (missing {', '.join(missing) or 'rows'})")
    keys = [c for c in table.columns if c not in MEASURE_COLUMNS and c != "index"]
    table = table[[*keys, *MEASURE_COLUMNS]]
    meta = _analysis(folder)
    facts = [("analysis", "wtsim sweep"), ("settings", _listed(meta.get("settings", keys), "; ")),
             ("seed", str(meta.get("seed", "unknown"))), ("games", f"{meta.get('games', '?')} per grid point"),
             ("grid points", str(table["point"].nunique())),
             ("strategies", _listed(meta.get("players"), ", ") or "unknown"), engine_fact(meta)]
    sections = [Section("points", "The grid points; point 0 is the baseline.", points_table(table))]
    for measure in dict.fromkeys(table["measure"]):
        rows = measure_table(table, measure).astype({"diff": float})
        rows.loc[rows["change"] == "baseline", "diff"] = np.nan
        rate = table.loc[table["measure"] == measure, "kind"].iloc[0] == "rate"
        sections.append(Section(measure, ("Share" if rate else "Mean") + " with its 95% interval; diff: the "
                                "paired difference to point 0 over the same games (bootstrap interval).", rows,
                                percent=("value", "diff") if rate else (), missing={"diff": "baseline"}))
    figure = Figure("sweep.png", lambda path: plots.sweep_plot(table, path), "Sweep curves",
                    "One panel per measure: the estimate at each grid point with its 95% interval (band); "
                    "the dashed line is point 0, the baseline.")
    return Content(f"welcometo-sim report: sweep {folder.name}", facts, sections, [figure])


def _listed(value: Any, separator: str) -> str:
    """A recorded list as one line (a lone value as itself, nothing as '')."""
    if value is None:
        return ""
    return separator.join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _interval_row(tuning: dict, name: str) -> dict:
    """{value, value_low, value_high} of the estimate `name` of a tune file's
    `tuning` block: the fields name, name_low, name_high, or in files written
    before those, a {mean, low, high} mapping (NaN where not a number)."""
    block = tuning.get(name)
    if isinstance(block, dict):
        fields = {"": block.get("mean"), "_low": block.get("low"), "_high": block.get("high")}
    else:
        fields = {suffix: tuning.get(f"{name}{suffix}") for suffix in ("", "_low", "_high")}

    def number(value: Any) -> float:
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else np.nan

    return {f"value{suffix}": number(value) for suffix, value in fields.items()}


def tune_content(path: Path, by: str) -> Content:
    """A `wtsim tune` file: the best parameters, how they were searched, and the
    objective and gain over the start on fresh games with their intervals."""
    file = path if path.is_file() else _tune_files(path)[0]
    document = _read_yaml(file)
    tuning = document["tuning"]
    facts = [("analysis", "wtsim tune"), ("file", file.name),
             ("strategy", str(document.get("strategy"))), ("start", str(tuning.get("start"))),
             ("opponents", _listed(tuning.get("opponents"), ", ")),
             ("objective", str(tuning.get("objective"))), ("seed", str(tuning.get("seed"))),
             ("games", f"{tuning.get('games')} per trial, {tuning.get('trials')} trials, "
                       f"{tuning.get('fresh_games')} fresh games for the finalists"),
             ("config", str(tuning.get("config"))), engine_fact({})]
    flat = _flat(document["params"]) if isinstance(document.get("params"), dict) else []
    params = pd.DataFrame({"value": [str(v) for _, v in flat]},
                          index=pd.Index([k for k, _ in flat], name="parameter"))
    result = pd.DataFrame([_interval_row(tuning, "fresh_objective"), _interval_row(tuning, "gain_over_start")],
                          index=pd.Index(["objective of the best (fresh games)", "gain over the start"],
                                         name="measure"))
    sections = [Section("best parameters", f"Best of trial {tuning.get('best_trial')}; searched in: "
                        f"{_listed(tuning.get('ranges'), '; ')}.", params),
                Section("result", "On fresh games, with 95% paired bootstrap intervals.", result, percent=(),
                        signed=("value",), names=False)]
    figure = Figure("tune.png", lambda out: plots.interval_plot(result, out, "Tuning result on fresh games",
                                                                 f"objective: {tuning.get('objective')}"),
                    "Tuning result", "The best parameters' objective and their gain over the start, on fresh "
                    "games, with 95% intervals; a gain interval clear of 0 is a real improvement.")
    return Content(f"welcometo-sim report: tune {file.stem}", facts, sections, [figure])


def _model_meta(folder: Path) -> dict:
    """The metadata a training saved with its model (weights.npz), read only
    and within bounds (a crafted file cannot make the report allocate more)."""
    path = folder / "weights.npz"
    if not path.is_file():
        return {}
    try:
        with BoundedNpz(path, MAX_MODEL_BYTES) as archive:
            meta = read_json(archive, "meta")
    except ArchiveError:
        return {}
    return meta if isinstance(meta, dict) else {}


def train_content(folder: Path, by: str) -> Content:
    """A `wtsim train` folder (only read): the learning curve, as a table and a figure."""
    try:
        curve = pd.read_csv(folder / "curve.csv")
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{folder / 'curve.csv'}: cannot read the learning curve: {exc}") from None
    numeric = [c for c in curve.columns if c in CURVE_COLUMNS]
    if (curve.empty or not {"games", "mean_score"} <= set(curve.columns)
            or not all(pd.api.types.is_numeric_dtype(curve[c]) for c in numeric)):
        raise ResultsError(f"{folder / 'curve.csv'}: not a learning curve (needs numeric games and mean_score)")
    curve = curve[numeric]
    meta = _model_meta(folder)
    facts = [("analysis", "wtsim train"), ("folder", folder.name),
             ("model", f"{meta.get('family', '?')} family, {meta.get('players', '?')} players, "
                       f"{meta.get('games', curve['games'].iloc[-1])} training games"),
             ("command", str(meta.get("command", "unknown"))),
             ("engine", f"welcometo-sim {meta.get('code_version', '?')} (trained); {engine()} here")]
    table = curve.rename(columns={"mean_score": "score", "ci_low": "score_low", "ci_high": "score_high",
                                  "refusal_end_share": "ended_by_refusals"}).set_index("games")
    training = meta.get("training") if isinstance(meta.get("training"), dict) else {}
    evaluated = training.get("eval_games")
    if isinstance(evaluated, int) and evaluated > 0 and "ended_by_refusals" in table:
        bounds = [rate_interval(round(share * evaluated), evaluated)[1:] for share in table["ended_by_refusals"]]
        table["ended_by_refusals_low"], table["ended_by_refusals_high"] = zip(*bounds)
    against = training.get("eval_opponent", "self") if training.get("players", 1) != 1 else None
    text = ("Per evaluation point (the same evaluation games each time): the learner's mean score with its 95% "
            "interval, share of the games ended by refusals (Wilson interval), mean length.")
    if against == "self":
        text += (" Every seat of these games is the learner: with the same cards they write the same sheets, "
                 "so every race is tied and the score is a mirror's.")
    elif against:
        text += (f" The learner sits at seat 0 against {against}: its score, its mean margin over {against} "
                 f"with its 95% interval, and its share of wins (a tie for first shared).")
    percent = tuple(c for c in ("ended_by_refusals", "win_share") if c in table)
    sections = [Section("learning curve", text, table, percent=percent)]
    figure = Figure("learning_curve.png", lambda path: plots.learning_curve_plot(curve, path), "Learning curve",
                    "Evaluation mean score with its 95% interval against training games; right: how "
                    "evaluation games ended.")
    return Content(f"welcometo-sim report: training {folder.name}", facts, sections, [figure])


BUILDERS: dict[str, Callable[[Path, str], Content]] = {
    "run": run_content, "compare": compare_content, "plans": plans_content, "sweep": sweep_content,
    "tune": tune_content, "train": train_content,
}


# ---------------------------------------------------------------- writing


def _markdown(content: Content, by: str | None) -> str:
    parts = [f"# {markdown_text(content.title)}", ""]
    parts += [f"- **{label}**: {(markdown_text if label in NAME_FACTS else markdown_plain)(value)}"
              for label, value in content.facts]
    if by:
        parts.append(f"- **grouped by**: {by}")
    parts += ["", "## Tables", ""]
    for section in content.sections:
        parts += [f"### {markdown_plain(section.name)}", "", markdown_plain(section.caption), "",
                  markdown_table(section), ""]
    parts += ["## Figures", ""]
    for figure in content.figures:
        parts += [f"### {figure.heading}", "", f"![{figure.heading}]({figure.file_name})", "", figure.caption, ""]
    if content.pages:
        parts += ["## Game replays", "", REPLAYS_CAPTION, ""]
        parts += [f"- [{markdown_plain(page.label)}]({page.file_name})" for page in content.pages]
        parts.append("")
    return "\n".join(parts)


def _html(content: Content, folder: Path, by: str | None) -> str:
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{e(content.title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
             f"<h1>{e(content.title)}</h1>", '<dl class="run">']
    parts += [f"<dt>{e(label)}</dt><dd>{e(value)}</dd>" for label, value in content.facts]
    if by:
        parts.append(f"<dt>grouped by</dt><dd>{e(by)}</dd>")
    parts += ["</dl>", "<h2>Tables</h2>"]
    for section in content.sections:
        parts += [f"<h3>{e(section.name)}</h3>", f'<p class="caption">{e(section.caption)}</p>',
                  html_table(section)]
    parts.append("<h2>Figures</h2>")
    for figure in content.figures:
        data = base64.b64encode((folder / figure.file_name).read_bytes()).decode("ascii")
        parts += [f"<h3>{e(figure.heading)}</h3>", "<figure>",
                  f'<img alt="{e(figure.heading)}" src="data:image/png;base64,{data}">',
                  f"<figcaption>{e(figure.caption)}</figcaption>", "</figure>"]
    if content.pages:
        parts += ["<h2>Game replays</h2>", f'<p class="caption">{e(REPLAYS_CAPTION)}</p>', "<ul>"]
        parts += [f'<li><a href="{e(page.file_name)}">{e(page.label)}</a></li>' for page in content.pages]
        parts.append("</ul>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def _written_pages(pages: list[Any], target: Path) -> list[Any]:
    """Write each viewer page into the report folder; a record that does not
    replay loses its link rather than the whole report (`wtsim verify` names it)."""
    written = []
    for page in pages:
        try:
            page.write(target / page.file_name)
        except OutputError:
            raise
        except ValueError:
            continue
        written.append(page)
    return written


def write_report(results_dir: str | os.PathLike, fmt: str = "md",
                 out: str | os.PathLike | None = None, *, by: str = "player") -> Path:
    """Write the report of a folder (see :func:`folder_kind`); return the path of
    report.md or report.html.

    The figures (PNG) go to ``out`` (default: :func:`default_target`) in both
    formats. Each file is written to a temporary name and renamed, so a full disk
    leaves no partial file. Raises ResultsError for a missing or unreadable
    folder, OutputError (one line) for a file that cannot be written, and
    plots.PlotDependencyError when matplotlib is not installed.
    """
    if fmt not in FORMATS:
        raise ValueError(f"report format {fmt!r} is not one of {', '.join(FORMATS)}")
    plots.require_matplotlib()
    source = Path(results_dir)
    kind = folder_kind(source)
    content = BUILDERS[kind](source, by)
    target = Path(out) if out is not None else default_target(source, kind)
    target.mkdir(parents=True, exist_ok=True)
    for figure in content.figures:
        write_atomically(target / figure.file_name, figure.draw)
    content.pages = _written_pages(content.pages, target)
    grouped = by if kind in ("run", "compare") else None
    if fmt == "md":
        path, text = target / "report.md", _markdown(content, grouped)
    else:
        path, text = target / "report.html", _html(content, target, grouped)
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path
