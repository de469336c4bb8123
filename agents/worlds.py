"""Determinisation for search: sample the hidden cards consistently with one seat's infoset, and
build an engine Game of the sampled world at the seat's decision point.

What the seat knows and the sampler respects: its own cards and discards, every card played this
hand, how many cards each seat holds, and the voids that play has shown (a seat that neither
followed the suit led nor trumped under ``follow="follow_or_trump"`` holds none of that suit; under
``follow="trumps_only"`` a seat holds only trumps once play has begun).
"""

from __future__ import annotations

import random

from pitch_env.cards import cards_in
from pitch_env.engine import PLAY, Game

from .view import View


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


def sample_hands(rng: random.Random, v: View, rules, voids: list[int], tries: int = 20) -> list[int]:
    """One assignment of the unseen cards: each other seat gets ``cards_left`` cards it may hold."""
    n = rules.num_players
    unseen = ((1 << rules.deck) - 1) & ~v.hand & ~v.played & ~v.own_out
    others = [s for s in range(n) if s != v.seat and v.cards_left[s]]
    # The most constrained seats choose first, so the greedy draw rarely paints itself into a corner.
    others.sort(key=lambda s: (unseen & ~voids[s]).bit_count())
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
            return hands
    raise RuntimeError(f"no deal of the unseen cards fits seat {v.seat}'s view: {v}")


_PLAY_STATE = frozenset(Game.__slots__)
_template_cache: dict = {}


def _template(rules) -> Game:
    g = _template_cache.get(rules)
    if g is None:
        g = _template_cache[rules] = Game(rules, seed=0)
    return g


def build_world(v: View, rules, hands: list[int]) -> Game:
    """An engine Game in the play phase at ``v``'s decision point, holding ``hands`` (one mask per
    seat; the seat's own hand must be ``v.hand``). Only public facts and ``hands`` go into it."""
    if v.phase != "play":
        raise ValueError(f"worlds are built for play decisions, not the {v.phase!r} phase")
    n = rules.num_players
    g = object.__new__(Game)
    in_trick = {seat for seat, _ in v.trick}
    leader = v.leader if v.leader is not None else v.seat
    captured = [0] * n
    tricks = []
    for lead, plays, winner in v.tricks:
        for _, c in plays:
            captured[winner] |= 1 << c
        tricks.append((lead, tuple(plays), winner))
    in_play = tuple(hands[s] | v.played_by[s] for s in range(n))
    state = dict(
        rules=rules, layout=_template(rules).layout, seed=0, deals=[], scores=list(v.scores),
        hand_number=v.hand_number, dealer=v.dealer, phase=PLAY, current_seat=v.seat, hands=list(hands),
        winner=None, truncated=False, finished=[], last_result=None,
        dealt=tuple(tuple(cards_in(m)) for m in in_play), stock=(), stock_pos=0,
        bids=list(v.bids), high_bid=v.high_bid, high_bidder=v.high_bidder, pitcher=v.pitcher,
        contract=v.contract, trump=v.trump, table=v.table,
        draws=[[] for _ in range(n)], discards=[[] for _ in range(n)], stock_to=v.stock_to,
        discard_queue=[], in_play=in_play, captured=captured, trick=list(v.trick),
        trick_order=[(leader + i) % n for i in range(n)
                     if (leader + i) % n in in_trick or (leader + i) % n == v.seat or hands[(leader + i) % n]],
        leader=leader, tricks=tricks, played=v.played, _legal=None,
    )
    if set(state) != _PLAY_STATE:
        raise RuntimeError("pitch_env.engine.Game's fields changed; update agents/worlds.build_world: "
                           f"missing {sorted(_PLAY_STATE - set(state))}, unknown {sorted(set(state) - _PLAY_STATE)}")
    for name, value in state.items():
        setattr(g, name, value)
    return g
