"""The JSON game record of GAME_RECORD.md, and replaying a record through a fresh engine.

Records are built from the engine's plain state; nothing here changes a game.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from .cards import CARD_NAMES, SUITS, parse_card
from .lazy import LazyMapping
from .rules import rules as make_rules

FORMAT = "pitch-record/1"


def _names(cards) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def hand_record(game, result) -> dict:
    """The record of the hand ``game`` is playing (``result`` is None while it runs or if thrown in)."""
    from .engine import bid_name

    r = game.rules
    sides = r.num_sides
    h = {
        "number": game.hand_number,
        "dealer": game.dealer,
        "deal": [_names(d) for d in game.dealt],
    }
    if r.uses_stock:
        h["stock"] = _names(game.stock)
    h["bids"] = [{"seat": s, "bid": bid_name(b)} for s, b in game.bids]
    h["pitcher"] = game.pitcher
    h["contract"] = None if game.contract is None else bid_name(game.contract)
    h["trump"] = None if game.trump is None else SUITS[game.trump]
    if r.uses_stock:
        h["exchange"] = {
            "stock_to": game.stock_to,
            "draws": [_names(d) for d in game.draws],
            "discards": [_names(d) for d in game.discards],
        }
    tricks = [{"leader": l, "plays": [[s, CARD_NAMES[c]] for s, c in plays], "winner": w}
              for l, plays, w in game.tricks]
    if game.trick:
        tricks.append({"leader": game.leader, "plays": [[s, CARD_NAMES[c]] for s, c in game.trick], "winner": None})
    h["tricks"] = tricks
    if result is None:
        h.update(awards=[], game_points=[0] * sides, points_won=[0] * sides, made=None,
                 score_change=[0] * sides, scores=list(game.scores))
    else:
        h.update(
            awards=[{"point": a.point, "card": None if a.card is None else CARD_NAMES[a.card],
                     "seat": a.seat, "side": a.side, "value": a.value} for a in result.awards],
            game_points=list(result.game_points),
            points_won=list(result.points_won),
            made=result.made,
            score_change=list(result.score_change),
            scores=list(game.scores),
        )
    return h


class FinishedHand(LazyMapping):
    """The record of a finished hand, built from a snapshot of it when first read.

    Search agents finish thousands of hands and never read their records, so the engine stores
    this cheap snapshot instead of building the JSON dict at the end of every hand.
    """

    __slots__ = ("_snapshot", "_result")
    _FIELDS = ("rules", "hand_number", "dealer", "dealt", "stock", "bids", "pitcher", "contract",
               "trump", "draws", "discards", "stock_to", "tricks")

    def __init__(self, game, result):
        self._dict = None
        # The engine starts a fresh list for every per-hand field at the next deal and never
        # changes a finished hand's lists, so holding references is a true snapshot.
        snap = SimpleNamespace(**{f: getattr(game, f) for f in self._FIELDS})
        snap.trick, snap.leader, snap.scores = (), None, list(game.scores)
        self._snapshot, self._result = snap, result

    def _build(self) -> dict:
        return hand_record(self._snapshot, self._result)


def game_record(game) -> dict:
    """The record of the game so far; complete once the game is over."""
    hands = [dict(h) for h in game.finished]
    if not game.is_over:
        hands.append(hand_record(game, None))
    return {
        "format": FORMAT,
        "variant": game.rules.variant,
        "rules": {k: v for k, v in game.rules.as_dict().items() if k != "variant"},
        "seed": game.seed,
        "sides": [list(s) for s in game.rules.sides],
        "hands": hands,
        "winner": game.winner,
        "final_scores": list(game.scores),
        "truncated": game.truncated,
    }


def record_actions(record: dict) -> list[str]:
    """The action names of a record, in the order they were taken."""
    actions = []
    for h in record["hands"]:
        actions += ["pass" if b["bid"] == "pass" else f"bid {b['bid']}" for b in h["bids"]]
        ex = h.get("exchange")
        if h.get("trump") is not None and record["rules"]["trump_by"] == "declare":
            actions.append(f"trump {h['trump']}")
        if ex is not None and h.get("trump") is not None:
            if ex["stock_to"] is not None and record["rules"]["partnerships"]:
                actions.append("stock keep" if ex["stock_to"] == h["pitcher"] else "stock give")
            actions += _trump_discards(record, h)
        for t in h["tricks"]:
            actions += [f"play {c}" for _, c in t["plays"]]
    return actions


def _trump_discards(record: dict, h: dict) -> list[str]:
    """Discards made by choice (trumps over 6), in the order the seats made them."""
    from .cards import trump_table

    rules = record["rules"]
    table = trump_table(SUITS.index(h["trump"]), rules["deck"], rules["off_jack"])
    n = rules["num_players"]
    out = []
    for i in range(1, n + 1):
        seat = (h["dealer"] + i) % n
        out += [f"discard {c}" for c in h["exchange"]["discards"][seat]
                if table.strength[parse_card(c)]]
    return out


def replay(record: dict):
    """Play a record's actions through a fresh engine dealt the record's cards; returns the Game."""
    from .engine import Game

    if record.get("format") != FORMAT:
        raise ValueError(f"not a pitch game record: format is {record.get('format')!r}, expected {FORMAT!r}")
    rules = make_rules(record["variant"], **record["rules"])
    deals = [{"deal": h["deal"], "stock": h.get("stock", [])} for h in record["hands"]]
    game = Game(rules, seed=record["seed"], deals=deals)
    for name in record_actions(record):
        game.apply_name(name)
    return game


def save_record(record: dict, path) -> None:
    Path(path).write_text(json.dumps(record, indent=1))


def load_record(path) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not a JSON game record: {e}") from None
