"""`heuristic`: greedy's one-ply search on a richer evaluation that knows the game has an end.

On top of greedy's terms (points, estate potential, flexibility, plan
progress, board) it weighs what greedy cannot see in the points of one move:

- `park_potential`: each crossed park earns its share of the street's big
  final park bonus (greedy only sees the small next step of the track);
- `open_estates`, `built_share`: fenced runs of 1..6 houses are likely to be
  finished by the end (most houses get built), so each counts as an estate at
  today's value, plain and weighted by how built it is; that is what makes a
  fence or a real-estate investment pay before its estates are complete;
- `pool_chance`: every empty pool house is a pool a later pool card can still
  score; writing a plain number there throws that away;
- `temp_race`: a temp is worth the temp-agency points it wins against the other
  players' counts now (`temp` is its base value);
- end-game urgency: terms that pay only later (estate potential, plan
  progress, park potential, pool chances) fade over the last `urgency_turns`
  turns, and flexibility counts only as many houses as there are turns left
  (plus `flex_margin`), because a house nobody can reach in time is worth nothing;
- `plan_commitment`: an unfinished fenced run of a size an open plan needs is
  worth a share of that plan's points on top of its estate value;
- `refusal_risk` (0 here, used by `lookahead`): the chance that three cards of
  the deck all miss the numbers the sheet can still take, (1 - share of the
  deck that fits somewhere)³, counts against the sheet. Flexibility counts
  houses; this counts numbers, so it sees two gaps that both want a 7 as one
  chance, which is what runs a sheet into refusals at the end of a game.

`temperature` > 0 samples the move instead of always taking the best: each
candidate (the shortlisted writes with their best effect use, and a refusal
when one is allowed) is drawn with probability proportional to
exp(value / temperature), from the seat's seeded generator. Several seats
of this strategy at one table then play different games on the same cards
(at 0, the default, they play the same game). docs/configs.md quotes the
strength it costs.

Every weight is a parameter, so configs (and `wtsim tune`) can change them::

    strategy: heuristic
    params: {weights: {pool_chance: 1.2, temp_race: 0.8}, horizon: 28}
"""

from __future__ import annotations

from typing import Any

from welcometo_sim.games.welcome_to.evaluation import (Coverage, MoveEvaluator, Terms, fitting_share, is_pool_chance,
                                                       park_potential, park_potential_gain, pool_chances, sheet_terms,
                                                       temp_race_value, turns_left, urgency)
from welcometo_sim.strategy import Effect, Play, PlayerView, Sheet

from .greedy import GreedyStrategy


def plan_size_bonus(view: PlayerView, commitment: float) -> list[float]:
    """Per estate size 1..6: the share of the open estate plans' current value
    (high while nobody has completed them, low after) that an estate of that
    size would bring, times `commitment`."""
    bonus = [0.0] * 6
    for deck, spec in enumerate(view.plans):
        if spec.kind != "estates" or view.sheet.plan_turns[deck] is not None:
            continue
        points = spec.points[0] if view.plan_first_turn[deck] is None else spec.points[1]
        for size in spec.estates:
            bonus[size - 1] += commitment * points / len(spec.estates)
    return bonus


class HeuristicStrategy(GreedyStrategy):
    name = "heuristic"
    defaults: dict[str, Any] = {
        "weights": {
            "points": 1.0,
            "temp": 0.5,
            "temp_race": 0.5,
            "estate_potential": 0.5,
            "flexibility": 1.5,
            "plan_progress": 0.5,
            "board": 1.0,
            "park_potential": 0.5,
            "pool_chance": 0.8,
            "open_estates": 0.3,
            "built_share": 0.3,
            "refusal_risk": 0.0,
        },
        "plan_commitment": 0.3,
        "horizon": 30,
        "urgency_turns": 8,
        "flex_margin": 4,
        "shortlist": 4,
        "temperature": 0.0,
    }

    def __init__(self, rng, params=None) -> None:
        super().__init__(rng, params)
        self._turn_key: tuple[int, int] | None = None
        self._temp_value = self.params["weights"]["temp"]
        self._later = 1.0
        self._flex_cap = float("inf")
        self._pool_worth = 0.0
        self._size_bonus: list[float] | None = None
        self._extras_sheet: Sheet | None = None
        self._extras_value = 0.0
        self._coverage_sheet: Sheet | None = None
        self._coverage: Coverage | None = None

    # ------------------------------------------------------- per-turn context
    def _prepare(self, view: PlayerView) -> None:
        """Recompute what depends on the turn only: the temp value, how much
        later-paying terms still count, and the flexibility cap."""
        key = (view.turn, view.sheet.temps)
        if key == self._turn_key:
            return
        self._turn_key = key
        w = self.params["weights"]
        data = view.sheet.data
        others = [p.temps for i, p in enumerate(view.public) if i != view.seat]
        solo = view.variant.solo
        self._temp_value = w["temp"] + (0.0 if solo else w["temp_race"] * temp_race_value(
            view.sheet.temps, others, data.temp_rank_points))
        left = turns_left(view.turn, [p.refusals for p in view.public] or [view.sheet.refusals],
                          data.max_refusals, view.cards_left if solo else -1, self.params["horizon"])
        self._later = urgency(left, self.params["urgency_turns"])
        self._flex_cap = left + self.params["flex_margin"]
        self._pool_worth = self._pool_gain(view.sheet)
        self._size_bonus = self.size_bonus(view)

    def size_bonus(self, view: PlayerView) -> list[float] | None:
        """Extra worth of an unfinished estate of each size 1..6 (None: none):
        the open estate plans' shares, times `plan_commitment`."""
        commitment = self.params["plan_commitment"]
        return plan_size_bonus(view, commitment) if commitment else None

    def _pool_gain(self, sheet: Sheet) -> float:
        track = sheet.data.pool_track
        pools = sheet.n_pools
        return float(track[min(pools + 1, len(track) - 1)] - track[pools])

    # ------------------------------------------------------------ evaluation
    def value(self, terms: Terms) -> float:
        w = self.params["weights"]
        later = self._later
        return (
            w["points"] * terms.points
            + later * (w["estate_potential"] * terms.estate_potential
                       + w["plan_progress"] * terms.plan_progress
                       + w["open_estates"] * terms.open_estates
                       + w["built_share"] * terms.built_share)
            + w["flexibility"] * min(terms.flexibility, self._flex_cap)
            + w["board"] * terms.board
        )

    def extras(self, sheet: Sheet) -> float:
        """The terms greedy does not have, for a whole sheet."""
        w = self.params["weights"]
        value = self._later * (w["park_potential"] * park_potential(sheet)
                               + w["pool_chance"] * self._pool_worth * pool_chances(sheet) / 3)
        if w.get("refusal_risk"):
            value -= w["refusal_risk"] * (1.0 - fitting_share(sheet)) ** 3
        return value

    def evaluate(self, sheet: Sheet, view: PlayerView) -> float:
        self._prepare(view)
        terms = sheet_terms(sheet, view.plans, view.plan_first_turn, self._temp_value, self._size_bonus)
        return self.value(terms) + self.extras(sheet)

    def _evaluator(self, sheet: Sheet, view: PlayerView) -> MoveEvaluator | None:
        if sheet.board is not None:
            return None
        self._prepare(view)
        return MoveEvaluator(sheet, view.plans, view.plan_first_turn, self._temp_value, self._size_bonus)

    def _write_extra(self, sheet: Sheet, street: int, house: int, number: int) -> float:
        """Change of `extras` when `number` is written on (street, house)."""
        change = 0.0
        risk = self.params["weights"].get("refusal_risk", 0.0)
        if risk:
            coverage = self._coverage_of(sheet)
            before = (1.0 - coverage.share) ** 3
            change -= risk * ((1.0 - coverage.share_after_write(street, house, number)) ** 3 - before)
        if not is_pool_chance(sheet, street, house):
            return change
        return change - self._later * self.params["weights"]["pool_chance"] * self._pool_worth / 3

    def _coverage_of(self, sheet: Sheet) -> Coverage:
        """The :class:`Coverage` of `sheet`, remembered for the last sheet asked about."""
        if sheet is not self._coverage_sheet:
            self._coverage_sheet, self._coverage = sheet, Coverage(sheet)
        return self._coverage  # type: ignore[return-value]

    def _play_value(self, view: PlayerView, play: Play, evaluator: MoveEvaluator | None) -> float:
        if evaluator is None:
            return super()._play_value(view, play, evaluator)
        terms = evaluator.after_write(play.street, play.house, play.number, False, play.temp)
        sheet = view.sheet
        return (self.value(terms) + self._extras_of(sheet)
                + self._write_extra(sheet, play.street, play.house, play.number))

    def _extras_of(self, sheet: Sheet) -> float:
        """`extras(sheet)`, remembered while the same sheet object is being
        judged (every write of one decision, every effect after one write)."""
        if sheet is not self._extras_sheet:
            self._extras_sheet, self._extras_value = sheet, self.extras(sheet)
        return self._extras_value

    def _effect_value(self, view: PlayerView, after: Sheet, effect: Effect,
                      evaluator: MoveEvaluator | None) -> float:
        base = super()._effect_value(view, after, effect, evaluator)
        if evaluator is None:
            return base
        extra = self._extras_of(after)
        if effect.kind == "landscaper":
            extra += self._later * self.params["weights"]["park_potential"] * park_potential_gain(after, effect.street)
        elif effect.kind == "bis":
            extra += self._write_extra(after, effect.street, effect.position, effect.number)
        return base + extra

    def _candidates(self, view: PlayerView, scored: list[tuple[float, int, Play]]
                    ) -> list[tuple[float, int, Play]]:
        """The `shortlist` best writes, and every write that can build a pool:
        its value shows only once the effect is used, and the pool-chance term
        marks the write itself down, so it would rarely make the shortlist."""
        shortlist = self.params["shortlist"]
        chosen = scored[:shortlist]
        sheet = view.sheet
        for item in scored[shortlist:]:
            play = item[2]
            if (not play.temp and view.offers[play.offer].effect == "pool"
                    and is_pool_chance(sheet, play.street, play.house)):
                chosen.append(item)
        return chosen

    def ranked_moves(self, view: PlayerView, plays: list[Play | None]
                     ) -> list[tuple[float, Play, Effect | None]]:
        self._prepare(view)
        self._extras_sheet = self._coverage_sheet = None
        return super().ranked_moves(view, plays)
