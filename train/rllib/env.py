"""Pitch as an RLlib ``MultiAgentEnv``: one agent per side, turn-based, every decision of every seat an agent step.

Agents are ``side_0 … side_{k-1}``: a side's two seats in partnerships are one agent, so a side's
decisions form one trajectory with the side's reward, as the learner's do in the SB3 path's
self-play env (train/selfplay.py). Only the side to move gets an observation, a dict of

- ``observations``: the seat's Observer vector (relative seats), suit-canonical with
  ``observation: suit_canonical``, plus the heuristic's choice one-hot with ``hint: heuristic``;
- ``action_mask``: the legal actions, 1.0 or 0.0, in the order the network sees them;
- ``heuristic`` (only when a side may be played by the heuristic): the heuristic's action, one-hot
  in the same order, which the heuristic RLModule (train/rllib/modules.py) plays. The heuristic
  reads the engine game, which no RLModule can, so the env computes it for every decision
  (a few microseconds, against RLlib's far larger cost per step, docs/rllib.md).

Actions are in the network's order and mapped back through the transform. Rewards are those of
pitch_env/rewards.py, as in the SB3 path (``reward: hand``: the side's relative score change after
each hand, ``± win_bonus`` at the end; ``reward: game``: the win bonus only), handed to a side with
its next observation, and to every side at the end of the game, where every side gets a last
observation and, in its info, the game's statistics (``won``, bids) for TensorBoard.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import pitch_env
from pitch_env.actions import ActionLayout
from pitch_policy.canonical import shown_action
from pitch_env.engine import BID, Game
from pitch_env.loop import play
from pitch_env.observer import LiveTable, Observer
from pitch_policy import make_transform
from pitch_policy import hint_size, policy_input
from pitch_env.rewards import hand_scale, relative_reward, win_bonus

from ..hint import engine_hint
from ..selfplay import count_bid

AGENT_PREFIX = "side_"


def side_agent(side: int) -> str:
    return f"{AGENT_PREFIX}{side}"


def agent_side(agent_id: str) -> int:
    return int(agent_id[len(AGENT_PREFIX):])


def env_config(cfg, heuristic: bool) -> dict:
    """The plain dict RLlib hands every env runner's env (``config.environment(env_config=…)``)."""
    return {"variant": cfg.variant, "rules": dict(cfg.rules), "observation": cfg.observation, "hint": cfg.hint,
            "reward": cfg.reward, "win_bonus": cfg.win_bonus, "heuristic": heuristic}


class PitchMultiAgentEnv(MultiAgentEnv):
    """See the module docstring; ``config`` is ``env_config(cfg, heuristic)``."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        c = dict(config or {})
        self.rules = pitch_env.rules(c.get("variant", "setback"), **c.get("rules", {}))
        self.transform = make_transform(c.get("observation", "suit_canonical"), self.rules)
        self.hint = c.get("hint", "none")
        self.reward_mode = c.get("reward", "hand")
        self.bonus = float(c.get("win_bonus", 1.0))
        self.with_heuristic = bool(c.get("heuristic", False))
        self.observer = Observer(self.rules)
        self.live = LiveTable(self.observer)
        self.action_size = ActionLayout(self.rules).size
        self.obs_size = self.observer.size + hint_size(self.hint, self.action_size)
        self._scale = hand_scale(self.rules)
        spaces = {
            "observations": gym.spaces.Box(-np.inf, np.inf, (self.obs_size,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (self.action_size,), np.float32),
        }
        if self.with_heuristic:
            spaces["heuristic"] = gym.spaces.Box(0.0, 1.0, (self.action_size,), np.float32)
        space = gym.spaces.Dict(spaces)
        self.agents = self.possible_agents = [side_agent(s) for s in range(self.rules.num_sides)]
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(self.action_size) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._mask = np.zeros(self.action_size, np.int8)
        self.game: Game | None = None

    # ------------------------------------------------------------------ MultiAgentEnv API
    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        deal = (options or {}).get("game_seed")  # a given deal (the tests replay it in the AEC env)
        self.game = Game(self.rules, seed=int(self._rng.integers(2**62)) if deal is None else int(deal))
        self.live.sync(self.game)
        k = self.rules.num_sides
        self._pending = [0.0] * k  # reward earned by each side since its last observation
        self._stats = [{"bid_turns": 0, "bids": 0, "bid_sum": 0.0, "decisions": 0, "return": 0.0} for _ in range(k)]
        return self._observe_mover(), {}

    def step(self, action_dict):
        g = self.game
        side = self.rules.side_of(g.current_seat)
        action = int(action_dict[side_agent(side)])
        if self._act_src is not None:
            action = int(self._act_src[action])
        st = self._stats[side]
        st["decisions"] += 1
        if g.phase == BID:
            count_bid(st, self.rules, action)
        play(g, None, first=action, stop=lambda seat: True, moved=self.live.after,
             hand_over=self._hand_over if self.reward_mode == "hand" else None)
        if not g.is_over:
            obs = self._observe_mover()
            (mover,) = obs
            reward = {mover: self._take(agent_side(mover))}
            return obs, reward, {"__all__": False}, {"__all__": False}, {}
        if g.winner is not None:
            for s in range(self.rules.num_sides):
                self._pending[s] += win_bonus(g.winner, s, self.bonus)
        end = self._terminal_obs()
        obs = {a: end for a in self.possible_agents}
        rewards = {a: self._take(s) for s, a in enumerate(self.possible_agents)}
        infos = {a: dict(self._stats[s], won=float(g.winner == s)) for s, a in enumerate(self.possible_agents)}
        truncated = bool(g.truncated)
        return obs, rewards, {"__all__": not truncated}, {"__all__": truncated}, infos

    # ------------------------------------------------------------------ inside
    def _observe_mover(self) -> dict:
        g = self.game
        seat = g.current_seat
        self._mask.fill(0)
        self._mask[g.legal_actions()] = 1
        h = engine_hint(g) if (self.with_heuristic or self.hint != "none") else None
        x, mask, self._act_src = policy_input(self.live.observe(seat), self._mask, self.transform,
                                              h if self.hint != "none" else None)
        obs = {"observations": np.asarray(x, np.float32), "action_mask": mask.astype(np.float32)}
        if self.with_heuristic:
            one_hot = np.zeros(self.action_size, np.float32)
            one_hot[shown_action(self._act_src, h)] = 1.0
            obs["heuristic"] = one_hot
        return {side_agent(self.rules.side_of(seat)): obs}

    def _terminal_obs(self) -> dict:
        """Every side's last observation (never acted on: RLlib needs one to close each trajectory)."""
        obs = {"observations": np.zeros(self.obs_size, np.float32),
               "action_mask": np.zeros(self.action_size, np.float32)}
        if self.with_heuristic:
            obs["heuristic"] = np.zeros(self.action_size, np.float32)
        return obs

    def _take(self, side: int) -> float:
        r, self._pending[side] = self._pending[side], 0.0
        self._stats[side]["return"] += r
        return r

    def _hand_over(self, result) -> None:
        if result is not None:
            for s in range(self.rules.num_sides):
                self._pending[s] += relative_reward(result.score_change, s, self._scale)

