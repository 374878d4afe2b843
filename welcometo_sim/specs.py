"""A caller's config and overrides as a checked RunSpec, and progress reporting.

`run` (api.py) and the analyses (analyses.py) both take a config as a path, a
dict in the YAML schema, a RunSpec or None, plus overrides, and both report
games finished to a progress callable: this module is what they share, below
both of them.
"""

from __future__ import annotations

import copy
import os
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Callable, Iterator, Mapping, Sequence, Union

from .config import (MAX_GAMES, MAX_JOBS, MAX_SEED, ConfigError, RunSpec, load_config, parse_config,
                     players_from_refs)
from .games import games_that
from .sim.runner import check_backend

Config = Union[str, os.PathLike, Mapping[str, Any], RunSpec, None]
Progress = Union[Callable[[int, int], None], bool, None]
"""callable(done, total), True for a tqdm.auto bar, or None/False for nothing."""
DICT_SOURCE = "<dict>"
"""Where a config given as a dict is said to come from in error messages."""


def load_spec(config: Config = None, *, players: Sequence[str] | None = None,
              variant: Mapping[str, Any] | None = None) -> RunSpec:
    """The RunSpec of `config` (path, dict, RunSpec or None for the bundled
    base config), with `players` (strategy references) and `variant` (the
    YAML's `variant:` mapping) replaced. A dict is checked like a file: a
    bad key is the same ConfigError, its location `<dict>`."""
    if isinstance(config, RunSpec):
        spec = config
    elif isinstance(config, Mapping):
        spec = parse_config(copy.deepcopy(dict(config)), DICT_SOURCE, default_name="run")
    else:
        spec = load_config(config)
    if players is not None and variant is None:
        return replace(spec, players=players_from_refs(list(players), spec.game))
    if variant is not None:
        raw = spec.to_dict()
        raw["variant"] = copy.deepcopy(dict(variant))
        if players is not None:
            raw["players"] = list(players)
        spec = parse_config(raw, spec.source, default_name=spec.name)
    return spec


@contextmanager
def ticking(total: int, progress: Progress) -> Iterator[Callable[[int], None] | None]:
    """A step callback (n more games done) that reports to `progress` as
    (done, total), starting with (0, total); True shows a tqdm.auto bar."""
    if not progress:
        yield None
        return
    bar = None
    if progress is True:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, unit="game")
        report: Callable[[int, int], None] = lambda done, _total: bar.update(done - bar.n)  # noqa: E731
    else:
        report = progress
    done = 0

    def step(games: int) -> None:
        nonlocal done
        done += games
        report(done, total)

    report(0, total)
    try:
        yield step
    finally:
        if bar is not None:
            bar.close()


def resolve_spec(config: str | os.PathLike | RunSpec | None = None, *, games: int | None = None,
                 seed: int | None = None, jobs: int | None = None, chunk_size: int | None = None,
                 on_error: str | None = None, move_timeout: float | None = None,
                 backend: str | None = None, scheduler: str | None = None) -> RunSpec:
    """A RunSpec from a config path (bundled default when None) plus overrides.
    A scheduler address implies the dask backend."""
    if jobs == 0:
        raise ConfigError("--jobs: must not be 0 (use 1, N, or -1 for all cores)")
    _check_overrides(games=games, seed=seed, jobs=jobs, chunk_size=chunk_size, move_timeout=move_timeout)
    spec = config if isinstance(config, RunSpec) else load_config(config)
    if move_timeout is not None and not spec.capabilities.move_timeout:
        raise ConfigError(f"--move-timeout: limits {' and '.join(games_that('move_timeout'))} strategies only "
                          f"(not {spec.game}'s)")
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


def _check_overrides(**values: object) -> None:
    """The same bounds as the config's, for values given on the command line or by a caller."""
    bounds = {"games": (1, MAX_GAMES), "seed": (0, MAX_SEED), "jobs": (-64, MAX_JOBS),
              "chunk_size": (1, MAX_GAMES)}
    for key, value in values.items():
        option = "--" + key.replace("_", "-")
        if value is None:
            continue
        if key == "move_timeout":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
                raise ConfigError(f"{option}: must be a positive number of seconds, got {value!r}")
            continue
        low, high = bounds[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            shown = value if not isinstance(value, int) or value.bit_length() <= 128 else "a huge number"
            raise ConfigError(f"{option}: must be an integer from {low} to {high}, got {shown}")
