"""PIMC guided by a trained network (agent spec ``pimcnet:N:PATH``): the search of agents/pimc.py,
with the policy at PATH instead of the heuristic everywhere the heuristic stood in it.

At every bid, trump declaration and card play with a choice, N worlds are sampled consistently with
the seat's InfoState (agents/worlds.py). In each world every legal action is taken and the hand is
played out with the network at every seat, greedily, all the worlds' and actions' games stepped
together so that one forward pass per move covers them all. The worlds are played on the batched
engine (pitch_env/batch: each world dealt its sampled cards, the hand's public actions replayed,
``NetRollouts.worlds``), or, in a stock game, whose hidden discards a replay cannot give, on the
reference engine (``Game.from_info_state``, ``NetRollouts.playout``); both give the same outcomes
(tests/test_exit.py), the batched one in less time (docs/benchmarks.md). An action's outcome in a
world is what ``playout`` scores (agents/rollout.py ``hand_value``), or, given a game value
(``leaf``, pitch_policy/game_value.py), the side's chance of winning the game from where the hand
leaves it.
The network's own choice is kept unless another action's mean outcome beats it by more than
``switch_z`` standard errors of their paired difference, so the search only leaves the network
where the worlds clearly say it should. The stock decision and discards are the network's.

Compared with ``pimc:N`` (heuristic rollouts, heuristic bids): a rollout policy that plays better
makes each world's verdict closer to the value of the position, and bids are searched too. It
costs a forward pass per rollout move (docs/agents.md gives the thinking time). It is also the
teacher of expert iteration (train/exit.py).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from pitch_env.actions import ActionLayout
from pitch_policy.canonical import BatchCanonical
from pitch_env.batch import kernels as K
from pitch_env.engine import BID, DECLARE, OVER, PLAY, Game
from pitch_env.observer import LiveTable, Observer
from pitch_policy import BatchMLP, load_policy
from pitch_policy import batch_policy_input, policy_input

from .base import Agent
from .heuristic import heuristic_action
from .pimc import SWITCH_Z, paired
from .rollout import hand_value, rollout_action, scores_value
from .worlds import sample_world, void_masks

SEARCHED = (BID, DECLARE, PLAY)


@contextmanager
def one_thread():
    """Torch at one thread meanwhile (the caller's count given back after): for the rollouts' small
    batches one thread was faster than two even alone."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


class Choice(NamedTuple):
    """The network's greedy choices in a batch of games (NetRollouts.choose): its inputs, masks and
    permutation ids as ``batch_policy_input`` gives them, the actions as the network sees them
    (``seen``) and the real actions."""
    x: np.ndarray
    mask: np.ndarray
    ids: np.ndarray | None
    seen: np.ndarray
    action: np.ndarray


class NetRollouts:
    """A policy network (pitch_policy/network.py ``PolicyMLP``) run on many engine games at once."""

    def __init__(self, policy, rules, leaf=None, batched: bool | None = None):
        self.leaf = leaf  # a GameValue: value a hand by the game it leaves (else by hand_value)
        self.rules = rules
        self.observer = Observer(rules)
        self.layout = ActionLayout(rules)
        self.A = self.layout.size
        self.canon = None if policy.transform is None else BatchCanonical(policy.transform)
        self.hint = policy.hint == "heuristic"
        self.net = BatchMLP(policy.layers, policy.activation)
        # a search's worlds played on the batched engine (``worlds``), except in stock games, whose
        # worlds hold private discards and draws that a replay of the hand's public actions cannot give
        self.batched = not rules.uses_stock if batched is None else batched
        if self.batched and rules.uses_stock:
            raise ValueError("the batched worlds need rules without the stock exchange")
        self._engine = self._heuristic = None

    def greedy(self, games: list[Game], lives: list[LiveTable]) -> np.ndarray:
        """The network's most likely legal action (a real action) for the seat to move of each game."""
        obs = np.stack([t.observe(g.current_seat) for g, t in zip(games, lives)])
        mask = np.zeros((len(games), self.A), bool)
        for k, g in enumerate(games):
            mask[k, g.legal_view()] = True
        hints = np.array([rollout_action(g) for g in games]) if self.hint else None
        x, m, ids = batch_policy_input(obs, mask, self.canon, hints)
        a = np.where(m, self.net(x), -np.inf).argmax(1)
        return a if ids is None else self.canon.act_src[ids, a]

    def playout(self, games: list[Game], sides: list[int]) -> list[float]:
        """Play every game to the end of its hand, the network at every seat, greedily; each one's
        outcome for its side (``hand_value``, or with a ``leaf`` its chance of winning the game), torch
        at one thread (``one_thread``)."""
        with one_thread():
            return self._playout(games, sides)

    def _playout(self, games: list[Game], sides: list[int]) -> list[float]:
        before = [list(g.scores) for g in games]
        lives = [self.table(g) for g in games]
        live = [i for i, g in enumerate(games) if g.phase != OVER]
        while live:
            live, _ = self.step(games, lives, live)
        if self.leaf is not None:
            return self.leaf.of_games(games, sides).tolist()
        return [hand_value(g, side, b) for g, side, b in zip(games, sides, before)]

    def worlds(self, v, hands: list[list[int]], legal: list[int]) -> np.ndarray:
        """Outcomes ``[len(legal), len(hands)]`` for the seat to move at InfoState ``v``: in each world
        (``hands``: every seat's hidden cards, as agents/worlds.py samples them) every legal action taken
        and the hand played out by the network at every seat, greedily, as ``playout`` would score the
        same games, on the batched engine (pitch_env/batch): each world is dealt its seats' cards of this
        hand, the hand's public actions so far are replayed, and all worlds and actions step together."""
        with one_thread():
            return self._worlds(v, hands, legal)

    def _worlds(self, v, hands: list[list[int]], legal: list[int]) -> np.ndarray:
        W, L = len(hands), len(legal)
        e = self._batch(W * L)
        rows = np.arange(W * L)
        e.load_hands(rows, v.hand_number, v.dealer, v.scores, np.repeat(self._decks(v, hands), L, 0))
        for a in hand_actions(v, e.compiled):  # the same public actions in every world
            self._step(e, np.full(W * L, a, np.int64), observe=False)
        side = np.full(W * L, self.rules.side_of(v.seat))
        before = np.tile(np.asarray(v.scores, np.int64), (W * L, 1))
        return self._finish_hands(e, np.tile(np.asarray(legal, np.int64), W), side, before).reshape(W, L).T

    def in_own_cards(self, src, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every legal action of the seat to move in each of ``src``'s games ``games`` (a BatchEngine's,
        none over), each taken in a copy of that game, in its own cards, and the hand played out greedily
        by the network at every seat: (the game of each copy, its action, its outcome for the side to
        move, as ``playout`` scores it). What expert iteration's ``worlds_from: dealt`` records, for many
        games in one batch."""
        games = np.asarray(games, np.int64)
        game_of, action = np.nonzero(src.mask[games])
        game_of = games[game_of]
        e = self._batch(len(game_of))
        e.copy_games(src, game_of)
        side = src.compiled.side_of[src.I[game_of, K.CUR]]
        with one_thread():
            return game_of, action, self._finish_hands(e, action, side, src.scores[game_of])

    def _finish_hands(self, e, first: np.ndarray, side: np.ndarray, before: np.ndarray) -> np.ndarray:
        """The engine's first ``len(first)`` games, each at a decision: ``first`` taken, then the hand played
        out greedily by the network at every seat; each one's outcome for its ``side`` (the sides' scores
        ``before``: where the hand's value is counted from)."""
        R = len(first)
        self._step(e, first)
        ends = np.empty((R, 4 + self.rules.num_sides), np.int64)  # winner, truncated, dealer, hand, scores
        live = np.arange(R)
        while True:
            ended = e.I[live, K.HAND_END] == 1
            if ended.any():
                done = live[ended]
                ends[done] = np.concatenate([e.I[done][:, [K.WINNER, K.TRUNC, K.DEALER, K.HAND]], e.scores[done]], 1)
                e.I[done, K.PHASE] = OVER  # each game is played to the end of its hand only
                live = live[~ended]
            if not live.size:
                return self._hand_outcomes(ends, side, before)
            actions = np.zeros(R, np.int64)
            actions[live] = self._greedy_rows(e, live)
            self._step(e, actions, live)

    def _batch(self, rows: int):
        from pitch_env.batch import BatchEngine

        from .batch_heuristic import BatchHeuristic

        if self._engine is None or self._engine.num_games < rows:
            self._engine = BatchEngine(self.rules, max(rows, 2 * (self._engine.num_games if self._engine else 32)))
            self._heuristic = BatchHeuristic(self._engine) if self.hint else None
        return self._engine

    def _decks(self, v, hands: list[list[int]]) -> np.ndarray:
        """Each world's cards of this hand in dealing order: every seat's hand as it was dealt (its cards
        now and those it has played), packets from the dealer's left, then the deck's other cards."""
        r = self.rules
        n, W = r.num_players, len(hands)
        seats = [(v.dealer + 1 + i) % n for i in range(n)]
        dealt = np.array([[held[s] | v.played_by[s] for s in seats] for held in hands], np.uint64)
        bits = (dealt[:, :, None] >> np.arange(r.deck, dtype=np.uint64)) & np.uint64(1) == 1  # [world, packet, card]
        cards = np.nonzero(bits.reshape(W, -1))[1].reshape(W, -1) % r.deck  # packet by packet, each in card order
        rest = np.nonzero(~bits.any(1))[1].reshape(W, -1)
        return np.concatenate([cards, rest], 1)

    def _step(self, e, actions: np.ndarray, live: np.ndarray | None = None, observe: bool = True) -> None:
        """One move in each of the engine's first ``len(actions)`` games not over (``live``: those games;
        None: all), refused if any of them is illegal: a world that contradicts the hand's public actions."""
        rows = np.arange(len(actions)) if live is None else live
        legal = e.mask[rows, actions[rows]] == 1
        if not legal.all():
            bad = int(rows[np.argmin(legal)])
            raise ValueError(f"world {bad}: action {self.layout.name(int(actions[bad]))!r} is not legal there")
        e.step(actions, observe)

    def _greedy_rows(self, e, rows: np.ndarray) -> np.ndarray:
        return self.choose(e, rows, self._heuristic).action

    def choose(self, e, rows: np.ndarray, heuristic=None) -> Choice:
        """The network's greedy choice in each of BatchEngine ``e``'s games ``rows``, with what it read.
        ``heuristic``: a BatchHeuristic of ``e``, for a network that reads the heuristic's hint."""
        hints = heuristic.actions(rows) if self.hint else None
        x, m, ids = batch_policy_input(e.obs[rows], e.mask[rows].astype(bool), self.canon, hints)
        a = np.where(m, self.net(x), -np.inf).argmax(1)
        return Choice(x, m, ids, a, a if ids is None else self.canon.act_src[ids, a])

    def _hand_outcomes(self, ends: np.ndarray, side: np.ndarray, before: np.ndarray) -> np.ndarray:
        """What each game's hand was worth to its ``side`` (the sides' scores ``before`` it), from the game as
        the hand left it (``ends``: winner or -1, truncated, the next hand's dealer and number, the scores):
        ``hand_value``'s points or, with a ``leaf``, its chance of winning (``GameValue.after_hand``)."""
        winner, truncated, dealer, hand, scores = ends[:, 0], ends[:, 1] == 1, ends[:, 2], ends[:, 3], ends[:, 4:]
        if self.leaf is not None:
            return self.leaf.after_hand(winner, truncated, scores, dealer, hand, side)
        return np.array([scores_value(self.rules, s, now, b, None if w < 0 else w)
                         for s, now, b, w in zip(side.tolist(), scores.tolist(), before.tolist(), winner.tolist())])

    def table(self, game: Game) -> LiveTable:
        t = LiveTable(self.observer)
        t.sync(game)
        return t

    def step(self, games: list[Game], lives: list[LiveTable], live: list[int]) -> tuple[list[int], list[int]]:
        """One greedy move in each game ``games[i]``, ``i`` in ``live``, its table ``lives[i]`` kept up to date
        within the hand: (the games still in their hand, those whose hand ended: a new hand dealt, or
        the game over)."""
        actions = self.greedy([games[i] for i in live], [lives[i] for i in live])
        going, ended = [], []
        for i, a in zip(live, actions.tolist()):
            g = games[i]
            seat, phase, number = g.current_seat, g.phase, g.hand_number
            g.apply_legal(a)  # the network picks only legal actions (masked)
            if g.phase != OVER and g.hand_number == number:
                lives[i].after(g, seat, a, phase, number)
                going.append(i)
            else:
                ended.append(i)
        return going, ended


def hand_actions(v, compiled) -> list[int]:
    """The actions of ``v``'s hand so far, in order, all public in a game without the stock exchange: the
    bids (their actions from the batched engine's tables, ``compiled``), the trump declared (if the
    rules declare it), then the cards played."""
    layout = compiled.layout
    out = [int(compiled.action_of_bid[b]) for _, b in v.bids]
    if v.trump is not None and layout.trump_base >= 0:
        out.append(layout.trump_base + v.trump)
    for _, plays, _ in v.tricks:
        out += [layout.play_base + c for _, c in plays]
    return out + [layout.play_base + c for _, c in v.trick]


@dataclass
class Decision:
    """One decision of the search: its action, the network's own choice, what the network read
    (``policy_input``'s input, mask and permutation back to real actions) and, where it searched, each
    legal action's mean outcome over the worlds (``values``, by real action; None where it did not)."""

    action: int
    network: int
    x: np.ndarray
    mask: np.ndarray
    act_src: np.ndarray | None
    values: dict[int, float] | None = None


class NetSearch:
    """The search itself, on an InfoState: what ``pimcnet`` plays and expert iteration's teacher."""

    def __init__(self, policy, rules, worlds: int, rng, switch_z: float = SWITCH_Z, leaf=None,
                 batched: bool | None = None, read_bids: bool = True):
        self.policy, self.rules, self.worlds, self.rng, self.switch_z = policy, rules, worlds, rng, switch_z
        self.read_bids = read_bids  # worlds that explain the bids by agents/bidding.py's model; else play's facts alone
        self.rollouts = NetRollouts(policy, rules, leaf, batched)
        self.layout = ActionLayout(rules)

    def decide(self, obs: np.ndarray, mask: np.ndarray, v, search: bool = True) -> Decision:
        """The decision of the seat to move at ``v`` (``obs``, ``mask``: its Observer vector and legal mask):
        searched at a bid, trump or card with a choice, else (and where ``search`` is false) the network's."""
        hint = heuristic_action(v, self.layout) if self.rollouts.hint else None
        x, m, act_src = policy_input(obs, mask, self.policy.transform, hint)
        net = self.policy.act_input(x, m, act_src)
        legal = list(v.legal)
        if len(legal) == 1 or v.phase not in SEARCHED or not search:
            return Decision(net, net, x, m, act_src)
        action, means = self.search(v, legal, net)
        return Decision(action, net, x, m, act_src, dict(zip(legal, means.tolist())))

    def decide_in(self, g: Game, seat: int, live: LiveTable, search: bool = True):
        """(``decide`` for ``seat``, to move in ``g``, its InfoState): the observation from ``live``, kept in
        step with ``g``, and a fresh legal mask (without a transform the Decision keeps it as its mask)."""
        v = g.info_state(seat)
        mask = np.zeros(self.layout.size, bool)
        mask[list(v.legal)] = True
        return self.decide(live.observe(seat), mask, v, search), v

    def outcomes(self, v, legal: list[int]) -> np.ndarray:
        """Rollout outcomes, ``[len(legal), worlds]``: every legal action in every sampled world."""
        voids = void_masks(v)
        if self.rollouts.batched:  # (no stock game: every hidden card is in a hand)
            hands = [sample_world(self.rng, v, voids, self.read_bids)[0] for _ in range(self.worlds)]
            return self.rollouts.worlds(v, hands, legal)
        side = self.rules.side_of(v.seat)
        games = []
        for _ in range(self.worlds):
            world = Game.from_info_state(v, *sample_world(self.rng, v, voids, self.read_bids))
            for a in legal:
                g = world.clone()
                g.apply_legal(a)
                games.append(g)
        values = self.rollouts.playout(games, [side] * len(games))
        return np.array(values, np.float64).reshape(self.worlds, len(legal)).T

    def search(self, v, legal: list[int], preferred: int) -> tuple[int, np.ndarray]:
        """(the chosen action, each legal action's mean outcome): the best mean, if it beats the
        network's choice ``preferred`` by more than ``switch_z`` standard errors; else ``preferred``."""
        results = self.outcomes(v, legal)
        means = results.mean(1)
        keep = legal.index(preferred)
        best = int(means.argmax())
        if best == keep:
            return preferred, means
        mean, se = paired(results[best].tolist(), results[keep].tolist())
        return (legal[best] if mean > 0 and mean > self.switch_z * se else preferred), means


class NetPIMCAgent(Agent):
    """``pimcnet:N:PATH``: N worlds per decision, rollouts and default choices by the policy at PATH."""

    def __init__(self, env, path, worlds: int = 12, seed: int | None = None, switch_z: float = SWITCH_Z):
        super().__init__(env, seed=seed)
        from .checkpoint import resolve_policy_path

        policy, _ = load_policy(resolve_policy_path(path), self.rules)
        self.searcher = NetSearch(policy, self.rules, worlds, self.rng, switch_z)
        self.name = f"pimcnet:{worlds}:{path}"

    def act(self, observation, info) -> int:
        return self.searcher.decide(np.asarray(observation["observation"], np.float32),
                                    np.asarray(observation["action_mask"], bool), self.info_state(observation, info)).action
