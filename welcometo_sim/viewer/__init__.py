"""An HTML replay viewer of one recorded game (`wtsim show --html`), of any
registered game.

The page is one self-contained file (inline CSS and JavaScript, no network): it
draws every player's sheet or board as the game shows it, with a turn slider
and arrow keys to step through the game. What it draws is the record's game's
page data (`Capabilities.viewer`: Welcome To's sheets turn by turn, Shake That
City's boards round by round, a kit game's text after every decision),
computed by the game's own replay and embedded as JSON: the script only draws,
so what the page shows is what the replay says, never a second implementation
of the rules.
"""

from __future__ import annotations

import json
from importlib import import_module
from importlib.resources import files
from pathlib import Path
from typing import Any, Mapping

from ..games import capabilities
from ..games.records import reading_game
from ..sim.results import write_atomically

DATA_MARK = "/*GAME-DATA*/null"
"""Where the template takes the game's JSON."""


class ViewerError(ValueError):
    """A record a game's page cannot draw (e.g. one of another game)."""


def page_view(record: Mapping, start: int | None = None) -> dict[str, Any]:
    """What the page draws, opening after turn `start` (default: the last), as
    the record's game builds it (its `Capabilities.viewer`, ``module:function``)."""
    module, _, function = capabilities(reading_game(record)).viewer.partition(":")
    return getattr(import_module(module), function)(record, start)


def opening_turn(start: int | None, turns: list[int]) -> int:
    """The turn a page opens after: `start` when given, else the game's last
    turn, so that a page first shows the finished sheets beside their final
    breakdown rather than empty sheets beside the final score."""
    return start if start is not None else (turns[-1] if turns else 0)


def _template() -> str:
    return files(__package__).joinpath("viewer.html").read_text(encoding="utf-8")


def page_json(view: Mapping) -> str:
    """The game's JSON as it can stand inside a <script> element: every '<'
    escaped, so no '</script>' in a player's name can end it."""
    return json.dumps(view, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def render_html(record: Mapping, start: int | None = None) -> str:
    """The self-contained viewer page of one recorded game, opening after turn
    `start` (see :func:`page_view`)."""
    view = page_view(record, start)
    title = f"welcometo-sim: game {view['game']} (seed {view['seed']})"
    page = _template().replace("<title></title>", f"<title>{_escape(title)}</title>")
    return page.replace(DATA_MARK, page_json(view))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_html(record: Mapping, path: str | Path, start: int | None = None) -> Path:
    """Write the viewer page of a record to `path` (made atomically: a failed
    write leaves no partial page) and return the path."""
    target = Path(path)
    text = render_html(record, start)
    write_atomically(target, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return target
