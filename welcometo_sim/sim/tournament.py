"""Tournaments: round robins with rotated seats and common random numbers.

Every pairing plays the same game seeds (game i of every match has the seed
of game i of the run), and seats rotate from game to game, so score
differences between strategies are paired and seat advantage cancels out.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import Callable

import pandas as pd

from ..config import PlayerConfig, RunSpec
from .results import to_frame
from .runner import run_chunks


def matches(players: tuple[PlayerConfig, ...], table: bool, alone: bool = False) -> list[tuple[PlayerConfig, ...]]:
    """Every pairing (round robin), one table with everybody, or (`alone`,
    in a variant for one player) every player on their own."""
    if alone:
        return [(player,) for player in players]
    if table or len(players) < 3:
        return [players]
    return [tuple(pair) for pair in combinations(players, 2)]


def seats_one_player(spec: RunSpec) -> bool:
    """Whether the run's variant is played alone (solo mode): strategies are
    then compared on the same cards in games of their own."""
    return not _seats(spec, 2) and _seats(spec, 1)


def _seats(spec: RunSpec, players: int) -> bool:
    """Whether the run's game and variant take this many players."""
    try:
        spec.capabilities.check_seats(spec, players)
    except ValueError:  # VariantError, the other games' DataError
        return False
    return True


def round_robin(spec: RunSpec, table: bool = False,
                progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Play `spec.games` games for every match of `spec.players` (seats rotated,
    same seeds in every match). The table gets a `match` column (0, 1, …).

    In a variant for one player every strategy plays the same seeds alone;
    game i of each is then one game of match 0 whose `rank` says who scored
    most on those cards (equal totals share a rank), so the comparison's
    differences and wins are paired as in a match."""
    alone = seats_one_player(spec)
    frames = []
    for number, seated in enumerate(matches(spec.players, table, alone)):
        match_spec = replace(spec, players=seated, rotate_seats=True)
        match_spec.capabilities.check_seats(match_spec, len(seated))
        columns, _seconds = run_chunks(
            match_spec, on_chunk=(lambda chunk: progress(chunk.stop - chunk.start)) if progress else None)
        frame = to_frame(columns)
        frame.insert(0, "match", 0 if alone else number)
        frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    if alone:
        frame["rank"] = frame.groupby("game")["total"].rank(method="min", ascending=False).astype(frame["rank"].dtype)
    return frame


def total_games(spec: RunSpec, table: bool = False) -> int:
    return spec.games * len(matches(spec.players, table, seats_one_player(spec)))
