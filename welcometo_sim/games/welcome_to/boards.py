"""Thematic boards (RULES.md §12): ice-cream trucks, Christmas lights, Easter eggs.

A board is a small rules object with hooks the game calls: `new_state` (per
sheet), `on_write` (the offered number was written, never a bis), `settle`
(end of turn: races between players) and `bonus` (its score). Board state
lives on the sheet (`sheet.board`) so copies and records carry it.
"""

from __future__ import annotations

from typing import Sequence

from .data import TRUCK_LEFT, TRUCK_RIGHT, GameData
from .sheet import Sheet

OPEN, SOLD, LOST = 1, 2, 3
"""Cone states; 0 means no cone on that house."""


class Board:
    """The base board: no extra state, no bonus."""

    name = "base"

    def new_state(self, data: GameData) -> object:
        return None

    def settle(self, sheets: Sequence[Sheet], race: list[int | None], turn: int) -> None:
        """End of turn: decide the races won this turn (ice cream street bonuses)."""

    def bonus(self, sheet: Sheet, race: Sequence[int | None]) -> int:
        """The board's score for this sheet (`race`: turn each street race was won)."""
        return 0 if sheet.board is None else sheet.board.points(sheet)  # type: ignore[attr-defined]


# ------------------------------------------------------------------ ice cream
class IceCreamState:
    """Per sheet: each truck's direction and position, each cone's fate, and
    the turn each truck finished its route."""

    __slots__ = ("direction", "position", "cones", "finished")

    def __init__(self, data: GameData) -> None:
        self.direction: list[str | None] = list(data.truck_directions)
        self.position: list[int | None] = [None] * len(data.street_houses)
        self.cones: list[list[int]] = [
            [OPEN if h in cones else 0 for h in range(n)]
            for n, cones in zip(data.street_houses, data.cones)
        ]
        self.finished: list[int | None] = [None] * len(data.street_houses)

    def copy(self) -> "IceCreamState":
        other = IceCreamState.__new__(IceCreamState)
        other.direction = self.direction[:]
        other.position = self.position[:]
        other.cones = [row[:] for row in self.cones]
        other.finished = self.finished[:]
        return other

    def undecided_streets(self) -> list[int]:
        return [s for s, d in enumerate(self.direction) if d is None]

    def on_write(self, sheet: Sheet, street: int, house: int, number: int, turn: int) -> None:
        """Drive the street's truck to `house` if that is further along its route:
        the cone there is sold, cones on the houses it passes are lost."""
        direction = self.direction[street]
        cones = self.cones[street]
        position = self.position[street]
        if direction == TRUCK_RIGHT:
            start = -1 if position is None else position
            if house <= start:
                return
            passed = range(start + 1, house)
        elif direction == TRUCK_LEFT:
            start = len(cones) if position is None else position
            if house >= start:
                return
            passed = range(house + 1, start)
        else:
            raise ValueError(f"street {street}: the truck has no direction yet")
        for h in passed:
            if cones[h] == OPEN:
                cones[h] = LOST
        if cones[house] == OPEN:
            cones[house] = SOLD
        self.position[street] = house
        if self.finished[street] is None and OPEN not in cones:
            self.finished[street] = turn

    def points(self, sheet: Sheet) -> int:
        """Scoops of the sold cones (street bonuses are decided by the race)."""
        return sum(sheet.data.cones[s][h] for s, row in enumerate(self.cones)
                   for h, c in enumerate(row) if c == SOLD)

    def sold(self, street: int) -> list[int]:
        return [h for h, state in enumerate(self.cones[street]) if state == SOLD]

    def record(self, sheet: Sheet) -> dict:
        return {
            "trucks": self.direction[:],
            "sold": [self.sold(s) for s in range(len(self.cones))],
            "lost": [[h for h, c in enumerate(row) if c == LOST] for row in self.cones],
            "finished": self.finished[:],
        }

    def lines(self, sheet: Sheet) -> list[str]:
        marks = {0: "", OPEN: "o", SOLD: "+", LOST: "x"}
        streets = []
        for s, row in enumerate(self.cones):
            cones = "".join(marks[c] for c in row if c)
            where = "start" if self.position[s] is None else f"h{self.position[s]}"
            streets.append(f"{s}:{self.direction[s] or '?'}@{where} {cones}")
        return ["ice cream (o open, + sold, x lost): " + "  ".join(streets)]


class IceCream(Board):
    name = "ice-cream"

    def new_state(self, data: GameData) -> IceCreamState:
        return IceCreamState(data)

    def settle(self, sheets: Sequence[Sheet], race: list[int | None], turn: int) -> None:
        for street in range(len(race)):
            if race[street] is None and any(s.board.finished[street] == turn for s in sheets):  # type: ignore[union-attr]
                race[street] = turn

    def bonus(self, sheet: Sheet, race: Sequence[int | None]) -> int:
        state: IceCreamState = sheet.board  # type: ignore[assignment]
        total = state.points(sheet)
        for street, row in enumerate(state.cones):
            if race[street] is not None and state.finished[street] == race[street]:
                total += row.count(SOLD)
        return total


# ----------------------------------------------------------- Christmas lights
def joined(sheet: Sheet, street: int, left: int) -> bool:
    """Whether houses `left` and `left + 1` are joined by lights: both built
    (no roundabout) with numbers differing by at most 1. Fences don't matter."""
    numbers = sheet.numbers[street]
    a, b = numbers[left], numbers[left + 1]
    return a is not None and b is not None and abs(a - b) <= 1


def longest_string(sheet: Sheet, street: int) -> int:
    """Houses in the street's longest string of lights (0 when none)."""
    best = run = 0
    for left in range(len(sheet.numbers[street]) - 1):
        run = run + 1 if joined(sheet, street, left) else 0
        best = max(best, run)
    return best + 1 if best else 0


class ChristmasState:
    """Lights are derived from the numbers; the state only renders them."""

    __slots__ = ()

    def copy(self) -> "ChristmasState":
        return self

    def undecided_streets(self) -> list[int]:
        return []

    def on_write(self, sheet: Sheet, street: int, house: int, number: int, turn: int) -> None:
        """Lights follow from the numbers; nothing to record."""

    def points(self, sheet: Sheet) -> int:
        """For each street, the houses in its longest string of lights."""
        return sum(longest_string(sheet, s) for s in range(len(sheet.numbers)))

    def record(self, sheet: Sheet) -> dict:
        return {"longest": [longest_string(sheet, s) for s in range(len(sheet.numbers))]}

    def lines(self, sheet: Sheet) -> list[str]:
        return [f"lights: longest string per street {self.record(sheet)['longest']}"]


class Christmas(Board):
    name = "christmas"

    def new_state(self, data: GameData) -> ChristmasState:
        return ChristmasState()

# ---------------------------------------------------------------- Easter eggs
class EasterState:
    """Eggs collected per house (None: not written yet, or no egg there)."""

    __slots__ = ("collected",)

    def __init__(self, data: GameData) -> None:
        self.collected: list[list[int | None]] = [[None] * n for n in data.street_houses]

    def copy(self) -> "EasterState":
        other = EasterState.__new__(EasterState)
        other.collected = [row[:] for row in self.collected]
        return other

    def total(self) -> int:
        return sum(c for row in self.collected for c in row if c)

    def points(self, sheet: Sheet) -> int:
        """Points of the best egg threshold reached."""
        total = self.total()
        for threshold, points in sheet.data.egg_scores:
            if total >= threshold:
                return points
        return 0

    def undecided_streets(self) -> list[int]:
        return []

    def on_write(self, sheet: Sheet, street: int, house: int, number: int, turn: int) -> None:
        """Writing the offered number on an egg house collects min(eggs, holes)."""
        eggs = sheet.data.eggs[street].get(house)
        if eggs:
            self.collected[street][house] = min(eggs, sheet.data.egg_holes.get(number, 0))

    def record(self, sheet: Sheet) -> dict:
        return {"eggs": [[[h, c] for h, c in enumerate(row) if c is not None] for row in self.collected]}

    def lines(self, sheet: Sheet) -> list[str]:
        per_street = [sum(c or 0 for c in row) for row in self.collected]
        return [f"eggs: {self.total()} collected, per street {per_street}"]


class Easter(Board):
    name = "easter"

    def new_state(self, data: GameData) -> EasterState:
        return EasterState(data)

BOARD_RULES: dict[str, Board] = {b.name: b for b in (Board(), IceCream(), Christmas(), Easter())}
