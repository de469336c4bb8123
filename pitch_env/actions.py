"""The action layout of a rule set: one index per action name of docs/record.md.

Order: ``pass``, ``bid N`` for each numeric bid, ``bid shoot``, ``trump S``, ``stock keep``,
``stock give``, ``discard XX`` for each card, ``play XX`` for each card, where each group is
present only if the rules use it. ``play XX`` is ``play_base + card``.
"""

from __future__ import annotations

import operator

from .cards import CARD_NAMES, SUITS
from .rules import Rules


class ActionLayout:
    __slots__ = ("names", "index", "bid_index", "shoot", "trump_base", "stock_keep",
                 "stock_give", "discard_base", "play_base", "size", "auction_size")

    def __init__(self, rules: Rules):
        names = ["pass"]
        self.bid_index = {}
        for b in rules.numeric_bids:
            self.bid_index[b] = len(names)
            names.append(f"bid {b}")
        self.shoot = -1
        if rules.shoot != "none":
            self.shoot = len(names)
            names.append("bid shoot")
        self.auction_size = len(names)  # pass and the bids open the layout
        self.trump_base = -1
        if rules.trump_by == "declare":
            self.trump_base = len(names)
            names += [f"trump {s}" for s in SUITS]
        self.stock_keep = self.stock_give = self.discard_base = -1
        if rules.uses_stock:
            self.stock_keep, self.stock_give = len(names), len(names) + 1
            names += ["stock keep", "stock give"]
            self.discard_base = len(names)
            names += [f"discard {CARD_NAMES[c]}" for c in range(rules.deck)]
        self.play_base = len(names)
        names += [f"play {CARD_NAMES[c]}" for c in range(rules.deck)]
        self.names = tuple(names)
        self.index = {n: i for i, n in enumerate(names)}
        self.size = len(names)

    def name(self, action: int) -> str:
        try:  # ints and numpy integers, never bools or floats
            index = -1 if isinstance(action, bool) else operator.index(action)
        except TypeError:
            index = -1
        if not 0 <= index < self.size:
            raise ValueError(f"action {action!r} is out of range: actions are integers 0 to {self.size - 1}")
        return self.names[index]

    def action(self, name: str) -> int:
        key = " ".join(str(name).split()).lower()
        for candidate in (key, _upper_card(key)):
            if candidate in self.index:
                return self.index[candidate]
        forms = ["pass", "bid N", "bid shoot", "trump S", "stock keep", "stock give", "discard XX", "play XX"]
        raise ValueError(
            f"unknown action name {name!r}: valid forms are {', '.join(forms)} "
            f"(these rules have {self.size} actions, e.g. {self.names[0]!r}, {self.names[-1]!r})"
        )


def bid_rows(masks, auction_size: int):
    """Which rows of ``masks`` (numpy or torch, [rows, actions]) are bid decisions: their mask allows one
    of the first ``auction_size`` actions (``ActionLayout.auction_size``: pass and the bids; 0: none are)."""
    return masks[:, :auction_size].any(1)


def _upper_card(key: str) -> str:
    """``"play as"`` → ``"play AS"``: the card part of a name is upper case."""
    verb, _, arg = key.partition(" ")
    if verb in ("play", "discard", "trump"):
        return f"{verb} {arg.upper()}"
    return key
