"""Plan progress: the points in reach on unfinished estate plans, from the
unused completed estates of each size, and the memo the move evaluator shares
between all sheets of a game (it depends only on those counts)."""

from __future__ import annotations

from typing import Sequence

from ..data import PlanSpec
from ..sheet import Sheet
from .streets import sheet_features


def plan_progress_from(unused: Sequence[int], plan_turns: Sequence[int | None],
                       plans: Sequence[PlanSpec], first_turn: Sequence[int | None]) -> float:
    """`plan_progress` from the count of unused completed estates per size."""
    total = 0.0
    for deck, spec in enumerate(plans):
        if plan_turns[deck] is not None or spec.kind != "estates":
            continue
        remaining = list(unused)
        have = 0
        for size in spec.estates:
            if remaining[size - 1] > 0:
                remaining[size - 1] -= 1
                have += 1
        points = spec.points[0] if first_turn[deck] is None else spec.points[1]
        total += points * have / len(spec.estates)
    return total


def plan_progress(sheet: Sheet, plans: Sequence[PlanSpec],
                  first_turn: Sequence[int | None] = (None, None, None)) -> float:
    """Points in reach on unfinished estate plans: each plan's current value
    (high while nobody has it) times the share of its required estates that the
    sheet has unused and completed."""
    unused = [sum(counts) for counts in zip(*(f.unused for f in sheet_features(sheet)))]
    return plan_progress_from(unused, sheet.plan_turns, plans, first_turn)


_PROGRESS_MEMOS: dict[int, tuple[Sequence[PlanSpec], dict[tuple, dict[tuple[int, ...], float]]]] = {}
"""Plan progress memos by id of the plans (kept to check the id), then by
(plan turns, first turns)."""
_PROGRESS_PLANS_LIMIT = 256
"""Sets of plans remembered at most (the memos start over when full): one
per seat and game, while a game and the few around it are played."""


def share_memos(plan_sets: Sequence[Sequence[PlanSpec]]) -> None:
    """The seats of one game each see plan cards of their own (equal ones): they
    share one memo, as they would sharing one set of cards."""
    if len(_PROGRESS_MEMOS) + len(plan_sets) > _PROGRESS_PLANS_LIMIT:
        _PROGRESS_MEMOS.clear()
    memos: dict = {}
    for plans in plan_sets:
        _PROGRESS_MEMOS[id(plans)] = (plans, memos)


def progress_memo(plans: Sequence[PlanSpec], plan_turns: Sequence[int | None],
                   first_turn: Sequence[int | None]) -> dict[tuple[int, ...], float]:
    """Plan progress by the counts of unused completed estates per size (see
    :func:`plan_progress_from`), for these plans, completed plans and first
    turns: it depends on nothing else, so every evaluator of the game's
    sheets shares it, turn after turn, until a plan is completed."""
    entry = _PROGRESS_MEMOS.get(id(plans))
    if entry is None or entry[0] is not plans:
        if len(_PROGRESS_MEMOS) >= _PROGRESS_PLANS_LIMIT:
            _PROGRESS_MEMOS.clear()
        entry = _PROGRESS_MEMOS[id(plans)] = (plans, {})
    key = (tuple(plan_turns), tuple(first_turn))
    memo = entry[1].get(key)
    if memo is None:
        memo = entry[1][key] = {}
    return memo
