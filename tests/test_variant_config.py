"""Variant configs through the `wtsim` command line (RULES.md §10–§13, RECORDS.md).

Every bundled config under ``configs/`` is run once (3 games, with records)
through ``welcometo_sim.cli.main`` (the console entry point); the result table, `wtsim show` and
`wtsim verify` are checked on those runs. Invalid variant combinations and
plan selections must be user errors: exit code 2, exactly one stderr line,
no traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
import yaml

from helpers import rendered_houses, user_error, wtsim
from welcometo_sim.cli import main
from welcometo_sim.sim.results import read_table

CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"
# name -> (advanced, expert, solo, board, players)
BUNDLED = {
    "base": (False, False, False, "base", 2),
    "advanced": (True, False, False, "base", 2),
    "expert": (False, True, False, "base", 3),
    "solo": (False, False, True, "base", 1),
    "ice-cream": (False, False, False, "ice-cream", 2),
    "christmas": (False, False, False, "christmas", 2),
    "easter": (False, False, False, "easter", 2),
    "advanced-expert-ice-cream": (True, True, False, "ice-cream", 3),
    "baseline-random": (False, False, False, "base", 2),
}
BOARD_PLANS = {
    "ice-cream": {"all-cones-one-street", "estates-3-4-5-no-cones", "estates-4-4-4-three-cones"},
    "christmas": {"estates-6-6-lit", "street-fully-lit", "estates-3-3-unlit"},
    "easter": {"all-eggs-bottom-street", "estates-2-3-4-no-eggs", "estates-3-3-3-three-eggs"},
}
BASIC_DECK3 = {"estates-1-2-6", "estates-1-4-5", "estates-3-4", "estates-2-5", "estates-1-2-2-3",
               "estates-2-3-5"}
BOARD_LINE = {"ice-cream": "ice cream", "christmas": "lights", "easter": "eggs"}
GAMES = 3


# ------------------------------------------------------------------ helpers
def write_config(tmp_path: Path, name: str, variant: str, players: str = "[random, random]") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\ngames: 3\nseed: 2\njobs: 1\nvariant: {variant}\nplayers: {players}\n",
                    encoding="utf-8")
    return path


def read_records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "records.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def bundled_runs(tmp_path_factory) -> dict[str, tuple[int, str, str, Path]]:
    """Each bundled config run once through the CLI: (exit code, stdout, stderr, folder)."""
    root = tmp_path_factory.mktemp("bundled")
    runs = {}
    for name in BUNDLED:
        folder = root / name
        out, err = io.StringIO(), io.StringIO()
        code = 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(["run", str(CONFIG_DIR / f"{name}.yaml"), "--games", str(GAMES), "--out", str(folder),
                      "--records", "--quiet"])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        runs[name] = (code, out.getvalue(), err.getvalue(), folder)
    return runs


# --------------------------------------------------------- bundled configs
@pytest.mark.parametrize("name", list(BUNDLED))
def test_bundled_config_runs(name, tmp_path, capsys):
    """`wtsim run CONFIG --games 3 --out tmp --quiet` works for every bundled config."""
    out = tmp_path / "run"
    code, stdout, err = wtsim(["run", str(CONFIG_DIR / f"{name}.yaml"), "--games", "3", "--out", str(out),
                               "--quiet"], capsys)
    assert code == 0, err
    assert "Traceback" not in err and err == ""
    frame = read_table(out)
    advanced, expert, solo, board, players = BUNDLED[name]
    assert len(frame) == 3 * players
    assert list(frame["game"]) == [g for g in range(3) for _ in range(players)]
    assert not (out / "records.jsonl").exists()


@pytest.mark.parametrize("name", list(BUNDLED))
def test_table_reflects_the_variant(name, bundled_runs):
    code, _out, err, folder = bundled_runs[name]
    assert code == 0 and "Traceback" not in err, err
    frame = read_table(folder)
    advanced, expert, solo, board, players = BUNDLED[name]
    assert len(frame) == GAMES * players
    assert set(frame["n_players"]) == {players}
    assert frame["advanced"].tolist() == [advanced] * len(frame)
    assert frame["expert"].tolist() == [expert] * len(frame)
    assert frame["solo"].tolist() == [solo] * len(frame)
    assert set(frame["board"]) == {board}
    assert (frame["bonus"] >= 0).all()
    if board == "base":
        assert (frame["bonus"] == 0).all(), frame["bonus"].tolist()
        assert set(frame["plan3"]) <= BASIC_DECK3
    else:
        assert (frame["bonus"] != 0).any(), frame["bonus"].tolist()
        assert set(frame["plan3"]) <= BOARD_PLANS[board]
    if not advanced:
        assert (frame["n_roundabouts"] == 0).all() and (frame["roundabouts"] == 0).all()
    # Penalty column of the roundabout track (0, 3, 8).
    assert (frame["roundabouts"] == -frame["n_roundabouts"].map({0: 0, 1: 3, 2: 8})).all()
    assert set(frame["end_reason"].str.split("+").sum()) <= {"refusals", "plans", "houses", "deck"}


@pytest.mark.parametrize("name", list(BUNDLED))
def test_records_carry_the_variant_and_verify(name, bundled_runs, capsys):
    """`wtsim verify` exits 0 on the records of every variant."""
    _code, _out, _err, folder = bundled_runs[name]
    advanced, expert, solo, board, players = BUNDLED[name]
    records = read_records(folder)
    assert [r["game"] for r in records] == list(range(GAMES))
    for record in records:
        assert record["variant"] == {"advanced": advanced, "expert": expert, "solo": solo, "board": board}
        turn = record["turns"][0]
        assert ("hands" in turn) == expert and ("offers" in turn) != expert
    # The table rows say what the records' final blocks say.
    frame = read_table(folder)
    for record in records:
        rows = frame[frame["game"] == record["game"]].sort_values("seat")
        assert rows["seed"].tolist() == [record["seed"]] * players
        assert rows["turns"].tolist() == [record["end"]["turn"]] * players
        for field in ("total", "bonus", "roundabouts"):
            assert rows[field].tolist() == [e["score"][field] for e in record["final"]]
        assert rows["rank"].tolist() == [e["rank"] for e in record["final"]]
        assert rows["plan3"].tolist() == [record["plans"][2]["id"]] * players
    code, out, err = wtsim(["verify", str(folder / "records.jsonl")], capsys)
    assert code == 0, out + err
    assert f"{GAMES} records checked, 0 with problems" in out


# ------------------------------------------------------------------ show
@pytest.mark.parametrize("name", ["ice-cream", "christmas", "easter", "advanced-expert-ice-cream"])
def test_show_prints_the_board_line(name, bundled_runs, capsys):
    _code, _out, _err, folder = bundled_runs[name]
    board = BUNDLED[name][3]
    record = read_records(folder)[0]
    code, out, err = wtsim(["show", str(folder / "records.jsonl"), "--game", "0"], capsys)
    assert code == 0, err
    board_lines = [line for line in out.splitlines() if line.startswith(BOARD_LINE[board])]
    assert len(board_lines) == len(record["players"]), out
    assert rendered_houses(out) == [entry["sheet"]["houses"] for entry in record["final"]]
    for line, entry in zip(board_lines, record["final"]):
        state = entry["sheet"]["board"]
        if board == "easter":
            total = sum(eggs for street in state["eggs"] for _house, eggs in street)
            assert f"{total} collected" in line, (line, state)
        elif board == "christmas":
            assert str(state["longest"]) in line, (line, state)
    for entry in record["final"]:
        assert f"bonus={entry['score']['bonus']}" in out


def test_show_without_a_board_has_no_board_line(bundled_runs, capsys):
    _code, _out, _err, folder = bundled_runs["base"]
    code, out, err = wtsim(["show", str(folder / "records.jsonl"), "--game", "0"], capsys)
    assert code == 0, err
    for word in BOARD_LINE.values():
        assert not any(line.startswith(word) for line in out.splitlines()), out


@pytest.mark.parametrize("name", ["advanced", "advanced-expert-ice-cream"])
def test_show_draws_roundabouts(name, tmp_path, capsys):
    """An `R` is shown where the record says a roundabout was built. The
    bundled configs' players build a roundabout only when nothing else fits,
    so the variant is played by random seats, which build them at a rate."""
    raw = yaml.safe_load((CONFIG_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
    raw["players"] = ["random"] * len(raw["players"])
    config, folder = tmp_path / "c.yaml", tmp_path / "run"
    config.write_text(yaml.safe_dump(raw), encoding="utf-8")
    code, _, err = wtsim(["run", str(config), "--games", str(GAMES), "--out", str(folder), "--records", "--quiet"],
                         capsys)
    assert code == 0, err
    records = read_records(folder)
    with_round = [r for r in records
                  if any(h == "R" for e in r["final"] for row in e["sheet"]["houses"] for h in row)]
    assert with_round, "no roundabout in any recorded advanced game"
    record = with_round[0]
    built = [a["roundabout"] for t in record["turns"] for a in t["actions"] if a["roundabout"]]
    assert built
    code, out, err = wtsim(["show", str(folder / "records.jsonl"), "--game", str(record["game"])], capsys)
    assert code == 0, err
    shown = rendered_houses(out)
    assert shown == [entry["sheet"]["houses"] for entry in record["final"]]
    for t in record["turns"]:
        for a in t["actions"]:
            if a["roundabout"]:
                assert shown[a["seat"]][a["roundabout"]["street"]][a["roundabout"]["house"]] == "R"
    assert "roundabouts 1" in out or "roundabouts 2" in out


# ----------------------------------------------------------- user errors
@pytest.mark.parametrize("variant, players, words", [
    ("{expert: true}", "[random]", ["expert"]),
    ("{solo: true}", "[random, random]", ["solo"]),
    ("{board: [ice-cream, easter]}", "[random, random]", ["board"]),
    ("{board: moon}", "[random, random]", ["board", "moon"]),
    ("{solo: true, expert: true}", "[random]", ["expert"]),
    ("{solo: true, expert: true}", "[random, random]", ["solo"]),
])
def test_invalid_variant_combinations(tmp_path, capsys, variant, players, words):
    cfg = write_config(tmp_path, "bad", variant, players)
    out = tmp_path / "out"
    line = user_error(["run", str(cfg), "--out", str(out), "--quiet"], capsys)
    assert "variant" in line, line
    for word in words:
        assert word in line, line
    assert not out.exists()


def test_plan_selection_with_a_board(tmp_path, capsys):
    cfg = write_config(tmp_path, "eggs",
                       "{plans: [estates-3-3-3, estates-4-5, all-eggs-bottom-street], board: easter}")
    out = tmp_path / "out"
    code, _stdout, err = wtsim(["run", str(cfg), "--out", str(out), "--records", "--quiet"], capsys)
    assert code == 0, err
    frame = read_table(out)
    assert len(frame) == 6
    assert set(frame["plan1"]) == {"estates-3-3-3"}
    assert set(frame["plan2"]) == {"estates-4-5"}
    assert set(frame["plan3"]) == {"all-eggs-bottom-street"}
    assert set(frame["board"]) == {"easter"}
    for record in read_records(out):
        assert [p["id"] for p in record["plans"]] == ["estates-3-3-3", "estates-4-5", "all-eggs-bottom-street"]
        assert [p["points"] for p in record["plans"]] == [[8, 4], [9, 5], [7, 3]]
    code, stdout, err = wtsim(["verify", str(out / "records.jsonl")], capsys)
    assert code == 0, stdout + err


@pytest.mark.parametrize("variant, index, plan_id", [
    ("{plans: [null, null, all-eggs-bottom-street]}", 2, "all-eggs-bottom-street"),
    ("{plans: [null, estates-3-3-3, null]}", 1, "estates-3-3-3"),
    ("{plans: [estates-3-3-33, null, null]}", 0, "estates-3-3-33"),
    ("{plans: [full-street-top, null, null]}", 0, "full-street-top"),
    ("{plans: [null, all-pools-two-streets, null], board: christmas}", 1, "all-pools-two-streets"),
    ("{plans: [null, null, estates-1-2-6], board: easter}", 2, "estates-1-2-6"),
    ("{plans: [null, null, all-cones-one-street], board: easter}", 2, "all-cones-one-street"),
    ("{plans: [null, null, all-cones-one-street], advanced: true}", 2, "all-cones-one-street"),
])
def test_plan_not_in_its_deck(tmp_path, capsys, variant, index, plan_id):
    cfg = write_config(tmp_path, "bad", variant)
    line = user_error(["run", str(cfg), "--out", str(tmp_path / "out"), "--quiet"], capsys)
    assert f"variant.plans[{index}]" in line, line
    assert plan_id in line, line
    assert not (tmp_path / "out").exists()


def test_advanced_plans_need_the_advanced_variant(tmp_path, capsys):
    cfg = write_config(tmp_path, "adv", "{advanced: true, plans: [full-street-top, all-pools-two-streets, null]}")
    out = tmp_path / "out"
    code, _stdout, err = wtsim(["run", str(cfg), "--out", str(out), "--quiet"], capsys)
    assert code == 0, err
    frame = read_table(out)
    assert set(frame["plan1"]) == {"full-street-top"}
    assert set(frame["plan2"]) == {"all-pools-two-streets"}
    assert frame["advanced"].all()
    cfg = write_config(tmp_path, "noadv", "{advanced: false, plans: [null, all-pools-two-streets, null]}")
    line = user_error(["run", str(cfg), "--out", str(tmp_path / "out2"), "--quiet"], capsys)
    assert "variant.plans[1]" in line and "all-pools-two-streets" in line
