"""The turn loop: deck, offers, simultaneous turns, plans, end of game, record.

`play_game` is a pure function of (variant, seats, seed): the deck and every
strategy's random generator derive from the game seed, so a game can be
replayed anywhere. Strategies are called through duck-typed hooks. The game
keeps the sheets, the offers and the legal options to itself: a strategy sees
copies (its view's sheet is a copy made when the strategy first reads it), and
an answer counts only when it equals, in plain values and of the exact type,
one of the options the game computed; the game then carries out its own
option, never the strategy's object.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from itertools import islice
from types import MappingProxyType
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from .cards import Deck, ExpertHands, SoloDeck
from .data import TEMP, GameData, PlanSpec
from .effects import (Effect, Offer, Play, apply_effect, apply_play, effect_options, legal_plays,
                      must_play)
from .record_format import DEAL_FORMAT
from .plans import PlanClaim, apply_claim, checked_claim, claim_options, plain_value
from .scoring import rank_key, ranks, score_game
from .seeding import SeedFamily
from .sheet import Sheet
from .variant import Variant

RECORD_FORMAT = "welcometo-sim/game/1"


class StrategyError(RuntimeError):
    """A strategy raised or answered something that is not among its legal options."""

    def __init__(self, strategy: str, seat: int, seed: int, turn: int, problem: str) -> None:
        super().__init__(f"strategy {strategy!r} (seat {seat}) {problem} in game seed {seed}, turn {turn}")
        self.strategy, self.seat, self.seed, self.turn, self.problem = strategy, seat, seed, turn, problem

    def __reduce__(self):  # keeps the fields when a worker process sends it back
        return (type(self), (self.strategy, self.seat, self.seed, self.turn, self.problem))


class Seat(NamedTuple):
    """Who sits at a seat: display name, strategy id, and how to build its strategy
    for one game from that seat's random generator."""

    name: str
    strategy: str
    factory: Callable[[np.random.Generator], Any]


class PublicSeat(NamedTuple):
    """What everybody sees of a seat at the start of a turn."""

    temps: int
    refusals: int
    plans: tuple[int | None, ...]
    built: int


def public_seat(sheet: Sheet) -> PublicSeat:
    """The public summary of a sheet (made every turn for every seat, hence
    tuple.__new__, several times cheaper than PublicSeat(...))."""
    return tuple.__new__(PublicSeat, (sheet.temps, sheet.refusals, tuple(sheet.plan_turns), sheet.n_built()))


@dataclass(slots=True)
class PlayerView:
    """What one player knows when asked to decide.

    `sheet` is the player's own sheet as it stands now: in a game, a copy
    of the game's sheet that belongs to the strategy (changing it, or any
    other field of the view, changes nothing in the game); `public` is every
    seat's public summary as of the start of the turn; `plan_first_turn[d]` is
    the turn plan d+1 was first completed by anyone, or the turn before the
    solo card came up (None: its high value is still to be had);
    `next_effects` are the effects of the next turn's offers, known from the
    card corners (None when a reshuffle hides them, and in solo and expert
    games); `hand` is the solo player's three revealed cards or the expert
    player's hand (offers index them through `number_from` / `effect_from`),
    else None. Views have slots (one is made for every seat every turn), so
    a strategy keeps its own notes on itself, not on the view.
    """

    seat: int
    turn: int
    sheet: Sheet
    offers: list[Offer]
    next_effects: tuple[str, ...] | None
    plans: tuple[PlanSpec, ...]
    plan_first_turn: tuple[int | None, ...]
    public: tuple[PublicSeat, ...]
    cards_left: int
    variant: Variant
    n_players: int
    hand: list[tuple[int, str]] | None = None


class GameView(PlayerView):
    """The view a game hands a strategy. Its `sheet` is a copy of the game's
    sheet, made when the strategy first reads it (strategies that never look
    at their sheet cost no copy) and made again after the game changes the
    sheet. The copy shares no mutable object with the game's sheet, and its
    `data` (like the view's `variant`) holds read-only tables, so nothing a
    strategy does to its view reaches the game.

    The copy's `street_cache` (a scratch slot the engine never reads, where
    the evaluator keeps what it worked out about each street) goes back to
    the game's sheet after each question for every street the strategy left
    as it was, so that the strategy's next copies start with it, as long as
    the street does not change."""

    __slots__ = ("_copy", "_made", "_source", "_data")

    @property
    def sheet(self) -> Sheet:  # type: ignore[override]
        sheet = self._copy
        if sheet is None:
            sheet = self._copy = self._made = strategy_copy(self._source, self._data)
        return sheet

    @sheet.setter
    def sheet(self, value: Sheet) -> None:
        self._copy = value


def game_view(seat: int, turn: int, sheet: Sheet, offers: list[Offer], next_effects: tuple[str, ...] | None,
              plans: tuple[PlanSpec, ...], plan_first_turn: tuple[int | None, ...],
              public: tuple[PublicSeat, ...], cards_left: int, variant: Variant, n_players: int,
              hand: list[tuple[int, str]] | None = None) -> GameView:
    """A strategy's view of `sheet`: `variant` is the strategy's read-only copy
    (`sealed_variant`); the sheet is copied on first read, and again on the
    first read after the game sets `_copy` to None (it changed the sheet)."""
    view = _new_view(GameView)
    view.seat, view.turn, view.offers, view.next_effects = seat, turn, offers, next_effects
    view.plans, view.plan_first_turn, view.public, view.cards_left = plans, plan_first_turn, public, cards_left
    view.variant, view.n_players, view.hand = variant, n_players, hand
    view._copy, view._made, view._source, view._data = None, None, sheet, variant.data
    return view


def keep_notes(view: GameView) -> None:
    """After a question: the street facts the strategy cached on the copy the
    game made go to the game's sheet, for each street whose lists (the ones
    a street's cache depends on) equal the game's."""
    copy = view._made
    if copy is None or copy is not view._copy:
        return
    try:  # the strategy may have put anything in its copy: then it keeps no notes
        notes, kept, source = copy.street_cache, view._source.street_cache, view._source
        for street in range(len(kept)):
            facts = notes[street]
            if facts is not None and kept[street] is None \
                    and copy.numbers[street] == source.numbers[street] \
                    and copy.fences[street] == source.fences[street] \
                    and copy.roundabouts[street] == source.roundabouts[street] \
                    and copy.plan_use[street] == source.plan_use[street] \
                    and copy.is_bis[street] == source.is_bis[street]:
                kept[street] = facts
    except Exception:
        return


_new_view = object.__new__


def _copied_rows(rows: list) -> list:
    return [None if row is None else row[:] for row in rows]


def strategy_copy(sheet: Sheet, data: GameData) -> Sheet:
    """A copy of `sheet` for a strategy: like `Sheet.copy`, but the cached
    lists are the copy's own (a plain copy shares them with the original;
    the number bounds, needed only when a roundabout is built, are left to
    be worked out again) and the data tables are the read-only `data`."""
    copy = sheet.copy()
    copy.data = data
    copy._bounds = [None] * len(copy._bounds)
    copy._runs = _copied_rows(copy._runs)
    copy._bis_spots = _copied_rows(copy._bis_spots)
    unused = copy._unused
    copy._unused = None if unused is None else unused[:]
    return copy


def read_only(value: Any) -> Any:
    """`value` with every dict a read-only mapping and every list a tuple, down
    to the leaves; the very object when nothing in it can be changed."""
    if isinstance(value, dict):
        return MappingProxyType({key: read_only(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple([read_only(item) for item in value])
    if type(value) is tuple:
        items = [read_only(item) for item in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return tuple(items)
    return value


_SEALED: dict[int, tuple[Variant, Variant]] = {}


def sealed_variant(variant: Variant) -> Variant:
    """The variant strategies see: equal to `variant`, with read-only data
    tables and overrides (made once per Variant object, which is kept with it
    so that its id cannot be reused while cached)."""
    cached = _SEALED.get(id(variant))
    if cached is None or cached[0] is not variant:
        if len(_SEALED) > 256:
            _SEALED.clear()
        data = variant.data
        tables = {f.name: read_only(getattr(data, f.name)) for f in dataclasses.fields(data)}
        sealed = dataclasses.replace(variant, data=dataclasses.replace(data, **tables),
                                     overrides=read_only(variant.overrides))
        cached = _SEALED[id(variant)] = (variant, sealed)
    return cached[1]


def match_option(answer: Any, options: list) -> int:
    """The index in `options` of the option `answer` names, else -1.

    `options` are the game's own, all of one type (a Play, an Effect, a
    tuple, an int) but for a trailing None. An answer names an option when
    it is of that exact type (None for the trailing None) and equal to it
    field by field, each field a plain int, bool, str or None (numpy
    integers count as ints). Only built-in comparisons run: no `__eq__` of
    the strategy's is ever called, and a subclass never matches."""
    if answer is None:
        return len(options) - 1 if options and options[-1] is None else -1
    kind = type(answer)
    expected = type(options[0]) if options else None
    if kind is not expected:
        if expected is not int:
            return -1
        answer = plain_value(answer)  # a numpy integer for an int option
        if type(answer) is not int:
            return -1
    elif kind is not int:
        for value in answer:
            t = type(value)
            if not (t is int or t is bool or t is str or value is None):
                answer = _plain_tuple(answer)
                if answer is None:
                    return -1
                break
    try:
        index = options.index(answer)
    except ValueError:
        return -1
    return index if type(options[index]) is expected else -1


def _plain_tuple(answer: tuple) -> tuple | None:
    """The fields of `answer` as plain values, or None when one is not plain."""
    values = []
    for value in answer:
        if value is not None:
            value = plain_value(value)
            if value is None:
                return None
        values.append(value)
    return tuple(values)


def shown(value: Any) -> str:
    """A short repr of a strategy's answer that no answer can make fail."""
    try:
        text = repr(value)
    except Exception:
        text = None
    if type(text) is not str:
        text = object.__repr__(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _shown_error(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:
        text = None
    if type(text) is not str:
        text = "(its message cannot be shown)"
    return text if len(text) <= 500 else text[:497] + "..."


@dataclass
class GameResult:
    """Everything a finished game produced."""

    seed: int
    plans: tuple[PlanSpec, ...]
    sheets: list[Sheet]
    scores: list[dict[str, int]]
    ranks: list[int]
    turns: int
    end_reasons: list[str]
    plan_first_turn: list[int | None]
    record: dict | None = field(default=None)
    race: list[int | None] = field(default_factory=lambda: [None, None, None])


def seat_generators(seed: int, n_players: int) -> tuple[np.random.Generator, list[np.random.Generator]]:
    """The game's own generator (deck, plans) and one independent generator per
    seat: ``default_rng`` of the children ``SeedSequence(seed, spawn_key=(i,))``
    (those of ``SeedSequence(seed).spawn(1 + n_players)``), made by `seeding`."""
    family = SeedFamily(seed)
    return family.generator(0), [family.generator(i) for i in range(1, 1 + n_players)]


def draw_plans(variant: Variant, rng: np.random.Generator,
               fixed: Sequence[str | None] = (None, None, None)) -> tuple[PlanSpec, ...]:
    """One plan per deck: the fixed id where given, else a random card of that deck.

    The random draw is made for every deck even when its plan is fixed, so that
    fixing one deck leaves the other draws (and the deck shuffle) unchanged:
    `wtsim plans` relies on that to compare plans on common seeds."""
    chosen = []
    for deck, cards in enumerate(_plan_decks(variant), start=1):
        index = int(rng.integers(len(cards)))
        plan_id = fixed[deck - 1]
        chosen.append(variant.data.plan(plan_id) if plan_id else cards[index])
    return tuple(chosen)


_PLAN_DECKS: dict[int, tuple[Variant, list[tuple[PlanSpec, ...]]]] = {}


def _plan_decks(variant: Variant) -> list[tuple[PlanSpec, ...]]:
    """The variant's three plan decks, worked out once per Variant object (the
    object is kept with them, so its id cannot be reused while cached)."""
    cached = _PLAN_DECKS.get(id(variant))
    if cached is None or cached[0] is not variant:
        if len(_PLAN_DECKS) > 256:
            _PLAN_DECKS.clear()
        cached = _PLAN_DECKS[id(variant)] = (variant, [variant.plan_deck(deck) for deck in (1, 2, 3)])
    return cached[1]


def settle_plans(sheets: Sequence[Sheet], plans: Sequence[PlanSpec],
                 first_turn: list[int | None], turn: int) -> None:
    """Give this turn's plan completions their points: high for the first turn in
    which anyone completes a plan (all same-turn completers), low afterwards."""
    for deck, spec in enumerate(plans):
        completers = [s for s in sheets if s.plan_turns[deck] == turn]
        if not completers:
            continue
        if first_turn[deck] is None:
            first_turn[deck] = turn
        points = spec.points[0] if first_turn[deck] == turn else spec.points[1]
        for sheet in completers:
            sheet.plan_points[deck] = points


def solo_card_came_up(first_turn: list[int | None], turn: int) -> None:
    """Every plan nobody has completed now scores its low value, as if an
    opponent had completed it in the previous turn."""
    for deck, first in enumerate(first_turn):
        if first is None:
            first_turn[deck] = turn - 1


def card_source(variant: Variant, rng: np.random.Generator, n_players: int) -> Deck | SoloDeck | ExpertHands:
    """Where this variant's offers come from."""
    cards = variant.data.deck
    if variant.solo:
        return SoloDeck(cards, rng)
    if variant.expert:
        return ExpertHands(cards, rng, n_players)
    return Deck(cards, rng)


def end_reasons(sheets: Sequence[Sheet], deck_exhausted: bool = False) -> list[str]:
    """Every end condition of RULES.md §7 that holds now."""
    refusals = plans = houses = False
    for sheet in sheets:  # one pass: this runs after every turn
        refusals = refusals or sheet.refusals >= sheet.data.max_refusals
        plans = plans or None not in sheet.plan_turns
        houses = houses or sheet.is_full()
    reasons = []
    if refusals:
        reasons.append("refusals")
    if plans:
        reasons.append("plans")
    if houses:
        reasons.append("houses")
    if deck_exhausted:
        reasons.append("deck")
    return reasons


def claim_to_record(claim: PlanClaim) -> dict:
    estates = None if claim.estates is None else [list(e) for e in claim.estates]
    return {"deck": claim.deck, "estates": estates}


class Game:
    """One game in progress. Use :func:`play_game` unless you need the steps."""

    def __init__(self, variant: Variant, seats: Sequence[Seat], seed: int,
                 plan_ids: Sequence[str | None] = (None, None, None), record: bool = False) -> None:
        variant.check(len(seats))
        self.variant = variant
        self.board = variant.rules
        self.seats = list(seats)
        self.seed = int(seed)
        self.rng, seat_rngs = seat_generators(self.seed, len(seats))
        self.plan_ids = tuple(plan_ids)
        self.plans = draw_plans(variant, self.rng, plan_ids)
        self.strategies = [seat.factory(rng) for seat, rng in zip(self.seats, seat_rngs)]
        self.sheets = [Sheet(variant.data, self.board.new_state(variant.data)) for _ in self.seats]
        self.deck = card_source(variant, self.rng, len(self.seats))
        self.turn = 0
        self.first_turn: list[int | None] = [None, None, None]
        self.race: list[int | None] = [None] * len(variant.data.street_houses)
        self.reshuffle_pending = False
        self.turn_records: list[dict] | None = [] if record else None
        # Estate plans without filters can only become claimable when a sheet's
        # unused estates change; the sheet makes a new list whenever they do.
        self._plans_use_only_estates = all(p.kind == "estates" and not p.estate_filter for p in self.plans)
        self._unused_without_claims: list[list | None] = [None] * len(self.seats)
        self._view_variant = sealed_variant(variant)

    # ------------------------------------------------------------------ driving
    def play(self) -> GameResult:
        reasons: list[str] = []
        while not reasons:
            reasons = self.play_turn()
        return self.result(reasons)

    def play_turn(self) -> list[str]:
        """Play one turn for everybody; returns the end reasons (empty: go on)."""
        self.turn += 1
        if self.reshuffle_pending:
            self.deck.reshuffle_all()
            self.reshuffle_pending = False
            events = ["plan-reshuffle", *self.deck.begin_turn()]
        else:
            events = self.deck.begin_turn()
        if "solo-card" in events:
            solo_card_came_up(self.first_turn, self.turn)
        next_effects = self.deck.next_effects()
        public = tuple([public_seat(s) for s in self.sheets])
        plan_status = tuple(self.first_turn)
        cards_left = self.deck.cards_left()
        actions = []
        claimed = False
        for seat, sheet in enumerate(self.sheets):
            offers = self.deck.offers(seat)
            view = game_view(seat, self.turn, sheet, offers[:], next_effects, self.plans, plan_status,
                             public, cards_left, self._view_variant, len(self.sheets), self.deck.hand(seat))
            action = self._seat_turn(seat, sheet, offers, view)
            actions.append(action)
            claimed = claimed or bool(action["plans"])
        record = self.deck.record() if self.turn_records is not None else None
        if self.deck.passes_cards:
            self.deck.end_turn([(a["number_from"], a["effect_from"], a.get("passed")) for a in actions])
        else:
            self.deck.end_turn(())
        first_plan_this_turn = claimed and plan_status.count(None) == len(plan_status)
        if claimed:  # plans only need settling in the turns someone completes one
            settle_plans(self.sheets, self.plans, self.first_turn, self.turn)
        self.board.settle(self.sheets, self.race, self.turn)
        if first_plan_this_turn and not self.variant.solo:
            self._offer_reshuffle(actions)
        if self.turn_records is not None:
            self.turn_records.append({"turn": self.turn, "events": events, **record, "actions": actions})
        return end_reasons(self.sheets, self.deck.exhausted())

    # --------------------------------------------------------------- one seat
    move_timeout: float | None = None
    """Seconds one strategy call may take (None: no limit). Checked after the call
    returns, so it reports slow strategies but cannot stop one that never returns."""

    def _ask(self, seat: int, hook: str, *args: Any) -> Any:
        if self.move_timeout is not None:
            return self._ask_timed(seat, hook, *args)
        try:
            return getattr(self.strategies[seat], hook)(*args)
        except Exception as exc:  # a user strategy may raise anything
            raise self._raised(seat, hook, exc) from exc

    def _ask_timed(self, seat: int, hook: str, *args: Any) -> Any:
        """`_ask` under a `move_timeout` (the clock is read only when one is set)."""
        started = time.perf_counter()
        try:
            answer = getattr(self.strategies[seat], hook)(*args)
        except Exception as exc:
            raise self._raised(seat, hook, exc) from exc
        elapsed = time.perf_counter() - started
        if elapsed > self.move_timeout:  # type: ignore[operator]
            raise StrategyError(self.seats[seat].strategy, seat, self.seed, self.turn,
                                f"exceeded move_timeout ({elapsed:.3g} s > {self.move_timeout:g} s) "
                                f"in {hook}")
        return answer

    def _raised(self, seat: int, hook: str, exc: Exception) -> StrategyError:
        return StrategyError(self.seats[seat].strategy, seat, self.seed, self.turn,
                             f"raised {type(exc).__name__}: {_shown_error(exc)} in {hook}")

    def _illegal(self, seat: int, hook: str, answer: Any, why: str = "") -> StrategyError:
        return StrategyError(self.seats[seat].strategy, seat, self.seed, self.turn,
                             f"answered an illegal {shown(answer)} to {hook}{why}")

    def _choose(self, seat: int, hook: str, view: PlayerView, options: list) -> Any:
        """Ask a hook to pick from `options` (the strategy gets a copy of the
        list); returns the game's own option that the answer names."""
        answer = self._ask(seat, hook, view, options[:])
        if view._made is not None:
            keep_notes(view)
        index = match_option(answer, options)
        if index < 0:
            raise self._illegal(seat, hook, answer)
        return options[index]

    def _seat_turn(self, seat: int, sheet: Sheet, offers: list[Offer], view: PlayerView) -> dict:
        """One seat's turn on the game's own `sheet` and `offers` (the view
        holds the strategy's copies)."""
        action: dict[str, Any] = {
            "seat": seat, "roundabout": None, "refusal": False, "number_from": None,
            "effect_from": None, "written": None, "truck": None, "effect": None,
            "plans": [], "reshuffle": False,
        }
        if self.variant.advanced and sheet.n_roundabouts < sheet.data.max_roundabouts:
            self._roundabout(seat, sheet, view, action)
        plays: list[Play | None] = legal_plays(sheet, offers)  # type: ignore[assignment]
        play = None
        if plays:
            if not must_play(plays):  # type: ignore[arg-type]
                plays.append(None)
            play = self._choose(seat, "choose_play", view, plays)
        if play is None:
            sheet.refusals = min(sheet.refusals + 1, sheet.data.max_refusals)
            view._copy = None
            action["refusal"] = True
        else:
            self._play(seat, sheet, offers, view, play, action)
        if self.variant.expert:
            action["passed"] = self._passed_card(seat, offers, view, play)
        self._claim_plans(seat, sheet, view, action)
        return action

    def _roundabout(self, seat: int, sheet: Sheet, view: PlayerView, action: dict) -> None:
        options: list[tuple[int, int] | None] = [*sheet.roundabout_options(), None]
        choice = self._choose(seat, "choose_roundabout", view, options)
        if choice is not None:
            sheet.build_roundabout(*choice)
            view._copy = None
            action["roundabout"] = {"street": choice[0], "house": choice[1]}

    def _passed_card(self, seat: int, offers: list[Offer], view: PlayerView, play: Play | None) -> int:
        """Expert: the hand card passed on: the unused one, or the strategy's pick on a refusal."""
        if play is not None:
            offer = offers[play.offer]
            return 3 - offer.number_from - offer.effect_from
        return self._choose(seat, "choose_pass", view, [0, 1, 2])

    def _play(self, seat: int, sheet: Sheet, offers: list[Offer], view: PlayerView, play: Play,
              action: dict) -> None:
        offer = offers[play.offer]
        apply_play(sheet, play, self.turn)
        view._copy = None
        action["number_from"], action["effect_from"] = offer.number_from, offer.effect_from
        action["written"] = {"street": play.street, "house": play.house, "number": play.number}
        action["truck"] = play.truck
        if play.temp:
            action["effect"] = {"kind": TEMP}
            return
        options: list[Effect | None] = effect_options(sheet, offer, play)  # type: ignore[assignment]
        if not options:
            return
        options.append(None)
        effect = self._choose(seat, "choose_effect", view, options)
        if effect is not None:
            apply_effect(sheet, effect)
            view._copy = None
            action["effect"] = effect.to_record()

    def _claim_plans(self, seat: int, sheet: Sheet, view: PlayerView, action: dict) -> None:
        unused = sheet.unused_estates() if self._plans_use_only_estates else None
        if unused is not None and unused is self._unused_without_claims[seat]:
            return  # the same unused estates (list object) as at the last check, which found no claim
        claimable = claim_options(sheet, self.plans)
        if not claimable:
            self._unused_without_claims[seat] = unused
            return
        answer = self._ask(seat, "choose_plans", view, claimable)
        if view._made is not None:
            keep_notes(view)
        for claim in self._claims(seat, answer):
            checked = checked_claim(sheet, self.plans, claim)
            if checked is None:
                raise self._illegal(seat, "choose_plans", claim)
            apply_claim(sheet, self.plans, checked, self.turn)
            view._copy = None
            action["plans"].append(claim_to_record(checked))

    def _claims(self, seat: int, answer: Any) -> list:
        """The claims of a `choose_plans` answer: None or an iterable of at most
        one claim per plan (read no further than that)."""
        if answer is None:
            return []
        limit = len(self.plans)
        try:
            claims = list(islice(answer, limit + 1))
        except Exception as exc:
            raise self._illegal(seat, "choose_plans", answer,
                                f" (not a list of claims: {type(exc).__name__}: {_shown_error(exc)})") from None
        if len(claims) > limit:
            raise self._illegal(seat, "choose_plans", answer, f" (more than {limit} claims)")
        return claims

    def _offer_reshuffle(self, actions: list[dict]) -> None:
        """First plan completion of the game: its completers may ask for a reshuffle."""
        completers = [a["seat"] for a in actions if a["plans"]]
        for seat in completers:
            view = game_view(seat, self.turn, self.sheets[seat], [], None, self.plans,
                             tuple(self.first_turn), (), self.deck.cards_left(), self._view_variant,
                             len(self.sheets))
            wants = self._ask(seat, "choose_reshuffle", view)
            if type(wants) is not bool and type(wants) is not np.bool_:
                raise self._illegal(seat, "choose_reshuffle", wants)
            if wants:
                actions[seat]["reshuffle"] = True
                self.reshuffle_pending = True

    # ------------------------------------------------------------------ result
    def bonus(self, seat: int) -> int:
        return self.board.bonus(self.sheets[seat], self.race)

    def _variant_record(self) -> dict:
        """The record's variant block; `plans` names the plans the run fixed
        (null: drawn), so that the seed's deal can be checked against the rest."""
        record = self.variant.to_record()
        if any(self.plan_ids):
            record["plans"] = list(self.plan_ids)
        return record

    def result(self, reasons: list[str]) -> GameResult:
        scores = score_game(self.sheets, solo=self.variant.solo, bonus=self.bonus)
        keys = [rank_key(score["total"], sheet) for score, sheet in zip(scores, self.sheets)]
        game_ranks = ranks(keys)
        record = None
        if self.turn_records is not None:
            record = {
                "format": RECORD_FORMAT,
                "seed": self.seed,
                "deal": DEAL_FORMAT,
                "variant": self._variant_record(),
                "players": [{"seat": i, "name": s.name, "strategy": s.strategy}
                            for i, s in enumerate(self.seats)],
                "plans": [{"deck": p.deck, "id": p.id, "points": list(p.points)} for p in self.plans],
                "turns": self.turn_records,
                "end": {"turn": self.turn, "reasons": reasons},
                "final": [
                    {"seat": seat, "rank": game_ranks[seat], "score": scores[seat],
                     "sheet": sheet.to_record()}
                    for seat, sheet in enumerate(self.sheets)
                ],
            }
        return GameResult(self.seed, self.plans, self.sheets, scores, game_ranks, self.turn,
                          reasons, list(self.first_turn), record, list(self.race))


def play_game(variant: Variant, seats: Sequence[Seat], seed: int,
              plan_ids: Sequence[str | None] = (None, None, None), record: bool = False) -> GameResult:
    """Play one whole game; a pure function of its arguments."""
    return Game(variant, seats, seed, plan_ids, record).play()
