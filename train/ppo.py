"""PPO on the batched self-play core (``trainer: fast``), read top to bottom: settings, rollout,
advantages, update, logging, then the run that strings them together.

Rollouts come from ``num_envs`` games in lockstep (train/lockstep.py), every side filled from the
league (train/league.py); the network is train/network.py's, its trainer state saved by
train/resume.py. The update is the masked PPO loss: clipped policy loss on per-minibatch normalised
advantages, squared-error value loss, entropy bonus, gradient clipping, ``n_epochs`` passes.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from pitch_env.actions import ActionLayout, bid_rows
from pitch_env.observer import Observer
from pitch_policy import WEIGHTS_FILE, load_policy, save_policy

from . import resume as ckpt
from .config import TrainConfig, scheduled
from .evaluate import log_evaluation
from .lockstep import Collector, Rollout
from .loop import RunInterrupted, warm_start
from .network import PolicyValueNet, export_policy, new_optimizer
from .rundir import RunDir, Scalars, load_snapshots, maybe_bar, policy_card, save_snapshot, tag
from .stop import Interrupted, StopFlag


# ---------------------------------------------------------------------- settings
@dataclass(frozen=True)
class PPO:
    """PPO's settings: TrainConfig's fields of the same names (``PPO.of(cfg)``), in force at a step."""

    total_steps: int = 200_000
    """learner decisions to train for (summed over all games)"""
    num_envs: int = 2
    """games stepped in lockstep (over all workers)"""
    n_steps: int = 1024
    """learner decisions per game per rollout: a rollout is n_steps × num_envs decisions"""
    learning_rate: float = 3e-4
    """Adam step size"""
    batch_size: int = 512
    """minibatch size"""
    n_epochs: int = 4
    """passes over each rollout"""
    gamma: float = 0.99
    """discount per learner decision"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    bid_gae_lambda: float | None = None
    """GAE lambda at bid decisions (None: ``gae_lambda``): how much of the hand played after a bid its
    advantage takes as it came out, the rest read from the critic's value once the auction is over"""
    advantage_horizon: str = "game"
    """how far a decision's GAE runs: ``game``, to the game's end; ``hand``, to the side's next hand,
    whose first decision's value bootstraps the rest"""
    hand_bootstrap: str = "deal"
    """with ``advantage_horizon="hand"``, the value a hand's last decision bootstraps from: ``deal``, the
    next hand's first decision's (whose oracle critic sees the next deal); ``scores``, a value of the public
    state alone (dealer's seat, scores, hands played) fitted to those values, their mean over deals (``HandValues``)"""
    clip_range: float = 0.2
    """PPO's clip of the probability ratio"""
    ent_coef: float = 0.01
    """weight of the entropy bonus"""
    policy_coef: float = 1.0
    """weight of the policy's losses (PPO's, the entropy bonus's, the bids' values'): 0 while a value
    network learns to judge a policy the run started from (``start``), which then stays as it is"""
    bid_ent_coef: float = 0.0
    """weight added to the entropy bonus at bid decisions: a bid that is costly early in a game (a 4
    is usually set) keeps being tried until the states where it wins the game are learned"""
    bid_policy_coef: float = 1.0
    """weight of the bid decisions' PPO loss, each other decision's being 1: more of the gradient for the
    few decisions (about one in seven in auction) that decide who pitches"""
    bid_q: float = 0.0
    """> 0: bid decisions learn action values, as in Monte Carlo control, instead of PPO's loss. A bid's
    value is ``bid_q`` times its logit, fitted by squared error to the decision's (lambda-)return, so the
    rollouts' softmax draws bids by a Boltzmann distribution over their values at temperature ``bid_q``
    and the exported agent bids the one of highest value. A bid that is usually set keeps the value it
    has where it wins, however rarely PPO would have sampled it"""
    vf_coef: float = 0.5
    """weight of the value loss"""
    max_grad_norm: float = 0.5
    """gradient clipping (global norm)"""

    @classmethod
    def of(cls, cfg: TrainConfig) -> "PPO":
        return cls(**{f.name: getattr(cfg, f.name) for f in dataclasses.fields(cls)})

    @property
    def rollout(self) -> int:
        return self.n_steps * self.num_envs


# ---------------------------------------------------------------------- advantages
@dataclass
class Batch:
    """The decisions of a rollout that are trained on, with their advantages and returns."""
    obs: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    logp: torch.Tensor
    values: np.ndarray
    advantages: torch.Tensor
    returns: torch.Tensor
    oracle: torch.Tensor | None = None  # the oracle critic's inputs (critic: oracle), else None

    def __len__(self) -> int:
        return len(self.actions)


def advantages(data: Rollout, gamma: float, lam: float, horizon: str = "game",
               opening_values: np.ndarray | None = None, bid_lam: float | None = None, bid_actions: int = 0) -> Batch:
    """GAE over every trajectory of the rollout: a finished one to its terminal decision, a running one
    up to its latest decision, whose value is the bootstrap and which is left for the next rollout.
    ``horizon="hand"``: each sum stops at the side's next hand (``data.opens``); the value of that hand's
    first decision stands for everything after it, or ``opening_values`` (one per row; read at the rows
    that open a hand, e.g. ``HandValues``'s) where given. ``bid_lam``: the lambda at bid decisions (rows
    whose mask allows one of the first ``bid_actions`` actions) in place of ``lam``. The returns (value
    targets) follow the same sums."""
    values, rew = data.values, data.rewards
    if horizon not in ("game", "hand"):
        raise ValueError(f"horizon {horizon!r}: use 'game' or 'hand'")
    cut = data.opens if horizon == "hand" else np.zeros(len(data), bool)
    if cut is None:
        raise ValueError("horizon 'hand' needs a rollout that marks where each hand begins (Rollout.opens)")
    # what each row's predecessor bootstraps from: its value, or at a hand's first decision opening_values
    boot = values if opening_values is None or horizon != "hand" else np.where(cut, opening_values, values)
    lams = np.full(len(data), lam)
    if bid_lam is not None and bid_actions:
        lams[bid_rows(data.masks, bid_actions)] = bid_lam
    adv = np.zeros(len(data), np.float32)
    keep = np.ones(len(data), bool)
    for seg in data.segments:
        rows, next_value = seg.rows, 0.0
        if not seg.ended:
            rows, next_value = rows[:-1], float(boot[rows[-1]])
            keep[seg.rows[-1]] = False
        last = 0.0
        for t in reversed(rows):
            delta = rew[t] + gamma * next_value - values[t]
            last = delta + gamma * lams[t] * last
            adv[t] = last
            next_value = boot[t]
            if cut[t]:  # row t opens a hand: the decisions before it sum no further than its bootstrap
                last = 0.0
    t = torch.from_numpy
    return Batch(t(data.obs[keep]), t(data.masks[keep]), t(data.actions[keep]), t(data.logp[keep]), values[keep],
                 t(adv[keep]), t(adv[keep] + values[keep]), None if data.oracle is None else t(data.oracle[keep]))


class HandValues:
    """The value of a hand's start without its deal (``hand_bootstrap: scores``): a small network of the
    public state the deal leaves alone (the dealer's seat and the scores, relative to the side that
    decides, and the hands played), fitted after every rollout to the critic's values at the decisions that
    open a hand, so it learns their mean over the deals. Its weights and Adam state are saved with the
    trainer's (``hand_values/…`` in trainer.safetensors), so a resume continues its fit exactly."""

    def __init__(self, rules, hidden: int = 64, steps: int = 20, lr: float = 1e-3):
        pieces = Observer(rules).pieces
        self.cols = np.concatenate([np.arange(p.offset, p.offset + p.size)
                                    for p in (pieces[k] for k in ("dealer", "scores", "hands_played"))])
        self.net = torch.nn.Sequential(torch.nn.Linear(len(self.cols), hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr)
        self.steps = steps

    def __call__(self, data: Rollout) -> np.ndarray:
        """One value per row of ``data``: at each row that opens a hand the network's value of its public
        state, after ``steps`` Adam steps on this rollout's opening values; elsewhere the row's own value."""
        out = data.values.astype(np.float32, copy=True)
        rows = np.flatnonzero(data.opens)  # a hand-horizon rollout always marks them
        if not len(rows):
            return out
        x = torch.from_numpy(np.ascontiguousarray(data.obs[rows][:, self.cols]))
        y = torch.from_numpy(data.values[rows].astype(np.float32))
        for _ in range(self.steps):
            loss = torch.nn.functional.mse_loss(self.net(x)[:, 0], y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        with torch.no_grad():
            out[rows] = self.net(x)[:, 0].numpy()
        return out


# ---------------------------------------------------------------------- update
def update(net: PolicyValueNet, opt: torch.optim.Optimizer, batch: Batch, ppo: PPO,
           bid_actions: int = 0) -> dict[str, float]:
    """``n_epochs`` passes of minibatch PPO on ``batch``; returns the means TensorBoard shows.
    ``bid_actions``: how many actions open the layout as the auction's (``ActionLayout.auction_size``);
    a row whose mask allows one of them is a bid decision, whose entropy weighs ``ppo.bid_ent_coef`` more,
    or which, with ``ppo.bid_q``, is trained on its action value instead (``bid_value_loss``)."""
    for group in opt.param_groups:
        group["lr"] = ppo.learning_rate
    n, clip = len(batch), ppo.clip_range
    logs: dict[str, list[float]] = {k: [] for k in ("policy_gradient_loss", "value_loss", "entropy_loss", "approx_kl",
                                                    "clip_fraction")}
    for _ in range(ppo.n_epochs):
        order = torch.randperm(n)
        for start in range(0, n, ppo.batch_size):
            mb = order[start:start + ppo.batch_size]
            if len(mb) < 2:
                continue
            logp, entropy, values = net.evaluate(batch.obs[mb], batch.masks[mb], batch.actions[mb],
                                                 None if batch.oracle is None else batch.oracle[mb])
            bids = bid_rows(batch.masks[mb], bid_actions)
            # the rows PPO's policy loss trains: all, or with bid_q all but the bids
            ppo_rows = ~bids if ppo.bid_q else torch.ones_like(bids)
            adv = batch.advantages[mb][ppo_rows]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(adv) > 1 else adv * 0
            log_ratio = logp - batch.logp[mb]
            ratio = log_ratio.exp()
            weight = torch.where(bids[ppo_rows], ppo.bid_policy_coef, 1.0)  # bid decisions: bid_policy_coef
            clipped = torch.min(adv * ratio[ppo_rows], adv * ratio[ppo_rows].clamp(1 - clip, 1 + clip))
            pg = -(weight * clipped).sum() / len(mb)
            v_loss = torch.nn.functional.mse_loss(values, batch.returns[mb])
            ent = -entropy.mean()
            ent_weight = ppo.ent_coef + ppo.bid_ent_coef * bids  # bid decisions: ent_coef + bid_ent_coef
            loss = ppo.policy_coef * (pg - (ent_weight * ppo_rows * entropy).mean()) + ppo.vf_coef * v_loss
            if ppo.bid_q and bids.any():
                q_loss = bid_value_loss(net, batch, mb[bids], ppo.bid_q)
                loss = loss + ppo.policy_coef * q_loss * bids.float().mean()
                logs.setdefault("bid_value_loss", []).append(q_loss.item())
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), ppo.max_grad_norm)
            opt.step()
            with torch.no_grad():
                for key, value in (("policy_gradient_loss", pg), ("value_loss", v_loss), ("entropy_loss", ent),
                                   ("approx_kl", ((ratio - 1) - log_ratio).mean()),
                                   ("clip_fraction", ((ratio - 1).abs() > clip).float().mean())):
                    logs[key].append(value.item())
                if bids.any():
                    logs.setdefault("bid_entropy", []).append(entropy[bids].mean().item())
    out = {k: float(np.mean(v)) if v else float("nan") for k, v in logs.items()}
    returns = batch.returns.numpy()
    var = float(np.var(returns))
    out["explained_variance"] = float("nan") if var == 0 else 1 - float(np.var(returns - batch.values)) / var
    return out


def bid_value_loss(net: PolicyValueNet, batch: Batch, rows: torch.Tensor, temperature: float) -> torch.Tensor:
    """Squared error of the bid decisions' action values (``temperature`` × the chosen action's logit)
    against their returns: the bids' loss under ``bid_q``."""
    z = net.logits(batch.obs[rows]).gather(1, batch.actions[rows][:, None])[:, 0]
    return torch.nn.functional.mse_loss(temperature * z, batch.returns[rows])


# ---------------------------------------------------------------------- logging
def log_iteration(logger: Scalars, data: Rollout, losses: dict, n_updates: int, collect_s: float,
                  update_s: float) -> None:
    """One rollout and update's scalars under the keys every trainer writes."""
    for key, value in losses.items():
        logger.record(f"train/{key}", value)
    logger.record("train/n_updates", n_updates)
    st = data.stats
    logger.record("pitch/learner_steps_per_s", data.trained / max(collect_s + update_s, 1e-9))
    logger.record("pitch/collect_s", collect_s)
    logger.record("pitch/update_s", update_s)
    logger.record("pitch/games", st["games"])
    if st["games"]:  # games stopped at max_hands unwon: a seat blocking the auction shows here first
        logger.record("pitch/truncated_pct", 100.0 * st["truncated"] / st["games"])
    if st["bid_turns"]:
        logger.record("pitch/bids_made_pct", 100.0 * st["bids"] / st["bid_turns"])
        logger.record("pitch/average_bid", st["bid_sum"] / max(st["bids"], 1))
    if st["games_vs"]:
        logger.record("pitch/train_win_rate", st["won_vs"] / st["games_vs"])
    for key, count in st.items():
        if key.startswith("games_vs_") and count:
            name = key[len("games_vs_"):]
            logger.record(f"pitch/train_win_rate_vs_{tag(name)}", st[f"won_vs_{name}"] / count)


# ---------------------------------------------------------------------- the run
class Learner:
    """The learner of one run: its network, optimizer and schedule (``state``), with the checkpoint,
    snapshot and evaluation steps every PPO iteration may take."""

    def __init__(self, cfg: TrainConfig, run: RunDir, started: float, stop: StopFlag):
        self.cfg, self.run, self.started, self.stop = cfg, run, started, stop
        self.net = PolicyValueNet.for_config(cfg)
        self.bid_actions = ActionLayout(cfg.resolved_rules()).auction_size
        self.opt = new_optimizer(self.net, cfg.learning_rate)
        self.steps = self.n_updates = 0
        self.state = {"next_snapshot": cfg.snapshot_every, "next_checkpoint": cfg.checkpoint_every,
                      "next_eval": cfg.eval_every or cfg.total_steps + 1, "last_eval": -1, "wall_time_before": 0.0}
        self.hand_values: HandValues | None = None  # hand_bootstrap: scores (made when first needed: no RNG drawn else)
        self.found = ckpt.current(run.path)
        if self.found is not None:
            saved = HandValues(cfg.resolved_rules())  # filled if the checkpoint has it (load_trainer restores the RNG)
            state = ckpt.load_trainer(self.found, self.net, self.opt, {"hand_values": (saved.net, saved.opt)})
            state = ckpt.check_schedule(state, self.found)
            self.steps, self.n_updates = int(state["steps"]), state["trainer"]["n_updates"]
            state["wall_time_before"] = state.get("wall_time", 0.0)
            self.hand_values = saved if "hand_values" in state["modules"] else None
            self.state = {k: v for k, v in state.items() if k not in ("steps", "trainer", "modules")}

    def opening_values(self, data: Rollout, ppo: PPO) -> np.ndarray | None:
        """What the rows opening a hand bootstrap their hand's advantages from, if not their own values
        (``hand_bootstrap: scores``, which the config allows only with ``advantage_horizon: hand``)."""
        if ppo.hand_bootstrap == "scores":
            if self.hand_values is None:
                self.hand_values = HandValues(self.cfg.resolved_rules())
            return self.hand_values(data)
        return None

    def checkpoint(self) -> None:
        """Policy, trainer state and state.json as one set (train/resume.py), at the steps trained on."""
        self.state["wall_time"] = self.state.get("wall_time_before", 0.0) + (time.perf_counter() - self.started)
        policy, steps = export_policy(self.net, self.cfg), self.steps

        side = {} if self.hand_values is None else {"hand_values": (self.hand_values.net, self.hand_values.opt)}

        def write(directory: Path) -> None:
            save_policy(directory / WEIGHTS_FILE, policy, policy_card(self.cfg, policy, steps))
            ckpt.save_trainer(directory, self.net, self.opt, steps, self.state, self.n_updates, modules=side)

        ckpt.write_checkpoint(self.run.path, steps, write)

    def snapshot(self, collector: Collector) -> None:
        policy = export_policy(self.net, self.cfg)
        collector.add_snapshot(policy.layers, policy.activation)
        save_snapshot(self.run, policy, self.cfg, self.steps)

    def evaluate(self, logger: Scalars) -> None:
        log_evaluation(self.cfg, self.run, export_policy(self.net, self.cfg), self.steps, logger, self.stop)
        self.state["last_eval"] = self.steps


def train(cfg: TrainConfig, run: RunDir, started: float, show: bool) -> Path:
    """Train (or resume) ``run`` with PPO on the lockstep core; SIGINT/SIGTERM save a checkpoint of the
    steps trained on and raise RunInterrupted."""
    torch.set_num_threads(cfg.torch_threads)
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    with StopFlag() as stop:
        learner = Learner(cfg, run, started, stop)
        state = learner.state
        # a resumed run deals other games than the first session's
        collector = Collector(cfg, salt=7919 * (1 + learner.steps) if learner.found is not None else 0)
        try:
            if learner.found is not None:
                for policy in load_snapshots(run, cfg):
                    collector.add_snapshot(policy.layers, policy.activation)
            else:
                try:
                    if cfg.imitate or cfg.imitate_data:
                        state["imitation"] = warm_start(cfg, learner.net, run, stop, show)
                    elif cfg.start:
                        learner.net.warm_start(load_policy(cfg.start, cfg.resolved_rules())[0])
                except Interrupted:
                    raise RunInterrupted(f"interrupted while warming up; the recorded chunks are kept in {run.imitate}: "
                                         f"continue with --resume {run.path}") from None
                learner.snapshot(collector)  # the league's "self" needs a learner
                learner.checkpoint()  # the warm start is never done twice
            logger = Scalars(run.tb, learner.steps)
            try:
                learn(learner, collector, logger, show)
                learner.checkpoint()
                if stop:
                    raise RunInterrupted(f"interrupted: checkpoint at {learner.steps:,} steps saved in {run.checkpoint}; "
                                         f"continue with --resume {run.path}")
                # evaluate the final policy, after saving it, unless an evaluation ran within the last rollout
                if learner.steps - state.get("last_eval", -1) >= PPO.of(cfg).rollout:
                    learner.evaluate(logger)
            finally:
                logger.close()
        finally:
            collector.close()
    return run.path


def learn(learner: Learner, collector: Collector, logger: Scalars, show: bool) -> None:
    """Rollouts and updates until ``total_steps`` learner decisions are trained on, or a signal;
    snapshots, checkpoints and evaluations on the config's schedule."""
    cfg, state, stop = learner.cfg, learner.state, learner.stop
    t_start, steps_start = time.perf_counter(), learner.steps

    def ask() -> None:
        live = scheduled(cfg, learner.steps)
        collector.request(learner.net.layers(), min(PPO.of(live).rollout, max(cfg.total_steps - learner.steps, 1)), live)

    with maybe_bar(show, "training", "steps") as bar:
        task = bar.add_task("train", total=cfg.total_steps, completed=learner.steps, note="")
        ask()
        while learner.steps < cfg.total_steps and not stop:
            # 1. rollout: the games played with the weights of the last request
            t0 = time.perf_counter()
            data = collector.receive()
            t1 = time.perf_counter()
            ppo = PPO.of(scheduled(cfg, learner.steps))
            if cfg.overlap and learner.steps + data.trained < cfg.total_steps:
                ask()  # the workers play the next rollout with these weights while the learner updates
            # 2. advantages, 3. update
            opening = learner.opening_values(data, ppo)
            batch = advantages(data, ppo.gamma, ppo.gae_lambda, ppo.advantage_horizon, opening, ppo.bid_gae_lambda,
                               learner.bid_actions)
            losses = update(learner.net, learner.opt, batch, ppo, learner.bid_actions)
            if opening is not None and data.opens.any():  # how far the deals move the values hands bootstrap from
                losses["hand_deal_spread"] = float(np.std((data.values - opening)[data.opens]))
            learner.n_updates += ppo.n_epochs
            t2 = time.perf_counter()
            learner.steps += len(batch)
            if not cfg.overlap and learner.steps < cfg.total_steps:
                ask()
            # 4. logging, then what the schedule asks for at these steps
            log_iteration(logger, data, losses, learner.n_updates, t1 - t0, t2 - t1)
            logger.record("time/total_timesteps", learner.steps)
            logger.dump(learner.steps)
            if learner.steps >= state["next_snapshot"]:
                learner.snapshot(collector)
                state["next_snapshot"] = learner.steps + cfg.snapshot_every
            if learner.steps >= state["next_checkpoint"]:
                state["next_checkpoint"] = learner.steps + cfg.checkpoint_every
                learner.checkpoint()
            if cfg.eval_every and learner.steps >= state["next_eval"] and not stop:
                learner.evaluate(logger)
                state["next_eval"] = learner.steps + cfg.eval_every
            rate = (learner.steps - steps_start) / max(time.perf_counter() - t_start, 1e-9)
            bar.update(task, completed=min(learner.steps, cfg.total_steps), note=f"{rate:,.0f} steps/s")
