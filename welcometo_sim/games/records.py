"""Records of any game in one records.jsonl: which game a record is of, its game
number in the run, and the checks and text of `wtsim verify` and `wtsim show`.

A Welcome To record keeps its game number in `game`; another game's record names
the game in `game` (e.g. "shake-that-city") and keeps the number in `index`.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..rules.record_format import RecordFormatError
from . import GAMES, load_game


def record_game(record: Any) -> str | None:
    """The registered game a record is of, or None for a Welcome To record."""
    game = record.get("game") if isinstance(record, Mapping) else None
    return game if isinstance(game, str) and game in GAMES else None


def record_index(record: Any) -> Any:
    """The record's game number in its run (None when it has none)."""
    if not isinstance(record, Mapping):
        return None
    return record.get("index") if record_game(record) else record.get("game")


def _game(record: Mapping):
    params = record.get("params")
    return load_game(record_game(record), params if isinstance(params, Mapping) else None)


def problems(record: Mapping) -> list[str]:
    """Why a record of another game does not replay to what it says (empty: it
    does). A record not shaped like one of the game raises its RecordFormatError
    (a rules.record_format.RecordFormatError), as a malformed Welcome To record does."""
    try:
        _game(record).replay(record)
    except RecordFormatError:
        raise
    except ValueError as exc:
        return [str(exc)]
    return []


def render(record: Mapping, round_: int | None = None) -> str:
    """The boards of a record of another game after `round_` (default: the end);
    the game's ReplayError (a ValueError) when the record does not replay."""
    return _game(record).render(record, round_)
