"""Result tables on disk: DataFrame types, Parquet/CSV files, run folders, manifests.

A run in progress keeps every finished chunk in ``chunks/`` (each file written
under a temporary name and renamed). A chunk's files are described last by a
hidden sidecar, ``.<start>-<stop>.json``: the run id, the game range, the row,
record and error counts, and every file's size and SHA-256. Only a chunk whose
sidecar matches its files and its run is complete; any other is played again.
At the end the chunks are streamed, in game order, into the final
``results.parquet|csv``, ``records.jsonl`` and ``errors.csv``, and the chunk
files are removed.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import yaml

from ..games import capabilities
from .chunks import ChunkResult
from .frames import encode_table, parquet_available, to_frame
from .rows import ERROR_COLUMNS, categories_of, dtypes_of, game_of_columns, table_columns_of

TABLE_STEM = "results"
RECORDS_FILE = "records.jsonl"
ERRORS_FILE = "errors.csv"
MANIFEST_FILE = "manifest.json"
CONFIG_FILE = "config.yaml"
CHUNKS_DIR = "chunks"
FORMATS = ("parquet", "csv")
ROWS_PER_GROUP = 65_536
CHUNK_FORMAT = "welcometo-sim/chunk/1"
OWNED_FILES = (MANIFEST_FILE, CONFIG_FILE, *(f"{TABLE_STEM}.{fmt}" for fmt in FORMATS), RECORDS_FILE,
               ERRORS_FILE)
"""The files of a run folder that a run writes (and may delete when it starts over)."""
CHUNK_FILE = re.compile(r"\.{0,2}\d+-\d+(\.parquet|\.csv|\.records\.jsonl|\.errors\.jsonl|\.json)(\.tmp)?")
"""The names of the files a run writes in chunks/ (temporary names included)."""


class ResultsError(ValueError):
    """A results folder or file that cannot be read."""


class OutputError(ResultsError):
    """An output file or folder that cannot be written (full disk, read-only or missing folder)."""


def output_error(path: str | os.PathLike, exc: OSError, what: str = "cannot write") -> OutputError:
    """One line for an OSError met while writing `path`."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.errno == errno.ENOSPC:
        reason = "no space left on the device"
    return OutputError(f"{exc.filename or path}: {what}: {reason}")


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
    if fmt == "parquet":
        write_atomically(path, lambda tmp: frame.to_parquet(tmp, index=False))
    else:
        write_atomically(path, lambda tmp: frame.to_csv(tmp, index=False))
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
        check_final_file(found[0])
        return found[0]
    if not path.is_file():
        raise ResultsError(f"{path}: no such results folder or file")
    check_final_file(path)
    return path


RUN_FORMAT = "welcometo-sim/run/1"
"""The `format` of a run folder's manifest."""
_CHECKED: dict[tuple[str, int, int], bool] = {}


def describe_final_files(folder: Path, names: list[str]) -> dict[str, dict]:
    """{name: {bytes, sha256}} of a finished run's final files, for its manifest."""
    described = {}
    for name in names:
        try:
            described[name] = {"bytes": (folder / name).stat().st_size, "sha256": _sha256(folder / name)}
        except OSError as exc:
            raise output_error(folder / name, exc, "cannot read back") from None
    return described


def check_final_file(path: Path) -> None:
    """Refuse a final file of a run folder whose size or SHA-256 is not the one
    its manifest recorded (a flipped bit or a cut file would otherwise be read
    as a smaller or wrong table). Files of folders whose manifest lists no
    checksum (analysis folders, runs of earlier versions) are left alone."""
    manifest = read_manifest(path.parent)
    listed = manifest.get("files") if manifest.get("format") == RUN_FORMAT else None
    listed = listed.get(path.name) if isinstance(listed, dict) else None
    if not isinstance(listed, dict):
        return
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
        if _CHECKED.get(key):
            return
        size, digest = stat.st_size, (_sha256(path) if stat.st_size == listed.get("bytes") else None)
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if size != listed.get("bytes"):
        problem = f"{size} bytes where the run wrote {listed.get('bytes')}"
    elif digest != listed.get("sha256"):
        problem = "its SHA-256 is not the one the run recorded"
    else:
        _CHECKED[key] = True
        return
    raise ResultsError(f"{path}: damaged ({problem} in {MANIFEST_FILE}); play the run again with: "
                       f"wtsim run {path.parent / CONFIG_FILE} --out {path.parent} --force")


def check_row_count(path: Path, rows: int) -> None:
    """Refuse a run's result table whose rows are not one per seat of every game
    that finished, as its manifest counts them (for runs whose manifest has no
    checksums, a table cut short is caught here)."""
    manifest = read_manifest(path.parent)
    games, errors, players = manifest.get("games"), manifest.get("errors"), manifest.get("players")
    if manifest.get("format") != RUN_FORMAT or manifest.get("status") != "finished" \
            or manifest.get("table") != path.name or not isinstance(games, int) \
            or not isinstance(errors, int) or not isinstance(players, list):
        return
    expected = (games - errors) * len(players)
    if rows != expected:
        raise ResultsError(f"{path}: damaged ({rows} rows where {MANIFEST_FILE} counts {games - errors} "
                           f"games of {len(players)} seats, {expected} rows)")


def read_table(folder: str | os.PathLike) -> pd.DataFrame:
    """Load the result table of a run folder (or a table file given directly)."""
    path = table_path(folder)
    _check_parquet_reader(path)
    try:
        if path.suffix == ".parquet":
            frame = pd.read_parquet(path)
        else:
            frame = pd.read_csv(path)
            for column, dtype in dtypes_of(game_of_columns(frame.columns)).items():
                if dtype == "Int16" and column in frame:  # nullable: a CSV reads them as floats
                    frame[column] = frame[column].astype("Int16")
    except Exception as exc:
        raise ResultsError(f"{path}: cannot read the result table: {exc}") from None
    missing = [c for c in table_columns_of(game_of_columns(frame.columns)) if c not in frame.columns]
    if missing:
        raise ResultsError(f"{path}: not a welcometo-sim result table (missing {', '.join(missing[:5])})")
    check_row_count(path, len(frame))
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
    text = json.dumps(payload, indent=2) + "\n"
    write_atomically(Path(path), lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_config(path: Path, config: dict) -> None:
    text = yaml.safe_dump(config, sort_keys=False, default_flow_style=None)
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_manifest(folder: str | os.PathLike) -> dict:
    path = Path(folder) / MANIFEST_FILE
    if not path.is_file():
        return {}
    try:
        manifest = read_small_json(path)
    except (OSError, ValueError, RecursionError) as exc:
        raise ResultsError(f"{path}: unreadable manifest: {exc}") from None
    if not isinstance(manifest, dict):
        raise ResultsError(f"{path}: unreadable manifest: not a JSON object")
    return manifest


def write_atomically(path: Path, write: Callable[[Path], Any]) -> None:
    """write(tmp) to a temporary name beside `path`, then rename: readers (and a
    resumed run) see the whole file or none of it. An OSError (a full disk, a
    read-only folder) removes the temporary file and becomes one OutputError line."""
    tmp = path.with_name("." + path.name + ".tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        if exc.filename is not None and os.fspath(exc.filename) == os.fspath(tmp):
            exc.filename = str(path)  # the file the user asked for, not its temporary name
        raise output_error(path, exc) from None


def read_errors(folder: str | os.PathLike) -> pd.DataFrame:
    """The errored games of a run folder (errors.csv), empty when there were none."""
    path = Path(folder) / ERRORS_FILE
    if not path.is_file():
        return pd.DataFrame({column: [] for column in ERROR_COLUMNS})
    check_final_file(path)
    try:
        return pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: cannot read the error list: {exc}") from None


MANIFEST_LIMIT = 1 << 20
"""Bytes of a manifest or chunk sidecar read at most (they hold a few hundred)."""


def read_small_json(path: Path, limit: int = MANIFEST_LIMIT) -> Any:
    """The JSON value of a small file; raises OSError or ValueError (too long, not JSON)."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"longer than {limit} bytes")
    return json.loads(data.decode("utf-8"))


class ChunkStore:
    """The finished chunks of a run in progress, in `<folder>/chunks/`: for
    chunk start..stop, `<start>-<stop>.parquet|csv`, when it has any,
    `.records.jsonl` and `.errors.jsonl` beside it, and last the sidecar
    `.<start>-<stop>.json` that makes it complete: the run id, the range, the
    counts, and the size and SHA-256 of every file of the chunk."""

    def __init__(self, folder: Path, fmt: str, games: int, run_id: str | None = None,
                 players: int | None = None, records: bool = False) -> None:
        self.folder = Path(folder)
        self.dir = self.folder / CHUNKS_DIR
        self.fmt = fmt
        self.width = len(str(games))
        self.run_id = run_id
        self.players = players
        self.records = records

    def _name(self, start: int, stop: int) -> str:
        return f"{start:0{self.width}d}-{stop:0{self.width}d}"

    def _path(self, start: int, stop: int, suffix: str) -> Path:
        return self.dir / f"{self._name(start, stop)}{suffix}"

    def table(self, start: int, stop: int) -> Path:
        return self._path(start, stop, f".{self.fmt}")

    def sidecar(self, start: int, stop: int) -> Path:
        return self.dir / f".{self._name(start, stop)}.json"

    def _files(self, start: int, stop: int) -> list[Path]:
        return [self.table(start, stop), self._path(start, stop, ".records.jsonl"),
                self._path(start, stop, ".errors.jsonl")]

    def is_done(self, start: int, stop: int) -> bool:
        return self.problem(start, stop) is None

    def exists(self, start: int, stop: int) -> bool:
        """Whether any file of the chunk is on disk (complete or not)."""
        return any(p.exists() for p in (self.sidecar(start, stop), *self._files(start, stop)))

    def problem(self, start: int, stop: int) -> str | None:
        """Why chunk start..stop cannot be trusted (None: it is complete and this run's)."""
        path = self.sidecar(start, stop)
        if not path.is_file():
            return "no sidecar" if any(p.exists() for p in self._files(start, stop)) else "missing"
        try:
            meta = read_small_json(path)
        except (OSError, ValueError) as exc:
            return f"unreadable sidecar ({exc})"
        if not isinstance(meta, dict) or meta.get("format") != CHUNK_FORMAT:
            return "not a chunk sidecar"
        if self.run_id is not None and meta.get("run") != self.run_id:
            return "written by another run"
        if meta.get("start") != start or meta.get("stop") != stop:
            return f"holds games {meta.get('start')}-{meta.get('stop')}"
        rows, records, errors = meta.get("rows"), meta.get("records"), meta.get("errors")
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (rows, records, errors)):
            return "bad counts in its sidecar"
        finished = stop - start - errors
        if finished < 0 or (self.players is not None and rows != finished * self.players):
            return f"{rows} rows for {finished} finished games"
        if self.records and records != finished:
            return f"{records} records for {finished} finished games"
        files = meta.get("files")
        if not isinstance(files, dict):
            return "bad file list in its sidecar"
        table = self.table(start, stop)
        if table.name not in files:
            return f"its sidecar does not list {table.name}"
        for path in self._files(start, stop):
            listed = files.get(path.name)
            if listed is None:
                if path.exists():
                    return f"{path.name} is not listed in its sidecar"
                continue
            if not isinstance(listed, dict):
                return "bad file list in its sidecar"
            try:
                size = path.stat().st_size
            except OSError:
                return f"{path.name} is missing"
            if size != listed.get("bytes"):
                return f"{path.name} has {size} bytes, not {listed.get('bytes')}"
            try:
                digest = _sha256(path)
            except OSError as exc:
                return f"{path.name} cannot be read ({exc.strerror or exc})"
            if digest != listed.get("sha256"):
                return f"{path.name} has another checksum"
        return None

    def discard(self, start: int, stop: int) -> None:
        """Remove every file of a chunk (its sidecar first), before it is played again."""
        for path in (self.sidecar(start, stop), *self._files(start, stop)):
            path.unlink(missing_ok=True)

    def write(self, chunk: ChunkResult) -> None:
        """Save a complete chunk; its sidecar goes last and marks it done."""
        if chunk.table_format not in (None, self.fmt):
            raise ValueError(f"chunk {chunk.start}-{chunk.stop} came as {chunk.table_format}, the run "
                             f"saves {self.fmt}")
        try:
            self.dir.mkdir(exist_ok=True)
            self.sidecar(chunk.start, chunk.stop).unlink(missing_ok=True)
        except OSError as exc:
            raise output_error(self.dir, exc) from None
        files: dict[str, dict] = {}
        records_path = self._path(chunk.start, chunk.stop, ".records.jsonl")
        self._write_lines(records_path, chunk.records, files)
        errors = [json.dumps(row) for row in chunk.errors]
        self._write_lines(self._path(chunk.start, chunk.stop, ".errors.jsonl"), errors, files)
        if chunk.table is not None:
            table, rows = chunk.table, chunk.rows
        else:
            table, rows = encode_table(chunk.columns, self.fmt), len(chunk.columns["game"])
        path = self.table(chunk.start, chunk.stop)
        write_atomically(path, lambda tmp: tmp.write_bytes(table))
        files[path.name] = _described(table)
        meta = {"format": CHUNK_FORMAT, "run": self.run_id, "start": chunk.start, "stop": chunk.stop,
                "rows": rows, "records": len(chunk.records), "errors": len(chunk.errors), "files": files}
        write_json(self.sidecar(chunk.start, chunk.stop), meta)

    @staticmethod
    def _write_lines(path: Path, lines: list[str], files: dict[str, dict]) -> None:
        if not lines:
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                raise output_error(path, exc) from None
            return
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        write_atomically(path, lambda tmp: tmp.write_bytes(data))
        files[path.name] = _described(data)

    def assemble(self, bounds: list[tuple[int, int]], records: bool) -> int:
        """Stream every chunk, in game order, into the run's final files; returns
        the number of errored games (written to errors.csv when there are any).
        Files of an earlier run or format that this run does not write are removed."""
        final = self.folder / f"{TABLE_STEM}.{self.fmt}"
        tables = [self.table(start, stop) for start, stop in bounds]
        if self.fmt == "parquet":
            write_atomically(final, lambda tmp: _concat_parquet(tables, tmp))
        else:
            write_atomically(final, lambda tmp: _concat_csv(tables, tmp))
        stale = [self.folder / f"{TABLE_STEM}.{fmt}" for fmt in FORMATS if fmt != self.fmt]
        if records:
            parts = [self._path(start, stop, ".records.jsonl") for start, stop in bounds]
            write_atomically(self.folder / RECORDS_FILE, lambda tmp: _concat_files(parts, tmp))
        else:
            stale.append(self.folder / RECORDS_FILE)
        for path in stale:
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                raise output_error(path, exc) from None
        errors = [self._path(start, stop, ".errors.jsonl") for start, stop in bounds]
        try:
            return _write_errors(errors, self.folder / ERRORS_FILE)
        except OSError as exc:
            raise output_error(self.folder / ERRORS_FILE, exc) from None

    def remove(self) -> None:
        """Delete the chunk files (only files a run writes), and `chunks/` once empty."""
        remove_chunk_files(self.folder)


def remove_chunk_files(folder: Path) -> None:
    """Delete the files a run writes in `folder/chunks/`, and the folder if nothing else is left."""
    chunks = Path(folder) / CHUNKS_DIR
    if not chunks.is_dir() or chunks.is_symlink():
        return
    for path in chunks.iterdir():
        if CHUNK_FILE.fullmatch(path.name) and (path.is_file() or path.is_symlink()):
            path.unlink(missing_ok=True)
    try:
        chunks.rmdir()
    except OSError:  # files of somebody else's are left where they are
        pass


def remove_owned_files(folder: Path) -> None:
    """Delete the files a run writes in `folder` (never other files), to start over."""
    folder = Path(folder)
    for name in OWNED_FILES:
        for path in (folder / name, folder / f".{name}.tmp"):
            if path.is_file() or path.is_symlink():
                path.unlink(missing_ok=True)
    remove_chunk_files(folder)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _described(data: bytes) -> dict:
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


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
    _check_parquet_reader(path)
    game = game_of_columns(_column_names(path))
    extra = capabilities(game).summary_columns
    columns = list(dict.fromkeys(["game", by, "total", "won", *categories_of(game), *extra]))
    try:
        if path.suffix == ".parquet":
            frame = _read_parquet_columns(path, columns)
        else:
            _check_columns(path, pd.read_csv(path, nrows=0).columns)
            frame = pd.read_csv(path, usecols=columns, dtype=_small_ints(columns))[columns]
    except ResultsError:
        raise
    except (OSError, ValueError, LookupError, TypeError, OverflowError) as exc:  # what a damaged file raises
        raise ResultsError(f"{path}: cannot read the result table: {type(exc).__name__}: {exc}") from None
    check_row_count(path, len(frame))
    return frame


def _column_names(path: Path) -> list[str]:
    """The column names of a result table file, without reading its rows."""
    try:
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq
            return list(pq.ParquetFile(path).schema_arrow.names)
        return list(pd.read_csv(path, nrows=0).columns)
    except (OSError, ValueError, LookupError, TypeError, OverflowError) as exc:
        raise ResultsError(f"{path}: cannot read the result table: {exc}") from None


def _small_ints(columns: list[str]) -> dict[str, str]:
    """Game numbers fit in int32 and points in int16."""
    small = {"game": "int32", "total": "int16",
             **{field: "int16" for field in categories_of(game_of_columns(columns))}}
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
    text = {c for c, dtype in dtypes_of(game_of_columns(schema.names)).items() if dtype == "str"}
    numbers = {c: np.empty(rows, dtype=small.get(c, schema.field(c).type.to_pandas_dtype()))
               for c in columns if c not in text}
    texts: dict[str, list] = {c: [] for c in columns if c in text}
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


def _check_parquet_reader(path: Path) -> None:
    if path.suffix == ".parquet" and not parquet_available():
        raise ResultsError(f"{path}: reading a Parquet table needs pyarrow: pip install 'welcometo-sim[parquet]'")


def _check_columns(path: Path, names: Any) -> None:
    missing = [c for c in table_columns_of(game_of_columns(names)) if c not in set(names)]
    if missing:
        raise ResultsError(f"{path}: not a welcometo-sim result table (missing {', '.join(missing[:5])})")
