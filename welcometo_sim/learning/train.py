"""Training the learned evaluation by temporal-difference learning in self-play.

Every seat of a training game is `learned`, playing greedily on the current
weights. After each game, the afterstate of each of a seat's decisions (the
sheet its chosen play and effect leave) is moved toward its TD(lambda)
return, computed backwards from the seat's final score:
``G_last = final``, ``G_t = (1 - lambda) V(a_t+1) + lambda G_t+1``; every
active weight of afterstate t moves by ``rate * (G_t - V(a_t)) / active_t``.
The value of an afterstate holds its exact points so far, so the weights
only learn what is still to come.

Parallel and reproducible: the games are dealt to a fixed number of
*shards* (default 2). In each round every shard plays `round_games` games
from the same starting weights, learning after each of its own games, and
the round ends by adding every shard's weight changes to the weights. The
result depends on the seed and the shard count only, never on `--jobs`
(shards run in parallel up to `--jobs` at a time). Game `i` of the training
is seeded by ``game_seed(seed, i)``; evaluation games by ``game_seed(seed,
EVAL_OFFSET + i)``, the same at every evaluation point.

A training folder holds `checkpoint.npz` (float64 weights, games played,
settings: enough to resume exactly), `weights.npz` (the model file that
`learned:weights=...` plays), `curve.csv` and `curve.png` (the learning
curve: evaluation games' mean score every `eval_every` training games).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from ..rules.game import Game, Seat
from ..rules.variant import Variant
from .model import ModelError, ValueModel, layout_for

EVAL_OFFSET = 1 << 40
"""Evaluation games use game indices from here on: never a training game."""
CHECKPOINT = "checkpoint.npz"
WEIGHTS = "weights.npz"
CURVE = "curve.csv"
CURVE_PLOT = "curve.png"
CHECKPOINT_SECONDS = 300.0
"""A checkpoint at least this often (wall time) between evaluation points."""
CURVE_COLUMNS = ("games", "seconds", "mean_score", "ci_low", "ci_high", "refusal_end_share", "mean_turns")


class TrainingError(ValueError):
    """Settings or a training folder that cannot be used (one line for the user)."""


@dataclass(frozen=True)
class TrainSettings:
    """What a training run is a pure function of (with the code version)."""

    variant: dict
    players: int
    seed: int
    rate: float = 0.3
    rate_after: tuple[tuple[int, float], ...] = ()
    """Later learning rates: (from this many games on, rate), in order."""
    trace_decay: float = 0.5
    shards: int = 2
    round_games: int = 20
    eval_every: int = 2000
    eval_games: int = 200

    def check(self) -> None:
        if self.players < 1:
            raise TrainingError("training needs at least one player")
        for rate in (self.rate, *(r for _, r in self.rate_after)):
            if not 0 < rate <= 10:
                raise TrainingError(f"a learning rate must be in (0, 10], got {rate}")
        starts = [games for games, _ in self.rate_after]
        if starts != sorted(set(starts)) or any(g % (self.shards * self.round_games) for g in starts):
            raise TrainingError(f"--rate-after game counts must increase and be multiples of shards x round "
                                f"games ({self.shards * self.round_games}), got {starts}")
        if not 0 <= self.trace_decay <= 1:
            raise TrainingError(f"--trace-decay must be in [0, 1], got {self.trace_decay}")
        for name in ("shards", "round_games", "eval_every", "eval_games"):
            if getattr(self, name) < 1:
                raise TrainingError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.eval_every % (self.shards * self.round_games):
            raise TrainingError(f"--eval-every ({self.eval_every}) must be a multiple of shards x round games "
                                f"({self.shards * self.round_games})")


    def rate_at(self, games: int) -> float:
        """The learning rate of the round that starts after `games` training games."""
        rate = self.rate
        for start, later in self.rate_after:
            if games >= start:
                rate = later
        return rate


@dataclass
class TrainingState:
    settings: TrainSettings
    weights: np.ndarray
    games: int = 0
    seconds: float = 0.0
    curve: list[dict] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    """Every invocation that trained these weights, in order."""
    config: str = ""
    """The config file the training started from ("": the bundled default)."""

    def with_rates_after(self, steps: tuple[tuple[int, float], ...]) -> "TrainingState":
        """The same training with later learning-rate steps added (from the
        games already played on); the rounds played keep their rates. A step
        not reached yet may be planned before an earlier-planned one (the steps
        are kept in order) or replace one planned at the same game count."""
        for start, _ in steps:
            if start < self.games:
                raise TrainingError(f"--rate-after {start}: {self.games} games are already played")
        merged = dict(self.settings.rate_after)
        merged.update(steps)
        settings = replace(self.settings, rate_after=tuple(sorted(merged.items())))
        settings.check()
        return replace(self, settings=settings)

    def reproduce(self, config: str, folder: Path) -> str:
        """One command that trains the same weights from scratch."""
        s = self.settings
        words = ["wtsim", "train", *([config] if config else []), "--out", str(folder), "--games", str(self.games), "--seed", str(s.seed),
                 "--rate", f"{s.rate:g}", "--trace-decay", f"{s.trace_decay:g}", "--shards", str(s.shards),
                 "--round-games", str(s.round_games), "--eval-every", str(s.eval_every),
                 "--eval-games", str(s.eval_games)]
        for start, rate in s.rate_after:
            words += ["--rate-after", f"{start}:{rate:g}"]
        return " ".join(words)


# ------------------------------------------------------------------ games
def variant_from_record(record: dict) -> Variant:
    """The Variant of a record's `variant` block (Variant.to_record's inverse)."""
    switches = {key: record[key] for key in ("advanced", "expert", "solo", "board") if key in record}
    return Variant.with_overrides(record.get("overrides"), **switches)


def _seats(model: ValueModel, players: int, trace: bool) -> list[Seat]:
    from ..strategies.learned import LearnedStrategy

    return [Seat(f"learned-{i}", "learned", lambda rng: LearnedStrategy(rng, None, model, trace=trace))
            for i in range(players)]


def td_targets(values: list[float], final: float, trace_decay: float) -> np.ndarray:
    """The TD(lambda) return of each state of one seat's game."""
    targets = np.empty(len(values))
    following = final
    for t in range(len(values) - 1, -1, -1):
        if t == len(values) - 1:
            targets[t] = final
        else:
            targets[t] = (1 - trace_decay) * values[t + 1] + trace_decay * following
        following = targets[t]
    return targets


def learn_from_game(weights: np.ndarray, game: Game, result, rate: float, trace_decay: float) -> None:
    """Move each seat's visited weights toward their TD(lambda) returns (in place)."""
    for seat, strategy in enumerate(game.strategies):
        trace = strategy.trace
        if not trace:
            continue
        final = float(result.scores[seat]["total"])
        targets = td_targets([value for _, value in trace], final, trace_decay)
        for (active, value), target in zip(trace, targets):
            if len(active):
                np.add.at(weights, active, rate * (target - value) / len(active))
        weights[0] = 0.0


def play_shard(weights: np.ndarray, layout_args: tuple, variant: Variant, players: int,
               seeds: list[int], rate: float, trace_decay: float) -> tuple[np.ndarray, np.ndarray]:
    """Play and learn from `seeds` in order from `weights`; returns the weight
    changes as (indices, deltas)."""
    from .features import Layout

    own = np.array(weights, dtype=np.float64)
    model = ValueModel(Layout(*layout_args), own)
    seats = _seats(model, players, trace=True)
    for seed in seeds:
        game = Game(variant, seats, seed)
        result = game.play()
        learn_from_game(own, game, result, rate, trace_decay)
    delta = own - weights
    changed = np.flatnonzero(delta)
    return changed, delta[changed]


def evaluate(weights: np.ndarray, layout_args: tuple, variant: Variant, players: int,
             seeds: list[int]) -> list[tuple[float, int, bool]]:
    """(mean seat score, turns, ended on refusals) of each evaluation game."""
    from .features import Layout

    model = ValueModel(Layout(*layout_args), np.asarray(weights, dtype=np.float64))
    seats = _seats(model, players, trace=False)
    out = []
    for seed in seeds:
        result = Game(variant, seats, seed).play()
        out.append((float(np.mean([s["total"] for s in result.scores])), result.turns,
                    "refusals" in result.end_reasons))
    return out


# --------------------------------------------------------------- training
def new_state(settings: TrainSettings) -> TrainingState:
    settings.check()
    variant = variant_from_record(settings.variant)
    layout = layout_for(variant.data)
    return TrainingState(settings, np.zeros(layout.size, dtype=np.float64))


def train(state: TrainingState, *, games: int | None, seconds: float | None, jobs: int,
          folder: Path, command: str, progress: Callable[[int, int], None] | None = None,
          code_version: str = "") -> TrainingState:
    """Train until `games` training games in all, or `seconds` more seconds,
    whichever comes first; checkpoint after every evaluation point, every
    `CHECKPOINT_SECONDS`, and on Ctrl-C or SIGTERM (then KeyboardInterrupt
    is raised again, the checkpoint holding every finished round)."""
    from joblib import Parallel, delayed

    from ..sim.guard import loky_config
    from ..sim.runner import game_seeds

    settings = state.settings
    state.commands.append(command)
    variant = variant_from_record(settings.variant)
    layout = layout_for(variant.data)
    layout_args = (layout.street_houses, layout.plan_ids)
    if state.weights.shape != (layout.size,):
        raise TrainingError("the checkpoint's weights do not fit this code's feature layout")
    per_round = settings.shards * settings.round_games
    _pyplot()  # imported now, not in a save an interrupt may cut short
    started = time.monotonic()
    start_seconds = state.seconds
    eval_seeds = game_seeds(settings.seed, EVAL_OFFSET, EVAL_OFFSET + settings.eval_games)
    with loky_config(), Parallel(n_jobs=min(jobs, settings.shards), max_nbytes=None) as parallel:
        if not state.curve:
            _evaluation_point(state, parallel, delayed, layout_args, variant, eval_seeds, jobs)
            _save(state, folder, layout, command, code_version)
        done = (state.weights, state.games)
        saved_at = time.monotonic()
        try:
            while games is None or state.games < games:
                if seconds is not None and time.monotonic() - started >= seconds:
                    break
                seeds = game_seeds(settings.seed, state.games, state.games + per_round)
                shards = [seeds[i::settings.shards] for i in range(settings.shards)]
                changes = parallel(delayed(play_shard)(state.weights, layout_args, variant, settings.players,
                                                       shard, settings.rate_at(state.games),
                                                       settings.trace_decay)
                                   for shard in shards)
                weights = state.weights.copy()
                for changed, delta in changes:
                    weights[changed] += delta
                done = (weights, state.games + per_round)  # one store: an interrupt sees all or nothing
                state.weights, state.games = done
                state.seconds = start_seconds + time.monotonic() - started
                if progress is not None:
                    progress(state.games, per_round)
                if state.games % settings.eval_every == 0:
                    _evaluation_point(state, parallel, delayed, layout_args, variant, eval_seeds, jobs)
                    _save(state, folder, layout, command, code_version)
                    saved_at = time.monotonic()
                elif time.monotonic() - saved_at >= CHECKPOINT_SECONDS:
                    _save(state, folder, layout, command, code_version)
                    saved_at = time.monotonic()
        except KeyboardInterrupt:
            state.weights, state.games = done
            state.seconds = start_seconds + time.monotonic() - started
            _save(state, folder, layout, command, code_version, plot=False)
            raise
    if not state.curve or state.curve[-1]["games"] != state.games:
        _save(state, folder, layout, command, code_version)
    return state


def _evaluation_point(state, parallel, delayed, layout_args, variant, eval_seeds, jobs) -> None:
    parts = max(1, min(jobs, len(eval_seeds)))
    chunks = [eval_seeds[i::parts] for i in range(parts)]
    results = parallel(delayed(evaluate)(state.weights, layout_args, variant, state.settings.players, chunk)
                       for chunk in chunks)
    rows = [row for part in results for row in part]
    scores = np.array([r[0] for r in rows])
    half = 1.96 * scores.std(ddof=1) / math.sqrt(len(scores)) if len(scores) > 1 else 0.0
    state.curve.append({
        "games": state.games, "seconds": round(state.seconds, 1),
        "mean_score": round(float(scores.mean()), 3),
        "ci_low": round(float(scores.mean() - half), 3), "ci_high": round(float(scores.mean() + half), 3),
        "refusal_end_share": round(float(np.mean([r[2] for r in rows])), 4),
        "mean_turns": round(float(np.mean([r[1] for r in rows])), 2),
    })


# ------------------------------------------------------------- the folder
def _save(state: TrainingState, folder: Path, layout, command: str, code_version: str,
          plot: bool = True) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    settings = asdict(state.settings)
    partial = folder / (CHECKPOINT + ".partial")
    with open(partial, "wb") as handle:
        np.savez_compressed(handle, weights=state.weights,
                            state=np.array(json.dumps({"settings": settings, "games": state.games,
                                                       "seconds": state.seconds, "curve": state.curve,
                                                       "commands": state.commands, "config": state.config})))
    partial.replace(folder / CHECKPOINT)
    meta = {"command": state.commands[0] if state.commands else command, "commands": state.commands,
            "seed": state.settings.seed, "games": state.games,
            "code_version": code_version, "variant": state.settings.variant, "players": state.settings.players,
            "reproduce": state.reproduce(state.config, folder),
            "training": settings, "family": "solo" if state.settings.variant.get("solo") else "base"}
    ValueModel(layout, state.weights, meta).save(folder / WEIGHTS)
    _write_curve(state.curve, folder, plot)


def _pyplot():
    """matplotlib's pyplot on the file backend, or None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _write_curve(curve: list[dict], folder: Path, plot: bool = True) -> None:
    lines = [",".join(CURVE_COLUMNS)]
    lines += [",".join(str(row[c]) for c in CURVE_COLUMNS) for row in curve]
    (folder / CURVE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    plt = _pyplot() if plot else None
    if plt is None:
        return
    games = [row["games"] for row in curve]
    figure, axis = plt.subplots(figsize=(7, 4))
    axis.plot(games, [row["mean_score"] for row in curve], marker="o", markersize=3, label="mean score")
    axis.fill_between(games, [row["ci_low"] for row in curve], [row["ci_high"] for row in curve], alpha=0.25,
                      label="95% interval")
    axis.set_xlabel("training games")
    axis.set_ylabel("mean score of the evaluation games")
    axis.set_title("learned: learning curve")
    axis.grid(alpha=0.3)
    axis.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(folder / CURVE_PLOT, dpi=110)
    plt.close(figure)


def load_state(folder: Path) -> TrainingState:
    """The training state in a folder's checkpoint (one-line error if unusable)."""
    path = folder / CHECKPOINT
    if not path.is_file():
        raise TrainingError(f"{folder}: no {CHECKPOINT} to resume from")
    try:
        with np.load(path, allow_pickle=False) as archive:
            weights = np.array(archive["weights"], dtype=np.float64)
            saved = json.loads(str(archive["state"]))
        fields = dict(saved["settings"])
        fields["rate_after"] = tuple((int(g), float(r)) for g, r in fields.get("rate_after", ()))
        settings = TrainSettings(**fields)
    except (OSError, ValueError, KeyError, TypeError, EOFError) as exc:
        raise TrainingError(f"{path}: not a readable checkpoint ({type(exc).__name__})") from None
    return TrainingState(settings, weights, int(saved["games"]), float(saved["seconds"]), list(saved["curve"]),
                         [str(c) for c in saved.get("commands", [])], str(saved.get("config", "")))


__all__ = ["TrainSettings", "TrainingState", "TrainingError", "ModelError", "train", "new_state", "load_state",
           "td_targets", "learn_from_game", "CURVE_COLUMNS"]
