"""The shaker: which cubes it holds, and the 3x3 pattern a shake drops.

A shake is modelled as a uniform random arrangement of 9 distinct cubes drawn
from the shaker (every ordered choice of 9 cubes equally likely), read row by
row from the north-west corner. Wild Nights adds white wild cubes: one at the
start, one more on each round of `wild_nights.added_rounds`; wilds shown in a
pattern leave the game at the end of the round.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .board import CODE_LETTERS, N_BUILDINGS, WILD_CODE
from .data import BUILDINGS, WILD, GameData

CUBE_NAMES: tuple[str, ...] = (*BUILDINGS, WILD)
"""Cube names by code: the five building types, then the wild cube."""


def start_shaker(data: GameData, wild_nights: bool) -> tuple[int, ...]:
    """Cubes per code (buildings, then wild) in the shaker at round 1."""
    return (*data.cubes, data.wild_start if wild_nights else 0)


def next_shaker(data: GameData, shaker: Sequence[int], pattern: Sequence[int], next_round: int,
                wild_nights: bool) -> tuple[int, ...]:
    """The shaker of round `next_round`: the wilds shown leave, a new one may arrive.

    Building cubes all go back into the shaker every round."""
    if not wild_nights:
        return tuple(shaker)
    wild = shaker[WILD_CODE] - sum(1 for c in pattern if c == WILD_CODE)
    if next_round in data.wild_rounds:
        wild += 1
    return (*shaker[:WILD_CODE], wild)


def shake(rng: np.random.Generator, shaker: Sequence[int], cells: int = 9) -> tuple[int, ...]:
    """A pattern of `cells` cube codes, row by row, drawn without replacement."""
    pool = np.repeat(np.arange(N_BUILDINGS + 1, dtype=np.int8), shaker)
    picked = rng.choice(pool.size, size=cells, replace=False)
    return tuple(int(c) for c in pool[picked])


def frame_bits(pattern: Sequence[int], code: int) -> int:
    """The pattern cells holding cube `code`, as bits (bit i = cell i in reading order)."""
    bits = 0
    for i, c in enumerate(pattern):
        if c == code:
            bits |= 1 << i
    return bits


def pattern_text(pattern: Sequence[int]) -> str:
    """A pattern as letters in reading order (`HSFPRW`), the form records keep."""
    return "".join(CODE_LETTERS[c] for c in pattern)


def parse_pattern(text: str, cells: int = 9) -> tuple[int, ...]:
    """The inverse of :func:`pattern_text`; ValueError on anything else."""
    if not isinstance(text, str) or len(text) != cells or any(ch not in CODE_LETTERS for ch in text):
        raise ValueError(f"a pattern is {cells} letters of {CODE_LETTERS}")
    return tuple(CODE_LETTERS.index(ch) for ch in text)
