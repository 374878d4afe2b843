"""The result table of RECORDS.md §2: one row per player per game, kept as columns."""

from __future__ import annotations

from ..games import DEFAULT_GAME, game_module, known_games

# errors.csv (on_error: skip): one row per game a strategy broke, left out of the result table.
ERROR_COLUMNS = ["game", "seed", "seat", "player", "strategy", "turn", "message"]


def empty_columns(game: str = DEFAULT_GAME) -> dict[str, list]:
    """Empty result columns of `game`'s table (the default game's by default)."""
    return {name: [] for name in table_columns_of(game)}


def table_columns_of(game: str) -> list[str]:
    """The result columns of `game`: the game number, then the game's own row columns."""
    return ["game", *game_module(game).RESULT_COLUMNS]


def dtypes_of(game: str) -> dict[str, str]:
    """The pandas dtype of every result column of `game`."""
    return {"game": "int64", **game_module(game).COLUMN_DTYPES}


def categories_of(game: str) -> list[str]:
    """The score categories (columns that add up to `total`) of `game`."""
    return list(game_module(game).CATEGORIES)


def game_of_columns(names) -> str:
    """The game whose result table (or summary columns) has the columns `names`: the
    first registered game, the default one first, whose score categories are all
    there; the default game when none is (its columns then name what is missing)."""
    present = set(names)
    for game in known_games():
        if set(categories_of(game)) <= present:
            return game
    return DEFAULT_GAME


def other_game_rows(index: int, rows: list[dict], columns: dict[str, list]) -> None:
    """Append one finished game of another game (its result rows) to `columns`."""
    for row in rows:
        columns["game"].append(index)
        for name, value in row.items():
            columns[name].append(value)
