"""Strategies for Shake That City: the API, loading by name, and the built-in ladder.

A strategy is a subclass of :class:`Strategy` with one hook,
``choose(view, moves)``: `view` is a :class:`~.moves.View` (the strategy's own
copies: its board, every board as of the round's start, the pattern, the
colours open to it, the masks each move covers, the shaker), `moves` the legal
:class:`~.board.Move` list (never empty: a player with no legal move places
nothing without being asked). It answers one of `moves`; the game matches the
answer by exact type and plain values and plays its own option. `self.rng` is
the seat's generator (from the game seed), `self.params` the class's `defaults`
overlaid with the config's parameters: a strategy is made as
``Strategy(rng, params)``, as in every game (see `welcometo_sim.games.strategy_base`).

Built-ins, weakest first:

- `random`: a uniform legal move;
- `greedy`: the move whose board has the best *value*: its points now (tiles and
  flipped bonus tiles, as the variant counts them) plus a potential
  (see :mod:`.evaluation`); in the last round the exact final score;
- `lookahead`: greedy's best `candidates` moves, each judged by the mean, over
  `samples` shakes of the next round drawn from the shaker it will use (the
  same shakes for every candidate), of greedy's best reply value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np

from ..strategy_base import BaseStrategy
from .board import WILD_CODE, Board, Move
from .data import BUILDINGS
from .moves import View, allowed_buildings
from .rules import parse_move
from .batch import batch_values
from .evaluation import Evaluator
from .learned import LearnedModel, ModelFileError, bundled_weights, cached_model, candidate_codes, empty_model
from .shake import CUBE_NAMES, frame_bits, shake


class Strategy(BaseStrategy):
    """Base class of Shake That City's strategies: one object plays one seat of
    one game. Made as ``Strategy(rng, params)`` like every game's strategies
    (see :class:`~welcometo_sim.games.strategy_base.BaseStrategy`, which also
    keeps the first API's ``Strategy(params)`` and `bind` working)."""

    name = "base"

    def choose(self, view: View, moves: Sequence[Move]) -> Move:
        """One of `moves` (required)."""
        raise NotImplementedError


class RandomStrategy(Strategy):
    """Uniform over the legal moves: the baseline."""

    name = "random"

    def choose(self, view: View, moves: Sequence[Move]) -> Move:
        return moves[int(self.rng.integers(len(moves)))]


class GreedyStrategy(Strategy):
    """One-ply search: the move whose board has the best value (see :mod:`.evaluation`)."""

    name = "greedy"
    defaults = {"open": 0.5, "bonus": 1.0, "construction": 4.0, "construction_growth": 0.1,
                "space": 0.05}

    def __init__(self, rng: np.random.Generator | None = None, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(rng, params)
        self.evaluator = Evaluator(self.params)

    def ranked(self, view: View, moves: Sequence[Move]) -> list[tuple[float, int, Move]]:
        """Every move with its value, best first (ties: the earlier move)."""
        masks = view.masks
        placements = [(BUILDINGS.index(m.building), masks[m]) for m in moves]
        values = self.evaluator.values(view.board, view, view.rounds_left, placements)
        return sorted(((v, -i, m) for i, (v, m) in enumerate(zip(values, moves))), reverse=True)

    def choose(self, view: View, moves: Sequence[Move]) -> Move:
        if len(moves) == 1:
            return moves[0]
        return self.ranked(view, moves)[0][2]


class LookaheadStrategy(GreedyStrategy):
    """Greedy's `candidates` best moves, each valued by the mean over `samples`
    sampled next shakes of greedy's best reply (free colour choice assumed for
    the reply, the solo rule kept); the last round is greedy's exact score."""

    name = "lookahead"
    defaults = {**GreedyStrategy.defaults, "candidates": 3, "samples": 4}

    @classmethod
    def check_params(cls, params: Mapping[str, Any]) -> None:
        if params["candidates"] < 1 or params["samples"] < 1:
            raise ValueError("candidates and samples must be at least 1")

    def choose(self, view: View, moves: Sequence[Move]) -> Move:
        if len(moves) == 1:
            return moves[0]
        ranked = self.ranked(view, moves)
        if view.rounds_left == 0:
            return ranked[0][2]
        shaker = [view.next_shaker[name] for name in CUBE_NAMES]
        cells = view.rules.data.pattern_size ** 2
        patterns = [shake(self.rng, shaker, cells) for _ in range(self.params["samples"])]
        candidates = [move for _, _, move in ranked[:self.params["candidates"]]]
        boards = [view.after(move) for move in candidates]
        replies = self.replies(boards, view, patterns)
        best_move, best_value = ranked[0][2], float("-inf")
        for move, values in zip(candidates, replies):
            value = sum(values) / len(values)
            if value > best_value:
                best_move, best_value = move, value
        return best_move

    def replies(self, boards: Sequence[Board], view: View,
                patterns: Sequence[Sequence[int]]) -> list[list[float]]:
        """Greedy's best value after each sampled next shake, per candidate board,
        all boards scored in one numpy batch (see :mod:`.batch`)."""
        free = view.round + 1 > view.rounds - view.rules.data.free_rounds
        solo = view.rules.variant.solo
        allowed = [allowed_buildings(p, free, None, True, solo) for p in patterns]
        rows, bounds = [], []
        for b, board in enumerate(boards):
            for pattern, colours in zip(patterns, allowed):
                start = len(rows)
                rows.append((b, 0, 0))
                rows.extend((b, code, mask) for code, mask in placements_on(board, pattern, colours))
                bounds.append(start)
        values = batch_values(self.evaluator, view, view.rounds_left - 1, boards, rows)
        best = np.maximum.reduceat(values, bounds).tolist()
        k = len(patterns)
        return [best[i * k:(i + 1) * k] for i in range(len(boards))]

    def reply(self, board: Board, view: View, pattern: Sequence[int]) -> float:
        """Greedy's best value after the next round's shake `pattern` (one board, in Python)."""
        free = view.round + 1 > view.rounds - view.rules.data.free_rounds
        allowed = allowed_buildings(pattern, free, None, True, view.rules.variant.solo)
        placements = [(0, 0), *placements_on(board, pattern, allowed)]
        return max(self.evaluator.values(board, view, view.rounds_left - 1, placements))


def placements_on(board: Board, pattern: Sequence[int], allowed: Sequence[str]) -> list[tuple[int, int]]:
    """(building code, mask) of every legal placement of the allowed colours (see `legal_moves`)."""
    layout, occupied = board.layout, board.occupied
    wild = frame_bits(pattern, WILD_CODE)
    out = []
    for building in allowed:
        code = BUILDINGS.index(building)
        own = frame_bits(pattern, code)
        for frame in ((own, own | wild) if wild else (own,)):
            out.extend((code, mask) for _, _, mask in layout.placements(frame) if not mask & occupied)
    return out


class Replayer(Strategy):
    """Plays the moves of a record (for `replay`)."""

    name = "replay"

    def __init__(self, rounds: Sequence[Mapping], seat: int) -> None:
        super().__init__(None)
        self.rounds, self.recorded_seat = rounds, seat

    def choose(self, view: View, moves: Sequence[Move]) -> Move | None:
        return parse_move(self.rounds[view.round - 1]["moves"][self.recorded_seat])


class LearnedStrategy(GreedyStrategy):
    """Greedy's value plus a learned correction (see :mod:`.learned`).
    `weights`: a model file from `wtsim train`; empty plays the bundled model
    of the board's side, player count (solo or not) and family variant, or as
    greedy where there is none."""

    name = "learned"
    defaults = {**GreedyStrategy.defaults, "weights": ""}

    def __init__(self, rng: np.random.Generator | None = None, params: Mapping[str, Any] | None = None,
                 model: LearnedModel | None = None, trace: bool = False) -> None:
        super().__init__(rng, params)
        self.model = model
        if model is None and self.params["weights"]:
            self.model = self._load(self.params["weights"])
        self.trace: list[tuple[np.ndarray, float, int]] | None = [] if trace else None

    @staticmethod
    def _load(path: str) -> LearnedModel:
        try:
            return cached_model(str(path), Path(path).stat().st_mtime_ns)
        except OSError as exc:
            raise ModelFileError(f"weights={path}: {exc.strerror or exc}") from None

    def _model_for(self, view: View) -> LearnedModel:
        size = (view.rules.data.rows, view.rules.data.cols)
        if self.model is None:
            variant = view.rules.variant
            bundled = bundled_weights(view.rules.layout.side, variant.solo, variant.family)
            self.model = self._load(str(bundled)) if bundled.is_file() else empty_model(*size)
            if (self.model.layout.rows, self.model.layout.cols) != size:  # a board whose size overrides change
                self.model = empty_model(*size)
        if (self.model.layout.rows, self.model.layout.cols) != size:
            raise ModelFileError(f"a model of a {self.model.layout.rows}x{self.model.layout.cols} board cannot "
                                 f"play a {view.rules.data.rows}x{view.rules.data.cols} one")
        return self.model

    def choose(self, view: View, moves: Sequence[Move]) -> Move:
        masks = view.masks
        placements = [(BUILDINGS.index(m.building), masks[m]) for m in moves]
        values = np.array(self.evaluator.values(view.board, view, view.rounds_left, placements))
        if view.rounds_left <= 0:
            return moves[int(np.argmax(values))]
        active, corrections = self._model_for(view).corrections(candidate_codes(view.board, placements),
                                                               view.rounds_left)
        values = values + corrections
        best = int(np.argmax(values))
        if self.trace is not None:
            chosen = active[best]
            _, counts = np.unique(chosen, return_counts=True)
            self.trace.append((chosen, float(values[best]), int((counts * counts).sum())))
        return moves[best]


STRATEGIES: dict[str, type[Strategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "lookahead": LookaheadStrategy,
    "learned": LearnedStrategy,
}


class Player(NamedTuple):
    """A seat: its display name and its strategy object."""

    name: str
    strategy: Strategy


def make_strategy(spec: Any, params: Mapping | None = None, rng: np.random.Generator | None = None,
                  seat: int = 0) -> Strategy:
    """A strategy object for `seat` from a registered name or a Strategy subclass
    (made with the seat's generator `rng`), or an instance (bound to the seat
    and `rng`: the compatibility path of objects made before their game)."""
    if isinstance(spec, Strategy):
        if params:
            raise ValueError("parameters go to a strategy name or class, not an instance")
        if rng is not None:
            spec.bind(seat, rng)
        return spec
    if isinstance(spec, type) and issubclass(spec, Strategy):
        return spec(rng, params)
    if isinstance(spec, str):
        if spec not in STRATEGIES:
            raise ValueError(f"unknown strategy {spec!r} (known: {', '.join(STRATEGIES)})")
        return STRATEGIES[spec](rng, params)
    raise ValueError(f"a seat is a strategy name, class or object, not {type(spec).__name__}")


def seat_strategies(seats: Sequence[Any], rngs: Sequence[np.random.Generator] | None = None) -> list[Player]:
    """Players from seat specs (`name`, class, instance or `{strategy, params, name}`),
    each strategy with its seat's generator from `rngs` (none: placeholders,
    for a game that binds them later); display names default to the
    strategy's, repeats get -2, -3, ..."""
    if not seats:
        raise ValueError("a game needs at least one seat")
    players = []
    seen: dict[str, int] = {}
    for seat, spec in enumerate(seats):
        rng = None if rngs is None else rngs[seat]
        name = None
        if isinstance(spec, Mapping):
            strategy = make_strategy(spec["strategy"], spec.get("params"), rng, seat)
            name = spec.get("name")
        else:
            strategy = make_strategy(spec, None, rng, seat)
        if name is None:
            base = strategy.name
            seen[base] = seen.get(base, 0) + 1
            name = base if seen[base] == 1 else f"{base}-{seen[base]}"
        players.append(Player(str(name), strategy))
    return players
