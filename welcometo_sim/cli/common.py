"""What every `wtsim` command shares: one-line user errors, progress bars,
shell completion, table output and the options of the analysis commands.

Command modules import this one; it imports none of them."""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import click
import pandas as pd
from click.shell_completion import CompletionItem

from ..analysis.formatting import table_text
from ..config import MAX_GAMES, MAX_JOBS, MAX_SEED, ConfigError
from ..defaults import random_warning
from ..rules.data import DEFAULT_DATA
from ..rules.replay import ReplayError
from ..sim.results import _write_atomically as write_atomically
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


MAX_TEXT_WIDTH = 100
"""Printed text is wrapped at the terminal's width, and at most this wide."""

PERCENT_COLUMNS = ("win_rate", "share", "a_win_rate")
"""Rates printed as percentages in text tables (scripts get the fractions)."""

TRANSPOSED = {"breakdown": "category"}
"""Tables printed with their columns as rows (one interval column per player)."""


def json_tables(tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
    """Tables as JSON objects keyed by row label (a two-level label joined by ' vs ')."""
    payload = {}
    for name, table in tables.items():
        if isinstance(table.index, pd.MultiIndex):
            table = table.set_axis([" vs ".join(map(str, i)) for i in table.index])
        payload[name] = json.loads(table.to_json(orient="index"))
    return payload


def print_tables(tables: dict[str, pd.DataFrame], as_csv: bool, as_json: bool) -> None:
    """Tables as text (rates in percent, intervals in brackets), CSV or one JSON object."""
    if as_json:
        click.echo(json.dumps(json_tables(tables), indent=2))
        return
    for name, table in tables.items():
        if as_csv:
            click.echo(f"# {name}")
            click.echo(table.to_csv(float_format="%.4g"), nl=False)
        else:
            click.echo(f"\n{name}")
            click.echo(table_text(table, 2, percent=PERCENT_COLUMNS, signed=("mean_diff",),
                                  transpose=TRANSPOSED.get(name)))


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


PLAN_FIELDS = ("points", "estates", "deck")
"""The fields of a plan that `sweep --set plans.<id>.<field>=...` can change."""


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
    """`plans.<plan id>.<field>=` keys for every plan of every variant, the
    what-if keys whose plan ids nobody remembers."""
    keys = (f"plans.{plan.id}.{field}=" for plan in DEFAULT_DATA.all_plans() for field in PLAN_FIELDS)
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
