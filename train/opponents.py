"""The opponent pool: who plays the other sides of each self-play game, drawn by configurable weights.

Entries are ``"self"`` (a frozen snapshot of the learner, numpy forward pass), any agent spec of
``agents.make`` (``"random"``, ``"heuristic"``, ``"checkpoint:PATH"`` …); ``"heuristic"`` plays
through ``EngineHeuristic``, the same choices read from the engine without an infoset. Every opponent is called
as ``act(game, seat, obs) -> action`` with ``obs`` the seat's Observer vector; agent specs get the
same observation as the AEC env and the seat's ``info_state``.
"""

from __future__ import annotations

import numpy as np

from pitch_env.actions import ActionLayout
from pitch_env.observer import Observer
from pitch_policy import PolicyMLP

from .hint import engine_hint


class PolicyOpponent:
    """A policy network playing a seat, sampling from its masked distribution."""

    def __init__(self, policy: PolicyMLP, observer: Observer, action_size: int, rng: np.random.Generator):
        self.policy, self.observer, self.rng = policy, observer, rng
        self._mask = np.zeros(action_size, np.int8)

    def reset(self, seed: int) -> None:
        pass

    def act(self, game, seat: int, obs: np.ndarray) -> int:
        self._mask.fill(0)
        self._mask[game.legal_actions()] = 1
        hint = engine_hint(game) if self.policy.hint != "none" else None
        return self.policy.act(obs, self._mask, self.rng, hint)


class EngineHeuristic:
    """The heuristic read straight from the engine's ints (agents/rollout.py): the same choices as
    ``HeuristicAgent`` without building an infoset per move, so the pool's ``heuristic`` is cheap."""

    def reset(self, seed: int) -> None:
        pass

    def act(self, game, seat: int, obs: np.ndarray) -> int:
        return engine_hint(game)


class AgentOpponent:
    """An agent of the ``agents`` package (``act(observation, info)``) playing a seat of a bare Game."""

    def __init__(self, agent, observer: Observer, action_size: int):
        self.agent, self.observer, self.action_size = agent, observer, action_size

    def reset(self, seed: int) -> None:
        self.agent.reset(seed)

    def act(self, game, seat: int, obs: np.ndarray) -> int:
        legal = game.legal_actions()
        mask = np.zeros(self.action_size, np.int8)
        mask[legal] = 1
        obs = {"observation": obs, "action_mask": mask}
        return int(self.agent.act(obs, {"info_state": game.info_state(seat), "legal_actions": list(legal)}))


def make_agent(spec: str, rules):
    """An ``agents.make`` agent for these rules (it reads each seat's ``info_state`` from AgentOpponent)."""
    import agents

    return agents.make(spec, rules)


class OpponentPool:
    """Weighted draw over entries; ``"self"`` draws uniformly among the frozen snapshots."""

    def __init__(self, rules, weights: dict[str, float], snapshot_pool: int, seed: int, transform=None,
                 hint: str = "none"):
        self.rules, self.transform, self.hint = rules, transform, hint
        self.observer = Observer(rules)
        self.action_size = ActionLayout(rules).size
        self.names = [k for k, w in weights.items() if w > 0]
        w = np.array([weights[k] for k in self.names], np.float64)
        self.p = w / w.sum()
        self.snapshot_pool = snapshot_pool
        self.snapshots: list[PolicyOpponent] = []
        self.rng = np.random.default_rng(seed)
        self._agents: dict[tuple[str, int], AgentOpponent] = {}

    def add_snapshot(self, policy: PolicyMLP) -> None:
        policy.transform, policy.hint = self.transform, self.hint
        self.snapshots.append(PolicyOpponent(policy, self.observer, self.action_size, self.rng))
        del self.snapshots[:-self.snapshot_pool]

    def draw(self, side: int):
        """(entry name, opponent) for one side of one game (agents are kept one per side: some have memory)."""
        name = self.names[self.rng.choice(len(self.names), p=self.p)]
        if name == "self":
            if not self.snapshots:
                raise RuntimeError("the opponent pool has weight on 'self' but holds no snapshot yet")
            return name, self.snapshots[self.rng.integers(len(self.snapshots))]
        key = (name, side)
        if key not in self._agents:
            self._agents[key] = (EngineHeuristic() if name == "heuristic" else
                                 AgentOpponent(make_agent(name, self.rules), self.observer, self.action_size))
        return name, self._agents[key]
