"""Welcome To behind the game interface of :mod:`welcometo_sim.games`: the
names the registry reads of a game, which the package
`welcometo_sim.games.welcome_to` hands out on first use (see its docstring).

A run's chunks play Welcome To on its own driver (`runs.play_run_game`: the
compiled or native engine, the seeds of a whole chunk hashed together); this
module lets code that plays any game by name (`load_game("welcome-to", ...)`)
play, replay and render it too, with the same rows the runner writes.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Sequence

from ...config import ConfigError, PlayerConfig, RunSpec
from ..records import numbered
from .game import Game as _Game
from .game import GameState, Seat
from .record_replay import ReplayError, final_block, replay as _replay, verify
from .scoring import SCORE_FIELDS
from .sheet import render_sheet
from .overrides import OVERRIDE_KEYS
from .rows import COLUMNS, column_dtypes, game_rows
from .run_config import GAME_NAME, params_of, parse_players, parse_variant, read_variant_config, variant_config_section
from .runs import play_run_game, prepare_chunk
from .variant import Variant
from ...strategy import builtin_strategies, load_strategy, resolve_params
from .. import Capabilities

RESULT_COLUMNS: tuple[str, ...] = tuple(c for c in COLUMNS if c != "game")
"""A result row's columns: the runner's table without the game number."""
COLUMN_DTYPES: dict[str, str] = {c: t for c, t in column_dtypes().items() if c != "game"}
CATEGORIES: tuple[str, ...] = tuple(SCORE_FIELDS)
ENVIRONMENT = "welcometo_sim.games.welcome_to.env.aec:WelcomeToEnv"
"""The PettingZoo AEC environment (the rl extra)."""


class Rules(NamedTuple):
    """A checked variant and its fixed plans (None: drawn from the seed)."""

    variant: Variant
    plans: tuple[str | None, ...]


class Result(NamedTuple):
    """One finished game: a row per seat (RESULT_COLUMNS) and its record."""

    rows: list[dict]
    record: dict


def __getattr__(name: str) -> Any:
    if name == "STRATEGIES":  # built on first use: installed entry points are looked up then
        return {ref: load_strategy(ref) for ref in builtin_strategies()}
    raise AttributeError(name)


def load_rules(params: Mapping | None = None, n_players: int | None = None) -> Rules:
    """Rules from `{variant: {...}, overrides: {...}}` as a config writes them;
    a ConfigError (a ValueError) names the key."""
    params = dict(params or {})
    unknown = set(params) - {"variant", "overrides"}
    if unknown:
        raise ConfigError(f"{sorted(map(str, unknown))[0]}: unknown key (known: variant, overrides)")
    variant, plans = parse_variant(params.get("variant") or {}, "params", params.get("overrides"))
    if n_players is not None:
        variant.check(n_players)
    return Rules(variant, plans)


def _seats(seats: Sequence[Any]) -> tuple[PlayerConfig, ...]:
    """PlayerConfigs from seat specs, read as a config's player entries: names
    (inline parameters allowed) or `{strategy, params, name}` mappings."""
    return parse_players([dict(seat) if isinstance(seat, Mapping) else seat for seat in seats], "seats")


def play_game(seats: Sequence[Any], seed: int, rules: Rules | None = None) -> Result:
    """One game from seat strategies (names or `{strategy, params, name}`) and a game seed."""
    rules = rules or load_rules()
    players = _seats(seats)
    spec = RunSpec(name="game", players=players, game_params=params_of(rules.variant, rules.plans))
    result = _Game(rules.variant, [Seat(p.name, p.strategy.id, p.strategy) for p in players], seed,
                   rules.plans, True).play()
    columns = game_rows(spec, 0, result)
    rows = [{c: columns[c][seat] for c in RESULT_COLUMNS} for seat in range(len(players))]
    return Result(rows, numbered(result.record, 0))


def new_state(rules: Rules, n_players: int, seed: int) -> GameState:
    """A game with these rules at its start, to step (see welcometo_sim.games.contract)."""
    return GameState(rules.variant, n_players, seed, rules.plans)


def replay(record: Mapping) -> Any:
    """The record replayed; ReplayError when its final block is not what the replay gives."""
    problems = verify(dict(record))
    if problems:
        raise ReplayError("; ".join(problems))
    return final_block(_replay(dict(record)))


def render(record: Mapping, round_: int | None = None) -> str:
    """Every seat's sheet after turn `round_` (default: the end), as `wtsim show` prints them."""
    state = _replay(dict(record), until_turn=round_)
    lines = [f"game {record.get('game')} (seed {record.get('seed')}), turn {state.turn}"]
    for seat, sheet in enumerate(state.sheets):
        player = record["players"][seat]
        lines += ["", f"seat {seat}: {player['name']} ({player['strategy']})", render_sheet(sheet)]
    return "\n".join(lines)


def sweep_measures(frame: Any, rows: Any, games: Any) -> dict:
    """Welcome To's measures of a sweep's grid point (see welcometo_sim.analysis.sweep):
    the game length, the share of games ended by refusals, each plan slot's
    completion (per player-game; the plan id is named when one plan fills the
    slot), and the plan points per player-game."""
    measures = {"game length (turns)": ("mean", games["turns"].astype(float)),
                "ended by refusals": ("rate", games["end_reason"].astype(str).str.contains("refusals")
                                      .astype(float))}
    for slot in (1, 2, 3):
        ids = frame[f"plan{slot}"].unique()
        name = f"plan {slot} completed" + (f" ({ids[0]})" if len(ids) == 1 else "")
        measures[name] = ("rate", rows[f"plan{slot}_turn"].notna().astype(float))
    measures["plan points per player-game"] = ("mean", rows["plans"].astype(float))
    return measures



OBJECTIVES = "welcometo_sim.games.welcome_to.objectives:OBJECTIVES"
"""The objectives capability (see welcometo_sim.games.objectives): the city
plans, in a module of their own, loaded by the commands that balance them."""
LEARNING = "welcometo_sim.games.welcome_to.training:LEARNING"
"""What `wtsim train` plays and saves (see welcometo_sim.learning.train)."""

# ------------------------------------------------------------------ capabilities
def _variant_label(row: Any) -> str:
    """'3 players, board base, advanced' from a result row."""
    flags = [flag for flag in ("advanced", "expert", "solo") if bool(row[flag])]
    return ", ".join([f"{int(row['n_players'])} players", f"board {row['board']}", *flags])


CAPABILITIES = Capabilities(
    title="Welcome To",
    read_config=read_variant_config,
    config_section=variant_config_section,
    parse_players=parse_players,
    check_seats=lambda spec, n: spec.rules.variant.check(n),
    strategy_class=load_strategy,
    strategy_params=resolve_params,
    variant_label=_variant_label,
    shared_draws=lambda spec: not spec.rules.variant.expert,  # outside the expert rules every seat sees the same cards
    move_timeout=True,
    trainable=True,
    strategy_files=True,
    summary_columns=("end_reason",),
    report_figures=("scores.png", "breakdown.png", "win_rates.png", "plan_completion.png"),
    viewer="welcometo_sim.games.welcome_to.replay_view:game_view",
)
"""What the machinery asks of Welcome To (see welcometo_sim.games.Capabilities)."""
