"""What every trainer of ``pitch train`` shares: opening (or resuming) the run directory, checking its
processes, and the optional warm start by imitation (record the teacher in chunks, fit the network).

A run directory holds ``config.yaml`` (resolved), ``tb/`` (TensorBoard), ``snapshots/`` (the frozen
learners of the league), ``imitate/`` (the warm start's recording, in chunks) and ``checkpoint``,
the current checkpoint: ``policy.safetensors`` (the safe, loadable policy), ``trainer.safetensors`` and
``state.json`` (what ``--resume`` reads; nothing is unpickled: train/resume.py).
"""

from __future__ import annotations

import math
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pitch_env.actions import ActionLayout
from pitch_policy import input_size, make_transform

from . import resume as ckpt
from . import runfiles
from .config import ConfigError, TrainConfig, load_config, load_resume_config, new_run_dir, plain_name
from .rundir import RunDir, Scalars, maybe_bar
from .stop import Interrupted, StopFlag

if TYPE_CHECKING:
    from .imitate import Demos


# ---------------------------------------------------------------------- the warm start
CHUNK_PER_WORKER = 2000  # decisions each recording worker adds per saved chunk (seconds of PIMC)


def record(cfg: TrainConfig, run: RunDir, stop: StopFlag, show: bool, decisions: int, phases=None) -> "Demos":
    """The teacher's ``decisions``, recorded in chunks saved to ``run/imitate/``: a resumed run loads
    the chunks already there and records only the rest."""
    from .imitate import Demos, collect, load_demos, save_demos

    rules = cfg.resolved_rules()
    size = ActionLayout(rules).size
    obs_size = input_size(rules, cfg.hint)
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


class FitLogger:
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


def warm_start(cfg: TrainConfig, net, run: RunDir, stop: StopFlag | None = None, show: bool = False) -> dict:
    """Fit the fresh network (train/network.py) to the teacher's recorded play (train/imitate.py); the demonstrations are
    kept as ``imitate.npz`` in the run directory, reusable by another run through ``imitate_data``."""
    from .imitate import Demos, load_demos, pretrain, save_demos

    stop = stop if stop is not None else StopFlag()
    rules = cfg.resolved_rules()
    if cfg.imitate_data:
        size = ActionLayout(rules).size
        paths = [cfg.imitate_data] if isinstance(cfg.imitate_data, str) else cfg.imitate_data
        demos = Demos.concat([load_demos(p, input_size(rules, cfg.hint), size) for p in paths])
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
        board = Scalars(run.tb / "imitate")
        try:
            acc = pretrain(net, demos, cfg.imitate_epochs, lr=cfg.imitate_lr, logger=FitLogger(board, bar, task, stop))
        finally:
            board.close()
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
    from importlib.util import find_spec

    if find_spec("ray") is None or find_spec("ray.rllib") is None:
        raise ConfigError("backend: rllib needs Ray RLlib, which is not installed here: pip install -e '.[rllib]' "
                          "(make rllib-test builds .venv-rllib with it), or use backend: sb3")


def check_processes(cfg: TrainConfig) -> None:
    """Before the run starts: the worker processes its config asks for must fit this machine."""
    from agents.workers import check_workers

    for key, used in (("workers", cfg.workers > 0), ("imitate_workers", bool(cfg.imitate))):
        if used:
            try:
                check_workers(getattr(cfg, key), f"key {key!r}")
            except ValueError as e:
                raise ConfigError(str(e)) from None


