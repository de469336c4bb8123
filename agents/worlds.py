"""Determinisation for search: sample the hidden cards consistently with one seat's InfoState; the
engine builds the sampled world at the seat's decision point (``Game.from_info_state``).

What the seat knows and the sampler respects: its own cards and discards, every card played this
hand, how many cards each seat holds, and the voids that play has shown (a seat that neither
followed the suit led nor trumped under ``follow="follow_or_trump"`` holds none of that suit; under
``follow="trumps_only"`` a seat holds only trumps once play has begun). The other seats' bids are
read too, softly: among a few samples, one whose hands explain the bids (as agents/bidding.py
would have bid them) is preferred, unless the caller asks for what play has shown alone
(``read_bids=False``: no heuristic knowledge in the worlds).
"""

from __future__ import annotations

import random

from pitch_env.cards import cards_in, mask_of, trump_table
from pitch_env.engine import BID, DECLARE, PLAY, shown_voids
from pitch_env.infostate import InfoState
from pitch_env.scoring import SHOOT

from .bidding import bid_worth

BID_SLACK = 0.5  # how far from the bid a hand's estimated worth may be and still explain it
BID_TRIES = 12  # samples tried per world for one that explains the bids


def void_masks(v: InfoState) -> list[int]:
    """Cards each seat is known not to hold, shown by how it followed (beyond cards seen)."""
    rules = v.rules
    n = rules.num_players
    out = [0] * n
    if v.trump is None or rules.follow == "any":
        return out
    table = trump_table(v.trump, rules.deck, rules.off_jack)
    if rules.follow == "trumps_only":
        for seat in range(n):
            out[seat] = ~table.trump_mask & ((1 << rules.deck) - 1)
        return out
    for seat, suits in enumerate(shown_voids(v)):
        for suit in range(4):
            if suits >> suit & 1:
                out[seat] |= table.suit_masks[suit]
    return out


def sample_hands(rng: random.Random, v: InfoState, voids: list[int], tries: int = 20) -> tuple[list[int], tuple]:
    """One assignment of the unseen cards: each other seat gets ``cards_left`` cards it may hold.
    Before the exchange of a stock game the cards nobody holds form the stock, in random order."""
    rules = v.rules
    n = rules.num_players
    unseen = ((1 << rules.deck) - 1) & ~v.hand & ~v.played & ~mask_of(v.discards)
    others = [s for s in range(n) if s != v.seat and v.cards_left[s]]
    # The most constrained seats choose first, so the greedy draw rarely paints itself into a corner.
    others.sort(key=lambda s: (unseen & ~voids[s]).bit_count())
    if not any(voids[s] for s in others):  # nothing known beyond the counts: one draw does it
        pool = cards_in(unseen)
        drawn = rng.sample(pool, sum(v.cards_left[s] for s in others))
        hands = [0] * n
        hands[v.seat] = v.hand
        pos = 0
        for s in others:
            for c in drawn[pos:pos + v.cards_left[s]]:
                hands[s] |= 1 << c
            pos += v.cards_left[s]
        return hands, _stock(rng, v, unseen & ~mask_of(drawn))
    for attempt in range(tries + 1):
        hands = [0] * n
        hands[v.seat] = v.hand
        left = unseen
        ok = True
        for s in others:
            allowed = cards_in(left & ~voids[s]) if attempt < tries else cards_in(left)
            need = v.cards_left[s]
            if len(allowed) < need:
                ok = False
                break
            for c in rng.sample(allowed, need):
                hands[s] |= 1 << c
                left &= ~(1 << c)
        if ok:
            return hands, _stock(rng, v, left)
    raise RuntimeError(f"no deal of the unseen cards fits seat {v.seat}'s view: {v}")


def _stock(rng: random.Random, v: InfoState, left: int) -> tuple:
    """Before the exchange of a stock game, the cards ``left`` after the deal, in random order."""
    if not (v.rules.uses_stock and v.phase in (BID, DECLARE)):
        return ()
    rest = cards_in(left)
    rng.shuffle(rest)
    return tuple(rest)


def bid_misfit(v: InfoState, hands: list[int]) -> float:
    """How far sampled hands are from explaining the other seats' bids, read as a sensible bidder
    makes them (agents/bidding.py: a bid near the points the hand is worth, a pass when it is worth
    less than the bid to beat); 0 when every bid fits within ``BID_SLACK``."""
    rules = v.rules
    if rules.uses_stock and v.phase == PLAY:
        return 0.0  # after the exchange the dealt hands are gone
    misfit = 0.0
    high, high_bidder = 0, None
    for seat, bid in v.bids:
        stuck = seat == v.dealer and high == 0 and rules.all_pass == "stick_dealer"
        if seat != v.seat and not stuck and bid != SHOOT:
            side = rules.side_of(seat)
            worth = bid_worth(rules, hands[seat] | v.played_by[seat], v.scores, side)
            if bid == 0:
                partner_high = high_bidder is not None and rules.side_of(high_bidder) == side
                misfit += max(0.0, worth - (high + (1.5 if partner_high else 1.0)) - BID_SLACK)
            else:
                misfit += max(0.0, bid - worth - BID_SLACK)
                if seat != v.dealer and bid < rules.max_bid:  # earlier seats bid their full value
                    misfit += max(0.0, worth - (bid + 1) - BID_SLACK)
        if bid != 0:
            high, high_bidder = bid, seat
    return misfit


def sample_world(rng: random.Random, v: InfoState, voids: list[int],
                 read_bids: bool = True) -> tuple[list[int], tuple]:
    """Hidden cards for one world: the first of ``BID_TRIES`` samples whose hands explain the bids,
    else the one that comes closest; without ``read_bids``, the first sample (what play has shown alone:
    no bid model)."""
    if not read_bids:
        return sample_hands(rng, v, voids)
    best, best_misfit = None, None
    for _ in range(BID_TRIES):
        hands, stock = sample_hands(rng, v, voids)
        misfit = bid_misfit(v, hands)
        if misfit == 0.0:
            return hands, stock
        if best is None or misfit < best_misfit:
            best, best_misfit = (hands, stock), misfit
    return best

