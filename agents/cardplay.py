"""Rule-based card play on engine ints: which card to play into a trick.

The heuristic's card play (agents/heuristic.py, from an InfoState) and PIMC's playouts (agents/rollout.py,
from a determinised engine Game's ints) both call it, so it is written to be cheap: bitmasks, no dicts.
"""

from __future__ import annotations

from functools import lru_cache

from pitch_env.cards import GAME_POINTS, JACK, cards_in, trump_table
from pitch_env.engine import trick_keys
from pitch_env.rules import Rules
from pitch_env.scoring import point_card_values, scheme

# Game points are worth one point for the whole hand, decided by the ~35 of them dealt; a ten
# (10 game points) is counted as half a point.
GAME_SCALE = 15.0


@lru_cache(maxsize=None)
def card_values(rules: Rules, trump: int) -> tuple[float, ...]:
    """What capturing each card is worth (in hand points, roughly) under ``trump``."""
    table = trump_table(trump, rules.deck, rules.off_jack)
    values = [0.0] * 54
    if scheme(rules).point_cards:
        for card, value in point_card_values(rules, table):
            values[card] = float(value)
        return tuple(values)
    for c in range(rules.deck):
        values[c] = GAME_POINTS[c] / GAME_SCALE
    values[trump * 13 + JACK] += 1.0
    if rules.low_to == "capturer":
        # Low goes to whoever captures it: the lowest trumps are worth capturing (and keeping).
        values[table.order[0]] += 1.0
        values[table.order[1]] += 0.5
    return tuple(values)


@lru_cache(maxsize=None)
def card_control(rules: Rules, trump: int) -> tuple[float, ...]:
    """What spending a card costs besides its value: high trumps win later tricks."""
    table = trump_table(trump, rules.deck, rules.off_jack)
    size = len(table.order)
    control = [0.0] * 54
    for c in range(rules.deck):
        if table.strength[c]:
            control[c] = 0.3 + table.strength[c] / size
        else:
            control[c] = (c % 13) / 130.0  # a high side card can still win a trick nobody trumps
    return tuple(control)


def top_unseen_trump(table, unseen: int) -> int:
    """Strength of the highest trump in ``unseen`` (0 if none)."""
    for c in reversed(table.order):
        if unseen >> c & 1:
            return table.strength[c]
    return 0


class PlayTables:
    """What card play needs once trump is known, computed once per (rules, trump)."""

    __slots__ = ("rules", "table", "values", "control", "num_sides", "keys", "dump", "win_cost")

    def __init__(self, rules: Rules, trump: int):
        self.rules = rules
        self.table = table = trump_table(trump, rules.deck, rules.off_jack)
        self.values = values = card_values(rules, trump)
        self.control = control = card_control(rules, trump)
        self.num_sides = rules.num_sides
        self.keys = trick_keys(table)  # the engine's trick ranking
        # Losing a card costs its value and its control; among equals the lower rank goes first.
        self.dump = tuple(values[c] + control[c] + (c % 13) * 1e-6 for c in range(54))
        self.win_cost = tuple(control[c] - values[c] for c in range(54))


@lru_cache(maxsize=None)
def play_tables(rules: Rules, trump: int) -> PlayTables:
    return PlayTables(rules, trump)


def choose_card(pt: PlayTables, seat: int, hand: int, playable: list[int], trick, seen: int, after) -> int:
    """The card ``seat`` plays. ``trick``: [(seat, card)] so far; ``seen``: cards known to be out of
    other hands (played this hand, own discards); ``after``: seats still to play in this trick."""
    if len(playable) == 1:
        return playable[0]
    table, values, control, k = pt.table, pt.values, pt.control, pt.num_sides
    side = seat % k
    top_out = top_unseen_trump(table, table.trump_mask & ~seen & ~hand)
    if not trick:
        return _lead(pt, playable, top_out, after, side)

    keys = pt.keys[table.suit[trick[0][1]]]
    best_seat, best_key, stake = -1, -1, 0.0
    for s, c in trick:
        key = keys[c]
        if key > best_key:
            best_seat, best_key = s, key
        stake += values[c]
    opponents_after = False
    for s in after:
        if s % k != side:
            opponents_after = True
            break
    bar = 100 + top_out  # a trump above every unseen trump cannot be beaten

    if best_seat % k == side and (not opponents_after or best_key > bar):
        # Partner's trick is secure: feed it the most valuable card we can spare. A card that an
        # unseen trump could still catch (every side card; a trump below the top unseen one) is
        # worth twice as much banked now.
        strength = table.strength
        return max(playable, key=lambda c: values[c] * (1 + (strength[c] < top_out or not strength[c]))
                   - control[c])

    dump_cost = pt.dump
    dump = min(playable, key=dump_cost.__getitem__)
    # Dumping gives the trick's stake and the dumped card away; winning spends the winner's control.
    loss_if_dumped = stake + dump_cost[dump] + 0.15 * len(after)
    win_cost = pt.win_cost
    best_win, best_cost, risky, risky_key = -1, 1e9, -1, -1
    for c in playable:
        key = keys[c]
        if key <= best_key:
            continue
        if opponents_after and key <= bar:
            if key > risky_key:
                risky, risky_key = c, key
            continue
        if win_cost[c] < best_cost:
            best_win, best_cost = c, win_cost[c]
    if best_win >= 0 and best_cost < loss_if_dumped:
        return best_win
    if best_win < 0 and risky >= 0 and stake >= 0.6:
        return risky
    return dump


def _lead(pt: PlayTables, playable, top_out, after, side) -> int:
    strength = pt.table.strength
    top = max(playable, key=strength.__getitem__)
    if strength[top] > top_out:
        k = pt.num_sides
        partner_to_play = any(s % k == side for s in after)
        # A trump nobody can beat wins the trick: cash it while trumps are still out (it draws
        # them where suit must be followed), when it is a point card, or to let partner feed it.
        if top_out or pt.values[top] >= 1.0 or partner_to_play:
            return top
    junk = [c for c in playable if not strength[c]]
    return min(junk or playable, key=pt.dump.__getitem__)


def pitch_lead(rules: Rules, hand: int, suit: int) -> int:
    """The pitcher's first card when it also sets trump: its highest card of ``suit``, unless that is
    an unprotected jack, then its lowest."""
    cards = [c for c in cards_in(hand) if c < 52 and c // 13 == suit]
    top = max(cards)
    if top % 13 == JACK and len(cards) > 1:
        return min(cards)
    return top


def stock_choice(layout, hand: int) -> int:
    """The pitcher keeps the rest of the stock unless it already holds six trumps (then its
    partner, likelier to have room, gets it)."""
    return layout.stock_give if hand.bit_count() >= 6 else layout.stock_keep


def discard_choice(pt: PlayTables, base: int, legal: list[int]) -> int:
    """Discarding down to six: drop the trump worth least (no points, lowest)."""
    values, control = pt.values, pt.control
    return min(legal, key=lambda a: values[a - base] + control[a - base])
