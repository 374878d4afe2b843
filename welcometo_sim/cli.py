"""The `wtsim` command line: thin commands over the library.

Exit codes: 0 success, 2 bad input (config, option, file), 3 a strategy
raised or answered illegally (finished results are kept).
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import textwrap
from dataclasses import dataclass
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import click
import pandas as pd
import yaml
from click.shell_completion import CompletionItem

from .analysis.formatting import table_text
from .analysis.tables import read_summary
from .games.records import problems as game_record_problems, record_game, record_index
from .games.records import render as render_game_record
from .games.tables import summary_tables
from .api import RunOutput, chunks_done, execute, prepare_folder, resolve_spec, resumable_manifest, resume
from .compiled_core import engine
from .config import MAX_GAMES, MAX_JOBS, MAX_SEED, MAX_YAML_BYTES, ConfigError, RunSpec, bounded_yaml, parse_config
from .rules.data import DEFAULT_DATA
from .rules.game import StrategyError
from .rules.replay import RecordFormatError, ReplayError, disagreements, replay
from .rules.sheet import render_sheet
from .sim.guard import interrupt_signals, signal_received
from .sim.isolated import WorkerLost
from .sim.results import ERRORS_FILE, OutputError, ResultsError, choose_format, read_errors, read_manifest
from .strategy import StrategyLoadError, builtin_strategies, load_strategy

EXIT_USER_ERROR = 2
MAX_RECORD_BYTES = 64 << 20
"""Bytes of one records line read at most (a long game's record takes some hundred KiB)."""
EXIT_STRATEGY_ERROR = 3
USER_ERRORS = (ConfigError, StrategyLoadError, ResultsError, ReplayError)


class UserError(click.ClickException):
    exit_code = EXIT_USER_ERROR


def fail(message: str) -> None:
    raise UserError(message)


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


def _make_progress(total: int, quiet: bool) -> tuple[Callable[[int], None] | None, Any]:
    if quiet or not sys.stderr.isatty():
        return None, None
    from tqdm import tqdm

    bar = tqdm(total=total, unit="game", file=sys.stderr, dynamic_ncols=True)
    return bar.update, bar


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


class Commands(click.Group):
    """The command group: `wtsim --help` shows the whole first sentence of each
    command's help, wrapped, where click would cut it at the terminal's width."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="welcometo-sim", prog_name="wtsim",
                      message=f"%(prog)s, version %(version)s ({engine()} engine)")
def cli() -> None:
    """Tournament simulator for the board game Welcome To…

    Run seeded games between strategies, write result tables, and print
    score distributions. `wtsim COMMAND --help` explains each command.
    """


# What a resumed run keeps from its saved config and manifest (the options that would change the games).
RESUME_CONFLICTS = {"config": "CONFIG", "games": "--games", "seed": "--seed", "chunk_size": "--chunk-size",
                    "out": "--out", "records": "--records", "fmt": "--format", "move_timeout": "--move-timeout",
                    "force": "--force"}


STDIN = "-"
"""The CONFIG of `wtsim run -`: the config is read from standard input."""


@cli.command()
@click.argument("config", required=False, type=click.Path(dir_okay=False, allow_dash=True), shell_complete=complete_config)
@click.option("--games", "-n", type=click.IntRange(1, MAX_GAMES), help="Number of games (overrides the config).")
@click.option("--seed", "-s", type=click.IntRange(0, MAX_SEED), help="Run seed (overrides the config).")
@click.option("--jobs", "-j", type=click.IntRange(-64, MAX_JOBS), help="Worker processes; -1 uses every core, at most the machine's cores (overrides the config).")
@click.option("--chunk-size", type=click.IntRange(1, MAX_GAMES), help="Games per task sent to a worker.")
@click.option("--out", "-o", type=click.Path(file_okay=False), help="Output folder (default results/<name>-<timestamp>/).")
@click.option("--records", is_flag=True, help="Also write records.jsonl, one full game record per line.")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]), help="Result table format (default parquet when pyarrow is installed, else csv).")
@click.option("--resume", type=click.Path(file_okay=False), help="Finish the interrupted run in this folder (plays only its missing chunks).")
@click.option("--on-error", type=click.Choice(["fail", "skip"]), help="A strategy error stops the run (fail, exit 3) or drops that game (skip).")
@click.option("--move-timeout", type=click.FloatRange(min=0, min_open=True), help="Seconds one strategy call may take.")
@click.option("--backend", type=click.Choice(["loky", "dask"]), help="Where chunks run: local processes (loky) or a dask cluster.")
@click.option("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (implies --backend dask).")
@click.option("--by", type=click.Choice(["player", "strategy", "seat"]), default="player", show_default=True, help="Group the printed tables by.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no tables: only the results folder on stdout.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (results folder, run, tables) instead of the tables.")
@click.option("--force", is_flag=True, help="Start over in an --out folder that holds another run (deletes only that run's files).")
def run(config: str | None, games: int | None, seed: int | None, jobs: int | None,
        chunk_size: int | None, out: str | None, records: bool, fmt: str | None, resume: str | None,
        on_error: str | None, move_timeout: float | None, backend: str | None, scheduler: str | None,
        by: str, quiet: bool, as_json: bool, force: bool) -> None:
    """Play games from CONFIG (default: the bundled configs/base.yaml) and write the results.

    CONFIG `-` reads the config from standard input. The results folder is
    printed on stdout (alone with --quiet; in the JSON with --json).

    Finished chunks are saved as they come in; after Ctrl-C, a crash or a
    strategy error, `--resume DIR` plays only what is missing (and any chunk
    that fails its check). An --out folder must be new, empty, or hold this
    same run (which is then finished); --force starts over in another run's.

    \b
    Examples:
      wtsim run
      wtsim run configs/base.yaml --games 2000 --seed 7 --jobs 2
      wtsim run --games 100 --records --out results/try --quiet
      folder=$(wtsim run configs/solo.yaml --games 50 --quiet)
      wtsim run - --json < configs/expert.yaml
      wtsim run --resume results/try
      wtsim run configs/base.yaml --scheduler tcp://10.0.0.5:8786 --games 1000000
    """
    if resume is not None:
        given = dict(config=config, games=games, seed=seed, chunk_size=chunk_size, out=out,
                     records=records, fmt=fmt, move_timeout=move_timeout, force=force)
        clash = [option for name, option in RESUME_CONFLICTS.items() if given[name] is not None and given[name] is not False]
        if clash:
            fail(f"--resume: {clash[0]} cannot change a run in progress (it keeps its saved config)")
        _resume(Path(resume), jobs, backend, scheduler, on_error, Shown(by, quiet, as_json))
        return
    shown = Shown(by, quiet, as_json)
    source = stdin_config() if config == STDIN else config
    spec = resolve_spec(source, games=games, seed=seed, jobs=jobs, chunk_size=chunk_size,
                        on_error=on_error, move_timeout=move_timeout, backend=backend, scheduler=scheduler)
    fmt = choose_format(fmt)
    prepared = prepare_folder(spec, out, fmt, records, force)
    folder = prepared.folder
    if prepared.manifest is not None:
        if prepared.manifest["status"] != "finished":
            notice(f"{folder} holds this run, unfinished; continuing it")
        _resume(folder, spec.jobs, spec.backend, spec.scheduler, spec.on_error, shown)
        return
    with _progress_bar(spec.games, 0, quiet) as progress, _stopped_in(folder):
        output = execute(spec, folder, records=records, fmt=fmt, progress=progress, force=force,
                         notify=notice)
    _report_run(output, f"{spec.games} games", shown)


def stdin_config(where: str = "<stdin>") -> RunSpec:
    """The config of `wtsim run -`, read from standard input with the bounds
    and the one-line errors of a config file (relative `params_file` paths
    are read from the working folder)."""
    data = sys.stdin.buffer.read(MAX_YAML_BYTES + 1)
    if len(data) > MAX_YAML_BYTES:
        fail(f"{where}: cannot read: larger than {MAX_YAML_BYTES // 1024} KiB")
    try:
        raw = bounded_yaml(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        fail(f"{where}: cannot read: not UTF-8 text ({exc.reason} at byte {exc.start + 1})")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" line {mark.line + 1}, column {mark.column + 1}:" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        fail(f"{where}:{at} malformed YAML: {problem}")
    except RecursionError:
        fail(f"{where}: malformed YAML: nested too deeply")
    except (ValueError, TypeError, LookupError, AttributeError, ArithmeticError) as exc:
        fail(f"{where}: malformed YAML: cannot read a value ({type(exc).__name__}: {exc})")
    return parse_config(raw, where, default_name="stdin")


def notice(message: str) -> None:
    """A one-line note on stderr that does not stop the command."""
    click.echo(f"wtsim: {one_line(message)}", err=True)


@dataclass(frozen=True)
class Shown:
    """How `wtsim run` shows a finished run: tables grouped `by`, or with
    `quiet` only the results folder, or with `as_json` one JSON object."""

    by: str
    quiet: bool
    as_json: bool


def _resume(folder: Path, jobs: int | None, backend: str | None, scheduler: str | None,
            on_error: str | None, shown: Shown) -> None:
    if resumable_manifest(folder)["status"] == "finished":
        output = resume(folder)
        if shown.as_json or shown.quiet:
            _report_run(output, "", shown)
        else:
            click.echo(f"{folder}: the run is already finished; nothing to do")
        return
    done, total = chunks_done(folder)
    with _progress_bar(total, done, shown.quiet) as progress, _stopped_in(folder):
        output = resume(folder, jobs=jobs, backend=backend, scheduler=scheduler, on_error=on_error,
                        progress=progress, notify=notice)
    _report_run(output, f"{output.played} missing games of {total}", shown)


def run_document(output: RunOutput, by: str) -> dict[str, Any]:
    """What `wtsim run --json` prints: where the results are, what was played,
    and the tables of `wtsim summarize --json` (same keys)."""
    m = output.manifest
    tables = summary_tables(read_summary(output.folder, by), by, pairs=True)
    return {"folder": str(output.folder), "name": m.get("name"), "seed": m["seed"], "games": m["games"],
            "played": output.played, "wall_seconds": m["wall_seconds"],
            "games_per_second": m["games_per_second"], "errors_file": m.get("errors_file"),
            **json_tables(tables),
            "errored_games": int(m.get("errors") or 0)}


def _report_run(output: RunOutput, what: str, shown: Shown) -> None:
    if shown.as_json:
        click.echo(json.dumps(run_document(output, shown.by), indent=2))
        return
    if shown.quiet:
        click.echo(str(output.folder))
        return
    by = shown.by
    m = output.manifest
    click.echo(f"{what} in {m['wall_seconds']:.1f} s ({m['games_per_second']} games/s), "
               f"seed {m['seed']}; results in {output.folder}")
    if m.get("errors"):
        click.echo(f"{m['errors']} errored games left out of the tables (listed in {m['errors_file']})")
    print_tables(summary_tables(read_summary(output.folder, by), by, pairs=True), as_csv=False, as_json=False)


@contextmanager
def _progress_bar(total: int, done: int, quiet: bool) -> Iterator[Callable[[int], None] | None]:
    progress, bar = _make_progress(total, quiet)
    if bar is not None:
        bar.update(done)
    try:
        yield progress
    finally:
        if bar is not None:
            bar.close()


@contextmanager
def _stopped_in(folder: Path) -> Iterator[None]:
    """Ctrl-C, SIGTERM, strategy errors and lost workers say where the finished
    chunks are and how to go on."""
    resume_hint = f"finished games are kept in {folder}; continue with: wtsim run --resume {folder}"
    try:
        yield
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", None) or signal_received() or signal.SIGINT
        what = "interrupted" if signum == signal.SIGINT else "terminated (SIGTERM)"
        click.echo(f"wtsim: {what}; {resume_hint}", err=True)
        sys.exit(128 + signum)
    except StrategyError as exc:
        click.echo(f"wtsim: strategy error: {one_line(str(exc))}; {resume_hint}", err=True)
        sys.exit(EXIT_STRATEGY_ERROR)
    except WorkerLost as exc:
        click.echo(f"wtsim: worker error: {one_line(str(exc))}; {resume_hint}", err=True)
        sys.exit(EXIT_STRATEGY_ERROR)
    except OutputError as exc:
        click.echo(f"wtsim: error: {one_line(str(exc))}; {resume_hint}", err=True)
        sys.exit(EXIT_USER_ERROR)


@cli.command()
@click.argument("results_dir", type=click.Path())
@click.option("--by", type=click.Choice(["player", "strategy", "seat"]), default="player", show_default=True,
              help="Group the tables by player name, strategy or seat.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the tables as CSV (each after a '# name' line).")
@click.option("--json", "as_json", is_flag=True, help="Print the tables as one JSON object.")
def summarize(results_dir: str, by: str, as_csv: bool, as_json: bool) -> None:
    """Print the tables of a finished run again, from its saved files.

    RESULTS_DIR is a run folder or any folder with a results table (`compare`,
    `plans --out`). Means carry 95% t intervals, rates Wilson intervals; the
    `pairs` table gives each pair of players' win rate and paired score
    difference over the games both played (for a compare folder, whose games
    are told apart by match, the table `wtsim compare` prints).

    Games that a strategy broke under `on_error: skip` are not in the tables;
    their count is printed (`errored_games` in --json) and errors.csv lists them.
    """
    if as_csv and as_json:
        fail("--csv and --json: choose one")
    tables = summary_tables(read_summary(results_dir, by), by, pairs=True)
    errored = _errored_games(Path(results_dir))
    if as_json:
        payload = json_tables(tables)
        click.echo(json.dumps({**payload, "errored_games": errored}, indent=2))
        return
    print_tables(tables, as_csv, as_json=False)
    if errored and as_csv:
        click.echo(f"# errored_games\n{errored}")
    elif errored:
        click.echo(f"\n{errored} errored games left out of the tables (listed in {ERRORS_FILE})")


def _errored_games(folder: Path) -> int:
    """Errored games of a run folder: the manifest's count, else the rows of errors.csv."""
    if not folder.is_dir():
        return 0
    count = read_manifest(folder).get("errors")
    return int(count) if isinstance(count, int) else len(read_errors(folder))


@cli.command()
@click.argument("results_dir", type=click.Path())
@click.option("--html", "fmt", flag_value="html", help="Write one self-contained report.html (figures embedded).")
@click.option("--md", "fmt", flag_value="md", default=True, help="Write report.md next to the PNG figures (default).")
@click.option("--out", "-o", type=click.Path(file_okay=False), help="Report folder (default RESULTS_DIR/report/; see below).")
@click.option("--by", type=click.Choice(["player", "strategy", "seat"]), default="player", show_default=True,
              help="Group the tables and figures by player name, strategy or seat.")
def report(results_dir: str, fmt: str, out: str | None, by: str) -> None:
    """Write a report of a run or analysis folder: tables with 95% intervals and figures (needs matplotlib).

    RESULTS_DIR is a run folder, a `compare`, `plans` or `sweep` --out folder,
    a `train` folder (only read; its report goes to
    results/<name>-training-report/ unless --out says otherwise) or a `tune`
    YAML file (its report goes to <file>-report/ beside it).

    \b
    Examples:
      wtsim report results/try
      wtsim report results/try --html --out /tmp/try-report
      wtsim report training/base --out /tmp/base-training
    """
    from .analysis.plots import PlotDependencyError
    from .analysis.report import write_report

    try:
        path = write_report(results_dir, fmt=fmt, out=out, by=by)
    except PlotDependencyError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{exc.filename or out or results_dir}: cannot write the report: {exc.strerror or exc}")
    click.echo(str(path))


def _record_lines(path: str) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of every non-blank line of a records file. An
    unreadable file, a line that is not UTF-8 or not JSON is a one-line user error."""
    try:
        with open(path, "rb") as handle:
            line_no = 0
            while True:
                raw = handle.readline(MAX_RECORD_BYTES + 1)
                if not raw:
                    return
                line_no += 1
                if len(raw) > MAX_RECORD_BYTES:
                    fail(f"{path}:{line_no}: a line longer than {MAX_RECORD_BYTES >> 20} MiB is not a game record")
                if raw.strip():
                    yield line_no, _parse_line(raw, f"{path}:{line_no}")
    except OSError as exc:
        fail(f"{path}: cannot read: {exc.strerror or exc}")


def _parse_line(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        fail(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start + 1})")
    except json.JSONDecodeError as exc:
        fail(f"{where}: not valid JSON: {exc.msg} (column {exc.colno})")
    except RecursionError:
        fail(f"{where}: not valid JSON: nested too deeply")
    except ValueError as exc:  # e.g. an integer of thousands of digits
        fail(f"{where}: not valid JSON: {' '.join(str(exc).split())[:120]}")


def _game_label(record: Any) -> str:
    game = record_index(record)
    return f"game {game}" if isinstance(game, int) and not isinstance(game, bool) else "game ?"


def _read_record(path: str, game: int) -> tuple[int, dict]:
    """The record of `game` and its line number."""
    for line_no, record in _record_lines(path):
        if isinstance(record, dict) and record_index(record) == game:
            return line_no, record
    fail(f"{path}: no record of game {game}")
    raise AssertionError  # unreachable


@cli.command()
@click.argument("records", type=click.Path(dir_okay=False))
@click.option("--game", "-g", type=int, required=True, help="Game index (the record's `game` field).")
@click.option("--turn", "-t", type=click.IntRange(min=0), help="Show the sheets after this turn (default: the end).")
def show(records: str, game: int, turn: int | None) -> None:
    """Render the sheets of a recorded game as text, at its end or after a turn."""
    line_no, record = _read_record(records, game)
    if record_game(record):
        _show_other(records, line_no, game, record, turn)
        return
    try:
        _show_record(record, turn)
    except RecordFormatError as exc:
        fail(f"{records}:{line_no}: game {game}: malformed record: {exc}")
    except ReplayError as exc:
        fail(f"{records}:{line_no}: game {game}: cannot be replayed: {exc}")


def _show_other(records: str, line_no: int, game: int, record: dict, turn: int | None) -> None:
    """`show` of another game's record: its boards after round `turn` (default: the end)."""
    try:
        click.echo(render_game_record(record, turn))
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        fail(f"{records}:{line_no}: game {game}: cannot be replayed: {exc}")


def _show_record(record: dict, turn: int | None) -> None:
    state = replay(record, until_turn=turn)
    plans = ", ".join(f"n°{p.deck} {p.id} {p.points[0]}/{p.points[1]}" for p in state.plans)
    click.echo(f"game {record['game']} (seed {record.get('seed')}), turn {state.turn}; plans: {plans}")
    for seat, sheet in enumerate(state.sheets):
        player = record["players"][seat]
        click.echo(f"\nseat {seat}: {player['name']} ({player['strategy']})")
        click.echo(render_sheet(sheet))
    if turn is None or turn >= record["end"]["turn"]:
        click.echo(f"\nend after turn {record['end']['turn']}: {', '.join(record['end']['reasons'])}")
        for entry in record["final"]:
            parts = " ".join(f"{k}={v}" for k, v in entry["score"].items() if k != "total")
            click.echo(f"seat {entry['seat']}: rank {entry['rank']}, total {entry['score']['total']} ({parts})")


@cli.command(name="verify")
@click.argument("records", type=click.Path(dir_okay=False))
def verify_cmd(records: str) -> None:
    """Replay every record of a records.jsonl file and check its final scores.

    Each record that disagrees with its replay gets one line per problem on
    stdout (FILE:LINE: game G: problem) and the exit code is 1. A line that is
    not a well-formed game record stops the check: one line on stderr, exit 2.
    """
    bad = checked = 0
    for line_no, record in _record_lines(records):
        try:
            problems = game_record_problems(record) if record_game(record) else disagreements(record)
        except RecordFormatError as exc:
            fail(f"{records}:{line_no}: {_game_label(record)}: malformed record: {exc}")
        checked += 1
        for problem in problems:
            click.echo(f"{records}:{line_no}: {_game_label(record)}: {problem}")
        bad += bool(problems)
    click.echo(f"{checked} records checked, {bad} with problems")
    if bad:
        sys.exit(1)


MAX_TEXT_WIDTH = 100
"""Printed text is wrapped at the terminal's width, and at most this wide."""


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: name -> ref, description, params.")
def strategies(as_json: bool) -> None:
    """List the registered strategies, what they do and their parameters.

    Parameters are shown as they are set inline (greedy:shortlist=6), nested
    ones with dotted keys, each with its default.
    """
    entries = strategy_entries()
    if as_json:
        click.echo(json.dumps(entries, indent=2))
        return
    width = min(MAX_TEXT_WIDTH, shutil.get_terminal_size().columns if sys.stdout.isatty() else MAX_TEXT_WIDTH)
    for name, entry in entries.items():
        click.echo(f"{name}  ({entry['ref']})")
        if "error" in entry:
            click.echo(f"    cannot load: {entry['error']}")
            continue
        click.echo(textwrap.fill(entry["description"], width, initial_indent="    ", subsequent_indent="    "))
        pairs = [f"{key}={json.dumps(value)}" for key, value in dotted(entry["params"])]
        if pairs:
            click.echo(textwrap.fill(" ".join(pairs), width, initial_indent="    params: ",
                                     subsequent_indent="            ", break_long_words=False))


@cli.command()
@click.argument("document", type=click.Choice(["record", "table"]))
def schema(document: str) -> None:
    """Print the format of game records or of the result table, as JSON.

    `record`: the JSON Schema (draft 2020-12) of one line of records.jsonl.
    `table`: the result table's columns in order with their pandas dtypes.
    Both carry their format version (docs/RECORDS.md).
    """
    from .schemas import record_schema, table_schema

    click.echo(json.dumps(record_schema() if document == "record" else table_schema(), indent=2))


def strategy_entries() -> dict[str, dict[str, Any]]:
    """Every registered strategy: its reference, the first paragraph of its
    docstring and its default parameters (or why it cannot be loaded)."""
    entries: dict[str, dict[str, Any]] = {}
    for name, ref in sorted(builtin_strategies().items()):
        try:
            cls = load_strategy(name)
        except StrategyLoadError as exc:
            entries[name] = {"ref": ref, "error": one_line(str(exc))}
            continue
        entries[name] = {"ref": ref, "description": strategy_description(cls), "params": cls.defaults}
    return entries


def strategy_description(cls: type) -> str:
    """The first paragraph of a strategy's docstring (its module's when the class
    has none), on one line, without a leading "`name`:" that repeats the name."""
    doc = cls.__doc__ or sys.modules[cls.__module__].__doc__ or ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    prefix = f"`{cls.name}`:"
    return paragraph[len(prefix):].strip() if paragraph.startswith(prefix) else paragraph


def dotted(params: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Nested parameters as (dotted key, value) pairs, the keys inline parameters take."""
    pairs: list[tuple[str, Any]] = []
    for key, value in params.items():
        if isinstance(value, dict) and value:
            pairs += dotted(value, f"{prefix}{key}.")
        else:
            pairs.append((f"{prefix}{key}", value))
    return pairs


from . import cli_analysis  # noqa: E402,F401  (registers compare, plans and sweep)
from . import cli_train  # noqa: E402,F401  (registers train)


def one_line(message: str) -> str:
    """Messages quote user input, which may hold line breaks; stderr gets one line."""
    return " ".join(message.splitlines())


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user errors become one line on stderr and exit code 2;
    SIGTERM is handled like Ctrl-C."""
    try:
        with interrupt_signals((signal.SIGINT, signal.SIGTERM)):
            cli.main(args=argv, prog_name="wtsim", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        signum = signal_received() or signal.SIGINT
        click.echo("wtsim: interrupted" if signum == signal.SIGINT else "wtsim: terminated (SIGTERM)", err=True)
        sys.exit(128 + signum)
    except click.ClickException as exc:
        click.echo(f"wtsim: error: {one_line(exc.format_message())}", err=True)
        sys.exit(EXIT_USER_ERROR)
    except USER_ERRORS as exc:
        click.echo(f"wtsim: error: {one_line(str(exc))}", err=True)
        sys.exit(EXIT_USER_ERROR)
    except StrategyError as exc:
        click.echo(f"wtsim: strategy error: {one_line(str(exc))}", err=True)
        sys.exit(EXIT_STRATEGY_ERROR)
    except WorkerLost as exc:
        click.echo(f"wtsim: worker error: {one_line(str(exc))}", err=True)
        sys.exit(EXIT_STRATEGY_ERROR)


if __name__ == "__main__":
    # `python -m welcometo_sim.cli`: run the module under its package name, the
    # one whose command group `cli_analysis` adds compare, plans and sweep to.
    from welcometo_sim.cli import main as package_main

    package_main()
