"""Where each turn's offers come from: shared stacks, the solo deck, expert hands.

Every card source answers the same questions for the game: the events before
a turn's offers, the offers of a seat, what the record shows, the next
turn's effects (when public), what to do with the cards once everybody has
played, and the plan reshuffle. Cards are indices into the variant's deck.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations
from typing import Sequence

import numpy as np

from .data import EFFECTS, HAND_SIZE, MAX_NUMBER, N_STACKS, SOLO_CARD
from .effects import Offer

Card = tuple[int, str]


def _shuffled(card_ids: Sequence[int], rng: np.random.Generator) -> list[int]:
    """The card ids in random order: ``sorted(card_ids)`` permuted by
    ``rng.permutation(len(card_ids))``. Shuffling the list in place makes the
    same swaps from the same draws, at a third of the cost."""
    ordered = sorted(card_ids)
    rng.shuffle(ordered)
    return ordered


_OFFERS: dict[tuple[int, str, int, int], Offer] = {}


def offer(number: int, effect: str, number_from: int, effect_from: int) -> Offer:
    """The offer of these values. Offers are immutable, so each is made once and
    shared through a memo (at most numbers × effects × card-index pairs of
    them): several are handed out to every seat every turn."""
    key = (number, effect, number_from, effect_from)
    found = _OFFERS.get(key)
    if found is None:
        found = _OFFERS[key] = Offer(number, effect, number_from, effect_from)
    return found


@lru_cache(maxsize=None)
def _offer_grid(number_from: int, effect_from: int) -> tuple[dict[str, Offer], ...]:
    """Every offer taking its number from card `number_from` and its effect from
    card `effect_from`, as `grid[number][effect]`: decks and hands read their
    offers from these every turn (indexing is much cheaper there than
    building and hashing the `offer` memo's keys)."""
    return tuple({effect: offer(number, effect, number_from, effect_from) for effect in EFFECTS}
                 for number in range(MAX_NUMBER + 1))


def pair_offers(cards: Sequence[Card]) -> list[Offer]:
    """Number from one card, effect from a different one (solo and expert)."""
    return [grid[cards[i][0]][cards[j][1]] for i, j, grid in _pair_grids(len(cards))]


@lru_cache(maxsize=None)
def _pair_grids(size: int) -> tuple[tuple[int, int, tuple[dict[str, Offer], ...]], ...]:
    """Each (number card, effect card) index pair of a hand of `size` cards, with its offer grid."""
    return tuple((i, j, _offer_grid(i, j)) for i, j in permutations(range(size), 2))


class Deck:
    """The standard game: three stacks (number side up) and three discard piles
    (effect side up); offer i pairs stack i's number with discard i's effect."""

    passes_cards = False
    """Whether `end_turn` needs the seats' card choices (only expert hands pass cards on)."""

    def __init__(self, cards: Sequence[Card], rng: np.random.Generator) -> None:
        self.cards = cards
        self.rng = rng
        self.stacks: list[list[int]] = []
        self.discards: list[list[int]] = [[] for _ in range(N_STACKS)]
        self._offers: tuple[Offer, ...] | None = None  # the offers of the top cards, until they move
        self._grids = tuple(_offer_grid(pile, pile) for pile in range(N_STACKS))
        self._deal(list(range(len(cards))))

    def _deal(self, card_ids: list[int]) -> None:
        self._offers = None
        order = _shuffled(card_ids, self.rng)
        size = len(order) // N_STACKS
        self.stacks = [order[i * size:(i + 1) * size] for i in range(N_STACKS)]

    def reshuffle_all(self) -> None:
        """Plan reshuffle: every card (stacks and discards) into three new stacks."""
        everything = [c for pile in self.stacks + self.discards for c in pile]
        self.discards = [[] for _ in range(N_STACKS)]
        self._deal(everything)

    def reveal(self) -> bool:
        """Flip each stack's top card onto its discard pile. When that empties the
        stacks, keep the three flipped cards as effects and shuffle all other cards
        into new stacks. Returns True when that exhaustion reshuffle happened."""
        self._offers = None
        for stack, discard in zip(self.stacks, self.discards):
            discard.append(stack.pop())
        if all(self.stacks):
            return False
        kept = [pile[-1] for pile in self.discards]
        rest = [c for pile in self.stacks for c in pile] + [c for pile in self.discards for c in pile[:-1]]
        self.discards = [[c] for c in kept]
        self._deal(rest)
        return True

    # The card-source interface used by the game.
    def begin_turn(self) -> list[str]:
        return ["deck-reshuffled"] if self.reveal() else []

    def offers(self, seat: int = 0) -> list[Offer]:
        """The same three offers for every seat (worked out once per reveal)."""
        if self._offers is None:
            self._offers = self._top_offers()
        return list(self._offers)

    def _top_offers(self) -> tuple[Offer, ...]:
        cards, (grid_1, grid_2, grid_3) = self.cards, self._grids
        (stack_1, stack_2, stack_3), (discard_1, discard_2, discard_3) = self.stacks, self.discards
        return (grid_1[cards[stack_1[-1]][0]][cards[discard_1[-1]][1]],
                grid_2[cards[stack_2[-1]][0]][cards[discard_2[-1]][1]],
                grid_3[cards[stack_3[-1]][0]][cards[discard_3[-1]][1]])

    def hand(self, seat: int) -> list[Card] | None:
        return None

    def record(self) -> dict:
        return {"offers": [[o.number, o.effect] for o in self.offers()]}

    def next_effects(self) -> tuple[str, ...] | None:
        cards = self.cards
        stack_1, stack_2, stack_3 = self.stacks
        return cards[stack_1[-1]][1], cards[stack_2[-1]][1], cards[stack_3[-1]][1]

    def end_turn(self, choices: Sequence[tuple[int | None, int | None, int | None]]) -> None:
        """Nothing to do: the shared cards stay where they are until the next reveal."""

    def cards_left(self) -> int:
        stack_1, stack_2, stack_3 = self.stacks
        return len(stack_1) + len(stack_2) + len(stack_3)

    def unseen(self, seat: int = 0) -> tuple[Card, ...]:
        """The cards under the stacks' tops: every card no seat can see (the
        discards and the tops are face up), sorted, so their order stays hidden."""
        cards = self.cards
        return tuple(sorted(cards[c] for stack in self.stacks for c in stack[:-1]))

    def exhausted(self) -> bool:
        return False


class SoloDeck:
    """Solo mode: one draw pile with the solo card in its bottom half; each turn
    reveals three fresh cards, all discarded after the turn.

    `solo_card_waiting` says whether the solo card is still in `pile`, so that
    counting the cards left needs no search: code that sets `pile` by hand
    sets it too."""

    passes_cards = False

    def __init__(self, cards: Sequence[Card], rng: np.random.Generator) -> None:
        order = _shuffled(range(len(cards)), rng)
        order.insert(int(rng.integers(len(order) // 2 + 1, len(order) + 1)), SOLO_CARD)
        self._start(cards, order)

    @classmethod
    def in_order(cls, cards: Sequence[Card], order: list[int]) -> "SoloDeck":
        """The deck that draws `order` (card ids and the solo card) first to
        last, as a deck made from a generator draws the order it shuffled
        (the native driver shuffles it in C: `native/game.pyx`)."""
        deck = cls.__new__(cls)
        deck._start(cards, order)
        return deck

    def _start(self, cards: Sequence[Card], order: list[int]) -> None:
        self.cards = cards
        self.pile = order[::-1]  # draw from the end
        self.solo_card_waiting = True  # the solo card is still in the pile
        self.revealed: list[int] = []
        self.discards: list[int] = []
        self._hand: list[Card] = []  # the revealed cards and their six pairs, worked out once a turn
        self._offers: list[Offer] = []

    def begin_turn(self) -> list[str]:
        events = []
        self.revealed = []
        while len(self.revealed) < 3:
            card = self.pile.pop()
            if card == SOLO_CARD:
                events.append("solo-card")
                self.solo_card_waiting = False
            else:
                self.revealed.append(card)
        self._hand = [self.cards[c] for c in self.revealed]
        self._offers = pair_offers(self._hand)
        return events

    def offers(self, seat: int = 0) -> list[Offer]:
        return list(self._offers)

    def hand(self, seat: int) -> list[Card]:
        return list(self._hand)

    def record(self) -> dict:
        return {"offers": [list(self.cards[c]) for c in self.revealed]}

    def next_effects(self) -> tuple[str, ...] | None:
        return None

    def end_turn(self, choices: Sequence[tuple[int | None, int | None, int | None]]) -> None:
        self.discards.extend(self.revealed)
        self.revealed = []
        self._hand, self._offers = [], []

    def reshuffle_all(self) -> None:
        raise RuntimeError("solo mode has no plan reshuffle")

    def cards_left(self) -> int:
        """Construction cards still in the pile (the solo card is none)."""
        return len(self.pile) - self.solo_card_waiting

    def unseen(self, seat: int = 0) -> tuple[Card, ...]:
        """The construction cards still in the pile, sorted, so their order stays hidden."""
        cards = self.cards
        return tuple(sorted(cards[c] for c in self.pile if c != SOLO_CARD))

    def exhausted(self) -> bool:
        """The deck cannot supply the three cards of another turn."""
        return self.cards_left() < 3


class ExpertHands:
    """Expert rules: a private hand of three cards per player; after a turn
    each passes the third card to the next seat and draws two."""

    passes_cards = True

    def __init__(self, cards: Sequence[Card], rng: np.random.Generator, n_players: int) -> None:
        self.cards = cards
        self.rng = rng
        self.pile = _shuffled(range(len(cards)), rng)
        self.discards: list[int] = []
        self.hands = [[self.pile.pop() for _ in range(HAND_SIZE)] for _ in range(n_players)]
        self.pending: list[str] = []

    def begin_turn(self) -> list[str]:
        events, self.pending = self.pending, []
        return events

    def offers(self, seat: int) -> list[Offer]:
        return pair_offers(self.hand(seat))

    def hand(self, seat: int) -> list[Card]:
        return [self.cards[c] for c in self.hands[seat]]

    def record(self) -> dict:
        return {"hands": [[list(self.cards[c]) for c in hand] for hand in self.hands]}

    def next_effects(self) -> tuple[str, ...] | None:
        return None

    def end_turn(self, choices: Sequence[tuple[int | None, int | None, int | None]]) -> None:
        """`choices[seat]` = (number card, effect card, passed card) as hand indices.
        The passed card goes to seat + 1, the other two are discarded, then
        everyone draws two (reshuffling the discards when the pile runs out)."""
        n = len(self.hands)
        passed = []
        for hand, (_number, _effect, give) in zip(self.hands, choices):
            passed.append(hand[give])
            self.discards.extend(c for i, c in enumerate(hand) if i != give)
        self.hands = [[passed[(seat - 1) % n]] for seat in range(n)]
        for hand in self.hands:
            for _ in range(HAND_SIZE - 1):
                if not self.pile:
                    self.pile = _shuffled(self.discards, self.rng)
                    self.discards = []
                    if "deck-reshuffled" not in self.pending:
                        self.pending.append("deck-reshuffled")
                hand.append(self.pile.pop())

    def reshuffle_all(self) -> None:
        """Plan reshuffle: pile and discards together; hands stay in hands."""
        self.pile = _shuffled(self.pile + self.discards, self.rng)
        self.discards = []

    def cards_left(self) -> int:
        return len(self.pile)

    def unseen(self, seat: int) -> tuple[Card, ...]:
        """The cards `seat` cannot see: the pile and the other seats' hands
        (the discards are face up), sorted, so neither order nor owner shows."""
        cards = self.cards
        hidden = [c for other, hand in enumerate(self.hands) if other != seat for c in hand]
        return tuple(sorted(cards[c] for c in self.pile + hidden))

    def exhausted(self) -> bool:
        return False
