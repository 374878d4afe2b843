"""The one player-entry parser (welcometo_sim.player_entries) as both games use it:
what each form of entry seats, and the one line of every mistake, with its place."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from welcometo_sim.games.welcome_to.run_config import STRATEGY_LOOKUP as WELCOME_TO_LOOKUP
from welcometo_sim.config import ConfigError, parse_config
from welcometo_sim.games.config import GameStrategy
from welcometo_sim.games.shake_that_city import STRATEGY_LOOKUP as CITY_LOOKUP
from welcometo_sim.player_entries import PLAYER_KEYS, StrategyLookup, parse_player_entries, split_reference
from welcometo_sim.strategy import StrategySpec

CITY = "shake-that-city"
WELCOME = "welcome-to"
WT_KNOWN = "greedy, heuristic, learned, lookahead, planner, random, safe, specialist"
CITY_KNOWN = "random, greedy, lookahead, learned"
CITY_GREEDY_KNOWN = "bonus, construction, construction_growth, open, space"

LOOKUPS = {WELCOME: WELCOME_TO_LOOKUP, CITY: CITY_LOOKUP}

BOT = textwrap.dedent('''
    from welcometo_sim.strategy import Strategy

    class LowestFirst(Strategy):
        name = "lowest-first"
        defaults = {"use_effects": True}

        def choose_play(self, view, plays):
            return min((p for p in plays if p is not None), key=lambda p: (p.number, p.house))
''')


def seated(game: str, entries, base_dir: Path | None = None) -> list[tuple[str, object]]:
    """(name, strategy) of every seat the entries give in `game`."""
    return [(p.name, p.strategy) for p in parse_player_entries(entries, "c.yaml", LOOKUPS[game], base_dir)]


def refused(game: str, entries, base_dir: Path | None = None) -> str:
    """The one line the entries are refused with."""
    with pytest.raises(ConfigError) as caught:
        parse_player_entries(entries, "c.yaml", LOOKUPS[game], base_dir)
    message = str(caught.value)
    assert "\n" not in message
    return message


def spec(game: str, ref: str, params: dict | None = None):
    return StrategySpec(ref, params or {}) if game == WELCOME else GameStrategy(ref, params or {})


# ------------------------------------------------------------------ what seats
@pytest.mark.parametrize("game", [WELCOME, CITY])
def test_a_plain_name_seats_that_strategy_under_its_name(game):
    assert seated(game, ["greedy"]) == [("greedy", spec(game, "greedy"))]


def test_inline_parameters_go_to_the_strategy_and_stay_in_a_welcome_to_seats_name():
    assert seated(WELCOME, ["greedy:shortlist=3,weights.flexibility=2"]) == [
        ("greedy:shortlist=3,weights.flexibility=2",
         StrategySpec("greedy", {"shortlist": 3, "weights": {"flexibility": 2}}))]


def test_inline_parameters_go_to_the_strategy_and_a_shake_that_city_seat_keeps_the_name_alone():
    assert seated(CITY, ["lookahead:samples=2,open=0.25"]) == [
        ("lookahead", GameStrategy("lookahead", {"samples": 2, "open": 0.25}))]


@pytest.mark.parametrize("game, params", [(WELCOME, {"shortlist": 4}), (CITY, {"open": 0.75})])
def test_the_mapping_form_gives_name_and_params(game, params):
    entries = [{"strategy": "greedy", "name": "mine", "params": params}, {"strategy": "random"}]
    assert seated(game, entries) == [("mine", spec(game, "greedy", params)), ("random", spec(game, "random"))]


@pytest.mark.parametrize("game, inline, params, merged", [
    (WELCOME, "weights.flexibility=3", {"weights": {"points": 2}, "shortlist": 2},
     {"weights": {"points": 2, "flexibility": 3}, "shortlist": 2}),
    (CITY, "samples=3", {"samples": 1, "open": 0.5}, {"samples": 3, "open": 0.5}),
])
def test_inline_parameters_are_laid_over_the_params_mapping(game, inline, params, merged):
    ref = "greedy" if game == WELCOME else "lookahead"
    [(_name, strategy)] = seated(game, [{"strategy": f"{ref}:{inline}", "params": params}])
    assert strategy == spec(game, ref, merged) and strategy.params == merged


@pytest.mark.parametrize("game", [WELCOME, CITY])
def test_repeated_names_are_numbered_in_seat_order(game):
    names = [name for name, _ in seated(game, ["random", "greedy", "random", {"strategy": "greedy", "name": "random"},
                                               "random"])]
    assert names == ["random", "greedy", "random-2", "random-3", "random-4"]


def test_a_welcome_to_module_reference_is_loaded_and_shown_by_the_class_name(tmp_path):
    (tmp_path / "mybots.py").write_text(BOT)
    bot = f"{tmp_path / 'mybots.py'}:LowestFirst"
    entries = ["strategies.greedy:GreedyStrategy", bot, f"{bot}", {"strategy": bot, "name": "mine"}]
    assert seated(WELCOME, entries) == [
        ("greedy", StrategySpec("strategies.greedy:GreedyStrategy")),
        ("lowest-first", StrategySpec(bot)), ("lowest-first-2", StrategySpec(bot)), ("mine", StrategySpec(bot))]


def test_a_shake_that_city_module_reference_is_refused_as_the_game_takes_names_only():
    ref = "welcometo_sim.games.shake_that_city.strategies:GreedyStrategy"
    assert refused(CITY, [ref]) == (f"c.yaml: players[0].strategy: {ref!r}: {CITY} takes strategies by name only, "
                                    f"not module:Class, file.py:Class (strategies of {CITY}: {CITY_KNOWN})")


@pytest.mark.parametrize("game, params, own", [
    (WELCOME, {"shortlist": 5, "temperature": 0.5}, {"temperature": 0.0}),
    (CITY, {"open": 0.25, "space": 0.1}, {"space": 0.0}),
])
def test_a_params_file_seats_its_strategy_under_the_entrys_own_params(tmp_path, game, params, own):
    (tmp_path / "best.yaml").write_text(yaml.safe_dump({"strategy": "greedy", "params": params}))
    assert seated(game, [{"params_file": "best.yaml", "params": own}], tmp_path) == [
        ("greedy", spec(game, "greedy", {**params, **own}))]


@pytest.mark.parametrize("raw, game", [
    ({"players": ["greedy", "greedy:shortlist=2", {"strategy": "random", "name": "r"}]}, WELCOME),
    ({"game": CITY, "players": ["greedy", "lookahead:samples=2", {"strategy": "random", "name": "r"}]}, CITY),
])
def test_configs_of_both_games_read_their_players_through_the_parser(raw, game):
    players = parse_config(raw, "c.yaml").players
    assert [(p.name, p.strategy) for p in players] == seated(game, raw["players"])


def test_the_lookup_is_what_differs_between_games():
    lookup = StrategyLookup(game="toy", builtins=lambda: {"first": object},
                            make=lambda ref, params: (ref, tuple(sorted(params.items()))))
    players = parse_player_entries(["first", "first:speed=2"], "cli", lookup)
    assert [(p.name, p.strategy) for p in players] == [("first", ("first", ())),
                                                        ("first:speed=2", ("first", (("speed", 2),)))]
    with pytest.raises(ConfigError, match=r"^cli: players\[0\]\.strategy: unknown strategy 'second' "
                                          r"\(strategies of toy: first\)$"):
        parse_player_entries(["second"], "cli", lookup)
    assert split_reference(" pkg.mod:Class ") == ("pkg.mod:Class", {})
    assert PLAYER_KEYS == {"strategy", "name", "params", "params_file"}


# ------------------------------------------------------------------ mistakes
BOTH = [WELCOME, CITY]


@pytest.mark.parametrize("game", BOTH)
@pytest.mark.parametrize("raw, message", [
    (None, "c.yaml: players: missing (a list of strategies, one per seat)"),
    ([], "c.yaml: players: must be a non-empty list of strategies, one per seat"),
    ("greedy", "c.yaml: players: must be a non-empty list of strategies, one per seat"),
    (["random", 42], "c.yaml: players[1]: must be a strategy name or a mapping"),
    ([{"strategy": "random", "colour": "red"}],
     "c.yaml: players[0].colour: unknown key (known: name, params, params_file, strategy)"),
    ([{"strategy": "random", "a\nb": 1}],
     "c.yaml: players[0].'a\\nb': unknown key (known: name, params, params_file, strategy)"),
    ([{"name": "x"}], "c.yaml: players[0].strategy: missing or not a string"),
    ([{"strategy": ""}], "c.yaml: players[0].strategy: missing or not a string"),
    ([{"strategy": "random", "params": [1]}], "c.yaml: players[0].params: must be a mapping"),
    ([{"strategy": "random", "name": 3}], "c.yaml: players[0].name: must be a string"),
    (["greedy:open=1,oops"],
     "c.yaml: players[0].strategy: strategy 'greedy:open=1,oops': parameter 'oops' is not KEY=VALUE"),
    (["greedy:open=["], "c.yaml: players[0].strategy: strategy 'greedy:open=[': parameter 'open': "
                        "malformed value (YAML: expected the node content, but found '<stream end>')"),
])
def test_a_malformed_entry_is_one_line_naming_its_place(game, raw, message):
    assert refused(game, raw) == message


@pytest.mark.parametrize("game, known", [(WELCOME, f"{WT_KNOWN}; or module:Class, file.py:Class"),
                                         (CITY, CITY_KNOWN)])
def test_an_unknown_strategy_lists_the_games_strategies(game, known):
    assert refused(game, ["random", "gredy"]) == (
        f"c.yaml: players[1].strategy: unknown strategy 'gredy' (strategies of {game}: {known})")


def test_a_strategy_of_the_other_game_names_that_game():
    assert refused(CITY, ["planner"]) == (f"c.yaml: players[0].strategy: 'planner' is a {WELCOME} strategy, "
                                          f"not one of {CITY} (strategies of {CITY}: {CITY_KNOWN})")


def test_a_welcome_to_reference_that_cannot_be_loaded_says_why(tmp_path):
    assert refused(WELCOME, ["nosuch_module_x:Bot"]) == (
        "c.yaml: players[0].strategy: strategy 'nosuch_module_x:Bot': cannot import 'nosuch_module_x': "
        "No module named 'nosuch_module_x'")
    missing = tmp_path / "gone.py"
    assert refused(WELCOME, [f"{missing}:Bot"]) == (
        f"c.yaml: players[0].strategy: strategy '{missing}:Bot': file '{missing}' not found")


@pytest.mark.parametrize("game, params, problem", [
    (WELCOME, {"shortlist": 0}, "strategy 'greedy': parameter 'shortlist' must be at least 1, got 0"),
    (WELCOME, {"nope": 1}, "strategy 'greedy': unknown parameter 'nope' (known: shortlist, temperature, weights)"),
    (CITY, {"depth": 2}, f"strategy 'greedy': unknown parameter 'depth' (known: {CITY_GREEDY_KNOWN})"),
])
def test_a_refused_parameter_is_named_where_it_was_written(game, params, problem):
    assert refused(game, [{"strategy": "greedy", "params": params}]) == f"c.yaml: players[0].params: {problem}"
    inline = ",".join(f"{key}={value}" for key, value in params.items())
    assert refused(game, [f"greedy:{inline}"]) == f"c.yaml: players[0].strategy: {problem}"


@pytest.mark.parametrize("game", BOTH)
def test_params_file_mistakes_name_the_file_and_key_never_the_files_values(tmp_path, game):
    secret = "hunter2-secret"
    where = f"c.yaml: players[0].params_file: {tmp_path}"
    assert refused(game, [{"params_file": "nowhere.yaml"}], tmp_path) == f"{where}/nowhere.yaml: file not found"
    (tmp_path / "g.yaml").write_text("strategy: greedy\n")
    assert refused(game, [{"strategy": "random", "params_file": "g.yaml"}], tmp_path) == (
        f"{where}/g.yaml holds parameters of 'greedy', not of 'random'")
    (tmp_path / "s.yaml").write_text(f"strategy: {secret}\n")
    assert refused(game, [{"params_file": "s.yaml"}], tmp_path) == (
        f"{where}/s.yaml: strategy: not a strategy that can be loaded (the value is not shown)")
    key, message = ("shortlist", "must be an integer") if game == WELCOME else ("open", "must be a finite number")
    (tmp_path / "v.yaml").write_text(f"strategy: greedy\nparams: {{{key}: '{secret}'}}\n")
    assert refused(game, [{"params_file": "v.yaml"}], tmp_path) == (
        f"{where}/v.yaml: params.{key}: {message} for strategy 'greedy' (the value is not shown)")
    (tmp_path / "k.yaml").write_text(f"strategy: greedy\nparams:\n  {secret}: 1\n")
    assert refused(game, [{"params_file": "k.yaml"}], tmp_path).startswith(
        f"{where}/k.yaml: line 3: unknown parameter (known: ")
    (tmp_path / "ok.yaml").write_text("strategy: greedy\n")
    own = {"shortlist": 0} if game == WELCOME else {"open": "x"}
    line = refused(game, [{"params_file": "ok.yaml", "params": own}], tmp_path)
    assert line.startswith("c.yaml: players[0].params: strategy 'greedy': parameter ")   # the config's own: quoted


@pytest.mark.parametrize("game", BOTH)
def test_command_line_strategies_are_read_by_the_same_rules(game):
    with pytest.raises(ConfigError, match=r"^command line: players\[1\]\.strategy: unknown strategy 'gredy' "):
        parse_player_entries(["random", "gredy"], "command line", LOOKUPS[game])
