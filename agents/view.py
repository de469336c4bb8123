"""One seat's infoset (``info["infoset"]``) read into card ints and bitmasks, for agents that compute.

Everything here comes from the infoset dict, i.e. from what the seat may know; nothing reads
the engine's hidden state.
"""

from __future__ import annotations

from dataclasses import dataclass

from pitch_env.cards import SUITS, mask_of, parse_card, trump_table
from pitch_env.rules import Rules
from pitch_env.scoring import SHOOT


def bid_value(text: str | None) -> int:
    """An infoset bid (``"pass"``, ``"3"``, ``"shoot"``) as the engine's int (pass 0, shoot SHOOT)."""
    if text is None or text == "pass":
        return 0
    return SHOOT if text == "shoot" else int(text)


@dataclass(slots=True)
class View:
    seat: int
    side: int
    phase: str
    hand_number: int
    dealer: int
    hand: int  # own cards, bitmask
    bids: list  # [(seat, bid int)]
    high_bid: int
    high_bidder: int | None
    pitcher: int | None
    contract: int | None
    trump: int | None
    table: object  # TrumpTable once trump is known, else None
    leader: int | None
    trick: list  # [(seat, card)] of the trick in progress
    tricks: list  # [(leader, [(seat, card)], winner)] finished this hand
    played: int  # every card played this hand (finished tricks and the trick in progress)
    played_by: list  # bitmask of the cards each seat has played this hand
    cards_left: list
    scores: list
    points_won: list
    own_out: int  # own cards let go in the exchange (known out of play)
    draw_counts: list | None
    stock_to: int | None
    stock_left: int


def _cards(names) -> list[int]:
    return [parse_card(n) for n in names]


def read(info: dict, rules: Rules) -> View:
    """``info`` is ``env.last()``'s info (or the infoset dict itself)."""
    s = info.get("infoset", info)
    n = rules.num_players
    trick = [(seat, parse_card(c)) for seat, c in s["trick"]]
    tricks = [(t["leader"], [(seat, parse_card(c)) for seat, c in t["plays"]], t["winner"]) for t in s["tricks"]]
    played_by = [0] * n
    for _, plays, _ in tricks:
        for seat, c in plays:
            played_by[seat] |= 1 << c
    for seat, c in trick:
        played_by[seat] |= 1 << c
    played = 0
    for m in played_by:
        played |= m
    trump = None if s["trump"] is None else SUITS.index(s["trump"])
    ex = s.get("exchange")
    return View(
        seat=s["seat"], side=s["side"], phase=s["phase"], hand_number=s["hand_number"], dealer=s["dealer"],
        hand=mask_of(_cards(s["hand"])),
        bids=[(b["seat"], bid_value(b["bid"])) for b in s["bids"]],
        high_bid=bid_value(s["high_bid"]), high_bidder=s["high_bidder"],
        pitcher=s["pitcher"], contract=None if s["contract"] is None else bid_value(s["contract"]),
        trump=trump, table=None if trump is None else trump_table(trump, rules.deck, rules.off_jack),
        leader=s["leader"], trick=trick, tricks=tricks, played=played, played_by=played_by,
        cards_left=list(s["cards_left"]), scores=list(s["scores"]), points_won=list(s["points_won"]),
        own_out=mask_of(_cards(ex["discards"])) if ex else 0,
        draw_counts=list(ex["draw_counts"]) if ex else None,
        stock_to=ex["stock_to"] if ex else None,
        stock_left=ex["stock_left"] if ex else 0,
    )


def seats_after(v: View, rules: Rules) -> tuple[int, ...]:
    """Seats still to play in the current trick after ``v.seat`` (a seat out of cards sits out)."""
    n = rules.num_players
    in_trick = {seat for seat, _ in v.trick}
    out = []
    for i in range(1, n):
        seat = (v.seat + i) % n
        if seat == v.leader:
            break
        if seat not in in_trick and v.cards_left[seat] > 0:
            out.append(seat)
    return tuple(out)
