"""`random`: the baseline. Every answer is drawn uniformly from the legal ones
(skipping an effect and, when allowed, refusing count as answers too); it
completes every plan it can and asks for a reshuffle half of the time."""

from __future__ import annotations

from welcometo_sim.strategy import Effect, Play, PlayerView, Strategy


class RandomStrategy(Strategy):
    name = "random"

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        return plays[int(self.rng.integers(len(plays)))]

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        return options[int(self.rng.integers(len(options)))]

    def choose_reshuffle(self, view: PlayerView) -> bool:
        return bool(self.rng.integers(2))
