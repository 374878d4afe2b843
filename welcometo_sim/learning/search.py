"""Lookahead for the learned evaluation: the next turn's cards, sampled.

A learned value scores the sheet a candidate leaves; it cannot tell that
the cards of the next turn fit one afterstate better than another. The
lookahead re-scores the best candidates of a decision by what the next turn
makes of them: for each of `draws` samples of the next turn's cards (drawn
from the cards the seat cannot see, `PlayerView.unseen`, as a player
counting cards would), the value of the best candidate of that next turn,
averaged (a depth-one expectimax over sampled chance outcomes). Every
candidate is judged on the same samples, so their differences do not
depend on luck in the sampling.

What a sample knows, by card source:

- shared stacks (two or more seats): the next turn's effects are public
  (`next_effects`); its three numbers are drawn from the cards under the
  stacks' tops, or, when those run out, from every card but the three
  about to be flipped (the exhaustion reshuffle); the effects of the turn
  after are those of the number cards drawn (what the next turn shows);
- solo and expert: the next three cards (the solo draw, or the expert hand:
  its passed card comes from a hand the seat cannot see) from the unseen
  cards, paired into offers as the game pairs them.

The next turn is played on the seat's own sheet: what the other seats do
in between, plan claims and a roundabout before the next play are left out,
and a candidate after which the game ends (its sheet full or out of
refusals, or a solo deck with no turn left) keeps its own value.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple, Sequence

import numpy as np

from ..games.welcome_to.cards import Card, offer, pair_offers
from ..games.welcome_to.effects import Effect, Offer, Play, apply_effect, apply_play, legal_plays, must_play
from ..games.welcome_to.game import PlayerView, end_reasons
from ..games.welcome_to.sheet import Sheet
from .evaluator import Evaluator, Scored

N_OFFERS = 3
"""Cards a turn reveals (the stacks' numbers, the solo draw, an expert hand)."""


class NextTurn(NamedTuple):
    """One sample of the next turn: its offers, its hand (solo and expert
    games, else None) and the effects of the turn after (None: hidden)."""

    offers: list[Offer]
    hand: list[Card] | None
    next_effects: tuple[str, ...] | None


def next_turn_cards(view: PlayerView, rng: np.random.Generator) -> NextTurn:
    """One sample of the next turn's cards as `view`'s seat can know them:
    see the module's docstring."""
    unseen = view.unseen or ()
    deck = view.variant.data.deck
    if view.hand is not None:
        pool = unseen if len(unseen) >= N_OFFERS else deck
        hand = [pool[i] for i in rng.choice(len(pool), N_OFFERS, replace=False)]
        return NextTurn(pair_offers(hand), hand, None)
    effects = view.next_effects
    if effects is None:  # hidden by a reshuffle: the effects are drawn too
        drawn = [unseen[i] for i in rng.choice(len(unseen), 2 * N_OFFERS, replace=False)]
        effects, numbers = tuple(card[1] for card in drawn[N_OFFERS:]), drawn[:N_OFFERS]
    else:
        pool = unseen if len(unseen) >= N_OFFERS else _all_but_tops(deck, view.offers, effects)
        numbers = [pool[i] for i in rng.choice(len(pool), N_OFFERS, replace=False)]
    return NextTurn([offer(numbers[i][0], effects[i], i, i) for i in range(N_OFFERS)], None,
                    tuple(card[1] for card in numbers))


def _all_but_tops(deck: Sequence[Card], offers: Sequence[Offer], effects: Sequence[str]) -> list[Card]:
    """Every card of the deck but the stacks' current tops (the number of
    offer i with next effect i), which the exhaustion reshuffle keeps out."""
    tops = Counter((offers[i].number, effects[i]) for i in range(N_OFFERS))
    rest = []
    for card in deck:
        if tops[card] > 0:
            tops[card] -= 1
        else:
            rest.append(card)
    return rest


def afterstate(view: PlayerView, play: Play | None, use: Effect | None) -> Sheet:
    """A copy of the seat's sheet with the candidate carried out: the play
    and its effect use, or a permit refusal."""
    sheet = view.sheet.copy()
    if play is None:
        sheet.refusals = min(sheet.refusals + 1, sheet.data.max_refusals)
        return sheet
    apply_play(sheet, play, view.turn)
    if use is not None:
        apply_effect(sheet, use)
    return sheet


def game_ends_after(view: PlayerView, sheet: Sheet) -> bool:
    """Whether the game ends after this turn whatever the others do: the
    seat's sheet meets an end condition, or a solo deck cannot deal again."""
    if end_reasons([sheet]):
        return True
    return view.variant.solo and len(view.unseen or ()) < N_OFFERS


def _next_view(view: PlayerView, sheet: Sheet, sample: NextTurn) -> PlayerView:
    """The seat's view of the next turn, on `sheet` with these cards."""
    return PlayerView(view.seat, view.turn + 1, sheet, sample.offers, sample.next_effects, view.plans,
                      view.plan_first_turn, view.public, max(view.cards_left - N_OFFERS, 0), view.variant,
                      view.n_players, sample.hand)


def best_next_value(evaluator: Evaluator, view: PlayerView) -> float:
    """The value of the best candidate of `view`'s turn (a forced refusal
    when no play fits)."""
    plays: list[Play | None] = legal_plays(view.sheet, view.offers)  # type: ignore[assignment]
    if not plays:
        plays = [None]
    elif not must_play(plays):  # type: ignore[arg-type]
        plays.append(None)
    return evaluator.best_value(view, plays)


def lookahead_values(evaluator: Evaluator, view: PlayerView, scored: Scored, width: int, draws: int,
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The `width` best candidates of `scored` (by their own value; ties keep
    the candidates' order) and their lookahead values over `draws` samples
    of the next turn's cards, the same samples for each."""
    order = np.argsort(-scored.values, kind="stable")[:width]
    samples = [next_turn_cards(view, rng) for _ in range(draws)]
    values = np.empty(len(order))
    for slot, index in enumerate(order):
        play, use = scored.candidate(int(index))
        sheet = afterstate(view, play, use)
        if game_ends_after(view, sheet):
            values[slot] = scored.values[index]
            continue
        values[slot] = sum(best_next_value(evaluator, _next_view(view, sheet, sample)) for sample in samples) / draws
    return order, values
