"""The one agent interface: ``act(observation, info) -> action index``, plus ``reset`` at game start.

``observation`` and ``info`` are exactly what ``env.last()`` returns, from any env of the agent's
rules; an agent reads the rules (public) from the env it was built for and never the engine's
hidden state. What the seat to move knows comes from ``info`` when the env put it there (env options
``info_state=True``, ``infoset=True``); otherwise from the env the agent was built for, and only once
the observation it was given is that env's current one: an agent never reads another game silently.
"""

from __future__ import annotations

import random

import numpy as np

from pitch_env.actions import ActionLayout
from pitch_env.engine import BID
from pitch_env.infostate import InfoState

_ANOTHER = ("make the agent for the env it plays (agents.make(spec, env)), or have that env give the mover's "
            "knowledge in its infos (pitch_env.env(..., info_state=True))")


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

    def info_state(self, observation, info) -> InfoState:
        """The mover's InfoState (pitch_env/infostate.py): ``info["info_state"]`` if given, else the one of
        the env this agent was built for, when ``observation`` is that env's (ValueError otherwise)."""
        s = info.get("info_state") if info else None
        if s is None:
            return self._own_env(observation).info_state()
        if s.rules is not self.rules and s.rules != self.rules:
            raise ValueError(f"this {self.name} agent was made for the rules of {self.rules.variant} "
                             f"({self.rules.num_players} players) and was given a seat of other rules "
                             f"({s.rules.variant}, {s.rules.num_players} players): make an agent for those rules")
        return s

    def infoset(self, observation, info) -> dict:
        """The mover's readable infoset (pitch_env/infoset.py): ``info["infoset"]`` if given, else the
        env's, as ``info_state``."""
        s = info.get("infoset") if info else None
        return self._own_env(observation).infoset() if s is None else s

    def _own_env(self, observation):
        """The env this agent was built for, once ``observation`` is certainly its mover's current one."""
        env = self._env
        if env.game is None:
            raise ValueError(f"this {self.name} agent's env was never reset, so the observation it was given "
                             f"comes from another env: reset the env the agent was made for, or {_ANOTHER}")
        given = observation["observation"] if isinstance(observation, dict) else observation
        mine = env.observe(env.agent_selection)["observation"]
        if np.shape(given) != mine.shape:
            raise ValueError(f"this {self.name} agent was made for {self.rules.variant} rules (observations of "
                             f"{mine.size} numbers) and was given one of {np.size(given)}: make an agent for "
                             f"the rules it plays")
        if not np.array_equal(given, mine):
            raise ValueError(f"this {self.name} agent was given an observation that is not the current one of "
                             f"the env it was made for (another env or game): {_ANOTHER}")
        return env

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


def is_bid(state) -> bool:
    """Whether ``state`` (an InfoState) is a decision of the auction: the engine's bid phase."""
    return state.phase == BID


class SplitAgent(Agent):
    """Two agents as one: ``bids`` makes the decisions of the auction (the engine's bid phase), ``play``
    every other one (the pitch or the trump, the exchange, the tricks). Pairing an agent's bids with
    another's play shows which half of it wins its games. ``first(state)`` (an InfoState), when given,
    picks the decisions of the first agent instead of the bids (bench/search_lead.py asks which tricks
    a search wins with)."""

    def __init__(self, env, bids: Agent, play: Agent, first=is_bid):
        super().__init__(env)
        self.bids, self.play, self.first = bids, play, first
        self.name = f"split:{bids.name}+{play.name}"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.bids.reset(seed)
        self.play.reset(seed)

    def act(self, observation, info) -> int:
        first = self.first(self.info_state(observation, info))
        return (self.bids if first else self.play).act(observation, info)
