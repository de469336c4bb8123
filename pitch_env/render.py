"""Readable text for people: a game record hand by hand, and one seat's view of the table."""

from __future__ import annotations

from .rules import PRESETS, differing_options


def _side_name(rules: dict, side: int, sides) -> str:
    seats = sides[side]
    return f"side {side} (seat{'s' if len(seats) > 1 else ''} {'+'.join(map(str, seats))})"


def _stopped(record: dict) -> bool:
    """The game was stopped (quit, saved mid-game): its last hand is the one in progress."""
    return record["winner"] is None and not record["truncated"]


def render_hand(record: dict, h: dict) -> str:
    rules, sides = record["rules"], record["sides"]
    in_progress = _stopped(record) and h is record["hands"][-1]
    lines = [f"── Hand {h['number']} · dealer seat {h['dealer']} ──"]
    for seat, cards in enumerate(h["deal"]):
        lines.append(f"  seat {seat} dealt: {' '.join(cards)}")
    bids = ", ".join(f"{b['seat']}:{b['bid']}" for b in h["bids"])
    lines.append(f"  bids: {bids or '-'}")
    if h["pitcher"] is None:
        lines.append("  the game was stopped during the auction" if in_progress else
                     "  everybody passed: the hand is thrown in")
        return "\n".join(lines)
    lines.append(f"  pitcher: seat {h['pitcher']}, contract {h['contract']}, trump {h['trump']}")
    ex = h.get("exchange")
    if ex:
        lines.append(f"  stock: {' '.join(h['stock'])}; rest of the stock to seat {ex['stock_to']}")
        for seat in range(len(h["deal"])):
            lines.append(f"  seat {seat} drew {' '.join(ex['draws'][seat]) or '-'}; "
                         f"let go {' '.join(ex['discards'][seat]) or '-'}")
    for i, t in enumerate(h["tricks"], 1):
        plays = " ".join(f"{s}:{c}" for s, c in t["plays"])
        won = "" if t["winner"] is None else f" → seat {t['winner']}"
        lines.append(f"  trick {i}: {plays}{won}")
    for a in h["awards"]:
        what = a["point"] if a["card"] is None else f"{a['point']} {a['card']}"
        who = f"seat {a['seat']}, " if a["seat"] is not None else ""
        lines.append(f"  + {what}: {who}{_side_name(rules, a['side'], sides)} (+{a['value']})")
    if h["made"] is not None:
        lines.append(f"  game points {h['game_points']}, points won {h['points_won']}, "
                     f"bid {'made' if h['made'] else 'SET'}; change {h['score_change']} → scores {h['scores']}")
    return "\n".join(lines)


def render_record(record: dict) -> str:
    rules = record["rules"]
    head = (f"{record['variant']} · {rules['num_players']} players"
            f"{' in partnerships' if rules['partnerships'] else ''} · to {rules['target_score']} · seed {record['seed']}")
    changed = differing_options(record["variant"], rules) if record["variant"] in PRESETS else []
    changed = [k for k in changed if k not in ("partnerships", "target_score")]  # the header says these already
    if changed:  # the header names the preset; say how these rules differ from it
        head += (f" · rules changed from {record['variant']}: "
                 + ", ".join(f"{k}={rules[k]!r}" for k in changed[:4]) + (", …" if len(changed) > 4 else ""))
    parts = [head] + [render_hand(record, h) for h in record["hands"]]
    if record["winner"] is not None:
        parts.append(f"Winner: {_side_name(rules, record['winner'], record['sides'])}; "
                     f"final scores {record['final_scores']}")
    elif record["truncated"]:
        parts.append(f"Truncated after {len(record['hands'])} hands; scores {record['final_scores']}")
    else:
        parts.append(f"Stopped during hand {len(record['hands'])}, before the game was over; "
                     f"scores {record['final_scores']}")
    return "\n".join(parts)


def render_view(info: dict) -> str:
    """One seat's view (an infoset): what a person at that seat sees."""
    lines = [f"Hand {info['hand_number']} · you are seat {info['seat']} (side {info['side']}) · "
             f"dealer {info['dealer']} · scores {info['scores']}"]
    if info["bids"]:
        lines.append("Bids: " + ", ".join(f"{b['seat']}:{b['bid']}" for b in info["bids"]))
    if info["pitcher"] is not None:
        lines.append(f"Pitcher seat {info['pitcher']}, contract {info['contract']}, "
                     f"trump {info['trump'] or '(set by the first card)'}")
    if info["tricks"]:
        t = info["tricks"][-1]
        lines.append("Last trick: " + " ".join(f"{s}:{c}" for s, c in t["plays"]) + f" → seat {t['winner']}")
    if info["trick"]:
        lines.append("Trick now: " + " ".join(f"{s}:{c}" for s, c in info["trick"]))
    lines.append(f"Points won this hand {info['points_won']}, game points {info['game_points']}, "
                 f"cards left {info['cards_left']}")
    lines.append("Your hand: " + " ".join(info["hand"]))
    return "\n".join(lines)
