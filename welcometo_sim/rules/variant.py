"""Which rules a game is played with: variant switches plus the data tables."""

from __future__ import annotations

from dataclasses import dataclass, field

from .data import DEFAULT_DATA, GameData, PlanSpec

BOARDS: tuple[str, ...] = ("base",)
"""Boards this version of the engine can play."""


class VariantError(ValueError):
    """An impossible combination of rules (e.g. solo with two players)."""


@dataclass(frozen=True)
class Variant:
    """Static rules of a game, separate from any game state."""

    advanced: bool = False
    expert: bool = False
    solo: bool = False
    board: str = "base"
    data: GameData = field(default=DEFAULT_DATA, compare=False)

    def check(self, n_players: int) -> None:
        """Raise VariantError when these rules cannot be played by n_players."""
        if not 1 <= n_players <= 12:
            raise VariantError(f"{n_players} players: the game takes 1 to 12")
        if self.board not in BOARDS:
            raise VariantError(f"unknown board {self.board!r} (known: {', '.join(BOARDS)})")
        for name in ("advanced", "expert", "solo"):
            if getattr(self, name):
                raise VariantError(f"the {name} variant is not available in this version")

    def plan_deck(self, deck: int) -> tuple[PlanSpec, ...]:
        """The cards of plan deck n°`deck` (1..3) under this variant."""
        return self.data.plans_of_deck(deck)

    def to_record(self) -> dict:
        return {"advanced": self.advanced, "expert": self.expert, "solo": self.solo, "board": self.board}
