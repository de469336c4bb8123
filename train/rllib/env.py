"""Pitch as an RLlib ``MultiAgentEnv``: the league (train/league.py) fills every side of each game, and
the sides it gives the learner are the agents, ``side_0 … side_{k-1}``, all mapped to one shared policy.

Each game the league draws who plays: with probability ``mirror`` the learner holds every side;
otherwise the learner takes a random seat's side and the other sides are the league's players
(frozen snapshots of the learner, the heuristic, random play, any agent spec), which move inside
``step`` as they do in every other trainer. So an agent step is one learner decision, and a side's
two seats in partnerships are one agent: its decisions form one trajectory with the side's reward.
Only the learner side to move observes, a dict of

- ``observations``: the policy input (pitch_policy/inputs.py): the seat's Observer vector,
  suit-canonical with ``observation: suit_canonical``, then the heuristic's choice with ``hint: heuristic``;
- ``action_mask``: the legal actions, 1.0 or 0.0, in the order the network sees them.

Actions are in the network's order and mapped back through the transform. Rewards are those of
pitch_env/rewards.py, kept by its ``SideRewards`` (``reward: hand``: the side's relative score change
after each hand, ``± win_bonus`` at the end; ``reward: game``: the win bonus only), handed to a side with its next observation, and to
every learner side at the end, where each gets a last observation and, in its info, the game's
statistics (``won``, bids, ``mirror``) for TensorBoard.

The snapshots come from the driver: ``receive_snapshot`` keeps the latest ``snapshot_pool`` in this
process (an env runner's), and every env takes the new ones into its league at its next reset.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import pitch_env
from pitch_env.actions import ActionLayout
from pitch_env.engine import BID, Game
from pitch_env.loop import play
from pitch_env.observer import LiveTable, Observer
from pitch_env.rewards import SideRewards
from pitch_policy import input_size, make_transform, policy_input

from ..hint import engine_hint
from ..league import LEARNER, MIRROR, League
from ..lockstep import count_bid

AGENT_PREFIX = "side_"

# The snapshots pushed to this process, oldest first: (number, policy layers, activation).
_snapshots: list[tuple[int, list, str]] = []


def receive_snapshot(number: int, layers, activation: str, pool: int) -> None:
    """A frozen learner from the driver (train/rllib/callbacks.py); a number already held is ignored."""
    if any(n == number for n, _, _ in _snapshots):
        return
    _snapshots.append((number, layers, activation))
    _snapshots.sort(key=lambda s: s[0])
    del _snapshots[:-pool]


def side_agent(side: int) -> str:
    return f"{AGENT_PREFIX}{side}"


def agent_side(agent_id: str) -> int:
    return int(agent_id[len(AGENT_PREFIX):])


def env_config(cfg) -> dict:
    """The plain dict RLlib hands every env runner's env (``config.environment(env_config=…)``)."""
    return {"variant": cfg.variant, "rules": dict(cfg.rules), "observation": cfg.observation, "hint": cfg.hint,
            "reward": cfg.reward, "win_bonus": cfg.win_bonus, "opponents": dict(cfg.opponents),
            "mirror": cfg.mirror, "snapshot_pool": cfg.snapshot_pool}


class PitchMultiAgentEnv(MultiAgentEnv):
    """See the module docstring; ``config`` is ``env_config(cfg)``."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        c = dict(config or {})
        self.rules = pitch_env.rules(c.get("variant", "setback"), **c.get("rules", {}))
        self.observation = c.get("observation", "suit_canonical")
        self.transform = make_transform(self.observation, self.rules)
        self.hint = c.get("hint", "none")
        self.reward_mode = c.get("reward", "hand")
        self.bonus = float(c.get("win_bonus", 1.0))
        self.opponents = dict(c.get("opponents", {"random": 1.0}))
        self.mirror = float(c.get("mirror", 0.0))
        self.snapshot_pool = int(c.get("snapshot_pool", 10))
        self.live = LiveTable(Observer(self.rules))
        self.action_size = ActionLayout(self.rules).size
        self.obs_size = input_size(self.rules, self.hint)
        self.book = SideRewards(self.rules, self.reward_mode, self.bonus)  # each learner side's, since it last observed
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(-np.inf, np.inf, (self.obs_size,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (self.action_size,), np.float32),
        })
        self.agents = self.possible_agents = [side_agent(s) for s in range(self.rules.num_sides)]
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(self.action_size) for a in self.possible_agents}
        self._mask = np.zeros(self.action_size, np.int8)
        self._reseed(None)
        self.game: Game | None = None

    def _reseed(self, seed) -> None:
        """Deals and the league's draws from ``seed``; a fresh league takes every snapshot held again."""
        self._rng = np.random.default_rng(seed)
        self.league = League(self.rules, self.opponents, self.mirror, self.snapshot_pool,
                             seed=int(self._rng.integers(2**62)), observation=self.observation, hint=self.hint)
        self._seen = -1  # the number of the newest snapshot this env's league holds

    # ------------------------------------------------------------------ MultiAgentEnv API
    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._reseed(seed)
        for number, layers, activation in _snapshots:
            if number > self._seen:
                self.league.add_snapshot(layers, activation)
                self._seen = number
        deal = (options or {}).get("game_seed")  # a given deal (the tests replay it in the AEC env)
        self.seating = self.league.draw()
        self.learner_sides = self.seating.learner_sides
        self.game = Game(self.rules, seed=int(self._rng.integers(2**62)) if deal is None else int(deal))
        self.live.sync(self.game)
        k = self.rules.num_sides
        self.book.start(self.learner_sides)
        self._stats = [{"bid_turns": 0, "bids": 0, "bid_sum": 0.0, "decisions": 0, "return": 0.0} for _ in range(k)]
        self._advance(None)  # every seat bids before a hand can end, so the learner always gets a decision
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
        self._advance(action)
        if not g.is_over:
            obs = self._observe_mover()
            (mover,) = obs
            reward = {mover: self._take(agent_side(mover))}
            return obs, reward, {"__all__": False}, {"__all__": False}, {}
        self.book.game_over(g.winner)
        end = self._terminal_obs()
        mirror = float(self.seating.names == [MIRROR])
        obs = {side_agent(s): end for s in self.learner_sides}
        rewards = {side_agent(s): self._take(s) for s in self.learner_sides}
        infos = {side_agent(s): dict(self._stats[s], won=float(g.winner == s), truncated=float(g.truncated),
                                    mirror=mirror)
                 for s in self.learner_sides}
        # over for the objective even when stopped at max_hands (lost by every side): no value to bootstrap
        return obs, rewards, {"__all__": True}, {"__all__": False}, infos

    # ------------------------------------------------------------------ inside
    def _advance(self, action: int | None) -> None:
        """Apply the learner's ``action`` (if any), then let the league's players move until a learner
        side is to move or the game is over."""
        play(self.game, self._player_act, first=action, stop=self._learner_to_move, moved=self.live.after,
             hand_over=self._hand_over if self.reward_mode == "hand" else None)

    def _learner_to_move(self, seat: int) -> bool:
        return self.seating.players[self.rules.side_of(seat)] is LEARNER

    def _player_act(self, game: Game, seat: int) -> int:
        return self.seating.players[self.rules.side_of(seat)].act(game, seat, self.live)

    def _observe_mover(self) -> dict:
        g = self.game
        seat = g.current_seat
        self._mask.fill(0)
        self._mask[g.legal_actions()] = 1
        hint = engine_hint(g) if self.hint != "none" else None
        x, mask, self._act_src = policy_input(self.live.observe(seat), self._mask, self.transform, hint)
        return {side_agent(self.rules.side_of(seat)): {"observations": np.asarray(x, np.float32),
                                                       "action_mask": mask.astype(np.float32)}}

    def _terminal_obs(self) -> dict:
        """A learner side's last observation (never acted on: RLlib needs one to close each trajectory)."""
        return {"observations": np.zeros(self.obs_size, np.float32),
                "action_mask": np.zeros(self.action_size, np.float32)}

    def _take(self, side: int) -> float:
        r = self.book.take(side)
        self._stats[side]["return"] += r
        return r

    def _hand_over(self, result) -> None:
        if result is not None:
            self.book.hand_over(result.score_change)
