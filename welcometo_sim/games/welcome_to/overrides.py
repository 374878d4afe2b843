"""What-if variants: changing the game's data tables from a config.

An overrides mapping (the `overrides:` block of a config) may

- change existing plans: ``plans: {estates-4-4: {points: [7, 4]}}``
  (keys `points`, `estates`, `deck`);
- add estate plans: ``add_plans: [{id: my-plan, deck: 2, estates: [2, 2, 4], points: [9, 5]}]``;
- remove plans from the decks: ``remove_plans: [estates-6-6]``;
- replace score tracks: ``tracks: {pool_track: [0, 3, 6, …], park_tracks: [[…], […], […]], …}``;
- replace the construction deck: ``deck: {8: [2, 2, 2, 1, 1, 1], …}`` (cards per
  effect in the order surveyor, real_estate, landscaper, pool, temp, bis; numbers not
  given keep their cards).

Every problem raises :class:`OverrideError` with the key path that is wrong.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...messages import key_label
from .data import (DECK_COMPOSITION, DEFAULT_DATA, EFFECTS, MAX_ESTATE_SIZE, MAX_NUMBER, MIN_NUMBER,
                   GameData, PlanSpec, build_deck)

TRACKS: dict[str, str] = {
    "pool_track": "flat",
    "bis_track": "flat",
    "refusal_track": "flat",
    "roundabout_track": "flat",
    "temp_rank_points": "flat",
    "park_tracks": "per-street",
    "real_estate_tracks": "per-size",
}
OVERRIDE_KEYS = {"plans", "add_plans", "remove_plans", "tracks", "deck"}
PLAN_FIELDS = {"points", "estates", "deck"}
SWEPT_PLAN_FIELDS = ("points", "estates", "deck")
"""A plan's fields in the order `sweep_keys` offers them."""
NEW_PLAN_FIELDS = {"id", "deck", "estates", "points"}
MAX_POINTS = 1000
"""Largest value of a plan or track: far above the game's own (at most 36), and
small enough that totals stay ordinary integers in the result tables."""
MAX_PLAN_ESTATES = 6
"""A plan card has at most six estates; more would make the search for claims explode."""
MAX_CARD_COUNT = 100
"""Most copies of one (number, effect) card in an overridden deck."""


class OverrideError(ValueError):
    """A bad override; `path` names the key (e.g. 'overrides.plans.estates-4-4.points')."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_list(value: Any, path: str, length: int | None = None, minimum: int | None = None,
              maximum: int | None = None) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(_is_int(v) for v in value):
        raise OverrideError(path, f"must be a list of integers, got {value!r}")
    if length is not None and len(value) != length:
        raise OverrideError(path, f"must have {length} values, got {len(value)}")
    if minimum is not None and any(v < minimum for v in value):
        raise OverrideError(path, f"values must be at least {minimum}")
    if maximum is not None and any(v > maximum for v in value):
        raise OverrideError(path, f"values must be at most {maximum}")
    return tuple(value)


def _points(value: Any, path: str) -> tuple[int, int]:
    high, low = _int_list(value, path, length=2, minimum=0, maximum=MAX_POINTS)
    return high, low


def _estates(value: Any, path: str) -> tuple[int, ...]:
    sizes = _int_list(value, path, minimum=1)
    if not sizes or any(s > MAX_ESTATE_SIZE for s in sizes):
        raise OverrideError(path, f"estate sizes must be 1..{MAX_ESTATE_SIZE}, got {list(sizes)}")
    if len(sizes) > MAX_PLAN_ESTATES:
        raise OverrideError(path, f"a plan has at most {MAX_PLAN_ESTATES} estates, got {len(sizes)}")
    return sizes


def _deck_number(value: Any, path: str) -> int:
    if not _is_int(value) or value not in (1, 2, 3):
        raise OverrideError(path, f"must be 1, 2 or 3, got {value!r}")
    return value


def _mapping(value: Any, path: str) -> dict:
    if not isinstance(value, dict):
        raise OverrideError(path, "must be a mapping")
    return value


def _check_keys(mapping: dict, allowed: set[str], path: str) -> None:
    for key in mapping:
        if key not in allowed:
            raise OverrideError(f"{path}.{key_label(key)}", f"unknown key (known: {', '.join(sorted(allowed))})")


def _change_plan(spec: PlanSpec, changes: dict, path: str) -> PlanSpec:
    _check_keys(changes, PLAN_FIELDS, path)
    updates: dict[str, Any] = {}
    if "points" in changes:
        updates["points"] = _points(changes["points"], f"{path}.points")
    if "estates" in changes:
        if spec.kind != "estates":
            raise OverrideError(f"{path}.estates", f"plan {spec.id!r} is not an estate plan")
        updates["estates"] = _estates(changes["estates"], f"{path}.estates")
    if "deck" in changes:
        updates["deck"] = _deck_number(changes["deck"], f"{path}.deck")
    return replace(spec, **updates)


def _map_plans(data: GameData, change) -> dict[str, Any]:
    """Apply `change(spec) -> spec | None` to every plan collection of the data."""
    def apply(plans: tuple[PlanSpec, ...]) -> tuple[PlanSpec, ...]:
        return tuple(new for new in (change(p) for p in plans) if new is not None)

    return {
        "plans": apply(data.plans),
        "advanced_plans": apply(data.advanced_plans),
        "board_plans": {board: apply(plans) for board, plans in data.board_plans.items()},
    }


def _tracks(data: GameData, raw: dict, path: str) -> dict[str, Any]:
    updates: dict[str, Any] = {}
    _check_keys(raw, set(TRACKS), path)
    for name, value in raw.items():
        at = f"{path}.{name}"
        shape = TRACKS[name]
        if shape == "flat":
            updates[name] = _int_list(value, at, minimum=0, maximum=MAX_POINTS)
            if not updates[name]:
                raise OverrideError(at, "must not be empty")
        else:
            expected = len(data.street_houses) if shape == "per-street" else MAX_ESTATE_SIZE
            if not isinstance(value, list) or len(value) != expected:
                raise OverrideError(at, f"must be a list of {expected} lists of integers")
            updates[name] = tuple(_int_list(v, f"{at}[{i}]", minimum=0, maximum=MAX_POINTS)
                                  for i, v in enumerate(value))
            if any(not track for track in updates[name]):
                raise OverrideError(at, "no track may be empty")
    return updates


def _deck(raw: dict, path: str) -> tuple[tuple[int, str], ...]:
    composition = dict(DECK_COMPOSITION)
    for key, counts in raw.items():
        number = int(key) if isinstance(key, str) and key.isascii() and key.isdigit() else key  # JSON keys are strings
        if not _is_int(number) or not MIN_NUMBER <= number <= MAX_NUMBER:
            raise OverrideError(f"{path}.{key_label(key)}", f"card numbers must be {MIN_NUMBER}..{MAX_NUMBER}")
        composition[number] = _int_list(counts, f"{path}.{number}", length=len(EFFECTS), minimum=0,
                                        maximum=MAX_CARD_COUNT)
    cards = build_deck(composition)
    if len(cards) < 9 or len(cards) % 3:
        raise OverrideError(path, f"the deck must have a multiple of 3 cards, at least 9 (got {len(cards)})")
    return cards


def apply_overrides(data: GameData, overrides: dict, path: str = "overrides") -> GameData:
    """A copy of `data` with the overrides applied (see the module docstring)."""
    overrides = _mapping(overrides, path)
    _check_keys(overrides, OVERRIDE_KEYS, path)
    known = {p.id for p in data.all_plans()}
    changes = _mapping(overrides.get("plans", {}), f"{path}.plans")
    for plan_id in changes:
        if plan_id not in known:
            raise OverrideError(f"{path}.plans.{key_label(plan_id)}", "unknown plan id")
    removed = overrides.get("remove_plans", [])
    if not isinstance(removed, list) or not all(isinstance(plan_id, str) for plan_id in removed):
        raise OverrideError(f"{path}.remove_plans", f"must be a list of plan ids, got {removed!r}")
    for plan_id in removed:
        if plan_id not in known:
            raise OverrideError(f"{path}.remove_plans", f"unknown plan id {plan_id!r}")

    def change(spec: PlanSpec) -> PlanSpec | None:
        if spec.id in removed:
            return None
        if spec.id in changes:
            return _change_plan(spec, _mapping(changes[spec.id], f"{path}.plans.{spec.id}"),
                                f"{path}.plans.{spec.id}")
        return spec

    updates = _map_plans(data, change)
    added = overrides.get("add_plans", [])
    if not isinstance(added, list):
        raise OverrideError(f"{path}.add_plans", "must be a list of plans")
    new_plans = []
    for index, raw in enumerate(added):
        at = f"{path}.add_plans[{index}]"
        raw = _mapping(raw, at)
        _check_keys(raw, NEW_PLAN_FIELDS, at)
        missing = NEW_PLAN_FIELDS - set(raw)
        if missing:
            raise OverrideError(at, f"missing {', '.join(sorted(missing))}")
        plan_id = raw["id"]
        if not isinstance(plan_id, str) or key_label(plan_id) != plan_id or " " in plan_id or plan_id in known:
            raise OverrideError(f"{at}.id", f"must be a new plan id (printable, no spaces), got {plan_id!r}")
        known.add(plan_id)
        new_plans.append(PlanSpec(plan_id, _deck_number(raw["deck"], f"{at}.deck"), "estates",
                                  _points(raw["points"], f"{at}.points"),
                                  estates=_estates(raw["estates"], f"{at}.estates")))
    updates["plans"] = updates["plans"] + tuple(new_plans)
    for deck in (1, 2, 3):
        if not any(p.deck == deck for p in updates["plans"]):
            raise OverrideError(path, f"plan deck {deck} would be empty")
    for board, plans in updates["board_plans"].items():
        if not plans:
            raise OverrideError(path, f"the {board} board's plan deck would be empty")
    updates.update(_tracks(data, _mapping(overrides.get("tracks", {}), f"{path}.tracks"), f"{path}.tracks"))
    pools = 1 + sum(len(houses) for houses in data.pool_houses)
    if len(updates.get("pool_track", data.pool_track)) < pools:
        raise OverrideError(f"{path}.tracks.pool_track", f"needs at least {pools} values (0 to all pools built)")
    if "deck" in overrides:
        updates["deck"] = _deck(_mapping(overrides["deck"], f"{path}.deck"), f"{path}.deck")
    return replace(data, **updates)


def sweep_keys() -> list[str]:
    """The `wtsim sweep --set` keys a shell completes: `plans.<plan id>.<field>`
    for every plan of every variant, the what-if keys whose plan ids nobody
    remembers."""
    return [f"plans.{plan.id}.{field}" for plan in DEFAULT_DATA.all_plans() for field in SWEPT_PLAN_FIELDS]
