"""One game of the engine, paused at every decision.

The engine's turn loop calls strategies; an environment needs the opposite
(the agent calls `step`). A session therefore runs the unchanged
:class:`~welcometo_sim.rules.game.Game` in a worker thread whose seats are
:class:`_Relay` strategies: each question is handed to the caller and the
thread waits for the answer. Only one of the two threads runs at a time,
so a game is as deterministic as `play_game` with the same seed.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

import numpy as np

from ..rules.game import Game, GameResult, Seat
from ..rules.scoring import score_game
from ..rules.variant import Variant
from .encoding import Decision
from .policy import DecidingStrategy


class _Abort(BaseException):
    """Ends a paused game's thread (a BaseException, so the engine's handling
    of strategy errors does not turn it into one)."""


_STOP = object()


class _Relay(DecidingStrategy):
    """A seat whose answers come from the session's caller."""

    name = "env"

    def __init__(self, rng: np.random.Generator, session: "GameSession") -> None:
        super().__init__(rng)
        self.session = session

    def decide(self, decision: Decision) -> Any:
        return self.session._wait_for_answer(decision)


class GameSession:
    """A game in a worker thread, stopped at `pending`: the Decision waiting
    for an answer, or the GameResult once the game is over."""

    def __init__(self, variant: Variant, n_players: int, seed: int) -> None:
        self._questions: queue.Queue = queue.Queue(maxsize=1)
        self._answers: queue.Queue = queue.Queue(maxsize=1)
        seats = [Seat(f"player_{i}", "env", lambda rng: _Relay(rng, self)) for i in range(n_players)]
        self.game = Game(variant, seats, seed)
        self.solo = variant.solo
        self._thread = threading.Thread(target=self._run, name="welcometo-game", daemon=True)
        self._thread.start()
        self.pending: Decision | GameResult = self._next()

    @property
    def over(self) -> bool:
        return isinstance(self.pending, GameResult)

    def answer(self, option: Any) -> None:
        """Answer the pending decision with one of its options; returns once the
        game asks the next question or ends."""
        if self.over:
            raise RuntimeError("the game is over")
        self._answers.put(option)
        self.pending = self._next()

    def totals(self) -> list[int]:
        """Every seat's score as the sheets stand (the final scores once over)."""
        if isinstance(self.pending, GameResult):
            return [score["total"] for score in self.pending.scores]
        game = self.game
        return [s["total"] for s in score_game(game.sheets, solo=self.solo, bonus=game.bonus)]

    def close(self) -> None:
        """Stop a game still waiting for an answer (its thread ends)."""
        if self._thread.is_alive() and not self.over:
            self._answers.put(_STOP)
            self._thread.join()

    # ------------------------------------------------------------ the thread
    def _run(self) -> None:
        try:
            outcome: Any = self.game.play()
        except _Abort:
            return
        except BaseException as exc:  # handed to the caller, raised there
            outcome = exc
        self._questions.put(outcome)

    def _next(self) -> Decision | GameResult:
        item = self._questions.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def _wait_for_answer(self, decision: Decision) -> Any:
        self._questions.put(decision)
        answer = self._answers.get()
        if answer is _STOP:
            raise _Abort()
        return answer


class SessionOwner:
    """What both environments do with the game they run in `_session`: end its
    thread on close, and on garbage collection of an environment dropped mid-game."""

    _session: GameSession | None = None

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
