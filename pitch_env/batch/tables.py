"""The compiled form of one rule set: numbers and arrays the batched kernels read, every one derived
from the reference's own tables (rules.py, cards.py, scoring.py, actions.py, observer.py) when built.

Nothing here is written out by hand: trump rankings come from ``cards.trump_table``, trick keys from
``engine.trick_keys``, point values by probing ``scoring``, the action and observation layouts from
``ActionLayout`` and ``Observer``. A string option becomes 0/1 flags, one per value the kernels branch on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pitch_env.actions import ActionLayout
from pitch_env.cards import GAME_POINTS, JACK, trump_table
from pitch_env.engine import BID, DECLARE, DISCARD, OVER, PASS, PLAY, STOCK, bid_value, trick_keys
from pitch_env.observer import TOTAL_GAME_POINTS, Observer
from pitch_env.rules import EXCHANGE_HAND_SIZE, Rules
from pitch_env.scoring import DEALER_DOUBLE_VALUE, SCHEMES, SHOOT, points_captured
from .kernels import MAX_CARDS, MAX_TRUMPS, NO_END, PARAMS, frozen_constants

# The values of each string option the kernels know; a value added to rules.py must be taught to them.
KNOWN_CHOICES = {
    "shoot": ("none", "dealer_double", "moon"), "all_pass": ("redeal", "stick_dealer"),
    "trump_by": ("first_lead", "declare"), "follow": ("any", "follow_or_trump", "trumps_only"),
    "scoring": ("four_point", "ten_point"), "low_to": ("holder", "capturer"),
    "made_scores": ("points_won", "bid"), "win_rule": ("first_to_target", "pitcher_only"), "deck": (52, 54),
}



@dataclass(frozen=True)
class Compiled:
    """The compiled rules: ``T`` and ``U`` are what the kernels read; the named arrays are views into them."""

    rules: Rules
    layout: ActionLayout
    observer: Observer
    T: np.ndarray  # int64: the params (kernels.PARAMS), then each table below, flattened
    U: np.ndarray  # uint64: trump masks by trump suit, then suit masks [trump][suit]
    params: np.ndarray  # int64[len(kernels.PARAMS)]
    side_of: np.ndarray  # [n]
    strength: np.ndarray  # [4, 54]: 0 non-trump, 1… trumps (low to high), by trump suit
    suit: np.ndarray  # [4, 54]: the card's suit for following, by trump suit
    order: np.ndarray  # [4, 16]: trumps lowest first
    keys: np.ndarray  # [4, 4, 54]: trick keys [trump][suit led][card]
    card_points: np.ndarray  # [4, 54]: a point-card scheme's value of each card to its capturer
    captured_points: np.ndarray  # [4, 54]: points a captured card secures (the observation's points_won)
    game_points: np.ndarray  # [54]
    bid_of_action: np.ndarray  # [actions]: the bid a bid action stands for (-1 for other actions)
    action_of_bid: np.ndarray  # [SHOOT + 1]: the bid action of each bid value (-1 none)
    bid_slot: np.ndarray  # [SHOOT + 1]: the observation slot of each bid value
    scatter: np.ndarray  # [n, table_size]: observation column of each table column, per viewer (-1: hidden)
    trump_mask: np.ndarray  # uint64[4]
    suit_masks: np.ndarray  # uint64[4, 4]


_TABLES = ("side_of", "strength", "suit", "order", "keys", "card_points", "captured_points", "game_points",
           "bid_of_action", "action_of_bid", "bid_slot", "scatter")


def compile_rules(rules: Rules) -> Compiled:
    layout, observer = ActionLayout(rules), Observer(rules)
    n, deck = rules.num_players, rules.deck
    tables = [trump_table(t, deck, rules.off_jack) for t in range(4)]
    num_trumps = len(tables[0].order)
    strength = np.array([t.strength for t in tables], np.int64)
    suit = np.array([t.suit for t in tables], np.int64)
    trump_mask = np.array([t.trump_mask for t in tables], np.uint64)
    suit_masks = np.array([t.suit_masks for t in tables], np.uint64)
    order = np.full((4, MAX_TRUMPS), -1, np.int64)
    for t, table in enumerate(tables):
        order[t, :num_trumps] = table.order
    keys = np.array([trick_keys(t) for t in tables], np.int64)
    scheme = SCHEMES[rules.scoring]
    card_points = np.zeros((4, MAX_CARDS), np.int64)
    if scheme.point_cards is not None:
        for t, table in enumerate(tables):
            for card, value in scheme.point_cards(rules, table):
                card_points[t, card] += value
    # What one captured card secures, read off the reference by capturing it alone (the schemes add up by card).
    captured_points = np.zeros((4, MAX_CARDS), np.int64)
    for t, table in enumerate(tables):
        for card in range(deck):
            captured_points[t, card] = points_captured(rules, table, [1 << card] + [0] * (n - 1))[0]
    bid_of_action = np.full(layout.size, -1, np.int64)
    action_of_bid = np.full(SHOOT + 1, -1, np.int64)
    last_bid = layout.shoot if layout.shoot >= 0 else layout.bid_index[rules.max_bid]
    for a in range(last_bid + 1):
        bid_of_action[a] = bid_value(rules, a)
        action_of_bid[bid_value(rules, a)] = a
    bid_slot = np.full(SHOOT + 1, -1, np.int64)
    for b, slot in observer.bid_slot.items():
        bid_slot[b] = slot
    scatter = np.full((n, observer.table_size), -1, np.int64)
    for v in range(n):
        scatter[v, observer.index[v]] = np.arange(observer.size)
    o = observer.table_offsets
    for name in ("hand", "trick", "played", "discards", "draws"):  # card rows the kernels write as one run
        if name in o:
            for v in range(n):
                for row in range(n):
                    cols = scatter[v, o[name] + row * deck:o[name] + (row + 1) * deck]
                    assert (cols == -1).all() or (cols == cols[0] + np.arange(deck)).all(), name
    end = rules.bid_ends_auction
    values = dict(
        n=n, sides=rules.num_sides, deck=deck, hand_size=rules.hand_size, min_bid=rules.min_bid,
        max_bid=rules.max_bid, stick_min=rules.stick_min,
        # "shoot" closes the auction as the bid SHOOT does, so every bid >= end_bid closes it
        end_bid=NO_END if end is None else (SHOOT if end == "shoot" else end),
        steal=rules.dealer_may_steal, uses_stock=rules.uses_stock, point_cards=scheme.point_cards is not None,
        target=rules.target_score, max_hands=rules.max_hands, exchange_size=EXCHANGE_HAND_SIZE,
        max_points=rules.max_hand_points, dealer_double=DEALER_DOUBLE_VALUE, partnerships=rules.partnerships,
        play_base=layout.play_base, discard_base=layout.discard_base, trump_base=layout.trump_base,
        stock_keep=layout.stock_keep, stock_give=layout.stock_give, shoot_action=layout.shoot, actions=layout.size,
        obs_size=observer.size, bid_slots=len(observer.bid_slot), num_trumps=num_trumps,
        total_game_points=TOTAL_GAME_POINTS, shoot_value=SHOOT,
        shoot_moon=rules.shoot == "moon", shoot_dealer_double=rules.shoot == "dealer_double",
        stick_dealer=rules.all_pass == "stick_dealer", declare=rules.trump_by == "declare",
        follow_any=rules.follow == "any", trumps_only=rules.follow == "trumps_only",
        low_to_capturer=rules.low_to == "capturer", made_scores_bid=rules.made_scores == "bid",
        pitcher_only=rules.win_rule == "pitcher_only",
        **{name: o.get(name[2:], -1) for name in PARAMS if name.startswith("o_")},
    )
    for option, known in KNOWN_CHOICES.items():
        if getattr(rules, option) not in known:
            raise ValueError(f"the batched engine does not play {option}={getattr(rules, option)!r} yet")
    flat = dict(
        side_of=np.array([rules.side_of(s) for s in range(n)], np.int64), strength=strength, suit=suit, order=order,
        keys=keys, card_points=card_points, captured_points=captured_points,
        game_points=np.array(GAME_POINTS, np.int64), bid_of_action=bid_of_action, action_of_bid=action_of_bid,
        bid_slot=bid_slot, scatter=scatter)
    at = len(PARAMS)
    for name in _TABLES:
        values[f"t_{name}"] = at
        at += flat[name].size
    values["table_size"] = observer.table_size
    T = np.concatenate([np.array([int(values[name]) for name in PARAMS], np.int64)]
                       + [flat[name].ravel() for name in _TABLES])
    views, at = {}, len(PARAMS)
    for name in _TABLES:
        views[name] = T[at:at + flat[name].size].reshape(flat[name].shape)
        at += flat[name].size
    U = np.concatenate([trump_mask, suit_masks.ravel()])
    return Compiled(rules, layout, observer, T, U, T[:len(PARAMS)], trump_mask=U[:4],
                    suit_masks=U[4:].reshape(4, 4), **views)


def check_cache() -> None:
    """Refuse kernels (perhaps loaded from numba's cache) that were compiled against other engine constants."""
    want = [BID, DECLARE, STOCK, DISCARD, PLAY, OVER, PASS, JACK, len(PARAMS)]
    if list(frozen_constants()) != want:
        raise RuntimeError("the batched engine's compiled kernels are stale: delete pitch_env/batch/__pycache__")
