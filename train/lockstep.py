"""The batched self-play core: N games stepped in lockstep, each side filled from the league
(train/league.py), the learner's decisions gathered into one matrix for one forward pass.

Every tick each game makes one move. Sides the engine plays (heuristic, random, agent specs) move
inside the tick; the rows of every game where the learner is to move go through its network in one
batch, and so do the rows of each frozen snapshot. Rewards are those of pitch_env/rewards.py, kept by
one ``SideRewards`` per game (``reward: hand``: the side's relative score change after each hand; the
± win bonus at the end), credited to the side's latest decision, as the single-game env does
(train/selfplay.py).

A rollout ends once ``target`` learner decisions are recorded; the games go on into the next one. A
trajectory (one side's decisions in one game) that ended is a finished ``Segment``; one still running
is cut at its latest decision, whose value bootstraps the rest (truncated GAE, train/ppo.py), and that
decision opens the trajectory's segment in the next rollout (it still waits for its reward).
``Collector`` splits the games over worker processes (the weights go out, the rollouts come back
through pipes), or steps them in the learner's process with ``workers: 0``.

The games sit behind ``Games``, the one class that touches the engine: a batched engine (arrays of
games) replaces it without changing the loop above it or the trainers.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
from dataclasses import dataclass, field

import numpy as np

from pitch_env.actions import ActionLayout
from pitch_env.engine import BID, OVER, PASS, Game, bid_value
from pitch_env.observer import LiveTable, Observer
from pitch_env.rewards import SideRewards
from pitch_env.scoring import SHOOT
from pitch_policy import BatchMLP, batch_policy_input
from pitch_policy.canonical import BatchCanonical, SuitCanonical

from .batch_games import BatchGames, serves
from .critic import oracle_inputs
from .hint import engine_hint
from .league import LEARNER, MIRROR, League


def count_bid(stats: dict, rules, action: int) -> None:
    """Add a bid decision to the TensorBoard bid statistics (``bid_turns``, ``bids``, ``bid_sum``) of
    every training path; a shoot counts one above the top bid."""
    stats["bid_turns"] += 1
    bid = bid_value(rules, action)
    if bid != PASS:
        stats["bids"] += 1
        stats["bid_sum"] += rules.max_bid + 1 if bid == SHOOT else bid


def sample_masked(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator):
    """(actions, log-probabilities) sampled from the masked softmax of each row (Gumbel-max)."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(1, keepdims=True)
    logp_all = z - np.log(np.exp(z).sum(1, keepdims=True))
    g = rng.gumbel(size=z.shape).astype(np.float32)
    actions = np.argmax(np.where(mask, logp_all + g, -np.inf), axis=1)
    return actions, logp_all[np.arange(len(z)), actions]


# ---------------------------------------------------------------------- what a rollout holds
@dataclass
class Segment:
    """One side's decisions of one game within a rollout (row indices, in order); ``ended``: the game
    is over after them; otherwise the last row is the bootstrap, trained on in the next rollout."""
    rows: list[int]
    ended: bool


@dataclass
class Rollout:
    """The learner's decisions of one rollout, as the network saw them."""
    obs: np.ndarray  # float32 [n, input]: what the network read
    masks: np.ndarray  # bool [n, actions], network order
    actions: np.ndarray  # int64 [n], network order
    logp: np.ndarray  # float32 [n]: log-probability under the policy that acted
    values: np.ndarray  # float32 [n]: its value estimate
    rewards: np.ndarray  # float32 [n]: the reward credited after each decision
    segments: list[Segment] = field(default_factory=list)  # every row is in exactly one
    stats: dict = field(default_factory=dict)  # episode statistics for TensorBoard
    oracle: np.ndarray | None = None  # float32 [n, extra]: the oracle critic's inputs (critic: oracle), else None
    opens: np.ndarray | None = None  # bool [n]: the decision is its side's first of a hand (its bid, where it bids)

    def __len__(self) -> int:
        return len(self.actions)

    @property
    def trained(self) -> int:
        """The decisions trained on: all but the bootstraps of running trajectories."""
        return len(self) - sum(not s.ended for s in self.segments)

    @staticmethod
    def concat(parts: list["Rollout"]) -> "Rollout":
        stats: dict = {}
        for p in parts:
            for k, v in p.stats.items():
                stats[k] = stats.get(k, 0) + v
        segments, at = [], 0
        for p in parts:
            segments += [Segment([r + at for r in s.rows], s.ended) for s in p.segments]
            at += len(p)
        arrays = (np.concatenate([getattr(p, f) for p in parts]) for f in
                  ("obs", "masks", "actions", "logp", "values", "rewards"))
        oracle, opens = (None if getattr(parts[0], f) is None else np.concatenate([getattr(p, f) for p in parts])
                         for f in ("oracle", "opens"))
        return Rollout(*arrays, segments, stats, oracle, opens)


# ---------------------------------------------------------------------- the games
class Games:
    """``n`` engine games and their observation tables: the one seam between the core and the engine
    (reset one slot, the seats to move, the batched observations, masks and hints, one move)."""

    def __init__(self, rules, n: int):
        self.rules = rules
        self.observer = Observer(rules)
        self.actions = ActionLayout(rules).size
        self.games: list[Game] = [None] * n  # type: ignore[list-item]
        self.tables = [LiveTable(self.observer) for _ in range(n)]

    def reset(self, i: int, seed: int) -> None:
        g = self.games[i] = Game(self.rules, seed=seed)
        self.tables[i].sync(g)

    def seats(self) -> list[int]:
        return [g.current_seat for g in self.games]

    def observations(self, idx: list[int], seats: list[int]) -> np.ndarray:
        tables = self.tables
        return np.stack([tables[i].observe(s) for i, s in zip(idx, seats)])

    def masks(self, idx: list[int]) -> np.ndarray:
        mask = np.zeros((len(idx), self.actions), bool)
        for k, i in enumerate(idx):
            mask[k, self.games[i].legal_view()] = True
        return mask

    def set_scores(self, i: int, scores) -> None:
        """Game ``i``, just dealt, with the sides at ``scores`` instead of 0."""
        g = self.games[i]
        g.scores = [int(s) for s in scores]
        self.tables[i].sync(g)

    def hints(self, idx: list[int]) -> np.ndarray:
        return np.array([engine_hint(self.games[i]) for i in idx])

    def hands(self, idx: list[int]) -> np.ndarray:
        """Every seat's cards (bit masks) in games ``idx``: what only the oracle critic reads."""
        return np.array([self.games[i].hands for i in idx], np.uint64)

    def act(self, player, i: int, seat: int) -> int:
        """The move of a player the core steps game by game (the heuristic, random play, agent specs)."""
        return player.act(self.games[i], seat, self.tables[i])

    def step(self, i: int, seat: int, action: int):
        """Apply ``action`` for ``seat`` in game ``i`` (checked: a wrong transform or mask fails loudly
        here rather than corrupting the game); returns (the finished hand's score change, zeros for a hand
        thrown in, or None while the hand goes on; whether the game is over), as the batched engine does."""
        g = self.games[i]
        phase, number, before = g.phase, g.hand_number, len(g.finished)
        g.apply(action)
        self.tables[i].after(g, seat, action, phase, number)
        hand = None
        if len(g.finished) != before:
            hand = g.last_result.score_change if g.last_result is not None else (0,) * self.rules.num_sides
        return hand, g.phase == OVER


# ---------------------------------------------------------------------- the lockstep loop
class Lockstep:
    """``n_games`` self-play games stepped together, one move each per tick; ``collect`` plays one
    rollout, and the games go on into the next. ``league`` fills the sides (built from the config's
    ``opponents``, ``mirror`` and ``snapshot_pool`` when not given). ``batched``: hold the games in the
    batched engine (train/batch_games.py); by default, when every opponent the config names can act there."""

    def __init__(self, cfg, n_games: int, seed, league: League | None = None, batched: bool | None = None):
        self.cfg = cfg
        self.rules = rules = cfg.resolved_rules()
        self.n = n_games
        self.rng = np.random.default_rng(seed)
        self.league = league or League(rules, cfg.opponents, cfg.mirror, cfg.snapshot_pool,
                                       seed=self.rng.integers(2**62), observation=cfg.observation, hint=cfg.hint)
        if batched is None:
            batched = serves(cfg)
        self.games = (BatchGames if batched else Games)(rules, n_games)
        self.canon = BatchCanonical(SuitCanonical(rules)) if cfg.observation == "suit_canonical" else None
        self.hint = cfg.hint != "none"
        self.oracle = cfg.critic == "oracle"
        self.books = [SideRewards(rules, cfg.reward, cfg.win_bonus) for _ in range(n_games)]  # each game's rewards
        self.start_scores = cfg.start_scores  # share of new games dealt at random scores (set_weights updates it)
        self.side_of = [rules.side_of(s) for s in range(rules.num_players)]
        self.pi = self.vf = None
        self.seatings: list = []  # each slot's Seating (empty until the first collect)
        self.traj: list[dict[int, list[int]]] = []  # each slot's learner sides -> their rows in this rollout
        self.carry = None  # each running trajectory's latest decision, trained on in the next rollout
        self.fresh: list[set[int]] = [set() for _ in range(n_games)]  # each game's sides yet to decide in this hand

    # --------------------------------------------------------------- weights
    def set_learner(self, pi_layers, vf_layers) -> None:
        self.pi = BatchMLP(pi_layers, self.cfg.activation)
        self.vf = BatchMLP(vf_layers, self.cfg.activation)

    def add_snapshot(self, layers, activation: str) -> None:
        self.league.add_snapshot(layers, activation)

    def set_weights(self, opponents: dict[str, float], mirror: float, start_scores: float) -> None:
        self.league.set_weights(opponents, mirror)
        self.start_scores = start_scores

    # --------------------------------------------------------------- a rollout
    def start(self, i: int) -> None:
        """A new game in slot ``i``, its sides' players drawn from the league."""
        seating = self.seatings[i] = self.league.draw()
        self.games.reset(i, int(self.rng.integers(2**62)))
        if self.start_scores and self.rng.random() < self.start_scores:
            self.games.set_scores(i, self.rng.integers(0, self.rules.target_score, self.rules.num_sides))
        self.traj[i] = {s: [] for s in seating.learner_sides}
        self.fresh[i] = set(range(self.rules.num_sides))
        self.books[i].start(seating.learner_sides)

    def inputs(self, idx: list[int], seats: list[int]):
        """What the network reads for games ``idx``: (inputs, masks, permutation ids or None)."""
        obs, mask = self.games.observations(idx, seats), self.games.masks(idx)
        return batch_policy_input(obs, mask, self.canon, self.games.hints(idx) if self.hint else None)

    def collect(self, target: int) -> Rollout:
        """Step the games until ``target`` more learner decisions are recorded (module docstring)."""
        r, cfg, n = self.rules, self.cfg, self.n
        games, side_of, books = self.games, self.side_of, self.books
        if not self.seatings:
            self.seatings, self.traj = [None] * n, [{} for _ in range(n)]
            for i in range(n):
                self.start(i)
        seatings, traj = self.seatings, self.traj
        parts = {k: [] for k in ("obs", "masks", "actions", "logp", "values", *(("oracle",) if self.oracle else ()))}
        rewards: list[float] = []
        opens: list[bool] = []  # each row: its side's first decision of a hand
        fresh = self.fresh
        if self.carry is not None:  # the carried decisions are rows 0..c-1 of this rollout
            for k in parts:
                parts[k].append(self.carry[k])
            rewards.extend(self.carry["rewards"])
            opens.extend(self.carry["opens"])
            for row, (i, side) in enumerate(self.carry["owners"]):
                traj[i][side] = [row]
            self.carry = None
        rows = len(rewards)
        goal = rows + target
        segments: list[Segment] = []
        stats = {"games": 0, "truncated": 0, "games_vs": 0, "won_vs": 0.0, "bid_turns": 0, "bids": 0,
                 "bid_sum": 0.0}
        for name in self.league.names:
            stats[f"games_vs_{name}"] = 0
            stats[f"won_vs_{name}"] = 0.0

        def credit(i: int) -> None:
            for side, rows_of in traj[i].items():
                amount = books[i].take(side)
                if rows_of:  # a reward before the side's first decision has nobody to go to (as in SelfPlayEnv)
                    rewards[rows_of[-1]] += amount

        def finish(i: int) -> None:
            g = games.games[i]
            books[i].game_over(g.winner)
            credit(i)
            segments.extend(Segment(rows_of, True) for rows_of in traj[i].values() if rows_of)
            stats["games"] += 1
            stats["truncated"] += int(g.truncated)  # stopped at max_hands unwon
            seating = seatings[i]
            if seating.names != [MIRROR]:
                won = float(g.winner == seating.learner_sides[0])
                stats["games_vs"] += 1
                stats["won_vs"] += won
                for name in set(seating.names):  # (a schedule may bring in an opponent the config did not name)
                    stats[f"games_vs_{name}"] = stats.get(f"games_vs_{name}", 0) + 1
                    stats[f"won_vs_{name}"] = stats.get(f"won_vs_{name}", 0.0) + won

        def apply(i: int, seat: int, action: int) -> None:
            hand, over = games.step(i, seat, action)
            if hand is not None:
                fresh[i] = set(range(r.num_sides))
            if hand is not None and cfg.reward == "hand":
                books[i].hand_over(hand)
                credit(i)
            if over:
                finish(i)
                self.start(i)

        while rows < goal:
            groups: dict = {}  # the learner, or a snapshot -> the games where it is to move
            for i, seat in enumerate(games.seats()):
                player = seatings[i].players[side_of[seat]]
                if player is LEARNER or player.batched:
                    groups.setdefault(player, []).append(i)
                else:
                    apply(i, seat, games.act(player, i, seat))
            for player, idx in groups.items():
                seats = [games.games[i].current_seat for i in idx]
                x, m, ids = self.inputs(idx, seats)
                if player is LEARNER:
                    actions, logp = sample_masked(self.pi(x), m, self.rng)
                    parts["obs"].append(x)
                    parts["masks"].append(m)
                    parts["actions"].append(actions)
                    parts["logp"].append(logp)
                    v_in = x
                    if self.oracle:  # the value also reads the other hands (train/critic.py)
                        o = oracle_inputs(games.hands(idx), seats, r.deck,
                                          None if ids is None else self.canon.card_src[ids])
                        parts["oracle"].append(o)
                        v_in = np.concatenate([x, o], 1)
                    parts["values"].append(self.vf(v_in)[:, 0])
                else:
                    actions, _ = sample_masked(player.net(x), m, self.rng)
                real = actions if ids is None else self.canon.act_src[ids, actions]
                for k, (i, seat) in enumerate(zip(idx, seats)):
                    a, side = int(real[k]), side_of[seat]
                    if player is LEARNER:
                        traj[i][side].append(rows)
                        rewards.append(0.0)
                        opens.append(side in fresh[i])
                        rows += 1
                        if games.games[i].phase == BID:
                            count_bid(stats, r, a)
                    fresh[i].discard(side)
                    apply(i, seat, a)
        data = {k: np.concatenate(v) for k, v in parts.items()}
        running = [(i, side, rows_of) for i in range(n) for side, rows_of in traj[i].items() if rows_of]
        segments.extend(Segment(rows_of, False) for _, _, rows_of in running)
        carried = [rows_of[-1] for _, _, rows_of in running]
        self.carry = {k: data[k][carried] for k in parts}
        self.carry["rewards"] = [rewards[c] for c in carried]
        self.carry["opens"] = [opens[c] for c in carried]
        self.carry["owners"] = [(i, side) for i, side, _ in running]
        return Rollout(data["obs"], data["masks"], data["actions"].astype(np.int64), data["logp"].astype(np.float32),
                       data["values"].astype(np.float32), np.asarray(rewards, np.float32), segments, stats,
                       data.get("oracle"), np.asarray(opens, bool))


# ---------------------------------------------------------------------- worker processes
def work(conn, cfg, n_games: int, seed) -> None:
    """A worker process stepping its share of the games: ("collect", pi, vf, new snapshots, weights,
    target) in, a Rollout out, until ("close",)."""
    import torch

    torch.set_num_threads(1)  # the parent's StopFlag made it die with the parent and ignore Ctrl-C
    lock = Lockstep(cfg, n_games, seed)
    try:
        while True:
            msg = conn.recv()
            if msg[0] == "close":
                break
            _, pi, vf, snapshots, weights, target = msg
            lock.set_learner(pi, vf)
            lock.set_weights(*weights)
            for layers, activation in snapshots:
                lock.add_snapshot(layers, activation)
            conn.send(lock.collect(target))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass
    finally:
        conn.close()


@contextlib.contextmanager
def _worker_lost():
    """A worker process gone (killed, or by the out-of-memory killer) is WorkerDied, not a pipe's error."""
    from agents.workers import WorkerDied

    try:
        yield
    except (EOFError, BrokenPipeError, ConnectionResetError):
        raise WorkerDied("a rollout worker process") from None


class Collector:
    """Steps ``num_envs`` games, in this process (``workers: 0``) or split over worker processes;
    ``salt`` changes the deals (a resumed run plays other games than the first session)."""

    def __init__(self, cfg, salt: int = 0):
        self.cfg = cfg
        self.workers = []
        self.pending_snapshots: list = []  # snapshots the workers have not been sent yet
        self.asked: int | None = None  # the learner decisions of the rollout requested and not yet received
        if cfg.workers == 0:
            self.local = Lockstep(cfg, cfg.num_envs, [cfg.seed, salt, 0])
            return
        self.local = None
        ctx = mp.get_context("fork")
        share = np.array_split(np.arange(cfg.num_envs), cfg.workers)
        for w, games in enumerate(share):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=work, args=(child, cfg, max(len(games), 1), [cfg.seed, salt, 1 + w]),
                               daemon=True)
            proc.start()
            child.close()
            self.workers.append((proc, parent))

    def add_snapshot(self, layers, activation: str) -> None:
        if self.local is not None:
            self.local.add_snapshot(layers, activation)
        else:
            self.pending_snapshots.append((layers, activation))

    def request(self, layers: tuple[list, list], target: int, live) -> None:
        """Start a rollout of ``target`` learner decisions with the learner's (policy, value) ``layers``
        as they are now, against the opponents of ``live`` (the config in force)."""
        pi, vf = layers
        weights = (live.opponents, live.mirror, live.start_scores)
        self.asked = target
        if self.local is not None:
            self.local.set_learner(pi, vf)
            self.local.set_weights(*weights)
            return
        share = -(-target // len(self.workers))
        with _worker_lost():
            for _, conn in self.workers:
                conn.send(("collect", pi, vf, self.pending_snapshots, weights, share))
        self.pending_snapshots = []

    def receive(self) -> Rollout:
        """The rollout last requested (played now when the games run in this process)."""
        target, self.asked = self.asked, None
        if self.local is not None:
            return self.local.collect(target)
        with _worker_lost():
            return Rollout.concat([conn.recv() for _, conn in self.workers])

    def collect(self, layers, target: int, live=None) -> Rollout:
        self.request(layers, target, live or self.cfg)
        return self.receive()

    def close(self) -> None:
        if self.asked is not None and self.workers:
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
