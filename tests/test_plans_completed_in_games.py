"""Every city plan that no simulated game had completed is completed in an
engine-played game: a scripted strategy written here chases one plan (the plan
fixed in the variant), on a fixed seed, against greedy; the game's record then
passes `wtsim verify` and the plan's points are in the seat's final score.

The strategy plays the moves that bring the plan closest by a progress measure
of the plan's own condition (`PROGRESS`), and lets greedy choose among those,
so the rest of its sheet is played sensibly and the game lasts."""

from __future__ import annotations

import json
from typing import Callable

import pytest

from helpers import wtsim
from welcometo_sim.games.welcome_to.boards import LOST, SOLD
from welcometo_sim.games.welcome_to.game import Seat, play_game
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import (Effect, Play, PlayerView, Sheet, Strategy, apply_effect, apply_play,
                                    effect_options, load_strategy)

Progress = Callable[[Sheet], float]
DEAD = -100.0
"""Progress of a sheet on which the plan can no longer be completed."""


def _bis_on_one_street(sheet: Sheet) -> float:
    return max(sum(row) for row in sheet.is_bis)


def _pools(sheet: Sheet, street: int) -> float:
    """Pools built on a street, or DEAD once a pool house holds a number without one."""
    houses = sheet.data.pool_houses[street]
    if any(sheet.numbers[street][h] is not None and not sheet.pools[street][h] for h in houses):
        return DEAD
    return sum(sheet.pools[street][h] for h in houses)


def _pools_on_two_streets(sheet: Sheet) -> float:
    return sum(sorted((_pools(sheet, s) for s in range(len(sheet.numbers))), reverse=True)[:2])


def _parks_and_pools_bottom(sheet: Sheet) -> float:
    street = 2
    parks_needed = len(sheet.data.park_tracks[street]) - 1
    parks = min(sheet.parks[street], parks_needed)
    pool_houses = sheet.data.pool_houses[street]
    free = sum(1 for h, n in enumerate(sheet.numbers[street]) if n is None and h not in pool_houses)
    if free < parks_needed - parks:
        return DEAD
    return parks + _pools(sheet, street)


def _cones_of_street(sheet: Sheet, street: int) -> float:
    """Sold cones of a street minus its cones (0 when all are sold), DEAD once one is lost."""
    cones = [c for c in sheet.board.cones[street] if c]
    return DEAD if LOST in cones else cones.count(SOLD) - len(cones)


def _all_cones_one_street(sheet: Sheet) -> float:
    alive = [s for s in range(len(sheet.numbers)) if _cones_of_street(sheet, s) > DEAD]
    return max(_cones_of_street(sheet, s) for s in range(len(sheet.numbers))) + 0.01 * len(alive)


CONE_WINDOWS = ((0, 4), (1, 0), (2, 0), (2, 4))
"""Disjoint four-house windows (street, first house) holding three cones each: the
estates the chaser builds for estates-4-4-4-three-cones."""


def _cone_window(sheet: Sheet, street: int, first: int) -> float:
    """Progress of one four-house estate with three sold cones: sold cones, houses
    built, fences at its two ends; DEAD once a fence splits it, a roundabout takes
    a house or fewer than three of its cones can still be sold."""
    houses = range(first, first + 4)
    last = len(sheet.numbers[street]) - 1
    cones = sheet.board.cones[street]
    numbers = sheet.numbers[street]
    sellable = sum(1 for h in houses if cones[h] == SOLD or (cones[h] and cones[h] != LOST
                                                              and numbers[h] is None))
    fences = sheet.fences[street]
    if sellable < 3 or any(fences[h] for h in houses[:-1]) or any(sheet.roundabouts[street][h] for h in houses):
        return DEAD
    ends = (first == 0 or fences[first - 1]) + (first + 3 == last or fences[first + 3])
    sold = sum(1 for h in houses if cones[h] == SOLD)
    built = sum(1 for h in houses if numbers[h] is not None)
    return 3 * sold + built + 2 * ends


def _three_cone_estates(sheet: Sheet) -> float:
    return sum(sorted((_cone_window(sheet, s, h) for s, h in CONE_WINDOWS), reverse=True)[:3])


PROGRESS: dict[str, Progress] = {
    "estates-4-4-4-three-cones": _three_cone_estates,
    "five-bis-one-street": _bis_on_one_street,
    "all-pools-two-streets": _pools_on_two_streets,
    "parks-pools-bottom-street": _parks_and_pools_bottom,
    "all-cones-one-street": _all_cones_one_street,
}


class Chaser(Strategy):
    """Chases one plan: the plays (and effect uses) whose sheet has the most
    progress, greedy's choice among them; greedy's effect when it is as good."""

    name = "chaser"

    def __init__(self, rng, progress: Progress) -> None:
        super().__init__(rng)
        self.progress = progress
        self.inner = load_strategy("greedy")(rng)

    def _after(self, sheet: Sheet, play: Play | None, effect: Effect | None, turn: int) -> Sheet:
        after = sheet.copy()
        if play is not None:
            apply_play(after, play, turn)
        if effect is not None:
            apply_effect(after, effect)
        return after

    def _value(self, view: PlayerView, play: Play | None) -> float:
        """Progress after the play and its best effect use."""
        after = self._after(view.sheet, play, None, view.turn)
        best = self.progress(after)
        if play is not None and not play.temp:
            for effect in effect_options(after, view.offers[play.offer], play):
                best = max(best, self.progress(self._after(after, None, effect, view.turn)))
        return best

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        values = [self._value(view, play) for play in plays]
        top = max(values)
        return self.inner.choose_play(view, [p for p, v in zip(plays, values) if v == top])

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        values = [self.progress(self._after(view.sheet, None, effect, view.turn)) for effect in options]
        best = [e for e, v in zip(options, values) if v == max(values)]
        planned = self.inner.choose_effect(view, best)
        return planned if planned in best else best[0]

    def choose_plans(self, view, claimable):
        return self.inner.choose_plans(view, claimable)


def chaser_seat(plan: str) -> Seat:
    return Seat("chaser", "chaser", lambda rng: Chaser(rng, PROGRESS[plan]))


def greedy_seat() -> Seat:
    return Seat("greedy", "greedy", lambda rng: load_strategy("greedy")(rng))


def play_scenario(plan: str, switches: dict, deck: int, seed: int):
    ids: list[str | None] = [None, None, None]
    ids[deck - 1] = plan
    return play_game(Variant(**switches), [chaser_seat(plan), greedy_seat()], seed, ids, record=True)


def _cone_estates_claimed(sheet: Sheet, deck: int) -> list[tuple[int, int]]:
    """(size, sold cones) of each estate the plan of `deck` took (its houses are marked)."""
    estates = []
    for street, marks in enumerate(sheet.plan_use):
        houses = [h for h, mark in enumerate(marks) if mark == deck]
        runs: list[list[int]] = []
        for h in houses:
            if runs and h == runs[-1][-1] + 1 and not sheet.fences[street][h - 1]:
                runs[-1].append(h)
            else:
                runs.append([h])
        estates += [(len(run), sum(sheet.board.cones[street][h] == SOLD for h in run)) for run in runs]
    return estates


def _four_house_estates_with_three_cones(sheet: Sheet, deck: int) -> int:
    """How many estates the plan took, if each has 4 houses and 3+ sold cones (else 0)."""
    estates = _cone_estates_claimed(sheet, deck)
    return len(estates) if all(size == 4 and sold >= 3 for size, sold in estates) else 0


GOALS: dict[str, Callable[[Sheet], bool]] = {
    "five-bis-one-street": lambda sheet: _bis_on_one_street(sheet) >= 5,
    "all-pools-two-streets": lambda sheet: _pools_on_two_streets(sheet) == 6,
    "parks-pools-bottom-street": lambda sheet: sheet.parks[2] == 5 and _pools(sheet, 2) == 3,
    "all-cones-one-street": lambda sheet: any(_cones_of_street(sheet, s) == 0 for s in range(3)),
    "estates-4-4-4-three-cones": lambda sheet: _four_house_estates_with_three_cones(sheet, deck=3) == 3,
}
"""What the plan asks, checked on the chaser's final sheet without the plan code."""

SCENARIOS: dict[str, tuple[dict, int, int]] = {
    "five-bis-one-street": ({"advanced": True}, 1, 1),
    "all-pools-two-streets": ({"advanced": True}, 2, 0),
    "parks-pools-bottom-street": ({"advanced": True}, 2, 10),
    "all-cones-one-street": ({"board": "ice-cream"}, 3, 0),
    "estates-4-4-4-three-cones": ({"board": "ice-cream"}, 3, 0),
}
"""Plan -> (variant switches, its deck, the seed of a game in which the chaser completes it)."""


@pytest.mark.parametrize("plan", sorted(SCENARIOS))
def test_the_plan_is_completed_in_an_engine_game_that_verifies(plan, capsys, tmp_path):
    switches, deck, seed = SCENARIOS[plan]
    result = play_scenario(plan, switches, deck, seed)
    record = result.record
    assert [p["id"] for p in record["plans"]][deck - 1] == plan
    sheet = result.sheets[0]
    assert sheet.plan_turns[deck - 1] is not None, "the chaser completed the plan"
    assert GOALS[plan](sheet)
    spec = result.plans[deck - 1]
    earned = spec.points[0] if result.plan_first_turn[deck - 1] == sheet.plan_turns[deck - 1] else spec.points[1]
    assert sheet.plan_points[deck - 1] == earned > 0
    assert result.scores[0]["plans"] == sum(p for p in sheet.plan_points if p) >= earned
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(record) + "\n")
    code, out, err = wtsim(["verify", str(path)], capsys)
    assert code == 0, (out, err)
    assert out.strip().endswith("1 records checked, 0 with problems")
