"""What-if sweeps: run a grid of config changes and report how the metrics move.

A setting is ``KEY=V1,V2,…`` where KEY is a dotted path into the config
(``games``, ``variant.board``, ``players.0.params.shortlist``…); keys that
start with a section of the game's overrides (its module's ``OVERRIDE_KEYS``;
Welcome To's ``plans``, ``add_plans``, ``remove_plans``, ``tracks``, ``deck``)
go to ``overrides``. The
values are read as YAML, so ``plans.estates-4-4.points=[7,4],[8,4]`` sweeps
two point pairs. The grid is the product of all settings; the first grid
point is the baseline that every other point is compared with, game by game
(every point plays the same seeds).
"""

from __future__ import annotations

import copy
import json
import math
import textwrap
from itertools import product
from typing import Any, Callable

import pandas as pd
import yaml

from ..config import ConfigError, bounded_yaml
from ..games import DEFAULT_GAME, game_measures, override_keys
from .formatting import output_width, table_text
from .stats import mean_interval, paired_bootstrap_ci, rate_interval

BOOTSTRAP_SEED = 0
"""Fixed, so the same games always give the same intervals."""


class SweepError(ValueError):
    """A --set that cannot be used, phrased as one line."""


def parse_setting(text: str, game: str = DEFAULT_GAME) -> tuple[list[str], list[Any]]:
    """'a.b=1,2' -> (['a', 'b'], [1, 2]); keys of `game`'s overrides section get
    'overrides.' in front."""
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
    if path[0] in override_keys(game):
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
    game = base.get("game", DEFAULT_GAME)
    parsed = [(text.partition("=")[0].strip(), *parse_setting(text, game)) for text in settings]
    points = []
    for combo in product(*(values for _key, _path, values in parsed)):
        config = copy.deepcopy(base)
        chosen = {}
        for (key, path, _values), value in zip(parsed, combo):
            set_path(config, path, value, key)
            chosen[key] = value
        points.append((chosen, config))
    return points


MEASURE_COLUMNS = ["point", "measure", "kind", "n", "value", "value_low", "value_high",
                   "diff", "diff_low", "diff_high", "change"]
"""The long sweep table: one row per grid point and measure (the --set keys come first)."""
NO_CHANGE = "no clear change"
SAME = "same in every game"
BASELINE = "baseline"


Measures = dict[str, tuple[str, pd.Series]]
GameMeasures = Callable[[pd.DataFrame, pd.DataFrame, pd.DataFrame], Measures]
"""A game's own measures from (result table, rows by game and player, one row per game)."""


def point_measures(frame: pd.DataFrame, game: GameMeasures | None = None) -> Measures:
    """Every measure of one grid point as (kind, values): ``mean`` or ``rate``, and
    one value per game (indexed by game) or per player-game (by game and player),
    so that the same game of two grid points (same seed) can be paired.

    Measures: each player's score and win, then the game's own (its module's
    `sweep_measures`; Welcome To: the game length, the share of games ended
    by refusals, each plan slot's completion and the plan points per
    player-game; Shake That City: each score category and the flipped bonus
    tiles per player-game)."""
    rows = frame.set_index(["game", "player"]).sort_index()
    games = frame.drop_duplicates("game").set_index("game").sort_index()
    measures: Measures = {}
    sort = ["game", "seat"] if "seat" in frame.columns else ["game"]
    for player in dict.fromkeys(frame.sort_values(sort, kind="stable")["player"]):
        by_game = rows.xs(player, level="player")
        measures[f"score {player}"] = ("mean", by_game["total"].astype(float))
        measures[f"win {player}"] = ("rate", by_game["won"].astype(float))
    if game is not None:
        measures.update(game(frame, rows, games))
    return measures


def _estimate(kind: str, values: pd.Series) -> tuple[float, float, float]:
    if kind == "rate":
        return rate_interval(float(values.sum()), len(values))
    return mean_interval(values.to_numpy(dtype=float))


def _difference(values: pd.Series, baseline: pd.Series) -> tuple[float, float, float]:
    """Mean paired difference to the baseline over the games both played, with a
    paired bootstrap interval; NaN when they share no game."""
    both = pd.concat([values.rename("v"), baseline.rename("b")], axis=1, join="inner").dropna()
    if both.empty:
        return (math.nan, math.nan, math.nan)
    return paired_bootstrap_ci((both["v"] - both["b"]).to_numpy(), seed=BOOTSTRAP_SEED)


def _change(diff: float, low: float, high: float) -> str | None:
    """What the difference's interval says, in words (None: no difference to judge)."""
    if math.isnan(low) or math.isnan(high):
        return NO_CHANGE if not math.isnan(diff) else None
    if low == high == diff == 0:
        return SAME
    if low > 0:
        return "higher"
    if high < 0:
        return "lower"
    return NO_CHANGE


def _baseline_for(name: str, position: int, baseline: dict[str, tuple[str, pd.Series]]) -> pd.Series | None:
    """The baseline's values of a measure: the same name, else (a sweep that
    renames a player or changes a slot's plan) the measure in the same place
    and of the same sort (score, win, plan 1 …)."""
    if name in baseline:
        return baseline[name][1]
    entries = list(baseline.items())
    if position < len(entries):
        other, (_kind, values) = entries[position]
        if _sort_of(other) == _sort_of(name):
            return values
    return None


def _sort_of(name: str) -> str:
    """'score greedy' -> 'score'; 'plan 1 completed (x)' -> 'plan 1 completed'."""
    if name.startswith("plan ") and " completed" in name:
        return name.split(" (")[0]
    return name.split(" ")[0] if name.split(" ")[0] in ("score", "win") else name


def measure_rows(point: int, measures: dict[str, tuple[str, pd.Series]],
                 baseline: dict[str, tuple[str, pd.Series]]) -> list[dict[str, Any]]:
    """The long-table rows of one grid point, with differences to the baseline."""
    rows = []
    for position, (name, (kind, values)) in enumerate(measures.items()):
        value, low, high = _estimate(kind, values)
        row = {"point": point, "measure": name, "kind": kind, "n": int(len(values)),
               "value": value, "value_low": low, "value_high": high}
        if point == 0:
            row.update(diff=0.0, diff_low=math.nan, diff_high=math.nan, change=BASELINE)
        elif (reference := _baseline_for(name, position, baseline)) is not None:
            diff, d_low, d_high = _difference(values, reference)
            row.update(diff=diff, diff_low=d_low, diff_high=d_high, change=_change(diff, d_low, d_high))
        else:
            row.update(diff=math.nan, diff_low=math.nan, diff_high=math.nan, change="not at the baseline")
        rows.append(row)
    return rows


def sweep(base: dict, settings: list[str], run: Callable[[dict], pd.DataFrame]) -> pd.DataFrame:
    """Run every grid point with `run(config) -> result table` and compare it with
    the first (the baseline).

    One row per grid point and measure (columns: the --set keys as JSON, then
    MEASURE_COLUMNS): the estimate with its 95% interval (t for means, Wilson
    for rates) and the mean paired difference to the baseline with a paired
    bootstrap interval. Grid points play the same seeds, so game g of every
    point is dealt the same cards and the difference removes that luck;
    `change` says whether the interval is above or below zero."""
    rows = []
    baseline: dict[str, tuple[str, pd.Series]] = {}
    game = game_measures(str(base.get("game") or DEFAULT_GAME))
    for index, (chosen, config) in enumerate(grid(base, settings)):
        label = "; ".join(f"{k}={json.dumps(v, default=str)}" for k, v in chosen.items())
        try:
            frame = run(config)
        except ConfigError as exc:
            raise SweepError(f"grid point {index} ({label}): {exc}") from None
        if frame.empty:
            raise SweepError(f"grid point {index} ({label}): no game finished")
        measures = point_measures(frame, game)
        if index == 0:
            baseline = measures
        keys = {k: json.dumps(v, default=str) for k, v in chosen.items()}
        rows += [{**keys, **row} for row in measure_rows(index, measures, baseline)]
    return pd.DataFrame(rows)


def setting_keys(table: pd.DataFrame) -> list[str]:
    """The --set keys of a long sweep table (its columns that are not measures)."""
    return [c for c in table.columns if c not in MEASURE_COLUMNS]


def points_table(table: pd.DataFrame) -> pd.DataFrame:
    """One row per grid point: its number and the value of every --set key."""
    keys = setting_keys(table)
    return table.drop_duplicates("point").set_index("point")[keys]


PRINTED_COLUMNS = ["n", "value", "value_low", "value_high", "diff", "diff_low", "diff_high", "change"]


def measure_table(table: pd.DataFrame, measure: str) -> pd.DataFrame:
    """The rows of one measure, indexed by grid point (numbers, for printing or plots)."""
    rows = table[table["measure"] == measure].set_index("point")
    return rows[PRINTED_COLUMNS]


def _points_text(points: pd.DataFrame, width: int) -> str:
    """The grid points as a table, or, when that is wider than `width`, one
    wrapped 'point N: key=value; ...' paragraph per point."""
    text = table_text(points, width=0)
    if max(map(len, text.splitlines())) <= width:
        return text
    lines = []
    for point, row in points.iterrows():
        settings = "; ".join(f"{key}={value}" for key, value in row.items())
        lines += textwrap.wrap(f"point {point}: {settings}", width, subsequent_indent="    ",
                               break_on_hyphens=False)
    return "\n".join(lines)


def sweep_text(table: pd.DataFrame, digits: int = 2, width: int | None = None) -> str:
    """The printed sweep: the grid points, then one narrow table per measure
    (estimate and difference to point 0, each with its 95% interval), every
    line within `width` columns (default: the output's width)."""
    width = output_width() if width is None else width
    parts = ["points", _points_text(points_table(table), width)]
    for measure in dict.fromkeys(table["measure"]):
        rows = measure_table(table, measure)
        kind = table.loc[table["measure"] == measure, "kind"].iloc[0]
        printed = rows.astype({"diff": float})
        printed.loc[printed["change"] == BASELINE, "diff"] = math.nan
        rates = ("value", "diff") if kind == "rate" else ()
        unit = "share" if kind == "rate" else "mean"
        parts += ["", f"{measure} ({unit}; diff: paired difference to point 0)",
                  table_text(printed, digits, width=width, percent=rates, signed=("diff",),
                             missing={"diff": BASELINE})]
    return "\n".join(parts)


def sweep_document(table: pd.DataFrame, facts: dict[str, Any]) -> dict[str, Any]:
    """The sweep as one JSON-ready document: the facts of the run, the grid points
    and the long table's rows (missing numbers as null, each --set key's value
    as the JSON value it was set to)."""
    points = [{"point": int(point), "set": {k: json.loads(v) for k, v in row.items()}}
              for point, row in points_table(table).iterrows()]
    keys = setting_keys(table)
    records = json.loads(table.to_json(orient="records"))
    for record in records:  # the set values as JSON values, not their text
        record.update({key: json.loads(record[key]) for key in keys})
    return {**facts, "baseline": 0, "points": points, "rows": records}
