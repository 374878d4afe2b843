"""`random`: the baseline. Every answer is drawn uniformly from the legal ones
(skipping an effect and, when allowed, refusing count as answers too); it
completes every plan it can and asks for a reshuffle half of the time. In the
advanced variant it builds a roundabout on a uniformly drawn house with
probability `roundabout_rate` per turn."""

from __future__ import annotations

from welcometo_sim.strategy import Effect, Play, PlayerView, Strategy


class RandomStrategy(Strategy):
    name = "random"
    defaults = {"roundabout_rate": 0.05}

    def pick(self, options: list):
        """A uniform choice (rng.random is several times cheaper than rng.integers)."""
        return options[int(self.rng.random() * len(options))]

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        return self.pick(plays)

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        return self.pick(options)

    def choose_reshuffle(self, view: PlayerView) -> bool:
        return self.rng.random() < 0.5

    def choose_roundabout(self, view: PlayerView, houses: list) -> tuple[int, int] | None:
        if len(houses) == 1 or self.rng.random() >= self.params["roundabout_rate"]:
            return None
        return self.pick(houses[:-1])

    def choose_pass(self, view: PlayerView, cards: list[int]) -> int:
        return self.pick(cards)
