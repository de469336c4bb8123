"""The multi-agent env: one agent per side, only the mover observes, the rewards of pitch_env/rewards.py."""

import numpy as np
import pytest

import pitch_env
from agents.base import turns
from agents.heuristic import HeuristicAgent
from train.rllib.env import PitchMultiAgentEnv, side_agent


def play(env, rng, game_seed):
    """A game of random legal moves; (actions taken, each side's summed rewards, last infos, truncated)."""
    obs, _ = env.reset(options={"game_seed": game_seed})
    actions, total, last = [], {}, None
    while True:
        assert len(obs) == 1, "only the side to move observes"
        (aid, o), = obs.items()
        assert aid == side_agent(env.rules.side_of(env.game.current_seat))
        legal = np.flatnonzero(o["action_mask"])
        a = int(rng.choice(legal))
        src = env._act_src
        actions.append(int(src[a]) if src is not None else a)
        obs, rew, term, trunc, infos = env.step({aid: a})
        for k, v in rew.items():
            total[k] = total.get(k, 0.0) + v
        if term["__all__"] or trunc["__all__"]:
            assert set(obs) == set(env.possible_agents), "every side gets a last observation"
            return actions, total, infos, trunc["__all__"]


@pytest.mark.parametrize("variant, observation", [("setback", "suit_canonical"), ("auction", "plain"),
                                                  ("ten_point", "suit_canonical")])
def test_a_sides_rewards_are_the_aec_envs_relative_rewards_of_its_seats(variant, observation):
    rng = np.random.default_rng(3)
    env = PitchMultiAgentEnv({"variant": variant, "observation": observation, "rules": {"max_hands": 12},
                              "win_bonus": 1.5})
    for game_seed in (1, 2):
        actions, total, infos, truncated = play(env, rng, game_seed)
        aec = pitch_env.env(variant, reward="relative", win_bonus=1.5, max_hands=12)
        aec.reset(seed=game_seed)
        seat_total = {a: 0.0 for a in aec.possible_agents}
        for action in actions:
            aec.step(action)
            for a, r in aec.rewards.items():
                seat_total[a] += r
        rules = env.rules
        for seat in range(rules.num_players):
            assert seat_total[f"player_{seat}"] == pytest.approx(total[side_agent(rules.side_of(seat))])
        assert all(a.game.is_over for a in [aec.unwrapped]) and aec.unwrapped.game.truncated == truncated
        assert sum(i["won"] for i in infos.values()) == (0 if truncated else 1)


def test_the_heuristic_key_holds_the_heuristic_agents_choice_where_the_network_sees_it():
    env = PitchMultiAgentEnv({"variant": "setback", "heuristic": True, "hint": "heuristic"})
    aec = pitch_env.env("setback", infoset=True)
    hero = HeuristicAgent(aec)
    obs, _ = env.reset(options={"game_seed": 5})
    aec.reset(seed=5)
    for n, (agent, o_aec, info) in enumerate(turns(aec)):
        (aid, o), = obs.items()
        real = hero.act(o_aec, info)
        shown = int(np.argmax(o["heuristic"]))
        src = env._act_src
        assert (int(src[shown]) if src is not None else shown) == real
        # with hint: heuristic the observation ends with the same one-hot
        assert np.array_equal(o["observations"][-env.action_size:], o["heuristic"])
        obs, *_ = env.step({aid: shown})
        aec.step(real)
        if n > 150 or aec.unwrapped.game.is_over:
            break
