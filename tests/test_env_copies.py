"""What RL libraries do to an environment: copy and pickle it mid-game, store and stack its infos,
make it by registered id, and train on it through PettingZoo's SB3 action-masking tutorial."""

from __future__ import annotations

import copy
import pickle
import random

import cloudpickle
import numpy as np
import pettingzoo
import pytest

import pitch_env
from interop.sb3_tutorial import SB3ActionMaskWrapper  # the tutorial's wrapper, shared with make interop

VARIANTS = [("setback", {}), ("setback", {"num_players": 3}), ("auction", {"num_players": 5}),
            ("ten_point", {}), ("auction", {"episode": "hand", "reward": "hand"})]
IDS = ["setback", "setback-3p", "auction-5p", "ten_point", "auction-hand"]
COPIES = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "cloudpickle": lambda env: cloudpickle.loads(cloudpickle.dumps(env)),
}


def play(env, rng, moves=None):
    """Random legal moves from the mask (until the game ends, or ``moves`` of them); returns
    every observation, reward and info seen, so two runs can be compared."""
    seen = []
    while env.agents and (moves is None or len(seen) < moves):
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, info))
        env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return seen


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("variant,options", VARIANTS, ids=IDS)
def test_a_copy_taken_mid_game_is_independent_and_plays_on_to_the_same_record(variant, options, how):
    env = pitch_env.env(variant, **options)
    env.reset(seed=7)
    play(env, random.Random(1), moves=23)  # mid-auction or mid-exchange, table half-updated
    twin = COPIES[how](env)
    assert twin.unwrapped.game is not env.unwrapped.game
    # the twin plays its own random game first: the original must not feel it …
    play(copy.deepcopy(twin), random.Random(99))
    rest = play(env, random.Random(2))
    assert play(twin, random.Random(2)) == rest  # … and the twin continues identically
    assert twin.unwrapped.game_record() == env.unwrapped.game_record()
    env.reset(), twin.reset()  # the seeded sequence of later games is copied too
    assert twin.unwrapped.game_record() == env.unwrapped.game_record()


@pytest.mark.parametrize("variant,options", VARIANTS, ids=IDS)
def test_everything_the_env_returns_can_be_copied_pickled_and_stacked(variant, options):
    env = pitch_env.env(variant, **options)
    env.reset(seed=3)
    seen = play(env, random.Random(3))
    for _, _, _, reward, info in seen:
        assert pickle.loads(pickle.dumps(info)) == info == copy.deepcopy(info)
        assert isinstance(reward, float)
    # fixed shapes: a replay buffer can stack every observation of the game
    obs = np.stack([np.frombuffer(o, np.float32) for _, o, _, _, _ in seen])
    masks = np.stack([np.frombuffer(m, np.int8) for _, _, m, _, _ in seen])
    assert obs.shape == (len(seen), env.unwrapped.observer.size)
    assert masks.shape == (len(seen), env.unwrapped.num_actions)


def test_the_opt_in_infoset_is_plain_data_too():
    env = pitch_env.env("ten_point", infoset=True)
    env.reset(seed=2)
    for _, _, _, _, info in play(env, random.Random(2)):
        assert pickle.loads(pickle.dumps(info)) == info


@pytest.mark.parametrize("variant", pitch_env.variants())
def test_registered_ids_make_the_wrapped_env_with_options(variant):
    env = pettingzoo.make("aec", f"pitch/{variant}-v0", num_players=4)
    assert type(env) is type(pitch_env.env(variant))
    env.reset(seed=1)
    assert env.unwrapped.rules.variant == variant
    assert pettingzoo.make("aec", f"pitch/{variant}").unwrapped.rules.variant == variant  # latest version


def test_an_unknown_option_through_the_registry_names_the_option():
    with pytest.raises(ValueError, match="unknown rules option colour"):
        pettingzoo.make("aec", "pitch/setback-v0", colour="red")


@pytest.mark.parametrize("variant", pitch_env.variants())
def test_pettingzoo_sb3_action_masking_tutorial_trains_unmodified(variant):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    env = SB3ActionMaskWrapper(pettingzoo.make("aec", f"pitch/{variant}-v0"))
    env.reset(seed=0)
    env = ActionMasker(env, lambda e: e.action_mask())
    # DummyVecEnv deep-copies every info at every step: the path that broke on the live infoset
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=128, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [32]}, device="cpu", seed=0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
