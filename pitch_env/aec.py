"""Pitch as a PettingZoo AEC environment: every bid, trump declaration, stock decision, discard
and card played is one agent step with an action mask.

Rules: ``env("auction", num_players=5)`` plays a preset with options changed (docs/rules.md §2);
``env(r)`` plays the Rules ``r`` (``pitch_env.rules(...)``) as it is: ``env.unwrapped.rules is r``.

Agents: ``player_0 … player_{n-1}``, one per seat, clockwise; seat 0 deals the first hand.

Actions: one ``Discrete`` space per rule set covering every action name of docs/record.md
(``pass``, ``bid N``, ``bid shoot``, ``trump S``, ``stock keep``/``give``, ``discard XX``,
``play XX``); ``env.unwrapped.action_name(i)`` / ``action_index(name)`` translate.

Observations: ``{"observation": float32[size], "action_mask": int8[actions]}``, the same shape
for every agent; the pieces are documented by ``env.unwrapped.observer.describe()`` (see
pitch_env/observer.py). The mask is the legal actions.

Infos: plain and empty by default, so libraries that deep-copy, pickle or stack infos (SB3's
VecEnv, Tianshou's buffer, TorchRL's specs) can. Rule-based agents ask for what a seat knows:
``env.unwrapped.infoset(agent)`` returns the readable mapping of pitch_env/infoset.py, and the
option ``infoset=True`` puts that plain dict under ``infos[agent]["infoset"]`` of the agent to move;
``info_state=True`` puts its InfoState (pitch_env/infostate.py) under ``infos[agent]["info_state"]``,
so that any agent of these rules can act on exactly what ``env.last()`` gives (agents/base.py).

Copies: ``copy.deepcopy``, ``pickle`` and ``cloudpickle`` of an env mid-game give an independent env
that plays on identically. Registered as ``pettingzoo.make("aec", "pitch/setback-v0")`` (also
``pitch/auction-v0``, ``pitch/ten_point-v0``) once ``pitch_env`` is imported.

Rewards (computed by pitch_env/rewards.py): ``reward="game"`` (default) gives, when the game ends,
+1 to the winning side's seats and −1/(sides−1) to the others (zero-sum; 0 to all when truncated at
``max_hands``). ``reward="hand"`` gives after each hand the seat's side score change divided by the
most points a hand can give. ``reward="relative"`` is the objective the project's agents are trained
on (train/selfplay.py): after each hand the seat's side score change minus the mean of the other
sides' changes, divided by the most points a hand can give, and when a game is won ``+win_bonus`` to
the winning side's seats and ``−win_bonus`` to the others, ``−win_bonus`` to all when it is truncated
(``win_bonus``, default 1.0, is an option of this reward only). ``episode="hand"`` plays one hand per
episode from a random dealer (needs ``reward="hand"`` or ``"relative"``).

Illegal actions: with ``illegal_action="terminate"`` (default) the game ends, the offending agent
gets ``illegal_reward`` (default −1) and a warning names the action and the legal ones; with
``illegal_action="raise"`` a ValueError says the same and nothing changes. Actions outside the
action space always raise ValueError.

Version history: v0 — first release.
"""

from __future__ import annotations

import dataclasses
import math
import random
import warnings

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .engine import OVER, Game
from .infoset import infoset
from .observer import Observer, LiveTable
from .record import game_record
from .render import render_record, render_view
from .rewards import game_rewards, hand_rewards, relative_rewards, win_bonuses
from .rules import Rules, rules as make_rules

_ENV_OPTIONS = {
    "reward": ("game", "hand", "relative"),
    "episode": ("game", "hand"),
    "illegal_action": ("terminate", "raise"),
}


def env(variant: str | Rules = "setback", **kwargs):
    """The Pitch AEC environment with PettingZoo's order-enforcing wrapper (see module docs):
    ``variant`` a preset's name or a Rules, ``kwargs`` the env's options and any rules options."""
    return OrderEnforcingWrapper(raw_env(variant, **kwargs))


def _forward(name: str):
    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, with the per-step attributes forwarded directly.

    The stock wrapper reaches them through two ``__getattr__`` layers, which costs more than a
    whole move of the game; the checks are the same.
    """

    agent_selection = _forward("agent_selection")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    rewards = _forward("rewards")
    infos = _forward("infos")
    agents = _forward("agents")
    _cumulative_rewards = _forward("_cumulative_rewards")

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset")
        return self.env.last(observe)


class raw_env(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "pitch_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, variant: str | Rules = "setback", render_mode: str | None = None, reward: str = "game",
                 episode: str = "game", illegal_reward: float = -1.0, illegal_action: str = "terminate",
                 infoset: bool = False, win_bonus: float | None = None, info_state: bool = False, **options):
        super().__init__()
        for name, value in (("reward", reward), ("episode", episode), ("illegal_action", illegal_action)):
            if value not in _ENV_OPTIONS[name]:
                raise ValueError(f"env option {name}={value!r} is not allowed: choose one of "
                                 f"{', '.join(map(repr, _ENV_OPTIONS[name]))}")
        for name, value in (("infoset", infoset), ("info_state", info_state)):
            if not isinstance(value, bool):
                raise ValueError(f"env option {name}={value!r} must be True or False")
        if episode == "hand" and reward == "game":
            raise ValueError("env option episode='hand' needs reward='hand' or 'relative': a single hand "
                             "has no game winner")
        if win_bonus is not None and reward != "relative":
            raise ValueError(f"env option win_bonus={win_bonus!r} only applies to reward='relative': "
                             f"drop it or set reward='relative'")
        if win_bonus is not None:
            _check_number("win_bonus", win_bonus, "1.0")
        _check_number("illegal_reward", illegal_reward, "-1.0")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} is not supported: use None, 'ansi' or 'human'")
        try:
            self.rules = make_rules(variant, **options)
        except ValueError as e:
            if "unknown rules option" not in str(e):
                raise
            raise ValueError(f"{e}; the env's own options are render_mode, reward, win_bonus, episode, "
                             "illegal_reward, illegal_action, infoset, info_state") from None
        # A hand-long episode is a one-hand game from a random dealer (drawn from the game's seed).
        self._game_rules = (dataclasses.replace(self.rules, first_dealer="random", max_hands=1)
                            if episode == "hand" else self.rules)
        self.render_mode, self.reward_mode, self.episode = render_mode, reward, episode
        self.illegal_reward, self.illegal_action = float(illegal_reward), illegal_action
        self.infoset_in_info, self.info_state_in_info = infoset, info_state
        self.observer = Observer(self.rules)
        self._live = LiveTable(self.observer)
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        probe = Game(self.rules, seed=0)
        self.layout = probe.layout
        self.num_actions = self.layout.size
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.observer.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        })
        act_space = spaces.Discrete(self.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.win_bonus = 1.0 if win_bonus is None else float(win_bonus)
        self._seed_source = None
        self.game = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def action_name(self, action: int) -> str:
        return self.layout.name(int(action) if isinstance(action, np.integer) else action)

    def action_index(self, name: str) -> int:
        return self.layout.action(name)

    def action_masks(self) -> np.ndarray:
        """The mask of the agent to move (sb3-contrib MaskablePPO style)."""
        mask = np.zeros(self.num_actions, np.int8)
        if self.game is not None and not self.game.is_over:
            mask[self.game.legal_actions()] = 1
        return mask

    def game_record(self) -> dict:
        return game_record(self.game)

    def infoset(self, agent: str | None = None) -> dict:
        """What ``agent`` (default: the agent to move) may know now, as the readable plain dict of
        pitch_env/infoset.py: built from public facts and that seat's cards only."""
        return infoset(self.game, self._seat_of(agent, "infoset"))

    def info_state(self, agent: str | None = None):
        """What ``agent`` (default: the agent to move) may know now, as ints (pitch_env/infostate.py)."""
        return self.game.info_state(self._seat_of(agent, "info_state"))

    def _seat_of(self, agent: str | None, caller: str) -> int:
        if self.game is None:
            raise RuntimeError(f"{caller}() needs a game: call env.reset() first")
        if agent is None:
            return self.game.current_seat
        if agent in self.agent_name_mapping:
            return self.agent_name_mapping[agent]
        raise ValueError(f"unknown agent {agent!r}: use one of {', '.join(self.possible_agents)}")

    # ---------------------------------------------------------------- AEC API
    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            seed = _seed(seed)
            self._seed_source = random.Random(seed)
            game_seed = seed
        elif self._seed_source is not None:
            game_seed = self._seed_source.randrange(2**63)
        else:
            game_seed = None
        self.game = Game(self._game_rules, seed=game_seed)
        self._live.sync(self.game)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._rewarded = False
        self._set_turn()

    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        mask = bytearray(self.num_actions)  # filled byte by byte: cheaper than numpy fancy indexing
        if seat == self.game.current_seat:
            for a in self.game.legal_view():  # the engine's own list, read only (no copy per step)
                mask[a] = 1
        return {"observation": self._live.observe(seat), "action_mask": np.frombuffer(mask, np.int8)}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        if type(action) is not int:
            action = self._as_index(action)
        if self._rewarded:
            for a in self.rewards:
                self.rewards[a] = 0.0
            self._rewarded = False
        game = self.game
        if action not in game.legal_view():
            if not 0 <= action < self.num_actions:
                self._as_index(action)  # a plain int out of range: raises, naming the range
            self._cumulative_rewards[agent] = 0.0
            return self._illegal(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = {}
        seat, phase, hand = game.current_seat, game.phase, game.hand_number
        game.apply_legal(action)
        self._live.after(game, seat, action, phase, hand)
        if game.hand_number != hand or game.phase == OVER:
            self._end_of_hand()
        else:
            self._set_turn()
        if self.render_mode == "human":
            self.render()

    def _as_index(self, action) -> int:
        if isinstance(action, np.integer) and not isinstance(action, bool):
            return int(action)
        raise ValueError(f"action {action!r} is outside the action space: use an integer from 0 to "
                         f"{self.num_actions - 1} (see env.unwrapped.action_name)")

    # ---------------------------------------------------------------- helpers
    def _set_turn(self):
        seat = self.game.current_seat
        agent = self.possible_agents[seat]
        self.agent_selection = agent
        info = {}
        if self.infoset_in_info:
            info["infoset"] = infoset(self.game, seat)
        if self.info_state_in_info:
            info["info_state"] = self.game.info_state(seat)
        self.infos[agent] = info

    def _end_of_hand(self):
        game = self.game
        result = game.last_result  # None for a thrown-in hand: nothing changed
        mode = self.reward_mode
        if result is not None and mode != "game":
            per_hand = hand_rewards if mode == "hand" else relative_rewards
            self._give(dict(enumerate(per_hand(self.rules, result.score_change))))
        if not game.is_over:  # (episode="hand" plays a one-hand game, so it is over here)
            self._set_turn()
            return
        if game.winner is not None and mode == "game":
            self._give(dict(enumerate(game_rewards(self.rules, game.winner))))
        truncated = game.truncated and self.episode == "game"
        if mode == "relative" and (game.winner is not None or truncated):  # (episode="hand": no game to lose)
            self._give(dict(enumerate(win_bonuses(self.rules, game.winner, self.win_bonus))))
        for a in self.agents:
            self.terminations[a] = not truncated
            self.truncations[a] = truncated

    def _give(self, by_seat: dict[int, float]):
        for seat, r in by_seat.items():
            agent = self.possible_agents[seat]
            self.rewards[agent] += r
            self._cumulative_rewards[agent] += r
        self._rewarded = True

    def _illegal(self, agent: str, action: int):
        message = self.game.illegal_message(action)
        if self.illegal_action == "raise":
            raise ValueError(message)
        warnings.warn(f"{agent}: {message}. The game ends with illegal_reward={self.illegal_reward} for {agent}.",
                      stacklevel=3)
        self._give({self.agent_name_mapping[agent]: self.illegal_reward})
        for a in self.agents:
            self.terminations[a] = True

    def render(self):
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode: pass render_mode='ansi' or 'human'")
            return None
        if self.game.is_over:
            text = render_record(self.game_record())
        else:
            text = render_view(infoset(self.game, self.game.current_seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass


# Every float option of the env: finite, and small enough that a return stays a plain number.
MAX_REWARD = 1e6


def _check_number(name: str, value, example: str) -> None:
    """A reward option must be a finite number within ±MAX_REWARD: NaN or inf would make every return NaN."""
    ok = (isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
          and math.isfinite(value) and abs(value) <= MAX_REWARD)
    if not ok:
        raise ValueError(f"env option {name}={value!r} is not allowed: give a number, finite and "
                         f"from {-MAX_REWARD:g} to {MAX_REWARD:g}, e.g. {name}={example}")


def _seed(seed) -> int:
    """A reset seed as an int: ints and numpy integers; anything else is refused by name (a float
    would be truncated to another game's seed without a word)."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        return int(seed)
    if isinstance(seed, float) and math.isfinite(seed) and seed.is_integer():
        hint = f"; pass seed={int(seed)}"
    else:
        hint = ", e.g. seed=1"
    raise ValueError(f"reset(seed={seed!r}): a seed must be an integer (int or numpy integer) or None, "
                     f"not {type(seed).__name__}{hint}")
