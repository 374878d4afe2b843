"""The `wtsim` command line: thin commands over the library.

`common` holds what every command shares; `run`, `records`, `info`,
`analysis` and `train` each hold a group of commands; `main` gathers them
into the `cli` group and is the console entry point.
"""

from .main import cli, main

__all__ = ["cli", "main"]
