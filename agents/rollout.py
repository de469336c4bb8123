"""The rollout policy of PIMC and its playout: the heuristic (agents/heuristic.py ``heuristic_action``)
over the InfoState of the seat to move of an engine Game, which reads only that seat's own cards and
public facts. Training uses ``rollout_action`` for its hint and heuristic opponents (train/hint.py).

Card play and bids, most of the calls, skip building the InfoState: they hand the heuristic's card
play and bid (``play_action``, ``bid_action``) the same few facts read off the engine, which costs
half as much per step (tests/test_infostate.py checks both against ``heuristic_action``).
"""

from __future__ import annotations

from pitch_env.cards import mask_of
from pitch_env.engine import BID, PLAY, Game
from pitch_env.loop import play

from .cardplay import choose_card, play_tables
from .heuristic import bid_action, heuristic_action, play_action


def rollout_action(game: Game) -> int:
    """The heuristic's action for the seat to move of ``game`` (what ``heuristic_action`` of its
    InfoState gives; tests/test_infostate.py checks the card-play shortcut against it)."""
    seat, phase = game.current_seat, game.phase
    if phase == PLAY and game.trump is not None:
        discards = game.discards[seat]
        return play_action(game.rules, game.layout, seat, game.hands[seat], game.legal_view(), game.trump,
                           game.trick, game.played | mask_of(discards) if discards else game.played,
                           game.trick_order)
    if phase == BID:
        legal = game.legal_view()
        if len(legal) == 1:
            return legal[0]
        return bid_action(game.rules, seat, game.hands[seat], game.dealer, game.high_bid, game.high_bidder,
                          game.scores, legal)
    return heuristic_action(game.info_state(seat), game.layout)


def playout(game: Game, side: int) -> float:
    """Play ``game`` to the end of its hand with the rollout policy; the outcome for ``side``: its
    score change minus the best other side's, ± two hands' worth of points for a won or lost game."""
    rules = game.rules
    before = list(game.scores)
    base = game.layout.play_base
    tables = {}  # trump -> play tables, looked up once per playout

    # Card play, the bulk of a playout, calls the heuristic's card choice (agents/cardplay.py) on the
    # engine's ints without building an InfoState per card; other phases go through rollout_action.
    # (Unlike rollout_action it does not count the seat's own discards as seen: in a world built at a
    # declare or bid decision of a stock game, PIMC's measured strength is with this playout.)
    def act(game: Game, seat: int) -> int:
        if game.phase != PLAY or game.table is None:
            return rollout_action(game)
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        pt = tables.get(game.trump)
        if pt is None:
            pt = tables[game.trump] = play_tables(rules, game.trump)
        trick = game.trick
        return base + choose_card(pt, seat, game.hands[seat], [a - base for a in legal], trick,
                                  game.played, game.trick_order[len(trick) + 1:])

    play(game, act, one_hand=True, trusted=True)  # the policy only picks from legal_actions()
    return hand_value(game, side, before)


def hand_value(game: Game, side: int, before: list[int]) -> float:
    """What a played-out hand was worth to ``side`` (search's outcome): its score change since
    ``before`` minus the best other side's, ± two hands' worth of points for a won or lost game."""
    return scores_value(game.rules, side, game.scores, before, game.winner)


def scores_value(rules, side: int, scores, before, winner: int | None) -> float:
    """``hand_value`` of a hand that left the sides at ``scores`` from ``before`` and the game to
    ``winner`` (None: not won)."""
    best_other = max(scores[s] - before[s] for s in range(rules.num_sides) if s != side)
    value = scores[side] - before[side] - best_other
    if winner is not None:
        value += (1 if winner == side else -1) * 2 * rules.max_hand_points
    return value
