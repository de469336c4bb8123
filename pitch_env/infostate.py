"""What one seat may know at one moment, as plain ints: ``Game.info_state(seat)`` builds it.

The one model of a seat's knowledge: the readable infoset (pitch_env/infoset.py) formats it, the
heuristic reads it, search samples hidden worlds from it (``Game.from_info_state``). Immutable,
picklable and cheap to build (a tuple); it holds no card another seat holds unseen.
"""

from __future__ import annotations

from typing import NamedTuple

from .rules import Rules


class InfoState(NamedTuple):
    """One seat's knowledge. Cards are ints 0-53 (pitch_env/cards.py), card sets bitmasks, seats
    absolute (0 … n-1), bids ints (0 pass, ``scoring.SHOOT`` shoot), phases the engine's ints."""

    rules: Rules  # public: every seat knows the rules
    seat: int  # whose knowledge this is
    phase: int  # engine.BID … engine.OVER
    hand_number: int  # 1 for the first hand
    dealer: int
    current_seat: int | None  # the seat to move (None once the game is over)
    hand: int  # the seat's own cards, bitmask
    bids: tuple  # ((seat, bid), …) in the order made this hand
    high_bid: int  # 0 (pass) until somebody bids
    high_bidder: int | None
    pitcher: int | None  # the seat that won the auction, once it is over
    contract: int | None  # the pitcher's bid
    trump: int | None  # suit 0-3 once declared or pitched
    leader: int | None  # who led the trick in progress
    trick: tuple  # ((seat, card), …) of the trick in progress
    trick_order: tuple  # the seats that play this trick, leader first (seats without cards sit out)
    tricks: tuple  # ((leader, ((seat, card), …), winner), …) finished this hand
    played: int  # every card played this hand (finished tricks and the trick in progress)
    played_by: tuple  # per seat, the cards it has played this hand
    captured: tuple  # per seat, the cards it has won in tricks this hand
    scores: tuple  # per side
    cards_left: tuple  # per seat, how many cards it holds
    discards: tuple  # own cards let go in the exchange, in order (stock games)
    draws: tuple  # own cards drawn from the stock, in order (stock games)
    stock_to: int | None  # who took the rest of the stock (stock games)
    draw_counts: tuple  # per seat, how many cards it drew (stock games; public)
    stock_left: int  # cards still in the stock
    legal: tuple  # legal action indices if this seat is to move, else ()
