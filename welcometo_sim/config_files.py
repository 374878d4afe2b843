"""Reading what a config is made of, for every game: bounded YAML, params
files and player entries, each problem one :class:`ConfigError` line.

The bottom of the config layer: the run config (:mod:`welcometo_sim.config`),
the configs of other games (:mod:`welcometo_sim.games.config`) and strategy
parameters given inline (:mod:`welcometo_sim.strategy`) all read through it,
and it imports none of them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MAX_YAML_BYTES = 1 << 20
"""Bytes of a config or params_file read at most."""
MAX_YAML_NODES = 100_000
"""YAML nodes of a document at most, every alias counted as often as it is used."""
PARAMS_FILE_KEYS = {"strategy", "params", "tuning"}
"""Keys of a params_file (as `wtsim tune` writes it)."""


class ConfigError(ValueError):
    """A configuration problem, already phrased as one line for the user."""


@dataclass(frozen=True)
class PlayerConfig:
    """A seat of a config: its display name and its strategy (a StrategySpec of
    Welcome To, or a GameStrategy of another game)."""

    name: str
    strategy: Any


class BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing documents that would expand to more than
    MAX_YAML_NODES nodes through aliases (a few hundred bytes of "billion
    laughs" otherwise make every later walk over the value hang), whose
    aliases refer to themselves, or with a mapping that repeats a key (plain
    PyYAML keeps the last value silently). Keys brought in by a merge
    (`<<: *base`) may be overridden, as YAML intends."""

    def compose_document(self) -> Any:
        node = super().compose_document()
        _check_expansion(node)
        return node


def _check_expansion(root: Any, limit: int = MAX_YAML_NODES) -> None:
    """Count the nodes of `root` as if every alias were copied out (each shared
    node's size is computed once)."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            if total > limit:
                raise yaml.YAMLError(f"the document expands to more than {limit} values (aliases)")
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise yaml.YAMLError("an alias refers to the value that contains it")
        if isinstance(node, yaml.MappingNode):
            _check_duplicate_keys(node)
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise yaml.YAMLError("an alias refers to the value that contains it")
            if id(child) not in sizes:
                stack.append((child, False))


MERGE_TAG = "tag:yaml.org,2002:merge"


def _check_duplicate_keys(node: yaml.MappingNode) -> None:
    """A ConstructorError at the second of two equal plain keys of a mapping."""
    seen: set[tuple[str, str]] = set()
    for key_node, _value in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == MERGE_TAG:
            continue
        key = (key_node.tag, key_node.value)
        if key in seen:
            label = repr(key_node.value)
            if len(label) > 80:
                label = label[:77] + "..."
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {label}", key_node.start_mark)
        seen.add(key)


def _children(node: Any) -> list:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def bounded_yaml(text: str) -> Any:
    """yaml.safe_load with the bounds of BoundedLoader."""
    loader = BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def read_bounded(path: Path, limit: int = MAX_YAML_BYTES) -> bytes:
    """At most `limit` bytes of a file (OSError, or ValueError when it is longer)."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"larger than {limit // 1024} KiB")
    return data


def read_yaml(path: Path, quiet: bool = False) -> Any:
    """The YAML content of a file; unreadable files and bad YAML are one ConfigError line.
    `quiet` keeps the file's text out of the messages (a params_file may hold secrets)."""
    where = str(path)
    try:
        if path.is_dir():
            raise IsADirectoryError(21, "is a folder")
        text = read_bounded(path).decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{where}: file not found") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read: {exc}") from None
    try:
        raw = bounded_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" line {mark.line + 1}, column {mark.column + 1}:" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if quiet and not problem.startswith("duplicate key"):
            problem = "not valid YAML"
        raise ConfigError(f"{where}:{at} malformed YAML: {problem}") from None
    except RecursionError:
        raise ConfigError(f"{where}: malformed YAML: nested too deeply") from None
    except (ValueError, TypeError, LookupError, AttributeError, ArithmeticError) as exc:
        # PyYAML's constructors raise plain Python errors for some bad scalars,
        # e.g. the date 2001-02-30 or `!!int 0x`.
        detail = type(exc).__name__ if quiet else f"{type(exc).__name__}: {exc}"
        raise ConfigError(f"{where}: malformed YAML: cannot read a value ({detail})") from None
    return raw


def params_file_path(raw_path: str, base_dir: str | os.PathLike | None) -> Path:
    """Where a player's `params_file` is: relative paths are read from `base_dir`."""
    path = Path(raw_path)
    return Path(base_dir) / path if not path.is_absolute() and base_dir is not None else path


def read_params_file(raw_path: Any, where: str, at: str,
                     base_dir: str | os.PathLike | None) -> tuple[str, Any, dict]:
    """A player's `params_file` (a YAML file with `strategy`, `params` and
    `tuning`, as `wtsim tune` writes it, for any game): where it is (for
    messages), the strategy it names (or None) and its parameters. A message
    never quotes the file's values (a params_file may hold secrets)."""
    if not isinstance(raw_path, str) or not raw_path:
        raise ConfigError(f"{where}: {at}.params_file: must be a file path")
    path = params_file_path(raw_path, base_dir)
    here = f"{where}: {at}.params_file: {path}"
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise ConfigError(f"{here}: file not found") from None
    except OSError as exc:
        raise ConfigError(f"{here}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{here}: not a regular file")
    try:
        loaded = read_yaml(path, quiet=True)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {at}.params_file: {exc}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"{here}: must be a mapping with strategy and params")
    unknown = [key for key in loaded if key not in PARAMS_FILE_KEYS]
    if unknown:
        raise ConfigError(f"{here}: {key_line(path, (unknown[0],))}unknown key (known: "
                          f"{', '.join(sorted(PARAMS_FILE_KEYS))}; the key is not shown)")
    file_params = loaded.get("params") or {}
    if not isinstance(file_params, dict):
        raise ConfigError(f"{here}: params: must be a mapping")
    return here, loaded.get("strategy"), file_params


def key_line(path: Path, keys: tuple) -> str:
    """'line N: ' of the key at `keys` (a path of mapping keys) in a YAML file, to
    name a wrong key of a file whose text must not be quoted; '' when not found."""
    try:
        loader = BoundedLoader(read_bounded(path).decode("utf-8"))
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
        for key in keys:
            pairs = node.value if isinstance(node, yaml.MappingNode) else []
            found = [(k, v) for k, v in pairs if isinstance(k, yaml.ScalarNode)
                     and loader.construct_object(k) == key]
            if not found:
                return ""
            key_node, node = found[0]
        return f"line {key_node.start_mark.line + 1}: "
    except (OSError, ValueError, yaml.YAMLError, RecursionError, UnicodeDecodeError, UnboundLocalError):
        return ""


def entry_with_file_params(entry: dict, file_ref: Any, file_params: dict, where: str, at: str) -> dict:
    """A player entry (of any game) with its params_file read in: the entry's
    strategy or else the file's, and the file's params under the entry's own."""
    own_params = entry.get("params") or {}
    if not isinstance(own_params, dict):
        raise ConfigError(f"{where}: {at}.params: must be a mapping")
    merged = {k: v for k, v in entry.items() if k != "params_file"}
    merged["strategy"] = entry.get("strategy") if entry.get("strategy") is not None else file_ref
    merged["params"] = merge_params(file_params, own_params)
    return merged


def merge_params(base: dict, extra: dict) -> dict:
    """`base` with `extra` laid over it, nested mappings merged key by key (a
    params_file's parameters under a config entry's own, a strategy's defaults
    under its inline parameters)."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_params(out[key], value)
        else:
            out[key] = value
    return out


def unique_name(name: str, taken: set[str]) -> str:
    """Display names must differ; repeats get -2, -3, ... appended."""
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    taken.add(candidate)
    return candidate
