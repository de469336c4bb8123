"""The one agent interface: ``act(observation, info) -> action index``, plus ``reset`` at game start.

``observation`` and ``info`` are exactly what ``env.last()`` returns; an agent reads the rules
(public) from the env it was built for and never the engine's hidden state. What the seat to move
knows comes from ``info`` when the caller put it there (``"info_state"``, ``"infoset"``), else from
the env it was built for (``env.unwrapped.info_state()`` / ``infoset()``), since the env's infos are
plain and empty by default.
"""

from __future__ import annotations

import random

from pitch_env.actions import ActionLayout
from pitch_env.infostate import InfoState


class Agent:
    """Base class. Subclasses implement ``act``; those with per-game memory override ``reset``."""

    name = "agent"

    def __init__(self, env, seed: int | None = None):
        raw = env.unwrapped
        self._env = raw
        self.rules = raw.rules  # public: every seat knows the rules
        self.layout = ActionLayout(self.rules)  # the env's action indices and names
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Called at the start of every game; ``seed`` makes a seeded agent's game reproducible."""
        if seed is not None:
            self.rng.seed(seed)

    def act(self, observation, info) -> int:
        raise NotImplementedError

    def info_state(self, info) -> InfoState:
        """The mover's InfoState (pitch_env/infostate.py): ``info["info_state"]`` if given, else the env's."""
        s = info.get("info_state") if info else None
        return self._env.info_state() if s is None else s

    def infoset(self, info) -> dict:
        """The mover's readable infoset (pitch_env/infoset.py): ``info["infoset"]`` if given, else the env's."""
        s = info.get("infoset") if info else None
        return self._env.infoset() if s is None else s

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def turns(env):
    """PettingZoo's AEC loop over ``env``: yields ``(agent name, observation, info)`` for each agent to
    move, and the caller steps the env with that agent's action before asking for the next turn;
    an agent whose game is over is stepped with None here. Ends when the env has no agents left."""
    for name in env.agent_iter():
        observation, _, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        yield name, observation, info


def legal_actions(observation, info) -> list[int]:
    """Legal action indices: ``info["legal_actions"]``, else the action mask."""
    legal = info.get("legal_actions") if info else None
    if legal is None:
        legal = [i for i, m in enumerate(observation["action_mask"]) if m]
    return [int(a) for a in legal]


class RandomAgent(Agent):
    """Uniform over the legal actions, from its own seeded RNG."""

    name = "random"

    def act(self, observation, info) -> int:
        return self.rng.choice(legal_actions(observation, info))
