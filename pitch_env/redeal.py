"""The hand in progress dealt again as one seat may believe it: a draw, uniform among the deals (the
stock's order and the other seats' hidden discards included) that would have shown that seat exactly
what it saw. OpenSpiel's ``resample_from_infostate`` (pitch_env/openspiel.py) replays a game through one.

Why uniform is right: no legal move depends on cards a seat cannot see (a bid, a declaration, the
stock decision and, under ``trumps_only``, every trump in hand are legal alike), so for play that
ignores the cards, every deal the seat cannot rule out is equally likely. Each draw is checked by
replaying the hand through the engine (the one rule book) and comparing the seat's InfoState move by move.
"""

from __future__ import annotations

import random
from math import comb

from .engine import BID, DECLARE, DISCARD, STOCK, Game
from .rules import EXCHANGE_HAND_SIZE

TRIES = 2000  # draws refuted by a shown void (follow-suit games) are drawn again, this many at most


def redeal(start: Game, moves, viewer: int, rng: random.Random) -> tuple[list, list, list]:
    """``(hands, stock, moves)`` for the hand that ``start`` (the game as the hand was dealt) began and
    ``moves`` (its player actions so far) continued: each seat's dealt cards in dealing order (the
    viewer's as dealt), the stock top first, and the moves with the other seats' discards chosen
    again. Raises RuntimeError if no draw fits in ``TRIES``."""
    truth = _replay(start, start.dealt, start.stock, moves, viewer)
    if truth is None:
        raise ValueError("the moves given are not legal in the hand as dealt")
    views, end, steps = truth
    stock_known = start.rules.uses_stock and end.phase not in (BID, DECLARE)
    draw = _after_exchange if stock_known else _deal_and_stock
    for _ in range(TRIES):
        world = draw(start, end, moves, steps, viewer, rng, views)
        if world is not None:
            seen = _replay(start, world[0], world[1], world[2], viewer)
            if seen is not None and seen[0] == views:
                return world
    raise RuntimeError(f"no deal that shows seat {viewer} what it saw was found in {TRIES} draws")


def _replay(start: Game, hands, stock, moves, viewer: int):
    """The viewer's InfoState after each move, the game at the end and (seat, phase) of each move,
    for the hand dealt ``hands`` and ``stock``; None if a move is illegal there."""
    g = start.redealt(hands, stock)
    views, steps = [g.info_state(viewer)], []
    for action in moves:
        if action not in g.legal_view():
            return None
        steps.append((g.current_seat, g.phase))
        g.apply_legal(action)
        views.append(g.info_state(viewer))
    return views, g, steps


def _deal_and_stock(start: Game, end: Game, moves, steps, viewer: int, rng: random.Random, views):
    """Before a stock exchange (or in a game without one): the viewer's cards and the cards each seat
    has played stay; every other card is dealt again at random, the rest forming the stock."""
    n = start.rules.num_players
    keep = [list(start.dealt[s]) if s == viewer else [c for c in start.dealt[s] if end.played_by[s] >> c & 1]
            for s in range(n)]
    kept = {c for cards in keep for c in cards}
    pool = [c for c in range(start.rules.deck) if c not in kept]
    rng.shuffle(pool)
    hands = []
    for s in range(n):
        hand = keep[s] + [pool.pop() for _ in range(len(start.dealt[s]) - len(keep[s]))]
        if s != viewer:
            rng.shuffle(hand)  # the dealing order of cards the viewer never saw is itself unseen
        hands.append(hand)
    return hands, pool, list(moves)


def _after_exchange(start: Game, end: Game, moves, steps, viewer: int, rng: random.Random, views):
    """After the exchange of a stock game. What the viewer knows of each other seat: how many cards
    it drew, how many trumps it then held (its hand, its plays and its hidden discards), the trumps
    it has played. So each seat's dealt trumps plus drawn trumps make up a known count; which of its
    cards were dealt and which drawn is drawn in proportion to the deals that allow it."""
    r = start.rules
    n, size = r.num_players, r.hand_size
    trumps = end.table.trump_mask
    others = [s for s in range(n) if s != viewer]
    mine = list(start.dealt[viewer])
    known = set(mine) | set(end.draws[viewer])
    played = {s: [c for c in range(r.deck) if end.played_by[s] >> c & 1] for s in others}
    thrown = {s: sum(1 for seat, phase in steps if seat == s and phase == DISCARD) for s in others}
    held = {s: end.hands[s].bit_count() + len(played[s]) + thrown[s] for s in others}  # trumps after the draws
    drew = {s: len(end.draws[s]) for s in others}
    plain = {s: size + drew[s] - held[s] for s in others}  # non-trumps dealt or drawn (all discarded)
    shown = {c for s in others for c in played[s]}
    free_trumps = [c for c in range(r.deck) if trumps >> c & 1 and c not in known and c not in shown]
    free_plain = [c for c in range(r.deck) if not trumps >> c & 1 and c not in known]
    # How many trumps each seat was dealt, weighted by the deals giving it that many (its dealt
    # cards are any `size` of its `size + drew` cards); the draw rule then keeps or refutes the lot.
    fits = _refill_fits(start, views, steps)
    dealt_trumps = {}
    for s in others:
        counts = [k for k in range(max(0, held[s] - drew[s], size - plain[s]), min(held[s], size) + 1) if fits(s, k)]
        if not counts:
            return None
        weights = [comb(held[s], k) * comb(plain[s], size - k) for k in counts]
        dealt_trumps[s] = rng.choices(counts, weights)[0]
    slots = _draw_slots(start, mine, dealt_trumps, trumps, moves, steps)
    if slots is None or any(len(slots[s]) != len(end.draws[s]) for s in range(n)):
        return None
    stock = [None] * len(start.stock)
    for pos, card in zip(slots[viewer], end.draws[viewer]):
        stock[pos] = card
    rng.shuffle(free_trumps)
    rng.shuffle(free_plain)
    hands, discards = [None] * n, {}
    hands[viewer] = mine
    for s in others:
        need = held[s] - len(played[s])
        if need > len(free_trumps) or plain[s] > len(free_plain):
            return None
        its_trumps = played[s] + [free_trumps.pop() for _ in range(need)]
        its_plain = [free_plain.pop() for _ in range(plain[s])]
        rng.shuffle(its_trumps)
        k = dealt_trumps[s]
        hand = its_trumps[:k] + its_plain[:size - k]
        drawn = its_trumps[k:] + its_plain[size - k:]
        rng.shuffle(hand)
        rng.shuffle(drawn)
        hands[s] = hand
        for pos, card in zip(slots[s], drawn):
            stock[pos] = card
        discards[s] = rng.sample([c for c in its_trumps if c not in played[s]], thrown[s])
    rest = free_trumps + free_plain  # the stock not yet drawn (before the pitcher keeps or gives it)
    undrawn = [pos for pos, card in enumerate(stock) if card is None]
    if len(rest) != len(undrawn):
        return None
    rng.shuffle(rest)
    for pos, card in zip(undrawn, rest):
        stock[pos] = card
    base = start.layout.discard_base
    new_moves = [base + discards[seat].pop() if phase == DISCARD and seat != viewer else action
                 for action, (seat, phase) in zip(moves, steps)]
    return hands, stock, new_moves


def _refill_fits(start: Game, views, steps):
    """``fits(seat, k)``: whether a seat dealt ``k`` trumps could have drawn what the viewer saw it
    draw in the exchange's first round (refilled to EXCHANGE_HAND_SIZE while the stock lasts). A
    filter only, where the count is known apart from the rest of the stock; the engine's replay judges."""
    n = start.rules.num_players
    declared = next(i for i, (_, phase) in enumerate(steps) if phase == DECLARE)
    after = views[declared + 1]
    first = list(after.draw_counts)
    if after.stock_to is not None:  # the rest of the stock went with the declaration: not apart
        first[after.stock_to] = None
    left, known = {}, len(start.stock)
    for i in range(1, n + 1):
        seat = (start.dealer + i) % n
        left[seat] = known
        known = None if known is None or first[seat] is None else known - first[seat]

    def fits(seat: int, k: int) -> bool:
        if first[seat] is None or left[seat] is None:
            return True
        return min(max(0, EXCHANGE_HAND_SIZE - k), left[seat]) == first[seat]

    return fits


def _draw_slots(start: Game, mine, dealt_trumps: dict, trumps: int, moves, steps):
    """The stock positions each seat draws from when each other seat is dealt ``dealt_trumps[s]``
    trumps: the engine's own exchange, run on stand-in cards with those counts; None if too few."""
    r = start.rules
    spare_trumps = [c for c in range(r.deck) if trumps >> c & 1 and c not in mine]
    spare_plain = [c for c in range(r.deck) if not trumps >> c & 1 and c not in mine]
    hands = []
    for s in range(r.num_players):
        if s not in dealt_trumps:
            hands.append(mine)
            continue
        k = dealt_trumps[s]
        if k > len(spare_trumps) or r.hand_size - k > len(spare_plain):
            return None
        hands.append(spare_trumps[:k] + spare_plain[:r.hand_size - k])
        del spare_trumps[:k], spare_plain[:r.hand_size - k]
    stand_in = spare_trumps + spare_plain
    exchange = [a for a, (_, phase) in zip(moves, steps) if phase in (BID, DECLARE, STOCK)]
    seen = _replay(start, hands, stand_in, exchange, 0)
    if seen is None:
        return None
    position = {card: pos for pos, card in enumerate(stand_in)}
    return [[position[c] for c in drawn] for drawn in seen[1].draws]
