"""RLlib's speed on this machine (``backend: rllib``, docs/rllib.md): learner decisions sampled per second
at 0, 1, 2 … env runners, and whole training iterations (sampling + PPO update), beside the SB3 path's
training steps/s with the same network and PPO settings.

- *sampled/s*: learner decisions collected per second by the env runners, as PPO collects them
  (``synchronous_parallel_sample``), weights fixed; with 0 env runners the driver samples. The
  league's players (snapshots, heuristic, random) move inside each env step.
- *trained/s*: learner decisions per second of ``algo.train()`` (sampling, then the update, in turn):
  the figure comparable to the SB3 path's (``bench/train_speed.py``'s measure: MaskablePPO on the
  self-play env, whose opponents move inside the env too).

Needs the ``[rllib]`` extra. Run on a quiet machine (other load skews every figure):
``python -m bench.rllib_speed --config configs/setback_rllib.yaml --runners 0 1 2``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time


def measure_rllib(cfg, runners: int, batches: int, iterations: int) -> dict:
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    from train.league import LEARNER
    from train.rllib.loop import build, callbacks_of, train_batch

    algo = build(dataclasses.replace(cfg, num_env_runners=runners), cfg.seed)
    try:
        callbacks_of(algo).snapshot(algo)  # the league's "self" needs a learner, as at a run's start
        algo.train()  # warm-up: actors up, first weights out, first update
        trained = []  # first: the env runners' sample counts of an iteration must be its own
        for _ in range(iterations):
            t0 = time.perf_counter()
            result = algo.train()
            trained.append(result["env_runners"]["num_module_steps_sampled"].get(LEARNER, 0)
                           / (time.perf_counter() - t0))
        split = cost_split(result["env_runners"], cfg.envs_per_env_runner)
        sampled = []
        for _ in range(batches):
            t0 = time.perf_counter()
            episodes = synchronous_parallel_sample(worker_set=algo.env_runner_group, max_env_steps=train_batch(cfg),
                                                   _uses_new_env_runners=True)
            sampled.append(sum(e.env_steps() for e in episodes) / (time.perf_counter() - t0))
    finally:
        algo.stop()
    return {"runners": runners, "envs": cfg.envs_per_env_runner, "sampled": statistics.median(sampled),
            "split": split, "trained": statistics.median(trained)}


def cost_split(er: dict, envs: int) -> dict:
    """RLlib's own timers of one env runner step (mean seconds per call, each call stepping ``envs`` games),
    as milliseconds per learner decision: the game (with the league's moves up to the learner's next
    decision), the two connector pipelines, the module's forward pass."""
    def ms(x) -> float:
        return 1000.0 * float(x or 0.0) / envs

    return {"game": ms(er.get("env_step_timer")),
            "env→module": ms(er.get("env_to_module_connector", {}).get("connector_pipeline_timer")),
            "forward": ms(er.get("rlmodule_inference_timer")),
            "module→env": ms(er.get("module_to_env_connector", {}).get("connector_pipeline_timer"))}


def measure_sb3(cfg, steps: int) -> float:
    import tempfile

    from bench.train_speed import measure
    from train.rundir import RunDir
    from train.sb3 import add_snapshot, make_vec_env, model_policy, new_model

    venv = make_vec_env(cfg)
    try:
        with tempfile.TemporaryDirectory() as tmp:  # the league's "self" needs a snapshot, as at a run's start
            add_snapshot(venv, RunDir(tmp), model_policy(new_model(cfg, venv), cfg), cfg, 0)
            return measure(cfg, venv, steps)
    finally:
        venv.close()


def sb3_twin(cfg):
    """The same game, network and PPO settings on the SB3 path (its own keys at their defaults)."""
    from train.config import RLLIB_KEYS

    return dataclasses.replace(cfg, backend="sb3", mirror=0.0, **dict(RLLIB_KEYS))


def main(argv=None) -> None:
    import ray
    import torch

    from train.config import load_config
    from train.rllib.loop import connect

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="configs/setback_rllib.yaml")
    p.add_argument("--set", dest="overrides", nargs="*", default=[], metavar="KEY=VALUE")
    p.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2], help="env runner counts to measure")
    p.add_argument("--envs", type=int, nargs="+", default=None,
                   help="envs_per_env_runner values to measure at each count (default: the config's)")
    p.add_argument("--batches", type=int, default=5, help="train batches sampled per count (median reported)")
    p.add_argument("--iterations", type=int, default=3, help="training iterations per count (median reported)")
    p.add_argument("--sb3-steps", type=int, default=16384, help="learner steps timed on the SB3 path (0: skip)")
    a = p.parse_args(argv)
    cfg = load_config(a.config, ["backend=rllib", *a.overrides])
    cfg.num_env_runners = max(a.runners)  # the local Ray gets a core for each
    torch.set_num_threads(cfg.torch_threads)  # as a run does: more threads on busy cores spin against each other
    ours = connect(cfg)
    rows = []
    try:
        for n in a.runners:
            for envs in a.envs or [cfg.envs_per_env_runner]:
                rows.append(measure_rllib(dataclasses.replace(cfg, envs_per_env_runner=envs), n, a.batches,
                                          a.iterations))
                print(f"{n} env runners × {envs} envs: {rows[-1]['sampled']:,.0f} sampled/s", flush=True)
    finally:
        if ours:
            ray.shutdown()
    sb3 = measure_sb3(sb3_twin(cfg), a.sb3_steps) if a.sb3_steps else None
    from train.rllib.loop import train_batch

    print(f"\n{cfg.variant}, {cfg.hidden} {cfg.activation}, train batch {train_batch(cfg)} learner decisions, "
          f"opponents {cfg.opponents}, mirror {cfg.mirror}\n")
    print("| path | env runners | envs each | learner sampled/s | per env runner | trained/s (learner) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        per = r["sampled"] / r["runners"] if r["runners"] else r["sampled"]
        print(f"| RLlib | {r['runners']} | {r['envs']} | {r['sampled']:,.0f} | {per:,.0f} | {r['trained']:,.0f} |")
    if sb3 is not None:
        print(f"| SB3 (MaskablePPO, DummyVecEnv) | – | {cfg.num_envs} | – | – | {sb3:,.0f} |")
    print("\nWhere a sampled decision's time goes, ms: one env runner's time per learner decision (1 / its sampled/s), "
          "and RLlib's own timers (running means over the last training iteration) of its parts; the remainder is "
          "the sampling loop's episode and metrics bookkeeping:\n")
    print("| env runners | envs each | ms per decision | game (env step) | env→module | forward | module→env |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        total = 1000.0 / (r["sampled"] / max(r["runners"], 1))
        print(f"| {r['runners']} | {r['envs']} | {total:.2f} | " + " | ".join(f"{v:.2f}" for v in r["split"].values())
              + " |")


if __name__ == "__main__":
    main()
