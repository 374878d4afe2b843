"""What a game built on its steppable State gets without writing it.

A new game writes its rules as a :class:`~welcometo_sim.games.contract.State`
and its strategies on the one strategy base (`choose(view, options)`), then
describes itself with a :class:`StateGame`; `StateGame.exports()` gives every
name the game registry asks of a game module (`load_rules`, `play_game`,
`replay`, `render`, `new_state`, the result columns, `CAPABILITIES`, ...), so
that run, compare, summarize, verify, show, tune and sweep play it with no
change to the machinery. A game may still write any of them itself (both
built-in games do, for speed and for their richer records).

The kit's record (envelope of RECORDS.md §1, format
``welcometo-sim/<game>/game/<version>``) keeps every seat decision as
``[seat, option index]`` in the order asked, and the final scores; chance is
the game's own generator, so `replay` plays the same moves from the seed and
checks that every index is legal and the scores are the ones written.
"""

from __future__ import annotations

import json

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd

from .records import RecordFormatError, ReplayError
from .seeding import seat_generators
from ..sim.frames import to_frame
from ..sim.runner import run_chunks
from . import Capabilities, GameRefusal, load_game
from .config import parse_game, strategy_lookup
from ..player_entries import parse_player_entries
from .contract import CHANCE, State, StrategyError
from .objectives import Objective, Points, merge_overrides
from .strategy_base import BaseStrategy

KIT_COLUMNS = ("seed", "seat", "player", "strategy", "n_players", "total", "rank", "won")
"""The result columns every kit game has, before its score categories."""


class KitReplayError(ReplayError):
    """A record that does not replay to what it says (its first wrong decision or score)."""


class KitResult(NamedTuple):
    """One finished game: a row per seat and the record."""

    rows: list[dict]
    record: dict


class RandomChoice(BaseStrategy):
    """Any kit game's baseline: every option equally likely (the seat's own generator)."""

    name = "random"

    def choose(self, view: Any, options: Sequence[Any]) -> Any:
        return options[int(self.rng.integers(len(options)))]


class FirstChoice(BaseStrategy):
    """Any kit game's simplest deterministic seat: the first option the game lists."""

    name = "first"

    def choose(self, view: Any, options: Sequence[Any]) -> Any:
        return options[0]


@dataclass(frozen=True)
class StateGame:
    """A game described by its State: `new_state(rules, n_players, rng)` starts a
    game whose chance draws from `rng`; `load_rules(params, n_players)` checks a
    config's `{variant, overrides}` (a ValueError of one line names the key);
    `categories` are the keys of every seat's `State.scores()`."""

    name: str
    title: str
    load_rules: Callable[[Mapping | None, int | None], Any]
    new_state: Callable[[Any, int, np.random.Generator], State]
    categories: tuple[str, ...]
    strategies: Mapping[str, type] = field(default_factory=lambda: {"random": RandomChoice, "first": FirstChoice})
    version: int = 1
    environment: str = ""
    """``module:Class`` of its PettingZoo environment (see welcometo_sim.envs.state_env), if any."""
    objectives: Callable[[Any], Sequence[Objective]] | None = None
    """The rules' objectives (deck 1; their points as the rules set them), for
    `wtsim plans` and `balance`; a rules' `overrides: {objectives: {ID: points}}`
    must set an objective's points."""
    achieved: Callable[[State, int], Iterable[str]] | None = None
    """The objectives a seat has completed as the game stands (once completed,
    an objective stays so)."""

    @property
    def record_format(self) -> str:
        return f"welcometo-sim/{self.name}/game/{self.version}"

    @property
    def columns(self) -> tuple[str, ...]:
        return (*KIT_COLUMNS, *self.categories)

    @property
    def dtypes(self) -> dict[str, str]:
        text = ("player", "strategy")
        return {c: "str" if c in text else "bool" if c == "won" else "int64" for c in self.columns}

    # ------------------------------------------------------------ playing
    def start(self, rules: Any, n_players: int, seed: int) -> State:
        """The game of `seed` at its start (its chance from the seed's game generator)."""
        game_rng, _ = seat_generators(int(seed), n_players)
        return self.new_state(rules, n_players, game_rng)

    def play_game(self, seats: Sequence[Any], seed: int, rules: Any = None) -> KitResult:
        """One game from seat specs (names or `{strategy, params, name}`) and a seed."""
        players = [self._seat(spec) for spec in seats]
        rules = self.load_rules(None, len(players)) if rules is None else rules
        _, seat_rngs = seat_generators(int(seed), len(players))
        strategies = [self.strategies[ref](rng, params) for (_name, ref, params), rng in zip(players, seat_rngs)]
        state = self.start(rules, len(players), seed)
        moves: list[list[int]] = []
        while state.decision is not None:
            seat, _kind, options, view = state.decision
            if seat == CHANCE:
                state.apply(None)
                continue
            index = self._ask(strategies[seat], players[seat][1], seat, seed, len(moves), view, options)
            moves.append([seat, index])
            state.apply(options[index])
        return self._result(state, players, seed, rules, moves)

    def _seat(self, spec: Any) -> tuple[str, str, dict]:
        """(name, strategy reference, parameters) of a seat spec."""
        if isinstance(spec, Mapping):
            ref, params = spec["strategy"], dict(spec.get("params") or {})
            name = spec.get("name") or ref
        else:
            ref, params, name = str(spec), {}, str(spec)
        if ref not in self.strategies:
            raise ValueError(f"unknown {self.name} strategy {ref!r} (strategies: {', '.join(self.strategies)})")
        return str(name), ref, params

    @staticmethod
    def _ask(strategy: Any, ref: str, seat: int, seed: int, step: int, view: Any, options: list) -> int:
        """The index of the seat's answer among `options` (a StrategyError otherwise)."""
        try:
            answer = strategy.choose(view, list(options))
        except Exception as exc:  # a strategy's own failure, reported with where it happened
            raise StrategyError(ref, seat, seed, step, f"raised {exc.__class__.__name__}: {exc}",
                                unit="decision") from exc
        for index, option in enumerate(options):
            if type(option) is type(answer) and option == answer:
                return index
        raise StrategyError(ref, seat, seed, step, f"answered {answer!r}, not one of its {len(options)} options",
                            unit="decision")

    def _result(self, state: State, players: list[tuple[str, str, dict]], seed: int, rules: Any,
                moves: list[list[int]]) -> KitResult:
        scores = [dict(s) for s in state.scores()]
        totals = [sum(s.values()) for s in scores]
        ranks = [1 + sum(other > total for other in totals) for total in totals]
        rows = [{"seed": int(seed), "seat": seat, "player": name, "strategy": ref, "n_players": len(players),
                 "total": totals[seat], "rank": ranks[seat], "won": ranks[seat] == 1,
                 **{c: int(scores[seat][c]) for c in self.categories}}
                for seat, (name, ref, _params) in enumerate(players)]
        record = {"format": self.record_format, "game": 0, "seed": int(seed), "variant": _plain(rules),
                  "players": [{"seat": seat, "name": name, "strategy": ref}
                              for seat, (name, ref, _params) in enumerate(players)],
                  "moves": moves,
                  "final": [{"seat": row["seat"], "total": row["total"], "rank": row["rank"],
                             **{c: row[c] for c in self.categories}} for row in rows]}
        return KitResult(rows, record)

    # ------------------------------------------------------------ records
    def replayed(self, record: Mapping, until: int | None = None) -> State:
        """The record's game after its first `until` seat decisions (all by
        default), played again from its seed; KitReplayError at the first
        decision that is not legal there."""
        if not isinstance(record, Mapping) or record.get("format") != self.record_format:
            raise RecordFormatError(f"not a {self.name} record of format {self.record_format}")
        try:
            n_players = len(record["players"])
            rules = self.load_rules(record.get("variant") or None, n_players)
            state = self.start(rules, n_players, int(record["seed"]))
            moves = [(int(seat), int(index)) for seat, index in record["moves"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordFormatError(f"record cannot be read: {exc.__class__.__name__}: {exc}") from None
        for step, (seat, index) in enumerate(moves[:until]):
            while state.decision is not None and state.decision[0] == CHANCE:
                state.apply(None)
            if state.decision is None or state.decision[0] != seat or not 0 <= index < len(state.decision[2]):
                raise KitReplayError(f"decision {step}: seat {seat} option {index} is not legal there")
            state.apply(state.decision[2][index])
        while until is None and state.decision is not None and state.decision[0] == CHANCE:
            state.apply(None)
        return state

    def replay(self, record: Mapping) -> KitResult:
        """The record played again and scored; KitReplayError when it is not what it says."""
        state = self.replayed(record)
        if not state.is_over:
            raise KitReplayError(f"the game is not over after its {len(record['moves'])} decisions")
        players = [(p["name"], p["strategy"], {}) for p in record["players"]]
        result = self._result(state, players, record["seed"], record.get("variant"), record["moves"])
        if result.record["final"] != record.get("final"):
            raise KitReplayError(f"final scores {record.get('final')} differ from the replay's "
                                 f"{result.record['final']}")
        return result

    def completion_steps(self, record: Mapping) -> list[dict[str, int]]:
        """Per seat of the record's game: objective id -> the number of seat
        decisions after which the seat had first completed it (the game
        replayed once, `achieved` asked after every decision)."""
        state = self.replayed(record, 0)
        n_players = len(record["players"])
        done: list[dict[str, int]] = [{} for _ in range(n_players)]
        for step, (_seat, index) in enumerate(record["moves"], start=1):
            while state.decision[0] == CHANCE:
                state.apply(None)
            state.apply(state.decision[2][int(index)])
            for seat in range(n_players):
                for objective in self.achieved(state, seat):
                    done[seat].setdefault(objective, step)
        return done

    def render(self, record: Mapping, round_: int | None = None) -> str:
        """The game after its first `round_` seat decisions (default: the end), as its State prints."""
        state = self.replayed(record, round_)
        done = len(record["moves"]) if round_ is None else min(round_, len(record["moves"]))
        return f"{self.title}, seed {record['seed']}, after decision {done}\n{state}"

    def viewer_page(self, record: Mapping, start: int | None = None) -> dict[str, Any]:
        """The replay viewer's data (its "text" kind): the game as its State
        prints after every seat decision, and the final scores."""
        steps = len(record["moves"])
        states = [{"turn": step, "text": str(self.replayed(record, step))} for step in range(steps + 1)]
        opening = steps if start is None else max(0, min(int(start), steps))
        final = [{"seat": row["seat"], "rank": row["rank"],
                  "score": {**{c: row[c] for c in self.categories}, "total": row["total"]}}
                 for row in record.get("final") or []]
        return {"kind": "text", "title": self.title, "game": record.get("game"), "seed": record.get("seed"),
                "variant": (record.get("variant") or {}).get("variant") or {}, "players": list(record["players"]),
                "categories": list(self.categories), "states": states, "final": final,
                "end": {"turn": steps, "reasons": []}, "start": opening}

    # ------------------------------------------------------------ registration
    def capabilities(self, viewer: str = "") -> Capabilities:
        """What the machinery asks of the game, derived from this description."""
        name = self.name

        def read_config(raw: dict, where: str, base_dir: Any = None) -> dict:
            players, params = parse_game(name, raw, where, base_dir)
            return {"players": players, "game_params": params}

        def strategy_class(ref: str) -> type:
            if ref not in self.strategies:
                raise GameRefusal(f"unknown {name} strategy {ref!r} (strategies: {', '.join(self.strategies)})")
            return self.strategies[ref]

        def strategy_params(cls: type, params: dict) -> dict:
            try:
                return dict(cls(None, params).params)
            except (ValueError, TypeError) as exc:
                raise GameRefusal(str(exc)) from None

        return Capabilities(
            title=self.title,
            read_config=read_config,
            config_section=lambda spec: {"variant": dict((spec.game_params or {}).get("variant") or {}),
                                         "overrides": (spec.game_params or {}).get("overrides") or None},
            parse_players=lambda entries, where, base_dir=None: parse_player_entries(
                entries, where, strategy_lookup(name, self.strategies), base_dir),
            check_seats=lambda spec, n: load_game(name, spec.game_params or {}, n),
            strategy_class=strategy_class,
            strategy_params=strategy_params,
            variant_label=lambda row: f"{name}, {int(row['n_players'])} players",
            viewer=viewer,
        )

    def exports(self, module: str) -> dict[str, Any]:
        """Every name a game module gives the registry (welcometo_sim.games.GAMES),
        for ``globals().update(GAME.exports(__name__))`` in the game's module."""
        return {
            "load_rules": self.load_rules,
            "new_state": lambda rules, n_players, seed: self.start(rules, n_players, seed),
            "play_game": self.play_game,
            "replay": self.replay,
            "render": self.render,
            "viewer_page": self.viewer_page,
            "RESULT_COLUMNS": self.columns,
            "COLUMN_DTYPES": self.dtypes,
            "CATEGORIES": self.categories,
            "STRATEGIES": dict(self.strategies),
            "ENVIRONMENT": self.environment,
            "CAPABILITIES": self.capabilities(viewer=f"{module}:viewer_page"),
            **({"OBJECTIVES": KitObjectives(self)} if self.objectives and self.achieved else {}),
        }


COMPLETED = "objective_step"
"""The trial table's column: the seat decisions after which the seat had
completed the objective (NA: never)."""


class KitObjectives:
    """The objectives capability (welcometo_sim.games.objectives) of a kit game:
    one deck, every objective in play in every game (so the trial games are
    played once and read once per objective), no race."""

    noun = "objective"
    races = False

    def __init__(self, game: StateGame) -> None:
        self.game = game

    def _rules(self, spec: Any) -> Any:
        return self.game.load_rules(spec.game_params, len(spec.players))

    def decks(self, spec: Any) -> dict[int, str]:
        return {1: "objectives"}

    def deck(self, spec: Any, deck: int) -> tuple[Objective, ...]:
        return tuple(self.game.objectives(self._rules(spec))) if deck == 1 else ()

    def catalogue(self, spec: Any) -> dict[str, Objective]:
        return {o.id: o for o in self.deck(spec, 1)}

    def trial_games(self, spec: Any, games: int, decks: Sequence[int]) -> int:
        return games if decks else 0

    def trials(self, spec: Any, games: int, decks: Sequence[int], progress: Any) -> pd.DataFrame:
        records: list[dict] = []

        def seen(chunk: Any) -> None:
            records.extend(json.loads(line) for line in chunk.records)
            if progress is not None:
                progress(chunk.stop - chunk.start)
        columns, _seconds = run_chunks(replace(spec, games=games), record=True, on_chunk=seen)
        frame = to_frame(columns)
        steps = {record["game"]: self.game.completion_steps(record) for record in records}
        frame["turns"] = [len(r["moves"]) for r in sorted(records, key=lambda r: r["game"])
                          for _ in r["players"]]
        blocks = []
        for objective in (self.deck(spec, 1) if 1 in decks else ()):
            block = frame.copy()
            block[COMPLETED] = pd.array([steps[g][s].get(objective.id) for g, s in zip(block["game"], block["seat"])],
                                        dtype="Int64")
            block.insert(0, "forced_plan", objective.id)
            block.insert(0, "forced_deck", 1)
            blocks.append(block)
        return pd.concat(blocks, ignore_index=True)

    def outcome(self, trial: pd.DataFrame, objective: Any) -> tuple[np.ndarray, np.ndarray]:
        steps = trial[COMPLETED].to_numpy(dtype=float, na_value=np.nan)
        return steps, ~np.isnan(steps)

    def with_points(self, spec: Any, points: Points) -> Any:
        params = dict(spec.game_params or {})
        params["overrides"] = merge_overrides(params.get("overrides"), self.overrides(points))
        self.game.load_rules(params, len(spec.players))  # a value the rules refuse fails here, in one line
        return replace(spec, game_params=params)

    def overrides(self, points: Points) -> dict:
        return {"objectives": {objective: int(high) for objective, (high, _low) in points.items()}}


def _plain(rules: Any) -> Any:
    """The rules as a record holds them: the game's `{variant, overrides}` if it
    keeps them as `params`, else the rules themselves when JSON-able."""
    params = getattr(rules, "params", rules)
    return params if isinstance(params, (dict, type(None))) else None
