"""The fast rollout policy of PIMC: the heuristic's rules for every phase, read straight from a
determinised engine Game's ints (only the mover's own hand, own discards and public facts), and
the playout. ``rollout_action`` chooses exactly what ``HeuristicAgent`` would (tests/test_agents.py),
so training also uses it to play the heuristic's seats cheaply (train/opponents.py).
"""

from __future__ import annotations

from functools import lru_cache

from pitch_env.actions import ActionLayout
from pitch_env.cards import mask_of
from pitch_env.engine import BID, DECLARE, DISCARD, OVER, PLAY, STOCK, Game
from pitch_env.scoring import SHOOT

from .bidding import best_suit, choose_bid
from .cardplay import choose_card, discard_choice, pitch_lead, play_tables, stock_choice


@lru_cache(maxsize=None)
def bid_values(layout: ActionLayout) -> dict[int, int]:
    """Action index → bid value (0 pass, SHOOT for the shoot bid)."""
    out = {0: 0}
    for value, action in layout.bid_index.items():
        out[action] = value
    if layout.shoot >= 0:
        out[layout.shoot] = SHOOT
    return out


def rollout_action(game: Game) -> int:
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    seat = game.current_seat
    hand = game.hands[seat]
    layout = game.layout
    phase = game.phase
    rules = game.rules
    if phase == PLAY:
        base = layout.play_base
        if game.table is None:
            return base + pitch_lead(rules, hand, best_suit(rules, hand)[0])
        trick = game.trick
        seen = game.played | mask_of(game.discards[seat])  # the seat's own discards are known out, as in its infoset
        return base + choose_card(play_tables(rules, game.trump), seat, hand, [a - base for a in legal], trick,
                                  seen, game.trick_order[len(trick) + 1:])
    if phase == BID:
        values = bid_values(layout)
        return choose_bid(rules, hand, seat, game.dealer, game.high_bid, game.high_bidder, game.scores,
                          {values[a]: a for a in legal})
    if phase == DECLARE:
        return layout.trump_base + best_suit(rules, hand)[0]
    if phase == STOCK:
        return stock_choice(layout, hand)
    if phase == DISCARD:
        return discard_choice(play_tables(rules, game.trump), layout.discard_base, legal)
    raise ValueError(f"no rollout action in phase {game.phase_name!r}")


def playout(game: Game, side: int) -> float:
    """Play ``game`` to the end of its hand with the rollout policy; the outcome for ``side``: its
    score change minus the best other side's, ± two hands' worth of points for a won or lost game."""
    rules = game.rules
    hand = game.hand_number
    before = list(game.scores)
    base = game.layout.play_base
    trump, pt = None, None
    # Card play, the bulk of a playout, is inlined; other phases go through rollout_action.
    while game.hand_number == hand and game.phase != OVER:
        if game.phase == PLAY and game.table is not None:
            legal = game.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            else:
                if game.trump != trump:
                    trump, pt = game.trump, play_tables(rules, game.trump)
                seat, trick = game.current_seat, game.trick
                action = base + choose_card(pt, seat, game.hands[seat], [a - base for a in legal], trick,
                                            game.played, game.trick_order[len(trick) + 1:])
        else:
            action = rollout_action(game)
        game.apply_legal(action)  # the policy only picks from legal_actions()
    k = rules.num_sides
    best_other = max(game.scores[s] - before[s] for s in range(k) if s != side)
    value = game.scores[side] - before[side] - best_other
    if game.winner is not None:
        value += (1 if game.winner == side else -1) * 2 * rules.max_hand_points
    return value
