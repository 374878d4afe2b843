"""The strategy API: the base class, parameters, and loading strategies by name.

A strategy answers a few hooks, each given a :class:`PlayerView` and the list
of legal choices; it returns one of them. The view, its sheet and the lists
are the strategy's own copies: changing them changes nothing in the game. The
game checks every answer by value against the options it kept to itself
(exact types, plain field values) and plays its own option. One strategy object plays one seat of one game, and gets its own
``numpy.random.Generator`` derived from the game seed, so results never
depend on how games are spread over workers.

Strategies are named by
- a registered name: ``greedy`` (built-ins and the entry-point group
  ``welcometo_sim.strategies`` of installed packages), optionally with
  parameters ``greedy:weights.flexibility=2,weights.plans=0.5``;
- a module path: ``mypkg.bots:Cautious``;
- a file path: ``strategies/cautious.py:Cautious``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np

from .compiled_core import installed_name
from .config_files import merge_params
from .games.strategy_base import BaseStrategy, StrategyLoadError, resolve_params
from .messages import clipped, shown
from .player_entries import dotted_to_nested, parse_inline_params, split_reference  # noqa: F401 - importable from here as before
from .games.welcome_to.data import EFFECTS, PlanSpec
from .games.welcome_to.effects import (Effect, Offer, Play, apply_effect, apply_play, effect_options, legal_plays,
                                       must_play)
from .games.welcome_to.game import PlayerView, PublicSeat
from .games.welcome_to.plans import PlanClaim, apply_claim, claim_is_valid, claim_options
from .games.welcome_to.sheet import Sheet
from .strategies import BUILTIN

__all__ = [
    "Strategy", "StrategySpec", "StrategyLoadError", "PlayerView", "PublicSeat", "Play", "Effect",
    "Offer", "PlanClaim", "PlanSpec", "Sheet", "EFFECTS", "apply_play", "apply_effect",
    "effect_options", "legal_plays", "must_play", "claim_options", "claim_is_valid", "load_strategy", "parse_strategy", "builtin_strategies",
]

ENTRY_POINT_GROUP = "welcometo_sim.strategies"


class Strategy(BaseStrategy):
    """Base class of every Welcome To strategy. Override `choose_play` at least.

    Made as ``Strategy(rng, params)``, the seat's generator first (see
    :class:`~welcometo_sim.games.strategy_base.BaseStrategy`, the base of every
    game's strategies): `self.rng` is the seat's generator, `self.params` the
    class's `defaults` overlaid with the given parameters. Class attributes:
    `name` (the registered id) and `defaults` (parameters and their default
    values; YAML and the command line may set only these).
    """

    name: ClassVar[str] = "strategy"
    defaults: ClassVar[dict[str, Any]] = {}

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        """Pick the play to make. `None` appears in `plays` only when a permit
        refusal is allowed instead (all plays need the temp agency)."""
        raise NotImplementedError

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        """Pick a use of the chosen offer's effect, or None to skip it. Default: skip."""
        return None

    def choose_plans(self, view: PlayerView, claimable: list[PlanClaim]) -> list[PlanClaim]:
        """Plans to complete now. Default: every plan it can, in deck order, each
        with the first estate choice that does not clash with the ones before."""
        return complete_all(view, claimable)

    def choose_reshuffle(self, view: PlayerView) -> bool:
        """Whether to ask for the construction-card reshuffle (first plan of the game)."""
        return False

    def choose_roundabout(self, view: PlayerView, houses: list[tuple[int, int] | None]) -> tuple[int, int] | None:
        """Advanced variant, before the play: a (street, house) from `houses` to
        turn into a roundabout, or None (the last option) to build none. Default: none."""
        return None

    def choose_pass(self, view: PlayerView, cards: list[int]) -> int:
        """Expert rules, after a refusal only: the index in `view.hand` of the card
        passed to the next seat (after a play it is the unused card). Default: the first."""
        return cards[0]


def complete_all(view: PlayerView, claimable: Sequence[PlanClaim]) -> list[PlanClaim]:
    """As many plans as can be completed together, the most valuable first (its
    value now: high while nobody has it, else low). A claim is kept only if it
    is still possible after the ones before it: two plans may not share an
    estate, and a plan that uses whole streets or street ends takes their houses."""
    def current_value(claim: PlanClaim) -> int:
        spec = view.plans[claim.deck - 1]
        return spec.points[0] if view.plan_first_turn[claim.deck - 1] is None else spec.points[1]

    sheet = view.sheet.copy()
    chosen: list[PlanClaim] = []
    for claim in sorted(claimable, key=current_value, reverse=True):
        if any(c.deck == claim.deck for c in chosen):
            continue
        if claim_is_valid(sheet, view.plans, claim):
            apply_claim(sheet, view.plans, claim, view.turn)
            chosen.append(claim)
    return chosen


# --------------------------------------------------------------------- loading
def builtin_strategies() -> dict[str, str]:
    """Registered name -> 'module:Class' for built-ins and installed entry points."""
    found = dict(BUILTIN)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.value)
    return found


_CLASS_CACHE: dict[str, type] = {}


def load_strategy(ref: str) -> type:
    """The strategy class a reference names: registered name, 'module:Class' or 'file.py:Class'."""
    cls = _CLASS_CACHE.get(ref)
    if cls is None:
        cls = _load_uncached(ref)
        _CLASS_CACHE[ref] = cls
    return cls


def _load_uncached(ref: str) -> type:
    registry = builtin_strategies()
    if ref in registry:
        return _load_uncached(registry[ref])
    module_part, sep, class_name = ref.rpartition(":")
    if not sep or not module_part or not class_name:
        known = ", ".join(sorted(registry))
        raise StrategyLoadError(f"unknown strategy {shown(ref)} (known: {known}; or module:Class, file.py:Class)")
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        module = _module_from_file(Path(module_part), ref)
    else:
        try:
            module = _import_strategy_module(module_part)
        except Exception as exc:
            raise StrategyLoadError(f"strategy {shown(ref)}: cannot import {shown(module_part)}: {clipped(exc)}") from None
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise StrategyLoadError(f"strategy {shown(ref)}: {shown(class_name)} is not a Strategy subclass in {shown(module_part)}")
    return cls


def _import_strategy_module(name: str):
    """The module `name`; `strategies.x` (the built-ins' repository path,
    which configs name) is the installed `welcometo_sim.strategies.x` where
    no top-level `strategies` package is on the path, as in an install."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        installed = installed_name(name)
        if installed is None or exc.name != name.split(".")[0]:
            raise
        return importlib.import_module(installed)


def _module_from_file(path: Path, ref: str):
    try:
        found = path.is_file()
    except (OSError, ValueError) as exc:  # a name too long, or with a NUL byte
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a file name"
        raise StrategyLoadError(f"strategy {shown(ref)}: file {shown(str(path))}: {reason}") from None
    if not found:
        raise StrategyLoadError(f"strategy {shown(ref)}: file {shown(str(path))} not found")
    name = f"welcometo_sim_user_{abs(hash(str(path.resolve())))}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except Exception as exc:
        del sys.modules[name]
        raise StrategyLoadError(f"strategy {shown(ref)}: error while loading {shown(str(path))}: {clipped(exc)}") from None
    return module


@dataclass(frozen=True)
class StrategySpec:
    """A strategy reference plus its parameters: picklable, so worker processes
    resolve the class themselves (file-loaded strategies included)."""

    ref: str
    params: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def id(self) -> str:
        """The strategy id written to result tables: the name or path as given."""
        return self.ref

    def validate(self) -> None:
        """Load the class and check the parameters now, not in a worker."""
        resolve_params(load_strategy(self.ref), self.params)

    def __call__(self, rng: np.random.Generator) -> Strategy:
        return load_strategy(self.ref)(rng, self.params)


def parse_strategy(text: str, params: dict[str, Any] | None = None) -> StrategySpec:
    """'greedy', 'greedy:weights.x=2', 'pkg.mod:Class' or 'file.py:Class' -> StrategySpec."""
    ref, inline = split_reference(text)
    spec = StrategySpec(ref, merge_params(dict(params or {}), inline))
    spec.validate()
    return spec
