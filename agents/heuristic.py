"""A rule-based Pitch player for every rule set, reading only its infoset and the (public) rules.

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

from .base import Agent, legal_actions
from .bidding import best_suit, choose_bid
from .cardplay import choose_card, discard_choice, pitch_lead, play_tables, stock_choice
from .view import View, bid_value, read, seats_after


class HeuristicAgent(Agent):
    name = "heuristic"

    def act(self, observation, info) -> int:
        legal = legal_actions(observation, info)
        if len(legal) == 1:
            return legal[0]
        v = read(info, self.rules)
        phase = v.phase
        if phase == "bid":
            return self.bid(v, legal)
        if phase == "declare":
            return self.declare(v)
        if phase == "stock":
            return stock_choice(self.layout, v.hand)
        if phase == "discard":
            return discard_choice(play_tables(self.rules, v.trump), self.layout.discard_base, legal)
        return self.play(v, legal)

    def bid(self, v: View, legal: list[int]) -> int:
        bids = {bid_value(self.layout.names[a].removeprefix("bid ")): a for a in legal}
        return choose_bid(self.rules, v.hand, v.seat, v.dealer, v.high_bid, v.high_bidder, v.scores, bids)

    def declare(self, v: View) -> int:
        return self.layout.trump_base + best_suit(self.rules, v.hand)[0]

    def play(self, v: View, legal: list[int]) -> int:
        base = self.layout.play_base
        playable = [a - base for a in legal]
        if v.trump is None:  # the pitch sets trump
            suit, _ = best_suit(self.rules, v.hand)
            return base + pitch_lead(self.rules, v.hand, suit)
        card = choose_card(play_tables(self.rules, v.trump), v.seat, v.hand, playable, v.trick, v.played | v.own_out,
                           seats_after(v, self.rules))
        return base + card

