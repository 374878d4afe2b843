"""A Welcome To record as `wtsim show` shows it: as text (:func:`record_text`),
and as the HTML replay viewer's page (`show --html`, :func:`game_view`):
every sheet after every turn, the turns' offers and moves, the plans and the
final breakdown, which :mod:`welcometo_sim.viewer` embeds in its page.

Every state is computed by replaying the record with
:func:`~welcometo_sim.games.welcome_to.record_replay.replay` up to each turn:
the page's script only draws, so what it shows is what the replay says, never
a second implementation of the rules.
"""

from __future__ import annotations

import textwrap
from typing import Any, Mapping

from ...analysis.formatting import paragraph_width
from ...viewer import ViewerError, opening_turn
from .boards import joined
from .data import GameData
from .record_replay import ReplayState, final_block, replay, seat_offers
from .scoring import SCORE_FIELDS, temp_points
from .sheet import Sheet, render_sheet


def record_text(record: dict, turn: int | None = None) -> str:
    """What `wtsim show` prints of a record: the plans and every seat's sheet
    after turn `turn` (default: the end), then at the end why the game ended
    and each seat's rank and score. The replay's RecordFormatError or
    ReplayError when the record does not replay that far."""
    state = replay(record, until_turn=turn)
    plans = ", ".join(f"n°{p.deck} {p.id} {p.points[0]}/{p.points[1]}" for p in state.plans)
    lines = [_fitted(f"game {record['game']} (seed {record.get('seed')}), turn {state.turn}; plans: {plans}")]
    for seat, sheet in enumerate(state.sheets):
        player = record["players"][seat]
        lines += [f"\nseat {seat}: {player['name']} ({player['strategy']})", render_sheet(sheet)]
    if turn is None or turn >= record["end"]["turn"]:
        lines.append(f"\nend after turn {record['end']['turn']}: {', '.join(record['end']['reasons'])}")
        for entry in record["final"]:
            parts = " ".join(f"{k}={v}" for k, v in entry["score"].items() if k != "total")
            lines.append(_fitted(f"seat {entry['seat']}: rank {entry['rank']}, total {entry['score']['total']} "
                                 f"({parts})"))
    return "\n".join(lines)


def _fitted(line: str) -> str:
    """A long line wrapped at the output's width (at most 100), continued indented."""
    return textwrap.fill(line, paragraph_width(), subsequent_indent="    ", break_long_words=False,
                         break_on_hyphens=False)


def board_view(sheet: Sheet) -> dict[str, Any]:
    """What a thematic board adds to a sheet's drawing, house by house: the
    cones and trucks (ice cream), the lit pairs of houses (Christmas), the eggs
    collected (Easter); empty on the base board."""
    state = sheet.board
    if state is None:
        return {}
    if hasattr(state, "cones"):
        return {"cones": [row[:] for row in state.cones], "trucks": state.direction[:],
                "truck_at": state.position[:], "finished": state.finished[:]}
    if hasattr(state, "collected"):
        return {"eggs": [row[:] for row in state.collected], "egg_total": state.total(),
                "egg_points": state.points(sheet)}
    return {"lights": [[joined(sheet, street, slot) for slot in range(len(row) - 1)]
                       for street, row in enumerate(sheet.numbers)],
            "longest": state.record(sheet)["longest"]}


def sheet_view(sheet: Sheet) -> dict[str, Any]:
    """One sheet as the page draws it: the record's `sheet` block (RECORDS.md
    §1) plus the plan lines over the houses, the completed estates
    (street, first house, size) and the board's marks."""
    view = sheet.to_record()
    view.pop("board", None)
    view["plan_use"] = [row[:] for row in sheet.plan_use]
    view["plan_turns"] = sheet.plan_turns[:]
    view["plan_points"] = sheet.plan_points[:]
    view["estates"] = [list(estate) for estate in sheet.completed_estates()]
    view["board"] = board_view(sheet)
    return view


def state_view(state: ReplayState) -> dict[str, Any]:
    """Every sheet and the races (plans, temps, ice-cream streets) after a turn."""
    temps = temp_points([s.temps for s in state.sheets], state.variant.data.temp_rank_points,
                        state.variant.solo)
    return {"turn": state.turn, "sheets": [sheet_view(s) for s in state.sheets],
            "plan_first": state.first_turn[:], "street_race": state.race[:], "temp_points": temps}


def _effect_text(effect: Mapping | None) -> str:
    if effect is None:
        return "no effect"
    kind = effect["kind"]
    if kind == "surveyor":
        return f"surveyor: fence on street {effect['street']} slot {effect['fence']}"
    if kind == "real_estate":
        return f"real estate: estates of {effect['size']}"
    if kind == "bis":
        return f"bis: {effect['number']}b on street {effect['street']} house {effect['house']}"
    return kind.replace("_", " ")


def action_text(action: Mapping, offers: list) -> str:
    """One seat's move in words, e.g. 'took 7 + surveyor: wrote 7 on street 1
    house 4; surveyor: fence on street 1 slot 4'."""
    parts = []
    roundabout = action.get("roundabout")
    if roundabout:
        parts.append(f"roundabout on street {roundabout['street']} house {roundabout['house']}")
    if action["refusal"]:
        parts.append("refused the permit (no number fitted)")
    else:
        offer = next(o for o in offers
                     if (o.number_from, o.effect_from) == (action["number_from"], action["effect_from"]))
        written = action["written"]
        parts.append(f"took {offer.number} + {offer.effect.replace('_', ' ')}: wrote {written['number']} "
                     f"on street {written['street']} house {written['house']}")
        if action.get("truck"):
            parts.append(f"truck drives {action['truck']}")
        parts.append(_effect_text(action["effect"]))
    for plan in action["plans"]:
        parts.append(f"completed plan n°{plan['deck']}")
    if action.get("reshuffle"):
        parts.append("asked for the plan reshuffle")
    return "; ".join(parts)


def turn_view(turn: Mapping, state: ReplayState) -> dict[str, Any]:
    """A recorded turn as the page lists it: events, the offers (or each
    seat's hand), and what each seat chose, with the chosen cards' indices."""
    view: dict[str, Any] = {"turn": turn["turn"], "events": list(turn["events"])}
    if "hands" in turn:
        view["hands"] = turn["hands"]
    else:
        view["offers"] = turn["offers"]
    view["actions"] = [
        {"seat": action["seat"], "refusal": action["refusal"], "number_from": action["number_from"],
         "effect_from": action["effect_from"], "passed": action.get("passed"),
         "text": action_text(action, seat_offers(turn, action["seat"], state.variant))}
        for action in turn["actions"]
    ]
    return view


def _layout(data: GameData) -> dict[str, Any]:
    """The printed parts of the sheet: street lengths, pool sites and every track."""
    return {
        "streets": list(data.street_houses), "pool_houses": [list(p) for p in data.pool_houses],
        "park_tracks": [list(t) for t in data.park_tracks], "pool_track": list(data.pool_track),
        "bis_track": list(data.bis_track), "refusal_track": list(data.refusal_track),
        "roundabout_track": list(data.roundabout_track),
        "real_estate_tracks": [list(t) for t in data.real_estate_tracks],
        "temp_boxes": data.temp_boxes, "temp_rank_points": list(data.temp_rank_points),
        "cones": [[row.get(h, 0) for h in range(n)] for row, n in zip(data.cones, data.street_houses)],
        "eggs": [[row.get(h, 0) for h in range(n)] for row, n in zip(data.eggs, data.street_houses)],
        "egg_holes": {str(k): v for k, v in data.egg_holes.items()},
        "egg_scores": [list(s) for s in data.egg_scores],
    }


def game_view(record: Mapping, start: int | None = None) -> dict[str, Any]:
    """Everything the page draws, computed by replaying the record: the state
    after each turn (index 0: the empty sheets), the turns, the plans, the
    players and the final breakdown; the page opens after turn `start`
    (default: the last turn, where the sheets and the final breakdown agree). Raises ViewerError for a record of
    another game, and the replay's RecordFormatError or ReplayError for a
    record that does not replay."""
    game = record.get("game") if isinstance(record, Mapping) else None
    if not isinstance(game, int) or isinstance(game, bool):
        raise ViewerError(f"the HTML viewer draws Welcome To records only, not a {game!r} record")
    record = dict(record)
    turns = [turn["turn"] for turn in record["turns"]]
    states = [replay(record, until_turn=turn) for turn in [0] + turns]
    final = states[-1]
    return {
        "kind": "welcome-to", "game": game, "seed": str(record.get("seed")),
        "start": opening_turn(start, turns), "variant": dict(record["variant"]),
        "players": [dict(p) for p in record["players"]],
        "plans": [{"deck": p.deck, "id": p.id, "points": list(p.points)} for p in final.plans],
        "layout": _layout(final.variant.data),
        "states": [state_view(s) for s in states],
        "turns": [turn_view(turn, state) for turn, state in zip(record["turns"], states)],
        "end": dict(record["end"]), "categories": list(SCORE_FIELDS),
        "final": [{"seat": e["seat"], "rank": e["rank"], "score": e["score"]} for e in final_block(final)],
    }
