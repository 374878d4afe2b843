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

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        return plays[int(self.rng.integers(len(plays)))]

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        return options[int(self.rng.integers(len(options)))]

    def choose_reshuffle(self, view: PlayerView) -> bool:
        return bool(self.rng.integers(2))

    def choose_roundabout(self, view: PlayerView, houses: list) -> tuple[int, int] | None:
        if len(houses) == 1 or self.rng.random() >= self.params["roundabout_rate"]:
            return None
        return houses[int(self.rng.integers(len(houses) - 1))]

    def choose_pass(self, view: PlayerView, cards: list[int]) -> int:
        return cards[int(self.rng.integers(len(cards)))]
