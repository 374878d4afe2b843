"""The analysis commands of `wtsim`: compare, plans, sweep, tune, balance.

Each runs fresh games or reads a saved folder, prints its tables, and with
`--out DIR` writes the result table and every printed table (`--format`
csv, json or parquet) for scripts.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace
import time
from pathlib import Path

import click
import pandas as pd
import yaml

from .. import analyses
from ..analysis import balance as balancing
from ..analysis.formatting import (RATE_COLUMNS, format_interval, format_table, paragraph_width, table_text,
                                   text_blocks)
from ..analysis.plan_balance import printed_tables
from ..analysis.sequential import SequentialError, SprtSettings
from ..analysis.sweep import SweepError, sweep_document, sweep_text
from ..api import resolve_spec
from ..config import MAX_GAMES, MAX_JOBS, MAX_SEED, load_config, players_from_refs
from ..defaults import mirror_note
from ..sim.results import write_atomically
from ..sim.results import write_json
from ..tuning import OBJECTIVES, TuneError, spec_label, strategy_class
from .common import (ANALYSIS_FILE, RESULT_TABLES, TABLE_FORMATS, cli_progress, common_options,
                     complete_config, complete_plan_setting, complete_strategy, fail, files_read, json_tables,
                     json_text, output_file, output_folder, print_tables, warn_random, write_tables,
                     write_text_file)



def _print(tables: dict[str, pd.DataFrame]) -> None:
    """The tables as text as wide as the output: intervals merged, rates in
    percent, differences signed, counts as integers, long labels shortened."""
    print_tables(tables, as_csv=False, as_json=False, signed=("mean_diff", "vs_start"))


def _save(frame: pd.DataFrame, tables: dict[str, pd.DataFrame], out: str | None, fmt: str,
          meta: dict, quiet_stdout: bool = False) -> None:
    """With --out: the result table, every table and analysis.json (the
    closing line on stderr when stdout holds a JSON document)."""
    if out is None:
        return
    folder = Path(out)
    write_tables(tables, folder, fmt)
    if fmt == "parquet":
        written = "results.parquet"
        write_atomically(folder / written, lambda tmp: frame.to_parquet(tmp, index=False))
    else:
        written = "results.csv"
        write_atomically(folder / written, lambda tmp: frame.to_csv(tmp, index=False))
    for name in RESULT_TABLES:  # the table of an earlier output in the other format would be read first
        if name != written:
            (folder / name).unlink(missing_ok=True)
    write_json(folder / ANALYSIS_FILE, meta)
    click.echo(f"\ntables written to {folder}", err=quiet_stdout)


@click.command()
@click.argument("strategies", nargs=-1, shell_complete=complete_strategy)
@common_options
@click.option("--table", is_flag=True, help="Seat every strategy at one table instead of a round robin of pairs.")
@click.option("--results", "results_dir", type=click.Path(), help="Analyse a saved results folder instead of playing.")
@click.option("--until-significant", "sequential", is_flag=True, help="Two strategies: play batches until a sequential test (SPRT on the paired score difference) decides.")
@click.option("--max-games", type=click.IntRange(2, MAX_GAMES), default=SprtSettings.max_games, show_default=True, help="With --until-significant: stop undecided after this many games.")
@click.option("--batch", type=click.IntRange(2, MAX_GAMES), default=SprtSettings.batch, show_default=True, help="With --until-significant: games between two looks.")
@click.option("--alpha", type=float, default=SprtSettings.alpha, show_default=True, help="With --until-significant: chance of declaring a difference between equal strategies.")
@click.option("--beta", type=float, default=SprtSettings.beta, show_default=True, help="With --until-significant: chance of missing a difference of --effect points.")
@click.option("--effect", type=float, default=SprtSettings.effect, show_default=True, help="With --until-significant: the difference in points per game that matters.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (nothing else on stdout).")
def compare(strategies: tuple[str, ...], config: str | None, games: int | None, seed: int | None,
            jobs: int | None, out: str | None, fmt: str, quiet: bool, table: bool,
            results_dir: str | None, sequential: bool, max_games: int, batch: int, alpha: float,
            beta: float, effect: float, as_json: bool = False) -> None:
    """Compare strategies: win rates, paired score differences, ratings.

    STRATEGIES are strategy references (greedy, greedy:shortlist=6,
    file.py:Class); without them the config's players are compared. Every
    pair plays --games games with rotated seats on the same seeds (common
    random numbers), so differences are paired.

    With --until-significant two strategies play --batch games at a time
    (fresh seeds each batch) until an SPRT on the paired score difference
    says "A better", "B better" or "no difference" at the error rates
    --alpha and --beta for a difference of --effect points, or --max-games
    are played ("undecided"). A strategy named twice explores (its default
    temperature), so that an A/A test plays different games.

    \b
    Examples:
      wtsim compare random greedy --games 1000 --seed 1
      wtsim compare --config configs/expert.yaml --table --games 500
      wtsim compare --results results/base-20261130-101500
      wtsim compare lookahead greedy --until-significant --max-games 2000 --jobs 2
    """
    output_folder(out, "compare")
    if sequential:
        _sprt_settings(alpha, beta, effect, batch, max_games, games, table, results_dir)
    with cli_progress(quiet) as progress:
        try:
            result = analyses.compare(list(strategies) or None, config=config, games=games, seed=seed, jobs=jobs,
                                      table=table, results=results_dir, until_significant=sequential,
                                      alpha=alpha, beta=beta, effect=effect, batch=batch, max_games=max_games,
                                      progress=progress)
        except SequentialError as exc:
            fail(str(exc))
    tables = dict(result.tables)
    if result.sequential is not None:
        tables["looks"] = result.sequential.looks
    if as_json:
        click.echo(json_text(compare_document(result)))
    else:
        if result.sequential is not None:
            _print_sequential(result.sequential)
        _print(result.tables)
        if strategies and not sequential:
            _echo_compare_mirror(strategies, config)
    _save(result.frame, tables, out, fmt, result.meta(), quiet_stdout=as_json)


def _echo_compare_mirror(strategies: tuple[str, ...], config: str | None) -> None:
    """The mirror note (see `defaults.mirror_note`) for strategies compared as
    given: a deterministic strategy named twice plays itself in mirror games."""
    spec = load_config(config)
    note = mirror_note(replace(spec, players=players_from_refs(list(strategies), spec.game)))
    if note:
        click.echo(note.replace("seats", "strategies", 1))


def compare_document(result: analyses.Comparison) -> dict:
    """What `compare --json` prints: how the games were played, every table
    of the text output by name, and with --until-significant the verdict and
    the looks."""
    document = {**result.meta(), **json_tables(result.tables)}
    if result.sequential is not None:
        document["looks"] = json_tables({"looks": result.sequential.looks})["looks"]
    return document


def _sprt_settings(alpha: float, beta: float, effect: float, batch: int, max_games: int,
                   games: int | None, table: bool, results_dir: str | None) -> SprtSettings:
    """The sequential test's settings, checked; options it cannot use are errors."""
    for given, option in ((games, "--games (use --batch and --max-games)"), (table or None, "--table"),
                          (results_dir, "--results")):
        if given is not None:
            fail(f"compare --until-significant: {option} does not apply")
    try:
        return SprtSettings(alpha=alpha, beta=beta, effect=effect, batch=batch, max_games=max_games)
    except SequentialError as exc:
        fail(str(exc))
        raise


def _print_sequential(sequential: analyses.Sequential) -> None:
    """The header of a sequential compare, its looks and its verdict."""
    a, b, settings = sequential.a, sequential.b, sequential.settings
    lower, upper = settings.bounds()
    click.echo(textwrap.fill(f"sequential test of {a} against {b}: SPRT on the paired score difference, "
                             f"alpha {settings.alpha:g}, beta {settings.beta:g}, effect {settings.effect:g} "
                             f"points; a side decides at LLR >= {upper:.2f}, no difference when both are "
                             f"<= {lower:.2f}", paragraph_width(), break_on_hyphens=False))
    click.echo(f"\nlooks\n{table_text(sequential.looks, 3, signed=('mean', 'llr_a', 'llr_b'))}")
    click.echo(f"\nverdict: {sequential.verdict} after {sequential.games} games")


@click.command()
@click.argument("config", required=False, type=click.Path(dir_okay=False), shell_complete=complete_config)
@click.option("--games-per-plan", "-n", type=click.IntRange(1, MAX_GAMES), default=200, show_default=True, help="Games for each plan (objective).")
@click.option("--seed", "-s", type=click.IntRange(0, MAX_SEED), help="Run seed; every plan plays the same seeds.")
@click.option("--jobs", "-j", type=click.IntRange(-64, MAX_JOBS), help="Worker processes; -1 = every core.")
@click.option("--deck", "decks", type=click.IntRange(1, 3), multiple=True, help="Only this plan deck (repeatable); Shake That City: 1 bonus tiles, 2 construction pairs.")
@click.option("--strategy", "strategy", metavar="REF", help="Seat this strategy in every seat (default: the config's players).")
@click.option("--strategies", "skills", metavar="A,B,...", help="Skill trace: play every plan with each of these strategies in every seat, weakest first, on the same seeds.")
@click.option("--out", "-o", type=click.Path(file_okay=False), help="Write the games and the table here.")
@click.option("--format", "fmt", type=click.Choice(TABLE_FORMATS), default="csv", show_default=True)
@click.option("--results", "results_dir", type=click.Path(), help="Rebuild the table from a saved `wtsim plans --out` folder.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (nothing else on stdout).")
def plans(config: str | None, games_per_plan: int, seed: int | None, jobs: int | None,
          decks: tuple[int, ...], strategy: str | None, skills: str | None, out: str | None, fmt: str,
          results_dir: str | None, quiet: bool, as_json: bool = False) -> None:
    """Objective balance: force each plan of the variant into its deck slot.

    The other two plans are drawn at random; every plan plays the same seeds.
    On another game the objectives are its own: Shake That City's bonus tiles
    (deck 1; with construction, the construction pairs as deck 2, which score
    no points), every one in play in every game, so one set of games serves
    them all; their completion is the round a tile flipped (or a pair left).
    For each plan, with 95% intervals: completion rate, completion turn
    (median, IQR), share completed at the high value, how often and by how
    many seats the high value was won, points per player-game, mean score
    and game length (also against the deck's average, paired), and outliers
    (more than 1.5 IQR from the deck's median, with an interval that
    excludes it). A strategy filling several seats explores (its default
    temperature) so that the seats play different games.

    \b
    Examples:
      wtsim plans configs/base.yaml --games-per-plan 500 --seed 1 --jobs 2
      wtsim plans --strategies greedy,heuristic,learned --deck 1 --games-per-plan 100
      wtsim plans configs/shake-that-city.yaml --games-per-plan 200 --strategies random,greedy
    """
    spec = resolve_spec(config, seed=seed, jobs=jobs)
    output_folder(out, "plans")
    with cli_progress(quiet) as progress:
        study = analyses.plans(spec, games_per_plan=games_per_plan, decks=decks or None, strategy=strategy,
                               strategies=skills, results=results_dir, progress=progress)
    meta = {"command": "plans", "seed": spec.seed, "games_per_plan": games_per_plan, "skills": study.levels}
    if as_json:
        click.echo(json_text({**meta, **json_tables(study.tables)}))
    else:
        for name, text in _plan_text(study).items():
            click.echo(f"\n{name}")
            click.echo(text_blocks(text))
    if not results_dir:
        for level in study.levels or [strategy]:
            warn_random(analyses.seated(spec, level).players)
    _save(study.trials, study.tables, out, fmt, meta, quiet_stdout=as_json)


def _plan_text(study: analyses.PlanStudy) -> dict[str, pd.DataFrame]:
    """The tables `plans` prints, formatted (the plan table of the strongest
    level in a skill trace, then the skill tables)."""
    levels = study.levels
    shown = {f"{name} ({levels[-1]})" if levels else name: text
             for name, text in printed_tables(study.plans, study.races).items()}
    shown.update({name: format_table(t, 2, percent=RATE_COLUMNS, signed=("slope",))
                  for name, t in study.skill.items()})
    return shown


@click.command(name="sweep")
@click.argument("config", required=False, type=click.Path(dir_okay=False), shell_complete=complete_config)
@click.option("--set", "settings", multiple=True, required=True, metavar="KEY=V1,V2", shell_complete=complete_plan_setting, help="A config key and the values to sweep (repeatable; the grid is their product; the first point is the baseline).")
@click.option("--games", "-n", type=click.IntRange(1, MAX_GAMES), help="Games per grid point.")
@click.option("--seed", "-s", type=click.IntRange(0, MAX_SEED), help="Run seed; every grid point plays the same seeds.")
@click.option("--strategy", "strategy", metavar="REF", help="Seat this strategy in every seat (default: the config's players).")
@click.option("--jobs", "-j", type=click.IntRange(-64, MAX_JOBS), help="Worker processes; -1 = every core.")
@click.option("--out", "-o", type=click.Path(file_okay=False), help="Write the sweep table here (`wtsim report` reads it).")
@click.option("--format", "fmt", type=click.Choice(TABLE_FORMATS), default="csv", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (nothing else on stdout).")
@click.option("--csv", "as_csv", is_flag=True, help="Print the long table as CSV (nothing else on stdout).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def sweep_cmd(config: str | None, settings: tuple[str, ...], games: int | None, seed: int | None,
              jobs: int | None, out: str | None, fmt: str, as_json: bool, as_csv: bool, quiet: bool,
              strategy: str | None = None) -> None:
    """Run a grid of what-if changes to CONFIG and compare every point with the first.

    KEY is a dotted path into the config; keys under plans, add_plans,
    remove_plans, tracks and deck change the game data (overrides). Values
    are YAML, separated by commas. Every grid point plays the same seeds, so
    each point's difference to point 0 (the baseline) is paired game by
    game; estimates and differences carry 95% intervals.

    \b
    Examples:
      wtsim sweep configs/base.yaml --set "plans.estates-4-4.points=[6,3],[8,4],[10,5]" --games 500
      wtsim sweep --set "tracks.bis_track=[0,1,3,6,9,12,16,20,24,28],[0,0,0,0,0,0,0,0,0,0]" --json
    """
    if as_csv and as_json:
        fail("--csv and --json: choose one")
    players = analyses.seated(load_config(config), strategy).players
    output_folder(out, "sweep")
    with cli_progress(quiet) as progress:
        try:
            table = analyses.sweep(config, list(settings), games=games, seed=seed, jobs=jobs, strategy=strategy,
                                   progress=progress)
        except SweepError as exc:
            fail(str(exc))
    warn_random(players)
    facts = table.attrs["facts"]
    if as_json:
        click.echo(json_text(sweep_document(table, facts)))
    elif as_csv:
        click.echo(table.to_csv(index=False), nl=False)
    else:
        click.echo(f"sweep: {facts['grid_points']} grid points, {facts['games']} games each, seed {facts['seed']}; "
                   "diff: each point minus point 0 on the same games")
        click.echo(sweep_text(table))
    if out:
        write_tables({"sweep": table.set_index("point")}, Path(out), fmt)
        write_json(Path(out) / "analysis.json", {"command": "sweep", **facts})
        click.echo(f"\ntables written to {out}", err=as_json or as_csv)


@click.command(name="tune")
@click.argument("strategy", shell_complete=complete_strategy)
@click.option("--param", "-p", "param_ranges", multiple=True, metavar="KEY=LO:HI[:log]", help="A numeric parameter and its range (repeatable), e.g. weights.points=0:2; integer parameters take integers; ':log' draws on a log scale.")
@click.option("--objective", type=click.Choice(OBJECTIVES), default="diff", show_default=True, help="diff: own score minus the opponents' mean; score: own score; winrate: share of opponents beaten.")
@click.option("--opponent", "opponents", multiple=True, shell_complete=complete_strategy, help="Opponent strategy (repeatable: one table with all of them). Default: STRATEGY with its default parameters.")
@click.option("--config", "-c", type=click.Path(dir_okay=False), shell_complete=complete_config, help="Game, variant and default seed and jobs from this config (its players are ignored).")
@click.option("--games", "-n", type=click.IntRange(1, MAX_GAMES), default=100, show_default=True, help="Games per trial (the same seeds for every trial).")
@click.option("--trials", "--budget", "trials", type=click.IntRange(1, 100_000), default=30, show_default=True, help="Parameter sets to try, besides the start.")
@click.option("--population", type=click.IntRange(1, 100_000), help="Trials per generation (default: about the square root of --trials).")
@click.option("--top", type=click.IntRange(1, 100_000), default=3, show_default=True, help="Best trials replayed on fresh games.")
@click.option("--final-games", type=click.IntRange(1, MAX_GAMES), help="Fresh games for the replay (default: 4 x --games).")
@click.option("--seed", "-s", type=click.IntRange(0, MAX_SEED), help="Seed of the games and of the search (default: the config's).")
@click.option("--jobs", "-j", type=click.IntRange(-64, MAX_JOBS), help="Worker processes; -1 = every core. Results do not depend on it.")
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="YAML file for the best parameters (default results/tune-<strategy>-<timestamp>.yaml); an existing file is replaced only with --force.")
@click.option("--force", is_flag=True, help="Replace the --out file if it exists (never a file the command reads).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (nothing else on stdout).")
def tune_cmd(strategy: str, param_ranges: tuple[str, ...], objective: str, opponents: tuple[str, ...],
             config: str | None, games: int, trials: int, population: int | None, top: int,
             final_games: int | None, seed: int | None, jobs: int | None, out: str | None,
             quiet: bool, as_json: bool = False, force: bool = False) -> None:
    """Search the parameters of STRATEGY that play best against the opponents.

    STRATEGY is a strategy reference; its parameters (greedy:shortlist=6)
    are the start, trial 0. Every trial plays the same --games seeds with
    seats rotated; a cross-entropy search draws each generation around the
    best trials so far. The --top best are replayed on fresh games and the
    best there is written as YAML that a config's player entry can use
    through `params_file:`. The --config's game says whose strategies are
    named.

    \b
    Examples:
      wtsim tune greedy --param weights.flexibility=0:3 --param weights.points=0.5:2 --games 200 --jobs 2
      wtsim tune greedy --param shortlist=2:8 --objective winrate --opponent random --out best.yaml
      wtsim tune greedy --config configs/shake-that-city.yaml --param open=0:1 --opponent random
    """
    reads = files_read(config, [strategy, *opponents])
    output_file(out, _default_tune_path("strategy"), reads, force)
    with cli_progress(quiet) as progress:
        try:
            tuned = analyses.tune(strategy, list(param_ranges), objective=objective, opponents=list(opponents),
                                  config=config, games=games, trials=trials, population=population, top=top,
                                  final_games=final_games, seed=seed, jobs=jobs, progress=progress)
        except TuneError as exc:
            fail(str(exc))
    result = tuned.result
    path = output_file(out, _default_tune_path(strategy_class(result.strategy.ref, result.game).name), reads,
                       force)
    fresh = f"best {len(result.finalists) - 1} and the start on {result.settings.fresh_games()} fresh games"
    if as_json:
        tables = json_tables({"trials": tuned.trials, "finalists": tuned.finalists})
        click.echo(json_text({"command": "tune", **tuned.best, **tables, "file": str(path)}))
    else:
        click.echo(f"tune {spec_label(result.strategy)} against {', '.join(map(spec_label, result.opponents))}: "
                   f"objective {objective}, {games} games per trial, seed {result.seed}")
        _print({"trials": tuned.trials, fresh: tuned.finalists.assign(best=tuned.finalists["best"].map(
            {True: "*", False: ""}))})
        gain, low, high = result.best.gain
        click.echo(f"\nbest: trial {result.best.trial.number}, {objective} {result.best.objective:.3f} on fresh "
                   f"games, {gain:+.3f} [{low:+.3f}, {high:+.3f}] against the start")
    write_text_file(path, yaml.safe_dump(tuned.best, sort_keys=False))
    click.echo(f"parameters written to {path}", err=as_json)


@click.command(name="balance")
@click.argument("config", required=False, type=click.Path(dir_okay=False), shell_complete=complete_config)
@click.option("--deck", type=click.IntRange(1, 3), required=True, help="The plan deck to balance (Shake That City: 1, the bonus tiles).")
@click.option("--games", "-n", type=click.IntRange(1, MAX_GAMES), default=100, show_default=True, help="Games per plan in each search round (the same seeds every round).")
@click.option("--rounds", type=click.IntRange(1, 100), default=4, show_default=True, help="Search rounds at most.")
@click.option("--tolerance", type=click.FloatRange(0, None), default=0.5, show_default=True, help="Stop when best minus worst plan is within this many points per player-game.")
@click.option("--final-games", type=click.IntRange(1, MAX_GAMES), help="Fresh games per plan for the confirmation (default: 2 x --games).")
@click.option("--strategy", "strategy", metavar="REF", help="Seat this strategy in every seat (default: the config's players).")
@click.option("--seed", "-s", type=click.IntRange(0, MAX_SEED), help="Seed of the search games (default: the config's).")
@click.option("--jobs", "-j", type=click.IntRange(-64, MAX_JOBS), help="Worker processes; -1 = every core. Results do not depend on it.")
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="YAML file for the balanced config (default results/balance-<name>-deck<D>-<timestamp>.yaml); an existing file is replaced only with --force.")
@click.option("--force", is_flag=True, help="Replace the --out file if it exists (never the config the command reads).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (nothing else on stdout).")
def balance_cmd(config: str | None, deck: int, games: int, rounds: int, tolerance: float, final_games: int | None,
                strategy: str | None, seed: int | None, jobs: int | None, out: str | None, quiet: bool,
                as_json: bool = False, force: bool = False) -> None:
    """Search plan point values that make every plan of --deck worth the same.

    A plan's worth is its points per player-game, as in `wtsim plans`. Each
    round plays every plan of the deck on the same seeds and scales each
    plan's high and low values (integers, ratio kept) towards the deck's
    average worth; the best round is replayed on fresh seeds next to the
    starting values, and the result is written as CONFIG with an
    `overrides:` block, which `wtsim run` plays as it is. On Shake That City
    deck 1 balances the bonus tiles: each tile's one value, written as
    `overrides: {bonus: {points: {TILE: POINTS}}}`.

    \b
    Examples:
      wtsim balance configs/base.yaml --deck 1 --games 100 --jobs 2
      wtsim run results/balance-base-deck1-20261202-010000.yaml
      wtsim balance configs/shake-that-city.yaml --deck 1 --games 100
    """
    loaded = resolve_spec(config, seed=seed, jobs=jobs)
    path = output_file(out, _balanced_path(None, loaded.name, deck), files_read(config, [strategy]), force)
    with cli_progress(quiet) as progress:
        try:
            balanced = analyses.balance(loaded, deck=deck, games=games, rounds=rounds, tolerance=tolerance,
                                        final_games=final_games, strategy=strategy, progress=progress)
        except balancing.BalanceError as exc:
            fail(str(exc))
    if as_json:
        _print_balance_json(balanced, deck, loaded.seed, path)
    else:
        _print_balance(balanced, deck, config, games, loaded.seed)
    warn_random(analyses.seated(loaded, strategy).players)
    _write_balanced(path, balanced.config, quiet_stdout=as_json)


def _print_balance(balanced: analyses.Balancing, deck: int, config: str | None, games: int, seed: int) -> None:
    result = balanced.result
    click.echo(textwrap.fill(f"balance deck {deck} of {config or '<bundled base config>'}: {games} games per plan "
                             f"a round, seed {seed}, target {result.target:.2f} points per player-game "
                             f"(each cell: {'high/low values' if balanced.races else 'value'}: points per "
                             f"player-game)", paragraph_width(),
                             break_on_hyphens=False))
    click.echo(f"\nrounds\n{text_blocks(rounds_text(balanced.rounds, balanced.races))}")
    click.echo(f"\nround {result.best.number} and the start on {balanced.settings.fresh_games()} fresh games per "
               f"plan\n{table_text(confirmation_text(balanced.confirmation, balanced.races), 2)}")
    spread = balanced.confirmation.loc["spread (best - worst)"]
    click.echo(f"\nspread: {format_interval(spread['before'], spread['before_low'], spread['before_high'], 2)} "
               f"before, {format_interval(spread['after'], spread['after_low'], spread['after_high'], 2)} after")


def rounds_text(rounds: pd.DataFrame, races: bool = True) -> pd.DataFrame:
    """The rounds table as printed: the spread, and per plan one cell
    'high/low: points per player-game' ('value: ...' for objectives with one value)."""
    text = format_table(rounds[["spread"]], 2)
    for plan in balancing.round_plans(rounds):
        text[plan] = [f"{high}/{low}: {worth:.2f}" if races else f"{high}: {worth:.2f}" for high, low, worth in
                      zip(rounds[f"{plan}.high_points"], rounds[f"{plan}.low_points"], rounds[f"{plan}.worth"])]
    return text


def confirmation_text(confirmation: pd.DataFrame, races: bool = True) -> pd.DataFrame:
    """The confirmation table with each side's values as one 'high/low' column
    ('value' for objectives with one value; empty on the spread row, which has none)."""
    table = confirmation.copy()
    for label in ("before", "after"):
        high, low = table.pop(f"high_points_{label}"), table.pop(f"low_points_{label}")
        table.insert(0 if label == "before" else table.columns.get_loc("after"), f"points_{label}",
                     ["" if pd.isna(h) else f"{h}/{l}" if races else f"{h}" for h, l in zip(high, low)])
    return table


def _print_balance_json(balanced: analyses.Balancing, deck: int, seed: int, path: Path) -> None:
    """`balance --json`: the settings, the target, the best round, both tables
    and the balanced config's overrides, as one document."""
    result, settings = balanced.result, balanced.settings
    document = {"command": "balance", "deck": deck, "seed": seed, "games": settings.games,
                "fresh_games": settings.fresh_games(), "target": result.target, "best_round": result.best.number,
                **json_tables({"rounds": balanced.rounds, "confirmation": balanced.confirmation}),
                "overrides": balanced.config.get("overrides", {}), "file": str(path)}
    click.echo(json_text(document))


def _balanced_path(out: str | None, name: str, deck: int) -> Path:
    return Path(out) if out else Path("results") / f"balance-{name}-deck{deck}-{time.strftime('%Y%m%d-%H%M%S')}.yaml"


def _write_balanced(path: Path, document: dict, quiet_stdout: bool = False) -> None:
    write_text_file(path, yaml.safe_dump(document, sort_keys=False, default_flow_style=None))
    click.echo(f"balanced config written to {path}", err=quiet_stdout)


def _default_tune_path(name: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"tune-{name}-{stamp}.yaml"
