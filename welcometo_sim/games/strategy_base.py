"""The one base class of every game's strategies, and the checking of their parameters.

A strategy object plays one seat of one game. It is made with the seat's own
``numpy.random.Generator`` and its parameters, ``Strategy(rng, params)``, in
every game: the generator is a child of the game seed (see
`welcometo_sim.games.seeding.seat_generators`), so results never depend on
how games are spread over workers. Each game's strategy class adds that
game's hooks to :class:`BaseStrategy` (Welcome To: `welcometo_sim.strategy.Strategy`;
Shake That City: `welcometo_sim.games.shake_that_city.Strategy`).

Two compatibility paths, for code written against Shake That City's first
strategy API, where the generator came after construction:

- ``Strategy(params)`` (a mapping first) still builds the strategy, with a
  DeprecationWarning; its generator is a placeholder until the game binds it;
- :meth:`BaseStrategy.bind` gives an object made before the game (a strategy
  instance passed as a seat) the seat's generator. A game calls it only for
  such objects; the ones it builds itself get the generator in `__init__`.

Parameters are the class's `defaults` overlaid with the given ones (nested
mappings for grouped weights): unknown keys, wrong types and values
`check_params` refuses raise :class:`StrategyLoadError` in one line.
"""

from __future__ import annotations

import copy
import sys
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ..messages import shown

__all__ = ["BaseStrategy", "StrategyLoadError", "resolve_params"]


class StrategyLoadError(ValueError):
    """A strategy name, path or parameter that cannot be used."""


class BaseStrategy:
    """Base class of every game's strategies: the seat's generator and the parameters.

    Class attributes: `name` (the registered id) and `defaults` (parameters
    and their default values; YAML and the command line may set only these).
    Instance attributes: `rng` (the seat's generator), `params` (the resolved
    parameters, the strategy's own copy) and `seat` (set by `bind`, else None).
    """

    name: ClassVar[str] = "strategy"
    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, rng: np.random.Generator | None = None, params: Mapping[str, Any] | None = None) -> None:
        if rng is not None and type(rng) is not np.random.Generator and isinstance(rng, Mapping) and params is None:
            # Shake That City's first API: Strategy(params)
            warnings.warn(f"{type(self).__name__}(params) is deprecated: pass the seat's generator first, "
                          f"{type(self).__name__}(rng, params)", DeprecationWarning,
                          stacklevel=_construction_site(self))
            rng, params = None, rng
        self.rng = _placeholder_generator() if rng is None else rng
        self.params = resolve_params(type(self), _plain(params))
        self.seat: int | None = None

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        """Raise ValueError, in one line, when parameters of the right types still
        cannot be played with (e.g. a search width of 0), so that a config is
        rejected when it is loaded rather than in the middle of a run. Default: any."""

    def bind(self, seat: int, rng: np.random.Generator) -> None:
        """Compatibility path for an object made before its game (a strategy
        instance given as a seat): the game hands it the seat and that seat's
        generator before the first decision. Override only to pass the
        generator on (e.g. to an inner strategy), calling this one too."""
        self.seat, self.rng = seat, rng


def _construction_site(strategy: BaseStrategy) -> int:
    """The warning stack level of the code that made `strategy`: past this
    class's `__init__` and those of its subclasses, so that the warning names
    the caller's line (and Python shows it there by default)."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is strategy:
        level, frame = level + 1, frame.f_back
    return level


def _plain(params: Any) -> Any:
    """The parameters as a dict when given as another mapping (anything else
    is left for `resolve_params` to refuse)."""
    if not params:
        return {}
    return dict(params) if isinstance(params, Mapping) and not isinstance(params, dict) else params


def _placeholder_generator() -> np.random.Generator:
    """The generator of a strategy made without one (seeded 0, as Shake That
    City's first API had it), until a game binds the seat's."""
    return np.random.default_rng(0)


# ------------------------------------------------------------------ parameters
_RESOLVED: dict[tuple[type, str], dict[str, Any]] = {}
_RESOLVED_LIMIT = 256


def resolve_params(cls: type, params: dict[str, Any]) -> dict[str, Any]:
    """Defaults of `cls` overlaid with `params`; unknown keys and wrong types raise.

    Strategies are built anew for every game, so each (class, parameters)
    pair is resolved once and every call gets its own copy of the result: a
    strategy may change its `params` without touching the next game's. The
    parameters' repr is the key (it tells 1, 1.0 and True apart)."""
    key = (cls, repr(params))
    resolved = _RESOLVED.get(key)
    if resolved is None:
        resolved = _resolve(cls, params)
        if len(_RESOLVED) >= _RESOLVED_LIMIT:
            _RESOLVED.clear()
        _RESOLVED[key] = resolved
    return _copy_tree(resolved)


def _copy_tree(value: Any) -> Any:
    """A deep copy of a parameter tree, several times cheaper than copy.deepcopy
    for the dicts, lists and scalars parameters are made of."""
    if isinstance(value, dict):
        return {key: _copy_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_tree(item) for item in value]
    if value is None or isinstance(value, (str, int, float)):
        return value
    return copy.deepcopy(value)


def _resolve(cls: type, params: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(cls.defaults)
    _overlay(merged, params, cls.name, "")
    try:
        cls.check_params(merged)
    except ValueError as exc:
        raise StrategyLoadError(f"strategy {shown(cls.name)}: {exc}") from None
    return merged


def _overlay(target: dict, updates: dict, strategy: str, prefix: str) -> None:
    if not isinstance(updates, dict):
        raise StrategyLoadError(f"strategy {shown(strategy)}: parameters{prefix and ' ' + prefix} must be a mapping")
    for key, value in updates.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in target:
            known = ", ".join(sorted(target)) or "none"
            raise StrategyLoadError(f"strategy {shown(strategy)}: unknown parameter {shown(path)} (known: {known})")
        current = target[key]
        if isinstance(current, dict):
            _overlay(current, value, strategy, path)
        elif isinstance(current, bool):
            if not isinstance(value, bool):
                raise StrategyLoadError(f"strategy {shown(strategy)}: parameter {shown(path)} must be true or false")
            target[key] = value
        elif isinstance(current, (int, float)):
            target[key] = _number(value, current, strategy, path)
        else:
            target[key] = value


def _number(value: Any, default: int | float, strategy: str, path: str) -> int | float:
    """A numeric parameter: an integer where the default is one, a finite float otherwise."""
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, int):
        if numeric and isinstance(value, int):
            return value
        kind = "an integer"
    else:
        if numeric and abs(value) <= sys.float_info.max:  # finite, and float() cannot overflow
            return float(value)
        kind = "finite"
    raise StrategyLoadError(f"strategy {shown(strategy)}: parameter {shown(path)} must be a number ({kind}), got {shown(value)}")
