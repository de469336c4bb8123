"""The single-agent Gymnasium env of self-play: the learner plays one side, the pool plays the others.

Each episode is one game: the learner takes a random seat (and, in partnerships, also plays its
partner), every other side is played by an opponent drawn from the pool. It drives the engine and
Observer directly (no AEC bookkeeping) through pitch_env/loop.py, and its rewards are those of
pitch_env/rewards.py (the AEC env's ``reward="relative"``). ``action_masks()`` is what MaskablePPO reads.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from pitch_env.engine import BID, PASS, Game, bid_value
from pitch_env.loop import play
from pitch_env.observer import LiveTable, Observer
from pitch_policy import PolicyMLP
from pitch_policy import hint_size, policy_input
from pitch_env.rewards import hand_scale, relative_reward, win_bonus
from pitch_env.scoring import SHOOT

from .hint import engine_hint
from .opponents import OpponentPool


def count_bid(stats: dict, rules, action: int) -> None:
    """Add a bid decision to the TensorBoard bid statistics (``bid_turns``, ``bids``, ``bid_sum``) of
    every training path; a shoot counts one above the top bid."""
    stats["bid_turns"] += 1
    bid = bid_value(rules, action)
    if bid != PASS:
        stats["bids"] += 1
        stats["bid_sum"] += rules.max_bid + 1 if bid == SHOOT else bid


class SelfPlayEnv(gym.Env):
    """``reward="hand"``: ``rewards.relative_reward`` after each hand plus ``rewards.win_bonus`` when the
    game is won; ``reward="game"``: the win bonus only."""

    metadata = {"render_modes": []}

    def __init__(self, rules, pool: OpponentPool, reward: str = "hand", win_bonus: float = 1.0, seed: int = 0,
                 transform=None, hint: str = "none"):
        self.rules, self.pool, self.transform, self.hint = rules, pool, transform, hint
        self._act_src = None
        self.reward_mode, self.win_bonus = reward, float(win_bonus)
        self.observer = Observer(rules)
        self.live = LiveTable(self.observer)  # the observation table, updated move by move
        self.action_size = pool.action_size
        size = self.observer.size + hint_size(hint, self.action_size)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
        self.action_space = gym.spaces.Discrete(self.action_size)
        self._rng = np.random.default_rng(seed)
        self._mask = np.zeros(self.action_size, np.int8)  # legal actions, real order
        self._net_mask = self._mask  # the same as the network sees them (through the transform)
        self._hand_scale = hand_scale(rules)
        self.game: Game | None = None

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        r = self.rules
        while True:
            self.game = Game(r, seed=int(self._rng.integers(2**62)))
            self.live.sync(self.game)
            self.side = r.side_of(int(self._rng.integers(r.num_players)))
            self.opponents = {}
            for side in range(r.num_sides):
                if side != self.side:
                    self.opponents[side] = self.pool.draw(side)
            for _, opponent in self.opponents.values():
                opponent.reset(int(self._rng.integers(2**31)))
            self._stats = {"bid_turns": 0, "bids": 0, "bid_sum": 0.0}
            self._reward = 0.0
            self._advance()
            if not self.game.is_over:  # the learner gets at least one decision
                return self._observe(), self._info()

    def step(self, action):
        g = self.game
        if g.current_seat is None or g.rules.side_of(g.current_seat) != self.side:
            raise RuntimeError("step() called when the learner is not to move; call reset()")
        action = int(action) if self._act_src is None else int(self._act_src[action])
        if g.phase == BID:
            count_bid(self._stats, self.rules, action)
        self._reward = 0.0
        self._advance(action)
        over = g.is_over
        terminated, truncated = over and not g.truncated, over and g.truncated
        obs = self._observe() if not over else np.zeros(self.observation_space.shape, np.float32)
        info = self._info()
        if over:
            info["episode_stats"] = dict(self._stats, won=float(g.winner == self.side),
                                         opponents=[name for name, _ in self.opponents.values()])
        return obs, self._reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._net_mask

    def add_snapshot(self, layers, activation: str) -> None:
        """Freeze a copy of the learner into this env's opponent pool (called through env_method)."""
        self.pool.add_snapshot(PolicyMLP(layers, activation))  # the pool gives it the env's transform

    # ------------------------------------------------------------------ inside
    def _advance(self, action: int | None = None) -> None:
        """Apply the learner's ``action`` (if any), then let the opponents move until a learner seat
        is to move or the game is over, adding up the learner's rewards on the way."""
        g = self.game
        play(g, self._opponent_act, first=action, stop=self._learner_to_move, moved=self.live.after,
             hand_over=self._hand_over if self.reward_mode == "hand" else None)
        if g.is_over and g.winner is not None:
            self._reward += win_bonus(g.winner, self.side, self.win_bonus)

    def _learner_to_move(self, seat: int) -> bool:
        return self.rules.side_of(seat) == self.side

    def _opponent_act(self, game: Game, seat: int) -> int:
        return self.opponents[self.rules.side_of(seat)][1].act(game, seat, self.live.observe(seat))

    def _hand_over(self, result) -> None:
        if result is not None:
            self._reward += relative_reward(result.score_change, self.side, self._hand_scale)

    def _observe(self) -> np.ndarray:
        g = self.game
        self._mask.fill(0)
        self._mask[g.legal_actions()] = 1
        hint = engine_hint(g) if self.hint != "none" else None
        obs, self._net_mask, self._act_src = policy_input(self.live.observe(g.current_seat), self._mask,
                                                          self.transform, hint)
        return obs

    def _info(self) -> dict:
        return {}
