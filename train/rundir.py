"""The run directory every trainer writes (PPO of train/ppo.py, SB3 of train/sb3.py, the RLlib
backend) and what each writes into it the same way: the policy's card, snapshots for the league (and
reading them back on resume), TensorBoard scalars and tag names, progress bars.
"""

from __future__ import annotations

from pathlib import Path

from pitch_env.actions import ActionLayout
from pitch_env.observer import LAYOUT_VERSION, Observer
from pitch_policy import WEIGHTS_FILE, PolicyMLP, make_card, read_policy, save_policy
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


def policy_card(cfg: TrainConfig, policy: PolicyMLP, steps: int) -> dict:
    rules = cfg.resolved_rules()
    return make_card(rules, policy, steps, to_dict(cfg), Observer(rules).size, LAYOUT_VERSION,
                     ActionLayout(rules).size, cfg.observation, cfg.hint)


def tag(spec: str) -> str:
    """``spec`` as a TensorBoard tag name."""
    return "".join(ch if ch.isalnum() else "_" for ch in spec)


def save_snapshot(run: RunDir, policy: PolicyMLP, cfg: TrainConfig, steps: int) -> None:
    """Keep a snapshot of the learner on disk, so --resume restores the league (the newest
    ``snapshot_pool`` are kept)."""
    save_policy(run.snapshots / f"{steps:012d}.safetensors", policy, policy_card(cfg, policy, steps))
    for old in ckpt.snapshot_files(run.path)[:-cfg.snapshot_pool]:
        old.unlink()


def load_snapshots(run: RunDir, cfg: TrainConfig) -> list[PolicyMLP]:
    """The snapshots ``save_snapshot`` kept (the newest ``snapshot_pool``, oldest first), read back for the
    league of a resumed run; one that is not this run's learner network is refused in one line."""
    shape = cfg.policy_shape()
    out = []
    for path in ckpt.snapshot_files(run.path)[-cfg.snapshot_pool:]:
        policy, _ = read_policy(path)
        if policy.shape != shape or policy.activation != cfg.activation:
            raise ckpt.ResumeError(f"snapshot {str(path)!r} is a {policy.shape} {policy.activation} network, but this "
                                   f"run's learner is {shape} {cfg.activation}; delete it to resume")
        out.append(policy)
    return out


class Scalars:
    """TensorBoard scalars, ``record(key, value)`` then ``dump(step)`` (the calls SB3's logger takes).
    ``purge_step``: on resume, TensorBoard drops the killed session's events logged after it (the
    checkpoint), so the curves do not overlap."""

    def __init__(self, folder: Path, purge_step: int = 0):
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=str(folder), purge_step=purge_step if purge_step > 0 else None)
        self.values: dict[str, float] = {}

    def record(self, key: str, value) -> None:
        self.values[key] = value

    def dump(self, step: int) -> None:
        for key, value in self.values.items():
            self.writer.add_scalar(key, value, step)
        self.writer.flush()
        self.values = {}

    def close(self) -> None:
        self.writer.close()


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
