"""Shake That City's page of the HTML replay viewer (`wtsim show --html`): each
seat's board grid after every round, computed by the game's own replay
(`boards_at`), the shaken pattern and each seat's move per round, and the
final scores, which :mod:`welcometo_sim.viewer` embeds in its page.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...viewer import opening_turn
from .data import LETTERS
from .game import GAME_NAME, boards_at, current_form, replay
from .scoring import CATEGORIES


def move_text(move: Any) -> str:
    """A recorded move in words: 'home at row 1, column 2' (with 'wild' when a wild cube was used)."""
    if move is None:
        return "placed nothing"
    building, wild, row, col = move
    return f"{building}{' (wild)' if wild else ''} at row {row}, column {col}"


def shake_view(record: Mapping, start: int | None = None) -> dict[str, Any]:
    """Everything the page draws for a Shake That City record, opening after
    round `start` (default: the last); the game's ReplayError (a ValueError)
    when the record does not replay."""
    result = replay(record)
    record = current_form(record)  # a record of the first form, read under the current envelope's names
    rounds = record["rounds"]
    states = [{"turn": number, "boards": [board.grid() for board in boards_at(record, number)]}
              for number in range(len(rounds) + 1)]
    return {
        "kind": GAME_NAME, "game": record.get("game"), "seed": str(record.get("seed")),
        "start": opening_turn(start, [state["turn"] for state in states]),
        "variant": {key: value for key, value in record["variant"].items() if key != "overrides"},
        "players": [{"name": player["name"], "strategy": player["strategy"]} for player in record["players"]],
        "letters": {letter: name for name, letter in LETTERS.items()},
        "states": states,
        "turns": [{"turn": entry["round"], "start": entry["start"], "pattern": entry["pattern"],
                   "moves": [move_text(m) for m in entry["moves"]]} for entry in rounds],
        "end": {"turn": len(rounds), "reasons": []},
        "categories": list(CATEGORIES),
        "final": [{"seat": seat, "rank": row["rank"], "score": dict(score)}
                  for seat, (row, score) in enumerate(zip(result.rows, record["scores"]))],
    }
