"""Scoring one hand: the points awarded (docs/rules.md §3.5, §5.8) and what they do to the scores (§3.6, §5.9).

Pure functions over the facts of a finished hand; the engine calls them once per hand. What each
scoring scheme awards is one row of ``SCHEMES``, read by the rules, the engine and the agents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from .cards import ACE, GAME_POINTS, JACK, LJ, BJ, THREE, TEN, TWO, TrumpTable, off_jack


class Rules(Protocol):
    """What scoring reads of a ``pitch_env.rules.Rules``. Named here, not imported: rules.py reads SCHEMES
    to check its ``scoring`` option, so the import goes one way, rules -> scoring."""

    deck: int
    low_to: str
    made_scores: str
    max_hand_points: int
    num_sides: int
    off_jack: bool
    scoring: str
    shoot: str
    target_score: int
    win_rule: str

    def side_of(self, seat: int) -> int: ...

SHOOT = 100  # the shoot bid, internally: above every numeric bid
# The fixed value of the dealer's "shoot" bid under shoot=dealer_double (Setback's option).
DEALER_DOUBLE_VALUE = 8


@dataclass(frozen=True, slots=True)
class Award:
    point: str  # "high", "low", "jack", "game" or "card"
    card: int | None
    seat: int | None
    side: int
    value: int


@dataclass(frozen=True, slots=True)
class HandResult:
    awards: tuple[Award, ...]
    game_points: tuple[int, ...]  # by side
    points_won: tuple[int, ...]  # by side
    made: bool
    score_change: tuple[int, ...]  # by side
    # "win"/"lose" when a shoot-the-moon bid decides the game at once, else None.
    moon: str | None


def _owner(mask_by_seat, card: int) -> int:
    bit = 1 << card
    for seat, m in enumerate(mask_by_seat):
        if m & bit:
            return seat
    raise AssertionError(f"card {card} is held by nobody")


def awards_four_point(rules: Rules, table: TrumpTable, in_play, captured, game=None) -> list[Award]:
    """High, Low, Jack and Game. ``in_play``/``captured``: card masks by seat; ``game``: the
    sides' game points if already counted."""
    side_of = rules.side_of
    awards = []
    trumps = [c for c in table.order if any(m >> c & 1 for m in in_play)]
    if trumps:
        high, low = trumps[-1], trumps[0]
        seat = _owner(in_play, high)
        awards.append(Award("high", high, seat, side_of(seat), 1))
        seat = _owner(in_play if rules.low_to == "holder" else captured, low)
        awards.append(Award("low", low, seat, side_of(seat), 1))
        jack = table.trump * 13 + JACK
        if jack in trumps:
            seat = _owner(captured, jack)
            awards.append(Award("jack", jack, seat, side_of(seat), 1))
    if game is None:
        game = game_points(rules, captured)
    best = max(game)
    if game.count(best) == 1:
        awards.append(Award("game", None, None, game.index(best), 1))
    return awards


def point_card_values(rules: Rules, table: TrumpTable) -> list[tuple[int, int]]:
    """(card, value) of the ten_point point cards, highest trump first (§5.8)."""
    t = table.trump
    cards = [(t * 13 + ACE, 1), (t * 13 + JACK, 1)]
    if rules.off_jack:
        cards.append((off_jack(t), 1))
    if rules.deck == 54:
        cards += [(BJ, 1), (LJ, 1)]
    cards += [(t * 13 + TEN, 1), (t * 13 + THREE, 3), (t * 13 + TWO, 1)]
    return cards


def awards_point_cards(rules: Rules, table: TrumpTable, captured) -> list[Award]:
    """A point-card scheme's awards: each point card of ``SCHEMES[rules.scoring].point_cards`` to its capturer."""
    awards = []
    for card, value in SCHEMES[rules.scoring].point_cards(rules, table):
        bit = 1 << card
        for seat, m in enumerate(captured):
            if m & bit:
                awards.append(Award("card", card, seat, rules.side_of(seat), value))
    return awards


def game_points(rules: Rules, captured) -> list[int]:
    """Game points (A=4 K=3 Q=2 J=1 T=10) in each side's won tricks."""
    totals = [0] * rules.num_sides
    for seat, m in enumerate(captured):
        side = rules.side_of(seat)
        while m:
            low = m & -m
            totals[side] += GAME_POINTS[low.bit_length() - 1]
            m ^= low
    return totals


def _four_point_captured(rules: Rules, table: TrumpTable, captured) -> list[int]:
    points = [0] * rules.num_sides
    jack = table.trump * 13 + JACK
    for seat, m in enumerate(captured):
        if m >> jack & 1:
            points[rules.side_of(seat)] += 1
    return points


def _point_card_hand(rules: Rules, table: TrumpTable, in_play, captured, game) -> list[Award]:
    return awards_point_cards(rules, table, captured)  # only captures count: who was dealt a card does not


def _point_cards_captured(rules: Rules, table: TrumpTable, captured) -> list[int]:
    points = [0] * rules.num_sides
    for a in awards_point_cards(rules, table, captured):
        points[a.side] += a.value
    return points


@dataclass(frozen=True, slots=True)
class Scheme:
    """What one scoring scheme (the ``scoring`` rules option) awards."""

    max_hand_points: int  # the most points one hand can award (a shoot-the-moon bid must take them all)
    # (rules, table) -> [(card, value)] when every point is a trump card worth its value to whoever
    # captures it (no High, Low or Game); None for High, Low, Jack and Game
    point_cards: Callable[..., list[tuple[int, int]]] | None
    # (rules, table, in_play, captured, game points by side) -> the finished hand's awards, in record order
    awards: Callable[..., list[Award]]
    # (rules, table, captured) -> points by side already secured by won tricks (what every seat can know)
    captured: Callable[..., list[int]]


SCHEMES: dict[str, Scheme] = {
    # High, Low, Jack and Game, one point each.
    "four_point": Scheme(4, None, awards_four_point, _four_point_captured),
    # The trump point cards of point_card_values: A J (off-jack) (jokers) T 3 2, ten points in all.
    "ten_point": Scheme(10, point_card_values, _point_card_hand, _point_cards_captured),
}


def scheme(rules: Rules) -> Scheme:
    """The scoring row of ``rules``."""
    return SCHEMES[rules.scoring]


def score_hand(rules: Rules, table: TrumpTable, in_play, captured, pitcher: int,
               contract: int, scores) -> HandResult:
    """Everything a finished hand does to the score."""
    game = game_points(rules, captured)
    awards = SCHEMES[rules.scoring].awards(rules, table, in_play, captured, game)
    points = [0] * rules.num_sides
    for a in awards:
        points[a.side] += a.value
    side = rules.side_of(pitcher)
    change = list(points)
    moon = None
    if contract == SHOOT and rules.shoot == "dealer_double":
        # The dealer's side must take every point awarded this hand.
        made = points[side] == sum(points)
        change[side] = DEALER_DOUBLE_VALUE if made else -DEALER_DOUBLE_VALUE
    elif contract == SHOOT:  # shoot the moon: every point the scoring can give
        made = points[side] == rules.max_hand_points
        if made and scores[side] > 0:
            moon, change[side] = "win", 0
        elif made:
            change[side] = -scores[side]  # a made shot from 0 or below resets the score to 0
        else:
            moon, change[side] = "lose", 0
    else:
        made = points[side] >= contract
        if not made:
            change[side] = -contract
        elif rules.made_scores == "bid":
            change[side] = contract
    return HandResult(tuple(awards), tuple(game), tuple(points),
                      made, tuple(change), moon)


def game_winner(rules: Rules, scores, pitcher: int, moon: str | None) -> int | None:
    """The side that has won after a hand (docs/rules.md §3.7, §4.7, §5.9-10), or None to play on."""
    side = rules.side_of(pitcher)
    if moon == "win":
        return side
    if moon == "lose":
        # The shooter's side loses at once; with several other sides the best-placed one wins,
        # a tie going to the side seated first to the pitcher's left.
        others = [(side + i) % rules.num_sides for i in range(1, rules.num_sides)]
        return max(others, key=lambda s: scores[s])
    if rules.win_rule == "pitcher_only":
        return side if scores[side] >= rules.target_score else None
    at_target = [s for s in range(rules.num_sides) if scores[s] >= rules.target_score]
    if not at_target:
        return None
    if side in at_target:  # bidder goes out
        return side
    best = max(scores[s] for s in at_target)
    leaders = [s for s in at_target if scores[s] == best]
    return leaders[0] if len(leaders) == 1 else None


def points_captured(rules: Rules, table: TrumpTable | None, captured) -> list[int]:
    """Points each side has already secured by winning tricks this hand (what every seat can know):
    the Jack in four_point, the point cards in ten_point. High, Low (even under low_to=capturer:
    a lower trump may still be hidden in a hand) and Game are only known at the end of the hand."""
    if table is None:
        return [0] * rules.num_sides
    return SCHEMES[rules.scoring].captured(rules, table, captured)
