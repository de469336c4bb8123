"""Cards as small integers, their notation, and the trump tables each rule set needs.

A card is ``suit * 13 + rank`` with suits ``C D H S`` (0-3) and ranks ``2 … A`` (0-12);
the jokers of the 54-card deck are ``LJ`` = 52 and ``BJ`` = 53. Sets of cards are Python
ints used as bitmasks, which makes hands cheap to copy and legal moves cheap to compute.
"""

from __future__ import annotations

from functools import lru_cache

RANKS = "23456789TJQKA"
SUITS = "CDHS"
LJ, BJ = 52, 53
JACK, TEN, THREE, TWO, ACE = RANKS.index("J"), RANKS.index("T"), 1, 0, 12
# Game points for the "Game" category: A=4, K=3, Q=2, J=1, T=10, everything else 0.
_GAME_POINTS_BY_RANK = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}
GAME_POINTS = tuple(
    _GAME_POINTS_BY_RANK.get(RANKS[c % 13], 0) if c < 52 else 0 for c in range(54)
)


def card_name(card: int) -> str:
    if card == LJ:
        return "LJ"
    if card == BJ:
        return "BJ"
    return RANKS[card % 13] + SUITS[card // 13]


CARD_NAMES = tuple(card_name(c) for c in range(54))
_CARD_BY_NAME = {name: c for c, name in enumerate(CARD_NAMES)}


def parse_card(name: str) -> int:
    """``"AS"`` → card int; raises ValueError naming the notation on a bad card."""
    try:
        return _CARD_BY_NAME[name.strip().upper()]
    except KeyError:
        raise ValueError(
            f"unknown card {name!r}: write rank then suit, ranks {RANKS}, suits {SUITS} "
            "(e.g. 'AS', 'TD', '2C'), or 'BJ'/'LJ' for the jokers"
        ) from None


def parse_cards(text: str | list[str]) -> list[int]:
    """``"AS KH 2C"`` (or a list of names) → list of card ints."""
    names = text.split() if isinstance(text, str) else text
    return [parse_card(n) for n in names]


def suit_of(card: int) -> int:
    """Natural suit (0-3), or -1 for a joker."""
    return card // 13 if card < 52 else -1


def mask_of(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


_BYTE_CARDS = tuple(tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(7))


def cards_in(mask: int) -> list[int]:
    """Cards of a bitmask, lowest card int first (eight cards a step: a deck is 7 bytes)."""
    out = []
    for table in _BYTE_CARDS:
        if not mask:
            break
        out += table[mask & 255]
        mask >>= 8
    return out


SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))


def off_jack(trump: int) -> int:
    """The jack of the trump's colour in the other suit (clubs↔spades, diamonds↔hearts)."""
    return (3 - trump) * 13 + JACK


class TrumpTable:
    """Everything play and scoring need to know once a trump suit is fixed.

    ``strength[card]`` is 0 for a non-trump and 1… for trumps, higher beats lower;
    ``suit[card]`` is the card's suit for following (the off-jack and jokers belong to trump).
    """

    __slots__ = ("trump", "strength", "suit", "suit_masks", "trump_mask", "order")

    def __init__(self, trump: int, deck: int, off_jack_is_trump: bool):
        order = [trump * 13 + r for r in range(JACK)]  # 2 … T
        if deck == 54:
            order += [LJ, BJ]
        if off_jack_is_trump:
            order.append(off_jack(trump))
        order += [trump * 13 + r for r in range(JACK, 13)]  # J Q K A
        self.trump = trump
        self.order = tuple(order)  # lowest trump first
        strength = [0] * 54
        for i, c in enumerate(order):
            strength[c] = i + 1
        self.strength = tuple(strength)
        self.trump_mask = mask_of(order)
        suit = [suit_of(c) for c in range(54)]
        for c in order:
            suit[c] = trump
        self.suit = tuple(suit)
        self.suit_masks = tuple(
            self.trump_mask if s == trump else SUIT_MASKS[s] & ~self.trump_mask for s in range(4)
        )


@lru_cache(maxsize=None)
def trump_table(trump: int, deck: int, off_jack_is_trump: bool) -> TrumpTable:
    return TrumpTable(trump, deck, off_jack_is_trump)
