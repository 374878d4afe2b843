"""Result tables on disk: DataFrame types, Parquet/CSV files, run folders, manifests."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from .rows import COLUMNS, PLAN_TURN_COLUMNS

TABLE_STEM = "results"
RECORDS_FILE = "records.jsonl"
MANIFEST_FILE = "manifest.json"
CONFIG_FILE = "config.yaml"
FORMATS = ("parquet", "csv")


class ResultsError(ValueError):
    """A results folder or file that cannot be read."""


def to_frame(columns: dict[str, list]) -> pd.DataFrame:
    """Columns from the runner -> the typed result table (plan turns nullable)."""
    frame = pd.DataFrame({name: columns[name] for name in COLUMNS})
    for column in PLAN_TURN_COLUMNS:
        frame[column] = pd.array(columns[column], dtype="Int16")
    for column in ("player", "strategy", "board", "plan1", "plan2", "plan3", "end_reason"):
        frame[column] = frame[column].astype(str)
    return frame


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


def read_table(folder: str | os.PathLike) -> pd.DataFrame:
    """Load the result table of a run folder (or a table file given directly)."""
    path = Path(folder)
    if path.is_dir():
        candidates = [path / f"{TABLE_STEM}.{fmt}" for fmt in FORMATS]
        found = [p for p in candidates if p.is_file()]
        if not found:
            raise ResultsError(f"{path}: no {TABLE_STEM}.parquet or {TABLE_STEM}.csv in this folder")
        path = found[0]
    elif not path.is_file():
        raise ResultsError(f"{path}: no such results folder or file")
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
    path.write_text(yaml.safe_dump(config, sort_keys=False, default_flow_style=None), encoding="utf-8")


def read_manifest(folder: str | os.PathLike) -> dict:
    path = Path(folder) / MANIFEST_FILE
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: unreadable manifest: {exc}") from None
