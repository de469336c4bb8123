"""A trained policy as an agent: ``CheckpointAgent(path, env)`` (``agents.make("checkpoint:PATH", env)``).

Loads the safe format of pitch_env/policy.py (safetensors + JSON card, never pickle) and refuses,
with a CheckpointError naming the difference, a policy trained for other rules or layouts.
"""

from __future__ import annotations

import numpy as np

from pitch_env.policy import CheckpointError, load_policy  # noqa: F401  (CheckpointError re-exported)

from .base import Agent


class CheckpointAgent(Agent):
    """Plays the policy's most likely legal action (``deterministic=False``: samples from it)."""

    def __init__(self, path, env, seed: int | None = None, deterministic: bool = True):
        super().__init__(env, seed)
        self.path = str(path)
        self.policy, self.card = load_policy(path, self.rules)
        self.name = f"checkpoint:{path}"
        self.deterministic = deterministic
        self._np_rng = np.random.default_rng(seed)
        self._hinter = None
        if self.policy.hint == "heuristic":  # the policy reads the heuristic's choice (train/hint.py)
            from .heuristic import HeuristicAgent

            self._hinter = HeuristicAgent(env)
        from pitch_env.observer import Observer

        self.policy.prepare(Observer(self.rules).size, self.layout.size)  # compile now, not in the first move

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._np_rng = np.random.default_rng(seed)

    def act(self, observation, info) -> int:
        obs = np.asarray(observation["observation"], np.float32)
        mask = np.asarray(observation["action_mask"])
        if self.deterministic and np.count_nonzero(mask) == 1:  # a forced move needs no thought
            return int(np.flatnonzero(mask)[0])
        hint = None if self._hinter is None else self._hinter.act(observation, info)
        return self.policy.act(obs, mask, None if self.deterministic else self._np_rng, hint)
