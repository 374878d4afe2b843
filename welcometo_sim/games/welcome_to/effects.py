"""Offers, plays and effects: what a player may do with the cards in front of them.

The game and the strategies share these functions: the game lists the legal
choices and checks answers against them; search strategies apply the same
moves to copies of their sheet.
"""

from __future__ import annotations

from typing import NamedTuple

from .data import (BIS, LANDSCAPER, MAX_ESTATE_SIZE, MAX_NUMBER, MIN_NUMBER, POOL, REAL_ESTATE,
                   SURVEYOR, TEMP, TEMP_MODIFIERS, TRUCK_LEFT, TRUCK_RIGHT)
from .sheet import Sheet, houses_of


TRUCK_CHOICES = (TRUCK_LEFT, TRUCK_RIGHT)


class Offer(NamedTuple):
    """A number and an effect a player may take together.

    `number_from` and `effect_from` are the indices of the cards (standard
    game: the pair index, both equal; solo and expert: two different cards).
    """

    number: int
    effect: str
    number_from: int
    effect_from: int


class Play(NamedTuple):
    """Writing `number` in (street, house) with offer `offer`.

    `temp` is True when the temp agency is used (the number may then differ
    from the offer's by up to 2, and a temp box is crossed). `truck` is the
    ice-cream truck direction ("left" or "right") chosen with the first
    number written on a street whose direction is still open, else None.
    """

    offer: int
    street: int
    house: int
    number: int
    temp: bool = False
    truck: str | None = None


class Effect(NamedTuple):
    """One use of an effect. Fields by kind: surveyor (street, fence slot);
    real_estate (size in `position`); landscaper (street); pool (street, house);
    bis (street, house, number)."""

    kind: str
    street: int | None = None
    position: int | None = None
    number: int | None = None

    def to_record(self) -> dict:
        if self.kind == SURVEYOR:
            return {"kind": SURVEYOR, "street": self.street, "fence": self.position}
        if self.kind == REAL_ESTATE:
            return {"kind": REAL_ESTATE, "size": self.position}
        if self.kind == BIS:
            return {"kind": BIS, "street": self.street, "house": self.position, "number": self.number}
        return {"kind": self.kind}


_SHARED_LIMIT = 1 << 16
"""At most this many entries per memo below; a full memo is emptied and refilled
(effects are cheap to make again, so memory stays bounded)."""

_SPANS: dict[int, slice] = {
    (1 << (last + 1)) - (1 << first): slice(first, last + 1)
    for first in range(64) for last in range(first, 64)
}
"""Every bitmask of consecutive houses (streets of up to 64 houses), as the
slice of those houses. Written numbers increase along a segment, so a number
fits in at most one gap per segment: its houses are consecutive unless a
roundabout splits the street."""

_ROWS: dict[tuple[int, ...], list[list[tuple[tuple[Play, ...], ...] | None]]] = {}
"""`_ROWS[street lengths][offer][(number << 1) | temp][street][house]`: the play
writing that number in that house, made on first use and shared (plays are
immutable values). The plays of a number on a street are a slice of its row."""

_ROW_SHAPES_LIMIT = 64
"""At most this many street layouts are kept in `_ROWS` (one per board shape in use)."""


def _offer_table(lengths: tuple[int, ...], n_offers: int) -> list[list[tuple[tuple[Play, ...], ...] | None]]:
    """The rows of offer indices 0..n_offers-1 on sheets of these street lengths
    (`_ROWS[lengths]`, extended on first use)."""
    table = _ROWS.get(lengths)
    if table is None:
        if len(_ROWS) >= _ROW_SHAPES_LIMIT:
            _ROWS.clear()
        table = _ROWS[lengths] = []
    while len(table) < n_offers:
        table.append([None] * (2 * MAX_NUMBER + 2))
    return table


def _number_rows(lengths: tuple[int, ...], offer: int, number: int, temp: bool) -> tuple[tuple[Play, ...], ...]:
    """Per street, the plays writing `number` with offer `offer` in each house."""
    new = tuple.__new__  # several times cheaper than Play(...)
    rows = tuple(tuple([new(Play, (offer, street, house, number, temp, None)) for house in range(length)])
                 for street, length in enumerate(lengths))
    _offer_table(lengths, offer + 1)[offer][(number << 1) | temp] = rows
    return rows


def _scattered(row: tuple[Play, ...], houses: int) -> list[Play]:
    """The plays of a street's row in the houses of the bitmask `houses`, when
    they are not consecutive (a roundabout splits the street between them)."""
    return [row[house] for house in houses_of(houses)]


def legal_plays(sheet: Sheet, offers: list[Offer]) -> list[Play]:
    """Every play the offers allow on this sheet, temp-agency variants included
    (and both truck directions where an ice-cream truck has none yet).

    Order: offer by offer; within an offer the plain number, then for a temp
    offer each changed number from -2 to +2; each number's houses street by
    street, left to right (strategies that draw at random rely on it). The
    plays of one number on one street are a slice of its row in `_ROWS`,
    or its `_scattered` plays when a roundabout splits them."""
    plays: list[Play] = []
    fits = sheet.fits
    spans = _SPANS
    lengths = sheet.data.street_houses
    table = _ROWS.get(lengths)
    if table is None or len(table) < len(offers):
        table = _offer_table(lengths, len(offers))
    for index, (number, effect, _number_from, _effect_from) in enumerate(offers):
        by_number = table[index]
        for value, temp, key in _WRITTEN_NUMBERS[effect == TEMP][number]:
            rows = by_number[key] or _number_rows(lengths, index, value, temp)
            street = 0
            for masks in fits:
                houses = masks[value]
                if houses:
                    span = spans.get(houses)
                    plays += rows[street][span] if span is not None else _scattered(rows[street], houses)
                street += 1
    if sheet.board is not None:
        undecided = sheet.board.undecided_streets()  # type: ignore[attr-defined]
        if undecided:
            plays = _with_truck_directions(plays, undecided)
    return plays


_WRITTEN_NUMBERS = tuple(
    tuple(((number, False, number << 1),)
          + (tuple((number + delta, True, (number + delta) << 1 | 1) for delta in TEMP_MODIFIERS
                   if MIN_NUMBER <= number + delta <= MAX_NUMBER) if temp else ())
          for number in range(MAX_NUMBER + 1))
    for temp in (False, True)
)
"""`_WRITTEN_NUMBERS[is_temp_offer][n]`: the (number, temp, row key) triples an
offer of number n can write, in the order of :func:`legal_plays` (the row
key indexes an offer's rows in `_ROWS`)."""


def _with_truck_directions(plays: list[Play], streets: list[int]) -> list[Play]:
    expanded = []
    for play in plays:
        if play.street in streets:
            expanded.extend(play._replace(truck=d) for d in TRUCK_CHOICES)
        else:
            expanded.append(play)
    return expanded


def must_play(plays: list[Play]) -> bool:
    """False when every play changes the number with the temp agency: the player
    may then take a permit refusal instead (RULES.md §4)."""
    for play in plays:
        if not play.temp:
            return True
    return False


_EFFECTS: dict[tuple, Effect] = {}
_SURVEYOR_EFFECTS: dict[tuple[int, int], tuple[Effect, ...]] = {}


def effect(kind: str, street: int | None = None, position: int | None = None,
           number: int | None = None) -> Effect:
    """The effect use of these values, made once and shared through a memo
    (effects are immutable; a few hundred distinct ones exist)."""
    key = (kind, street, position, number)
    found = _EFFECTS.get(key)
    if found is None:
        if len(_EFFECTS) >= _SHARED_LIMIT:
            _EFFECTS.clear()
        found = _EFFECTS[key] = Effect(kind, street, position, number)
    return found


def surveyor_effects(street: int, slots: int) -> tuple[Effect, ...]:
    """The surveyor uses for the fence slots of the bitmask `slots` of one street
    (made once and shared, like the rows of plays in `_ROWS`)."""
    key = (street, slots)
    found = _SURVEYOR_EFFECTS.get(key)
    if found is None:
        if len(_SURVEYOR_EFFECTS) >= _SHARED_LIMIT:
            _SURVEYOR_EFFECTS.clear()
        found = _SURVEYOR_EFFECTS[key] = tuple(Effect(SURVEYOR, street, slot) for slot in houses_of(slots))
    return found


_REAL_ESTATE_USES = tuple(effect(REAL_ESTATE, None, size) for size in range(1, MAX_ESTATE_SIZE + 1))
"""`_REAL_ESTATE_USES[size - 1]`: the real-estate use for estates of that size."""


def effect_options(sheet: Sheet, offer: Offer, play: Play) -> list[Effect]:
    """The legal uses of the offer's effect after `play` was written (temp is
    decided with the play itself and has no options here). Always a new list:
    the game appends its "skip" answer to it."""
    kind = offer.effect
    data = sheet.data
    if kind == SURVEYOR:
        options: list[Effect] = []
        for street in range(len(sheet.fences)):
            slots = sheet.fence_mask(street)
            if slots:
                options += surveyor_effects(street, slots)
        return options
    if kind == REAL_ESTATE:
        tracks = data.real_estate_tracks
        return [_REAL_ESTATE_USES[size] for size, crossed in enumerate(sheet.real_estate)
                if crossed < len(tracks[size]) - 1]
    if kind == LANDSCAPER:
        if sheet.parks[play.street] < len(data.park_tracks[play.street]) - 1:
            return [effect(LANDSCAPER, play.street)]
        return []
    if kind == POOL:
        if play.house in data.pool_houses[play.street] and not sheet.pools[play.street][play.house]:
            return [effect(POOL, play.street, play.house)]
        return []
    if kind == BIS:
        return [effect(BIS, s, h, n) for s, h, n in sheet.bis_options()]
    return []


def bis_uses_after_write(sheet: Sheet, street: int, house: int, number: int) -> list[Effect]:
    """The uses of a bis offer once `number` is written (no temp) in the empty
    `house`: ``effect_options`` of the sheet after that play, for a search
    that judges many plays without copying the sheet for each. Base board
    only: a thematic board may react to the write."""
    return [effect(BIS, s, h, n) for s, h, n in sheet.bis_options_after_write(street, house, number)]


def apply_play(sheet: Sheet, play: Play, turn: int = 0) -> None:
    """Write the play's number (and cross a temp box if the agency is used);
    the board reacts to the written number (trucks drive, eggs are collected)."""
    sheet.write(play.street, play.house, play.number)
    if play.temp and sheet.temps < sheet.data.temp_boxes:
        sheet.temps += 1
    board = sheet.board
    if board is not None:
        if play.truck is not None:
            board.direction[play.street] = play.truck  # type: ignore[attr-defined]
        board.on_write(sheet, play.street, play.house, play.number, turn)  # type: ignore[attr-defined]


def apply_effect(sheet: Sheet, effect: Effect) -> None:
    """Carry out one legal effect use on the sheet."""
    kind = effect.kind
    if kind == SURVEYOR:
        sheet.add_fence(effect.street, effect.position)
    elif kind == REAL_ESTATE:
        sheet.real_estate[effect.position - 1] += 1
    elif kind == LANDSCAPER:
        sheet.parks[effect.street] += 1
    elif kind == POOL:
        sheet.pools[effect.street][effect.position] = True
    elif kind == BIS:
        sheet.write(effect.street, effect.position, effect.number, bis=True)
