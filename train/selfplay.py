"""The single-agent Gymnasium env of self-play (SB3's path, train/sb3.py): the learner plays one side,
the league (train/league.py) the others.

Each episode is one game: the learner takes a random seat (and, in partnerships, also plays its
partner), every other side is played by a player drawn from the league. It drives the engine and
Observer directly (no AEC bookkeeping) through pitch_env/loop.py, and its rewards are those of
pitch_env/rewards.py, kept by its ``SideRewards`` (the AEC env's ``reward="relative"``).
``action_masks()`` is what MaskablePPO reads.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from pitch_env.actions import ActionLayout
from pitch_env.engine import BID, Game
from pitch_env.loop import play
from pitch_env.observer import LiveTable, Observer
from pitch_policy import input_size, policy_input
from pitch_env.rewards import SideRewards

from .hint import engine_hint
from .league import League
from .lockstep import count_bid

__all__ = ["SelfPlayEnv", "count_bid"]


class SelfPlayEnv(gym.Env):
    """``reward="hand"``: ``rewards.relative_reward`` after each hand plus ``rewards.win_bonus`` when the
    game is won; ``reward="game"``: the win bonus only."""

    metadata = {"render_modes": []}

    def __init__(self, rules, league: League, reward: str = "hand", win_bonus: float = 1.0, seed: int = 0,
                 transform=None, hint: str = "none"):
        self.rules, self.league, self.transform, self.hint = rules, league, transform, hint
        self._act_src = None
        self.reward_mode, self.win_bonus = reward, float(win_bonus)
        self.book = SideRewards(rules, reward, win_bonus)  # the learner side's rewards since its last step
        self.observer = Observer(rules)
        self.live = LiveTable(self.observer)  # the observation table, updated move by move
        self.action_size = ActionLayout(rules).size
        size = input_size(rules, hint)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
        self.action_space = gym.spaces.Discrete(self.action_size)
        self._rng = np.random.default_rng(seed)
        self._mask = np.zeros(self.action_size, np.int8)  # legal actions, real order
        self._net_mask = self._mask  # the same as the network sees them (through the transform)
        self.game: Game | None = None

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        r = self.rules
        while True:
            self.game = Game(r, seed=int(self._rng.integers(2**62)))
            self.live.sync(self.game)
            seating = self.league.draw()
            self.side = seating.learner_sides[0]
            self.players, self.opponent_names = seating.players, seating.names
            self._stats = {"bid_turns": 0, "bids": 0, "bid_sum": 0.0}
            self._advance()
            self.book.start([self.side])  # the learner's rewards count from its first decision
            if not self.game.is_over:  # the learner gets at least one decision
                return self._observe(), self._info()

    def step(self, action):
        g = self.game
        if g.current_seat is None or g.rules.side_of(g.current_seat) != self.side:
            raise RuntimeError("step() called when the learner is not to move; call reset()")
        action = int(action) if self._act_src is None else int(self._act_src[action])
        if g.phase == BID:
            count_bid(self._stats, self.rules, action)
        self._advance(action)
        over = g.is_over
        # A game stopped at max_hands is over for the objective too (lost by every side, rewards.win_bonus):
        # terminated, so that PPO adds no value of a future the game does not have.
        terminated, truncated = over, False
        obs = self._observe() if not over else np.zeros(self.observation_space.shape, np.float32)
        info = self._info()
        if over:
            info["episode_stats"] = dict(self._stats, won=float(g.winner == self.side), truncated=float(g.truncated),
                                         opponents=self.opponent_names)
        return obs, self.book.take(self.side), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._net_mask

    def add_snapshot(self, layers, activation: str) -> None:
        """Freeze a copy of the learner into this env's league (called through env_method)."""
        self.league.add_snapshot(layers, activation)  # the league gives it the env's transform and hint

    # ------------------------------------------------------------------ inside
    def _advance(self, action: int | None = None) -> None:
        """Apply the learner's ``action`` (if any), then let the opponents move until a learner seat
        is to move or the game is over, adding up the learner's rewards on the way."""
        g = self.game
        play(g, self._opponent_act, first=action, stop=self._learner_to_move, moved=self.live.after,
             hand_over=self._hand_over if self.reward_mode == "hand" else None)
        if g.is_over:
            self.book.game_over(g.winner)

    def _learner_to_move(self, seat: int) -> bool:
        return self.rules.side_of(seat) == self.side

    def _opponent_act(self, game: Game, seat: int) -> int:
        return self.players[self.rules.side_of(seat)].act(game, seat, self.live)

    def _hand_over(self, result) -> None:
        if result is not None:
            self.book.hand_over(result.score_change)

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
