"""The training run, top to bottom: build the self-play envs and MaskablePPO, learn, snapshot, checkpoint.

A run directory holds ``config.yaml`` (resolved), ``tb/`` (TensorBoard), ``snapshots/`` (the frozen
learners of the opponent pool), and ``checkpoint/``: ``policy.safetensors`` (the safe, loadable
policy), ``resume.zip`` (SB3's own state, only for ``--resume``) and ``state.json``.
"""

from __future__ import annotations

import json
import random
import time
from datetime import datetime
from pathlib import Path

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

from pitch_env.actions import ActionLayout
from pitch_env.observer import LAYOUT_VERSION, Observer

from .config import TrainConfig, load_config, save_yaml, to_dict
from pitch_env.policy_input import hint_size
from .opponents import OpponentPool
from pitch_env.policy import PolicyMLP, atomic_write, make_card, make_transform, read_policy, save_policy
from .selfplay import SelfPlayEnv

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


# ---------------------------------------------------------------------- building blocks
def make_env(cfg: TrainConfig, index: int):
    """A thunk building self-play env ``index`` (each with its own pool, so workers need no sharing)."""
    def thunk():
        torch.set_num_threads(1)
        rules = cfg.resolved_rules()
        transform = make_transform(cfg.observation, rules)
        pool = OpponentPool(rules, cfg.opponents, cfg.snapshot_pool, seed=cfg.seed * 1000 + index,
                            transform=transform, hint=cfg.hint)
        return SelfPlayEnv(rules, pool, cfg.reward, cfg.win_bonus, seed=cfg.seed * 1000 + index,
                           transform=transform, hint=cfg.hint)
    return thunk


def make_vec_env(cfg: TrainConfig):
    thunks = [make_env(cfg, i) for i in range(cfg.num_envs)]
    venv = SubprocVecEnv(thunks, start_method="fork") if cfg.vec_env == "subproc" else DummyVecEnv(thunks)
    return VecMonitor(venv)


def new_model(cfg: TrainConfig, venv):
    from sb3_contrib import MaskablePPO

    policy_kwargs = dict(net_arch=dict(pi=list(cfg.hidden), vf=list(cfg.hidden)),
                         activation_fn=ACTIVATIONS[cfg.activation])
    return MaskablePPO(
        "MlpPolicy", venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm,
        policy_kwargs=policy_kwargs, seed=cfg.seed, device="cpu", verbose=0,
    )


def export_policy(model, cfg: TrainConfig) -> PolicyMLP:
    """The learner's policy head as numpy layers (the features extractor is a plain flatten)."""
    linears = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(model.policy.action_net)
    return PolicyMLP([(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy())
                      for m in linears], cfg.activation, hint=cfg.hint)


def policy_card(cfg: TrainConfig, policy: PolicyMLP, steps: int) -> dict:
    rules = cfg.resolved_rules()
    return make_card(rules, policy, steps, to_dict(cfg), Observer(rules).size, LAYOUT_VERSION,
                     ActionLayout(rules).size, cfg.observation, cfg.hint)


# ---------------------------------------------------------------------- the run directory
class RunDir:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.config = self.path / "config.yaml"
        self.tb = self.path / "tb"
        self.snapshots = self.path / "snapshots"
        self.checkpoint = self.path / "checkpoint"
        self.policy = self.checkpoint / "policy.safetensors"
        self.resume_zip = self.checkpoint / "resume.zip"
        self.state = self.checkpoint / "state.json"


def write_text_atomic(path: Path, text: str) -> None:
    atomic_write(path, lambda tmp: Path(tmp).write_text(text))


def save_checkpoint(run: RunDir, model, cfg: TrainConfig, state: dict) -> None:
    """Policy, SB3 resume state, then state.json last: state.json names a complete checkpoint."""
    steps = int(model.num_timesteps)
    policy = export_policy(model, cfg)
    save_policy(run.policy, policy, policy_card(cfg, policy, steps))
    atomic_write(run.resume_zip, lambda tmp: model.save(tmp))
    write_text_atomic(run.state, json.dumps(dict(state, steps=steps), indent=1))


# ---------------------------------------------------------------------- the callback
class Progress(BaseCallback):
    """Snapshots into the pool, checkpoints, evaluations, training statistics and the progress bar."""

    def __init__(self, cfg: TrainConfig, run: RunDir, state: dict, total: int, show_progress: bool,
                 started: float):
        super().__init__()
        self._started = started  # wall clock of this session's start (imitation included)
        self.cfg, self.run, self.state, self.total = cfg, run, state, total
        self.show_progress = show_progress
        self._episodes = []
        self._t0 = time.perf_counter()
        self._steps0 = None
        self._bar = None

    def _on_training_start(self) -> None:
        self._steps0 = self.num_timesteps
        self._t_rollout = time.perf_counter()
        self._steps_rollout = self.num_timesteps
        if self.show_progress:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeRemainingColumn

            self._bar = Bar(TextColumn("training"), BarColumn(), MofNCompleteColumn(), TextColumn("steps"),
                            TimeRemainingColumn(), TextColumn("{task.fields[note]}"), transient=False)
            self._bar.start()
            self._task = self._bar.add_task("train", total=self.total, completed=self.num_timesteps, note="")

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode_stats" in info:
                self._episodes.append(info["episode_stats"])
        n = self.num_timesteps
        st = self.state
        if n >= st["next_snapshot"]:
            add_snapshot(self.training_env, self.run, export_policy(self.model, self.cfg), self.cfg, n)
            st["next_snapshot"] = n + self.cfg.snapshot_every
        if self.cfg.eval_every and n >= st["next_eval"]:
            self._evaluate()
            st["next_eval"] = n + self.cfg.eval_every
        if n >= st["next_checkpoint"]:
            st["next_checkpoint"] = n + self.cfg.checkpoint_every
            self._checkpoint()
        if self._bar is not None:
            self._bar.update(self._task, completed=min(n, self.total))
        return True

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
            self._episodes = []
        if self._bar is not None:
            sps = (self.num_timesteps - self._steps0) / max(now - self._t0, 1e-9)
            self._bar.update(self._task, note=f"{sps:,.0f} steps/s")

    def _on_training_end(self) -> None:
        if self._bar is not None:
            self._bar.stop()

    def _checkpoint(self) -> None:
        self.state["wall_time"] = self.state.get("wall_time_before", 0.0) + (time.perf_counter() - self._started)
        save_checkpoint(self.run, self.model, self.cfg, self.state)

    def _evaluate(self) -> None:
        from .evaluate import evaluate_policy

        policy = export_policy(self.model, self.cfg)
        path = self.run.checkpoint / "eval.safetensors"
        save_policy(path, policy, policy_card(self.cfg, policy, self.num_timesteps))
        for opponent in self.cfg.eval_opponents:
            res = evaluate_policy(path, self.cfg.resolved_rules(), opponent, self.cfg.eval_games, seed=self.cfg.seed)
            self.logger.record(f"eval/win_rate_vs_{_tag(opponent)}", res["win_rate"])
            self.logger.record(f"eval/win_rate_low_vs_{_tag(opponent)}", res["low"])
        self.logger.dump(self.num_timesteps)
        self.state["last_eval"] = self.num_timesteps


def _tag(spec: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in spec)


def add_snapshot(venv, run: RunDir, policy: PolicyMLP, cfg: TrainConfig, steps: int) -> None:
    """Freeze the learner into every env's pool, and keep it on disk so --resume restores the pool."""
    layers = [(w, b) for w, b in policy.layers]
    venv.env_method("add_snapshot", layers, policy.activation)  # the env's pool gives it the transform and hint
    save_policy(run.snapshots / f"{steps:012d}.safetensors", policy, policy_card(cfg, policy, steps))
    for old in sorted(run.snapshots.glob("*.safetensors"))[:-cfg.snapshot_pool]:
        old.unlink()


def warm_start(cfg: TrainConfig, model, run: RunDir) -> dict:
    """Fit the fresh model to the teacher's recorded play (train/imitate.py); the demonstrations are
    kept as ``imitate.npz`` in the run directory, reusable by another run through ``imitate_data``."""
    from .imitate import Demos, collect, load_demos, pretrain, save_demos

    rules = cfg.resolved_rules()
    if cfg.imitate_data:
        size = ActionLayout(rules).size
        paths = [cfg.imitate_data] if isinstance(cfg.imitate_data, str) else cfg.imitate_data
        demos = Demos.concat([load_demos(p, Observer(rules).size + hint_size(cfg.hint, size), size) for p in paths])
        source = " + ".join(paths)
    else:
        t0 = time.perf_counter()
        common = dict(rules=rules, spec=cfg.imitate, transform=make_transform(cfg.observation, rules), seed=cfg.seed,
                      against=cfg.imitate_against, workers=cfg.imitate_workers, gamma=cfg.gamma,
                      reward=cfg.reward, win_bonus=cfg.win_bonus, hint=cfg.hint)
        demos, source = collect(decisions=cfg.imitate_decisions, **common), cfg.imitate
        if cfg.imitate_bids:
            demos = Demos.concat([demos, collect(decisions=cfg.imitate_bids, phases=("bid",), **common)])
            source += f" + {cfg.imitate_bids:,} bids"
        save_demos(run.path / "imitate.npz", demos)
        source += f" ({time.perf_counter() - t0:,.0f} s to record)"
    acc = pretrain(model, demos, cfg.imitate_epochs, lr=cfg.imitate_lr,
                   logger=configure(str(run.tb / "imitate"), ["tensorboard"]))
    print(f"imitation of {source}: {len(demos):,} decisions, training accuracy {acc:.1%}")
    return {"source": source, "decisions": len(demos), "accuracy": acc}


# ---------------------------------------------------------------------- the entry point
def default_run_name(config_path) -> str:
    stem = Path(config_path).stem if config_path else "default"
    return f"{stem}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"


def train(cfg: TrainConfig | None = None, config_path=None, overrides=(), resume=None,
          show_progress: bool = True) -> Path:
    """Train (or resume) a run; returns its directory. The final checkpoint is always written."""
    if resume is not None:
        run = RunDir(resume)
        if not run.state.is_file() or not run.resume_zip.is_file():
            raise FileNotFoundError(f"--resume {str(resume)!r}: no checkpoint there (expected "
                                    f"{run.state} and {run.resume_zip}); give a run directory under runs/")
        cfg = load_config(run.config, overrides)
        state = json.loads(run.state.read_text())
    else:
        if cfg is None:
            cfg = load_config(config_path, overrides)
        name = cfg.run_name or default_run_name(config_path)
        cfg.run_name = name
        run = RunDir(Path(cfg.runs_dir) / name)
        if run.state.exists():
            raise FileExistsError(f"run directory {str(run.path)!r} already holds a run; use --resume "
                                  f"{run.path} to continue it, or another run_name")
        state = {"next_snapshot": cfg.snapshot_every, "next_checkpoint": cfg.checkpoint_every,
                 "next_eval": cfg.eval_every or cfg.total_steps + 1, "last_eval": -1}
    started = time.perf_counter()
    run.path.mkdir(parents=True, exist_ok=True)
    write_text_atomic(run.config, save_yaml(cfg))

    torch.set_num_threads(cfg.torch_threads)
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    venv = make_vec_env(cfg)
    try:
        if resume is not None:
            from sb3_contrib import MaskablePPO

            model = MaskablePPO.load(run.resume_zip, env=venv, device="cpu")
            for path in sorted(run.snapshots.glob("*.safetensors"))[-cfg.snapshot_pool:]:
                policy, _ = read_policy(path)
                venv.env_method("add_snapshot", policy.layers, policy.activation)
            state["wall_time_before"] = state.get("wall_time", 0.0)
        else:
            model = new_model(cfg, venv)
            state["wall_time_before"] = 0.0
            if cfg.imitate or cfg.imitate_data:
                state["imitation"] = warm_start(cfg, model, run)
            # The pool's "self" needs a learner before the first game is dealt.
            add_snapshot(venv, run, export_policy(model, cfg), cfg, 0)
        model.set_logger(configure(str(run.tb), ["tensorboard"]))
        remaining = cfg.total_steps - model.num_timesteps
        callback = Progress(cfg, run, state, cfg.total_steps, show_progress, started)
        if remaining > 0:
            model.learn(remaining, callback=callback, reset_num_timesteps=False, progress_bar=False)
        else:
            callback.init_callback(model)
        # evaluate the final policy unless an evaluation ran within the last rollout
        if model.num_timesteps - state.get("last_eval", -1) >= cfg.n_steps * cfg.num_envs:
            callback._evaluate()
        callback._checkpoint()
    finally:
        venv.close()
    return run.path
