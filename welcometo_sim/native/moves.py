"""The native sheet's moves as the rules' own values: `Play` and `Effect`
(welcometo_sim/games/welcome_to/effects.py) made from the plain tuples
`welcometo_sim.native.sheet.NativeSheet` lists, in its order (which is the
Python functions' order).

The native sheet stays free of the rules' classes so that a native game can
work on plain values; whoever compares or mixes it with the Python
reference goes through here.
"""

from __future__ import annotations

from typing import Any

from ..games.welcome_to.effects import Effect, Offer, Play, effect
from ..games.welcome_to.sheet import Sheet
from . import native_module


def native_sheet_of(sheet: Sheet) -> Any:
    """The native copy of a Python sheet (base board only).

    Raises RuntimeError when the native sheet is not built (or pure Python
    is asked for), ValueError for a sheet it cannot hold (a thematic board).
    """
    module = native_module("sheet")
    if module is None:
        raise RuntimeError("the native sheet is not built (python benchmarks/build_native.py or pip install -e .)")
    return module.NativeSheet.from_sheet(sheet)


_PLAYS: dict[tuple, Play] = {}
"""The `Play` of each native play tuple, made once and shared (plays are
immutable values; looking one up is cheaper than making it)."""

_PLAYS_LIMIT = 1 << 16
"""At most this many memo entries; a full memo is emptied and refilled."""


def _new_play(fields: tuple) -> Play:
    if len(_PLAYS) >= _PLAYS_LIMIT:
        _PLAYS.clear()
    play = _PLAYS[fields] = tuple.__new__(Play, (*fields, None))
    return play


def legal_plays(native: Any, offers: list[Offer]) -> list[Play]:
    """`effects.legal_plays` of the native sheet, as `Play` values."""
    known = _PLAYS.get
    return [known(fields) or _new_play(fields) for fields in native.legal_plays(offers)]


def effect_options(native: Any, offer: Offer, play: Play) -> list[Effect]:
    """`effects.effect_options` of the native sheet, as the shared `Effect` values."""
    return [effect(*fields) for fields in native.effect_options(offer, play)]
