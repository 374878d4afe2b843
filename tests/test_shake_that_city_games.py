"""Shake That City whole games: invariants over random legal games, variants, records, strategy API."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from welcometo_sim.games.shake_that_city import (BUILDINGS, Board, Move, ReplayError, Strategy,
                                                 StrategyError, load_rules, play_game, replay, score)
from welcometo_sim.games.shake_that_city.game import deal
from welcometo_sim.games.shake_that_city.shake import parse_pattern

VARIANTS = [
    {},
    {"family": True},
    {"construction": True},
    {"wild_nights": True},
    {"side": "seaside"},
    {"construction": True, "wild_nights": True, "side": "seaside"},
    {"family": True, "wild_nights": True},
]


def check_game(result, rules, n_players):
    """Every invariant a finished game must hold."""
    record = result.record
    data, variant = rules.data, rules.variant
    json.loads(json.dumps(record))
    placed = [[0] * len(BUILDINGS) for _ in range(n_players)]
    wild_shown = 0
    dealt = deal(rules, record["seed"], n_players)
    for k, (entry, shaker) in enumerate(zip(record["rounds"], dealt.shakers)):
        pattern = parse_pattern(entry["pattern"])
        assert shaker[:5] == data.cubes                          # building cubes always go back
        assert all(pattern.count(c) <= shaker[c] for c in range(6))
        assert entry["start"] == (record["start_player"] + k) % n_players
        free = k + 1 > data.rounds - data.free_rounds
        start_move = entry["moves"][entry["start"]]
        wild_shown += pattern.count(5)
        for seat, move in enumerate(entry["moves"]):
            if move is None:
                continue
            code = BUILDINGS.index(move[0])
            placed[seat][code] += pattern.count(code) + (pattern.count(5) if move[1] else 0)
            if seat != entry["start"] and start_move is not None and not free and n_players > 1:
                assert move[0] != start_move[0]
            counts = [pattern.count(c) for c in range(len(BUILDINGS))]
            if variant.solo and not free and counts.count(max(counts)) == 1:
                assert code != counts.index(max(counts))
    if variant.tile_supply is not None:                          # one shared supply of each type
        assert all(sum(seat[code] for seat in placed) <= variant.tile_supply
                   for code in range(len(BUILDINGS)))
    if variant.wild_nights:
        assert wild_shown <= data.wild_start + len(data.wild_rounds)
    else:
        assert wild_shown == 0
    for seat, board in enumerate(result.boards):
        masks = board.masks
        assert all(not a & b for i, a in enumerate(masks) for b in masks[i + 1:])
        assert [m.bit_count() for m in masks] == placed[seat]
        assert not board.built & board.blocked
        again = score(board, rules.points, record["tiles"], variant.family,
                      variant.uses_construction)
        assert again.as_dict() == record["scores"][seat]
        row = result.rows[seat]
        assert row["total"] == again.total
        assert row["empty_cells"] == rules.layout.n - board.built.bit_count() - len(board.construction)
        if variant.uses_construction:
            assert row["qualified"] == (row["construction_left"] == 0)
        else:
            assert row["qualified"] and row["construction_left"] == 0
        if row["qualified"]:
            assert row["total"] == sum(row[c] for c in ("roads", "parks", "factories", "shops",
                                                         "homes", "bonus"))
        else:
            assert row["total"] == 0 and not row["won"]
        if variant.family:
            assert row["total"] in (0, row["bonus"])
    again = replay(json.loads(json.dumps(record)))
    assert again.rows == result.rows and again.record == record


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1), variant=st.sampled_from(VARIANTS),
       seats=st.lists(st.sampled_from(["random", "random", "greedy"]), min_size=2, max_size=4))
def test_random_legal_games_hold_every_invariant(seed, variant, seats):
    rules = load_rules({"variant": variant}, len(seats))
    check_game(play_game(seats, seed, rules), rules, len(seats))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), wild=st.booleans(), greedy=st.booleans())
def test_solo_games_hold_every_invariant_and_win_at_the_target(seed, wild, greedy):
    rules = load_rules({"variant": {"solo": True, "wild_nights": wild}}, 1)
    result = play_game(["greedy" if greedy else "random"], seed, rules)
    check_game(result, rules, 1)
    row = result.rows[0]
    assert row["construction"] and row["rank"] == 1
    assert row["won"] == (row["qualified"] and row["total"] >= (60 if wild else 55))


def test_a_game_is_a_pure_function_of_seats_seed_and_params():
    a = play_game(["greedy", "random", "lookahead"], 11, {"variant": {"wild_nights": True}})
    b = play_game(["greedy", "random", "lookahead"], 11, {"variant": {"wild_nights": True}})
    c = play_game(["greedy", "random", "lookahead"], 12, {"variant": {"wild_nights": True}})
    assert a.record == b.record and a.rows == b.rows
    assert a.record["rounds"] != c.record["rounds"]


def test_start_player_rotates_and_the_others_never_copy_its_colour_before_the_last_rounds():
    result = play_game(["greedy"] * 4, 3, {"variant": {"start_player": 2}})
    rounds = result.record["rounds"]
    assert [r["start"] for r in rounds] == [(2 + k) % 4 for k in range(15)]
    for k, entry in enumerate(rounds, start=1):
        start = entry["moves"][entry["start"]]
        same = [m for s, m in enumerate(entry["moves"])
                if s != entry["start"] and m and start and m[0] == start[0]]
        if k <= 12:
            assert not same


def test_wild_nights_shaker_gains_a_wild_on_rounds_two_to_eight_and_loses_those_shown():
    rules = load_rules({"variant": {"wild_nights": True}}, 2)
    dealt = deal(rules, 7, 2)
    wild = 1
    for k, (shaker, pattern) in enumerate(zip(dealt.shakers, dealt.patterns), start=1):
        if k in range(2, 9):
            wild += 1
        assert shaker[5] == wild
        wild -= pattern.count(5)
    assert sum(p.count(5) for p in dealt.patterns) <= 8
    plain = deal(load_rules({}, 2), 7, 2)
    assert all(s[5] == 0 for s in plain.shakers)


def test_construction_variant_scores_only_players_who_cleared_their_tiles():
    rules = load_rules({"variant": {"construction": True}}, 2)
    seen = set()
    for seed in range(30):
        result = play_game(["greedy", "random"], seed, rules)
        assert len(result.record["construction"]) == 4
        cells = sorted((r, c) for r, c, _ in result.record["construction"])
        assert cells == [(1, 1), (2, 2), (3, 3), (4, 4)]
        for row in result.rows:
            seen.add(row["qualified"])
            if not row["qualified"]:
                assert row["total"] == 0 and not row["won"]
        if not any(row["qualified"] for row in result.rows):
            assert not any(row["won"] for row in result.rows)
    assert seen == {True, False}


def test_greedy_beats_random():
    greedy, rand = [], []
    for seed in range(20):
        rows = play_game(["greedy", "random"], seed).rows
        greedy.append(rows[0]["total"])
        rand.append(rows[1]["total"])
    assert np.mean(greedy) > np.mean(rand) + 10


# --- records -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def record():
    return play_game(["greedy", "random"], 21, {"variant": {"construction": True}}).record


def test_a_record_replays_to_the_same_rows(record):
    again = replay(copy.deepcopy(record))
    assert again.record == record


def test_a_changed_move_is_caught_with_its_round_and_seat(record):
    bad = copy.deepcopy(record)
    move = bad["rounds"][4]["moves"][1]
    bad["rounds"][4]["moves"][1] = [move[0], move[1], 9, 9]
    with pytest.raises(ReplayError, match=r"^round 5, seat 1: the recorded move is not legal"):
        replay(bad)


def test_a_changed_pattern_seed_or_score_is_caught(record):
    bad = copy.deepcopy(record)
    bad["rounds"][2]["pattern"] = "HHHHHHHHH"
    with pytest.raises(ReplayError, match=r"^round 3: pattern 'HHHHHHHHH' recorded, the seed shakes"):
        replay(bad)
    bad = copy.deepcopy(record)
    bad["seed"] += 1
    with pytest.raises(ReplayError):
        replay(bad)
    bad = copy.deepcopy(record)
    bad["scores"][0]["homes"] += 1
    with pytest.raises(ReplayError, match="recorded scores differ"):
        replay(bad)
    bad = copy.deepcopy(record)
    bad["boards"][1][0] = "HHHHHH"
    with pytest.raises(ReplayError, match="recorded final boards differ"):
        replay(bad)
    bad = copy.deepcopy(record)
    del bad["rounds"]
    with pytest.raises(ReplayError, match="record cannot be read"):
        replay(bad)


def test_a_pass_recorded_where_a_move_was_legal_is_caught(record):
    bad = copy.deepcopy(record)
    bad["rounds"][0]["moves"][0] = None
    with pytest.raises(ReplayError, match=r"^round 1, seat 0"):
        replay(bad)


# --- strategy API ----------------------------------------------------------------------------

class Prying(Strategy):
    """Tries to change what it is shown, then plays the first move."""

    name = "prying"

    def __init__(self, params=None):
        super().__init__(params)
        self.blocked = 0

    def choose(self, view, moves):
        for attempt in (lambda: setattr(view.board, "masks", (0,) * 5),
                        lambda: view.masks.clear(),
                        lambda: setattr(view, "round", 15),
                        lambda: setattr(view.rules.points, "road", 100),
                        lambda: setattr(view.rules.layout, "full", 0)):
            try:
                attempt()
            except (AttributeError, TypeError):
                self.blocked += 1
        moves.clear()
        return Move(*view.masks and next(iter(view.masks)))


def test_strategies_cannot_change_the_game_through_the_api():
    prying = Prying()
    honest = play_game(["greedy", "random"], 4)
    result = play_game([{"strategy": "greedy"}, prying], 4)
    assert prying.blocked == 5 * sum(1 for r in result.record["rounds"] if r["moves"][1])
    assert result.record["rounds"][0]["moves"][0] == honest.record["rounds"][0]["moves"][0]
    check_game(result, load_rules({}, 2), 2)


class Answer(Strategy):
    name = "answer"

    def __init__(self, make):
        super().__init__()
        self.make = make

    def choose(self, view, moves):
        return self.make(moves[0])


class SubMove(Move):
    pass


@pytest.mark.parametrize("make, problem", [
    (lambda m: tuple(m), "not a Move"),
    (lambda m: SubMove(*m), "not a Move"),
    (lambda m: Move(m.building, m.wild, 99, m.col), "not one of the"),
    (lambda m: Move(m.building, m.wild, float(m.row), m.col), "not one of the options"),
    (lambda m: 1 / 0, "raised ZeroDivisionError"),
])
def test_an_answer_that_is_not_an_option_is_a_strategy_error(make, problem):
    with pytest.raises(StrategyError, match=rf"strategy 'answer' \(seat 0\) .*{problem}.* in game seed 3, round 1$") as raised:
        play_game([Answer(make), "random"], 3)
    assert (raised.value.seat, raised.value.seed, raised.value.turn, raised.value.unit) == (0, 3, 1, "round")


def test_numpy_values_in_an_answer_count_as_plain_ones():
    make = lambda m: Move(m.building, np.bool_(m.wild), np.int64(m.row), np.int32(m.col))  # noqa: E731
    result = play_game([Answer(make), "random"], 3)
    assert all(isinstance(v, (str, bool, int)) for r in result.record["rounds"]
               for m in r["moves"] if m for v in m)


def test_strategy_parameters_are_checked():
    with pytest.raises(ValueError, match="strategy 'greedy': unknown parameter 'opne'"):
        play_game([{"strategy": "greedy", "params": {"opne": 1.0}}], 1)
    with pytest.raises(ValueError, match="strategy 'lookahead': candidates and samples must be at least 1"):
        play_game([{"strategy": "lookahead", "params": {"samples": 0}}], 1)
    with pytest.raises(ValueError, match=r"parameter 'samples' must be a number \(an integer\)"):
        play_game([{"strategy": "lookahead", "params": {"samples": 2.5}}], 1)
    with pytest.raises(ValueError, match="unknown strategy 'gredy'"):
        play_game(["gredy"], 1)
    names = [row["player"] for row in play_game(["random", "random", "greedy"], 1).rows]
    assert names == ["random", "random-2", "greedy"]


def test_bundled_configs_load_and_play():
    import pathlib

    import yaml

    from welcometo_sim.games import load_game

    from welcometo_sim.config import load_config

    paths = sorted((pathlib.Path(__file__).resolve().parents[1] / "configs").glob("shake-that-city*.yaml"))
    assert len(paths) >= 5
    variants = set()
    for path in paths:
        config = yaml.safe_load(path.read_text())
        assert config["game"] == "shake-that-city"
        assert load_config(path).game == "shake-that-city"
        seats = [p["strategy"] if isinstance(p, dict) else p for p in config["players"]]
        game = load_game(config["game"], {"variant": config.get("variant"),
                                          "overrides": config.get("overrides")}, len(seats))
        result = game.play(["random"] * len(seats), config["seed"])
        assert len(result.rows) == len(seats)
        assert all(s in game.strategies for s in seats)
        variants.add(tuple(sorted((k, v) for k, v in (config.get("variant") or {}).items() if v)))
    assert {(("family", True),), (("solo", True),), (("construction", True),),
            (("wild_nights", True),)} <= variants


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(VARIANTS))
def test_the_search_evaluation_equals_the_scoring_of_every_candidate_board(seed, variant):
    from types import SimpleNamespace

    from welcometo_sim.games.shake_that_city.evaluation import Evaluator
    from welcometo_sim.games.shake_that_city.moves import legal_moves

    rules = load_rules({"variant": variant}, 2)
    result = play_game(["random", "random"], seed, rules)
    record = result.record
    flat = Evaluator({"open": 0, "bonus": 0, "construction": 0, "construction_growth": 0,
                      "space": 0})
    view = SimpleNamespace(rules=rules, tiles=tuple(record["tiles"]), rounds=15)
    board = Board(rules.layout, construction=tuple((rules.layout.bit(r, c), p)
                                         for r, c, p in record["construction"]))
    for entry in record["rounds"]:
        pattern = parse_pattern(entry["pattern"])
        moves = legal_moves(board, pattern, BUILDINGS)
        placements = [(BUILDINGS.index(m.building), k) for m, k in moves.items()]
        values = flat.values(board, view, 5, placements)
        finals = flat.values(board, view, 0, placements)
        for (code, mask), value, final in zip(placements, values, finals):
            after = board.place(code, mask)
            s = score(after, rules.points, view.tiles, rules.variant.family,
                      rules.variant.uses_construction)
            raw = sum(getattr(s, c) for c in ("roads", "parks", "factories", "shops", "homes",
                                               "bonus"))
            assert value == raw
            expected = (-1000.0 - s.construction_left if not s.qualified
                        else s.total + 0.01 * s.flipped - 0.001 * s.empty)
            assert final == pytest.approx(expected)
        move = entry["moves"][0]
        if move is not None:
            m = Move(move[0], move[1], move[2], move[3])
            board = board.place(m.building, legal_moves(board, pattern, BUILDINGS)[m])


class CheckedLookahead(Strategy):
    """Checks, at every decision, that the numpy batch replies equal the Python ones."""

    name = "checked"

    def __init__(self):
        super().__init__()
        from welcometo_sim.games.shake_that_city.strategies import LookaheadStrategy

        self.inner = LookaheadStrategy(None, {"candidates": 4, "samples": 3})
        self.checked = 0

    def bind(self, seat, rng):
        super().bind(seat, rng)
        self.inner.bind(seat, rng)

    def choose(self, view, moves):
        from welcometo_sim.games.shake_that_city.shake import shake

        inner = self.inner
        if view.rounds_left:
            shaker = [view.next_shaker[name] for name in ("home", "shop", "factory", "park", "road",
                                                          "wild")]
            patterns = [shake(self.rng, shaker) for _ in range(3)]
            boards = [view.after(m) for m in moves[:4]]
            batch = inner.replies(boards, view, patterns)
            plain = [[inner.reply(b, view, p) for p in patterns] for b in boards]
            assert batch == plain
            self.checked += 1
        return inner.choose(view, moves)


@pytest.mark.parametrize("variant", [{"solo": True}, {"side": "seaside"}, {"family": True},
                                     {"construction": True, "wild_nights": True}])
def test_batch_evaluation_equals_the_python_one(variant):
    checked = CheckedLookahead()
    n = 1 if variant.get("solo") else 2
    play_game([checked] + ["greedy"] * (n - 1), 5, {"variant": variant})
    assert checked.checked >= 10


def test_a_record_with_overrides_replays_through_json():
    params = {"variant": {"side": "seaside"},
              "overrides": {"bonus": {"tiles": {2: [{"kind": "count", "building": "home",
                                                     "at_least": 1}]}},
                            "scoring": {"road": 2}}}
    result = play_game(["greedy", "greedy"], 9, params)
    record = json.loads(json.dumps(result.record))
    assert record["variant"]["overrides"]["scoring"] == {"road": 2}
    assert replay(record).rows == result.rows
    assert all(row["roads"] % 2 == 0 for row in result.rows)


def test_render_shows_the_boards_after_a_round(record):
    from welcometo_sim.games.shake_that_city import boards_at, render

    assert [b.grid() for b in boards_at(record)] == record["boards"]
    assert all(str(b) == "\n".join(["......", ".#....", "..#...", "...#..", "....#.", "......"])
               for b in boards_at(record, 0))
    text = render(record)
    assert text.splitlines()[0] == "shake-that-city, seed 21, after round 15"
    for seat, grid in enumerate(record["boards"]):
        assert "\n".join("  " + row for row in grid) in text
        assert f"seat {seat}: total {record['scores'][seat]['total']} (roads" in text
    early = render(record, 3)
    assert early.splitlines()[1].startswith("pattern " + record["rounds"][2]["pattern"][:3] + "/")
    assert "total" not in early
    with pytest.raises(ReplayError, match="round 16: the game has rounds 1 to 15"):
        render(record, 16)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, path + (i,))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_mutated_record_replays_or_is_one_replay_error(record, data):
    paths = [p for p in _paths(record) if p]
    path = data.draw(st.sampled_from(paths))
    new = data.draw(st.one_of(st.none(), st.booleans(), st.integers(-3, 40), st.text(max_size=9),
                              st.lists(st.integers(0, 5), max_size=4)))
    bad = copy.deepcopy(record)
    target = bad
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    try:
        again = replay(bad)
    except ReplayError as exc:
        assert "\n" not in str(exc)
    else:
        assert again.record["scores"] == [dict(s) for s in bad["scores"]]


class Watcher(Strategy):
    """Plays at random and checks what each view offers against the colour rules."""

    name = "watcher"

    def __init__(self):
        super().__init__()
        self.seen = {"free_copy": 0, "closed": 0}

    def choose(self, view, moves):
        shown = {c for c in view.pattern if c != "wild"}
        assert set(view.allowed) <= shown
        assert {m.building for m in moves} <= set(view.allowed)
        if view.is_start:
            assert view.start_choice is None and set(view.allowed) == shown
        elif view.start_choice is not None:
            assert (view.start_choice in view.allowed) == view.free
            self.seen["free_copy" if view.free else "closed"] += 1
        return moves[int(self.rng.integers(len(moves)))]


def test_views_offer_the_start_players_colour_to_the_others_only_in_the_last_rounds():
    watchers = [Watcher() for _ in range(3)]
    for seed in range(6):
        play_game(watchers, seed)
    assert all(w.seen["free_copy"] > 0 and w.seen["closed"] > 0 for w in watchers)
