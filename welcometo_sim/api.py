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

import os
import platform
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pandas as pd

from . import __version__
from .config import ConfigError, RunSpec, load_config
from .sim.results import (CONFIG_FILE, ERRORS_FILE, MANIFEST_FILE, RECORDS_FILE, ChunkStore,
                          ResultsError, choose_format, new_run_folder, read_errors, read_manifest,
                          read_table, to_frame, write_config, write_json)
from .sim.rows import ERROR_COLUMNS
from .sim.runner import (ChunkResult, check_backend, chunk_bounds, default_chunk_size, effective_jobs,
                         iter_chunks, release_workers, run_chunks)

DEFAULT_RESULTS_ROOT = Path("results")
RUN_FORMAT = "welcometo-sim/run/1"
Progress = Callable[[int], None]


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


def resolve_spec(config: str | os.PathLike | RunSpec | None = None, *, games: int | None = None,
                 seed: int | None = None, jobs: int | None = None, chunk_size: int | None = None,
                 on_error: str | None = None, move_timeout: float | None = None,
                 backend: str | None = None, scheduler: str | None = None) -> RunSpec:
    """A RunSpec from a config path (bundled default when None) plus overrides.
    A scheduler address implies the dask backend."""
    if jobs == 0:
        raise ConfigError("--jobs: must not be 0 (use 1, N, or -1 for all cores)")
    spec = config if isinstance(config, RunSpec) else load_config(config)
    if scheduler is not None and backend is None:
        backend = "dask"
    if backend == "loky" and scheduler is None:
        spec = replace(spec, scheduler=None)
    spec = spec.with_overrides(games=games, seed=seed, jobs=jobs, chunk_size=chunk_size,
                               on_error=on_error, move_timeout=move_timeout, backend=backend,
                               scheduler=scheduler)
    if spec.scheduler is not None and spec.backend != "dask":
        raise ConfigError(f"--scheduler {spec.scheduler}: needs --backend dask, not {spec.backend}")
    check_backend(spec)
    return spec


def run_folder(spec: RunSpec, out: str | os.PathLike | None = None) -> Path:
    """The output folder: `out`, or a new results/<name>-<timestamp>/."""
    if out is None:
        return new_run_folder(DEFAULT_RESULTS_ROOT, spec.name)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def execute(spec: RunSpec, out: str | os.PathLike | None = None, *, records: bool = False,
            fmt: str | None = None, save: bool = True, progress: Progress | None = None) -> RunOutput:
    """Play the run; when `save`, write table, config, manifest (and records) to
    `out` (default results/<name>-<timestamp>/), chunk by chunk, so that an
    interrupted run can be resumed. `progress(n)` is told of every n games finished."""
    if not save:
        return _run_in_memory(spec, progress)
    fmt = choose_format(fmt)
    folder = run_folder(spec, out)
    manifest = _start_manifest(spec, fmt, records)
    write_config(folder / CONFIG_FILE, spec.to_dict())
    write_json(folder / MANIFEST_FILE, manifest)
    return _play_to_folder(spec, folder, manifest, progress)


def resume(folder: str | os.PathLike, *, jobs: int | None = None, backend: str | None = None,
           scheduler: str | None = None, on_error: str | None = None,
           progress: Progress | None = None) -> RunOutput:
    """Finish the run saved in `folder`: play the chunks that are not on disk yet
    (same chunk bounds, same seeds), then write the final files. The tables
    equal an uninterrupted run's. A finished run is returned as it is (played=0)."""
    folder = Path(folder)
    manifest = resumable_manifest(folder)
    if manifest["status"] == "finished":
        return RunOutput(folder, manifest)
    spec = resolve_spec(folder / CONFIG_FILE, jobs=jobs, on_error=on_error, backend=backend,
                        scheduler=scheduler)
    if (spec.games, spec.seed) != (manifest["games"], manifest["seed"]):
        raise ResultsError(f"{folder}: {CONFIG_FILE} does not match {MANIFEST_FILE} (games or seed differ)")
    choose_format(manifest["table"].rpartition(".")[2])
    if spec.on_error != manifest.get("on_error"):
        write_config(folder / CONFIG_FILE, spec.to_dict())
    manifest.update(status="running", on_error=spec.on_error, backend=spec.backend,
                    sessions=manifest.get("sessions", 1) + 1)
    manifest.pop("failure", None)
    write_json(folder / MANIFEST_FILE, manifest)
    return _play_to_folder(spec, folder, manifest, progress)


def resumable_manifest(folder: Path) -> dict:
    """The manifest of a run folder that `resume` can continue (or has finished)."""
    manifest = read_manifest(folder) if folder.is_dir() else {}
    if manifest.get("format") != RUN_FORMAT or not (folder / CONFIG_FILE).is_file():
        raise ResultsError(f"{folder}: not a run folder (no {MANIFEST_FILE} and {CONFIG_FILE} "
                           f"written by wtsim run)")
    if manifest.get("status") is None and manifest.get("table") and (folder / manifest["table"]).is_file():
        manifest["status"] = "finished"
    if manifest.get("status") not in ("running", "failed", "finished") or "chunk_size" not in manifest:
        raise ResultsError(f"{folder}: this run cannot be resumed (its {MANIFEST_FILE} has no chunk state)")
    return manifest


def chunks_done(folder: str | os.PathLike) -> tuple[int, int]:
    """(games on disk, games in the run) of a run folder, for progress bars and messages."""
    folder = Path(folder)
    manifest = resumable_manifest(folder)
    if manifest["status"] == "finished":
        return manifest["games"], manifest["games"]
    store = ChunkStore(folder, manifest["table"].rpartition(".")[2], manifest["games"])
    bounds = chunk_bounds(manifest["games"], 1, manifest["chunk_size"])
    return sum(stop - start for start, stop in bounds if store.is_done(start, stop)), manifest["games"]


def _start_manifest(spec: RunSpec, fmt: str, records: bool) -> dict:
    """What a resumed run needs to continue exactly as it started, written before any game."""
    jobs = effective_jobs(spec.jobs)
    chunk_size = spec.chunk_size or default_chunk_size(spec.games, jobs)
    return {
        "format": RUN_FORMAT,
        "version": __version__,
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
    }


def _play_to_folder(spec: RunSpec, folder: Path, manifest: dict, progress: Progress | None) -> RunOutput:
    """Play the chunks missing from `folder`, saving each as it finishes, then
    assemble the final files. A strategy error under on_error fail marks the
    run failed and is raised after every finished chunk is on disk."""
    store = ChunkStore(folder, manifest["table"].rpartition(".")[2], spec.games)
    bounds = chunk_bounds(spec.games, 1, manifest["chunk_size"])
    todo = [(start, stop) for start, stop in bounds if not store.is_done(start, stop)]
    started = time.perf_counter()
    chunks = iter_chunks(spec, todo, record=manifest["records"] is not None, ordered=False,
                         table_format=store.fmt) if todo else ()
    for chunk in chunks:
        if chunk.failure is not None:
            manifest.update(status="failed", failure=str(chunk.failure))
            write_json(folder / MANIFEST_FILE, manifest)
            raise chunk.failure
        store.write(chunk)
        if progress is not None:
            progress(chunk.games)
    seconds = time.perf_counter() - started
    played = sum(stop - start for start, stop in todo)
    if todo and spec.backend != "dask" and effective_jobs(spec.jobs) > 1:
        release_workers()
    errors = store.assemble(bounds, records=manifest["records"] is not None)
    manifest.update(
        status="finished",
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


def run(config: str | os.PathLike | RunSpec | None = None, *, games: int | None = None,
        seed: int | None = None, jobs: int | None = None, out: str | os.PathLike | None = None,
        records: bool = False, save: bool = False, fmt: str | None = None) -> pd.DataFrame:
    """Run a config (the bundled default when None) and return the result table.
    Nothing is written unless `save` is true or `out` is given."""
    spec = resolve_spec(config, games=games, seed=seed, jobs=jobs)
    return execute(spec, out, records=records, fmt=fmt, save=save or out is not None).frame
