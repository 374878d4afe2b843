"""`wtsim run` (and `--resume`), `summarize` and `report`: play a config into a
results folder and print or write its tables."""

from __future__ import annotations

import signal
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import click
import yaml

from ..analysis.tables import read_summary
from ..api import RunOutput, chunks_done, execute, prepare_folder, resolve_spec, resumable_manifest, resume
from ..config import MAX_GAMES, MAX_JOBS, MAX_SEED, MAX_YAML_BYTES, RunSpec, bounded_yaml, parse_config
from ..defaults import folder_mirror_note
from ..games.tables import summary_tables
from ..games.contract import StrategyError
from ..sim.guard import signal_received
from ..sim.isolated import WorkerLost
from ..sim.results import ERRORS_FILE, OutputError, ResultsError, choose_format, read_errors, read_manifest
from .common import (EXIT_STRATEGY_ERROR, EXIT_USER_ERROR, complete_config, fail, json_tables, json_text,
                     make_progress, notice, one_line, print_tables)


# What a resumed run keeps from its saved config and manifest (the options that would change the games).
RESUME_CONFLICTS = {"config": "CONFIG", "games": "--games", "seed": "--seed", "chunk_size": "--chunk-size",
                    "out": "--out", "records": "--records", "fmt": "--format", "move_timeout": "--move-timeout",
                    "force": "--force"}


STDIN = "-"
"""The CONFIG of `wtsim run -`: the config is read from standard input."""


@click.command()
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
        click.echo(json_text(run_document(output, shown.by)))
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
    _echo_mirror_note(output.folder)


def _echo_mirror_note(folder: Path) -> None:
    """Says so when the run's seats play mirror games (identical deterministic
    seats seeing the same cards), so that nobody reads its ties as a result."""
    note = folder_mirror_note(folder)
    if note:
        click.echo(note)


@contextmanager
def _progress_bar(total: int, done: int, quiet: bool) -> Iterator[Callable[[int], None] | None]:
    progress, bar = make_progress(total, quiet)
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
    hint = f"finished games are kept in {folder}; continue with: wtsim run --resume {folder}"
    try:
        yield
    except (KeyboardInterrupt, StrategyError, WorkerLost, OutputError) as exc:
        _stopped(exc, hint if _resumable(folder) else None)


def _resumable(folder: Path) -> bool:
    """Whether `wtsim run --resume folder` can continue the run (a start stopped
    before its manifest was written, e.g. on a full disk, left none)."""
    try:
        resumable_manifest(folder)
    except ResultsError:
        return False
    return True


def _stopped(exc: BaseException, resume_hint: str | None) -> None:
    """The one line and exit code of a run stopped by a signal, a strategy, a lost
    worker or a write that failed; the hint says how to go on when there is a run to continue."""
    after = f"; {resume_hint}" if resume_hint else ""
    if isinstance(exc, KeyboardInterrupt):
        signum = getattr(exc, "signum", None) or signal_received() or signal.SIGINT
        what = "interrupted" if signum == signal.SIGINT else "terminated (SIGTERM)"
        click.echo(f"wtsim: {what}{after}", err=True)
        sys.exit(128 + signum)
    for kind, error, code in (("strategy error", StrategyError, EXIT_STRATEGY_ERROR),
                              ("worker error", WorkerLost, EXIT_STRATEGY_ERROR), ("error", OutputError, EXIT_USER_ERROR)):
        if isinstance(exc, error):
            click.echo(f"wtsim: {kind}: {one_line(str(exc))}{after}", err=True)
            sys.exit(code)
    raise exc


@click.command()
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
        click.echo(json_text({**payload, "errored_games": errored}))
        return
    print_tables(tables, as_csv, as_json=False)
    if not as_csv:
        _echo_mirror_note(Path(results_dir))
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


@click.command()
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
    # Loaded here, not with the module: the report's figures and pages add about a
    # fifth to the start-up of every other command.
    from ..analysis.plots import PlotDependencyError
    from ..analysis.report import write_report

    try:
        path = write_report(results_dir, fmt=fmt, out=out, by=by)
    except PlotDependencyError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{exc.filename or out or results_dir}: cannot write the report: {exc.strerror or exc}")
    click.echo(str(path))
