"""Pitch as a vector environment: ``num_envs`` games of one rule set stepped together, arrays in and out.

``vector_env(variant, num_envs, seed=..., **options)`` takes the rules options of ``pitch_env.env`` and
``reward`` (``"game"``, ``"hand"``, ``"relative"``; ``win_bonus`` with ``"relative"``), computed by
pitch_env/rewards.py as in the AEC env. ``reset()`` and ``step(actions)`` return a dict of arrays:

- ``observation`` float32[num_envs, size]: pitch_env/observer.py's vector for the seat to move
- ``action_mask`` int8[num_envs, actions]: its legal actions (the AEC env's action layout)
- ``current_seat`` int64[num_envs]: the seat to move
- from ``step``: ``rewards`` float32[num_envs, seats] (every seat's reward for this step), ``terminated``
  and ``truncated`` bool[num_envs] (the game was won, or stopped at ``max_hands``), ``scores``
  int64[num_envs, sides] and ``winner`` int64[num_envs] (the winning side, -1 if none) as the move left them.

A game that ends is reset in the same step (its next game is dealt from the next seed), so
``observation`` is always a decision to take. ``finished_records()`` returns the ``pitch-record/1``
records (docs/record.md) of the games finished since its last call (at most the latest 10,000);
``pitch replay`` accepts them.
The arrays returned are the env's own and change at the next call unless ``copy=True`` (the default).
"""

from __future__ import annotations

import collections
import math
import random

import numpy as np

from .batch import BatchEngine
from .batch.kernels import first_refused
from .engine import Game
from .record import game_record
from .rewards import game_rewards, hand_rewards, relative_rewards, win_bonuses
from .rules import rules as make_rules

REWARDS = ("game", "hand", "relative")
MAX_REWARD = 1e6  # as the AEC env: a reward option stays a plain, finite number
MAX_ENVS = 65_536  # games per env: a few kB each, so at most a few hundred MB
MAX_KEPT_RECORDS = 10_000  # finished games kept for finished_records() (a few kB each): older ones are dropped


def vector_env(variant: str = "setback", num_envs: int = 64, seed: int | None = None, **options) -> "VectorEnv":
    """``num_envs`` games of ``variant`` with these options (see the module docs)."""
    return VectorEnv(variant, num_envs, seed=seed, **options)


class VectorEnv:
    def __init__(self, variant: str = "setback", num_envs: int = 64, seed: int | None = None,
                 reward: str = "game", win_bonus: float | None = None, copy: bool = True, records: bool = True,
                 **options):
        if (not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool)
                or not 1 <= num_envs <= MAX_ENVS):
            raise ValueError(f"num_envs={num_envs!r} is not allowed: give the number of games, an integer from 1 "
                             f"to {MAX_ENVS} (each takes a few kB)")
        if reward not in REWARDS:
            raise ValueError(f"env option reward={reward!r} is not allowed: choose one of "
                             f"{', '.join(map(repr, REWARDS))}")
        if win_bonus is not None and reward != "relative":
            raise ValueError(f"env option win_bonus={win_bonus!r} only applies to reward='relative': "
                             f"drop it or set reward='relative'")
        bonus = 1.0 if win_bonus is None else win_bonus
        if (not isinstance(bonus, (int, float, np.integer, np.floating)) or isinstance(bonus, (bool, np.bool_))
                or not math.isfinite(bonus) or abs(bonus) > MAX_REWARD):
            raise ValueError(f"env option win_bonus={win_bonus!r} is not allowed: give a number, finite and "
                             f"from {-MAX_REWARD:g} to {MAX_REWARD:g}, e.g. win_bonus=1.0")
        for name, value in (("copy", copy), ("records", records)):
            if not isinstance(value, bool):
                raise ValueError(f"env option {name}={value!r} must be True or False")
        try:
            self.rules = r = make_rules(variant, **options)
        except ValueError as e:
            if "unknown rules option" not in str(e):
                raise
            raise ValueError(f"{e}; the vector env's own options are num_envs, seed, reward, win_bonus, copy, "
                             "records") from None
        self.num_envs = int(num_envs)
        self._base_seed = _seed(seed)
        self._next_seed = self._base_seed
        self.engine = BatchEngine(r, self.num_envs)
        self.layout = self.engine.compiled.layout
        self.observer = self.engine.compiled.observer
        self.reward_mode, self.win_bonus, self.copy, self.keep_records = reward, bonus, copy, records
        s = r.num_sides
        # Rewards as tables read off rewards.py: by outcome (row 0 = truncated, 1 + side = won) and, per hand,
        # linear in the score change (rows: a change of 1 for one side).
        self._by_outcome = np.array([game_rewards(r, None)] + [game_rewards(r, w) for w in range(s)], np.float64)
        basis = np.eye(s, dtype=np.int64).tolist()
        per_hand = {"hand": hand_rewards, "relative": relative_rewards}.get(reward)
        self._per_hand = None if per_hand is None else np.array([per_hand(r, e) for e in basis], np.float64)
        self._bonus = np.array([win_bonuses(r, None, bonus)] + [win_bonuses(r, w, bonus) for w in range(s)],
                               np.float64)
        self._finished: collections.deque = collections.deque(maxlen=MAX_KEPT_RECORDS)
        self._arange = np.arange(self.num_envs)
        self._has_reset = False

    # ------------------------------------------------------------------ spaces
    @property
    def observation_size(self) -> int:
        return self.observer.size

    @property
    def num_actions(self) -> int:
        return self.layout.size

    def action_name(self, action: int) -> str:
        return self.layout.name(action)

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None) -> dict[str, np.ndarray]:
        """Deal a new game in every env: game ``i`` from seed ``seed + i`` (the env's seed if None)."""
        if seed is not None:
            self._base_seed = _seed(seed)
        self._next_seed = self._base_seed + self.num_envs
        self.engine.reset(self._base_seed + self._arange)
        self._finished.clear()
        self._has_reset = True
        return self._out(None)

    def step(self, actions) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise RuntimeError("step() before reset(): call reset() first")
        actions = self._check(actions)
        e, r = self.engine, self.rules
        ended = e.step(actions)
        rewards = np.zeros((self.num_envs, r.num_players), np.float32)
        if self._per_hand is not None:
            hands = np.flatnonzero(e.hand_ended)
            if len(hands):
                rewards[hands] = e.score_change[hands] @ self._per_hand
        terminated = truncated = None
        scores, winner = e.scores.copy(), e.winner.copy()
        if ended:
            games = np.flatnonzero(e.game_ended)
            outcome = e.winner[games] + 1
            if self.reward_mode == "game":
                rewards[games] += self._by_outcome[outcome]
            elif self.reward_mode == "relative":
                rewards[games] += self._bonus[outcome]
            terminated = e.game_ended & ~e.truncated
            truncated = e.game_ended & e.truncated
            if self.keep_records:
                for g in games:
                    self._finished.append(e.finished_game(g))
            seeds = self._next_seed + np.arange(len(games))
            self._next_seed += len(games)
            e.reset(seeds, games)
        else:
            terminated = truncated = np.zeros(self.num_envs, bool)
        out = self._out(rewards)
        out.update(terminated=terminated, truncated=truncated, scores=scores, winner=winner)
        return out

    def finished_records(self) -> list[dict]:
        """The ``pitch-record/1`` records of the games finished since the last call, in the order they ended (the
        latest MAX_KEPT_RECORDS of them: a loop that never asks keeps no more)."""
        done = list(self._finished)
        self._finished.clear()
        out = []
        for seed, first, hands, actions in done:
            deals = self.engine.deals(seed, first, hands)
            g = Game(self.rules, seed=seed, deals=[{"deal": h, "stock": stock} for h, stock in deals])
            for a in actions.tolist():
                g.apply(a)
            if not g.is_over:
                raise RuntimeError(f"the game with seed {seed} replays unfinished: the batched engine and the "
                                   "reference engine disagree")
            out.append(game_record(g))
        return out

    # ------------------------------------------------------------------ helpers
    def _out(self, rewards) -> dict[str, np.ndarray]:
        e = self.engine
        take = np.copy if self.copy else (lambda a: a)
        out = {"observation": take(e.obs), "action_mask": take(e.mask), "current_seat": e.current_seat.copy()}
        if rewards is not None:
            out["rewards"] = rewards
        return out

    def _check(self, actions) -> np.ndarray:
        """``actions`` as int64[num_envs], each legal for its game; else a one-line ValueError naming the game."""
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions has shape {a.shape}: give one action per game, shape ({self.num_envs},)")
        if a.dtype.kind == "f":
            bad = np.flatnonzero(~np.isfinite(a))
            if len(bad):
                raise ValueError(f"game {bad[0]}: action {a[bad[0]]} is not a number: give integer action indices")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions have dtype {a.dtype}: give integer action indices (e.g. int64), not "
                             f"{a.dtype.name}")
        a = a.astype(np.int64, copy=False)
        g = first_refused(a, self.engine.mask)
        if g >= 0:
            size = self.layout.size
            if not 0 <= a[g] < size:
                raise ValueError(f"game {g}: action {a[g]} is out of range: actions are integers 0 to {size - 1}")
            names = [self.layout.names[i] for i in np.flatnonzero(self.engine.mask[g])]
            raise ValueError(f"game {g}: illegal action {self.layout.names[a[g]]!r} ({a[g]}) for seat "
                             f"{self.engine.current_seat[g]}; legal now: {', '.join(names)}")
        return a


def _seed(seed) -> int:
    if seed is None:
        return random.SystemRandom().randrange(2**62)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) and 0 <= seed < 2**62:
        return int(seed)
    raise ValueError(f"seed={seed!r} is not allowed: give an integer from 0 to 2**62 - 1, or None")
