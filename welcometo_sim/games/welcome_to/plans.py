"""City plans: whether a sheet can complete one, with which houses, and marking them.

A plan kind is a pair of functions: the claims a sheet allows now (each a
tuple of estates, or None for plans that use no estates) and the houses a
claim puts under the plan line. A claim is checked by its content
(:func:`checked_claim`), so any legal choice of estates counts, in any
order, whether or not :func:`claim_options` listed it. Estate plans may carry a filter that each of
their estates must pass (thematic boards); the other kinds check a condition
of the whole sheet (advanced plans, board plans).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, islice, product
from typing import Any, Callable, NamedTuple

import numpy as np

from .boards import LOST, OPEN, SOLD, joined
from .data import PlanSpec
from .sheet import Estate, Sheet

MAX_CLAIM_OPTIONS = 256
"""How many alternative estate choices `claim_options` lists per plan (the
first ones in sheet order). A sheet rarely has more (six one-house estates
out of 23 would be 100,947); any other legal choice may still be claimed by
naming its estates in a PlanClaim, which the game checks by content."""

Claim = tuple[Estate, ...] | None


class PlanClaim(NamedTuple):
    """Completing the plan of deck `deck` (1..3); `estates` lists the estates it
    uses, or is None for plans that use no estates."""

    deck: int
    estates: tuple[Estate, ...] | None


# ------------------------------------------------------------- estate filters
def _houses(estate: Estate) -> range:
    return range(estate[1], estate[1] + estate[2])


def _sold_cones(sheet: Sheet, estate: Estate) -> int:
    row = sheet.board.cones[estate[0]]  # type: ignore[union-attr]
    return sum(row[h] == SOLD for h in _houses(estate))


def _eggs(sheet: Sheet, estate: Estate) -> int:
    row = sheet.board.collected[estate[0]]  # type: ignore[union-attr]
    return sum(row[h] or 0 for h in _houses(estate))


def _inner_lights(sheet: Sheet, estate: Estate) -> list[bool]:
    street, first, size = estate
    return [joined(sheet, street, h) for h in range(first, first + size - 1)]


ESTATE_FILTERS: dict[str, Callable[[Sheet, Estate, int], bool]] = {
    "no-cones": lambda sheet, estate, n: _sold_cones(sheet, estate) == 0,
    "min-cones": lambda sheet, estate, n: _sold_cones(sheet, estate) >= n,
    "no-eggs": lambda sheet, estate, n: _eggs(sheet, estate) == 0,
    "min-eggs": lambda sheet, estate, n: _eggs(sheet, estate) >= n,
    "lit": lambda sheet, estate, n: all(_inner_lights(sheet, estate)),
    "unlit": lambda sheet, estate, n: not any(_inner_lights(sheet, estate)),
}


# -------------------------------------------------------------- estate plans
@lru_cache(maxsize=None)
def _size_counts(sizes: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """(size, how many) of a plan's estate list, by size."""
    return tuple((size, sizes.count(size)) for size in sorted(set(sizes)))


def _estate_options(spec: PlanSpec, sheet: Sheet) -> list[Claim]:
    """All ways to pick unused completed estates whose sizes equal the plan's list."""
    unused = sheet.unused_estates()
    if len(unused) < len(spec.estates):
        return []
    need = dict(_size_counts(spec.estates))
    sizes = [estate[2] for estate in unused]
    if any(sizes.count(size) < count for size, count in need.items()):
        return []  # the usual case: too few estates of some size, whatever the filter
    keep = ESTATE_FILTERS[spec.estate_filter] if spec.estate_filter else None
    by_size: dict[int, list[Estate]] = {}
    for estate in unused:
        if estate[2] in need and (keep is None or keep(sheet, estate, spec.count)):
            by_size.setdefault(estate[2], []).append(estate)
    choices = []
    for size, count in sorted(need.items()):
        available = by_size.get(size, [])
        if len(available) < count:
            return []
        choices.append(list(combinations(available, count)))
    return [
        tuple(estate for group in picked for estate in group)
        for picked in islice(product(*choices), MAX_CLAIM_OPTIONS)
    ]


def _estate_houses(spec: PlanSpec, sheet: Sheet, claim: Claim) -> list[tuple[int, int]]:
    return [(estate[0], h) for estate in claim or () for h in _houses(estate)]


# --------------------------------------------------------- whole-sheet plans
def _no_houses(spec: PlanSpec, sheet: Sheet, claim: Claim) -> list[tuple[int, int]]:
    return []


def _condition(check: Callable[[PlanSpec, Sheet], bool]) -> Callable[[PlanSpec, Sheet], list[Claim]]:
    """Options of a plan that uses no estates: one claim (None) when the condition holds."""
    return lambda spec, sheet: [None] if check(spec, sheet) else []


def _built_or_roundabout(sheet: Sheet, street: int) -> bool:
    rounds = sheet.roundabouts[street]
    return all(v is not None or rounds[h] for h, v in enumerate(sheet.numbers[street]))


def _full_street(spec: PlanSpec, sheet: Sheet) -> bool:
    street = spec.street
    return _built_or_roundabout(sheet, street) and not any(sheet.plan_use[street])


def _full_street_houses(spec: PlanSpec, sheet: Sheet, claim: Claim) -> list[tuple[int, int]]:
    return [(spec.street, h) for h in range(len(sheet.numbers[spec.street]))]


def _street_end_houses(sheet: Sheet) -> list[tuple[int, int]]:
    return [(s, h) for s, row in enumerate(sheet.numbers) for h in (0, len(row) - 1)]


def _street_ends(spec: PlanSpec, sheet: Sheet) -> bool:
    return all(
        sheet.numbers[s][h] is not None and not sheet.roundabouts[s][h] and not sheet.plan_use[s][h]
        for s, h in _street_end_houses(sheet)
    )


def _all_parks(sheet: Sheet, street: int) -> bool:
    return sheet.parks[street] >= len(sheet.data.park_tracks[street]) - 1


def _all_pools(sheet: Sheet, street: int) -> bool:
    return all(sheet.pools[street][h] for h in sheet.data.pool_houses[street])


def _streets(sheet: Sheet) -> range:
    return range(len(sheet.numbers))


def _all_cones_sold(sheet: Sheet, street: int) -> bool:
    return not any(c in (OPEN, LOST) for c in sheet.board.cones[street])  # type: ignore[union-attr]


def _fully_lit(sheet: Sheet, street: int) -> bool:
    return all(v is not None for v in sheet.numbers[street]) and all(
        joined(sheet, street, h) for h in range(len(sheet.numbers[street]) - 1)
    )


def _all_eggs(spec: PlanSpec, sheet: Sheet) -> bool:
    street = spec.street
    collected = sheet.board.collected[street]  # type: ignore[union-attr]
    return all(collected[h] == eggs for h, eggs in sheet.data.eggs[street].items())


class PlanKind(NamedTuple):
    options: Callable[[PlanSpec, Sheet], list[Claim]]
    houses: Callable[[PlanSpec, Sheet, Claim], list[tuple[int, int]]]


PLAN_KINDS: dict[str, PlanKind] = {
    "estates": PlanKind(_estate_options, _estate_houses),
    "full-street": PlanKind(_condition(_full_street), _full_street_houses),
    "street-ends": PlanKind(_condition(_street_ends), lambda spec, sheet, claim: _street_end_houses(sheet)),
    "bis-one-street": PlanKind(_condition(
        lambda spec, sheet: any(sum(row) >= spec.count for row in sheet.is_bis)), _no_houses),
    "temps": PlanKind(_condition(lambda spec, sheet: sheet.temps >= spec.count), _no_houses),
    "parks-streets": PlanKind(_condition(
        lambda spec, sheet: sum(_all_parks(sheet, s) for s in _streets(sheet)) >= spec.count), _no_houses),
    "pools-streets": PlanKind(_condition(
        lambda spec, sheet: sum(_all_pools(sheet, s) for s in _streets(sheet)) >= spec.count), _no_houses),
    "parks-pools-roundabout": PlanKind(_condition(lambda spec, sheet: any(
        _all_parks(sheet, s) and _all_pools(sheet, s) and any(sheet.roundabouts[s])
        for s in _streets(sheet))), _no_houses),
    "parks-pools-street": PlanKind(_condition(
        lambda spec, sheet: _all_parks(sheet, spec.street) and _all_pools(sheet, spec.street)), _no_houses),
    "all-cones-one-street": PlanKind(_condition(
        lambda spec, sheet: any(_all_cones_sold(sheet, s) for s in _streets(sheet))), _no_houses),
    "street-fully-lit": PlanKind(_condition(
        lambda spec, sheet: any(_fully_lit(sheet, s) for s in _streets(sheet))), _no_houses),
    "all-eggs-street": PlanKind(_condition(_all_eggs), _no_houses),
}


def claim_options(sheet: Sheet, plans: tuple[PlanSpec, ...]) -> list[PlanClaim]:
    """Every way the sheet can complete each plan it has not completed yet."""
    claims = []
    unused = len(sheet.unused_estates())
    for deck, spec in enumerate(plans, start=1):
        if sheet.plan_turns[deck - 1] is not None:
            continue
        if spec.kind == "estates" and len(spec.estates) > unused:
            continue  # quick rejection, the usual case: too few estates yet
        for option in PLAN_KINDS[spec.kind].options(spec, sheet):
            claims.append(PlanClaim(deck, option))
    return claims


_NUMPY_INTEGERS = (np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8,
                   np.longlong, np.ulonglong, np.intc, np.uintc)


def plain_value(value: Any) -> int | bool | str | None:
    """`value` when it is a plain int, bool or str (a numpy integer as an int,
    a numpy bool as a bool), else None. Exact types only: a subclass, whose
    comparisons could be anything, is not plain."""
    kind = type(value)
    if kind is int or kind is bool or kind is str:
        return value
    for numpy_type in _NUMPY_INTEGERS:
        if kind is numpy_type:
            return int(value)
    if kind is np.bool_:
        return bool(value)
    return None


def _plain_int(value: Any) -> int | None:
    value = plain_value(value)
    return value if type(value) is int else None


def _plain_estates(estates: Any, count: int) -> tuple[Estate, ...] | None:
    """A claim's `count` estates as a tuple of (street, first_house, size)
    tuples of ints, or None when they are not a list or tuple of `count`
    three-int lists or tuples."""
    if (type(estates) is not tuple and type(estates) is not list) or len(estates) != count:
        return None
    picked = []
    for estate in estates:
        if (type(estate) is not tuple and type(estate) is not list) or len(estate) != 3:
            return None
        street, first, size = _plain_int(estate[0]), _plain_int(estate[1]), _plain_int(estate[2])
        if street is None or first is None or size is None:
            return None
        picked.append((street, first, size))
    return tuple(picked)


def checked_claim(sheet: Sheet, plans: tuple[PlanSpec, ...], claim: object) -> PlanClaim | None:
    """The claim in plain values when the sheet may complete it now, else None.

    A claim is a PlanClaim (exactly) of a plan the sheet has not completed.
    An estate plan's estates, listed in any order, must be distinct completed
    estates of the sheet that serve no plan yet, whose sizes are the plan's
    and which pass its filter; a plan that uses no estates takes None and
    its condition must hold. Whether `claim_options` listed the claim does not
    matter."""
    if type(claim) is not PlanClaim or len(claim) != 2:
        return None
    deck = _plain_int(claim[0])
    if deck is None or not 1 <= deck <= len(plans) or sheet.plan_turns[deck - 1] is not None:
        return None
    spec = plans[deck - 1]
    estates = claim[1]
    if spec.kind != "estates":
        if estates is not None or not PLAN_KINDS[spec.kind].options(spec, sheet):
            return None
        return PlanClaim(deck, None)
    picked = _plain_estates(estates, len(spec.estates))
    if picked is None or len(set(picked)) != len(picked):
        return None
    if sorted([estate[2] for estate in picked]) != sorted(spec.estates):
        return None
    unused = sheet.unused_estates()
    for estate in picked:
        if estate not in unused:
            return None
    if spec.estate_filter:
        keep = ESTATE_FILTERS[spec.estate_filter]
        for estate in picked:
            if not keep(sheet, estate, spec.count):
                return None
    return PlanClaim(deck, picked)


def claim_is_valid(sheet: Sheet, plans: tuple[PlanSpec, ...], claim: object) -> bool:
    """True when the sheet may complete the claim now (:func:`checked_claim`)."""
    return checked_claim(sheet, plans, claim) is not None


def apply_claim(sheet: Sheet, plans: tuple[PlanSpec, ...], claim: PlanClaim, turn: int) -> None:
    """Mark the plan completed on `turn` and draw its plan line over the houses it uses.

    Points are settled at the end of the turn, once every player's claims are known.
    """
    spec = plans[claim.deck - 1]
    for street, h in PLAN_KINDS[spec.kind].houses(spec, sheet, claim.estates):
        sheet.mark_plan(street, h, claim.deck)
    sheet.plan_turns[claim.deck - 1] = turn
