"""Strategies that answer every hook through the environments' encoding.

:class:`DecidingStrategy` turns each strategy hook into one or more
:class:`~.encoding.Decision` steps (a turn's plans one claim at a time), so
that an environment and an ordinary game ask exactly the same questions.
:class:`PolicyStrategy` answers them with a policy
``policy(observation, action_mask) -> action``, which seats an agent trained
in the environments in `wtsim run`, `compare` and the rest.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable, ClassVar

import numpy as np

from ....strategy import Strategy
from ..effects import Effect, Play
from ..game import PlayerView
from ..plans import PlanClaim, apply_claim, claim_options
from .encoding import Decision, encode

Policy = Callable[[np.ndarray, np.ndarray], Any]


class DecidingStrategy(Strategy):
    """A strategy whose hooks all go through `decide`, one decision at a time.

    Subclasses implement `decide(decision) -> option` (one of
    `decision.options`); the observation and mask are filled in first."""

    name: ClassVar[str] = "deciding"

    def __init__(self, rng: np.random.Generator, params: dict[str, Any] | None = None) -> None:
        super().__init__(rng, params)
        self._play: Play | None = None

    def decide(self, decision: Decision) -> Any:
        """The option to answer (one of `decision.options`)."""
        raise NotImplementedError

    def _ask(self, kind: str, view: PlayerView, options: list, **context: Any) -> Any:
        sheet = context.pop("sheet", None)
        decision = Decision(kind, view, options, view.sheet if sheet is None else sheet, **context)
        return self.decide(encode(decision))

    def choose_roundabout(self, view: PlayerView, houses: list[tuple[int, int] | None]) -> tuple[int, int] | None:
        self._play = None
        return self._ask("roundabout", view, houses)

    def choose_play(self, view: PlayerView, plays: list[Play | None]) -> Play | None:
        self._play = self._ask("play", view, plays)
        return self._play

    def choose_effect(self, view: PlayerView, options: list[Effect | None]) -> Effect | None:
        return self._ask("effect", view, options, play=self._play)

    def choose_pass(self, view: PlayerView, cards: list[int]) -> int:
        return self._ask("pass", view, cards)

    def choose_reshuffle(self, view: PlayerView) -> bool:
        return self._ask("reshuffle", view, [False, True])

    def choose_plans(self, view: PlayerView, claimable: list[PlanClaim]) -> list[PlanClaim]:
        """One step per plan: pick a claim or stop; after each pick the options
        are the engine's claims on the sheet with the picks applied."""
        sheet = view.sheet.copy()
        chosen: list[PlanClaim] = []
        options: list = list(claimable)
        while options:
            claim = self._ask("plans", view, [*options, None], sheet=sheet,
                              claimed=tuple(c.deck for c in chosen))
            if claim is None:
                break
            chosen.append(claim)
            apply_claim(sheet, view.plans, claim, view.turn)
            options = claim_options(sheet, view.plans)
        self._play = None
        return chosen


class PolicyStrategy(DecidingStrategy):
    """Plays a seat with a policy trained on the environments.

    Parameter `policy`: ``module:function`` or ``file.py:function`` naming
    ``policy(observation, action_mask) -> action``, called with the arrays an
    environment would give at the same decision. Or subclass and override
    `act` (the seat's random generator is `self.rng`). An action outside the
    mask stops the game with the usual strategy error."""

    name: ClassVar[str] = "policy"
    defaults: ClassVar[dict[str, Any]] = {"policy": "welcometo_sim.games.welcome_to.env.encoding:first_legal"}

    def __init__(self, rng: np.random.Generator, params: dict[str, Any] | None = None) -> None:
        super().__init__(rng, params)
        self.policy = load_policy(self.params["policy"])

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        load_policy(params["policy"])

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> Any:
        """The action for one decision (default: the `policy` parameter's answer)."""
        return self.policy(observation, action_mask)

    def decide(self, decision: Decision) -> Any:
        return decision.option(self.act(decision.observation, decision.mask))


_POLICIES: dict[str, Policy] = {}


def load_policy(ref: Any) -> Policy:
    """The callable `ref` names (``module:function`` or ``file.py:function``);
    ValueError in one line when it names none."""
    if not isinstance(ref, str) or ":" not in ref:
        raise ValueError(f"policy must be 'module:function' or 'file.py:function', got {ref!r}")
    found = _POLICIES.get(ref)
    if found is None:
        found = _POLICIES[ref] = _load(ref)
    return found


def _load(ref: str) -> Policy:
    module_part, _, name = ref.rpartition(":")
    try:
        if module_part.endswith(".py") or "/" in module_part:
            path = Path(module_part)
            if not path.is_file():
                raise ValueError(f"file {module_part!r} not found")
            spec = importlib.util.spec_from_file_location(f"welcometo_sim_policy_{abs(hash(str(path.resolve())))}",
                                                          path)
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            sys.modules[spec.name] = module  # type: ignore[union-attr]
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            module = importlib.import_module(module_part)
    except Exception as exc:
        raise ValueError(f"policy {ref!r}: cannot load {module_part!r}: {exc}") from None
    policy = getattr(module, name, None)
    if not callable(policy):
        raise ValueError(f"policy {ref!r}: {name!r} is not a function of {module_part!r}")
    return policy
