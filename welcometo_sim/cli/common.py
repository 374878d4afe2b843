"""What every `wtsim` command shares: one-line user errors, progress bars,
shell completion, table output and the options of the analysis commands.

Command modules import this one; it imports none of them."""

from __future__ import annotations

import json
import math
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import click
import numpy as np
import pandas as pd
from click.shell_completion import CompletionItem

from ..analysis.formatting import RATE_COLUMNS, format_number, row_labels, short_labels, table_text
from ..config import MAX_GAMES, MAX_JOBS, MAX_SEED, ConfigError
from ..defaults import random_warning
from ..games import game_sweep_keys, known_games
from ..games.records import ReplayError
from ..sim.results import write_atomically
from ..sim.results import MANIFEST_FILE, ResultsError, output_error, read_small_json
from ..strategy import StrategyLoadError, builtin_strategies

EXIT_USER_ERROR = 2
EXIT_STRATEGY_ERROR = 3
USER_ERRORS = (ConfigError, StrategyLoadError, ResultsError, ReplayError)


class UserError(click.ClickException):
    """A mistake in the input: one line on stderr, exit code 2."""

    exit_code = EXIT_USER_ERROR


def fail(message: str) -> None:
    """Stop the command with a one-line user error."""
    raise UserError(message)


def one_line(message: str) -> str:
    """Messages quote user input, which may hold line breaks; stderr gets one line."""
    return " ".join(message.splitlines())


def notice(message: str) -> None:
    """A one-line note on stderr that does not stop the command."""
    click.echo(f"wtsim: {one_line(message)}", err=True)


PERCENT_COLUMNS = RATE_COLUMNS
"""Rates printed as percentages in text tables (scripts get the fractions)."""
RATE_TABLES = ("win_rates",)
"""Tables whose every number is a rate (row player's win rate against each column player)."""

TRANSPOSED = {"breakdown": "category"}
"""Tables printed with their columns as rows (one interval column per player)."""


def json_text(document: Any) -> str:
    """A --json document as strict JSON: a number that is not finite (NaN,
    infinity: an interval of too few games) is null, as in the tables, and
    numpy numbers are plain numbers; `wtsim schema json COMMAND` describes
    each command's document."""
    return json.dumps(_plain_json(document), indent=2, allow_nan=False)


def _plain_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _plain_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_json(item) for item in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def json_tables(tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
    """Tables as JSON objects keyed by row label, every value a number, a
    string, a boolean or null (missing). A two-level label is joined by
    ' vs ' and each row also holds its parts under the levels' names (a
    pair's `a` and `b`), so a script need not split the key."""
    payload = {}
    for name, table in tables.items():
        if isinstance(table.index, pd.MultiIndex):
            keys = [" vs ".join(map(str, label)) for label in table.index]
            table = table.reset_index().set_axis(keys)
        payload[name] = json.loads(table.to_json(orient="index"))
    return payload


def print_tables(tables: dict[str, pd.DataFrame], as_csv: bool, as_json: bool,
                 signed: tuple[str, ...] = ("mean_diff",)) -> None:
    """Tables as text (see :func:`table_lines`), CSV or one JSON object."""
    if as_json:
        click.echo(json_text(json_tables(tables)))
        return
    short = short_labels(label for table in tables.values() for label in row_labels(table))
    for name, table in tables.items():
        if as_csv:
            click.echo(f"# {name}")
            click.echo(table.to_csv(float_format="%.4g"), nl=False)
        else:
            click.echo(f"\n{name}")
            click.echo(table_lines(name, table, signed, short))


def table_lines(name: str, table: pd.DataFrame, signed: tuple[str, ...] = ("mean_diff",),
                short: Mapping[str, str] | None = None) -> str:
    """A table as the commands print it: as wide as the output allows, rates
    in percent with one decimal, intervals in brackets, differences signed,
    points to one decimal (ratings to two), long player labels shortened
    with a legend under the table (as `short` gives them, when the table is
    one of several printed together); a column with one value for every row
    (a rating fit) is a line under the table, a verdict names who scores more."""
    table, notes = _shared_columns(_scores_more(table), SHARED_COLUMNS.get(name, ()))
    percent = table.columns if name in RATE_TABLES else PERCENT_COLUMNS
    return table_text(table, TABLE_DIGITS.get(name, 1), percent=percent, signed=signed,
                      transpose=TRANSPOSED.get(name), shorten=True if short is None else short,
                      optional=OPTIONAL_COLUMNS.get(name, ()), notes=notes)


TABLE_DIGITS = {"ratings": 2}
"""Decimals of the printed tables other than one (a strength of 0.14 needs two)."""
OPTIONAL_COLUMNS = {"scores": (("p10", "p90"), "std")}
"""Columns a printed table leaves out, in this order, when the output is too narrow for it."""
SHARED_COLUMNS = {"ratings": ("fit",), "pairs": ("games",), "scores": ("games",)}
"""Columns printed as one line under the table when every row holds the same value
(a round robin's pairs all play the same number of games)."""


def _scores_more(table: pd.DataFrame) -> pd.DataFrame:
    """A pairs table with its `verdict` printed as `scores_more`: the player
    whose mean paired difference is clear of zero, or 'neither' (the words
    of the verdict take a third of an 80-column line)."""
    if "verdict" not in table.columns or not {"mean_diff_low", "mean_diff_high"} <= set(table.columns):
        return table
    a = table.index.get_level_values(0)
    b = table.index.get_level_values(1)
    low, high = table["mean_diff_low"].to_numpy(), table["mean_diff_high"].to_numpy()
    better = [first if lo > 0 else second if hi < 0 else "neither"
              for first, second, lo, hi in zip(a, b, low, high)]
    return table.drop(columns="verdict").assign(scores_more=better)


def _shared_columns(table: pd.DataFrame, columns: tuple[str, ...]) -> tuple[pd.DataFrame, list[str]]:
    """The table without those of `columns` whose rows all agree, and a line for each."""
    notes = []
    for column in columns:
        if column in table.columns and len(table) > 1 and table[column].nunique(dropna=False) == 1:
            notes.append(f"{column} (every row): {format_number(table[column].iloc[0], whole=True)}")
            table = table.drop(columns=column)
    return table, notes


def make_progress(total: int, quiet: bool) -> tuple[Callable[[int], None] | None, Any]:
    """A tqdm bar on stderr ticked by the returned callback, or (None, None)
    when quiet or stderr is not a terminal (scripts get no bar)."""
    if quiet or not sys.stderr.isatty():
        return None, None
    from tqdm import tqdm

    bar = tqdm(total=total, unit="game", file=sys.stderr, dynamic_ncols=True)
    return bar.update, bar


@contextmanager
def cli_progress(quiet: bool) -> Iterator[Callable[[int, int], None]]:
    """The progress callback(done, total) the library functions take, drawing
    the command's bar on stderr (made at the first call, when the total is
    known; none when quiet or stderr is not a terminal) and closing it."""
    state: dict[str, Any] = {"tick": None, "bar": None, "done": 0, "made": False}

    def report(done: int, total: int) -> None:
        if not state["made"]:
            state["tick"], state["bar"] = make_progress(total, quiet)
            state["made"] = True
        if state["tick"] is not None and done > state["done"]:
            state["tick"](done - state["done"])
        state["done"] = done

    try:
        yield report
    finally:
        if state["bar"] is not None:
            state["bar"].close()


# ------------------------------------------------------------ shell completion
BUNDLED_CONFIGS = Path("configs")
"""Where the bundled configs are, relative to the folder wtsim runs in (the
repository's `configs/`): completion offers them first."""


def complete_strategy(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Registered strategy names (built in or installed) that start with what is typed."""
    return [CompletionItem(name) for name in sorted(builtin_strategies()) if name.startswith(incomplete)]


def complete_config(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The bundled configs whose path starts with what is typed; when none
    does, the shell completes file names as usual (a config of one's own)."""
    bundled = sorted(str(path) for path in BUNDLED_CONFIGS.glob("*.yaml")) if BUNDLED_CONFIGS.is_dir() else []
    matches = [CompletionItem(path) for path in bundled if path.startswith(incomplete)]
    return matches or [CompletionItem(incomplete, type="file")]


def complete_plan_setting(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`KEY=` for the `sweep --set` keys every game lists (its `sweep_keys`;
    Welcome To: `plans.<plan id>.<field>` for every plan of every variant, the
    what-if keys whose plan ids nobody remembers)."""
    keys = (f"{key}=" for name in known_games() for key in game_sweep_keys(name))
    return [CompletionItem(key) for key in keys if key.startswith(incomplete)]


# ------------------------------------------------ analysis commands' options and output
TABLE_FORMATS = ("csv", "json", "parquet")


ANALYSIS_FILE = "analysis.json"
"""What an analysis command writes in its --out folder to say which command it was."""
RESULT_TABLES = ("results.csv", "results.parquet")


def output_folder(out: str | None, command: str) -> Path | None:
    """The --out folder of an analysis command, created and checked before any
    game is played (None without --out); a folder that cannot be written, or
    that holds what another command wrote, is one line, exit 2."""
    if out is None:
        return None
    if not out.strip():
        fail("--out: must be a folder path, got ''")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        fail(f"--out {folder}: exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"--out {folder}: cannot create the folder: {exc.strerror or exc}")
    if not os.access(folder, os.W_OK | os.X_OK):
        fail(f"--out {folder}: cannot write in this folder")
    _check_owner(folder, command)
    return folder


def _check_owner(folder: Path, command: str) -> None:
    """An analysis command writes into a new folder, beside files of the user's, or
    over its own earlier output; never over a run folder or another command's tables."""
    if (folder / MANIFEST_FILE).exists():
        fail(f"--out {folder}: holds a run ({MANIFEST_FILE}), which {command} does not replace; "
             f"choose another folder")
    marker = folder / ANALYSIS_FILE
    if marker.exists():
        try:
            owner = read_small_json(marker).get("command")
        except (OSError, ValueError, AttributeError):
            owner = None
        if owner == command:
            return
        writer = f"wtsim {owner}" if owner in ANALYSIS_COMMANDS else "another program"
        fail(f"--out {folder}: holds the output of {writer}, which {command} does not replace; "
             f"choose another folder")
    taken = [name for name in RESULT_TABLES if (folder / name).exists()]
    if taken:
        fail(f"--out {folder}: holds {taken[0]}, which {command} did not write; choose another folder")


ANALYSIS_COMMANDS = ("compare", "plans", "sweep")
"""The commands that write an --out folder with an analysis.json."""


def output_file(out: str | None, default: Path, reads: Sequence[Path], force: bool) -> Path:
    """The --out file of `tune` or `balance` (`default` without --out), checked
    before any game is played: never a file the command reads (its config, a
    strategy or weights file), an existing file only with --force, and its
    folder is created now (a path under a file is one line, not "File exists")."""
    if out is not None and not out.strip():
        fail("--out: must be a file path, got ''")
    path = Path(out) if out is not None else default
    if path.is_dir():
        fail(f"--out {path}: is a folder, not a file")
    for source in reads:
        if _same_file(path, source):
            fail(f"--out {path}: is {source}, which this command reads; choose another file")
    if path.exists() and not force:
        fail(f"--out {path}: exists; choose another file, or replace it with --force")
    for folder in reversed(path.parents):
        if folder.exists() and not folder.is_dir():
            fail(f"--out {path}: {folder} is a file, not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"--out {path}: cannot create the folder {path.parent}: {exc.strerror or exc}")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        fail(f"--out {path}: cannot write in {path.parent}")
    return path


def _same_file(path: Path, other: Path) -> bool:
    try:
        return path.exists() and other.exists() and os.path.samefile(path, other)
    except OSError:
        return False


def files_read(config: str | None, refs: Sequence[str | None]) -> list[Path]:
    """The files a command reads besides its output: the config, and the strategy
    sources and data files that strategy references (x.py:Class, learned:weights=w.npz) name."""
    paths = [Path(config)] if config else []
    for ref in filter(None, refs):
        head, _, tail = ref.partition(":")
        paths.append(Path(head))
        paths.append(Path(ref.rpartition(":")[0]))
        paths += [Path(item.partition("=")[2]) for item in tail.split(",") if "=" in item]
    return [path for path in paths if str(path) and _is_file(path)]


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def write_text_file(path: Path, text: str) -> None:
    """A small output file written whole or not at all: a full disk leaves the old
    file (or none), never an empty one, and is one OutputError line."""
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_tables(tables: dict[str, pd.DataFrame], folder: Path, fmt: str) -> None:
    """Each table as folder/<name>.<fmt>, each written whole or not at all
    (a full disk is one OutputError line and leaves no partial file)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise output_error(folder, exc, "cannot create the folder") from None
    for name, table in tables.items():
        path = folder / f"{name}.{fmt}"
        if fmt == "csv":
            write_atomically(path, lambda tmp: table.to_csv(tmp))
        elif fmt == "json":
            text = table.to_json(orient="table", indent=2)
            write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        else:
            flat = table.reset_index()
            flat.columns = [str(c) for c in flat.columns]
            write_atomically(path, lambda tmp: flat.to_parquet(tmp, index=False))


COMMON = [
    click.option("--config", "-c", type=click.Path(dir_okay=False), shell_complete=complete_config, help="Variant and players from this config (default: the bundled base config)."),
    click.option("--games", "-n", type=click.IntRange(1, MAX_GAMES), help="Games per pair of strategies (with --table: games at the one table)."),
    click.option("--seed", "-s", type=click.IntRange(0, MAX_SEED), help="Run seed; every match plays the same game seeds."),
    click.option("--jobs", "-j", type=click.IntRange(-64, MAX_JOBS), help="Worker processes; -1 = every core."),
    click.option("--out", "-o", type=click.Path(file_okay=False), help="Write the result table and the tables here."),
    click.option("--format", "fmt", type=click.Choice(TABLE_FORMATS), default="csv", show_default=True, help="Format of the tables written with --out."),
    click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
]


def common_options(func):
    for option in reversed(COMMON):
        func = option(func)
    return func


def warn_random(players) -> None:
    """One warning line on stderr when a seat plays random (after the results,
    so that an error stays the only line of a failed command)."""
    warning = random_warning(players)
    if warning:
        click.echo(f"wtsim: {warning}", err=True)
