"""The RLlib backend's run (``backend: rllib``), top to bottom: join or start Ray, build PPO over the
multi-agent env, warm-start, learn iteration by iteration, snapshot (a callback), checkpoint, evaluate.

The learner is the project's network (train/network.py) inside an RLModule, so the run directory is
every trainer's: ``config.yaml``, ``tb/`` (the same scalar names), ``snapshots/``, ``imitate/`` and
``checkpoint`` → ``checkpoints/STEPS/`` holding the exported ``policy.safetensors`` (what
``checkpoint:PATH`` plays) and the trainer state of train/resume.py. ``train`` is called by
train/run.py's ``train`` after the run directory is opened and its config written.
"""

from __future__ import annotations

import math
import os
import signal
import time
from functools import partial
from pathlib import Path

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_RESULTS, NUM_MODULE_STEPS_SAMPLED

from pitch_policy import WEIGHTS_FILE, save_policy

from .. import resume as ckpt
from ..config import TrainConfig
from ..evaluate import log_evaluation
from ..league import LEARNER
from ..loop import RunInterrupted, warm_start
from ..network import PolicyValueNet, export_policy
from ..rundir import RunDir, Scalars, load_snapshots, maybe_bar, policy_card, save_snapshot
from ..stop import Interrupted, StopFlag
from . import checkpoint as rl_ckpt
from .callbacks import PitchCallbacks, to_learner
from .env import PitchMultiAgentEnv, env_config
from .modules import LearnerModule, learner_network, module_state, policy_only

OBJECT_STORE_BYTES = 512 << 20  # a local Ray's shared memory: batches of a few MB pass through it


# ---------------------------------------------------------------------- Ray and the algorithm
def connect(cfg: TrainConfig) -> bool:
    """Join the cluster at ``ray_address``, or start a local Ray with this machine's cores (at least one per
    env runner and learner actor asked for, so none waits for a core); True when this process started it."""
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report sent home
    if cfg.ray_address:
        ray.init(address=cfg.ray_address, logging_level="WARNING")
        return True
    cores = max(os.cpu_count() or 1, cfg.num_env_runners + cfg.num_learners)
    # Ray's processes are started with SIGINT blocked (children inherit the mask): a Ctrl-C in the terminal
    # reaches the whole process group, and would stop the env runners mid-iteration; this way only the
    # driver hears it, saves a checkpoint and shuts Ray down.
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        ray.init(num_cpus=cores, include_dashboard=False, object_store_memory=OBJECT_STORE_BYTES,
                 logging_level="WARNING")
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return True


def train_batch(cfg: TrainConfig) -> int:
    """Learner decisions sampled per update (``train_batch_size``; 0: n_steps × num_envs, as on every path)."""
    return cfg.train_batch_size or cfg.n_steps * cfg.num_envs


def build(cfg: TrainConfig, seed: int):
    """The PPO algorithm: one learner module for every side the league gives the learner, the other
    sides played inside the env (train/rllib/env.py), the other trainers' hyperparameters."""
    learners = max(cfg.num_learners, 1)
    config = (
        PPOConfig()
        .environment(PitchMultiAgentEnv, env_config=env_config(cfg),
                     disable_env_checking=True)  # the checker steps random (illegal) actions
        .env_runners(num_env_runners=cfg.num_env_runners, num_envs_per_env_runner=cfg.envs_per_env_runner,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=cfg.num_learners)
        .multi_agent(policies={LEARNER}, policies_to_train=[LEARNER], policy_mapping_fn=to_learner)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: RLModuleSpec(
            module_class=LearnerModule, model_config={"hidden": list(cfg.hidden), "activation": cfg.activation})}))
        .training(lr=cfg.learning_rate, gamma=cfg.gamma, lambda_=cfg.gae_lambda, clip_param=cfg.clip_range,
                  entropy_coeff=cfg.ent_coef, vf_loss_coeff=cfg.vf_coef, grad_clip=cfg.max_grad_norm,
                  grad_clip_by="global_norm", num_epochs=cfg.n_epochs, minibatch_size=cfg.batch_size,
                  train_batch_size_per_learner=max(1, math.ceil(train_batch(cfg) / learners)),
                  use_kl_loss=False, vf_clip_param=float("inf"))  # as the other trainers: no KL term, no value clip
        .callbacks(partial(PitchCallbacks, cfg))
        .debugging(seed=seed, log_level="WARN")
    )
    return config.build_algo()


def callbacks_of(algo) -> PitchCallbacks:
    return next(c for c in algo.callbacks if isinstance(c, PitchCallbacks))


# ---------------------------------------------------------------------- weights in and out
def optimizer_state(algo) -> tuple[str, dict]:
    """(name, torch state dict) of the learner module's optimizer."""
    opts = algo.learner_group.get_state(components="learner/optimizer")["learner"]["optimizer"]
    name = next(n for n, o in opts.items() if o["module_id"] == LEARNER)
    return name, opts[name]["state"]


def set_learner(algo, net: PolicyValueNet, optimizer: tuple[str, dict] | None = None) -> None:
    """Load a network (and optimizer state) into every learner, then its policy into every env runner."""
    weights = module_state(net)
    state = {"rl_module": {LEARNER: weights}}
    if optimizer is not None:
        state["optimizer"] = {optimizer[0]: {"module_id": LEARNER, "state": optimizer[1]}}
    algo.learner_group.set_state({"learner": state})
    algo.env_runner_group.foreach_env_runner(partial(_set_module, LEARNER, policy_only(weights)))


def _set_module(module_id: str, weights: dict, env_runner) -> None:
    module = getattr(env_runner, "module", None)
    if module is not None:
        module[module_id].set_state(weights)


# ---------------------------------------------------------------------- the run
class Run:
    """The run's side of the RLlib algorithm: checkpoints, snapshots on disk, evaluations, TensorBoard."""

    def __init__(self, cfg: TrainConfig, run: RunDir, algo, state: dict, board: Scalars, started: float):
        self.cfg, self.run, self.algo, self.state, self.board = cfg, run, algo, state, board
        self.started = started

    def keep_snapshot(self, net: PolicyValueNet, steps: int) -> None:
        """The callback's ``on_snapshot``: the snapshot on disk, so --resume restores the league."""
        save_snapshot(self.run, export_policy(net, self.cfg), self.cfg, steps)

    def checkpoint(self, steps: int) -> None:
        net = learner_network(self.cfg, self.algo)
        adam = rl_ckpt.torch_optimizer(net, optimizer_state(self.algo)[1])
        policy = export_policy(net, self.cfg)
        self.state["wall_time"] = self.state.get("wall_time_before", 0.0) + (time.perf_counter() - self.started)
        self.state["league"] = callbacks_of(self.algo).state()

        def write(directory: Path) -> None:
            save_policy(directory / WEIGHTS_FILE, policy, policy_card(self.cfg, policy, steps))
            ckpt.save_trainer(directory, net, adam, steps, self.state)

        ckpt.write_checkpoint(self.run.path, steps, write)

    def evaluate(self, steps: int, stop: StopFlag) -> None:
        """Duplicate-deal tournaments of the exported policy, as every trainer's."""
        log_evaluation(self.cfg, self.run, export_policy(learner_network(self.cfg, self.algo), self.cfg), steps,
                       self.board, stop)
        self.state["last_eval"] = steps

    def log(self, result: dict, steps: int, seconds: float) -> float:
        """The iteration's scalars under the other trainers' names; returns the learner decisions per second."""
        b = self.board
        er = result.get(ENV_RUNNER_RESULTS, {})
        learner_steps = er.get(NUM_MODULE_STEPS_SAMPLED, {}).get(LEARNER, 0)
        rate = learner_steps / max(seconds, 1e-9)
        b.record("pitch/learner_steps_per_s", rate)
        pitch = {k: _count(v) for k, v in er.get("pitch", {}).items()}  # sums over the iteration's games
        if pitch.get("sides"):
            b.record("rollout/ep_rew_mean", pitch["return"] / pitch["sides"])
            b.record("pitch/bids_made_pct", 100.0 * pitch["bids"] / max(pitch["bid_turns"], 1))
            b.record("pitch/average_bid", pitch["bid_sum"] / max(pitch["bids"], 1))
            b.record("pitch/truncated_pct", 100.0 * pitch["truncated"] / pitch["sides"])
        if pitch.get("games"):
            b.record("pitch/train_win_rate", pitch["wins"] / pitch["games"])
        learned = result.get(LEARNER_RESULTS, {}).get(LEARNER, {})
        for ours, theirs, sign in (("train/entropy_loss", "entropy", -1.0), ("train/policy_gradient_loss", "policy_loss", 1.0),
                                   ("train/value_loss", "vf_loss", 1.0), ("train/explained_variance", "vf_explained_var", 1.0)):
            if theirs in learned:
                b.record(ours, sign * float(learned[theirs]))
        b.record("train/learning_rate", self.cfg.learning_rate)
        b.dump(steps)
        return rate


def _count(x) -> float:
    """A metric RLlib summed over the iteration: NaN when no game ended in it, which counts as none."""
    x = float(x)
    return x if math.isfinite(x) else 0.0


def train(cfg: TrainConfig, run: RunDir, started: float, show_progress: bool) -> Path:
    """Train (or resume) ``run`` with RLlib; see train/run.py ``train`` for the contract."""
    import torch

    torch.set_num_threads(cfg.torch_threads)
    algo = board = None
    ours = False
    with StopFlag() as stop:
        try:
            found = ckpt.current(run.path)
            warm = imitation = None
            if found is None and (cfg.imitate or cfg.imitate_data):
                # before Ray starts: the recording forks its workers, and no env runner waits on a core meanwhile
                warm = PolicyValueNet.for_config(cfg)
                try:
                    imitation = warm_start(cfg, warm, run, stop, show_progress)
                except Interrupted:
                    raise RunInterrupted(f"interrupted while warming up; the recorded chunks are kept in {run.imitate}: "
                                         f"continue with --resume {run.path}") from None
            ours = connect(cfg)
            salt = 0
            if found is not None:  # a resumed run deals other games than the first session's
                salt = 7919 * (1 + ckpt.read_state(found)["steps"])
            algo = build(cfg, cfg.seed + salt)
            calls = callbacks_of(algo)
            if found is not None:
                state = resume(cfg, run, algo, found)
            else:
                state = {"next_checkpoint": cfg.checkpoint_every, "next_eval": cfg.eval_every or cfg.total_steps + 1,
                         "last_eval": -1, "wall_time_before": 0.0}
            board = Scalars(run.tb, purge_step=calls.steps)
            r = Run(cfg, run, algo, state, board, started)
            calls.on_snapshot = r.keep_snapshot
            if found is None:
                if warm is not None:
                    set_learner(algo, warm)
                    state["imitation"] = imitation
                calls.snapshot(algo)  # the league's "self" needs a learner
                r.checkpoint(0)  # the warm start is never done twice
            learn(cfg, r, calls, stop, show_progress)
            trained = calls.steps
            r.checkpoint(trained)
            if stop:
                raise RunInterrupted(f"interrupted: checkpoint at {trained:,} steps saved in {run.checkpoint}; "
                                     f"continue with --resume {run.path}")
            # evaluate the final policy, after saving it, unless an evaluation ran within the last iteration
            if trained - state.get("last_eval", -1) >= train_batch(cfg):
                r.evaluate(trained, stop)
        finally:
            if board is not None:
                board.close()
            if algo is not None:
                algo.stop()
            if ours:
                ray.shutdown()
    return run.path


def learn(cfg: TrainConfig, r: Run, calls: PitchCallbacks, stop: StopFlag, show: bool) -> None:
    """``algo.train()`` until ``total_steps`` learner decisions are trained on or a signal arrives. Each
    iteration samples, updates, then (callback) snapshots; every sampled decision is trained on."""
    st = r.state
    with maybe_bar(show, "training (rllib)", "steps") as bar:
        task = bar.add_task("train", total=cfg.total_steps, completed=calls.steps, note="")
        while calls.steps < cfg.total_steps and not stop:
            t0 = time.perf_counter()
            result = r.algo.train()
            rate = r.log(result, calls.steps, time.perf_counter() - t0)
            steps = calls.steps
            if steps >= st["next_checkpoint"]:
                st["next_checkpoint"] = steps + cfg.checkpoint_every
                r.checkpoint(steps)
            if cfg.eval_every and steps >= st["next_eval"]:
                r.evaluate(steps, stop)
                st["next_eval"] = steps + cfg.eval_every
            bar.update(task, completed=min(steps, cfg.total_steps), note=f"{rate:,.0f} steps/s")


def resume(cfg: TrainConfig, run: RunDir, algo, found: Path) -> dict:
    """Load the run's own checkpoint (train/resume.py, the one trainer writer) and snapshots into the
    fresh algorithm."""
    name, fresh = optimizer_state(algo)
    net = PolicyValueNet.for_config(cfg)
    adam = rl_ckpt.torch_optimizer(net, fresh)  # the fresh optimizer's settings: what a saved one must fit
    state = ckpt.load_trainer(found, net, adam)
    set_learner(algo, net, (name, rl_ckpt.rllib_optimizer(adam)))
    calls = callbacks_of(algo)
    ckpt.check_schedule(state, found, league=True)
    try:
        calls.load({"steps": state["steps"], "next_snapshot": state["league"]["next_snapshot"]})
        state["wall_time_before"] = float(state.get("wall_time", 0.0))
    except (KeyError, TypeError, ValueError, OverflowError):
        raise ckpt.ResumeError(f"checkpoint {str(found)!r}: state.json's schedule is malformed; the checkpoint "
                               f"is damaged") from None
    for policy in load_snapshots(run, cfg):
        calls.freeze(algo, policy.layers)
    return state
