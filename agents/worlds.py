"""Determinisation for search: sample the hidden cards consistently with one seat's infoset, and
build an engine Game of the sampled world at the seat's decision point.

What the seat knows and the sampler respects: its own cards and discards, every card played this
hand, how many cards each seat holds, and the voids that play has shown (a seat that neither
followed the suit led nor trumped under ``follow="follow_or_trump"`` holds none of that suit; under
``follow="trumps_only"`` a seat holds only trumps once play has begun). The other seats' bids are
read too, softly: among a few samples, one whose hands explain the bids (as agents/bidding.py
would have bid them) is preferred.
"""

from __future__ import annotations

import dataclasses
import random

from pitch_env.cards import cards_in, mask_of
from pitch_env.engine import BID, DECLARE, PLAY, Game
from pitch_env.scoring import SHOOT

from .bidding import bid_worth
from .view import View

BID_SLACK = 0.5  # how far from the bid a hand's estimated worth may be and still explain it
BID_TRIES = 12  # samples tried per world for one that explains the bids


def void_masks(v: View, rules) -> list[int]:
    """Cards each seat is known not to hold, shown by how it followed (beyond cards seen)."""
    n = rules.num_players
    out = [0] * n
    table = v.table
    if table is None or rules.follow == "any":
        return out
    if rules.follow == "trumps_only":
        for seat in range(n):
            out[seat] = ~table.trump_mask & ((1 << rules.deck) - 1)
        return out
    tricks = [plays for _, plays, _ in v.tricks] + ([v.trick] if v.trick else [])
    for plays in tricks:
        led = table.suit[plays[0][1]]
        for seat, card in plays[1:]:
            suit = table.suit[card]
            if suit != led and not table.strength[card]:
                out[seat] |= table.suit_masks[led]
    return out


def sample_hands(rng: random.Random, v: View, rules, voids: list[int], tries: int = 20) -> tuple[list[int], tuple]:
    """One assignment of the unseen cards: each other seat gets ``cards_left`` cards it may hold.
    Before the exchange of a stock game the cards nobody holds form the stock, in random order."""
    n = rules.num_players
    unseen = ((1 << rules.deck) - 1) & ~v.hand & ~v.played & ~v.own_out
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
        return hands, _stock(rng, v, rules, unseen & ~mask_of(drawn))
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
            return hands, _stock(rng, v, rules, left)
    raise RuntimeError(f"no deal of the unseen cards fits seat {v.seat}'s view: {v}")


def _stock(rng: random.Random, v: View, rules, left: int) -> tuple:
    """Before the exchange of a stock game, the cards ``left`` after the deal, in random order."""
    if not (rules.uses_stock and v.phase in ("bid", "declare")):
        return ()
    rest = cards_in(left)
    rng.shuffle(rest)
    return tuple(rest)


def bid_misfit(v: View, rules, hands: list[int]) -> float:
    """How far sampled hands are from explaining the other seats' bids, read as a sensible bidder
    makes them (agents/bidding.py: a bid near the points the hand is worth, a pass when it is worth
    less than the bid to beat); 0 when every bid fits within ``BID_SLACK``."""
    if rules.uses_stock and v.phase == "play":
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


def sample_world(rng: random.Random, v: View, rules, voids: list[int]) -> tuple[list[int], tuple]:
    """Hidden cards for one world: the first of ``BID_TRIES`` samples whose hands explain the bids,
    else the one that comes closest."""
    best, best_misfit = None, None
    for _ in range(BID_TRIES):
        hands, stock = sample_hands(rng, v, rules, voids)
        misfit = bid_misfit(v, rules, hands)
        if misfit == 0.0:
            return hands, stock
        if best is None or misfit < best_misfit:
            best, best_misfit = (hands, stock), misfit
    return best


_PLAY_STATE = frozenset(Game.__slots__)
_template_cache: dict = {}


def _template(rules) -> Game:
    g = _template_cache.get(rules)
    if g is None:
        g = _template_cache[rules] = Game(rules, seed=0)
    return g


def world_rules(rules, hand_number: int):
    """The rules of a world: the same, except that the game stops after the current hand, so a
    playout never deals (and shuffles) a next hand it will not look at."""
    key = (rules, hand_number)
    r = _world_rules_cache.get(key)
    if r is None:
        r = _world_rules_cache[key] = dataclasses.replace(rules, max_hands=hand_number)
    return r


_world_rules_cache: dict = {}
_PHASES = {"bid": BID, "declare": DECLARE, "play": PLAY}


def build_world(v: View, rules, hands: list[int], stock: tuple = ()) -> Game:
    """An engine Game at ``v``'s decision point (bid, declare or play phase) holding ``hands`` (one mask
    per seat; the seat's own hand must be ``v.hand``) and, before a stock exchange, ``stock``.
    Only public facts and the sampled cards go into it; it ends after this hand (``world_rules``)."""
    if v.phase not in _PHASES:
        raise ValueError(f"worlds are built for bid, declare and play decisions, not the {v.phase!r} phase")
    n = rules.num_players
    g = object.__new__(Game)
    in_trick = {seat for seat, _ in v.trick}
    captured = [0] * n
    tricks = []
    for lead, plays, winner in v.tricks:
        for _, c in plays:
            captured[winner] |= 1 << c
        tricks.append((lead, tuple(plays), winner))
    playing = v.phase == "play"
    leader = v.leader if v.leader is not None else v.seat
    in_play = tuple(hands[s] | v.played_by[s] for s in range(n)) if playing else None
    dealt = in_play if playing else hands
    state = dict(
        rules=world_rules(rules, v.hand_number), layout=_template(rules).layout, seed=0, deals=[],
        scores=list(v.scores), hand_number=v.hand_number, dealer=v.dealer, phase=_PHASES[v.phase],
        current_seat=v.seat, hands=list(hands), winner=None, truncated=False, finished=[], last_result=None,
        dealt=tuple(tuple(cards_in(m)) for m in dealt), stock=tuple(stock), stock_pos=0,
        bids=list(v.bids), high_bid=v.high_bid, high_bidder=v.high_bidder, pitcher=v.pitcher,
        contract=v.contract, trump=v.trump, table=v.table,
        draws=[[] for _ in range(n)], discards=[[] for _ in range(n)], stock_to=v.stock_to,
        discard_queue=[], in_play=in_play, captured=captured, trick=list(v.trick),
        trick_order=[(leader + i) % n for i in range(n)
                     if (leader + i) % n in in_trick or (leader + i) % n == v.seat or hands[(leader + i) % n]]
        if playing else [],
        leader=v.leader, tricks=tricks, played=v.played, _legal=None,
    )
    if set(state) != _PLAY_STATE:
        raise RuntimeError("pitch_env.engine.Game's fields changed; update agents/worlds.build_world: "
                           f"missing {sorted(_PLAY_STATE - set(state))}, unknown {sorted(set(state) - _PLAY_STATE)}")
    for name, value in state.items():
        setattr(g, name, value)
    return g
