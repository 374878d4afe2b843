"""`wtsim strategies` and `wtsim schema`: what can play and the formats the
results are written in."""

from __future__ import annotations

import json
import sys
import textwrap
from typing import Any

import click
from click.shell_completion import CompletionItem

from ..games import DEFAULT_GAME
from ..strategy import StrategyLoadError, builtin_strategies, load_strategy
from ..analysis.formatting import paragraph_width
from ..schemas import OUTPUT_COMMANDS, SCHEMA_GAMES, UnknownSchemaGame, output_schema, record_schema, table_schema
from .common import fail, json_text, one_line


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: name -> ref, description, params.")
def strategies(as_json: bool) -> None:
    """List the registered strategies, what they do and their parameters.

    Parameters are shown as they are set inline (greedy:shortlist=6), nested
    ones with dotted keys, each with its default.
    """
    entries = strategy_entries()
    if as_json:
        click.echo(json_text(entries))
        return
    width = paragraph_width()
    for name, entry in entries.items():
        click.echo(f"{name}  ({entry['ref']})")
        if "error" in entry:
            click.echo(f"    cannot load: {entry['error']}")
            continue
        click.echo(textwrap.fill(entry["description"], width, initial_indent="    ", subsequent_indent="    "))
        pairs = [f"{key}={json.dumps(value)}" for key, value in dotted(entry["params"])]
        if pairs:
            click.echo(textwrap.fill(" ".join(pairs), width, initial_indent="    params: ",
                                     subsequent_indent="            ", break_long_words=False))


@click.command()
@click.argument("document", type=click.Choice(["record", "table", "json"]))
@click.argument("command", required=False, metavar="[COMMAND]",
                shell_complete=lambda ctx, param, incomplete: complete_output_command(incomplete))
@click.option("--game", default=DEFAULT_GAME, show_default=True, metavar="GAME",
              shell_complete=lambda ctx, param, incomplete: complete_schema_game(incomplete),
              help="Whose formats: welcome-to or shake-that-city.")
def schema(document: str, command: str | None, game: str) -> None:
    """Print the format of game records, of the result table or of a command's --json output, as JSON.

    `record`: the JSON Schema (draft 2020-12) of one line of records.jsonl.
    `table`: the result table's columns in order with their pandas dtypes.
    Both carry their format version (docs/RECORDS.md). Shake That City's
    records and tables differ from Welcome To's: pick them with --game.
    `json COMMAND`: the JSON Schema (draft 2020-12) of what `wtsim COMMAND
    --json` prints (run, summarize, compare, plans, sweep, tune, balance,
    strategies): numbers are JSON numbers, missing ones null, and every 95%
    interval is the fields X, X_low and X_high.

    \b
    Examples:
      wtsim schema record --game shake-that-city
      wtsim schema json compare > compare.schema.json
    """
    if document == "json":
        if command not in OUTPUT_COMMANDS:
            given = f"got {command!r}" if command else "none given"
            fail(f"schema json: name the command ({', '.join(OUTPUT_COMMANDS)}); {one_line(given)}")
        click.echo(json.dumps(output_schema(command), indent=2))
        return
    if command is not None:
        fail(f"schema {document}: takes no COMMAND, got {one_line(repr(command))} "
             f"(the --json schemas: wtsim schema json COMMAND)")
    try:
        document_json = record_schema(game) if document == "record" else table_schema(game)
    except UnknownSchemaGame as exc:
        fail(one_line(str(exc)))
    click.echo(json.dumps(document_json, indent=2))


def complete_output_command(incomplete: str) -> list[CompletionItem]:
    """The commands with a --json schema whose name starts with what is typed."""
    return [CompletionItem(command) for command in OUTPUT_COMMANDS if command.startswith(incomplete)]


def complete_schema_game(incomplete: str) -> list[CompletionItem]:
    """The games with shipped schemas whose name starts with what is typed."""
    return [CompletionItem(game) for game in SCHEMA_GAMES if game.startswith(incomplete)]


def strategy_entries() -> dict[str, dict[str, Any]]:
    """Every registered strategy: its reference, the first paragraph of its
    docstring and its default parameters (or why it cannot be loaded)."""
    entries: dict[str, dict[str, Any]] = {}
    for name, ref in sorted(builtin_strategies().items()):
        try:
            cls = load_strategy(name)
        except StrategyLoadError as exc:
            entries[name] = {"ref": ref, "error": one_line(str(exc))}
            continue
        entries[name] = {"ref": ref, "description": strategy_description(cls), "params": cls.defaults}
    return entries


def strategy_description(cls: type) -> str:
    """The first paragraph of a strategy's docstring (its module's when the class
    has none), on one line, without a leading "`name`:" that repeats the name."""
    doc = cls.__doc__ or sys.modules[cls.__module__].__doc__ or ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    prefix = f"`{cls.name}`:"
    return paragraph[len(prefix):].strip() if paragraph.startswith(prefix) else paragraph


def dotted(params: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Nested parameters as (dotted key, value) pairs, the keys inline parameters take."""
    pairs: list[tuple[str, Any]] = []
    for key, value in params.items():
        if isinstance(value, dict) and value:
            pairs += dotted(value, f"{prefix}{key}.")
        else:
            pairs.append((f"{prefix}{key}", value))
    return pairs
