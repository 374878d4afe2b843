"""What a player may answer in a round: the colours open to them and the legal placements.

Colour choice (rules, step 2): the start player picks any colour of the
pattern; every other player then picks a colour different from the start
player's (they may pick the same as each other). In the last `free_rounds`
rounds anyone may pick any colour of the pattern. Solo: the pattern's most
numerous colour is closed unless several colours share the most cubes (wild
cubes are no colour here), except in the last rounds.

Placement (step 3): all the buildings of the chosen colour go on empty cells
in the pattern's exact shape and orientation, translated only; a colour that
cannot be placed whole cannot be chosen, and a player with no such colour
places nothing (the only answer is then `None`, given without asking).
With wild cubes shown, a colour may be taken with all of them (`Move.wild`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from .board import Board, Move, WILD_CODE
from .data import BUILDINGS
from .rules import Rules


def allowed_buildings(pattern: Sequence[int], free: bool, start_choice: str | None,
                      is_start: bool, solo: bool) -> tuple[str, ...]:
    """The building types one player may choose this round, in code order."""
    counts = [sum(1 for c in pattern if c == code) for code in range(len(BUILDINGS))]
    shown = [b for b, n in zip(BUILDINGS, counts) if n]
    if free:
        return tuple(shown)
    if solo:
        most = max(counts)
        if counts.count(most) == 1:
            shown.remove(BUILDINGS[counts.index(most)])
        return tuple(shown)
    if is_start or start_choice is None:
        return tuple(shown)
    return tuple(b for b in shown if b != start_choice)


def legal_moves(board: Board, pattern: Sequence[int], allowed: Sequence[str]) -> dict[Move, int]:
    """Every legal placement of the allowed colours on `board`, with the cells it
    covers (a mask), in a fixed order: colour, without then with wilds, row, col."""
    layout = board.layout
    occupied = board.occupied
    frames = [0] * (WILD_CODE + 1)
    for i, code in enumerate(pattern):
        frames[code] |= 1 << i
    wild = frames[WILD_CODE]
    moves: dict[Move, int] = {}
    for building in allowed:
        own = frames[BUILDINGS.index(building)]
        for with_wild in ((False, True) if wild else (False,)):
            frame = own | wild if with_wild else own
            moves.update({move: mask for move, mask in layout.moves(frame, building, with_wild)
                          if not mask & occupied})
    return moves


@dataclass(frozen=True)
class View:
    """What one player knows when asked for a move (all of it the strategy's own copies).

    `board` is the player's board now; `boards` every seat's board at the start of
    the round (choices are simultaneous); `pattern` the 9 cube names in reading
    order; `start_choice` the colour the start player took this round (None for the
    start player, or when they placed nothing); `allowed` the colours open to this
    player; `masks` the cells each legal move covers; `shaker` the cubes the
    pattern was drawn from and `next_shaker` those the next round will draw from
    (empty after the last round); `tiles` the bonus tile id of each slot (corner,
    north, west); `supply` the building tiles left of each type as this player
    takes theirs (players take in turn from the start player; None: unlimited)."""

    seat: int
    round: int
    rounds: int
    n_players: int
    start_player: int
    pattern: tuple[str, ...]
    start_choice: str | None
    allowed: tuple[str, ...]
    board: Board
    boards: tuple[Board, ...]
    masks: Mapping[Move, int]
    shaker: Mapping[str, int]
    next_shaker: Mapping[str, int]
    tiles: tuple[int, ...]
    rules: Rules
    supply: Mapping[str, int] | None = None

    @property
    def is_start(self) -> bool:
        return self.seat == self.start_player

    @property
    def rounds_left(self) -> int:
        """Rounds after this one."""
        return self.rounds - self.round

    @property
    def free(self) -> bool:
        """Whether this is one of the last rounds, where any colour may be chosen."""
        return self.round > self.rounds - self.rules.data.free_rounds

    def after(self, move: Move | None) -> Board:
        """The player's board after `move` (construction tiles updated), for look-ahead."""
        if move is None:
            return self.board
        return self.board.place(move.building, self.masks[move])
