"""RULES.md §1.2, §2, §3, §6 (reshuffle, first/late), §7 and §8: the deck and the turn loop."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from welcometo_sim.games.welcome_to.data import DECK_COMPOSITION, EFFECTS, build_deck
from welcometo_sim.games.welcome_to.effects import Effect, Offer, Play
from welcometo_sim.games.welcome_to.game import Deck, Game, Seat, StrategyError, end_reasons, play_game
from welcometo_sim.games.welcome_to.record_replay import replay, verify
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import complete_all, parse_strategy

from helpers import (all_cards, estates_sheet, full_sheet, rig_stacks, scripted_seat, sheet_from)

CARDS = build_deck(DECK_COMPOSITION)
PLANS = ("estates-4-4", "estates-3-6", "estates-3-4")
STREET1_FULL = " ".join(map(str, range(11)))
STREET2_FULL = " ".join(map(str, range(12)))


def fresh_deck(seed=0):
    return Deck(CARDS, np.random.default_rng(seed))


def game_with(seats, sheets=None, plans=PLANS, seed=0):
    game = Game(Variant(), seats, seed, plans, record=True)
    for seat, sheet in (sheets or {}).items():
        game.sheets[seat] = sheet
    return game


def instance(seat):
    return seat.factory.instances[0]


def refuse_if_allowed(view, plays):
    return None if None in plays else plays[0]


def blocked_sheet():
    """Every house built except street 0 house 5, squeezed between 5 and 6: nothing fits."""
    return sheet_from("1 2 3 4 5 . 6 7 8 9", STREET1_FULL, STREET2_FULL)


# ------------------------------------------------------------------- the deck
def test_deck_composition_matches_the_table():
    assert len(CARDS) == 81
    assert Counter(e for _n, e in CARDS) == {
        "surveyor": 18, "real_estate": 18, "landscaper": 18, "pool": 9, "temp": 9, "bis": 9}
    per_number = Counter(n for n, _e in CARDS)
    assert [per_number[n] for n in range(1, 16)] == [3, 3, 4, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 3, 3]
    assert CARDS.count((8, "surveyor")) == 2 and CARDS.count((4, "surveyor")) == 0
    assert CARDS.count((13, "bis")) == 1 and CARDS.count((11, "pool")) == 0
    assert set(EFFECTS) == {"surveyor", "real_estate", "landscaper", "pool", "temp", "bis"}


def test_fresh_deck_is_three_stacks_of_27():
    deck = fresh_deck()
    assert [len(s) for s in deck.stacks] == [27, 27, 27]
    assert deck.discards == [[], [], []]
    assert all_cards(deck) == list(range(81))
    assert deck.cards_left() == 81


@pytest.mark.parametrize("seed", range(20))
def test_a_deal_is_the_sorted_cards_in_the_order_of_numpys_permutation(seed):
    """The deal order is part of the seeded streams: sorted card ids permuted by
    rng.permutation (results of earlier versions stay reproducible)."""
    deck = Deck(CARDS, np.random.default_rng(seed))
    order = np.random.default_rng(seed).permutation(81).tolist()
    assert [card for stack in deck.stacks for card in stack] == order
    deck.stacks, deck.discards = [[7, 3, 50], [12]], [[1], [], [9]]  # piles in any order
    deck.rng = np.random.default_rng(seed)
    deck.reshuffle_all()
    expected = [[1, 3, 7, 9, 12, 50][k] for k in np.random.default_rng(seed).permutation(6).tolist()]
    assert [card for stack in deck.stacks for card in stack] == expected


def test_reveal_flips_each_top_card_and_pairs_number_with_effect():
    deck = fresh_deck(3)
    for _turn in range(5):
        tops = [s[-1] for s in deck.stacks]
        assert deck.reveal() is False
        assert [d[-1] for d in deck.discards] == tops
        offers = deck.offers()
        assert offers == [
            Offer(CARDS[deck.stacks[i][-1]][0], CARDS[deck.discards[i][-1]][1], i, i) for i in range(3)
        ]
        assert deck.next_effects() == tuple(CARDS[s[-1]][1] for s in deck.stacks)
        assert all_cards(deck) == list(range(81))


def test_rigged_stacks_give_the_chosen_offers():
    deck = fresh_deck()
    rig_stacks(deck, [[(6, "temp"), (3, "surveyor")], [(3, "pool"), (12, "real_estate")],
                      [(5, "surveyor"), (15, "landscaper")]])
    assert all_cards(deck) == list(range(81))
    deck.reveal()
    assert [(o.number, o.effect) for o in deck.offers()] == [(3, "temp"), (12, "pool"), (15, "surveyor")]
    assert deck.next_effects() == ("surveyor", "real_estate", "landscaper")


def test_deck_exhaustion_on_turn_27():
    deck = fresh_deck(7)
    for _turn in range(26):
        assert deck.reveal() is False
    assert [len(s) for s in deck.stacks] == [1, 1, 1]
    last = [s[0] for s in deck.stacks]
    expected_effects = deck.next_effects()
    assert deck.reveal() is True                       # turn 27
    assert deck.discards == [[c] for c in last]        # the three flipped cards stay as effects
    assert [len(s) for s in deck.stacks] == [26, 26, 26]
    assert all_cards(deck) == list(range(81))
    assert not set(last) & {c for s in deck.stacks for c in s}
    offers = deck.offers()
    assert tuple(o.effect for o in offers) == expected_effects
    assert [o.number for o in offers] == [CARDS[s[-1]][0] for s in deck.stacks]
    # play goes on with the new stacks
    following = deck.next_effects()
    assert deck.reveal() is False
    assert tuple(o.effect for o in deck.offers()) == following
    assert all_cards(deck) == list(range(81))


def test_second_exhaustion_after_26_more_turns():
    deck = fresh_deck(1)
    flags = [deck.reveal() for _ in range(27 + 26)]
    assert [i + 1 for i, f in enumerate(flags) if f] == [27, 53]
    assert all_cards(deck) == list(range(81))


def test_reshuffle_all_gathers_stacks_and_discards():
    deck = fresh_deck(2)
    for _ in range(10):
        deck.reveal()
    deck.reshuffle_all()
    assert deck.discards == [[], [], []]
    assert [len(s) for s in deck.stacks] == [27, 27, 27]
    assert all_cards(deck) == list(range(81))


# ---------------------------------------------------------------- end reasons
def test_end_reasons_each_condition():
    assert end_reasons([sheet_from(), sheet_from()]) == []
    assert end_reasons([sheet_from(), sheet_from(refusals=3)]) == ["refusals"]
    assert end_reasons([sheet_from(refusals=2)]) == []
    assert end_reasons([sheet_from(plan_turns=[1, 4, 2])]) == ["plans"]
    assert end_reasons([sheet_from(plan_turns=[1, None, 2])]) == []
    assert end_reasons([full_sheet()]) == ["houses"]
    assert end_reasons([blocked_sheet()]) == []
    assert end_reasons([full_sheet(), sheet_from(refusals=3, plan_turns=[1, 2, 3])]) == [
        "refusals", "plans", "houses"]


def test_full_sheet_with_bis_houses_counts_as_all_built():
    sheet = sheet_from("1 2 3 3b 4 5 6 7 8 9", STREET1_FULL, STREET2_FULL)
    assert end_reasons([sheet]) == ["houses"]


# ---------------------------------------------------------- turns and endings
def test_three_refusals_end_the_game_at_the_end_of_turn_3():
    seats = [scripted_seat("a"), scripted_seat("b")]
    game = game_with(seats, {0: blocked_sheet()})
    assert game.play_turn() == [] and game.sheets[0].refusals == 1
    assert game.play_turn() == [] and game.sheets[0].refusals == 2
    assert game.play_turn() == ["refusals"] and game.sheets[0].refusals == 3
    result = game.result(["refusals"])
    assert result.turns == 3
    assert instance(seats[0]).seen == []               # never asked: nothing could be written
    assert [t["actions"][0]["refusal"] for t in result.record["turns"]] == [True, True, True]
    assert result.scores[0]["refusals"] == -5
    assert game.sheets[1].n_built() == 3


def test_play_stops_after_the_turn_where_a_condition_first_holds():
    blocked = blocked_sheet()
    blocked.refusals = 1
    seats = [scripted_seat("a"), scripted_seat("b")]
    result = game_with(seats, {1: blocked}).play()
    assert result.turns == 2 and result.end_reasons == ["refusals"]
    assert result.record["end"] == {"turn": 2, "reasons": ["refusals"]}
    assert result.sheets[1].refusals == 3 and result.sheets[0].n_built() == 2


def test_game_ends_when_the_last_house_is_built():
    # only street 0 house 5 is free and takes 6..8; offers: turn 1 (1,2,3), turn 2 (13,14,15), turn 3 (7,9,11)
    seats = [scripted_seat("a"), scripted_seat("b")]
    sheet = sheet_from("1 2 3 4 5 . 9 10 11 12", STREET1_FULL, STREET2_FULL)
    game = game_with(seats, {0: sheet})
    rig_stacks(game.deck, [
        [(1, "surveyor"), (1, "real_estate"), (13, "surveyor"), (7, "surveyor")],
        [(2, "surveyor"), (2, "real_estate"), (14, "surveyor"), (9, "surveyor")],
        [(5, "surveyor"), (3, "surveyor"), (15, "surveyor"), (11, "surveyor")],
    ])
    assert game.play_turn() == []
    assert game.play_turn() == []
    assert game.sheets[0].refusals == 2
    assert game.play_turn() == ["houses"]
    assert game.sheets[0].numbers[0][5] == 7 and game.sheets[0].is_full()
    offers = [t["offers"] for t in game.turn_records]
    assert offers == [
        [[1, "surveyor"], [2, "surveyor"], [3, "surveyor"]],
        [[13, "real_estate"], [14, "real_estate"], [15, "surveyor"]],
        [[7, "surveyor"], [9, "surveyor"], [11, "surveyor"]],
    ]


def ready_for_all_plans():
    """Estates 4|6 / 4|3|4 / 3: enough for estates-4-4, estates-3-6 and estates-3-4 at once."""
    return sheet_from("0 1 2 3 | 4 5 6 7 8 9", "0 1 2 3 | 4 5 6 | 7 8 9 10", "1 2 3 |")


def test_completing_the_third_plan_ends_the_game_that_turn():
    def later(view, claimable):
        return complete_all(view, claimable) if view.turn >= 3 else []

    seats = [scripted_seat("a", plans=later), scripted_seat("b")]
    game = game_with(seats, {0: ready_for_all_plans()})
    assert game.play_turn() == [] and game.play_turn() == []
    assert game.play_turn() == ["plans"]
    assert game.sheets[0].plan_turns == [3, 3, 3]
    assert game.sheets[0].plan_points == [6, 8, 7]         # all first completions: high values
    assert game.first_turn == [3, 3, 3]
    assert [turn for turn, _ in instance(seats[0]).plan_calls] == [1, 2, 3]
    assert instance(seats[1]).plan_calls == []            # nothing claimable: not asked


def test_two_plans_do_not_end_the_game():
    def two(view, claimable):
        return complete_all(view, [c for c in claimable if c.deck != 2])

    seats = [scripted_seat("a", plans=two), scripted_seat("b")]
    game = game_with(seats, {0: ready_for_all_plans()})
    assert game.play_turn() == []
    assert game.sheets[0].plan_turns == [1, None, 1]


def test_plans_may_be_completed_on_a_refusal_turn():
    sheet = sheet_from("1 2 3 | 4 5 . 6 7 8 9", "0 1 2 3 | 4 5 6 7 8 9 10", STREET2_FULL)
    seats = [scripted_seat("a"), scripted_seat("b")]
    game = game_with(seats, {0: sheet})
    assert game.play_turn() == []
    action = game.turn_records[0]["actions"][0]
    assert action["refusal"] is True and action["written"] is None
    assert action["plans"] == [{"deck": 3, "estates": [[0, 0, 3], [1, 0, 4]]}]
    assert game.sheets[0].plan_points == [0, 0, 7]


RIG_TEMP_ONLY = [[(6, "temp"), (3, "surveyor")], [(3, "pool"), (12, "real_estate")],
                 [(5, "surveyor"), (15, "landscaper")]]
NEARLY_FULL = ("1 2 3 . 9 10 11 12 13 14", STREET1_FULL, STREET2_FULL)


def test_refusal_offered_when_only_the_temp_agency_makes_a_number_fit():
    seats = [scripted_seat("a", play=refuse_if_allowed), scripted_seat("b")]
    game = game_with(seats, {0: sheet_from(*NEARLY_FULL)})
    rig_stacks(game.deck, RIG_TEMP_ONLY)
    game.play_turn()
    assert instance(seats[0]).seen[0]["plays"] == [
        Play(0, 0, 3, 4, True), Play(0, 0, 3, 5, True), None]
    assert game.sheets[0].refusals == 1 and game.sheets[0].numbers[0][3] is None
    assert game.turn_records[0]["actions"][0]["refusal"] is True


def test_temp_play_in_a_game_crosses_a_box_and_skips_the_effect_question():
    seats = [scripted_seat("a"), scripted_seat("b")]
    game = game_with(seats, {0: sheet_from(*NEARLY_FULL)})
    rig_stacks(game.deck, RIG_TEMP_ONLY)
    game.play_turn()
    assert game.sheets[0].numbers[0][3] == 4 and game.sheets[0].temps == 1
    action = game.turn_records[0]["actions"][0]
    assert action["effect"] == {"kind": "temp"} and action["refusal"] is False
    assert action["written"] == {"street": 0, "house": 3, "number": 4}
    assert instance(seats[0]).effect_calls == []


def test_refusing_when_a_number_fits_is_rejected():
    seats = [scripted_seat("a", play=lambda view, plays: None), scripted_seat("b")]
    game = game_with(seats)
    with pytest.raises(StrategyError, match="illegal None to choose_play"):
        game.play_turn()


def test_illegal_play_is_rejected():
    seats = [scripted_seat("a", play=lambda view, plays: Play(0, 0, 0, 16, True)), scripted_seat("b")]
    game = game_with(seats)
    rig_stacks(game.deck, [[(5, "surveyor"), (3, "surveyor")], [(3, "pool"), (12, "real_estate")],
                           [(6, "surveyor"), (15, "landscaper")]])
    with pytest.raises(StrategyError, match="to choose_play"):
        game.play_turn()
    assert game.sheets[0].n_built() == 0


def test_two_claims_sharing_an_estate_are_rejected():
    plans = ("estates-3-3-3", "estates-3-6", "estates-3-4")
    shared = (0, 0, 3)

    def greedy_claims(view, claimable):
        first = {}
        for claim in claimable:
            if shared in claim.estates:
                first.setdefault(claim.deck, claim)
        return list(first.values())

    seats = [scripted_seat("a", plans=greedy_claims), scripted_seat("b")]
    game = game_with(seats, {0: estates_sheet([3, 4, 6])}, plans=plans)
    with pytest.raises(StrategyError, match="to choose_plans"):
        game.play_turn()
    # The answer as a whole is illegal, so none of it is applied: the first claim,
    # legal on its own, did not go through either.
    assert game.sheets[0].plan_turns == [None, None, None]
    assert game.sheets[0].plan_use == estates_sheet([3, 4, 6]).plan_use


def test_effect_question_lists_the_options_and_none():
    seats = [scripted_seat("a", effect=lambda view, options: options[0]), scripted_seat("b")]
    game = game_with(seats)
    rig_stacks(game.deck, [[(5, "landscaper"), (3, "surveyor")], [(3, "pool"), (12, "real_estate")],
                           [(6, "surveyor"), (15, "landscaper")]])
    game.play_turn()
    assert instance(seats[0]).effect_calls == [[Effect("landscaper", 0), None]]
    assert game.sheets[0].parks == [1, 0, 0] and game.sheets[0].numbers[0][0] == 3
    assert game.turn_records[0]["actions"][0]["effect"] == {"kind": "landscaper"}
    assert game.sheets[1].parks == [0, 0, 0]          # b skipped its effect


def test_standard_game_goes_on_after_deck_exhaustion():
    seats = [scripted_seat("a"), scripted_seat("b")]
    game = game_with(seats)
    for _ in range(26):
        game.deck.reveal()
    last_effects = game.deck.next_effects()
    assert game.play_turn() == []
    record = game.turn_records[0]
    assert record["events"] == ["deck-reshuffled"]
    assert tuple(e for _n, e in record["offers"]) == last_effects
    assert all_cards(game.deck) == list(range(81))


# ------------------------------------------------------------------ simultaneity
def test_every_player_decides_on_the_same_offers_and_sees_the_start_of_turn_state():
    seats = [scripted_seat(name) for name in "abc"]
    game = game_with(seats)
    for _ in range(4):
        assert game.play_turn() == []
    seen = [instance(seat).seen for seat in seats]
    for t in range(4):
        assert seen[0][t]["offers"] == seen[1][t]["offers"] == seen[2][t]["offers"]
        assert seen[0][t]["next_effects"] == seen[1][t]["next_effects"] == seen[2][t]["next_effects"]
        for k in range(3):
            # seat 2 decides after seats 0 and 1 wrote, yet sees them as at the start of the turn
            assert [p.built for p in seen[k][t]["public"]] == [t, t, t]
            assert seen[k][t]["own_built"] == t
    for t in range(3):
        assert tuple(o.effect for o in seen[0][t + 1]["offers"]) == seen[0][t]["next_effects"]
    assert [r["offers"] for r in game.turn_records] == [
        [[o.number, o.effect] for o in s["offers"]] for s in seen[0]]


def test_same_turn_completers_all_score_high_and_see_the_start_of_turn_plan_status():
    seats = [scripted_seat("a"), scripted_seat("b"), scripted_seat("c", plans=lambda v, c: [])]
    sheets = {0: estates_sheet([3, 4]), 1: estates_sheet([3, 4]), 2: estates_sheet([3, 4])}
    game = game_with(seats, sheets)
    game.play_turn()
    assert [s.plan_points for s in game.sheets] == [[0, 0, 7], [0, 0, 7], [0, 0, 0]]
    assert instance(seats[1]).seen[0]["first"] == (None, None, None)
    assert instance(seats[1]).seen[0]["public"][0].plans == (None, None, None)
    # c completes later: low value
    game.strategies[2]._plans = None
    game.play_turn()
    assert game.sheets[2].plan_turns == [None, None, 2]
    assert game.sheets[2].plan_points == [0, 0, 3]
    assert instance(seats[2]).seen[1]["first"] == (None, None, 1)
    assert instance(seats[2]).seen[1]["public"][0].plans == (None, None, 1)


# -------------------------------------------------------------------- reshuffle
def count_reshuffles(game):
    calls = []
    original = game.deck.reshuffle_all

    def wrapped():
        calls.append(game.turn)
        original()

    game.deck.reshuffle_all = wrapped
    return calls


def test_reshuffle_asked_of_first_completers_only_and_done_once():
    seats = [scripted_seat("a", reshuffle=True), scripted_seat("b", reshuffle=True),
             scripted_seat("c", reshuffle=True)]
    game = game_with(seats, {0: estates_sheet([3, 4]), 1: estates_sheet([3, 4])})
    calls = count_reshuffles(game)
    game.play_turn()
    assert [instance(s).reshuffle_calls for s in seats] == [[1], [1], []]
    assert [a["reshuffle"] for a in game.turn_records[0]["actions"]] == [True, True, False]
    assert game.turn_records[0]["events"] == []
    game.play_turn()
    assert calls == [2]                                  # one reshuffle though two asked
    assert game.turn_records[1]["events"] == ["plan-reshuffle"]
    assert [len(s) for s in game.deck.stacks] == [26, 26, 26]
    assert [len(d) for d in game.deck.discards] == [1, 1, 1]
    assert all_cards(game.deck) == list(range(81))
    for _ in range(3):
        game.play_turn()
    assert calls == [2]
    assert all(r["events"] == [] for r in game.turn_records[2:])


def test_one_asking_completer_is_enough():
    seats = [scripted_seat("a", reshuffle=False), scripted_seat("b", reshuffle=True)]
    game = game_with(seats, {0: estates_sheet([3, 4]), 1: estates_sheet([3, 4])})
    calls = count_reshuffles(game)
    game.play_turn()
    game.play_turn()
    assert [a["reshuffle"] for a in game.turn_records[0]["actions"]] == [False, True]
    assert calls == [2] and game.turn_records[1]["events"] == ["plan-reshuffle"]


def test_no_reshuffle_when_no_completer_asks():
    seats = [scripted_seat("a"), scripted_seat("b")]
    game = game_with(seats, {0: estates_sheet([3, 4])})
    calls = count_reshuffles(game)
    game.play_turn()
    game.play_turn()
    assert instance(seats[0]).reshuffle_calls == [1]
    assert calls == [] and game.turn_records[1]["events"] == []


def test_reshuffle_only_in_the_turn_of_the_first_completion_of_the_game():
    def from_turn(turn):
        return lambda view, claimable: complete_all(view, claimable) if view.turn >= turn else []

    seats = [scripted_seat("a", plans=from_turn(2), reshuffle=False),
             scripted_seat("b", plans=from_turn(3), reshuffle=True)]
    game = game_with(seats, {0: estates_sheet([3, 4]), 1: estates_sheet([3, 4])})
    calls = count_reshuffles(game)
    for _ in range(4):
        game.play_turn()
    assert instance(seats[0]).reshuffle_calls == [2]      # nobody completed on turn 1
    assert instance(seats[1]).reshuffle_calls == []       # b completed on turn 3: too late
    assert game.sheets[1].plan_turns == [None, None, 3]
    assert game.sheets[1].plan_points == [0, 0, 3]
    assert calls == []
    assert all(r["events"] == [] for r in game.turn_records)


def test_first_completion_on_a_later_turn_still_offers_the_reshuffle():
    seats = [scripted_seat("a", plans=lambda v, c: complete_all(v, c) if v.turn >= 2 else [],
                           reshuffle=True), scripted_seat("b")]
    game = game_with(seats, {0: estates_sheet([3, 4])})
    calls = count_reshuffles(game)
    for _ in range(3):
        game.play_turn()
    assert instance(seats[0]).reshuffle_calls == [2]
    assert calls == [3]
    assert [r["events"] for r in game.turn_records] == [[], [], ["plan-reshuffle"]]


# ---------------------------------------------------------- whole games (random)
@pytest.mark.parametrize("seed", range(6))
def test_random_games_end_exactly_at_the_first_turn_an_end_condition_holds(seed):
    spec = parse_strategy("random")
    seats = [Seat(n, "random", spec) for n in "abc"]
    result = play_game(Variant(), seats, seed, record=True)
    record = result.record
    assert [t["turn"] for t in record["turns"]] == list(range(1, result.turns + 1))
    for turn in range(1, result.turns):
        assert end_reasons(replay(record, until_turn=turn).sheets) == []
    final = replay(record).sheets
    assert end_reasons(final) == result.end_reasons != []
    assert verify(record) == []
    for score in result.scores:
        assert score["total"] == sum(v for k, v in score.items() if k != "total")
        assert score["bis"] <= 0 and score["refusals"] <= 0
