"""The round loop of Shake That City, its game records and their replay (the variants are in rules.py).

`play_game(seats, seed, params)` plays one game and returns one result row per
seat (the game's own score categories) and a JSON-able record;
`replay(record)` plays a record's moves again, checking each is legal and
that the shakes are the ones its seed gives, and returns the rows recomputed
from the boards. A game is a pure function of (seats, seed, params): the
game's generator (`SeedSequence(seed, spawn_key=(0,))`) makes the set-up and
every shake, seat *s*'s strategy gets its own (`spawn_key=(s + 1,)`), both made
by `games.seeding.seat_generators`, as in Welcome To.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np

from .. import records
from ..seeding import seat_generators
from ..contract import CHANCE, StrategyError
from ..views import read_only
from .board import Board, Move
from .data import BUILDINGS, DataError
from .moves import View, allowed_buildings, legal_moves
from .rules import (MAX_PLAYERS, MIN_PLAYERS, TILE_SUPPLY, VARIANT_KEYS, Rules, Variant, load_rules, make_variant,
                    parse_move)
from .scoring import CATEGORIES, Score, ranks, score
from .shake import CUBE_NAMES, next_shaker, parse_pattern, pattern_text, shake, start_shaker
from .strategies import Replayer, seat_strategies

GAME_NAME = "shake-that-city"
RECORD_FORMAT = "welcometo-sim/shake-that-city/game/2"
"""The `format` of the records this game writes: the envelope every game's
records share (`format`, `game` number, `seed`, `variant`, `players` as
``{seat, name, strategy}``), then this game's own fields."""
FIRST_FORM_VERSION = 1
"""The `version` of the records written before the shared envelope (`game` the
game's name, `params`, `players` and `strategies` as lists of names, the game
number in `index`): still read, see :func:`current_form`."""


class ReplayError(records.ReplayError):
    """A record that does not replay: what is wrong, and where (round, seat)."""


class RecordFormatError(ReplayError, records.RecordFormatError):
    """A record not shaped like one of this game (not an object, another game
    or version, a missing field or a value of the wrong type): `wtsim verify`
    stops on it as on a malformed Welcome To record (exit 2)."""


class GameResult(NamedTuple):
    """One finished game: a result row per seat, the record, the final boards."""

    rows: list[dict]
    record: dict
    boards: list[Board]


class Setup(NamedTuple):
    """What the game's generator decides before round 1, the same for every player."""

    start_player: int
    tiles: tuple[int, ...]
    construction: tuple[tuple[int, int], ...]


def draw_setup(rules: Rules, rng: np.random.Generator, n_players: int) -> Setup:
    """First start player, bonus tiles by slot, construction tiles (cell mask, pair)."""
    data, variant = rules.data, rules.variant
    start = variant.start_player
    if start is None:
        start = int(rng.integers(n_players))
    others = [t for t in data.tile_ids if t != data.corner_tile]
    tiles = (data.corner_tile, *(others[i] for i in rng.permutation(len(others))))
    construction: tuple[tuple[int, int], ...] = ()
    if variant.uses_construction:
        order = rng.permutation(len(data.construction_pairs))
        construction = tuple((cell, int(pair))
                             for cell, pair in zip(rules.layout.construction_cells, order))
    return Setup(start, tiles, construction)


def _counts(shaker: Sequence[int]) -> Mapping[str, int]:
    return read_only(dict(zip(CUBE_NAMES, shaker)))


class _Table:
    """The state of a game in play (never shown to strategies)."""

    def __init__(self, rules: Rules, n_players: int, seed: int, setup: Setup) -> None:
        self.rules, self.seed, self.setup = rules, seed, setup
        self.boards = [Board(rules.layout, construction=setup.construction) for _ in range(n_players)]
        self.shaker = start_shaker(rules.data, rules.variant.wild_nights)
        self.passes = [0] * n_players
        supply = rules.variant.tile_supply
        self.supply: list[int] | None = None if supply is None else [supply] * len(BUILDINGS)
        self.rounds: list[dict] = []
        self._counts: dict[tuple[int, ...], Mapping[str, int]] = {}

    def counts(self, shaker: tuple[int, ...]) -> Mapping[str, int]:
        """A shaker's cube counts by name, read-only (made once per shaker content)."""
        found = self._counts.get(shaker)
        if found is None:
            found = self._counts[shaker] = _counts(shaker)
        return found

    def start_of(self, round_: int) -> int:
        return (self.setup.start_player + round_ - 1) % len(self.boards)

    def allowed(self, pattern, round_: int, seat: int, start_choice: str | None) -> tuple[str, ...]:
        data, variant = self.rules.data, self.rules.variant
        free = round_ > data.rounds - data.free_rounds
        return allowed_buildings(pattern, free, start_choice, seat == self.start_of(round_),
                                 variant.solo)

    def takeable(self, allowed: tuple[str, ...], pattern) -> tuple[str, ...]:
        """The allowed colours whose cubes the shared tile supply still covers."""
        if self.supply is None:
            return allowed
        return tuple(b for b in allowed
                     if pattern.count(BUILDINGS.index(b)) <= self.supply[BUILDINGS.index(b)])

    def within_supply(self, moves: dict[Move, int]) -> dict[Move, int]:
        """The moves whose tiles (wilds included) are still in the supply, in the same order."""
        if self.supply is None:
            return moves
        return {move: mask for move, mask in moves.items()
                if mask.bit_count() <= self.supply[BUILDINGS.index(move.building)]}

    def take(self, move: Move | None, mask: int) -> None:
        """Takes a move's tiles from the supply (players take in turn from the start player)."""
        if self.supply is not None and move is not None:
            self.supply[BUILDINGS.index(move.building)] -= mask.bit_count()

    def view(self, seat: int, round_: int, pattern, start_choice, allowed, moves, after) -> View:
        return View(seat=seat, round=round_, rounds=self.rules.data.rounds,
                    n_players=len(self.boards), start_player=self.start_of(round_),
                    pattern=tuple(CUBE_NAMES[c] for c in pattern), start_choice=start_choice,
                    allowed=allowed, board=self.boards[seat].copy(),
                    boards=tuple(b.copy() for b in self.boards), masks=read_only(moves),
                    shaker=self.counts(self.shaker), next_shaker=self.counts(after),
                    tiles=self.setup.tiles, rules=self.rules,
                    supply=None if self.supply is None else read_only(dict(zip(BUILDINGS, self.supply))))

    def finish_round(self, round_: int, pattern, chosen: list[Move | None], moves: list[dict]) -> None:
        for seat, move in enumerate(chosen):
            if move is None:
                self.passes[seat] += 1
            else:
                self.boards[seat] = self.boards[seat].place(move.building, moves[seat][move])
        self.rounds.append({"round": round_, "start": self.start_of(round_),
                            "pattern": pattern_text(pattern),
                            "moves": [None if m is None else list(m) for m in chosen]})


def _match(answer: Any, moves: Mapping[Move, int]) -> Move | None:
    """The game's own option equal to `answer` (exact type, plain values), or raise ValueError."""
    if type(answer) is not Move:
        raise ValueError(f"answered {type(answer).__name__}, not a Move of the options")
    building, wild, row, col = answer
    if type(building) is not str or not isinstance(wild, (bool, np.bool_)):
        raise ValueError(f"answered {answer!r}, not one of the options")
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               for v in (row, col)):
        raise ValueError(f"answered {answer!r}, not one of the options")
    key = Move(str(building), bool(wild), int(row), int(col))
    if key in moves:
        return key
    raise ValueError(f"answered {answer!r}, not one of the {len(moves)} legal moves")


class Deal(NamedTuple):
    """Everything the game's generator decides: the set-up, each round's shaker and pattern.

    No choice of a player changes it (building cubes always go back, wilds leave
    when shown), so a record's shakes can be checked from its seed alone."""

    setup: Setup
    shakers: list[tuple[int, ...]]
    patterns: list[tuple[int, ...]]


def deal(rules: Rules, seed: int, n_players: int) -> Deal:
    """The set-up and the 15 shakes of the game with this seed."""
    rng, _ = seat_generators(seed, 0)
    setup = draw_setup(rules, rng, n_players)
    data, wild = rules.data, rules.variant.wild_nights
    shaker = start_shaker(data, wild)
    shakers, patterns = [], []
    for round_ in range(1, data.rounds + 1):
        pattern = shake(rng, shaker, data.pattern_size ** 2)
        shakers.append(shaker)
        patterns.append(pattern)
        shaker = next_shaker(data, shaker, pattern, round_ + 1, wild)
    return Deal(setup, shakers, patterns)




class Decision(NamedTuple):
    """The question a game in progress waits on: the seat that decides, the
    kind ("shake": chance, applied with None; "move": a seat places a pattern
    or, with no options, nothing), the game's own options (Moves) and the
    seat's view."""

    seat: int
    kind: str
    options: list
    view: Any


class IllegalAnswer(ValueError):
    """An answer that is not one of the pending decision's options."""


_SHAKE = Decision(CHANCE, "shake", [], None)


class GameState:
    """A Shake That City game in progress, stepped one decision at a time.

    Each round the cubes are shaken (a chance decision whose outcome the game
    seed fixes: the whole deal is drawn at set-up, and no choice changes it),
    then every seat with a legal placement chooses one, from the round's start
    player on. Seats choose against the same public state; only the start
    player's building is known to the others, as the rules say. `decision` is
    the pending :class:`Decision` (None once over); `apply(answer)` answers it;
    `clone()` copies the game to search from."""

    def __init__(self, rules: Rules, n_players: int, seed: int) -> None:
        self.rules, self.seed, self.n_players = rules, int(seed), n_players
        self.dealt = deal(rules, self.seed, n_players)
        self.table = _Table(rules, n_players, self.seed, self.dealt.setup)
        self.round = 0
        self.decision: Decision | None = _SHAKE
        self._order: list[int] = []
        self._index = 0
        self._chosen: list[Move | None] = []
        self._options: list[dict] = []
        self._start_choice: str | None = None

    @property
    def is_over(self) -> bool:
        return self.decision is None

    @property
    def boards(self) -> list[Board]:
        return self.table.boards

    def apply(self, answer: Any) -> None:
        """Answer the pending decision and go on to the next one; IllegalAnswer
        (the game unchanged) when the answer is not one of its options."""
        decision = self.decision
        if decision is None:
            raise IllegalAnswer("the game is over")
        if decision.kind == "shake":
            self._begin_round()
            return
        seat = decision.seat
        try:
            move = _match(answer, self._options[seat])
        except ValueError as exc:
            raise IllegalAnswer(str(exc)) from None
        self._chosen[seat] = move
        self.table.take(move, self._options[seat][move])
        if self._index == 0:
            self._start_choice = move.building
        self._index += 1
        self._next_seat()

    def scores(self) -> list[dict]:
        """Every seat's score by category as the boards stand (final once over)."""
        rules, tiles = self.rules, self.table.setup.tiles
        return [score(board, rules.points, tiles, rules.variant.family,
                      rules.variant.uses_construction).as_dict() for board in self.table.boards]

    def clone(self) -> "GameState":
        """An independent copy of the game (boards are immutable values)."""
        twin = object.__new__(GameState)
        twin.__dict__.update(self.__dict__)
        table = twin.table = object.__new__(_Table)
        table.__dict__.update(self.table.__dict__)
        table.boards, table.passes, table.rounds = self.table.boards[:], self.table.passes[:], \
            [dict(entry) for entry in self.table.rounds]
        table.supply = None if self.table.supply is None else self.table.supply[:]
        twin._order, twin._chosen, twin._options = self._order[:], self._chosen[:], self._options[:]
        return twin

    def _begin_round(self) -> None:
        self.round = round_ = self.round + 1
        table, dealt = self.table, self.dealt
        self._pattern = dealt.patterns[round_ - 1]
        table.shaker = dealt.shakers[round_ - 1]
        self._after = dealt.shakers[round_] if round_ < len(dealt.shakers) else (0,) * len(table.shaker)
        self._order = _seat_order(table.start_of(round_), self.n_players)
        self._chosen = [None] * self.n_players
        self._options = [{} for _ in range(self.n_players)]
        self._start_choice = None
        self._index = 0
        self._next_seat()

    def _next_seat(self) -> None:
        table, round_, pattern = self.table, self.round, self._pattern
        while self._index < len(self._order):
            seat = self._order[self._index]
            seen = None if self._index == 0 else self._start_choice
            allowed = table.takeable(table.allowed(pattern, round_, seat, seen), pattern)
            options = self._options[seat] = table.within_supply(legal_moves(table.boards[seat], pattern, allowed))
            if options:
                view = table.view(seat, round_, pattern, seen, allowed, options, self._after)
                self.decision = Decision(seat, "move", list(options), view)
                return
            self._index += 1
        table.finish_round(round_, pattern, self._chosen, self._options)
        self.decision = _SHAKE if round_ < self.rules.data.rounds else None


def play_game(seats: Sequence[Any], seed: int, params: Mapping | Rules | None = None) -> GameResult:
    """Plays one game: `seats` are strategies (names, classes, instances or
    `{strategy, params, name}` mappings), `params` `{variant, overrides}` or Rules."""
    _, seat_rngs = seat_generators(seed, len(seats))
    players = seat_strategies(seats, seat_rngs)
    rules = load_rules(params, len(players))
    state = GameState(rules, len(players), seed)
    decision = state.decision
    while decision is not None:
        if decision.seat == CHANCE:
            state.apply(None)
        else:
            state.apply(_ask(players[decision.seat], decision.view, decision.options, state))
        decision = state.decision
    return _result(state.table, players, seed)


def _seat_order(start: int, n: int) -> list[int]:
    return [(start + k) % n for k in range(n)]


def _ask(player, view: View, offered: list, state: GameState) -> Any:
    """The seat's answer, as one of the game's own moves (StrategyError otherwise)."""
    seat, round_ = view.seat, state.round
    try:
        answer = player.strategy.choose(view, offered[:])
    except Exception as exc:  # a strategy's own failure, reported with where it happened
        raise StrategyError(player.strategy.name, seat, state.seed, round_,
                            f"raised {exc.__class__.__name__}: {exc}", unit="round") from exc
    try:
        return _match(answer, state._options[seat])
    except ValueError as exc:
        raise StrategyError(player.strategy.name, seat, state.seed, round_, str(exc), unit="round") from None


def _result(table: _Table, players, seed: int) -> GameResult:
    rules = table.rules
    scores = [score(b, rules.points, table.setup.tiles, rules.variant.family,
                    rules.variant.uses_construction) for b in table.boards]
    rows = result_rows(rules, scores, players, seed, table.passes)
    record = {
        "format": RECORD_FORMAT, "seed": seed, "variant": record_variant(rules.params()),
        "players": [{"seat": seat, "name": p.name, "strategy": p.strategy.name} for seat, p in enumerate(players)],
        "start_player": table.setup.start_player, "tiles": list(table.setup.tiles),
        "construction": [[*rules.layout.cells(cell)[0], pair] for cell, pair in table.setup.construction],
        "rounds": table.rounds,
        "scores": [s.as_dict() for s in scores],
        "boards": [b.grid() for b in table.boards],
    }
    return GameResult(rows, record, list(table.boards))


def record_variant(params: Mapping) -> dict:
    """A record's `variant` block from the game's parameters: the variant's keys,
    with the data `overrides` inside it (as a Welcome To record keeps them)."""
    return {**params["variant"], "overrides": params["overrides"]}


def current_form(record: Any) -> Any:
    """`record` in the envelope this version writes (RECORD_FORMAT): a record of
    the first form (version 1) is renamed field by field, its fields in the
    order the writer puts them; anything else is returned as it is."""
    if not isinstance(record, Mapping) or "format" in record or record.get("version") != FIRST_FORM_VERSION \
            or record.get("game") != GAME_NAME:
        return record
    renamed = {"format": RECORD_FORMAT}
    if "index" in record:
        renamed["game"] = record["index"]
    params = record.get("params")
    renamed["seed"] = record.get("seed")
    renamed["variant"] = (record_variant(params) if isinstance(params, Mapping) and "variant" in params
                          and "overrides" in params else params)
    names, strategies = record.get("players"), record.get("strategies")
    renamed["players"] = ([{"seat": seat, "name": name, "strategy": strategy}
                           for seat, (name, strategy) in enumerate(zip(names, strategies))]
                          if isinstance(names, list) and isinstance(strategies, list)
                          and len(names) == len(strategies) else names)
    first_form = {"game", "version", "index", "seed", "params", "players", "strategies"}
    renamed.update((key, value) for key, value in record.items() if key not in first_form)
    return renamed


def _checked_form(record: Any) -> Mapping:
    """The record in the current envelope, or RecordFormatError saying which forms are read."""
    record = current_form(record)
    if not isinstance(record, Mapping):
        raise RecordFormatError("a record is a JSON object")
    if record.get("format") != RECORD_FORMAT:
        raise RecordFormatError(f"not a {GAME_NAME} record this version reads: `format` must be "
                                f"{RECORD_FORMAT!r} (or, the first form, `game` {GAME_NAME!r} with "
                                f"`version` {FIRST_FORM_VERSION})")
    return record


def _names(record: Mapping) -> list:
    """The seats' display names of a record in the current envelope."""
    return [player["name"] for player in record["players"]]


def result_rows(rules: Rules, scores: Sequence[Score], players, seed: int,
                passes: Sequence[int]) -> list[dict]:
    """One row per seat: identity, variant, total, rank, won, every score category."""
    variant = rules.variant
    order = ranks(scores)
    rows = []
    for seat, (s, player) in enumerate(zip(scores, players)):
        if variant.solo:
            won = s.qualified and s.total >= rules.solo_target
        else:
            won = order[seat] == 1 and s.qualified
        rows.append({
            "seed": seed, "seat": seat, "player": player.name, "strategy": player.strategy.name,
            "n_players": len(scores), "side": variant.side, "family": variant.family,
            "construction": variant.uses_construction, "solo": variant.solo,
            "wild_nights": variant.wild_nights, "total": s.total, "rank": order[seat], "won": won,
            **{c: getattr(s, c) for c in CATEGORIES}, "flipped": s.flipped,
            "empty_cells": s.empty, "construction_left": s.construction_left,
            "qualified": s.qualified, "passes": passes[seat],
        })
    return rows


def replay(record: Mapping) -> GameResult:
    """Plays a record's moves again and recomputes its scores; ReplayError names
    the first round and seat where the record is not what its seed and rules give."""
    try:
        return _replay(record, Replayer)
    except ReplayError:
        raise
    except (AttributeError, DataError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise RecordFormatError(f"record cannot be read: {exc.__class__.__name__}: {exc}") from None


def _replay(record: Mapping, replayer_class) -> GameResult:
    record = _checked_form(record)
    rounds = record["rounds"]
    seed = record["seed"]
    names = _names(record)
    seats = [{"strategy": replayer_class(rounds, seat), "name": name}
             for seat, name in enumerate(names)]
    for seat, player in enumerate(record["players"]):
        seats[seat]["strategy"].name = player["strategy"]
    rules = load_rules(_params_of(record), len(names))
    if len(rounds) != rules.data.rounds:
        raise ReplayError(f"{len(rounds)} rounds recorded, the game has {rules.data.rounds}")
    _check_deal(deal(rules, seed, len(names)), rules, record)
    result = _checked_play(seats, seed, rules, rounds)
    if [dict(s) for s in record["scores"]] != result.record["scores"]:
        raise ReplayError("the recorded scores differ from the replayed boards' scores")
    if [list(b) for b in record["boards"]] != result.record["boards"]:
        raise ReplayError("the recorded final boards differ from the replayed ones")
    return result


def _params_of(record: Mapping) -> Mapping:
    """The game parameters `{variant, overrides}` of a record in the current
    envelope; a record written before the tile supply was a rule (no
    `tile_supply` in its variant) was played with an unlimited supply."""
    variant = dict(record["variant"])
    overrides = variant.pop("overrides", None)
    if "tile_supply" not in variant:
        variant["tile_supply"] = None
    return {"variant": variant, "overrides": {} if overrides is None else overrides}


def _check_deal(dealt: Deal, rules: Rules, record: Mapping) -> None:
    setup = dealt.setup
    construction = [[*rules.layout.cells(cell)[0], pair] for cell, pair in setup.construction]
    for key, mine in (("start_player", setup.start_player), ("tiles", list(setup.tiles)),
                      ("construction", construction)):
        theirs = record[key]
        if (list(theirs) if isinstance(mine, list) else theirs) != mine:
            raise ReplayError(f"{key}: {theirs!r} recorded, the seed gives {mine!r}")
    for number, (pattern, entry) in enumerate(zip(dealt.patterns, record["rounds"]), start=1):
        if entry["round"] != number or entry["start"] != (setup.start_player + number - 1) % len(record["players"]):
            raise ReplayError(f"round {number}: round number or start player is not the game's")
        if entry["pattern"] != pattern_text(pattern):
            raise ReplayError(f"round {number}: pattern {entry['pattern']!r} recorded, the seed "
                              f"shakes {pattern_text(pattern)!r}")


def _checked_play(seats, seed, rules: Rules, rounds) -> GameResult:
    try:
        result = play_game(seats, seed, rules)
    except StrategyError as exc:
        if exc.__cause__ is not None:  # the Replayer could not read the recorded move at all
            raise RecordFormatError(f"rounds[{exc.round - 1}].moves[{exc.seat}]: cannot be read "
                                    f"({exc.problem})") from None
        raise ReplayError(f"round {exc.round}, seat {exc.seat}: the recorded move is not legal "
                          f"({exc.problem})") from None
    for number, (mine, theirs) in enumerate(zip(result.record["rounds"], rounds), start=1):
        if len(theirs["moves"]) != len(mine["moves"]):
            raise ReplayError(f"round {number}: {len(theirs['moves'])} moves for "
                              f"{len(mine['moves'])} seats")
        for seat, (a, b) in enumerate(zip(mine["moves"], theirs["moves"])):
            if a != (None if b is None else [b[0], bool(b[1]), b[2], b[3]]):
                raise ReplayError(f"round {number}, seat {seat}: a move is recorded where "
                                  f"none can be placed")
    return result


def boards_at(record: Mapping, round_: int | None = None) -> list[Board]:
    """Every seat's board after round `round_` (default: the last) of a record that replays."""
    replay(record)
    record = current_form(record)
    rules = load_rules(_params_of(record), len(record["players"]))
    last = rules.data.rounds if round_ is None else round_
    if not 0 <= last <= rules.data.rounds:
        raise ReplayError(f"round {round_}: the game has rounds 1 to {rules.data.rounds}")
    layout = rules.layout
    tiles = tuple((layout.bit(r, c), pair) for r, c, pair in record["construction"])
    boards = [Board(layout, construction=tiles) for _ in record["players"]]
    for entry in record["rounds"][:last]:
        pattern = parse_pattern(entry["pattern"])
        for seat, move in enumerate(map(parse_move, entry["moves"])):
            if move is not None:
                frame = legal_moves(boards[seat], pattern, (move.building,))[move]
                boards[seat] = boards[seat].place(move.building, frame)
    return boards


def render(record: Mapping, round_: int | None = None) -> str:
    """A record as text: the pattern and moves of round `round_` (default: the last)
    and every seat's board after it (letters HSFPR, `#` construction, `.` empty)."""
    boards = boards_at(record, round_)
    record = current_form(record)
    last = len(record["rounds"]) if round_ is None else round_
    lines = [f"{GAME_NAME}, seed {record['seed']}, after round {last}"]
    if last:
        entry = record["rounds"][last - 1]
        p = entry["pattern"]
        lines.append(f"pattern {p[0:3]}/{p[3:6]}/{p[6:9]}, start player {entry['start']}")
    for seat, (name, board) in enumerate(zip(_names(record), boards)):
        did = ""
        if last:
            move = record["rounds"][last - 1]["moves"][seat]
            did = " nothing" if move is None else (f" {move[0]}{' + wild' if move[1] else ''} "
                                                   f"at ({move[2]}, {move[3]})")
        lines.append(f"seat {seat} {name}:{did}")
        lines.extend("  " + row for row in board.grid())
    if round_ is None or last == len(record["rounds"]):
        for seat, s in enumerate(record["scores"]):
            parts = ", ".join(f"{c} {s[c]}" for c in CATEGORIES)
            unqualified = "" if s["qualified"] else (
                f"; scores 0: {s['construction_left']} construction tiles left")
            lines.append(f"seat {seat}: total {s['total']} ({parts}; flipped {s['flipped']}, "
                         f"empty {s['empty']}{unqualified})")
    return "\n".join(lines)


__all__ = ["CHANCE", "Decision", "FIRST_FORM_VERSION", "GAME_NAME", "RECORD_FORMAT", "current_form", "record_variant", "GameResult", "GameState", "IllegalAnswer", "ReplayError", "Rules", "StrategyError", "Variant",
           "boards_at", "load_rules", "make_variant", "parse_pattern", "play_game", "render",
           "replay",
           # the static rules, in rules.py, importable from here as before
           "MAX_PLAYERS", "MIN_PLAYERS", "TILE_SUPPLY", "VARIANT_KEYS", "parse_move"]
