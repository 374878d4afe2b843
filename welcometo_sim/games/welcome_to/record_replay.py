"""Replaying a game record (RECORDS.md §1) without any strategy.

Every recorded action is checked against the legal options the engine would
have offered, then applied with the same functions the game uses; the
recomputed scores and ranks must equal the record's `final` block. This is
what makes every score explainable from the record.

A record is first checked for its shape (record_format.py): a malformed record
raises RecordFormatError naming the field, an action that breaks a rule raises
ReplayError naming the turn and seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .cards import pair_offers
from .data import PlanSpec
from .overrides import OverrideError
from ..record_format import DEAL_FORMAT, RecordFormatError, ReplayError, check_record
from .effects import Effect, Offer, Play, apply_effect, apply_play, effect_options, legal_plays
from .plans import PlanClaim, apply_claim, checked_claim
from .deal_check import check_deal, check_seeded_deal, solo_exhausted
from .game import end_reasons, settle_plans, solo_card_came_up
from .scoring import rank_key, ranks, score_game
from .sheet import Sheet
from .variant import Variant, VariantError


@dataclass
class ReplayState:
    """Sheets and plan status after replaying a record up to some turn."""

    variant: Variant
    plans: tuple[PlanSpec, ...]
    sheets: list[Sheet]
    turn: int = 0
    first_turn: list[int | None] = field(default_factory=lambda: [None, None, None])
    race: list[int | None] = field(default_factory=lambda: [None, None, None])


def _variant(record: dict) -> Variant:
    spec = record["variant"]
    try:
        variant = Variant.with_overrides(spec.get("overrides"), advanced=bool(spec.get("advanced")),
                                         expert=bool(spec.get("expert")), solo=bool(spec.get("solo")),
                                         board=spec.get("board", "base"))
        variant.check(len(record["players"]))
    except OverrideError as exc:
        raise RecordFormatError(f"variant.{exc}") from None
    except VariantError as exc:
        raise RecordFormatError(f"variant: {exc}") from None
    return variant


def _plans(record: dict, variant: Variant) -> tuple[PlanSpec, ...]:
    plans = []
    for deck, entry in enumerate(record["plans"], start=1):
        ids = [p.id for p in variant.plan_deck(deck)]
        if entry["id"] not in ids:
            raise RecordFormatError(f"plans[{deck - 1}].id: {entry['id']!r} is not a plan of deck {deck} "
                                    f"of this variant")
        plans.append(variant.data.plan(entry["id"]))
    return tuple(plans)


def plan_problems(record: dict, plans: tuple[PlanSpec, ...]) -> list[str]:
    """A plan card's deck and points are the variant's (overrides included), not the record's to choose."""
    problems = []
    for index, (entry, spec) in enumerate(zip(record["plans"], plans)):
        if entry.get("deck", spec.deck) != spec.deck:
            problems.append(f"plans[{index}].deck: {entry['deck']!r} recorded, plan {spec.id} is of deck {spec.deck}")
        if "points" in entry and list(entry["points"]) != list(spec.points):
            problems.append(f"plans[{index}].points: {entry['points']} recorded, plan {spec.id} scores "
                            f"{list(spec.points)} in this variant")
    return problems


def _effect(entry: dict) -> Effect:
    kind = entry["kind"]
    if kind == "surveyor":
        return Effect(kind, entry["street"], entry["fence"])
    if kind == "real_estate":
        return Effect(kind, None, entry["size"])
    if kind == "bis":
        return Effect(kind, entry["street"], entry["house"], entry["number"])
    return Effect(kind)


def _resolve_effect(entry: dict, options: list[Effect], seat: int) -> Effect:
    """Landscaper and pool are recorded by kind only; find the option they mean."""
    wanted = _effect(entry)
    if wanted in options:
        return wanted
    for option in options:
        if option.kind == wanted.kind and wanted.kind in ("landscaper", "pool"):
            return option
    raise ReplayError(f"seat {seat}: illegal effect {entry}")


def seat_offers(turn: dict, seat: int, variant: Variant) -> list[Offer]:
    """The offers a seat chose from, rebuilt from a turn record: the three
    shared pairs, or the number/effect pairs of the solo cards or expert hand."""
    if variant.expert:
        return pair_offers([tuple(card) for card in turn["hands"][seat]])
    cards = [tuple(card) for card in turn["offers"]]
    if variant.solo:
        return pair_offers(cards)
    return [Offer(n, e, i, i) for i, (n, e) in enumerate(cards)]


def _offer_index(offers: list[Offer], action: dict) -> int:
    for index, offer in enumerate(offers):
        if (offer.number_from, offer.effect_from) == (action["number_from"], action["effect_from"]):
            return index
    raise ReplayError(f"seat {action['seat']}: no offer with cards "
                      f"{action['number_from']}/{action['effect_from']}")


def apply_action(state: ReplayState, offers: list[Offer], action: dict) -> None:
    """Check and apply one seat's recorded action."""
    sheet = state.sheets[action["seat"]]
    roundabout = action.get("roundabout")
    if roundabout is not None:
        house = (roundabout["street"], roundabout["house"])
        if not state.variant.advanced or sheet.n_roundabouts >= sheet.data.max_roundabouts \
                or house not in sheet.roundabout_options():
            raise ReplayError(f"seat {action['seat']}: illegal roundabout {roundabout}")
        sheet.build_roundabout(*house)
    if action["refusal"]:
        plays = legal_plays(sheet, offers)
        if any(not p.temp for p in plays):
            raise ReplayError(f"seat {action['seat']}: refused although a number fitted")
        sheet.refusals = min(sheet.refusals + 1, sheet.data.max_refusals)
    else:
        written, effect = action["written"], action["effect"]
        index = _offer_index(offers, action)
        temp = effect is not None and effect["kind"] == "temp"
        play = Play(index, written["street"], written["house"], written["number"], temp,
                    action.get("truck"))
        if play not in legal_plays(sheet, offers):
            raise ReplayError(f"seat {action['seat']}: illegal play {written}")
        apply_play(sheet, play, state.turn)
        if effect is not None and not temp:
            options = effect_options(sheet, offers[index], play)
            if effect["kind"] not in ("landscaper", "pool") or options:
                apply_effect(sheet, _resolve_effect(effect, options, action["seat"]))
    for entry in action["plans"]:
        estates = None if entry["estates"] is None else tuple(tuple(e) for e in entry["estates"])
        claim = checked_claim(sheet, state.plans, PlanClaim(entry["deck"], estates))
        if claim is None:
            raise ReplayError(f"seat {action['seat']}: cannot complete plan {entry}")
        apply_claim(sheet, state.plans, claim, state.turn)


def replay(record: dict, until_turn: int | None = None,
           before_turn: Callable[[ReplayState], None] | None = None) -> ReplayState:
    """Replay the record's turns (all, or up to and including `until_turn`),
    calling `before_turn` before each with the state after the one before
    (`state.turn` is already the coming turn's; its ReplayError is that turn's).
    Raises RecordFormatError for a malformed record, ReplayError for an illegal action."""
    check_record(record)
    variant = _variant(record)
    board = variant.rules
    state = ReplayState(variant, _plans(record, variant),
                        [Sheet(variant.data, board.new_state(variant.data)) for _ in record["players"]])
    asked = False
    for index, turn in enumerate(record["turns"]):
        if until_turn is not None and turn["turn"] > until_turn:
            break
        state.turn = turn["turn"]
        _check_plan_reshuffle(turn, f"turns[{index}]", asked)
        try:
            if before_turn is not None:
                before_turn(state)
            asked = _replay_turn(state, turn, board, f"turns[{index}]")
        except RecordFormatError:
            raise
        except ReplayError as exc:
            raise ReplayError(f"turn {state.turn}: {exc}") from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            # A shape the format check does not describe; still one line, never a traceback.
            raise RecordFormatError(f"turns[{index}]: cannot be replayed ({type(exc).__name__}: {exc})") from None
    return state


def _replay_turn(state: ReplayState, turn: dict, board, path: str) -> bool:
    """Replay one turn; True when a seat asked for the plan reshuffle in it."""
    if "solo-card" in turn["events"]:
        solo_card_came_up(state.first_turn, state.turn)
    no_plan_yet = all(first is None for first in state.first_turn)
    asked = False
    for index, action in enumerate(turn["actions"]):
        apply_action(state, seat_offers(turn, action["seat"], state.variant), action)
        if action.get("reshuffle") is True:
            _check_reshuffle(state, action, no_plan_yet, f"{path}.actions[{index}].reshuffle")
            asked = True
    settle_plans(state.sheets, state.plans, state.first_turn, state.turn)
    board.settle(state.sheets, state.race, state.turn)
    return asked


def _check_reshuffle(state: ReplayState, action: dict, no_plan_yet: bool, path: str) -> None:
    """A reshuffle is asked only by a seat that completed a plan in the turn of
    the game's first plan completion, and never in solo (RULES.md)."""
    if state.variant.solo:
        problem = "there is no plan reshuffle in a solo game"
    elif not no_plan_yet:
        problem = "a reshuffle may only be asked in the turn of the game's first plan completion"
    elif not action["plans"]:
        problem = f"seat {action['seat']} completed no plan this turn, so it may not ask for a reshuffle"
    else:
        return
    raise RecordFormatError(f"{path}: {problem}")


def _check_plan_reshuffle(turn: dict, path: str, asked: bool) -> None:
    """The plan-reshuffle event comes in the turn after a reshuffle was asked, and only then."""
    has_event = "plan-reshuffle" in turn["events"]
    if has_event and not asked:
        raise RecordFormatError(f"{path}.events: plan-reshuffle without a reshuffle asked in the turn before")
    if asked and not has_event:
        raise RecordFormatError(f"{path}.events: no plan-reshuffle although a reshuffle was asked in the turn before")


def _differences(name: str, replayed: object, recorded: object) -> list[str]:
    """'NAME differs: replay X vs record Y', field by field for two objects, so
    that a problem names the part of a score or sheet that is wrong."""
    if replayed == recorded:
        return []
    if isinstance(replayed, dict) and isinstance(recorded, dict):
        keys = list(replayed) + [k for k in recorded if k not in replayed]
        return [f"{name}.{key} differs: replay {replayed.get(key)} vs record {recorded.get(key)}"
                for key in keys if replayed.get(key) != recorded.get(key)]
    return [f"{name} differs: replay {replayed} vs record {recorded}"]


def final_block(state: ReplayState) -> list[dict]:
    """The `final` block the replayed sheets give (ranks, scores, sheets)."""
    board = state.variant.rules
    scores = score_game(state.sheets, solo=state.variant.solo,
                        bonus=lambda seat: board.bonus(state.sheets[seat], state.race))
    keys = [rank_key(s["total"], sheet) for s, sheet in zip(scores, state.sheets)]
    return [
        {"seat": seat, "rank": rank, "score": score, "sheet": sheet.to_record()}
        for seat, (rank, score, sheet) in enumerate(zip(ranks(keys), scores, state.sheets))
    ]


def _without_board(sheet: dict) -> dict:
    """A replayed sheet block without its `board` block: RECORDS.md does not
    define one, so a record without it is checked on the rest (the board's
    points are in the score, which is checked)."""
    return {key: value for key, value in sheet.items() if key != "board"}


def verify(record: dict) -> list[str]:
    """Differences between the record's `final` block and its replay (empty: it
    checks out); a malformed record is one problem, 'malformed record: …'."""
    try:
        return disagreements(record)
    except RecordFormatError as exc:
        return [f"malformed record: {exc}"]


def record_turns(record: dict) -> int | None:
    """How many turns a record lists (None when its `turns` is no list):
    `wtsim show --turn` takes 0 to this."""
    turns = record.get("turns")
    return len(turns) if isinstance(turns, list) else None


def disagreements(record: dict) -> list[str]:
    """Differences between the record and its replay (empty: it checks out): an
    illegal action is one problem naming its turn and seat; then the end of
    the game, the plan cards, the deal (deal_check.py) and the `final` block.
    Raises RecordFormatError when the record is malformed."""
    try:
        state = replay(record, before_turn=_not_ended)
        recomputed = final_block(state)
    except RecordFormatError:
        raise
    except ReplayError as exc:
        return [str(exc)]
    problems = _end_problems(record, state) + plan_problems(record, state.plans) + _deal_problems(record, state.variant)
    for seat, (mine, theirs) in enumerate(zip(recomputed, record.get("final", []))):
        for key in ("rank", "score", "sheet"):
            replayed, recorded = mine[key], theirs.get(key)
            if key == "sheet" and isinstance(recorded, dict) and "board" not in recorded:
                replayed = _without_board(replayed)
            problems += [f"seat {seat}: {difference}" for difference in _differences(key, replayed, recorded)]
    if len(recomputed) != len(record.get("final", [])):
        problems.append("final block has the wrong number of seats")
    return problems


def _end_reasons(state: ReplayState, turn: int) -> list[str]:
    """The end conditions (RULES.md §7) that hold on the replayed sheets after `turn`."""
    variant = state.variant
    return end_reasons(state.sheets, variant.solo and solo_exhausted(len(variant.data.deck), turn))


def _not_ended(state: ReplayState) -> None:
    """The game ends after the first turn in which an end condition holds: no turn follows it."""
    reasons = _end_reasons(state, state.turn - 1)
    if reasons:
        raise ReplayError(f"played after the game ended with turn {state.turn - 1} ({', '.join(reasons)})")


def _end_problems(record: dict, state: ReplayState) -> list[str]:
    """What is wrong with the record's `end` block, given the replayed last turn."""
    recorded, reasons = record["end"]["reasons"], _end_reasons(state, state.turn)
    if not reasons:
        return [f"end.reasons: {recorded} recorded, but no end condition holds after turn {state.turn}, "
                f"the last turn recorded"]
    if sorted(recorded) != sorted(reasons):
        return [f"end.reasons: {recorded} recorded, the game ended after turn {state.turn} by {reasons}"]
    return []


def _deal_problems(record: dict, variant: Variant) -> list[str]:
    """The deal by the rules, and for a record this simulator dealt, by its seed."""
    problems = []
    try:
        check_deal(record, variant)
    except ReplayError as exc:
        problems.append(str(exc))
    if record.get("deal") == DEAL_FORMAT:
        try:
            check_seeded_deal(record, variant, record["variant"].get("plans") or (None, None, None))
        except ReplayError as exc:
            problems.append(str(exc))
    return problems
