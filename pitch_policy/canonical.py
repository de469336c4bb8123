"""Suit-canonical observations: relabel the suits so the same situation always looks the same to the net.

Once trump is known it takes suit slot 0, the other suit of its colour slot 1 (the off-jack's suit in
ten_point), the remaining two slots 2 and 3 in C D H S order; before that, suits are ordered by the
seat's own holding (most cards, then highest card). Only the card-indexed pieces, the suit-indexed ones (trump,
voids) and the card/suit actions are permuted; the permutation is read from the observation itself, so an agent
needs nothing but ``env.last()``. This cuts what the policy must learn by the 4! suit symmetry.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np
from numba import njit

from pitch_env.actions import ActionLayout
from pitch_env.observer import Observer

NAME = "suit_canonical"  # recorded in the policy card: the transform a loader must apply
CARD_PIECES = ("hand", "trick", "played", "discards", "draws")
PERMS = list(permutations(range(4)))  # every suit relabelling, perm[suit] = slot; ids index this list
SAME_COLOUR = {0: 3, 3: 0, 1: 2, 2: 1}  # clubs-spades, diamonds-hearts


class SuitCanonical:
    def __init__(self, rules):
        ob = Observer(rules)
        lay = ActionLayout(rules)
        self.size, self.actions, self.deck = ob.size, lay.size, rules.deck
        p = ob.pieces
        self._hand = p["hand"].offset
        self._trump = p["trump"].offset
        card_rows = []  # offsets of every deck-long row of a card-indexed piece
        for name in CARD_PIECES:
            if name in p:
                piece = p[name]
                assert piece.shape[-1] == rules.deck, f"piece {name} is not card-indexed"
                card_rows += [piece.offset + i * rules.deck for i in range(piece.size // rules.deck)]
        # offsets of every suit-indexed row of four: the trump piece and each seat's row of voids
        suit_rows = [self._trump] + [p["voids"].offset + 4 * i for i in range(p["voids"].size // 4)]
        self._trump_first = {}
        for t in range(4):
            order = [t, SAME_COLOUR[t], *[s for s in range(4) if s not in (t, SAME_COLOUR[t])]]
            self._trump_first[t] = tuple(order.index(s) for s in range(4))
        self._obs_src, self._act_src = {}, {}
        for perm in permutations(range(4)):  # perm[suit] = the slot that suit is shown in
            card_new = self.card_map(perm)
            obs_src = np.arange(ob.size)
            for base in card_rows:
                obs_src[base + card_new] = base + np.arange(rules.deck)
            for base in suit_rows:
                obs_src[base + np.array(perm)] = base + np.arange(4)
            act_src = np.arange(lay.size)
            for base in (lay.play_base, lay.discard_base):
                if base >= 0:
                    act_src[base + card_new] = base + np.arange(rules.deck)
            if lay.trump_base >= 0:
                act_src[lay.trump_base + np.array(perm)] = lay.trump_base + np.arange(4)
            self._obs_src[perm], self._act_src[perm] = obs_src, act_src
        trump_id = np.array([PERMS.index(self._trump_first[t]) for t in range(4)])
        code = np.full(256, -1, np.int64)  # perm as base-4 digits -> its index in PERMS
        for i, p in enumerate(PERMS):
            code[sum(slot * 4 ** suit for suit, slot in enumerate(p))] = i
        # what perm_index reads besides the observation: [hand, trump] offsets, trump's order, perm codes
        self.index_tables = (np.array([self._hand, self._trump], np.int64), trump_id, code)

    def card_map(self, perm) -> np.ndarray:
        """card → the card it is shown as under ``perm`` (jokers keep their place)."""
        cards = np.arange(self.deck)
        suit, rank = cards // 13, cards % 13
        out = np.array([perm[s] for s in np.minimum(suit, 3)]) * 13 + rank
        out[52:] = cards[52:]
        return out

    def permutation(self, obs: np.ndarray) -> tuple[int, ...]:
        """``perm[suit]`` = the slot that suit is shown in, for the seat whose observation this is."""
        offsets, trump_id, code = self.index_tables
        return PERMS[perm_index(obs, offsets[0], offsets[1], trump_id, code)]

    def apply(self, obs: np.ndarray, mask: np.ndarray):
        """(canonical obs, canonical mask, act_src) where ``act_src[canonical action]`` is the real action."""
        perm = self.permutation(obs)
        act_src = self._act_src[perm]
        return obs[self._obs_src[perm]], mask[act_src], act_src


def shown_action(act_src: np.ndarray | None, action: int) -> int:
    """Where the network sees real ``action`` under the permutation ``act_src`` of ``apply`` (None: as is)."""
    return action if act_src is None else int((act_src == action).argmax())


class BatchCanonical:
    """``SuitCanonical.apply`` over a batch of rows at once (the batched self-play core, train/lockstep.py): the
    same permutation per row, from one compiled loop over the rows (``perm_indices``)."""

    def __init__(self, single: SuitCanonical):
        self.obs_src = np.stack([single._obs_src[p] for p in PERMS])  # [24, obs]
        self.act_src = np.stack([single._act_src[p] for p in PERMS])  # [24, actions]
        self.act_dst = np.argsort(self.act_src, axis=1)  # real action -> where the network sees it
        self.card_src = np.stack([np.argsort(single.card_map(p)) for p in PERMS])  # [24, deck]: shown card -> real card
        self._single = single

    def ids(self, obs: np.ndarray) -> np.ndarray:
        """The permutation index of each row (what ``SuitCanonical.permutation`` gives for it)."""
        offsets, trump_id, code = self._single.index_tables
        return perm_indices(obs, offsets[0], offsets[1], trump_id, code)

    def apply(self, obs: np.ndarray, mask: np.ndarray):
        """(canonical obs, canonical mask, ids): row i's network action a is real ``act_src[ids[i], a]``."""
        ids = self.ids(obs)
        rows = np.arange(len(obs))[:, None]
        return obs[rows, self.obs_src[ids]], mask[rows, self.act_src[ids]], ids


@njit(cache=True, nogil=True)
def perm_index(obs, hand, trump, trump_id, code):
    """The index in PERMS of the relabelling for one observation (``hand``, ``trump``: the offsets of
    those pieces): trump known, its fixed order; before, suits by the seat's holding, most cards first,
    then the highest card (rank index 0..12 = 2..A), then C D H S. Compiled: an agent calls it at every
    decision, and the batched trainer on every row (``perm_indices``)."""
    t = -1
    for s in range(4):
        if obs[trump + s] != 0 and (t < 0 or obs[trump + s] > obs[trump + t]):
            t = s
    if t >= 0:
        return trump_id[t]
    key = np.empty(4)
    for s in range(4):
        count, top = 0.0, -1
        for r in range(13):
            if obs[hand + 13 * s + r] != 0:
                count += obs[hand + 13 * s + r]
                top = r
        key[s] = count * 64 + top * 4 - s
    digits = 0
    for s in range(4):
        slot = 0
        for u in range(4):
            if key[u] > key[s]:  # keys differ: each holds -suit
                slot += 1
        digits += slot * 4 ** s
    return code[digits]


@njit(cache=True, nogil=True)
def perm_indices(obs, hand, trump, trump_id, code):
    """``perm_index`` of every row of ``obs``."""
    out = np.empty(obs.shape[0], np.int64)
    for i in range(obs.shape[0]):
        out[i] = perm_index(obs[i], hand, trump, trump_id, code)
    return out
