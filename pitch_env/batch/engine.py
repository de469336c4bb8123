"""``BatchEngine``: B games of one rule set stepped together; numpy arrays in and out.

``reset(seeds)`` deals new games, ``step(actions)`` takes one action in every game, and after each call
``mask`` (int8, the legal actions) and ``obs`` (float32, pitch_env/observer.py's vector for the seat to
move) hold every game's next decision. A game that ends stays over until it is reset; ``deal`` gives any
hand's cards again, which is how the reference engine (``Game(deals=...)``) replays what was played here.
``load_hands`` deals given cards at a given score instead of a seed's shuffle: a search's sampled worlds
(agents/netpimc.py).
"""

from __future__ import annotations

import numpy as np

from pitch_env.engine import OVER, first_dealer
from pitch_env.rules import Rules
from .kernels import (CHANGE, CUR, FIRST_DEALER, GAME_END, HAND, HAND_END, LOGLEN, MAX_CARDS, NI, NM, PHASE, SCORES,
                      SEED, TRUNC, WINNER, dealt_to, load_hands, reset_many, shuffle, step_all, step_game,
                      write_obs)
from .tables import Compiled, check_cache, compile_rules


class BatchEngine:
    def __init__(self, rules: Rules, num_games: int, log_capacity: int = 512):
        check_cache()
        self.compiled: Compiled = compile_rules(rules)
        self.rules = rules
        self.num_games = B = int(num_games)
        self.T, self.U = self.compiled.T, self.compiled.U
        self.I = np.zeros((B, NI), np.int64)
        self.M = np.zeros((B, NM), np.uint64)
        self.obs = np.zeros((B, self.compiled.observer.size), np.float32)
        self.mask = np.zeros((B, self.compiled.layout.size), np.int8)
        self.log = np.zeros((B, log_capacity), np.int16)  # every game's actions so far, for its record
        self._log_bound = 0  # no game has logged more actions than this
        self.I[:, PHASE] = OVER

    @property
    def size_bytes(self) -> int:
        """Memory held per game (state, observation, mask and action log)."""
        arrays = (self.I, self.M, self.obs, self.mask, self.log)
        return sum(a.nbytes for a in arrays) // self.num_games

    def reset(self, seeds, games=None) -> None:
        """New games with these seeds in ``games`` (all games if None)."""
        games = np.arange(self.num_games) if games is None else np.asarray(games, np.int64)
        seeds = np.asarray(seeds, np.int64).reshape(-1)
        if self.rules.first_dealer == "random":
            dealers = np.array([first_dealer(self.rules, int(s)) for s in seeds], np.int64)
        else:
            dealers = np.full(len(seeds), self.rules.first_dealer, np.int64)
        reset_many(games, seeds, dealers, self.I, self.M, self.T, self.U, self.obs, self.mask)
        if len(games) == self.num_games:
            self._log_bound = 0

    def load_hands(self, games, hand: int, dealer: int, scores, decks: np.ndarray) -> None:
        """Games ``games`` at the start of hand ``hand`` dealt by ``dealer`` with the sides' ``scores``, each
        dealt ``decks[k]`` (its cards in dealing order, as ``deal`` gives them: the hands, then the rest)
        rather than a seed's shuffle. Their logs start empty."""
        games = np.asarray(games, np.int64)
        decks = np.asarray(decks, np.int64).reshape(len(games), -1)
        if decks.shape[1] < self.rules.deck:
            raise ValueError(f"each deck needs the {self.rules.deck} cards in dealing order")
        load_hands(games, int(hand), int(dealer), np.asarray(scores, np.int64), decks, self.I, self.M, self.T, self.U,
                   self.obs, self.mask)

    def copy_games(self, src: "BatchEngine", games) -> None:
        """This engine's first ``len(games)`` games become copies of ``src``'s games ``games`` (same rules),
        each where that game stands, its cards included. Their logs start empty."""
        games = np.asarray(games, np.int64)
        if src.rules != self.rules:
            raise ValueError("copy_games needs an engine of the same rules")
        k = len(games)
        self.I[:k] = src.I[games]
        self.M[:k] = src.M[games]
        self.obs[:k] = src.obs[games]
        self.mask[:k] = src.mask[games]
        self.I[:k, LOGLEN] = 0

    def set_scores(self, game: int, scores) -> None:
        """Game ``game``, before its first action, with the sides at ``scores`` (a training curriculum's start)."""
        if self.I[game, LOGLEN] or self.I[game, PHASE] == OVER:
            raise ValueError(f"game {game} has started or is over: set its scores before its first action")
        self.I[game, SCORES:SCORES + self.rules.num_sides] = np.asarray(scores, np.int64)
        write_obs(game, self.I, self.M, self.T, self.U, self.obs)

    def step(self, actions: np.ndarray, observe: bool = True) -> int:
        """Take ``actions[g]`` (legal: the caller checks) in every game not over; returns how many games ended."""
        if self._log_bound >= self.log.shape[1]:
            self._grow_log()
        self._log_bound += 1
        return step_all(actions, self.I, self.M, self.T, self.U, self.obs, self.mask, self.log,
                          observe)

    def step_game(self, game: int, action: int) -> None:
        """Take ``action`` (legal: the caller checks) in game ``game`` alone, which is not over."""
        if self.I[game, LOGLEN] >= self.log.shape[1]:
            self._grow_log()
        step_game(game, action, self.I, self.M, self.T, self.U, self.obs, self.mask, self.log)
        self._log_bound = max(self._log_bound, int(self.I[game, LOGLEN]))

    def _grow_log(self) -> None:
        longest = int(self.I[:, LOGLEN].max())
        if longest >= self.log.shape[1]:
            grown = np.zeros((self.num_games, 2 * self.log.shape[1]), np.int16)
            grown[:, :self.log.shape[1]] = self.log
            self.log = grown
        self._log_bound = longest

    # ---- views of the state, one entry per game
    @property
    def current_seat(self) -> np.ndarray:
        return self.I[:, CUR]

    @property
    def over(self) -> np.ndarray:
        return self.I[:, PHASE] == OVER

    @property
    def game_ended(self) -> np.ndarray:
        """The games that ended in the last step."""
        return self.I[:, GAME_END] == 1

    @property
    def hand_ended(self) -> np.ndarray:
        return self.I[:, HAND_END] == 1

    @property
    def winner(self) -> np.ndarray:
        """Winning side, -1 while playing on or when truncated."""
        return self.I[:, WINNER]

    @property
    def truncated(self) -> np.ndarray:
        return self.I[:, TRUNC] == 1

    @property
    def scores(self) -> np.ndarray:
        return self.I[:, SCORES:SCORES + self.rules.num_sides]

    @property
    def score_change(self) -> np.ndarray:
        """By side, for the games whose hand ended in the last step (zeros for a thrown-in hand)."""
        return self.I[:, CHANGE:CHANGE + self.rules.num_sides]

    def seed_of(self, game: int) -> int:
        return int(self.I[game, SEED])

    def first_dealer_of(self, game: int) -> int:
        return int(self.I[game, FIRST_DEALER])

    def actions_of(self, game: int) -> list[int]:
        """The actions game ``game`` has taken since it was reset."""
        return [int(a) for a in self.log[game, :self.I[game, LOGLEN]]]

    def hands_of(self, game: int) -> int:
        return int(self.I[game, HAND])

    def deal(self, seed: int, hand: int, dealer: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
        """The cards of hand ``hand`` of the game with ``seed`` dealt by ``dealer``: (hands by seat, stock top
        first), in the form ``Game(deals=...)`` takes."""
        r = self.rules
        deck = np.zeros((1, MAX_CARDS), np.int64)
        shuffle(seed, hand, r.deck, deck, 0, 0)
        deck = deck[0]
        n, hs = r.num_players, r.hand_size
        hands = [()] * n
        for i in range(n):
            hands[dealt_to(i, dealer, n, hs)] = tuple(int(c) for c in deck[i * hs:(i + 1) * hs])
        return tuple(hands), tuple(int(c) for c in deck[n * hs:r.deck])

    def finished_game(self, game: int) -> tuple[int, int, int, np.ndarray]:
        """What replays game ``game`` in the reference engine, compactly: (seed, first dealer, hands dealt,
        actions as int16)."""
        return (self.seed_of(game), self.first_dealer_of(game), self.hands_of(game),
                self.log[game, :self.I[game, LOGLEN]].copy())

    def deals(self, seed: int, first_dealer: int, hands: int) -> list:
        """The first ``hands`` deals of the game with ``seed``, for ``Game(deals=...)``."""
        n = self.rules.num_players
        return [self.deal(seed, h, (first_dealer + h - 1) % n) for h in range(1, hands + 1)]
