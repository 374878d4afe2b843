"""`example_custom`: a commented strategy to copy when writing your own.

Idea: keep every street "on schedule". A house at position h of a street of
n houses should hold a number near h * 17 / (n - 1); the play whose number is
closest to that schedule wins (ties broken at random with the seat's own
generator). Effects are used when they obviously help, plans are completed
as soon as possible (the default).

Copy this file, rename the class and `name`, and run it with
`wtsim run my.yaml` where my.yaml names `path/to/my_file.py:MyStrategy`.
"""

from __future__ import annotations

# Import only from the public strategy API (and `welcometo_sim.games.welcome_to.evaluation`
# for shared evaluation terms): the engine's internals may change.
from welcometo_sim.strategy import Effect, Play, PlayerView, Strategy

MAX_NUMBER = 17


class ScheduleStrategy(Strategy):
    # The id used in result tables when registered; file-loaded strategies are
    # named by their path instead.
    name = "example_custom"

    # Every parameter a config may set, with its default. YAML `params:` and
    # `example_custom:use_bis=true` are checked against these keys and types.
    defaults = {
        "use_bis": False,         # bis houses cost points: off by default
        "fence_every": 3,         # aim for estates of this size
    }

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        # `plays` lists every legal play; None is in it only when every play
        # needs the temp agency, and means "take a permit refusal instead".
        legal = [p for p in plays if p is not None]
        sizes = view.variant.data.street_houses

        def off_schedule(play: Play) -> float:
            target = play.house * MAX_NUMBER / (sizes[play.street] - 1)
            return abs(play.number - target) + (0.5 if play.temp else 0.0)

        best = min(off_schedule(p) for p in legal)
        candidates = [p for p in legal if off_schedule(p) == best]
        # self.rng is this seat's numpy Generator: results stay reproducible.
        return candidates[int(self.rng.integers(len(candidates)))]

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        # `options` are the legal uses of the chosen offer's effect, plus None
        # (skip). Returning anything not in the list stops the run with a
        # clear error naming this strategy, the game seed and the turn.
        for option in options:
            if option is None:
                continue
            if option.kind == "surveyor" and (option.position + 1) % self.params["fence_every"] == 0:
                return option
            if option.kind in ("pool", "landscaper", "real_estate"):
                return option
            if option.kind == "bis" and self.params["use_bis"]:
                return option
        return None
