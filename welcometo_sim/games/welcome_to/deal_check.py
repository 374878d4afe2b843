"""What the rules fix in a game record beyond each seat's actions: the deal.

Replaying the actions (replay.py) shows that every move was legal for the
cards recorded, but not that those cards could have been dealt. These checks
hold a record's cards to the deck, by the rules alone (any program's record):

- standard game: three stacks, each turn flips one card of each; offer i
  pairs stack i's next number with the effect of the card just flipped. So
  the card flipped in turn t is (offer i's number in turn t-1, offer i's
  effect in turn t), and between two shuffles these cards are distinct cards
  of the deck. The stacks run out exactly when the deck's count says so
  ("deck-reshuffled"), keeping the three flipped cards aside;
- solo: three fresh cards a turn, never reshuffled, the solo card in the
  bottom half of the pile;
- expert: every hand card is visible, so the draw pile is followed card by
  card: a hand starts with the card the previous seat passed, the two others
  come from the pile, which is refilled from the discards exactly when empty.

A record that says the simulator dealt it (`deal`, record_format.DEAL_FORMAT) is also
dealt again from its seed and must show the same plans, events and cards.

Each check raises ReplayError naming the turn (or field) of the first problem.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from .cards import Card
from .data import HAND_SIZE, N_STACKS
from .game import card_source, draw_plans
from ..record_format import ReplayError
from ..seeding import SeedFamily
from .variant import Variant

def _card(entry: Sequence) -> Card:
    return int(entry[0]), str(entry[1])


def _shown(card: tuple) -> str:
    number, effect = card
    return f"{'?' if number is None else number} {'?' if effect is None else effect}"


class _Pool:
    """The cards one shuffle may still hand out (an upper bound: a deck whose
    size is not a multiple of three leaves some cards out of the stacks)."""

    def __init__(self, cards: Counter) -> None:
        self.cards = Counter(cards)

    def take(self, card: tuple, turn: int, what: str) -> None:
        """Remove a card known in full; check a half-known one (None for the
        unseen side) can still be among the cards left."""
        number, effect = card
        if number is not None and effect is not None:
            if self.cards[card] <= 0:
                raise ReplayError(f"turn {turn}: {what} is a {_shown(card)} card, but the deck has no "
                                  f"more of those since its last shuffle")
            self.cards[card] -= 1
        elif not any(count > 0 and (number is None or n == number) and (effect is None or e == effect)
                     for (n, e), count in self.cards.items()):
            raise ReplayError(f"turn {turn}: {what} shows {_shown(card)}, but no such card is left "
                              f"in the deck since its last shuffle")


def _check_offer_count(turn: dict) -> None:
    if len(turn["offers"]) != N_STACKS:
        raise ReplayError(f"turn {turn['turn']}: {len(turn['offers'])} offers recorded, the deal shows "
                          f"{N_STACKS}")


def _check_events(turn: dict, expected: list[str]) -> None:
    """The deck's events of a turn (plan reshuffles are checked by the replay)."""
    recorded = sorted(e for e in turn["events"] if e != "plan-reshuffle")
    if recorded != sorted(expected):
        raise ReplayError(f"turn {turn['turn']}: events {turn['events']} recorded, the deck gives "
                          f"{expected if expected else 'none'} then")


def check_standard_deal(turns: list[dict], deck: Sequence[Card]) -> None:
    """The three stacks: each flipped card a card of the deck still in the
    stacks, and a deck reshuffle exactly when the stacks run out."""
    everything = Counter(deck)
    in_play = N_STACKS * (len(deck) // N_STACKS)
    size = len(deck) // N_STACKS  # cards in each stack
    pool = _Pool(everything)
    numbers: list[int | None] = [None] * N_STACKS  # the stack tops shown last turn
    for turn in turns:
        number = turn["turn"]
        _check_offer_count(turn)
        if "plan-reshuffle" in turn["events"]:
            _take_tops(pool, numbers, number - 1)
            size, pool, numbers = in_play // N_STACKS, _Pool(everything), [None] * N_STACKS
            in_play = N_STACKS * size
        offers = [_card(card) for card in turn["offers"]]
        flipped = [(top, effect) for top, (_n, effect) in zip(numbers, offers)]
        for stack, card in enumerate(flipped):
            pool.take(card, number, f"the card flipped on stack {stack + 1}")
        size -= 1
        expected = []
        if size <= 0:
            expected.append("deck-reshuffled")
            kept = Counter(card for card in flipped if None not in card)
            size = (in_play - N_STACKS) // N_STACKS
            in_play = N_STACKS + N_STACKS * size
            pool = _Pool(everything - kept)
        _check_events(turn, expected)
        numbers = [n for n, _effect in offers]
    _take_tops(pool, numbers, len(turns))


def _take_tops(pool: _Pool, numbers: list[int | None], turn: int) -> None:
    """The stack tops shown in `turn` (number side only) are cards of the shuffle too."""
    for stack, top in enumerate(numbers):
        if top is not None:
            pool.take((top, None), turn, f"stack {stack + 1}'s top")


def solo_card_turns(n_cards: int) -> range:
    """The turns in which the solo card can come up: it lies after card p of
    the pile, p in n/2+1 .. n (RULES.md), and turn t draws cards 3t-3 .. 3t-1."""
    return range((n_cards // 2 + 1) // 3 + 1, (n_cards - 1) // 3 + 2)


def solo_exhausted(n_cards: int, turn: int) -> bool:
    """Whether the solo pile cannot give three more cards after `turn`."""
    return n_cards - 3 * turn < 3


def check_solo_deal(turns: list[dict], deck: Sequence[Card]) -> None:
    """Three fresh cards a turn from one pile, and the solo card once, in the pile's bottom half."""
    pool = _Pool(Counter(deck))
    allowed = solo_card_turns(len(deck))
    seen = False
    for turn in turns:
        number = turn["turn"]
        _check_offer_count(turn)
        for index, card in enumerate(turn["offers"]):
            pool.take(_card(card), number, f"revealed card {index + 1}")
        came_up = "solo-card" in turn["events"]
        if came_up and (seen or number not in allowed):
            raise ReplayError(f"turn {number}: the solo card comes up "
                              + ("a second time" if seen else
                                 f"outside turns {allowed.start} to {allowed.stop - 1}, where the bottom half "
                                 f"of the pile is drawn"))
        seen = seen or came_up
        _check_events(turn, ["solo-card"] if came_up else [])


def _actions_by_seat(turn: dict, n_players: int) -> list[dict]:
    by_seat = sorted(turn["actions"], key=lambda action: action["seat"])
    if [action["seat"] for action in by_seat] != list(range(n_players)):
        raise ReplayError(f"turn {turn['turn']}: actions of seats {[a['seat'] for a in turn['actions']]} "
                          f"recorded, every seat plays once a turn")
    return by_seat


def passed_card(action: dict, turn: int) -> int:
    """The hand index an expert seat passed: the card it did not play, or its
    pick on a refusal."""
    passed = action.get("passed")
    if type(passed) is not int or not 0 <= passed < HAND_SIZE:
        raise ReplayError(f"turn {turn}: seat {action['seat']}: passed must be a hand index 0..{HAND_SIZE - 1}, "
                          f"got {passed!r}")
    if not action["refusal"]:
        unused = 3 - action["number_from"] - action["effect_from"]
        if passed != unused:
            raise ReplayError(f"turn {turn}: seat {action['seat']}: passed card {passed} recorded, the card "
                              f"not played is {unused}")
    return passed


class _DrawPile:
    """The expert draw pile and discards, card by card."""

    def __init__(self, deck: Sequence[Card]) -> None:
        self.pile = Counter(deck)
        self.size = len(deck)
        self.discards: Counter = Counter()
        self.refilled = False

    def draw(self, card: Card, turn: int, seat: int) -> None:
        if self.size == 0:
            self.pile, self.size, self.discards = self.discards, sum(self.discards.values()), Counter()
            self.refilled = True
        if self.pile[card] <= 0:
            raise ReplayError(f"turn {turn}: seat {seat}'s hand holds a {_shown(card)} card, but the draw "
                              f"pile has no more of those")
        self.pile[card] -= 1
        self.size -= 1

    def reshuffle_all(self) -> None:
        self.pile += self.discards
        self.size += sum(self.discards.values())
        self.discards = Counter()


def check_expert_deal(turns: list[dict], deck: Sequence[Card], n_players: int) -> None:
    """Each hand: the card the previous seat passed, then two from the draw pile."""
    pile = _DrawPile(deck)
    before: list[list[Card]] | None = None  # last turn's hands
    passed: list[int] = []
    for turn in turns:
        number = turn["turn"]
        hands = [[_card(card) for card in hand] for hand in turn["hands"]]
        for seat, hand in enumerate(hands):
            if len(hand) != HAND_SIZE:
                raise ReplayError(f"turn {number}: seat {seat} holds {len(hand)} cards, a hand holds {HAND_SIZE}")
        pile.refilled = False
        if before is None:
            for seat, hand in enumerate(hands):
                for card in hand:
                    pile.draw(card, number, seat)
        else:
            for seat, (hand, give) in enumerate(zip(before, passed)):
                pile.discards.update(card for index, card in enumerate(hand) if index != give)
            for seat, hand in enumerate(hands):
                given = before[seat - 1][passed[seat - 1]]
                if hand[0] != given:
                    raise ReplayError(f"turn {number}: seat {seat}'s hand starts with {_shown(hand[0])}, but "
                                      f"seat {(seat - 1) % n_players} passed {_shown(given)}")
                for card in hand[1:]:
                    pile.draw(card, number, seat)
        _check_events(turn, ["deck-reshuffled"] if pile.refilled else [])
        if "plan-reshuffle" in turn["events"]:
            pile.reshuffle_all()
        passed = [passed_card(action, number) for action in _actions_by_seat(turn, n_players)]
        before = hands


def check_deal(record: dict, variant: Variant) -> None:
    """The record's cards, by the rules alone (any program's record)."""
    turns, deck = record["turns"], variant.data.deck
    n_players = len(record["players"])
    for turn in turns:
        _actions_by_seat(turn, n_players)
    if variant.expert:
        check_expert_deal(turns, deck, n_players)
    elif variant.solo:
        check_solo_deal(turns, deck)
    else:
        check_standard_deal(turns, deck)


def check_seeded_deal(record: dict, variant: Variant, fixed_plans: Sequence[str | None]) -> None:
    """The plans, events and cards the record's seed deals, as the game deals
    them (game.py), against the record's."""
    seed = record["seed"]
    if seed < 0:
        raise ReplayError(f"seed: {seed} recorded, a game seed is not negative")
    rng = SeedFamily(seed).generator(0)
    for index, (plan, entry) in enumerate(zip(draw_plans(variant, rng, fixed_plans), record["plans"])):
        if plan.id != entry["id"]:
            raise ReplayError(f"plans[{index}].id: {entry['id']!r} recorded, seed {seed} deals {plan.id!r}")
    source = card_source(variant, rng, len(record["players"]))
    for turn in record["turns"]:
        try:
            _deal_turn(source, turn, variant, seed, len(record["players"]))
        except (IndexError, RuntimeError):  # more turns than the seed's deck deals
            raise ReplayError(f"turn {turn['turn']}: seed {seed} deals no more cards") from None


def _deal_turn(source, turn: dict, variant: Variant, seed: int, n_players: int) -> None:
    """Deal one turn from the seed's card source and compare it with the record's."""
    number = turn["turn"]
    key = "hands" if variant.expert else "offers"
    if "plan-reshuffle" in turn["events"]:
        source.reshuffle_all()
        events = ["plan-reshuffle", *source.begin_turn()]
    else:
        events = source.begin_turn()
    if sorted(events) != sorted(turn["events"]):
        raise ReplayError(f"turn {number}: events {turn['events']} recorded, seed {seed} gives {events}")
    dealt = source.record()[key]
    if dealt != turn[key]:
        raise ReplayError(f"turn {number}: {key} {turn[key]} recorded, seed {seed} deals {dealt}")
    if source.passes_cards:
        source.end_turn([(a["number_from"], a["effect_from"], passed_card(a, number))
                         for a in _actions_by_seat(turn, n_players)])
    else:
        source.end_turn(())
