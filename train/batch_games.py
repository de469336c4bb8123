"""``BatchGames``: the self-play core's games (train/lockstep.py's ``Games`` seam) held in one BatchEngine,
with the compiled heuristic (agents/batch_heuristic.py) for the heuristic's seats and the hint.

The batched engine writes every game's mask and observation for its seat to move as it steps, so a tick's
observations, masks and hints are array reads and one compiled call, not a Python loop over games. It
serves leagues whose players all act from arrays: the learner, snapshots, the heuristic and random play
(``serves``); a league with an agent spec keeps the reference ``Games``.
"""

from __future__ import annotations

import numpy as np

from agents.batch_heuristic import BatchHeuristic
from pitch_env.batch import BatchEngine
from pitch_env.batch.kernels import CUR, HANDS, PHASE
from pitch_env.engine import OVER, IllegalActionError

BATCHED_PLAYERS = ("self", "heuristic", "random")


def serves(cfg) -> bool:
    """Whether every opponent a config names (its own and its schedule's) can be played by ``BatchGames``."""
    names = set(cfg.opponents)
    for entry in cfg.schedule:
        names |= set(entry.get("opponents", {}))
    return all(name in BATCHED_PLAYERS for name in names)


class _View:
    """What the core reads of one game besides the seam: the seat to move, the phase, the winner, and
    whether it stopped at max_hands unwon."""

    __slots__ = ("e", "i")

    def __init__(self, engine: BatchEngine, i: int):
        self.e, self.i = engine, i

    @property
    def current_seat(self) -> int:
        return int(self.e.I[self.i, CUR])

    @property
    def phase(self) -> int:
        return int(self.e.I[self.i, PHASE])

    @property
    def winner(self):
        w = int(self.e.winner[self.i])
        return None if w < 0 else w

    @property
    def truncated(self) -> bool:
        return bool(self.e.truncated[self.i])


class BatchGames:
    """``n`` games of ``rules`` in one BatchEngine, behind the same methods as lockstep's ``Games``."""

    def __init__(self, rules, n: int):
        self.rules = rules
        self.engine = e = BatchEngine(rules, n)
        self.heuristic = BatchHeuristic(e)
        self.actions = e.compiled.layout.size
        self.games = [_View(e, i) for i in range(n)]
        self._heuristic_moves = None  # the heuristic's move in every game, for the games not yet stepped this tick

    def reset(self, i: int, seed: int) -> None:
        self.engine.reset([seed], [i])

    def set_scores(self, i: int, scores) -> None:
        """Game ``i``, just dealt, with the sides at ``scores`` instead of 0."""
        self.engine.set_scores(i, scores)

    def seats(self) -> list[int]:
        self._heuristic_moves = None  # a new tick
        return self.engine.current_seat.tolist()

    def observations(self, idx: list[int], seats: list[int]) -> np.ndarray:
        return self.engine.obs[idx]  # each game's observation is its seat to move's, written as it stepped

    def masks(self, idx: list[int]) -> np.ndarray:
        return self.engine.mask[idx].astype(bool)

    def hints(self, idx: list[int]) -> np.ndarray:
        return self.heuristic.actions(idx)

    def hands(self, idx: list[int]) -> np.ndarray:
        """Every seat's cards (bit masks) in games ``idx``: what only the oracle critic reads."""
        return self.engine.M[idx, HANDS:HANDS + self.rules.num_players]

    def act(self, player, i: int, seat: int) -> int:
        """The move of a player that the core steps game by game (the heuristic, random play)."""
        if player.name == "heuristic":
            # One compiled call gives the heuristic's move in every game; each game moves once a tick and
            # asks before it moves, so the moves stay valid for the games still to step this tick.
            if self._heuristic_moves is None:
                self._heuristic_moves = self.heuristic.actions()
            return int(self._heuristic_moves[i])
        if player.name == "random":
            legal = np.flatnonzero(self.engine.mask[i])
            return int(legal[int(player.rng.integers(len(legal)))])
        raise ValueError(f"the batched games cannot seat the player {player.name!r}: use the reference Games")

    def step(self, i: int, seat: int, action: int):
        """Apply ``action`` for ``seat`` in game ``i`` (checked, as the reference Games is); returns (the
        finished hand's score change by side or None, whether the game is over)."""
        e = self.engine
        if not (0 <= action < self.actions and e.mask[i, action]) or e.I[i, CUR] != seat:
            raise IllegalActionError(f"game {i}: action {action} is not legal for seat {seat}")
        e.step_game(i, action)
        hand = tuple(e.score_change[i].tolist()) if e.hand_ended[i] else None
        return hand, bool(e.I[i, PHASE] == OVER)
