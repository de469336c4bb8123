"""Training speed, side by side in one run: learner steps/s (decisions trained on per second of
rollout and update) of PPO on the batched self-play core (``trainer: fast``, train/ppo.py) at several worker
counts, of the SB3 path (MaskablePPO on the self-play env, DummyVecEnv and SubprocVecEnv), and of
MaskablePPO on a trivial env of the same sizes, all with the config's network and PPO settings.

The trivial env returns a constant observation of the same size and a fixed legal mask, so its
figure is MaskablePPO's own cost (rollout inference + PPO updates). The SB3 path runs as today's
configs do (``num_envs`` 2, ``n_steps`` 1024, one torch thread); the fast path runs the config as it is.
Run: ``python -m bench.train_speed [--config configs/setback_scratch.yaml] [--steps 65536] [--workers 0 1 2] [--set KEY=VALUE ...]``.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from bench.rounds import alternate, median_table


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
    from train.sb3 import new_model

    model = new_model(cfg, venv)
    model.learn(cfg.n_steps * cfg.num_envs)  # warm-up: first rollout and update
    t0 = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return (model.num_timesteps - cfg.n_steps * cfg.num_envs) / (time.perf_counter() - t0)


def main(argv=None) -> None:
    import tempfile

    from pitch_env.actions import ActionLayout
    from pitch_policy import input_size
    from train.config import load_config
    from train.rundir import RunDir
    from train.sb3 import add_snapshot, make_vec_env, model_policy, new_model

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default="configs/setback_scratch.yaml")
    p.add_argument("--steps", type=int, default=65536, help="learner steps timed per measurement (fast path)")
    p.add_argument("--sb3-steps", type=int, default=16384, help="learner steps timed per measurement (SB3 paths)")
    p.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2], help="worker counts of the fast path")
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds; medians reported (the cores are shared)")
    p.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                   help="config settings, as for pitch train (e.g. --set critic=observation)")
    args = p.parse_args(argv)
    fast_cfg = load_config(args.config, [*args.overrides, "trainer=fast"])
    # The SB3 path trains the same network and PPO settings with SB3's own value head (no oracle critic).
    cfg = load_config(args.config, [*args.overrides, "trainer=sb3", "critic=observation", "workers=0", "mirror=0",
                                    "schedule=[]", "num_envs=2", "n_steps=1024", "torch_threads=1"])
    torch.set_num_threads(cfg.torch_threads)
    rules = cfg.resolved_rules()
    action_size = ActionLayout(rules).size
    obs_size = input_size(rules, cfg.hint)  # what the network reads
    print(f"{cfg.variant}: observation {obs_size}, actions {action_size}, hidden {cfg.hidden}, n_epochs "
          f"{cfg.n_epochs}, batch_size {cfg.batch_size}, opponents {cfg.opponents}; fast path: "
          f"{fast_cfg.num_envs} games, rollouts of {fast_cfg.n_steps * fast_cfg.num_envs}, mirror "
          f"{fast_cfg.mirror}, {fast_cfg.torch_threads} torch threads")

    def trivial():
        torch.set_num_threads(cfg.torch_threads)
        return measure(cfg, VecMonitor(DummyVecEnv([lambda: TrivialEnv(obs_size, action_size)] * cfg.num_envs)),
                       args.sb3_steps)

    def selfplay(kind):
        torch.set_num_threads(cfg.torch_threads)
        cfg.vec_env = kind
        venv = make_vec_env(cfg)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                add_snapshot(venv, RunDir(tmp), model_policy(new_model(cfg, venv), cfg), cfg, 0)
                return measure(cfg, venv, args.sb3_steps)
        finally:
            venv.close()

    kinds = {f"fast, {w} workers": (lambda w=w: measure_fast(fast_cfg, w, args.steps)) for w in args.workers}
    kinds.update({"sb3 trivial env": trivial, "sb3 dummy": lambda: selfplay("dummy"),
                  "sb3 subproc": lambda: selfplay("subproc")})
    med = alternate(kinds, args.rounds)
    print("\n" + median_table(med, "sb3 dummy", "path", "learner steps/s", args.rounds,
                              base_name="SB3 DummyVecEnv"))


def measure_fast(cfg, workers: int, steps: int) -> float:
    """The fast path's learner steps/s: rollouts, advantages and updates as ``train.ppo.learn`` runs
    them, after one warm-up rollout and update (the games' long random start is part of every measurement)."""
    import dataclasses

    from train.lockstep import Collector
    from train.network import PolicyValueNet, export_policy, new_optimizer
    from train.ppo import PPO, advantages, update

    cfg = dataclasses.replace(cfg, workers=workers)
    torch.set_num_threads(cfg.torch_threads)
    net = PolicyValueNet.for_config(cfg)
    opt = new_optimizer(net, cfg.learning_rate)
    ppo = PPO.of(cfg)
    collector = Collector(cfg)

    def iteration() -> int:
        batch = advantages(collector.collect(net.layers(), ppo.rollout), ppo.gamma, ppo.gae_lambda)
        update(net, opt, batch, ppo)
        return len(batch)

    try:
        policy = export_policy(net, cfg)
        collector.add_snapshot(policy.layers, policy.activation)
        iteration()
        done, t0 = 0, time.perf_counter()
        while done < steps:
            done += iteration()
        return done / (time.perf_counter() - t0)
    finally:
        collector.close()


if __name__ == "__main__":
    main()
