"""The training configuration: every hyperparameter one typed field with a one-line comment (CleanRL style).

``load_config(path, overrides)`` reads a YAML file, applies ``--set key=value`` overrides and
refuses unknown keys or ill-typed values with the key's name and the expected type.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml


class ConfigError(ValueError):
    """A config file or override that cannot be used; the message names the key and the fix."""


@dataclass
class TrainConfig:
    # ----- the game
    variant: str = "setback"  # rules preset: setback, auction or ten_point
    rules: dict[str, Any] = field(default_factory=dict)  # rules options over the preset, e.g. {num_players: 3}
    # ----- the run
    total_steps: int = 200_000  # learner decisions to train for (summed over all envs)
    seed: int = 0  # seeds torch, numpy, the deals and the opponent draws
    run_name: str = ""  # folder under runs_dir; empty: the config file's name and the start time
    runs_dir: str = "runs"  # where runs (TensorBoard, checkpoints, resolved config) are written
    num_envs: int = 2  # self-play games played side by side
    vec_env: Literal["dummy", "subproc"] = "dummy"  # dummy: one process (faster here, see docs); subproc: one per env
    torch_threads: int = 1  # torch CPU threads for the learner's updates
    # ----- the reward
    reward: Literal["hand", "game"] = "hand"  # hand: side's score change minus the opponents' after every hand; game: only win/loss
    win_bonus: float = 1.0  # added (won) or subtracted (lost) at the end of the game
    # ----- the observation
    observation: Literal["plain", "suit_canonical"] = "suit_canonical"  # suit_canonical: trump shown as suit 0 (pitch_env/canonical.py)
    hint: Literal["none", "heuristic"] = "none"  # heuristic: the heuristic's choice is an input too (train/hint.py)
    # ----- the network (an MLP for the policy and one for the value)
    hidden: list[int] = field(default_factory=lambda: [256, 256])  # hidden layer widths
    activation: Literal["tanh", "relu"] = "relu"  # hidden layer activation
    # ----- PPO (sb3-contrib MaskablePPO)
    learning_rate: float = 3e-4  # Adam step size
    n_steps: int = 1024  # rollout length per env before each update
    batch_size: int = 512  # minibatch size
    n_epochs: int = 4  # passes over each rollout
    gamma: float = 0.99  # discount per learner decision
    gae_lambda: float = 0.95  # GAE lambda
    clip_range: float = 0.2  # PPO clip
    ent_coef: float = 0.01  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient clipping
    # ----- optional warm start by imitation (train/imitate.py)
    imitate: str = ""  # agent spec whose decisions the policy (and value) is first fitted to (e.g. pimc:12); empty: none
    imitate_against: str = ""  # agent spec holding the other seats while the teacher is recorded; empty: the teacher everywhere
    imitate_decisions: int = 200_000  # decisions recorded for it
    imitate_epochs: int = 5  # passes of training over them
    imitate_lr: float = 1e-3  # Adam step size of that training (decays linearly to zero)
    imitate_bids: int = 0  # more decisions recorded only at bids (the deciders of auction), besides imitate_decisions
    imitate_workers: int = 2  # processes recording the teacher's games
    imitate_data: str | list[str] = ""  # imitate.npz file(s) saved by earlier runs, reused instead of recording; empty: record
    # ----- opponents: other sides are played by agents drawn from this pool every game
    opponents: dict[str, float] = field(
        default_factory=lambda: {"self": 0.5, "heuristic": 0.3, "random": 0.2}
    )  # sampling weights: "self" (frozen snapshots of the learner), "random", "heuristic", "checkpoint:PATH", …
    snapshot_every: int = 50_000  # steps between frozen snapshots of the learner added to the pool
    snapshot_pool: int = 10  # snapshots kept (oldest dropped)
    # ----- checkpoints and evaluation
    checkpoint_every: int = 50_000  # steps between checkpoints (the last one is always written)
    eval_every: int = 50_000  # steps between evaluations (0: only at the end)
    eval_games: int = 200  # duplicate-deal games per evaluation opponent
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])  # agents evaluated against
    deterministic: bool = True  # the exported agent plays its most likely action (False: samples)


def _type_name(tp) -> str:
    if typing.get_origin(tp) is Literal:
        return "one of " + ", ".join(map(repr, typing.get_args(tp)))
    return getattr(tp, "__name__", None) if not typing.get_args(tp) else str(tp).replace("typing.", "")


def _check(value, tp) -> bool:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return True
    if origin is Literal:
        return value in args and not isinstance(value, bool)
    if origin in (typing.Union, types.UnionType):
        return any(_check(value, a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(_check(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(_check(k, args[0]) and _check(v, args[1]) for k, v in value.items())
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, tp)


_HINTS = typing.get_type_hints(TrainConfig)
FIELDS = tuple(f.name for f in dataclasses.fields(TrainConfig))


def make_config(values: dict[str, Any], source: str = "config") -> TrainConfig:
    """A TrainConfig from a plain dict, each key checked against the field's type."""
    if not isinstance(values, dict):
        raise ConfigError(f"{source} must be a mapping of key: value, got {type(values).__name__}")
    for key, value in values.items():
        if key not in _HINTS:
            near = [f for f in FIELDS if f.startswith(str(key)[:3])]
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ConfigError(f"unknown key {key!r} in {source}{hint}; the keys are: {', '.join(FIELDS)}")
        if not _check(value, _HINTS[key]):
            raise ConfigError(
                f"key {key!r} in {source} must be {_type_name(_HINTS[key])}, got {value!r} ({type(value).__name__})"
            )
    values = {k: (float(v) if _HINTS[k] is float else v) for k, v in values.items()}
    cfg = TrainConfig(**values)
    _check_ranges(cfg, source)
    return cfg


def _check_ranges(cfg: TrainConfig, source: str) -> None:
    positive = ("total_steps", "num_envs", "n_steps", "batch_size", "n_epochs", "snapshot_every",
                "snapshot_pool", "checkpoint_every", "eval_games", "imitate_workers")
    for key in positive:
        if getattr(cfg, key) < 1:
            raise ConfigError(f"key {key!r} in {source} must be at least 1, got {getattr(cfg, key)}")
    if cfg.imitate_bids < 0:
        raise ConfigError(f"key 'imitate_bids' in {source} must be at least 0, got {cfg.imitate_bids}")
    if cfg.imitate_bids and not cfg.imitate:
        raise ConfigError(f"key 'imitate_bids' in {source} records the bids of the 'imitate' agent, but 'imitate' "
                          f"is empty: name the teacher (e.g. imitate: pimc:12:8) or drop imitate_bids")
    if not cfg.hidden or min(cfg.hidden) < 1:
        raise ConfigError(f"key 'hidden' in {source} needs at least one layer width >= 1, got {cfg.hidden}")
    if not cfg.opponents or min(cfg.opponents.values()) < 0 or sum(cfg.opponents.values()) <= 0:
        raise ConfigError(f"key 'opponents' in {source} needs non-negative weights with a positive sum, got {cfg.opponents}")
    try:
        cfg.resolved_rules()
    except ValueError as e:
        raise ConfigError(f"keys 'variant'/'rules' in {source}: {e}") from None


def _resolved_rules(self):
    import pitch_env

    return pitch_env.rules(self.variant, **self.rules)


TrainConfig.resolved_rules = _resolved_rules


def parse_override(text: str) -> tuple[str, Any]:
    """``"key=value"`` → (key, value), the value read as YAML (``ent_coef=0.02``, ``hidden=[128,128]``)."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set expects key=value, got {text!r} (e.g. --set total_steps=5000)")
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError as e:
        raise ConfigError(f"--set {text!r}: the value is not valid YAML ({e.problem})") from None
    return key.strip(), value


def load_config(path: str | Path | None, overrides: list[str] = ()) -> TrainConfig:
    """The config of a YAML file (or the defaults), with ``--set key=value`` overrides applied."""
    values: dict[str, Any] = {}
    source = "the defaults"
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"config file {str(path)!r} not found; the shipped configs are in configs/")
        try:
            values = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError as e:
            raise ConfigError(f"config file {str(path)!r} is not valid YAML: {e}") from None
        source = str(path)
        make_config(values, source)  # name a bad key of the file before any override hides it
    for text in overrides:
        key, value = parse_override(text)
        if key not in _HINTS:
            make_config({key: value}, "--set")  # raises, naming the key
        if key == "rules" or (isinstance(value, dict) and isinstance(values.get(key), dict) and key != "opponents"):
            values[key] = {**values.get(key, {}), **value}
        else:
            values[key] = value
    return make_config(values, source if not overrides else f"{source} with --set")


def to_dict(cfg: TrainConfig) -> dict[str, Any]:
    return dataclasses.asdict(cfg)


def save_yaml(cfg: TrainConfig) -> str:
    """The resolved config as YAML text, keys in field order."""
    return yaml.safe_dump(to_dict(cfg), sort_keys=False)
