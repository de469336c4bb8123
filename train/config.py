"""The training configuration: every hyperparameter one typed field with a one-line comment (CleanRL style),
its range declared beside it.

``load_config(path, overrides)`` reads a YAML file through the one config loader (train/typed_config.py:
size-capped, no anchors/aliases, ``--set key=value``, unknown keys, types and ranges refused) and then
checks what only the whole config can say: keys of one trainer or backend set under another, agent specs
that do not build. Each refusal is a one-line ConfigError naming the key, the value and the fix.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from pitch_env.files import check_writable_above

from .typed_config import ConfigError, GameKeys, build, coerced, load, ranged, short

__all__ = ["ConfigError", "TrainConfig", "load_config", "make_config", "load_resume_config", "scheduled",
           "check_run_name", "new_run_dir", "plain_name", "save_yaml", "to_dict"]


@dataclass
class TrainConfig(GameKeys):
    # ----- the game: variant and rules (GameKeys, train/typed_config.py)
    # ----- the run
    total_steps: int = ranged(200_000, 1, 10**10)  # learner decisions to train for (summed over all envs)
    seed: int = ranged(0, 0, 2**32 - 1)  # seeds torch, numpy, the deals and the opponent draws (numpy's seeds are 32 bits)
    run_name: str = ""  # folder under runs_dir; empty: the config file's name and the start time
    runs_dir: str = "runs"  # where runs (TensorBoard, checkpoints, resolved config) are written
    backend: Literal["sb3", "rllib"] = "sb3"  # sb3: this process trains (trainer picks how); rllib: Ray RLlib's PPO, one machine or a cluster (docs/rllib.md)
    trainer: Literal["sb3", "fast"] = "sb3"  # sb3: MaskablePPO on the self-play env; fast: PPO on the batched self-play core (train/ppo.py)
    num_envs: int = ranged(2, 1, 4096)  # self-play games played side by side (fast: in lockstep, over all workers)
    workers: int = ranged(0, 0, 256)  # fast: processes stepping the games (0: the learner's own process)
    overlap: bool = False  # fast, workers >= 1: the workers play the next rollout (one update behind) during the update
    schedule: list[dict[str, Any]] = field(default_factory=list)  # fast: [{at: STEPS, KEY: VALUE, …}]: from STEPS learner steps on, KEY takes VALUE (keys: SCHEDULED)
    mirror: float = ranged(0.0, 0, 1)  # fast, rllib: share of games whose every side the learner plays (all their decisions train it)
    start_scores: float = ranged(0.0, 0, 1)  # fast: share of training games that start with each side at a random score from 0 to the target less 1 (more end games to learn from; evaluations start at 0)
    vec_env: Literal["dummy", "subproc"] = "dummy"  # dummy: one process (faster here, see docs); subproc: one per env
    torch_threads: int = ranged(1, 1, 1024)  # torch CPU threads for the learner's updates
    # ----- backend: rllib only (train/rllib/, docs/rllib.md)
    ray_address: str = ""  # Ray cluster to join ("auto": the one `ray start --head` runs here; "host:port"); empty: a local Ray with this machine's cores
    num_env_runners: int = ranged(0, 0, 100_000)  # Ray actors playing games (one core each); 0: the driver plays them itself
    envs_per_env_runner: int = ranged(1, 1, 4096)  # games each env runner steps side by side (batched forward passes)
    num_learners: int = ranged(0, 0, 1024)  # Ray actors running the PPO update (data-parallel); 0: the driver updates
    train_batch_size: int = ranged(0, 0, 10**8)  # learner decisions sampled per update; 0: n_steps × num_envs, as on the other paths
    # ----- the reward
    reward: Literal["hand", "game"] = "hand"  # hand: the AEC env's reward="relative" (pitch_env/rewards.py); game: only the win bonus
    win_bonus: float = ranged(1.0, -1e6, 1e6)  # added (won) or subtracted (lost, or stopped at max_hands unwon) at the end of the game
    # ----- the observation
    observation: Literal["plain", "suit_canonical"] = "suit_canonical"  # suit_canonical: trump shown as suit 0 (pitch_policy/canonical.py)
    hint: Literal["none", "heuristic"] = "none"  # heuristic: the heuristic's choice is an input too (train/hint.py)
    critic: Literal["observation", "oracle"] = "observation"  # oracle (trainer: fast): the value net also reads every other seat's hand, in training only (train/critic.py); the policy never does
    # ----- the network (an MLP for the policy and one for the value)
    hidden: list[int] = field(default_factory=lambda: [256, 256])  # hidden layer widths
    activation: Literal["tanh", "relu"] = "relu"  # hidden layer activation
    # ----- PPO (both trainers: train/ppo.py and sb3-contrib MaskablePPO)
    learning_rate: float = ranged(3e-4, 0, 1, above=True)  # Adam step size
    n_steps: int = ranged(1024, 1, 10**7)  # rollout length per env before each update
    batch_size: int = ranged(512, 1, 10**7)  # minibatch size
    n_epochs: int = ranged(4, 1, 10_000)  # passes over each rollout
    gamma: float = ranged(0.99, 0, 1, above=True)  # discount per learner decision
    gae_lambda: float = ranged(0.95, 0, 1)  # GAE lambda
    bid_gae_lambda: float | None = ranged(None, 0, 1)  # fast: GAE lambda at bid decisions (empty: gae_lambda): the share of the hand after a bid its advantage takes as played, the rest from the critic's value after the auction
    advantage_horizon: Literal["game", "hand"] = "game"  # fast: how far a decision's GAE runs: to the game's end, or to the side's next hand, whose first decision's value stands for the rest (the later hands' deals no longer blur a decision's credit)
    hand_bootstrap: Literal["deal", "scores"] = "deal"  # fast, with advantage_horizon hand: the value a hand's last decision bootstraps from: deal, the side's first decision of the next hand (its critic already sees the next deal); scores, a small network of the dealer's seat, the scores and the hands played fitted to those values, their mean over the deals (the next deal's luck left out)
    clip_range: float = ranged(0.2, 0, 10, above=True)  # PPO clip
    ent_coef: float = ranged(0.01, 0, 100)  # entropy bonus
    policy_coef: float = ranged(1.0, 0, 100)  # fast: weight of the policy loss and entropy bonus (0: only the value network learns, e.g. for the first steps after start, then 1 from a schedule entry)
    bid_ent_coef: float = ranged(0.0, 0, 100)  # fast: entropy bonus added at bid decisions (pass and the bids), on top of ent_coef
    bid_policy_coef: float = ranged(1.0, 0, 100)  # fast: weight of the bid decisions' PPO loss against the other decisions' 1
    bid_q: float = ranged(0.0, 0, 10)  # fast, > 0: bid decisions learn action values instead of PPO's loss (value = bid_q × logit, fitted to the return; rollouts draw bids at temperature bid_q)
    vf_coef: float = ranged(0.5, 0, 100)  # value loss weight
    max_grad_norm: float = ranged(0.5, 0, 1e6, above=True)  # gradient clipping
    # ----- optional warm start by imitation (train/imitate.py)
    imitate: str = ""  # agent spec whose decisions the policy (and value) is first fitted to (e.g. pimc:12); empty: none
    imitate_against: str = ""  # agent spec holding the other seats while the teacher is recorded; empty: the teacher everywhere
    imitate_decisions: int = ranged(200_000, 1, 10**9)  # decisions recorded for it
    imitate_epochs: int = ranged(5, 1, 10_000)  # passes of training over them
    imitate_lr: float = ranged(1e-3, 0, 1, above=True)  # Adam step size of that training (decays linearly to zero)
    imitate_bids: int = ranged(0, 0, 10**9)  # more decisions recorded only at bids (the deciders of auction), besides imitate_decisions
    imitate_workers: int = ranged(2, 1, 256)  # processes recording the teacher's games
    imitate_data: str | list[str] = ""  # imitate.npz file(s) saved by earlier runs, reused instead of recording; empty: record
    # ----- optional start from a trained policy (trainer: fast)
    start: str = ""  # a policy file or checkpoint folder whose policy network the run starts from (its shape, hint and transform the config's); the value network starts fresh; empty: a random network
    # ----- opponents: other sides are played by agents drawn from this pool every game
    opponents: dict[str, float] = field(
        default_factory=lambda: {"self": 0.5, "heuristic": 0.3, "random": 0.2}
    )  # sampling weights: "self" (frozen snapshots of the learner), "random", "heuristic", "checkpoint:PATH", …
    snapshot_every: int = ranged(50_000, 1, 10**10)  # steps between frozen snapshots of the learner added to the pool
    snapshot_pool: int = ranged(10, 1, 10_000)  # snapshots kept (oldest dropped)
    # ----- checkpoints and evaluation
    checkpoint_every: int = ranged(50_000, 1, 10**10)  # steps between checkpoints (the last one is always written)
    eval_every: int = ranged(50_000, 0, 10**10)  # steps between evaluations (0: only at the end)
    eval_games: int = ranged(200, 1, 10**7)  # duplicate-deal games per evaluation opponent
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])  # agents evaluated against
    deterministic: bool = True  # the exported agent plays its most likely action (False: samples; a checkpoint: agent reads it from the policy's card)

    def policy_shape(self) -> list[int]:
        """The policy network's widths: its input (the observation and the hint), ``hidden``, the actions."""
        from pitch_env.actions import ActionLayout
        from pitch_policy import input_size

        rules = self.resolved_rules()
        return [input_size(rules, self.hint), *self.hidden, ActionLayout(rules).size]


SCHEDULED = ("learning_rate", "ent_coef", "bid_ent_coef", "bid_policy_coef", "policy_coef", "clip_range", "n_epochs",
             "opponents", "mirror", "start_scores")  # what a schedule may change


# Keys only PPO on the batched self-play core reads (trainer: fast, backend: sb3): each one's value that
# leaves it off, and what it needs of that core.
BATCHED_PPO_ONLY = {
    "bid_ent_coef": (0.0, ", whose PPO weighs each decision's entropy"),
    "bid_q": (0.0, ", whose PPO trains the bids on their values"),
    "bid_policy_coef": (1.0, ", whose PPO knows the bid decisions"),
    "policy_coef": (1.0, ""),
    "start_scores": (0.0, ", whose batched core deals the games"),
    "advantage_horizon": ("game", ", whose rollouts mark where each hand begins"),
    "hand_bootstrap": ("deal", ", whose rollouts mark where each hand begins"),
    "bid_gae_lambda": (None, ", whose PPO knows the bid decisions"),
}


def make_config(values: dict[str, Any], source: str = "config") -> TrainConfig:
    """A TrainConfig from a plain dict: each key checked against its field's type and range, then the
    keys checked together."""
    cfg = build(TrainConfig, values, source)
    _check_together(cfg, source)
    _check_schedule(cfg, values, source)
    return cfg


def _check_schedule(cfg: TrainConfig, values: dict, source: str) -> None:
    """Each entry of ``schedule`` names a step ``at`` (increasing) and only SCHEDULED keys, and the
    config with each entry applied is itself valid."""
    if cfg.schedule and cfg.trainer != "fast":
        raise ConfigError(f"key 'schedule' in {source} applies only to trainer: fast; set trainer: fast or drop it")
    last = -1
    merged = {k: v for k, v in values.items() if k != "schedule"}
    for n, entry in enumerate(cfg.schedule):
        where = f"entry {n} of key 'schedule' in {source}"
        at = entry.get("at")
        if not isinstance(at, int) or isinstance(at, bool) or not last < at <= 10**10:
            raise ConfigError(f"{where} needs 'at': a whole number of learner steps, above the entry before it "
                              f"(got {short(at)})")
        last = at
        changes = {k: v for k, v in entry.items() if k != "at"}
        wrong = [k for k in changes if k not in SCHEDULED]
        if wrong or not changes:
            raise ConfigError(f"{where} changes {short(wrong or 'nothing')}; a schedule changes only "
                              f"{', '.join(SCHEDULED)}")
        merged.update(changes)
        make_config(merged, where)


def scheduled(cfg: TrainConfig, steps: int) -> TrainConfig:
    """The config in force after ``steps`` learner steps: every schedule entry with ``at <= steps`` applied."""
    changes = {}
    for entry in cfg.schedule:
        if entry["at"] <= steps:
            changes.update({k: v for k, v in entry.items() if k != "at"})
    if not changes:
        return cfg
    return dataclasses.replace(cfg, **coerced(TrainConfig, changes))


RUN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+=-]{0,127}")  # one plain folder name: never '..', '/' or absolute


def check_run_name(name, where: str) -> str:
    """``name`` if it is one plain folder name: every command that writes a run directory (``pitch train``
    on either backend, ``pitch exit``) writes runs_dir/name and nowhere outside it."""
    if not isinstance(name, str) or not RUN_NAME.fullmatch(name):
        raise ConfigError(f"run name {short(name)} ({where}) is not one plain folder name: use letters, digits "
                          f"and _ . + = - (no '/', no leading '.', at most 128 characters); the run is written "
                          f"to runs_dir/run_name")
    return name


def plain_name(text: str) -> str:
    """``text`` (e.g. a config file's stem) made into the start of a plain run name: other characters as '_'."""
    name = re.sub(r"[^A-Za-z0-9_.+=-]", "_", text)[:100]
    return name if name[:1].isalnum() or name[:1] == "_" else "_" + name


def new_run_dir(runs_dir: str, name: str, where: str) -> Path:
    """The directory a new run writes: ``runs_dir/name``, ``name`` checked by ``check_run_name``."""
    if not str(runs_dir).strip():
        raise ConfigError(f"runs_dir ({where}) is empty: name a folder, e.g. runs")
    path = Path(runs_dir) / check_run_name(name, where)
    try:  # before any training: the run's folders are made at its first write
        check_writable_above(path)
    except OSError as e:
        raise ConfigError(f"runs_dir {str(runs_dir)!r}: cannot write there ({e.strerror}); give runs_dir a folder "
                          f"you can write") from None
    return path


def _check_together(cfg: TrainConfig, source: str) -> None:
    """What no single field's type and range can say: keys that only mean something together."""
    def bad(key, value, fix):
        return ConfigError(f"key {key!r} in {source} is {short(value)}: {fix}")

    if cfg.run_name:
        check_run_name(cfg.run_name, f"key 'run_name' in {source}")
    if not cfg.runs_dir.strip():
        raise bad("runs_dir", cfg.runs_dir, "name a folder, e.g. runs")
    if cfg.imitate_bids and not cfg.imitate:
        raise ConfigError(f"key 'imitate_bids' in {source} records the bids of the 'imitate' agent, but 'imitate' "
                          f"is empty: name the teacher (e.g. imitate: pimc:12:8) or drop imitate_bids")
    _check_backend(cfg, bad)
    if cfg.critic == "oracle" and (cfg.trainer != "fast" or cfg.backend != "sb3" or cfg.imitate or cfg.imitate_data):
        raise bad("critic", cfg.critic, "the oracle critic is trained by the batched core alone, from its first "
                                        "step: set trainer: fast (backend: sb3) and drop imitate/imitate_data, "
                                        "or use critic: observation")
    if cfg.trainer == "sb3":
        for key, default in (("workers", 0), ("mirror", 0.0), ("overlap", False)):
            if getattr(cfg, key) != default and not (key == "mirror" and cfg.backend == "rllib"):
                where = "trainer: fast or backend: rllib" if key == "mirror" else "trainer: fast"
                raise bad(key, getattr(cfg, key), f"it applies only to {where} (the SB3 path runs its envs "
                                                  f"with vec_env, and its opponents are frozen snapshots); set "
                                                  f"{where} or drop it")
        if cfg.num_envs > 256:
            raise bad("num_envs", cfg.num_envs, "the SB3 path runs at most 256 envs (each one a Python env); "
                                                "use trainer: fast for more games side by side")
    if cfg.trainer != "fast" or cfg.backend != "sb3":
        for key, (off, why) in BATCHED_PPO_ONLY.items():
            on = [v for v in (getattr(cfg, key), *(e[key] for e in cfg.schedule if key in e)) if v != off]
            if on:
                raise bad(key, on[0], f"it applies only to trainer: fast (backend: sb3){why}; set trainer: fast "
                                      f"or drop it (from the schedule too)")
    if cfg.hand_bootstrap != "deal" and cfg.advantage_horizon != "hand":
        raise bad("hand_bootstrap", cfg.hand_bootstrap, "it sets where a hand's advantages stop, so it needs "
                                                        "advantage_horizon: hand; set that or drop hand_bootstrap")
    if cfg.start:
        _check_start(cfg, bad)
    if cfg.bid_q and (cfg.bid_ent_coef or any(e.get("bid_ent_coef") for e in cfg.schedule)):
        raise bad("bid_q", cfg.bid_q, "bid decisions that learn action values take no entropy bonus of their own "
                                      "(they explore by the temperature bid_q); set bid_ent_coef: 0, in the schedule too")
    if cfg.overlap and cfg.workers == 0:
        raise bad("overlap", cfg.overlap, "overlap needs workers >= 1 (the games run beside the update); set "
                                          "workers or drop overlap")
    if cfg.workers > cfg.num_envs:
        raise bad("workers", cfg.workers, f"give at most num_envs ({cfg.num_envs}) workers: each steps a share of "
                                          f"the games")
    if not cfg.hidden or len(cfg.hidden) > 16 or not all(1 <= h <= 8192 for h in cfg.hidden):
        raise bad("hidden", cfg.hidden, "give 1 to 16 layer widths, each from 1 to 8192, e.g. [256, 256]")
    weights = list(cfg.opponents.values())
    if (not cfg.opponents or not all(math.isfinite(w) and w >= 0 for w in weights) or sum(weights) <= 0):
        raise bad("opponents", cfg.opponents, "give finite, non-negative weights with a positive sum, "
                                                "e.g. {heuristic: 0.7, self: 0.3}")
    if not cfg.eval_opponents:
        raise bad("eval_opponents", cfg.eval_opponents, "name at least one agent, e.g. [random, heuristic]")
    _check_agents(cfg, cfg.resolved_rules(), source)


def _check_start(cfg: TrainConfig, bad) -> None:
    """``start`` names a policy this run's network can start from: trainer fast, no imitation, and the
    file's shape, activation, hint and observation transform those of the config."""
    from pitch_policy import CheckpointError, load_policy

    if cfg.trainer != "fast" or cfg.backend != "sb3":
        raise bad("start", cfg.start, "a start policy is taken by trainer: fast (backend: sb3); set trainer: fast "
                                      "or drop start")
    if cfg.imitate or cfg.imitate_data:
        raise bad("start", cfg.start, "a run starts from a policy or from imitation, not both; drop start or "
                                      "imitate/imitate_data")
    try:
        policy, card = load_policy(cfg.start, cfg.resolved_rules())
    except (CheckpointError, OSError) as e:
        raise bad("start", cfg.start, str(e).splitlines()[0]) from None
    transform = card["observation"].get("transform") or "plain"
    if policy.hint != cfg.hint or transform != cfg.observation:
        raise bad("start", cfg.start, f"it reads observation {transform} with hint {policy.hint}, this config "
                                      f"{cfg.observation} with hint {cfg.hint}; set observation: {transform} "
                                      f"and hint: {policy.hint}")
    want = cfg.policy_shape()
    if policy.shape != want or policy.activation != cfg.activation:
        raise bad("start", cfg.start, f"its network is {policy.activation} {policy.shape}, this config's "
                                      f"{cfg.activation} {want}; set hidden and activation to the file's "
                                      f"(hidden: {policy.shape[1:-1]}, activation: {policy.activation})")


RLLIB_KEYS = (("ray_address", ""), ("num_env_runners", 0), ("envs_per_env_runner", 1), ("num_learners", 0),
              ("train_batch_size", 0))
RAY_ADDRESS = re.compile(r"[A-Za-z0-9_.:/\[\]-]{1,256}")  # "auto", host:port, ray://host:port


def _check_backend(cfg: TrainConfig, bad) -> None:
    """Keys of one backend set under the other are refused: they would be silently ignored."""
    if cfg.backend == "sb3":
        for key, default in RLLIB_KEYS:
            if getattr(cfg, key) != default:
                raise bad(key, getattr(cfg, key), "it applies only to backend: rllib; set backend: rllib or drop it")
        return
    if cfg.trainer != "sb3":
        raise bad("trainer", cfg.trainer, "backend: rllib trains with RLlib's PPO, not the batched trainer; "
                                          "drop trainer: fast (and its workers/overlap) or use backend: sb3")
    if cfg.vec_env != "dummy":
        raise bad("vec_env", cfg.vec_env, "backend: rllib steps its games in env runners; set num_env_runners "
                                          "instead of vec_env")
    if cfg.ray_address and not RAY_ADDRESS.fullmatch(cfg.ray_address):
        raise bad("ray_address", cfg.ray_address, "give auto, host:port or ray://host:port (empty: a local Ray)")
    per_learner = math.ceil((cfg.train_batch_size or cfg.n_steps * cfg.num_envs) / max(cfg.num_learners, 1))
    if cfg.batch_size > per_learner:  # RLlib's PPO refuses it with a traceback
        raise bad("batch_size", cfg.batch_size, f"a minibatch cannot be larger than the {per_learner:,} learner "
                                                f"decisions each learner updates on (train_batch_size, or n_steps × "
                                                f"num_envs, over num_learners); lower batch_size or raise n_steps")


def _check_agents(cfg: TrainConfig, rules, source: str) -> None:
    """Every agent spec the run will need is built once now (cheap: nothing is played), so a typo in
    ``eval_opponents`` is refused when the config is read, not after hours of training."""
    specs = [("opponents", name) for name in cfg.opponents if name != "self"]
    specs += [("eval_opponents", s) for s in cfg.eval_opponents]
    specs += [(key, getattr(cfg, key)) for key in ("imitate", "imitate_against") if getattr(cfg, key)]
    check_agent_specs(specs, rules, source)


def check_agent_specs(specs: list[tuple[str, str]], rules, source: str) -> None:
    """Each ``(key, spec)`` built once for ``rules`` (nothing is played), refused in one line naming the key
    that holds it: a config's agents fail when it is read, not hours into a run."""
    if not specs:
        return
    import agents
    import pitch_env

    env = pitch_env.env(rules)
    for key, spec in specs:
        if agents.seats_human(spec):
            raise ConfigError(f"key {key!r} in {source} names {short(spec)}: a human cannot play thousands of "
                              f"training games; use random, heuristic, pimc:N or checkpoint:PATH")
        try:
            agents.make(spec, env)
        except Exception as e:  # any failure to build is the spec's fault; say which key holds it
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise ConfigError(f"key {key!r} in {source} names agent {short(spec)}, which does not build: {msg}") from None


def load_config(path: str | Path | None, overrides: list[str] = ()) -> TrainConfig:
    """The config of a YAML file (or the defaults), with ``--set key=value`` overrides applied."""
    return load(TrainConfig, make_config, path, overrides)


# Keys a resumed run cannot change: its network, its game, its observations, or the recording in progress.
FIXED_ON_RESUME = ("backend", "variant", "rules", "observation", "hint", "critic", "hidden", "activation", "imitate",
                   "imitate_against", "imitate_decisions", "imitate_bids", "imitate_data", "start", "run_name", "runs_dir")


def load_resume_config(path: Path, overrides: list[str]) -> tuple[TrainConfig, bool]:
    """The saved config of a run to resume with ``overrides`` applied, and whether they changed it;
    overrides of FIXED_ON_RESUME keys are refused (nothing is written here)."""
    saved = load_config(path)
    cfg = load_config(path, overrides)
    for key in FIXED_ON_RESUME:
        if getattr(cfg, key) != getattr(saved, key):
            raise ConfigError(f"--set {key}={short(getattr(cfg, key))} cannot apply to a resumed run (it was trained "
                              f"with {key}={short(getattr(saved, key))}: its network, game or recording depend on it); "
                              f"start a new run instead")
    return cfg, to_dict(cfg) != to_dict(saved)


def to_dict(cfg: TrainConfig) -> dict[str, Any]:
    return dataclasses.asdict(cfg)


def save_yaml(cfg: TrainConfig) -> str:
    """The resolved config as YAML text, keys in field order."""
    return yaml.safe_dump(to_dict(cfg), sort_keys=False)
