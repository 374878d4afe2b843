"""Numbers for learning agents: every decision of a seat as an observation
vector, an action mask and one fixed-size discrete action space.

The encoding is shared by the environments (:mod:`.aec`, :mod:`.solo`) and by
:class:`~.policy.PolicyStrategy`, which seats a policy
trained on them in ordinary games: an action means the same answer in both.
The legal answers are always the engine's own option lists (``legal_plays``,
``effect_options``, ``claim_options``, ...): the mask only marks which of the
fixed action slots those options fill.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Sequence

import numpy as np

from ..data import (BIS, EFFECTS, LANDSCAPER, MAX_ESTATE_SIZE, MAX_NUMBER, POOL, REAL_ESTATE,
                                     SURVEYOR, TEMP_MODIFIERS, GameData)
from ..boards import EasterState, IceCreamState
from ..effects import Effect, Offer, Play
from ..game import PlayerView
from ..plans import MAX_CLAIM_OPTIONS
from ..sheet import Sheet

STEPS: tuple[str, ...] = ("roundabout", "play", "effect", "plans", "pass", "reshuffle")
"""The kinds of decision, in the order a seat meets them in a turn (the
reshuffle question comes after every seat has played the turn)."""

N_OFFERS = 6
"""Offer slots: 3 in the standard game, 6 (every number card with every
other card's effect) in solo and expert games."""

TRUCKS: tuple[str | None, ...] = (None, "left", "right")
N_WRITTEN = 1 + len(TEMP_MODIFIERS)
"""Ways to write an offer's number: as printed, or through the temp agency
changed by -2..+2 (a temp play of the printed number is a change of 0)."""
N_NUMBERS = MAX_NUMBER + 1
N_DECKS = 3
HAND = 3


class Block(NamedTuple):
    """A run of action indices that answer one kind of question."""

    name: str
    start: int
    size: int
    meaning: str


class Field(NamedTuple):
    """A run of observation entries: name, first index, length, bounds, meaning."""

    name: str
    start: int
    size: int
    low: float
    high: float
    meaning: str


def _blocks(streets: int, houses: int) -> list[Block]:
    specs = [
        ("play", N_OFFERS * streets * houses * N_WRITTEN * len(TRUCKS),
         "write: ((((offer*S + street)*H + house)*6 + written)*3 + truck); written 0 = the printed "
         "number, 1..5 = temp agency -2..+2; truck 0 = none, 1 = left, 2 = right"),
        ("refuse", 1, "permit refusal (offered only when every play needs the temp agency)"),
        ("roundabout", streets * houses, "build a roundabout: street*H + house"),
        ("no_roundabout", 1, "build no roundabout this turn"),
        ("surveyor", streets * (houses - 1), "fence: street*(H-1) + slot (slot k: right of house k)"),
        ("real_estate", MAX_ESTATE_SIZE, "raise the value of estates of size 1..6"),
        ("landscaper", streets, "park on street"),
        ("pool", streets * houses, "pool: street*H + house"),
        ("bis", streets * houses * N_NUMBERS, "bis: (street*H + house)*18 + number"),
        ("skip_effect", 1, "do not use the effect"),
        ("claim", N_DECKS * MAX_CLAIM_OPTIONS,
         "complete a plan: (deck-1)*256 + k, the k-th choice of estates the engine lists for it"),
        ("plans_done", 1, "complete no (further) plan this turn"),
        ("pass", HAND, "expert, after a refusal: pass hand card 0..2"),
        ("reshuffle", 2, "0 = keep the deck, 1 = ask for the reshuffle"),
    ]
    blocks, start = [], 0
    for name, size, meaning in specs:
        blocks.append(Block(name, start, size, meaning))
        start += size
    return blocks


@dataclass
class _Fields:
    """Builds the observation layout one field at a time."""

    fields: list[Field] = field(default_factory=list)
    size: int = 0

    def add(self, name: str, size: int, low: float, high: float, meaning: str) -> None:
        self.fields.append(Field(name, self.size, size, low, high, meaning))
        self.size += size


def _fields(streets: int, houses: int, n_players: int, n_plan_ids: int) -> list[Field]:
    f, cells = _Fields(), streets * houses
    f.add("step", len(STEPS), 0, 1, "one-hot decision kind: " + ", ".join(STEPS))
    f.add("turn", 1, 0, 255, "turn number (1 = first; capped at 255)")
    f.add("cards_left", 1, 0, 255, "construction cards left to draw (capped at 255)")
    f.add("numbers", cells, -1, N_NUMBERS, "per street*H + house: number + 1, 0 = empty, -1 = no such house")
    f.add("bis", cells, 0, 1, "house holds a bis number")
    f.add("roundabouts", cells, 0, 1, "house holds a roundabout")
    f.add("pool_spots", cells, 0, 1, "house has a pool on the sheet")
    f.add("pools", cells, 0, 1, "that pool is built")
    f.add("plan_use", cells, 0, N_DECKS, "deck of the plan whose line covers the house, 0 = none")
    f.add("fences", streets * (houses - 1), 0, 1, "fence right of house k: street*(H-1) + k")
    f.add("parks", streets, 0, houses, "parks built per street")
    f.add("real_estate", MAX_ESTATE_SIZE, 0, 8, "boxes crossed per estate size 1..6")
    f.add("tracks", 4, 0, 255, "temps, bis, refusals, roundabouts crossed")
    f.add("own_plans", N_DECKS, 0, 1, "plans of decks 1..3 this seat has completed")
    f.add("own_plan_points", N_DECKS, 0, 255, "points those plans scored (0 until the turn settles)")
    f.add("offers", N_OFFERS * (2 + len(EFFECTS)), 0, N_NUMBERS,
          "per offer slot: present, number, one-hot effect (" + ", ".join(EFFECTS) + ")")
    f.add("hand", HAND * (2 + len(EFFECTS)), 0, N_NUMBERS,
          "solo: the revealed cards, expert: the hand; per card: present, number, one-hot effect")
    f.add("next_effects", N_DECKS * len(EFFECTS), 0, 1, "one-hot effects of the next turn's offers (when known)")
    f.add("plans", N_DECKS * n_plan_ids, 0, 1, "one-hot plan card of decks 1..3 (ids of GameData.all_plans())")
    f.add("plan_values", N_DECKS * 3, 0, 255, "per deck: high points, low points, high value still to be had")
    f.add("chosen_play", 4, -1, 255, "effect step: offer, street, house, number of this turn's play (-1 else)")
    f.add("claimed_now", N_DECKS, 0, 1, "plans step: plans already chosen this turn")
    f.add("public", n_players * 6, 0, 255,
          "per seat from this one onward: temps, refusals, plans 1..3 completed, houses built")
    f.add("board_marks", cells, 0, 3, "ice cream: cone 1 open, 2 sold, 3 lost; easter: eggs collected; else 0")
    f.add("board_spots", cells, 0, 9, "ice cream: scoops of the house's cone; easter: eggs printed there")
    f.add("trucks", streets * len(TRUCKS), 0, 1, "ice cream: one-hot truck direction per street (none, left, right)")
    f.add("truck_at", streets, -1, houses, "ice cream: house the street's truck stands at, -1 = at its start")
    return f.fields


class Layout:
    """The action blocks and observation fields of one game shape (street
    lengths, player count, plan cards): fixed for an environment's life."""

    def __init__(self, data: GameData, n_players: int) -> None:
        self.street_houses = tuple(data.street_houses)
        self.streets, self.houses = len(self.street_houses), max(self.street_houses)
        self.n_players = n_players
        self.plan_ids = {plan.id: i for i, plan in enumerate(data.all_plans())}
        self.blocks = {b.name: b for b in _blocks(self.streets, self.houses)}
        self.n_actions = sum(b.size for b in self.blocks.values())
        self.fields = {f.name: f for f in _fields(self.streets, self.houses, n_players, len(self.plan_ids))}
        self.n_observations = sum(f.size for f in self.fields.values())
        self.low = np.concatenate([np.full(f.size, f.low, np.float32) for f in self.fields.values()])
        self.high = np.concatenate([np.full(f.size, f.high, np.float32) for f in self.fields.values()])

    def at(self, block: str, offset: int = 0) -> int:
        """The action index `offset` within `block`."""
        return self.blocks[block].start + offset


_LAYOUTS: dict[tuple, Layout] = {}


def layout_for(data: GameData, n_players: int) -> Layout:
    """The layout of games on `data` with `n_players` seats (made once per shape)."""
    key = (tuple(data.street_houses), tuple(p.id for p in data.all_plans()), n_players)
    found = _LAYOUTS.get(key)
    if found is None:
        found = _LAYOUTS[key] = Layout(data, n_players)
    return found


@dataclass
class Decision:
    """One question to one seat, with the engine's legal answers.

    `options` are the engine's option objects; `actions[i]` is the action
    index of `options[i]`. `sheet` is what the observation shows (in the plans
    step: the seat's sheet with the plans chosen so far this turn)."""

    kind: str
    view: PlayerView
    options: list
    sheet: Sheet
    play: Play | None = None
    claimed: tuple[int, ...] = ()
    actions: list[int] = field(default_factory=list)
    observation: np.ndarray | None = None
    mask: np.ndarray | None = None

    def option(self, action: int) -> Any:
        """The engine option an action index names; ValueError when it names none."""
        try:
            return self.options[self.actions.index(int(action))]
        except (ValueError, TypeError, OverflowError):
            raise ValueError(f"action {action!r} is not legal in this {self.kind} step "
                             f"(legal: {sorted(self.actions)[:10]}{'...' if len(self.actions) > 10 else ''})") from None

    @property
    def seat(self) -> int:
        return self.view.seat


def encode(decision: Decision) -> Decision:
    """Fill in the decision's action indices, mask and observation."""
    view = decision.view
    layout = layout_for(view.variant.data, view.n_players)
    actions = [_action(layout, decision, option) for option in decision.options]
    if len(set(actions)) != len(actions):
        raise AssertionError(f"two options share an action in a {decision.kind} step")
    mask = np.zeros(layout.n_actions, np.int8)
    mask[actions] = 1
    decision.actions, decision.mask = actions, mask
    decision.observation = observe(layout, decision)
    return decision


# --------------------------------------------------------------------- actions
def _action(layout: Layout, decision: Decision, option: Any) -> int:
    kind = decision.kind
    if kind == "play":
        return layout.at("refuse") if option is None else _play_action(layout, decision.view.offers, option)
    if kind == "roundabout":
        if option is None:
            return layout.at("no_roundabout")
        return layout.at("roundabout", option[0] * layout.houses + option[1])
    if kind == "effect":
        return layout.at("skip_effect") if option is None else _effect_action(layout, option)
    if kind == "plans":
        if option is None:
            return layout.at("plans_done")
        same_deck = [o for o in decision.options if o is not None and o.deck == option.deck]
        return layout.at("claim", (option.deck - 1) * MAX_CLAIM_OPTIONS + same_deck.index(option))
    if kind == "pass":
        return layout.at("pass", option)
    if kind == "reshuffle":
        return layout.at("reshuffle", int(option))
    raise ValueError(f"unknown decision kind {kind!r}")


def _play_action(layout: Layout, offers: Sequence[Offer], play: Play) -> int:
    written = 1 + play.number - offers[play.offer].number - TEMP_MODIFIERS[0] if play.temp else 0
    cell = (play.offer * layout.streets + play.street) * layout.houses + play.house
    return layout.at("play", (cell * N_WRITTEN + written) * len(TRUCKS) + TRUCKS.index(play.truck))


def _effect_action(layout: Layout, effect: Effect) -> int:
    kind, H = effect.kind, layout.houses
    if kind == SURVEYOR:
        return layout.at("surveyor", effect.street * (H - 1) + effect.position)
    if kind == REAL_ESTATE:
        return layout.at("real_estate", effect.position - 1)
    if kind == LANDSCAPER:
        return layout.at("landscaper", effect.street)
    if kind == POOL:
        return layout.at("pool", effect.street * H + effect.position)
    if kind == BIS:
        return layout.at("bis", (effect.street * H + effect.position) * N_NUMBERS + effect.number)
    raise ValueError(f"effect {effect.kind!r} takes no decision")


# ---------------------------------------------------------------- observation
def observe(layout: Layout, decision: Decision) -> np.ndarray:
    """The observation vector of a decision (fields documented in `Layout.fields`),
    held to the field bounds (what-if data may go beyond the published tables)."""
    return np.clip(unbounded_observation(layout, decision), layout.low, layout.high)


def unbounded_observation(layout: Layout, decision: Decision) -> np.ndarray:
    """`observe` before the bounds are applied (the tests check that published
    games never need them)."""
    obs = np.zeros(layout.n_observations, np.float32)
    view, sheet = decision.view, decision.sheet

    def put(name: str, values: Any, offset: int = 0) -> None:
        start = layout.fields[name].start + offset
        values = np.asarray(values, np.float32).ravel()
        obs[start:start + len(values)] = values

    obs[layout.fields["step"].start + STEPS.index(decision.kind)] = 1
    put("turn", min(view.turn, 255))
    put("cards_left", min(view.cards_left, 255))
    _put_sheet(layout, sheet, put)
    for slot, offer in enumerate(view.offers[:N_OFFERS]):
        put("offers", _card(offer.number, offer.effect), slot * (2 + len(EFFECTS)))
    for slot, (number, effect) in enumerate((view.hand or [])[:HAND]):
        put("hand", _card(number, effect), slot * (2 + len(EFFECTS)))
    for deck, effect in enumerate((view.next_effects or ())[:N_DECKS]):
        put("next_effects", 1, deck * len(EFFECTS) + EFFECTS.index(effect))
    for deck, plan in enumerate(view.plans):
        put("plans", 1, deck * len(layout.plan_ids) + layout.plan_ids[plan.id])
        put("plan_values", [*plan.points, view.plan_first_turn[deck] is None], deck * 3)
    play = decision.play
    put("chosen_play", [-1] * 4 if play is None else [play.offer, play.street, play.house, play.number])
    for deck in decision.claimed:
        put("claimed_now", 1, deck - 1)
    _put_board(layout, sheet, put)
    for rank, seat in enumerate(_seats_from(view.seat, len(view.public))):
        p = view.public[seat]
        put("public", [min(p.temps, 255), p.refusals, *(t is not None for t in p.plans), p.built], rank * 6)
    return obs


def _seats_from(seat: int, n: int) -> list[int]:
    return [(seat + i) % n for i in range(n)]


def _card(number: int, effect: str) -> list[float]:
    return [1, number, *(float(effect == e) for e in EFFECTS)]


def _put_sheet(layout: Layout, sheet: Sheet, put) -> None:
    H = layout.houses
    for street, length in enumerate(layout.street_houses):
        row = street * H
        put("numbers", [-1] * H, row)
        put("numbers", [0 if n is None else n + 1 for n in sheet.numbers[street]], row)
        put("bis", sheet.is_bis[street], row)
        put("roundabouts", sheet.roundabouts[street], row)
        for house in sheet.data.pool_houses[street]:
            put("pool_spots", 1, row + house)
        put("pools", sheet.pools[street], row)
        put("plan_use", sheet.plan_use[street], row)
        put("fences", sheet.fences[street], street * (H - 1))
    put("parks", sheet.parks)
    put("real_estate", sheet.real_estate)
    put("tracks", [sheet.temps, sheet.n_bis, sheet.refusals, sheet.n_roundabouts])
    put("own_plans", [t is not None for t in sheet.plan_turns])
    put("own_plan_points", sheet.plan_points)


def _put_board(layout: Layout, sheet: Sheet, put) -> None:
    """Thematic board marks (Christmas lights follow from the numbers: none here)."""
    state, data, H = sheet.board, sheet.data, layout.houses
    for street, length in enumerate(layout.street_houses):
        row = street * H
        if isinstance(state, IceCreamState):
            put("board_marks", state.cones[street], row)
            put("board_spots", [data.cones[street].get(h, 0) for h in range(length)], row)
            put("trucks", 1, street * len(TRUCKS) + TRUCKS.index(state.direction[street]))
            position = state.position[street]
            put("truck_at", -1 if position is None else position, street)
        elif isinstance(state, EasterState):
            put("board_marks", [eggs or 0 for eggs in state.collected[street]], row)
            put("board_spots", [data.eggs[street].get(h, 0) for h in range(length)], row)


def waiting_observation(layout: Layout) -> np.ndarray:
    """The observation of a seat that has not been asked anything yet (all zeros:
    no step, an empty sheet)."""
    return np.zeros(layout.n_observations, np.float32)


def first_legal(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """A policy: the lowest legal action (a deterministic baseline and a test
    policy; for the play step that is the first offer's leftmost house)."""
    return int(np.flatnonzero(action_mask)[0])


__all__ = ["STEPS", "N_OFFERS", "Layout", "Block", "Field", "Decision", "encode", "layout_for", "first_legal"]
