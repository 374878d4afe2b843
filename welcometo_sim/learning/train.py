"""Training a game's learned evaluation by temporal-difference learning.

The loop knows no game: the game module's `LEARNING` object (see
`welcometo_sim.games.game_learning`; Welcome To's is
`games/welcome_to/training.py`, Shake That City's
`games/shake_that_city/training.py`) plays the training games, in which
every learner seat plays `learned` greedily on the current weights (with
`opponents`, seat 0 only), and hands each learner's trace to a `Learner`.
After each game, the afterstate of each of a seat's decisions is moved
toward its TD(lambda) return, computed backwards from the seat's final
score: ``G_last = final``, ``G_t = (1 - lambda) V(a_t+1) + lambda G_t+1``;
the active weights of afterstate t move by ``rate * (G_t - V(a_t))``
divided by the squared length of its feature vector (normalised LMS), each
scaled by its own rate under temporal coherence (`step_sizes`). A value
holds its exact points so far (Shake That City: greedy's value), so the
weights only learn what is still to come.

Parallel and reproducible: the games are dealt to a fixed number of
*shards* (default 2). In each round every shard plays `round_games` games
from the same starting weights, learning after each of its own games, and
the round ends by adding every shard's weight changes to the weights. The
result depends on the seed and the shard count only, never on `--jobs`
(shards run in parallel up to `--jobs` at a time). Rounds cover games
``k * shards * round_games`` to ``(k + 1) * shards * round_games``; a budget
that ends inside a round makes that round partial (game `g` goes to shard
``g % shards`` as in a whole round), so a training plays exactly the games
asked for. The checkpoint then keeps the round open (its starting weights
and each shard's own), and a resumed training finishes it: stopping at any
budget and resuming trains the same weights as one straight run. Game `i`
of the training is seeded by ``game_seed(seed, i)``; evaluation games by
``game_seed(seed, EVAL_OFFSET + i)``, the same at every evaluation point,
and at the end of every invocation that trained games since the last point
(a short run still has its curve).

A training folder holds `checkpoint.npz` (float64 weights, games played,
settings, an open round: enough to resume exactly), `weights.npz` (the
model file that `learned:weights=...` plays), `curve.csv` and `curve.png`
(the learning curve: evaluation games' mean score every `eval_every`
training games).
Weights that stop being finite stop the training (one line); a checkpoint
is read with its sizes and fields checked before use (`load_state`).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from contextlib import suppress
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

from ..analysis import plots
from ..games import DEFAULT_GAME, UnknownGame, game_learning
from ..messages import shown
from ..sim.chunks import game_seeds
from ..sim.guard import loky_config
from ..sim.results import output_error
from .archive import ArchiveError, BoundedNpz
from .model import MAX_MODEL_BYTES, ModelError, finite_weights, read_json

EVAL_OFFSET = 1 << 40
"""Evaluation games use game indices from here on: never a training game."""
CHECKPOINT = "checkpoint.npz"
WEIGHTS = "weights.npz"
CURVE = "curve.csv"
CURVE_PLOT = "curve.png"
CHECKPOINT_SECONDS = 300.0
"""A checkpoint at least this often (wall time) between evaluation points."""
CURVE_COLUMNS = ("games", "seconds", "mean_score", "ci_low", "ci_high", "refusal_end_share", "mean_turns")
"""The columns every learning-curve point has: `mean_score` is the learner's own
score (seat 0), with its 95% interval."""
MATCH_COLUMNS = ("opponent_score", "margin", "margin_low", "margin_high", "win_share")
"""The columns of a point whose games seat an opponent (`eval_opponent`): its
mean score, the learner's mean paired margin over the opponents' mean with
its 95% interval, and the learner's share of wins (a tie for first shared)."""
SELF = "self"
COHERENCE = "coherence"
STEP_SIZES = ("fixed", COHERENCE)


MAX_SEED = 2**63 - 1
SETTING_BOUNDS = {"shards": 64, "round_games": 100_000, "eval_every": 10**9, "eval_games": 100_000}
"""The largest value of each count setting (the CLI's own bounds; a checkpoint is held to them too)."""


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
    opponents: tuple[str, ...] = ()
    """Who the learner trains against: () for self-play (every seat the learner,
    playing greedily on the same weights: with the same cards they write the
    same sheets, every race tied), else built-in strategies: seat 0 learns and
    seat j of training game g plays ``opponents[(g + j - 1) % len(opponents)]``."""
    eval_opponent: str = "heuristic"
    """Who the learner meets in the learning curve's games (two players or
    more: seat 0 learned, every other seat this strategy), so that no mirror
    inflates the curve; "self" seats the learner everywhere (a mirror: the
    curve of checkpoints made before this setting existed)."""
    game: str = DEFAULT_GAME
    """The game trained (`variant` is in its terms); checkpoints from before
    the setting are Welcome To's."""
    step_sizes: str = "fixed"
    """"fixed": every weight learns at the rate (and `rate_after`'s steps);
    "coherence": each weight's own rate scales it (temporal coherence, see
    `learn_from_traces`)."""
    init: str = ""
    """The model file whose weights the training starts from, as
    ``PATH#sha256=DIGEST`` (the digest of its weights, so that the setting names
    the numbers, not only the file); "" starts from zero. A model of one
    family (a thematic board, the advanced rules) is trained on from the base
    model instead of from nothing."""
    features: tuple[str, ...] = ()
    """The value model's optional feature groups (the game's `feature_groups`;
    Welcome To: "cards"); () for the plain layout."""

    @property
    def init_path(self) -> str:
        """The path part of `init` ("" when the training starts from zero)."""
        return self.init.rpartition("#sha256=")[0] if self.init else ""

    @property
    def learning(self):
        """The game's learning object (see the module docstring)."""
        try:
            return game_learning(self.game)
        except UnknownGame as exc:
            raise TrainingError(str(exc)) from None

    def check(self) -> None:
        if self.players < 1:
            raise TrainingError("training needs at least one player")
        known = self.learning.strategy_names()
        for name in (*self.opponents, *([] if self.eval_opponent == SELF else [self.eval_opponent])):
            if name not in known:
                raise TrainingError(f"strategy {shown(name)} is not a built-in strategy (built-ins: "
                                    f"{', '.join(sorted(known))})")
        for rate in (self.rate, *(r for _, r in self.rate_after)):
            if not 0 < rate <= 10:
                raise TrainingError(f"a learning rate must be in (0, 10], got {rate}")
        starts = [games for games, _ in self.rate_after]
        if starts != sorted(set(starts)) or any(g % (self.shards * self.round_games) for g in starts):
            raise TrainingError(f"--rate-after game counts must increase and be multiples of shards x round "
                                f"games ({self.shards * self.round_games}), got {starts}")
        groups = getattr(self.learning, "feature_groups", ())
        if any(name not in groups for name in self.features) or len(set(self.features)) != len(self.features):
            raise TrainingError(f"--features {shown(','.join(self.features))}: this game's feature groups are "
                                f"{', '.join(groups) or 'none'}")
        if self.step_sizes not in STEP_SIZES:
            raise TrainingError(f"--step-sizes must be one of {', '.join(STEP_SIZES)}, got {shown(self.step_sizes)}")
        if not 0 <= self.trace_decay <= 1:
            raise TrainingError(f"--trace-decay must be in [0, 1], got {self.trace_decay}")
        for name, most in SETTING_BOUNDS.items():
            if not 1 <= getattr(self, name) <= most:
                raise TrainingError(f"--{name.replace('_', '-')} must be 1 to {most}, got {getattr(self, name)}")
        if not 0 <= self.seed <= MAX_SEED:
            raise TrainingError(f"--seed must be 0 to {MAX_SEED}, got {self.seed}")
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
class OpenRound:
    """A round that a budget stopped inside: the games it started at, its
    starting weights, and each shard's own weights so far (indices where
    they differ from the starting ones, and their values). A resumed
    training finishes the round from there, so stopping anywhere and
    resuming trains the same weights as one straight run."""

    games: int
    weights: np.ndarray
    shards: list[tuple[np.ndarray, np.ndarray]]


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
    open_round: "OpenRound | None" = None
    """The round a budget stopped inside, if any (`weights` then holds its merge so far)."""

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
        if s.opponents:
            words += ["--opponents", ",".join(s.opponents)]
        if s.eval_opponent != "heuristic":
            words += ["--eval-opponent", s.eval_opponent]
        if s.step_sizes != "fixed":
            words += ["--step-sizes", s.step_sizes]
        if s.init:
            words += ["--init", s.init_path]
        if s.features:
            words += ["--features", ",".join(s.features)]
        for start, rate in s.rate_after:
            words += ["--rate-after", f"{start}:{rate:g}"]
        return " ".join(words)


# ------------------------------------------------------------------ games
class EvaluationRow(NamedTuple):
    """One evaluation game as the curve reads it: every seat's total (the
    learner at seat 0, or everywhere against "self"), its length in the
    game's own steps, and whether it ended early (Welcome To: on refusals)."""

    totals: list[float]
    turns: int
    ended_early: bool


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


def learn_from_traces(weights: np.ndarray, traces: list, finals: list[float], rate: float,
                      trace_decay: float, coherence: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """Move each learning seat's visited weights toward their TD(lambda)
    returns, in place: `traces[seat]` is the seat's (active weight indices,
    value) per decision, or None for a seat that does not learn. The step is
    normalised by the squared length of the feature vector (normalised LMS):
    the number of active weights when each is active once, as in Welcome To;
    a trace whose weights may repeat (a table shared by several places) gives
    that squared length as a third item, so that a repeated weight cannot
    overshoot its target.

    With `coherence` (each weight's sum of steps and sum of absolute steps,
    updated in place), every weight's step is scaled by its own rate, the
    ratio of the two: temporal coherence learning (Beal and Smith), where a
    weight whose steps keep one direction learns at the full rate and one
    whose steps cancel out (noise) slows down by itself, with no hand-set
    schedule. A weight never moved yet learns at the full rate."""
    for trace, final in zip(traces, finals):
        if not trace:
            continue
        targets = td_targets([entry[1] for entry in trace], final, trace_decay)
        for entry, target in zip(trace, targets):
            active, value = entry[0], entry[1]
            if not len(active):
                continue
            step = rate * (target - value) / (entry[2] if len(entry) > 2 else len(active))
            if coherence is None:
                np.add.at(weights, active, step)
                continue
            net, absolute = coherence
            moved = absolute[active]
            own_rate = np.divide(np.abs(net[active]), moved, out=np.ones(len(active)), where=moved > 0)
            np.add.at(weights, active, step * own_rate)
            np.add.at(net, active, step)
            np.add.at(absolute, active, abs(step))


class Learner:
    """What a game's learning object calls after each training game of a
    shard: `learn(traces, finals)` moves `weights` (the model's, in place)
    by TD(lambda) at the round's rate, with the settings' step sizes. Under
    temporal coherence the training state holds each weight's two sums
    after the weights, so that shards merge and checkpoints keep them as
    they keep the weights."""

    def __init__(self, state: np.ndarray, settings: "TrainSettings", rate: float) -> None:
        size = model_size(settings, len(state))
        self.weights = state[:size]
        self.coherence = (state[size:2 * size], state[2 * size:]) if settings.step_sizes == COHERENCE else None
        self.rate, self.trace_decay = rate, settings.trace_decay

    def learn(self, traces: list, finals: list[float]) -> None:
        learn_from_traces(self.weights, traces, finals, self.rate, self.trace_decay, self.coherence)


def model_size(settings: "TrainSettings", state_size: int) -> int:
    """How many of a training state's numbers are the model's weights."""
    return state_size // 3 if settings.step_sizes == COHERENCE else state_size


def state_size(settings: "TrainSettings") -> int:
    """How many numbers a training state holds: the weights, and under
    temporal coherence each weight's sum of steps and of absolute steps."""
    size = settings.learning.size(settings)
    return 3 * size if settings.step_sizes == COHERENCE else size


def play_shard(weights: np.ndarray, settings: TrainSettings, games: list[tuple[int, int]], rate: float,
               kept: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play and learn from `games` (training game index, seed) in order,
    starting from `weights` (the round's) with the shard's `kept` own weights
    of an open round set in; returns the shard's own weights where they
    differ from `weights`, as (indices, values)."""
    own = np.array(weights, dtype=np.float64)
    if kept is not None:
        own[kept[0]] = kept[1]
    learner = Learner(own, settings, rate)
    settings.learning.play_shard(learner.weights, settings, games, learner)
    changed = np.flatnonzero(own - weights)
    return changed, own[changed]


def evaluate(weights: np.ndarray, settings: TrainSettings, seeds: list[int],
             opponent: str = SELF) -> list[tuple[float, int, bool, list[float]]]:
    """(the learner's score, turns, ended early, the other seats' scores) of
    each evaluation game: with an `opponent`, the learner sits at seat 0 and
    the opponent at every other seat; with "self" the learner sits everywhere
    and its score is the seats' mean."""
    out = []
    weights = np.asarray(weights, dtype=np.float64)
    weights = weights[:model_size(settings, len(weights))]
    for row in settings.learning.evaluate(weights, settings, seeds, opponent):
        own = float(np.mean(row.totals)) if opponent == SELF else row.totals[0]
        out.append((own, row.turns, row.ended_early, [] if opponent == SELF else row.totals[1:]))
    return out


# --------------------------------------------------------------- training
def new_state(settings: TrainSettings) -> TrainingState:
    """A training at game 0: zero weights, or `settings.init`'s."""
    settings.check()
    weights = np.zeros(state_size(settings), dtype=np.float64)
    if settings.init:
        start = initial_weights(settings, settings.init_path)
        if init_setting(settings.init_path, start) != settings.init:
            raise TrainingError(f"--init {settings.init_path}: its weights are not the ones this training "
                                f"started from ({settings.init})")
        weights[:len(start)] = start
    return TrainingState(settings, weights)


def initial_weights(settings: TrainSettings, path: str) -> np.ndarray:
    """The weights of the model file at `path`, checked to fit the training's
    game, variant and feature layout (a TrainingError names the problem)."""
    try:
        weights = np.asarray(settings.learning.initial_weights(path, settings), dtype=np.float64)
    except (OSError, ValueError) as exc:  # ModelError and the games' model-file errors are ValueErrors
        raise TrainingError(f"--init {path}: {exc}") from None
    size = settings.learning.size(settings)
    if weights.shape != (size,):
        raise TrainingError(f"--init {path}: {len(weights)} weights, where this variant's feature layout has {size}")
    if not finite_weights(weights):
        raise TrainingError(f"--init {path}: its weights are not all finite")
    return weights


def init_setting(path: str, weights: np.ndarray) -> str:
    """`TrainSettings.init` for the model file at `path` with these weights."""
    digest = hashlib.sha256(np.ascontiguousarray(weights, dtype=np.float64).tobytes()).hexdigest()
    return f"{path}#sha256={digest}"


def train(state: TrainingState, *, games: int | None, seconds: float | None, jobs: int,
          folder: Path, command: str, progress: Callable[[int, int], None] | None = None,
          code_version: str = "") -> TrainingState:
    """Train until exactly `games` training games in all, or `seconds` more
    seconds (at the end of a round), whichever comes first; checkpoint before
    the first game (a folder that cannot be written fails before any game),
    after every evaluation point, every `CHECKPOINT_SECONDS`, and on Ctrl-C or
    SIGTERM (then KeyboardInterrupt is raised again, the checkpoint holding
    every finished round). The last games trained get an evaluation point."""
    from joblib import Parallel, delayed

    settings = state.settings
    state.commands.append(command)
    if state.weights.shape != (state_size(settings),):
        raise TrainingError("the checkpoint's weights do not fit this code's feature layout")
    _plots()  # imported now, not in a save an interrupt may cut short
    save = lambda plot=True: _save(state, folder, command, code_version, plot)  # noqa: E731
    save(plot=False)
    started = time.monotonic()
    start_seconds = state.seconds
    with loky_config(), Parallel(n_jobs=min(jobs, settings.shards), max_nbytes=None) as parallel:
        evaluation = lambda: _evaluation_point(state, parallel, delayed, jobs)  # noqa: E731
        if not state.curve:
            evaluation()
            save()
        done = (state.weights, state.games, state.open_round)
        saved_at = time.monotonic()
        try:
            while games is None or state.games < games:
                if seconds is not None and time.monotonic() - started >= seconds:
                    break
                end = round_end(state.games, settings.shards * settings.round_games, games)
                weights, opened = _play_round(state, parallel, delayed, end)
                if not finite_weights(weights):
                    save()
                    raise TrainingError(
                        f"the weights stopped being finite in training games {state.games} to {end} "
                        f"(learning rate {settings.rate_at(state.games):g}); {folder} keeps the "
                        f"{state.games} games before them")
                played = end - state.games
                done = (weights, end, opened)  # one store: an interrupt sees all or nothing
                state.weights, state.games, state.open_round = done
                state.seconds = start_seconds + time.monotonic() - started
                if progress is not None:
                    progress(state.games, played)
                if state.games % settings.eval_every == 0:
                    evaluation()
                    save()
                    saved_at = time.monotonic()
                elif time.monotonic() - saved_at >= CHECKPOINT_SECONDS:
                    save()
                    saved_at = time.monotonic()
        except KeyboardInterrupt:
            state.weights, state.games, state.open_round = done
            state.seconds = start_seconds + time.monotonic() - started
            save(plot=False)
            raise
        if state.curve[-1]["games"] != state.games:
            evaluation()
            save()
    return state


def round_end(played: int, per_round: int, budget: int | None) -> int:
    """Where the round that starts after `played` games ends: at the next
    whole round, or at the budget when it comes first."""
    end = (played // per_round + 1) * per_round
    return end if budget is None else min(end, budget)


def _play_round(state: TrainingState, parallel, delayed, end: int) -> tuple[np.ndarray, OpenRound | None]:
    """Training games `state.games` .. `end` - 1 of the current round, game
    `g` played by shard `g % shards`: the round's merged weights, and the
    round still open when `end` is inside it (a budget's partial round)."""
    settings = state.settings
    opened = state.open_round
    base = opened.weights if opened is not None else state.weights
    began = opened.games if opened is not None else state.games
    owns = list(opened.shards) if opened is not None else [None] * settings.shards
    seeds = game_seeds(settings.seed, state.games, end)
    dealt = [[(index, seed) for index, seed in enumerate(seeds, state.games) if index % settings.shards == shard]
             for shard in range(settings.shards)]
    playing = [shard for shard in range(settings.shards) if dealt[shard]]
    played = parallel(delayed(play_shard)(base, settings, dealt[shard], settings.rate_at(began), owns[shard])
                      for shard in playing)
    for shard, own in zip(playing, played):
        owns[shard] = own
    weights = base.copy()
    for own in owns:
        if own is not None:
            changed, values = own
            weights[changed] += values - base[changed]
    if end % (settings.shards * settings.round_games) == 0:
        return weights, None
    empty = (np.empty(0, np.int64), np.empty(0, np.float64))
    return weights, OpenRound(began, base, [own if own is not None else empty for own in owns])


def _evaluation_point(state, parallel, delayed, jobs) -> None:
    settings = state.settings
    eval_seeds = game_seeds(settings.seed, EVAL_OFFSET, EVAL_OFFSET + settings.eval_games)
    parts = max(1, min(jobs, len(eval_seeds)))
    chunks = [eval_seeds[i::parts] for i in range(parts)]
    opponent = settings.eval_opponent if settings.players > 1 else SELF
    results = parallel(delayed(evaluate)(state.weights, settings, chunk, opponent)
                       for chunk in chunks)
    rows = [row for part in results for row in part]
    scores = np.array([r[0] for r in rows])
    low, high = _interval(scores)
    point = {
        "games": state.games, "seconds": round(state.seconds, 1),
        "mean_score": round(float(scores.mean()), 3), "ci_low": round(low, 3), "ci_high": round(high, 3),
        "refusal_end_share": round(float(np.mean([r[2] for r in rows])), 4),
        "mean_turns": round(float(np.mean([r[1] for r in rows])), 2),
    }
    if opponent != SELF:
        others = np.array([r[3] for r in rows])
        margins = scores - others.mean(axis=1)
        low, high = _interval(margins)
        best = others.max(axis=1)
        wins = np.where(scores > best, 1.0, np.where(scores == best, 1.0 / (1 + (others == best[:, None]).sum(axis=1)),
                                                     0.0))
        point.update({"opponent_score": round(float(others.mean()), 3), "margin": round(float(margins.mean()), 3),
                      "margin_low": round(low, 3), "margin_high": round(high, 3),
                      "win_share": round(float(wins.mean()), 4)})
    state.curve.append(point)


def _interval(values: np.ndarray) -> tuple[float, float]:
    """The mean's normal 95% interval (the mean itself for one value)."""
    half = 1.96 * values.std(ddof=1) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return float(values.mean() - half), float(values.mean() + half)


# ------------------------------------------------------------- the folder
def _save(state: TrainingState, folder: Path, command: str, code_version: str, plot: bool = True) -> None:
    """Write the checkpoint, the model and the curve, each whole or not at all;
    a folder that cannot take them (full disk, read-only, not a folder) is
    one TrainingError line."""
    try:
        _write_folder(state, folder, command, code_version, plot)
    except OSError as exc:
        for name in (CHECKPOINT, WEIGHTS):
            with suppress(OSError):
                (folder / (name + ".partial")).unlink(missing_ok=True)
        raise TrainingError(str(output_error(folder, exc))) from None


def _write_folder(state: TrainingState, folder: Path, command: str, code_version: str, plot: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    settings = asdict(state.settings)
    partial = folder / (CHECKPOINT + ".partial")
    opened = state.open_round
    arrays = {}
    if opened is not None:
        arrays["round_weights"] = opened.weights
        for shard, (changed, values) in enumerate(opened.shards):
            arrays[f"shard{shard}_index"], arrays[f"shard{shard}_values"] = changed, values
    document = {"settings": settings, "games": state.games, "seconds": state.seconds, "curve": state.curve,
                "commands": state.commands, "config": state.config,
                "open_round": None if opened is None else {"games": opened.games}}
    with open(partial, "wb") as handle:
        np.savez_compressed(handle, weights=state.weights, state=np.array(json.dumps(document)), **arrays)
    partial.replace(folder / CHECKPOINT)
    meta = {"command": state.commands[0] if state.commands else command, "commands": state.commands,
            "seed": state.settings.seed, "games": state.games,
            "code_version": code_version, "variant": state.settings.variant, "players": state.settings.players,
            "reproduce": state.reproduce(state.config, folder),
            "training": settings}
    model = state.weights[:model_size(state.settings, len(state.weights))]
    state.settings.learning.save(folder / WEIGHTS, state.settings, model, meta)
    _write_curve(state.curve, folder, plot)


def _plots():
    """The report's figure module (:mod:`welcometo_sim.analysis.plots`) when
    matplotlib is installed, else None: `curve.png` is the same learning curve
    figure as `wtsim report` draws of the folder."""
    try:
        plots.require_matplotlib()
    except ImportError:  # plots.PlotDependencyError is one
        return None
    return plots


def curve_columns(curve: list[dict]) -> tuple[str, ...]:
    """The columns of a curve's CSV: the match columns when a point has them."""
    return CURVE_COLUMNS + (MATCH_COLUMNS if any(MATCH_COLUMNS[0] in row for row in curve) else ())


def _write_curve(curve: list[dict], folder: Path, plot: bool = True) -> None:
    columns = curve_columns(curve)
    lines = [",".join(columns)]
    lines += [",".join("" if row.get(c) is None else str(row[c]) for c in columns) for row in curve]
    (folder / CURVE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    plots = _plots() if plot and curve else None
    if plots is not None:
        import pandas as pd

        plots.learning_curve_plot(pd.DataFrame(curve, columns=list(columns)), folder / CURVE_PLOT)


MAX_CHECKPOINT_GAMES = 10**9
"""The largest training budget `wtsim train` takes, and so the most games a checkpoint may hold."""


def load_state(folder: Path) -> TrainingState:
    """The training state in a folder's checkpoint, every size, type and field
    checked before use: a truncated, damaged or edited checkpoint is one
    TrainingError line naming what is wrong, and never asks for more memory
    than its settings' layout needs."""
    path = folder / CHECKPOINT
    if not path.is_file():
        raise TrainingError(f"{folder}: no {CHECKPOINT} to resume from")
    try:
        with BoundedNpz(path, MAX_MODEL_BYTES) as archive:
            saved = read_json(archive, "state")
            state = _state_from(saved)
            size = state_size(state.settings)
            weights = archive.array("weights", "f", size * 8, shape=(size,))
            state.weights = weights.astype(np.float64)
            state.open_round = _open_round(archive, saved.get("open_round"), state, size)
    except ArchiveError as exc:
        raise TrainingError(f"{path}: not a readable checkpoint: {exc}") from None
    except TrainingError as exc:
        raise TrainingError(f"{path}: not a usable checkpoint: {exc}") from None
    opened = state.open_round
    if not finite_weights(state.weights) or (opened is not None and not (
            finite_weights(opened.weights) and all(finite_weights(values) for _, values in opened.shards))):
        raise TrainingError(f"{path}: its weights are not all finite float32 numbers (NaN, inf or overflowed): "
                            f"training on them would learn nothing")
    return state


def _open_round(archive: BoundedNpz, document: object, state: TrainingState, size: int) -> OpenRound | None:
    """The checkpoint's open round (None when it stopped at a whole round), checked against its settings."""
    if document is None:
        return None
    per_round = state.settings.shards * state.settings.round_games
    if not isinstance(document, dict) or not _is(document.get("games"), int):
        raise TrainingError("open_round: must hold the games its round started at")
    began = document["games"]
    if began % per_round or not began < state.games < began + per_round:
        raise TrainingError(f"open_round: a round starting at {began} games cannot be open at {state.games}")
    weights = archive.array("round_weights", "f", size * 8, shape=(size,)).astype(np.float64)
    shards = []
    for shard in range(state.settings.shards):
        changed = archive.array(f"shard{shard}_index", "i", size * 8)
        values = archive.array(f"shard{shard}_values", "f", size * 8).astype(np.float64)
        if (changed.ndim != 1 or values.shape != changed.shape or np.any(np.diff(changed) <= 0)
                or (len(changed) and not 0 <= changed[0] <= changed[-1] < size)):
            raise TrainingError(f"open_round: shard {shard}'s weights are not increasing indices with one value each")
        shards.append((changed.astype(np.int64), values))
    return OpenRound(began, weights, shards)


def _state_from(saved: object) -> TrainingState:
    """The TrainingState of a checkpoint's `state` document (weights left empty)."""
    if not isinstance(saved, dict):
        raise TrainingError("its state is not a mapping")
    fields = _typed(saved, "settings", dict)
    known = {f.name for f in TrainSettings.__dataclass_fields__.values()}
    if set(fields) - known:
        raise TrainingError(f"settings: unknown fields {sorted(set(fields) - known)}")
    for name in ("variant", "players", "seed"):
        _typed(fields, name, dict if name == "variant" else int)
    for name in ("players", "seed", "shards", "round_games", "eval_every", "eval_games"):
        if name in fields:
            _typed(fields, name, int)
    for name in ("rate", "trace_decay"):
        if name in fields:
            _typed(fields, name, float)
    if "eval_opponent" not in fields:
        fields["eval_opponent"] = SELF  # a checkpoint from before the setting: its curve is self-play's
    if not isinstance(fields["eval_opponent"], str):
        raise TrainingError("settings.eval_opponent: must be a text")
    opponents = fields.get("opponents", [])
    if not isinstance(opponents, list) or not all(isinstance(name, str) for name in opponents):
        raise TrainingError("settings.opponents: must be a list of strategy names")
    fields["opponents"] = tuple(opponents)
    features = fields.get("features", [])
    if not isinstance(features, list) or not all(isinstance(name, str) for name in features):
        raise TrainingError("settings.features: must be a list of feature group names")
    fields["features"] = tuple(features)
    for name in ("game", "step_sizes", "init"):
        if not isinstance(fields.get(name, ""), str):
            raise TrainingError(f"settings.{name}: must be a text")
    steps = fields.get("rate_after", [])
    if not isinstance(steps, list) or not all(isinstance(step, list) and len(step) == 2 and _is(step[0], int)
                                              and _is(step[1], float) for step in steps):
        raise TrainingError("settings.rate_after: must be a list of [games, rate] pairs")
    settings = TrainSettings(**{**fields, "rate_after": tuple((int(g), float(r)) for g, r in steps)})
    settings.check()
    try:
        settings.learning.check(settings)
    except Exception as exc:  # any fault of a hand-edited variant record is the checkpoint's
        raise TrainingError(f"settings.variant: {exc}") from None
    games = _typed(saved, "games", int)
    if not 0 <= games <= MAX_CHECKPOINT_GAMES:
        raise TrainingError(f"games: must be 0 to {MAX_CHECKPOINT_GAMES}, got {games}")
    seconds = _typed(saved, "seconds", float)
    curve = _typed(saved, "curve", list)
    if not all(isinstance(row, dict) and all(_is(row.get(c), float) for c in CURVE_COLUMNS)
               and all(_is(row[c], float) for c in MATCH_COLUMNS if c in row) for row in curve):
        raise TrainingError(f"curve: every point must hold the numbers {', '.join(CURVE_COLUMNS)}")
    commands = saved.get("commands", [])
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        raise TrainingError("commands: must be a list of texts")
    config = saved.get("config", "")
    if not isinstance(config, str):
        raise TrainingError("config: must be a text")
    return TrainingState(settings, np.empty(0), games, float(seconds),
                         [{c: row[c] for c in CURVE_COLUMNS + MATCH_COLUMNS if c in row} for row in curve],
                         commands, config)


def _is(value: object, kind: type) -> bool:
    """`value` is a JSON number of `kind` (an int for float too; never a bool), finite."""
    if isinstance(value, bool):
        return False
    if kind is float:
        return isinstance(value, (int, float)) and math.isfinite(value)
    return isinstance(value, kind)


def _typed(mapping: dict, key: str, kind: type):
    """mapping[key], which must be there and of `kind`."""
    if key not in mapping:
        raise TrainingError(f"{key}: missing")
    value = mapping[key]
    if not _is(value, kind):
        raise TrainingError(f"{key}: must be {'a number' if kind in (int, float) else kind.__name__}, "
                            f"got {type(value).__name__}")
    return value


__all__ = ["TrainSettings", "TrainingState", "TrainingError", "ModelError", "train", "new_state", "load_state",
           "td_targets", "learn_from_traces", "Learner", "play_shard", "evaluate", "EvaluationRow", "CURVE_COLUMNS", "MATCH_COLUMNS", "curve_columns"]
