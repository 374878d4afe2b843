"""The files outside the program that a run's games depend on, and their checksums.

A run is identified by its config, seed, games and program version (the
fingerprint in its manifest). That version covers the built-in strategies and
the shipped weights, but not a strategy loaded from a file or from a module
outside the package, nor a data file a strategy's parameters name (the
`weights=` of `learned`): editing one of them between a kill and `--resume`
would otherwise finish the run with another version of it, and the table
would mix two players under one name. The run records the SHA-256 of each
such file when it starts and refuses to continue when one has changed.

Only the file that defines a strategy's class is covered, not the modules
that file imports itself.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any, Iterator

import welcometo_sim
import welcometo_sim.strategies

from ..config import RunSpec
from ..strategy import load_strategy

MISSING = "missing"
"""The digest recorded for a file that cannot be read."""


def _program_folders() -> tuple[Path, ...]:
    """Where the program's own modules are (the package and its installed strategies)."""
    folders = [*welcometo_sim.__path__, *welcometo_sim.strategies.__path__]
    return tuple(Path(folder).resolve() for folder in folders)


def _strategy_source(ref: str) -> Path | None:
    """The source file of a strategy class loaded from outside the program, else None."""
    try:
        cls = load_strategy(ref)
    except Exception:  # noqa: BLE001 - a game's own registry name: part of the program
        return None
    source = getattr(sys.modules.get(cls.__module__), "__file__", None)
    if source is None:
        return None
    path = Path(source).resolve()
    if any(path.is_relative_to(folder) for folder in _program_folders()):
        return None
    return path


def _text_leaves(params: Any) -> Iterator[str]:
    if isinstance(params, dict):
        for value in params.values():
            yield from _text_leaves(value)
    elif isinstance(params, list):
        for value in params:
            yield from _text_leaves(value)
    elif isinstance(params, str) and params.strip():
        yield params


def _data_files(params: Any) -> list[Path]:
    """The parameters that name a regular file (a weights file, a table of values):
    whatever a strategy reads from them can change its play."""
    found = []
    for text in _text_leaves(params):
        path = Path(text)
        try:
            if path.is_file():
                found.append(path)
        except (OSError, ValueError):  # a name too long or with a NUL byte names no file
            continue
    return found


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, or MISSING when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return MISSING
    return digest.hexdigest()


def run_dependencies(spec: RunSpec) -> dict[str, str]:
    """{description: SHA-256} of the strategy sources and data files the run's
    players depend on beyond the program, e.g. {"strategy source /x/mine.py": "ab12..."}."""
    files: dict[str, Path] = {}
    for player in spec.players:
        ref = getattr(player.strategy, "ref", None)
        if spec.capabilities.strategy_files and isinstance(ref, str):
            source = _strategy_source(ref)
            if source is not None:
                files[f"strategy source {source}"] = source
        for path in _data_files(getattr(player.strategy, "params", {})):
            files[f"data file {path.resolve()}"] = path
    return {label: file_digest(path) for label, path in sorted(files.items())}


def changed_dependencies(recorded: Any, current: dict[str, str]) -> list[str]:
    """What differs between the files a run recorded and those it depends on now,
    one phrase each (e.g. "strategy source /x/mine.py changed")."""
    recorded = recorded if isinstance(recorded, dict) else {}
    changes = []
    for label in sorted(set(recorded) | set(current)):
        before, now = recorded.get(label), current.get(label)
        if before == now:
            continue
        if before is None:
            changes.append(f"{label} is new")
        elif now is None:
            changes.append(f"{label} is missing or no longer used")
        elif now == MISSING:
            changes.append(f"{label} cannot be read any more")
        else:
            changes.append(f"{label} changed")
    return changes
