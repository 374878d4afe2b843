"""Welcome To's results do not move: two fixed runs are played again and their
result tables compared cell by cell with the tables saved in tests/data/ (written
by `wtsim run ... --format csv` before the game interface existed)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pandas as pd
import pytest

from welcometo_sim.api import run

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent

FIXED_RUNS = [
    # (config, overrides, saved table)
    (ROOT / "configs" / "baseline-random.yaml", {"games": 40, "seed": 11}, "welcome_to_baseline_random.csv"),
    (DATA / "welcome_to_fixed_run.yaml", {}, "welcome_to_fixed_run.csv"),
]


def _as_saved(frame: pd.DataFrame) -> pd.DataFrame:
    """A result table as it reads back from its CSV file (the way the fixture was saved)."""
    text = frame.to_csv(index=False, lineterminator="\n")
    return pd.read_csv(StringIO(text), keep_default_na=False, dtype=str)


@pytest.mark.parametrize("config, overrides, saved", FIXED_RUNS, ids=[r[2] for r in FIXED_RUNS])
def test_a_fixed_welcome_to_run_gives_the_saved_table(config: Path, overrides: dict, saved: str) -> None:
    expected = pd.read_csv(DATA / saved, keep_default_na=False, dtype=str)
    played = _as_saved(run(config, jobs=1, **overrides))
    assert list(played.columns) == list(expected.columns)
    assert len(played) == len(expected) > 0
    pd.testing.assert_frame_equal(played, expected)


def test_welcome_to_behind_the_game_interface_gives_the_runners_rows() -> None:
    from welcometo_sim.games import load_game
    from welcometo_sim.sim.runner import game_seed

    expected = pd.read_csv(DATA / "welcome_to_baseline_random.csv", keep_default_na=False, dtype=str)
    game = load_game("welcome-to", {"variant": {"board": "base"}}, 2)
    for index in (0, 7):
        result = game.play(["greedy", "random"], game_seed(11, index))
        played = _as_saved(pd.DataFrame(result.rows).astype(dict(game.dtypes)))
        saved = expected[expected["game"] == str(index)].drop(columns="game").reset_index(drop=True)
        pd.testing.assert_frame_equal(played, saved)
        game.replay(result.record)
        assert "seat 1: random (random)" in game.render(result.record, 5)
