"""What a seat may count (`PlayerView.unseen`) and the learned lookahead
built on it: the unseen cards are exactly the cards the seat cannot see,
the sampled next turns follow each card source's dealing, and the search
depends on nothing hidden (the same answer whatever order the hidden cards
are in)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from helpers import user_error
from strategies.learned import LearnedStrategy
from welcometo_sim.learning.search import afterstate, game_ends_after, lookahead_values, next_turn_cards
from welcometo_sim.games.welcome_to.data import SOLO_CARD
from welcometo_sim.games.welcome_to.effects import legal_plays
from welcometo_sim.games.welcome_to.game import GameState, Seat, ViewExpired, play_game, release_view
from welcometo_sim.games.welcome_to.record_replay import verify
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

BASE, SOLO, EXPERT = Variant(), Variant(solo=True), Variant(expert=True)


def first_play(variant: Variant, players: int, seed: int, turns: int = 1) -> GameState:
    """A game at its `turns`-th play decision of seat 0 (every seat playing its first option)."""
    state = GameState(variant, players, seed)
    seen = 0
    while True:
        decision = state.decision
        if decision.kind == "play" and decision.seat == 0:
            seen += 1
            if seen == turns:
                return state
        state.apply(None if decision.kind in ("deal", "plans") else decision.options[0])


def visible(state: GameState, seat: int) -> Counter:
    """Every card `seat` sees: discards and stack tops, the solo turn's cards, its expert hand."""
    deck, cards = state.deck, state.deck.cards
    if state.variant.solo:
        return Counter(cards[c] for c in deck.discards + deck.revealed)
    if state.variant.expert:
        return Counter(cards[c] for c in deck.discards + deck.hands[seat])
    return Counter(cards[c] for pile in deck.discards + [[s[-1]] for s in deck.stacks] for c in pile)


# ------------------------------------------------------------- unseen cards
@pytest.mark.parametrize("variant, players", [(BASE, 3), (SOLO, 1), (EXPERT, 3)], ids=["base", "solo", "expert"])
@pytest.mark.parametrize("turns", [1, 9])
def test_the_unseen_cards_are_the_deck_less_what_the_seat_sees(variant, players, turns):
    state = first_play(variant, players, seed=11, turns=turns)
    unseen = state.decision.view.unseen
    assert list(unseen) == sorted(unseen)  # no order of the hidden cards shows
    assert Counter(unseen) + visible(state, 0) == Counter(variant.data.deck)
    assert len(unseen) > 0


def test_an_expert_seat_cannot_see_the_other_hands_but_sees_its_own():
    state = first_play(EXPERT, 3, seed=4)
    unseen = Counter(state.decision.view.unseen)
    cards = state.deck.cards
    for card in state.deck.hands[1] + state.deck.hands[2]:
        assert unseen[cards[card]] > 0
    assert sum(unseen.values()) == len(state.deck.pile) + 6


def test_the_solo_card_is_never_counted():
    state = first_play(SOLO, 1, seed=3)
    assert SOLO_CARD in state.deck.pile
    assert len(state.decision.view.unseen) == len(state.deck.pile) - 1


def test_unseen_read_after_the_question_is_an_error():
    state = first_play(BASE, 2, seed=5)
    view = state.decision.view
    release_view(view)
    with pytest.raises(ViewExpired):
        view.unseen


# ------------------------------------------------------------- sampled next turns
def test_a_base_sample_keeps_the_public_next_effects_and_draws_numbers_from_the_unseen_cards():
    view = first_play(BASE, 2, seed=8).decision.view
    unseen = Counter(view.unseen)
    for seed in range(20):
        offers, hand, effects_after = next_turn_cards(view, np.random.default_rng(seed))
        assert hand is None
        assert tuple(o.effect for o in offers) == view.next_effects
        # the number cards drawn are unseen cards, and their effect sides are the turn after's effects
        drawn = Counter(zip((o.number for o in offers), effects_after))
        assert not drawn - unseen


def test_when_the_stacks_run_out_the_numbers_come_from_every_card_but_the_three_tops():
    view = first_play(BASE, 2, seed=8).decision.view
    view = type(view)(**{**{f: getattr(view, f) for f in ("seat", "turn", "sheet", "offers", "next_effects",
                                                          "plans", "plan_first_turn", "public", "cards_left",
                                                          "variant", "n_players", "hand")}, "unseen": ()})
    seen = Counter()
    for seed in range(300):
        offers, _, _ = next_turn_cards(view, np.random.default_rng(seed))
        seen.update(o.number for o in offers)
    assert set(seen) == {number for number, _ in BASE.data.deck}  # every number can come back


@pytest.mark.parametrize("variant, players", [(SOLO, 1), (EXPERT, 2)], ids=["solo", "expert"])
def test_a_solo_or_expert_sample_is_a_hand_of_three_unseen_cards_paired_as_the_game_pairs_them(variant, players):
    view = first_play(variant, players, seed=2).decision.view
    unseen = Counter(view.unseen)
    offers, hand, effects_after = next_turn_cards(view, np.random.default_rng(0))
    assert effects_after is None  # the next hand's cards are all hidden
    assert len(hand) == 3 and not Counter(hand) - unseen
    assert len(offers) == 6
    assert {(o.number, o.effect) for o in offers} == {(hand[i][0], hand[j][1])
                                                      for i in range(3) for j in range(3) if i != j}


# ------------------------------------------------------------- the search
def test_an_afterstate_is_the_candidate_carried_out_on_a_copy():
    view = first_play(BASE, 2, seed=6).decision.view
    play = legal_plays(view.sheet, view.offers)[0]
    sheet = afterstate(view, play, None)
    assert sheet.numbers[play.street][play.house] == play.number
    assert view.sheet.numbers[play.street][play.house] is None
    refused = afterstate(view, None, None)
    assert refused.refusals == view.sheet.refusals + 1


def test_a_candidate_that_ends_the_game_keeps_its_own_value():
    state = first_play(BASE, 2, seed=6)
    view = state.decision.view
    view.sheet.refusals = view.sheet.data.max_refusals - 1
    strategy = LearnedStrategy(np.random.default_rng(0), {"lookahead": 4, "lookahead_width": 50})
    evaluator = strategy.evaluator(view)
    scored = evaluator.decision(view, [p for p in state.decision.options if p is not None] + [None])
    refusal = int(np.flatnonzero(scored.play < 0)[0])
    assert game_ends_after(view, afterstate(view, None, None))
    order, values = lookahead_values(evaluator, view, scored, len(scored), 1, np.random.default_rng(0))
    assert values[list(order).index(refusal)] == scored.values[refusal]


@pytest.mark.parametrize("variant, players", [(BASE, 2), (SOLO, 1)], ids=["base", "solo"])
def test_the_lookahead_answer_does_not_depend_on_the_hidden_order(variant, players):
    """Shuffling the cards the seat cannot see (in a copy of the game)
    changes nothing the search does: it cannot peek."""
    for turns in (1, 6):
        state = first_play(variant, players, seed=21, turns=turns)
        twin = state.clone()
        deck = twin.deck
        if variant.solo:
            hidden = [c for c in deck.pile if c != SOLO_CARD]
            np.random.default_rng(1).shuffle(hidden)
            it = iter(hidden)
            deck.pile = [c if c == SOLO_CARD else next(it) for c in deck.pile]
        else:
            under = [c for stack in deck.stacks for c in stack[:-1]]
            np.random.default_rng(1).shuffle(under)
            sizes = [len(stack) - 1 for stack in deck.stacks]
            deck.stacks = [under[sum(sizes[:i]):sum(sizes[:i + 1])] + [stack[-1]]
                           for i, stack in enumerate(deck.stacks)]
        answers = []
        for game in (state, twin):
            strategy = LearnedStrategy(np.random.default_rng(7), {"lookahead": 6, "lookahead_width": 3})
            answers.append(strategy.choose_play(game.decision.view, game.decision.options))
        assert answers[0] == answers[1]


@pytest.mark.parametrize("variant, players", [
    (BASE, 2), (SOLO, 1), (EXPERT, 3), (Variant(advanced=True), 2), (Variant(board="ice-cream"), 2),
    (Variant(board="christmas"), 2), (Variant(board="easter"), 2)],
    ids=["base", "solo", "expert", "advanced", "ice-cream", "christmas", "easter"])
def test_a_lookahead_game_is_legal_and_the_same_for_the_same_seed(variant, players):
    seats = [Seat("a", "learned", parse_strategy("learned:lookahead=2,lookahead_width=2")),
             *(Seat(f"g{i}", "greedy", parse_strategy("greedy")) for i in range(players - 1))]
    first, second = (play_game(variant, seats, seed=31, record=True) for _ in range(2))
    assert first.record == second.record
    assert verify(first.record) == []  # the checker's replay finds every answer legal and every score right


@pytest.mark.parametrize("entry, problem", [
    ("learned:lookahead=-1", "parameter 'lookahead' must be at least 0"),
    ("learned:lookahead_width=0", "parameter 'lookahead_width' must be at least 1"),
])
def test_bad_lookahead_settings_are_one_line_and_exit_2(tmp_path, capsys, entry, problem):
    message = user_error(["compare", entry, "greedy", "--games", "1", "--quiet", "--out", str(tmp_path / "r")], capsys)
    assert problem in message
