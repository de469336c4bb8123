"""The rule-based Pitch player for every rule set, reading only one seat's InfoState (its own cards
and public facts, pitch_env/infostate.py). ``heuristic_action`` is the one heuristic: the agent,
PIMC's rollouts (agents/rollout.py) and training's hint and opponents (train/hint.py) all call it.

Strategy (docs/agents.md has the long form):
- **Bid** (agents/bidding.py): for each suit, estimate the points the side would win with it as
  trump (four_point: the chance of High and Low from how many higher/lower trumps are out, Jack
  from holding it and what protects it, Game from trump length and tens; ten_point: the point
  cards held and how safe each is, plus a share of the rest from the top trumps and the refill).
  Bid that estimate plus a small margin (more where only a pitcher can win, and when another
  side is near the target); the dealer bids just enough where a made bid scores the points won,
  steals when allowed and worth it, bids the cheapest allowed bid when stuck; never overcall a
  partner without a clearly better hand.
- **Trump**: pitch (or declare) the best-valued suit: the pitch is its highest card, or its lowest
  when the top is an unprotected jack.
- **Play** (agents/cardplay.py): feed a partner whose trick is safe the most valuable card we can
  spare (tens, the jack); win a trick that is worth more than the control the cheapest safe winner
  costs; else throw the card that costs least (lowest value, lowest trump strength). Lead an
  unbeatable trump while trumps are out or a partner can feed it, else a low side card. Card
  values follow the rules: game points and the jack (and the low trumps where ``low_to`` is
  ``capturer``) in four_point, the point cards in ten_point. Only legal moves are chosen, so each
  ``follow`` rule is obeyed.
- **Exchange** (ten_point): keep the rest of the stock unless already holding six trumps; discard
  down to six by dropping the trumps that are worth least (no points, lowest).
"""
from __future__ import annotations

from pitch_env.actions import ActionLayout
from pitch_env.cards import mask_of
from pitch_env.engine import BID, DECLARE, DISCARD, PLAY, STOCK, bid_value
from pitch_env.infostate import InfoState

from .base import Agent
from .bidding import best_suit, choose_bid
from .cardplay import choose_card, discard_choice, pitch_lead, play_tables, stock_choice


def heuristic_action(s: InfoState, layout: ActionLayout) -> int:
    """The heuristic's action for ``s.seat``, the seat to move (``layout``: the rules' action layout)."""
    legal = s.legal
    if len(legal) == 1:
        return legal[0]
    rules, hand, phase = s.rules, s.hand, s.phase
    if phase == PLAY:
        if s.trump is None:  # the pitch sets trump
            return layout.play_base + pitch_lead(rules, hand, best_suit(rules, hand)[0])
        seen = s.played | mask_of(s.discards) if s.discards else s.played  # own discards are out of play too
        return play_action(rules, layout, s.seat, hand, legal, s.trump, s.trick, seen, s.trick_order)
    if phase == BID:
        return bid_action(rules, s.seat, hand, s.dealer, s.high_bid, s.high_bidder, s.scores, legal)
    if phase == DECLARE:
        return layout.trump_base + best_suit(rules, hand)[0]
    if phase == STOCK:
        return stock_choice(layout, hand)
    if phase == DISCARD:
        return discard_choice(play_tables(rules, s.trump), layout.discard_base, list(legal))
    raise ValueError(f"seat {s.seat} has no decision to make in phase {s.phase} (the game is over)")


def bid_action(rules, seat: int, hand: int, dealer: int, high_bid: int, high_bidder, scores, legal) -> int:
    """The heuristic's bid, from those facts of the mover's InfoState (agents/bidding.py). Like
    ``play_action``, training's heuristic seats and hints call it with the same facts read off the engine."""
    return choose_bid(rules, hand, seat, dealer, high_bid, high_bidder, scores, {bid_value(rules, a): a for a in legal})


def play_action(rules, layout: ActionLayout, seat: int, hand: int, legal, trump: int, trick, seen: int,
                trick_order) -> int:
    """The heuristic's card once trump is known, from those facts of the mover's InfoState (``seen``:
    cards played this hand and its own discards). The hot path of training's heuristic seats and
    hints, which call it with the same facts read off the engine (agents/rollout.py)."""
    if len(legal) == 1:
        return legal[0]
    base = layout.play_base
    return base + choose_card(play_tables(rules, trump), seat, hand, [a - base for a in legal], trick, seen,
                              trick_order[len(trick) + 1:])


class HeuristicAgent(Agent):
    name = "heuristic"

    def act(self, observation, info) -> int:
        return heuristic_action(self.info_state(observation, info), self.layout)
