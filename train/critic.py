"""The oracle critic's extra input (``critic: oracle``): every other seat's hand, read by the value
network in training only.

The policy reads what its seat knows and nothing more; the value network serves only to judge the
policy's decisions while it trains, and is never exported, so it may read the whole deal (an
asymmetric actor-critic: PerfectDou's "perfect-training, imperfect-execution"). A value that sees
the cards judges a decision against what this deal allowed rather than against the average of every
deal the seat cannot tell apart, which takes much of the deal's luck out of PPO's advantages.

The extra input is one deck-long row per other seat, in seat order after the seat to move (so in a
partnership game the partner is always the middle row), each card placed where the row's
suit-canonical view shows it (pitch_policy/canonical.py), so that trump is suit 0 here too.
"""

from __future__ import annotations

import numpy as np


def oracle_size(rules) -> int:
    """How many inputs the oracle critic adds to the value network's: a deck per other seat."""
    return (rules.num_players - 1) * rules.deck


def oracle_inputs(hands: np.ndarray, seats, deck: int, card_src: np.ndarray | None = None) -> np.ndarray:
    """float32 [rows, (players - 1) * deck]: the hands of every seat but the one to move, in seat order
    after it. ``hands``: each row's card masks by seat (bit ``c`` for card ``c``); ``seats``: each row's
    seat to move; ``card_src``: None (plain observations) or, by row, the real card each shown card
    slot holds (``BatchCanonical.card_src[ids]``)."""
    hands = np.asarray(hands, np.uint64)
    rows, n = hands.shape
    others = (np.asarray(seats, np.int64)[:, None] + np.arange(1, n)) % n
    held = np.take_along_axis(hands, others, axis=1)  # [rows, n - 1]
    bits = ((held[:, :, None] >> np.arange(deck, dtype=np.uint64)) & np.uint64(1)).astype(np.float32)
    if card_src is not None:
        bits = np.take_along_axis(bits, card_src[:, None, :], axis=2)
    return bits.reshape(rows, (n - 1) * deck)
