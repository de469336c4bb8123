"""Each RL library's own documented loop, run on pitch_env with nothing but the env id changed.

Every function plays ``steps`` agent steps of one variant and returns (steps, seconds); the tests
in this directory assert they ran, and ``python -m interop.loops`` prints steps/s for docs/interop.md.
Needs the ``[interop]`` extra (``make interop`` builds .venv-interop with it).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import pitch_env

# max_hands=2 so that a few hundred steps cross episode ends and every library's reset path runs;
# illegal_action="raise" so that a library sending an unmasked action fails loudly.
OPTIONS = {"max_hands": 2, "illegal_action": "raise"}
STEPS = 300


def make(variant: str):
    import pettingzoo

    return pettingzoo.make("aec", f"pitch/{variant}-v0", **OPTIONS)


def _pick(rng, mask) -> int:
    legal = np.flatnonzero(mask)
    return int(rng.choice(legal)) if len(legal) else 0  # 0 for a seat that is not to move (ignored)


def sb3_tutorial(variant: str, steps: int = 256):
    """PettingZoo's SB3 action-masking tutorial (tutorials/SB3/connect_four): its wrapper
    (interop/sb3_tutorial.py, which tests/test_env_copies.py trains through in make test), ActionMasker,
    MaskablePPO.learn; one policy plays every seat."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    from interop.sb3_tutorial import SB3ActionMaskWrapper

    env = SB3ActionMaskWrapper(make(variant))
    env.reset(seed=0)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=128, batch_size=64, n_epochs=1, device="cpu", seed=0)
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model.num_timesteps, time.perf_counter() - start


def tianshou_collector(variant: str, steps: int = STEPS, vector: str = "dummy"):
    """Tianshou 2.x: PettingZooEnv + MultiAgentPolicy of masked random policies + Collector storing
    into a VectorReplayBuffer, over DummyVectorEnv or SubprocVectorEnv (2 envs)."""
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, SubprocVectorEnv

    factory = _TianshouFactory(variant)
    probe = factory()
    policy = MultiAgentPolicy({agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm(probe.action_space).policy
                               for agent in probe.agents})
    vector_class = {"dummy": DummyVectorEnv, "subproc": SubprocVectorEnv}[vector]
    envs = vector_class([factory, factory])
    try:
        collector = Collector(policy, envs, VectorReplayBuffer(4 * steps, 2))
        collector.reset()
        start = time.perf_counter()
        result = collector.collect(n_step=steps)
        seconds = time.perf_counter() - start
    finally:
        envs.close()
    assert result.n_collected_steps >= steps and result.n_collected_episodes >= 1, result
    return result.n_collected_steps, seconds


class _TianshouFactory:
    """A picklable env factory (SubprocVectorEnv sends it to worker processes)."""

    def __init__(self, variant: str):
        self.variant = variant

    def __call__(self):
        from tianshou.env import PettingZooEnv

        return PettingZooEnv(make(self.variant))


def torchrl_rollout(variant: str, steps: int = STEPS):
    """TorchRL: PettingZooWrapper(use_mask=True), ``check_env_specs``, then ``env.rollout`` with a
    policy that samples each group's action from its action mask."""
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(make(variant), use_mask=True, seed=0)
    check_env_specs(env)
    generator = torch.Generator().manual_seed(0)

    def masked_random(td):
        for group in env.group_map:
            mask = td[group, "action_mask"]
            weights = mask.float() + (~mask.any(-1, keepdim=True)).float()  # a seat not to move: any
            td[group, "action"] = torch.multinomial(weights.flatten(0, -2), 1, generator=generator).view(mask.shape[:-1])
        return td

    start = time.perf_counter()
    rollout = env.rollout(steps, policy=masked_random, break_when_any_done=False)
    seconds = time.perf_counter() - start
    assert rollout.batch_size[0] == steps and rollout["next", "done"].any()
    env.close()
    return steps, seconds


def supersuit_vectorize_aec(variant: str, steps: int = STEPS, num_envs: int = 3):
    """SuperSuit ``vectorize_aec_env_v0``: copies of the env (through cloudpickle) stepped together."""
    import supersuit

    venv = supersuit.vectorize_aec_env_v0(make(variant), num_envs)
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for _ in range(steps):
        obs, *_ = venv.last()
        venv.step(np.array([_pick(rng, o["action_mask"]) for o in obs]))
    seconds = time.perf_counter() - start
    return steps * num_envs, seconds


def supersuit_concat_parallel(variant: str, steps: int = STEPS, num_envs: int = 2):
    """PettingZoo ``turn_based_aec_to_parallel``, then SuperSuit ``pettingzoo_env_to_vec_env_v1`` +
    ``concat_vec_envs_v1`` (a gymnasium vector env of every seat of every copy)."""
    import supersuit
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    parallel = turn_based_aec_to_parallel(make(variant))
    vec = supersuit.concat_vec_envs_v1(supersuit.pettingzoo_env_to_vec_env_v1(parallel), num_envs,
                                       num_cpus=1, base_class="gymnasium")
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    start = time.perf_counter()
    for _ in range(steps):
        obs, _, terminated, truncated, _ = vec.step(np.array([_pick(rng, m) for m in obs["action_mask"]]))
        ended += int(np.any(terminated | truncated))
    seconds = time.perf_counter() - start
    vec.close()
    assert ended, "no episode ended: the reset path was not exercised"
    return steps, seconds


def parallel_api(variant: str, steps: int = STEPS):
    """PettingZoo ``parallel_api_test`` on ``turn_based_aec_to_parallel(env)``."""
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    start = time.perf_counter()
    parallel_api_test(turn_based_aec_to_parallel(make(variant)), num_cycles=steps)
    return steps, time.perf_counter() - start


def openspiel_random_sim(variant: str, sims: int = 2):
    """OpenSpiel ``pyspiel.random_sim_test`` with serialization (it clones and checks every state)."""
    import pyspiel

    import pitch_env.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game(f"python_pitch_{variant}", {"max_hands": OPTIONS["max_hands"]})
    start = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
    return sims, time.perf_counter() - start


def openspiel_ismcts_match(variant: str, games: int = 1, simulations: int = 10):
    """OpenSpiel's ISMCTS bot (random rollouts, worlds from ``resample_from_infostate``) in seat 0
    against random play, one-hand games; returns (decisions of the search bot, seconds)."""
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import pitch_env.openspiel  # noqa: F401

    game = pyspiel.load_game(f"python_pitch_{variant}", {"max_hands": 1})
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                           max_simulations=simulations, random_state=rng)
    decisions = 0
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            elif state.current_player() == 0:
                state.apply_action(bot.step(state))
                decisions += 1
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert abs(sum(state.returns())) < 1e-9
    assert decisions
    return decisions, time.perf_counter() - start


LOOPS = {
    "sb3 MaskablePPO.learn (PettingZoo tutorial wrapper)": sb3_tutorial,
    "tianshou Collector, DummyVectorEnv x2": lambda v: tianshou_collector(v, vector="dummy"),
    "tianshou Collector, SubprocVectorEnv x2": lambda v: tianshou_collector(v, vector="subproc"),
    "torchrl check_env_specs + masked rollout": torchrl_rollout,
    "supersuit vectorize_aec_env_v0 x3": supersuit_vectorize_aec,
    "supersuit concat_vec_envs_v1 (parallel) x2": supersuit_concat_parallel,
    "pettingzoo parallel_api_test (cycles)": parallel_api,
    "openspiel random_sim_test (games)": openspiel_random_sim,
    "openspiel ISMCTS(10 sims) vs random (search decisions)": openspiel_ismcts_match,
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, help="run only loops whose label contains this text")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"{'library loop':56} {'variant':10} {'steps':>6} {'steps/s':>9}")
    for label, loop in LOOPS.items():
        if args.only and args.only not in label:
            continue
        for variant in pitch_env.variants():
            steps, seconds = loop(variant)
            print(f"{label:56} {variant:10} {steps:6} {steps / seconds:9,.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
