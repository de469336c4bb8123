"""The rewards of Pitch, as pure functions of a game's outcome: the AEC env's options, the
self-play env's and the imitation recorder's objective are all computed here, and ``SideRewards``
keeps the training objective's account of each side a learner plays (every trainer's env uses it).

``score_change`` is by side (``HandResult.score_change``); ``winner`` a side or None (truncated).
"""

from __future__ import annotations

from .rules import Rules


def game_rewards(rules: Rules, winner: int | None) -> list[float]:
    """By seat, at the end of a game: +1 to the winning side's seats, −1/(sides−1) to the others
    (zero-sum); 0 to all when nobody won (the game was truncated at ``max_hands``)."""
    if winner is None:
        return [0.0] * rules.num_players
    lose = -1.0 / (rules.num_sides - 1)
    return [1.0 if rules.side_of(s) == winner else lose for s in range(rules.num_players)]


def hand_scale(rules: Rules) -> float:
    """What one point of score is worth in a hand reward: 1 / the most points a hand can give."""
    return 1.0 / rules.max_hand_points


def hand_rewards(rules: Rules, score_change) -> list[float]:
    """By seat, after a hand: the seat's side score change, divided by the most points a hand can give."""
    scale = hand_scale(rules)
    return [score_change[rules.side_of(s)] * scale for s in range(rules.num_players)]


def relative_reward(score_change, side: int, scale: float) -> float:
    """The training objective's per-hand part for ``side``: its score change minus the mean of the
    other sides' changes, times ``scale`` (so a hand that helps every side equally is worth 0)."""
    others = [c for s, c in enumerate(score_change) if s != side]
    return (score_change[side] - sum(others) / len(others)) * scale


def relative_rewards(rules: Rules, score_change) -> list[float]:
    """``relative_reward`` of each seat's side, by seat, scaled by ``hand_scale``."""
    scale = hand_scale(rules)
    by_side = [relative_reward(score_change, side, scale) for side in range(rules.num_sides)]
    return [by_side[rules.side_of(s)] for s in range(rules.num_players)]


def win_bonus(winner: int | None, side: int, bonus: float) -> float:
    """The training objective's end-of-game part: +bonus to the winning side, −bonus to every other
    side, and −bonus to every side when nobody won (a game stopped at ``max_hands`` is lost by all:
    were it worth more than a loss, a side that can no longer win would learn to block the auction
    until the hand limit)."""
    return bonus if winner == side else -bonus


def win_bonuses(rules: Rules, winner: int | None, bonus: float) -> list[float]:
    """``win_bonus`` of each seat's side, by seat."""
    return [win_bonus(winner, rules.side_of(s), bonus) for s in range(rules.num_players)]


class SideRewards:
    """What each side a learner plays has earned of the training objective since it was last paid:
    ``reward="hand"``: ``relative_reward`` after each hand, then ``win_bonus`` when the game ends;
    ``reward="game"``: the win bonus only. ``take(side)`` pays a side (the self-play env, the batched
    core and the RLlib env each hand it to the side's latest decision in their own way).

        book = SideRewards(rules, "hand", bonus=1.0)
        book.start(sides)                        # a new game, the learner's sides
        book.hand_over(result.score_change)      # None for a thrown-in hand
        book.game_over(game.winner)
        reward = book.take(side)
    """

    def __init__(self, rules: Rules, reward: str = "hand", bonus: float = 1.0):
        self.scale = hand_scale(rules)
        self.by_hand = reward == "hand"
        self.bonus = float(bonus)
        self.pending: dict[int, float] = {}

    def start(self, sides) -> None:
        self.pending = {side: 0.0 for side in sides}

    def hand_over(self, score_change) -> None:
        if self.by_hand and score_change is not None:
            for side in self.pending:
                self.pending[side] += relative_reward(score_change, side, self.scale)

    def game_over(self, winner: int | None) -> None:
        for side in self.pending:
            self.pending[side] += win_bonus(winner, side, self.bonus)

    def take(self, side: int) -> float:
        amount, self.pending[side] = self.pending[side], 0.0
        return amount
