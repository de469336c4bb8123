"""The batched self-play trainer (``trainer: fast``): many games in lockstep, one forward pass per tick,
and a lean PPO update of its own in torch.

Why not SB3's loop: MaskablePPO runs one forward pass and its buffer bookkeeping per env step, which
caps it near 1,700 steps/s even on an env that computes nothing (docs/benchmarks.md), and its envs
are single-agent, so the learner's own copies at the other seats could only be frozen snapshots.
Here ``num_envs`` games advance one move per tick; the seats the learner holds in every game are
gathered into one matrix for one forward pass, each frozen snapshot seated anywhere gets one pass
for its rows, and the heuristic plays straight on the engine. With ``mirror > 0`` that share of the
games has the learner at every side, and every side's decisions train it.

A rollout starts games until ``n_steps × num_envs`` learner decisions are recorded, then plays the
running games to their end, so every trajectory is complete: returns and GAE need no bootstrap and
no decision is trained on by a later policy than the one that made it. ``workers`` processes each
step their share of the games (the weights go out and the decisions come back through pipes); with
``workers: 0`` the learner's process steps them.

The network, its optimizer, the warm start, checkpoints (train/resume.py), snapshots, evaluations and
TensorBoard are those of the SB3 path: the model object is MaskablePPO's, only its rollout and update
are replaced (``ppo_update`` is MaskablePPO's loss, written out for batches of any size).
"""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch

from pitch_env.actions import ActionLayout
from pitch_policy.canonical import BatchCanonical, SuitCanonical
from pitch_env.engine import BID, OVER, Game
from pitch_env.observer import LiveTable, Observer
from pitch_policy import BatchMLP
from pitch_policy import batch_policy_input
from pitch_env.rewards import hand_scale, relative_reward, win_bonus

from .config import scheduled
from .hint import engine_hint
from .opponents import AgentOpponent, make_agent
from .rundir import add_snapshot, export_policy, learner_layers, maybe_bar, tag
from .selfplay import count_bid

LEARNER, SNAPSHOT, HEURISTIC, RANDOM, AGENT = range(5)  # who plays a side of a game


def sample_masked(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator):
    """(actions, log-probabilities) sampled from the masked softmax of each row (Gumbel-max)."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(1, keepdims=True)
    logp_all = z - np.log(np.exp(z).sum(1, keepdims=True))
    g = rng.gumbel(size=z.shape).astype(np.float32)
    actions = np.argmax(np.where(mask, logp_all + g, -np.inf), axis=1)
    return actions, logp_all[np.arange(len(z)), actions]


# ---------------------------------------------------------------------- the rollout
@dataclass
class Rollout:
    """The learner's decisions of one rollout with their advantages (train/fast.py's module docstring)."""
    obs: np.ndarray  # float32 [n, input]: what the network read
    masks: np.ndarray  # bool [n, actions], network order
    actions: np.ndarray  # int64 [n], network order
    logp: np.ndarray  # float32 [n]: log-probability under the policy that acted
    values: np.ndarray  # float32 [n]: its value estimate
    advantages: np.ndarray  # float32 [n]: GAE
    returns: np.ndarray  # float32 [n]: advantages + values
    stats: dict  # episode statistics for TensorBoard

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def concat(parts: list["Rollout"]) -> "Rollout":
        stats: dict = {}
        for p in parts:
            for k, v in p.stats.items():
                stats[k] = stats.get(k, 0) + v
        return Rollout(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                         ("obs", "masks", "actions", "logp", "values", "advantages", "returns")), stats)


class Lockstep:
    """``n_games`` self-play games stepped together, one move each per tick; ``collect`` plays one
    rollout, and the games go on into the next."""

    def __init__(self, cfg, n_games: int, seed: int):
        self.cfg = cfg
        self.rules = rules = cfg.resolved_rules()
        self.n = n_games
        self.rng = np.random.default_rng(seed)
        self.observer = Observer(rules)
        self.A = ActionLayout(rules).size
        self.canon = BatchCanonical(SuitCanonical(rules)) if cfg.observation == "suit_canonical" else None
        self.hint = cfg.hint != "none"
        self.scale = hand_scale(rules)
        self.side_of = [rules.side_of(s) for s in range(rules.num_players)]
        self.set_pool(cfg.opponents, cfg.mirror)
        self.snapshots: list[BatchMLP] = []
        self.agents: dict[tuple[str, int], AgentOpponent] = {}
        self.pi = self.vf = None
        self.games: list = []  # the running games, their tables, players and learner trajectories (collect)
        self.carry = None  # each running trajectory's latest decision, trained on in the next rollout

    def set_pool(self, opponents: dict[str, float], mirror: float) -> None:
        """Who the next games are played against (the config's, or a schedule's)."""
        self.names = [k for k, w in opponents.items() if w > 0]
        w = np.array([opponents[k] for k in self.names], np.float64)
        self.p = w / w.sum()
        self.mirror = mirror

    # --------------------------------------------------------------- weights
    def set_learner(self, pi_layers, vf_layers) -> None:
        self.pi = BatchMLP(pi_layers, self.cfg.activation)
        self.vf = BatchMLP(vf_layers, self.cfg.activation)

    def add_snapshot(self, layers, activation: str) -> None:
        self.snapshots.append(BatchMLP(layers, activation))
        del self.snapshots[:-self.cfg.snapshot_pool]

    # --------------------------------------------------------------- one game
    def _controllers(self, players: dict) -> tuple[list[int], list[str]]:
        """Who plays each side of a new game (and the names of the opponents, for statistics); the
        snapshot or agent playing a side goes into ``players[side]``."""
        r = self.rules
        if self.rng.random() < self.mirror:
            return [LEARNER] * r.num_sides, ["mirror"]
        learner = self.side_of[int(self.rng.integers(r.num_players))]
        ctrl, names = [], []
        for side in range(r.num_sides):
            if side == learner:
                ctrl.append(LEARNER)
                continue
            name = self.names[self.rng.choice(len(self.names), p=self.p)]
            names.append(name)
            if name == "self":
                if not self.snapshots:
                    raise RuntimeError("the opponent pool has weight on 'self' but holds no snapshot yet")
                ctrl.append(SNAPSHOT)
                players[side] = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
            elif name == "heuristic":
                ctrl.append(HEURISTIC)
            elif name == "random":
                ctrl.append(RANDOM)
            else:
                key = (name, side)
                if key not in self.agents:
                    self.agents[key] = AgentOpponent(make_agent(name, r), self.observer, self.A)
                ctrl.append(AGENT)
                players[side] = self.agents[key]
        return ctrl, names

    # --------------------------------------------------------------- a rollout
    def _start(self, i: int) -> None:
        """A new game in slot ``i``, its sides' players drawn."""
        r = self.rules
        self.players[i] = {}
        self.ctrls[i], self.names_of[i] = self._controllers(self.players[i])
        for side, c in enumerate(self.ctrls[i]):
            if c == AGENT:
                self.players[i][side].reset(int(self.rng.integers(2**31)))
        g = self.games[i] = Game(r, seed=int(self.rng.integers(2**62)))
        self.lives[i].sync(g)
        self.traj[i] = {s: [] for s in range(r.num_sides) if self.ctrls[i][s] == LEARNER}

    def collect(self, target: int) -> Rollout:
        """Step the games until ``target`` more learner decisions are recorded. The games go on across
        rollouts: a trajectory still running is cut at its latest decision, whose value bootstraps the
        decisions before it (truncated GAE), and that latest decision is kept for the next rollout
        (it still waits for its reward and its successor)."""
        r, cfg = self.rules, self.cfg
        n, A = self.n, self.A
        if not self.games:
            self.games = [None] * n
            self.lives = [LiveTable(self.observer) for _ in range(n)]
            self.ctrls, self.players, self.names_of = [[]] * n, [{}] * n, [[]] * n
            self.traj = [{} for _ in range(n)]
            for i in range(n):
                self._start(i)
        games, lives, ctrls, players, traj = self.games, self.lives, self.ctrls, self.players, self.traj
        # the carried decisions first: rows 0..c-1 of this rollout
        parts = {k: [] for k in ("obs", "masks", "actions", "logp", "values")}
        rewards: list[float] = []
        if self.carry is not None:
            for k in parts:
                parts[k].append(self.carry[k])
            rewards.extend(self.carry["rewards"])
            for (i, side), row in zip(self.carry["owners"], range(len(self.carry["rewards"]))):
                traj[i][side] = [row]
            self.carry = None
        rows = len(rewards)
        goal = rows + target
        done: list[list[int]] = []  # rows of trajectories that ended this rollout
        stats = {"games": 0, "games_vs": 0, "won_vs": 0.0, "bid_turns": 0, "bids": 0, "bid_sum": 0.0}
        for name in self.cfg.opponents:
            stats[f"games_vs_{name}"] = 0
            stats[f"won_vs_{name}"] = 0.0

        def credit(i: int, side: int, amount: float) -> None:
            rows_of = traj[i][side]
            if rows_of:  # a reward before the side's first decision has nobody to go to (as in SelfPlayEnv)
                rewards[rows_of[-1]] += amount

        def finish(i: int) -> None:
            g = games[i]
            if g.winner is not None:
                for side in traj[i]:
                    credit(i, side, win_bonus(g.winner, side, cfg.win_bonus))
            done.extend(rows_of for rows_of in traj[i].values() if rows_of)
            stats["games"] += 1
            names = self.names_of[i]
            if names != ["mirror"]:
                won = float(g.winner == ctrls[i].index(LEARNER))
                stats["games_vs"] += 1
                stats["won_vs"] += won
                for name in set(names):  # (a schedule may bring in an opponent the config did not name)
                    stats[f"games_vs_{name}"] = stats.get(f"games_vs_{name}", 0) + 1
                    stats[f"won_vs_{name}"] = stats.get(f"won_vs_{name}", 0.0) + won

        def apply(i: int, seat: int, action: int) -> None:
            g = games[i]
            phase, number, before = g.phase, g.hand_number, len(g.finished)
            g.apply(action)  # checked: a wrong transform or mask would fail loudly here, not corrupt the game
            lives[i].after(g, seat, action, phase, number)
            if cfg.reward == "hand" and len(g.finished) != before and g.last_result is not None:
                change = g.last_result.score_change
                for side in traj[i]:
                    credit(i, side, relative_reward(change, side, self.scale))
            if g.phase == OVER:
                finish(i)
                self._start(i)

        while rows < goal:
            groups: dict = {}  # the learner, or a snapshot network -> the games where it is to move
            for i in range(n):
                g = games[i]
                seat = g.current_seat
                side = self.side_of[seat]
                c = ctrls[i][side]
                if c == HEURISTIC:
                    apply(i, seat, engine_hint(g))
                elif c == RANDOM:
                    legal = g._cached_legal()
                    apply(i, seat, legal[int(self.rng.integers(len(legal)))])
                elif c == AGENT:
                    apply(i, seat, players[i][side].act(g, seat, lives[i].observe(seat)))
                else:
                    groups.setdefault(LEARNER if c == LEARNER else players[i][side], []).append(i)
            for c, idx in groups.items():
                seats = [games[i].current_seat for i in idx]
                obs = np.stack([lives[i].observe(s) for i, s in zip(idx, seats)])
                mask = np.zeros((len(idx), A), bool)
                for k, i in enumerate(idx):
                    mask[k, games[i]._cached_legal()] = True
                x, m, ids = self._inputs(obs, mask, [games[i] for i in idx])
                if c == LEARNER:
                    actions, logp = sample_masked(self.pi(x), m, self.rng)
                    parts["obs"].append(x)
                    parts["masks"].append(m)
                    parts["actions"].append(actions)
                    parts["logp"].append(logp)
                    parts["values"].append(self.vf(x)[:, 0])
                else:
                    actions, _ = sample_masked(c(x), m, self.rng)
                real = actions if ids is None else self.canon.act_src[ids, actions]
                for k, (i, seat) in enumerate(zip(idx, seats)):
                    a = int(real[k])
                    if c == LEARNER:
                        traj[i][self.side_of[seat]].append(rows)
                        rewards.append(0.0)
                        rows += 1
                        if games[i].phase == BID:
                            count_bid(stats, r, a)
                    apply(i, seat, a)
        data = {k: np.concatenate(v) for k, v in parts.items()}
        data["rewards"] = np.asarray(rewards, np.float32)
        running = [(i, side, rows_of) for i in range(n) for side, rows_of in traj[i].items() if rows_of]
        return self._finish(data, done, running, stats)

    def _inputs(self, obs, mask, games):
        """What the network reads for these rows: (input, mask, permutation ids or None)."""
        hints = np.array([engine_hint(g) for g in games]) if self.hint else None
        return batch_policy_input(obs, mask, self.canon, hints)

    def _finish(self, data: dict, done: list[list[int]], running: list, stats: dict) -> Rollout:
        """GAE over every trajectory: ended ones to their terminal step, running ones up to their latest
        decision, whose value is their bootstrap and which is carried to the next rollout."""
        gamma, lam = self.cfg.gamma, self.cfg.gae_lambda
        values, rew = data["values"].astype(np.float32), data["rewards"]
        advantages = np.zeros(len(rew), np.float32)
        keep = np.ones(len(rew), bool)

        def gae(idx: list[int], next_value: float) -> None:
            last = 0.0
            for t in reversed(idx):
                delta = rew[t] + gamma * next_value - values[t]
                last = delta + gamma * lam * last
                advantages[t] = last
                next_value = values[t]

        for idx in done:
            gae(idx, 0.0)
        carried = [rows_of[-1] for _, _, rows_of in running]
        for _, _, rows_of in running:
            gae(rows_of[:-1], float(values[rows_of[-1]]))
        keep[carried] = False
        self.carry = {k: data[k][carried] for k in ("obs", "masks", "actions", "logp", "values")}
        self.carry["rewards"] = data["rewards"][carried].tolist()
        self.carry["owners"] = [(i, side) for i, side, _ in running]
        return Rollout(data["obs"][keep], data["masks"][keep], data["actions"][keep].astype(np.int64),
                       data["logp"][keep].astype(np.float32), values[keep], advantages[keep],
                       advantages[keep] + values[keep], stats)


# ---------------------------------------------------------------------- worker processes
def _worker(conn, cfg, n_games: int, seed: int) -> None:
    """A process stepping its share of the games: ("collect", pi, vf, new snapshots, target) in,
    a Rollout out, until ("close",)."""
    torch.set_num_threads(1)  # the parent's StopFlag made it die with the parent and ignore Ctrl-C
    lock = Lockstep(cfg, n_games, seed)
    try:
        while True:
            msg = conn.recv()
            if msg[0] == "close":
                break
            _, pi, vf, snapshots, pool, target = msg
            lock.set_learner(pi, vf)
            lock.set_pool(*pool)
            for layers, activation in snapshots:
                lock.add_snapshot(layers, activation)
            conn.send(lock.collect(target))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass
    finally:
        conn.close()


class Collector:
    """Steps ``num_envs`` games, in this process (``workers: 0``) or split over worker processes;
    ``salt`` changes the deals (a resumed run plays other games than the first session)."""

    def __init__(self, cfg, salt: int = 0):
        self.cfg = cfg
        self.workers = []
        self._pending_snapshots: list = []
        self._asked: int | None = None  # the learner decisions of the rollout requested and not yet received
        if cfg.workers == 0:
            self.local = Lockstep(cfg, cfg.num_envs, [cfg.seed, salt, 0])
            return
        self.local = None
        ctx = mp.get_context("fork")
        share = np.array_split(np.arange(cfg.num_envs), cfg.workers)
        for w, games in enumerate(share):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, cfg, max(len(games), 1), [cfg.seed, salt, 1 + w]),
                               daemon=True)
            proc.start()
            child.close()
            self.workers.append((proc, parent))

    def add_snapshot(self, layers, activation: str) -> None:
        if self.local is not None:
            self.local.add_snapshot(layers, activation)
        else:
            self._pending_snapshots.append((layers, activation))

    def request(self, model, target: int, live=None) -> None:
        """Start a rollout of ``target`` learner decisions with the model's weights as they are now
        (and the opponents of ``live``, the config in force)."""
        pi, vf = learner_layers(model)
        live = live or self.cfg
        pool = (live.opponents, live.mirror)
        if self.local is not None:
            self.local.set_learner(pi, vf)
            self.local.set_pool(*pool)
            self._asked = target
            return
        share = -(-target // len(self.workers))
        for _, conn in self.workers:
            conn.send(("collect", pi, vf, self._pending_snapshots, pool, share))
        self._pending_snapshots = []
        self._asked = target

    def receive(self) -> Rollout:
        """The rollout last requested (played now when the games run in this process)."""
        target, self._asked = self._asked, None
        if self.local is not None:
            return self.local.collect(target)
        return Rollout.concat([conn.recv() for _, conn in self.workers])

    def collect(self, model, target: int) -> Rollout:
        self.request(model, target)
        return self.receive()

    def close(self) -> None:
        if self._asked is not None and self.workers:
            try:  # a worker blocked sending its rollout would not read "close"
                self.receive()
            except (EOFError, OSError):
                pass
        for proc, conn in self.workers:
            try:
                conn.send(("close",))
            except (BrokenPipeError, OSError):
                pass
        for proc, conn in self.workers:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
            conn.close()
        self.workers = []


# ---------------------------------------------------------------------- the update
def ppo_update(model, data: Rollout, cfg, logger=None) -> None:
    """MaskablePPO's update on ``data``: clipped policy loss on per-minibatch normalised advantages,
    squared-error value loss, entropy bonus, gradient clipping, ``n_epochs`` passes."""
    policy = model.policy
    policy.set_training_mode(True)
    opt = policy.optimizer
    for group in opt.param_groups:
        group["lr"] = cfg.learning_rate
    obs = torch.from_numpy(data.obs)
    masks = torch.from_numpy(data.masks)
    actions = torch.from_numpy(data.actions)
    old_logp = torch.from_numpy(data.logp)
    adv_all = torch.from_numpy(data.advantages)
    ret_all = torch.from_numpy(data.returns)
    n = len(data)
    clip = cfg.clip_range
    pg_losses, v_losses, ent_losses, kls, clipped = [], [], [], [], []
    for _ in range(cfg.n_epochs):
        order = torch.randperm(n)
        for start in range(0, n, cfg.batch_size):
            mb = order[start:start + cfg.batch_size]
            if len(mb) < 2:
                continue
            latent_pi, latent_vf = policy.mlp_extractor(obs[mb])
            logits = policy.action_net(latent_pi).masked_fill(~masks[mb], -1e8)
            logp_all = torch.log_softmax(logits, 1)
            logp = logp_all.gather(1, actions[mb, None])[:, 0]
            entropy = -(logp_all.exp() * logp_all).sum(1)
            values = policy.value_net(latent_vf)[:, 0]
            adv = adv_all[mb]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            log_ratio = logp - old_logp[mb]
            ratio = log_ratio.exp()
            pg = -torch.min(adv * ratio, adv * ratio.clamp(1 - clip, 1 + clip)).mean()
            v_loss = torch.nn.functional.mse_loss(values, ret_all[mb])
            ent = -entropy.mean()
            loss = pg + cfg.ent_coef * ent + cfg.vf_coef * v_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                pg_losses.append(pg.item())
                v_losses.append(v_loss.item())
                ent_losses.append(ent.item())
                kls.append(((ratio - 1) - log_ratio).mean().item())
                clipped.append(((ratio - 1).abs() > clip).float().mean().item())
    policy.set_training_mode(False)
    model._n_updates += cfg.n_epochs
    if logger is not None:
        var = float(np.var(data.returns))
        explained = float("nan") if var == 0 else 1 - float(np.var(data.returns - data.values)) / var
        for key, values in (("policy_gradient_loss", pg_losses), ("value_loss", v_losses),
                            ("entropy_loss", ent_losses), ("approx_kl", kls), ("clip_fraction", clipped)):
            logger.record(f"train/{key}", float(np.mean(values)) if values else float("nan"))
        logger.record("train/explained_variance", explained)
        logger.record("train/n_updates", model._n_updates)


# ---------------------------------------------------------------------- the loop
class SpacesEnv(gym.Env):
    """An env of the right spaces and nothing else: MaskablePPO is built over it only to hold the
    network and its optimizer (this path collects its own rollouts)."""

    def __init__(self, obs_size: int, action_size: int):
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (obs_size,), np.float32)
        self.action_space = gym.spaces.Discrete(action_size)

    def reset(self, *, seed=None, options=None):
        return np.zeros(self.observation_space.shape, np.float32), {}

    def step(self, action):
        raise RuntimeError("the fast trainer steps its own games; this env only declares the spaces")

    def action_masks(self):
        return np.ones(self.action_space.n, bool)

def spaces_venv(cfg):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from pitch_policy import hint_size

    rules = cfg.resolved_rules()
    size = ActionLayout(rules).size
    obs = Observer(rules).size + hint_size(cfg.hint, size)
    return DummyVecEnv([lambda: SpacesEnv(obs, size)])
def learn(model, cfg, run, state: dict, callback, collector: Collector, pools, stop, show: bool) -> int:
    """Rollouts and updates until ``total_steps`` learner decisions or a signal; snapshots, checkpoints
    and evaluations on the SB3 path's schedule (``callback`` is its Progress). Returns the steps the
    weights are trained on."""

    logger = model.logger
    steps = model.num_timesteps
    target = cfg.n_steps * cfg.num_envs
    t_start, steps_start = time.perf_counter(), steps
    with maybe_bar(show, "training", "steps") as bar:
        task = bar.add_task("train", total=cfg.total_steps, completed=steps, note="")
        def ask() -> None:
            collector.request(model, min(target, max(cfg.total_steps - steps, 1)), scheduled(cfg, steps))

        ask()
        while steps < cfg.total_steps and not stop:
            t0 = time.perf_counter()
            data = collector.receive()
            t1 = time.perf_counter()
            if cfg.overlap and steps + len(data) < cfg.total_steps:
                ask()  # the workers play the next rollout with these weights while the learner updates
            ppo_update(model, data, scheduled(cfg, steps), logger)
            t2 = time.perf_counter()
            steps += len(data)
            if not cfg.overlap and steps < cfg.total_steps:
                ask()
            model.num_timesteps = steps
            _log_rollout(logger, data, t1 - t0, t2 - t1)
            logger.record("time/total_timesteps", steps)
            logger.dump(steps)
            if steps >= state["next_snapshot"]:
                add_snapshot(pools, run, export_policy(model, cfg), cfg, steps)
                state["next_snapshot"] = steps + cfg.snapshot_every
            if steps >= state["next_checkpoint"]:
                state["next_checkpoint"] = steps + cfg.checkpoint_every
                callback.checkpoint(steps)
            if cfg.eval_every and steps >= state["next_eval"] and not stop:
                callback.evaluate(steps)
                state["next_eval"] = steps + cfg.eval_every
            rate = (steps - steps_start) / max(time.perf_counter() - t_start, 1e-9)
            bar.update(task, completed=min(steps, cfg.total_steps), note=f"{rate:,.0f} steps/s")
    return steps


def _log_rollout(logger, data: Rollout, collect_s: float, update_s: float) -> None:
    st = data.stats
    logger.record("pitch/learner_steps_per_s", len(data) / max(collect_s + update_s, 1e-9))
    logger.record("pitch/collect_s", collect_s)
    logger.record("pitch/update_s", update_s)
    logger.record("pitch/games", st["games"])
    if st["bid_turns"]:
        logger.record("pitch/bids_made_pct", 100.0 * st["bids"] / st["bid_turns"])
        logger.record("pitch/average_bid", st["bid_sum"] / max(st["bids"], 1))
    if st["games_vs"]:
        logger.record("pitch/train_win_rate", st["won_vs"] / st["games_vs"])
    for key, count in st.items():
        if key.startswith("games_vs_") and count:
            name = key[len("games_vs_"):]
            logger.record(f"pitch/train_win_rate_vs_{tag(name)}", st[f"won_vs_{name}"] / count)


class Pools:
    """What ``loop.add_snapshot`` hands a new snapshot to (``env_method`` of a VecEnv on the SB3 path)."""

    def __init__(self, collector: Collector):
        self.collector = collector

    def env_method(self, name: str, layers, activation: str) -> None:
        assert name == "add_snapshot"
        self.collector.add_snapshot(layers, activation)
