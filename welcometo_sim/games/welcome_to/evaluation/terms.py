"""The terms of a sheet as it stands, each a plain function of the sheet so
that strategies can weight and combine them: points now, estate potential and
projection, flexibility, plan progress and the thematic board, all at once in
:class:`Terms`, and greedy's weighted sum of them (:func:`linear_score`).
"""

from __future__ import annotations

from operator import mul
from typing import NamedTuple, Sequence

from ..data import PlanSpec
from ..sheet import Sheet
from .plan_progress import plan_progress
from .streets import sheet_features


def estate_values(sheet: Sheet) -> list[int]:
    """Current value of one completed estate of each size 1..6."""
    return [track[k] for track, k in zip(sheet.data.real_estate_tracks, sheet.real_estate)]


def points_now(sheet: Sheet, temp_value: float = 1.0) -> float:
    """The sheet's score if the game ended now, with each temp box worth
    `temp_value` (the real temp points depend on the other players)."""
    data = sheet.data
    values = estate_values(sheet)
    estates = sum(
        count * value
        for features in sheet_features(sheet)
        for count, value in zip(features.completed, values)
    )
    return (
        sum(sheet.plan_points)
        + sum(track[k] for track, k in zip(data.park_tracks, sheet.parks))
        + data.pool_track[sheet.n_pools]
        + estates
        - data.bis_track[sheet.n_bis]
        - data.roundabout_track[sheet.n_roundabouts]
        - data.refusal_track[sheet.refusals]
        + temp_value * sheet.temps
    )


def estate_potential(sheet: Sheet) -> float:
    """Value of unfinished estates: for each fenced run of 1..6 houses that is
    not complete yet, its estate value times the square of the share of its
    houses already built (a half-built estate counts a quarter)."""
    values = estate_values(sheet)
    return sum(sum(map(mul, features.partial, values)) for features in sheet_features(sheet))


def estate_projection(sheet: Sheet, size_bonus: Sequence[float] | None = None) -> tuple[float, float]:
    """What the unfinished fenced runs (1..6 houses, no roundabout) would be
    worth as estates at today's values: (all of them, each weighted by its
    built share). Most houses get built by the end of a game, so a fenced run
    is likely to score; `estate_potential` is the cautious version.
    `size_bonus[s-1]` is added to the value of a run of s houses (a strategy's
    own idea of what an estate of that size is worth, e.g. for its plans)."""
    values = estate_values(sheet)
    if size_bonus is not None:
        values = [v + b for v, b in zip(values, size_bonus)]
    features = sheet_features(sheet)
    open_value = sum(sum(map(mul, f.open, values)) for f in features)
    share_value = sum(sum(map(mul, f.share, values)) for f in features)
    return open_value, share_value


def flexibility(sheet: Sheet) -> float:
    """Empty houses that could still be built, over all streets (see
    :func:`street_flexibility`). Losing it is what later forces refusals."""
    return sum(features.flexibility for features in sheet_features(sheet))


def board_value(sheet: Sheet) -> float:
    """The thematic board's points as they stand (street-race bonuses left out).
    Egg thresholds are interpolated linearly so that every egg counts a little."""
    state = sheet.board
    if state is None:
        return 0.0
    total_eggs = getattr(state, "total", None)
    if total_eggs is None:
        return float(state.points(sheet))  # type: ignore[attr-defined]
    eggs = total_eggs()
    steps = [(0, 0), *sorted(sheet.data.egg_scores)]
    for (low, low_points), (high, high_points) in zip(steps, steps[1:]):
        if eggs < high:
            return low_points + (high_points - low_points) * (eggs - low) / (high - low)
    return float(steps[-1][1])


class Terms(NamedTuple):
    """All evaluation terms of a sheet, computed in one pass (see the functions above)."""

    points: float
    estate_potential: float
    flexibility: float
    plan_progress: float
    board: float
    open_estates: float = 0.0
    """value of the unfinished fenced runs as if each were completed (see `estate_projection`)"""
    built_share: float = 0.0
    """the same, each run weighted by the share of its houses already built"""


def sheet_terms(sheet: Sheet, plans: Sequence[PlanSpec],
                first_turn: Sequence[int | None] = (None, None, None),
                temp_value: float = 1.0, size_bonus: Sequence[float] | None = None) -> Terms:
    """`points_now`, `estate_potential`, `flexibility`, `plan_progress` and
    `board_value` of a sheet at once (they share its cached street features)."""
    open_value, share_value = estate_projection(sheet, size_bonus)
    return Terms(points_now(sheet, temp_value), estate_potential(sheet), flexibility(sheet),
                 plan_progress(sheet, plans, first_turn), board_value(sheet), open_value, share_value)


def linear_score(weights: Sequence[float], terms: Terms) -> float:
    """The weighted sum of the first five terms, `weights` in the order points,
    estate_potential, flexibility, plan_progress, board (greedy's evaluation)."""
    w_points, w_potential, w_flex, w_progress, w_board = weights
    return (w_points * terms.points + w_potential * terms.estate_potential + w_flex * terms.flexibility
            + w_progress * terms.plan_progress + w_board * terms.board)
