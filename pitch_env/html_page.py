"""A game record as one self-contained web page: the table, every move, the points and the score.

The record is replayed through the engine (replay.py), which checks it and gives each seat's cards
after every move; the page embeds that timeline as JSON and a small script steps through it. Every
fact the page shows comes from the record or the engine; the script only draws.
"""

from __future__ import annotations

import html
import json
import os
from importlib import resources
from pathlib import Path

from .cards import BJ, CARD_NAMES, LJ, RANKS, SUITS
from .replay import replay

_SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
# Hands are shown suit by suit, colours alternating, high cards first, jokers in front.
_SUIT_ORDER = {"S": 0, "H": 1, "C": 2, "D": 3}
_POINT_NAMES = {"high": "High", "low": "Low", "jack": "Jack", "game": "Game", "card": "Card"}


def pretty(card: str) -> str:
    """``"TH"`` → ``"10♥"``, ``"BJ"`` → ``"big joker"``: a card as the page writes it in words."""
    if card == CARD_NAMES[BJ]:
        return "big joker"
    if card == CARD_NAMES[LJ]:
        return "little joker"
    rank = "10" if card[0] == "T" else card[0]
    return rank + _SUIT_SYMBOLS[card[1]]


def _sort_key(card: str):
    if card in (CARD_NAMES[BJ], CARD_NAMES[LJ]):
        return (-1, card != CARD_NAMES[BJ])
    return (_SUIT_ORDER[card[1]], -RANKS.index(card[0]))


def _held(cards) -> list[str]:
    return sorted(cards, key=_sort_key)


def _bid_text(bid: str) -> str:
    return {"pass": "pass", "shoot": "shoot the moon"}.get(bid, f"bid {bid}")


def _side_text(sides, side: int) -> str:
    seats = sides[side]
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return f"side {side} (seats {' + '.join(map(str, seats))})"


class _Moves:
    """What the engine shows after each move of the replay: the move and, while its hand goes on,
    every seat's cards, the seat to move and the trump cards (jokers and off-jack included)."""

    def __init__(self):
        self.by_hand: dict[int, list[dict]] = {}
        self.trumps: dict[int, list[str]] = {}

    def __call__(self, game, n, phase, seat, name):
        live = len(game.finished) < n  # the hand's last card moves the engine on to the next deal
        move = {"phase": phase, "seat": seat, "name": name, "hands": None, "turn": None, "trump": None}
        if live:
            move["trump"] = None if game.trump is None else SUITS[game.trump]
            move["hands"] = [_held(CARD_NAMES[c] for c in game.hand_cards(s)) for s in range(game.rules.num_players)]
            move["turn"] = game.current_seat
            if n not in self.trumps and game.table is not None:
                self.trumps[n] = [CARD_NAMES[c] for c in range(len(CARD_NAMES)) if game.table.trump_mask >> c & 1]
        self.by_hand.setdefault(n, []).append(move)


def timeline(record, players=None) -> dict:
    """The page's data: the game's facts and one frame per thing shown (a deal, a move, a hand's
    result, the outcome). ``players``: a label per seat (agent specs), or None.

    Raises RecordError (one line) when the record is malformed or false to the rules (replay.py)."""
    moves = _Moves()
    game = replay(record, on_move=moves)
    rules, sides = record["rules"], record["sides"]
    n_seats = game.rules.num_players
    if players is not None and len(players) != n_seats:
        raise ValueError(f"players: {len(players)} labels for {n_seats} seats; give one per seat")
    seats = [{"seat": s, "player": None if players is None else str(players[s]),
              "side": next(i for i, seats in enumerate(sides) if s in seats)} for s in range(n_seats)]
    hands, frames = [], []
    scores = [0] * len(sides)
    for i, h in enumerate(record["hands"]):
        complete = i < len(game.finished)
        hands.append(_hand_facts(h, scores, complete, moves.trumps.get(h["number"], [])))
        frames.extend(_hand_frames(i, h, moves.by_hand.get(h["number"], []), n_seats, scores, complete, sides))
        if complete:
            scores = list(h["scores"])
    frames.append(_outcome_frame(record, game, frames[-1], sides))
    return {
        "format": record["format"],
        "variant": record["variant"],
        "seed": record["seed"],
        "rules": {k: rules[k] for k in ("num_players", "partnerships", "target_score", "scoring", "trump_by")},
        "sides": sides,
        "seats": seats,
        "hands": hands,
        "frames": frames,
        "outcome": frames[-1]["text"],
        "winner": record["winner"],
        "final_scores": record["final_scores"],
    }


def _hand_facts(h: dict, scores_before, complete: bool, trumps: list[str]) -> dict:
    thrown_in = complete and h["pitcher"] is None
    facts = {
        "number": h["number"], "dealer": h["dealer"], "pitcher": h["pitcher"], "contract": h["contract"],
        "contract_text": None if h["contract"] is None else _bid_text(h["contract"]),
        "trump": h["trump"], "trump_symbol": None if h["trump"] is None else _SUIT_SYMBOLS[h["trump"]],
        "trumps": trumps, "complete": complete, "thrown_in": thrown_in,
        "scores_before": list(scores_before),
        "tricks": len([t for t in h["tricks"] if t["winner"] is not None]),
    }
    if complete and not thrown_in:
        facts.update(
            awards=[{"point": _POINT_NAMES.get(a["point"], a["point"]), "card": a["card"], "seat": a["seat"],
                     "side": a["side"], "value": a["value"]} for a in h["awards"]],
            game_points=h["game_points"], points_won=h["points_won"], made=h["made"],
            score_change=h["score_change"], scores=h["scores"])
    if "exchange" in h:
        ex = h["exchange"]
        facts["exchange"] = {"stock_to": ex["stock_to"], "draws": ex["draws"], "discards": ex["discards"]}
    return facts


def _hand_frames(i: int, h: dict, moves: list[dict], n_seats: int, scores, complete: bool, sides) -> list[dict]:
    """The deal, one frame per move, and the hand's result once it is over."""
    frame = {"h": i, "kind": "deal", "seat": h["dealer"], "text": f"Hand {h['number']}: seat {h['dealer']} deals",
             "hands": [_held(cards) for cards in h["deal"]], "trick": [], "winner": None, "leader": None,
             "turn": None, "trump": None, "bids": [None] * n_seats, "won": [0] * n_seats, "scores": list(scores), "sheet": i}
    frames = [frame]
    plays = iter([(t, trick, k) for t, trick in enumerate(h["tricks"]) for k in range(len(trick["plays"]))])
    for m in moves:
        frame = dict(frame, kind=m["phase"], seat=m["seat"], turn=m["turn"], winner=None,
                     trump=m["trump"] if m["hands"] is not None else h["trump"],
                     bids=list(frame["bids"]), won=list(frame["won"]))
        seat, name = m["seat"], m["name"]
        if m["phase"] == "bid":
            bid = name.removeprefix("bid ")
            frame["bids"][seat] = _bid_text(bid)
            frame["text"] = f"Seat {seat}: {_bid_text(bid)}"
        elif m["phase"] == "declare":
            frame["text"] = f"Seat {seat} names trump: {_SUIT_SYMBOLS[name[-1]]}"
            if "exchange" in h:
                frame["text"] += "; the seats let go their other cards and draw from the stock"
        elif m["phase"] == "stock":
            to = h["exchange"]["stock_to"]
            frame["text"] = (f"Seat {seat} keeps the rest of the stock" if name == "stock keep" else
                             f"Seat {seat} gives the rest of the stock to seat {to}")
        elif m["phase"] == "discard":
            frame["text"] = f"Seat {seat} discards {pretty(name.split()[1])}"
        else:
            t, trick, k = next(plays)
            card = trick["plays"][k][1]
            frame["trick"], frame["leader"] = [list(p) for p in trick["plays"][:k + 1]], trick["leader"]
            frame["text"] = f"Seat {seat} plays {pretty(card)}"
            if k + 1 == len(trick["plays"]) and trick["winner"] is not None:
                frame["winner"] = trick["winner"]
                frame["won"][trick["winner"]] += 1
                frame["text"] += f"; seat {trick['winner']} wins trick {t + 1}"
        frame["hands"] = m["hands"] if m["hands"] is not None else _without(frame["hands"], seat, name)
        frames.append(frame)
    if complete:
        frames.append(dict(frame, kind="end", seat=None, turn=None, winner=None, trick=[], leader=None,
                           text=_result_text(h, sides), scores=list(h["scores"]), sheet=i + 1))
    return frames


def _without(hands, seat: int, name: str) -> list:
    """The hand's last card leaves the engine's view of it; take it from the seat's cards shown."""
    card = name.split()[-1]
    return [[c for c in cards if not (s == seat and c == card)] for s, cards in enumerate(hands)]


def _result_text(h: dict, sides) -> str:
    if h["pitcher"] is None:
        return f"Hand {h['number']}: everybody passed, the hand is thrown in"
    won = " to ".join(map(str, h["points_won"]))
    verdict = "made" if h["made"] else "was set on"
    return (f"Hand {h['number']}: seat {h['pitcher']} {verdict} {_bid_text(h['contract'])}; points {won}; "
            f"score {' to '.join(map(str, h['scores']))}")


def _outcome_frame(record, game, last: dict, sides) -> dict:
    scores = " to ".join(map(str, record["final_scores"]))
    if record["winner"] is not None:
        text = f"{_side_text(sides, record['winner']).capitalize()} wins the game, {scores}"
    elif record["truncated"]:
        text = f"The game stopped at its hand limit without a winner, {scores}"
    else:
        text = f"The record ends here, before the game is over ({scores})"
    return dict(last, kind="over", seat=None, turn=None, text=text, sheet=len(game.finished))


# ---------------------------------------------------------------- the page

def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _json_for_script(data) -> str:
    # Inside <script>, "</script>" or "<!--" in a label would end the block: escape <, > and &.
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


# Nothing may load from the network when the page is viewed: no src, href or font from elsewhere.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def page(record, players=None, title: str | None = None, back: str | None = None) -> str:
    """The page of ``record`` as HTML text. ``players``: a label per seat; ``back``: a relative link
    shown at the top (a tournament's index)."""
    data = timeline(record, players)
    if title is None:
        title = f"{record['variant']} · seed {record['seed']}"
    data["title"] = title
    data["back"] = back
    return _document(title, "viewer", _json_for_script(data))


def index_page(title: str, intro: str, rows: list[dict]) -> str:
    """A page of links to game pages: each row has ``href``, ``caption`` and ``outcome``."""
    items = "\n".join(
        f'<li><a href="{html.escape(r["href"], quote=True)}">{html.escape(r["caption"])}</a>'
        f'<span>{html.escape(r["outcome"])}</span></li>' for r in rows)
    body = (f"<main class=\"index\"><h1>{html.escape(title)}</h1><p>{html.escape(intro)}</p>"
            f"<ol class=\"games\">{items}</ol></main>")
    return _shell(title, body)


def _document(title: str, kind: str, data: str) -> str:
    body = (f'<div id="app" class="{kind}"><noscript>This page draws the game with JavaScript; '
            f'<code>pitch replay FILE</code> prints it as text.</noscript></div>\n'
            f'<script type="application/json" id="game-data">{data}</script>\n'
            f"<script>\n{_asset('html_page.js')}</script>")
    return _shell(title, body)


def _shell(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
            f"<title>{html.escape(title)}</title>\n<style>\n{_asset('html_page.css')}</style>\n</head>\n"
            f"<body>\n{body}\n</body>\n</html>\n")


def write_text(text: str, path) -> None:
    """Write beside ``path`` and rename into place: a kill leaves the old file or the new, no half page."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_page(record, path, players=None, title: str | None = None, back: str | None = None) -> None:
    write_text(page(record, players, title, back), path)
