"""The rewards of Pitch, as pure functions of a game's outcome: the AEC env's options, the
self-play env's and the imitation recorder's objective are all computed here.

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
    side, 0 when nobody won."""
    if winner is None:
        return 0.0
    return bonus if winner == side else -bonus


def win_bonuses(rules: Rules, winner: int | None, bonus: float) -> list[float]:
    """``win_bonus`` of each seat's side, by seat."""
    return [win_bonus(winner, rules.side_of(s), bonus) for s in range(rules.num_players)]
