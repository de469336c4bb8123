"""Hand evaluation and bidding: the points a hand should win with each suit as trump, and the bid.

Estimates are simple probabilities from the seat's own cards (how likely each higher or lower
trump is to sit with an opponent), read from the rules object's fields, never from preset names.
"""

from __future__ import annotations

from functools import lru_cache

from pitch_env.cards import JACK, TEN, mask_of, trump_table
from pitch_env.rules import EXCHANGE_HAND_SIZE, Rules
from pitch_env.scoring import SHOOT, point_card_values, scheme

# How far above its expected points a seat bids (a set costs the bid, so stay close). In setback,
# margins of -0.3, 0.0, 0.5 and 0.8 won 45.1%, 50.4%, 45.9% and 35.7% of 1000 duplicate games
# (seed 7) against 0.2.
BID_MARGIN = 0.2
# Where only a pitcher can win the game, bid harder: in auction (total margin 0.7) this won 62.4%
# [59.4%, 65.3%] of 1000 duplicate games (seed 3) against the plain margin (docs/agents.md).
PITCHER_ONLY_MARGIN = 0.5
# Bid harder when another side is this close to the target: it may go out next hand.
DANGER = 2
# The ten_point estimate ran low: +0.5 won 55.9% [52.8%, 58.9%] of 1000 duplicate games (seed 3) against +0.
TEN_POINT_OFFSET = 0.5


def expected_points(rules: Rules, hand: int, suit: int) -> float:
    """Points this seat's side should win if this seat pitches with ``suit`` as trump."""
    if scheme(rules).point_cards:
        return _expected_ten_point(rules, hand, suit)
    return _expected_four_point(rules, hand, suit)


def best_suit(rules: Rules, hand: int) -> tuple[int, float]:
    """(suit, expected points) of the best trump suit among those the hand can name."""
    best, best_e = -1, -1.0
    for suit in range(4):
        table = trump_table(suit, rules.deck, rules.off_jack)
        if rules.trump_by == "first_lead" and not hand & table.suit_masks[suit]:
            continue  # the pitch must be a card of the suit
        e = expected_points(rules, hand, suit)
        if e > best_e:
            best, best_e = suit, e
    return best, best_e


def odds(rules: Rules) -> tuple[float, float]:
    """Chance that one given unseen card lies with an opponent, and with a partner."""
    n, k = rules.num_players, rules.num_sides
    per_seat = rules.hand_size / (rules.deck - rules.hand_size)
    side_size = n // k
    return (n - side_size) * per_seat, (side_size - 1) * per_seat


@lru_cache(maxsize=None)
def trumps_above_jack(deck: int, off_jack: bool, suit: int) -> int:
    """The trumps ranked above the jack of ``suit``, as a mask."""
    table = trump_table(suit, deck, off_jack)
    jack = table.strength[suit * 13 + JACK]
    return mask_of(c for c in table.order if table.strength[c] > jack)


TENS = mask_of(s * 13 + TEN for s in range(4))


_FOUR_POINT: dict = {}  # _four_point's estimates, by what they read (a search's worlds ask for the same ones often)


def _expected_four_point(rules: Rules, hand: int, suit: int) -> float:
    table = trump_table(suit, rules.deck, rules.off_jack)
    hand &= table.trump_mask | TENS  # all the estimate reads of a hand
    key = (rules.deck, rules.off_jack, rules.low_to, rules.num_players, rules.num_sides, rules.hand_size, suit, hand)
    e = _FOUR_POINT.get(key)
    if e is None:
        if len(_FOUR_POINT) >= 1 << 20:
            _FOUR_POINT.clear()
        e = _FOUR_POINT[key] = _four_point(rules, hand, suit, table)
    return e


def _four_point(rules: Rules, hand: int, suit: int, table) -> float:
    mine = hand & table.trump_mask
    if not mine:
        return 0.0
    p_opp, p_partner = odds(rules)
    keep = 1.0 - p_opp
    order, strength = table.order, table.strength
    low = next(strength[c] for c in order if mine >> c & 1)
    top = next(strength[c] for c in reversed(order) if mine >> c & 1)
    e = keep ** (len(order) - top)  # High: no opponent holds a higher trump
    low_p = keep ** (low - 1)  # Low: no opponent holds a lower one
    e += low_p if rules.low_to == "holder" else 0.5 * low_p + 0.1
    above_jack = trumps_above_jack(rules.deck, rules.off_jack, suit)
    if hand >> (suit * 13 + JACK) & 1:  # Jack: safe unless a higher trump is out there
        safe = keep ** (above_jack & ~hand).bit_count()
        e += 0.95 * safe + 0.4 * (1 - safe)
    else:  # partner may hold it, or our high trumps may catch it
        e += 0.8 * p_partner + 0.3 * p_opp * min(1.0, (above_jack & hand).bit_count() / 2)
    trump_ten = hand >> (suit * 13 + TEN) & 1
    game = (1.0 / rules.num_sides + 0.07 * (mine.bit_count() - 2) + 0.06 * (hand & TENS).bit_count()
            + 0.1 * trump_ten + 0.03 * (mine & above_jack).bit_count())
    e += min(0.9, max(0.05, game))
    return e


_TEN_POINT_TABLES: dict = {}


def ten_point_table(rules: Rules, suit: int):
    """What ``_expected_ten_point`` reads of a trump suit, as masks: the trumps, the four highest, and
    per point card (highest first) its bit, its value, the trumps above it, and whether it ranks from
    just below the jack up. Kept per (deck, off_jack, suit): all that trump_table and
    point_card_values read of the rules (hashing a Rules costs more than the estimate itself)."""
    key = (rules.deck, rules.off_jack, suit)
    t = _TEN_POINT_TABLES.get(key)
    if t is None:
        table = trump_table(suit, rules.deck, rules.off_jack)
        strength = table.strength
        jack = strength[suit * 13 + JACK]
        cards = tuple((1 << card, value, mask_of(c for c in table.order if strength[c] > strength[card]),
                       strength[card] >= jack - 1) for card, value in point_card_values(rules, table))
        t = _TEN_POINT_TABLES[key] = (table.trump_mask, mask_of(table.order[-4:]), cards)
    return t


def _expected_ten_point(rules: Rules, hand: int, suit: int) -> float:
    trumps, top4, cards = ten_point_table(rules, suit)
    top_mine = (hand & top4).bit_count()
    total = 0.0
    e = 0.0
    held = 0
    for bit, value, higher, high in cards:
        total += value
        if hand & bit:
            held += value
            higher_out = (higher & ~hand).bit_count()
            if higher_out == 0:
                e += value
            elif high:
                e += value * 0.8 ** higher_out  # a high point card survives unless caught
            else:
                e += value * (0.35 + 0.1 * top_mine)  # a low one is won by whoever takes its trick
    # Points held elsewhere go to the side that wins their tricks; the refill adds trumps.
    mine = (hand & trumps).bit_count()
    draws = max(0, EXCHANGE_HAND_SIZE - mine)
    share = min(0.8, 0.3 + 0.08 * top_mine + 0.03 * mine + 0.01 * draws)
    e += (total - held) * share
    return e + TEN_POINT_OFFSET


def bid_worth(rules: Rules, hand: int, scores, side: int) -> float:
    """The points this hand is worth bidding: expected points of its best suit plus a margin,
    larger when another side is close to the target."""
    margin = BID_MARGIN + (PITCHER_ONLY_MARGIN if rules.win_rule == "pitcher_only" else 0.0)
    if any(s >= rules.target_score - DANGER for i, s in enumerate(scores) if i != side):
        margin += 0.5
    return best_suit(rules, hand)[1] + margin


def choose_bid(rules: Rules, hand: int, seat: int, dealer: int, high_bid: int, high_bidder: int | None,
               scores, legal_bids: dict[int, int]) -> int:
    """The action index to bid. ``legal_bids`` maps bid value (0 pass, SHOOT) to action index."""
    side = rules.side_of(seat)
    worth = bid_worth(rules, hand, scores, side)
    numeric = sorted(b for b in legal_bids if 0 < b < SHOOT)
    if SHOOT in legal_bids and worth >= rules.max_hand_points - 0.2:
        return legal_bids[SHOOT]
    if 0 not in legal_bids:  # stuck dealer: the cheapest bid, or more if the hand is worth it
        affordable = [b for b in numeric if b <= worth] or numeric[:1]
        return legal_bids[affordable[-1] if rules.made_scores == "bid" else affordable[0]]
    partner_high = high_bidder is not None and rules.side_of(high_bidder) == side
    if partner_high and worth < high_bid + 1.5:
        return legal_bids[0]  # let partner play it
    affordable = [b for b in numeric if b <= worth]
    if not affordable:
        return legal_bids[0]
    if seat == dealer and rules.made_scores == "points_won":
        # Last to speak, and a made contract scores the points won: the cheapest winning bid is
        # as good as any and easier to make.
        return legal_bids[affordable[0]]
    # Otherwise bid full value: later seats must pay to take it, and a made "bid" scores the bid.
    return legal_bids[affordable[-1]]
