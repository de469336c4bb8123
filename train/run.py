"""``train``: open (or resume) a run directory and train it with its config's trainer: PPO on the
batched self-play core (``trainer: fast``, train/ppo.py), Stable-Baselines3's MaskablePPO
(``trainer: sb3``, train/sb3.py), or Ray RLlib (``backend: rllib``, train/rllib/loop.py). The one
entry point of ``pitch train``; every trainer writes the same run directory.
"""

from __future__ import annotations

import time
from pathlib import Path

from . import resume as ckpt
from .config import TrainConfig, save_yaml
from .loop import RunInterrupted, check_processes, open_run, require_ray
from .rundir import write_text_atomic

__all__ = ["train", "RunInterrupted"]


def train(cfg: TrainConfig | None = None, config_path=None, overrides=(), resume=None,
          show_progress: bool = True) -> Path:
    """Train (or resume) a run; returns its directory. The final checkpoint is written before the final
    evaluation. SIGINT/SIGTERM save a checkpoint and raise RunInterrupted."""
    cfg, run, write_config = open_run(cfg, config_path, overrides, resume)
    check_processes(cfg)
    if cfg.backend == "rllib":
        require_ray()
    run.path.mkdir(parents=True, exist_ok=True)
    ckpt.clean(run.path)  # debris of a killed writer
    if write_config:
        write_text_atomic(run.config, save_yaml(cfg))
    started = time.perf_counter()
    if cfg.backend == "rllib":
        from .rllib.loop import train as train_rllib

        return train_rllib(cfg, run, started, show_progress)
    if cfg.trainer == "fast":
        from .ppo import train as train_ppo

        return train_ppo(cfg, run, started, show_progress)
    from .sb3 import train as train_sb3

    return train_sb3(cfg, run, started, show_progress)
