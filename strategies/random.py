"""`random`: the baseline. Every answer is drawn uniformly from the legal ones
(skipping an effect and, when allowed, refusing count as answers too); it
completes every plan it can and asks for a reshuffle half of the time. In the
advanced variant it builds a roundabout on a uniformly drawn house with
probability `roundabout_rate` per turn."""

from __future__ import annotations

from welcometo_sim.strategy import Effect, Play, PlayerView, Strategy

DRAWS_PER_BLOCK = 64
"""How many of `rng.random()`'s numbers are drawn at once (about one game's worth)."""


class RandomStrategy(Strategy):
    name = "random"
    defaults = {"roundabout_rate": 0.05}

    def __init__(self, rng, params=None) -> None:
        super().__init__(rng, params)
        self._draws: list[float] = []

    def uniform(self) -> float:
        """The next number of `rng.random()`. They are drawn in blocks: a block is
        the same numbers in the same order as single draws, at a fraction of the
        cost per number (subclasses drawing from `rng` themselves as well get a
        different, equally seeded, sequence)."""
        if not self._draws:
            self._draws = self.rng.random(DRAWS_PER_BLOCK).tolist()
            self._draws.reverse()
        return self._draws.pop()

    def pick(self, options: list):
        """A uniform choice."""
        return options[int(self.uniform() * len(options))]

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        return self.pick(plays)

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        return self.pick(options)

    def choose_reshuffle(self, view: PlayerView) -> bool:
        return self.uniform() < 0.5

    def choose_roundabout(self, view: PlayerView, houses: list) -> tuple[int, int] | None:
        if len(houses) == 1 or self.uniform() >= self.params["roundabout_rate"]:
            return None
        return self.pick(houses[:-1])

    def choose_pass(self, view: PlayerView, cards: list[int]) -> int:
        return self.pick(cards)
