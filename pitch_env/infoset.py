"""What one seat may know, as a readable structured view (the env's ``info["infoset"]``).

A formatting of ``Game.info_state(seat)`` (pitch_env/infostate.py): public facts and the seat's own
cards only, in card and action names. Seats are absolute (0 … n-1); the observation uses relative ones.
"""

from __future__ import annotations

from .cards import CARD_NAMES, SUITS, cards_in, trump_table
from .engine import OVER, PHASES, Game, bid_name
from .infostate import InfoState
from .scoring import game_points, points_captured


def _names(cards) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def infoset(game: Game, seat: int) -> dict:
    return readable(game.info_state(seat), game.layout.names)


def readable(s: InfoState, action_names) -> dict:
    """``s`` in names; ``action_names`` are the layout's (``ActionLayout.names``)."""
    r = s.rules
    table = None if s.trump is None else trump_table(s.trump, r.deck, r.off_jack)
    info = {
        "variant": r.variant,
        "seat": s.seat,
        "side": r.side_of(s.seat),
        "num_players": r.num_players,
        "sides": [list(side) for side in r.sides],
        "phase": PHASES[s.phase],
        "hand_number": s.hand_number,
        "dealer": s.dealer,
        "current_seat": s.current_seat,
        "hand": _names(cards_in(s.hand)),
        "bids": [{"seat": seat, "bid": bid_name(b)} for seat, b in s.bids],
        "high_bid": None if s.high_bidder is None else bid_name(s.high_bid),
        "high_bidder": s.high_bidder,
        "pitcher": s.pitcher,
        "contract": None if s.contract is None else bid_name(s.contract),
        "trump": None if s.trump is None else SUITS[s.trump],
        "leader": s.leader,
        "trick": [[seat, CARD_NAMES[c]] for seat, c in s.trick],
        "tricks": [{"leader": l, "plays": [[seat, CARD_NAMES[c]] for seat, c in p], "winner": w}
                   for l, p, w in s.tricks],
        "points_won": points_captured(r, table, s.captured),
        "game_points": game_points(r, s.captured),
        "scores": list(s.scores),
        "cards_left": list(s.cards_left),
        "legal_actions": [] if s.phase == OVER else [action_names[a] for a in s.legal],
    }
    if r.uses_stock:
        info["exchange"] = {
            "discards": _names(s.discards),
            "draws": _names(s.draws),
            "stock_to": s.stock_to,
            "draw_counts": list(s.draw_counts),
            "stock_left": s.stock_left,
        }
    return info
