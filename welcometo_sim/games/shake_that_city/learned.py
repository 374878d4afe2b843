"""Shake That City's learned evaluation: the model of the `learned` strategy.

`learned` values a placement as greedy does (points now, bonus tiles, a
hand-weighted potential: see :mod:`.evaluation`) plus a learned correction,
an n-tuple network over the board after the placement: every 2x2 square of
cells indexes its own table by the four cells' contents (empty, one of the
five buildings, a construction tile), one set of tables per stage of the
game (rounds still to come), plus a bias per round (see :class:`TupleLayout`). The correction starts at zero,
so an untrained `learned` plays exactly as `greedy`; training moves it
toward what the board then really scores, by the same TD(lambda) as Welcome
To's (see welcometo_sim.learning.train). In the last round the value is the
exact final score, as greedy's.

A decision is scored in one numpy pass: the cell contents of every candidate
board as one array, the tuple indices as one matrix product, one gather and
one sum per candidate.

The strategy is :class:`~.strategies.LearnedStrategy`; training is in
:mod:`.training`. Model files are ``.npz`` archives holding `weights` (float32), `rows`,
`cols` and `meta` (JSON: the training's command, seed, games, variant); the
bundled `weights/<side>.npz` (two players or more),
`weights/<side>-solo.npz` (the solo rules) and `<side>-family[-solo].npz`
(the family variant) are what the bare name `learned` plays, when there is
one for the variant.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from .board import Board
from .data import BUILDINGS

N_CODES = len(BUILDINGS) + 2
"""Cell contents: 0 empty, 1 + building code, and a construction tile."""
CONSTRUCTION_CODE = len(BUILDINGS) + 1
TUPLE_CELLS = 4
TUPLE_STATES = N_CODES ** TUPLE_CELLS
STAGE_ENDS = (4, 9)
"""Rounds still to come after the decision: 1..4 are the last stage, 5..9 the middle one, 10 and more the first."""
STAGES = len(STAGE_ENDS) + 1
WEIGHTS_FOLDER = Path(__file__).with_name("weights")
MAX_MODEL_BYTES = 64 << 20


class ModelFileError(ValueError):
    """A model file that cannot be played (one line)."""


MAX_ROUNDS_LEFT = 31
"""Decisions with more rounds after them share the last bias weight."""


class TupleLayout:
    """Where each weight sits in the weight vector of a board of `rows` x `cols`:
    per stage, one table for each 2x2 square of the board (a pattern is not
    worth the same by an edge, in a shop zone or on the beach as in the
    middle), then one bias per number of rounds still to come: the mean of
    what the hand-made value misses at that point of the game, which every
    candidate of a decision shares, so that the tables learn differences
    only. The bias is active `bias_repeat` times (the square root of the
    number of squares), so that it takes half of each normalised step: with
    a share of 1/26 the square tables soaked up the mean error, and the
    player favoured the patterns training happened to have seen."""

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.squares = np.array([[r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1]
                                 for r in range(rows - 1) for c in range(cols - 1)], dtype=np.int64)
        self.n_squares = len(self.squares)
        self.powers = N_CODES ** np.arange(TUPLE_CELLS - 1, -1, -1, dtype=np.int64)
        self.offsets = np.arange(self.n_squares, dtype=np.int64) * TUPLE_STATES
        self.stage_size = self.n_squares * TUPLE_STATES
        self.bias_start = STAGES * self.stage_size
        self.bias_repeat = max(1, round(self.n_squares ** 0.5))
        self.size = self.bias_start + MAX_ROUNDS_LEFT + 1

    @staticmethod
    def stage(rounds_left: int) -> int:
        """The stage of a decision with `rounds_left` rounds after it (0: the last rounds)."""
        return sum(rounds_left > end for end in STAGE_ENDS)

    def indices(self, codes: np.ndarray, rounds_left: int) -> np.ndarray:
        """The active weights of every board (`codes`: boards x cells): each square's, then the round's bias."""
        squares = codes[:, self.squares] @ self.powers + self.offsets + self.stage(rounds_left) * self.stage_size
        bias = np.full((len(codes), self.bias_repeat), self.bias_start + min(rounds_left, MAX_ROUNDS_LEFT),
                       dtype=np.int64)
        return np.concatenate([squares, bias], axis=1)


def board_codes(board: Board) -> np.ndarray:
    """The cell contents of a board (see `N_CODES`)."""
    layout = board.layout
    codes = np.zeros(layout.n, dtype=np.int64)
    for code, mask in enumerate(board.masks):
        codes[_cells(mask, layout.n)] = code + 1
    for cell, _pair in board.construction:
        codes[_cells(cell, layout.n)] = CONSTRUCTION_CODE
    return codes


def _bits(masks: Sequence[int], n: int) -> np.ndarray:
    """Which of `n` cells each mask covers (masks x cells, bool): unsigned, as
    a board of the largest size (8 x 8) has a 64th cell."""
    cells = np.arange(n, dtype=np.uint64)
    return ((np.array(masks, dtype=np.uint64)[:, None] >> cells) & np.uint64(1)).astype(bool)


def _cells(mask: int, n: int) -> np.ndarray:
    """The cells one mask covers."""
    return np.flatnonzero(_bits([mask], n)[0])


def candidate_codes(board: Board, placements: Sequence[tuple[int, int]]) -> np.ndarray:
    """The cell contents of `board` after each (building code, cell mask)
    placement, construction tiles the placement clears included."""
    layout = board.layout
    base = board_codes(board)
    codes = np.repeat(base[None, :], len(placements), axis=0)
    n = layout.n
    placed = _bits([mask for _code, mask in placements], n)
    building = np.array([code + 1 for code, _mask in placements], dtype=np.int64)
    codes[placed] = np.repeat(building, placed.sum(axis=1))
    if board.construction:
        pairs, neighbours = layout.pairs, layout.neighbours
        for row, (code, mask) in enumerate(placements):
            if not mask:
                continue
            after = list(board.masks)
            after[code] |= mask
            for cell, pair in board.construction:
                first, second = pairs[pair]
                if code in (first, second) and after[first] & neighbours(after[second]):
                    codes[row, _cells(cell, n)] = 0
    return codes


class LearnedModel:
    """A weight vector for boards of one size, with the layout that reads it."""

    def __init__(self, rows: int, cols: int, weights: np.ndarray | None = None, meta: Mapping | None = None) -> None:
        self.layout = TupleLayout(rows, cols)
        if weights is None:
            weights = np.zeros(self.layout.size, dtype=np.float64)
        if weights.shape != (self.layout.size,):
            raise ModelFileError(f"{len(weights)} weights do not fit a {rows}x{cols} board's "
                                 f"{self.layout.size}")
        self.weights = weights
        self.meta = dict(meta or {})

    def corrections(self, codes: np.ndarray, rounds_left: int) -> tuple[np.ndarray, np.ndarray]:
        """(active weights, correction) of each candidate board."""
        active = self.layout.indices(codes, rounds_left)
        return active, self.weights[active].sum(axis=1)

    def save(self, path: str | Path) -> None:
        with open(path, "wb") as handle:
            np.savez_compressed(handle, weights=self.weights.astype(np.float32), rows=self.layout.rows,
                                cols=self.layout.cols, meta=np.array(json.dumps(self.meta)))

    @classmethod
    def load(cls, path: str | Path) -> "LearnedModel":
        path = Path(path)
        try:
            if path.stat().st_size > MAX_MODEL_BYTES:
                raise ModelFileError(f"{path}: larger than {MAX_MODEL_BYTES >> 20} MB, not a model file")
            with np.load(path, allow_pickle=False) as archive:
                rows, cols = int(archive["rows"]), int(archive["cols"])
                weights = archive["weights"].astype(np.float64)
                meta = json.loads(str(archive["meta"]))
        except ModelFileError:
            raise
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise ModelFileError(f"{path}: not a Shake That City model file ({exc})") from None
        if not np.all(np.isfinite(weights)):
            raise ModelFileError(f"{path}: its weights are not all finite")
        if not (2 <= rows <= 16 and 2 <= cols <= 16):
            raise ModelFileError(f"{path}: a {rows}x{cols} board is not one this game has")
        return cls(rows, cols, weights, meta)


@lru_cache(maxsize=16)
def cached_model(path: str, mtime_ns: int) -> LearnedModel:
    return LearnedModel.load(path)


@lru_cache(maxsize=4)
def empty_model(rows: int, cols: int) -> LearnedModel:
    """The model of no correction (greedy's play), one per board size: shared, never trained."""
    return LearnedModel(rows, cols)


def bundled_weights(side: str, solo: bool = False, family: bool = False) -> Path:
    """The bundled model file of a board side, under the solo rules or not,
    and in the family variant or not (which may not exist: then `learned`
    plays as greedy). Solo play closes the pattern's most numerous colour and
    the family variant scores no building tiles: a model trained without
    them misleads there (the two-player model played solo won 47.0% of
    games where greedy won 47.9%, and lost to lookahead by 2.8 points a game
    in the family variant), so each has models of its own."""
    return WEIGHTS_FOLDER / f"{side}{'-family' if family else ''}{'-solo' if solo else ''}.npz"
    return WEIGHTS_FOLDER / f"{side}{'-solo' if solo else ''}.npz"