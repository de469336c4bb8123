"""The JSON game record of docs/record.md: formatting the engine's hand summaries, saving and loading.

Records are built from the engine's plain state; nothing here changes a game. Replaying and checking
a record against the rules is replay.py's job.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from .cards import CARD_NAMES, SUITS
from .engine import bid_name
from .files import json_object
from .summary import HandSummary

FORMAT = "pitch-record/1"
MAX_RECORD_BYTES = 10 * 2**20  # a full game's record is well under 1 MB; a bigger file is not one


class RecordError(ValueError):
    """A file or dict that is not a valid game record: unreadable, malformed, or false to the rules."""


def _names(cards) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def hand_record(s: HandSummary, rules) -> dict:
    """The record of one hand (``s.result`` is None while it runs or if it was thrown in)."""
    sides = rules.num_sides
    h = {
        "number": s.number,
        "dealer": s.dealer,
        "deal": [_names(d) for d in s.dealt],
    }
    if rules.uses_stock:
        h["stock"] = _names(s.stock)
    h["bids"] = [{"seat": seat, "bid": bid_name(b)} for seat, b in s.bids]
    h["pitcher"] = s.pitcher
    h["contract"] = None if s.contract is None else bid_name(s.contract)
    h["trump"] = None if s.trump is None else SUITS[s.trump]
    if rules.uses_stock:
        h["exchange"] = {
            "stock_to": s.stock_to,
            "draws": [_names(d) for d in s.draws],
            "discards": [_names(d) for d in s.discards],
        }
    tricks = [{"leader": l, "plays": [[seat, CARD_NAMES[c]] for seat, c in plays], "winner": w}
              for l, plays, w in s.tricks]
    if s.trick:
        tricks.append({"leader": s.leader, "plays": [[seat, CARD_NAMES[c]] for seat, c in s.trick], "winner": None})
    h["tricks"] = tricks
    result = s.result
    if result is None:
        h.update(awards=[], game_points=[0] * sides, points_won=[0] * sides, made=None,
                 score_change=[0] * sides, scores=list(s.scores))
    else:
        h.update(
            awards=[{"point": a.point, "card": None if a.card is None else CARD_NAMES[a.card],
                     "seat": a.seat, "side": a.side, "value": a.value} for a in result.awards],
            game_points=list(result.game_points),
            points_won=list(result.points_won),
            made=result.made,
            score_change=list(result.score_change),
            scores=list(s.scores),
        )
    return h


def game_record(game) -> dict:
    """The record of ``game`` so far; complete once the game is over."""
    r = game.rules
    hands = [hand_record(s, r) for s in game.finished]
    if not game.is_over:
        hands.append(hand_record(game.hand_summary(), r))
    return {
        "format": FORMAT,
        "variant": r.variant,
        "rules": {k: v for k, v in r.as_dict().items() if k != "variant"},
        "seed": game.seed,
        "sides": [list(s) for s in r.sides],
        "hands": hands,
        "winner": game.winner,
        "final_scores": list(game.scores),
        "truncated": game.truncated,
    }


def save_record(record: dict, path) -> None:
    Path(path).write_text(json.dumps(record, indent=1))


def load_record(path) -> dict:
    """A record file, read with its size capped and parsed as JSON; RecordError (one line) if it is not one.

    This checks only that the file holds a pitch record; ``replay`` checks it against the rules."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; what is not a regular file is refused unread
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise RecordError(f"no such file: {path}") from None
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise RecordError(f"{path} is a directory; give the JSON file of a game record (pitch play --save FILE)")
        raise RecordError(f"{path} is not a regular file (a FIFO, device or socket): give the JSON file of a "
                          f"game record (pitch play --save FILE)")
    with os.fdopen(fd, "rb") as f:
        try:  # read at most one byte past the cap: a huge file is never read whole
            data = f.read(MAX_RECORD_BYTES + 1)
        except OSError as e:
            raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"{path} is larger than {MAX_RECORD_BYTES // 2**20} MB, the limit for a game record "
                          f"(a full game's record is well under 1 MB); it is not a record written by pitch")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordError(f"{path} is not UTF-8 text (bad byte at offset {e.start}): it is not a JSON game record") from None
    record = json_object(text, FORMAT, str(path), "a pitch game record", RecordError)
    return record
