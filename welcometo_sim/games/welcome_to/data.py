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
    """One city-plan card: its deck, public id, condition data and points.

    `kind` names the condition (plans.py); `estates` lists the estate
    sizes of estate plans, whose `estate_filter` (with `count`) may demand
    something of each estate (e.g. at least 3 sold cones); `street` and
    `count` parametrise the other kinds.
    """

    id: str
    deck: int
    kind: str
    points: tuple[int, int]
    estates: tuple[int, ...] = ()
    street: int | None = None
    count: int = 0
    estate_filter: str | None = None


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


ADVANCED_PLANS: tuple[PlanSpec, ...] = (
    PlanSpec("full-street-bottom", 1, "full-street", (8, 4), street=2),
    PlanSpec("full-street-top", 1, "full-street", (6, 3), street=0),
    PlanSpec("five-bis-one-street", 1, "bis-one-street", (8, 3), count=5),
    PlanSpec("seven-temps", 1, "temps", (6, 3), count=7),
    PlanSpec("street-ends", 1, "street-ends", (7, 4)),
    PlanSpec("all-parks-two-streets", 2, "parks-streets", (7, 4), count=2),
    PlanSpec("all-pools-two-streets", 2, "pools-streets", (7, 4), count=2),
    PlanSpec("parks-pools-roundabout-one-street", 2, "parks-pools-roundabout", (10, 5)),
    PlanSpec("parks-pools-bottom-street", 2, "parks-pools-street", (10, 5), street=2),
    PlanSpec("parks-pools-middle-street", 2, "parks-pools-street", (8, 3), street=1),
)

# --------------------------------------------------------------- thematic boards
BOARDS: tuple[str, ...] = ("base", "ice-cream", "christmas", "easter")

# Ice cream: street -> {house: scoops}; trucks of streets 0 and 1 have fixed directions.
CONES: tuple[dict[int, int], ...] = (
    {0: 1, 2: 2, 4: 3, 5: 1, 7: 2, 9: 1},
    {0: 3, 1: 1, 3: 1, 4: 2, 6: 2, 8: 3, 9: 2},
    {0: 2, 1: 3, 3: 1, 4: 1, 5: 2, 7: 3, 9: 1, 10: 3},
)
TRUCK_LEFT, TRUCK_RIGHT = "left", "right"
"""Driving directions: "left" starts at the right end, "right" at the left end."""
TRUCK_DIRECTIONS: tuple[str | None, ...] = (TRUCK_LEFT, TRUCK_RIGHT, None)

# Easter eggs: street -> {house: eggs}; holes per written number; score thresholds.
EGGS: tuple[dict[int, int], ...] = (
    {2: 1, 3: 2, 4: 1, 6: 1, 9: 1},
    {0: 2, 3: 1, 5: 1, 6: 2, 8: 1},
    {2: 1, 4: 2, 5: 1, 7: 2, 9: 1},
)
EGG_HOLES: dict[int, int] = {0: 2, 6: 1, 8: 2, 9: 1, 10: 2, 16: 1}
EGG_SCORES: tuple[tuple[int, int], ...] = ((18, 35), (14, 20), (10, 10), (6, 5))
"""(at least this many eggs, points), best first."""

BOARD_PLANS: dict[str, tuple[PlanSpec, ...]] = {
    "ice-cream": (
        PlanSpec("all-cones-one-street", 3, "all-cones-one-street", (6, 4)),
        PlanSpec("estates-3-4-5-no-cones", 3, "estates", (7, 3), estates=(3, 4, 5),
                 estate_filter="no-cones"),
        PlanSpec("estates-4-4-4-three-cones", 3, "estates", (8, 4), estates=(4, 4, 4),
                 estate_filter="min-cones", count=3),
    ),
    "christmas": (
        PlanSpec("estates-6-6-lit", 3, "estates", (10, 5), estates=(6, 6), estate_filter="lit"),
        PlanSpec("street-fully-lit", 3, "street-fully-lit", (14, 7)),
        PlanSpec("estates-3-3-unlit", 3, "estates", (10, 5), estates=(3, 3), estate_filter="unlit"),
    ),
    "easter": (
        PlanSpec("all-eggs-bottom-street", 3, "all-eggs-street", (7, 3), street=2),
        PlanSpec("estates-2-3-4-no-eggs", 3, "estates", (10, 5), estates=(2, 3, 4),
                 estate_filter="no-eggs"),
        PlanSpec("estates-3-3-3-three-eggs", 3, "estates", (8, 4), estates=(3, 3, 3),
                 estate_filter="min-eggs", count=3),
    ),
}

MAX_ROUNDABOUTS_PER_TURN = 1
HAND_SIZE = 3
SOLO_CARD = -1
"""The solo card's id in a draw pile (construction cards are 0..80)."""


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
    advanced_plans: tuple[PlanSpec, ...] = ADVANCED_PLANS
    board_plans: dict[str, tuple[PlanSpec, ...]] = field(default_factory=lambda: dict(BOARD_PLANS))
    cones: tuple[dict[int, int], ...] = CONES
    truck_directions: tuple[str | None, ...] = TRUCK_DIRECTIONS
    eggs: tuple[dict[int, int], ...] = EGGS
    egg_holes: dict[int, int] = field(default_factory=lambda: dict(EGG_HOLES))
    egg_scores: tuple[tuple[int, int], ...] = EGG_SCORES

    @property
    def max_bis(self) -> int:
        return len(self.bis_track) - 1

    @property
    def max_refusals(self) -> int:
        return len(self.refusal_track) - 1

    @property
    def max_roundabouts(self) -> int:
        return len(self.roundabout_track) - 1

    def all_plans(self) -> tuple[PlanSpec, ...]:
        """Every plan card this data knows, basic, advanced and of every board."""
        board = tuple(p for plans in self.board_plans.values() for p in plans)
        return self.plans + self.advanced_plans + board

    def plans_of_deck(self, deck: int) -> tuple[PlanSpec, ...]:
        return tuple(p for p in self.plans if p.deck == deck)

    def plan(self, plan_id: str) -> PlanSpec:
        for p in self.all_plans():
            if p.id == plan_id:
                return p
        raise KeyError(plan_id)


DEFAULT_DATA = GameData()
