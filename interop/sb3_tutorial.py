"""PettingZoo's SB3 action-masking tutorial wrapper (tutorials/SB3/connect_four), copied once and
unmodified: ``interop.loops.sb3_tutorial`` trains through it in ``make interop``, and
tests/test_env_copies.py in ``make test``. It needs only gymnasium and pettingzoo (main dependencies)."""

from __future__ import annotations

import gymnasium
from pettingzoo.utils import BaseWrapper


class SB3ActionMaskWrapper(BaseWrapper, gymnasium.Env):
    """One policy plays every seat; spaces come from the first agent; the mask from the agent to move."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        mover = self.agent_selection
        super().step(action)
        return (self.observe(self.agent_selection), self._cumulative_rewards[mover],
                self.terminations[mover], self.truncations[mover], self.infos[mover])

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]
