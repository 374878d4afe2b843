"""City plans: whether a sheet can complete one, with which houses, and marking them.

A plan kind is a pair of functions (what claims the sheet allows, which houses
a claim uses). Estate plans are the base game's only kind; variants add kinds
by registering more pairs in `PLAN_KINDS`.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, islice, product
from typing import Callable, NamedTuple

from .data import PlanSpec
from .sheet import Estate, Sheet

MAX_CLAIM_OPTIONS = 24
"""How many alternative estate choices are offered per plan (the first ones in
sheet order); more would only slow strategies down without new ideas."""


class PlanClaim(NamedTuple):
    """Completing the plan of deck `deck` (1..3); `estates` lists the estates it
    uses, or is None for plans that use no estates."""

    deck: int
    estates: tuple[Estate, ...] | None


def _estate_options(spec: PlanSpec, sheet: Sheet) -> list[tuple[Estate, ...]]:
    """All ways to pick unused completed estates whose sizes equal the plan's list."""
    need = Counter(spec.estates)
    by_size: dict[int, list[Estate]] = {}
    for estate in sheet.unused_estates():
        by_size.setdefault(estate[2], []).append(estate)
    choices = []
    for size, count in sorted(need.items()):
        available = by_size.get(size, [])
        if len(available) < count:
            return []
        choices.append(list(combinations(available, count)))
    options = []
    for picked in islice(product(*choices), MAX_CLAIM_OPTIONS):
        options.append(tuple(estate for group in picked for estate in group))
    return options


def _estate_houses(claim_estates: tuple[Estate, ...]) -> list[tuple[int, int]]:
    return [
        (street, h)
        for street, first, size in claim_estates
        for h in range(first, first + size)
    ]


class PlanKind(NamedTuple):
    options: Callable[[PlanSpec, Sheet], list[tuple[Estate, ...] | None]]
    houses: Callable[[tuple[Estate, ...] | None], list[tuple[int, int]]]


PLAN_KINDS: dict[str, PlanKind] = {
    "estates": PlanKind(_estate_options, _estate_houses),
}


def claim_options(sheet: Sheet, plans: tuple[PlanSpec, ...]) -> list[PlanClaim]:
    """Every way the sheet can complete each plan it has not completed yet."""
    claims = []
    for deck, spec in enumerate(plans, start=1):
        if sheet.plan_turns[deck - 1] is not None:
            continue
        for option in PLAN_KINDS[spec.kind].options(spec, sheet):
            claims.append(PlanClaim(deck, option))
    return claims


def claim_is_valid(sheet: Sheet, plans: tuple[PlanSpec, ...], claim: object) -> bool:
    """True when the claim is one of the sheet's current options."""
    return isinstance(claim, PlanClaim) and claim in claim_options(sheet, plans)


def apply_claim(sheet: Sheet, plans: tuple[PlanSpec, ...], claim: PlanClaim, turn: int) -> None:
    """Mark the plan completed on `turn` and draw its plan line over the houses it uses.

    Points are settled at the end of the turn, once every player's claims are known.
    """
    spec = plans[claim.deck - 1]
    for street, h in PLAN_KINDS[spec.kind].houses(claim.estates):
        sheet.mark_plan(street, h, claim.deck)
    sheet.plan_turns[claim.deck - 1] = turn
