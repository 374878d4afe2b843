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

import copy
import dataclasses
import time
from dataclasses import dataclass, field
from itertools import islice
from collections.abc import Sequence as SequenceABC
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from ..contract import CHANCE, StrategyError
from ..views import read_only
from ...native import native_module
from .cards import Deck, ExpertHands, SoloDeck
from .data import TEMP, GameData, PlanSpec
from .evaluation.plan_progress import share_memos
from .effects import (Effect, Offer, Play, apply_effect, apply_play, effect_options, legal_plays,
                      must_play)
from ..record_format import DEAL_FORMAT
from .plans import PlanClaim, apply_claim, checked_claim, claim_options, plain_value
from .scoring import rank_key, ranks, score_game
from ..seeding import _native_seeding, seat_generators
from .sheet import Sheet
from .variant import Variant

RECORD_FORMAT = "welcometo-sim/game/1"


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
    else None; `unseen` is every card the player cannot see (under the
    stacks' tops, in the solo pile, in the expert pile and the other
    hands), sorted, as a player counting cards knows them (in a game it is
    worked out when first read). Views have slots (one is made for every seat every turn), so
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
    unseen: tuple[tuple[int, str], ...] | None = None


class GameView(PlayerView):
    """The view a game hands a strategy. Its `sheet` is a copy of the game's
    sheet, made when the strategy first reads it (strategies that never look
    at their sheet cost no copy) and made again after the game changes the
    sheet. The copy shares no mutable object with the game's sheet, and its
    `data` (like the view's `variant`) holds read-only tables. The game's
    own sheet is not held by the view at all (see `_SOURCES`), so nothing
    reachable from a view refers to the game in progress.

    A view answers while its game asks its seat: once the seat's decisions of
    the turn are over, the game lets go of the view, and its sheet reads as
    the last copy made, or raises ViewExpired if the game had changed the
    sheet since (keep `view.sheet` itself to look at it later).

    The copy's `street_cache` (a scratch slot the engine never reads, where
    the evaluator keeps what it worked out about each street) goes back to
    the game's sheet after each question for every street the strategy left
    as it was, so that the strategy's next copies start with it, as long as
    the street does not change."""

    __slots__ = ("_copy", "_made", "_data", "_unseen")

    @property
    def sheet(self) -> Sheet:  # type: ignore[override]
        sheet = self._copy
        if sheet is None:
            entry = self._source("since its sheet was last read: keep view.sheet (or a copy of it) to look "
                                 "at the sheet after the question")
            sheet = self._copy = self._made = strategy_copy(entry[1], self._data)
        return sheet

    @sheet.setter
    def sheet(self, value: Sheet) -> None:
        self._copy = value

    @property
    def unseen(self) -> tuple[tuple[int, str], ...] | None:  # type: ignore[override]
        """The cards this seat cannot see, asked of the game's card source on
        first read (most strategies never count cards, so they pay nothing)."""
        found = self._unseen
        if found is None:
            deck = self._source("since it was made: read view.unseen while the question is asked")[2]
            found = self._unseen = None if deck is None else deck.unseen(self.seat)
        return found

    def _source(self, advice: str) -> tuple:
        """The game's (view, sheet, card source) behind this view, or ViewExpired
        once the game has let go of it."""
        entry = _SOURCES.get(id(self))
        if entry is None:
            raise ViewExpired(f"this view's game has moved on {advice}")
        return entry

    @unseen.setter
    def unseen(self, value: tuple[tuple[int, str], ...] | None) -> None:
        self._unseen = value


class ViewExpired(RuntimeError):
    """A view's sheet read after its game let go of the view (and changed the sheet)."""


_SOURCES: dict[int, tuple[GameView, Sheet, Any]] = {}
"""The game's sheet and card source behind each view in use, by the view's
id. Kept here and not on the view, so that nothing a strategy receives
refers to the game's sheet or deck (the entry holds the view too, so its id
cannot be reused while it is here). A game releases each view when its
seat's decisions are over."""

MAX_SOURCES = 4096
"""Views of games dropped mid-game (search clones, stopped games) are never
released: past this many entries, the older half goes."""


def release_view(view: GameView | None) -> None:
    """The game is done with `view`: its sheet stays readable as the last copy made."""
    if view is not None:
        _SOURCES.pop(id(view), None)


def game_view(seat: int, turn: int, sheet: Sheet, offers: list[Offer], next_effects: tuple[str, ...] | None,
              plans: tuple[PlanSpec, ...], plan_first_turn: tuple[int | None, ...],
              public: tuple[PublicSeat, ...], cards_left: int, variant: Variant, n_players: int,
              hand: list[tuple[int, str]] | None = None, deck: Any = None) -> GameView:
    """A strategy's view of `sheet`: `variant` is the strategy's read-only copy
    (`sealed_variant`) and `plans` the strategy's own plan cards; the sheet is
    copied on first read, and again on the first read after the game sets
    `_copy` to None (it changed the sheet); `unseen` is asked of `deck` (the
    game's card source) on first read."""
    view = _new_view(GameView)
    view.seat, view.turn, view.offers, view.next_effects = seat, turn, offers, next_effects
    view.plans, view.plan_first_turn, view.public, view.cards_left = plans, plan_first_turn, public, cards_left
    view.variant, view.n_players, view.hand = variant, n_players, hand
    view._copy, view._made, view._data, view._unseen = None, None, variant.data, None
    if len(_SOURCES) >= MAX_SOURCES:
        for key in list(islice(_SOURCES, MAX_SOURCES // 2)):
            del _SOURCES[key]
    _SOURCES[id(view)] = (view, sheet, deck)
    return view


def keep_notes(view: GameView) -> None:
    """After a question: the street facts the strategy cached on the copy the
    game made go to the game's sheet, for each street whose lists (the ones
    a street's cache depends on) equal the game's."""
    copy = view._made
    if copy is None or copy is not view._copy:
        return
    entry = _SOURCES.get(id(view))
    if entry is None:
        return
    source = entry[1]
    try:  # the strategy may have put anything in its copy: then it keeps no notes
        notes, kept = copy.street_cache, source.street_cache
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
    """Everything a finished game produced (`sheets`: a list, or the
    `FinalSheets` of a game played from its seed alone)."""

    seed: int
    plans: tuple[PlanSpec, ...]
    sheets: Sequence[Sheet]
    scores: list[dict[str, int]]
    ranks: list[int]
    turns: int
    end_reasons: list[str]
    plan_first_turn: list[int | None]
    record: dict | None = field(default=None)
    race: list[int | None] = field(default_factory=lambda: [None, None, None])


class FinalSheets(SequenceABC):
    """The seats' final sheets of a game the native driver played from its
    seed alone (`play_seeded_natively`): each `Sheet` is made from the
    driver's native sheet when it is first read, then kept. In such a game
    making the Python sheets is a quarter of the cost, and a caller that
    wants only the scores never reads them. Pickled as the plain list."""

    __slots__ = ("_native", "_made")

    def __init__(self, native_sheets: Sequence[Any]) -> None:
        self._native = list(native_sheets)
        self._made: list[Sheet | None] = [None] * len(self._native)

    def __len__(self) -> int:
        return len(self._native)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        made = self._made[index]
        if made is None:
            made = self._made[index] = self._native[index].to_sheet()
        return made

    def __repr__(self) -> str:
        return repr(list(self))

    def __reduce__(self) -> tuple:
        return list, (list(self),)


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


HOOKS: dict[str, str] = {
    "roundabout": "choose_roundabout", "play": "choose_play", "effect": "choose_effect",
    "pass": "choose_pass", "plans": "choose_plans", "reshuffle": "choose_reshuffle",
}
"""Decision kind -> the strategy hook that answers it."""


class Decision(NamedTuple):
    """The question a game in progress waits on: which seat decides, what kind of
    decision it is (a key of `HOOKS`), the game's own options, and the view the
    seat decides from.

    A "deal" decision (seat `CHANCE`, no options, no view) starts a turn: the
    game reveals the turn's cards from its own deck when it is applied
    (`apply(None)`); a driver applies it at once, a search may first replace
    the hidden deck order (see `GameState.clone`). The seats' `options` are
    the game's objects: pass one of them (or a value equal to one,
    of the same type) to :meth:`GameState.apply`. For "plans" the options are
    the claims the seat may make now and the answer is a list of them (any
    subset, at most one per plan; None or [] claims nothing); for "reshuffle"
    the options are [False, True]."""

    seat: int
    kind: str
    options: list
    view: Any


class IllegalAnswer(ValueError):
    """An answer that is not one of the pending decision's options: `hook`
    names the strategy hook, the message says what was answered."""

    def __init__(self, hook: str, problem: str) -> None:
        super().__init__(problem)
        self.hook = hook


_DEAL = Decision(CHANCE, "deal", [], None)


_new_tuple = tuple.__new__  # several times cheaper than Decision(...): one per question


class GameState:
    """A Welcome To game in progress, stepped one decision at a time.

    Seats decide in turn order within a turn, each against the same public
    state (the offers, every seat's public summary at the start of the turn):
    nothing of another seat's answer is visible until the turn ends, so the
    game's simultaneous turns are played as a sequence of private decisions.
    Chance (the deck, the reshuffles) is resolved by the game's own generator,
    drawn from the game seed, when the game reaches it: the same seed and the
    same answers give the same game.

    `decision` is the pending :class:`Decision` (None once the game is over);
    `apply(answer)` answers it and runs the game to the next decision;
    `clone()` gives an independent copy to search from; `result()` gives the
    final scores and the record."""

    def __init__(self, variant: Variant, n_players: int, seed: int,
                 plan_ids: Sequence[str | None] = (None, None, None), record: bool = False,
                 rng: np.random.Generator | None = None) -> None:
        variant.check(n_players)
        self.variant = variant
        self.board = variant.rules
        self.n_players = n_players
        self.seed = int(seed)
        self.rng = seat_generators(self.seed, 0)[0] if rng is None else rng
        self.plan_ids = tuple(plan_ids)
        self.plans = draw_plans(variant, self.rng, plan_ids)
        self.sheets = [Sheet(variant.data, self.board.new_state(variant.data)) for _ in range(n_players)]
        self.deck = card_source(variant, self.rng, n_players)
        self.turn = 0
        self.first_turn: list[int | None] = [None, None, None]
        self.race: list[int | None] = [None] * len(variant.data.street_houses)
        self.reshuffle_pending = False
        self.turn_records: list[dict] | None = [] if record else None
        self.end: list[str] = []
        self.decision: Decision | None = None
        # Estate plans without filters can only become claimable when a sheet's
        # unused estates change; the sheet makes a new list whenever they do.
        self._plans_use_only_estates = all(p.kind == "estates" and not p.estate_filter for p in self.plans)
        self._unused_without_claims: list[list | None] = [None] * n_players
        self._view_variant = sealed_variant(variant)
        self._expert = variant.expert
        self._advanced = variant.advanced
        self._view_plans: list[tuple[PlanSpec, ...]] | None = None  # see _seat_plans
        self._view: GameView | None = None
        self._actions: list[dict] = []
        self._action: dict = {}
        self._reshufflers: list[int] = []
        self.decision = _DEAL

    # ------------------------------------------------------------- the contract
    @property
    def is_over(self) -> bool:
        return self.decision is None

    def apply(self, answer: Any) -> None:
        """Answer the pending decision and play on to the next one; IllegalAnswer
        (the game unchanged) when the answer is not one of its options."""
        decision = self.decision
        if decision is None:
            raise IllegalAnswer("apply", "the game is over")
        kind = decision[1]
        if kind == "play":  # the most frequent question first
            options = decision[2]
            index = match_option(answer, options)
            if index < 0:
                raise IllegalAnswer("choose_play", f"answered an illegal {shown(answer)} to choose_play")
            self._after_play(options[index])
            return
        if kind == "deal":
            self._begin_turn()
            return
        if kind == "plans":
            self._apply_claims(self._checked_claims(self._claims(answer)))
            return
        if kind == "reshuffle":
            if type(answer) is not bool and type(answer) is not np.bool_:
                raise IllegalAnswer("choose_reshuffle", f"answered an illegal {shown(answer)} to choose_reshuffle")
            self._apply_reshuffle(bool(answer))
            return
        options = decision.options
        index = match_option(answer, options)
        if index < 0:
            hook = HOOKS[kind]
            raise IllegalAnswer(hook, f"answered an illegal {shown(answer)} to {hook}")
        option = options[index]
        if kind == "play":
            self._after_play(option)
        elif kind == "effect":
            self._apply_effect(option)
        elif kind == "roundabout":
            self._apply_roundabout(option)
        else:
            self._after_pass(option)

    def view(self, seat: int) -> GameView:
        """What `seat` may see now: the pending decision's view when it is that
        seat's, else a view of the seat's sheet as the turn stands."""
        decision = self.decision
        if decision is not None and decision.seat == seat:
            return decision.view
        playing = decision is not None and decision.kind != "deal"
        return self._new_view(seat, self.deck.offers(seat)[:] if playing else [])

    def clone(self) -> "GameState":
        """An independent copy: the same position, the same future chance (the
        game's generator is copied too), sharing nothing that either changes."""
        self._seat_plans(0)  # the twin's seats see the same plan cards as this game's
        twin = object.__new__(GameState)
        twin.__dict__.update(self.__dict__)
        twin.rng = copy.deepcopy(self.rng)
        twin.sheets = [sheet.copy() for sheet in self.sheets]
        twin.deck = _cloned_deck(self.deck, twin.rng)
        twin.first_turn, twin.race, twin.end = self.first_turn[:], self.race[:], self.end[:]
        twin.turn_records = copy.deepcopy(self.turn_records)
        twin._unused_without_claims = [None] * self.n_players
        twin._actions, twin._action, twin._events, twin._deal_record = copy.deepcopy(
            (self._actions, self._action, getattr(self, "_events", None), getattr(self, "_deal_record", None)))
        twin._reshufflers = self._reshufflers[:]
        if "_seat" in self.__dict__:
            twin._sheet = twin.sheets[self._seat]
        twin._view = None
        if self.decision is not None and self.decision.kind != "deal":
            seat = self.decision.seat
            view = self.decision.view
            twin_view = game_view(seat, view.turn, twin.sheets[seat], view.offers[:], view.next_effects,
                                  view.plans, view.plan_first_turn, view.public, view.cards_left,
                                  view.variant, view.n_players, view.hand, twin.deck)
            twin.decision = self.decision._replace(options=self.decision.options[:], view=twin_view)
            twin._view = twin_view
        return twin

    def scores(self) -> list[dict[str, int]]:
        """Every seat's score by category as the sheets stand (final once over)."""
        return score_game(self.sheets, solo=self.variant.solo, bonus=self.bonus)

    # ------------------------------------------------------------------ a turn
    def _begin_turn(self) -> None:
        self.turn += 1
        if self.reshuffle_pending:
            self.deck.reshuffle_all()
            self.reshuffle_pending = False
            events = ["plan-reshuffle", *self.deck.begin_turn()]
        else:
            events = self.deck.begin_turn()
        if "solo-card" in events:
            solo_card_came_up(self.first_turn, self.turn)
        self._events = events
        self._next_effects = self.deck.next_effects()
        self._public = tuple([public_seat(s) for s in self.sheets])
        self._plan_status = tuple(self.first_turn)
        self._cards_left = self.deck.cards_left()
        self._actions: list[dict] = []
        self._claimed = False
        self._reshufflers: list[int] = []
        self._begin_seat(0)

    def _seat_plans(self, seat: int) -> tuple[PlanSpec, ...]:
        """The plan cards `seat`'s views show: every seat's strategy gets plan
        cards of its own, made for all seats when a view first needs them (a
        game played natively never does)."""
        plans = self._view_plans
        if plans is None:
            plans = self._view_plans = [tuple(copy.copy(plan) for plan in self.plans) for _ in range(self.n_players)]
            share_memos(plans)
        return plans[seat]

    def _new_view(self, seat: int, offers: list[Offer]) -> GameView:
        return game_view(seat, self.turn, self.sheets[seat], offers, self._next_effects, self._seat_plans(seat),
                         self._plan_status, self._public, self._cards_left, self._view_variant,
                         self.n_players, self.deck.hand(seat), self.deck)

    def _begin_seat(self, seat: int) -> None:
        self._seat = seat
        sheet = self._sheet = self.sheets[seat]
        self._offers = offers = self.deck.offers(seat)
        old = self._view
        if old is not None:
            _SOURCES.pop(id(old), None)
        self._view = self._new_view(seat, offers[:])
        self._action = {
            "seat": seat, "roundabout": None, "refusal": False, "number_from": None,
            "effect_from": None, "written": None, "truck": None, "effect": None,
            "plans": [], "reshuffle": False,
        }
        self._play_made: Play | None = None
        if self._advanced and sheet.n_roundabouts < sheet.data.max_roundabouts:
            self._ask("roundabout", [*sheet.roundabout_options(), None])
            return
        plays: list[Play | None] = legal_plays(sheet, offers)  # type: ignore[assignment]
        if plays:
            if not must_play(plays):  # type: ignore[arg-type]
                plays.append(None)
            self.decision = _new_tuple(Decision, (seat, "play", plays, self._view))
        else:
            self._after_play(None)

    def _ask(self, kind: str, options: list) -> None:
        self.decision = _new_tuple(Decision, (self._seat, kind, options, self._view))

    def _apply_roundabout(self, choice: tuple[int, int] | None) -> None:
        if choice is not None:
            self._sheet.build_roundabout(*choice)
            self._view._copy = None
            self._action["roundabout"] = {"street": choice[0], "house": choice[1]}
        self._to_play()

    def _to_play(self) -> None:
        plays: list[Play | None] = legal_plays(self._sheet, self._offers)  # type: ignore[assignment]
        if plays:
            if not must_play(plays):  # type: ignore[arg-type]
                plays.append(None)
            self._ask("play", plays)
        else:
            self._after_play(None)

    def _after_play(self, play: Play | None) -> None:
        sheet, action = self._sheet, self._action
        self._play_made = play
        if play is None:
            sheet.refusals = min(sheet.refusals + 1, sheet.data.max_refusals)
            self._view._copy = None
            action["refusal"] = True
            self._to_plans() if not self._expert else self._to_pass()
            return
        offer = self._offers[play.offer]
        apply_play(sheet, play, self.turn)
        self._view._copy = None
        action["number_from"], action["effect_from"] = offer.number_from, offer.effect_from
        action["written"] = {"street": play.street, "house": play.house, "number": play.number}
        action["truck"] = play.truck
        if play.temp:
            action["effect"] = {"kind": TEMP}
            self._to_plans() if not self._expert else self._to_pass()
            return
        options: list[Effect | None] = effect_options(sheet, offer, play)  # type: ignore[assignment]
        if not options:
            self._to_plans() if not self._expert else self._to_pass()
            return
        options.append(None)
        self._ask("effect", options)

    def _apply_effect(self, effect: Effect | None) -> None:
        if effect is not None:
            apply_effect(self._sheet, effect)
            self._view._copy = None
            self._action["effect"] = effect.to_record()
        self._to_plans() if not self._expert else self._to_pass()

    def _to_pass(self) -> None:
        """Expert: the hand card passed on: the unused one, or the seat's pick on a refusal."""
        play = self._play_made
        if play is None:
            self._ask("pass", [0, 1, 2])
            return
        offer = self._offers[play.offer]
        self._after_pass(3 - offer.number_from - offer.effect_from)

    def _after_pass(self, card: int) -> None:
        self._action["passed"] = card
        self._to_plans()

    def _to_plans(self) -> None:
        seat, sheet = self._seat, self._sheet
        unused = sheet.unused_estates() if self._plans_use_only_estates else None
        if unused is not None and unused is self._unused_without_claims[seat]:
            self._end_seat()  # the same unused estates (list object) as at the last check, which found no claim
            return
        claimable = claim_options(sheet, self.plans)
        if not claimable:
            self._unused_without_claims[seat] = unused
            self._end_seat()
            return
        self._ask("plans", claimable)

    def _claims(self, answer: Any) -> list:
        """The claims of a `choose_plans` answer: None or an iterable of at most
        one claim per plan (read no further than that)."""
        if answer is None:
            return []
        limit = len(self.plans)
        try:
            claims = list(islice(answer, limit + 1))
        except Exception as exc:
            raise IllegalAnswer("choose_plans", f"answered an illegal {shown(answer)} to choose_plans (not a "
                                f"list of claims: {type(exc).__name__}: {_shown_error(exc)})") from None
        if len(claims) > limit:
            raise IllegalAnswer("choose_plans", f"answered an illegal {shown(answer)} to choose_plans "
                                f"(more than {limit} claims)")
        return claims

    def _checked_claims(self, claims: list) -> list[PlanClaim]:
        """The game's own claims for `claims`, each checked on the sheet as the
        claims before it leave it (tried on a copy when there are several, so
        that an illegal answer leaves the game unchanged)."""
        sheet = self._sheet if len(claims) < 2 else self._sheet.copy()
        checked = []
        for claim in claims:
            found = checked_claim(sheet, self.plans, claim)
            if found is None:
                raise IllegalAnswer("choose_plans", f"answered an illegal {shown(claim)} to choose_plans")
            checked.append(found)
            if len(claims) > 1:
                apply_claim(sheet, self.plans, found, self.turn)
        return checked

    def _apply_claims(self, claims: list[PlanClaim]) -> None:
        sheet, action = self._sheet, self._action
        for claim in claims:
            apply_claim(sheet, self.plans, claim, self.turn)
            self._view._copy = None
            action["plans"].append(claim_to_record(claim))
        self._end_seat()

    def _end_seat(self) -> None:
        action = self._action
        self._actions.append(action)
        self._claimed = self._claimed or bool(action["plans"])
        if self._seat + 1 < self.n_players:
            self._begin_seat(self._seat + 1)
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        actions = self._actions
        self._deal_record = self.deck.record() if self.turn_records is not None else None
        if self.deck.passes_cards:
            self.deck.end_turn([(a["number_from"], a["effect_from"], a.get("passed")) for a in actions])
        else:
            self.deck.end_turn(())
        plan_status = self._plan_status
        first_plan_this_turn = self._claimed and plan_status.count(None) == len(plan_status)
        if self._claimed:  # plans only need settling in the turns someone completes one
            settle_plans(self.sheets, self.plans, self.first_turn, self.turn)
        self.board.settle(self.sheets, self.race, self.turn)
        if first_plan_this_turn and not self.variant.solo:
            # First plan completion of the game: its completers may ask for a reshuffle.
            self._reshufflers = [a["seat"] for a in actions if a["plans"]]
            self._next_reshuffle()
        else:
            self._close_turn()

    def _next_reshuffle(self) -> None:
        if not self._reshufflers:
            self._close_turn()
            return
        seat = self._seat = self._reshufflers.pop(0)
        release_view(self._view)
        self._view = game_view(seat, self.turn, self.sheets[seat], [], None, self._seat_plans(seat),
                               tuple(self.first_turn), (), self.deck.cards_left(), self._view_variant,
                               self.n_players, None, self.deck)
        self._ask("reshuffle", [False, True])

    def _apply_reshuffle(self, wants: bool) -> None:
        if wants:
            self._actions[self._seat]["reshuffle"] = True
            self.reshuffle_pending = True
        self._next_reshuffle()

    def _close_turn(self) -> None:
        if self.turn_records is not None:
            self.turn_records.append({"turn": self.turn, "events": self._events, **self._deal_record,
                                      "actions": self._actions})
        reasons = end_reasons(self.sheets, self.deck.exhausted())
        if reasons:
            self.end = reasons
            self.decision = None
            release_view(self._view)
            self._view = None
        else:
            self.decision = _DEAL

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

    def result(self, players: Sequence[tuple[str, str]] | None = None,
               reasons: Sequence[str] | None = None) -> GameResult:
        """The finished game: scores, ranks and (when recorded) the record, whose
        `players` are the (name, strategy) of each seat; `reasons` replace the
        end reasons (a game stopped early)."""
        scores = score_game(self.sheets, solo=self.variant.solo, bonus=self.bonus)
        keys = [rank_key(score["total"], sheet) for score, sheet in zip(scores, self.sheets)]
        return self.scored_result(scores, keys, players, reasons)

    def scored_result(self, scores: list[dict[str, int]], keys: list[tuple[int, ...]],
                      players: Sequence[tuple[str, str]] | None = None,
                      reasons: Sequence[str] | None = None) -> GameResult:
        """`result`, given the sheets' scores and rank keys (`score_game`,
        `rank_key`) as the native game driver works them out on its own
        sheets."""
        reasons = list(self.end if reasons is None else reasons)
        game_ranks = ranks(keys)
        record = None
        if self.turn_records is not None:
            players = players or [(f"seat {i}", "") for i in range(self.n_players)]
            record = {
                "format": RECORD_FORMAT,
                "seed": self.seed,
                "deal": DEAL_FORMAT,
                "variant": self._variant_record(),
                "players": [{"seat": i, "name": name, "strategy": strategy}
                            for i, (name, strategy) in enumerate(players)],
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


def _cloned_deck(deck: Any, rng: np.random.Generator) -> Any:
    """A copy of a card source whose lists (and lists of lists) are its own,
    drawing from `rng`."""
    twin = copy.copy(deck)
    for name, value in vars(deck).items():
        if type(value) is list:
            setattr(twin, name, [item[:] if type(item) is list else item for item in value])
    if hasattr(deck, "rng"):
        twin.rng = rng
    return twin


class Game:
    """One game played by strategy objects: the driver loop over a
    :class:`GameState`, asking each decision's seat through its strategy hook.
    Use :func:`play_game` unless you need the parts."""

    move_timeout: float | None = None
    """Seconds one strategy call may take (None: no limit). Checked after the call
    returns, so it reports slow strategies but cannot stop one that never returns."""

    def __init__(self, variant: Variant, seats: Sequence[Seat], seed: int,
                 plan_ids: Sequence[str | None] = (None, None, None), record: bool = False) -> None:
        variant.check(len(seats))
        self.seats = list(seats)
        rng, seat_rngs = seat_generators(int(seed), len(seats))
        self.state = GameState(variant, len(seats), seed, plan_ids, record, rng)
        self.strategies = [seat.factory(rng) for seat, rng in zip(self.seats, seat_rngs)]

    def __getattr__(self, name: str) -> Any:
        """The game in progress (sheets, deck, turn, plans, ...) is the state's."""
        if name == "state":
            raise AttributeError(name)
        return getattr(self.state, name)

    def bonus(self, seat: int) -> int:
        return self.state.bonus(seat)

    native: bool = True
    """Whether `play` may hand a whole game to the native driver when it plays
    the game exactly as the Python loop would (see `_native_driver`)."""

    def play(self) -> GameResult:
        """Ask every decision of the game until it ends; the result. A game
        whose every seat is a built-in the native core plays (`random` with
        its default parameters, `learned` at temperature 0 without
        lookahead, `greedy`, `heuristic` and its presets at temperature 0,
        on the rules it supports) runs natively, with the same random
        streams, decisions and record."""
        natively = self.native and self.move_timeout is None \
            and all(getattr(strategy, "name", None) in NATIVE_STRATEGIES for strategy in self.strategies)
        driver = _native_driver() if natively else None  # other games never load the native module
        if driver is not None and driver.can_play(self.state, self.strategies):
            scores, keys = driver.play(self.state, self.strategies)
            return self.state.scored_result(scores, keys, self._players())
        self._drive(False)
        return self.result()

    def play_turn(self) -> list[str]:
        """Play one turn for everybody; returns the end reasons (empty: go on)."""
        state = self.state
        if state.decision is not None and state.decision.kind == "deal":
            state.apply(None)
        self._drive(True)
        return state.end

    def _drive(self, one_turn: bool) -> None:
        """The driver loop: ask each pending decision's seat through its hook and
        apply the answer, until the game ends (or the turn, with `one_turn`)."""
        state = self.state
        strategies = self.strategies
        timed = self.move_timeout is not None
        decision = state.decision
        while decision is not None:
            seat, kind, options, view = decision
            if kind == "deal":
                if one_turn:
                    return
                state.apply(None)
                decision = state.decision
                continue
            hook = HOOKS[kind]
            method = getattr(strategies[seat], hook)
            if kind != "plans" and kind != "reshuffle":
                options = options[:]
            started = time.perf_counter() if timed else 0.0
            try:
                answer = method(view) if kind == "reshuffle" else method(view, options)
            except Exception as exc:  # a user strategy may raise anything
                raise self._raised(seat, hook, exc) from exc
            if timed:
                self._check_time(seat, hook, time.perf_counter() - started)
            if kind != "reshuffle" and view._made is not None:
                keep_notes(view)
            try:
                state.apply(answer)
            except IllegalAnswer as exc:
                raise StrategyError(self.seats[seat].strategy, seat, state.seed, state.turn, str(exc)) from None
            decision = state.decision

    def _check_time(self, seat: int, hook: str, elapsed: float) -> None:
        """A StrategyError when a call took longer than `move_timeout`."""
        if elapsed > self.move_timeout:  # type: ignore[operator]
            raise StrategyError(self.seats[seat].strategy, seat, self.state.seed, self.state.turn,
                                f"exceeded move_timeout ({elapsed:.3g} s > {self.move_timeout:g} s) "
                                f"in {hook}")

    def _raised(self, seat: int, hook: str, exc: Exception) -> StrategyError:
        return StrategyError(self.seats[seat].strategy, seat, self.state.seed, self.state.turn,
                             f"raised {type(exc).__name__}: {_shown_error(exc)} in {hook}")

    def result(self, reasons: Sequence[str] | None = None) -> GameResult:
        """The game's result as it stands, with the end `reasons` (default: the game's)."""
        return self.state.result(self._players(), reasons)

    def _players(self) -> list[tuple[str, str]]:
        """Each seat's (name, strategy), as the record shows them."""
        return [(s.name, s.strategy) for s in self.seats]


NATIVE_STRATEGIES = frozenset({"random", "learned", "greedy", "heuristic", "safe", "planner", "specialist"})
"""The built-in strategies the native driver plays (it checks the exact class
and parameters too): a game with any other seat never looks it up."""

_NATIVE_GAME: list = []
"""The native game driver once looked up ([module or None])."""


def _native_driver() -> Any:
    """The native game module (`welcometo_sim/native/game.pyx`), or None when it
    is not built, is stale, or WTSIM_PURE_PYTHON asks for the Python game.
    Looked up once (on the first game, as the rules must be imported first)."""
    if not _NATIVE_GAME:
        _NATIVE_GAME.append(native_module("game"))
    return _NATIVE_GAME[0]


def play_game(variant: Variant, seats: Sequence[Seat], seed: int,
              plan_ids: Sequence[str | None] = (None, None, None), record: bool = False) -> GameResult:
    """Play one whole game; a pure function of its arguments."""
    if not record:
        result = play_seeded_natively(variant, seats, seed, plan_ids)
        if result is not None:
            return result
    return Game(variant, seats, seed, plan_ids, record).play()


def play_seeded_natively(variant: Variant, seats: Sequence[Seat], seed: int,
                         plan_ids: Sequence[str | None] = (None, None, None)) -> GameResult | None:
    """The result of an unrecorded game that the native driver plays from its
    seed with no Python set-up at all (`native/game.pyx`,
    `play_seeded_solo`), or None for any other game (then played by `Game`).
    That is a solo game of the base board whose seat is the registered
    `random` with no parameters: its generators' draws are made in C, the
    same as numpy's, so the result is the `Game`'s (tests/test_native_game.py).
    Such a game costs a few dozen microseconds, and the set-up of a
    `GameState`, its generators and its strategy would be as much again."""
    if not (variant.solo and len(seats) == 1 and Game.native and variant.board == "base"
            and not variant.expert and 0 <= seed < 1 << 64):
        return None
    driver, seeding = _native_driver(), _native_seeding()
    if driver is None or seeding is None or not driver.plain_random_seat(seats[0].factory):
        return None
    variant.check(1)
    played = driver.play_seeded_solo(variant, seeding.child_state(seed, 0), seeding.child_state(seed, 1),
                                     _plan_decks(variant), tuple(plan_ids))
    if played is None:
        return None
    plans, sheets, scores, keys, turn, reasons, first_turn = played
    return GameResult(int(seed), plans, FinalSheets(sheets), scores, ranks(keys), turn, reasons, first_turn, None,
                      [None] * len(variant.data.street_houses))
