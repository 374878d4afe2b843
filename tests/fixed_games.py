"""Fixed-seed runs of every bundled config whose tables and records must not
move when code moves: `tests/test_fixed_digests.py` plays them and compares
SHA-256 digests with `tests/data/fixed_digests.json`.

The seats are the config's own where they are not `learned` (whose weights
may be retrained), else a rotation of the other built-ins, so that every
built-in strategy of each game plays in some fixed game; one extra run per
game seats strategies with seeded exploration, whose random streams must not
move either.

Regenerate the digests only for a change that is meant to change games (a
rules fix), and say so in the commit:

    python tests/fixed_games.py > tests/data/fixed_digests.json
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"

WELCOME_TO_ROTATION = ("greedy", "heuristic", "lookahead", "random", "safe", "specialist", "planner")
EXPLORING = {
    "welcome-to": ["greedy:temperature=0.1", "heuristic:temperature=0.25", "lookahead:temperature=0.1"],
    "shake-that-city": ["greedy", "lookahead", "random"],
}
GAMES_PER_RUN = 3
PINNED_PLAYERS = {"base": [{"strategy": "learned"}, {"strategy": "learned"}]}
"""The seats a run was pinned with, where its bundled config seats others since
(base.yaml seats learned against heuristic): the pinned games stay the same."""


def fixed_runs() -> dict[str, dict]:
    """Run name -> config dict, for every bundled config plus the exploring runs."""
    runs: dict[str, dict] = {}
    for index, path in enumerate(sorted(CONFIGS.glob("*.yaml"))):
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        players = []
        for seat, player in enumerate(PINNED_PLAYERS.get(path.stem, config["players"])):
            player = dict(player)
            if player["strategy"] == "learned":
                player = {"strategy": WELCOME_TO_ROTATION[(index + seat) % len(WELCOME_TO_ROTATION)]}
            players.append(player)
        config.update(players=players, games=GAMES_PER_RUN, seed=1000 + index, jobs=1)
        config.pop("rotate_seats", None)
        runs[path.stem] = config
    runs["welcome-to-exploring"] = {"name": "welcome-to-exploring", "games": GAMES_PER_RUN, "seed": 77,
                                    "jobs": 1, "players": [{"strategy": s} for s in EXPLORING["welcome-to"]]}
    runs["shake-that-city-three"] = {"name": "shake-that-city-three", "game": "shake-that-city",
                                     "games": GAMES_PER_RUN, "seed": 78, "jobs": 1,
                                     "players": [{"strategy": s} for s in EXPLORING["shake-that-city"]]}
    return runs


def digests_of(config: dict) -> dict[str, str]:
    """SHA-256 of the run's result table (as CSV) and of its records, as written."""
    from welcometo_sim.api import run

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run"
        frame = run(config, out=out, records=True, fmt="csv")
        table = frame.to_csv(index=False, lineterminator="\n")
        records = b"".join(path.read_bytes() for path in sorted(out.rglob("*.jsonl*")))
    return {"table": hashlib.sha256(table.encode("utf-8")).hexdigest(),
            "records": hashlib.sha256(records).hexdigest()}


def main() -> None:
    result = {name: digests_of(config) for name, config in fixed_runs().items()}
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
