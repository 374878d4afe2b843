"""`wtsim show` and `wtsim verify`: render and check the game records of a
records.jsonl file, each as its game reads it (welcometo_sim.games.records)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator

import click

from ..games import records as game_records
from ..games.records import RecordFormatError, record_index
from ..sim.results import OutputError
from .common import fail


MAX_RECORD_BYTES = 64 << 20
"""Bytes of one records line read at most (a long game's record takes some hundred KiB)."""


def _record_lines(path: str) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of every non-blank line of a records file. An
    unreadable file, a line that is not UTF-8 or not JSON is a one-line user error."""
    try:
        with open(path, "rb") as handle:
            line_no = 0
            while True:
                raw = handle.readline(MAX_RECORD_BYTES + 1)
                if not raw:
                    return
                line_no += 1
                if len(raw) > MAX_RECORD_BYTES:
                    fail(f"{path}:{line_no}: a line longer than {MAX_RECORD_BYTES >> 20} MiB is not a game record")
                if raw.strip():
                    yield line_no, _parse_line(raw, f"{path}:{line_no}")
    except OSError as exc:
        fail(f"{path}: cannot read: {exc.strerror or exc}")


def _parse_line(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        fail(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start + 1})")
    except json.JSONDecodeError as exc:
        fail(f"{where}: not valid JSON: {exc.msg} (column {exc.colno})")
    except RecursionError:
        fail(f"{where}: not valid JSON: nested too deeply")
    except ValueError as exc:  # e.g. an integer of thousands of digits
        fail(f"{where}: not valid JSON: {' '.join(str(exc).split())[:120]}")


def _game_label(record: Any) -> str:
    game = record_index(record)
    return f"game {game}" if isinstance(game, int) and not isinstance(game, bool) else "game ?"


def _read_record(path: str, game: int) -> tuple[int, dict]:
    """The record of `game` and its line number."""
    for line_no, record in _record_lines(path):
        if isinstance(record, dict) and record_index(record) == game:
            return line_no, record
    fail(f"{path}: no record of game {game}")
    raise AssertionError  # unreachable


@click.command()
@click.argument("records", type=click.Path(dir_okay=False))
@click.option("--game", "-g", type=int, required=True, help="Game index (the record's `game` field).")
@click.option("--turn", "-t", type=click.IntRange(min=0),
              help="Show the sheets after this turn, 0 to the game's last (default: the end).")
@click.option("--html", "as_html", is_flag=True,
              help="Write a self-contained HTML replay page (turn slider, arrow keys) instead of text.")
@click.option("--out", "-o", type=click.Path(dir_okay=False),
              help="With --html: the page's file (default: game-N.html next to RECORDS).")
def show(records: str, game: int, turn: int | None, as_html: bool, out: str | None) -> None:
    """Render the sheets of a recorded game as text, at its end or after a turn.

    With --html, write one HTML page of the whole game (opening after --turn,
    by default on the last turn) that draws every sheet turn by turn, and print its path.
    """
    if out is not None and not as_html:
        fail("--out goes with --html (the text goes to stdout)")
    line_no, record = _read_record(records, game)
    _check_turn(record, game, turn)
    if as_html:
        _show_html(records, line_no, game, record, turn, out)
        return
    try:
        click.echo(game_records.text(record, turn))
    except RecordFormatError as exc:
        fail(f"{records}:{line_no}: game {game}: malformed record: {exc}")
    except (ValueError, KeyError, TypeError, IndexError) as exc:  # the game's ReplayError, or a record it cannot read
        fail(f"{records}:{line_no}: game {game}: cannot be replayed: {exc}")


def _check_turn(record: dict, game: int, turn: int | None) -> None:
    """`show --turn` past the end of the game is one error line for every game
    (there is no board after it to show)."""
    last = game_records.last_turn(record)
    if turn is not None and last is not None and turn > last:
        fail(f"--turn {turn}: game {game} has turns 0 to {last}")


def _show_html(records: str, line_no: int, game: int, record: dict, turn: int | None, out: str | None) -> None:
    """`show --html`: the viewer page of a record, its path on stdout."""
    from ..viewer import write_html  # only this option needs the viewer (and the game's page data)

    target = Path(out) if out is not None else Path(records).parent / f"game-{game}.html"
    try:
        click.echo(write_html(record, target, turn))
    except OutputError as exc:
        fail(str(exc))
    except RecordFormatError as exc:
        fail(f"{records}:{line_no}: game {game}: malformed record: {exc}")
    except (ValueError, KeyError, TypeError, IndexError) as exc:  # the game's ReplayError, or a record it cannot read
        fail(f"{records}:{line_no}: game {game}: cannot be replayed: {exc}")


@click.command(name="verify")
@click.argument("records", type=click.Path(dir_okay=False))
def verify_cmd(records: str) -> None:
    """Replay every record of a records.jsonl file and check its final scores.

    Each record that disagrees with its replay gets one line per problem on
    stdout (FILE:LINE: game G: problem) and the exit code is 1. A line that is
    not a well-formed game record stops the check: one line on stderr, exit 2.
    """
    bad = checked = 0
    for line_no, record in _record_lines(records):
        try:
            problems = game_records.problems(record)
        except RecordFormatError as exc:
            fail(f"{records}:{line_no}: {_game_label(record)}: malformed record: {exc}")
        checked += 1
        for problem in problems:
            click.echo(f"{records}:{line_no}: {_game_label(record)}: {problem}")
        bad += bool(problems)
    click.echo(f"{checked} records checked, {bad} with problems")
    if bad:
        sys.exit(1)
