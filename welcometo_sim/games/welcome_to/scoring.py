"""Final scores with their full breakdown, and ranks with the tie-breaks of RULES.md §9."""

from __future__ import annotations

from typing import Callable, Sequence

from .data import SOLO_TEMP_POINTS, SOLO_TEMP_THRESHOLD
from .sheet import Sheet

SCORE_FIELDS: tuple[str, ...] = (
    "plans", "parks", "pools", "temps", "estates", "bonus", "bis", "roundabouts", "refusals",
)
"""Score components in record order; penalties are stored negative."""


def temp_points(temp_counts: Sequence[int], rank_points: Sequence[int], solo: bool) -> list[int]:
    """Temp-agency points per player: dense ranking of the distinct counts among
    players with at least one temp (5,5,3,2 -> 7,7,4,1); the solo rule in solo games."""
    if solo:
        return [SOLO_TEMP_POINTS if c >= SOLO_TEMP_THRESHOLD else 0 for c in temp_counts]
    distinct = sorted({c for c in temp_counts if c > 0}, reverse=True)
    award = {count: rank_points[i] for i, count in enumerate(distinct[: len(rank_points)])}
    return [award.get(c, 0) for c in temp_counts]


def estate_points(sheet: Sheet) -> int:
    tracks = sheet.data.real_estate_tracks
    return sum(
        count * tracks[size][sheet.real_estate[size]]
        for size, count in enumerate(sheet.estate_counts())
    )


def score_sheet(sheet: Sheet, temps: int, bonus: int = 0) -> dict[str, int]:
    """Breakdown of one sheet's score; `temps` and `bonus` depend on the other
    players or the board and are computed by the caller."""
    data = sheet.data
    score = {
        "plans": sum(sheet.plan_points),
        "parks": sum(track[k] for track, k in zip(data.park_tracks, sheet.parks)),
        "pools": data.pool_track[sheet.n_pools],
        "temps": temps,
        "estates": estate_points(sheet),
        "bonus": bonus,
        "bis": -data.bis_track[sheet.n_bis],
        "roundabouts": -data.roundabout_track[sheet.n_roundabouts],
        "refusals": -data.refusal_track[sheet.refusals],
    }
    score["total"] = sum(score[field] for field in SCORE_FIELDS)
    return score


def score_game(
    sheets: Sequence[Sheet], solo: bool = False,
    bonus: Callable[[int], int] | None = None,
) -> list[dict[str, int]]:
    """Score every sheet of a finished game. `bonus(seat)` gives the board's points."""
    rank_points = sheets[0].data.temp_rank_points if sheets else ()
    temps = temp_points([s.temps for s in sheets], rank_points, solo)
    return [
        score_sheet(sheet, temps[seat], bonus(seat) if bonus else 0)
        for seat, sheet in enumerate(sheets)
    ]


def rank_key(total: int, sheet: Sheet) -> tuple[int, ...]:
    """Higher is better: total, then completed estates, then estates of size 1, 2, … 6."""
    counts = sheet.estate_counts()
    return (total, sum(counts), *counts)


def ranks(keys: Sequence[tuple[int, ...]]) -> list[int]:
    """Competition ranks (1 = best; equal keys share a rank and the next rank skips)."""
    return [1 + sum(other > key for other in keys) for key in keys]
