"""Issue 16, smaller holes: records `verify` refuses, escaped report text,
params files that keep their values to themselves, duplicate YAML keys,
reports written whole or not at all, bounded YAML in --set and inline params."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from helpers import user_error
from welcometo_sim.api import execute
from welcometo_sim.config import parse_config
from welcometo_sim.games.record_format import RecordFormatError
from welcometo_sim.games.welcome_to.record_replay import disagreements, verify
from welcometo_sim.sim.results import RECORDS_FILE


# ---------------------------------------------------------------- records
@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, list[dict]]:
    """A few records of a two-player greedy run (plans get completed) and of a solo run."""
    out = {}
    for name, players, variant in (("pair", ["greedy", "greedy"], {}), ("solo", ["greedy"], {"solo": True})):
        spec = parse_config({"name": name, "games": 6, "seed": 21, "players": players, "variant": variant})
        folder = tmp_path_factory.mktemp(name)
        execute(spec, folder, records=True)
        lines = (folder / RECORDS_FILE).read_text(encoding="utf-8").splitlines()
        out[name] = [json.loads(line) for line in lines]
    for group in out.values():
        for record in group:
            assert verify(record) == []
    return out


def refused(record: dict) -> str:
    """The RecordFormatError message of a record verify must refuse."""
    with pytest.raises(RecordFormatError) as info:
        disagreements(record)
    message = str(info.value)
    assert "\n" not in message
    assert verify(record) == [f"malformed record: {message}"]
    return message


def with_plan(group: list[dict]) -> dict:
    """A copy of the first record of `group` in which a plan is completed (not in the last turn)."""
    for record in group:
        if any(a["plans"] for turn in record["turns"][:-3] for a in turn["actions"]):
            return copy.deepcopy(record)
    raise AssertionError("no record with a plan completed")


def first_plan_turn(record: dict) -> tuple[int, int]:
    """(turn index, action index) of the first action that completes a plan."""
    for t, turn in enumerate(record["turns"]):
        for a, action in enumerate(turn["actions"]):
            if action["plans"]:
                return t, a
    raise AssertionError("no plan completed")


@pytest.mark.parametrize("end_turn", [-3, 0, 1, 10_000])
def test_an_end_turn_that_is_not_the_last_turn_played_is_refused(records, end_turn):
    record = copy.deepcopy(records["pair"][0])
    played = len(record["turns"])
    record["end"]["turn"] = end_turn
    assert refused(record) == f"end.turn: must be the last turn played ({played}), got {end_turn}"


def test_turns_are_numbered_one_after_the_other(records):
    record = copy.deepcopy(records["pair"][0])
    record["turns"][4]["turn"] = 9
    assert refused(record).startswith("turns[4].turn: must be 5 ")
    record = copy.deepcopy(records["pair"][0])
    del record["turns"][3]
    assert refused(record).startswith("turns[3].turn: must be 4 ")


def test_unknown_events_and_end_reasons_are_refused(records):
    record = copy.deepcopy(records["pair"][0])
    record["turns"][2]["events"] = ["meteor"]
    assert refused(record).startswith("turns[2].events[0]: unknown event 'meteor' (known: deck-reshuffled")
    record = copy.deepcopy(records["pair"][0])
    record["end"]["reasons"] = ["boredom"]
    assert refused(record).startswith("end.reasons[0]: unknown end reason 'boredom'")


@pytest.mark.parametrize("seat", [99, -1, 1])
def test_final_seats_must_be_listed_in_order(records, seat):
    record = copy.deepcopy(records["pair"][0])
    record["final"][0]["seat"] = seat
    assert refused(record).startswith(f"final[0].seat: must be 0 (the final block lists the seats in order), got {seat}")


def test_reshuffle_is_refused_where_the_game_never_offers_it(records):
    record = copy.deepcopy(records["pair"][0])
    record["turns"][0]["actions"][0]["reshuffle"] = True           # no plan completed in turn 1
    message = refused(record)
    assert message.startswith("turns[0].actions[0].reshuffle: seat 0 completed no plan this turn")

    t, a = first_plan_turn(record := with_plan(records["pair"]))
    later = t + 1
    record["turns"][later]["actions"][a]["reshuffle"] = True       # after the first plan turn
    assert refused(record).startswith(f"turns[{later}].actions[{a}].reshuffle: a reshuffle may only be asked "
                                      "in the turn of the game's first plan completion")

    record = with_plan(records["pair"])
    other = 1 - a
    if not record["turns"][t]["actions"][other]["plans"]:              # the other seat, no plan that turn
        record["turns"][t]["actions"][other]["reshuffle"] = True
        assert refused(record).startswith(f"turns[{t}].actions[{other}].reshuffle: seat {other} completed no plan")

    solo = with_plan(records["solo"])
    ts, as_ = first_plan_turn(solo)
    solo["turns"][ts]["actions"][as_]["reshuffle"] = True
    assert refused(solo) == f"turns[{ts}].actions[{as_}].reshuffle: there is no plan reshuffle in a solo game"

    record = copy.deepcopy(records["pair"][0])
    record["turns"][0]["actions"][0]["reshuffle"] = "yes"
    assert refused(record).startswith("turns[0].actions[0].reshuffle: must be true or false")


def test_a_legal_reshuffle_needs_its_event_in_the_next_turn(records):
    record = with_plan(records["pair"])
    t, a = first_plan_turn(record)
    assert not record["turns"][t]["actions"][a]["reshuffle"]
    assert "plan-reshuffle" not in record["turns"][t + 1]["events"]
    record["turns"][t]["actions"][a]["reshuffle"] = True
    assert refused(record) == (f"turns[{t + 1}].events: no plan-reshuffle although a reshuffle was asked "
                               "in the turn before")
    record["turns"][t + 1]["events"].insert(0, "plan-reshuffle")
    # Each action is legal for the recorded offers, but no deck deals them
    # after a reshuffle: the stacks now run out 27 turns after it, and the
    # seed deals other cards.
    problems = disagreements(record)
    assert len(record["turns"]) >= 27 and t + 2 < 27
    assert "turn 27: events ['deck-reshuffled'] recorded, the deck gives none then" in problems
    assert any(p.startswith(f"turn {t + 2}: offers ") and f"seed {record['seed']} deals" in p for p in problems)
    record["turns"][t + 2]["events"].insert(0, "plan-reshuffle")
    assert refused(record) == (f"turns[{t + 2}].events: plan-reshuffle without a reshuffle asked "
                               "in the turn before")


def test_verify_command_refuses_each_hole_in_one_line(records, tmp_path, capsys):
    holes = []
    record = copy.deepcopy(records["pair"][1])
    record["end"]["turn"] = -3
    holes.append((record, "end.turn: must be the last turn played"))
    record = copy.deepcopy(records["pair"][1])
    record["turns"][1]["events"] = ["<script>"]
    holes.append((record, "turns[1].events[0]: unknown event"))
    record = copy.deepcopy(records["pair"][1])
    record["final"][1]["seat"] = 99
    holes.append((record, "final[1].seat: must be 1"))
    record = copy.deepcopy(records["pair"][1])
    record["turns"][0]["actions"][1]["reshuffle"] = True
    holes.append((record, "turns[0].actions[1].reshuffle: seat 1 completed no plan"))
    for number, (record, says) in enumerate(holes):
        path = tmp_path / f"r{number}.jsonl"
        path.write_text(json.dumps(records["pair"][0]) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
        line = user_error(["verify", str(path)], capsys)
        assert line.startswith(f"wtsim: error: {path}:2: game 1: malformed record: {says}"), line


# ---------------------------------------------------------------- YAML and params files
SECRET = "hunter2-s3cret"


@pytest.mark.parametrize("text, key, line", [
    ("name: a\ngames: 3\nname: b\nplayers: [random]\n", "name", 3),
    ("players:\n  - {strategy: greedy, params: {shortlist: 2, shortlist: 3}}\n", "shortlist", 2),
    ("players: [random]\nvariant: {board: base,\n  board: base}\n", "board", 3),
])
def test_a_duplicate_key_is_one_line_naming_it(tmp_path, capsys, text, key, line):
    path = tmp_path / "dup.yaml"
    path.write_text(text, encoding="utf-8")
    message = user_error(["run", str(path), "-q", "--games", "1"], capsys)
    assert message.startswith(f"wtsim: error: {path}: line {line}, column ")
    assert message.endswith(f"malformed YAML: duplicate key {key!r}")


def test_keys_a_merge_brings_in_may_be_overridden():
    from welcometo_sim.config import bounded_yaml

    assert bounded_yaml("base: &b {x: 1, y: 2}\nmine: {<<: *b, x: 3}\n") == {
        "base": {"x": 1, "y": 2}, "mine": {"x": 3, "y": 2}}
    assert bounded_yaml("a: {k: 1}\nb: {k: 1}\n") == {"a": {"k": 1}, "b": {"k": 1}}   # other mappings


def params_file_error(tmp_path: Path, capsys, content: str | None, entry: str = "",
                      target: str = "p.yaml") -> str:
    if content is not None:
        (tmp_path / target).write_text(content, encoding="utf-8")
    config = tmp_path / "c.yaml"
    config.write_text(f"players: [{{params_file: {target}{entry}}}, random]\n", encoding="utf-8")
    message = user_error(["run", str(config), "-q", "--games", "1"], capsys)
    assert SECRET not in message
    assert message.startswith(f"wtsim: error: {config}: players[0].params_file: ")
    return message


@pytest.mark.parametrize("content, says", [
    (f"strategy: greedy\nparams: {{shortlist: {SECRET}}}\n",
     "params.shortlist: must be an integer for strategy 'greedy' (the value is not shown)"),
    ("strategy: greedy\nparams: {shortlist: -7}\n",
     "params.shortlist: refused by strategy 'greedy' (the value is not shown)"),
    (f"strategy: greedy\nparams: {{weights: {{points: {SECRET}}}}}\n",
     "params.weights.points: must be a finite number for strategy 'greedy' (the value is not shown)"),
    (f"strategy: greedy\nparams: {{token: {SECRET}}}\n",
     "line 2: unknown parameter (known: shortlist, temperature, weights; the key is not shown)"),
    (f"strategy: {SECRET}\n", "strategy: not a strategy that can be loaded (the value is not shown)"),
    (f"strategy: greedy\nparams: {{x: '{SECRET}\n", "malformed YAML: not valid YAML"),
    (f"strategy: greedy\nparams: {{x: !!int 0x{SECRET}}}\n", "malformed YAML: cannot read a value (ValueError)"),
    (f"strategy: greedy\nparams: {{x: !!timestamp {SECRET}}}\n", "malformed YAML: cannot read a value ("),
])
def test_a_params_file_names_the_wrong_key_but_never_its_value(tmp_path, capsys, content, says):
    message = params_file_error(tmp_path, capsys, content)
    assert message.endswith(says) if says.endswith(")") else says in message


def test_a_params_file_names_another_strategy_only_when_it_is_a_registered_one(tmp_path, capsys):
    message = params_file_error(tmp_path, capsys, "strategy: greedy\n", ", strategy: random")
    assert message.endswith("p.yaml holds parameters of 'greedy', not of 'random'")
    message = params_file_error(tmp_path, capsys, "strategy: strategies.random:RandomStrategy\n", ", strategy: random")
    assert message.endswith("p.yaml holds parameters of another strategy, not of 'random'")


def test_the_configs_own_params_are_still_quoted(tmp_path, capsys):
    (tmp_path / "p.yaml").write_text("strategy: greedy\nparams: {shortlist: 3}\n", encoding="utf-8")
    config = tmp_path / "c.yaml"
    config.write_text("players: [{params_file: p.yaml, params: {shortlist: 0}}]\n", encoding="utf-8")
    message = user_error(["run", str(config), "-q", "--games", "1"], capsys)
    assert message.endswith("players[0].params: strategy 'greedy': parameter 'shortlist' must be at least 1, got 0")


def test_a_params_file_must_be_a_regular_file(tmp_path, capsys):
    import os

    (tmp_path / "folder").mkdir()
    assert params_file_error(tmp_path, capsys, None, target="folder").endswith("folder: not a regular file")
    os.mkfifo(tmp_path / "pipe")                     # opening a FIFO would wait for a writer forever
    assert params_file_error(tmp_path, capsys, None, target="pipe").endswith("pipe: not a regular file")
    assert params_file_error(tmp_path, capsys, None, target="/dev/zero").endswith(
        "/dev/zero: not a regular file")
    assert params_file_error(tmp_path, capsys, None, target="gone.yaml").endswith("gone.yaml: file not found")


# ---------------------------------------------------------------- report
HOSTILE = ["<img src=x onerror=alert(1)>", "[click](javascript:alert(1))", "*bold* `code` a|b & \\"]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile") / "run"
    spec = parse_config({"name": "<b onmouseover=alert('run')>x", "games": 4, "seed": 2,
                         "players": [{"strategy": "random", "name": name} for name in HOSTILE]})
    execute(spec, out=folder)
    return folder


def test_report_md_shows_run_and_player_names_as_text(hostile_run, tmp_path, capsys):
    import re

    from welcometo_sim.analysis.report import MARKDOWN_SPECIAL, markdown_text

    code = None
    try:
        from welcometo_sim.cli import main
        main(["report", str(hostile_run), "--out", str(tmp_path / "md")])
    except SystemExit as exc:
        code = exc.code
    assert code in (None, 0), capsys.readouterr().err
    text = (tmp_path / "md" / "report.md").read_text(encoding="utf-8")
    assert re.search(r"(?<!\\)[<>]", text) is None                  # no HTML tag can start
    assert "](javascript" not in text and "\\[click\\]\\(javascript:alert\\(1\\)\\)" in text
    assert "# welcometo-sim report: \\<b onmouseover=alert\\('run'\\)\\>x\n" in text
    assert "- **run**: \\<b onmouseover=alert\\('run'\\)\\>x\n" in text
    for name in HOSTILE:
        escaped = markdown_text(name)
        assert escaped in text
        assert re.sub(r"\\(.)", lambda m: m.group(1), escaped) == name    # the name, once unescaped
        i = 0
        while i < len(escaped):                     # no special character is left unescaped
            if escaped[i] == "\\":
                i += 2
                continue
            assert escaped[i] not in MARKDOWN_SPECIAL, (escaped, i)
            i += 1
    # every table still has the same number of cells on each line
    for block in re.findall(r"(?:^\|.*\|$\n?)+", text, flags=re.M):
        counts = {len(re.findall(r"(?<!\\)\|", line)) for line in block.strip().splitlines()}
        assert len(counts) == 1, block


def test_report_html_escapes_the_names(hostile_run, tmp_path):
    from welcometo_sim.analysis.report import write_report

    text = write_report(hostile_run, fmt="html", out=tmp_path / "h").read_text(encoding="utf-8")
    assert "<b onmouseover" not in text and "<img src=x" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text


class _FullDisk:
    """Writes of files whose name ends in .tmp get a few bytes, then ENOSPC."""

    def __init__(self, monkeypatch, target: str):
        import errno
        import matplotlib.figure

        original_savefig = matplotlib.figure.Figure.savefig
        original_write_text = Path.write_text

        def full(path) -> OSError:
            return OSError(errno.ENOSPC, "No space left on device", str(path))

        def savefig(fig, path, *args, **kwargs):
            if target == "png" and str(path).endswith(".tmp"):
                Path(path).write_bytes(b"\x89PNG")
                raise full(path)
            return original_savefig(fig, path, *args, **kwargs)

        def write_text(path, data, *args, **kwargs):
            if target == "text" and str(path).endswith(".tmp"):
                original_write_text(path, data[:10], *args, **kwargs)
                raise full(path)
            return original_write_text(path, data, *args, **kwargs)

        monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
        monkeypatch.setattr(Path, "write_text", write_text)


@pytest.mark.parametrize("target, fmt", [("png", "--md"), ("text", "--md"), ("text", "--html")])
def test_report_on_a_full_disk_is_one_line_and_leaves_no_partial_file(hostile_run, tmp_path, capsys,
                                                                        monkeypatch, target, fmt):
    out = tmp_path / "report"
    _FullDisk(monkeypatch, target)
    line = user_error(["report", str(hostile_run), fmt, "--out", str(out)], capsys)
    assert line.startswith(f"wtsim: error: {out}/") and line.endswith("cannot write: no space left on the device")
    files = sorted(p.name for p in out.iterdir())
    assert not any(name.endswith(".tmp") for name in files), files
    assert all((out / name).stat().st_size > 100 for name in files), files   # no empty or cut figure
    assert not (out / "report.md").exists() and not (out / "report.html").exists()
    if target == "png":
        assert files == []
        assert line == f"wtsim: error: {out}/scores.png: cannot write: no space left on the device"


def test_report_into_a_path_under_a_file_is_one_line(hostile_run, tmp_path, capsys):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    line = user_error(["report", str(hostile_run), "--out", str(tmp_path / "file" / "r")], capsys)
    assert "cannot write the report" in line


# ---------------------------------------------------------------- --set and inline parameters
BOMB = "&a [x,x,x,x,x,x,x,x,x]," + ",".join(f"&{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]"
                                           for i in range(8))


def test_set_values_are_read_with_the_bounds_of_config_files():
    import time

    from welcometo_sim.analysis.sweep import SweepError, parse_setting

    assert parse_setting("games=&n 10,*n") == (["games"], [10, 10])          # a plain alias still works
    started = time.perf_counter()
    with pytest.raises(SweepError) as info:
        parse_setting(f"games={BOMB}")
    assert time.perf_counter() - started < 1
    assert "the values are not valid YAML (the document expands to more than 100000 values" in str(info.value)
    with pytest.raises(SweepError, match=r"not valid YAML \(an alias refers to the value that contains it\)"):
        parse_setting("games=&a [*a]")
    with pytest.raises(SweepError, match=r"not valid YAML \(duplicate key 'k'\)"):
        parse_setting("players.0.params={k: 1, k: 2}")
    with pytest.raises(SweepError, match=r"cannot read a value \(ValueError\)"):
        parse_setting("games=!!int 0xq")


def test_sweep_with_an_alias_bomb_is_one_line(tmp_path, capsys):
    line = user_error(["sweep", "--set", f"games={BOMB}", "--games", "2"], capsys)
    assert "the document expands to more than 100000 values" in line


def test_inline_parameters_are_read_with_the_bounds_of_config_files(capsys):
    import time

    from welcometo_sim.strategy import StrategyLoadError, parse_strategy

    assert parse_strategy("greedy:shortlist=&n 3").params == {"shortlist": 3}
    bomb = "\n- &a\n" + "  - x\n" * 10        # block style: the inline form splits at commas
    for level in "bcdefgh":
        bomb += f"- &{level}\n" + f"  - *{chr(ord(level) - 1)}\n" * 10
    started = time.perf_counter()
    with pytest.raises(StrategyLoadError, match=r"parameter 'shortlist': malformed value \(YAML: the document "
                                                 r"expands to more than 100000 values"):
        parse_strategy(f"greedy:shortlist={bomb}")
    with pytest.raises(StrategyLoadError, match=r"parameter 'shortlist': malformed value \(YAML: an alias refers"):
        parse_strategy("greedy:shortlist=&a [*a]")
    assert time.perf_counter() - started < 1
    for argv in (["compare", "greedy:shortlist=&a [*a]", "random", "--games", "2", "-q"],
                 ["tune", "greedy:shortlist=[", "-p", "shortlist=1:3", "--games", "2"],
                 ["tune", "greedy:shortlist=!!int 0xq", "-p", "shortlist=1:3", "--games", "2"]):
        line = user_error(argv, capsys)
        assert "parameter 'shortlist': " in line
