# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Whole games of built-in `random` seats, played on native sheets.

`play_random` takes a game just set up by `GameState` (plans drawn, deck
shuffled: the game's generator has made the same draws as for the Python
game) and plays it from the first deal to the end, as `Game.play` would
with every seat a `RandomStrategy` of default parameters: the same
decisions in the same order, each over the same option list (the native
sheet lists options in the Python order), each random pick drawn from the
seat's own generator at the same position of its stream, in blocks of
`DRAWS_PER_BLOCK` as the strategy draws them. The standard game's deck
stays the Python card source (a few calls a turn); the solo pile, made and
shuffled by `SoloDeck`, is drawn from here. At the end the sheets go back to the
state as Python sheets, so that `GameState.result` gives the same result
and record as the Python game.

`can_play` says which games this driver plays; `rules/game.py` asks it
before handing a game over, and plays every other game in Python.
"""

from ..rules.cards import _pair_grids
from ..rules.data import SOLO_CARD
from ..rules.effects import TEMP, effect
from ..rules.game import end_reasons, solo_card_came_up
from ..rules.plans import PlanClaim, _estate_options, checked_claim
from ..strategies.random import DRAWS_PER_BLOCK, RandomStrategy
from .sheet import NativeSheet

cdef Py_ssize_t BLOCK = DRAWS_PER_BLOCK
cdef tuple SOLO_GRIDS = _pair_grids(3)
"""The solo offers' (number card, effect card) pairs, in `pair_offers` order, with their offer grids."""


cdef class SeatDraws:
    """A seat's `RandomStrategy.uniform`: the numbers of `rng.random()`,
    drawn `DRAWS_PER_BLOCK` at a time and handed out in order."""

    cdef object rng
    cdef double[::1] block
    cdef Py_ssize_t next

    def __cinit__(self, rng):
        self.rng = rng
        self.next = BLOCK

    cdef double uniform(self) except? -1.0:
        if self.next >= BLOCK:
            self.block = self.rng.random(BLOCK)
            self.next = 0
        self.next += 1
        return self.block[self.next - 1]

    cdef Py_ssize_t pick(self, Py_ssize_t count) except -1:
        """`RandomStrategy.pick`'s index among `count` options."""
        return <Py_ssize_t>(self.uniform() * count)


def can_play(state, strategies) -> bool:
    """Whether `play_random` plays this game exactly as the Python game: a game
    not started yet, every seat exactly a `RandomStrategy` with its default parameters that has drawn
    nothing yet, the base board (its tables as published or changed by
    overrides: the native sheet reads them), the standard or solo game (not
    expert), and plans that are all plain estate lists."""
    variant = state.variant
    if state.turn != 0 or state.decision is None or state.decision.kind != "deal":
        return False  # a game already under way (Game.play_turn) goes on in Python
    if variant.expert or variant.board != "base":
        return False
    for plan in state.plans:
        if plan.kind != "estates" or plan.estate_filter:
            return False
    for strategy in strategies:
        if type(strategy) is not RandomStrategy or strategy.params != RandomStrategy.defaults \
                or strategy._draws:
            return False
    return True


def play_random(state, strategies) -> None:
    """Play `state` (at its first deal) to the end for `strategies` (for which
    `can_play` holds); the state then holds the finished game."""
    cdef int n_players = state.n_players, turn = 0, seat
    cdef bint recording = state.turn_records is not None, reshuffle_pending = False, claimed
    cdef bint solo = state.variant.solo, advanced = state.variant.advanced
    cdef double rate = RandomStrategy.defaults["roundabout_rate"]
    data = state.variant.data
    deck, plans, first_turn = state.deck, state.plans, state.first_turn
    cards = deck.cards
    cdef int max_roundabouts = data.max_roundabouts, max_refusals = data.max_refusals
    cdef list sheets = [NativeSheet(data) for _ in range(n_players)]
    cdef list draws = [SeatDraws(strategy.rng) for strategy in strategies]
    cdef list actions, claimers
    while True:
        turn += 1
        if solo:
            events, revealed, offers = _solo_reveal(deck, cards)
        elif reshuffle_pending:
            deck.reshuffle_all()
            reshuffle_pending = False
            events = ["plan-reshuffle", *deck.begin_turn()]
            offers = deck.offers()
        else:
            events = deck.begin_turn()
            offers = deck.offers()
        if "solo-card" in events:
            solo_card_came_up(first_turn, turn)
        plan_status = tuple(first_turn)
        actions, claimers = [], []
        for seat in range(n_players):
            action = _play_seat(sheets[seat], draws[seat], seat, offers, plans, plan_status, turn,
                                advanced, max_roundabouts, rate, recording)
            if action is not None:
                actions.append(action)
            if _claimed_now(sheets[seat], turn):
                claimers.append(seat)
        if solo:  # SoloDeck.record and end_turn
            deal_record = {"offers": [list(cards[card]) for card in revealed]} if recording else None
            deck.discards.extend(revealed)
        else:
            deal_record = deck.record() if recording else None
            deck.end_turn(())
        claimed = len(claimers) > 0
        if claimed:
            _settle_plans(sheets, plans, first_turn, turn)
        if claimed and plan_status.count(None) == len(plan_status) and not solo:
            for seat in claimers:  # the first plan completions of the game: each completer may ask
                if (<SeatDraws>draws[seat]).uniform() < 0.5:
                    reshuffle_pending = True
                    if recording:
                        actions[seat]["reshuffle"] = True
        if recording:
            state.turn_records.append({"turn": turn, "events": events, **deal_record, "actions": actions})
        exhausted = len(deck.pile) - deck.solo_card_waiting < 3 if solo else deck.exhausted()
        if exhausted or _some_sheet_ends(sheets, max_refusals):
            reasons = end_reasons(sheets, exhausted)
            break
    state.sheets = [sheet.to_sheet() for sheet in sheets]
    state.turn, state.end, state.decision = turn, reasons, None


cdef tuple _solo_reveal(deck, cards):
    """`SoloDeck.begin_turn` and `offers` (`cards.pair_offers`): the next three construction cards
    off the pile (past the solo card, when it comes up); (events, the cards
    revealed, the six offers). The pile and the solo card's flag are the
    deck's own, so its other questions stay right."""
    cdef list events = [], revealed = []
    cdef list pile = deck.pile
    while len(revealed) < 3:
        card = pile.pop()
        if card == SOLO_CARD:
            events.append("solo-card")
            deck.solo_card_waiting = False
        else:
            revealed.append(card)
    hand = (cards[revealed[0]], cards[revealed[1]], cards[revealed[2]])
    return events, revealed, [grid[hand[i][0]][hand[j][1]] for i, j, grid in SOLO_GRIDS]


cdef object _play_seat(sheet, SeatDraws draws, int seat, list offers, tuple plans,
                       tuple plan_status, int turn, bint advanced, int max_roundabouts, double rate,
                       bint recording):
    """One seat's decisions of a turn (roundabout, play, effect, plans), as the
    Python game asks them and `RandomStrategy` answers; the seat's action
    record when recording, else None."""
    cdef Py_ssize_t index, count, plain
    action = None
    if recording:
        action = {"seat": seat, "roundabout": None, "refusal": False, "number_from": None,
                  "effect_from": None, "written": None, "truck": None, "effect": None,
                  "plans": [], "reshuffle": False}
    if advanced and sheet.n_roundabouts < max_roundabouts:
        houses = sheet.roundabout_options()
        if houses and draws.uniform() < rate:
            street, house = houses[draws.pick(len(houses))]
            sheet.build_roundabout(street, house)
            if recording:
                action["roundabout"] = {"street": street, "house": house}
    play = None
    count, plain = sheet.count_plays(offers)
    if count:
        index = draws.pick(count + (plain == 0))  # a refusal is an option when every play needs the temp agency
        if index < count:
            play = sheet.play_at(offers, index)
    if play is None:
        sheet.refuse()
        if recording:
            action["refusal"] = True
    else:
        offer = offers[play[0]]
        sheet.apply_play(play)
        if recording:
            action["number_from"], action["effect_from"] = offer.number_from, offer.effect_from
            action["written"] = {"street": play[1], "house": play[2], "number": play[3]}
        if play[4]:
            if recording:
                action["effect"] = {"kind": TEMP}
        else:
            options = sheet.effect_options(offer, play)
            if options:
                index = draws.pick(len(options) + 1)
                if index < len(options):
                    chosen = options[index]
                    sheet.apply_effect(chosen)
                    if recording:
                        action["effect"] = effect(*chosen).to_record()
    _complete_plans(sheet, plans, plan_status, turn, action)
    return action


cdef bint _some_sheet_ends(list sheets, int max_refusals) except -1:
    """Whether a sheet meets an end condition of `game.end_reasons` (which
    then names them): cheaper than asking it after every turn."""
    for sheet in sheets:
        if sheet.refusals >= max_refusals or sheet.plans_completed() == len(sheet.plan_turns) \
                or sheet.is_full():
            return True
    return False


cdef bint _claimed_now(sheet, int turn):
    """Whether the seat completed a plan this turn."""
    for completed in sheet.plan_turns:
        if completed == turn:
            return True
    return False


cdef void _complete_plans(sheet, tuple plans, tuple plan_status, int turn, action) except *:
    """`Strategy.choose_plans` (`complete_all`) over the game's claim options,
    and the game marking the chosen claims: the most valuable first (high
    value while nobody has the plan), each kept when still valid after the
    ones before it."""
    claims = _claim_options(sheet, plans)
    if not claims:
        return
    # sorted(claims, key=value, reverse=True) keeps equal values in their order: so does (-value, position)
    ranked = sorted([(-_current_value(plans, plan_status, claim.deck), position, claim)
                     for position, claim in enumerate(claims)])
    trial = sheet.copy()
    chosen, decks = [], set()
    for _value, _position, claim in ranked:
        if claim.deck in decks:
            continue
        if checked_claim(trial, plans, claim) is not None:
            _mark_claim(trial, claim, turn)
            chosen.append(claim)
            decks.add(claim.deck)
    for claim in chosen:
        _mark_claim(sheet, claim, turn)
        if action is not None:
            action["plans"].append({"deck": claim.deck, "estates": [list(e) for e in claim.estates]})


cdef int _current_value(tuple plans, tuple plan_status, int deck) except? -1:
    """A plan's value now, as `complete_all` ranks claims: high while nobody has it, else low."""
    spec = plans[deck - 1]
    return spec.points[0] if plan_status[deck - 1] is None else spec.points[1]


cdef list _claim_options(sheet, tuple plans):
    """`plans.claim_options` for plain estate-list plans."""
    cdef list claims = []
    unused = len(sheet.unused_estates())
    turns = sheet.plan_turns
    for deck, spec in enumerate(plans, start=1):
        if turns[deck - 1] is not None or len(spec.estates) > unused:
            continue
        for option in _estate_options(spec, sheet):
            claims.append(PlanClaim(deck, option))
    return claims


cdef void _mark_claim(sheet, claim, int turn) except *:
    """`plans.apply_claim` of an estate plan: the plan line over its houses."""
    for street, first, size in claim.estates:
        for house in range(first, first + size):
            sheet.mark_plan(street, house, claim.deck)
    sheet.complete_plan(claim.deck, turn)


cdef void _settle_plans(list sheets, tuple plans, list first_turn, int turn) except *:
    """`game.settle_plans` on native sheets."""
    for deck, spec in enumerate(plans):
        completers = [sheet for sheet in sheets if sheet.plan_turns[deck] == turn]
        if not completers:
            continue
        if first_turn[deck] is None:
            first_turn[deck] = turn
        points = spec.points[0] if first_turn[deck] == turn else spec.points[1]
        for sheet in completers:
            sheet.set_plan_points(deck + 1, points)
