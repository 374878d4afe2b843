"""Every command example of the README and the manual runs as written.

Each page's console examples run in order in a new temporary folder, as a
reader would type them there: `configs/`, `strategies/` and the shipped
training folders are linked in (read-only use), `wtsim` and `python` import
this checkout. Only the exit code is checked: the output beside a command
shows what it prints, and other engineers' changes to tables must not break
the manual's examples. The examples play a few games each.

A plain `wtsim ...` command (no pipe, variable or substitution; on one line
or continued with backslashes; its output left on the screen or sent to a
file with a final `> FILE`) runs through `welcometo_sim.cli.main` in this
process, as the console script would, which spares the interpreter's start-up
and imports of each of the dozens of commands; any other line runs in bash.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from docs_examples import DOCUMENTS, ROOT, console_commands, fenced_blocks, not_run_markers
from welcometo_sim.cli import main

PAGES_WITH_EXAMPLES = [path for path in DOCUMENTS
                       if any(block.lang == "console" and block.not_run is None for block in fenced_blocks(path))]
SHELL_LANGS = {"bash", "sh", "shell"}
SHELL_SYNTAX = re.compile(r"[|&;<>$`\\]|^\w+=")
"""What only a shell can run: pipes, redirections, variables, substitutions, escapes."""
CONTINUATION = "\\\n"
"""A backslash ending a line: the shell joins the two lines, dropping both characters."""
TO_FILE = re.compile(r"\s+>\s*(?P<file>[\w.+-][\w./+-]*)$")
"""A command's standard output sent to a file, at the end of the command."""


@pytest.fixture(scope="module")
def commands_dir(tmp_path_factory) -> Path:
    """A folder with `wtsim` and `python` that run this checkout with this interpreter."""
    folder = tmp_path_factory.mktemp("bin")
    for name, body in (("wtsim", f'exec "{sys.executable}" -m welcometo_sim "$@"'),
                       ("python", f'exec "{sys.executable}" "$@"')):
        script = folder / name
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def reader_folder(tmp_path: Path) -> Path:
    """An empty working folder holding what the examples read from the repository."""
    for name in ("configs", "strategies"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    (tmp_path / "training").mkdir()
    for model in ("base", "solo"):
        (tmp_path / "training" / model).symlink_to(ROOT / "training" / model, target_is_directory=True)
    return tmp_path


def example_env(commands: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{commands}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    return env


def run_in_process(words: list[str], capsys) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `wtsim WORDS...` run as the console script runs it."""
    try:
        main(words)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_example(command: str, folder: Path, env: dict[str, str], capsys) -> tuple[int, str]:
    """Exit code and stderr of one example command, run in `folder`."""
    joined = command.replace(CONTINUATION, "")
    redirect = TO_FILE.search(joined)
    plain = joined[:redirect.start()] if redirect else joined
    words = shlex.split(plain, comments=True)
    if words[0] == "wtsim" and not SHELL_SYNTAX.search(plain):
        code, out, err = run_in_process(words[1:], capsys)
        if redirect:
            (folder / redirect["file"]).write_text(out, encoding="utf-8")  # what the shell's `>` writes
        return code, err
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stderr


@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_examples_of_a_page_run(page, tmp_path, commands_dir, monkeypatch, capsys):
    folder = reader_folder(tmp_path)
    monkeypatch.chdir(folder)
    env = example_env(commands_dir)
    ran = 0
    for block in fenced_blocks(page):
        if block.lang != "console" or block.not_run is not None:
            continue
        for command in console_commands(block):
            code, stderr = run_example(command, folder, env, capsys)
            assert code == 0, f"{block.where}: $ {command}\nexit {code}\n{stderr[-2000:]}"
            ran += 1
    assert ran > 0


def test_the_readme_and_the_pages_have_examples():
    pages = {path.name for path in PAGES_WITH_EXAMPLES}
    assert {"README.md", "tutorial.md", "cli.md", "analyses.md", "long-runs.md", "learned.md",
            "shake-that-city.md", "tuning.md", "output.md", "configs.md"} <= pages


def test_every_example_that_does_not_run_says_why():
    for path in DOCUMENTS:
        blocks = {block.line - 1: block for block in fenced_blocks(path)}
        for line, text in not_run_markers(path):
            block = blocks.get(line)
            assert block is not None and block.lang == "console", f"{path.name}:{line}: a marker must precede a console block"
            assert block.not_run, f"{path.name}:{line}: '{text}' gives no reason in the form 'not run (REASON)'"


def test_no_wtsim_example_hides_in_a_bash_block():
    """A `wtsim` command in a bash block would never run: examples are console blocks."""
    for path in DOCUMENTS:
        for block in fenced_blocks(path):
            if block.lang in SHELL_LANGS:
                hidden = [line for line in block.lines if line.lstrip().startswith("wtsim ")]
                assert not hidden, f"{block.where}: {hidden[0]!r} belongs in a console block"


def test_a_console_block_holds_commands():
    for path in DOCUMENTS:
        for block in fenced_blocks(path):
            if block.lang == "console":
                assert console_commands(block), f"{block.where}: a console block without a `$ ` command"


@pytest.mark.parametrize("command", ["wtsim run --games 0", "wtsim run \\\n    --games 0",
                                     "wtsim run --games 0 > out.txt", "wtsim run --games 0 | cat"])
def test_a_failing_example_is_caught(command, tmp_path, commands_dir, monkeypatch, capsys):
    """A failing command fails the page, in this process (continued over lines, or sent to a
    file, too) or in bash (inside a pipeline too)."""
    monkeypatch.chdir(reader_folder(tmp_path))
    code, stderr = run_example(command, tmp_path, example_env(commands_dir), capsys)
    assert code == 2 and "wtsim: error:" in stderr


@pytest.mark.parametrize("command", ["wtsim schema table > table.json", "wtsim schema table >table.json"])
def test_an_example_sent_to_a_file_writes_what_the_command_prints(command, tmp_path, commands_dir, monkeypatch,
                                                                  capsys):
    monkeypatch.chdir(reader_folder(tmp_path))
    code, printed, _ = run_in_process(["schema", "table"], capsys)
    assert code == 0 and printed
    assert run_example(command, tmp_path, example_env(commands_dir), capsys) == (0, "")
    assert (tmp_path / "table.json").read_text(encoding="utf-8") == printed


def test_the_reader_of_examples(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("\n".join([
        "<!-- examples: not run (plays for hours) -->",
        "```console",
        "$ wtsim run --games 1000000",
        "```",
        "````markdown",
        "```console",
        "$ wtsim inside-a-longer-fence",
        "```",
        "````",
        "```console",
        "$ wtsim tune greedy --param shortlist=2:8 \\",
        "    --games 4",
        "output line",
        "$ wtsim verify x.jsonl",
        "```",
    ]) + "\n")
    skipped, text, example = fenced_blocks(page)
    assert skipped.not_run == "plays for hours" and console_commands(skipped) == ["wtsim run --games 1000000"]
    assert text.lang == "markdown" and text.not_run is None
    assert example.not_run is None and example.line == 10
    assert console_commands(example) == ["wtsim tune greedy --param shortlist=2:8 \\\n    --games 4",
                                         "wtsim verify x.jsonl"]
