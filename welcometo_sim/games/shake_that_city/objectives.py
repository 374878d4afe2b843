"""Shake That City's objectives (see welcometo_sim.games.objectives).

Deck 1 holds the bonus tiles: a flipped tile scores its points (`bonus.points`,
else `scoring.bonus`), with no race, so its high and low values are equal.
With the construction tiles, deck 2 holds their building pairs: a pair
scores nothing itself (every pair has to leave the board for its player to
score at all), so it is measured (completion, timing) but has no points to
balance.

Every game of the rules deals every tile into a slot (the corner tile and
one tile per north and west slot) and every construction pair onto the
board, so every objective is in play in every game: the trial games of a
deck are played once, and each objective's block of trials is those games,
read for that objective. The round at which a seat completed an objective
is read from the game's record, replayed board by board: the conditions only
ever become true as buildings are added, so the first round it holds is when
the tile flips (or the pair leaves) and it holds at the end.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ...sim.frames import to_frame
from ...sim.runner import run_chunks
from ..objectives import Objective, Points, merge_overrides
from .board import Board
from .data import BUILDINGS, Condition
from .moves import legal_moves
from .rules import Rules, load_rules, parse_move
from .scoring import flipped_tiles
from .shake import parse_pattern

BONUS_DECK, CONSTRUCTION_DECK = 1, 2
COMPLETED = "objective_round"
"""The trial table's column: the round the seat completed the forced objective (NA: never)."""


def tile_id(tile: int) -> str:
    return f"tile-{tile}"


def pair_id(pair: tuple[int, int]) -> str:
    return f"pair-{BUILDINGS[pair[0]]}-{BUILDINGS[pair[1]]}"


def condition_text(condition: Condition) -> str:
    """One way to flip a tile, in a few words."""
    if condition.kind == "full":
        return "line full"
    if condition.kind == "distinct":
        return f"{condition.at_least}+ types"
    return f"{condition.at_least}+ {condition.building}s"


def completion_rounds(record: Mapping, rules: Rules) -> list[dict[str, int]]:
    """Per seat of a game's record: objective id -> the round it was completed
    (bonus tiles flipped, construction pairs removed; objectives never
    completed are absent)."""
    layout = rules.layout
    tiles = tuple(record["tiles"])
    construction = tuple((layout.bit(r, c), pair) for r, c, pair in record["construction"])
    boards = [Board(layout, construction=construction) for _ in record["players"]]
    done: list[dict[str, int]] = [{} for _ in boards]
    cells = rules.data.pattern_size ** 2
    for entry in record["rounds"]:
        pattern = parse_pattern(entry["pattern"], cells)
        for seat, move in enumerate(map(parse_move, entry["moves"])):
            if move is not None:
                frame = legal_moves(boards[seat], pattern, (move.building,))[move]
                boards[seat] = boards[seat].place(move.building, frame)
            _note(done[seat], boards[seat], entry["round"], tiles, construction, rules)
    return done


def _note(done: dict[str, int], board: Board, round_: int, tiles: tuple[int, ...],
          construction: tuple, rules: Rules) -> None:
    """Adds to `done` the objectives `board` completes first at `round_`."""
    for tile, flipped in zip(tiles, flipped_tiles(board.layout, rules.points, tiles, board.masks)):
        if flipped:
            done.setdefault(tile_id(tile), round_)
    left = {pair for _cell, pair in board.construction}
    for _cell, pair in construction:
        if pair not in left:
            done.setdefault(pair_id(rules.data.construction_pairs[pair]), round_)


class CityObjectives:
    """Shake That City's objectives capability (see the module docstring)."""

    noun = "objective"
    races = False

    @staticmethod
    def _rules(spec: Any) -> Rules:
        return load_rules(spec.game_params, len(spec.players))

    def decks(self, spec: Any) -> dict[int, str]:
        rules = self._rules(spec)
        decks = {BONUS_DECK: "bonus tiles"}
        if rules.variant.uses_construction:
            decks[CONSTRUCTION_DECK] = "construction pairs"
        return decks

    def deck(self, spec: Any, deck: int) -> tuple[Objective, ...]:
        rules = self._rules(spec)
        data = rules.data
        if deck == BONUS_DECK:
            return tuple(Objective(tile_id(tile), " or ".join(map(condition_text, data.conditions(tile))),
                                   BONUS_DECK, (data.tile_value(tile),) * 2) for tile in data.tile_ids)
        if deck == CONSTRUCTION_DECK and rules.variant.uses_construction:
            return tuple(Objective(pair_id(pair), f"{BUILDINGS[pair[0]]} next to {BUILDINGS[pair[1]]}",
                                   CONSTRUCTION_DECK, (0, 0)) for pair in data.construction_pairs)
        return ()

    def catalogue(self, spec: Any) -> dict[str, Objective]:
        return {o.id: o for deck in self.decks(spec) for o in self.deck(spec, deck)}

    def trial_games(self, spec: Any, games: int, decks: Sequence[int]) -> int:
        return games if decks else 0

    def trials(self, spec: Any, games: int, decks: Sequence[int], progress: Any) -> pd.DataFrame:
        """The games once, then one block per objective of `decks` (the same games)."""
        records: list[dict] = []

        def seen(chunk: Any) -> None:
            records.extend(json.loads(line) for line in chunk.records)
            if progress is not None:
                progress(chunk.stop - chunk.start)
        columns, _seconds = run_chunks(replace(spec, games=games), record=True, on_chunk=seen)
        frame = to_frame(columns)
        rules = self._rules(spec)
        frame["turns"] = rules.data.rounds
        rounds = {record["game"]: completion_rounds(record, rules) for record in records}
        blocks = []
        for deck in decks:
            for objective in self.deck(spec, deck):
                block = frame.copy()
                block[COMPLETED] = pd.array([rounds[g][s].get(objective.id) for g, s in
                                             zip(block["game"], block["seat"])], dtype="Int64")
                block.insert(0, "forced_plan", objective.id)
                block.insert(0, "forced_deck", deck)
                blocks.append(block)
        return pd.concat(blocks, ignore_index=True)

    def outcome(self, trial: pd.DataFrame, objective: Any) -> tuple[np.ndarray, np.ndarray]:
        rounds = trial[COMPLETED].to_numpy(dtype=float, na_value=np.nan)
        return rounds, ~np.isnan(rounds)

    def with_points(self, spec: Any, points: Points) -> Any:
        params = copy.deepcopy(dict(spec.game_params or {}))
        params["overrides"] = merge_overrides(params.get("overrides"), self.overrides(points))
        load_rules(params, len(spec.players))  # a value the data refuses fails here, in one line
        return replace(spec, game_params=params)

    def overrides(self, points: Points) -> dict:
        tiles = {}
        for objective, (high, _low) in points.items():
            if not objective.startswith("tile-"):
                raise ValueError(f"{objective}: only bonus tiles have points to set")
            tiles[int(objective[len("tile-"):])] = int(high)
        return {"bonus": {"points": tiles}}


OBJECTIVES = CityObjectives()
"""The objectives capability (see welcometo_sim.games.objectives)."""
