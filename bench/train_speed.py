"""Training speed: MaskablePPO steps/s on the self-play env vs on a trivial env of the same sizes.

The trivial env returns a constant observation of the same size and a fixed legal mask, so its
figure is the learner's own cost (rollout inference + PPO updates); the ratio is the env's overhead.
Run: ``python -m bench.train_speed [--config configs/quick.yaml] [--steps 16384]``.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor


class TrivialEnv(gym.Env):
    """Same observation and action sizes as the game, nothing computed: 77-step episodes, 8 legal actions."""

    def __init__(self, obs_size: int, action_size: int):
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (obs_size,), np.float32)
        self.action_space = gym.spaces.Discrete(action_size)
        self._obs = np.zeros(obs_size, np.float32)
        self._obs[::7] = 1.0
        self._mask = np.zeros(action_size, np.int8)
        self._mask[-8:] = 1
        self._t = 0

    def reset(self, *, seed=None, options=None):
        self._t = 0
        return self._obs, {}

    def step(self, action):
        self._t += 1
        return self._obs, 0.0, self._t >= 77, False, {}

    def action_masks(self):
        return self._mask


def measure(cfg, venv, steps: int) -> float:
    from train.loop import new_model

    model = new_model(cfg, venv)
    model.learn(cfg.n_steps * cfg.num_envs)  # warm-up: first rollout and update
    t0 = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return (model.num_timesteps - cfg.n_steps * cfg.num_envs) / (time.perf_counter() - t0)


def main(argv=None) -> None:
    import statistics
    import tempfile

    from pitch_env.actions import ActionLayout
    from pitch_env.observer import Observer
    from train.config import load_config
    from pitch_env.policy_input import hint_size
    from train.loop import RunDir, add_snapshot, export_policy, make_vec_env, new_model

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default="configs/quick.yaml")
    p.add_argument("--steps", type=int, default=16384)
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds; medians reported (the cores are shared)")
    args = p.parse_args(argv)
    cfg = load_config(args.config)
    torch.set_num_threads(cfg.torch_threads)
    rules = cfg.resolved_rules()
    action_size = ActionLayout(rules).size
    obs_size = Observer(rules).size + hint_size(cfg.hint, action_size)  # what the network reads
    print(f"{cfg.variant}: observation {obs_size}, actions {action_size}, {cfg.num_envs} envs, "
          f"n_steps {cfg.n_steps}, hidden {cfg.hidden}, opponents {cfg.opponents}")

    def trivial():
        return measure(cfg, VecMonitor(DummyVecEnv([lambda: TrivialEnv(obs_size, action_size)] * cfg.num_envs)),
                       args.steps)

    def selfplay(kind):
        cfg.vec_env = kind
        venv = make_vec_env(cfg)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                add_snapshot(venv, RunDir(tmp), export_policy(new_model(cfg, venv), cfg), cfg, 0)
                return measure(cfg, venv, args.steps)
        finally:
            venv.close()

    runs = {"trivial": [], "dummy": [], "subproc": []}
    for r in range(args.rounds):  # alternate, so a change in the machine's load hits every kind
        runs["trivial"].append(trivial())
        runs["dummy"].append(selfplay("dummy"))
        runs["subproc"].append(selfplay("subproc"))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.0f}" for k, v in runs.items()))
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(f"trivial env (DummyVecEnv):   {med['trivial']:8.0f} steps/s (median of {args.rounds})")
    for kind in ("dummy", "subproc"):
        print(f"self-play env ({kind:7s}):   {med[kind]:8.0f} steps/s  ({100 * med[kind] / med['trivial']:.0f}% of trivial)")


if __name__ == "__main__":
    main()
