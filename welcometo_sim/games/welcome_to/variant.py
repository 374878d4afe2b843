"""Which rules a game is played with: variant switches plus the data tables."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .boards import BOARD_RULES, Board
from .data import BOARDS, DEFAULT_DATA, GameData, PlanSpec
from .overrides import apply_overrides

MAX_PLAYERS = 12


class VariantError(ValueError):
    """An impossible combination of rules (e.g. solo with two players)."""


@dataclass(frozen=True)
class Variant:
    """Static rules of a game, separate from any game state.

    `advanced` adds roundabouts and the advanced plans (decks 1 and 2);
    `expert` gives each player a private hand; `solo` is the one-player mode
    with the solo card; `board` picks a thematic board, whose plans replace
    deck n°3.
    """

    advanced: bool = False
    expert: bool = False
    solo: bool = False
    board: str = "base"
    data: GameData = field(default=DEFAULT_DATA, compare=False)
    overrides: dict = field(default_factory=dict, compare=False)
    """The what-if overrides `data` was made with (overrides.py), for records."""

    @classmethod
    def with_overrides(cls, overrides: dict | None = None, **switches: Any) -> "Variant":
        """A variant whose data tables are the published ones changed by `overrides`."""
        data = apply_overrides(DEFAULT_DATA, overrides) if overrides else DEFAULT_DATA
        return cls(data=data, overrides=dict(overrides or {}), **switches)

    def check(self, n_players: int) -> None:
        """Raise VariantError when these rules cannot be played by n_players."""
        if not 1 <= n_players <= MAX_PLAYERS:
            raise VariantError(f"{n_players} players: the game takes 1 to {MAX_PLAYERS}")
        if self.board not in BOARDS:
            raise VariantError(f"unknown board {self.board!r} (known: {', '.join(BOARDS)})")
        if self.solo and n_players != 1:
            raise VariantError(f"solo mode is for 1 player, not {n_players}")
        if self.expert and n_players < 2:
            raise VariantError("expert rules need at least 2 players")
        if self.solo and self.expert:
            raise VariantError("solo mode and expert rules cannot be combined")

    @property
    def rules(self) -> Board:
        """The board's rules object (hooks called by the game)."""
        return BOARD_RULES[self.board]

    def plan_deck(self, deck: int) -> tuple[PlanSpec, ...]:
        """The cards of plan deck n°`deck` (1..3) under this variant."""
        data = self.data
        if deck == 3 and self.board != "base":
            return data.board_plans[self.board]
        cards = data.plans_of_deck(deck)
        if self.advanced:
            cards += tuple(p for p in data.advanced_plans if p.deck == deck)
        return cards

    def to_record(self) -> dict:
        record: dict[str, Any] = {"advanced": self.advanced, "expert": self.expert, "solo": self.solo,
                                  "board": self.board}
        if self.overrides:
            record["overrides"] = self.overrides
        return record
