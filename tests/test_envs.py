"""The Gymnasium and PettingZoo environments (``dicewise/envs``) and their oracle.

Proves: the batched oracle (``regret_batch``, ``CategoryOracle.judge``) equals the
per-position advisor on positions of random play; the environments pass Gymnasium's
``check_env`` and PettingZoo's ``api_test``, run under ``SyncVectorEnv``, reset
reproducibly on the dice of ``simulate``'s stream and refuse illegal actions clearly; the
native vector environment plays exactly as the single one, game by game; random, greedy
and optimal agents through the environments reproduce ``simulate``'s means within their
95% intervals, the optimal one with zero regret; the two-player oracle gives zero regret
to win-optimal play; ``import dicewise.envs`` without gymnasium names the extra to
install.  Only General and poker-programs are solved here (under a second each); the one
Yahtzee test is marked slow.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import dicewise.envs  # noqa: E402  (registers the environments)
from dicewise.api import make_rules, simulate  # noqa: E402
from dicewise.envs import regret_batch  # noqa: E402
from dicewise.envs.agents import GreedyAgent, OptimalAgent, RandomAgent  # noqa: E402
from dicewise.envs.oracle import category_oracle, solution  # noqa: E402
from dicewise.errors import DicewiseError  # noqa: E402
from dicewise.solver import dice  # noqa: E402
from dicewise.solver.protocol import BadAction  # noqa: E402
from dicewise.solver.stats import mean_ci95  # noqa: E402

FAST = ("general", "poker-programs")


def played_positions(name: str, games: int, seed: int, **options):
    """Positions (and the random legal action taken) from random play of the vector env."""
    env = gym.make_vec(dicewise.envs.env_id(name), num_envs=games, oracle=False, **options)
    base = env.unwrapped
    agent = RandomAgent(seed)
    obs, info = env.reset(seed=seed)
    rows = []
    for _ in range(3 * base.rules.n_categories):
        act = agent.act_batch(obs)
        live = np.flatnonzero(obs["action_mask"].any(axis=1))
        rows.append(np.stack([base.mask[live], base.extra[live], base.roll[live],
                              base.roll_number[live], act[live]], axis=1))
        obs, *_ = env.step(act)
    return base, np.concatenate(rows)


# -- the oracle against the advisor ---------------------------------------------------------

@pytest.mark.parametrize("name", ["general", pytest.param("poker-programs",
                                                      marks=pytest.mark.slow)])
def test_batched_regret_equals_the_advisor(name):
    """Positions of random play: the batched regret and best value are the advisor's."""
    game, rules = make_rules(name)
    sol = solution(game, rules)
    env = gym.make(dicewise.envs.env_id(name)).unwrapped
    agent = RandomAgent(4)
    positions, advised = [], []
    for g in range(6):
        obs, info = env.reset(seed=21, options={"game": g})
        done = False
        while not done:
            ep = env.episode
            a = agent.act(obs)
            advice = game.advise_observation(sol, ep.observation())
            chosen = advice.choice_for(env.actions[a])
            positions.append((ep.mask, ep.extra, ep.roll, ep.roll_number, a))
            advised.append((advice.best.expected - ep.points, chosen.loss))
            obs, _, done, _, info = env.step(a)
    m, e, r, k, a = np.array(positions).T
    regret = regret_batch(name, m, e, r, k, a)
    judged = category_oracle(game, rules).judge(m, e, r, k, a)
    best, loss = np.array(advised).T
    np.testing.assert_allclose(regret, loss, atol=1e-9)
    np.testing.assert_allclose(judged.best_value, best, atol=1e-9)
    again = category_oracle(game, rules).judge(m, e, r, k, judged.best_action)
    assert np.abs(again.regret).max() < 1e-9


def test_batched_regret_on_many_positions_matches_one_by_one():
    """A large batch (several plan chunks) equals the same positions judged in small ones."""
    base, rows = played_positions("general", 64, 9)
    m, e, r, k, a = rows.T
    oracle = category_oracle(base.game, base.rules)
    whole = oracle.judge(m, e, r, k, a)
    parts = [oracle.judge(*(x[i:i + 7] for x in (m, e, r, k, a))) for i in range(0, len(m), 7)]
    np.testing.assert_allclose(whole.regret, np.concatenate([p.regret for p in parts]), atol=1e-9)
    assert (whole.regret >= -1e-12).all() and whole.regret.max() > 0


def test_batched_regret_refuses_bad_positions_and_actions():
    base, rows = played_positions("general", 4, 2)
    m, e, r, k, a = rows[:3].T
    with pytest.raises(BadAction, match="position 0: action 5000"):
        regret_batch("general", m, e, r, k, np.full(3, 5000))
    full = (1 << 10) - 1
    with pytest.raises(DicewiseError, match="out of range"):
        regret_batch("general", [full], [0], [0], [1], [dice.N_KEEPS])
    keep_six = int(dice.keep_index(dice.counts_of([6, 6, 6, 6, 6])))
    ones = int(dice.roll_index(dice.counts_of([1, 1, 2, 3, 4])))
    with pytest.raises(BadAction, match="cannot keep"):
        regret_batch("general", [0], [0], [ones], [2], [keep_six])
    with pytest.raises(BadAction, match="no roll is left"):
        regret_batch("general", [0], [0], [ones], [3], [0])
    big = int(dice.roll_index(dice.counts_of([4] * 5)))
    with pytest.raises(DicewiseError, match="ended the game"):
        regret_batch("general", [0], [0], [big], [1], [dice.N_KEEPS])
    with pytest.raises(DicewiseError, match="category games"):
        regret_batch("risk", [0], [0], [0], [1], [0])


@pytest.mark.parametrize("odd", [2.5, np.array([2.5]), float("nan"), 10**30, None, "3", [True]])
def test_batched_regret_refuses_positions_that_are_no_whole_numbers(odd):
    # int64 casts took 2.5 for 2 and failed on NaN ("cannot convert"), 10**30 (OverflowError)
    # or None (TypeError)
    with pytest.raises(DicewiseError, match=r"(masks|actions) are whole numbers \(int64\)"):
        regret_batch("general", odd, [0], [0], [1], [0])
    roll = int(dice.roll_index(dice.counts_of([1, 1, 2, 3, 4])))
    with pytest.raises(DicewiseError, match=r"actions are whole numbers"):
        regret_batch("general", [0], [0], [roll], [1], odd)
    # an empty batch ([] is a float64 array to numpy) judges nothing, as before the check
    assert len(regret_batch("general", [], [], [], [], [])) == 0


# -- the action space -----------------------------------------------------------------------

@pytest.mark.parametrize("name", FAST)
def test_action_space_holds_every_legal_action(name):
    game, rules = make_rules(name)
    actions = game.action_space(rules)
    assert len(actions) == dice.N_KEEPS + rules.n_categories
    assert [a["write"] for a in actions[dice.N_KEEPS:]] == list(rules.category_names)
    assert len({str(a) for a in actions}) == len(actions)
    env = gym.make(dicewise.envs.env_id(name)).unwrapped
    obs, _ = env.reset(seed=3)
    for _ in range(12):
        legal = env.episode.observation()["legal"]
        indices = sorted(env.action_index(a) for a in legal)
        assert indices == list(np.flatnonzero(obs["action_mask"]))
        obs, *_ = env.step(RandomAgent(1).act(obs))


@pytest.mark.parametrize("name", ["risk", "nope", "General"])
def test_an_id_of_no_environment_is_refused(name):
    with pytest.raises(DicewiseError, match=f"no environment for '{name}'"):
        dicewise.envs.env_id(name)


def test_games_without_action_space_say_so():
    from dicewise.solver.registry import get_game

    with pytest.raises(DicewiseError, match="risk has no"):
        get_game("risk").action_space(None)
    with pytest.raises(DicewiseError, match="no agent protocol"):
        dicewise.envs.DicewiseEnv("risk")


# -- the Gymnasium API --------------------------------------------------------------------

def test_ids_cover_every_game_with_an_agent_protocol():
    assert dicewise.envs.ENV_IDS == {
        "general": "dicewise/General-v0", "poker-programs": "dicewise/PokerPrograms-v0",
        "yahtzee": "dicewise/Yahtzee-v0", "yatzy": "dicewise/Yatzy-v0",
        "ryzykant": "dicewise/Ryzykant-v0", "poker-school": "dicewise/PokerSchool-v0"}
    assert all(i in gym.registry for i in dicewise.envs.ENV_IDS.values())


@pytest.mark.parametrize("name", FAST)
def test_check_env_passes(name):
    """Gymnasium's checker steps unmasked random actions: illegal_action="end" ends the
    episode on them (the default raises); no warning is tolerated."""
    from gymnasium.utils.env_checker import check_env

    env = gym.make(dicewise.envs.env_id(name), illegal_action="end")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def test_the_issue_example_and_info_fields():
    env = gym.make("dicewise/General-v0")
    obs, info = env.reset(seed=7)
    assert obs in env.observation_space and obs["action_mask"].dtype == np.int8
    assert info["regret"] == 0 and info["regret_is_exact"] and info["game"] == 0
    assert info["expected_score"] == pytest.approx(env.unwrapped.action_values().max())
    best = info["optimal_action"]
    assert env.unwrapped.action_json(best) == json.loads(info["optimal_action_json"])
    action = env.action_space.sample(mask=obs["action_mask"])
    q = env.unwrapped.action_values()
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["regret"] == pytest.approx(q[best] - q[action], abs=1e-12)
    assert not truncated and obs in env.observation_space


def test_reward_is_points_written_and_the_sheet_is_encoded():
    env = gym.make("dicewise/PokerPrograms-v0").unwrapped
    obs, info = env.reset(seed=5)
    total, done = 0.0, False
    while not done:
        before = env.episode.points
        obs, reward, done, _, info = env.step(info["optimal_action"])
        total += reward
        sheet = env.episode.observation()["sheet"]
        names = env.rules.category_names
        assert [sheet.get(n, 0) for n in names] == list(obs["sheet"])
        assert [n in sheet for n in names] == list(obs["filled"])
        if not done:
            assert reward == pytest.approx(env.episode.points - before)
    assert total == pytest.approx(env.episode.score) == pytest.approx(info["score"])
    assert info["optimal_action"] == -1 and not obs["action_mask"].any()
    with pytest.raises(DicewiseError, match="call reset"):
        env.step(0)


def test_reset_is_reproducible_and_walks_simulates_stream():
    env = gym.make("dicewise/General-v0").unwrapped
    a, _ = env.reset(seed=11)
    b, _ = env.reset()
    c, _ = env.reset(seed=11)
    d, _ = env.reset()
    for x, y in ((a, c), (b, d)):
        assert all(np.array_equal(x[k], y[k]) for k in x)
    stream = env.game.episode(env.solution, 11, 3).observation()["dice"]
    obs, info = env.reset(seed=11, options={"game": 3})
    assert info["game"] == 3 and list(obs["dice"]) == list(dice.counts_of(stream))
    with pytest.raises(DicewiseError):
        env.reset(options={"game": -1})


def test_a_game_its_first_throw_ends_is_skipped():
    """A game of the stream that opens with a big general is no episode: the next is played."""
    game, rules = make_rules("general")
    sol = solution(game, rules)
    ended = next(i for i, ep in enumerate(game.episodes(sol, 0, 8000)) if ep.done)
    env = gym.make("dicewise/General-v0").unwrapped
    obs, info = env.reset(seed=0, options={"game": ended})
    assert info["game"] == ended + 1 and obs["action_mask"].any()


def test_illegal_actions_raise_or_end():
    env = gym.make("dicewise/General-v0").unwrapped
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(BadAction, match=rf"action {illegal} .* is not legal here \(legal: "):
        env.step(illegal)
    with pytest.raises(BadAction, match="outside the action space"):
        env.step(10_000)
    env = gym.make("dicewise/General-v0", illegal_action="end").unwrapped
    expected = env.reset(seed=1)[1]["expected_score"]
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and reward == 0 and "not legal" in info["illegal_action"]
    assert expected > 100 and info["regret"] == pytest.approx(expected)  # the whole game, lost
    # over: no best action, the expected score is the score, and no step more
    assert info["optimal_action"] == -1 and info["expected_score"] == info["score"]
    with pytest.raises(DicewiseError, match="the episode is over"):
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert env.reset(seed=1)[1]["optimal_action"] >= 0
    with pytest.raises(DicewiseError, match="single environment's"):
        gym.make_vec("dicewise/General-v0", num_envs=2).reset(seed=1, options={"game": 5})
    with pytest.raises(DicewiseError, match="illegal_action"):
        gym.make("dicewise/General-v0", illegal_action="ignore")


@pytest.mark.parametrize("action", [1.5, "3", None, [0], np.array([1]), np.float64(2.0),
                                    float("nan"), True])
def test_an_action_that_is_no_whole_number_is_illegal(action):
    # int() took 1.5 for action 1 and "3" for action 3, and None or [0] raised TypeError
    env = gym.make("dicewise/General-v0").unwrapped
    env.reset(seed=1)
    with pytest.raises(BadAction, match="is not an index of the action space"):
        env.step(action)
    env = gym.make("dicewise/General-v0", illegal_action="end").unwrapped
    env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(action)
    assert terminated and reward == 0 and "not an index" in info["illegal_action"]
    assert env.observation_space.contains(obs)
    assert env.reset(seed=1)[0]["action_mask"].any()  # np.int64 and 0-d arrays stay actions
    env.step(np.int64(0)), env.reset(seed=1), env.step(np.array(0))
    with pytest.raises(BadAction, match="not an index of the action space"):
        env.action_json(10**30)
    with pytest.raises(BadAction, match="not an index of the action space"):
        env.action_json(-1)  # was the last action, by Python's negative indexing


@pytest.mark.parametrize("seed, options, message", [
    (-1, None, "seed is a whole number from 0 to 9223372036854775807"), (1.5, None, "seed is"),
    (2**63, None, "seed is a whole number from 0 to"),
    ("1", None, "seed is"), (True, None, "seed is"),
    (0, "x", "options is a dict or None"), (0, [1], "options is a dict"),
    (0, {"game": 10**30}, r"options\['game'\] is a game number"),
    (0, {"game": -1}, "is a game number"), (0, {"game": 1.5}, "is a game number"),
])
def test_reset_refuses_odd_seeds_and_options_in_one_line(seed, options, message):
    # gymnasium's own error (not a DicewiseError), AttributeError, or NumPy's ValueError
    envs = [gym.make("dicewise/General-v0").unwrapped,
            gym.make_vec("dicewise/General-v0", num_envs=2).unwrapped,
            dicewise.envs.two_player_general()]
    for env in envs:
        with pytest.raises(DicewiseError, match=message):
            env.reset(seed=seed, options=options)


def test_the_game_numbers_of_a_reset_stop_below_the_command_lines_bound():
    from dicewise.api import MAX_GAMES
    from dicewise.envs.single import check_reset

    assert check_reset(3, {"game": MAX_GAMES - 1}) == (3, {"game": MAX_GAMES - 1})
    with pytest.raises(DicewiseError, match=r"options\['game'\] is a game number"):
        check_reset(3, {"game": MAX_GAMES})


def test_numpy_seeds_are_taken_as_ints():
    env = gym.make("dicewise/General-v0").unwrapped
    first = env.reset(seed=np.int64(7))[0]
    assert all(np.array_equal(first[k], v) for k, v in env.reset(seed=7)[0].items())
    gym.make_vec("dicewise/General-v0", num_envs=2).reset(seed=np.uint32(7))


def test_masks_and_values_before_reset_say_to_reset_first():
    env = gym.make("dicewise/General-v0").unwrapped
    for ask in (env.action_masks, env.action_values):
        with pytest.raises(DicewiseError, match=r"call reset\(\) first"):
            ask()
    env.reset(seed=1)
    assert env.action_masks().sum() == np.isfinite(env.action_values()).sum() > 0


def test_step_before_reset_and_odd_actions_are_refused_in_one_line():
    venv = gym.make_vec("dicewise/General-v0", num_envs=2, illegal_action="end")
    with pytest.raises(DicewiseError, match=r"call reset\(\) before step\(\)"):
        venv.step(np.zeros(2, int))
    venv.reset(seed=1)
    for actions in (np.array([1.5, 1.5]), ["3", "3"], [None, None]):
        with pytest.raises(DicewiseError, match="actions are indices of the action space"):
            venv.step(actions)  # astype took 1.5 for action 1
    env = dicewise.envs.two_player_general(oracle_open=0)
    with pytest.raises(DicewiseError, match=r"call reset\(\) before step\(\)"):
        env.step(0)
    env.reset(seed=1)
    with pytest.raises(BadAction, match="action 1.5 is not legal"):
        env.step(1.5)
    # an index of the space that is not legal now is named, as the single environment does
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(BadAction, match=rf"player_0: action {illegal} \({{'keep': \[.*\]}}\) is "
                                        r"not legal here \(legal: \{"):
        env.step(illegal)


def test_two_player_observe_before_reset_or_of_no_agent_is_refused_in_one_line():
    env = dicewise.envs.two_player_general(oracle_open=0)
    with pytest.raises(DicewiseError, match=r"call reset\(\) first"):
        env.observe("player_0")  # AttributeError: no attribute 'mover'
    with pytest.raises(DicewiseError, match=r"call reset\(\) first"):
        env.last()  # AttributeError: no attribute 'agent_selection'
    env.reset(seed=1)
    with pytest.raises(DicewiseError, match="the agents are player_0 and player_1, not 'x'"):
        env.observe("x")


def test_a_table_that_is_no_path_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DicewiseError, match="table is a path or None, not 5"):
        gym.make("dicewise/General-v0", table=5)  # wrote a table file named "5"
    with pytest.raises(DicewiseError, match="NUL character"):
        gym.make("dicewise/General-v0", table="a\0b")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("table", [[], {}, np.array(2)])
def test_an_unhashable_table_is_refused(table):
    # TypeError "unhashable type" from the cache of solutions, before the check
    for make in (lambda: gym.make("dicewise/General-v0", table=table),
                 lambda: gym.make_vec("dicewise/General-v0", num_envs=2, table=table)):
        with pytest.raises(DicewiseError, match="table is a path or None"):
            make()


def test_keywords_given_as_arrays_are_refused_in_one_line():
    # `x not in (...)` of an array: numpy's "truth value of an array ... is ambiguous"
    odd = np.array(["raise", "end"])
    with pytest.raises(DicewiseError, match="illegal_action is one of raise, end"):
        gym.make("dicewise/General-v0", illegal_action=odd)
    with pytest.raises(DicewiseError, match="illegal_action is one of raise, end"):
        gym.make_vec("dicewise/General-v0", num_envs=2, illegal_action=odd)
    with pytest.raises(DicewiseError, match="render_mode is None or 'ansi'"):
        dicewise.envs.DicewiseEnv("general", render_mode=np.array(["ansi", "human"]))
    with pytest.raises(DicewiseError, match="render_mode is None or 'ansi'"):
        dicewise.envs.two_player_general(render_mode=np.array(["ansi", "human"]))
    with pytest.raises(DicewiseError, match="options takes a dict of option values"):
        gym.make("dicewise/General-v0", straight=np.array(["plain", "joker"]))
    with pytest.raises(DicewiseError, match=r"num_envs is a whole number 1\.\.100,000,000"):
        gym.make_vec("dicewise/General-v0", num_envs=10**30)  # numpy's "maximum dimension"


def test_action_index_refuses_an_index(tmp_path):
    # poker-school and ryzykant read an index as a JSON action: IndexError deep in the game
    env = dicewise.envs.DicewiseEnv("ryzykant", table=tiny_table("ryzykant", tmp_path))
    with pytest.raises(BadAction, match="is not an action of ryzykant"):
        env.action_index(np.int64(2))
    assert env.action_index(env.action_json(3)) == 3
    general = gym.make("dicewise/General-v0").unwrapped  # a tuple, as bench-agent reads it
    assert general.action_index({"keep": (2, 6)}) == general.action_index({"keep": [2, 6]})
    assert general.action_index({"keep": np.array([6, 2])}) == general.action_index(
        {"keep": [2, 6]})


def test_rule_options_are_make_keywords():
    plain = gym.make("dicewise/General-v0", straight="plain").unwrapped
    assert plain.rules.straight == "plain"
    assert plain.solution.expected_score < solution(*make_rules("general")).expected_score
    with pytest.raises(DicewiseError, match="unknown option"):
        gym.make("dicewise/General-v0", jokers="forced")
    # a misspelt keyword of the environment: the rule options and its own keywords are named
    for make, own in ((gym.make, "oracle, illegal_action, render_mode, table"),
                      (lambda name, **kw: gym.make_vec(name, num_envs=2, **kw),
                       "num_envs, oracle, illegal_action, table"),
                      (lambda name, **kw: dicewise.envs.two_player_general(**kw),
                       "oracle_open, render_mode")):
        with pytest.raises(DicewiseError) as refused:
            make("dicewise/General-v0", illegal_actio="end")
        assert str(refused.value) == (f"unknown option illegal_actio for general (options: "
                                      f"straight, big_general; the environment's keywords: {own})")
    for make in (gym.make, lambda name, **kw: gym.make_vec(name, num_envs=2, **kw),
                 lambda name, **kw: dicewise.envs.two_player_general(**kw)):
        with pytest.raises(DicewiseError, match=r"keywords of the environment .*not options="):
            make("dicewise/General-v0", options={"straight": "plain"})


def test_render_ansi():
    env = gym.make("dicewise/General-v0", render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert text.startswith("general game 0 of seed 2, turn 1, roll 1") and "dice" in text


@pytest.mark.parametrize("oracle", ["no", "False", None, 0, [True]])
def test_an_oracle_keyword_that_is_no_bool_is_refused(oracle):
    # oracle="no" (a true string) switched the oracle on, None and 0 off, without a word
    makers = [lambda: gym.make("dicewise/General-v0", oracle=oracle),
              lambda: gym.make_vec("dicewise/General-v0", num_envs=2, oracle=oracle)]
    for make in makers:
        with pytest.raises(DicewiseError,
                           match="oracle is True or False, not " + re.escape(repr(oracle))):
            make()
    assert gym.make("dicewise/General-v0", oracle=np.bool_(False)).unwrapped.oracle is None
    with pytest.raises(DicewiseError, match="oracle_open is 0..10, not True"):
        dicewise.envs.two_player_general(oracle_open=True)  # was taken for oracle_open=1
    assert dicewise.envs.two_player_general(oracle_open=np.int64(2)).oracle_open == 2


def test_oracle_can_be_switched_off():
    env = gym.make("dicewise/General-v0", oracle=False).unwrapped
    obs, info = env.reset(seed=1)
    assert "regret" not in info and "optimal_action" not in info
    with pytest.raises(DicewiseError, match="oracle=False"):
        env.action_values()
    with pytest.raises(DicewiseError, match="with oracle=True"):
        OptimalAgent().act(obs, info)
    venv = gym.make_vec("dicewise/General-v0", num_envs=2, oracle=False)
    obs, info = venv.reset(seed=1)
    with pytest.raises(DicewiseError, match="with oracle=True"):
        OptimalAgent().act_batch(obs, info)


# -- vector environments --------------------------------------------------------------------

def test_sync_vector_env_runs_and_autoresets():
    envs = gym.make_vec("dicewise/General-v0", num_envs=3, vectorization_mode="sync")
    assert isinstance(envs, gym.vector.SyncVectorEnv)
    obs, info = envs.reset(seed=4)
    agent, ends = RandomAgent(0), 0
    for _ in range(60):  # a General game is at most 30 decisions: each sub-env ends and resets
        obs, reward, terminated, truncated, info = envs.step(agent.act_batch(obs))
        assert obs["action_mask"].shape == (3, envs.single_action_space.n)
        assert info["regret"].shape == (3,) and (info["regret"] >= 0).all()
        ends += int(terminated.sum())
    assert ends >= 3
    envs.close()


@pytest.mark.parametrize("env_name, options", [
    ("PokerPrograms", {}), ("PokerSchool", {"columns": 1, "school_cross_erases": False}),
    pytest.param("Yatzy", {}, marks=pytest.mark.slow)])
def test_the_points_observed_are_the_rewards_so_far(env_name, options):
    """Through the last step: the end-of-game bonus (a clean column's 60, Yatzy's upper 50)
    is in the final observation's points, and in its text, as in the last reward."""
    env = gym.make(f"dicewise/{env_name}-v0", render_mode="ansi", **options)
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, done, _, info = env.step(info["optimal_action"])
            total += reward
            assert obs["points"][0] == pytest.approx(total, abs=1e-3)
        assert info["score"] == pytest.approx(total)
        shown = re.search(r"points (-?[\d.]+); over", env.render())
        assert float(shown.group(1)) == pytest.approx(total)


@pytest.mark.parametrize("game", ["General", pytest.param("Yahtzee", marks=pytest.mark.slow)])
def test_native_vector_env_plays_as_the_single_env(game):
    """Sub-env j of the native vector env and a single env on the same game agree on every
    observation, reward, termination, regret and expected score, step by step (Yahtzee: its
    count of Yahtzee bonuses too; its table takes seconds to build)."""
    n = 6
    venv = gym.make_vec(f"dicewise/{game}-v0", num_envs=n)
    assert type(venv).__name__ == "CategoryVectorEnv"
    obs, info = venv.reset(seed=5)
    singles = []
    for j in range(n):
        single = gym.make(f"dicewise/{game}-v0").unwrapped
        o, i = single.reset(seed=5, options={"game": int(info["game"][j])})
        singles.append((single, o, i))
    rng = np.random.default_rng(0)
    restart = np.zeros(n, bool)
    for step in range(60):  # a General game is at most 30 decisions: each sub-env restarts
        for j, (single, o, i) in enumerate(singles):
            for k in o:
                assert np.array_equal(obs[k][j], o[k]), (step, j, k)
            for k in ("regret", "expected_score", "score", "game", "seed"):
                assert info[k][j] == pytest.approx(i[k], abs=1e-9), (step, j, k)
            best = int(info["optimal_action"][j])
            assert json.loads(info["optimal_action_json"][j]) == (
                None if best < 0 else single.action_json(best))
            if i["optimal_action"] >= 0:  # ties may be broken apart; the values may not
                q = single.action_values()
                assert q[best] == pytest.approx(q.max(), abs=1e-9)
        legal = obs["action_mask"] > 0
        actions = (rng.random(legal.shape) * legal).argmax(axis=1)
        obs, reward, terminated, _, info = venv.step(actions)
        for j, (single, o, i) in enumerate(singles):
            if restart[j]:
                o, i = single.reset(seed=5, options={"game": int(info["game"][j])})
                r, t = 0.0, False
            else:
                o, r, t, _, i = single.step(actions[j])
            assert r == pytest.approx(reward[j]) and t == terminated[j]
            singles[j] = (single, o, i)
        restart = terminated.copy()


def test_native_vector_env_says_it_does_not_render():
    with pytest.raises(DicewiseError, match="native vector environment does not render"):
        gym.make_vec("dicewise/General-v0", num_envs=2, render_mode="ansi")  # "unknown option"
    envs = gym.make_vec("dicewise/General-v0", num_envs=2, vectorization_mode="sync",
                        render_mode="ansi")
    envs.reset(seed=1)
    assert all(text.startswith("general game 0 of seed") for text in envs.render())


def test_native_vector_env_refuses_illegal_actions():
    venv = gym.make_vec("dicewise/General-v0", num_envs=2)
    obs, _ = venv.reset(seed=1)
    bad = np.array([int(np.flatnonzero(obs["action_mask"][j] == 0)[0]) for j in range(2)])
    with pytest.raises(BadAction, match="sub-environment 0: action"):
        venv.step(bad)
    venv = gym.make_vec("dicewise/General-v0", num_envs=2, illegal_action="end")
    expected = venv.reset(seed=1)[1]["expected_score"]
    obs, reward, terminated, _, info = venv.step(bad)
    assert terminated.all() and info["illegal_action"].all() and (reward == 0).all()
    assert info["regret"] == pytest.approx(expected)  # each whole game, forfeited
    obs, reward, terminated, _, info = venv.step(np.zeros(2, int))  # the next step restarts
    assert not terminated.any() and obs["action_mask"].any(axis=1).all()
    venv = gym.make_vec("dicewise/General-v0", num_envs=2)
    venv.reset(seed=1)
    huge = np.array([2**64 - 1, 0], np.uint64)  # was said to be action -1 (int64 wrapped round)
    with pytest.raises(BadAction, match=r"0: action 18446744073709551615 is outside the action "):
        venv.step(huge)


# -- baselines through the environment ------------------------------------------------------

def play_through(agent_for, games: int, seed: int, oracle: bool, name: str = "general"):
    """Final scores of games 0..games-1 (those with a decision) and the total regret."""
    venv = gym.make_vec(dicewise.envs.env_id(name), num_envs=256, oracle=oracle)
    agent = agent_for(venv)
    obs, info = venv.reset(seed=seed)
    scores, regret = {}, 0.0
    while (info["game"] < games).any():  # games 0..games-1 dealt and finished (or skipped)
        obs, _, terminated, _, info = venv.step(agent.act_batch(obs, info))
        if oracle:
            regret += float(info["regret"].sum())
        for j in np.flatnonzero(terminated):
            if info["game"][j] < games:
                scores[int(info["game"][j])] = info["score"][j]
    return np.array(list(scores.values())), regret


def overlap(scores, reference: np.ndarray) -> bool:
    """The two means are within their combined 95% margins."""
    lo, hi = mean_ci95(scores)
    rlo, rhi = mean_ci95(reference)
    return abs(scores.mean() - reference.mean()) <= np.hypot(hi - lo, rhi - rlo) / 2


@pytest.mark.parametrize("policy", ["random", pytest.param("greedy", marks=pytest.mark.slow)])
def test_random_and_greedy_agents_reproduce_simulate(policy):  # greedy: the same path, slow
    agent_for = {"random": lambda env: RandomAgent(3), "greedy": GreedyAgent}[policy]
    scores, _ = play_through(agent_for, 2000, 13, oracle=False)
    reference = simulate("general", policy=policy, games=2000, seed=13).scores
    assert overlap(scores, reference), (scores.mean(), reference.mean())


def test_the_optimal_action_is_the_simulators_choice():
    """At every decision of these games the environment's optimal action is the one the
    simulator's own rule takes from the same turn solve: the first best keep, taken only
    when strictly better than the best write.  In game 465 of seed 17 two keeps (1 1 and
    3 3 from 1 1 3 3 6) differ by 1.8e-15 in the turn solve; with the sheet's points added
    first they rounded into a tie that the other keep won, and the game ended elsewhere."""
    from dicewise.solver.rulesets.decisions import plan_turns, planned_keeps, write_options

    env = gym.make("dicewise/General-v0", oracle=True).unwrapped
    rules, values = env.oracle.rules, env.oracle.values
    for game in (465, 0, 1, 2):
        _, info = env.reset(seed=17, options={"game": game})
        done = False
        while not done:
            ep = env.episode
            position = (np.array([ep.mask]), np.array([ep.extra]))
            keep = (planned_keeps(plan_turns(rules, values, *position), np.array([0]),
                                  np.array([ep.roll]), ep.roll_number)[0]
                    if ep.roll_number < 3 else -1)
            write = write_options(rules, values, *position, np.array([ep.roll]), ep.roll_number)
            expected = keep if keep >= 0 else dice.N_KEEPS + int(write.value[0].argmax())
            assert info["optimal_action"] == expected, (game, ep.roll_number)
            _, _, done, _, info = env.step(info["optimal_action"])


def test_optimal_agent_scores_the_optimum_with_zero_regret():
    scores, regret = play_through(lambda env: OptimalAgent(), 2000, 17, oracle=True)
    optimum = solution(*make_rules("general")).expected_score
    lo, hi = mean_ci95(scores)
    assert lo <= optimum <= hi and regret < 1e-6


def test_greedy_agent_single_env_matches_its_batch():
    env = gym.make("dicewise/PokerPrograms-v0").unwrapped
    agent = GreedyAgent(env)
    obs, info = env.reset(seed=2)
    done = False
    while not done:
        masks, extras, rolls, rn = agent.positions({k: v[None] for k, v in obs.items()})
        ep = env.episode
        position = (masks[0], extras[0], rolls[0], rn[0])
        assert position == (ep.mask, ep.extra, ep.roll, ep.roll_number)
        obs, _, done, _, info = env.step(agent.act(obs))


# -- the approximate games ------------------------------------------------------------------

def tiny_table(name: str, tmp_path):
    """A table of the game built in no time: a zero value model (ryzykant) or zero feature
    weights (poker-school), labelled approximate with an error estimate, as builds label."""
    from dicewise.tables import store

    game, rules = make_rules(name)
    if name == "ryzykant":
        from dicewise.solver.ryzykant.approx import ValueModel
        from dicewise.solver.ryzykant.game import Fitted

        payload = Fitted(ValueModel.zero())
    else:
        from dicewise.solver.poker_school.approx import Features, LinearEvaluator

        payload = LinearEvaluator(rules, np.zeros(Features.of(rules).size))
    meta = {"expected_score": 100.0, "approximate": True, "error_estimate": 7.5}
    return store.save(game, rules, payload, meta, tmp_path / f"{name}.dwt")


@pytest.mark.parametrize("name", [pytest.param("ryzykant", marks=pytest.mark.slow),  # search
                                  "poker-school"])
def test_approximate_games_label_their_oracle(name, tmp_path):
    """Through the game's advisor: regret labelled approximate, with the error estimate."""
    from gymnasium.utils.env_checker import check_env

    table = tiny_table(name, tmp_path)
    gid = dicewise.envs.env_id(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gym.make(gid, table=table, illegal_action="end").unwrapped)
    env = gym.make(gid, table=table).unwrapped
    game = env.game
    obs, info = env.reset(seed=3)
    assert not info["regret_is_exact"] and info["error_estimate"] == 7.5
    agent, done, steps = RandomAgent(2), False, 0
    while not done and steps < 30:
        advice = game.advise_observation(env.solution, env.episode.observation())
        a = agent.act(obs)
        assert json.loads(info["optimal_action_json"]) == advice.best.action
        assert info["expected_score"] == pytest.approx(advice.best.expected)
        obs, reward, done, _, info = env.step(a)
        assert info["regret"] == pytest.approx(advice.choice_for(env.actions[a]).loss, abs=1e-9)
        assert obs in env.observation_space
        steps += 1


def test_approximate_games_have_no_native_vector_env(tmp_path):
    table = tiny_table("ryzykant", tmp_path)
    envs = gym.make_vec("dicewise/Ryzykant-v0", num_envs=2, table=table)
    assert isinstance(envs, gym.vector.SyncVectorEnv)
    with pytest.raises(DicewiseError, match="category games"):
        dicewise.envs.CategoryVectorEnv("ryzykant", 2, table=table)


# -- two players ---------------------------------------------------------------------------

def test_two_player_general_passes_the_pettingzoo_api_test():
    from pettingzoo.test import api_test

    env = dicewise.envs.two_player_general()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice on Dict observations
        api_test(env, num_cycles=200)


def play_two_player(env, seed: int, policy):
    """(regret of each player, decisions the oracle judged, final reward of each player)."""
    env.reset(seed=seed)
    regrets, oracle_decisions = {a: 0.0 for a in env.possible_agents}, 0
    final = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        regrets[agent] += info.get("win_regret", 0.0)
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        oracle_decisions += "optimal_action" in info
        env.step(policy(agent, obs, info))
    return regrets, oracle_decisions, final


def test_two_player_oracle_gives_win_optimal_play_no_regret():
    env = dicewise.envs.two_player_general(oracle_open=3)
    rng = np.random.default_rng(0)

    def policy(agent, obs, info):
        assert obs["to_move"][0] == 1 and obs["action_mask"].any()
        if "optimal_action" in info:
            assert 0 <= info["win_chance"] <= 1
            return info["optimal_action"]
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    for seed in range(3):
        regrets, judged, final = play_two_player(env, seed, policy)
        assert judged > 0 and max(regrets.values()) < 1e-6
        assert sorted(final.values()) in ([-1.0, 1.0], [0.0, 0.0])
        winner = [a for a, r in final.items() if r == 1]
        assert env.outcome == "draw" if not winner else env.outcome.startswith(winner[0])


def test_every_judged_decision_leaves_its_win_regret_for_the_agent_that_took_it():
    """A write ends the turn, so the rival moves before the writer reads its info again: the
    writer's win_regret must still be there (the rival's step cleared it once)."""
    env = dicewise.envs.two_player_general(oracle_open=3)
    rng = np.random.default_rng(2)
    judged, seen, writes = {a: 0 for a in env.possible_agents}, {a: 0 for a in env.possible_agents}, 0
    for seed in range(2):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            seen[agent] += "win_regret" in info
            if terminated or truncated:
                env.step(None)
                continue
            judged[agent] += "optimal_action" in info
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            writes += "optimal_action" in info and "write" in env.actions[action]
            env.step(action)
    assert writes > 0 and judged == seen


def test_two_player_random_play_gives_regret_and_zero_sum_rewards():
    env = dicewise.envs.two_player_general(oracle_open=3)
    rng = np.random.default_rng(1)
    total, rewards = 0.0, []
    for seed in range(3):
        regrets, _, final = play_two_player(
            env, seed, lambda a, obs, info: int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        total += sum(regrets.values())
        rewards.append(sum(final.values()))
    assert total > 0 and rewards == [0.0, 0.0, 0.0]
    env.reset(seed=0)
    obs = env.observe("player_1")
    assert obs["to_move"][0] == 0 and not obs["action_mask"].any()
    assert not obs["opponent_filled"].any() and not obs["opponent_sheet"].any()
    with pytest.raises(BadAction):
        env.step(10_000)


def test_two_player_rewards_go_to_the_higher_total():
    """+1 to the player with more points, -1 to the other, 0 each on equal totals (the
    episodes' own scores); a first-roll five of a kind wins at once."""
    env = dicewise.envs.two_player_general(oracle_open=0)
    rng = np.random.default_rng(3)
    on_points = 0
    for seed in range(6):
        _, _, final = play_two_player(
            env, seed, lambda a, obs, info: int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if "five of a kind" in env.outcome:
            continue
        on_points += 1
        a, b = (float(ep.score) for ep in env.episodes)
        assert final == {"player_0": float(np.sign(a - b)), "player_1": float(np.sign(b - a))}
        assert env.outcome == ("draw" if a == b else f"player_{int(b > a)} wins on points")
    assert on_points >= 3


@pytest.mark.parametrize("oracle_open", [1, 2])
def test_the_two_player_oracle_judges_once_both_have_at_most_oracle_open_boxes(oracle_open):
    env = dicewise.envs.two_player_general(oracle_open=oracle_open)
    rng = np.random.default_rng(oracle_open)
    for seed in range(2):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            still_open = [int((obs[k] == 0).sum()) for k in ("filled", "opponent_filled")]
            assert ("optimal_action" in info) == (max(still_open) <= oracle_open), still_open
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_negative_box_scores_lie_in_the_observation_space():
    """poker-programs' obligatory boxes score below zero: the sheet's space holds them."""
    env = gym.make(dicewise.envs.env_id("poker-programs"), oracle=False).unwrapped
    space = env.observation_space
    rng = np.random.default_rng(5)
    negative = 0
    for game in range(3):
        obs, _ = env.reset(seed=1, options={"game": game})
        done = False
        while not done:
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert obs in space, {k: v for k, v in obs.items() if k != "action_mask"}
        negative += int((obs["sheet"] < 0).sum())
    assert negative > 0  # random play met the case


# -- the optional extra --------------------------------------------------------------------

def test_import_without_gymnasium_names_the_extra(monkeypatch):
    for mod in list(sys.modules):
        if mod == "dicewise.envs" or mod.startswith("dicewise.envs."):
            monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    with pytest.raises(ImportError, match=r"pip install 'dicewise\[rl\]'"):
        importlib.import_module("dicewise.envs")


# -- a reference game ---------------------------------------------------------------------

@pytest.mark.slow
def test_yahtzee_env_with_forced_jokers():
    env = gym.make("dicewise/Yahtzee-v0", joker="forced").unwrapped
    assert "counters" in env.observation_space.spaces and "extra" in env.observation_space.spaces
    scores, regret = [], 0.0
    for g in range(20):
        obs, info = env.reset(seed=1, options={"game": g})
        done = False
        while not done:
            obs, _, done, _, info = env.step(info["optimal_action"])
            regret += info["regret"]
            assert obs in env.observation_space
        scores.append(info["score"])
    assert regret < 1e-6 and 150 < np.mean(scores) < 350


def test_negative_points_lie_in_the_observation_space():
    # poker-programs' obligatory boxes score below zero, so points can be negative: the
    # checker's random play met it now and then ("obs not within the observation space")
    env = gym.make(dicewise.envs.env_id("poker-programs"))
    points = env.observation_space["points"]
    assert points.contains(np.array([-30.0], points.dtype))


# -- copies ----------------------------------------------------------------------------------

def test_every_environment_pickles_and_its_copy_plays_on_as_the_original(tmp_path):
    """An environment pickled mid-game (a checkpoint, a copy sent to another process) plays
    on exactly as the original.  The observation's fields read the JSON with closures,
    which pickle refused ("Can't pickle local object 'counts_field.<locals>.read'")."""
    import pickle

    from gymnasium.utils.env_checker import data_equivalence

    singles = [gym.make("dicewise/General-v0"),  # with gymnasium's wrappers
               gym.make("dicewise/PokerSchool-v0", table=tiny_table("poker-school", tmp_path))]
    for env in singles:
        obs, info = env.reset(seed=3)
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
        copy = pickle.loads(pickle.dumps(env))
        for _ in range(3):
            action = int(np.flatnonzero(env.unwrapped.action_masks())[-1])
            assert data_equivalence(copy.step(action), env.step(action))
    venv = gym.make_vec("dicewise/General-v0", num_envs=2)
    obs, _ = venv.reset(seed=3)
    copy = pickle.loads(pickle.dumps(venv))
    actions = RandomAgent(0).act_batch(obs)
    assert data_equivalence(copy.step(actions), venv.step(actions))
    duel = dicewise.envs.two_player_general(oracle_open=0)
    duel.reset(seed=3)
    copy = pickle.loads(pickle.dumps(duel))
    for env in (duel, copy):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert data_equivalence(copy.last(), duel.last())


def test_action_values_once_the_episode_is_over_are_all_illegal():
    # after the last box they raised AttributeError ('NoneType' object has no attribute
    # 'copy'), and after an illegal action ended the episode they were the last position's
    env = gym.make("dicewise/General-v0").unwrapped
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        obs, _, done, _, info = env.step(info["optimal_action"])
    assert not env.action_masks().any() and np.isneginf(env.action_values()).all()
    env = gym.make("dicewise/General-v0", illegal_action="end").unwrapped
    obs, _ = env.reset(seed=1)
    obs, _, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert done and not env.action_masks().any() and np.isneginf(env.action_values()).all()
