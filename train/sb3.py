"""The Stable-Baselines3 path (``trainer: sb3``): sb3-contrib's MaskablePPO over a VecEnv of the
single-game self-play env (train/selfplay.py), each env's other sides filled from its own league
(train/league.py). Its MlpPolicy holds the same two MLPs as train/network.py's ``PolicyValueNet``
(``to_sb3``/``from_sb3``), so the warm start, the export and the trainer checkpoint are the PPO
path's: one policy file, one trainer writer (train/resume.py).
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

from pitch_policy import WEIGHTS_FILE, PolicyMLP, make_transform, save_policy

from . import resume as ckpt
from .config import TrainConfig
from .league import League
from .loop import RunInterrupted, warm_start
from .network import ACTIVATIONS, PolicyValueNet, export_policy
from .rundir import RunDir, load_snapshots, policy_card, progress_bar, save_snapshot
from .selfplay import SelfPlayEnv
from .stop import Interrupted, StopFlag


# ---------------------------------------------------------------------- building blocks
def make_env(cfg: TrainConfig, index: int):
    """A thunk building self-play env ``index`` (each with its own league, so workers need no sharing)."""
    def thunk():
        torch.set_num_threads(1)
        rules = cfg.resolved_rules()
        league = League(rules, cfg.opponents, cfg.mirror, cfg.snapshot_pool, seed=cfg.seed * 1000 + index,
                        observation=cfg.observation, hint=cfg.hint)
        return SelfPlayEnv(rules, league, cfg.reward, cfg.win_bonus, seed=cfg.seed * 1000 + index,
                           transform=make_transform(cfg.observation, rules), hint=cfg.hint)
    return thunk


def make_vec_env(cfg: TrainConfig):
    thunks = [make_env(cfg, i) for i in range(cfg.num_envs)]
    venv = SubprocVecEnv(thunks, start_method="fork") if cfg.vec_env == "subproc" else DummyVecEnv(thunks)
    return VecMonitor(venv)


def new_model(cfg: TrainConfig, venv):
    """MaskablePPO with the config's PPO settings; its MlpPolicy is ``PolicyValueNet``'s shape."""
    from sb3_contrib import MaskablePPO

    policy_kwargs = dict(net_arch=dict(pi=list(cfg.hidden), vf=list(cfg.hidden)),
                         activation_fn=ACTIVATIONS[cfg.activation])
    return MaskablePPO(
        "MlpPolicy", venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm,
        policy_kwargs=policy_kwargs, seed=cfg.seed, device="cpu", verbose=0,
    )


def network_of(model, cfg: TrainConfig) -> PolicyValueNet:
    """The model's weights as the project's network (what every export goes through)."""
    return PolicyValueNet.for_config(cfg).from_sb3(model.policy)


def model_policy(model, cfg: TrainConfig) -> PolicyMLP:
    return export_policy(network_of(model, cfg), cfg)


def add_snapshot(venv, run: RunDir, policy: PolicyMLP, cfg: TrainConfig, steps: int) -> None:
    """Freeze the learner into every env's league, and keep it on disk so --resume restores it."""
    venv.env_method("add_snapshot", [(w, b) for w, b in policy.layers], policy.activation)
    save_snapshot(run, policy, cfg, steps)


# ---------------------------------------------------------------------- the run directory
def save_checkpoint(run: RunDir, model, cfg: TrainConfig, state: dict, steps: int) -> None:
    """Policy, trainer state and state.json as one set (train/resume.py); ``steps`` counts only the
    learner decisions the weights were trained on (a rollout cut short by a signal is not)."""
    policy = model_policy(model, cfg)

    def write(directory: Path) -> None:
        save_policy(directory / WEIGHTS_FILE, policy, policy_card(cfg, policy, steps))
        ckpt.save_trainer(directory, model.policy, model.policy.optimizer, steps, state, model._n_updates,
                          model._episode_num)

    ckpt.write_checkpoint(run.path, steps, write)


def load_checkpoint(found: Path, model) -> dict:
    state = ckpt.load_trainer(found, model.policy, model.policy.optimizer)
    model.num_timesteps = int(state["steps"])
    model._n_updates, model._episode_num = state["trainer"]["n_updates"], state["trainer"]["episode_num"]
    return state


def tensorboard_logger(run: RunDir, steps: int) -> Logger:
    """SB3's TensorBoard logger; on resume, TensorBoard drops the events of the killed session logged
    after ``steps`` (the checkpoint), so the curves do not overlap."""
    fmt = TensorBoardOutputFormat.__new__(TensorBoardOutputFormat)
    from torch.utils.tensorboard import SummaryWriter

    fmt.writer = SummaryWriter(log_dir=str(run.tb), purge_step=steps if steps > 0 else None)
    fmt._is_closed = False
    return Logger(str(run.tb), [fmt])


# ---------------------------------------------------------------------- the callback
class Progress(BaseCallback):
    """Snapshots into the pool, checkpoints, evaluations, training statistics, the progress bar, and
    a stop at the next step once a signal arrived (``stop``)."""

    def __init__(self, cfg: TrainConfig, run: RunDir, state: dict, total: int, show_progress: bool,
                 started: float, stop: StopFlag | None = None):
        super().__init__()
        self._started = started  # wall clock of this session's start (imitation included)
        self.cfg, self.run, self.state, self.total = cfg, run, state, total
        self.show_progress = show_progress
        self.stop = stop
        self._episodes = []
        self._t0 = time.perf_counter()
        self._steps0 = None
        self._bar = None
        self.trained = None  # learner decisions the weights have been trained on
        self.cut = False  # learn() was stopped inside a rollout (whose steps were never trained on)

    def _on_training_start(self) -> None:
        self._steps0 = self.trained = self.num_timesteps
        self._t_rollout = time.perf_counter()
        self._steps_rollout = self.num_timesteps
        if self.show_progress:
            self._bar = progress_bar("training", "steps")
            self._bar.start()
            self._task = self._bar.add_task("train", total=self.total, completed=self.num_timesteps, note="")

    def _on_rollout_start(self) -> None:
        # every step collected so far has been trained on: the only point a checkpoint counts them all
        self.trained = self.num_timesteps
        if self.trained >= self.state["next_checkpoint"]:
            self.state["next_checkpoint"] = self.trained + self.cfg.checkpoint_every
            self.checkpoint(self.trained)

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode_stats" in info:
                self._episodes.append(info["episode_stats"])
        n = self.num_timesteps
        st = self.state
        if n >= st["next_snapshot"]:
            add_snapshot(self.training_env, self.run, model_policy(self.model, self.cfg), self.cfg, n)
            st["next_snapshot"] = n + self.cfg.snapshot_every
        if self.cfg.eval_every and n >= st["next_eval"]:
            self.evaluate(n)
            st["next_eval"] = n + self.cfg.eval_every
        if self._bar is not None:
            self._bar.update(self._task, completed=min(n, self.total))
        self.cut = bool(self.stop)
        return not self.cut  # False ends learn() before the cut-short rollout is trained on

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        dt = now - self._t_rollout
        if dt > 0:
            self.logger.record("pitch/learner_steps_per_s", (self.num_timesteps - self._steps_rollout) / dt)
        self._t_rollout, self._steps_rollout = now, self.num_timesteps
        eps = self._episodes
        if eps:
            turns = sum(e["bid_turns"] for e in eps)
            bids = sum(e["bids"] for e in eps)
            self.logger.record("pitch/bids_made_pct", 100.0 * bids / max(turns, 1))
            self.logger.record("pitch/average_bid", sum(e["bid_sum"] for e in eps) / max(bids, 1))
            self.logger.record("pitch/train_win_rate", float(np.mean([e["won"] for e in eps])))
            # games stopped at max_hands unwon: a seat blocking the auction shows here first
            self.logger.record("pitch/truncated_pct", 100.0 * float(np.mean([e["truncated"] for e in eps])))
            self._episodes = []
        if self._bar is not None:
            sps = (self.num_timesteps - self._steps0) / max(now - self._t0, 1e-9)
            self._bar.update(self._task, note=f"{sps:,.0f} steps/s")

    def _on_training_end(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def checkpoint(self, steps: int) -> None:
        self.state["wall_time"] = self.state.get("wall_time_before", 0.0) + (time.perf_counter() - self._started)
        save_checkpoint(self.run, self.model, self.cfg, self.state, steps)

    def evaluate(self, steps: int) -> None:
        from .evaluate import log_evaluation

        log_evaluation(self.cfg, self.run, model_policy(self.model, self.cfg), steps, self.logger, self.stop)
        self.state["last_eval"] = steps


# ---------------------------------------------------------------------- the run
def train(cfg: TrainConfig, run: RunDir, started: float, show_progress: bool) -> Path:
    """Train (or resume) ``run`` with MaskablePPO; called by train/run.py ``train`` once the run
    directory is opened. SIGINT/SIGTERM save a checkpoint and raise RunInterrupted."""
    torch.set_num_threads(cfg.torch_threads)
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    with StopFlag() as stop:
        venv = make_vec_env(cfg)
        try:
            model = new_model(cfg, venv)
            found = ckpt.current(run.path)
            if found is not None:
                state = ckpt.check_schedule(load_checkpoint(found, model), found)
                state = {k: v for k, v in state.items() if k not in ("steps", "trainer")}
                state["wall_time_before"] = state.get("wall_time", 0.0)
                for policy in load_snapshots(run, cfg):
                    venv.env_method("add_snapshot", policy.layers, policy.activation)
                venv.seed(cfg.seed + 7919 * (1 + model.num_timesteps))  # other deals than the first session's
            else:
                state = {"next_snapshot": cfg.snapshot_every, "next_checkpoint": cfg.checkpoint_every,
                         "next_eval": cfg.eval_every or cfg.total_steps + 1, "last_eval": -1, "wall_time_before": 0.0}
                try:
                    if cfg.imitate or cfg.imitate_data:
                        net = network_of(model, cfg)
                        state["imitation"] = warm_start(cfg, net, run, stop, show_progress)
                        net.to_sb3(model.policy)
                except Interrupted:
                    raise RunInterrupted(f"interrupted while warming up; the recorded chunks are kept in {run.imitate}: "
                                         f"continue with --resume {run.path}") from None
                add_snapshot(venv, run, model_policy(model, cfg), cfg, 0)  # the league's "self" needs a learner
            callback = Progress(cfg, run, state, cfg.total_steps, show_progress, started, stop)
            if found is None:
                callback.init_callback(model)
                callback.checkpoint(0)  # the warm start is never done twice
            steps = model.num_timesteps
            model.set_logger(tensorboard_logger(run, steps))
            if cfg.total_steps > steps and not stop:
                model.learn(cfg.total_steps - steps, callback=callback, reset_num_timesteps=False, progress_bar=False)
            else:
                callback.init_callback(model)
            if not callback.cut:
                callback.trained = model.num_timesteps
            callback.checkpoint(callback.trained)
            if stop:
                raise RunInterrupted(f"interrupted: checkpoint at {callback.trained:,} steps saved in {run.checkpoint}; "
                                     f"continue with --resume {run.path}")
            # evaluate the final policy, after saving it, unless an evaluation ran within the last rollout
            if callback.trained - state.get("last_eval", -1) >= cfg.n_steps * cfg.num_envs:
                callback.evaluate(callback.trained)
        finally:
            venv.close()
    return run.path
