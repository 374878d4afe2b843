"""Fuzzing the two readers of user files: config YAML and game records.

No input may produce a traceback.

- A config file either loads (``load_config``) and then plays a 1-game run
  through ``wtsim run``, or it is rejected by both: ``load_config`` raises
  ``ConfigError`` and ``wtsim`` exits 2 with exactly one stderr line that
  names the file and the key.
- A records file either verifies (``wtsim verify`` exits 0), or each record
  that disagrees with its replay is reported on its own stdout line naming
  the file, line and game (exit 1), or a malformed record stops the command
  with one stderr line naming the file, line, game and field (exit 2).
  ``wtsim show`` renders the game or rejects it in that same one line.

The CLI runs in-process (``CliRunner.isolation``) for speed, and every test is
derandomized so CI sees the same examples each run.
"""

from __future__ import annotations

import copy
import json
import math
import re
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from welcometo_sim.cli import main
from welcometo_sim.config import TOP_KEYS, ConfigError, load_config
from welcometo_sim.games.welcome_to.data import BOARDS, DEFAULT_DATA, EFFECTS
from welcometo_sim.games.welcome_to.record_replay import verify

ROOT = Path(__file__).resolve().parents[1]
CONFIG_DIR = ROOT / "configs"
BUNDLED_CONFIGS = sorted(CONFIG_DIR.glob("*.yaml"))

FUZZ = settings(derandomize=True, deadline=None, max_examples=100, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FEW = settings(FUZZ, max_examples=25)  # commands that play several games per example

# The what-if example of docs/configs.md: every overrides section, and a deck-2 plan of its own.
OVERRIDES_CONFIG = {
    "name": "what-if",
    "players": ["random", {"strategy": "greedy", "params": {"shortlist": 2}}],
    "overrides": {
        "plans": {"estates-4-4": {"points": [7, 4]}},
        "add_plans": [{"id": "my-2-2-4", "deck": 2, "estates": [2, 2, 4], "points": [9, 5]}],
        "remove_plans": ["estates-6-6"],
        "tracks": {"bis_track": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]},
        "deck": {8: [3, 3, 3, 1, 1, 1]},
    },
    "variant": {"plans": [None, "my-2-2-4", None]},
}


def with_random_players(config: dict) -> dict:
    """The config with every seat played by `random`: a greedy game on a thematic
    board takes about a second, a random one a few milliseconds."""
    return {**config, "players": ["random"] * len(config["players"])}


BUNDLED = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in BUNDLED_CONFIGS}
# Mutation bases: every bundled variant (random seats), the bundled base game as
# shipped (the strong default) and the what-if example.
BASE_CONFIGS = [with_random_players(c) for c in BUNDLED.values()] + [BUNDLED["base"], OVERRIDES_CONFIG]

PLAN_IDS = sorted(p.id for p in DEFAULT_DATA.all_plans())
WORDS = PLAN_IDS + list(BOARDS) + list(EFFECTS) + [
    "greedy", "random", "gredy", "greedy:shortlist=0", "greedy:weights.points=x", "random:roundabout_rate=2",
    "strategies/example_custom.py:ScheduleStrategy", "nope.py:X", "os:path", "estates", "left", "right",
    "pool_track", "bis_track", "park_tracks", "real_estate_tracks", "surveyor", "nan", ".nan", "inf",
    "1e309", "-1", "0", "", " ", "a/b", "\x00", "line\nbreak", "plans", "deck", "tracks",
]
SPECIAL_NUMBERS = [0, 1, 2, 3, -1, 12, 13, 10**400, -(10**30), 2**63, 0.5, -0.0, math.inf, -math.inf,
                   math.nan, 1e308]

scalars = st.one_of(
    st.none(), st.booleans(), st.sampled_from(SPECIAL_NUMBERS), st.integers(-20, 20), st.integers(),
    st.floats(), st.sampled_from(WORDS), st.text(max_size=12),
)
keys = st.one_of(st.sampled_from(WORDS + sorted(TOP_KEYS)), st.text(max_size=8), st.integers(-3, 20),
                 st.booleans(), st.none())
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=10,
)
# Pieces of YAML syntax, so that random text often reaches the YAML constructors
# (tags, anchors, dates, merge keys) and not only the scanner.
YAML_PIECES = ["!!timestamp ", "!!int ", "!!float ", "!!bool ", "!!binary ", "!!set ", "!!str ", "!!null ",
               "!!python/name:os.system ", "&a ", "*a", "2001-02-30", "2001-01-01", "<<: ", "[", "]", "{", "}",
               "- ", ": ", ", ", "\n", "  ", "---\n", "...\n", "? ", "|\n", ">\n", "# ", "'", '"', "0x", "0o",
               "1_000", "190:20:30", ".inf", ".nan", "~", "yes", "no", "players: ", "variant: ", "overrides: ",
               "games: ", "greedy", "random", "estates-4-4", "\t", "\x00", "\ufeff", "%YAML 1.1\n"]
yaml_like_text = st.lists(st.one_of(st.sampled_from(YAML_PIECES), st.text(max_size=4)), max_size=25).map("".join)
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-20, 20), st.integers(),
                         st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(WORDS),
                         st.text(max_size=12))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(st.sampled_from(WORDS), st.text(max_size=8)), inner,
                                            max_size=4)),
    max_leaves=10,
)


# ------------------------------------------------------------------ helpers
def invoke(argv: list[str]) -> tuple[int, str, str]:
    """`wtsim ARGV` in-process: (exit code, stdout, stderr). Anything but a clean
    exit (a Python exception) propagates, so hypothesis reports it."""
    with CliRunner().isolation() as (out, err, _):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")


def assert_one_line_rejection(code: int, out: str, err: str, *names: str) -> str:
    """Exit 2, no traceback, one `wtsim: error:` line on stderr naming `names`."""
    assert "Traceback" not in out + err
    assert code == 2, (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), err
    assert lines[0].startswith("wtsim: error: "), lines[0]
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


def dump_yaml(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def node_paths(node: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """The path (keys and indices) of every node of a nested dict/list, root first."""
    yield prefix
    if isinstance(node, dict):
        for key, child in node.items():
            yield from node_paths(child, prefix + (key,))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from node_paths(child, prefix + (index,))


def parent_of(root: Any, path: tuple) -> Any:
    node = root
    for part in path[:-1]:
        node = node[part]
    return node


def retyped(value: Any) -> Any:
    """The same content in another JSON type (int <-> str, list <-> dict, …)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return int(value) if value.lstrip("-").isdigit() else [value]
    if isinstance(value, list):
        return {str(i): v for i, v in enumerate(value)}
    if isinstance(value, dict):
        return list(value.values())
    return 0


@st.composite
def mutated(draw, base: Any, replacement: st.SearchStrategy, max_mutations: int = 3) -> Any:
    """A copy of `base` with 1..max_mutations changes at random nodes: a node
    deleted, replaced, retyped, or given an unknown key."""
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, max_mutations))):
        path = draw(st.sampled_from(list(node_paths(data))))
        action = draw(st.sampled_from(["delete", "replace", "retype", "add_key"]))
        if not path:
            if action in ("replace", "retype"):
                data = draw(replacement) if action == "replace" else retyped(data)
            continue
        parent, last = parent_of(data, path), path[-1]
        if action == "delete":
            del parent[last]
        elif action == "replace":
            parent[last] = draw(replacement)
        elif action == "retype":
            parent[last] = retyped(parent[last])
        elif isinstance(parent[last], dict):
            parent[last][draw(keys)] = draw(replacement)
        else:
            parent[last] = draw(replacement)
    return data


# ------------------------------------------------------------------ configs
REJECTION_START = re.compile(
    r"^wtsim: error: (?P<file>.+?):( line \d+, column \d+:)? (?P<what>.*)$"
)
WHOLE_FILE_PROBLEMS = ("malformed YAML", "the config must be a mapping", "cannot read")


def check_config(path: Path, workdir: Path) -> str:
    """The config property for one file: loads and plays, or is one clean line.
    Returns 'ran' or the rejection line."""
    try:
        load_config(path)
        loaded = True
    except ConfigError:
        loaded = False
    out_dir = workdir / "out"
    code, out, err = invoke(["run", str(path), "--games", "1", "--jobs", "1", "--quiet", "--format", "csv",
                             "--out", str(out_dir)])
    if loaded:
        assert code == 0 and err == "", (code, out, err)
        assert (out_dir / "results.csv").is_file()
        return "ran"
    line = assert_one_line_rejection(code, out, err, str(path))
    match = REJECTION_START.match(line)
    assert match and match.group("file") == str(path), line
    what = match.group("what")
    names_a_key = re.match(rf"({'|'.join(sorted(TOP_KEYS))})\b", what) or ": unknown key" in what
    assert what.startswith(WHOLE_FILE_PROBLEMS) or names_a_key, line
    return line


def write_text(workdir: Path, text: str | bytes) -> Path:
    path = workdir / "fuzz.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


@FUZZ
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200), yaml_like_text))
def test_arbitrary_bytes_as_a_config(content):
    with tempfile.TemporaryDirectory() as tmp:
        check_config(write_text(Path(tmp), content), Path(tmp))


@FUZZ
@given(values)
def test_yaml_of_the_wrong_shape(data):
    with tempfile.TemporaryDirectory() as tmp:
        check_config(write_text(Path(tmp), dump_yaml(data)), Path(tmp))


@FUZZ
@given(st.sampled_from(BASE_CONFIGS).flatmap(lambda base: mutated(base, values)))
def test_mutated_bundled_configs(data):
    with tempfile.TemporaryDirectory() as tmp:
        check_config(write_text(Path(tmp), dump_yaml(data)), Path(tmp))


def analysis_argv(command: str, path: Path, workdir: Path) -> list[str]:
    if command == "compare":
        return ["compare", "--config", str(path), "--games", "1", "--jobs", "1", "--quiet"]
    if command == "plans":
        return ["plans", str(path), "--games-per-plan", "1", "--deck", "1", "--jobs", "1", "--quiet"]
    return ["sweep", str(path), "--set", "seed=1,2", "--games", "1", "--jobs", "1"]


@FEW
@given(st.sampled_from(["compare", "plans", "sweep"]),
       st.sampled_from(BASE_CONFIGS).flatmap(lambda base: mutated(base, values, max_mutations=2)))
def test_mutated_configs_in_the_analysis_commands(command, data):
    with tempfile.TemporaryDirectory() as tmp:
        path = write_text(Path(tmp), dump_yaml(data))
        code, out, err = invoke(analysis_argv(command, path, Path(tmp)))
        if code != 0:
            assert_one_line_rejection(code, out, err)
        else:
            assert err == "" or random_seat_warning(command, err), err


def random_seat_warning(command: str, err: str) -> bool:
    """plans and sweep warn, in one line, when a seat plays random."""
    return command in ("plans", "sweep") and err.startswith("wtsim: warning: ") and err.count("\n") == 1


# `games` and `jobs` are left out: sweeping them to null means the config's 1000
# games or many worker processes, slow but not wrong.
setting_keys = st.one_of(
    st.sampled_from(["seed", "name", "chunk_size", "variant.board", "variant.plans", "variant.advanced",
                     "players.0.params.shortlist", "players.1.strategy", "players.0", "players",
                     "plans.estates-4-4.points", "plans.estates-4-4", "add_plans", "remove_plans",
                     "tracks.bis_track", "tracks.park_tracks", "deck.8", "deck", "rotate_seats", "x.y"]),
    st.text(max_size=10).filter(lambda key: key.split(".")[0].strip() not in ("games", "jobs")),
)


@FEW
@given(setting_keys, st.lists(values, min_size=1, max_size=2), st.sampled_from(BASE_CONFIGS))
def test_sweep_settings(key, points, base):
    with tempfile.TemporaryDirectory() as tmp:
        path = write_text(Path(tmp), dump_yaml(base))
        raw = ",".join(yaml.safe_dump(v, default_flow_style=True, width=10**6).strip().removesuffix("...").strip()
                       for v in points)
        code, out, err = invoke(["sweep", str(path), "--set", f"{key}={raw}", "--games", "1", "--jobs", "1"])
        if code != 0:
            assert_one_line_rejection(code, out, err)
        else:
            assert err == "" or random_seat_warning("sweep", err), err


# ------------------------------------------------------------------ records
@pytest.fixture(scope="module")
def real_records(tmp_path_factory) -> list[dict]:
    """Two recorded games of the bundled base config, of every bundled Welcome To variant
    (random seats) and of the what-if example, made by `wtsim run --records`."""
    root = tmp_path_factory.mktemp("records")
    configs = [CONFIG_DIR / "base.yaml"]
    # Welcome To records only: the mutations below are of that game's record format
    # (another game's records are checked by its own tests).
    for name, config in [*((n, with_random_players(c)) for n, c in BUNDLED.items()
                           if n != "base" and "game" not in c),
                         ("what-if", OVERRIDES_CONFIG)]:
        configs.append(root / f"{name}.yaml")
        configs[-1].write_text(dump_yaml(config), encoding="utf-8")
    records = []
    for config in configs:
        out = root / config.stem
        code, _out, err = invoke(["run", str(config), "--games", "2", "--jobs", "1", "--records", "--quiet",
                                  "--format", "csv", "--out", str(out)])
        assert code == 0, err
        records += [json.loads(line) for line in (out / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    return records


# What a disagreement names: the turn and seat of an illegal action, or the seat
# and the part of the final block that differs.
VERIFY_PROBLEM = (r"game \S+: (turn -?\d+: |seat \d+: (rank|score|sheet)|final block|plans\[\d\]\.(id|deck|points): "
                  r"|end\.reasons: )")
VERIFY_SUMMARY = re.compile(r"^\d+ records checked, \d+ with problems$")
# A rejected line: not text, not JSON, or which field of which game is malformed.
LINE_PROBLEM = r"(not UTF-8 text|not valid JSON|game \S+: malformed record: \S+)"


def parsed(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def check_verify(path: Path, lines: list[str]) -> None:
    """`wtsim verify`: exit 0 (all agree), 1 (a line per problem on stdout) or
    2 (one stderr line naming file, line, game and field); for a file of one
    record, the library's verify() agrees with the exit code."""
    code, out, err = invoke(["verify", str(path)])
    file = re.escape(str(path))
    if code == 2:
        line = assert_one_line_rejection(code, out, err)
        assert re.match(rf"wtsim: error: {file}:\d+: {LINE_PROBLEM}", line), line
    else:
        assert code in (0, 1) and err == "", (code, out, err)
        *problems, summary = out.splitlines()
        assert VERIFY_SUMMARY.match(summary), out
        assert (code == 1) == bool(problems), out
        for problem in problems:
            assert re.match(rf"{file}:\d+: {VERIFY_PROBLEM}", problem), problem
    if len(lines) == 1 and parsed(lines[0]) is not None:
        library = verify(parsed(lines[0]))
        assert (code, bool(library)) in ((0, False), (1, True), (2, True)), (code, library)
        assert library == [] or library[0].startswith("malformed record") == (code == 2), library


def check_show(path: Path, lines: list[str], turn: int | None) -> None:
    """`wtsim show`: the sheets of the first game in the file, or one clean line."""
    games = [r["game"] for r in map(parsed, lines) if isinstance(r, dict) and isinstance(r.get("game"), int)]
    game = games[0] if games else 0
    argv = ["show", str(path), "--game", str(game)] + ([] if turn is None else ["--turn", str(turn)])
    code, out, err = invoke(argv)
    if code == 0:
        assert err == "" and f"game {game} " in out and "seat 0" in out
        return
    line = assert_one_line_rejection(code, out, err)
    file = re.escape(str(path))
    assert re.match(rf"wtsim: error: ({file}(:\d+: {LINE_PROBLEM}|:\d+: game {game}: cannot be replayed: turn "
                    rf"|: no record of game {game}$)|--turn {turn}: game {game} has turns 0 to \d+$)", line), line


def check_records_file(path: Path, lines: list[str], turn: int | None = None) -> None:
    """The record properties for `wtsim verify` and `wtsim show` on one file."""
    check_verify(path, lines)
    check_show(path, lines, turn)


def write_lines(workdir: Path, lines: list[str]) -> Path:
    path = workdir / "records.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8", errors="surrogatepass")
    return path


@FUZZ
@given(st.lists(st.text(max_size=80), min_size=1, max_size=3))
def test_arbitrary_lines_as_records(lines):
    with tempfile.TemporaryDirectory() as tmp:
        check_records_file(write_lines(Path(tmp), lines), lines)


@FUZZ
@given(st.lists(json_values.map(json.dumps), min_size=1, max_size=3))
def test_json_of_the_wrong_shape_as_records(lines):
    with tempfile.TemporaryDirectory() as tmp:
        check_records_file(write_lines(Path(tmp), lines), lines)


turns = st.sampled_from([None, 0, 3, 40])


@FUZZ
@given(data=st.data(), turn=turns)
def test_mutated_real_records(real_records, data, turn):
    record = data.draw(st.sampled_from(real_records))
    changed = data.draw(mutated(record, json_values))
    line = json.dumps(changed)
    if data.draw(st.booleans()):
        line = line[: data.draw(st.integers(0, len(line)))]
    with tempfile.TemporaryDirectory() as tmp:
        check_records_file(write_lines(Path(tmp), [line]), [line], turn)


# ------------------------------------------------------ regressions: configs
# The smallest inputs the fuzzing found, each of which used to crash or print
# more than one line.
def run_config(tmp_path: Path, text: str, *options: str) -> tuple[int, str, str]:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    return invoke(["run", str(path), "--games", "1", "--jobs", "1", "--quiet", "--format", "csv", *options])


def rejected_config(tmp_path: Path, text: str) -> str:
    """The one-line rejection of a config; load_config rejects it too."""
    code, out, err = run_config(tmp_path, text, "--out", str(tmp_path / "out"))
    line = assert_one_line_rejection(code, out, err, str(tmp_path / "c.yaml"))
    with pytest.raises(ConfigError):
        load_config(tmp_path / "c.yaml")
    return line


@pytest.mark.parametrize("key", ["\nx", "a\x1cb", "", " padded"])
def test_an_unknown_key_with_line_breaks_is_quoted(tmp_path, key):
    line = rejected_config(tmp_path, dump_yaml({"players": ["random"], key: 1}))
    assert f"{key!r}: unknown key" in line


def test_an_unknown_override_key_with_a_line_break_is_quoted(tmp_path):
    line = rejected_config(tmp_path, dump_yaml({"players": ["random"], "overrides": {"plans": {"a\nb": {}}}}))
    assert "overrides.plans.'a\\nb': unknown plan id" in line


@pytest.mark.parametrize("text, problem", [
    ("seed: 2001-02-30\n", "day is out of range"),   # ValueError from the date constructor
    ("seed: !!int\n", "IndexError"),
    ("seed: !!int 0x\n", "ValueError"),
    ("seed: !!timestamp x\n", "AttributeError"),
    ("seed: !!bool x\n", "KeyError"),
])
def test_yaml_values_that_cannot_be_constructed(tmp_path, text, problem):
    line = rejected_config(tmp_path, "players: [random]\n" + text)
    assert "malformed YAML: cannot read a value" in line and problem in line


def test_deeply_nested_yaml(tmp_path):
    line = rejected_config(tmp_path, "players: " + "[" * 1000)  # PyYAML recurses about 3 frames a level
    assert line.endswith("malformed YAML: nested too deeply")


def test_malformed_yaml_without_a_position_has_no_empty_field(tmp_path):
    line = rejected_config(tmp_path, "players: [random]\nname: \x86\n")
    assert f"{tmp_path / 'c.yaml'}: malformed YAML: unacceptable character" in line


def test_a_name_with_a_nul_byte(tmp_path, monkeypatch):
    """It named the default output folder, where mkdir raised ValueError."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_config(tmp_path, 'players: [random]\nname: "a\\0b"\n')
    line = assert_one_line_rejection(code, out, err)
    assert "name: must be a non-empty printable string" in line
    assert not (tmp_path / "results").exists()


def test_remove_plans_with_a_mapping(tmp_path):
    line = rejected_config(tmp_path, "players: [random]\noverrides: {remove_plans: [{}]}\n")
    assert "overrides.remove_plans: must be a list of plan ids" in line


@pytest.mark.parametrize("overrides, problem", [
    # plan points beyond int64 overflowed the result table once the plan was completed
    ("{plans: {estates-6-6: {points: [100000000000000000000000, 1]}}}",
     "overrides.plans.estates-6-6.points: values must be at most 1000"),
    ("{tracks: {bis_track: [0, 1, 2, 3, 4, 5, 6, 7, 8, 100000]}}", "overrides.tracks.bis_track: values must be at most"),
    # 100 million copies of a card: the deck was built in memory (a hang)
    ("{deck: {8: [100000000, 1, 1, 1, 1, 1]}}", "overrides.deck.8: values must be at most 100"),
    ("{deck: {true: [1, 1, 1, 1, 1, 1]}}", "overrides.deck.True: card numbers must be 0..17"),
    ("{add_plans: [{id: x, deck: 1.0, estates: [2], points: [1, 1]}]}", "overrides.add_plans[0].deck: must be 1, 2 or 3"),
    ("{add_plans: [{id: x, deck: 1, estates: [1, 1, 1, 1, 1, 1, 1], points: [1, 1]}]}", "at most 6 estates"),
    ("{add_plans: [{id: \"a\\nb\", deck: 1, estates: [2], points: [1, 1]}]}", "add_plans[0].id: must be a new plan id"),
])
def test_override_values_out_of_range(tmp_path, overrides, problem):
    line = rejected_config(tmp_path, f"players: [random]\noverrides: {overrides}\n")
    assert problem in line


@pytest.mark.parametrize("params, problem", [
    # float() of a huge integer raised OverflowError while the config was loaded
    ("{weights: {points: " + str(10**400) + "}}", "parameter 'weights.points' must be a number (finite)"),
    ("{weights: {points: .nan}}", "parameter 'weights.points' must be a number (finite)"),
    # these loaded, then the run stopped with a strategy error (exit 3) on turn 1
    ("{shortlist: 0}", "parameter 'shortlist' must be at least 1"),
    ("{shortlist: 1.5}", "parameter 'shortlist' must be a number (an integer)"),
])
def test_greedy_parameters_that_cannot_be_played(tmp_path, params, problem):
    line = rejected_config(tmp_path, f"players: [{{strategy: greedy, params: {params}}}]\n")
    assert "players[0].params: strategy 'greedy': " + problem in line


def test_greedy_plays_with_huge_finite_weights(tmp_path):
    """Huge weights make every move's value NaN; greedy used to answer None."""
    code, out, err = run_config(tmp_path, "players: [{strategy: greedy, params: {weights: "
                                "{points: 1.0e+308, flexibility: -1.0e+308}}}]\n", "--out", str(tmp_path / "o"))
    assert code == 0, err


def test_an_error_message_is_one_line_whatever_the_user_typed(tmp_path):
    """A file name with a line break is quoted as given; stderr still gets one line."""
    missing = tmp_path / "a\nb.jsonl"
    line = assert_one_line_rejection(*invoke(["verify", str(missing)]))
    assert line == f"wtsim: error: {tmp_path}/a b.jsonl: cannot read: No such file or directory"


# ------------------------------------------------------ regressions: records
def records_file(tmp_path: Path, content: bytes) -> Path:
    path = tmp_path / "records.jsonl"
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("content, problem", [
    (b"\xff\n", "records.jsonl:1: not UTF-8 text"),                    # UnicodeDecodeError
    (b"[" * 100000 + b"\n", "records.jsonl:1: not valid JSON: nested too deeply"),  # RecursionError
    (b'{"game": 0, "final": 5}\n', "records.jsonl:1: game 0: malformed record: "),
])
def test_records_that_crashed_verify_and_show(tmp_path, content, problem):
    path = records_file(tmp_path, content)
    for argv in (["verify", str(path)], ["show", str(path), "--game", "0"]):
        line = assert_one_line_rejection(*invoke(argv))
        assert problem in line, (argv, line)


def test_a_final_block_that_is_not_a_list(real_records, tmp_path):
    """verify() zipped the replay with `final: 5` and raised TypeError."""
    record = copy.deepcopy(real_records[0])
    record["final"] = 5
    path = records_file(tmp_path, json.dumps(record).encode() + b"\n")
    line = assert_one_line_rejection(*invoke(["verify", str(path)]))
    assert line.endswith(f"records.jsonl:1: game {record['game']}: malformed record: final: must be a list, got 5")
    assert verify(record) == ["malformed record: final: must be a list, got 5"]


def test_a_seat_out_of_range_is_malformed(real_records, tmp_path):
    """Seat -1 used to replay the last seat's sheet without a word."""
    record = copy.deepcopy(real_records[0])
    record["turns"][2]["actions"][0]["seat"] = -1
    path = records_file(tmp_path, json.dumps(record).encode() + b"\n")
    line = assert_one_line_rejection(*invoke(["show", str(path), "--game", str(record["game"])]))
    assert line.endswith("malformed record: turns[2].actions[0].seat: must be 0..1, got -1")


def test_verify_exit_codes_and_report_lines(real_records, tmp_path):
    """Disagreements: a stdout line per problem naming line, game, turn or seat,
    exit 1. A malformed line stops the check: one stderr line, exit 2."""
    good, tampered = copy.deepcopy(real_records[0]), copy.deepcopy(real_records[1])
    tampered["final"][1]["score"]["total"] += 5
    illegal = copy.deepcopy(real_records[0])
    action = next(a for a in illegal["turns"][4]["actions"] if a["written"] is not None)
    action["written"]["number"] = 99
    lines = [json.dumps(r) for r in (good, tampered, illegal)]
    path = records_file(tmp_path, "\n".join(lines).encode() + b"\n")
    code, out, err = invoke(["verify", str(path)])
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{path}:2: game {tampered['game']}: seat 1: score.total differs: replay "
        f"{tampered['final'][1]['score']['total'] - 5} vs record {tampered['final'][1]['score']['total']}",
        f"{path}:3: game {illegal['game']}: turn {illegal['turns'][4]['turn']}: seat {action['seat']}: "
        f"illegal play {action['written']}",
        "3 records checked, 2 with problems",
    ]
    del tampered["turns"][1]["actions"][0]["refusal"]
    path = records_file(tmp_path, (lines[0] + "\n" + json.dumps(tampered) + "\n").encode())
    code, out, err = invoke(["verify", str(path)])
    assert code == 2 and out == ""
    assert err == f"wtsim: error: {path}:2: game {tampered['game']}: malformed record: turns[1].actions[0].refusal: missing\n"
