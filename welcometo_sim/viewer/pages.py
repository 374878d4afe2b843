"""Viewer pages a run's report links to: the games with the highest and the
lowest score, drawn from the run's records.jsonl when it has one.

A report should open straight onto the games worth a look; the extremes of
the score distribution are the ones a reader asks about first (how did that
player reach 140? why did that one end at -5?).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from ..games.records import record_index
from . import write_html

RECORDS_FILE = "records.jsonl"
_GAME_FIELD = re.compile(r'"game"\s*:\s*(\d+)\s*[,}]')


@dataclass
class Page:
    """One viewer page of a report: what it shows, its file name, and how to write it (to a path)."""

    label: str
    file_name: str
    write: Callable[[Path], Any]


def extreme_games(frame: pd.DataFrame) -> list[tuple[str, int]]:
    """(label, game) for the game holding the highest total of the table and the
    one holding the lowest; one entry when both are the same game."""
    if frame.empty or not {"game", "seat", "total"} <= set(frame.columns):
        return []
    picks = []
    for word, row in (("highest", frame.loc[frame["total"].idxmax()]),
                      ("lowest", frame.loc[frame["total"].idxmin()])):
        picks.append((f"{word} score: game {int(row['game'])}, seat {int(row['seat'])} "
                      f"({row.get('player', '?')}) with {int(row['total'])}", int(row["game"])))
    if picks[0][1] == picks[1][1]:
        return [(picks[0][0] + "; " + picks[1][0], picks[0][1])]
    return picks


def _records_of(path: Path, games: set[int]) -> dict[int, dict]:
    """The records of these games in a records.jsonl, of any game (a line that
    is not a record is passed over: the report links what it can)."""
    found: dict[int, dict] = {}
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            head = _GAME_FIELD.search(line, 0, 200)  # Welcome To records have `game` near the start
            if head is not None and int(head.group(1)) not in games:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            game = record_index(record)
            if isinstance(game, int) and game in games and game not in found:
                found[game] = record
                if len(found) == len(games):
                    break
    return found


def replay_pages(folder: Path, frame: pd.DataFrame) -> list[Page]:
    """The viewer pages of a run folder's extreme games (none without records.jsonl)."""
    path = folder / RECORDS_FILE
    picks = extreme_games(frame)
    if not picks or not path.is_file():
        return []
    records = _records_of(path, {game for _, game in picks})
    return [Page(label, f"game-{game}.html", lambda target, record=records[game]: write_html(record, target))
            for label, game in picks if game in records]
