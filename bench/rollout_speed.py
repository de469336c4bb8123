"""The batched self-play core's rollout speed on its two game holders, side by side in one run: learner
decisions recorded per second of ``Lockstep.collect`` on the reference engine's games (train/lockstep.py
``Games``) and on the batched engine (train/batch_games.py), same config, network, seeds and opponents.

Rounds alternate the two, so a change in the machine's load hits both; medians are reported.
Run: ``python -m bench.rollout_speed [--config configs/setback_scratch.yaml] [--rollouts 3] [--rounds 3] [KEY=VALUE ...]``.
"""

from __future__ import annotations

import argparse
import time

import torch

from bench.rounds import alternate, median_table


def measure(cfg, batched: bool, rollouts: int) -> float:
    from train.lockstep import Lockstep
    from train.network import PolicyValueNet

    torch.manual_seed(0)
    pi, vf = PolicyValueNet.for_config(cfg).layers()
    lock = Lockstep(cfg, cfg.num_envs, [cfg.seed, 0, 0], batched=batched)
    lock.set_learner(pi, vf)
    lock.add_snapshot(pi, cfg.activation)
    target = cfg.n_steps * cfg.num_envs
    lock.collect(target)  # warm-up: the games' start, and the kernels loaded
    t0 = time.perf_counter()
    steps = sum(len(lock.collect(target)) for _ in range(rollouts))
    return steps / (time.perf_counter() - t0)


def main(argv=None) -> None:
    from train.config import load_config

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/setback_scratch.yaml")
    p.add_argument("--rollouts", type=int, default=3, help="rollouts timed per measurement")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("overrides", nargs="*", help="config settings KEY=VALUE, as for pitch train (e.g. hint=heuristic)")
    args = p.parse_args(argv)
    cfg = load_config(args.config, [*args.overrides, "workers=0", "torch_threads=1"])
    torch.set_num_threads(1)
    print(f"{cfg.variant}: {cfg.num_envs} games, rollouts of {cfg.n_steps * cfg.num_envs} learner decisions, "
          f"hidden {cfg.hidden}, hint {cfg.hint}, opponents {cfg.opponents}, mirror {cfg.mirror}")
    med = alternate({"reference Games": lambda: measure(cfg, False, args.rollouts),
                     "BatchGames": lambda: measure(cfg, True, args.rollouts)}, args.rounds)
    print("\n" + median_table(med, "reference Games", "games", "rollout learner steps/s", args.rounds,
                              base_name="reference"))


if __name__ == "__main__":
    main()
