"""The same seeds play the same games: every bundled config of both games, with
the non-learned built-ins (tests/fixed_games.py says which seats), gives the
result table and records whose digests were pinned in
tests/data/fixed_digests.json before the engine was restructured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixed_games import digests_of, fixed_runs

PINNED = json.loads((Path(__file__).parent / "data" / "fixed_digests.json").read_text(encoding="utf-8"))
RUNS = fixed_runs()


def test_every_bundled_config_has_a_pinned_digest() -> None:
    assert sorted(RUNS) == sorted(PINNED)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_fixed_run_gives_the_pinned_table_and_records(name: str) -> None:
    assert digests_of(RUNS[name]) == PINNED[name]
