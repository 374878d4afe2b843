"""Records of any game in one records.jsonl: which game a record is of, its game
number in the run, the errors of a record that does not replay, and the checks
and text of `wtsim verify` and `wtsim show`.

Every game's record opens with the same envelope (RECORDS.md §1): `format`
(which game and which version of its record), `game` (the game number in the
run, written by the runner), `seed`, `variant` and `players` (one
``{seat, name, strategy}`` per seat); the game's own fields follow. A Welcome
To record's format is ``welcometo-sim/game/1``; another game's is
``welcometo-sim/<game>/game/<version>``. Records of Shake That City's first
form (``"game": "shake-that-city", "version": 1``, the game number in
`index`) are still read.
"""

from __future__ import annotations

from typing import Any, Mapping

from . import DEFAULT_GAME, GAMES, game_module

FORMAT_PREFIX = "welcometo-sim/"
FORMAT_KIND = "/game/"


class ReplayError(ValueError):
    """A record that does not replay to what it says. Every game's replay errors
    derive from it, so that the commands report any game's alike."""


class RecordFormatError(ReplayError):
    """A record not shaped like one of its game (a missing field, a value of
    the wrong type, another game or version): `wtsim verify` stops on it (exit
    2) instead of listing it among the records with problems. Every game's
    format errors derive from it."""


def format_game(record_format: Any) -> str | None:
    """The game a record `format` names (``welcometo-sim/<game>/game/<version>``),
    None when it names none (Welcome To's ``welcometo-sim/game/1``, or not a format)."""
    if not isinstance(record_format, str) or not record_format.startswith(FORMAT_PREFIX):
        return None
    name, kind, _version = record_format[len(FORMAT_PREFIX):].rpartition(FORMAT_KIND)
    return name if kind and name else None


def record_game(record: Any) -> str | None:
    """The registered game other than Welcome To a record is of, or None for a
    Welcome To record (and for anything that is no record of a known game)."""
    if not isinstance(record, Mapping):
        return None
    name = format_game(record.get("format"))
    if name is None:
        first_form = record.get("game")  # another game's first form named the game here
        name = first_form if isinstance(first_form, str) and "format" not in record else None
    return name if name in GAMES else None


def record_index(record: Any) -> Any:
    """The record's game number in its run (None when it has none)."""
    if not isinstance(record, Mapping):
        return None
    number = record.get("game")
    return record.get("index") if isinstance(number, str) else number


def numbered(record: Mapping, index: int) -> dict:
    """`record` with its game number in the run: `game`, right after `format`
    (where the runner puts it in every game's record)."""
    return {"format": record["format"], "game": index,
            **{key: value for key, value in record.items() if key not in ("format", "game")}}


def reading_game(record: Any) -> str:
    """The registered game that reads `record`: the one it is of, else the
    default game, whose record names no game (its format check then says what
    is wrong with anything that is no record)."""
    return record_game(record) or DEFAULT_GAME


def problems(record: Any) -> list[str]:
    """Why a record does not replay to what it says, one line each (empty: it
    does), as `wtsim verify` prints them: its game's `record_problems`, or for
    a game without, its replay's error. A record not shaped like one of its
    game raises its game's :class:`RecordFormatError`."""
    module = game_module(reading_game(record))
    listed = getattr(module, "record_problems", None)
    if listed is not None:
        return listed(record)
    try:
        module.replay(record)
    except RecordFormatError:
        raise
    except ValueError as exc:
        return [str(exc)]
    return []


def text(record: Mapping, turn: int | None = None) -> str:
    """What `wtsim show` prints of a record after `turn` (default: the end): its
    game's `record_text`, or for a game without, its `render`. The game's
    ReplayError (a ValueError) when the record does not replay."""
    module = game_module(reading_game(record))
    return getattr(module, "record_text", module.render)(record, turn)


def last_turn(record: Mapping) -> int | None:
    """The last turn (or round) a record holds, as its game's `record_turns`
    counts them: `wtsim show --turn` goes up to it. None when the game does not
    say or cannot tell."""
    count = getattr(game_module(reading_game(record)), "record_turns", None)
    return None if count is None else count(record)
