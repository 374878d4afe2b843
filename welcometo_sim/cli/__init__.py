"""The `wtsim` command line: thin commands over the library.

`common` holds what every command shares; `run`, `records`, `info`,
`analysis` and `train` each hold a group of commands; `commands` gathers
them into the `cli` group.

The console entry point, :func:`main` here, answers Ctrl-C and SIGTERM from
its first instant: importing the commands (pandas, pyarrow, ...) takes a
second or more, and a signal in that time used to end the process without
a word.
"""

from __future__ import annotations

import importlib
import os
import signal
from typing import Any

__all__ = ["cli", "main"]


def _stopped_while_starting(signum: int, frame: Any) -> None:
    """Nothing has been written yet: say so and end at once (raising here would
    print a traceback from the middle of an import)."""
    name = "interrupted" if signum == signal.SIGINT else "terminated (SIGTERM)"
    os.write(2, f"wtsim: {name}\n".encode())
    os._exit(128 + signum)


def main(argv: list[str] | None = None) -> None:
    """Console entry point (see `welcometo_sim.cli.commands.main`)."""
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[signum] = signal.signal(signum, _stopped_while_starting)
        except (ValueError, OSError):  # not the main thread: no signal arrives here
            pass
    try:
        commands = _commands()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    commands.main(argv)


def _commands() -> Any:
    """The module of the command group, imported when first used."""
    return importlib.import_module(".commands", __name__)


def __getattr__(name: str) -> Any:
    """`cli` (the click group), imported when first used."""
    if name == "cli":
        return _commands().cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
