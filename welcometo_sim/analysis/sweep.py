"""What-if sweeps: run a grid of config changes and report how the metrics move.

A setting is ``KEY=V1,V2,…`` where KEY is a dotted path into the config
(``games``, ``variant.board``, ``players.0.params.shortlist``…); keys that
start with an overrides section (``plans``, ``add_plans``, ``remove_plans``,
``tracks``, ``deck``) go to ``overrides`` (see rules/overrides.py). The
values are read as YAML, so ``plans.estates-4-4.points=[7,4],[8,4]`` sweeps
two point pairs. The grid is the product of all settings.
"""

from __future__ import annotations

import copy
import json
import math
from itertools import product
from typing import Any, Callable

import pandas as pd
import yaml

from ..config import ConfigError, bounded_yaml
from ..rules.overrides import OVERRIDE_KEYS

Z95 = 1.959963984540054


class SweepError(ValueError):
    """A --set that cannot be used, phrased as one line."""


def parse_setting(text: str) -> tuple[list[str], list[Any]]:
    """'a.b=1,2' -> (['a', 'b'], [1, 2]); keys of an overrides section get 'overrides.' in front."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip() or not raw.strip():
        raise SweepError(f"--set {text!r}: expected KEY=VALUE[,VALUE…]")
    try:
        values = bounded_yaml(f"[{raw}]")
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SweepError(f"--set {text!r}: the values are not valid YAML ({problem})") from None
    except RecursionError:
        raise SweepError(f"--set {text!r}: the values are not valid YAML (nested too deeply)") from None
    except (ValueError, TypeError, LookupError, AttributeError, ArithmeticError) as exc:
        raise SweepError(f"--set {text!r}: cannot read a value ({type(exc).__name__})") from None
    path = key.strip().split(".")
    if path[0] in OVERRIDE_KEYS:
        path = ["overrides", *path]
    return path, values


def set_path(config: dict, path: list[str], value: Any, text: str) -> None:
    """Set config[path] = value, creating mappings on the way (list items by index)."""
    node: Any = config
    for depth, part in enumerate(path[:-1]):
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise SweepError(f"--set {text}: {'.'.join(path[:depth + 1])} is not an item of the list")
            node = node[int(part)]
            if isinstance(node, str):  # a player given as a bare strategy name
                raise SweepError(f"--set {text}: {'.'.join(path[:depth + 1])} is a name, not a mapping")
            continue
        if not isinstance(node, dict):
            raise SweepError(f"--set {text}: {'.'.join(path[:depth])} is not a mapping")
        if node.get(part) is None:
            node[part] = {}
        node = node[part]
    last = path[-1]
    if isinstance(node, list):
        if not last.isdigit() or int(last) >= len(node):
            raise SweepError(f"--set {text}: no item {last}")
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise SweepError(f"--set {text}: {'.'.join(path[:-1])} is not a mapping")


def grid(base: dict, settings: list[str]) -> list[tuple[dict[str, Any], dict]]:
    """Every grid point: (the values set, keyed by the --set key) and its config."""
    parsed = [(text.partition("=")[0].strip(), *parse_setting(text)) for text in settings]
    points = []
    for combo in product(*(values for _key, _path, values in parsed)):
        config = copy.deepcopy(base)
        chosen = {}
        for (key, path, _values), value in zip(parsed, combo):
            set_path(config, path, value, key)
            chosen[key] = value
        points.append((chosen, config))
    return points


def _mean_ci(values: pd.Series) -> tuple[float, float, float]:
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return mean, mean - half, mean + half


def point_metrics(frame: pd.DataFrame) -> dict[str, Any]:
    """Metrics of one grid point: per player mean score (95% CI) and win rate,
    mean game length, and per plan slot its completion rate and the mean score
    of the players who completed it (95% CI)."""
    row: dict[str, Any] = {"games": frame["game"].nunique(),
                           "mean_turns": float(frame.drop_duplicates("game")["turns"].mean())}
    for player, block in frame.groupby("player", sort=False):
        mean, low, high = _mean_ci(block["total"])
        row[f"{player}:mean"], row[f"{player}:low"], row[f"{player}:high"] = mean, low, high
        row[f"{player}:win_rate"] = float(block["won"].mean())
    for slot in (1, 2, 3):
        done = frame[f"plan{slot}_turn"].notna()
        plan_ids = frame[f"plan{slot}"].unique()
        label = plan_ids[0] if len(plan_ids) == 1 else f"plan{slot}"
        mean, low, high = _mean_ci(frame.loc[done, "total"])
        row[f"{label}:completion"] = float(done.mean())
        row[f"{label}:completers_mean"] = mean
        row[f"{label}:completers_low"] = low
        row[f"{label}:completers_high"] = high
    return row


def sweep(base: dict, settings: list[str], run: Callable[[dict], pd.DataFrame]) -> pd.DataFrame:
    """Run every grid point with `run(config) -> result table`; one row per point."""
    rows = []
    for chosen, config in grid(base, settings):
        try:
            frame = run(config)
        except ConfigError as exc:
            raise SweepError(f"grid point {chosen}: {exc}") from None
        rows.append({**{k: json.dumps(v) for k, v in chosen.items()}, **point_metrics(frame)})
    return pd.DataFrame(rows)
