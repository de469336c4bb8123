"""Expert iteration (``pitch exit --config configs/exit/VARIANT.yaml``): a network that learns from a
search guided by itself, generation after generation.

One generation:

1. **record**: the teacher, ``pimcnet:worlds:BEST`` (agents/netpimc.py: PIMC whose rollouts and
   default choices are the current best network), plays self-play games at every seat in ``workers``
   processes; each decision it searched (bids, trump, card play with a choice) is kept as the
   network's input, its mask and the search's action. The parts are saved as they come, so a stop
   loses at most one part per worker. With ``worlds_from: dealt`` the teacher does not search: each
   legal action is played out in the game's own cards (one world, what the deal really was), the
   network's choice is played on, and the values are what a ``target: values`` fit learns from.
2. **fit**: starting from the best network, cross-entropy on this generation's decisions and the
   ``replay - 1`` before it, the learning rate decaying to zero; the candidate is saved. With
   ``target: values`` the best is not changed: a second network, its hidden layers started from the
   best's and its output from zero, regresses what the search measured each legal action worth
   above their mean, and the candidate is the two fused (pitch_policy/fuse.py) with weights 1 and
   ``value_weight``: the best's logits plus ``value_weight`` times the fitted action values. The
   candidate's hidden layers are twice as wide as the best's; with ``fold: true`` that fused network
   is fitted back into one of the best's size (started from the best, cross-entropy to the fused
   network's policy on the same decisions), so the width and the thinking time stay the same.
3. **gate**: the candidate plays the best on ``gate_games`` duplicate deals (the tournament tool,
   agents/tournament.py); it becomes the best only if it wins more than ``gate_min`` of them. With a
   ``gate_panel`` (other agents: ``heuristic``, ``pimc:12``…) the candidate and then the best also play
   each of them on the same ``gate_panel_games`` deals, and a candidate that does significantly worse than
   the best against any of them (``lost_ground``) is dropped: beating the best alone can mean learning to
   exploit it (a generation's bids fitted to values measured against the best's own play did).

A recipe may change its teacher on the way: ``stages`` is a list of runs of generations, each
naming its ``generations`` and any of ``worlds``, ``decisions``, ``seed`` and ``bid_weight`` that differ
from the top-level keys; each stage starts from the best of the one before, and its fits replay only its own
generations (an earlier stage's labels come from another teacher). A stage's generations are seeded
as the same config run alone from that best would seed them, so ``stages`` in one command does what
one config per stage did in as many commands.

Everything a run writes is under runs_dir/run_name/ (run_name one plain folder name): the config,
``gen_K/`` (recorded parts ``part_J.npz``, ``policy.safetensors``), ``generations.json`` (one row per
finished generation: decisions, how often the search overrode the network, accuracies, the gate's
result, wall time; and which generation is the best, with its weights file's size and SHA-256) and
``best.safetensors``. Ctrl-C or SIGTERM stops at the next part; ``--resume RUN_DIR`` continues where it
stopped, after ``open_run`` has checked the whole run through train/runfiles.py (nothing read back is
a pickle, a link or a FIFO; every part is checked from its headers before it is loaded).
"""

from __future__ import annotations

import json
import re
import math
import multiprocessing as mp
import random
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Literal

import numpy as np

from agents.pimc import SWITCH_Z
from agents.stats import below
from agents.workers import WorkerDied
from pitch_policy import WEIGHTS_FILE, CheckpointError, PolicyMLP, load_policy, save_policy
from pitch_env.engine import PLAY
from pitch_env.files import atomic_write, check_writable_above

from .config import check_agent_specs, check_run_name, new_run_dir, plain_name
from .typed_config import (ConfigError, GameKeys, build, check_range, hints_of, is_of_type, load, number_type,
                           parse_override, range_of, ranged, short)
from .runfiles import (Array, ResumeError, check_fields, kind_of, read_json, read_npz, regular_file, remove_debris,
                       sha256_of)
from .stop import Interrupted

MAX_PANEL = 8  # agents a gate_panel may name
PART = 1000  # decisions one recording task returns (a stop loses at most this much per worker)
VALUE_CHUNK = 1000  # self-play games one task of the game value's plays (leaf: game)
MAX_VALUE = 1000.0  # a recorded action value (a hand's outcome in points) beyond this is a damaged part


@dataclass
class ExitConfig(GameKeys):
    # ----- the game: variant and rules (GameKeys, train/typed_config.py)
    start: str = "checkpoints/setback_base"  # the policy of generation 0 (a checkpoint directory or file)
    start_train: str = ""  # instead of start: a `pitch train` config (configs/*.yaml) whose run, trained in RUN/start/ first, is generation 0
    generations: int = ranged(3, 1, 1000)  # generations to run (each: record, fit, gate); with stages, their sum by default
    decisions: int = ranged(40_000, PART, 10**8)  # searched decisions recorded per generation
    worlds: int = ranged(8, 1, 1000)  # worlds per searched decision of the teacher (pimcnet:worlds:best)
    worlds_from: Literal["sampled", "dealt"] = "sampled"  # sampled: worlds drawn from what the seat knows; dealt: each legal action scored in the cards really dealt (one world; the network's own choice played; target values only)
    read_bids: bool = True  # the teacher's worlds prefer hands that explain the bids as agents/bidding.py reads them; false: what play has shown alone (no heuristic in the search)
    from_trick: int = ranged(0, 0, 13)  # 0: every bid, trump and card with a choice is searched and recorded; K: only the cards of trick K and later (the first trick is 1), the network alone making the decisions before (bench/search_lead.py finds the tricks a search wins with)
    switch_z: float = ranged(SWITCH_Z, 0.0, 100.0)  # the teacher leaves the network's choice only for an action this many standard errors better
    replay: int = ranged(2, 1, 1000)  # generations of recorded decisions each fit uses (this one and the ones before)
    epochs: int = ranged(4, 1, 1000)  # passes over the fitted decisions
    batch_size: int = ranged(512, 1, 1 << 16)
    learning_rate: float = ranged(3e-4, 1e-8, 1.0)  # Adam, decaying linearly to zero over the fit
    leaf: Literal["hand", "game"] = "hand"  # what the teacher's worlds score: the hand's points (hand_value), or the chance of winning the game it leaves (a game value)
    leaf_games: int = ranged(30_000, 10, 10**7)  # with leaf game: self-play games of the start network that the game value is fitted to
    target: Literal["search", "soft", "values"] = "search"  # search: the search's action; soft: the network's policy reweighted by exp(value / temperature); values: the best plus value_weight × a fit of the search's action values
    temperature: float = ranged(1.0, 1e-3, 1e3)  # with target soft: outcome (points; with leaf game, chance of winning) that multiplies an action's odds by e
    value_weight: float = ranged(8.0, 1e-3, 1e3)  # with target values: logits the candidate adds per point (with leaf game, per unit of the chance of winning) the fit says an action is worth above the legal actions' mean
    bid_weight: float | None = ranged(None, 0.0, 1e3)  # with fold: the value weight at the auction's bids instead of value_weight (empty: value_weight there too); a bid's values are large and clear, a card's small and noisy, so one weight fits both badly (docs/training.md)
    fold: bool = False  # with target values: the fused candidate fitted back into a network of the best's size (false: the candidate is the fused network, twice as wide each generation)
    gate_games: int = ranged(1000, 2, 10**6)  # duplicate-deal games, candidate vs best
    gate_min: float = ranged(0.5, 0.0, 1.0)  # the candidate's win rate must exceed this to become the best
    gate_panel: list[str] = field(default_factory=list)  # agents the candidate must also do as well against as the best ([heuristic, pimc:12]); empty: the best alone
    gate_panel_games: int = ranged(1000, 2, 10**6)  # duplicate-deal games against each panel agent, candidate and best each
    workers: int = ranged(2, 1, 64)  # recording and gate processes
    torch_threads: int = ranged(2, 1, 256)  # threads of the fit (each recording worker runs torch at one thread)
    seed: int = ranged(0, 0, 2**62)
    stages: list[dict[str, int | float]] = field(default_factory=list)  # [{generations: 5, worlds: 8}, {generations: 2, worlds: 16}]
    run_name: str = ""  # folder under runs_dir; empty: the config file's name
    runs_dir: str = "runs"


FIELDS = {f.name: f for f in fields(ExitConfig)}
STAGE_KEYS = ("generations", "worlds", "decisions", "seed", "bid_weight")  # what a stage may set
DRAWING_KEYS = ("read_bids", "switch_z")  # how a searching teacher draws and weighs its worlds: not with worlds_from: dealt


@dataclass(frozen=True)
class Stage:
    first: int  # the run's number of its first generation
    last: int  # and of its last
    worlds: int
    decisions: int
    seed: int
    bid_weight: float | None = None

    def local(self, generation: int) -> int:
        """The generation's number within the stage (1 for its first): what seeds its parts, fit and gate."""
        return generation - self.first + 1


def stages(cfg: ExitConfig) -> list[Stage]:
    """The stages of ``cfg`` (without ``stages``, one of the top-level keys), over its ``generations``:
    generations past the stages' sum continue the last stage, and fewer end the run early."""
    out, first = [], 1
    entries = cfg.stages or [{"generations": cfg.generations}]
    for n, e in enumerate(entries):
        last = first + e["generations"] - 1 if n + 1 < len(entries) else max(cfg.generations, first)
        out.append(Stage(first, last, e.get("worlds", cfg.worlds), e.get("decisions", cfg.decisions),
                         e.get("seed", cfg.seed), e.get("bid_weight", cfg.bid_weight)))
        first = last + 1
    return [s for s in out if s.first <= cfg.generations]


def teacher_name(cfg: ExitConfig, worlds: int) -> str:
    """What a generation learned from, as the run's messages and the model card name it."""
    return "the best in the cards dealt" if cfg.worlds_from == "dealt" else f"pimcnet:{worlds}"


def stage_of(cfg: ExitConfig, generation: int) -> Stage:
    return next(s for s in stages(cfg) if s.first <= generation <= s.last)


def make_exit_config(values: dict, source: str) -> ExitConfig:
    """An ExitConfig from plain data, each key checked for name, type and range, the stages and the
    start policy checked too (one-line ConfigError)."""
    if isinstance(values, dict) and values.get("stages"):
        stages_value = values["stages"]
        build(ExitConfig, {"stages": stages_value}, source)  # its type first
        _check_stages(stages_value, source)
        if "generations" not in values:
            values = {**values, "generations": sum(e["generations"] for e in stages_value)}
    if isinstance(values, dict) and "start_train" in values and values["start_train"] is None:
        values = {**values, "start_train": ""}  # `--set start_train=` clears it, for a start: PATH instead
    elif isinstance(values, dict) and values.get("start_train"):
        if values.get("start"):
            raise ConfigError(f"keys 'start' and 'start_train' in {source} both name generation 0: keep one (start: a "
                              f"trained policy; start_train: a pitch train config trained first)")
        values = {**values, "start": ""}
    cfg = build(ExitConfig, values, source)
    if cfg.run_name:
        check_run_name(cfg.run_name, f"key 'run_name' in {source}")
    if not cfg.runs_dir.strip():
        raise ConfigError(f"key 'runs_dir' in {source} is empty: name a folder, e.g. runs")
    if not cfg.start and not cfg.start_train:
        raise ConfigError(f"key 'start' in {source} is empty; name the generation-0 policy, e.g. checkpoints/setback_base "
                          f"(or a pitch train config to train it from, as start_train)")
    if cfg.fold and cfg.target != "values":
        raise ConfigError(f"key 'fold' in {source} is true, which fits the fused candidate of target: values back into "
                          f"the best's size: set target: values, or fold: false")
    if (cfg.bid_weight is not None or any("bid_weight" in e for e in cfg.stages)) and not cfg.fold:
        raise ConfigError(f"key 'bid_weight' in {source} weighs the values at the bids apart from the other decisions, "
                          f"which only the fold can carry (one fused network has one weight): set target: values and "
                          f"fold: true, or remove it")
    if cfg.worlds_from == "dealt":
        if cfg.target != "values":
            raise ConfigError(f"key 'worlds_from' in {source} is 'dealt', which plays the network's own choices and "
                              f"records what every action would have made in the cards dealt: set target: values")
        if cfg.worlds != 1 or any(e.get("worlds", 1) != 1 for e in cfg.stages):
            raise ConfigError(f"key 'worlds_from' in {source} is 'dealt', one world (the cards dealt): set worlds: 1 "
                              f"(and no other in stages)")
        if cfg.from_trick:
            raise ConfigError(f"key 'from_trick' in {source} picks the decisions a search makes, and worlds_from: dealt "
                              f"records every decision without one: remove it, or set worlds_from: sampled")
        for key in DRAWING_KEYS:
            if getattr(cfg, key) != FIELDS[key].default:
                raise ConfigError(f"key {key!r} in {source} steers how worlds are drawn, and worlds_from: dealt draws "
                                  f"none (the cards dealt are the one world): remove it")
    rules = cfg.resolved_rules()
    if len(cfg.gate_panel) > MAX_PANEL:
        raise ConfigError(f"key 'gate_panel' in {source} names {len(cfg.gate_panel)} agents; at most {MAX_PANEL}")
    check_agent_specs([("gate_panel", spec) for spec in cfg.gate_panel], rules, source)
    if cfg.start_train:
        start_train_config(cfg, source)
        return cfg
    try:
        load_policy(cfg.start, rules)
    except (CheckpointError, FileNotFoundError, OSError) as e:
        raise ConfigError(f"key 'start' in {source}: {str(e).splitlines()[0]}") from None
    return cfg


START_RUN = "start"  # the folder of a run with start_train where generation 0 is trained


def start_train_config(cfg: ExitConfig, source: str):
    """The `pitch train` config ``cfg.start_train`` names, refused in one line unless it trains a policy
    for exactly this run's rules."""
    from .config import load_config

    where = f"key 'start_train' in {source}"
    try:
        tcfg = load_config(cfg.start_train)
    except ConfigError as e:
        raise ConfigError(f"{where}: {str(e).splitlines()[0]}") from None
    except OSError as e:
        raise ConfigError(f"{where}: cannot read {cfg.start_train!r} ({e.strerror or e}); name a pitch train config, "
                          f"e.g. configs/auction_scratch_ppo.yaml") from None
    if tcfg.resolved_rules() != cfg.resolved_rules():
        raise ConfigError(f"{where}: {cfg.start_train!r} trains {tcfg.variant} under other rules than this run's "
                          f"({cfg.variant}); name a config of the same game and rules")
    return tcfg


def train_start(cfg: ExitConfig, run_dir: Path, say, show: bool) -> None:
    """Generation 0 of a run with ``start_train``: that config's `pitch train` run in RUN/start/, started or
    resumed from its last checkpoint, trained to its end."""
    from .run import train

    where = run_dir / START_RUN
    kind = kind_of(where)
    if kind not in (None, "directory"):
        raise ResumeError(f"{str(where)!r} is a {kind}, not the folder where the run trains its start; remove it")
    if kind_of(where / "config.yaml") is not None:
        say(f"generation 0: continuing pitch train --config {cfg.start_train} in {where}")
        train(resume=where, show_progress=show)
        return
    if kind == "directory" and kind_of(where / "checkpoint") is not None:
        raise ResumeError(f"{str(where / 'config.yaml')!r} is missing, yet {str(where)!r} holds a checkpoint: restore "
                          f"the file, or start a new run")
    say(f"generation 0: pitch train --config {cfg.start_train}, in {where}")
    train(config_path=cfg.start_train, overrides=[f"runs_dir={run_dir}", f"run_name={START_RUN}"], show_progress=show)


def start_policy(cfg: ExitConfig, run_dir: Path) -> str:
    """What generation 0 is: ``start``, or the policy the ``start_train`` run trained."""
    return cfg.start or str(Path(run_dir) / START_RUN / "checkpoint" / WEIGHTS_FILE)


def _check_stages(entries: list, source: str) -> None:
    """Each stage names its ``generations`` and only STAGE_KEYS, each in its key's range."""
    if len(entries) > 100:
        raise ConfigError(f"key 'stages' in {source} has {len(entries)} stages; at most 100")
    for n, entry in enumerate(entries):
        where = f"stage {n + 1} of key 'stages' in {source}"
        wrong = [k for k in entry if k not in STAGE_KEYS]
        if wrong or "generations" not in entry:
            raise ConfigError(f"{where} sets {short(wrong or sorted(entry))}; a stage sets 'generations' and any of "
                              f"{', '.join(STAGE_KEYS[1:])}")
        for key, v in entry.items():
            whole = number_type(hints_of(ExitConfig)[key]) is int
            if whole and not is_of_type(v, int):
                raise ConfigError(f"key {key!r} of {where} is {short(v)}: {range_of(FIELDS[key]).fix(True)}")
            check_range(key, v, range_of(FIELDS[key]), f"of {where}", whole)


def load_exit_config(path, overrides: list[str] = ()) -> ExitConfig:
    """The config of a YAML file (or the defaults), with ``--set key=value`` overrides applied."""
    return load(ExitConfig, make_exit_config, path, overrides)


# ---------------------------------------------------------------------- recording
def record_part(cfg: ExitConfig, policy_path: str, n: int, seed: int, leaf_path: str | None = None
                ) -> dict[str, np.ndarray]:
    """Self-play games of the teacher at every seat until ``n`` searched decisions are recorded:
    the network's input and mask at each, the search's action as the network sees it, whether the
    search overrode the network there, and each legal action's mean outcome over the worlds (``q``,
    where the network sees the actions; 0 at illegal ones). The games run on the one game loop
    (pitch_env/loop.py ``play``): the teacher searches one decision at a time and keeps NetSearch's
    Decision, so the batched core (train/lockstep.py), which gathers many games' rows into one forward
    pass, has nothing to batch. ``leaf_path``: the game value the search scores its worlds with
    (``leaf: game``). With ``worlds_from: dealt`` there is no search: ``record_dealt`` records the part."""
    if cfg.worlds_from == "dealt":
        return record_dealt(cfg, policy_path, n, seed, leaf_path)
    from agents.netpimc import NetSearch
    from pitch_env.actions import ActionLayout
    from pitch_env.engine import Game
    from pitch_env.loop import play
    from pitch_env.observer import LiveTable, Observer
    from pitch_policy.canonical import shown_action
    from pitch_policy.game_value import load_game_value

    rules = cfg.resolved_rules()
    policy, _ = load_policy(policy_path, rules)
    rng = random.Random(seed)
    leaf = load_game_value(leaf_path, rules) if leaf_path else None
    search = NetSearch(policy, rules, cfg.worlds, rng, cfg.switch_z, leaf, read_bids=cfg.read_bids)
    live = LiveTable(Observer(rules))
    size = ActionLayout(rules).size
    xs, ms, ys, over, qs = [], [], [], [], []
    searched = late_tricks(cfg.from_trick)

    def teach(g: Game, seat: int) -> int:
        legal = g.legal_actions()
        if len(legal) == 1:
            return legal[0]
        d, _ = search.decide_in(g, seat, live, searched(g))
        if d.values is not None:  # searched
            xs.append(np.asarray(d.x, np.float32))
            ms.append(np.asarray(d.mask, bool))
            ys.append(shown_action(d.act_src, d.action))
            over.append(d.action != d.network)
            q = np.zeros(size, np.float32)
            for a, value in d.values.items():
                q[shown_action(d.act_src, a)] = value
            qs.append(q)
        return d.action

    while len(ys) < n:
        g = Game(rules, seed=rng.getrandbits(62))
        live.sync(g)
        # checked moves (not ``trusted``): the search picks from legal actions, and a slip would fail here
        play(g, teach, stop=lambda seat: len(ys) >= n, moved=live.after)
    return {"x": np.stack(xs), "mask": np.stack(ms), "y": np.asarray(ys, np.int64), "overrode": np.asarray(over),
            "q": np.stack(qs)}


def late_tricks(from_trick: int):
    """Game -> bool: whether the teacher searches the decision at hand (``from_trick``: every one at 0,
    else the cards of that trick and later)."""
    if not from_trick:
        return lambda g: True
    return lambda g: g.phase == PLAY and len(g.tricks) + 1 >= from_trick


LANES = 64  # games one dealt recording steps together (``record_dealt``)


def record_dealt(cfg: ExitConfig, policy_path: str, n: int, seed: int, leaf_path: str | None = None,
                 lanes: int = LANES) -> dict[str, np.ndarray]:
    """``record_part`` for ``worlds_from: dealt``, on the batched engine (stock games too: a copy of a
    batched game holds its hidden discards and stock): ``lanes`` self-play games of the network step
    together, and at every step each game at a searched decision (a bid, trump or card with a choice)
    has every legal action played out in its own cards in one batch of copies
    (``NetRollouts.in_own_cards``). The games are first played on without recording, until half of
    them have ended once, then each a random number of moves up to that many, so that the decisions a
    part keeps come from all stages of a game, as a long run of one game's decisions would, rather than
    from the games' openings (and no part waits on the longest of its games)."""
    from agents.batch_heuristic import BatchHeuristic
    from agents.netpimc import SEARCHED, NetRollouts
    from pitch_env.batch import BatchEngine
    from pitch_env.batch import kernels as K
    from pitch_policy.game_value import load_game_value

    import torch

    torch.set_num_threads(1)  # one per recording worker: two threads each on two cores ran it several times slower
    rules = cfg.resolved_rules()
    policy, _ = load_policy(policy_path, rules)
    rng = random.Random(seed)
    leaf = load_game_value(leaf_path, rules) if leaf_path else None
    net = NetRollouts(policy, rules, leaf)  # (``batched`` is how a search plays sampled worlds; copies are batched)
    e = BatchEngine(rules, lanes)
    heuristic = BatchHeuristic(e) if net.hint else None
    every = np.arange(lanes)
    e.reset([rng.getrandbits(62) for _ in every])

    def step(rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Each game ``rows`` takes its ``actions`` (the others wait); those that end are dealt anew: returns them."""
        if len(rows) == lanes:
            e.step(actions)
        else:
            for g, act in zip(rows.tolist(), actions.tolist()):
                e.step_game(g, act)
        over = np.flatnonzero(e.over)
        if over.size:
            e.reset([rng.getrandbits(62) for _ in over], over)
        return over

    # -- played on unrecorded, all games together, until half of them have ended once (``moves``: about a
    # game's length), then each a random number of moves up to that
    ended, moves = np.zeros(lanes, bool), 0
    while ended.sum() < lanes / 2:
        ended[step(every, net.choose(e, every, heuristic).action)] = True
        moves += 1
    skip = np.array([rng.randrange(moves) for _ in every])
    while (skip > 0).any():
        rows = np.flatnonzero(skip > 0)
        step(rows, net.choose(e, rows, heuristic).action)
        skip[rows] -= 1

    # -- recorded
    xs, ms, ys, qs, kept = [], [], [], [], 0
    while kept < n:
        x, m, ids, a, real = net.choose(e, every, heuristic)
        phase = e.I[:, K.PHASE]
        searched = np.flatnonzero(np.isin(phase, SEARCHED) & (e.mask.sum(1) > 1))[: n - kept]
        if searched.size:
            game_of, action, value = net.in_own_cards(e, searched)
            q = np.zeros((searched.size, net.A), np.float32)  # row j: game searched[j] (sorted, so searchsorted finds it)
            shown = action if ids is None else net.canon.act_dst[ids[game_of], action]
            q[np.searchsorted(searched, game_of), shown] = value
            xs.append(x[searched])
            ms.append(m[searched])
            ys.append(a[searched])
            qs.append(q)
            kept += searched.size
        step(every, real)
    return {"x": np.concatenate(xs).astype(np.float32), "mask": np.concatenate(ms).astype(bool),
            "y": np.concatenate(ys).astype(np.int64), "overrode": np.zeros(n, bool), "q": np.concatenate(qs)}


def _record_task(args) -> tuple[int, dict]:
    cfg_dict, policy_path, n, seed, index, leaf_path = args
    return index, record_part(ExitConfig(**cfg_dict), policy_path, n, seed, leaf_path)


# ---------------------------------------------------------------------- the game value (leaf: game)
def _scores_task(args) -> dict:
    from .game_value import play_scores

    cfg_dict, policy_path, games, seed = args
    return play_scores(ExitConfig(**cfg_dict).resolved_rules(), policy_path, games, seed)


def _value_task(cfg_dict: dict, chunks: list[dict], seed: int):
    import torch

    from .game_value import fit_game_value

    cfg = ExitConfig(**cfg_dict)
    torch.set_num_threads(cfg.torch_threads)
    for j, c in enumerate(chunks):  # each chunk numbers its games from 0: number them across the run
        c["game"] = c["game"] + j * VALUE_CHUNK
    data = {key: np.concatenate([c[key] for c in chunks]) for key in chunks[0]}
    value, stats = fit_game_value(cfg.resolved_rules(), data, seed)
    return value.net.layers, stats


def game_value_for(cfg: ExitConfig, run: "Run", say, stop=None) -> str | None:
    """With ``leaf: game``, the run's game value file (pitch_policy/game_value.py): fitted once, before
    its first generation, to ``leaf_games`` self-play games of the best network then (the start), and
    read back checked on a resume; None with ``leaf: hand``. The games are played in chunks of
    ``VALUE_CHUNK``, each seeded by its number, so the fit does not depend on ``workers``; a stop
    between chunks leaves nothing written, and a resume plays them again."""
    from pitch_policy.game_value import FILE, GameValue, load_game_value, save_game_value

    if cfg.leaf != "game":
        return None
    rules = cfg.resolved_rules()
    path = run.path / FILE
    if kind_of(path) is not None:
        load_game_value(path, rules)
        return str(path)
    t0 = time.perf_counter()
    say(f"game value: {cfg.leaf_games:,} self-play games of the start network ({cfg.workers} workers)")
    tasks = [(asdict(cfg), str(run.best), min(VALUE_CHUNK, cfg.leaf_games - first), _seed(cfg.seed, 0, -3 - j))
             for j, first in enumerate(range(0, cfg.leaf_games, VALUE_CHUNK))]
    chunks = []
    with _pool(cfg.workers) as pool:
        for chunk in pool.ordered(_scores_task, tasks):
            chunks.append(chunk)
            if stop is not None and stop:
                raise KeyboardInterrupt  # leaving the pool ends its workers
    with _pool(1) as pool:
        layers, stats = pool.apply(_value_task, (asdict(cfg), chunks, _seed(cfg.seed, 0, -2) % 2**31))
    stats["wall_s"] = time.perf_counter() - t0
    save_game_value(path, GameValue(rules, layers), stats)
    say(f"game value: fitted to {stats['rows']:,} hand starts of {stats['games']:,} games in "
        f"{stats['wall_s'] / 60:.1f} min; held-out log loss {stats['held_out_log_loss']:.4f} "
        f"(the base rate's {stats['base_rate_log_loss']:.4f})")
    return str(path)


def save_part(path: Path, part: dict) -> None:
    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, **part)

    atomic_write(path, write)


def load_part(path: Path, in_size: int, actions: int, rows: int = PART) -> dict[str, np.ndarray]:
    """A recorded part, refusing anything that is not exactly the arrays ``record_part`` writes: ``rows``
    decisions of this run's input and action sizes (read by train/runfiles.py, headers first)."""
    fix = "delete it to record it again"
    arrays = {"x": Array(np.float32, ("n", in_size), finite=True), "mask": Array(bool, ("n", actions)),
              "y": Array(np.int64, ("n",)), "overrode": Array(bool, ("n",)),
              "q": Array(np.float32, ("n", actions), finite=True)}
    try:
        part = read_npz(path, arrays, (rows, rows), rows * (4 * in_size + 5 * actions + 9), "recorded part", fix)
    except ConfigError as e:
        raise CheckpointError(str(e)) from None
    n = len(part["y"])
    if not (bool((part["y"] >= 0).all()) and bool((part["y"] < actions).all())
            and bool(part["mask"][np.arange(n), part["y"]].all())):
        raise CheckpointError(f"recorded part {str(path)!r} does not hold this run's decisions (its actions are not "
                              f"among its legal ones); {fix}")
    if not bool((np.abs(part["q"]) <= MAX_VALUE).all()):
        raise CheckpointError(f"recorded part {str(path)!r} holds action values beyond ±{MAX_VALUE:g} points, which no "
                              f"hand's outcome reaches; {fix}")
    return part


# ---------------------------------------------------------------------- fitting
def fit(policy: PolicyMLP, x: np.ndarray | Inputs, mask: np.ndarray, y: np.ndarray, q: np.ndarray, cfg: ExitConfig,
        seed: int) -> tuple[PolicyMLP, dict]:
    """``policy`` fitted by cross-entropy to its targets (5% held out to measure its agreement with the
    search's actions ``y``). With ``target: search`` the target is ``y``; with ``target: soft`` it is the
    distribution ``policy(a) * exp(q(a) / temperature)`` over the legal actions: the starting network's
    own policy, each action's odds raised by what the search measured it worth (``q``, a hand's points),
    so a near-tie moves the network little and a clear difference moves it far."""
    import torch

    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    hold, train = _split(len(y), rng)
    net = _torch_net(policy)
    M = torch.from_numpy(mask)
    target = torch.from_numpy(y)  # cross_entropy takes a class per row or a distribution per row
    if cfg.target == "soft":
        with torch.no_grad():  # illegal actions keep the masked logits' zero probability
            X = torch.from_numpy(x[:])  # an array's view, or the Inputs read back whole
            target = torch.softmax(torch.log_softmax(_masked(net(X), M), 1) + torch.from_numpy(q) / cfg.temperature, 1)
            del X

    before = _agreement(policy, x, mask, y, hold)
    loss = _cross_entropy_fit(net, x, M, target, train, rng, cfg)
    fitted = _policy_of(net, policy)
    stats = {"held_out_accuracy_before": before, "held_out_accuracy": _agreement(fitted, x, mask, y, hold),
             "train_accuracy": _agreement(fitted, x, mask, y, train), "loss": loss}
    return fitted, stats


def fit_values(policy: PolicyMLP, card: dict, x: np.ndarray | Inputs, mask: np.ndarray, y: np.ndarray, q: np.ndarray,
               cfg: ExitConfig, seed: int) -> tuple[PolicyMLP, PolicyMLP, dict]:
    """The action-value network of ``target: values``: ``policy``'s hidden layers as its start, its output
    layer zero, fitted by squared error over the legal actions to ``q`` less the legal actions' mean
    (5% held out). Adam, the learning rate decaying linearly to zero. Returns (the fit, the candidate:
    ``policy`` and the fit fused with weights 1 and ``value_weight`` (pitch_policy/fuse.py), with
    ``fold`` that fused network fitted back into ``policy``'s size (``fold``; with ``bid_weight`` the bids'
    values weighed by it in what is fitted), statistics).
    The statistics are the agreement with the search's actions ``y`` of ``policy`` alone (before) and of
    the candidate (after), the last epoch's mean squared error (``loss``) and, with ``fold``, how often
    the folded network picks the action of what it was fitted to on the held-out rows (``fold_agreement``)."""
    import torch

    from pitch_policy.fuse import fuse

    from .network import linears

    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    hold, train = _split(len(y), rng)
    net = _torch_net(policy)
    with torch.no_grad():
        linears(net)[-1].weight.zero_()
        linears(net)[-1].bias.zero_()
    legal = torch.from_numpy(mask).float()
    Q = torch.from_numpy(q)
    Q = (Q - (Q * legal).sum(1, keepdim=True) / legal.sum(1, keepdim=True).clamp(min=1)) * legal
    before = _agreement(policy, x, mask, y, hold)
    loss = _train(net, train, rng, cfg, lambda idx: (((net(_rows(x, idx)) - Q[idx]) * legal[idx]) ** 2).sum()
                  / legal[idx].sum().clamp(min=1))
    values = _policy_of(net, policy)
    stats = {"held_out_accuracy_before": before, "loss": loss}
    if cfg.fold:
        probs = _fold_target(policy, values, cfg, x, mask)
        cand = fold(policy, probs, x, mask, train, cfg, rng)
        stats["fold_agreement"] = _agreement(cand, x, mask, probs.argmax(1).numpy(), hold)
    else:
        cand, _ = fuse([(policy, card, "the best"), (values, card, "its action values")], [1.0, cfg.value_weight])
    stats.update(held_out_accuracy=_agreement(cand, x, mask, y, hold), train_accuracy=_agreement(cand, x, mask, y, train))
    return values, cand, stats


def _fold_target(policy: PolicyMLP, values: PolicyMLP, cfg: ExitConfig, x: np.ndarray | Inputs, mask: np.ndarray):
    """What the fold fits, each row's distribution over its legal actions: the softmax of the best's logits
    plus the fitted values times ``value_weight`` (the fused network's logits, pitch_policy/fuse.py), or
    times ``bid_weight`` at the bids (``pitch_env.actions.bid_rows``: the rows whose mask allows a bid)."""
    import torch

    from pitch_env.actions import ActionLayout, bid_rows

    at_bids = cfg.value_weight if cfg.bid_weight is None else cfg.bid_weight
    bids = bid_rows(mask, ActionLayout(cfg.resolved_rules()).auction_size)
    weight = np.where(bids, np.float32(at_bids), np.float32(cfg.value_weight))[:, None]
    M = torch.from_numpy(mask)
    probs = torch.empty(mask.shape, dtype=torch.float32)  # filled in blocks, as _greedy: one copy, not two
    for i in range(0, len(mask), 8192):
        b = slice(i, i + 8192)
        xb = x[b]
        probs[b] = torch.softmax(_masked(torch.from_numpy(policy.logits(xb) + weight[b] * values.logits(xb)), M[b]), 1)
    return probs


def fold(policy: PolicyMLP, probs, x: np.ndarray | Inputs, mask: np.ndarray, train: np.ndarray,
         cfg: ExitConfig, rng) -> PolicyMLP:
    """``probs`` (a distribution per row over its legal actions, ``_fold_target``) fitted into a network of
    ``policy``'s shape (``fold: true``): started from ``policy``, cross-entropy to ``probs`` on the rows
    ``train``, the same epochs, batches and learning rate as the fit of the values."""
    import torch

    net = _torch_net(policy)
    _cross_entropy_fit(net, x, torch.from_numpy(mask), probs, train, rng, cfg)
    return _policy_of(net, policy)


def _masked(z, mask):
    """Logits ``z`` with the illegal actions (``mask`` false) at -1e9: probability zero after a softmax."""
    return z.masked_fill(~mask, -1e9)


def _cross_entropy_fit(net, x, M, target, train: np.ndarray, rng, cfg: ExitConfig) -> float:
    """``net`` fitted to ``target`` (a class or a distribution per row) by cross-entropy over the legal
    actions of the rows ``train`` (inputs ``x``: an array or ``Inputs``); the last pass's mean loss."""
    import torch

    return _train(net, train, rng, cfg,
                  lambda idx: torch.nn.functional.cross_entropy(_masked(net(_rows(x, idx)), M[idx]), target[idx]))


def _rows(x, idx):
    """The inputs ``x`` (an array or ``Inputs``) of the rows ``idx`` (a torch index) as a float32 tensor."""
    import torch

    return torch.from_numpy(x[idx.numpy()])


def _greedy(policy: PolicyMLP, x: np.ndarray | Inputs, mask: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``policy``'s most likely legal action at each of ``rows`` (an array as long as ``x``; other rows 0)."""
    out = np.zeros(len(x), dtype=np.int64)
    for start in range(0, len(rows), 8192):  # a wide hidden layer over 200,000 rows at once would not fit in memory
        idx = rows[start:start + 8192]
        out[idx] = np.where(mask[idx], policy.logits(x[idx]), -np.inf).argmax(1)
    return out


def _agreement(policy: PolicyMLP, x: np.ndarray | Inputs, mask: np.ndarray, y: np.ndarray, rows: np.ndarray) -> float:
    """The share of ``rows`` whose most likely legal action under ``policy`` is the search's, ``y``."""
    return float((_greedy(policy, x, mask, rows)[rows] == y[rows]).sum()) / max(1, len(rows))


def _train(net, train: np.ndarray, rng, cfg: ExitConfig, loss_of) -> float:
    """``cfg.epochs`` passes of Adam over the rows ``train`` in shuffled batches, the learning rate
    decaying linearly to zero, minimising ``loss_of(batch's row indices)``; the last pass's mean loss."""
    import torch

    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    steps = cfg.epochs * math.ceil(len(train) / cfg.batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 1.0 - k / steps)
    loss_sum = 0.0
    for _ in range(cfg.epochs):
        perm = rng.permutation(train)
        loss_sum = 0.0
        for start in range(0, len(perm), cfg.batch_size):
            idx = torch.from_numpy(perm[start:start + cfg.batch_size])
            loss = loss_of(idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum += loss.item() * len(idx)
    return loss_sum / max(1, len(train))


def _split(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """The rows held out (5%, at least one) and those fitted."""
    order = rng.permutation(n)
    return order[:max(1, n // 20)], order[max(1, n // 20):]


def _torch_net(policy: PolicyMLP):
    """A copy of ``policy`` as the training code's torch MLP (train/network.py ``mlp``): its logits, unmasked."""
    import torch

    from .network import linears, mlp

    net = mlp(policy.shape, policy.activation)
    with torch.no_grad():
        for lin, (w, b) in zip(linears(net), policy.layers):
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
    return net


def _policy_of(net, like: PolicyMLP) -> PolicyMLP:
    """The weights of the torch MLP ``net`` as a policy reading its input as ``like`` does."""
    from .network import as_layers

    return PolicyMLP(as_layers(net), like.activation, like.transform, like.hint)


class Inputs:
    """The network inputs of a fit's decisions, each number kept as two bytes: its index among the distinct
    numbers they hold (one-hot cards, scores over the target score: a few hundred in all). Half the
    memory of float32 (a fit of 5,000,000 ten_point decisions: 6.8 GB of inputs, not 13.7); indexing
    gives float32 rows, bit for bit the numbers recorded. ``put`` says False, and keeps nothing, for
    a part that would take the distinct numbers past 65,536: ``load_parts`` then holds them as float32."""

    CODE = np.uint16
    MOST = int(np.iinfo(CODE).max) + 1

    def __init__(self, n: int, size: int):
        self.codes = np.empty((n, size), self.CODE)
        self.values = np.empty(0, np.float32)  # code -> number
        self._keys = np.empty(0, np.uint32)  # the numbers' bits, sorted, and their codes
        self._codes_of = np.empty(0, self.CODE)

    @property
    def shape(self) -> tuple[int, int]:
        return self.codes.shape

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, rows) -> np.ndarray:
        return self.values[self.codes[rows]]

    def put(self, rows: slice, x: np.ndarray) -> bool:
        bits = np.ascontiguousarray(x, np.float32).view(np.uint32)  # bits: -0.0 stays -0.0
        at = np.searchsorted(self._keys, bits)
        known = self._keys[np.minimum(at, len(self._keys) - 1)] == bits if len(self._keys) else np.zeros(bits.shape, bool)
        if not known.all():
            new = np.unique(bits[~known])
            if len(self.values) + len(new) > self.MOST:
                return False
            self.values = np.concatenate([self.values, new.view(np.float32)])
            order = np.argsort(self.values.view(np.uint32), kind="stable")
            self._keys, self._codes_of = self.values.view(np.uint32)[order], order.astype(self.CODE)
            at = np.searchsorted(self._keys, bits)
        self.codes[rows] = self._codes_of[at]
        return True

    def as_array(self, filled: int) -> np.ndarray:
        """A float32 array of as many rows, the first ``filled`` of them these inputs'."""
        out = np.empty(self.codes.shape, np.float32)
        for i in range(0, filled, 8192):
            out[i:min(filled, i + 8192)] = self[i:min(filled, i + 8192)]
        return out


def load_parts(paths: list, size: int, actions: int) -> tuple:
    """The decisions of the parts ``paths`` (each checked by ``load_part``) as one array per field: the
    network's inputs (``Inputs``), masks, recorded actions, action values and whether the search overrode
    the network. Each part is read into its rows of arrays made once: a list of parts and then their
    concatenation would hold every decision twice."""
    n = len(paths) * PART
    x, mask = Inputs(n, size), np.empty((n, actions), bool)
    y, q, overrode = np.empty(n, np.int64), np.empty((n, actions), np.float32), np.empty(n, bool)
    for i, path in enumerate(paths):
        d, rows = load_part(Path(path), size, actions), slice(i * PART, (i + 1) * PART)
        if isinstance(x, Inputs) and not x.put(rows, d["x"]):
            x = x.as_array(rows.start)
        if not isinstance(x, Inputs):
            x[rows] = d["x"]
        mask[rows], y[rows], q[rows], overrode[rows] = d["mask"], d["y"], d["q"], d["overrode"]
    return x, mask, y, q, overrode


def fit_parts(cfg: ExitConfig, run: "Run", generation: int) -> tuple[list[Path], int, int]:
    """What the fit of ``generation`` reads: the parts of the generations it replays and its own (in that
    order), how many of them are its own, and its seed."""
    stage = stage_of(cfg, generation)
    earlier = [run.part(g, j) for g in _replayed(cfg, generation)[:-1] for j in range(_wanted(cfg, g))]
    here = [run.part(generation, j) for j in range(_wanted(cfg, generation))]
    return earlier + here, len(here), _seed(stage.seed, stage.local(generation), -1)


def _fit_task(cfg_dict: dict, best_path: str, part_paths: list[str], current: int, seed: int):
    """In a worker process: the best policy fitted to the recorded parts, of which the last ``current``
    are this generation's; the candidate and its statistics (with how many decisions it was fitted to,
    how many this generation recorded and how often the search overrode the network in them)."""
    from pitch_env.actions import ActionLayout

    cfg = ExitConfig(**cfg_dict)
    rules = cfg.resolved_rules()
    best, card = load_policy(best_path, rules)
    x, mask, y, q, overrode = load_parts(part_paths, best.shape[0], ActionLayout(rules).size)
    here = overrode[len(y) - current * PART:]
    if cfg.target == "values":
        _, cand, stats = fit_values(best, card, x, mask, y, q, cfg, seed)
    else:
        cand, stats = fit(best, x, mask, y, q, cfg, seed)
    cand.transform = None  # rebuilt from the card by whoever loads it; not sent back through the pipe
    return cand, dict(stats, fitted=int(len(y)), decisions=int(len(here)), overrode=float(here.mean()))


# ---------------------------------------------------------------------- the run
RUN_FORMAT = "pitch-exit-run/1"
MAX_RUN_FILE = 1 << 20  # config.json and generations.json are a few kilobytes
MAX_POLICY_FILE = 1 << 30  # a policy file whose hash a run records (the shipped ones are about 1 MB)


def read_run_json(path: Path, key: str):
    """``key`` of a run file pitch wrote (config.json, generations.json), refusing anything else in one line."""
    if kind_of(path) is None:
        raise ConfigError(f"{str(path)!r} is missing: is {str(path.parent)!r} an expert-iteration run directory?")
    return read_json(path, MAX_RUN_FILE, "run file", RUN_FORMAT).get(key)


def saved_config(run_dir: Path) -> tuple[dict, "ExitConfig"]:
    """A run's config.json: its keys as saved and the config they make (checked, refused in one line)."""
    path = Path(run_dir) / "config.json"
    saved = read_run_json(path, "config")
    return saved, make_exit_config(saved, str(path))


def write_run_json(path: Path, **values) -> None:
    text = json.dumps({"format": RUN_FORMAT, **values}, indent=1)
    atomic_write(path, lambda tmp: Path(tmp).write_text(text))


_SHARE = (float, 0.0, 1.0)
_SECONDS = (float, 0.0, 1e9)
# every field of a row of generations.json, (type, lowest, highest); OPTIONAL: absent from older runs' rows
ROW_KEYS = {"generation": (int, 1, 1000), "worlds": (int, 1, 1000), "fitted": (int, PART, 10**11),
            "decisions": (int, PART, 10**8), "overrode": _SHARE, "held_out_accuracy_before": _SHARE,
            "held_out_accuracy": _SHARE, "train_accuracy": _SHARE, "loss": (float, 0.0, 1e9),
            "gate_games": (int, 2, 10**6), "gate_win_rate": _SHARE, "gate_low": _SHARE, "gate_high": _SHARE,
            "kept": (bool, None, None), "record_s": _SECONDS, "fit_s": _SECONDS, "gate_s": _SECONDS,
            "wall_s": _SECONDS, "fold_agreement": _SHARE}
OPTIONAL = ("worlds", "train_accuracy", "loss", "record_s", "fit_s", "gate_s", "fold_agreement")
PANEL_KEYS = {"agent": (str, None, None), "games": (int, 2, 10**6), "candidate": _SHARE, "best": _SHARE}
BEST_KEYS = {"generation": (int, 0, 1000), "sha256": (str, None, None), "bytes": (int, 1, MAX_POLICY_FILE)}
SHA256 = re.compile(r"[0-9a-f]{64}")


def _wanted(cfg: ExitConfig, generation: int) -> int:
    """The parts generation ``generation`` records (part_0.npz … part_{wanted-1}.npz, PART decisions each)."""
    return math.ceil(stage_of(cfg, generation).decisions / PART)


def _replayed(cfg: ExitConfig, generation: int) -> range:
    """The generations whose decisions the fit of ``generation`` uses: itself and the ``replay - 1``
    before it, within its stage."""
    return range(max(stage_of(cfg, generation).first, generation - cfg.replay + 1), generation + 1)


def lost_ground(result: dict) -> bool:
    """Whether a candidate did significantly worse than the best against a panel agent (one result of
    ``play_panel``): its win rate below the best's by more than the 95% normal quantile of standard errors
    (agents/stats.py ``below``)."""
    return below(result["candidate"], result["best"], result["games"])


def kept_by(cfg: ExitConfig, win_rate: float, panel: list[dict]) -> bool:
    """The gate's verdict: the candidate beat the best by more than ``gate_min`` and lost ground against no
    agent of the panel (played only once it has beaten the best)."""
    return win_rate > cfg.gate_min and not any(lost_ground(e) for e in panel)


class Run:
    """A run directory and its state, ``generations.json``: one row per finished generation, and which
    generation is the best with the size and SHA-256 of its weights file (what ``best.safetensors`` must
    hold), and the seconds spent so far recording the next generation's parts (``recording_s``: a resumed
    generation's ``record_s`` counts every process that recorded for it; cleared with the row it ends in). Everything is read by
    train/runfiles.py and checked field by field."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.table_path = self.path / "generations.json"
        self.rows: list[dict] = []
        self.best_record: dict | None = None  # None: a run not started yet, or one written by an older version
        self.recording_s = 0.0  # the next generation's recording so far
        self.started = kind_of(self.table_path) is not None
        if not self.started:  # the state is written before gen_1/ is made; older versions wrote it later
            later = [p for p in (self.gen_dir(2), self.gen_dir(1) / WEIGHTS_FILE) if kind_of(p) is not None]
            if later:
                raise ResumeError(f"{str(self.table_path)!r} is missing, yet {str(later[0])!r} exists: the record "
                                  f"of the run's generations is lost; restore it or start a new run")
            return
        data = read_json(self.table_path, MAX_RUN_FILE, "run file", RUN_FORMAT)
        where = f"{str(self.table_path)!r}"
        if set(data) - {"format", "generations", "best", "recording_s"} or not isinstance(data.get("generations"), list):
            raise ResumeError(f"{where} does not hold this run's generations; restore it or start a new run")
        for k, row in enumerate(data["generations"]):
            check_fields({key: v for key, v in row.items() if key != "panel"} if isinstance(row, dict) else row,
                         ROW_KEYS, f"{where}, row {k + 1},", OPTIONAL)
            panel = row.get("panel", [])
            if not isinstance(panel, list) or len(panel) > MAX_PANEL:
                raise ResumeError(f"{where}, row {k + 1}: 'panel' is not the list of results the run writes; restore "
                                  f"the file or start a new run")
            for entry in panel:
                check_fields(entry, PANEL_KEYS, f"{where}, row {k + 1}, a panel result,")
            if row["generation"] != k + 1:
                raise ResumeError(f"{where}: row {k + 1} is of generation {row['generation']}; restore the file or "
                                  f"start a new run")
        self.rows = data["generations"]
        if "best" in data:
            best = check_fields(data["best"], BEST_KEYS, f"{where}, its best,")
            if not SHA256.fullmatch(best["sha256"]) or best["generation"] != self.best_generation():
                raise ResumeError(f"{where} names generation {best['generation']} as the best, but its rows keep "
                                  f"generation {self.best_generation()}; restore the file or start a new run")
            self.best_record = best
        if "recording_s" in data:
            self.recording_s = check_fields(data, {"recording_s": _SECONDS}, where, others=True)["recording_s"]

    @property
    def best(self) -> Path:
        return self.path / "best.safetensors"

    def gen_dir(self, k: int) -> Path:
        return self.path / f"gen_{k}"

    def part(self, k: int, j: int) -> Path:
        return self.gen_dir(k) / f"part_{j}.npz"

    def best_generation(self, before: int | None = None) -> int:
        """The last generation (before ``before``: the best that generation started from) whose candidate
        the gate kept (0: none, the start is the best)."""
        return max([r["generation"] for r in self.rows[:None if before is None else before - 1] if r["kept"]],
                   default=0)

    def record_best(self, generation: int, weights: Path) -> None:
        """Note ``weights`` (its size and hash) as the best, generation ``generation``'s, in the state."""
        size = regular_file(weights, MAX_POLICY_FILE, "policy file")
        self.best_record = {"generation": generation, "sha256": sha256_of(weights, MAX_POLICY_FILE, "policy file"),
                            "bytes": size}

    def holds_best(self, path: Path) -> bool:
        """Whether ``path`` is a regular file holding exactly the recorded best weights."""
        rec = self.best_record
        return (kind_of(path) == "file" and path.stat().st_size == rec["bytes"]
                and sha256_of(path, rec["bytes"], "policy file") == rec["sha256"])

    def save(self) -> None:
        extra = {"recording_s": self.recording_s} if self.recording_s else {}
        write_run_json(self.table_path, generations=self.rows, best=self.best_record, **extra)

    def add(self, row: dict) -> None:
        self.rows.append(row)
        self.recording_s = 0.0
        self.save()

    def recorded(self, seconds: float) -> None:
        """Note ``seconds`` spent in all on recording the next generation's parts so far."""
        self.recording_s = seconds
        self.save()

    def check(self, cfg: ExitConfig) -> None:
        """Each finished row is what this config's writer writes (its decisions, its gate's verdict, the
        decisions its fit replayed); refused in one line otherwise."""
        cfg = replace(cfg, generations=max(cfg.generations, len(self.rows)))  # a resume may ask for fewer
        for r in self.rows:
            k = r["generation"]
            fitted = sum(_wanted(cfg, g) * PART for g in _replayed(cfg, k))
            wrong = [key for key, ok in (("decisions", r["decisions"] == _wanted(cfg, k) * PART),
                                         ("fitted", r["fitted"] == fitted),
                                         ("kept", r["kept"] == kept_by(cfg, r["gate_win_rate"], r.get("panel", []))),
                                         ("panel", [e["agent"] for e in r.get("panel", [])]
                                          == (cfg.gate_panel if r["gate_win_rate"] > cfg.gate_min else [])),
                                         ("fold_agreement", ("fold_agreement" in r) == cfg.fold),
                                         ("worlds", r.get("worlds", stage_of(cfg, k).worlds) == stage_of(cfg, k).worlds))
                     if not ok]
            if wrong:
                raise ResumeError(f"{str(self.table_path)!r}: row {k} is not this run's (its {wrong[0]!r} is not what "
                                  f"this run's config gives); restore the file or start a new run")

    def present_parts(self, cfg: ExitConfig, k: int, all_needed: bool) -> list[int]:
        """The parts of generation ``k`` on disk (part_J.npz, J in 0 … its wanted count - 1), each a regular
        file; ``all_needed``: a finished generation, whose parts must all be there."""
        gdir = self.gen_dir(k)
        kind = kind_of(gdir)
        if kind not in (None, "directory"):
            raise ResumeError(f"{str(gdir)!r} is a {kind}, not the folder the run wrote; remove it")
        found = []
        for j in range(_wanted(cfg, k)):
            kind = kind_of(self.part(k, j)) if kind is not None else None
            if kind is None and all_needed:
                raise ResumeError(f"{str(self.part(k, j))!r} is missing: generation {k} is finished and a fit reads its "
                                  f"decisions; restore it, or start a new run")
            if kind not in (None, "file"):
                raise ResumeError(f"{str(self.part(k, j))!r} is a {kind}, not a part the run wrote; remove it to "
                                  f"record it again")
            if kind is not None:
                found.append(j)
        return found


def open_run(cfg: ExitConfig, run_dir: Path) -> tuple[Run, list[int]]:
    """The run in ``run_dir`` checked before any work (train/runfiles.py reads every file): its state,
    its best weights (restored from the kept generation's file when a kill interrupted the copy, refused
    when missing or different), the parts the next fit replays and those already recorded for the next
    generation; returns the run and the parts that generation still has to record. Everything is
    checked before anything is written, so a refused run is left as it was."""
    rules = cfg.resolved_rules()
    run = Run(run_dir)
    run.check(cfg)
    if kind_of(run.best) == "directory":
        raise ResumeError(f"{str(run.best)!r} is a directory, not the run's best weights; remove it")
    best_k = run.best_generation()
    kept = run.gen_dir(best_k) / WEIGHTS_FILE
    legacy = run.started and run.best_record is None
    if legacy:  # written by an older version: record what it trusted
        run.record_best(best_k, kept if best_k and kind_of(kept) == "file" else run.best)
    source = start_policy(cfg, run_dir)
    if run.started:
        source = run.best if run.holds_best(run.best) else kept if best_k and run.holds_best(kept) else None
        if source is None:
            what = "is missing" if kind_of(run.best) is None else "does not hold them"
            raise ResumeError(f"{str(run.best)!r} {what}: generations.json records generation {best_k}'s weights "
                              f"as the best{f' and {str(kept)!r} does not hold them either' if best_k else ''}; "
                              f"restore the file, or start a new run")
    policy, card = load_policy(source, rules)  # refuses weights for other rules, damaged or not
    k = len(run.rows) + 1
    todo = []
    if k <= cfg.generations:
        in_size, actions = policy.shape[0], _action_size(rules)
        check_fit_memory(cfg, range(k, cfg.generations + 1), in_size, actions)
        for g in _replayed(cfg, k)[:-1]:
            for j in run.present_parts(cfg, g, all_needed=True):
                load_part(run.part(g, j), in_size, actions)
        have = run.present_parts(cfg, k, all_needed=False)
        for j in have:
            load_part(run.part(k, j), in_size, actions)
        todo = [j for j in range(_wanted(cfg, k)) if j not in have]
    # -- all checked: now the writes
    remove_debris(run.path)  # writes a kill interrupted (atomic_write's temporary files)
    for g in range(1, k + 1):
        remove_debris(run.gen_dir(g))
    if not run.started:  # a new run (or one killed before its state was first written)
        save_policy(run.best, policy, dict(card, exit={"generation": 0, "start": cfg.start or cfg.start_train}))
        run.record_best(0, run.best)
        run.save()
    elif legacy:
        run.save()
    if source == kept:  # a kill between the gate's verdict and the copy
        atomic_write(run.best, lambda tmp: shutil.copyfile(kept, tmp))
    return run, todo


FIT_BYTES_PER_INPUT = np.dtype(Inputs.CODE).itemsize  # a number of a decision's network input as a fit holds it
FIT_BYTES_PER_ACTION = 17  # a decision's mask (1) and values (4) as loaded, and the fit's float copies of them


def check_fit_memory(cfg: ExitConfig, generations: range, in_size: int, actions: int,
                     fix: str = "lower decisions or replay") -> None:
    """Before any work: ResumeError (one line) if the fit of one of ``generations`` would hold more
    decisions than this machine's memory, which the out-of-memory killer would find out
    only after hours of recording. Every fit holds its decisions (its own and those it replays) at once:
    the network's input (2 bytes a number, ``Inputs``), the mask and values, the action."""
    from agents.workers import total_memory

    total = total_memory()
    if total is None:
        return
    most = max(sum(_wanted(cfg, g) * PART for g in _replayed(cfg, k)) for k in generations)
    need = most * (FIT_BYTES_PER_INPUT * in_size + FIT_BYTES_PER_ACTION * actions + 9)
    if need > total:
        raise ResumeError(f"a fit of {most:,} decisions (decisions × the generations a fit replays) needs about "
                          f"{need / 2**30:.1f} GB of memory and this machine has {total / 2**30:.1f} GB: {fix}")


def _action_size(rules) -> int:
    from pitch_env.actions import ActionLayout

    return ActionLayout(rules).size


def run_exit(cfg: ExitConfig, run_dir: Path, show: bool = True, stop=None, resumed: bool = False) -> Run:
    """Run (or continue) the generations of ``cfg`` in ``run_dir``; ``resumed``: save ``cfg`` (a resume's
    --set) as the run's config once the run is checked, so a refused resume leaves the run as it was."""
    from agents.tournament import run_tournament

    def say(text: str) -> None:
        if show:
            print(text, flush=True)

    rules = cfg.resolved_rules()
    if cfg.start_train and not Run(run_dir).started:
        train_start(cfg, run_dir, say, show)
    run, todo = open_run(cfg, run_dir)
    if resumed:
        write_run_json(run.path / "config.json", config=asdict(cfg))

    first = len(run.rows) + 1
    leaf = game_value_for(cfg, run, say, stop) if first <= cfg.generations else None
    for k in range(first, cfg.generations + 1):
        t0 = time.perf_counter()
        stage = stage_of(cfg, k)
        local = stage.local(k)
        scfg = replace(cfg, worlds=stage.worlds, decisions=stage.decisions, seed=stage.seed,
                       bid_weight=stage.bid_weight)  # what this stage runs
        _, card = load_policy(run.best, rules)
        gdir = run.gen_dir(k)
        gdir.mkdir(parents=True, exist_ok=True)
        # -- record (the first generation of a resumed run: only the parts open_run found missing)
        wanted = _wanted(cfg, k)
        todo = todo if k == len(run.rows) + 1 and k == first else list(range(wanted))
        rec_t0 = time.perf_counter()
        earlier_s = run.recording_s  # before a resume; 0 for a generation this process starts
        if todo:
            say(f"generation {k}: recording {len(todo) * PART:,} decisions of {teacher_name(cfg, scfg.worlds)} "
                f"({cfg.workers} workers)")
            tasks = [(asdict(scfg), str(run.best), PART, _seed(scfg.seed, local, j), j, leaf) for j in todo]
            with _pool(cfg.workers) as pool:
                for done, (j, part) in enumerate(pool.unordered(_record_task, tasks), 1):
                    save_part(run.part(k, j), part)
                    el = time.perf_counter() - rec_t0
                    run.recorded(earlier_s + el)
                    if show:
                        print(f"\r  {done}/{len(todo)} parts, {el:.0f} s", end="", flush=True)
                    if stop is not None and stop:
                        raise KeyboardInterrupt  # leaving the pool ends its workers
            say("")
        record_s = earlier_s + time.perf_counter() - rec_t0
        if stop is not None and stop:
            raise KeyboardInterrupt
        # -- fit
        paths, current, fit_seed = fit_parts(cfg, run, k)
        fit_t0 = time.perf_counter()
        with _pool(1) as pool:
            cand, stats = pool.apply(_fit_task, (asdict(scfg), str(run.best), [str(p) for p in paths], current,
                                                 fit_seed))
        fit_s = time.perf_counter() - fit_t0
        steps = int(card.get("training_steps", 0)) + stats["fitted"]
        cand_path = gdir / WEIGHTS_FILE
        save_policy(cand_path, cand, dict(card, network={"shape": cand.shape, "activation": cand.activation},
                                          training_steps=steps, exit={"generation": k, "config": asdict(scfg)}))
        if cfg.worlds_from == "dealt":  # no search: the recorded action is the best's own
            said = f"the candidate keeps the best's choice in {100 * stats['held_out_accuracy']:.1f}% (held out)"
        else:
            said = (f"search overrode the network in {100 * stats['overrode']:.1f}%; held-out accuracy "
                    f"{100 * stats['held_out_accuracy_before']:.1f}% -> {100 * stats['held_out_accuracy']:.1f}%")
        if cfg.fold:
            said += f"; folded into the best's size, agreeing with the fused network in {100 * stats['fold_agreement']:.1f}%"
        say(f"generation {k}: fitted {stats['fitted']:,} decisions ({said})")
        if stop is not None and stop:  # the candidate is saved; a resumed run fits it again (same seed)
            raise KeyboardInterrupt
        # -- gate
        gate_t0 = time.perf_counter()
        res = run_tournament(rules, [f"checkpoint:{cand_path}", f"checkpoint:{run.best}"],
                             games=cfg.gate_games, seed=_seed(scfg.seed, local, -2) % 2**31, workers=cfg.workers,
                             names=["candidate", "best"])
        me = res.stats[0]
        head_to_head = (f"generation {k}: candidate vs best {100 * me.win_rate:.1f}% [{100 * me.win_low:.1f}–"
                        f"{100 * me.win_high:.1f}%] over {me.games} games")
        panel = []
        if cfg.gate_panel and me.win_rate > cfg.gate_min:
            say(f"{head_to_head}; then against the panel:")
            panel = play_panel(cfg, rules, cand_path, run.best, _seed(scfg.seed, local, -3), say)
        kept = kept_by(cfg, me.win_rate, panel)
        row = {"generation": k, "worlds": scfg.worlds, **stats,
               "gate_games": me.games, "gate_win_rate": me.win_rate, "gate_low": me.win_low, "gate_high": me.win_high,
               "kept": kept, "record_s": record_s, "fit_s": fit_s, "gate_s": time.perf_counter() - gate_t0,
               "wall_s": earlier_s + time.perf_counter() - t0, **({"panel": panel} if cfg.gate_panel else {})}
        if kept:
            run.record_best(k, cand_path)
        run.add(row)  # first the verdict and the best's hash, then the copy: a resume finishes a copy a kill interrupted
        if kept:
            atomic_write(run.best, lambda tmp: shutil.copyfile(cand_path, tmp))
        say(f"generation {k}: {'kept' if kept else 'dropped'}" if panel else
            f"{head_to_head}: {'kept' if kept else 'dropped'}")
    return run


def play_panel(cfg: ExitConfig, rules, candidate: Path, best: Path, seed: int, say) -> list[dict]:
    """The candidate, then the best, against each agent of ``gate_panel`` on the same ``gate_panel_games``
    duplicate deals: one result per agent (its spec, the games, each one's win rate)."""
    from agents.tournament import run_tournament

    out = []
    for i, spec in enumerate(cfg.gate_panel):
        mine, best_s = (run_tournament(rules, [f"checkpoint:{who}", spec], games=cfg.gate_panel_games,
                                       seed=(seed + i) % 2**31, workers=cfg.workers,
                                       names=["network", "panel"]).stats[0] for who in (candidate, best))
        result = {"agent": spec, "games": mine.games, "candidate": mine.win_rate, "best": best_s.win_rate}
        out.append(result)
        say(f"  against {spec}: candidate {100 * result['candidate']:.1f}%, best {100 * result['best']:.1f}% over "
            f"{result['games']} games{': lost ground' if lost_ground(result) else ''}")
    return out


def generation_start(cfg: ExitConfig, run: Run, generation: int) -> Path:
    """The network generation ``generation`` started from: the candidate of the last generation before it
    that the gate kept, or generation 0's policy."""
    kept = run.best_generation(before=generation)
    return run.gen_dir(kept) / WEIGHTS_FILE if kept else Path(start_policy(cfg, run.path))


def refit_values(run_dir: Path, generation: int, out: Path, torch_threads=None, say=print) -> dict:
    """The action values of a finished generation of a ``target: values`` run fitted again, as its fit did
    (its parts, its seed, the run's settings; ``torch_threads``: another thread count), and written alone
    to ``out``, so ``pitch fuse START OUT --weights 1,W`` weighs them at any W. Every file is checked
    before the fit. Returns the start it was fitted on, the fit's loss and the run's, decisions, seconds."""
    t0 = time.perf_counter()
    saved, cfg = saved_config(run_dir)
    if torch_threads is not None:
        cfg = make_exit_config({**saved, "torch_threads": torch_threads}, "--set")
    if cfg.target != "values":
        raise ConfigError(f"the run in {str(run_dir)!r} fits its network to the search's actions (target: "
                          f"{cfg.target}): only a target: values run has action values to fit again")
    run = Run(run_dir)
    run.check(cfg)
    if not 1 <= generation <= len(run.rows):
        done = f"generations 1 to {len(run.rows)}" if run.rows else "no generation"
        raise ConfigError(f"--generation {generation}: the run in {str(run_dir)!r} has finished {done}; give one of them")
    rules = cfg.resolved_rules()
    start = generation_start(cfg, run, generation)
    policy, card = load_policy(start, rules)
    check_fit_memory(cfg, range(generation, generation + 1), policy.shape[0], _action_size(rules),
                     "fit it on a machine with more")
    for g in _replayed(cfg, generation):  # every part there before the arrays are made
        run.present_parts(cfg, g, all_needed=True)
    paths, _, seed = fit_parts(cfg, run, generation)
    x, mask, y, q, _ = load_parts(paths, policy.shape[0], _action_size(rules))
    say(f"fitting generation {generation}'s action values again: {len(y):,} decisions, started from {start}")
    values, _, stats = fit_values(policy, card, x, mask, y, q, replace(cfg, fold=False), seed)
    meta = {k: v for k, v in card.items() if k != "exit"}
    out.parent.mkdir(parents=True, exist_ok=True)
    save_policy(out, values, dict(meta, network={"shape": values.shape, "activation": values.activation},
                                  values_of={"run": str(run_dir), "generation": generation, "start": str(start)}))
    return {"start": str(start), "loss": stats["loss"], "run_loss": run.rows[generation - 1].get("loss"),
            "decisions": int(len(y)), "seconds": time.perf_counter() - t0, "value_weight": cfg.value_weight}


def _pool(workers: int):
    """Worker processes started fresh (``spawn``), not forked: the fit runs torch's thread pool, and a
    process forked from one holding its locks can hang for good (seen here: a recording pool stuck in
    futex waits after a fit). The orchestrating process itself never runs torch, so the tournament's
    forked workers are safe too. A worker killed mid-task (the out-of-memory killer) raises WorkerDied."""
    import os

    from agents.workers import Workers

    from .stop import spawned_worker

    return Workers(workers, "spawn", spawned_worker, (os.getpid(),))


def _seed(seed: int, generation: int, part: int) -> int:
    return (seed * 1_000_003 + generation * 10_007 + part) % 2**62


# ---------------------------------------------------------------------- the command
DESCRIPTION = """\
Expert iteration (train/exit.py): each generation records the decisions of a search guided by the
current best network (pimcnet), fits the network to them, and keeps the result only if it beats the
best on duplicate deals. Writes runs_dir/run_name/ (generations.json, best.safetensors, gen_K/).
Ctrl-C stops after the current part; --resume RUN_DIR continues."""


def register(subparsers) -> None:
    import argparse

    p = subparsers.add_parser("exit", help="expert iteration: a network learns from its own search",
                              description=DESCRIPTION, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--config", help="YAML config (configs/exit/*.yaml, configs/auction_scratch.yaml); keys: train/exit.py ExitConfig")
    p.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR")
    p.add_argument("--values-of", metavar="RUN_DIR", help="fit the action values of a finished generation "
                   "(--generation) of the target: values run in RUN_DIR again, as its fit did, and write them "
                   "alone to --out, to be fused at any weight with pitch fuse")
    p.add_argument("--generation", type=int, metavar="K", help="with --values-of: the generation")
    p.add_argument("--out", metavar="PATH", help="with --values-of: the .safetensors file, or the folder for "
                   "policy.safetensors, to write")
    p.set_defaults(func=cmd_exit)


def _check_workers(cfg: ExitConfig) -> None:
    """Before anything is written: the recording and gate processes must fit this machine."""
    from agents.workers import check_workers

    try:
        check_workers(cfg.workers, "key 'workers'")
    except ValueError as e:
        raise ConfigError(str(e)) from None


def cmd_exit(args) -> int:
    from .stop import StopFlag

    try:
        if any(getattr(args, key, None) is not None for key in ("values_of", "generation", "out")):  # not via pitch train
            return _cmd_values_of(args)
        if args.resume:
            run_dir = Path(args.resume)
            saved, cfg = saved_config(run_dir)
            for text in args.overrides:
                key, value = parse_override(text)
                if key not in ("generations", "workers", "torch_threads", "gate_games"):
                    raise ConfigError(f"--set {key} cannot change a resumed run; only generations, workers, "
                                      f"torch_threads and gate_games can")
                saved[key] = value
            cfg = make_exit_config(saved, "--set")
            _check_workers(cfg)
        else:
            cfg = load_exit_config(args.config, args.overrides)
            _check_workers(cfg)
            if cfg.start:  # a start_train run's network is known once trained (open_run checks it then)
                rules = cfg.resolved_rules()
                start, _ = load_policy(cfg.start, rules)
                check_fit_memory(cfg, range(1, cfg.generations + 1), start.shape[0], _action_size(rules))
            name = cfg.run_name or (f"exit_{plain_name(Path(args.config).stem)}" if args.config else "exit")
            run_dir = new_run_dir(cfg.runs_dir, name, "key 'run_name'")
            if run_dir.exists():
                raise FileExistsError(f"run directory {str(run_dir)!r} exists; --resume it or set run_name")
            run_dir.mkdir(parents=True)
            write_run_json(run_dir / "config.json", config=asdict(cfg))
        with StopFlag() as stop:
            try:
                run = run_exit(cfg, run_dir, stop=stop, resumed=bool(args.resume))
            except (KeyboardInterrupt, Interrupted):  # Interrupted: stopped while training generation 0
                print(f"\nstopped; continue with: pitch exit --resume {run_dir}", file=sys.stderr)
                return 130
            except WorkerDied as e:  # the parts recorded before it are kept
                print(flush=True)  # ends the progress line
                if stop:  # SIGTERM to the whole process group (timeout, a batch scheduler) ends the workers too
                    print(f"stopped; continue with: pitch exit --resume {run_dir}", file=sys.stderr)
                    return 130
                print(f"error: {e}; free memory (a fit holds all its decisions) or lower workers, then continue "
                      f"with: pitch exit --resume {run_dir}", file=sys.stderr)
                return 2
            except OSError as e:  # a full disk, a folder made read-only: every part written before it is kept
                print(flush=True)
                print(f"error: {e}; make room or mend the folder, then continue with: pitch exit --resume {run_dir}",
                      file=sys.stderr)
                return 2
    except (ConfigError, CheckpointError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"run directory: {run.path}\nbest policy: {run.best} (agent spec checkpoint:{run.best})")
    return 0


def _cmd_values_of(args) -> int:
    """pitch exit --values-of RUN_DIR --generation K --out PATH (errors raise for cmd_exit to print)."""
    if not args.values_of or args.generation is None or not args.out or args.config or args.resume:
        raise ConfigError("--values-of RUN_DIR, --generation K and --out PATH go together, without --config or "
                          "--resume: e.g. pitch exit --values-of runs/exit_x --generation 2 --out values.safetensors")
    threads = None
    for text in args.overrides:
        key, value = parse_override(text)
        if key != "torch_threads":
            raise ConfigError(f"--set {key}: fitting a run's values again reads its own settings; only "
                              f"torch_threads can change")
        threads = value
    out = Path(args.out)
    if out.suffix != ".safetensors":
        out = out / WEIGHTS_FILE
    above = next((a for a in reversed(out.parents) if a.exists() and not a.is_dir()), None)
    if above is not None or out.exists() or out.is_symlink():
        what = f"{str(above)!r} is not a folder" if above is not None else f"{str(out)!r} exists"
        raise FileExistsError(f"--out {args.out!r}: {what}; give another --out")
    try:  # before minutes of fitting; the folders below it are made only once the fit is done
        check_writable_above(out.parent)
    except OSError as e:
        raise ConfigError(f"--out {args.out!r}: cannot write there ({e.strerror}); give another --out") from None
    try:
        done = refit_values(Path(args.values_of), args.generation, out, threads)
    except KeyboardInterrupt:
        print("\nstopped; nothing written", file=sys.stderr)
        return 130
    run_loss = "" if done["run_loss"] is None else f" (the run's fit: {done['run_loss']:.6g})"
    print(f"fitted {done['decisions']:,} decisions in {done['seconds']:.0f} s: loss {done['loss']:.6g}{run_loss}\n"
          f"values: {out}\nweigh them: pitch fuse {done['start']} {out} --weights 1,{done['value_weight']:g} "
          f"--games 0 --out FOLDER")
    return 0
