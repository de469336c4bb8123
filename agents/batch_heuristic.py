"""The heuristic (agents/heuristic.py, as training and PIMC call it through agents/rollout.py) compiled with
numba over a BatchEngine's arrays: one call chooses the heuristic's action in every game of a batch.

Every number it reads comes from the Python heuristic's own tables and constants when built (card values,
control and dump costs from agents/cardplay.py, odds and masks from agents/bidding.py); the kernels repeat
its decisions operation for operation, so tests/test_batch_heuristic.py can demand the same move as
``engine_hint`` at every decision.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pitch_env.batch import kernels as K
from pitch_env.batch.kernels import MAX_CARDS, ONE, popcount
from pitch_env.cards import JACK, TEN
from pitch_env.engine import BID, DECLARE, DISCARD, PLAY, STOCK
from pitch_env.rules import EXCHANGE_HAND_SIZE
from pitch_env.scoring import SHOOT

from .bidding import (BID_MARGIN, DANGER, PITCHER_ONLY_MARGIN, TEN_POINT_OFFSET, TENS, odds, ten_point_table,
                      trumps_above_jack)
from .cardplay import play_tables

MAX_POINT_CARDS = 16


class BatchHeuristic:
    """The heuristic's tables for one BatchEngine; ``actions(games)`` is its move in each of those games."""

    def __init__(self, engine):
        self.engine = engine
        c = engine.compiled
        rules = engine.rules
        self.F = np.zeros((4, 4, MAX_CARDS), np.float64)  # [trump]: values, control, dump, win_cost
        for t in range(4):
            pt = play_tables(rules, t)
            for k, row in enumerate((pt.values, pt.control, pt.dump, pt.win_cost)):
                self.F[t, k] = row[:MAX_CARDS]
        # Bidding, per trump suit: own-suit mask, the trumps above the jack, the four highest trumps, and the
        # point cards of ten_point (bit, value, trumps above it, ranks from just below the jack up).
        self.BM = np.zeros((4, 3), np.uint64)
        self.PC = np.zeros((4, MAX_POINT_CARDS, 4), np.uint64)
        self.NPC = np.zeros(4, np.int64)
        for s in range(4):
            trumps, top4, cards = ten_point_table(rules, s)
            self.BM[s] = (int(c.suit_masks[s, s]), trumps_above_jack(rules.deck, rules.off_jack, s), top4)
            self.NPC[s] = len(cards)
            for k, (b, value, higher, high) in enumerate(cards):
                self.PC[s, k] = (b, value, higher, int(high))
        p_opp, p_partner = odds(rules)
        margin = BID_MARGIN + (PITCHER_ONLY_MARGIN if rules.win_rule == "pitcher_only" else 0.0)
        self.BF = np.array([p_opp, p_partner, margin, rules.max_hand_points - 0.2, 1.0 / rules.num_sides],
                           np.float64)
        self.BI = np.array([rules.target_score - DANGER, int(rules.low_to == "holder"),
                            int(rules.made_scores == "bid"), int(rules.trump_by == "first_lead"),
                            int(TENS)], np.int64)
        self.out = np.zeros(engine.num_games, np.int64)

    def actions(self, games=None) -> np.ndarray:
        """The heuristic's action in each of ``games`` (all games if None; none may be over)."""
        e = self.engine
        games = np.arange(e.num_games) if games is None else np.asarray(games, np.int64)
        out = np.zeros(len(games), np.int64)
        c = e.compiled
        _act_all(games, e.I, e.M, e.T, e.U, e.mask, c.strength, c.suit, c.order, c.keys, c.side_of,
                 c.bid_of_action, c.action_of_bid, self.F, self.BM, self.PC, self.NPC, self.BF, self.BI, out)
        return out


@njit(cache=True)
def _act_all(games, I, M, T, U, mask, strength, suit, order, keys, side_of, bid_of_action, action_of_bid,
             F, BM, PC, NPC, BF, BI, out):
    for i in range(len(games)):
        out[i] = _act(games[i], I, M, T, U, mask, strength, suit, order, keys, side_of, bid_of_action,
                      action_of_bid, F, BM, PC, NPC, BF, BI)


@njit(cache=True)
def _act(g, I, M, T, U, mask, strength, suit, order, keys, side_of, bid_of_action, action_of_bid,
         F, BM, PC, NPC, BF, BI):
    legal = np.empty(mask.shape[1], np.int64)
    nl = 0
    for a in range(mask.shape[1]):
        if mask[g, a]:
            legal[nl] = a
            nl += 1
    if nl == 1:
        return legal[0]
    seat, phase = I[g, K.CUR], I[g, K.PHASE]
    hand = M[g, K.HANDS + seat]
    trump = I[g, K.TRUMP]
    if phase == PLAY:
        base = T[K.P_PLAY_BASE]
        if trump < 0:
            return base + _pitch_lead(hand, _best_suit(hand, T, U, strength, order, BM, PC, NPC, BF, BI)[0])
        seen = M[g, K.DISC + seat]
        for s in range(T[K.P_N]):
            seen |= M[g, K.PLAYEDBY + s]
        return base + _choose_card(g, I, T, U, seat, hand, legal, nl, base, trump, seen, strength, suit, order,
                                   keys, F)
    if phase == BID:
        return _bid(g, I, T, U, seat, hand, legal, nl, strength, order, side_of, bid_of_action, action_of_bid,
                    BM, PC, NPC, BF, BI)
    if phase == DECLARE:
        return T[K.P_TRUMP_BASE] + _best_suit(hand, T, U, strength, order, BM, PC, NPC, BF, BI)[0]
    if phase == STOCK:
        return T[K.P_STOCK_GIVE] if popcount(hand) >= 6 else T[K.P_STOCK_KEEP]
    if phase == DISCARD:
        base = T[K.P_DISCARD_BASE]
        best, best_v = legal[0], 1e300
        for k in range(nl):
            c = legal[k] - base
            v = F[trump, 0, c] + F[trump, 1, c]
            if v < best_v:
                best, best_v = legal[k], v
        return best
    return -1


@njit(cache=True)
def _pitch_lead(hand, s):
    top, low, count = -1, 99, 0
    for c in range(s * 13, s * 13 + 13):
        if hand >> np.uint64(c) & ONE:
            count += 1
            top = c
            if c < low:
                low = c
    if top % 13 == JACK and count > 1:
        return low
    return top


@njit(cache=True)
def _expected_four_point(hand, s, T, U, strength, order, BM, BF, BI):
    mine = hand & U[s]
    if mine == 0:
        return 0.0
    p_opp, p_partner = BF[0], BF[1]
    keep = 1.0 - p_opp
    nt = T[K.P_NUM_TRUMPS]
    low, top = -1, -1
    for i in range(nt):
        c = order[s, i]
        if mine >> np.uint64(c) & ONE:
            if low < 0:
                low = strength[s, c]
            top = strength[s, c]
    e = keep ** np.float64(nt - top)
    low_p = keep ** np.float64(low - 1)
    if BI[1]:
        e += low_p
    else:
        e += 0.5 * low_p + 0.1
    above_jack = BM[s, 1]
    if hand >> np.uint64(s * 13 + JACK) & ONE:
        safe = keep ** np.float64(popcount(above_jack & ~hand))
        e += 0.95 * safe + 0.4 * (1 - safe)
    else:
        e += 0.8 * p_partner + 0.3 * p_opp * min(1.0, popcount(above_jack & hand) / 2)
    trump_ten = np.int64(hand >> np.uint64(s * 13 + TEN) & ONE)
    game = (BF[4] + 0.07 * (popcount(mine) - 2) + 0.06 * popcount(hand & np.uint64(BI[4]))
            + 0.1 * trump_ten + 0.03 * popcount(mine & above_jack))
    e += min(0.9, max(0.05, game))
    return e


@njit(cache=True)
def _expected_ten_point(hand, s, U, BM, PC, NPC):
    top_mine = popcount(hand & BM[s, 2])
    total = 0
    e = 0.0
    held = 0
    for k in range(NPC[s]):
        b, value, higher, high = PC[s, k, 0], np.int64(PC[s, k, 1]), PC[s, k, 2], PC[s, k, 3]
        total += value
        if hand & b:
            held += value
            higher_out = popcount(higher & ~hand)
            if higher_out == 0:
                e += value
            elif high:
                e += value * 0.8 ** np.float64(higher_out)
            else:
                e += value * (0.35 + 0.1 * top_mine)
    mine = popcount(hand & U[s])
    draws = max(0, EXCHANGE_HAND_SIZE - mine)
    share = min(0.8, 0.3 + 0.08 * top_mine + 0.03 * mine + 0.01 * draws)
    e += (total - held) * share
    return e + TEN_POINT_OFFSET


@njit(cache=True)
def _best_suit(hand, T, U, strength, order, BM, PC, NPC, BF, BI):
    best, best_e = -1, -1.0
    for s in range(4):
        if BI[3] and not hand & BM[s, 0]:
            continue
        if T[K.P_POINT_CARDS]:
            e = _expected_ten_point(hand, s, U, BM, PC, NPC)
        else:
            e = _expected_four_point(hand, s, T, U, strength, order, BM, BF, BI)
        if e > best_e:
            best, best_e = s, e
    return best, best_e


@njit(cache=True)
def _bid(g, I, T, U, seat, hand, legal, nl, strength, order, side_of, bid_of_action, action_of_bid,
         BM, PC, NPC, BF, BI):
    side = side_of[seat]
    margin = BF[2]
    for s in range(T[K.P_SIDES]):
        if s != side and I[g, K.SCORES + s] >= BI[0]:
            margin += 0.5
            break
    worth = _best_suit(hand, T, U, strength, order, BM, PC, NPC, BF, BI)[1] + margin
    # legal bids by value, lowest first (what choose_bid's sorted dict of legal bids gives)
    is_legal = np.zeros(SHOOT + 1, np.bool_)
    for k in range(nl):
        b = bid_of_action[legal[k]]
        if b >= 0:
            is_legal[b] = True
    if is_legal[SHOOT] and worth >= BF[3]:
        return action_of_bid[SHOOT]
    first, last_affordable, first_affordable = -1, -1, -1
    for b in range(1, SHOOT):
        if is_legal[b]:
            if first < 0:
                first = b
            if b <= worth:
                last_affordable = b
                if first_affordable < 0:
                    first_affordable = b
    if not is_legal[0]:  # stuck dealer
        if first_affordable < 0:
            return action_of_bid[first]
        return action_of_bid[last_affordable if BI[2] else first_affordable]
    high_bidder = I[g, K.HIGHER]
    if high_bidder >= 0 and side_of[high_bidder] == side and worth < I[g, K.HIGH] + 1.5:
        return action_of_bid[0]
    if first_affordable < 0:
        return action_of_bid[0]
    if seat == I[g, K.DEALER] and not BI[2]:
        return action_of_bid[first_affordable]
    return action_of_bid[last_affordable]


@njit(cache=True)
def _choose_card(g, I, T, U, seat, hand, legal, nl, base, trump, seen, strength, suit, order, keys, F):
    k = T[K.P_SIDES]
    side = seat % k
    values, control, dump_cost, win_cost = F[trump, 0], F[trump, 1], F[trump, 2], F[trump, 3]
    st = strength[trump]
    unseen = U[trump] & ~seen & ~hand
    top_out = 0
    for i in range(T[K.P_NUM_TRUMPS] - 1, -1, -1):
        c = order[trump, i]
        if unseen >> np.uint64(c) & ONE:
            top_out = st[c]
            break
    tlen, olen = I[g, K.TLEN], I[g, K.OLEN]
    n_after = olen - tlen - 1
    partner_after, opponents_after = False, False
    for j in range(tlen + 1, olen):
        if I[g, K.ORDER + j] % k == side:
            partner_after = True
        else:
            opponents_after = True
    if tlen == 0:  # the lead
        top, top_s = -1, -1
        for i in range(nl):
            c = legal[i] - base
            if st[c] > top_s:
                top, top_s = c, st[c]
        if top_s > top_out:
            if top_out or values[top] >= 1.0 or partner_after:
                return top
        any_junk = False
        for i in range(nl):
            if not st[legal[i] - base]:
                any_junk = True
                break
        best, best_v = -1, 1e300
        for i in range(nl):
            c = legal[i] - base
            if any_junk and st[c]:
                continue
            if dump_cost[c] < best_v:
                best, best_v = c, dump_cost[c]
        return best
    led = suit[trump, I[g, K.TCARD]]
    kk = keys[trump, led]
    best_seat, best_key, stake = -1, -1, 0.0
    for j in range(tlen):
        c = I[g, K.TCARD + j]
        if kk[c] > best_key:
            best_seat, best_key = I[g, K.TSEAT + j], kk[c]
        stake += values[c]
    bar = 100 + top_out
    if best_seat % k == side and (not opponents_after or best_key > bar):
        best, best_v = -1, -1e300
        for i in range(nl):
            c = legal[i] - base
            v = values[c] * (1 + (st[c] < top_out or not st[c])) - control[c]
            if best < 0 or v > best_v:
                best, best_v = c, v
        return best
    dump, dump_v = -1, 1e300
    for i in range(nl):
        c = legal[i] - base
        if dump < 0 or dump_cost[c] < dump_v:
            dump, dump_v = c, dump_cost[c]
    loss_if_dumped = stake + dump_cost[dump] + 0.15 * n_after
    best_win, best_cost, risky, risky_key = -1, 1e9, -1, -1
    for i in range(nl):
        c = legal[i] - base
        key = kk[c]
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
