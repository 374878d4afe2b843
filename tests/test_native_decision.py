"""The native decision (welcometo_sim/native/decision.pyx) against its Python
reference (`Evaluator.reference_decision`): over real decisions of real
games of every variant and board, with random, greedy and learned seats,
the same candidates in the same order, the same street variants and feature
indices, and the same values bit for bit; and seeded learned games whose
records do not depend on which of the two runs."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies.greedy import GreedyStrategy
from strategies.learned import LearnedStrategy, load_model, shipped_path
from strategies.random import RandomStrategy
from welcometo_sim.compiled_core import PACKAGE_ROOT, PURE_PYTHON_VARIABLE
from welcometo_sim.learning import evaluator as evaluator_module
from welcometo_sim.learning.evaluator import Evaluator, Scored
from welcometo_sim.learning.features import Layout
from welcometo_sim.learning.model import ValueModel
from welcometo_sim.native import NATIVE_MODULES, native_status
from welcometo_sim.games.welcome_to.game import Seat, play_game
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import parse_strategy

REQUIRE_COMPILED = "WTSIM_REQUIRE_COMPILED"
"""Set (CI does) to make a missing native module fail these tests instead of skipping them."""


def _native_built() -> bool:
    return all(native_status().values())


def test_the_native_modules_are_built_where_ci_requires_them():
    missing = [name for name, built in native_status().items() if not built]
    if missing and os.environ.get(REQUIRE_COMPILED):
        pytest.fail(f"native modules not built: {', '.join(missing)}, and {REQUIRE_COMPILED} is set")
    if missing:
        pytest.skip(f"native modules not built in this install: {', '.join(missing)}")
    assert set(native_status()) == set(NATIVE_MODULES)


pytestmark_native = pytest.mark.skipif(not _native_built() and not os.environ.get(REQUIRE_COMPILED),
                                       reason="the native decision is not built in this install")
"""Differential tests need the native module; where CI requires it, they run
(and fail loudly on the missing module) instead of skipping."""

VARIANTS = {
    "base": (Variant(), 2),
    "base-4": (Variant(), 4),
    "advanced": (Variant(advanced=True), 3),
    "expert": (Variant(expert=True), 2),
    "solo": (Variant(solo=True), 1),
    "ice-cream": (Variant(board="ice-cream"), 2),
    "christmas": (Variant(board="christmas"), 2),
    "easter": (Variant(board="easter"), 2),
    "tracks": (Variant.with_overrides({"add_plans": [{"id": "pairs-of-one", "deck": 1, "estates": [1, 1],
                                                      "points": [9, 4]}],
                                       "tracks": {"pool_track": [0, 5, 7, 40, 41, 42, 43, 44, 45, 46],
                                                  "real_estate_tracks": [[1, 2], [2, 9], [3, 4, 5, 6, 7, 8, 9],
                                                                         [4], [5, 6], [6, 20]],
                                                  "park_tracks": [[0, 1], [0, 5, 6, 7, 8, 9, 10, 11, 12, 13],
                                                                  [0, 2, 4]]}}), 2),
}
"""Every rule set and board, and data tables changed (shorter and longer
tracks than the features' caps) so that no constant of the published game
hides in the native code."""

FIELDS = ("play", "use", "args", "values", "street_features", "variant_of", "global_features")


def assert_same(reference: Scored, native: Scored) -> None:
    """Identical candidates, features and values (bit for bit)."""
    assert native.plays == reference.plays
    for name in FIELDS:
        expected, got = getattr(reference, name), getattr(native, name)
        assert got.dtype == expected.dtype, name
        assert got.shape == expected.shape, name
        assert np.array_equal(got, expected), name
    assert native.values.tobytes() == reference.values.tobytes()


def assert_same_values(reference: Scored, light) -> None:
    """`Evaluator.values` gives the decision's values bit for bit, and each
    candidate's play, effect use and active features."""
    assert light.values.tobytes() == reference.values.tobytes()
    assert len(light) == len(reference)
    for index in range(len(reference)):
        assert light.candidate(index) == reference.candidate(index)
        expected = reference.features(index)
        got = light.features(index)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)


EVALUATOR_VALUES = Evaluator.values
"""`Evaluator.values` before the checker fixture wraps it."""


class Checker:
    """Compares the two decisions of every view a seat is asked to play
    (with `weights`), counting the decisions and candidates compared."""

    def __init__(self, weights: np.ndarray | None = None, groups: tuple[str, ...] | None = None) -> None:
        self.weights = weights
        self.groups = groups
        self.decisions = 0
        self.candidates = 0
        self.refusals = 0

    def evaluator(self, view) -> Evaluator:
        model = load_model(shipped_path("solo" if view.variant.solo else "base"))
        if self.groups is None:  # the shipped model as it is
            return Evaluator(model.weights if self.weights is None else self.weights, model.layout)
        return Evaluator(self.weights, Layout(model.layout.street_houses, model.layout.plan_ids, self.groups))

    def check(self, evaluator: Evaluator, view, plays, values_only: bool = False):
        """The reference decision, or with `values_only` what `Evaluator.values`
        answers (checked against it too)."""
        reference = evaluator.reference_decision(view, plays)
        assert_same(reference, evaluator.native_decision(view, plays))
        light = reference  # with a board, `values` is the full decision
        if view.sheet.board is None:  # a board's points come from the full decision: nothing native to check
            assert evaluator.best_value(view, plays) == float(reference.values.max())
            light = EVALUATOR_VALUES(evaluator, view, plays)
            assert_same_values(reference, light)
        self.decisions += 1
        self.candidates += len(reference)
        self.refusals += None in plays
        return light if values_only else reference


@pytest.fixture
def checker(monkeypatch) -> Checker:
    """Every decision of every seat, learned or not, checked on its way."""
    checker = Checker()

    def learned_decision(self, view, plays):
        return checker.check(self, view, plays)

    def checked(original):
        def choose_play(self, view, plays):
            checker.check(checker.evaluator(view), view, plays)
            return original(self, view, plays)
        return choose_play

    def learned_values(self, view, plays):
        return checker.check(self, view, plays, values_only=True)

    monkeypatch.setattr(Evaluator, "decision", learned_decision)
    monkeypatch.setattr(Evaluator, "values", learned_values)
    monkeypatch.setattr(RandomStrategy, "choose_play", checked(RandomStrategy.choose_play))
    monkeypatch.setattr(GreedyStrategy, "choose_play", checked(GreedyStrategy.choose_play))
    return checker


def seats(kinds: list[str]) -> list[Seat]:
    return [Seat(f"s{i}", kind, parse_strategy(kind)) for i, kind in enumerate(kinds)]


@pytestmark_native
@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_decision_of_learned_random_and_greedy_games_is_the_same_natively(name, checker):
    variant, players = VARIANTS[name]
    kinds = ["learned", "random", "greedy", "learned"][:players]
    for seed in range(2):
        play_game(variant, seats(kinds), seed)
    assert checker.decisions >= 2 * 10 * players  # a game lasts 15 turns or more
    assert checker.candidates > 10 * checker.decisions


@pytestmark_native
def test_refusals_and_roundabout_probes_are_the_same_natively(checker):
    """Random seats in the advanced game reach full streets and refusals;
    the learned seat probes roundabouts with decisions on changed sheets."""
    for seed in range(6):
        play_game(Variant(advanced=True), seats(["learned", "random", "random"]), 100 + seed)
    assert checker.refusals > 0


@pytestmark_native
@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(sorted(VARIANTS)),
       scale=st.sampled_from([1e-6, 1.0, 1e6]), groups=st.sampled_from([(), ("cards",), ("wide",), ("cards", "wide")]))
def test_random_weights_sum_in_the_same_order(seed, name, scale, groups):
    """With weights of mixed signs and magnitudes a different order of the
    additions would show in the last bits of the values (with and without
    the feature groups: their tables get weights too)."""
    variant, players = VARIANTS[name]
    rng = np.random.default_rng(seed)
    base = load_model(shipped_path("base")).layout
    size = Layout(base.street_houses, base.plan_ids, groups).size
    checker = Checker(rng.normal(size=size) * scale * 10.0 ** rng.integers(-3, 4, size=size), groups)

    class Probe(RandomStrategy):
        def choose_play(self, view, plays):
            checker.check(checker.evaluator(view), view, plays)
            return super().choose_play(view, plays)

    play_game(variant, [Seat(f"s{i}", "random", lambda rng: Probe(rng)) for i in range(players)], seed)
    assert checker.decisions >= 10


def record_digest(variant: Variant, kinds: list[str], games: int) -> str:
    digest = hashlib.sha256()
    for seed in range(games):
        record = play_game(variant, seats(kinds), seed, record=True).record
        digest.update(json.dumps(record, sort_keys=True).encode())
    return digest.hexdigest()


@pytestmark_native
@pytest.mark.parametrize("name", ["base", "solo", "advanced", "easter"])
def test_seeded_learned_games_have_the_same_records_with_and_without_the_native_module(name, monkeypatch):
    variant, players = VARIANTS[name]
    kinds = ["learned"] * players
    native = record_digest(variant, kinds, 3)
    monkeypatch.setattr(evaluator_module, "_NATIVE", None)
    assert record_digest(variant, kinds, 3) == native


@pytestmark_native
@pytest.mark.parametrize("name, lookahead, groups", [("base", 0, ("cards",)), ("base-4", 0, ("cards", "wide")),
                                                      ("base", 3, ("cards",)), ("solo", 3, ("cards", "wide")),
                                                      ("expert", 0, ("cards",)), ("advanced", 0, ("wide",))])
def test_seeded_games_of_a_model_with_feature_groups_are_the_same_with_and_without_the_native_module(
        name, lookahead, groups, tmp_path, monkeypatch):
    """A model with feature groups (random weights on every table): the
    native game's seats read the next effects from the sheet image, and a
    lookahead's samples give the turn after's; the Python seats from their
    views. Solo and expert games hide the next effects."""
    variant, players = VARIANTS[name]
    base = load_model(shipped_path("solo" if variant.solo else "base"))
    layout = Layout(base.layout.street_houses, base.layout.plan_ids, groups)
    weights = np.random.default_rng(5).normal(size=layout.size)
    weights[:base.layout.size] += base.weights
    path = tmp_path / "cards.npz"
    ValueModel(layout, weights).save(path)
    kinds = [f"learned:weights={path},lookahead={lookahead}"] + ["learned"] * (players - 1)
    native = record_digest(variant, kinds, 2)
    monkeypatch.setattr(evaluator_module, "_NATIVE", None)
    assert record_digest(variant, kinds, 2) == native


def test_pure_python_turns_the_native_decision_off():
    code = "from welcometo_sim.learning import evaluator; print(evaluator._NATIVE is None)"
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, PURE_PYTHON_VARIABLE: "1"},
                          cwd=PACKAGE_ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True", done.stderr


@pytestmark_native
def test_the_native_decision_runs_when_built():
    assert evaluator_module._NATIVE is not None or os.environ.get(PURE_PYTHON_VARIABLE, "").strip() not in ("", "0")


def test_without_the_native_module_the_reference_decides(monkeypatch):
    monkeypatch.setattr(evaluator_module, "_NATIVE", None)
    strategy = LearnedStrategy(np.random.default_rng(0))
    calls = []
    original = Evaluator.reference_decision

    def counted(self, view, plays):
        calls.append(len(plays))
        return original(self, view, plays)

    monkeypatch.setattr(Evaluator, "reference_decision", counted)
    play_game(Variant(solo=True), [Seat("s0", "learned", lambda rng: strategy)], 7)
    assert len(calls) >= 10


def test_a_native_module_compiled_from_another_source_does_not_run(tmp_path):
    from welcometo_sim.compiled_core import source_digest
    from welcometo_sim.native import stale_reason
    from welcometo_sim.native.modules import manifest_name

    source = tmp_path / "decision.pyx"
    source.write_text("# the source as built\n")
    manifest = tmp_path / manifest_name()
    manifest.write_text(json.dumps({"welcometo_sim.native.decision": source_digest(source)}))
    assert stale_reason("welcometo_sim.native.decision", tmp_path) is None
    source.write_text("# the source edited since\n")
    assert "was not compiled from decision.pyx" in stale_reason("welcometo_sim.native.decision", tmp_path)
    manifest.unlink()
    assert "rebuild" in stale_reason("welcometo_sim.native.decision", tmp_path)
    source.unlink()
    assert stale_reason("welcometo_sim.native.decision", tmp_path) is None  # installed without sources


def test_a_pxd_is_part_of_the_digest_of_every_module_that_depends_on_it(tmp_path):
    """A module compiled against another version of a .pxd would read its
    classes at the wrong offsets: editing the .pxd makes it stale, and a
    module that cimports a stale module is stale too."""
    from welcometo_sim.native import stale_reason
    from welcometo_sim.native.modules import manifest_name, module_digest

    for name in ("sheet.pyx", "sheet.pxd", "game.pyx"):
        (tmp_path / name).write_text(f"# {name} as built\n")
    sheet, game = "welcometo_sim.native.sheet", "welcometo_sim.native.game"
    (tmp_path / manifest_name()).write_text(json.dumps({module: module_digest(module, tmp_path)
                                                        for module in (sheet, game)}))
    assert stale_reason(sheet, tmp_path) is None and stale_reason(game, tmp_path) is None
    (tmp_path / "sheet.pxd").write_text("# sheet.pxd edited since\n")
    assert "was not compiled from sheet.pyx and sheet.pxd" in stale_reason(sheet, tmp_path)
    assert "was not compiled from game.pyx and sheet.pxd" in stale_reason(game, tmp_path)
    (tmp_path / "sheet.pxd").write_text("# sheet.pxd as built\n")
    (tmp_path / "sheet.pyx").write_text("# sheet.pyx edited since\n")
    assert "calls welcometo_sim.native.sheet, which is stale" in stale_reason(game, tmp_path)
    (tmp_path / "sheet.pyx").write_text("# sheet.pyx as built\n")
    (tmp_path / "sheet.pxd").unlink()
    assert "rebuild" in stale_reason(game, tmp_path)


def test_the_pxd_dependencies_are_those_the_sources_cimport():
    """`NATIVE_DEPENDS` lists, for every native module, its own .pxd and the
    .pxd of every native module it cimports, and nothing else."""
    import re

    from welcometo_sim.native.modules import NATIVE_DEPENDS

    folder = PACKAGE_ROOT / "welcometo_sim" / "native"
    for module in NATIVE_MODULES:
        stem = module.rsplit(".", 1)[1]
        text = (folder / f"{stem}.pyx").read_text(encoding="utf-8")
        cimported = set(re.findall(r"^from \.(\w+) cimport", text, flags=re.M))
        assert not re.search(r"^cimport |^from \.\. cimport|^from \. cimport", text, flags=re.M)
        own = {stem} if (folder / f"{stem}.pxd").is_file() else set()
        assert sorted(NATIVE_DEPENDS.get(module, ())) == sorted(f"{name}.pxd" for name in own | cimported), module


def captured_decisions(variant: Variant, players: int, seed: int) -> list[tuple]:
    """(view with a copy of its sheet, plays) of every decision of a random game."""
    decisions = []

    class Recorder(RandomStrategy):
        def choose_play(self, view, plays):
            decisions.append((replace(view, sheet=view.sheet.copy()), list(plays)))
            return super().choose_play(view, plays)

    play_game(variant, [Seat(f"s{i}", "random", lambda rng: Recorder(rng)) for i in range(players)], seed)
    return decisions


@pytestmark_native
@pytest.mark.parametrize("counter, at_most", [("n_bis", "max_bis"), ("temps", "temp_boxes")])
def test_full_bis_and_temp_tracks_are_the_same_natively(counter, at_most):
    """Sheets whose bis (no bis spot is left to any play) or temp track
    (a temp play crosses no box) is full, which games rarely reach."""
    checker = Checker()
    for view, plays in captured_decisions(Variant(), 2, 3)[::3]:
        setattr(view.sheet, counter, getattr(view.sheet.data, at_most))
        checker.check(checker.evaluator(view), view, plays)
    assert checker.decisions >= 8


@pytestmark_native
def test_weights_the_native_code_cannot_read_are_scored_by_the_reference(monkeypatch):
    model = load_model(shipped_path("base"))
    view, plays = captured_decisions(Variant(), 2, 5)[10]
    expected = Evaluator(model.weights, model.layout).decision(view, plays)
    calls = []
    original = Evaluator.reference_decision

    def counted(self, view, plays):
        calls.append(self.weights.dtype)
        return original(self, view, plays)

    monkeypatch.setattr(Evaluator, "reference_decision", counted)
    strided = np.repeat(model.weights, 2)[::2]  # the same values, not contiguous
    assert_same(expected, Evaluator(strided, model.layout).decision(view, plays))
    assert calls == [np.float64]


@pytestmark_native
def test_values_keep_their_candidates_only_until_the_next_decision():
    """`Evaluator.values` leaves the candidates in the Decider: reading one
    after the Decider has decided again is an error, never another decision's
    candidate."""
    model = load_model(shipped_path("base"))
    evaluator = Evaluator(model.weights, model.layout)
    (view, plays), (other_view, other_plays) = captured_decisions(Variant(), 2, 5)[10:12]
    first = evaluator.values(view, plays)
    assert first.candidate(0) == evaluator.reference_decision(view, plays).candidate(0)
    evaluator.values(other_view, other_plays)
    with pytest.raises(RuntimeError, match="another decision"):
        first.candidate(0)
    with pytest.raises(RuntimeError, match="another decision"):
        first.features(0)
