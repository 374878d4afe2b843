"""The `wtsim` command group and its console entry point.

Exit codes: 0 success, 2 bad input (config, option, file), 3 a strategy
raised or answered illegally (finished results are kept)."""

from __future__ import annotations

import signal
import sys

import click

from ..compiled_core import engine
from ..native import native_summary
from ..games.contract import StrategyError
from ..sim.guard import interrupt_signals, signal_received
from ..sim.isolated import WorkerLost
from . import analysis, info, records, run, train
from .common import EXIT_STRATEGY_ERROR, EXIT_USER_ERROR, USER_ERRORS, one_line


class Commands(click.Group):
    """The command group: `wtsim --help` shows the whole first sentence of each
    command's help, wrapped, where click would cut it at the terminal's width."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="welcometo-sim", prog_name="wtsim",
                      message=f"%(prog)s, version %(version)s ({engine()} engine, {native_summary()})")
def cli() -> None:
    """Tournament simulator for the board game Welcome To…

    Run seeded games between strategies, write result tables, and print
    score distributions. `wtsim COMMAND --help` explains each command.
    """


COMMANDS = (run.run, run.summarize, run.report, records.show, records.verify_cmd, info.strategies, info.schema,
            analysis.compare, analysis.plans, analysis.sweep_cmd, analysis.tune_cmd, analysis.balance_cmd,
            train.train_command)
"""Every `wtsim` command; `wtsim --help` lists them by name."""
for command in COMMANDS:
    cli.add_command(command)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user errors become one line on stderr and exit code 2;
    SIGTERM is handled like Ctrl-C."""
    try:
        with interrupt_signals((signal.SIGINT, signal.SIGTERM)):
            cli.main(args=argv, prog_name="wtsim", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        signum = signal_received() or signal.SIGINT
        click.echo("wtsim: interrupted" if signum == signal.SIGINT else "wtsim: terminated (SIGTERM)", err=True)
        sys.exit(128 + signum)
    except click.ClickException as exc:
        click.echo(f"wtsim: error: {one_line(exc.format_message())}", err=True)
        sys.exit(EXIT_USER_ERROR)
    except USER_ERRORS as exc:
        click.echo(f"wtsim: error: {one_line(str(exc))}", err=True)
        sys.exit(EXIT_USER_ERROR)
    except StrategyError as exc:
        click.echo(f"wtsim: strategy error: {one_line(str(exc))}", err=True)
        sys.exit(EXIT_STRATEGY_ERROR)
    except WorkerLost as exc:
        click.echo(f"wtsim: worker error: {one_line(str(exc))}", err=True)
        sys.exit(EXIT_STRATEGY_ERROR)
