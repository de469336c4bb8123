"""What one seat may know, as a readable structured view (the env's ``info["infoset"]``).

Built only from public facts and the seat's own cards, so agents that read it never see
hidden state. Seats here are absolute (0 … n-1); the observation vector uses relative ones.
"""

from __future__ import annotations

from .cards import CARD_NAMES, SUITS, cards_in
from .engine import PHASES, Game, bid_name
from .scoring import game_points, points_captured


def _names(cards) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def infoset(game: Game, seat: int) -> dict:
    r = game.rules
    over = game.is_over
    info = {
        "variant": r.variant,
        "seat": seat,
        "side": r.side_of(seat),
        "num_players": r.num_players,
        "sides": [list(s) for s in r.sides],
        "phase": PHASES[game.phase],
        "hand_number": game.hand_number,
        "dealer": game.dealer,
        "current_seat": game.current_seat,
        "hand": _names(cards_in(game.hands[seat])),
        "bids": [{"seat": s, "bid": bid_name(b)} for s, b in game.bids],
        "high_bid": None if game.high_bidder is None else bid_name(game.high_bid),
        "high_bidder": game.high_bidder,
        "pitcher": game.pitcher,
        "contract": None if game.contract is None else bid_name(game.contract),
        "trump": None if game.trump is None else SUITS[game.trump],
        "leader": game.leader,
        "trick": [[s, CARD_NAMES[c]] for s, c in game.trick],
        "tricks": [{"leader": l, "plays": [[s, CARD_NAMES[c]] for s, c in p], "winner": w}
                   for l, p, w in game.tricks],
        "points_won": points_captured(r, game.table, game.captured),
        "game_points": game_points(r, game.captured),
        "scores": list(game.scores),
        "cards_left": [h.bit_count() for h in game.hands],
        "legal_actions": [] if over else game.legal_action_names(),
    }
    if r.uses_stock:
        info["exchange"] = {
            "discards": _names(game.discards[seat]),
            "draws": _names(game.draws[seat]),
            "stock_to": game.stock_to,
            "draw_counts": [len(d) for d in game.draws],
            "stock_left": len(game.stock) - game.stock_pos,
        }
    return info
