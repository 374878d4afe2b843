"""Every command's --json document matches its shipped schema (`wtsim schema
json COMMAND`), holds numbers where scripts read numbers (integers as JSON
integers, missing values null) and names every interval X, X_low, X_high."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from helpers import user_error, wtsim
from welcometo_sim.schemas import OUTPUT_COMMANDS, output_schema

CONFIG = {"games": 3, "seed": 2, "players": ["greedy", "random"]}
SHAKE = {"game": "shake-that-city", "games": 2, "seed": 2, "players": ["greedy", "random"]}
NUMBER_TEXT = re.compile(r"^-?\d+(\.\d+)?%?( \[.*\])?$|^-$")
"""A string that is a formatted number, an interval or the printed dash: never in a document."""


def strict_validator(schema: dict) -> jsonschema.protocols.Validator:
    """A draft 2020-12 validator for which 21.0 is not an integer (JSON Schema
    lets a float with no fraction pass as one; a count must be written 21)."""
    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
    strict = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=checker)
    strict.check_schema(schema)
    return strict(schema)


def strings(value, path="$"):
    """Every string value of a document (not the keys) with where it is."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, f"{path}[{index}]")
    elif isinstance(value, str):
        yield path, value


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("json")
    (folder / "c.yaml").write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    (folder / "stc.yaml").write_text(yaml.safe_dump(SHAKE), encoding="utf-8")
    return folder


def documents(folder: Path) -> list[tuple[str, list[str]]]:
    """(command, argv) of every --json variant, small enough to run in seconds."""
    config, shake = str(folder / "c.yaml"), str(folder / "stc.yaml")
    tiny = ["-q", "--jobs", "1"]
    return [
        ("run", ["run", config, "--out", str(folder / "run"), "--jobs", "1"]),
        ("run", ["run", shake, "--out", str(folder / "stc-run"), "--jobs", "1"]),
        ("summarize", ["summarize", str(folder / "run")]),
        ("summarize", ["summarize", str(folder / "stc-run"), "--by", "seat"]),
        ("compare", ["compare", "--config", config, "--games", "2", *tiny]),
        ("compare", ["compare", "--config", config, "--games", "2", "--table", *tiny]),
        ("compare", ["compare", "--results", str(folder / "run")]),
        ("compare", ["compare", "--config", shake, "--games", "2", *tiny]),
        ("compare", ["compare", "greedy", "random", "--until-significant", "--batch", "4", "--max-games", "8",
                     *tiny]),
        ("plans", ["plans", config, "--games-per-plan", "1", "--deck", "2", *tiny]),
        ("plans", ["plans", config, "--games-per-plan", "1", "--deck", "3", "--strategies", "random,greedy",
                   *tiny]),
        ("plans", ["plans", shake, "--games-per-plan", "2", "--strategies", "random,greedy", *tiny]),
        ("sweep", ["sweep", config, "--set", "games=2,3", *tiny]),
        ("sweep", ["sweep", shake, "--set", "variant.tile_supply=4,40", "--games", "2", *tiny]),
        ("sweep", ["sweep", config, "--set", "plans.estates-4-4.points=[6,3],[8,4]", "--games", "2", *tiny]),
        ("tune", ["tune", "greedy", "--config", config, "--param", "shortlist=2:4", "--games", "1", "--trials", "1",
                  "--top", "1", "--final-games", "1", "--out", str(folder / "t.yaml"), *tiny]),
        ("balance", ["balance", config, "--deck", "1", "--games", "1", "--rounds", "1", "--final-games", "1",
                     "--strategy", "random", "--out", str(folder / "b.yaml"), *tiny]),
        ("balance", ["balance", shake, "--deck", "1", "--games", "2", "--rounds", "2", "--final-games", "2",
                     "--out", str(folder / "stc-b.yaml"), *tiny]),
        ("strategies", ["strategies"]),
    ]


PRINTED: dict[tuple[str, ...], tuple[int, str, str]] = {}


def printed(argv: list[str], capsys) -> tuple[int, str, str]:
    """`wtsim ARGV` once per module: a seeded command that writes no file prints
    the same document each time, and two tests read the plans one."""
    if tuple(argv) not in PRINTED:
        PRINTED[tuple(argv)] = wtsim(argv, capsys)
    return PRINTED[tuple(argv)]


def test_every_command_with_json_has_a_schema_and_a_test():
    tested = {command for command, _argv in documents(Path("."))}
    assert tested == set(OUTPUT_COMMANDS)


def test_every_json_document_matches_its_schema(folder, capsys):
    for command, argv in documents(folder):
        code, out, err = (printed if command == "plans" else wtsim)([*argv, "--json"], capsys)
        assert code == 0, (argv, err)
        document = json.loads(out)  # strict JSON: no NaN
        errors = sorted(strict_validator(output_schema(command)).iter_errors(document), key=str)
        assert not errors, (argv, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]])
        formatted = [(path, text) for path, text in strings(document) if NUMBER_TEXT.match(text)]
        assert not formatted, (argv, formatted[:5])


def test_compare_json_holds_win_rates_and_intervals_as_numbers(folder, capsys):
    code, out, _ = wtsim(["compare", "--config", str(folder / "c.yaml"), "--games", "4", "-q", "--jobs", "1",
                          "--json"], capsys)
    assert code == 0
    document = json.loads(out)
    pair = document["pairs"]["greedy vs random"]
    assert (pair["a"], pair["b"], pair["games"]) == ("greedy", "random", 4)
    assert pair["a_win_rate_low"] <= pair["a_win_rate"] <= pair["a_win_rate_high"]
    assert pair["mean_diff_low"] <= pair["mean_diff"] <= pair["mean_diff_high"]
    rates = document["win_rates"]
    assert rates["greedy"]["greedy"] is None  # a player against itself
    assert rates["greedy"]["random"] == pair["a_win_rate"]
    assert rates["random"]["greedy"] == pytest.approx(1 - pair["a_win_rate"])
    assert rates["random"]["greedy_low"] == pytest.approx(1 - pair["a_win_rate_high"])
    assert [row["comparisons"] for row in document["ratings"].values()] == [4, 4]  # integers, the real results


def test_plans_json_has_numeric_values_and_null_outliers(folder, capsys):
    code, out, _ = printed(["plans", str(folder / "c.yaml"), "--games-per-plan", "1", "--deck", "2", "-q",
                            "--jobs", "1", "--json"], capsys)
    assert code == 0
    rows = json.loads(out)["plans"]
    assert all(isinstance(row["high_points"], int) and row["high_points"] > row["low_points"] for row in rows.values())
    assert all(row["outlier"] is None or row["outlier"].startswith(("high", "low")) for row in rows.values())


def test_schema_json_prints_each_commands_schema(capsys):
    for command in OUTPUT_COMMANDS:
        code, out, _ = wtsim(["schema", "json", command], capsys)
        assert code == 0
        assert json.loads(out) == output_schema(command)
        assert json.loads(out)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_json_needs_a_known_command(capsys):
    assert "name the command" in user_error(["schema", "json"], capsys)
    assert "'show'" in user_error(["schema", "json", "show"], capsys)
    assert "takes no COMMAND" in user_error(["schema", "record", "compare"], capsys)
