"""The PettingZoo and Gymnasium environments and the strategy that seats their policies.

Games are short (random masked actions end by refusals in ~15 turns) and
the Farama checkers run a few cycles, so the file takes a few seconds."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import welcometo_sim
from helpers import estates_sheet
from welcometo_sim.envs import STEPS, DecidingStrategy, PolicyStrategy, SoloEnv, env, layout_for
from welcometo_sim.games.welcome_to.env.encoding import unbounded_observation
from welcometo_sim.games.welcome_to.data import DEFAULT_DATA
from welcometo_sim.games.welcome_to.game import PlayerView, PublicSeat, Seat, play_game, seat_generators
from welcometo_sim.games.welcome_to.plans import claim_options
from welcometo_sim.games.welcome_to.variant import Variant
from welcometo_sim.strategy import load_strategy

EXPERT_3 = (3, Variant(advanced=True, expert=True))
SHAPES = [(2, Variant()), EXPERT_3, (1, Variant(solo=True)), (2, Variant(advanced=True, board="ice-cream"))]


def random_episode(environment, seed: int) -> tuple[dict[str, int], dict[str, set]]:
    """Play masked random actions to the end; the rewards each agent got, and
    the step kinds each was asked."""
    pick = random.Random(seed)
    environment.reset(seed=seed)
    rewards = {agent: 0 for agent in environment.possible_agents}
    kinds: dict[str, set] = {agent: set() for agent in environment.possible_agents}
    for agent in environment.agent_iter():
        observation, _, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            environment.step(None)
            continue
        kinds[agent].add(environment.decision.kind)
        environment.step(pick.choice(np.flatnonzero(observation["action_mask"]).tolist()))
        for other in environment.agents:
            rewards[other] += environment.rewards[other]
    return rewards, kinds


@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")  # dict observations with a mask
@pytest.mark.parametrize("n_players, variant", [(2, Variant()), EXPERT_3, (1, Variant(solo=True))])
def test_pettingzoo_api_and_seed_tests_pass(n_players, variant):
    api_test(env(n_players, variant), num_cycles=60)
    seed_test(lambda: env(n_players, variant), num_cycles=30)


def test_gymnasium_check_env_passes_for_solo():
    check_env(SoloEnv(), skip_render_check=True)
    with pytest.raises(ValueError, match="solo variants"):
        SoloEnv(Variant())


@pytest.mark.parametrize("n_players, variant", SHAPES)
def test_rewards_add_up_to_the_engines_final_scores(n_players, variant):
    environment = env(n_players, variant)
    rewards, kinds = random_episode(environment, seed=5)
    result = environment._session.pending
    assert rewards == {f"player_{i}": s["total"] for i, s in enumerate(result.scores)}
    assert {kind for asked in kinds.values() for kind in asked} >= {"play", "effect"}
    if variant.advanced:
        assert all("roundabout" in asked for asked in kinds.values())
    if variant.expert:
        assert any("pass" in asked for asked in kinds.values())  # random play refuses now and then


def test_solo_episode_rewards_add_up_to_the_final_score_of_the_seed():
    solo, pick = SoloEnv(Variant(solo=True, advanced=True)), random.Random(2)
    observation, info = solo.reset(seed=9)
    total, done, kinds = 0.0, False, set()
    while not done:
        kinds.add(info.get("step"))
        action = pick.choice(np.flatnonzero(observation["action_mask"]).tolist())
        observation, reward, done, truncated, info = solo.step(action)
        total += reward
    assert total == info["score"] and not observation["action_mask"].any()
    assert {"roundabout", "play", "effect"} <= kinds
    with pytest.raises(RuntimeError, match="reset"):
        solo.step(0)
    observation, _ = solo.reset(seed=9)  # the lowest legal action each step: PolicyStrategy's default
    done = False
    while not done:
        observation, _, done, _, info = solo.step(int(np.flatnonzero(observation["action_mask"])[0]))
    expected = play_game(Variant(solo=True, advanced=True), [Seat("first", "policy", PolicyStrategy)], 9)
    assert info["score"] == expected.scores[0]["total"]


def test_the_same_seed_replays_the_same_game_and_another_seed_differs():
    first, _ = random_episode(env(*EXPERT_3), seed=11)
    again, _ = random_episode(env(*EXPERT_3), seed=11)
    other = [random_episode(env(*EXPERT_3), seed=s)[0] for s in (12, 13)]
    assert first == again
    assert any(o != first for o in other)


def test_the_environment_plays_the_engines_game_of_the_seed():
    """Answering every step as the built-in greedy strategy would, from the
    environment's view and options, reproduces play_game with greedy seats:
    same engine, same deck, same options, every step kind (plans and the
    reshuffle question included)."""
    seed, n = 21, 2
    variant = Variant(advanced=True)
    greedy = load_strategy("greedy")
    expected = play_game(variant, [Seat(f"g{i}", "greedy", greedy) for i in range(n)], seed)
    environment = env(n, variant)
    environment.reset(seed=seed)
    bots = [greedy(rng) for rng in seat_generators(seed, n)[1]]
    planned: dict[int, list] = {}
    kinds = set()
    for agent in environment.agent_iter():
        if environment.terminations[agent]:
            environment.step(None)
            continue
        decision = environment.decision
        kinds.add(decision.kind)
        option = _greedy_answer(bots[decision.seat], decision, planned)
        environment.step(decision.actions[decision.options.index(option)])
    assert environment._session.pending.scores == expected.scores
    assert {"roundabout", "play", "effect", "plans", "reshuffle"} <= kinds


def _greedy_answer(bot, decision, planned: dict[int, list]):
    """What `bot` answers to a decision (its plans answered one claim a step)."""
    view, options = decision.view, decision.options
    if decision.kind == "plans":
        if not decision.claimed:
            planned[decision.seat] = list(bot.choose_plans(view, [o for o in options if o is not None]))
        queue = planned[decision.seat]
        return queue.pop(0) if queue else None
    if decision.kind == "reshuffle":
        return bot.choose_reshuffle(view)
    hook = {"roundabout": "choose_roundabout", "play": "choose_play", "effect": "choose_effect",
            "pass": "choose_pass"}[decision.kind]
    return getattr(bot, hook)(view, options)


def test_an_illegal_action_plays_the_first_legal_one_and_says_so():
    environment = env(2)
    environment.reset(seed=3)
    mask = environment.observe("player_0")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    environment.step(illegal)
    assert environment.infos["player_0"]["illegal_action"] is True
    assert environment.agent_selection == "player_0"  # its effect step follows its play
    assert environment.observe("player_1")["action_mask"].sum() == 0  # not its turn


class Recorder(DecidingStrategy):
    """Answers plan steps with the highest claim action, recording each step."""

    def __init__(self, rng):
        super().__init__(rng)
        self.steps = []

    def decide(self, decision):
        self.steps.append(decision)
        claims = [a for a, option in zip(decision.actions, decision.options) if option is not None]
        return decision.option(max(claims)) if claims else None


def test_plans_are_claimed_one_step_at_a_time_on_the_sheet_so_far():
    plans = (DEFAULT_DATA.plan("estates-4-4"), DEFAULT_DATA.plan("estates-3-3-4"),
             DEFAULT_DATA.plan("estates-1-2-6"))
    sheet = estates_sheet([4, 4, 3, 3, 4])
    view = PlayerView(0, 5, sheet, [], None, plans, (None, None, None),
                      (PublicSeat(0, 0, (None, None, None), 18),), 60, Variant(), 1)
    bot = Recorder(np.random.default_rng(0))
    claims = bot.choose_plans(view, claim_options(sheet, plans))
    layout = layout_for(DEFAULT_DATA, 1)
    claim = layout.blocks["claim"]
    assert [c.deck for c in claims] == [2, 1]  # the highest action: deck 2 first
    first, second = bot.steps  # nothing left to claim after two: no third question
    assert sum(first.mask[claim.start:claim.start + claim.size]) == 3 + 3  # three 4s: 3 ways per plan
    assert first.mask[layout.at("plans_done")] == 1
    assert list(np.flatnonzero(second.mask[claim.start:claim.start + claim.size])) == [0]  # deck 1, the two 4s left
    assert second.observation[layout.fields["claimed_now"].start + 1] == 1
    assert second.sheet.plan_turns[1] == 5 and sheet.plan_turns == [None, None, None]
    assert all(d.observation[layout.fields["step"].start + STEPS.index("plans")] == 1 for d in bot.steps)


@pytest.mark.parametrize("n_players, variant", [EXPERT_3, (2, Variant(board="ice-cream")),
                                               (4, Variant(board="easter", advanced=True))])
def test_observations_need_no_clipping_to_stay_in_their_bounds(n_players, variant):
    """Every entry of every decision's observation lies within its field's
    documented range before `observe` holds it there."""
    environment = env(n_players, variant)
    layout = environment.layout
    names = np.concatenate([[f.name] * f.size for f in layout.fields.values()])
    for seed in (2, 3):
        environment.reset(seed=seed)
        pick = random.Random(seed)
        for agent in environment.agent_iter():
            observation, _, terminated, _, _ = environment.last()
            assert environment.observation_space(agent).contains(observation)
            if terminated:
                environment.step(None)
                continue
            raw = unbounded_observation(layout, environment.decision)
            outside = (raw < layout.low) | (raw > layout.high)
            assert not outside.any(), sorted(set(names[outside]))
            environment.step(pick.choice(np.flatnonzero(observation["action_mask"]).tolist()))


def test_the_ice_cream_truck_is_observed_where_the_play_sent_it():
    environment = env(2, Variant(board="ice-cream"))
    environment.reset(seed=4)
    decision = environment.decision
    play = next(p for p in decision.options if p is not None and p.street == 2 and p.truck == "right"
                and p.house > 3)
    environment.step(decision.actions[decision.options.index(play)])
    fields = environment.layout.fields
    observation = environment.observe("player_0")["observation"]
    assert environment.decision.kind == "effect" and environment.agent_selection == "player_0"
    trucks, at = fields["trucks"], fields["truck_at"]
    assert list(observation[trucks.start + 6:trucks.start + 9]) == [0, 0, 1]  # street 2: right
    assert observation[at.start + 2] == play.house
    row = 2 * environment.layout.houses
    marks = observation[fields["board_marks"].start + row:][:environment.layout.houses]
    spots = observation[fields["board_spots"].start + row:][:environment.layout.houses]
    passed = [3 if cone else 0 for cone in spots[:play.house]]  # "right" starts at the left end
    assert marks[:play.house].tolist() == passed and marks[play.house] == (2 if spots[play.house] else 0)


SEEDED_POLICY = '''
import numpy as np
from welcometo_sim.envs import PolicyStrategy


class Seeded(PolicyStrategy):
    """A random legal action from the seat's own generator."""

    def act(self, observation, action_mask):
        return int(self.rng.choice(np.flatnonzero(action_mask)))
'''


def test_a_policy_plays_in_wtsim_run_deterministically(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mybots.py").write_text(SEEDED_POLICY)
    config = tmp_path / "policy.yaml"
    config.write_text(
        "games: 3\nseed: 4\nvariant: {advanced: true}\nplayers:\n"
        "  - strategy: mybots.py:Seeded\n"
        "  - strategy: welcometo_sim.envs:PolicyStrategy\n"
        "    params: {policy: 'welcometo_sim.games.welcome_to.env.encoding:first_legal'}\n")
    first = welcometo_sim.run(config)
    again = welcometo_sim.run(config)
    assert len(first) == 6 and first.equals(again)
    assert first["total"].nunique() > 1


def test_policy_strategy_plays_as_the_environment_does():
    """A policy seated by PolicyStrategy gets the environment's arrays: the
    first-legal policy scores the same in both."""
    seed, n = 8, 2
    seats = [Seat(f"p{i}", "policy", PolicyStrategy) for i in range(n)]
    expected = play_game(Variant(expert=True), seats, seed)
    environment = env(n, Variant(expert=True))
    environment.reset(seed=seed)
    for agent in environment.agent_iter():
        observation, _, terminated, _, _ = environment.last()
        environment.step(None if terminated else int(np.flatnonzero(observation["action_mask"])[0]))
    assert environment._session.pending.scores == expected.scores


def test_a_policy_that_cannot_be_loaded_is_one_line(tmp_path):
    with pytest.raises(ValueError, match="^policy 'nowhere:act': cannot load 'nowhere'"):
        PolicyStrategy.check_params({"policy": "nowhere:act"})
    with pytest.raises(ValueError, match="is not a function"):
        PolicyStrategy.check_params({"policy": "welcometo_sim.games.welcome_to.env.encoding:N_OFFERS"})


RL_PAGE = Path(__file__).resolve().parent.parent / "docs" / "rl.md"


def rl_page() -> str:
    """The manual's page on the RL environments."""
    return RL_PAGE.read_text(encoding="utf-8")


def rl_page_table(header: str) -> dict[str, tuple[int, str]]:
    """name -> (first, size) of the RL page's table whose header starts with `header`."""
    table = rl_page().split(f"| {header} |", 1)[1].split("\n\n", 1)[0]
    return {name: (int(first), size) for name, first, size in
            re.findall(r"^\| `(\w+)` \| (\d+) \| ([\w·]+) \|", table, flags=re.M)}


def test_the_manual_tables_give_the_base_layout():
    layout = layout_for(DEFAULT_DATA, 2)
    fields = {f.name: (f.start, str(f.size)) for f in layout.fields.values()}
    fields["public"] = (fields["public"][0], "6·players")
    assert rl_page_table("block") == {b.name: (b.start, str(b.size)) for b in layout.blocks.values()}
    assert rl_page_table("field") == fields
    assert f"`Discrete({layout.n_actions})`" in rl_page()
    assert f"({layout.n_observations} entries for two players" in rl_page()


def test_the_manual_example_trains_and_seats_a_policy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    train, bots = re.findall(r"```python\n(.*?)```", rl_page(), flags=re.S)[-2:]
    assert "range(300)" in train
    exec(train.replace("range(300)", "range(2)"), {})
    namespace: dict = {}
    exec(bots, namespace)
    seats = [Seat("slots", "slot-values", namespace["SlotValues"]), Seat("first", "policy", PolicyStrategy)]
    result = play_game(Variant(), seats, 1)
    assert result.turns > 1 and np.load(tmp_path / "value.npy").any()


def test_the_environments_step_the_game_in_the_callers_thread():
    import threading

    before = threading.active_count()
    environment = env(2)
    environment.reset(seed=1)
    for _ in range(20):
        agent = environment.agent_selection
        mask = environment.observe(agent)["action_mask"]
        environment.step(int(np.flatnonzero(mask)[0]))
    solo = SoloEnv()
    solo.reset(seed=1)
    assert threading.active_count() == before
    assert environment._session.game.turn > 1  # the engine's own state, stepped
    environment.close()
    solo.close()


def test_without_the_rl_extra_the_environments_say_which_extra_to_install(monkeypatch):
    import sys

    import welcometo_sim.envs as envs
    for module in ("welcometo_sim.games.welcome_to.env.aec", "welcometo_sim.envs.stepped"):
        monkeypatch.delitem(sys.modules, module, raising=False)  # they import pettingzoo: imported again
    monkeypatch.setitem(sys.modules, "pettingzoo", None)  # as if not installed
    with pytest.raises(ImportError, match=r"needs the rl extra \(pip install 'welcometo-sim\[rl\]'\)"):
        envs.env(2)
    for module in ("welcometo_sim.games.shake_that_city.env", "welcometo_sim.envs.stepped"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(ImportError, match=r"needs the rl extra"):
        envs.env(2, game="shake-that-city")


# ------------------------------------------------------------ Shake That City
CITY_VARIANTS = [(2, {}), (1, {"solo": True}), (3, {"side": "seaside", "construction": True}),
                 (4, {"wild_nights": True})]


@pytest.mark.parametrize("n_players, variant", CITY_VARIANTS, ids=lambda v: str(v))
def test_shake_that_city_passes_the_pettingzoo_api_and_seed_tests(n_players, variant):
    from welcometo_sim.envs import env as make

    api_test(make(n_players, variant, game="shake-that-city"), num_cycles=60)
    seed_test(lambda: make(players=n_players, variant=variant, game="shake-that-city"), num_cycles=30)


def test_shake_that_city_environment_plays_the_game_its_state_plays():
    """The environment steps the game's own State: the same answers give the
    scores the game gives, and the rewards add up to them."""
    from welcometo_sim.envs import env as make
    from welcometo_sim.games import load_game
    from welcometo_sim.games.contract import play_out

    environment = make(players=2, game="shake-that-city")
    environment.reset(seed=17)
    totals = {agent: 0.0 for agent in environment.agents}
    answers = []
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, info = environment.last()
        totals[agent] += reward
        if terminated:
            environment.step(None)
            continue
        action = int(np.flatnonzero(observation["action_mask"])[-1])
        answers.append(environment.move_of(action))
        environment.step(action)
    replies = iter(answers)
    state = play_out(load_game("shake-that-city", {}, 2).new_state(2, 17), lambda decision: next(replies))
    finals = [score["total"] for score in state.scores()]
    assert [totals[f"player_{i}"] for i in range(2)] == finals
    assert len(answers) > 20 and any(finals)


def test_every_game_builds_its_environment_the_same_way():
    from welcometo_sim.envs import env as make

    city = make(players=3, variant={"side": "seaside"}, game="shake-that-city")
    welcome = make(players=3, variant={"expert": True}, game="welcome-to")
    assert city.possible_agents == welcome.possible_agents == ["player_0", "player_1", "player_2"]
    assert welcome.variant.expert
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make(game="chess")


# ------------------------------------------------------------ the package's names
MOVED_ENV_MODULES = {
    "welcometo_sim.envs.aec": "welcometo_sim.games.welcome_to.env.aec",
    "welcometo_sim.envs.encoding": "welcometo_sim.games.welcome_to.env.encoding",
    "welcometo_sim.envs.policy": "welcometo_sim.games.welcome_to.env.policy",
    "welcometo_sim.envs.session": "welcometo_sim.games.welcome_to.env.session",
    "welcometo_sim.envs.solo": "welcometo_sim.games.welcome_to.env.solo",
    "welcometo_sim.envs.city": "welcometo_sim.games.shake_that_city.env",
}
"""The environment modules that moved into their games, by their old names."""


def run_python(code: str) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter (a module warns only when first imported)."""
    return subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent,
                          capture_output=True, text=True, timeout=60)


def test_the_old_environment_paths_are_the_moved_modules_with_a_deprecation_warning():
    code = ("import importlib, sys, warnings\n"
            f"for old, new in {MOVED_ENV_MODULES!r}.items():\n"
            "    with warnings.catch_warnings(record=True) as caught:\n"
            "        warnings.simplefilter('always')\n"
            "        module = importlib.import_module(old)\n"
            "    assert module is sys.modules[new] and module.__spec__.name == new, old\n"
            "    assert [(w.category, str(w.message)) for w in caught] == "
            "[(DeprecationWarning, f'{old} is deprecated: import {new}')], caught\n"
            "from welcometo_sim.envs import PolicyStrategy, ShakeThatCityEnv, WelcomeToEnv\n"
            "from welcometo_sim.games.shake_that_city.env import ShakeThatCityEnv as city\n"
            "from welcometo_sim.games.welcome_to.env.aec import WelcomeToEnv as welcome\n"
            "from welcometo_sim.games.welcome_to.env.policy import PolicyStrategy as policy\n"
            "assert WelcomeToEnv is welcome and ShakeThatCityEnv is city and PolicyStrategy is policy\n"
            "from welcometo_sim.strategy import load_strategy\n"
            "assert load_strategy('welcometo_sim.envs.policy:PolicyStrategy') is policy\n")
    done = run_python(code)
    assert done.returncode == 0, done.stderr


def test_the_registered_games_declare_the_moved_modules_and_the_public_names():
    import welcometo_sim.envs as envs
    from welcometo_sim.games import GAMES, game_module

    moved = {old: new for name in GAMES for old, new in getattr(game_module(name), "MOVED_MODULES", {}).items()}
    assert moved == MOVED_ENV_MODULES
    assert {"env", "raw_env", "WelcomeToEnv", "ShakeThatCityEnv", "SoloEnv", "PolicyStrategy", "DecidingStrategy",
            "load_policy", "encode", "Decision", "Layout", "layout_for", "first_legal", "STEPS"} <= set(envs.__all__)
    assert set(envs.__all__) <= set(dir(envs))
    with pytest.raises(AttributeError, match="no_such_name"):
        envs.no_such_name  # noqa: B018


def test_a_policy_strategy_loads_without_the_rl_extra_or_the_tables():
    code = ("import sys\n"
            "sys.modules['pettingzoo'] = sys.modules['gymnasium'] = None  # as if not installed\n"
            "from welcometo_sim.envs import PolicyStrategy, encode, layout_for\n"
            "assert PolicyStrategy.__module__ == 'welcometo_sim.games.welcome_to.env.policy'\n"
            "assert 'pandas' not in sys.modules, 'pandas'\n"
            "import welcometo_sim.envs as envs\n"
            "try:\n"
            "    envs.WelcomeToEnv\n"
            "except ImportError as exc:\n"
            "    assert 'needs the rl extra' in str(exc), exc\n"
            "else:\n"
            "    raise AssertionError('WelcomeToEnv without pettingzoo')\n")
    done = run_python(code)
    assert done.returncode == 0, done.stderr
