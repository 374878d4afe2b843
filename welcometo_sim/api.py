"""The library entry point: run a config, write its folder, return the table.

The command line calls exactly this; a notebook can too::

    import welcometo_sim
    frame = welcometo_sim.run("configs/base.yaml", games=500, seed=3)
    welcometo_sim.analysis.summary_tables(frame)["scores"]

A run written to a folder streams its chunks to ``chunks/`` as they finish
and keeps its state in ``manifest.json`` (``status``: running, failed or
finished), so :func:`resume` can play only the missing chunks after Ctrl-C,
a crash or a strategy error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from . import __version__
from .compiled_core import engine
from .config import RunSpec
from .sim.results import (CHUNK_FILE, CHUNKS_DIR, CONFIG_FILE, ERRORS_FILE, MANIFEST_FILE, OWNED_FILES, RECORDS_FILE,
                          RUN_FORMAT, ChunkStore, check_final_file, describe_final_files,
                          OutputError, ResultsError, choose_format, new_run_folder, output_error,
                          read_errors, read_manifest, read_table, remove_chunk_files, remove_owned_files,
                          to_frame, write_config, write_json)
from .sim.chunks import ChunkResult
from .sim.dependencies import changed_dependencies, run_dependencies
from .sim.isolated import WorkerLost
from .sim.rows import ERROR_COLUMNS
from .sim.runner import (chunk_bounds, default_chunk_size, effective_jobs,
                         iter_chunks, release_workers, run_chunks)
from .specs import load_spec, resolve_spec, ticking

DEFAULT_RESULTS_ROOT = Path("results")
Progress = Callable[[int], None]
Notify = Callable[[str], None]
POLICY_KEYS = ("jobs", "on_error", "backend", "scheduler", "chunk_size")
"""Config keys that do not change a run's games (the chunk size is fingerprinted as used)."""
log = logging.getLogger("welcometo_sim")


def run_fingerprint(spec: RunSpec, fmt: str, records: bool, chunk_size: int,
                    depends: Mapping[str, str] | None = None) -> str:
    """SHA-256 of what fixes a run's tables: the resolved config (without the keys
    that only say how it is played), seed, games, chunk size, table format,
    records, the program version, and the checksums of the files outside the
    program that its players depend on (`depends`, from run_dependencies;
    computed when None)."""
    config = {k: v for k, v in spec.to_dict().items() if k not in POLICY_KEYS}
    payload = {"config": config, "seed": spec.seed, "games": spec.games, "chunk_size": chunk_size,
               "table": fmt, "records": bool(records), "version": __version__}
    depends = run_dependencies(spec) if depends is None else depends
    if depends:  # absent when there are none, as in the fingerprints of earlier versions
        payload["depends"] = dict(depends)
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class RunOutput:
    """A run: its folder (None when nothing was written), its manifest, and its
    tables. A run written to disk reads its tables back on first use, so a
    million-game run does not have to fit in memory until someone asks."""

    def __init__(self, folder: Path | None, manifest: dict, frame: pd.DataFrame | None = None,
                 errors: pd.DataFrame | None = None, played: int = 0) -> None:
        self.folder = folder
        self.manifest = manifest
        self.played = played
        self._frame = frame
        self._errors = errors

    @property
    def frame(self) -> pd.DataFrame:
        """The result table (RECORDS.md §2), errored games left out."""
        if self._frame is None:
            self._frame = read_table(self.folder)
        return self._frame

    @property
    def errors(self) -> pd.DataFrame:
        """One row per errored game (on_error: skip): game, seed, seat, player, strategy, turn, message."""
        if self._errors is None:
            self._errors = read_errors(self.folder)
        return self._errors


def run_folder(spec: RunSpec, out: str | os.PathLike | None = None) -> Path:
    """The output folder: `out` (created if needed), or a new results/<name>-<timestamp>/."""
    if out is None:
        try:
            return new_run_folder(DEFAULT_RESULTS_ROOT, spec.name)
        except OSError as exc:
            raise output_error(DEFAULT_RESULTS_ROOT, exc, "cannot create the run folder") from None
    if not str(out).strip():
        raise ResultsError("--out: must be a folder path, got ''")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"--out {folder}: exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out {folder}: cannot create the folder: "
                          f"{exc.strerror or exc}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"--out {folder}: cannot write in this folder")
    return folder


@dataclass
class Prepared:
    """An output folder ready for a run: new or emptied (`manifest` None), or
    holding this very run already (`manifest` its manifest: finish or keep it)."""

    folder: Path
    manifest: dict | None = None


def prepare_folder(spec: RunSpec, out: str | os.PathLike | None, fmt: str, records: bool = False,
                   force: bool = False) -> Prepared:
    """The folder for a fresh run, refusing one that holds anything but this run.

    An empty (or new) folder is used as it is. A folder holding this same run
    (same fingerprint: config, seed, games, chunk size, format, records,
    version) is returned with its manifest, to be finished. Anything else is
    refused, unless `force`: then the files of a run folder are deleted (only
    the files a run writes) and a folder of other files is used beside them,
    as long as none has the name of a file the run writes."""
    folder = run_folder(spec, out)
    temporary = {f".{name}.tmp" for name in OWNED_FILES}
    try:
        entries = sorted(p.name for p in folder.iterdir())
        if entries and all(name in temporary for name in entries):  # a start killed while writing
            for name in entries:
                (folder / name).unlink()
            entries = []
    except OSError as exc:
        raise output_error(folder, exc, "cannot list the folder") from None
    if not entries:
        return Prepared(folder)
    try:
        manifest = read_manifest(folder)
    except ResultsError:
        manifest = {}
    is_run = manifest.get("format") == RUN_FORMAT
    if is_run and not force:
        chunk_size = spec.chunk_size or manifest.get("chunk_size")
        depends = run_dependencies(spec)
        if isinstance(chunk_size, int) and manifest.get("fingerprint") == run_fingerprint(
                spec, fmt, records, chunk_size, depends):
            if not (folder / CONFIG_FILE).is_file():  # stopped between the manifest and the config
                write_config(folder / CONFIG_FILE, spec.to_dict())
            return Prepared(folder, manifest)
        changes = changed_dependencies(manifest.get("depends"), depends)
        if changes and isinstance(chunk_size, int) and manifest.get("fingerprint") == run_fingerprint(
                spec, fmt, records, chunk_size, manifest.get("depends")):
            raise ResultsError(f"--out {folder}: holds this run, started before {changes[0]}; restore it "
                               f"to continue the run, or start it over there with --force")
        raise ResultsError(
            f"--out {folder}: holds another run ({manifest.get('name')!r}, seed {manifest.get('seed')}, "
            f"{manifest.get('games')} games, {manifest.get('status')}); choose another folder, "
            f"continue it with --resume {folder}, or start over there with --force")
    if is_run:
        try:
            remove_owned_files(folder)
        except OSError as exc:
            raise output_error(folder, exc, "cannot remove the old run") from None
        return Prepared(folder)
    if not force:
        raise ResultsError(f"--out {folder}: not empty and not a wtsim run folder; choose another folder "
                           f"(or --force to write beside its files)")
    taken = [name for name in OWNED_FILES if name in entries]
    chunks = folder / CHUNKS_DIR
    if chunks.is_dir():
        taken += [f"{CHUNKS_DIR}/{p.name}" for p in sorted(chunks.iterdir()) if CHUNK_FILE.fullmatch(p.name)]
    elif chunks.exists():
        taken.append(CHUNKS_DIR)
    if taken:
        raise ResultsError(f"--out {folder}: holds {taken[0]}, which wtsim did not write; "
                           f"choose another folder")
    return Prepared(folder)


def execute(spec: RunSpec, out: str | os.PathLike | None = None, *, records: bool = False,
            fmt: str | None = None, save: bool = True, progress: Progress | None = None,
            force: bool = False, notify: Notify | None = None) -> RunOutput:
    """Play the run; when `save`, write table, config, manifest (and records) to
    `out` (default results/<name>-<timestamp>/), chunk by chunk, so that an
    interrupted run can be resumed. `progress(n)` is told of every n games finished.

    `out` must be new, empty, or hold this same run (which is then finished,
    as by :func:`resume`); `force` starts over in a folder of another run
    (see :func:`prepare_folder`)."""
    if not save:
        return _run_in_memory(spec, progress)
    fmt = choose_format(fmt)
    prepared = prepare_folder(spec, out, fmt, records, force)
    folder = prepared.folder
    if prepared.manifest is not None:
        return resume(folder, jobs=spec.jobs, backend=spec.backend, scheduler=spec.scheduler,
                      on_error=spec.on_error, progress=progress, notify=notify)
    manifest = _start_manifest(spec, fmt, records)
    write_json(folder / MANIFEST_FILE, manifest)
    write_config(folder / CONFIG_FILE, spec.to_dict())
    return _play_to_folder(spec, folder, manifest, progress, notify)


def resume(folder: str | os.PathLike, *, jobs: int | None = None, backend: str | None = None,
           scheduler: str | None = None, on_error: str | None = None,
           progress: Progress | None = None, notify: Notify | None = None) -> RunOutput:
    """Finish the run saved in `folder`: check every chunk on disk against the
    run (id, game range, counts, checksums), play those that are missing or
    fail the check (same chunk bounds, same seeds; `notify` is told of every
    chunk played again), then write the final files. The tables equal an
    uninterrupted run's. A finished run is returned as it is (played=0)."""
    folder = Path(folder)
    manifest = resumable_manifest(folder)
    if manifest["status"] == "finished":
        check_final_file(folder / manifest["table"])
        remove_chunk_files(folder)
        return RunOutput(folder, manifest)
    spec = resolve_spec(folder / CONFIG_FILE, jobs=jobs, on_error=on_error, backend=backend,
                        scheduler=scheduler)
    if (spec.games, spec.seed) != (manifest["games"], manifest["seed"]):
        raise ResultsError(f"{folder}: {CONFIG_FILE} does not match {MANIFEST_FILE} (games or seed differ)")
    fmt = choose_format(manifest["table"].rpartition(".")[2])
    if manifest.get("version") != __version__:
        raise ResultsError(f"{folder}: the run was started by wtsim {manifest.get('version')}, this is "
                           f"{__version__}; finish it with that version or start it over with --force")
    depends = run_dependencies(spec)
    _check_dependencies(folder, manifest, depends)
    fingerprint = run_fingerprint(spec, fmt, manifest["records"] is not None, manifest["chunk_size"], depends)
    if manifest.get("fingerprint", fingerprint) != fingerprint:
        raise ResultsError(f"{folder}: {CONFIG_FILE} differs from the config the run started with "
                           f"(its fingerprint changed); restore it or start the run over with --force")
    if spec.on_error != manifest.get("on_error"):
        write_config(folder / CONFIG_FILE, spec.to_dict())
    manifest.setdefault("run_id", uuid.uuid4().hex)
    manifest["fingerprint"] = fingerprint
    if depends:
        manifest["depends"] = depends
    manifest.update(status="running", on_error=spec.on_error, backend=spec.backend,
                    sessions=manifest.get("sessions", 1) + 1)
    manifest.pop("failure", None)
    write_json(folder / MANIFEST_FILE, manifest)
    return _play_to_folder(spec, folder, manifest, progress, notify)


def _check_dependencies(folder: Path, manifest: dict, depends: dict[str, str]) -> None:
    """Refuse to finish a run whose strategy sources or data files are not those
    it started with: the table would hold two versions of a player under one name."""
    if "fingerprint" not in manifest:  # a run of a version before fingerprints: no identity to check
        return
    over = f"start it over with: wtsim run {folder / CONFIG_FILE} --out {folder} --force"
    if depends and "depends" not in manifest:
        raise ResultsError(f"{folder}: the run did not record the files its strategies depend on "
                           f"(started by an earlier wtsim), so it cannot be finished safely; {over}")
    changes = changed_dependencies(manifest.get("depends"), depends)
    if changes:
        raise ResultsError(f"{folder}: {changes[0]} since the run started (finishing it would mix two "
                           f"versions in one table); restore it, or {over}")


def resumable_manifest(folder: Path) -> dict:
    """The manifest of a run folder that `resume` can continue (or has finished)."""
    manifest = read_manifest(folder) if folder.is_dir() else {}
    if manifest.get("format") != RUN_FORMAT or not (folder / CONFIG_FILE).is_file():
        raise ResultsError(f"{folder}: not a run folder (no {MANIFEST_FILE} and {CONFIG_FILE} "
                           f"written by wtsim run)")
    if manifest.get("status") is None and manifest.get("table") and (folder / manifest["table"]).is_file():
        manifest["status"] = "finished"
    if manifest.get("status") not in ("running", "failed", "finished") or not _count(manifest.get("chunk_size")) \
            or not _count(manifest.get("games")) or not isinstance(manifest.get("seed"), int) \
            or not isinstance(manifest.get("table"), str) or manifest["table"].rpartition(".")[2] not in ("parquet", "csv") \
            or manifest.get("records") not in (None, RECORDS_FILE):
        raise ResultsError(f"{folder}: this run cannot be resumed (its {MANIFEST_FILE} has no chunk state)")
    return manifest


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def chunks_done(folder: str | os.PathLike) -> tuple[int, int]:
    """(games on disk, games in the run) of a run folder, for progress bars and messages."""
    folder = Path(folder)
    manifest = resumable_manifest(folder)
    if manifest["status"] == "finished":
        return manifest["games"], manifest["games"]
    store = ChunkStore(folder, manifest["table"].rpartition(".")[2], manifest["games"], manifest.get("run_id"))
    bounds = chunk_bounds(manifest["games"], 1, manifest["chunk_size"])
    return sum(stop - start for start, stop in bounds if store.sidecar(start, stop).is_file()), manifest["games"]


def _start_manifest(spec: RunSpec, fmt: str, records: bool) -> dict:
    """What a resumed run needs to continue exactly as it started, written before any game."""
    jobs = effective_jobs(spec.jobs)
    chunk_size = spec.chunk_size or default_chunk_size(spec.games, jobs)
    depends = run_dependencies(spec)
    return {
        "format": RUN_FORMAT,
        "version": __version__,
        "run_id": uuid.uuid4().hex,
        "fingerprint": run_fingerprint(spec, fmt, records, chunk_size, depends),
        "depends": depends,
        "status": "running",
        "name": spec.name,
        "config": spec.source,
        "seed": spec.seed,
        "games": spec.games,
        "players": [p.name for p in spec.players],
        "chunk_size": chunk_size,
        "chunks": len(chunk_bounds(spec.games, jobs, chunk_size)),
        "table": f"results.{fmt}",
        "records": RECORDS_FILE if records else None,
        "on_error": spec.on_error,
        "move_timeout": spec.move_timeout,
        "backend": spec.backend,
        "sessions": 1,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": platform.python_version(),
        "engine": engine(),
    }


def _play_to_folder(spec: RunSpec, folder: Path, manifest: dict, progress: Progress | None,
                    notify: Notify | None = None) -> RunOutput:
    """Play the chunks missing from `folder` or failing their check, saving each
    as it finishes, then assemble the final files. A strategy error under
    on_error fail marks the run failed and is raised after every finished
    chunk is on disk."""
    records = manifest["records"] is not None
    store = ChunkStore(folder, manifest["table"].rpartition(".")[2], spec.games, manifest["run_id"],
                       players=len(spec.players), records=records)
    bounds = chunk_bounds(spec.games, 1, manifest["chunk_size"])
    todo = []
    for start, stop in bounds:
        problem = store.problem(start, stop)
        if problem is None:
            continue
        todo.append((start, stop))
        if problem != "missing":
            (notify or log.warning)(f"chunk {start}-{stop} of {folder}: {problem}; playing it again")
            store.discard(start, stop)
    started = time.perf_counter()
    chunks = iter_chunks(spec, todo, record=records, ordered=False,
                         table_format=store.fmt) if todo else ()
    try:
        for chunk in chunks:
            if chunk.failure is not None:
                manifest.update(status="failed", failure=str(chunk.failure))
                write_json(folder / MANIFEST_FILE, manifest)
                raise chunk.failure
            store.write(chunk)
            if progress is not None:
                progress(chunk.games)
    except WorkerLost as exc:
        manifest.update(status="failed", failure=str(exc))
        write_json(folder / MANIFEST_FILE, manifest)
        raise
    seconds = time.perf_counter() - started
    played = sum(stop - start for start, stop in todo)
    if todo and spec.backend != "dask" and effective_jobs(spec.jobs) > 1:
        release_workers()
    errors = store.assemble(bounds, records=records)
    final = [manifest["table"], *([RECORDS_FILE] if records else []), *([ERRORS_FILE] if errors else [])]
    manifest.update(
        status="finished",
        files=describe_final_files(folder, final),
        jobs=effective_jobs(spec.jobs),
        errors=errors,
        errors_file=ERRORS_FILE if errors else None,
        wall_seconds=round(seconds, 3),
        games_per_second=round(played / seconds, 2) if seconds > 0 else None,
        finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    )
    write_json(folder / MANIFEST_FILE, manifest)
    store.remove()
    return RunOutput(folder, manifest, played=played)


def _run_in_memory(spec: RunSpec, progress: Progress | None) -> RunOutput:
    errors: list[dict] = []

    def on_chunk(chunk: ChunkResult) -> None:
        errors.extend(chunk.errors)
        if progress is not None:
            progress(chunk.games)

    columns, seconds = run_chunks(spec, on_chunk=on_chunk)
    jobs = effective_jobs(spec.jobs)
    manifest = {
        "format": RUN_FORMAT, "version": __version__, "status": "finished", "name": spec.name,
        "config": spec.source, "seed": spec.seed, "games": spec.games,
        "players": [p.name for p in spec.players], "jobs": jobs,
        "chunks": len(chunk_bounds(spec.games, jobs, spec.chunk_size)), "on_error": spec.on_error,
        "backend": spec.backend, "errors": len(errors), "wall_seconds": round(seconds, 3),
        "games_per_second": round(spec.games / seconds, 2) if seconds > 0 else None,
        "table": None, "records": None, "python": platform.python_version(),
    }
    error_frame = pd.DataFrame(errors, columns=ERROR_COLUMNS)
    return RunOutput(None, manifest, to_frame(columns), error_frame, played=spec.games)


def run(config: str | os.PathLike | Mapping[str, Any] | RunSpec | None = None, *,
        players: Sequence[str] | None = None, variant: Mapping[str, Any] | None = None,
        games: int | None = None, seed: int | None = None, jobs: int | None = None,
        out: str | os.PathLike | None = None, records: bool = False, save: bool = False,
        fmt: str | None = None, progress: Callable[[int, int], None] | bool | None = None) -> pd.DataFrame:
    """Run a config and return the result table; nothing is written unless
    `save` is true or `out` is given (then as `wtsim run` writes a folder).

    `config` is a path, a dict in the YAML schema (checked like a file: a bad
    key is the same ConfigError), a RunSpec, or None for the bundled base
    config. `players` (strategy references such as "greedy:shortlist=6") and
    `variant` (the YAML's `variant:` mapping, e.g. {"expert": True}) replace
    the config's; `games`, `seed` and `jobs` override it. `progress` is a
    callable(done, total) told of the games finished (first with 0), or True
    for a tqdm bar that suits a notebook.

    The table has one row per seat and game (docs/RECORDS.md §2): game,
    seed, seat, player, strategy, n_players; the variant (advanced, expert,
    solo, board) and the plans dealt (plan1..plan3); total, rank, won; one
    column per score category (plans, parks, pools, temps, estates, bonus,
    bis, roundabouts, refusals); plan1_turn..plan3_turn and
    plan1_first..plan3_first; estates_1..estates_6; the counts n_temps,
    n_bis, n_pools, n_parks, n_refusals, n_roundabouts; turns and end_reason.
    Another game has its own score columns. Games that a strategy broke
    under `on_error: skip` are left out."""
    spec = resolve_spec(load_spec(config, players=players, variant=variant), games=games, seed=seed, jobs=jobs)
    with ticking(spec.games, progress) as step:
        return execute(spec, out, records=records, fmt=fmt, save=save or out is not None, progress=step).frame
