"""Welcome To's result table (RECORDS.md §2): its columns, their dtypes, and
the rows of one finished game, one per seat."""

from __future__ import annotations

from typing import Any

from .game import GameResult
from .scoring import SCORE_FIELDS

PLAN_COLUMNS = [f"plan{d}" for d in (1, 2, 3)]
PLAN_TURN_COLUMNS = [f"plan{d}_turn" for d in (1, 2, 3)]
PLAN_FIRST_COLUMNS = [f"plan{d}_first" for d in (1, 2, 3)]
ESTATE_COLUMNS = [f"estates_{s}" for s in range(1, 7)]
COUNT_COLUMNS = ["n_temps", "n_bis", "n_pools", "n_parks", "n_refusals", "n_roundabouts"]

COLUMNS: list[str] = [
    "game", "seed", "seat", "player", "strategy",
    "n_players", "advanced", "expert", "solo", "board",
    *PLAN_COLUMNS,
    "total", "rank", "won",
    *SCORE_FIELDS,
    *PLAN_TURN_COLUMNS, *PLAN_FIRST_COLUMNS,
    *ESTATE_COLUMNS,
    *COUNT_COLUMNS,
    "turns", "end_reason",
]


TEXT_COLUMNS = ["player", "strategy", "board", *PLAN_COLUMNS, "end_reason"]
BOOL_COLUMNS = ["advanced", "expert", "solo", "won", *PLAN_FIRST_COLUMNS]


def column_dtypes() -> dict[str, str]:
    """The pandas dtype of every column, so that every chunk (an empty one too,
    when all its games errored) has the same schema and chunks concatenate."""
    dtypes = {name: "int64" for name in COLUMNS}
    dtypes.update({name: "str" for name in TEXT_COLUMNS})
    dtypes.update({name: "bool" for name in BOOL_COLUMNS})
    dtypes.update({name: "Int16" for name in PLAN_TURN_COLUMNS})
    return dtypes


def game_rows(spec: Any, index: int, result: GameResult) -> dict[str, list]:
    """The rows of one finished game, as columns."""
    n = len(result.sheets)
    variant = spec.rules.variant
    players = spec.seated(index)
    columns: dict[str, list] = {
        "game": [index] * n,
        "seed": [result.seed] * n,
        "seat": list(range(n)),
        "player": [p.name for p in players],
        "strategy": [p.strategy.id for p in players],
        "n_players": [n] * n,
        "advanced": [variant.advanced] * n,
        "expert": [variant.expert] * n,
        "solo": [variant.solo] * n,
        "board": [variant.board] * n,
        "total": [s["total"] for s in result.scores],
        "rank": list(result.ranks),
        "won": [r == 1 for r in result.ranks],
        "turns": [result.turns] * n,
        "end_reason": ["+".join(result.end_reasons)] * n,
    }
    for column, plan in zip(PLAN_COLUMNS, result.plans):
        columns[column] = [plan.id] * n
    for field in SCORE_FIELDS:
        columns[field] = [s[field] for s in result.scores]
    for deck in range(3):
        turns = [sheet.plan_turns[deck] for sheet in result.sheets]
        first = result.plan_first_turn[deck]
        columns[PLAN_TURN_COLUMNS[deck]] = turns
        columns[PLAN_FIRST_COLUMNS[deck]] = [t is not None and t == first for t in turns]
    counts = [sheet.estate_counts() for sheet in result.sheets]
    for size, column in enumerate(ESTATE_COLUMNS):
        columns[column] = [c[size] for c in counts]
    sheets = result.sheets
    columns["n_temps"] = [s.temps for s in sheets]
    columns["n_bis"] = [s.n_bis for s in sheets]
    columns["n_pools"] = [s.n_pools for s in sheets]
    columns["n_parks"] = [sum(s.parks) for s in sheets]
    columns["n_refusals"] = [s.refusals for s in sheets]
    columns["n_roundabouts"] = [s.n_roundabouts for s in sheets]
    return columns
