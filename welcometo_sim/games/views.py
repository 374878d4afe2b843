"""How every game seals what a seat's view shows (`read_only`), in a module
of its own so that the compiled core compiles it: a Python strategy's every
decision goes through it."""

from __future__ import annotations

import copy
import dataclasses
from types import MappingProxyType
from typing import Any


def read_only(value: Any) -> Any:
    """`value` with every dict a read-only mapping, every list a tuple and every
    dataclass record a copy, down to the leaves; the very object when nothing
    in it can be changed. Every game seals what a seat's view shows with it,
    so that a strategy cannot change the game through its view."""
    if isinstance(value, dict):
        return MappingProxyType({key: read_only(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple([read_only(item) for item in value])
    if type(value) is tuple:
        items = [read_only(item) for item in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return tuple(items)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return copy.copy(value)  # a frozen record (a plan card) the strategies get their own of
    return value
