"""Replaying a game record through the engine, checking it against the rules on the way.

The engine says whose turn it is and what is legal; the record only says what was chosen. Every move
must be legal and every fact the record states (trick winners, awards, points, scores, the winner) must
be what the engine computes; a RecordError names the first disagreement (hand, trick, field, values).
"""

from __future__ import annotations

import reprlib

from .cards import CARD_NAMES, parse_card
from .engine import Game
from .record import FORMAT, RecordError, game_record, hand_record
from .rules import differing_options, preset_of, rules as make_rules

HOW = "records are written by `pitch play --save` or pitch_env.game_record (docs/record.md)"

_repr = reprlib.Repr()  # bounded: a crafted value may be huge or nested a thousand deep
_repr.maxlevel, _repr.maxlist, _repr.maxdict, _repr.maxstring, _repr.maxother = 2, 8, 4, 40, 40


def _short(value) -> str:
    return _repr.repr(value)


# ---------------------------------------------------------------- shape: keys, types, card names

def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_KINDS = {
    "int": (_is_int, "an integer"),
    "int?": (lambda v: v is None or _is_int(v), "an integer or null"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "str?": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "bool?": (lambda v: v is None or isinstance(v, bool), "true, false or null"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "dict": (lambda v: isinstance(v, dict), "an object"),
}


def _field(obj: dict, key: str, kind: str, where: str):
    if key not in obj:
        raise RecordError(f"{where} lacks the key {key!r}; {HOW}")
    value = obj[key]
    ok, what = _KINDS[kind]
    if not ok(value):
        raise RecordError(f"{where}: {key} is {_short(value)}, expected {what}")
    return value


def _object(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise RecordError(f"{where} is {_short(value)}, expected an object; {HOW}")
    return value


def _card(value, where: str) -> None:
    if not isinstance(value, str):
        raise RecordError(f"{where} holds {_short(value)}, expected a card name such as 'AS' or 'TD'")
    try:
        parse_card(value)
    except ValueError:
        raise RecordError(f"{where} holds {_short(value)}, which is not a card (rank then suit: 'AS', 'TD', "
                          f"'2C'; jokers 'BJ', 'LJ')") from None


def _cards(value, where: str) -> None:
    if not isinstance(value, list):
        raise RecordError(f"{where} is {_short(value)}, expected a list of cards such as ['AS', 'TD']")
    for c in value:
        _card(c, where)


def _card_lists(obj: dict, key: str, where: str) -> None:
    for seat, cards in enumerate(_field(obj, key, "list", where)):
        _cards(cards, f"{where}, {key} of seat {seat}")


def check_record(record) -> None:
    """The record's shape: every key of docs/record.md with its type, and cards that are cards.
    Raises RecordError naming the first key that is missing or wrong."""
    if not isinstance(record, dict):
        raise RecordError(f"a game record is a JSON object, not {type(record).__name__}; {HOW}")
    if record.get("format") != FORMAT:
        raise RecordError(f"not a pitch game record: format {_short(record.get('format'))}, expected {FORMAT!r}")
    where = "the record"
    _field(record, "variant", "str", where)
    for key, value in _field(record, "rules", "dict", where).items():
        if not (value is None or isinstance(value, (str, int, float))):
            raise RecordError(f"the record's rules: option {_short(key)} is {_short(value)}, expected one value")
    _field(record, "seed", "int", where)
    _field(record, "sides", "list", where)
    _field(record, "winner", "int?", where)
    _field(record, "final_scores", "list", where)
    _field(record, "truncated", "bool", where)
    for n, h in enumerate(_field(record, "hands", "list", where), 1):
        _check_hand(_object(h, f"hand {n}"), f"hand {n}")


def _check_hand(h: dict, where: str) -> None:
    _field(h, "number", "int", where)
    _field(h, "dealer", "int", where)
    _card_lists(h, "deal", where)
    if "stock" in h:
        _cards(h["stock"], f"{where}, stock")
    for j, b in enumerate(_field(h, "bids", "list", where), 1):
        b = _object(b, f"{where}, bid {j}")
        _field(b, "seat", "int", f"{where}, bid {j}")
        _field(b, "bid", "str", f"{where}, bid {j}")
    _field(h, "pitcher", "int?", where)
    _field(h, "contract", "str?", where)
    _field(h, "trump", "str?", where)
    if "exchange" in h:
        ex = _object(h["exchange"], f"{where}, exchange")
        _field(ex, "stock_to", "int?", f"{where}, exchange")
        _card_lists(ex, "draws", f"{where}, exchange")
        _card_lists(ex, "discards", f"{where}, exchange")
    for t, trick in enumerate(_field(h, "tricks", "list", where), 1):
        at = f"{where}, trick {t}"
        trick = _object(trick, at)
        _field(trick, "leader", "int?", at)
        _field(trick, "winner", "int?", at)
        for k, play in enumerate(_field(trick, "plays", "list", at), 1):
            if not (isinstance(play, list) and len(play) == 2 and _is_int(play[0])):
                raise RecordError(f"{at}, play {k} is {_short(play)}, expected [seat, card] such as [0, 'AS']")
            _card(play[1], f"{at}, play {k}")
    for key in ("awards", "game_points", "points_won", "score_change", "scores"):
        _field(h, key, "list", where)
    _field(h, "made", "bool?", where)


# ---------------------------------------------------------------- replay, asking the engine

def replay(record, on_move=None) -> Game:
    """Play ``record`` through a fresh engine dealt its cards; returns the Game.

    Raises RecordError (one line) if the record is malformed, a move is illegal, or a fact it states
    (winners, awards, points, scores, the game's winner) is not what the rules give. ``on_move(game,
    hand, phase, seat, name)``, if given, is called after each move is taken and checked: the game as
    the move left it, the hand's number, the phase the move was made in, who made it and its name."""
    check_record(record)
    try:
        rules = make_rules(record["variant"], **record["rules"])
    except (TypeError, ValueError) as e:
        raise RecordError(f"the record's rules: {_line(e)}") from None
    _check_variant(record["variant"], rules.as_dict())
    hands = record["hands"]
    deals = [{"deal": h["deal"], "stock": h.get("stock") or []} for h in hands]
    game = _new_game(rules, record["seed"], deals)
    for n, h in enumerate(hands, 1):
        if game.is_over:
            raise RecordError(f"the game is over after hand {n - 1} ({_how_over(game)}), but the record goes on "
                              f"to hand {len(hands)}")
        _play_hand(game, h, n, on_move)
        if not game.is_over and game.hand_number == n:  # the record stops inside this hand
            if n < len(hands):
                raise RecordError(f"hand {n}: the record stops before the hand is over ({_to_move(game)}), "
                                  f"yet hand {n + 1} follows")
            break
        _compare(hand_record(game.finished[n - 1], rules), h, ["hands", n - 1])
    mine = game_record(game)
    if len(mine["hands"]) > len(hands):
        if not hands:
            raise RecordError(f"the record has no hands; even a game just begun records its first deal. {HOW}")
        raise RecordError(f"the record stops after hand {len(hands)}, but the game is not over: hand "
                          f"{len(hands) + 1} is missing")
    _compare(mine, record, [])
    return game


def _check_variant(variant: str, options: dict) -> None:
    """A record whose rules are exactly another preset's is that game under a wrong name (its header would
    lie). Rules changed from the named preset are a game of that preset's family and are shown as such."""
    exact = preset_of(options)
    if exact is None or exact == variant:
        return
    changed = differing_options(variant, options)
    raise RecordError(f"the record says variant {variant!r}, but its rules are exactly {exact}'s ({len(changed)} "
                      f"option(s) differ from {variant}'s, e.g. {changed[0]}={_short(options[changed[0]])}): set its "
                      f"variant to {exact!r}")


def _new_game(rules, seed: int, deals: list) -> Game:
    try:
        return Game(rules, seed=seed, deals=deals)
    except (TypeError, ValueError) as e:
        # Find the hand whose deal is wrong (only on this error path: one Game per hand).
        for n, d in enumerate(deals, 1):
            try:
                Game(rules, seed=seed, deals=[d])
            except (TypeError, ValueError) as bad:
                raise RecordError(f"hand {n}: its deal is not one these rules can deal: {_line(bad)}") from None
        raise RecordError(f"the record's deals: {_line(e)}") from None


def _play_hand(game: Game, h: dict, n: int, on_move=None) -> None:
    """Take hand ``n``'s recorded choices, in the order the engine asks for them, until the hand is
    over or the record has no more (a record saved mid-hand)."""
    bids = h["bids"]
    while not game.is_over and game.hand_number == n:
        phase, seat = game.phase_name, game.current_seat
        if phase == "bid":
            if len(game.bids) == len(bids):
                return
            where = f"hand {n}, bid {len(game.bids) + 1}"
            b = bids[len(game.bids)]
            if b["seat"] != seat:
                raise RecordError(f"{where}: seat {seat} is to bid, but the record has seat {_short(b['seat'])} bid")
            name = "pass" if b["bid"] == "pass" else f"bid {b['bid']}"
        elif phase == "declare":
            if h["trump"] is None:
                return
            where, name = f"hand {n}, trump", f"trump {h['trump']}"
        elif phase == "stock":
            stock_to = _exchange(h, n)["stock_to"]
            if stock_to is None:
                return
            where, name = f"hand {n}, exchange", "stock keep" if stock_to == game.pitcher else "stock give"
        elif phase == "discard":
            where = f"hand {n}, exchange"
            by_seat = _exchange(h, n)["discards"]
            recorded = by_seat[seat] if seat < len(by_seat) else []
            made = [CARD_NAMES[c] for c in game.discards[seat]]
            if recorded[:len(made)] != made:
                raise RecordError(f"{where}: seat {seat} lets go {' '.join(made)} by the rules before choosing, but "
                                  f"the record's discards begin {_short(recorded[:len(made)])}")
            if len(recorded) == len(made):
                return
            name = f"discard {recorded[len(made)]}"
        else:
            name, where = _next_play(game, h, n)
            if name is None:
                return
        try:
            game.apply_name(name)
        except ValueError:
            raise RecordError(f"{where}: the record has seat {seat} take {name!r}, which the rules do not allow "
                              f"here (legal: {', '.join(game.legal_action_names())})") from None
        if phase == "play":
            _check_trick_winner(game, h, n)
        if on_move is not None:
            on_move(game, n, phase, seat, name)


def _exchange(h: dict, n: int) -> dict:
    if "exchange" not in h:
        raise RecordError(f"hand {n} lacks the key 'exchange' (these rules use a stock); {HOW}")
    return h["exchange"]


def _next_play(game: Game, h: dict, n: int):
    """(action name, where) of the next recorded card, or (None, None) if the record has no more."""
    t, k = len(game.tricks), len(game.trick)
    if t == len(h["tricks"]) or k == len(h["tricks"][t]["plays"]):
        return None, None
    trick, where = h["tricks"][t], f"hand {n}, trick {t + 1}"
    if k == 0 and trick["leader"] != game.leader:
        raise RecordError(f"{where}: seat {game.leader} leads by the rules, but the record says "
                          f"{_short(trick['leader'])}")
    seat, card = trick["plays"][k]
    if seat != game.current_seat:
        raise RecordError(f"{where}, play {k + 1}: seat {game.current_seat} is to play, but the record has "
                          f"seat {seat} play")
    return f"play {card}", f"{where}, play {k + 1}"


def _check_trick_winner(game: Game, h: dict, n: int) -> None:
    """Once a trick is complete, its recorded winner must be the rules' winner."""
    tricks = game.finished[n - 1].tricks if len(game.finished) >= n else game.tricks
    t = len(tricks) - 1
    if t < 0 or t >= len(h["tricks"]) or len(tricks[t][1]) != len(h["tricks"][t]["plays"]):
        return
    winner, recorded = tricks[t][2], h["tricks"][t]["winner"]
    if recorded != winner:
        raise RecordError(f"hand {n}, trick {t + 1}: the winner is seat {winner} by the rules, but the record "
                          f"says {_short(recorded)}")


# ---------------------------------------------------------------- comparing what the engine computed

_PLACES = {"hands": "hand", "tricks": "trick", "bids": "bid", "awards": "award", "plays": "play"}
_MISSING = object()


def _compare(mine, theirs, path: list) -> None:
    """Raise RecordError at the first place ``theirs`` (the record) differs from ``mine`` (the engine's)."""
    found = _difference(mine, theirs, path)
    if found is None:
        return
    at, expected, recorded = found
    place, field = _describe(at)
    if expected is _MISSING:
        raise RecordError(f"{place}: the record has a key {field!r} that game records do not have")
    if recorded is _MISSING:
        raise RecordError(f"{place}: the record lacks {field!r} (the rules give {_short(expected)}); {HOW}")
    if isinstance(expected, list) and isinstance(recorded, list) and len(expected) != len(recorded):
        raise RecordError(f"{place}: {field} has {len(expected)} entries by the rules, but the record has "
                          f"{len(recorded)}")
    raise RecordError(f"{place}: {field or 'the entry'} is {_short(expected)} by the rules, but the record says "
                      f"{_short(recorded)}")


def _difference(mine, theirs, path: list):
    if isinstance(mine, dict):
        if not isinstance(theirs, dict):
            return path, mine, theirs
        for key in mine:
            if key not in theirs:
                return path + [key], mine[key], _MISSING
            found = _difference(mine[key], theirs[key], path + [key])
            if found:
                return found
        for key in theirs:
            if key not in mine:
                return path + [key], _MISSING, theirs[key]
        return None
    if isinstance(mine, list) and any(isinstance(v, (dict, list)) for v in mine):
        if not isinstance(theirs, list):
            return path, mine, theirs
        for i, (a, b) in enumerate(zip(mine, theirs)):
            found = _difference(a, b, path + [i])
            if found:
                return found
        return None if len(mine) == len(theirs) else (path, mine, theirs)
    return None if _same(mine, theirs) else (path, mine, theirs)


def _same(a, b) -> bool:
    """Equal with the same JSON type (true is not 1); lists of plain values element by element."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _describe(path: list) -> tuple[str, str]:
    """``["hands", 0, "tricks", 2, "winner"]`` → ``("hand 1, trick 3", "winner")``."""
    places, field, i = [], "", 0
    while i < len(path):
        key = path[i]
        if not field and key in _PLACES and i + 1 < len(path) and isinstance(path[i + 1], int):
            places.append(f"{_PLACES[key]} {path[i + 1] + 1}")
            i += 2
            continue
        field += f"[{key}]" if isinstance(key, int) else (f".{key}" if field else str(key))
        i += 1
    return ", ".join(places) or "the game", field


def _to_move(game: Game) -> str:
    verb = {"bid": "bid", "declare": "declare trump", "stock": "keep or give the stock", "discard": "discard",
            "play": "play"}[game.phase_name]
    return f"seat {game.current_seat} is to {verb}"


def _how_over(game: Game) -> str:
    if game.truncated:
        return f"truncated at max_hands={game.rules.max_hands}"
    return f"side {game.winner} won"


def _line(e: Exception) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 300 else text[:297] + "..."
