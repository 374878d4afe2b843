"""The command examples of the README and the manual, read from the Markdown.

The convention (docs/install.md, "Examples that run"): an example is a
fenced ``console`` block; each line that starts with ``$ `` is a command (a
line ending in a backslash continues on the next), the other lines show
output. A block right after the line ``<!-- examples: not run (REASON) -->``
is not run, and REASON says why. ``bash`` blocks hold shell lines that are
not examples (installing, starting a cluster) and are never run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
"""Every Markdown file whose examples run: the README and each page of the manual."""

NOT_RUN = re.compile(r"^<!-- examples: not run \((?P<reason>[^)]*)\) -->$")
_FENCE = re.compile(r"^(?P<fence>`{3,})(?P<lang>[\w-]*)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block of a Markdown file."""

    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    lines: tuple[str, ...]
    not_run: str | None  # the reason given by a marker right before the block, if any

    @property
    def where(self) -> str:
        name = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{name}:{self.line}"


def fenced_blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, outermost only: a block inside a
    longer fence (an example of the convention itself) is text, not a block."""
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence = opening["fence"]
        end = index + 1
        while end < len(lines) and not (lines[end].startswith(fence) and lines[end].strip("`") == ""):
            end += 1
        marker = NOT_RUN.match(lines[index - 1]) if index > 0 else None
        blocks.append(Block(path, index + 1, opening["lang"], tuple(lines[index + 1:end]),
                            marker["reason"].strip() if marker else None))
        index = end + 1
    return blocks


def console_commands(block: Block) -> list[str]:
    """The commands of a console block, continuation lines joined."""
    commands: list[str] = []
    pending: str | None = None
    for line in block.lines:
        if pending is not None:
            pending += "\n" + line
        elif line.startswith("$ "):
            pending = line[2:]
        else:
            continue
        if not pending.endswith("\\"):
            commands.append(pending)
            pending = None
    if pending is not None:
        raise ValueError(f"{block.where}: the last command continues past the block")
    return commands


def not_run_markers(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every not-run marker of a file, outside fenced blocks."""
    inside = {line for block in fenced_blocks(path) for line in range(block.line, block.line + len(block.lines) + 2)}
    return [(number, text) for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if text.startswith("<!-- examples:") and number not in inside]
