"""`wtsim train`: learn the `learned` strategy's evaluation from self-play."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path

import click

from .. import __version__
from ..analysis.formatting import format_number
from ..config import ConfigError, load_config
from ..games import game_learning
from ..learning.model import ModelError
from ..learning.train import (CHECKPOINT, CURVE, CURVE_PLOT, WEIGHTS, TrainingError, TrainingState, TrainSettings,
                              init_setting, initial_weights, load_state, new_state, train)
from ..messages import shown
from .common import complete_config, fail, notice, output_folder

SETTING_OPTIONS = ("seed", "shards", "round_games", "rate", "trace_decay", "eval_every", "eval_games", "opponents",
                   "eval_opponent", "step_sizes", "features")
"""The options a training is a function of: fixed for its life (--rate-after adds later steps)."""


def _variant_record(spec) -> dict:
    """The run's rules as its game's learning object records them in a checkpoint."""
    return game_learning(spec.game).variant_record(spec)


def _rate_steps(values: tuple[str, ...]) -> tuple[tuple[int, float], ...]:
    steps = []
    for value in values:
        games, _, rate = value.partition(":")
        try:
            steps.append((int(games), float(rate)))
        except ValueError:
            fail(f"--rate-after {shown(value)}: expected GAMES:RATE, e.g. 20000:0.1")
    return tuple(steps)


def _budget(games: int | None, seconds: float | None) -> None:
    if games is None and seconds is None:
        fail("give a budget: --games N (training games in all) and/or --seconds S")


def _given(name: str) -> bool:
    """Whether option `name` was given on the command line (not its default)."""
    source = click.get_current_context().get_parameter_source(name)
    return source not in (None, click.core.ParameterSource.DEFAULT)


def _check_resume_options(state: TrainingState, folder: Path, options: dict, games: int | None) -> None:
    """On --resume: refuse a settings option that differs from the
    checkpoint's (the training would silently ignore it), and a budget below
    the games already played; say what the resumed training will do."""
    settings = state.settings
    changed = [name for name in SETTING_OPTIONS if _given(name) and options[name] != getattr(settings, name)]
    if changed:
        asked = ", ".join(f"--{name.replace('_', '-')} {_setting(options[name])}" for name in changed)
        kept = ", ".join(f"{name.replace('_', '-')} {_setting(getattr(settings, name))}" for name in changed)
        fail(f"--resume: {asked} differ from the training in {folder} ({kept}); a training keeps its settings "
             f"(--games, --seconds, --jobs and --rate-after may change): drop them, or train anew in another --out")
    if games is not None and games < state.games:
        fail(f"--resume: --games {games} is fewer than the {state.games} games {folder} has already trained")


def _setting(value: int | float | str | tuple) -> str:
    if isinstance(value, tuple):
        return ",".join(value) or "''"
    return str(value) if isinstance(value, (int, str)) else f"{value:g}"


def _opponents(value: str) -> tuple[str, ...]:
    """--opponents NAME,NAME,... (empty: self-play)."""
    return tuple(name.strip() for name in value.split(",") if name.strip())


def _resume_notice(state: TrainingState, folder: Path, games: int | None, steps: tuple) -> None:
    """What a resumed training will do with the options that may change."""
    target = f"to {games} games in all" if games is not None else "on"
    added = ", ".join(f"{start}:{rate:g}" for start, rate in steps)
    notice(f"resuming {folder} at {state.games} games, training {target}"
           + (f", learning-rate steps {added} added" if added else ""))


@click.command(name="train")
@click.argument("config", required=False, type=click.Path(dir_okay=False), shell_complete=complete_config)
@click.option("--out", "-o", type=click.Path(file_okay=False), required=True,
              help="Training folder: checkpoint.npz, weights.npz, curve.csv, curve.png.")
@click.option("--games", "-n", type=click.IntRange(min=1, max=10**9),
              help="Train exactly this many games in all (resumed ones included); the last round may be partial.")
@click.option("--seconds", type=click.FloatRange(min=0, min_open=True, max=10**7),
              help="Stop after this many seconds of this invocation (at the end of a round).")
@click.option("--seed", "-s", type=click.IntRange(min=0, max=2**63 - 1), default=1, show_default=True,
              help="Training seed: the training and evaluation games are drawn from it.")
@click.option("--jobs", "-j", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="Processes playing shards at once (at most --shards); the weights do not depend on it.")
@click.option("--shards", type=click.IntRange(min=1, max=64), default=2, show_default=True,
              help="Games of a round are dealt to this many independent learners, merged after each round.")
@click.option("--round-games", type=click.IntRange(min=1, max=100_000), default=20, show_default=True,
              help="Games each shard plays per round.")
@click.option("--rate", type=float, default=None,
              help="Learning rate (a state's value moves this share of its TD error).  [default: the game's: "
                   "Welcome To 0.3, Shake That City 0.03]")
@click.option("--rate-after", "rate_after", multiple=True, metavar="GAMES:RATE",
              help="From GAMES training games on, learn at RATE (repeatable; may be added on --resume).")
@click.option("--trace-decay", type=float, default=0.5, show_default=True, help="TD(lambda)'s lambda.")
@click.option("--step-sizes", type=click.Choice(["fixed", "coherence"]), default="fixed", show_default=True,
              help="fixed: every weight learns at --rate; coherence: each weight's rate scales it by how steadily "
                   "its steps keep one direction (temporal coherence learning: noise slows a weight down by "
                   "itself).")
@click.option("--eval-every", type=click.IntRange(min=1, max=10**9), default=2000, show_default=True,
              help="Training games between two points of the learning curve.")
@click.option("--eval-games", type=click.IntRange(min=1, max=100_000), default=200, show_default=True,
              help="Evaluation games per point of the learning curve (the same seeds every time).")
@click.option("--opponents", default="", metavar="NAME,...",
              help="Train against these built-in strategies (seat 0 learns, the other seats take them in turn, "
                   "game by game) instead of self-play, whose identical seats tie every race.  [default: self-play]")
@click.option("--eval-opponent", default=None, metavar="NAME",
              help="Who the learner meets in the learning curve's games (two players or more): a built-in "
                   "strategy, or 'self' for self-play (a mirror: every race tied).  [default: the game's "
                   "strongest hand-made player: Welcome To heuristic, Shake That City lookahead]")
@click.option("--init", "init", type=click.Path(dir_okay=False), default=None, metavar="MODEL",
              help="Start from this model's weights (a weights.npz of the same game and feature layout) instead "
                   "of zero: a model for one family (a board, the advanced rules) trained on from the base model.")
@click.option("--features", default="", metavar="GROUP,...",
              help="Optional feature groups of the value model. Welcome To: 'cards' (the next turn's effects, "
                   "public in the standard game), 'wide' (windows of four houses); --init may name a model "
                   "without them (their weights start at zero).  [default: none]")
@click.option("--resume", is_flag=True,
              help="Continue the training in --out from its checkpoint; its settings are kept (an option that "
                   "differs is refused), --games, --seconds, --jobs and --rate-after may change.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def train_command(config: str | None, out: str, games: int | None, seconds: float | None, seed: int, jobs: int,
                  shards: int, round_games: int, rate: float, rate_after: tuple[str, ...], trace_decay: float,
                  step_sizes: str, eval_every: int, eval_games: int, opponents: str, eval_opponent: str,
                  init: str | None, features: str, resume: bool, quiet: bool) -> None:
    """Train a `learned` model by self-play on CONFIG's variant and player count.

    Every seat plays `learned` on the weights being trained (with --opponents,
    seat 0 does, against those strategies). The learning curve's games seat
    the learner against --eval-opponent (solo: alone). The result is a
    pure function of the config's variant, the player count, the seed, the
    learning settings and the number of games played: the same for any
    --jobs, and the same when stopped and resumed anywhere. Every run ends
    with a point of the learning curve. Play the model with
    `learned:weights=OUT/weights.npz`.

    \b
    wtsim train configs/base.yaml --out training/base --games 20000 --jobs 2
    wtsim train configs/base.yaml --out training/base --games 40000 --jobs 2 --resume
    """
    _budget(games, seconds)
    steps = _rate_steps(rate_after)
    folder = Path(out)
    if not str(out).strip():
        fail("--out: give a folder name")
    try:
        if resume:
            state = load_state(folder)
            _check_resume_options(state, folder, {"seed": seed, "shards": shards, "round_games": round_games,
                                                  "rate": rate, "trace_decay": trace_decay,
                                                  "eval_every": eval_every, "eval_games": eval_games,
                                                  "opponents": _opponents(opponents),
                                                  "eval_opponent": eval_opponent, "step_sizes": step_sizes,
                                                  "features": _opponents(features)}, games)
            if config is not None:
                spec = load_config(config).require("trainable", "train")
                if (spec.game != state.settings.game or _variant_record(spec) != state.settings.variant
                        or len(spec.players) != state.settings.players):
                    fail(f"--resume: {config} is not the variant and player count {folder} was trained on")
            if init is not None and init != state.settings.init_path:
                fail(f"--init {init}: {folder} was trained from "
                     f"{state.settings.init_path or 'zero weights'}; a resume keeps where it started")
            state = state.with_rates_after(steps)
        else:
            if (folder / CHECKPOINT).exists():
                fail(f"{folder} already holds a training: add --resume to continue it, or choose another --out")
            spec = load_config(config).require("trainable", "train")
            learning = game_learning(spec.game)
            settings = TrainSettings(variant=_variant_record(spec), players=len(spec.players), seed=seed,
                                     rate=learning.default_rate if rate is None else rate, rate_after=steps, trace_decay=trace_decay, shards=shards,
                                     round_games=round_games,
                                     eval_every=eval_every, eval_games=eval_games,
                                     opponents=_opponents(opponents), game=spec.game, step_sizes=step_sizes,
                                     eval_opponent=eval_opponent or learning.default_eval_opponent,
                                     features=_opponents(features))
            if init is not None:
                settings = replace(settings, init=init_setting(init, initial_weights(settings, init)))
            state = new_state(settings)
            state.config = config or ""
    except (TrainingError, ConfigError) as exc:
        fail(str(exc))
    output_folder(out, "train")  # before any game: a folder that cannot be written is one line now
    if resume:
        _resume_notice(state, folder, games, steps)
    total = games if games is not None else state.games
    bar = None
    progress = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total if games is not None else None, initial=state.games, unit="game",
                   file=sys.stderr, dynamic_ncols=True)
        progress = lambda done, step: bar.update(step)  # noqa: E731
    console = sys.argv[0].endswith("wtsim") or Path(sys.argv[0]).name == "__main__.py"  # wtsim, python -m welcometo_sim
    command = shlex.join(["wtsim", *sys.argv[1:]]) if console else shlex.join(sys.argv)
    try:
        state = train(state, games=games, seconds=seconds, jobs=jobs, folder=folder, command=command,
                      progress=progress, code_version=__version__)
    except (TrainingError, ModelError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        click.echo(f"wtsim: training stopped after {state.games} games; the checkpoint keeps them: "
                   f"continue with --resume --out {folder}", err=True)
        raise
    finally:
        if bar is not None:
            bar.close()
    last = state.curve[-1]
    against = ""
    if "margin" in last:
        against = (f" against {state.settings.eval_opponent} {last['opponent_score']:.1f} "
                   f"({last['margin']:+.1f} [{last['margin_low']:+.1f}, {last['margin_high']:+.1f}], "
                   f"won {format_number(last['win_share'], percent=True)})")
    click.echo(f"trained {state.games} games in {state.seconds:.0f} s; last evaluation at {last['games']} games: "
               f"mean {last['mean_score']:.1f} [{last['ci_low']:.1f}, {last['ci_high']:.1f}]{against}, "
               f"{format_number(last['refusal_end_share'], percent=True)} of games ended on refusals")
    click.echo(f"{folder / WEIGHTS}, {folder / CURVE}, {folder / CURVE_PLOT}")
    click.echo(f"the same weights from scratch: {state.reproduce(state.config, folder)}")
