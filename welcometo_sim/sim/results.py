"""Result tables on disk: DataFrame types, Parquet/CSV files, run folders, manifests.

A run in progress keeps every finished chunk in ``chunks/`` (each file written
under a temporary name and renamed, the table last, so a chunk whose table
exists is complete). At the end the chunks are streamed, in game order, into
the final ``results.parquet|csv``, ``records.jsonl`` and ``errors.csv``, and
the ``chunks/`` folder is removed.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import pandas as pd
import yaml

from ..rules.scoring import SCORE_FIELDS
from .rows import COLUMNS, ERROR_COLUMNS, PLAN_TURN_COLUMNS, TEXT_COLUMNS, column_dtypes

if TYPE_CHECKING:
    from .runner import ChunkResult

TABLE_STEM = "results"
RECORDS_FILE = "records.jsonl"
ERRORS_FILE = "errors.csv"
MANIFEST_FILE = "manifest.json"
CONFIG_FILE = "config.yaml"
CHUNKS_DIR = "chunks"
FORMATS = ("parquet", "csv")
ROWS_PER_GROUP = 65_536


class ResultsError(ValueError):
    """A results folder or file that cannot be read."""


def to_frame(columns: dict[str, list]) -> pd.DataFrame:
    """Columns from the runner -> the typed result table (plan turns nullable)."""
    frame = pd.DataFrame({name: columns[name] for name in COLUMNS})
    for column in PLAN_TURN_COLUMNS:
        frame[column] = pd.array(columns[column], dtype="Int16")
    return frame.astype(column_dtypes())


def encode_table(columns: dict[str, list], fmt: str) -> bytes:
    """The bytes of a chunk's table file in format `fmt`, the same on every
    machine (Parquet through pyarrow, CSV lines ending in \\n). Workers encode
    their own chunks, so the parent only writes the bytes and renames the
    file: its CPU time would otherwise be taken from the workers playing
    beside it."""
    frame = to_frame(columns)
    if fmt == "parquet":
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False, engine="pyarrow")
        return buffer.getvalue()
    return frame.to_csv(index=False, lineterminator="\n").encode("utf-8")


def parquet_available() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def choose_format(requested: str | None) -> str:
    """'parquet' when pyarrow is installed, else 'csv'; a request is honoured or refused."""
    if requested is None:
        return "parquet" if parquet_available() else "csv"
    if requested not in FORMATS:
        raise ResultsError(f"--format: {requested!r} is not one of {', '.join(FORMATS)}")
    if requested == "parquet" and not parquet_available():
        raise ResultsError("--format parquet needs pyarrow: pip install 'welcometo-sim[parquet]'")
    return requested


def write_table(frame: pd.DataFrame, folder: Path, fmt: str) -> Path:
    """Write the table atomically (temporary file, then rename)."""
    path = folder / f"{TABLE_STEM}.{fmt}"
    tmp = folder / f".{TABLE_STEM}.{fmt}.tmp"
    if fmt == "parquet":
        frame.to_parquet(tmp, index=False)
    else:
        frame.to_csv(tmp, index=False)
    os.replace(tmp, path)
    return path


def table_path(folder: str | os.PathLike) -> Path:
    """The result table of a run folder (or a table file given directly)."""
    path = Path(folder)
    if path.is_dir():
        candidates = [path / f"{TABLE_STEM}.{fmt}" for fmt in FORMATS]
        found = [p for p in candidates if p.is_file()]
        if not found:
            status = read_manifest(path).get("status")
            if status in ("running", "failed"):
                raise ResultsError(f"{path}: the run is not finished ({status}); "
                                   f"finish it with: wtsim run --resume {path}")
            raise ResultsError(f"{path}: no {TABLE_STEM}.parquet or {TABLE_STEM}.csv in this folder")
        return found[0]
    if not path.is_file():
        raise ResultsError(f"{path}: no such results folder or file")
    return path


def read_table(folder: str | os.PathLike) -> pd.DataFrame:
    """Load the result table of a run folder (or a table file given directly)."""
    path = table_path(folder)
    try:
        if path.suffix == ".parquet":
            frame = pd.read_parquet(path)
        else:
            frame = pd.read_csv(path)
            for column in PLAN_TURN_COLUMNS:
                if column in frame:
                    frame[column] = frame[column].astype("Int16")
    except Exception as exc:
        raise ResultsError(f"{path}: cannot read the result table: {exc}") from None
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ResultsError(f"{path}: not a welcometo-sim result table (missing {', '.join(missing[:5])})")
    return frame


def new_run_folder(root: Path, name: str) -> Path:
    """results/<name>-<timestamp>/, with a counter if that exists already."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = root / f"{name}-{stamp}"
    n = 1
    while folder.exists():
        n += 1
        folder = root / f"{name}-{stamp}-{n}"
    folder.mkdir(parents=True)
    return folder


def write_json(path: Path, payload: Any) -> None:
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def write_config(path: Path, config: dict) -> None:
    text = yaml.safe_dump(config, sort_keys=False, default_flow_style=None)
    _write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_manifest(folder: str | os.PathLike) -> dict:
    path = Path(folder) / MANIFEST_FILE
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: unreadable manifest: {exc}") from None


def _write_atomically(path: Path, write: Callable[[Path], Any]) -> None:
    """write(tmp) to a temporary name beside `path`, then rename: readers (and a
    resumed run) see the whole file or none of it."""
    tmp = path.with_name("." + path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


def read_errors(folder: str | os.PathLike) -> pd.DataFrame:
    """The errored games of a run folder (errors.csv), empty when there were none."""
    path = Path(folder) / ERRORS_FILE
    if not path.is_file():
        return pd.DataFrame({column: [] for column in ERROR_COLUMNS})
    try:
        return pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: cannot read the error list: {exc}") from None


class ChunkStore:
    """The finished chunks of a run in progress, in `<folder>/chunks/`: for
    chunk start..stop, `<start>-<stop>.parquet|csv`, and when it has any,
    `.records.jsonl` and `.errors.jsonl` beside it."""

    def __init__(self, folder: Path, fmt: str, games: int) -> None:
        self.folder = Path(folder)
        self.dir = self.folder / CHUNKS_DIR
        self.fmt = fmt
        self.width = len(str(games))

    def _path(self, start: int, stop: int, suffix: str) -> Path:
        return self.dir / f"{start:0{self.width}d}-{stop:0{self.width}d}{suffix}"

    def table(self, start: int, stop: int) -> Path:
        return self._path(start, stop, f".{self.fmt}")

    def is_done(self, start: int, stop: int) -> bool:
        return self.table(start, stop).is_file()

    def write(self, chunk: "ChunkResult") -> None:
        """Save a complete chunk; its table goes last and marks it done."""
        self.dir.mkdir(exist_ok=True)
        self._write_lines(self._path(chunk.start, chunk.stop, ".records.jsonl"), chunk.records)
        errors = [json.dumps(row) for row in chunk.errors]
        self._write_lines(self._path(chunk.start, chunk.stop, ".errors.jsonl"), errors)
        if chunk.table_format not in (None, self.fmt):
            raise ValueError(f"chunk {chunk.start}-{chunk.stop} came as {chunk.table_format}, the run "
                             f"saves {self.fmt}")
        table = chunk.table if chunk.table is not None else encode_table(chunk.columns, self.fmt)
        _write_atomically(self.table(chunk.start, chunk.stop), lambda tmp: tmp.write_bytes(table))

    @staticmethod
    def _write_lines(path: Path, lines: list[str]) -> None:
        if not lines:
            path.unlink(missing_ok=True)
            return
        _write_atomically(path, lambda tmp: tmp.write_text("".join(line + "\n" for line in lines),
                                                           encoding="utf-8"))

    def assemble(self, bounds: list[tuple[int, int]], records: bool) -> int:
        """Stream every chunk, in game order, into the run's final files; returns
        the number of errored games (written to errors.csv when there are any)."""
        final = self.folder / f"{TABLE_STEM}.{self.fmt}"
        tables = [self.table(start, stop) for start, stop in bounds]
        if self.fmt == "parquet":
            _write_atomically(final, lambda tmp: _concat_parquet(tables, tmp))
        else:
            _write_atomically(final, lambda tmp: _concat_csv(tables, tmp))
        if records:
            parts = [self._path(start, stop, ".records.jsonl") for start, stop in bounds]
            _write_atomically(self.folder / RECORDS_FILE, lambda tmp: _concat_files(parts, tmp))
        errors = [self._path(start, stop, ".errors.jsonl") for start, stop in bounds]
        return _write_errors(errors, self.folder / ERRORS_FILE)

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def _concat_parquet(parts: list[Path], target: Path) -> None:
    """One Parquet file from many, a bounded number of rows in memory at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    pending: list[pa.Table] = []

    def flush() -> None:
        nonlocal writer
        table = pa.concat_tables(pending)
        if writer is None:
            writer = pq.ParquetWriter(target, table.schema)
        writer.write_table(table)
        pending.clear()

    schema = None
    for part in parts:
        table = pq.read_table(part)
        if schema is None:
            schema = table.schema
        elif not table.schema.equals(schema):  # e.g. a cluster worker with another pandas: same columns
            table = table.cast(schema)
        pending.append(table)
        if sum(t.num_rows for t in pending) >= ROWS_PER_GROUP:
            flush()
    if pending:
        flush()
    if writer is not None:
        writer.close()


def _concat_csv(parts: list[Path], target: Path) -> None:
    """One CSV from many: the first part's header, then every part's rows."""
    with open(target, "wb") as out:
        for number, part in enumerate(parts):
            with open(part, "rb") as source:
                if number:
                    source.readline()
                shutil.copyfileobj(source, out)


def _concat_files(parts: list[Path], target: Path) -> None:
    with open(target, "wb") as out:
        for part in parts:
            if part.is_file():
                with open(part, "rb") as source:
                    shutil.copyfileobj(source, out)


def _write_errors(parts: list[Path], target: Path) -> int:
    """errors.csv from the chunks' error lines; no file when no game errored."""
    rows = (json.loads(line) for part in parts if part.is_file()
            for line in part.read_text(encoding="utf-8").splitlines())
    count = 0
    tmp = target.with_name("." + target.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=ERROR_COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow(row)
            count += 1
    if count:
        os.replace(tmp, target)
    else:
        tmp.unlink()
        target.unlink(missing_ok=True)
    return count


def read_summary_frame(folder: str | os.PathLike, by: str = "player") -> pd.DataFrame:
    """The columns the summary tables need, with small integer types, read a
    batch at a time into preallocated arrays: summarising a million-game run
    needs about 60 MB for the table instead of a gigabyte."""
    path = table_path(folder)
    columns = list(dict.fromkeys(["game", by, "total", "won", *SCORE_FIELDS, "end_reason"]))
    try:
        if path.suffix == ".parquet":
            return _read_parquet_columns(path, columns)
        _check_columns(path, pd.read_csv(path, nrows=0).columns)
        return pd.read_csv(path, usecols=columns, dtype=_small_ints(columns))[columns]
    except ResultsError:
        raise
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: cannot read the result table: {exc}") from None


def _small_ints(columns: list[str]) -> dict[str, str]:
    """Game numbers fit in int32 and points in int16."""
    small = {"game": "int32", "total": "int16", **{field: "int16" for field in SCORE_FIELDS}}
    return {column: small[column] for column in columns if column in small}


def _read_parquet_columns(path: Path, columns: list[str]) -> pd.DataFrame:
    """Numbers copied batch by batch into arrays of the final size (no concatenation
    of copies); text kept as Arrow chunks and converted once."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    table_file = pq.ParquetFile(path)
    schema = table_file.schema_arrow
    _check_columns(path, schema.names)
    rows, small = table_file.metadata.num_rows, _small_ints(columns)
    numbers = {c: np.empty(rows, dtype=small.get(c, schema.field(c).type.to_pandas_dtype()))
               for c in columns if c not in TEXT_COLUMNS}
    texts: dict[str, list] = {c: [] for c in columns if c in TEXT_COLUMNS}
    start = 0
    for batch in table_file.iter_batches(batch_size=ROWS_PER_GROUP, columns=columns):
        stop = start + batch.num_rows
        for column, values in numbers.items():
            values[start:stop] = batch.column(column).to_numpy(zero_copy_only=False)
        for column, chunks in texts.items():
            chunks.append(batch.column(column))
        start = stop
    frame = pd.DataFrame(numbers)
    for column, chunks in texts.items():
        frame[column] = pa.chunked_array(chunks, type=schema.field(column).type).to_pandas()
    pa.default_memory_pool().release_unused()
    return frame[columns]


def _check_columns(path: Path, names: Any) -> None:
    missing = [c for c in COLUMNS if c not in set(names)]
    if missing:
        raise ResultsError(f"{path}: not a welcometo-sim result table (missing {', '.join(missing[:5])})")
