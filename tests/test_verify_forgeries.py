"""Issue 25, item 4: `wtsim verify` catches forged Welcome To records.

Each forgery starts from a record the engine wrote and changes what a forger
would: every one used to pass ("0 with problems"); now each is exit 1 with a
problem line naming the game and the turn (or the field) that is wrong. The
rules alone catch what they fix (the deal against the deck, plan cards and
points, the end); a record the simulator dealt (`deal`) is also dealt again
from its seed. A record of another program, without `deal`, still verifies.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from helpers import wtsim
from welcometo_sim.games.welcome_to import record_replay as replay_module
from welcometo_sim.games.welcome_to.game import Seat, play_game
from welcometo_sim.games.welcome_to.record_replay import disagreements, final_block, replay, verify
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

VARIANTS = {
    "base": (Variant(), 2),
    "advanced": (Variant(advanced=True), 2),
    "expert": (Variant(expert=True), 3),
    "solo": (Variant(solo=True), 1),
}


def engine_records(variant: Variant, n_players: int, seeds=range(6)) -> list[dict]:
    seats = [Seat("greedy", "greedy", parse_strategy("greedy"))] * n_players
    records = []
    for seed in seeds:
        record = play_game(variant, seats, seed, record=True).record
        records.append({"format": record["format"], "game": seed, **record})
    return records


@pytest.fixture(scope="module")
def records() -> dict[str, list[dict]]:
    found = {kind: engine_records(*spec) for kind, spec in VARIANTS.items()}
    for group in found.values():
        for record in group:
            assert record["deal"] == "welcometo-sim/deal/1"
            assert verify(record) == []
    return found


def with_final_recomputed(record: dict) -> dict:
    """The record with its `final` block made to agree with its (forged) plan
    points, as a forger recomputes it: scored with the record's own points."""
    def recorded_points(entries, variant):
        return tuple(replace(variant.data.plan(e["id"]), points=tuple(e["points"])) for e in entries["plans"])

    original = replay_module._plans
    replay_module._plans = recorded_points
    try:
        record["final"] = final_block(replay(record))
    finally:
        replay_module._plans = original
    return record


def checked(record: dict, tmp_path: Path, capsys) -> list[str]:
    """`wtsim verify` of a file holding the record: exit 1, the problem lines."""
    path = tmp_path / "forged.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code, out, err = wtsim(["verify", str(path)], capsys)
    assert code == 1, (out, err)
    *problems, summary = out.splitlines()
    assert summary == "1 records checked, 1 with problems"
    prefix = f"{path}:1: game {record['game']}: "
    assert all(line.startswith(prefix) for line in problems), problems
    return [line[len(prefix):] for line in problems]


def without_deal(record: dict) -> dict:
    """The same game as another program, with its own deck, would record it."""
    return {key: value for key, value in record.items() if key != "deal"}


def longest(group: list[dict]) -> dict:
    return copy.deepcopy(max(group, key=lambda r: len(r["turns"])))


# ------------------------------------------------------------ plan cards
@pytest.mark.parametrize("kind", sorted(VARIANTS))
def test_plan_points_times_five_with_the_final_block_recomputed(records, kind, tmp_path, capsys):
    record = copy.deepcopy(next(r for r in records[kind] if any(s["score"]["plans"] for s in r["final"])))
    spec = record["plans"][0]["points"]
    record["plans"] = [dict(p, points=[5 * v for v in p["points"]]) for p in record["plans"]]
    with_final_recomputed(record)
    assert disagreements(record)  # the forger's final block no longer matters: the points are wrong
    problems = checked(without_deal(record), tmp_path, capsys)
    plan = record["plans"][0]["id"]
    assert f"plans[0].points: {[5 * v for v in spec]} recorded, plan {plan} scores {spec} in this variant" \
        in problems
    assert any(p.startswith("seat ") and "score.plans differs" in p for p in problems)


def uncompleted_deck(record: dict) -> int | None:
    done = {entry["deck"] for seat in record["final"] for entry in seat["sheet"]["plans"]}
    return next((deck for deck in (1, 2, 3) if deck not in done), None)


@pytest.mark.parametrize("kind", sorted(VARIANTS))
def test_an_uncompleted_plans_id_swapped(records, kind, tmp_path, capsys):
    record = copy.deepcopy(next(r for r in records[kind] if uncompleted_deck(r)))
    deck = uncompleted_deck(record)
    old = record["plans"][deck - 1]["id"]
    new = next(p for p in VARIANTS[kind][0].plan_deck(deck) if p.id != old)
    record["plans"][deck - 1].update(id=new.id, points=list(new.points))
    assert disagreements(without_deal(record)) == []  # any card of the deck is a legal plan by the rules
    problems = checked(record, tmp_path, capsys)
    assert problems == [f"plans[{deck - 1}].id: {new.id!r} recorded, seed {record['seed']} deals {old!r}"]


# ------------------------------------------------------------ the deal
@pytest.mark.parametrize("kind", sorted(VARIANTS))
def test_seed_plus_one(records, kind, tmp_path, capsys):
    record = longest(records[kind])
    record["seed"] += 1
    problems = checked(record, tmp_path, capsys)
    assert len(problems) == 1
    assert problems[0].startswith(("plans[", "turn 1: ")) and f"seed {record['seed']} deals" in problems[0]


@pytest.mark.parametrize("kind", ["base", "advanced", "solo"])
def test_an_unused_offer_card_changed(records, kind, tmp_path, capsys):
    record = longest(records[kind])
    turn = record["turns"][5]
    used = {a["number_from"] for a in turn["actions"]} | {a["effect_from"] for a in turn["actions"]}
    card = next(i for i in range(3) if i not in used)
    original = turn["offers"][card]
    turn["offers"][card] = [original[0], "bis" if original[1] != "bis" else "pool"]
    problems = checked(record, tmp_path, capsys)
    assert f"turn 6: offers {turn['offers']} recorded, seed {record['seed']} deals" in problems[-1]


def test_an_unused_hand_card_changed(records, tmp_path, capsys):
    """Expert: the card seat 0 passes on at turn 6 is changed. By the rules the
    hands no longer follow from the pile (a card drawn once too often, or a
    passed card that is not the one the next seat holds); the seed deals the real one."""
    record = longest(records["expert"])
    turn = record["turns"][5]
    hand, spare = turn["hands"][0], turn["actions"][0]["passed"]
    hand[spare] = [hand[spare][0], "bis" if hand[spare][1] != "bis" else "pool"]
    ruled = checked(without_deal(record), tmp_path, capsys)
    assert len(ruled) == 1 and ruled[0].startswith(("turn 6: seat 0's hand", "turn 7: seat 1's hand starts with")), \
        ruled
    problems = checked(record, tmp_path, capsys)
    assert problems[0] == ruled[0]
    assert problems[1].startswith(f"turn 6: hands {turn['hands']} recorded, seed {record['seed']} deals")


@pytest.mark.parametrize("kind", ["base", "solo"])
def test_a_fourth_offer_card(records, kind, tmp_path, capsys):
    record = longest(records[kind])
    record["turns"][3]["offers"].append([15, "bis"])
    for forged in (record, without_deal(record)):
        problems = checked(forged, tmp_path, capsys)
        assert "turn 4: 4 offers recorded, the deal shows 3" in problems


def test_a_fourth_card_in_an_expert_hand(records, tmp_path, capsys):
    record = longest(records["expert"])
    record["turns"][3]["hands"][1].append([15, "bis"])
    assert "turn 4: seat 1 holds 4 cards, a hand holds 3" in checked(without_deal(record), tmp_path, capsys)


def reshuffle_turns(record: dict) -> list[int]:
    return [t["turn"] for t in record["turns"] if "deck-reshuffled" in t["events"]]


@pytest.mark.parametrize("kind", ["base", "advanced", "expert"])
def test_a_deck_reshuffle_event_removed(records, kind, tmp_path, capsys):
    record = copy.deepcopy(next(r for r in records[kind] if reshuffle_turns(r)))
    when = reshuffle_turns(record)[0]
    record["turns"][when - 1]["events"].remove("deck-reshuffled")
    for forged in (record, without_deal(record)):
        problems = checked(forged, tmp_path, capsys)
        assert f"turn {when}: events [] recorded, the deck gives ['deck-reshuffled'] then" in problems


@pytest.mark.parametrize("kind", ["base", "advanced", "expert", "solo"])
def test_a_deck_reshuffle_event_added(records, kind, tmp_path, capsys):
    record = longest(records[kind])
    record["turns"][9]["events"].append("deck-reshuffled")
    for forged in (record, without_deal(record)):
        problems = checked(forged, tmp_path, capsys)
        assert f"turn 10: events ['deck-reshuffled'] recorded, the deck gives none then" in problems


def test_the_solo_card_outside_the_bottom_half_or_twice(records, tmp_path, capsys):
    record = copy.deepcopy(next(r for r in records["solo"]
                                if any("solo-card" in t["events"] for t in r["turns"])))
    record["turns"][2]["events"].append("solo-card")
    problems = checked(without_deal(record), tmp_path, capsys)
    assert "turn 3: the solo card comes up outside turns 14 to 27, where the bottom half of the pile is drawn" \
        in problems


def test_a_card_dealt_more_often_than_the_deck_holds_it(records, tmp_path, capsys):
    """By the rules alone: the solo pile never gives a card back, so one copy
    more of a card than the deck holds cannot come up."""
    record = longest(records["solo"])
    card = record["turns"][0]["offers"][0]
    held = Variant().data.deck.count(tuple(card))
    shown = sum(1 for t in record["turns"] for c in t["offers"] if c == card)
    for turn in record["turns"][1:]:
        if shown > held:
            break
        used = {turn["actions"][0]["number_from"], turn["actions"][0]["effect_from"]}
        spare = next(i for i in range(3) if i not in used)
        if turn["offers"][spare] != card:
            turn["offers"][spare] = list(card)
            shown += 1
    problems = checked(without_deal(record), tmp_path, capsys)
    assert len(problems) == 1 and problems[0].startswith("turn ") \
        and problems[0].endswith(f"is a {card[0]} {card[1]} card, but the deck has no more of those since its "
                                 f"last shuffle"), problems


# ------------------------------------------------------------ variant and end
@pytest.mark.parametrize("kind", ["base", "advanced"])
def test_variant_advanced_flipped(records, kind, tmp_path, capsys):
    """Flipped on, the seed draws from the larger advanced plan decks; flipped
    off, an advanced plan or a roundabout is refused."""
    for record in records[kind]:
        forged = copy.deepcopy(record)
        forged["variant"]["advanced"] = not forged["variant"]["advanced"]
        path = tmp_path / "forged.jsonl"
        path.write_text(json.dumps(forged) + "\n", encoding="utf-8")
        code, out, err = wtsim(["verify", str(path)], capsys)
        where = f"{path}:1: game {forged['game']}: "
        if code == 2:
            assert re.fullmatch(rf"wtsim: error: {re.escape(where)}malformed record: plans\[\d\]\.id: '\S+' is not "
                                rf"a plan of deck \d of this variant\n", err), err
        else:
            assert code == 1 and re.match(rf"{re.escape(where)}(plans\[\d\]\.id: |turn \d+: )", out), out


@pytest.mark.parametrize("kind", sorted(VARIANTS))
@pytest.mark.parametrize("reasons", [["deck"], []])
def test_end_reasons_replaced(records, kind, reasons, tmp_path, capsys):
    record = longest(records[kind])
    true = record["end"]["reasons"]
    if reasons == true:
        reasons = ["plans"]
    record["end"]["reasons"] = reasons
    problems = checked(record, tmp_path, capsys)
    assert problems == [f"end.reasons: {reasons} recorded, the game ended after turn {record['end']['turn']} "
                        f"by {true}"]


@pytest.mark.parametrize("kind", sorted(VARIANTS))
def test_the_last_three_turns_dropped(records, kind, tmp_path, capsys):
    record = longest(records[kind])
    del record["turns"][-3:]
    record["end"]["turn"] -= 3
    with_final_recomputed(record)
    for forged in (record, without_deal(record)):
        problems = checked(forged, tmp_path, capsys)
        assert problems == [f"end.reasons: {record['end']['reasons']} recorded, but no end condition holds "
                            f"after turn {record['end']['turn']}, the last turn recorded"]


@pytest.mark.parametrize("kind", sorted(VARIANTS))
def test_an_extra_all_refusal_turn_after_the_end(records, kind, tmp_path, capsys):
    record = longest(records[kind])
    last = record["turns"][-1]
    extra = copy.deepcopy(last)
    extra["turn"] = last["turn"] + 1
    extra["events"] = []
    for action in extra["actions"]:
        action.update(roundabout=None, refusal=True, number_from=None, effect_from=None, written=None,
                      truck=None, effect=None, plans=[], reshuffle=False)
    record["turns"].append(extra)
    record["end"]["turn"] += 1
    ended = f"played after the game ended with turn {last['turn']} ({', '.join(record['end']['reasons'])})"
    for forged in (record, without_deal(record)):
        assert checked(forged, tmp_path, capsys) == [f"turn {extra['turn']}: {ended}"]


# ------------------------------------------------------------ other programs
@pytest.mark.parametrize("kind", sorted(VARIANTS))
def test_a_record_of_another_program_with_its_own_deck_verifies_on_the_rules(records, kind, tmp_path, capsys):
    """Another program's deck deals other cards from the same seed: its record
    (no `deal`) is held to the rules only; the same record claiming the
    simulator's deal is not what that seed deals."""
    record = without_deal(longest(records[kind]))
    record["seed"] = 12345
    path = tmp_path / "other.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code, out, err = wtsim(["verify", str(path)], capsys)
    assert (code, out.strip()) == (0, "1 records checked, 0 with problems"), err
    claimed = dict(record, deal="welcometo-sim/deal/1")
    assert any("seed 12345 deals" in p for p in checked(claimed, tmp_path, capsys))


def test_an_unknown_deal_is_a_malformed_record(records, tmp_path, capsys):
    record = dict(longest(records["base"]), deal="another-program/1")
    path = tmp_path / "other.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code, out, err = wtsim(["verify", str(path)], capsys)
    assert code == 2 and err.startswith(f"wtsim: error: {path}:1: game {record['game']}: malformed record: deal: "
                                        f"unknown deal 'another-program/1'"), err
