"""The game contract: a game in progress is a `State` that anything can step.

Every game gives the same small interface, after OpenSpiel's State:

- ``state.decision``: the pending question, a ``(seat, kind, options, view)``
  tuple, or None once the game is over. ``seat`` is `CHANCE` when the game
  itself decides next (a deal, a shake): apply None and the game draws from
  its own generator, so the same seed gives the same chance outcomes.
  Otherwise ``kind`` names the seat's decision (Welcome To: roundabout, play,
  effect, pass, plans, reshuffle; Shake That City: move), ``options`` are the
  game's own legal answers and ``view`` is what the seat may see.
- ``state.apply(answer)``: answer the pending decision (one of its options,
  or a value equal to one of the same type) and run the game to the next
  decision; an answer that is not legal raises the game's ``IllegalAnswer``
  (a ValueError) and leaves the game unchanged.
- ``state.clone()``: an independent copy, chance generator included, for
  search.
- ``state.scores()``: every seat's score by category as the game stands.
- ``state.is_over``.

Simultaneous choices (both games have them) are decisions taken one seat
after another against the same public state: no seat's view shows another
seat's answer of the same turn.

`play_out` is the one driver loop over any state; the tournament runner's
driver adds strategy hooks, timeouts and records on top of the same loop.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from .views import read_only  # noqa: F401  (part of the contract: how every game seals a view)

CHANCE = -1
"""The seat of a decision the game takes itself (chance)."""


class StrategyError(RuntimeError):
    """A strategy raised, answered something that is not one of its options,
    overran its move timeout or ended its process: which strategy, at which
    seat, in which game (its seed) and where in it (`turn`, which a game whose
    steps are rounds calls a round: `unit`), and the `problem` in a few words.
    The one error of every game, so the machinery reports them all alike."""

    def __init__(self, strategy: str, seat: int, seed: int, turn: int, problem: str, unit: str = "turn") -> None:
        super().__init__(f"strategy {strategy!r} (seat {seat}) {problem} in game seed {seed}, {unit} {turn}")
        self.strategy, self.seat, self.seed, self.turn, self.problem, self.unit = \
            strategy, seat, seed, turn, problem, unit

    @property
    def round(self) -> int:
        """`turn`, under the name of games played in rounds."""
        return self.turn

    def __reduce__(self):  # keeps the fields when a worker process sends it back
        return (type(self), (self.strategy, self.seat, self.seed, self.turn, self.problem, self.unit))


@runtime_checkable
class State(Protocol):
    """A game in progress (see the module's docstring)."""

    decision: Any

    @property
    def is_over(self) -> bool: ...

    def apply(self, answer: Any) -> None: ...

    def clone(self) -> "State": ...

    def scores(self) -> Sequence[Mapping[str, int]]: ...


Chooser = Callable[[Any], Any]
"""Answers one seat decision: ``choose(decision) -> answer``."""


def play_out(state: State, choose: Chooser, max_decisions: int | None = None) -> State:
    """Play `state` on until it is over (or `max_decisions` seat decisions were
    asked), chance applied as it comes and every seat decision answered by
    `choose`; returns the state."""
    asked = 0
    decision = state.decision
    while decision is not None:
        if decision[0] == CHANCE:
            state.apply(None)
        else:
            if max_decisions is not None and asked >= max_decisions:
                break
            state.apply(choose(decision))
            asked += 1
        decision = state.decision
    return state
