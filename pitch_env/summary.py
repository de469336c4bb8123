"""What the engine keeps of each hand: the plain facts (cards as ints, bids as the engine's ints).

Search finishes thousands of hands and never reads them, so the engine only gathers references
here; record.py formats a summary as the JSON record of docs/record.md when someone asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from .scoring import HandResult


# Not frozen: a frozen dataclass costs ~7x to build, and the engine builds one per hand. Never change one.
@dataclass(slots=True)
class HandSummary:
    number: int  # 1 for the game's first hand
    dealer: int
    dealt: tuple[tuple[int, ...], ...]  # the cards dealt, by seat
    stock: tuple[int, ...]  # the undealt cards, top first
    bids: list[tuple[int, int]]  # (seat, bid) in auction order; bid 0 is a pass, scoring.SHOOT the shoot
    pitcher: int | None  # None while the auction runs and for a thrown-in hand
    contract: int | None
    trump: int | None  # suit index, None until it is set
    stock_to: int | None  # the seat that took the rest of the stock (rules with a stock)
    draws: list[list[int]]  # by seat: cards taken from the stock, in order
    discards: list[list[int]]  # by seat: cards let go in the exchange, in order
    tricks: list[tuple[int, tuple[tuple[int, int], ...], int]]  # finished tricks: (leader, ((seat, card), ...), winner)
    leader: int | None  # the unfinished trick's leader (None once the hand is over)
    trick: tuple[tuple[int, int], ...]  # the unfinished trick's (seat, card) plays so far
    result: HandResult | None  # None while the hand runs and for a thrown-in hand
    scores: tuple[int, ...]  # by side, after the hand (so far, while it runs)
