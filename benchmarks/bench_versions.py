"""One function of the engine against its version at a git revision, inside
running games: the two alternate game by game in one process.

    python benchmarks/bench_versions.py 96bf110 welcometo_sim.rules.effects:legal_plays --line random:1
    python benchmarks/bench_versions.py 96bf110 welcometo_sim.rules.cards:SoloDeck --line random:solo
    python benchmarks/bench_versions.py a49c6b4 strategies.greedy:GreedyStrategy._options_after_write \\
        --line greedy:4 --games 200

The old version is the named function, class or method of the module as
the revision has it (`git show REV:path`), loaded beside today's module;
every binding of today's object in the loaded `welcometo_sim` and
`strategies` modules (a name imported with `from … import`, the method of
a class, or a value of a module-level dict, such as the strategy loader's
cache of classes) is swapped before each game. Everything else is
today's code. The seeds of 250 games at a time are hashed together before
they are played, as in a run's workers, outside the timing. Prints
microseconds per game for each version, the speed-up of today's (old time
/ new time), and whether the two played the same games (a checksum of
every score).

A module is named as it was at the revision, where `git show` finds it:
before Welcome To's engine moved to ``welcometo_sim/games/welcome_to/``,
``welcometo_sim.rules.effects`` (the examples above), which the deprecated
`welcometo_sim.rules` imports as today's module.

The old version always runs as Python, loaded from its source, so today's
does too: run as a script, this sets ``WTSIM_PURE_PYTHON=1`` before the
package is imported, and the compiled core is not used
(`welcometo_sim.compiled_core`).

Whole runs of two versions compare badly on a virtual machine whose speed
changes by half within seconds (see `bench_games.py`): a run of each, one
after the other, measures the neighbours as much as the code. Here both
versions see the same moments of the machine, since they take turns.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # today's version runs from source, as the old one must
    os.environ["WTSIM_PURE_PYTHON"] = "1"

from welcometo_sim.compiled_core import installed_name, source_path  # noqa: E402
from welcometo_sim.games.welcome_to.game import Game, Seat, play_game  # noqa: E402
from welcometo_sim.games.seeding import prepare_families  # noqa: E402
from welcometo_sim.games.welcome_to.variant import Variant  # noqa: E402
from welcometo_sim.sim.runner import batch_collection  # noqa: E402
from welcometo_sim.strategy import StrategyLoadError, parse_strategy  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("welcometo_sim", "strategies")
"""Where bindings of the swapped object are looked for."""

OLD_MARK = "__at_"
"""In the module name of an old version loaded by `old_module` (never searched for bindings)."""

PREPARED_GAMES = 250
"""Games whose seeds are hashed together before they are played, as a run's
chunks do (`prepare_families`; not timed)."""


class VersionError(ValueError):
    """A revision, target or line that cannot be used, said in one line."""


def split_target(target: str) -> tuple[str, list[str]]:
    """`package.module:Name.attr` as ("package.module", ["Name", "attr"])."""
    module, _, path = target.partition(":")
    if not module or not path:
        raise VersionError(f"target {target!r}: expected MODULE:NAME or MODULE:CLASS.METHOD")
    return module, path.split(".")


def old_module(revision: str, module_name: str) -> types.ModuleType:
    """The module as `revision` has it, loaded under a new name in its own
    package (so its relative imports reach today's sibling modules)."""
    path = source_path(module_name, ROOT).relative_to(ROOT)
    shown = subprocess.run(["git", "show", f"{revision}:{path.as_posix()}"], cwd=ROOT,
                           capture_output=True, text=True)
    if shown.returncode != 0:
        raise VersionError(f"git show {revision}:{path.as_posix()}: {shown.stderr.strip().splitlines()[-1]}")
    package = module_name.rpartition(".")[0]
    module = types.ModuleType(f"{module_name}{OLD_MARK}{revision}")
    module.__package__ = package
    module.__file__ = f"{path.as_posix()}@{revision}"
    sys.modules[module.__name__] = module
    try:
        exec(compile(shown.stdout, module.__file__, "exec"), module.__dict__)
    except Exception as exc:  # an old module may import what today's siblings no longer have
        raise VersionError(f"{module_name} at {revision} does not load beside today's code: "
                           f"{type(exc).__name__}: {exc}") from None
    return module


def lookup(root: Any, path: list[str], where: str) -> Any:
    obj = root
    for name in path:
        if name not in vars(obj):
            raise VersionError(f"{where} has no {'.'.join(path)}")
        obj = vars(obj)[name]
    return obj


def holders(obj: Any) -> list[tuple[Any, Any]]:
    """(namespace, name) of every module global and every value of a
    module-level dict that is `obj`, in today's loaded modules of the
    project's packages (a namespace that is a dict is set by key, see
    `rebind`): strategies, for one, reach the game through the loader's
    class cache."""
    found: list[tuple[Any, Any]] = []
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in PACKAGES or OLD_MARK in name:
            continue
        for attribute, value in list(vars(module).items()):
            if attribute.startswith("__"):
                continue
            if value is obj:
                found.append((module, attribute))
            elif type(value) is dict:
                found.extend((value, key) for key, item in list(value.items()) if item is obj)
    return found


def bindings(current: Any, owner_path: list[str], module_name: str) -> list[tuple[Any, Any]]:
    """(namespace, name) of every binding of `current`: the attribute itself
    (a module global or a class attribute), then its other `holders`."""
    target_module = importlib.import_module(module_name)
    owner = lookup(target_module, owner_path[:-1], module_name) if len(owner_path) > 1 else target_module
    own = (owner, owner_path[-1])
    return [own, *(place for place in holders(current) if place[0] is not owner or place[1] != own[1])]


def rebind(namespace: Any, name: Any, value: Any) -> None:
    """Point one binding found by `bindings` at `value`."""
    if type(namespace) is dict:
        namespace[name] = value
    else:
        setattr(namespace, name, value)


def parse_line(text: str) -> tuple[str, int, bool]:
    """`random:1`, `greedy:4`, `random:solo` as (strategy, seats, solo)."""
    strategy, _, players = text.partition(":")
    if players == "solo" and strategy:
        return strategy, 1, True
    if not strategy or not players.isdigit() or not 1 <= int(players) <= 5:
        raise VersionError(f"--line {text!r}: expected STRATEGY:PLAYERS with 1 to 5 players or solo")
    return strategy, int(players), False


def compare(revision: str, target: str, line: str, games: int) -> dict[str, float | bool]:
    """Play `games` seeds with each version, alternating which goes first."""
    module_name, path = split_target(target)
    module_name = installed_name(module_name) or module_name  # strategies.x is welcometo_sim.strategies.x
    try:
        current = lookup(importlib.import_module(module_name), path, module_name)
    except ModuleNotFoundError as exc:
        raise VersionError(f"target {target!r}: {exc}") from None
    old = lookup(old_module(revision, module_name), path, f"{module_name} at {revision}")
    strategy, seats_count, solo = parse_line(line)
    spec = parse_strategy(strategy)  # loads the strategy class first, so that its cached binding is found
    places = bindings(current, path, module_name)
    seats = [Seat(f"p{i}", strategy, spec) for i in range(seats_count)]
    variant = Variant(solo=solo)
    seconds = {"old": 0.0, "new": 0.0}
    checksums = {"old": 0, "new": 0}
    versions = {"old": old, "new": current}
    native, Game.native = Game.native, False  # the Python functions being swapped must be the ones that play
    try:
        with batch_collection():
            for seed in range(games):
                if seed % PREPARED_GAMES == 0:  # as a run's workers do, outside the timing
                    prepare_families(range(seed, seed + PREPARED_GAMES), 1 + seats_count)
                order = ("old", "new") if seed % 2 else ("new", "old")
                for version in order:
                    for namespace, name in places:
                        rebind(namespace, name, versions[version])
                    start = time.perf_counter()
                    result = play_game(variant, seats, seed)
                    seconds[version] += time.perf_counter() - start
                    total = sum(score["total"] for score in result.scores)
                    checksums[version] = (checksums[version] * 1_000_003 + total) % (1 << 61)
    finally:
        Game.native = native
        for namespace, name in places:
            rebind(namespace, name, current)
        for namespace, name in holders(old):  # e.g. a cache filled while the old version played
            rebind(namespace, name, current)
    return {"old_us": seconds["old"] / games * 1e6, "new_us": seconds["new"] / games * 1e6,
            "speedup": seconds["old"] / seconds["new"], "same": checksums["old"] == checksums["new"],
            "bindings": len(places)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="the git revision of the old version, e.g. 96bf110 or HEAD~3")
    parser.add_argument("target", help="MODULE:NAME or MODULE:CLASS.METHOD, e.g. "
                                       "welcometo_sim.games.welcome_to.effects:legal_plays")
    parser.add_argument("--line", default="random:1", help="strategy and seats: random:1, greedy:4, random:solo")
    parser.add_argument("--games", type=int, default=4000, help="seeds played by each version (default 4000)")
    args = parser.parse_args()
    if args.games < 2:
        parser.error(f"--games must be at least 2, got {args.games}")
    try:
        figures = compare(args.revision, args.target, args.line, args.games)
    except (VersionError, StrategyLoadError) as exc:
        parser.error(str(exc))
    print(f"{args.target} at {args.revision} against today's, {args.line}, {args.games} games each "
          f"({figures['bindings']} binding(s) swapped)")
    print(f"old {figures['old_us']:.1f} µs/game, new {figures['new_us']:.1f} µs/game, "
          f"speed-up {figures['speedup']:.3f}; "
          + ("the same games" if figures["same"] else "DIFFERENT games: the versions do not play alike"))


if __name__ == "__main__":
    main()
