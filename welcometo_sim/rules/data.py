"""Every number of the game in one place: sheet, tracks, deck and city plans.

The rules code reads these tables through a :class:`GameData` object, never as
scattered literals, so that a YAML variant can replace any of them (different
plan points, another deck composition) without touching the engine.
Indexing follows RULES.md: streets 0..2 top to bottom, houses 0..n-1 from the
left, fence slot k between house k and house k+1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

EFFECTS: tuple[str, ...] = ("surveyor", "real_estate", "landscaper", "pool", "temp", "bis")
SURVEYOR, REAL_ESTATE, LANDSCAPER, POOL, TEMP, BIS = EFFECTS

STREET_HOUSES: tuple[int, ...] = (10, 11, 12)
POOL_HOUSES: tuple[tuple[int, ...], ...] = ((2, 6, 7), (0, 3, 7), (1, 6, 10))
PARK_TRACKS: tuple[tuple[int, ...], ...] = (
    (0, 2, 4, 10),
    (0, 2, 4, 6, 14),
    (0, 2, 4, 6, 8, 18),
)

POOL_TRACK: tuple[int, ...] = (0, 3, 6, 9, 13, 17, 21, 26, 31, 36)
BIS_TRACK: tuple[int, ...] = (0, 1, 3, 6, 9, 12, 16, 20, 24, 28)
REFUSAL_TRACK: tuple[int, ...] = (0, 0, 3, 5)
ROUNDABOUT_TRACK: tuple[int, ...] = (0, 3, 8)
TEMP_BOXES: int = 11
TEMP_RANK_POINTS: tuple[int, ...] = (7, 4, 1)
SOLO_TEMP_THRESHOLD: int = 6
SOLO_TEMP_POINTS: int = 7
TEMP_MODIFIERS: tuple[int, ...] = (-2, -1, 0, 1, 2)
MIN_NUMBER, MAX_NUMBER = 0, 17
MAX_ESTATE_SIZE: int = 6

# Value of one completed estate of size s after k boxes of its column are crossed.
REAL_ESTATE_TRACKS: tuple[tuple[int, ...], ...] = (
    (1, 3),
    (2, 3, 4),
    (3, 4, 5, 6),
    (4, 5, 6, 7, 8),
    (5, 6, 7, 8, 10),
    (6, 7, 8, 10, 12),
)

# number -> cards per effect, in the order of EFFECTS.
DECK_COMPOSITION: dict[int, tuple[int, int, int, int, int, int]] = {
    1: (1, 1, 1, 0, 0, 0),
    2: (1, 1, 1, 0, 0, 0),
    3: (1, 0, 0, 1, 1, 1),
    4: (0, 1, 1, 1, 1, 1),
    5: (2, 2, 2, 0, 0, 0),
    6: (2, 1, 1, 1, 1, 1),
    7: (1, 2, 2, 1, 1, 1),
    8: (2, 2, 2, 1, 1, 1),
    9: (1, 2, 2, 1, 1, 1),
    10: (2, 1, 1, 1, 1, 1),
    11: (2, 2, 2, 0, 0, 0),
    12: (0, 1, 1, 1, 1, 1),
    13: (1, 0, 0, 1, 1, 1),
    14: (1, 1, 1, 0, 0, 0),
    15: (1, 1, 1, 0, 0, 0),
}
N_STACKS: int = 3


@dataclass(frozen=True)
class PlanSpec:
    """One city-plan card: its deck, public id, condition data and points."""

    id: str
    deck: int
    kind: str
    points: tuple[int, int]
    estates: tuple[int, ...] = ()


def _estate_plan(deck: int, sizes: tuple[int, ...], high: int, low: int) -> PlanSpec:
    plan_id = "estates-" + "-".join(str(s) for s in sizes)
    return PlanSpec(id=plan_id, deck=deck, kind="estates", points=(high, low), estates=sizes)


BASIC_PLANS: tuple[PlanSpec, ...] = (
    _estate_plan(1, (1, 1, 1, 1, 1, 1), 8, 4),
    _estate_plan(1, (2, 2, 2, 2), 8, 4),
    _estate_plan(1, (3, 3, 3), 8, 4),
    _estate_plan(1, (4, 4), 6, 3),
    _estate_plan(1, (5, 5), 8, 4),
    _estate_plan(1, (6, 6), 10, 6),
    _estate_plan(2, (1, 1, 1, 6), 11, 6),
    _estate_plan(2, (2, 2, 5), 10, 6),
    _estate_plan(2, (3, 3, 4), 12, 7),
    _estate_plan(2, (3, 6), 8, 4),
    _estate_plan(2, (4, 5), 9, 5),
    _estate_plan(2, (1, 1, 1, 4), 9, 5),
    _estate_plan(3, (1, 2, 6), 12, 7),
    _estate_plan(3, (1, 4, 5), 13, 7),
    _estate_plan(3, (3, 4), 7, 3),
    _estate_plan(3, (2, 5), 7, 3),
    _estate_plan(3, (1, 2, 2, 3), 11, 6),
    _estate_plan(3, (2, 3, 5), 13, 7),
)


def build_deck(composition: dict[int, tuple[int, ...]]) -> tuple[tuple[int, str], ...]:
    """Expand a number -> per-effect count table into the list of (number, effect) cards."""
    cards = []
    for number in sorted(composition):
        for effect, count in zip(EFFECTS, composition[number]):
            cards.extend([(number, effect)] * count)
    return tuple(cards)


@dataclass(frozen=True)
class GameData:
    """All the numbers one game is played with (the published game by default)."""

    street_houses: tuple[int, ...] = STREET_HOUSES
    pool_houses: tuple[tuple[int, ...], ...] = POOL_HOUSES
    park_tracks: tuple[tuple[int, ...], ...] = PARK_TRACKS
    pool_track: tuple[int, ...] = POOL_TRACK
    bis_track: tuple[int, ...] = BIS_TRACK
    refusal_track: tuple[int, ...] = REFUSAL_TRACK
    roundabout_track: tuple[int, ...] = ROUNDABOUT_TRACK
    real_estate_tracks: tuple[tuple[int, ...], ...] = REAL_ESTATE_TRACKS
    temp_boxes: int = TEMP_BOXES
    temp_rank_points: tuple[int, ...] = TEMP_RANK_POINTS
    deck: tuple[tuple[int, str], ...] = field(default_factory=lambda: build_deck(DECK_COMPOSITION))
    plans: tuple[PlanSpec, ...] = BASIC_PLANS

    @property
    def max_bis(self) -> int:
        return len(self.bis_track) - 1

    @property
    def max_refusals(self) -> int:
        return len(self.refusal_track) - 1

    def plans_of_deck(self, deck: int) -> tuple[PlanSpec, ...]:
        return tuple(p for p in self.plans if p.deck == deck)

    def plan(self, plan_id: str) -> PlanSpec:
        for p in self.plans:
            if p.id == plan_id:
                return p
        raise KeyError(plan_id)


DEFAULT_DATA = GameData()
