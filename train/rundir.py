"""The run directory every trainer writes (train/loop.py, the batched trainer of train/fast.py, the
RLlib backend) and what each writes into it the same way: the learner exported as a policy with its
card, snapshots for the opponent pool, progress bars, TensorBoard tag names.
"""

from __future__ import annotations

from pathlib import Path

import torch

from pitch_env.actions import ActionLayout
from pitch_env.observer import LAYOUT_VERSION, Observer
from pitch_policy import WEIGHTS_FILE, PolicyMLP, make_card, save_policy
from pitch_env.files import atomic_write

from . import resume as ckpt
from .config import TrainConfig, to_dict


class RunDir:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.config = self.path / "config.yaml"
        self.tb = self.path / "tb"
        self.snapshots = self.path / "snapshots"
        self.imitate = self.path / "imitate"
        self.checkpoint = ckpt.pointer(self.path)  # a link to the current checkpoint set (train/resume.py)
        self.policy = self.checkpoint / WEIGHTS_FILE
        self.state = self.checkpoint / ckpt.STATE_FILE


def write_text_atomic(path: Path, text: str) -> None:
    atomic_write(path, lambda tmp: Path(tmp).write_text(text))


def learner_layers(model) -> tuple[list, list]:
    """(policy layers, value layers) of MaskablePPO's MlpPolicy as numpy (weight, bias) pairs."""
    p = model.policy

    def linears(seq, head):
        mods = [m for m in seq if isinstance(m, torch.nn.Linear)] + [head]
        return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in mods]

    return linears(p.mlp_extractor.policy_net, p.action_net), linears(p.mlp_extractor.value_net, p.value_net)


def export_policy(model, cfg: TrainConfig) -> PolicyMLP:
    """The learner's policy head as numpy layers (the features extractor is a plain flatten)."""
    return PolicyMLP(learner_layers(model)[0], cfg.activation, hint=cfg.hint)


def policy_card(cfg: TrainConfig, policy: PolicyMLP, steps: int) -> dict:
    rules = cfg.resolved_rules()
    return make_card(rules, policy, steps, to_dict(cfg), Observer(rules).size, LAYOUT_VERSION,
                     ActionLayout(rules).size, cfg.observation, cfg.hint)


def tag(spec: str) -> str:
    """``spec`` as a TensorBoard tag name."""
    return "".join(ch if ch.isalnum() else "_" for ch in spec)


def add_snapshot(venv, run: RunDir, policy: PolicyMLP, cfg: TrainConfig, steps: int) -> None:
    """Freeze the learner into every env's pool, and keep it on disk so --resume restores the pool."""
    layers = [(w, b) for w, b in policy.layers]
    venv.env_method("add_snapshot", layers, policy.activation)  # the env's pool gives it the transform and hint
    save_policy(run.snapshots / f"{steps:012d}.safetensors", policy, policy_card(cfg, policy, steps))
    for old in ckpt.snapshot_files(run.path)[:-cfg.snapshot_pool]:
        old.unlink()


def progress_bar(label: str, unit: str):
    """A rich progress bar with ETA (``with`` it; ``None`` fields are fine for unknown totals)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeRemainingColumn

    return Bar(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn(unit), TimeRemainingColumn(),
               TextColumn("{task.fields[note]}"), transient=False)


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def add_task(self, *a, **k):
        return 0

    def update(self, *a, **k):
        pass


def maybe_bar(show: bool, label: str, unit: str):
    return progress_bar(label, unit) if show else _NoBar()
