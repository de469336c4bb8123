"""The Pitch game state machine: deal, bid, declare, exchange, play, score, next hand.

``Game`` is plain data. ``legal_actions()`` and ``apply(action)`` are the only way it changes,
``clone()`` copies it cheaply for search. ``info_state(seat)`` is what one seat may know, and
``Game.from_info_state`` builds a world consistent with it for search. Actions are indices of the
rules' ActionLayout (names in docs/record.md). The engine imports nothing from the environment,
agents or training.
"""

from __future__ import annotations

import dataclasses
import operator
import random
from functools import lru_cache

from .actions import ActionLayout
from .cards import CARD_NAMES, cards_in, mask_of, parse_cards, trump_table
from .infostate import InfoState
from .rules import EXCHANGE_HAND_SIZE, Rules, rules as make_rules, validate
from .scoring import SHOOT, game_winner, score_hand
from .summary import HandSummary

PASS = 0
BID, DECLARE, STOCK, DISCARD, PLAY, OVER = range(6)
PHASES = ("bid", "declare", "stock", "discard", "play", "over")
# For why_illegal: the action word each phase takes, what a person is asked to do, suit names.
_PHASE_KIND = ("bid", "trump", "stock", "discard", "play")
_PHASE_VERB = ("bid or pass", "name trump", "keep or give the stock", "discard", "play a card")
_SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the game state is left unchanged."""


def bid_name(bid: int) -> str:
    return "pass" if bid == PASS else ("shoot" if bid == SHOOT else str(bid))


def bid_value(rules: Rules, action: int) -> int:
    """The bid a bid action stands for: PASS (0) for ``pass``, N for ``bid N``, SHOOT for ``bid shoot``
    (the layout's bid actions: pass, then each numeric bid from ``min_bid`` up, then shoot)."""
    if action == 0:
        return PASS
    bid = rules.min_bid + action - 1
    return bid if bid <= rules.max_bid else SHOOT


@lru_cache(maxsize=None)
def trick_keys(table) -> tuple[tuple[int, ...], ...]:
    """``trick_keys(table)[led suit][card]``: the bigger key wins the trick. Any trump beats every
    non-trump; among non-trumps only the suit led can win (-1: cannot)."""
    strength, suit = table.strength, table.suit
    return tuple(
        tuple(100 + strength[c] if strength[c] else (c % 13 if suit[c] == led else -1) for c in range(54))
        for led in range(4)
    )


def shows_void(table, led: int, card: int) -> bool:
    """Whether playing ``card`` to a trick whose led suit is ``led`` shows, under
    ``follow="follow_or_trump"``, that the player holds none of that suit: it neither followed nor trumped."""
    return table.suit[card] != led and not table.strength[card]


def shown_voids(v: InfoState) -> list[int]:
    """Per seat, the suits it has shown it holds none of this hand, as any seat's InfoState ``v`` knows them
    (bit ``s`` = suit ``s``, C D H S; the trump suit's bit stands for every trump, off-jack and jokers
    included). Only the follow-suit rule (``follow="follow_or_trump"``) makes play show anything."""
    rules = v.rules
    out = [0] * rules.num_players
    if v.trump is None or rules.follow != "follow_or_trump":
        return out
    table = trump_table(v.trump, rules.deck, rules.off_jack)
    for plays in [plays for _, plays, _ in v.tricks] + ([v.trick] if v.trick else []):
        led = table.suit[plays[0][1]]
        for seat, card in plays[1:]:
            if shows_void(table, led, card):
                out[seat] |= 1 << led
    return out


def first_dealer(rules: Rules, seed: int) -> int:
    """The seat that deals the first hand of the game with this seed (``first_dealer="random"`` draws it)."""
    fd = rules.first_dealer
    return random.Random(f"pitch:{seed}:dealer").randrange(rules.num_players) if fd == "random" else fd


def world_rules(rules: Rules, hand_number: int) -> Rules:
    """The rules of a sampled world: the same, except that the game stops after ``hand_number``, so
    a playout never deals (and shuffles) a next hand it will not look at."""
    key = (rules, hand_number)
    r = _world_rules.get(key)
    if r is None:
        r = _world_rules[key] = dataclasses.replace(rules, max_hands=hand_number)
    return r


_world_rules: dict = {}
_layouts: dict = {}
_new_info_state = tuple.__new__
_count = int.bit_count


def _popcount(m: int) -> int:
    return m.bit_count()


class Game:
    """One game of Pitch, hand after hand, until a side wins or ``max_hands`` is reached.

    ``deals`` (optional) fixes the cards of the first hands instead of the seeded shuffle:
    a list of ``{"deal": [cards per seat], "stock": [cards, top first]}`` or plain lists of
    hands, cards as notation strings or ints. This is how tests write hands out and how
    records are replayed.
    """

    __slots__ = (
        "rules", "layout", "seed", "deals", "scores", "hand_number", "dealer", "phase",
        "current_seat", "hands", "winner", "truncated", "finished",
        # the hand in progress
        "dealt", "stock", "stock_pos", "bids", "high_bid", "high_bidder", "pitcher", "contract",
        "trump", "table", "draws", "discards", "stock_to", "discard_queue", "in_play",
        "captured", "trick", "trick_order", "leader", "tricks", "played", "played_by", "_legal",
        "last_result",
    )

    def __init__(self, rules: Rules | str = "setback", seed: int | None = None, deals=None, **options):
        if isinstance(rules, str) or options:
            rules = make_rules(rules, **options)
        else:  # a Rules built by hand has not been checked yet
            validate(rules)
        self._setup(rules, ActionLayout(rules), random.SystemRandom().randrange(2**63) if seed is None else int(seed),
                    [_normalise_deal(d, rules) for d in deals] if deals else [])
        self.dealer = (first_dealer(rules, self.seed) - 1) % rules.num_players  # _start_hand passes the deal left
        self._start_hand()

    def _setup(self, rules: Rules, layout: ActionLayout, seed: int, deals: list) -> None:
        """The game-long fields, before the first hand is dealt."""
        self.rules = rules
        self.layout = layout
        self.seed = seed
        self.deals = deals
        self.scores = [0] * rules.num_sides
        self.winner = None
        self.truncated = False
        self.finished = []  # a HandSummary per finished hand (never changed; record.py formats them)
        self.last_result = None
        self.hand_number = 0

    @classmethod
    def from_info_state(cls, info: InfoState, hidden_hands, stock=()) -> "Game":
        """A world for search: the game at ``info``'s decision point (a bid, declare or play decision of
        ``info.seat``) in which each seat holds ``hidden_hands[seat]`` (card masks; the seat's own must
        be ``info.hand``, the others' sizes ``info.cards_left``) and, before a stock exchange, the stock
        is ``stock`` (top first). Everything else comes from ``info``'s public facts, set up as a
        dealt hand is; the world ends after this hand (``world_rules``)."""
        phase, rules, seat = info.phase, info.rules, info.seat
        if phase not in (BID, DECLARE, PLAY) or seat != info.current_seat:
            raise ValueError(f"worlds are built at a bid, declare or play decision of the seat to move, not in "
                             f"the {PHASES[phase]} phase for seat {seat} (seat {info.current_seat} moves)")
        hands = list(hidden_hands)
        if (len(hands) != rules.num_players or hands[seat] != info.hand
                or list(map(int.bit_count, hands)) != list(info.cards_left)):
            raise ValueError(f"hidden_hands must give each of the {rules.num_players} seats as many cards as "
                             f"info.cards_left says ({list(info.cards_left)}), seat {seat} its own hand")
        layout = _layouts.get(rules)
        if layout is None:
            layout = _layouts[rules] = ActionLayout(rules)
        g = cls.__new__(cls)
        g._setup(world_rules(rules, info.hand_number), layout, 0, [])
        g.scores = list(info.scores)
        g.hand_number, g.dealer = info.hand_number, info.dealer
        playing = phase == PLAY
        # Once play has begun, what each seat held when it began stands in for its deal.
        dealt = [h | p for h, p in zip(hands, info.played_by)] if playing else hands
        g._set_hand(tuple(tuple(cards_in(m)) for m in dealt), tuple(stock))
        g.hands = hands
        g.bids = list(info.bids)
        g.high_bid, g.high_bidder, g.pitcher, g.contract = info.high_bid, info.high_bidder, info.pitcher, info.contract
        if info.trump is not None:
            g._set_trump(info.trump)
        g.stock_to = info.stock_to
        g.phase, g.current_seat = phase, seat
        if playing:
            g.in_play = tuple(dealt)
            g.played, g.captured, g.tricks = info.played, list(info.captured), list(info.tricks)
            g.played_by = list(info.played_by)
            g.trick, g.trick_order, g.leader = list(info.trick), list(info.trick_order), info.leader
        return g

    # ------------------------------------------------------------------ public API
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def phase_name(self) -> str:
        return PHASES[self.phase]

    def legal_actions(self) -> list[int]:
        """Indices of the actions the seat to move may take (empty once the game is over); a new
        list each call, so a caller may change it without touching the game."""
        return list(self.legal_view())

    def legal_view(self) -> list[int]:
        """The engine's own list of the legal actions, for callers on a hot path (the env's mask, search
        playouts) that only read it: never change it (``legal_actions`` gives a copy)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal


    def apply(self, action: int) -> None:
        """Take ``action`` for ``current_seat``. An illegal action raises IllegalActionError
        and changes nothing."""
        legal = self.legal_view()
        try:  # ints and numpy integers; a float, a bool or a name is never an action index
            index = -1 if isinstance(action, bool) else operator.index(action)
        except TypeError:
            index = -1
        if index not in legal:
            raise IllegalActionError(self.illegal_message(action))
        self.apply_legal(index)

    def apply_legal(self, action: int) -> None:
        """``apply`` for a caller that has just checked ``action in legal_actions()`` (the env)."""
        self._legal = None
        phase = self.phase
        if phase == PLAY:
            self._play(action - self.layout.play_base)
        elif phase == BID:
            self._bid(action)
        elif phase == DECLARE:
            self._declare(action - self.layout.trump_base)
        elif phase == STOCK:
            self._give_stock(action == self.layout.stock_give)
        else:
            self._discard(action - self.layout.discard_base)

    def apply_name(self, name: str) -> None:
        self.apply(self.layout.action(name))

    def action_name(self, action: int) -> str:
        return self.layout.name(action)

    def action_index(self, name: str) -> int:
        return self.layout.action(name)

    def legal_action_names(self) -> list[str]:
        return [self.layout.names[a] for a in self.legal_actions()]

    def redealt(self, hands, stock) -> "Game":
        """A copy of this game, taken as its hand was dealt, with that hand dealt ``hands`` (card ints per
        seat, in dealing order) and ``stock`` (top first) instead: the same seats, scores and dealer."""
        g = self.clone()
        g._set_hand(tuple(tuple(h) for h in hands), tuple(stock))
        return g

    def clone(self) -> "Game":
        g = object.__new__(Game)
        for name in _SHARED:
            setattr(g, name, getattr(self, name))
        g.scores = list(self.scores)
        g.hands = list(self.hands)
        g.bids = list(self.bids)
        g.draws = [list(d) for d in self.draws]
        g.discards = [list(d) for d in self.discards]
        g.discard_queue = list(self.discard_queue)
        g.captured = list(self.captured)
        g.trick = list(self.trick)
        g.trick_order = list(self.trick_order)
        g.tricks = list(self.tricks)
        g.played_by = list(self.played_by)
        return g

    def side_of(self, seat: int) -> int:
        return self.rules.side_of(seat)

    def hand_cards(self, seat: int) -> list[int]:
        return cards_in(self.hands[seat])

    def info_state(self, seat: int) -> InfoState:
        """What ``seat`` may know now (pitch_env/infostate.py): public facts and its own cards only."""
        hands = self.hands
        draws = self.draws
        # tuple.__new__ skips NamedTuple's Python-level __new__: this runs at every step of training
        return _new_info_state(InfoState, (
            self.rules, seat, self.phase, self.hand_number, self.dealer, self.current_seat, hands[seat],
            tuple(self.bids), self.high_bid, self.high_bidder, self.pitcher, self.contract, self.trump,
            self.leader, tuple(self.trick), tuple(self.trick_order), tuple(self.tricks), self.played,
            tuple(self.played_by),
            tuple(self.captured), tuple(self.scores), tuple(map(_count, hands)),
            tuple(self.discards[seat]), tuple(draws[seat]), self.stock_to, tuple(map(len, draws)),
            len(self.stock) - self.stock_pos,
            tuple(self.legal_view()) if seat == self.current_seat else (),
        ))

    # ------------------------------------------------------------------ dealing
    def _start_hand(self) -> None:
        r = self.rules
        n = r.num_players
        self.hand_number += 1
        self.dealer = (self.dealer + 1) % n
        if self.hand_number <= len(self.deals):
            dealt, stock = self.deals[self.hand_number - 1]
        else:
            dealt, stock = _shuffle_and_deal(r, self.dealer, random.Random(f"pitch:{self.seed}:{self.hand_number}"))
        self._set_hand(dealt, stock)

    def _set_hand(self, dealt, stock) -> None:
        """A new hand with these cards (tuples of card ints per seat; the stock, top first): the
        auction opens left of the dealer."""
        n = self.rules.num_players
        self.dealt = dealt
        self.stock = stock
        self.stock_pos = 0
        self.hands = [mask_of(h) for h in dealt]
        self.bids = []
        self.high_bid = PASS
        self.high_bidder = None
        self.pitcher = None
        self.contract = None
        self.trump = None
        self.table = None
        self.draws = [[] for _ in range(n)]
        self.discards = [[] for _ in range(n)]
        self.stock_to = None
        self.discard_queue = []
        self.in_play = None
        self.captured = [0] * n
        self.trick = []
        self.trick_order = []
        self.leader = None
        self.tricks = []
        self.played = 0
        self.played_by = [0] * n  # the cards each seat has played this hand (public)
        self.phase = BID
        self.current_seat = (self.dealer + 1) % n
        self._legal = None

    # ------------------------------------------------------------------ bidding
    def _compute_legal(self) -> list[int]:
        phase = self.phase
        lay = self.layout
        if phase == PLAY:  # the hot path: bits of the playable cards → play actions, inline
            base, m, out = lay.play_base, self._playable(self.current_seat), []
            while m:
                low = m & -m
                out.append(base + low.bit_length() - 1)
                m ^= low
            return out
        if phase == BID:
            return self._legal_bids()
        if phase == DECLARE:
            return [lay.trump_base + s for s in range(4)]
        if phase == STOCK:
            return [lay.stock_keep, lay.stock_give]
        if phase == DISCARD:
            base = lay.discard_base
            return [base + c for c in cards_in(self.hands[self.current_seat])]
        return []

    def _dealer_stuck(self) -> bool:
        """Everybody passed to a dealer who, under ``all_pass="stick_dealer"``, must now bid."""
        return self.current_seat == self.dealer and self.rules.all_pass == "stick_dealer" and self.high_bid == PASS

    def _legal_bids(self) -> list[int]:
        r, lay = self.rules, self.layout
        is_dealer = self.current_seat == self.dealer
        high = self.high_bid
        stuck = self._dealer_stuck()
        out = [] if stuck else [0]
        if high != SHOOT:
            lowest = high + 1
            if is_dealer and r.dealer_may_steal and high != PASS:
                lowest = high
            if stuck:
                lowest = max(lowest, r.stick_min)
            out += [lay.bid_index[b] for b in range(max(lowest, r.min_bid), r.max_bid + 1)]
            if r.shoot == "moon" or (r.shoot == "dealer_double" and is_dealer):
                out.append(lay.shoot)
        return out

    def _bid(self, action: int) -> None:
        r = self.rules
        seat = self.current_seat
        bid = bid_value(r, action)
        self.bids.append((seat, bid))
        if bid != PASS:  # legal bids always top the high bid, or steal it as the dealer
            self.high_bid, self.high_bidder = bid, seat
        end = r.bid_ends_auction
        # "shoot" is above every numeric bid, so it also reaches a numeric closing bid.
        closes = bid != PASS and end is not None and (
            bid == SHOOT or (end != "shoot" and bid >= end)
        )
        if not closes and seat != self.dealer:
            self.current_seat = (seat + 1) % r.num_players
            return
        if self.high_bidder is None:  # everybody passed and all_pass=redeal: throw the hand in
            self._finish_hand(None)
            return
        self.pitcher, self.contract = self.high_bidder, self.high_bid
        self.current_seat = self.pitcher
        if r.trump_by == "declare":
            self.phase = DECLARE
        else:
            self._start_play()

    # ------------------------------------------------------------------ trump and exchange
    def _declare(self, suit: int) -> None:
        self._set_trump(suit)
        if self.rules.uses_stock:
            self._exchange()
        else:
            self._start_play()

    def _set_trump(self, suit: int) -> None:
        self.trump = suit
        self.table = trump_table(suit, self.rules.deck, self.rules.off_jack)

    def _exchange(self) -> None:
        """docs/rules.md §5.6: discard non-trumps, refill to 6 from the stock from the dealer's left."""
        n = self.rules.num_players
        trumps = self.table.trump_mask
        for seat in range(n):
            self.discards[seat] += [c for c in self.dealt[seat] if not trumps >> c & 1]
            self.hands[seat] &= trumps
        for i in range(1, n + 1):
            seat = (self.dealer + i) % n
            need = EXCHANGE_HAND_SIZE - _popcount(self.hands[seat])
            if need > 0:
                self._draw(seat, need)
        if self.stock_pos < len(self.stock) and self.rules.partnerships:
            self.phase, self.current_seat = STOCK, self.pitcher
        else:
            if self.stock_pos < len(self.stock):  # solo: the pitcher has nobody to give it to
                self._give_stock(False)
            else:
                self._start_discards()

    def _draw(self, seat: int, count: int) -> None:
        drawn = self.stock[self.stock_pos:self.stock_pos + count]
        self.stock_pos += len(drawn)
        self.draws[seat] += drawn
        trumps = self.table.trump_mask
        for c in drawn:
            if trumps >> c & 1:
                self.hands[seat] |= 1 << c
            else:  # a drawn non-trump could never be played
                self.discards[seat].append(c)

    def _give_stock(self, give: bool) -> None:
        k = self.rules.num_sides
        self.stock_to = (self.pitcher + k) % self.rules.num_players if give else self.pitcher
        self._draw(self.stock_to, len(self.stock) - self.stock_pos)
        self._start_discards()

    def _start_discards(self) -> None:
        n = self.rules.num_players
        self.discard_queue = [
            (self.dealer + i) % n for i in range(1, n + 1)
            if _popcount(self.hands[(self.dealer + i) % n]) > EXCHANGE_HAND_SIZE
        ]
        self._next_discarder()

    def _next_discarder(self) -> None:
        if self.discard_queue:
            self.phase, self.current_seat = DISCARD, self.discard_queue[0]
        else:
            self._start_play()

    def _discard(self, card: int) -> None:
        seat = self.current_seat
        self.hands[seat] &= ~(1 << card)
        self.discards[seat].append(card)
        if _popcount(self.hands[seat]) <= EXCHANGE_HAND_SIZE:
            self.discard_queue.pop(0)
            self._next_discarder()

    # ------------------------------------------------------------------ trick play
    def _start_play(self) -> None:
        self.phase = PLAY
        self.in_play = tuple(self.hands)
        self._start_trick(self.pitcher)

    def _start_trick(self, leader: int) -> None:
        """The leader, or if it holds no card the next seat to its left that does, leads."""
        n = self.rules.num_players
        order = [(leader + i) % n for i in range(n) if self.hands[(leader + i) % n]]
        if not order:  # nobody holds a card: the hand is over
            self._finish_hand(self.pitcher)
            return
        self.trick_order = order
        self.trick = []
        self.leader = self.current_seat = order[0]

    def _playable(self, seat: int) -> int:
        r = self.rules
        hand = self.hands[seat]
        table = self.table
        if r.follow == "trumps_only":
            return hand & table.trump_mask
        if not self.trick or r.follow == "any":
            return hand
        led = table.suit[self.trick[0][1]]
        following = hand & table.suit_masks[led]
        return following | (hand & table.trump_mask) if following else hand

    def _play(self, card: int) -> None:
        seat = self.current_seat
        self.hands[seat] &= ~(1 << card)
        self.played |= 1 << card
        self.played_by[seat] |= 1 << card
        if self.table is None:  # trump_by=first_lead: the pitch sets trump
            self._set_trump(card // 13)
        self.trick.append((seat, card))
        if len(self.trick) < len(self.trick_order):
            self.current_seat = self.trick_order[len(self.trick)]
            return
        winner = self._trick_winner()
        for _, c in self.trick:
            self.captured[winner] |= 1 << c
        self.tricks.append((self.leader, tuple(self.trick), winner))
        self.trick = []
        self._start_trick(winner)

    def _trick_winner(self) -> int:
        table = self.table
        keys = trick_keys(table)[table.suit[self.trick[0][1]]]
        best_seat, best_key = None, -1
        for seat, card in self.trick:
            key = keys[card]
            if key > best_key:
                best_seat, best_key = seat, key
        return best_seat

    # ------------------------------------------------------------------ end of hand
    def hand_summary(self) -> HandSummary:
        """The hand in progress as it stands (``finished`` holds the finished hands); copied, as the
        game goes on changing its own lists."""
        return HandSummary(
            self.hand_number, self.dealer, self.dealt, self.stock, list(self.bids), self.pitcher,
            self.contract, self.trump, self.stock_to, [list(d) for d in self.draws],
            [list(d) for d in self.discards], list(self.tricks), self.leader, tuple(self.trick), None,
            tuple(self.scores))

    def _finish_hand(self, pitcher: int | None) -> None:
        r = self.rules
        result = None
        winner = None
        if pitcher is not None:
            result = score_hand(r, self.table, self.in_play, self.captured, pitcher, self.contract, self.scores)
            for side, change in enumerate(result.score_change):
                self.scores[side] += change
            winner = game_winner(r, self.scores, pitcher, result.moon)
        self.last_result = result
        # No copies: the next deal starts fresh lists and a finished hand's are never changed again.
        summary = HandSummary(
            self.hand_number, self.dealer, self.dealt, self.stock, self.bids, self.pitcher, self.contract,
            self.trump, self.stock_to, self.draws, self.discards, self.tricks, None, (), result,
            tuple(self.scores))
        self.finished = self.finished + [summary]
        if winner is not None:
            self.winner = winner
        elif self.hand_number >= r.max_hands:
            self.truncated = True
        if winner is not None or self.truncated:
            self.phase, self.current_seat, self._legal = OVER, None, []
            return
        self._start_hand()

    def why_illegal(self, action) -> str:
        """Why ``action`` is not allowed now, in the rules' words ("" when it is legal): a short
        reason for a person at the table ("you must follow clubs or play a trump")."""
        if self.phase == OVER:
            return "the game is over"
        try:
            name = self.layout.name(action)
        except ValueError as e:
            return str(e)
        index = self.layout.index[name]
        if index in self.legal_view():
            return ""
        phase, kind = self.phase, name.split()[0]
        if kind != _PHASE_KIND[phase] and not (phase == BID and kind == "pass"):
            return f"now is the time to {_PHASE_VERB[phase]}, not to {kind}"
        if phase == BID:
            return self._why_bid_illegal(index)
        if phase in (PLAY, DISCARD):
            card = index - (self.layout.play_base if phase == PLAY else self.layout.discard_base)
            if not self.hands[self.current_seat] >> card & 1:
                return f"you do not hold {CARD_NAMES[card]}"
            if phase == PLAY and self.rules.follow == "trumps_only":
                return "only trumps may be played"
            if phase == PLAY and self.trick:
                led = _SUIT_WORDS[self.table.suit[self.trick[0][1]]]
                if self.table.suit[self.trick[0][1]] == self.table.trump:
                    return f"you must follow the trump led ({led})"
                return f"you must follow {led} or play a trump"
        return f"{name!r} is not allowed now"

    def _why_bid_illegal(self, index: int) -> str:
        r, seat = self.rules, self.current_seat
        high = self.high_bid
        stuck = self._dealer_stuck()
        if index == 0:
            return f"everybody passed, so the dealer is stuck and must bid at least {max(r.stick_min, r.min_bid)}" if stuck else \
                "you may not pass now"
        if high == SHOOT:
            return "a shoot has been bid and nothing tops it: pass"
        if index == self.layout.shoot:
            return "only the dealer may shoot the moon" if r.shoot == "dealer_double" else "you may not shoot now"
        bid = bid_value(r, index)
        if stuck:
            return f"the dealer is stuck and must bid at least {max(r.stick_min, r.min_bid)}"
        if seat == self.dealer and r.dealer_may_steal:
            return f"bid at least {bid_name(high)} (the dealer may take the bid at {bid_name(high)})"
        return f"bid higher than {bid_name(high)}" if bid <= high else f"bid {bid} is not allowed now"

    def illegal_message(self, action) -> str:
        """The one-line error for taking ``action`` now: what it is, why not, and what is legal."""
        legal = ", ".join(self.legal_action_names())
        if self.phase == OVER:
            how = (f"truncated after max_hands={self.rules.max_hands} hands" if self.truncated
                   else f"won by side {self.winner}")
            return f"the game is over ({how}); no action can be taken. Start a new Game."
        try:
            name = self.layout.name(action)
        except ValueError as e:
            hint = " (for an action name use apply_name)" if isinstance(action, str) else ""
            return f"{e}{hint}. Legal now for seat {self.current_seat}: {legal}"
        return (f"illegal action {name!r} ({action}) for seat {self.current_seat} in the "
                f"{PHASES[self.phase]} phase; legal now: {legal}")


# Fields a clone may share: immutable values, or lists replaced (never mutated) by the engine.
_SHARED = tuple(
    n for n in Game.__slots__
    if n not in ("scores", "hands", "bids", "draws", "discards", "discard_queue", "captured",
                 "trick", "trick_order", "tricks", "played_by")
)


def _shuffle_and_deal(r: Rules, dealer: int, rng: random.Random):
    """Shuffle, then deal in packets of three from the dealer's left; the rest is the stock."""
    deck = list(range(r.deck))
    rng.shuffle(deck)
    n = r.num_players
    hands = [[] for _ in range(n)]
    pos = 0
    while pos < n * r.hand_size:
        for i in range(1, n + 1):
            seat = (dealer + i) % n
            take = min(3, r.hand_size - len(hands[seat]))
            hands[seat] += deck[pos:pos + take]
            pos += take
    return tuple(tuple(h) for h in hands), tuple(deck[pos:])


def _cards_of(cards, what: str) -> list[int]:
    """Notation (``"AS KH"``, ``["AS", "KH"]``) or card ints → card ints."""
    if isinstance(cards, str):
        return parse_cards(cards)
    out = []
    for c in cards:
        if isinstance(c, str):
            out += parse_cards(c)
        elif isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 54:
            out.append(int(c))
        else:
            raise ValueError(f"{what} holds {c!r}: write cards as notation ('AS', 'TD', 'BJ') or ints 0-53")
    return out


def _normalise_deal(d, r: Rules):
    """A user-written deal → (hands, stock) of card ints, checked card by card.

    The stock, top first, must be exactly the cards not dealt; left out, it is those cards
    in card order, so every card of the deck is always in exactly one place."""
    if isinstance(d, dict):
        hands, stock = d["deal"], d.get("stock") or []
    else:
        hands, stock = d, []
    hands = [_cards_of(h, f"seat {seat}'s hand") for seat, h in enumerate(hands)]
    stock = _cards_of(stock, "the stock")
    if len(hands) != r.num_players:
        raise ValueError(f"a deal needs {r.num_players} hands (one per seat), got {len(hands)}")
    for seat, h in enumerate(hands):
        if len(h) != r.hand_size:
            raise ValueError(f"seat {seat} was dealt {len(h)} cards; these rules deal {r.hand_size}")
    cards = [c for h in hands for c in h] + stock
    twice = sorted({c for c in cards if cards.count(c) > 1})
    if twice:
        raise ValueError(f"a deal holds {' '.join(CARD_NAMES[c] for c in twice)} twice; every card is dealt once")
    if any(c >= r.deck for c in cards):
        raise ValueError(f"a deal holds a joker, but these rules use the {r.deck}-card deck (deck=54 adds BJ and LJ)")
    undealt = sorted(set(range(r.deck)) - set(cards))
    if not stock:
        stock = undealt
    elif undealt:
        raise ValueError(f"the stock must hold every card not dealt; it lacks {' '.join(CARD_NAMES[c] for c in undealt)}")
    return tuple(tuple(h) for h in hands), tuple(stock)
