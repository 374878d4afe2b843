"""One game of the engine, paused at every decision.

An environment steps the game (the agent calls `step`), so a session holds
the engine's :class:`~welcometo_sim.games.welcome_to.game.GameState` and turns each of
its decisions into the environments' :class:`~.encoding.Decision` steps: the
same questions :class:`~.policy.DecidingStrategy` asks in an ordinary game
(a turn's plans one claim at a time), so a session plays the game
`play_game` plays with the same seed and answers.
"""

from __future__ import annotations

from typing import Any

from ..game import CHANCE, GameResult, GameState
from ..plans import PlanClaim, apply_claim, claim_options
from ..variant import Variant
from .encoding import Decision, encode


class GameSession:
    """A game stopped at `pending`: the Decision waiting for an answer, or the
    GameResult once the game is over. `game` is the engine's state."""

    def __init__(self, variant: Variant, n_players: int, seed: int) -> None:
        self.game = GameState(variant, n_players, seed)
        self.solo = variant.solo
        self._players = [(f"player_{i}", "env") for i in range(n_players)]
        self._play: Any = None
        self._chosen: list[PlanClaim] = []
        self._plan_sheet: Any = None
        self.pending: Decision | GameResult = self._next()

    @property
    def over(self) -> bool:
        return isinstance(self.pending, GameResult)

    def answer(self, option: Any) -> None:
        """Answer the pending decision with one of its options; returns once the
        game asks the next question or ends."""
        if self.over:
            raise RuntimeError("the game is over")
        state = self.game
        kind = state.decision.kind  # type: ignore[union-attr]
        if kind == "plans":
            self._answer_plans(option)
        else:
            if kind == "play":
                self._play = option
            elif kind == "roundabout":
                self._play = None
            state.apply(option)
        self.pending = self._next()

    def totals(self) -> list[int]:
        """Every seat's score as the sheets stand (the final scores once over)."""
        if isinstance(self.pending, GameResult):
            return [score["total"] for score in self.pending.scores]
        return [score["total"] for score in self.game.scores()]

    # ------------------------------------------------------------ the steps
    def _answer_plans(self, claim: PlanClaim | None) -> None:
        """One claim of the turn's plans (None: no more); the turn's claims go to
        the game when the seat stops or nothing more can be claimed."""
        if claim is not None:
            self._chosen.append(claim)
            view = self.game.decision.view  # type: ignore[union-attr]
            apply_claim(self._plan_sheet, view.plans, claim, view.turn)
            if claim_options(self._plan_sheet, view.plans):
                return
        chosen, self._chosen, self._plan_sheet, self._play = self._chosen, [], None, None
        self.game.apply(chosen)

    def _next(self) -> Decision | GameResult:
        state = self.game
        while state.decision is not None and state.decision.seat == CHANCE:
            state.apply(None)
        pending = state.decision
        if pending is None:
            return state.result(self._players)
        kind, view = pending.kind, pending.view
        if kind == "plans":
            if self._plan_sheet is None:
                self._plan_sheet = view.sheet.copy()
            options = pending.options if not self._chosen else claim_options(self._plan_sheet, view.plans)
            decision = Decision("plans", view, [*options, None], self._plan_sheet,
                                claimed=tuple(c.deck for c in self._chosen))
        elif kind == "effect":
            decision = Decision("effect", view, pending.options[:], view.sheet, play=self._play)
        else:
            decision = Decision(kind, view, pending.options[:], view.sheet)
        return encode(decision)


class SessionOwner:
    """What both environments do with the game they hold in `_session`: drop it on close."""

    _session: GameSession | None = None

    def close(self) -> None:
        self._session = None
