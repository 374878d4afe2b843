"""The command line as scripts and shells use it: `python -m welcometo_sim`,
a config on stdin, the results folder on stdout, `--json` documents, help
texts that are whole, and shell completion of strategies, configs and plans.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from helpers import user_error, wtsim
from welcometo_sim.cli import cli
from welcometo_sim.cli.common import complete_config, complete_plan_setting, complete_strategy
from welcometo_sim.games.welcome_to.data import DEFAULT_DATA
from welcometo_sim.sim.results import read_manifest, read_table
from welcometo_sim.strategy import builtin_strategies, load_strategy

RANDOM_PAIR = "name: pair\ngames: 3\nseed: 2\nplayers: [random, random]\n"


def feed_stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))


def test_python_dash_m_package_runs_the_command_line(tmp_path):
    """`python -m welcometo_sim` is `wtsim`, fed a config on stdin; with
    --quiet stdout holds the results folder and nothing else."""
    proc = subprocess.run([sys.executable, "-m", "welcometo_sim", "run", "-", "--quiet", "--jobs", "1"],
                          input=RANDOM_PAIR, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    folder = Path(proc.stdout.strip())
    assert proc.stdout == f"{folder}\n"
    assert folder.parent == Path("results") and folder.name.startswith("pair-")
    assert len(read_table(tmp_path / folder)) == 6
    help_proc = subprocess.run([sys.executable, "-m", "welcometo_sim", "--help"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=60)
    assert help_proc.returncode == 0, help_proc.stderr
    assert "  run " in help_proc.stdout and "  compare " in help_proc.stdout


def test_quiet_run_prints_the_default_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    feed_stdin(monkeypatch, RANDOM_PAIR)
    code, out, err = wtsim(["run", "-", "--games", "2", "--quiet"], capsys)
    assert code == 0, err
    [folder] = (tmp_path / "results").iterdir()
    assert out == f"{Path('results') / folder.name}\n"
    assert read_manifest(folder)["games"] == 2


def test_run_prints_the_folder_without_quiet(tmp_path, monkeypatch, capsys):
    feed_stdin(monkeypatch, RANDOM_PAIR)
    code, out, err = wtsim(["run", "-", "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    assert f"results in {tmp_path / 'o'}" in out and "scores" in out


def test_run_json_is_one_document_with_the_summarize_tables(tmp_path, monkeypatch, capsys):
    feed_stdin(monkeypatch, RANDOM_PAIR)
    code, out, err = wtsim(["run", "-", "--out", str(tmp_path / "o"), "--json"], capsys)
    assert code == 0, err
    document = json.loads(out)
    assert document["folder"] == str(tmp_path / "o")
    assert (document["name"], document["games"], document["seed"], document["played"]) == ("pair", 3, 2, 3)
    assert document["errored_games"] == 0
    code, summary, err = wtsim(["summarize", str(tmp_path / "o"), "--json"], capsys)
    assert code == 0, err
    for key, value in json.loads(summary).items():
        assert document[key] == value, key
    # Run again into the finished folder: still one JSON document, nothing played.
    feed_stdin(monkeypatch, RANDOM_PAIR)
    code, out, err = wtsim(["run", "-", "--out", str(tmp_path / "o"), "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["played"] == 0
    feed_stdin(monkeypatch, RANDOM_PAIR)
    code, out, err = wtsim(["run", "-", "--out", str(tmp_path / "o"), "--quiet"], capsys)
    assert (code, out) == (0, f"{tmp_path / 'o'}\n"), err


@pytest.mark.parametrize("text, fragment", [
    ("players: [random\n", "<stdin>: line 2, column 1: malformed YAML"),
    ("players: [nosuch]\n", "<stdin>: players[0].strategy: unknown strategy 'nosuch'"),
    ("- 1\n", "<stdin>: the config must be a mapping"),
])
def test_a_bad_config_on_stdin_is_one_line(tmp_path, monkeypatch, capsys, text, fragment):
    monkeypatch.chdir(tmp_path)
    feed_stdin(monkeypatch, text)
    assert fragment in user_error(["run", "-"], capsys)
    assert not (tmp_path / "results").exists()


def test_strategies_json_lists_every_registered_strategy(capsys):
    code, out, err = wtsim(["strategies", "--json"], capsys)
    assert code == 0, err
    entries = json.loads(out)
    assert set(entries) == set(builtin_strategies())
    for name, entry in entries.items():
        cls = load_strategy(name)
        assert entry["ref"] == builtin_strategies()[name]
        assert entry["params"] == json.loads(json.dumps(cls.defaults)), name
        assert entry["description"].endswith("."), (name, entry["description"])


def test_strategies_text_keeps_whole_descriptions_within_100_columns(capsys):
    code, out, err = wtsim(["strategies"], capsys)
    assert code == 0, err
    assert max(map(len, out.splitlines())) <= 100
    flat = " ".join(out.split())
    description = json.loads(wtsim(["strategies", "--json"], capsys)[1])["random"]["description"]
    assert description in flat  # random's is a whole paragraph of several sentences
    assert "roundabout_rate=0.05" in flat and "weights.points=1.0" in flat


def help_text(args: list[str], capsys) -> str:
    code, out, err = wtsim([*args, "--help"], capsys)
    assert code == 0, err
    return " ".join(out.split())


def test_help_texts_are_whole(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = wtsim(["--help"], capsys)
    commands = out.split("Commands:")[1]
    assert "..." not in commands
    assert max(map(len, out.splitlines())) <= 80
    flat = " ".join(commands.split())
    for name, command in cli.commands.items():
        first_sentence = " ".join(command.help.split("\n\n")[0].split()).split(". ")[0]
        assert f"{name} {first_sentence}" in flat, name
    assert "--by [player|strategy|seat] Group the tables by" in help_text(["summarize"], capsys)
    assert "--by [player|strategy|seat] Group the tables and figures by" in help_text(["report"], capsys)
    compare = help_text(["compare"], capsys)
    assert "per plan" not in compare and "grid point" not in compare
    assert '--set "plans.estates-4-4.points=[6,3],[8,4],[10,5]"' in help_text(["sweep"], capsys)


def completions(monkeypatch, capsys, words: str) -> list[str]:
    """What bash would offer for the last word of `words`, through click's own
    completion protocol (`_WTSIM_COMPLETE=bash_complete`)."""
    monkeypatch.setenv("_WTSIM_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(len(words.split(" ")) - 1))
    code, out, err = wtsim([], capsys)
    assert code == 0, err
    return out.splitlines()


def test_shell_completion_offers_strategies_configs_and_plans(tmp_path, monkeypatch, capsys):
    (tmp_path / "configs").mkdir()
    for name in ("base", "solo"):
        (tmp_path / "configs" / f"{name}.yaml").write_text("players: [random]\n")
    monkeypatch.chdir(tmp_path)
    assert completions(monkeypatch, capsys, "wtsim compare random gr") == ["plain,greedy"]
    assert completions(monkeypatch, capsys, "wtsim tune greedy --opponent looka") == ["plain,lookahead"]
    assert completions(monkeypatch, capsys, "wtsim run ") == ["plain,configs/base.yaml", "plain,configs/solo.yaml"]
    assert completions(monkeypatch, capsys, "wtsim plans configs/s") == ["plain,configs/solo.yaml"]
    assert completions(monkeypatch, capsys, "wtsim compare --config mine") == ["file,mine"]
    assert completions(monkeypatch, capsys, "wtsim sweep --set plans.estates-4-4.p") == [
        "plain,plans.estates-4-4.points="]


def test_completion_callbacks_know_every_strategy_and_plan(tmp_path, monkeypatch):
    context = click.Context(cli)
    param = click.Option(["--x"])
    assert [item.value for item in complete_strategy(context, param, "")] == sorted(builtin_strategies())
    keys = [item.value for item in complete_plan_setting(context, param, "plans.")]
    ids = {plan.id for plan in DEFAULT_DATA.all_plans()}
    assert len(ids) == 18 + 10 + 9
    assert {key.split(".")[1] for key in keys} == ids
    assert "plans.street-fully-lit.deck=" in keys
    monkeypatch.chdir(tmp_path)  # no configs/ folder here: the shell completes files
    [item] = complete_config(context, param, "x")
    assert (item.type, item.value) == ("file", "x")
