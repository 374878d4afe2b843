"""The library entry point: run a config, write its folder, return the table.

The command line calls exactly this; a notebook can too::

    import welcometo_sim
    frame = welcometo_sim.run("configs/base.yaml", games=500, seed=3)
    welcometo_sim.analysis.summary_tables(frame)["scores"]
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from . import __version__
from .config import ConfigError, RunSpec, load_config
from .sim.results import (CONFIG_FILE, MANIFEST_FILE, RECORDS_FILE, choose_format, new_run_folder,
                          to_frame, write_config, write_json, write_table)
from .sim.runner import ChunkResult, chunk_bounds, effective_jobs, run_chunks

DEFAULT_RESULTS_ROOT = Path("results")


@dataclass
class RunOutput:
    """A finished run: its table, where it was written, and its manifest."""

    frame: pd.DataFrame
    folder: Path | None
    manifest: dict


def resolve_spec(config: str | os.PathLike | RunSpec | None = None, *, games: int | None = None,
                 seed: int | None = None, jobs: int | None = None,
                 chunk_size: int | None = None) -> RunSpec:
    """A RunSpec from a config path (bundled default when None) plus overrides."""
    if jobs == 0:
        raise ConfigError("--jobs: must not be 0 (use 1, N, or -1 for all cores)")
    spec = config if isinstance(config, RunSpec) else load_config(config)
    return spec.with_overrides(games=games, seed=seed, jobs=jobs, chunk_size=chunk_size)


def execute(spec: RunSpec, out: str | os.PathLike | None = None, *, records: bool = False,
            fmt: str | None = None, save: bool = True,
            progress: Callable[[int], None] | None = None) -> RunOutput:
    """Play the run; when `save`, write table, config, manifest (and records) to
    `out` (default results/<name>-<timestamp>/). `progress(n)` is told of every
    n games finished."""
    fmt = choose_format(fmt) if save else None
    folder = None
    if save:
        folder = Path(out) if out is not None else new_run_folder(DEFAULT_RESULTS_ROOT, spec.name)
        folder.mkdir(parents=True, exist_ok=True)
        write_config(folder / CONFIG_FILE, spec.to_dict())
    records_file = open(folder / RECORDS_FILE, "w", encoding="utf-8") if (records and folder) else None

    def on_chunk(chunk: ChunkResult) -> None:
        if records_file is not None:
            records_file.writelines(line + "\n" for line in chunk.records)
        if progress is not None:
            progress(chunk.stop - chunk.start)

    try:
        columns, seconds = run_chunks(spec, record=records_file is not None, on_chunk=on_chunk)
    finally:
        if records_file is not None:
            records_file.close()
    frame = to_frame(columns)
    jobs = effective_jobs(spec.jobs)
    manifest = {
        "format": "welcometo-sim/run/1",
        "version": __version__,
        "name": spec.name,
        "config": spec.source,
        "seed": spec.seed,
        "games": spec.games,
        "players": [p.name for p in spec.players],
        "jobs": jobs,
        "chunks": len(chunk_bounds(spec.games, jobs, spec.chunk_size)),
        "wall_seconds": round(seconds, 3),
        "games_per_second": round(spec.games / seconds, 2) if seconds > 0 else None,
        "table": f"results.{fmt}" if fmt else None,
        "records": RECORDS_FILE if records_file is not None else None,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": platform.python_version(),
    }
    if folder is not None and fmt is not None:
        write_table(frame, folder, fmt)
        write_json(folder / MANIFEST_FILE, manifest)
    return RunOutput(frame, folder, manifest)


def run(config: str | os.PathLike | RunSpec | None = None, *, games: int | None = None,
        seed: int | None = None, jobs: int | None = None, out: str | os.PathLike | None = None,
        records: bool = False, save: bool = False, fmt: str | None = None) -> pd.DataFrame:
    """Run a config (the bundled default when None) and return the result table.
    Nothing is written unless `save` is true or `out` is given."""
    spec = resolve_spec(config, games=games, seed=seed, jobs=jobs)
    return execute(spec, out, records=records, fmt=fmt, save=save or out is not None).frame
