"""RULES.md §11 (expert hands), §13 (solo mode) and §14 (pass direction)."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest

from welcometo_sim.games.welcome_to.cards import ExpertHands, SoloDeck, pair_offers
from welcometo_sim.games.welcome_to.data import DECK_COMPOSITION, SOLO_CARD, TEMP_RANK_POINTS, build_deck
from welcometo_sim.games.welcome_to.effects import Offer
from welcometo_sim.games.welcome_to.game import Game, Seat, play_game, solo_card_came_up
from welcometo_sim.games.welcome_to.record_replay import verify
from welcometo_sim.games.welcome_to.scoring import score_game, temp_points
from welcometo_sim.games.welcome_to.variant import Variant, VariantError
from welcometo_sim.strategy import complete_all, parse_strategy

from helpers import card_ids, estates_sheet, sheet_from, variant_seat

CARDS = build_deck(DECK_COMPOSITION)
EXPERT = Variant(expert=True)
SOLO = Variant(solo=True)
PLANS = ("estates-4-4", "estates-3-6", "estates-3-4")
STREET1_FULL = " ".join(map(str, range(11)))
STREET2_FULL = " ".join(map(str, range(12)))


def instance(seat):
    return seat.factory.instances[0]


def blocked_sheet():
    """Every house built except street 0 house 5, squeezed between 5 and 6: nothing fits."""
    return sheet_from("1 2 3 4 5 . 6 7 8 9", STREET1_FULL, STREET2_FULL)


def expert_cards(hands):
    return sorted(hands.pile + hands.discards + [c for hand in hands.hands for c in hand])


# ======================================================================= expert
def test_variant_checks():
    with pytest.raises(VariantError):
        EXPERT.check(1)
    EXPERT.check(2)
    EXPERT.check(5)
    with pytest.raises(VariantError):
        SOLO.check(2)
    with pytest.raises(VariantError):
        SOLO.check(3)
    SOLO.check(1)
    with pytest.raises(VariantError):
        Variant(solo=True, expert=True).check(1)
    with pytest.raises(VariantError):
        Game(EXPERT, [variant_seat("a")], 0, PLANS)
    with pytest.raises(VariantError):
        Game(SOLO, [variant_seat("a"), variant_seat("b")], 0, PLANS)


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_expert_deal_three_cards_each(n_players):
    hands = ExpertHands(CARDS, np.random.default_rng(1), n_players)
    assert [len(h) for h in hands.hands] == [3] * n_players
    assert len(hands.pile) == 81 - 3 * n_players and hands.discards == []
    assert expert_cards(hands) == list(range(81))
    assert hands.cards_left() == 81 - 3 * n_players
    assert hands.begin_turn() == []
    assert hands.next_effects() is None and hands.exhausted() is False


def test_expert_offers_are_the_six_ordered_pairs_of_different_cards():
    hands = ExpertHands(CARDS, np.random.default_rng(4), 3)
    for seat in range(3):
        hand = [CARDS[c] for c in hands.hands[seat]]
        assert hands.hand(seat) == hand
        offers = hands.offers(seat)
        assert len(offers) == 6
        assert {(o.number_from, o.effect_from) for o in offers} == set(permutations(range(3), 2))
        for o in offers:
            assert o.number_from != o.effect_from
            assert (o.number, o.effect) == (hand[o.number_from][0], hand[o.effect_from][1])


def test_pair_offers_explicit():
    cards = [(3, "bis"), (8, "pool"), (12, "temp")]
    assert pair_offers(cards) == [
        Offer(3, "pool", 0, 1), Offer(3, "temp", 0, 2), Offer(8, "bis", 1, 0),
        Offer(8, "temp", 1, 2), Offer(12, "bis", 2, 0), Offer(12, "pool", 2, 1)]


def test_expert_end_turn_passes_to_the_next_seat_and_draws_two():
    hands = ExpertHands(CARDS, np.random.default_rng(2), 3)
    before = [h[:] for h in hands.hands]
    pile = hands.pile[:]
    hands.end_turn([(0, 1, 2), (2, 0, 1), (1, 2, 0)])
    passed = [before[0][2], before[1][1], before[2][0]]
    for seat in range(3):
        assert len(hands.hands[seat]) == 3
        assert passed[(seat - 1) % 3] in hands.hands[seat]          # seat s gives to s + 1
    assert passed[0] in hands.hands[1] and passed[1] in hands.hands[2] and passed[2] in hands.hands[0]
    assert sorted(hands.discards) == sorted([before[0][0], before[0][1], before[1][0], before[1][2],
                                             before[2][1], before[2][2]])
    drawn = [c for h in hands.hands for c in h if c not in passed]
    assert len(drawn) == 6 and set(drawn) <= set(pile)
    assert len(hands.pile) == len(pile) - 6 and set(hands.pile) == set(pile) - set(drawn)
    assert expert_cards(hands) == list(range(81))


def test_expert_two_players_pass_to_each_other():
    hands = ExpertHands(CARDS, np.random.default_rng(3), 2)
    before = [h[:] for h in hands.hands]
    hands.end_turn([(0, 1, 2), (1, 2, 0)])
    assert before[0][2] in hands.hands[1] and before[1][0] in hands.hands[0]
    assert before[0][2] not in hands.hands[0] and before[1][0] not in hands.hands[1]


def test_expert_plan_reshuffle_keeps_hands():
    hands = ExpertHands(CARDS, np.random.default_rng(5), 3)
    for _ in range(4):
        hands.end_turn([(0, 1, 2)] * 3)
    kept = [h[:] for h in hands.hands]
    outside = sorted(hands.pile + hands.discards)
    hands.reshuffle_all()
    assert hands.hands == kept
    assert hands.discards == [] and sorted(hands.pile) == outside
    assert expert_cards(hands) == list(range(81))


@pytest.mark.parametrize("n_players", [2, 3])
def test_expert_deck_exhaustion_refills_from_discards_and_keeps_hands(n_players):
    hands = ExpertHands(CARDS, np.random.default_rng(6), n_players)
    per_turn = 2 * n_players
    turns_to_empty = (81 - 3 * n_players) // per_turn
    for turn in range(turns_to_empty):
        assert hands.begin_turn() == []
        hands.end_turn([(0, 1, 2)] * n_players)
        assert expert_cards(hands) == list(range(81))
    remaining = len(hands.pile)
    assert remaining < per_turn
    assert hands.begin_turn() == []
    kept_passed = [h[2] for h in hands.hands]
    hands.end_turn([(0, 1, 2)] * n_players)             # the pile runs out in this draw
    assert expert_cards(hands) == list(range(81))
    for seat in range(n_players):
        assert len(hands.hands[seat]) == 3
        assert kept_passed[(seat - 1) % n_players] in hands.hands[seat]
    assert hands.begin_turn() == ["deck-reshuffled"]
    assert hands.begin_turn() == []                     # reported once
    for _ in range(30):
        hands.end_turn([(2, 1, 0)] * n_players)
        assert expert_cards(hands) == list(range(81))
        assert all(len(h) == 3 for h in hands.hands)


# ------------------------------------------------------------- expert games
def test_expert_game_record_has_hands_and_passed_cards():
    seats = [variant_seat(n) for n in "abc"]
    game = Game(EXPERT, seats, 7, PLANS, record=True)
    for turn in range(1, 7):
        hands_before = [h[:] for h in game.deck.hands]
        assert game.play_turn() == []
        record = game.turn_records[-1]
        assert "offers" not in record
        assert record["hands"] == [[list(CARDS[c]) for c in h] for h in hands_before]
        for seat, action in enumerate(record["actions"]):
            assert "passed" in action
            strategy = instance(seats[seat])
            seen = strategy.seen[-1]
            assert seen["turn"] == turn
            assert seen["hand"] == [CARDS[c] for c in hands_before[seat]]
            assert seen["offers"] == pair_offers(seen["hand"])
            assert seen["next_effects"] is None
            if not action["refusal"]:
                used = {action["number_from"], action["effect_from"]}
                assert action["number_from"] != action["effect_from"]
                assert action["passed"] == ({0, 1, 2} - used).pop()
            given = hands_before[seat][action["passed"]]
            assert given in game.deck.hands[(seat + 1) % 3]          # next turn's hand of seat + 1
    result = game.result([])
    # six turns of an unfinished game: every action and card checks out, only its end does not
    assert verify(result.record) == ["end.reasons: [] recorded, but no end condition holds after turn 6, "
                                     "the last turn recorded"]


def test_expert_refusal_passes_the_card_chosen_by_choose_pass():
    seats = [variant_seat("a", pass_card=lambda view, cards: cards[-1]), variant_seat("b")]
    game = Game(EXPERT, seats, 3, PLANS, record=True)
    game.sheets[0] = blocked_sheet()
    hands_before = [h[:] for h in game.deck.hands]
    assert game.play_turn() == []
    a = instance(seats[0])
    assert a.seen == []                                   # nothing fitted: never asked to play
    assert a.pass_calls == [(1, [CARDS[c] for c in hands_before[0]], [0, 1, 2])]
    action = game.turn_records[0]["actions"][0]
    assert action["refusal"] is True and action["passed"] == 2
    assert action["number_from"] is None and action["effect_from"] is None
    assert hands_before[0][2] in game.deck.hands[1]
    assert hands_before[0][0] in game.deck.discards and hands_before[0][1] in game.deck.discards
    assert game.sheets[0].refusals == 1
    assert instance(seats[1]).pass_calls == []            # b played: the unused card goes on


def test_expert_refusal_when_no_hand_combination_fits():
    # street 0 house 5 takes only 6..8 (between 5 and 9); seat a holds 2, 11 and 15
    seats = [variant_seat("a"), variant_seat("b")]
    game = Game(EXPERT, seats, 0, PLANS, record=True)
    game.sheets[0] = sheet_from("1 2 3 4 5 . 9 10 11 12", STREET1_FULL, STREET2_FULL)
    wanted = card_ids(CARDS, [(2, "surveyor"), (11, "surveyor"), (15, "surveyor")])
    rest = [c for c in range(81) if c not in wanted]
    game.deck.hands = [wanted, rest[:3]]
    game.deck.pile = rest[3:]
    game.deck.discards = []
    game.play_turn()
    action = game.turn_records[0]["actions"][0]
    assert action["refusal"] is True and action["passed"] == 0
    assert instance(seats[0]).seen == []
    assert instance(seats[0]).pass_calls == [(1, [(2, "surveyor"), (11, "surveyor"),
                                                  (15, "surveyor")], [0, 1, 2])]
    assert wanted[0] in game.deck.hands[1]
    assert expert_cards(game.deck) == list(range(81))


def test_expert_hands_survive_a_plan_reshuffle_in_a_game():
    seats = [variant_seat("a", reshuffle=True), variant_seat("b")]
    game = Game(EXPERT, seats, 11, PLANS, record=True)
    game.sheets[0] = estates_sheet([3, 4])
    game.play_turn()
    assert game.sheets[0].plan_turns[2] == 1
    assert instance(seats[0]).reshuffle_calls == [1]
    hands_after_1 = [h[:] for h in game.deck.hands]
    game.play_turn()
    record = game.turn_records[1]
    assert record["events"] == ["plan-reshuffle"]
    assert record["hands"] == [[list(CARDS[c]) for c in h] for h in hands_after_1]
    assert expert_cards(game.deck) == list(range(81))


def test_expert_game_deck_exhaustion_event_in_the_record():
    seats = [variant_seat("a"), variant_seat("b")]
    game = Game(EXPERT, seats, 2, PLANS, record=True)
    game.deck.discards = game.deck.pile[3:]
    game.deck.pile = game.deck.pile[:3]                   # 3 cards left: 4 are drawn after turn 1
    game.play_turn()
    assert game.turn_records[0]["events"] == []
    game.play_turn()
    assert game.turn_records[1]["events"] == ["deck-reshuffled"]
    game.play_turn()
    assert game.turn_records[2]["events"] == []
    assert expert_cards(game.deck) == list(range(81))


@pytest.mark.parametrize("kind, seed, n", [("random", 0, 2), ("random", 1, 3), ("random", 2, 4),
                                           ("greedy", 3, 2)])
def test_expert_games_verify(kind, seed, n):
    spec = parse_strategy(kind)
    seats = [Seat(f"p{i}", spec.id, spec) for i in range(n)]
    result = play_game(EXPERT, seats, seed, record=True)
    record = result.record
    assert verify(record) == []
    assert record["variant"]["expert"] is True
    for turn in record["turns"]:
        assert "offers" not in turn and len(turn["hands"]) == n
        assert all(len(hand) == 3 for hand in turn["hands"])
        assert all(a["passed"] in (0, 1, 2) for a in turn["actions"])
    # what a seat passed is in the next seat's next hand
    for this, following in zip(record["turns"], record["turns"][1:]):
        for action in this["actions"]:
            seat = action["seat"]
            card = this["hands"][seat][action["passed"]]
            assert card in following["hands"][(seat + 1) % n]


# ========================================================================= solo
def test_solo_card_is_in_the_bottom_half():
    positions = []
    for seed in range(200):
        deck = SoloDeck(CARDS, np.random.default_rng(seed))
        order = deck.pile[::-1]                          # draw order
        assert len(order) == 82 and order.count(SOLO_CARD) == 1
        assert sorted(c for c in order if c != SOLO_CARD) == list(range(81))
        positions.append(order.index(SOLO_CARD))
    assert min(positions) >= 40                          # at least half the deck above it
    assert max(positions) >= 75 and min(positions) <= 46  # spread over the bottom half


def test_solo_turns_reveal_three_fresh_cards_and_offer_six_pairs():
    deck = SoloDeck(CARDS, np.random.default_rng(3))
    order = [c for c in deck.pile[::-1] if c != SOLO_CARD]
    seen = []
    for turn in range(10):
        deck.begin_turn()
        assert len(deck.revealed) == 3
        assert deck.revealed == order[3 * turn:3 * turn + 3]
        hand = deck.hand(0)
        assert hand == [CARDS[c] for c in deck.revealed]
        offers = deck.offers(0)
        assert offers == pair_offers(hand) and len(offers) == 6
        assert all(o.number_from != o.effect_from for o in offers)
        assert deck.record() == {"offers": [list(c) for c in hand]}
        assert deck.next_effects() is None
        seen += deck.revealed
        deck.end_turn([(0, 1, None)])
        assert deck.revealed == [] and deck.discards == seen
    assert len(set(seen)) == 30


def rig_solo(deck, before_solo, after_solo):
    """Draw order: the `before_solo` cards, the solo card, `after_solo` cards (all ids)."""
    deck.pile = (list(before_solo) + [SOLO_CARD] + list(after_solo))[::-1]
    deck.solo_card_waiting = True
    deck.discards = sorted(set(range(81)) - set(before_solo) - set(after_solo))


def test_solo_card_is_skipped_and_reported():
    deck = SoloDeck(CARDS, np.random.default_rng(0))
    rig_solo(deck, [10, 11, 12, 13, 14], [15, 16, 17, 18])
    assert deck.begin_turn() == [] and deck.revealed == [10, 11, 12]
    deck.end_turn([(0, 1, None)])
    assert deck.solo_card_waiting and deck.cards_left() == 6
    assert deck.begin_turn() == ["solo-card"] and deck.revealed == [13, 14, 15]
    assert not deck.solo_card_waiting
    deck.end_turn([(0, 1, None)])
    assert deck.cards_left() == 3 and not deck.exhausted()
    assert deck.begin_turn() == [] and deck.revealed == [16, 17, 18]
    deck.end_turn([(0, 1, None)])
    assert deck.cards_left() == 0 and deck.exhausted()


@pytest.mark.parametrize("left, exhausted", [(0, True), (1, True), (2, True), (3, False), (7, False)])
def test_solo_exhausted_when_fewer_than_three_cards_remain(left, exhausted):
    deck = SoloDeck(CARDS, np.random.default_rng(0))
    deck.pile, deck.solo_card_waiting = list(range(left)), False
    assert deck.cards_left() == left and deck.exhausted() is exhausted
    deck.pile, deck.solo_card_waiting = list(range(left)) + [SOLO_CARD], True  # the solo card is no card to play
    assert deck.cards_left() == left and deck.exhausted() is exhausted


def test_fresh_solo_deck_lasts_27_turns_with_one_solo_card_event():
    deck = SoloDeck(CARDS, np.random.default_rng(8))
    order = deck.pile[::-1]
    events = []
    for _ in range(27):
        assert not deck.exhausted()
        events += deck.begin_turn()
        deck.end_turn([(0, 1, None)])
    assert deck.exhausted()
    assert events == (["solo-card"] if order.index(SOLO_CARD) < 81 else [])
    assert sorted(deck.discards) == list(range(81))


def test_solo_card_came_up_lowers_only_open_plans():
    first = [3, None, None]
    solo_card_came_up(first, 7)
    assert first == [3, 6, 6]


def test_solo_has_no_reshuffle():
    deck = SoloDeck(CARDS, np.random.default_rng(0))
    with pytest.raises(RuntimeError):
        deck.reshuffle_all()


# -------------------------------------------------------------- solo games
def test_solo_game_plans_after_the_solo_card_score_low():
    ready = estates_sheet([3, 4, 3, 6, 4, 4])      # street 0: 3|4|3, street 1: 6|4, street 2: 4

    def one_per_turn(view, claimable):
        wanted = {1: 3, 2: 2, 3: 1}                # deck 3 on turn 1, deck 2 on turn 2, deck 1 on turn 3
        return complete_all(view, [c for c in claimable if wanted[c.deck] == view.turn])

    seat = variant_seat("solo", plans=one_per_turn, reshuffle=True)
    game = Game(SOLO, [seat], 4, PLANS, record=True)
    game.sheets[0] = ready
    rig_solo(game.deck, [20, 30, 40], list(range(41, 80)))
    assert game.play_turn() == []
    assert game.turn_records[0]["events"] == []
    assert game.sheets[0].plan_points == [0, 0, 7]              # before the solo card: high
    assert game.first_turn == [None, None, 1]
    assert game.play_turn() == []                               # the solo card comes up
    assert game.turn_records[1]["events"] == ["solo-card"]
    assert game.first_turn == [1, 1, 1]
    assert instance(seat).seen[1]["first"] == (1, 1, 1)
    assert game.sheets[0].plan_points == [0, 4, 7]              # estates-3-6 low
    assert game.play_turn() == ["plans"]
    assert game.sheets[0].plan_points == [3, 4, 7]              # estates-4-4 low
    assert instance(seat).reshuffle_calls == []                 # no reshuffle option in solo
    result = game.result(["plans"])
    assert result.scores[0]["plans"] == 14
    assert [t["events"] for t in result.record["turns"]] == [[], ["solo-card"], []]


def test_solo_game_without_the_solo_card_keeps_high_values():
    seat = variant_seat("solo", plans=lambda v, c: complete_all(v, c) if v.turn == 2 else [])
    game = Game(SOLO, [seat], 4, PLANS)
    game.sheets[0] = estates_sheet([3, 4])
    rig_solo(game.deck, list(range(10)), [])
    game.play_turn()
    game.play_turn()
    assert game.sheets[0].plan_points == [0, 0, 7]


def test_solo_game_never_offers_a_reshuffle_and_deck_stays_put():
    seat = variant_seat("solo", reshuffle=True)
    game = Game(SOLO, [seat], 6, PLANS, record=True)
    game.sheets[0] = estates_sheet([3, 4])
    left = game.deck.cards_left()
    game.play_turn()
    game.play_turn()
    assert game.sheets[0].plan_turns == [None, None, 1]
    assert instance(seat).reshuffle_calls == []
    assert all("plan-reshuffle" not in t["events"] for t in game.turn_records)
    assert game.turn_records[0]["actions"][0]["reshuffle"] is False
    assert game.deck.cards_left() == left - 6


def test_solo_game_ends_when_the_deck_cannot_supply_a_turn():
    seat = variant_seat("solo")
    game = Game(SOLO, [seat], 2, PLANS, record=True)
    rig_solo(game.deck, [5, 6], [7, 8, 9, 10, 11])     # 7 cards: two turns, one left over
    assert game.play_turn() == []
    assert game.turn_records[0]["events"] == ["solo-card"]
    assert game.play_turn() == ["deck"]
    assert game.deck.cards_left() == 1
    result = game.result(["deck"])
    assert result.record["end"] == {"turn": 2, "reasons": ["deck"]}
    # The rigged pile is not a deal of the rules: a full deck does not run out
    # after two turns, the solo card lies in its bottom half, and the seed deals other cards.
    assert verify(result.record) == [
        "end.reasons: ['deck'] recorded, but no end condition holds after turn 2, the last turn recorded",
        "turn 1: the solo card comes up outside turns 14 to 27, where the bottom half of the pile is drawn",
        "turn 1: events ['solo-card'] recorded, seed 2 gives []"]


def test_solo_game_record_offers_are_the_three_cards():
    seat = variant_seat("solo")
    game = Game(SOLO, [seat], 2, PLANS, record=True)
    for _ in range(3):
        game.play_turn()
    for t, record in enumerate(game.turn_records):
        hand = instance(seat).seen[t]["hand"]
        assert record["offers"] == [list(c) for c in hand] and len(hand) == 3
        assert "hands" not in record
        assert instance(seat).seen[t]["offers"] == pair_offers(hand)
        assert instance(seat).seen[t]["next_effects"] is None


@pytest.mark.parametrize("seed", [0, 3])   # 0: plans before and after the solo card; 3: on its turn
def test_greedy_solo_game_runs_to_the_end_of_the_deck(seed):
    spec = parse_strategy("greedy")
    result = play_game(SOLO, [Seat("me", spec.id, spec)], seed, record=True)
    assert result.end_reasons == ["deck"] and result.turns == 27
    record = result.record
    assert verify(record) == []
    solo_turns = [t["turn"] for t in record["turns"] if "solo-card" in t["events"]]
    assert len(solo_turns) <= 1
    for t in record["turns"]:
        assert t["events"] in ([], ["solo-card"])
        assert not t["actions"][0]["reshuffle"]
    # plans completed on or after the solo card's turn score low, earlier ones high
    for entry in record["final"][0]["sheet"]["plans"]:
        high, low = record["plans"][entry["deck"] - 1]["points"]
        late = bool(solo_turns) and entry["turn"] >= solo_turns[0]
        assert entry["points"] == (low if late else high)


@pytest.mark.parametrize("seed", range(3))
def test_random_solo_games_verify(seed):
    spec = parse_strategy("random")
    result = play_game(SOLO, [Seat("me", spec.id, spec)], seed, record=True)
    assert verify(result.record) == []
    assert all(not a["reshuffle"] for t in result.record["turns"] for a in t["actions"])


# ---------------------------------------------------------------- solo temps
@pytest.mark.parametrize("temps, points", [(0, 0), (1, 0), (5, 0), (6, 7), (7, 7), (11, 7)])
def test_solo_temp_scoring(temps, points):
    assert temp_points([temps], TEMP_RANK_POINTS, solo=True) == [points]
    sheet = sheet_from(temps=temps)
    assert score_game([sheet], solo=True)[0]["temps"] == points


def test_temp_ranking_is_not_used_in_solo():
    # one player with 1 temp would rank first (7) under the multi-player rule
    assert temp_points([1], TEMP_RANK_POINTS, solo=False) == [7]
    assert temp_points([1], TEMP_RANK_POINTS, solo=True) == [0]
