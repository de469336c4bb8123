"""The batched game state machine: B games of one rule set in two integer arrays, stepped by numba kernels.

The moves mirror pitch_env/engine.py step for step (the cross-check of tests/test_batch_engine.py plays
both side by side); every rule table comes compiled from the reference (tables.py). A game's state is
one row of ``I`` (int64 fields below) and one row of ``M`` (uint64 card masks, bit ``c`` = card ``c``).
The rules are two flat arrays, ``T`` (int64: the params below, then the tables at the offsets they name)
and ``U`` (uint64: trump masks, then suit masks): kernels pass a handful of arrays, never a tuple of
them, as every array handed to a call costs reference counting at each move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pitch_env.engine import BID, DECLARE, DISCARD, OVER, PASS, PLAY, STOCK
from pitch_env.cards import JACK

MAX_SEATS, MAX_CARDS, MAX_TRUMPS = 7, 54, 16
NO_END = -1  # bid_ends_auction=None

# ---- positions in the params vector (tables.py fills it from the rules; flags are 0/1)
PARAMS = (
    'n', 'sides', 'deck', 'hand_size', 'min_bid', 'max_bid', 'stick_min', 'end_bid', 'steal', 'uses_stock',
    'point_cards', 'target', 'max_hands', 'exchange_size', 'max_points', 'dealer_double', 'partnerships',
    'play_base', 'discard_base', 'trump_base', 'stock_keep', 'stock_give', 'shoot_action', 'actions',
    'obs_size', 'bid_slots', 'num_trumps', 'total_game_points', 'shoot_value', 'shoot_moon',
    'shoot_dealer_double', 'stick_dealer', 'declare', 'follow_any', 'trumps_only', 'low_to_capturer',
    'made_scores_bid', 'pitcher_only', 'o_hand', 'o_phase', 'o_dealer', 'o_pitcher', 'o_current', 'o_bids',
    'o_contract', 'o_trump', 'o_leader', 'o_trick', 'o_played', 'o_points_won', 'o_game_points', 'o_scores',
    'o_cards_left', 'o_hands_played', 'o_discards', 'o_draws', 'o_stock_to', 'o_draw_counts', 'o_voids',
    't_side_of', 't_strength', 't_suit', 't_order', 't_keys', 't_card_points', 't_captured_points', 't_game_points',
    't_bid_of_action', 't_action_of_bid', 't_bid_slot', 't_scatter', 'table_size',
)
(
    P_N, P_SIDES, P_DECK, P_HAND_SIZE, P_MIN_BID, P_MAX_BID, P_STICK_MIN, P_END_BID, P_STEAL, P_USES_STOCK,
    P_POINT_CARDS, P_TARGET, P_MAX_HANDS, P_EXCHANGE_SIZE, P_MAX_POINTS, P_DEALER_DOUBLE, P_PARTNERSHIPS,
    P_PLAY_BASE, P_DISCARD_BASE, P_TRUMP_BASE, P_STOCK_KEEP, P_STOCK_GIVE, P_SHOOT_ACTION, P_ACTIONS,
    P_OBS_SIZE, P_BID_SLOTS, P_NUM_TRUMPS, P_TOTAL_GAME_POINTS, P_SHOOT_VALUE, P_SHOOT_MOON,
    P_SHOOT_DEALER_DOUBLE, P_STICK_DEALER, P_DECLARE, P_FOLLOW_ANY, P_TRUMPS_ONLY, P_LOW_TO_CAPTURER,
    P_MADE_SCORES_BID, P_PITCHER_ONLY, P_O_HAND, P_O_PHASE, P_O_DEALER, P_O_PITCHER, P_O_CURRENT, P_O_BIDS,
    P_O_CONTRACT, P_O_TRUMP, P_O_LEADER, P_O_TRICK, P_O_PLAYED, P_O_POINTS_WON, P_O_GAME_POINTS, P_O_SCORES,
    P_O_CARDS_LEFT, P_O_HANDS_PLAYED, P_O_DISCARDS, P_O_DRAWS, P_O_STOCK_TO, P_O_DRAW_COUNTS, P_O_VOIDS,
    P_T_SIDE_OF, P_T_STRENGTH, P_T_SUIT, P_T_ORDER, P_T_KEYS, P_T_CARD_POINTS, P_T_CAPTURED_POINTS, P_T_GAME_POINTS,
    P_T_BID_OF_ACTION, P_T_ACTION_OF_BID, P_T_BID_SLOT, P_T_SCATTER, P_TABLE_SIZE,
) = range(len(PARAMS))

# ---- int64 fields of I (per game); the runs of MAX_SEATS are by seat or by side
SEED, HAND, DEALER, PHASE, CUR, WINNER, TRUNC, HIGH, HIGHER, PITCHER, CONTRACT, TRUMP, STOCK_TO, STOCK_POS, \
    NBIDS, LEADER, TLEN, OLEN, LOGLEN, HAND_END, GAME_END, FIRST_DEALER = range(22)
SCORES = 22
CHANGE = SCORES + MAX_SEATS  # score change of the hand that ended in the last step, by side
BIDSEAT = CHANGE + MAX_SEATS  # the auction in order: seat, bid
BIDVAL = BIDSEAT + MAX_SEATS
ORDER = BIDVAL + MAX_SEATS  # the seats that play to the current trick, leader first
TSEAT = ORDER + MAX_SEATS  # the current trick's plays: seat, card
TCARD = TSEAT + MAX_SEATS
GP = TCARD + MAX_SEATS  # game points in won tricks, by side
PW = GP + MAX_SEATS  # points secured by captured cards, by side
NDRAW = PW + MAX_SEATS  # cards drawn from the stock, by seat
DECK = NDRAW + MAX_SEATS  # this hand's cards in dealing order: the hands, then the stock top first
VOIDS = DECK + MAX_CARDS  # suits each seat has shown it holds none of this hand (bit per suit), by seat
NI = VOIDS + MAX_SEATS
# ---- uint64 card masks of M, by seat
HANDS, CAPT, INPLAY, PLAYEDBY, DISC, DRAWN = (k * MAX_SEATS for k in range(6))
NM = 6 * MAX_SEATS

ONE = np.uint64(1)
ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def bit(c):
    return ONE << np.uint64(c)


@njit(cache=True, inline="always")
def popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def low_card(m):
    """Index of the lowest set bit of a non-empty mask."""
    return popcount((m & (~m + ONE)) - ONE)


@njit(cache=True)
def _mix(z):
    # splitmix64's output function: a bijection of uint64 with good avalanche
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def shuffle(seed, hand, deck, out, row, at):
    """The cards of hand ``hand`` of the game with ``seed`` in dealing order, into ``out[row, at:at + deck]``
    (Fisher-Yates on splitmix64 keyed by seed and hand), so any hand can be dealt again without its history."""
    state = _mix(np.uint64(seed) ^ _mix(np.uint64(hand) + np.uint64(0x9E3779B97F4A7C15)))
    for c in range(deck):
        out[row, at + c] = c
    for i in range(deck - 1, 0, -1):
        state += np.uint64(0x9E3779B97F4A7C15)
        j = np.int64(_mix(state) % np.uint64(i + 1))
        out[row, at + i], out[row, at + j] = out[row, at + j], out[row, at + i]


@njit(cache=True)
def dealt_to(i, dealer, n, hand_size):
    """Seat that receives the ``i``-th packet of ``hand_size`` cards: seats in turn from the dealer's left."""
    return (dealer + 1 + i) % n


# ------------------------------------------------------------------ hands
@njit(cache=True)
def _start_hand(g, I, M, T, U):
    p = T
    n = p[P_N]
    I[g, HAND] += 1
    I[g, DEALER] = (I[g, DEALER] + 1) % n
    shuffle(I[g, SEED], I[g, HAND], p[P_DECK], I, g, DECK)
    _deal(g, I, M, T, U)


@njit(cache=True)
def _deal(g, I, M, T, U):
    """Hand ``I[g, HAND]`` dealt by ``I[g, DEALER]`` from the cards at ``DECK`` (dealing order): the hands
    given, the hand's state cleared, the auction opened."""
    p = T
    n = p[P_N]
    hs = p[P_HAND_SIZE]
    for s in range(n):
        M[g, HANDS + s] = ZERO
        M[g, CAPT + s] = ZERO
        M[g, INPLAY + s] = ZERO
        M[g, PLAYEDBY + s] = ZERO
        M[g, DISC + s] = ZERO
        M[g, DRAWN + s] = ZERO
        I[g, NDRAW + s] = 0
        I[g, VOIDS + s] = 0
    for s in range(p[P_SIDES]):
        I[g, GP + s] = 0
        I[g, PW + s] = 0
    for i in range(n):
        seat = dealt_to(i, I[g, DEALER], n, hs)
        m = ZERO
        for k in range(i * hs, (i + 1) * hs):
            m |= bit(I[g, DECK + k])
        M[g, HANDS + seat] = m
    I[g, STOCK_POS] = n * hs
    I[g, NBIDS] = 0
    I[g, HIGH] = PASS
    I[g, HIGHER] = -1
    I[g, PITCHER] = -1
    I[g, CONTRACT] = -1
    I[g, TRUMP] = -1
    I[g, STOCK_TO] = -1
    I[g, LEADER] = -1
    I[g, TLEN] = 0
    I[g, OLEN] = 0
    I[g, PHASE] = BID
    I[g, CUR] = (I[g, DEALER] + 1) % n


@njit(cache=True)
def reset_game(g, seed, first_dealer, I, M, T, U):
    n = T[P_N]
    for k in range(NI):
        I[g, k] = 0
    I[g, SEED] = seed
    I[g, FIRST_DEALER] = first_dealer
    I[g, WINNER] = -1
    I[g, DEALER] = (first_dealer - 1) % n
    _start_hand(g, I, M, T, U)


# ------------------------------------------------------------------ legal actions
@njit(cache=True, inline="always")
def _playable(g, I, M, T, U):
    seat = I[g, CUR]
    hand = M[g, HANDS + seat]
    trump = I[g, TRUMP]
    if T[P_TRUMPS_ONLY]:
        return hand & U[trump]
    if I[g, TLEN] == 0 or T[P_FOLLOW_ANY]:
        return hand
    led = T[T[P_T_SUIT] + trump * MAX_CARDS + I[g, TCARD]]
    following = hand & U[4 + 4 * trump + led]
    if following:
        return following | (hand & U[trump])
    return hand


@njit(cache=True, inline="always")
def write_mask(g, I, M, T, U, mask):
    for k in range(T[P_ACTIONS]):
        mask[g, k] = 0
    if I[g, PHASE] == PLAY:  # nearly every move: kept apart so that it compiles to a tight loop
        m = _playable(g, I, M, T, U)
        base = T[P_PLAY_BASE]
        while m:
            mask[g, base + low_card(m)] = 1
            m &= m - ONE
    else:
        _mask_other(g, I, M, T, U, mask)


@njit(cache=True)
def _mask_other(g, I, M, T, U, mask):
    p = T
    phase = I[g, PHASE]
    if phase == BID:
        seat, dealer, high = I[g, CUR], I[g, DEALER], I[g, HIGH]
        is_dealer = seat == dealer
        stuck = is_dealer and p[P_STICK_DEALER] != 0 and high == PASS
        if not stuck:
            mask[g, 0] = 1
        if high != p[P_SHOOT_VALUE]:
            lowest = high + 1
            if is_dealer and p[P_STEAL] != 0 and high != PASS:
                lowest = high
            if stuck:
                lowest = max(lowest, p[P_STICK_MIN])
            for b in range(max(lowest, p[P_MIN_BID]), p[P_MAX_BID] + 1):
                mask[g, T[T[P_T_ACTION_OF_BID] + b]] = 1
            if p[P_SHOOT_MOON] != 0 or (p[P_SHOOT_DEALER_DOUBLE] != 0 and is_dealer):
                mask[g, p[P_SHOOT_ACTION]] = 1
    elif phase == DECLARE:
        for s in range(4):
            mask[g, p[P_TRUMP_BASE] + s] = 1
    elif phase == STOCK:
        mask[g, p[P_STOCK_KEEP]] = 1
        mask[g, p[P_STOCK_GIVE]] = 1
    elif phase == DISCARD:
        m = M[g, HANDS + I[g, CUR]]
        base = p[P_DISCARD_BASE]
        while m:
            mask[g, base + low_card(m)] = 1
            m &= m - ONE


# ------------------------------------------------------------------ moves
@njit(cache=True, inline="always")
def _start_trick(g, leader, I, M, T, U):
    n = T[P_N]
    k = 0
    for i in range(n):
        seat = (leader + i) % n
        if M[g, HANDS + seat]:
            I[g, ORDER + k] = seat
            k += 1
    I[g, OLEN] = k
    I[g, TLEN] = 0
    if k == 0:  # nobody holds a card: the hand is over
        I[g, LEADER] = -1
        _finish_hand(g, True, I, M, T, U)
        return
    I[g, LEADER] = I[g, ORDER]
    I[g, CUR] = I[g, ORDER]


@njit(cache=True)
def _start_play(g, I, M, T, U):
    n = T[P_N]
    I[g, PHASE] = PLAY
    for s in range(n):
        M[g, INPLAY + s] = M[g, HANDS + s]
    _start_trick(g, I[g, PITCHER], I, M, T, U)


@njit(cache=True)
def _draw(g, seat, count, I, M, T, U):
    p = T
    trumps = U[I[g, TRUMP]]
    end = min(I[g, STOCK_POS] + count, p[P_DECK])
    for k in range(I[g, STOCK_POS], end):
        c = I[g, DECK + k]
        M[g, DRAWN + seat] |= bit(c)
        I[g, NDRAW + seat] += 1
        if trumps & bit(c):
            M[g, HANDS + seat] |= bit(c)
        else:  # a drawn non-trump could never be played
            M[g, DISC + seat] |= bit(c)
    I[g, STOCK_POS] = end


@njit(cache=True)
def _next_discarder(g, I, M, T, U):
    """The first seat from the dealer's left still above the exchange size discards; none left: play."""
    p = T
    n = p[P_N]
    for i in range(1, n + 1):
        seat = (I[g, DEALER] + i) % n
        if popcount(M[g, HANDS + seat]) > p[P_EXCHANGE_SIZE]:
            I[g, PHASE] = DISCARD
            I[g, CUR] = seat
            return
    _start_play(g, I, M, T, U)


@njit(cache=True)
def _give_stock(g, give, I, M, T, U):
    p = T
    pitcher = I[g, PITCHER]
    to = (pitcher + p[P_SIDES]) % p[P_N] if give else pitcher
    I[g, STOCK_TO] = to
    _draw(g, to, p[P_DECK] - I[g, STOCK_POS], I, M, T, U)
    _next_discarder(g, I, M, T, U)


@njit(cache=True)
def _exchange(g, I, M, T, U):
    p = T
    n = p[P_N]
    trumps = U[I[g, TRUMP]]
    for s in range(n):
        M[g, DISC + s] |= M[g, HANDS + s] & ~trumps
        M[g, HANDS + s] &= trumps
    for i in range(1, n + 1):
        seat = (I[g, DEALER] + i) % n
        need = p[P_EXCHANGE_SIZE] - popcount(M[g, HANDS + seat])
        if need > 0:
            _draw(g, seat, need, I, M, T, U)
    if I[g, STOCK_POS] < p[P_DECK]:
        if p[P_PARTNERSHIPS]:
            I[g, PHASE] = STOCK
            I[g, CUR] = I[g, PITCHER]
        else:  # solo: the pitcher has nobody to give it to
            _give_stock(g, False, I, M, T, U)
    else:
        _next_discarder(g, I, M, T, U)


@njit(cache=True, inline="always")
def _bid(g, action, I, M, T, U):
    p = T
    seat = I[g, CUR]
    bid = T[T[P_T_BID_OF_ACTION] + action]
    k = I[g, NBIDS]
    I[g, BIDSEAT + k] = seat
    I[g, BIDVAL + k] = bid
    I[g, NBIDS] = k + 1
    if bid != PASS:
        I[g, HIGH] = bid
        I[g, HIGHER] = seat
    end = p[P_END_BID]
    closes = bid != PASS and end != NO_END and bid >= end
    if not closes and seat != I[g, DEALER]:
        I[g, CUR] = (seat + 1) % p[P_N]
        return
    if I[g, HIGHER] < 0:  # everybody passed and all_pass=redeal: throw the hand in
        _finish_hand(g, False, I, M, T, U)
        return
    I[g, PITCHER] = I[g, HIGHER]
    I[g, CONTRACT] = I[g, HIGH]
    I[g, CUR] = I[g, PITCHER]
    if p[P_DECLARE]:
        I[g, PHASE] = DECLARE
    else:
        _start_play(g, I, M, T, U)


@njit(cache=True, inline="always")
def _play(g, card, I, M, T, U):
    seat = I[g, CUR]
    b = bit(card)
    M[g, HANDS + seat] &= ~b
    M[g, PLAYEDBY + seat] |= b
    if I[g, TRUMP] < 0:  # trump_by=first_lead: the pitch sets trump
        I[g, TRUMP] = card // 13
    k = I[g, TLEN]
    if k > 0 and not T[P_FOLLOW_ANY] and not T[P_TRUMPS_ONLY]:  # follow_or_trump: neither followed nor trumped
        trump = I[g, TRUMP]
        led = T[T[P_T_SUIT] + trump * MAX_CARDS + I[g, TCARD]]
        if T[T[P_T_SUIT] + trump * MAX_CARDS + card] != led and T[T[P_T_STRENGTH] + trump * MAX_CARDS + card] == 0:
            I[g, VOIDS + seat] |= 1 << led
    I[g, TSEAT + k] = seat
    I[g, TCARD + k] = card
    I[g, TLEN] = k + 1
    if k + 1 < I[g, OLEN]:
        I[g, CUR] = I[g, ORDER + k + 1]
        return
    trump = I[g, TRUMP]
    led = T[T[P_T_SUIT] + trump * MAX_CARDS + I[g, TCARD]]
    keys = T[P_T_KEYS] + (trump * 4 + led) * MAX_CARDS
    best, best_key = -1, -1
    for i in range(k + 1):
        key = T[keys + I[g, TCARD + i]]
        if key > best_key:
            best, best_key = I[g, TSEAT + i], key
    side = T[T[P_T_SIDE_OF] + best]
    for i in range(k + 1):
        c = I[g, TCARD + i]
        M[g, CAPT + best] |= bit(c)
        I[g, GP + side] += T[T[P_T_GAME_POINTS] + c]
        I[g, PW + side] += T[T[P_T_CAPTURED_POINTS] + trump * MAX_CARDS + c]
    _start_trick(g, best, I, M, T, U)


@njit(cache=True, inline="always")
def apply(g, action, I, M, T, U):
    """Take a legal ``action`` for the seat to move of game ``g``."""
    p = T
    phase = I[g, PHASE]
    if phase == PLAY:
        _play(g, action - p[P_PLAY_BASE], I, M, T, U)
    elif phase == BID:
        _bid(g, action, I, M, T, U)
    elif phase == DECLARE:
        I[g, TRUMP] = action - p[P_TRUMP_BASE]
        if p[P_USES_STOCK]:
            _exchange(g, I, M, T, U)
        else:
            _start_play(g, I, M, T, U)
    elif phase == STOCK:
        _give_stock(g, action == p[P_STOCK_GIVE], I, M, T, U)
    else:
        seat = I[g, CUR]
        b = bit(action - p[P_DISCARD_BASE])
        M[g, HANDS + seat] &= ~b
        M[g, DISC + seat] |= b
        if popcount(M[g, HANDS + seat]) <= p[P_EXCHANGE_SIZE]:
            _next_discarder(g, I, M, T, U)


# ------------------------------------------------------------------ end of hand
@njit(cache=True, inline="always")
def _owner(g, base, card, n, M):
    b = bit(card)
    for s in range(n):
        if M[g, base + s] & b:
            return s
    return -1


@njit(cache=True)
def _hand_points(g, I, M, T, U):
    """The points each side scores this hand (scoring.py's awards), into its CHANGE fields."""
    p = T
    side_of = T[P_T_SIDE_OF]
    n, sides = p[P_N], p[P_SIDES]
    trump = I[g, TRUMP]
    for s in range(sides):
        I[g, CHANGE + s] = 0
    if p[P_POINT_CARDS]:
        for s in range(n):
            m = M[g, CAPT + s]
            while m:
                I[g, CHANGE + T[side_of + s]] += T[T[P_T_CARD_POINTS] + trump * MAX_CARDS + low_card(m)]
                m &= m - ONE
        return
    in_play = ZERO
    for s in range(n):
        in_play |= M[g, INPLAY + s]
    high, low = -1, -1
    for i in range(p[P_NUM_TRUMPS]):
        c = T[T[P_T_ORDER] + trump * MAX_TRUMPS + i]
        if in_play & bit(c):
            if low < 0:
                low = c
            high = c
    if high >= 0:
        I[g, CHANGE + T[side_of + _owner(g, INPLAY, high, n, M)]] += 1
        I[g, CHANGE + T[side_of + _owner(g, CAPT if p[P_LOW_TO_CAPTURER] else INPLAY, low, n, M)]] += 1
        jack = trump * 13 + JACK
        if in_play & bit(jack):
            I[g, CHANGE + T[side_of + _owner(g, CAPT, jack, n, M)]] += 1
    best, count, at = -1, 0, -1
    for s in range(sides):
        v = I[g, GP + s]
        if v > best:
            best, count, at = v, 1, s
        elif v == best:
            count += 1
    if count == 1:
        I[g, CHANGE + at] += 1


@njit(cache=True)
def _finish_hand(g, scored, I, M, T, U):
    p = T
    sides = p[P_SIDES]
    I[g, HAND_END] = 1
    for s in range(sides):
        I[g, CHANGE + s] = 0
    winner = -1
    if scored:
        _hand_points(g, I, M, T, U)  # the change starts as the points won
        pitcher, contract = I[g, PITCHER], I[g, CONTRACT]
        side = T[T[P_T_SIDE_OF] + pitcher]
        won = I[g, CHANGE + side]
        moon = 0  # 1 won at once, -1 lost at once
        if contract == p[P_SHOOT_VALUE] and p[P_SHOOT_DEALER_DOUBLE]:
            total = 0
            for s in range(sides):
                total += I[g, CHANGE + s]
            I[g, CHANGE + side] = p[P_DEALER_DOUBLE] if won == total else -p[P_DEALER_DOUBLE]
        elif contract == p[P_SHOOT_VALUE]:
            made = won == p[P_MAX_POINTS]
            if made and I[g, SCORES + side] > 0:
                moon, I[g, CHANGE + side] = 1, 0
            elif made:
                I[g, CHANGE + side] = -I[g, SCORES + side]
            else:
                moon, I[g, CHANGE + side] = -1, 0
        elif won < contract:
            I[g, CHANGE + side] = -contract
        elif p[P_MADE_SCORES_BID]:
            I[g, CHANGE + side] = contract
        for s in range(sides):
            I[g, SCORES + s] += I[g, CHANGE + s]
        winner = _game_winner(g, side, moon, I, p)
    if winner >= 0:
        I[g, WINNER] = winner
    elif I[g, HAND] >= p[P_MAX_HANDS]:
        I[g, TRUNC] = 1
    if winner >= 0 or I[g, TRUNC]:
        I[g, PHASE] = OVER
        I[g, CUR] = -1
        I[g, GAME_END] = 1
        return
    _start_hand(g, I, M, T, U)


@njit(cache=True)
def _game_winner(g, side, moon, I, p):
    sides, target = p[P_SIDES], p[P_TARGET]
    if moon == 1:
        return side
    if moon == -1:  # the best-placed other side, ties to the first from the pitcher's left
        best, at = 0, -1
        for i in range(1, sides):
            s = (side + i) % sides
            if at < 0 or I[g, SCORES + s] > best:
                best, at = I[g, SCORES + s], s
        return at
    if p[P_PITCHER_ONLY]:
        return side if I[g, SCORES + side] >= target else -1
    if I[g, SCORES + side] >= target:  # bidder goes out
        return side
    best, count, at = 0, 0, -1
    for s in range(sides):
        v = I[g, SCORES + s]
        if v >= target:
            if count == 0 or v > best:
                best, count, at = v, 1, s
            elif v == best:
                count += 1
    return at if count == 1 else -1


# ------------------------------------------------------------------ observation
@njit(cache=True, inline="always")
def _put(obs, g, T, v, col, value):
    j = T[T[P_T_SCATTER] + v * T[P_TABLE_SIZE] + col]
    if j >= 0:
        obs[g, j] = value


@njit(cache=True, inline="always")
def _put_cards(obs, g, T, v, row, m):
    """The cards of mask ``m`` into the table row starting at column ``row`` (a card row stays one
    contiguous run in every observation: tables.py checks it)."""
    j = T[T[P_T_SCATTER] + v * T[P_TABLE_SIZE] + row]
    if j >= 0:
        while m:
            obs[g, j + low_card(m)] = 1.0
            m &= m - ONE


@njit(cache=True, inline="always")
def write_obs(g, I, M, T, U, obs):
    """Seat to move's observation (observer.py's vector): each table fact scattered to its column."""
    p = T
    bid_slot = T[P_T_BID_SLOT]
    n, c, sides = p[P_N], p[P_DECK], p[P_SIDES]
    for k in range(p[P_OBS_SIZE]):
        obs[g, k] = 0.0
    phase = I[g, PHASE]
    v = I[g, CUR] if phase != OVER else 0
    _put_cards(obs, g, T, v, p[P_O_HAND] + v * c, M[g, HANDS + v])
    _put(obs, g, T, v, p[P_O_PHASE] + phase, 1.0)
    if phase != OVER:
        _put(obs, g, T, v, p[P_O_DEALER] + I[g, DEALER], 1.0)
        _put(obs, g, T, v, p[P_O_CURRENT] + I[g, CUR], 1.0)
    if I[g, PITCHER] >= 0:
        _put(obs, g, T, v, p[P_O_PITCHER] + I[g, PITCHER], 1.0)
        _put(obs, g, T, v, p[P_O_CONTRACT] + T[bid_slot + I[g, CONTRACT]], 1.0)
    nb = p[P_BID_SLOTS]
    for k in range(I[g, NBIDS]):
        _put(obs, g, T, v, p[P_O_BIDS] + I[g, BIDSEAT + k] * nb + T[bid_slot + I[g, BIDVAL + k]], 1.0)
    trump = I[g, TRUMP]
    if trump >= 0:
        _put(obs, g, T, v, p[P_O_TRUMP] + trump, 1.0)
    if I[g, TLEN] > 0:
        _put(obs, g, T, v, p[P_O_LEADER] + I[g, LEADER], 1.0)
        for k in range(I[g, TLEN]):
            _put(obs, g, T, v, p[P_O_TRICK] + I[g, TSEAT + k] * c + I[g, TCARD + k], 1.0)
    for s in range(n):
        _put_cards(obs, g, T, v, p[P_O_PLAYED] + s * c, M[g, PLAYEDBY + s])
    for s in range(n):
        suits = I[g, VOIDS + s]
        for u in range(4):
            if suits >> u & 1:
                _put(obs, g, T, v, p[P_O_VOIDS] + s * 4 + u, 1.0)
    if p[P_USES_STOCK]:
        for s in range(n):
            _put(obs, g, T, v, p[P_O_DRAW_COUNTS] + s, np.float32(I[g, NDRAW + s] / c))
        if I[g, STOCK_TO] >= 0:
            _put(obs, g, T, v, p[P_O_STOCK_TO] + I[g, STOCK_TO], 1.0)
        _put_cards(obs, g, T, v, p[P_O_DISCARDS] + v * c, M[g, DISC + v])
        _put_cards(obs, g, T, v, p[P_O_DRAWS] + v * c, M[g, DRAWN + v])
    for s in range(sides):
        if trump >= 0:
            _put(obs, g, T, v, p[P_O_POINTS_WON] + s, np.float32(I[g, PW + s] / p[P_MAX_POINTS]))
        _put(obs, g, T, v, p[P_O_GAME_POINTS] + s, np.float32(I[g, GP + s] / p[P_TOTAL_GAME_POINTS]))
        _put(obs, g, T, v, p[P_O_SCORES] + s, np.float32(I[g, SCORES + s] / p[P_TARGET]))
    for s in range(n):
        _put(obs, g, T, v, p[P_O_CARDS_LEFT] + s,
             np.float32(popcount(M[g, HANDS + s]) / p[P_HAND_SIZE]))
    _put(obs, g, T, v, p[P_O_HANDS_PLAYED], np.float32(I[g, HAND] / p[P_MAX_HANDS]))


# ------------------------------------------------------------------ batch entry points
@njit(cache=True)
def reset_many(games, seeds, dealers, I, M, T, U, obs, mask):
    for k in range(games.shape[0]):
        g = games[k]
        reset_game(g, seeds[k], dealers[k], I, M, T, U)
        write_mask(g, I, M, T, U, mask)
        write_obs(g, I, M, T, U, obs)


@njit(cache=True)
def load_hands(games, hand, dealer, scores, decks, I, M, T, U, obs, mask):
    """Games ``games`` at the start of hand ``hand`` dealt by ``dealer``, the sides' ``scores`` standing, each
    game's cards in dealing order given (``decks[k]``: the hands, then the rest) instead of shuffled from a
    seed: a search's worlds, whose hidden hands were sampled. A world in mid-hand replays the hand's
    actions from here."""
    sides = T[P_SIDES]
    for k in range(games.shape[0]):
        g = games[k]
        for j in range(NI):
            I[g, j] = 0
        I[g, WINNER] = -1
        I[g, HAND] = hand
        I[g, DEALER] = dealer
        I[g, FIRST_DEALER] = (dealer - hand + 1) % T[P_N]
        for s in range(sides):
            I[g, SCORES + s] = scores[s]
        for j in range(T[P_DECK]):
            I[g, DECK + j] = decks[k, j]
        _deal(g, I, M, T, U)
        write_mask(g, I, M, T, U, mask)
        write_obs(g, I, M, T, U, obs)


@njit(cache=True)
def first_refused(actions, mask):
    """The first game whose action is out of range or not legal now, or -1 when every action is."""
    size = mask.shape[1]
    for g in range(actions.shape[0]):
        a = actions[g]
        if a < 0 or a >= size or mask[g, a] == 0:
            return g
    return -1


@njit(cache=True)
def step_all(actions, I, M, T, U, obs, mask, log, observe):
    """One move in every game not over: flags HAND_END/GAME_END, logs the action, refreshes mask and
    observation. Returns how many games ended."""
    ended = 0
    cap = log.shape[1]
    for g in range(actions.shape[0]):
        I[g, HAND_END] = 0
        I[g, GAME_END] = 0
        if I[g, PHASE] == OVER:
            continue
        k = I[g, LOGLEN]
        if k < cap:
            log[g, k] = actions[g]
        I[g, LOGLEN] = k + 1
        apply(g, actions[g], I, M, T, U)
        ended += I[g, GAME_END]
        write_mask(g, I, M, T, U, mask)
        if observe:
            write_obs(g, I, M, T, U, obs)
    return ended


@njit(cache=True)
def step_game(g, action, I, M, T, U, obs, mask, log):
    """One move in game ``g`` alone (not over), as ``step_all`` makes it: for a caller stepping games one by one."""
    I[g, HAND_END] = 0
    I[g, GAME_END] = 0
    k = I[g, LOGLEN]
    if k < log.shape[1]:
        log[g, k] = action
    I[g, LOGLEN] = k + 1
    apply(g, action, I, M, T, U)
    write_mask(g, I, M, T, U, mask)
    write_obs(g, I, M, T, U, obs)


@njit(cache=True)
def frozen_constants():
    """The engine's constants as the compiled (possibly cached) kernels saw them: tables.py compares them
    with the engine's own, so a cache compiled against other values is refused, not trusted."""
    return np.array([BID, DECLARE, STOCK, DISCARD, PLAY, OVER, PASS, JACK, len(PARAMS)], np.int64)
