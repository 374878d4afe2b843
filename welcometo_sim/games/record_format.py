"""The shape of a game record (RECORDS.md §1), checked before it is replayed.

Two kinds of bad record are told apart:

- :class:`RecordFormatError`: the record is not shaped like one (a missing
  field, a wrong JSON type, a seat or card index out of range, an unknown
  plan id). The message names the field as a JSON path, e.g.
  ``turns[3].actions[1].written.house: must be an integer, got '4'``.
- :class:`ReplayError` (the base class): the record is well formed but an
  action breaks a rule; the replay names the turn and seat.

Only what the replay and `wtsim show` read is checked, so the check is cheap
next to the replay itself.
"""

from __future__ import annotations

from typing import Any

from . import records
from .welcome_to.data import BOARDS, EFFECTS
from .welcome_to.variant import MAX_PLAYERS

EFFECT_FIELDS: dict[str, tuple[str, ...]] = {
    "surveyor": ("street", "fence"),
    "real_estate": ("size",),
    "landscaper": (),
    "pool": (),
    "temp": (),
    "bis": ("street", "house", "number"),
}
DEAL_FORMAT = "welcometo-sim/deal/1"
"""A record's `deal` when this simulator dealt its plans and cards from its `seed`."""
TRUCK_DIRECTIONS = ("left", "right")
EVENTS = ("deck-reshuffled", "plan-reshuffle", "solo-card")
END_REASONS = ("refusals", "plans", "houses", "deck")
KIND_NAMES = {int: "an integer", bool: "true or false", str: "a string", list: "a list", dict: "an object"}
_MISSING = object()


class ReplayError(records.ReplayError):
    """The record holds an action the rules do not allow, or is malformed."""


class RecordFormatError(ReplayError, records.RecordFormatError):
    """The record does not follow the game-record format (RECORDS.md §1)."""


def _fail(path: str, problem: str) -> None:
    raise RecordFormatError(f"{path}: {problem}")


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is(value: Any, kind: type) -> bool:
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _value(value: Any, kind: type, path: str, nullable: bool = False) -> Any:
    if type(value) is kind or (value is None and nullable) or _is(value, kind):
        return value
    _fail(path, f"must be {KIND_NAMES[kind]}{' or null' if nullable else ''}, got {_short(value)}")


def _field(obj: dict, key: str, kind: type, path: str, nullable: bool = False, optional: bool = False) -> Any:
    """obj[key], checked to be of `kind` (None allowed when nullable, absence when optional)."""
    value = obj.get(key, _MISSING)
    if type(value) is kind or (value is None and nullable):  # the usual case, without building the path
        return value
    at = f"{path}.{key}" if path else key
    if value is _MISSING:
        if optional:
            return None
        _fail(at, "missing")
    return _value(value, kind, at, nullable)


def _index(obj: dict, key: str, size: int, path: str) -> int:
    """obj[key], an integer in 0..size-1."""
    value = _field(obj, key, int, path)
    if not 0 <= value < size:
        _fail(f"{path}.{key}", f"must be 0..{size - 1}, got {value}")
    return value


def _objects(obj: dict, key: str, path: str) -> list[tuple[str, dict]]:
    """obj[key], a list of objects, with the path of each."""
    items = _field(obj, key, list, path)
    at = f"{path}.{key}" if path else key
    return [(f"{at}[{i}]", _value(item, dict, f"{at}[{i}]")) for i, item in enumerate(items)]


def _int_list(value: Any, length: int, path: str) -> None:
    _value(value, list, path)
    if len(value) != length:
        _fail(path, f"must have {length} values, got {len(value)}")
    for i, item in enumerate(value):
        _value(item, int, f"{path}[{i}]")


def _cards(value: Any, path: str) -> list:
    """A list of [number, effect] cards."""
    _value(value, list, path)
    for i, card in enumerate(value):
        at = f"{path}[{i}]"
        if not (isinstance(card, list) and len(card) == 2 and _is(card[0], int) and card[1] in EFFECTS):
            _fail(at, f"must be a card [number, effect], got {_short(card)}")
    return value


def check_record(record: Any) -> None:
    """Raise RecordFormatError naming the first field of `record` that does not
    follow the game-record format; return None when it does."""
    _value(record, dict, "record")
    _field(record, "game", int, "", optional=True)  # set by the runner; a game's own record has neither
    _field(record, "seed", int, "", optional=True)
    deal = _field(record, "deal", str, "", optional=True)
    if deal is not None and deal != DEAL_FORMAT:
        _fail("deal", f"unknown deal {_short(deal)} (known: {DEAL_FORMAT}; a record dealt by another "
                      f"program leaves `deal` out)")
    if deal is not None and "seed" not in record:
        _fail("seed", f"missing (a record whose deal is {DEAL_FORMAT} is dealt from its seed)")
    expert = _check_variant(_field(record, "variant", dict, ""))
    players = _objects(record, "players", "")
    if not 1 <= len(players) <= MAX_PLAYERS:
        _fail("players", f"must list 1 to {MAX_PLAYERS} seats, got {len(players)}")
    for at, player in players:
        _field(player, "name", str, at)
        _field(player, "strategy", str, at)
    plans = _objects(record, "plans", "")
    if len(plans) != 3:
        _fail("plans", f"must list the 3 plans in play, got {len(plans)}")
    for at, plan in plans:
        _field(plan, "id", str, at)
        if "points" in plan:
            _int_list(plan["points"], 2, f"{at}.points")
    turns = _objects(record, "turns", "")
    for number, (at, turn) in enumerate(turns, start=1):
        _check_turn(turn, at, len(players), expert, number)
    end = _field(record, "end", dict, "")
    last = _field(end, "turn", int, "end")
    if last != len(turns):
        _fail("end.turn", f"must be the last turn played ({len(turns)}), got {last}")
    for i, reason in enumerate(_field(end, "reasons", list, "end")):
        if _value(reason, str, f"end.reasons[{i}]") not in END_REASONS:
            _fail(f"end.reasons[{i}]", f"unknown end reason {_short(reason)} (known: {', '.join(END_REASONS)})")
    for seat, (at, entry) in enumerate(_objects(record, "final", "")):
        if _field(entry, "seat", int, at) != seat:
            _fail(f"{at}.seat", f"must be {seat} (the final block lists the seats in order), "
                                f"got {_short(entry['seat'])}")
        _field(entry, "rank", int, at)
        score = _field(entry, "score", dict, at)
        _field(score, "total", int, f"{at}.score")
        for key, value in score.items():
            _value(value, int, f"{at}.score.{key}")
        _field(entry, "sheet", dict, at)


def _check_variant(variant: dict) -> bool:
    """Check the variant block; True for expert rules (hands instead of offers)."""
    for key in ("advanced", "expert", "solo"):
        _field(variant, key, bool, "variant", optional=True)
    board = _field(variant, "board", str, "variant", optional=True)
    if board is not None and board not in BOARDS:
        _fail("variant.board", f"unknown board {board!r} (known: {', '.join(BOARDS)})")
    _field(variant, "overrides", dict, "variant", nullable=True, optional=True)
    plans = _field(variant, "plans", list, "variant", optional=True)
    if plans is not None and (len(plans) != 3 or not all(p is None or isinstance(p, str) for p in plans)):
        _fail("variant.plans", f"must list 3 plan ids (null: drawn), got {_short(plans)}")
    return variant.get("expert") is True


def _check_turn(turn: dict, path: str, n_players: int, expert: bool, number: int) -> None:
    if _field(turn, "turn", int, path) != number:
        _fail(f"{path}.turn", f"must be {number} (turns are numbered from 1, one after the other), "
                              f"got {turn['turn']}")
    for i, event in enumerate(_field(turn, "events", list, path)):
        if _value(event, str, f"{path}.events[{i}]") not in EVENTS:
            _fail(f"{path}.events[{i}]", f"unknown event {_short(event)} (known: {', '.join(EVENTS)})")
    if expert:
        hands = _field(turn, "hands", list, path)
        if len(hands) != n_players:
            _fail(f"{path}.hands", f"must hold one hand per seat ({n_players}), got {len(hands)}")
        cards_of = [_cards(hand, f"{path}.hands[{seat}]") for seat, hand in enumerate(hands)]
    else:
        cards_of = [_cards(_field(turn, "offers", list, path), f"{path}.offers")] * n_players
    for at, action in _objects(turn, "actions", path):
        seat = _index(action, "seat", n_players, at)
        _check_action(action, at, len(cards_of[seat]))
        if expert:
            _index(action, "passed", len(cards_of[seat]), at)


def _check_action(action: dict, path: str, n_cards: int) -> None:
    roundabout = _field(action, "roundabout", dict, path, nullable=True, optional=True)
    if roundabout is not None:
        _field(roundabout, "street", int, f"{path}.roundabout")
        _field(roundabout, "house", int, f"{path}.roundabout")
    if not _field(action, "refusal", bool, path):
        written = _field(action, "written", dict, path)
        for key in ("street", "house", "number"):
            _field(written, key, int, f"{path}.written")
        _index(action, "number_from", n_cards, path)
        _index(action, "effect_from", n_cards, path)
        truck = _field(action, "truck", str, path, nullable=True, optional=True)
        if truck is not None and truck not in TRUCK_DIRECTIONS:
            _fail(f"{path}.truck", f"must be left, right or null, got {_short(truck)}")
        effect = _field(action, "effect", dict, path, nullable=True)
        if effect is not None:
            _check_effect(effect, f"{path}.effect")
    _field(action, "reshuffle", bool, path, optional=True)
    for at, claim in _objects(action, "plans", path):
        deck = _field(claim, "deck", int, at)
        if deck not in (1, 2, 3):
            _fail(f"{at}.deck", f"must be 1, 2 or 3, got {deck}")
        for i, estate in enumerate(_field(claim, "estates", list, at, nullable=True) or ()):
            _int_list(estate, 3, f"{at}.estates[{i}]")


def _check_effect(effect: dict, path: str) -> None:
    kind = _field(effect, "kind", str, path)
    if kind not in EFFECT_FIELDS:
        _fail(f"{path}.kind", f"unknown effect {_short(kind)} (known: {', '.join(EFFECT_FIELDS)})")
    for key in EFFECT_FIELDS[kind]:
        _field(effect, key, int, path)
