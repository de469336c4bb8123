"""PIMC guided by a trained network (agent spec ``pimcnet:N:PATH``): the search of agents/pimc.py,
with the policy at PATH instead of the heuristic everywhere the heuristic stood in it.

At every bid, trump declaration and card play with a choice, N worlds are sampled consistently with
the seat's InfoState (agents/worlds.py). In each world every legal action is taken and the hand is
played out with the network at every seat, greedily, all the worlds' and actions' games stepped
together so that one forward pass per move covers them all. An action's outcome in a world is what
``playout`` scores (agents/rollout.py ``hand_value``), or, given a game value (``leaf``,
pitch_policy/game_value.py), the side's chance of winning the game from where the hand leaves it.
The network's own choice is kept unless another action's mean outcome beats it by more than
``switch_z`` standard errors of their paired difference, so the search only leaves the network
where the worlds clearly say it should. The stock decision and discards are the network's.

Compared with ``pimc:N`` (heuristic rollouts, heuristic bids): a rollout policy that plays better
makes each world's verdict closer to the value of the position, and bids are searched too. It
costs a forward pass per rollout move (docs/agents.md gives the thinking time). It is also the
teacher of expert iteration (train/exit.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from pitch_env.actions import ActionLayout
from pitch_policy.canonical import BatchCanonical
from pitch_env.engine import BID, DECLARE, OVER, PLAY, Game
from pitch_env.observer import LiveTable, Observer
from pitch_policy import BatchMLP, load_policy
from pitch_policy import batch_policy_input, policy_input

from .base import Agent
from .heuristic import heuristic_action
from .pimc import SWITCH_Z, paired
from .rollout import hand_value, rollout_action
from .worlds import sample_world, void_masks

SEARCHED = (BID, DECLARE, PLAY)


class NetRollouts:
    """A policy network (pitch_policy/network.py ``PolicyMLP``) run on many engine games at once."""

    def __init__(self, policy, rules, leaf=None):
        self.leaf = leaf  # a GameValue: value a hand by the game it leaves (else by hand_value)
        self.observer = Observer(rules)
        self.A = ActionLayout(rules).size
        self.canon = None if policy.transform is None else BatchCanonical(policy.transform)
        self.hint = policy.hint == "heuristic"
        self.net = BatchMLP(policy.layers, policy.activation)

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
        outcome for its side (``hand_value``, or with a ``leaf`` its chance of winning the game). Torch
        runs at one thread meanwhile (the caller's count is given back): for these small batches one
        thread was faster than two even alone."""
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return self._playout(games, sides)
        finally:
            torch.set_num_threads(threads)

    def _playout(self, games: list[Game], sides: list[int]) -> list[float]:
        before = [list(g.scores) for g in games]
        lives = [self.table(g) for g in games]
        live = [i for i, g in enumerate(games) if g.phase != OVER]
        while live:
            live, _ = self.step(games, lives, live)
        if self.leaf is not None:
            return self.leaf.of_games(games, sides).tolist()
        return [hand_value(g, side, b) for g, side, b in zip(games, sides, before)]

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

    def __init__(self, policy, rules, worlds: int, rng, switch_z: float = SWITCH_Z, leaf=None):
        self.policy, self.rules, self.worlds, self.rng, self.switch_z = policy, rules, worlds, rng, switch_z
        self.rollouts = NetRollouts(policy, rules, leaf)
        self.layout = ActionLayout(rules)

    def decide(self, obs: np.ndarray, mask: np.ndarray, v) -> Decision:
        """The decision of the seat to move at ``v`` (``obs``, ``mask``: its Observer vector and legal mask):
        searched at a bid, trump or card with a choice, else the network's."""
        hint = heuristic_action(v, self.layout) if self.rollouts.hint else None
        x, m, act_src = policy_input(obs, mask, self.policy.transform, hint)
        net = self.policy.act_input(x, m, act_src)
        legal = list(v.legal)
        if len(legal) == 1 or v.phase not in SEARCHED:
            return Decision(net, net, x, m, act_src)
        action, means = self.search(v, legal, net)
        return Decision(action, net, x, m, act_src, dict(zip(legal, means.tolist())))

    def outcomes(self, v, legal: list[int]) -> np.ndarray:
        """Rollout outcomes, ``[len(legal), worlds]``: every legal action in every sampled world."""
        voids = void_masks(v)
        side = self.rules.side_of(v.seat)
        games = []
        for _ in range(self.worlds):
            hands, stock = sample_world(self.rng, v, voids)
            world = Game.from_info_state(v, hands, stock)
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
