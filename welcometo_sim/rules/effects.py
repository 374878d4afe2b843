"""Offers, plays and effects: what a player may do with the cards in front of them.

The game and the strategies share these functions: the game lists the legal
choices and checks answers against them; search strategies apply the same
moves to copies of their sheet.
"""

from __future__ import annotations

from typing import NamedTuple

from .data import (BIS, LANDSCAPER, MAX_NUMBER, MIN_NUMBER, POOL, REAL_ESTATE, SURVEYOR, TEMP,
                   TEMP_MODIFIERS, TRUCK_LEFT, TRUCK_RIGHT)
from .sheet import Sheet


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


def legal_plays(sheet: Sheet, offers: list[Offer]) -> list[Play]:
    """Every play the offers allow on this sheet, temp-agency variants included
    (and both truck directions where an ice-cream truck has none yet)."""
    plays: list[Play] = []
    add = plays.append
    new = tuple.__new__
    fits: dict[int, list[tuple[int, int]]] = {}
    for index, offer in enumerate(offers):
        number = offer[0]
        houses = fits.get(number)
        if houses is None:
            houses = fits[number] = sheet.houses_for(number)
        for street, house in houses:
            add(new(Play, (index, street, house, number, False, None)))
        if offer[1] == TEMP:
            for delta in TEMP_MODIFIERS:
                value = number + delta
                if MIN_NUMBER <= value <= MAX_NUMBER:
                    houses = fits.get(value)
                    if houses is None:
                        houses = fits[value] = sheet.houses_for(value)
                    for street, house in houses:
                        add(new(Play, (index, street, house, value, True, None)))
    if sheet.board is not None:
        undecided = sheet.board.undecided_streets()  # type: ignore[attr-defined]
        if undecided:
            plays = _with_truck_directions(plays, undecided)
    return plays


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
    return any(not play.temp for play in plays)


def effect_options(sheet: Sheet, offer: Offer, play: Play) -> list[Effect]:
    """The legal uses of the offer's effect after `play` was written (temp is
    decided with the play itself and has no options here)."""
    kind = offer.effect
    data = sheet.data
    if kind == SURVEYOR:
        new = tuple.__new__  # several times cheaper than Effect(...) on this hot path
        return [new(Effect, (SURVEYOR, s, k, None)) for s, k in sheet.fence_options()]
    if kind == REAL_ESTATE:
        return [
            Effect(REAL_ESTATE, None, size)
            for size, crossed in enumerate(sheet.real_estate, start=1)
            if crossed < len(data.real_estate_tracks[size - 1]) - 1
        ]
    if kind == LANDSCAPER:
        if sheet.parks[play.street] < len(data.park_tracks[play.street]) - 1:
            return [Effect(LANDSCAPER, play.street)]
        return []
    if kind == POOL:
        if play.house in data.pool_houses[play.street] and not sheet.pools[play.street][play.house]:
            return [Effect(POOL, play.street, play.house)]
        return []
    if kind == BIS:
        new = tuple.__new__
        return [new(Effect, (BIS, s, h, n)) for s, h, n in sheet.bis_options()]
    return []


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
