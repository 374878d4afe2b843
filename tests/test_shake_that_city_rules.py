"""Shake That City rules on hand-built boards: scoring, placement legality, colour choice, data."""

from __future__ import annotations

import pytest

from welcometo_sim.games import UnknownGame, load_game
from welcometo_sim.games.shake_that_city import Board, DataError, Move, load_data, load_rules
from welcometo_sim.games.shake_that_city.moves import allowed_buildings, legal_moves
from welcometo_sim.games.shake_that_city.scoring import Score, flipped_tiles, ranks, score
from welcometo_sim.games.shake_that_city.shake import parse_pattern

TILES = (1, 2, 3, 4, 5, 6, 7)
INLAND = load_rules({})
SEASIDE = load_rules({"variant": {"side": "seaside"}})


def board(rules, *rows, construction=()):
    return Board.from_grid(rules.layout, rows, construction)


def score_of(rules, *rows, **kw):
    return score(board(rules, *rows), rules.points, TILES, **kw)


# --- scoring -----------------------------------------------------------------------------

def test_roads_score_when_linked_to_a_black_edge_and_shops_by_zone():
    s = score_of(INLAND,
                 "RS....",
                 "R.....",
                 "RRS...",
                 "...S..",
                 "...R..",
                 "......")
    # roads (0,0) (1,0) (2,0) touch the west edge, (2,1) links through them; (4,3) is alone
    assert s.roads == 4
    # shop (0,1): edge, green zone 1; (2,2): next to a linked road, grey zone 3;
    # (3,3): only next to an unlinked road
    assert s.shops == 1 + 3
    assert (s.parks, s.factories, s.homes) == (0, 0, 0)
    assert s.total == 8


def test_shops_score_their_zone_green_brown_grey():
    # (0,0) green on the edge: 1; (1,1) brown beside the linked road (1,0): 2;
    # (2,2) grey beside the linked road (2,1)-(2,0): 3; (1,4) brown, no linked road: 0
    s = score_of(INLAND, "S.....", "RS..S.", "RRS...", "......", "......", "......")
    assert s.shops == 1 + 2 + 3


def test_a_shop_behind_an_unlinked_road_scores_nothing_until_the_road_links():
    rows = ["......", "......", "..SR..", "......", "......", "......"]
    assert score_of(INLAND, *rows).shops == 0
    linked = ["...R..", "...R..", "..SR..", "......", "......", "......"]
    s = score_of(INLAND, *linked)
    assert (s.roads, s.shops) == (3, 3)


def test_homes_parks_and_factories_inland():
    s = score_of(INLAND,
                 "HH.F..",
                 "...F..",
                 "P.....",
                 "H.....",
                 "HP....",
                 ".FH...")
    # home groups: top pair 2, west pair 2, (5,2) touches a factory: 0
    assert s.homes == 4
    # factories (0,3),(1,3) side by side: 1 each; (5,1) has no factory or road beside it
    assert s.factories == 2
    # park (2,0): a home beside it; park (4,1): a home and a factory beside it
    assert s.parks == 1 + 2
    assert (s.roads, s.shops) == (0, 0)


def test_factory_next_to_a_road_and_a_factory_scores_at_most_two():
    s = score_of(INLAND,
                 "......",
                 ".FFR..",
                 ".F....",
                 "......",
                 "......",
                 "......")
    # (1,1): factories beside -> 1; (1,2): factory + road -> 2; (2,1): factory -> 1
    assert s.factories == 4


def test_one_big_home_group_scores_two_and_a_factory_anywhere_beside_it_spoils_it():
    big = ["HHHH..", "H.....", "H.....", "......", "......", "......"]
    assert score_of(INLAND, *big).homes == 2
    spoilt = ["HHHH..", "H.....", "H.....", "F.....", "......", "......"]
    assert score_of(INLAND, *spoilt).homes == 0


def test_seaside_parks_use_the_beach_and_home_groups_on_the_beach_get_one_more():
    s = score_of(SEASIDE,
                 "......",
                 ".....P",
                 ".....F",
                 ".....H",
                 "....PR",
                 "RRHH.P")
    # black edges north and west: (5,0) and (5,1) link; (4,5) lies on the beach only
    assert s.roads == 2
    # parks (1,5), (5,5) on the beach edge: 1 each (a factory beside scores nothing seaside)
    assert s.parks == 2
    # homes (5,2)-(5,3) on the beach: 2 + 1; (3,5) touches a factory: 0
    assert s.homes == 3
    assert s.factories == 0


def test_beach_point_of_a_spoilt_group_follows_the_data():
    rules = load_rules({"variant": {"side": "seaside"},
                        "overrides": {"scoring": {"home_beach_despite_factory": True}}})
    s = score_of(rules, "......", "......", "......", "......", ".....F", ".....H")
    assert s.homes == 1


def test_bonus_tiles_flip_on_their_lines():
    b = board(INLAND,
              ".H....",
              "......",
              ".H...P",
              "..R.R.",
              ".H....",
              "RRRRRP")
    flips = flipped_tiles(INLAND.layout, INLAND.points, TILES, b.masks)
    # slots: diagonal, columns 1 3 5, rows 1 3 5 (tiles 1..7 in that order)
    # column 1 has 3 homes (tile 2); column 5 has 2 parks (tile 4);
    # row 3 has 2 roads (tile 6); row 5 is full (tile 7)
    assert flips == [False, True, False, True, False, True, True]
    s = score(b, INLAND.points, TILES)
    assert (s.flipped, s.bonus) == (4, 12)


def test_bonus_distinct_and_full_conditions():
    def corner(*rows):
        return flipped_tiles(INLAND.layout, INLAND.points, TILES, board(INLAND, *rows).masks)[0]
    # tile 1 (the corner, on the diagonal): the diagonal full, or five distinct types on it
    assert not corner("H.....", ".S....", "..F...", "...P..", "....H.", "......")
    assert corner("H.....", ".S....", "..F...", "...P..", "....R.", "......")
    assert not corner("H.....", ".H....", "..H...", "...H..", "....H.", "......")
    assert corner("H.....", ".H....", "..H...", "...H..", "....H.", ".....H")


def test_family_scores_only_bonus_tiles():
    s = score_of(INLAND, "RS....", "R.....", "RRS...", "......", "......", "RRRRRR", family=True)
    assert (s.roads, s.parks, s.factories, s.shops, s.homes) == (0, 0, 0, 0, 0)
    assert s.bonus == 3 and s.total == 3


def test_construction_tiles_left_mean_a_total_of_zero():
    b = board(INLAND, "RS....", "R.....", "......", "......", "......", "......",
              construction=[((3, 3), 0)])
    s = score(b, INLAND.points, TILES, construction=True)
    assert (s.qualified, s.total, s.roads, s.construction_left) == (False, 0, 2, 1)
    assert score(b, INLAND.points, TILES).total == 3


def test_ties_broken_by_flipped_tiles_then_fewer_empty_cells_then_shared():
    def sc(total, flipped, empty, qualified=True):
        return Score(0, 0, 0, 0, 0, 0, flipped, empty, 0, qualified, total)
    assert ranks([sc(30, 1, 5), sc(30, 2, 9)]) == [2, 1]
    assert ranks([sc(30, 2, 5), sc(30, 2, 9)]) == [1, 2]
    assert ranks([sc(30, 2, 5), sc(30, 2, 5), sc(29, 7, 0)]) == [1, 1, 3]
    assert ranks([sc(0, 0, 0, qualified=False), sc(0, 0, 9)]) == [2, 1]


# --- placement -----------------------------------------------------------------------------

def test_placements_keep_the_exact_shape_and_orientation_translated_only():
    layout = INLAND.layout
    frame = 0b000_001_011   # cubes at (0,0) (0,1) (1,0): an L opening south-east
    places = layout.placements(frame)
    assert len(places) == 5 * 5
    for row, col, mask in places:
        assert set(layout.cells(mask)) == {(row, col), (row, col + 1), (row + 1, col)}
    shapes = {frozenset((r - row, c - col) for r, c in layout.cells(mask)) for row, col, mask in places}
    assert shapes == {frozenset({(0, 0), (0, 1), (1, 0)})}


def test_placements_stay_inside_the_board():
    layout = INLAND.layout
    wide = 0b000_000_111     # a row of three
    places = layout.placements(wide)
    assert {c for _, c, _ in places} == {0, 1, 2, 3}
    assert {r for r, _, _ in places} == set(range(6))
    corners = 0b101_000_101  # the four corners of the pattern: a 3x3 frame
    assert len(layout.placements(corners)) == 16


def test_legal_moves_skip_occupied_cells_and_colours_that_do_not_fit_whole():
    pattern = parse_pattern("HHHSSSPPP")    # homes on the top row, shops middle, parks bottom
    full = board(INLAND, "HHHHH.", "HHHHH.", "HHHHH.", "HHHHH.", "HHHHH.", "HHHHH.")
    # only the east column is free: no row of three fits, so no move at all
    assert legal_moves(full, pattern, ("home", "shop", "park")) == {}
    open_row = board(INLAND, "HHH...", "HHHHHH", "HHHHHH", "HHHHHH", "HHHHHH", "HHHHHH")
    moves = legal_moves(open_row, pattern, ("home", "shop", "park"))
    assert set(moves) == {Move(b, False, 0, 3) for b in ("home", "shop", "park")}
    assert all(mask == 0b111000 for mask in moves.values())


def test_legal_moves_place_every_cube_of_the_colour():
    pattern = parse_pattern("H.S".replace(".", "F") + "FFF" + "FFH")
    b = board(INLAND, *["......"] * 6)
    moves = legal_moves(b, pattern, ("home",))
    # homes at pattern (0,0) and (2,2): a 3x3 diagonal pair, 16 translations
    assert len(moves) == 16
    for move, mask in moves.items():
        assert mask.bit_count() == 2
        assert set(INLAND.layout.cells(mask)) == {(move.row, move.col), (move.row + 2, move.col + 2)}


def test_wild_cubes_join_a_colour_and_are_all_taken():
    pattern = parse_pattern("HWSFFFFFW")
    b = board(INLAND, *["......"] * 6)
    moves = legal_moves(b, pattern, ("home", "shop", "factory"))
    home_wild = {m: k for m, k in moves.items() if m.building == "home" and m.wild}
    home_plain = {m: k for m, k in moves.items() if m.building == "home" and not m.wild}
    assert all(k.bit_count() == 3 for k in home_wild.values())   # H + both wilds
    assert all(k.bit_count() == 1 for k in home_plain.values())
    assert len(home_plain) == 36 and len(home_wild) == 16
    placed = b.place("home", next(iter(home_wild.values())))
    assert placed.count("home") == 3


def test_a_board_cannot_be_built_over_and_is_immutable():
    b = board(INLAND, "H.....", *["......"] * 5)
    with pytest.raises(ValueError):
        b.place("shop", INLAND.layout.bit(0, 0))
    with pytest.raises(AttributeError):
        b.masks = (0,) * 5
    after = b.place("shop", INLAND.layout.bit(0, 1))
    assert str(b).splitlines()[0] == "H....." and str(after).splitlines()[0] == "HS...."


def test_construction_tile_leaves_when_its_two_types_stand_side_by_side():
    # tile 0 is home + park; tile 2 factory + road
    b = board(INLAND, "H.....", "......", "......", "......", "......", "......",
              construction=[((2, 2), 0), ((3, 3), 2)])
    assert b.fits(INLAND.layout.bit(1, 1)) and not b.fits(INLAND.layout.bit(2, 2))
    after = b.place("park", INLAND.layout.bit(0, 1))
    assert [pair for _, pair in after.construction] == [2]
    assert after.fits(INLAND.layout.bit(2, 2))
    far = b.place("park", INLAND.layout.bit(5, 5))
    assert len(far.construction) == 2


# --- colour choice ------------------------------------------------------------------------

def test_start_player_takes_any_colour_the_others_another_one():
    pattern = parse_pattern("HHSSFFPPR")
    every = ("home", "shop", "factory", "park", "road")
    assert allowed_buildings(pattern, False, None, True, False) == every
    others = allowed_buildings(pattern, False, "shop", False, False)
    assert others == ("home", "factory", "park", "road")
    assert allowed_buildings(pattern, True, "shop", False, False) == every


def test_colours_missing_from_the_pattern_are_never_offered():
    pattern = parse_pattern("HHHHSSSSS")
    assert allowed_buildings(pattern, True, None, True, False) == ("home", "shop")


def test_solo_closes_the_most_numerous_colour_unless_tied_or_in_the_last_rounds():
    most = parse_pattern("HHHHSSFFP")
    assert allowed_buildings(most, False, None, True, True) == ("shop", "factory", "park")
    assert allowed_buildings(most, True, None, True, True) == ("home", "shop", "factory", "park")
    tied = parse_pattern("HHHSSSFFP")
    assert allowed_buildings(tied, False, None, True, True) == ("home", "shop", "factory", "park")
    wilds = parse_pattern("HHWWWWSFP")   # wild cubes are no colour here
    assert allowed_buildings(wilds, False, None, True, True) == ("shop", "factory", "park")


# --- data, overrides, registry -------------------------------------------------------------

def test_shipped_data_matches_the_rules_text():
    data = load_data()
    assert sum(data.cubes) == 32 and data.cubes == (8, 7, 6, 6, 5)
    assert (data.rounds, data.free_rounds, data.pattern_size) == (15, 3, 3)
    assert len(data.tiles) == 7 and data.corner_tile in data.tile_ids
    assert (data.solo_win, data.solo_win_wild) == (55, 60)
    assert data.wild_start == 1 and data.wild_rounds == (2, 3, 4, 5, 6, 7, 8)
    assert len(data.construction_pairs) == 4


def test_overrides_change_the_numbers_and_bad_ones_name_their_key():
    rules = load_rules({"overrides": {"scoring": {"road": 2}}})
    s = score(board(rules, "R.....", *["......"] * 5), rules.points, TILES)
    assert s.roads == 2
    rings = ["GGGGG", "GBBBG", "GBYBG", "GBBBG", "GGGGG"]
    with pytest.raises(DataError, match=r"^board\.sides\.seaside\.zones: expected 5 strings of 5"):
        load_rules({"overrides": {"board": {"rows": 5, "cols": 5,
                                            "sides": {"inland": {"zones": rings}}}}})
    small = load_rules({"overrides": {"board": {"rows": 5, "cols": 5, "sides": {
        "inland": {"zones": rings}, "seaside": {"zones": rings}}},
        "bonus": {"north_columns": [1, 2, 3], "west_rows": [1, 2, 3]},
        "construction": {"cells": [[0, 0], [1, 1], [2, 2], [3, 3]]}}})
    assert small.layout.n == 25
    with pytest.raises(DataError, match=r"^overrides\.board\.colour: unknown key"):
        load_rules({"overrides": {"board": {"colour": 1}}})
    with pytest.raises(DataError, match=r"^board\.rows: 9 is out of range"):
        load_rules({"overrides": {"board": {"rows": 9}}})
    with pytest.raises(DataError, match=r"bonus\.tiles\.2\[0\]\.building: unknown building 'castle'"):
        load_rules({"overrides": {"bonus": {"tiles": {2: [{"kind": "count", "building": "castle",
                                                            "at_least": 2}]}}}})
    with pytest.raises(DataError, match=r"^cubes: 5 cubes cannot fill"):
        load_rules({"overrides": {"cubes": {"home": 1, "shop": 1, "factory": 1, "park": 1,
                                            "road": 1}}})


def test_variant_checks_are_one_line_naming_the_key():
    with pytest.raises(DataError, match=r"^variant\.solo: solo is for exactly 1 player, not 2$"):
        load_rules({"variant": {"solo": True}}, 2)
    with pytest.raises(DataError, match=r"^variant\.side: unknown side 'moon'"):
        load_rules({"variant": {"side": "moon"}})
    with pytest.raises(DataError, match=r"^variant\.wild: unknown key"):
        load_rules({"variant": {"wild": True}})
    with pytest.raises(DataError, match=r"^variant: solo and family cannot be combined"):
        load_rules({"variant": {"solo": True, "family": True}}, 1)


def test_registry_loads_the_game_by_name_with_its_parameters():
    game = load_game("shake-that-city", {"variant": {"family": True}}, 2)
    assert game.rules.variant.family and "bonus" in game.categories
    result = game.play(["random", "random"], 5)
    assert [row["seat"] for row in result.rows] == [0, 1]
    assert set(game.columns) == set(result.rows[0])
    with pytest.raises(UnknownGame, match="unknown game 'chess'"):
        load_game("chess")
