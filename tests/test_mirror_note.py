"""Mirror tables are named as such: seats with the same deterministic strategy and
parameters see the same Welcome To cards and write the same sheets, so `wtsim run`
and `wtsim summarize` end with one line saying so; the bundled default is not one."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from helpers import wtsim
from welcometo_sim.config import load_config, parse_config
from welcometo_sim.defaults import mirror_note, mirror_seats
from welcometo_sim.sim.results import read_table


def spec(players: list, **variant):
    return parse_config({"players": players, "variant": variant})


@pytest.mark.parametrize("players, variant, groups", [
    (["learned", "learned"], {}, [[0, 1]]),
    (["greedy", "learned", "greedy"], {}, [[0, 2]]),
    (["heuristic", {"strategy": "heuristic", "params": {"temperature": 0.0}}], {}, [[0, 1]]),
    (["learned", "heuristic"], {}, []),
    (["learned", "learned:temperature=0.07"], {}, []),
    (["learned:temperature=0.07", "learned:temperature=0.07"], {}, []),
    (["greedy", {"strategy": "greedy", "params": {"weights": {"points": 2.0}}}], {}, []),
    (["lookahead", "lookahead"], {}, []),
    (["random", "random"], {}, []),
    (["learned", "learned"], {"expert": True}, []),
    (["learned"], {"solo": True}, []),
])
def test_mirror_seats_are_identical_deterministic_seats_seeing_the_same_cards(players, variant, groups):
    assert mirror_seats(spec(players, **variant)) == groups


def test_the_note_names_the_seats_and_players_in_one_line():
    assert mirror_note(spec(["greedy", "learned", "greedy"])) == (
        "note: seats 0 and 2 (greedy and greedy-2) are the same deterministic strategy; "
        "they see the same cards, so every game is a mirror")
    assert mirror_note(spec(["learned", "heuristic"])) is None


def test_a_shake_that_city_table_is_never_a_mirror():
    """Its start player closes a colour to the others, so equal seats still differ."""
    stc = parse_config({"game": "shake-that-city", "players": ["greedy", "greedy"]})
    assert mirror_seats(stc) == []


def test_run_and_summarize_say_so_and_the_games_are_indeed_ties(capsys, tmp_path):
    config = tmp_path / "mirror.yaml"
    config.write_text(yaml.safe_dump({"players": ["greedy", "greedy"]}))
    out_dir = tmp_path / "run"
    code, out, err = wtsim(["run", str(config), "--games", "4", "--out", str(out_dir), "--format", "csv"], capsys)
    assert code == 0, err
    note = ("note: seats 0 and 1 (greedy and greedy-2) are the same deterministic strategy; "
            "they see the same cards, so every game is a mirror")
    assert out.splitlines()[-1] == note
    table = read_table(out_dir)
    assert (table.groupby("game")["total"].nunique() == 1).all()
    code, out, err = wtsim(["summarize", str(out_dir)], capsys)
    assert code == 0, err
    assert out.splitlines()[-1] == note
    code, out, err = wtsim(["summarize", str(out_dir), "--csv"], capsys)
    assert code == 0 and "note:" not in out
    code, out, err = wtsim(["report", str(out_dir), "--out", str(tmp_path / "report")], capsys)
    assert code == 0, err
    header = (tmp_path / "report" / "report.md").read_text(encoding="utf-8").split("\n## ")[0]
    assert "every game is a mirror" in header


def test_the_bundled_default_seats_players_that_differ(capsys, tmp_path):
    assert mirror_seats(load_config()) == []
    out_dir = tmp_path / "default"
    code, out, err = wtsim(["run", "--games", "4", "--out", str(out_dir), "--format", "csv"], capsys)
    assert code == 0, err
    assert "note:" not in out
    table: pd.DataFrame = read_table(out_dir)
    assert set(table["strategy"]) == {"learned", "heuristic"}


def test_compare_of_a_deterministic_strategy_with_itself_says_so(capsys):
    code, out, err = wtsim(["compare", "greedy", "greedy", "--games", "2", "--quiet"], capsys)
    assert code == 0, err
    assert out.splitlines()[-1] == ("note: strategies 0 and 1 (greedy and greedy-2) are the same deterministic "
                                    "strategy; they see the same cards, so every game is a mirror")
    code, out, err = wtsim(["compare", "greedy", "random", "--games", "2", "--quiet"], capsys)
    assert code == 0 and "note:" not in out, err
