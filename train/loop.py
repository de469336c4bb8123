"""The training run, top to bottom: build the self-play envs and MaskablePPO, learn, snapshot, checkpoint.

A run directory holds ``config.yaml`` (resolved), ``tb/`` (TensorBoard), ``snapshots/`` (the frozen
learners of the opponent pool), ``imitate/`` (the warm start's recording, in chunks) and ``checkpoint``,
the current checkpoint: ``policy.safetensors`` (the safe, loadable policy), ``trainer.safetensors`` and
``state.json`` (what ``--resume`` reads; nothing is unpickled: train/resume.py).
"""

from __future__ import annotations

import math
import random
import time
from datetime import datetime
from pathlib import Path

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat, configure
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

from pitch_env.actions import ActionLayout
from pitch_env.observer import Observer
from pitch_policy import WEIGHTS_FILE, make_transform, read_policy, save_policy
from pitch_policy import hint_size

from . import fast as fast_path
from . import resume as ckpt
from . import runfiles
from .config import ConfigError, TrainConfig, load_config, load_resume_config, new_run_dir, plain_name
# The run directory's pieces are train/rundir.py's; named here too for the callers that know this module.
from .rundir import RunDir, add_snapshot, export_policy, maybe_bar, policy_card, progress_bar, tag  # noqa: F401
from .opponents import OpponentPool
from .selfplay import SelfPlayEnv
from .stop import Interrupted, StopFlag

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


# ---------------------------------------------------------------------- the run directory
def save_checkpoint(run: RunDir, model, cfg: TrainConfig, state: dict, steps: int) -> None:
    """Policy, trainer state and state.json as one set (train/resume.py); ``steps`` counts only the
    learner decisions the weights were trained on (a rollout cut short by a signal is not)."""
    policy = export_policy(model, cfg)

    def write(directory: Path) -> None:
        save_policy(directory / WEIGHTS_FILE, policy, policy_card(cfg, policy, steps))
        ckpt.save_trainer(directory, model, steps, state)

    ckpt.write_checkpoint(run.path, steps, write)


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
            add_snapshot(self.training_env, self.run, export_policy(self.model, self.cfg), self.cfg, n)
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
        from .evaluate import evaluate_policy

        policy = export_policy(self.model, self.cfg)
        path = self.run.path / "eval.safetensors"
        save_policy(path, policy, policy_card(self.cfg, policy, steps))
        for opponent in self.cfg.eval_opponents:
            if self.stop:
                break
            res = evaluate_policy(path, self.cfg.resolved_rules(), opponent, self.cfg.eval_games, seed=self.cfg.seed)
            self.logger.record(f"eval/win_rate_vs_{tag(opponent)}", res["win_rate"])
            self.logger.record(f"eval/win_rate_low_vs_{tag(opponent)}", res["low"])
        self.logger.dump(steps)
        self.state["last_eval"] = steps


# ---------------------------------------------------------------------- the warm start
CHUNK_PER_WORKER = 2000  # decisions each recording worker adds per saved chunk (seconds of PIMC)


def record(cfg: TrainConfig, run: RunDir, stop: StopFlag, show: bool, decisions: int, phases=None) -> "Demos":
    """The teacher's ``decisions``, recorded in chunks saved to ``run/imitate/``: a resumed run loads
    the chunks already there and records only the rest."""
    from .imitate import Demos, collect, load_demos, save_demos

    rules = cfg.resolved_rules()
    size = ActionLayout(rules).size
    obs_size = Observer(rules).size + hint_size(cfg.hint, size)
    tag = "full" if phases is None else "-".join(phases)
    chunk = CHUNK_PER_WORKER * cfg.imitate_workers
    count = math.ceil(decisions / chunk)
    parts = []
    what = f"recording {cfg.imitate}" + ("" if phases is None else f" ({tag} only)")
    with maybe_bar(show, what, "decisions") as bar:
        task = bar.add_task(what, total=decisions, note="")
        for c in range(count):
            n = min(chunk, decisions - c * chunk)
            path = run.imitate / f"{tag}-{c:05d}.npz"
            part = load_demos(path, obs_size, size, "recorded chunk") if runfiles.kind_of(path) else None
            if part is None or len(part) != n:
                stop.check()
                seed = int(np.random.SeedSequence([cfg.seed, c, len(tag), *map(ord, tag)]).generate_state(1)[0])
                part = collect(rules=rules, spec=cfg.imitate, decisions=n, seed=seed,
                               transform=make_transform(cfg.observation, rules), against=cfg.imitate_against,
                               workers=cfg.imitate_workers, gamma=cfg.gamma, reward=cfg.reward,
                               win_bonus=cfg.win_bonus, hint=cfg.hint, phases=phases)
                save_demos(path, part)
            parts.append(part)
            bar.update(task, advance=n)
    return Demos.concat(parts)


class _FitLogger:
    """Passes ``pretrain``'s per-epoch records to TensorBoard, moves the progress bar, and stops
    between epochs once a signal arrived (the fit restarts on resume; the recording is kept)."""

    def __init__(self, logger, bar, task, stop: StopFlag):
        self.logger, self.bar, self.task, self.stop = logger, bar, task, stop

    def record(self, key, value):
        self.logger.record(key, value)

    def dump(self, step):
        self.logger.dump(step)
        self.bar.update(self.task, advance=1)
        self.stop.check()


def warm_start(cfg: TrainConfig, model, run: RunDir, stop: StopFlag | None = None, show: bool = False) -> dict:
    """Fit the fresh model to the teacher's recorded play (train/imitate.py); the demonstrations are
    kept as ``imitate.npz`` in the run directory, reusable by another run through ``imitate_data``."""
    from .imitate import Demos, load_demos, pretrain, save_demos

    stop = stop if stop is not None else StopFlag()
    rules = cfg.resolved_rules()
    if cfg.imitate_data:
        size = ActionLayout(rules).size
        paths = [cfg.imitate_data] if isinstance(cfg.imitate_data, str) else cfg.imitate_data
        demos = Demos.concat([load_demos(p, Observer(rules).size + hint_size(cfg.hint, size), size) for p in paths])
        source = " + ".join(paths)
    else:
        t0 = time.perf_counter()
        demos, source = record(cfg, run, stop, show, cfg.imitate_decisions), cfg.imitate
        if cfg.imitate_bids:
            demos = Demos.concat([demos, record(cfg, run, stop, show, cfg.imitate_bids, phases=("bid",))])
            source += f" + {cfg.imitate_bids:,} bids"
        save_demos(run.path / "imitate.npz", demos)
        source += f" ({time.perf_counter() - t0:,.0f} s to record)"
    with maybe_bar(show, "fitting to it", "epochs") as bar:
        task = bar.add_task("fit", total=cfg.imitate_epochs, note="")
        logger = _FitLogger(configure(str(run.tb / "imitate"), ["tensorboard"]), bar, task, stop)
        acc = pretrain(model, demos, cfg.imitate_epochs, lr=cfg.imitate_lr, logger=logger)
    print(f"imitation of {source}: {len(demos):,} decisions, training accuracy {acc:.1%}")
    return {"source": source, "decisions": len(demos), "accuracy": acc}


# ---------------------------------------------------------------------- the entry point
def default_run_name(config_path) -> str:
    stem = plain_name(Path(config_path).stem) if config_path else "default"
    return f"{stem}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"


class RunInterrupted(Interrupted):
    """A signal stopped the run; ``message`` says what was saved and how to resume."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def open_run(cfg, config_path, overrides, resume):
    """(config, run directory, whether config.yaml must be (re)written) — nothing is written here, so
    a refused ``--resume --set`` leaves the run as it was."""
    if resume is not None:
        run = RunDir(resume)
        if not run.config.is_file():
            raise ConfigError(f"--resume {str(resume)!r}: no run there (expected {run.config}); give a run "
                              f"directory under runs/")
        cfg, changed = load_resume_config(run.config, list(overrides))
        ckpt.current(run.path)  # refuses an old-layout or broken checkpoint link by name
        return cfg, run, changed
    if cfg is None:
        cfg = load_config(config_path, overrides)
    cfg.run_name = cfg.run_name or default_run_name(config_path)
    run = RunDir(new_run_dir(cfg.runs_dir, cfg.run_name, "key 'run_name'"))
    if run.config.exists() or run.checkpoint.is_symlink() or run.checkpoint.exists():
        raise FileExistsError(f"run directory {str(run.path)!r} already holds a run; use --resume "
                              f"{run.path} to continue it, or another run_name")
    return cfg, run, True


def require_ray() -> None:
    """``backend: rllib`` needs the optional ``[rllib]`` extra; say so before anything is written."""
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        raise ConfigError("backend: rllib needs Ray RLlib, which is not installed here: pip install -e '.[rllib]' "
                          "(make rllib-test builds .venv-rllib with it), or use backend: sb3") from None


def check_processes(cfg: TrainConfig) -> None:
    """Before the run starts: the worker processes its config asks for must fit this machine."""
    from agents.workers import check_workers

    for key, used in (("workers", cfg.workers > 0), ("imitate_workers", bool(cfg.imitate))):
        if used:
            try:
                check_workers(getattr(cfg, key), f"key {key!r}")
            except ValueError as e:
                raise ConfigError(str(e)) from None


def train_sb3(cfg: TrainConfig, run: RunDir, started: float, show_progress: bool) -> Path:
    """Train (or resume) ``run`` with MaskablePPO, or the batched trainer (``trainer: fast``); called by
    train/run.py ``train`` once the run directory is opened. SIGINT/SIGTERM save a checkpoint and raise
    RunInterrupted."""
    torch.set_num_threads(cfg.torch_threads)
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    with StopFlag() as stop:
        fast = cfg.trainer == "fast"
        venv = make_vec_env(cfg) if not fast else fast_path.spaces_venv(cfg)
        collector = None
        try:
            model = new_model(cfg, venv)
            found = ckpt.current(run.path)
            if found is not None:
                state = ckpt.check_schedule(ckpt.load_trainer(found, model), found)
                state["wall_time_before"] = state.get("wall_time", 0.0)
            else:
                state = {"next_snapshot": cfg.snapshot_every, "next_checkpoint": cfg.checkpoint_every,
                         "next_eval": cfg.eval_every or cfg.total_steps + 1, "last_eval": -1, "wall_time_before": 0.0}
            # a resumed run deals other games than the first session's
            salt = 7919 * (1 + model.num_timesteps) if found is not None else 0
            if fast:
                collector = fast_path.Collector(cfg, salt)
            pools = venv if not fast else fast_path.Pools(collector)  # who receives the snapshots
            if found is not None:
                for path in ckpt.snapshot_files(run.path)[-cfg.snapshot_pool:]:
                    policy, _ = read_policy(path)
                    pools.env_method("add_snapshot", policy.layers, policy.activation)
                if not fast:
                    venv.seed(cfg.seed + salt)
            else:
                try:
                    if cfg.imitate or cfg.imitate_data:
                        state["imitation"] = warm_start(cfg, model, run, stop, show_progress)
                except Interrupted:
                    raise RunInterrupted(f"interrupted while warming up; the recorded chunks are kept in {run.imitate}: "
                                         f"continue with --resume {run.path}") from None
                add_snapshot(pools, run, export_policy(model, cfg), cfg, 0)  # the pool's "self" needs a learner
            callback = Progress(cfg, run, state, cfg.total_steps, show_progress, started, stop)
            if found is None:
                callback.init_callback(model)
                callback.checkpoint(0)  # the warm start is never done twice
            steps = model.num_timesteps
            model.set_logger(tensorboard_logger(run, steps))
            if fast:
                callback.init_callback(model)
                callback.trained = fast_path.learn(model, cfg, run, state, callback, collector, pools, stop,
                                                   show_progress)
            elif cfg.total_steps > steps and not stop:
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
            if collector is not None:
                collector.close()
            venv.close()
    return run.path
