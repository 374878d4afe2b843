"""What a fence changes: the estate and potential terms and the unused
estates a fence on each slot of a fenced run adds or takes away, worked out
once per run pattern and remembered (the move evaluator's fence moves)."""

from __future__ import annotations

from typing import Sequence

from ..data import MAX_ESTATE_SIZE


NO_RUN = (-1, 0, 0.0)
"""The `_run` state of a run that cannot become an estate (it changes no sum)."""

FenceChange = tuple[int, int, int, float, float, float, "dict[int, int] | None"]
"""What a fence changes (see `MoveEvaluator._fence_changes`): the three terms
added to the estate points, the three added to the potential (0 where a run
adds nothing there), and the change of the unused estates by size index (None
when their counts stay the same)."""


def count_run(counts: list[list], size: int, done: int, share: float, sign: int) -> None:
    """Add (sign 1) or take away (-1) one run's `_run` state to or from the
    per-size counts [completed, unused, partial, open, share]."""
    if size < 0:
        return
    completed, unused, partial, open_runs, shares = counts
    if done:
        completed[size] += sign
        if done == 2:
            unused[size] += sign
    else:
        partial[size] += sign * share * share
        open_runs[size] += sign
        shares[size] += sign * share


def run_fence_changes(empty: Sequence[bool], rounds: Sequence[bool], uses: Sequence[int],
                      values: Sequence[float]) -> list[FenceChange | None]:
    """The `FenceChange` of a fence on each slot inside one fenced run, left
    to right, given for each of its houses whether it is empty, a roundabout,
    and under a plan line: the `MoveEvaluator._change` of the whole run's
    `MoveEvaluator._run` state into the states of its two parts, at the estate
    `values`. The parts' counts come from running totals over the run."""
    length = len(empty)
    built_before, rounds_before, used_before = [0], [0], [0]
    built = round_count = used = 0
    for is_empty, roundabout, use in zip(empty, rounds, uses):
        built += not is_empty
        round_count += roundabout
        used += bool(use)
        built_before.append(built)
        rounds_before.append(round_count)
        used_before.append(used)

    def run_state(part_first: int, part_end: int) -> tuple[int, int, float]:
        """`MoveEvaluator._run` of the houses part_first..part_end-1 of the run."""
        size = part_end - part_first
        if size > MAX_ESTATE_SIZE or rounds_before[part_end] != rounds_before[part_first]:
            return NO_RUN
        part_built = built_before[part_end] - built_before[part_first]
        if part_built == size:
            return size - 1, 1 if used_before[part_end] != used_before[part_first] else 2, 0.0
        return size - 1, 0, part_built / size

    whole = run_state(0, length)
    changes: list[FenceChange | None] = []
    for cut in range(1, length):
        estate_terms: list[int] = []
        potential_terms: list[float] = []
        unused_change: dict[int, int] = {}
        sign = -1  # the old run first, then the new ones, as in `MoveEvaluator._change`
        for size, done, share in (whole, run_state(0, cut), run_state(cut, length)):
            if size >= 0:
                value = values[size]
                if done:
                    estate_terms.append(sign * value)
                    if done == 2:
                        unused_change[size] = unused_change.get(size, 0) + sign
                else:
                    potential_terms.append(sign * share * share * value)
            sign = 1
        if not estate_terms and not potential_terms:
            changes.append(None)
            continue
        e0, e1, e2 = (estate_terms + [0, 0, 0])[:3]
        p0, p1, p2 = (potential_terms + [0.0, 0.0, 0.0])[:3]
        changes.append((e0, e1, e2, p0, p1, p2, unused_change if any(unused_change.values()) else None))
    return changes


RUN_FENCE_CHANGES: dict[tuple, list[FenceChange | None]] = {}
"""`run_fence_changes` by (empty, rounds, uses, values) (see `MoveEvaluator._run_fence_changes`)."""
RUN_FENCE_LIMIT = 50_000
"""Entries kept at most (the memo starts over when full)."""
