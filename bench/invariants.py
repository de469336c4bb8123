"""An independent referee for Pitch: invariants of a game state, and a full check of a game record.

Written from docs/rules.md with card names, not from the engine's tables, so that it can catch the
engine out. Used on every step by ``bench/soak.py`` and by ``tests/test_engine_properties.py``;
every check raises AssertionError saying what broke.
"""

from __future__ import annotations

from functools import lru_cache

from pitch_env.cards import CARD_NAMES, parse_card

RANKS = "23456789TJQKA"
SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}
GAME_VALUE = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}
EXCHANGE_HAND = 6  # docs/rules.md §5.6: hands are refilled to, and discarded down to, 6 cards


# ------------------------------------------------------------------ the trump suit, from names
@lru_cache(maxsize=None)
def trump_order(trump: str, deck: int, off_jack: bool) -> tuple[str, ...]:
    """Trumps, highest first (docs/rules.md §1 and §5.2)."""
    names = [r + trump for r in "AKQJ"]
    if off_jack:
        names.append("J" + SAME_COLOUR[trump])
    if deck == 54:
        names += ["BJ", "LJ"]
    return tuple(names + [r + trump for r in "T98765432"])


@lru_cache(maxsize=None)
def _masks(trump: str, deck: int, off_jack: bool) -> tuple[int, dict[str, int]]:
    """(trump mask, mask of each natural suit without its trumps) as card-int bitmasks."""
    trumps = 0
    for name in trump_order(trump, deck, off_jack):
        trumps |= 1 << parse_card(name)
    suits = {s: 0 for s in "CDHS"}
    for c in range(deck):
        name = CARD_NAMES[c]
        if name not in ("BJ", "LJ"):
            suits[name[1]] |= 1 << c
    return trumps, {s: m & ~trumps for s, m in suits.items()}


def suit_for_following(card: str, trump: str, deck: int, off_jack: bool) -> str:
    return trump if card in trump_order(trump, deck, off_jack) else card[1]


def allowed_plays(hand: list[str], trick_cards: list[str], trump: str | None, rules: dict) -> set[str]:
    """The cards a seat may play (docs/rules.md §3.4, §4.4, §5.7), from names only."""
    follow = rules["follow"]
    if follow == "any" or (not trick_cards and follow != "trumps_only"):
        return set(hand)
    order = trump_order(trump, rules["deck"], rules["off_jack"])
    if follow == "trumps_only":
        return {c for c in hand if c in order}
    led = suit_for_following(trick_cards[0], trump, rules["deck"], rules["off_jack"])
    same = {c for c in hand if suit_for_following(c, trump, rules["deck"], rules["off_jack"]) == led}
    return same | {c for c in hand if c in order} if same else set(hand)


def trick_winner(plays: list[tuple[int, str]], trump: str, rules: dict) -> int:
    order = trump_order(trump, rules["deck"], rules["off_jack"])
    trumps = [(order.index(c), seat) for seat, c in plays if c in order]
    if trumps:
        return min(trumps)[1]
    led = plays[0][1][1]
    return max((RANKS.index(c[0]), seat) for seat, c in plays if c[1] == led)[1]


# ------------------------------------------------------------------ a live game, every step
def check_state(game) -> None:
    """Every invariant of a live game: cards, hand sizes, and the legal actions by the rules."""
    check_cards(game)
    check_hand_sizes(game)
    if game.phase_name == "bid":
        check_legal_bids(game)
    elif game.phase_name == "play":
        check_legal_plays(game)


def check_cards(game) -> None:
    """Every card of the deck is in exactly one place: a hand, the trick on the table, a seat's
    won tricks, the exchange discards, or the stock not yet drawn (for the 52-card games, the
    undealt rest of the deck)."""
    r = game.rules
    places = list(game.hands) + list(game.captured)
    places.append(sum(1 << c for _, c in game.trick))
    places.append(sum(1 << c for d in game.discards for c in d))
    places.append(sum(1 << c for c in game.stock[game.stock_pos:]))
    union, count = 0, 0
    for m in places:
        union |= m
        count += m.bit_count()
    assert union == (1 << r.deck) - 1 and count == r.deck, \
        f"cards lost or doubled: {count} placed, {union.bit_count()} distinct, deck {r.deck}"


def check_hand_sizes(game) -> None:
    """hand_size cards until play; at most 6 after the exchange; one fewer per card played."""
    r = game.rules
    sizes = [h.bit_count() for h in game.hands]
    phase = game.phase_name
    if phase in ("bid", "declare"):
        assert sizes == [r.hand_size] * r.num_players, f"{phase}: hand sizes {sizes}"
    elif phase in ("stock", "discard"):
        trumps, _ = _masks("CDHS"[game.trump], r.deck, r.off_jack)
        for seat, size in enumerate(sizes):
            assert game.hands[seat] & ~trumps == 0, f"{phase}: seat {seat} still holds a non-trump"
            # Refills stop at 6; only trumps dealt, or the rest of the stock, can take a seat past it.
            assert size <= max(EXCHANGE_HAND, r.hand_size) or seat == game.stock_to, f"{phase}: seat {seat} holds {size}"
            if phase == "discard" and seat not in game.discard_queue:
                assert size <= EXCHANGE_HAND, f"discard: seat {seat} holds {size} and is not discarding"
    elif phase == "play":
        played = [0] * r.num_players
        for _, plays, _ in game.tricks:
            for seat, _ in plays:
                played[seat] += 1
        for seat, _ in game.trick:
            played[seat] += 1
        for seat in range(r.num_players):
            start = game.in_play[seat].bit_count()
            assert sizes[seat] == start - played[seat], f"seat {seat} holds {sizes[seat]}, began play with {start}"
            assert start <= EXCHANGE_HAND if r.uses_stock else start == r.hand_size, f"seat {seat} began with {start}"


def allowed_bids(bids: list[tuple[int, str]], seat: int, dealer: int, rules) -> set[str]:
    """The bids a seat may make (docs/rules.md §3.2, §4.2, §5.4), as action names."""
    high = max((_bid_value(b) for _, b in bids), default=0)
    is_dealer = seat == dealer
    stuck = is_dealer and rules.all_pass == "stick_dealer" and high == 0
    out = set() if stuck else {"pass"}
    if high == float("inf"):
        return out
    lowest = high if is_dealer and rules.dealer_may_steal and high > 0 else high + 1
    if stuck:
        lowest = max(lowest, rules.stick_min)
    out |= {f"bid {b}" for b in range(max(lowest, rules.min_bid), rules.max_bid + 1)}
    if rules.shoot == "moon" or (rules.shoot == "dealer_double" and is_dealer):
        out.add("bid shoot")
    return out


def check_legal_bids(game) -> None:
    from pitch_env.engine import bid_name

    bids = [(s, bid_name(b)) for s, b in game.bids]
    expected = allowed_bids(bids, game.current_seat, game.dealer, game.rules)
    engine = set(game.legal_action_names())
    assert engine == expected, f"seat {game.current_seat} may bid {sorted(engine)}; the rules say {sorted(expected)}"


def check_legal_plays(game) -> None:
    """The engine's legal plays equal the follow rule worked out here from the cards."""
    r = game.rules
    seat = game.current_seat
    hand = [CARD_NAMES[c] for c in game.hand_cards(seat)]
    trump = None if game.trump is None else "CDHS"[game.trump]
    trick = [CARD_NAMES[c] for _, c in game.trick]
    rd = {"follow": r.follow, "deck": r.deck, "off_jack": r.off_jack}
    if trump is None:  # trump_by=first_lead before the pitch: the first card is free
        assert r.trump_by == "first_lead" and not game.tricks and not trick
        expected = set(hand)
    else:
        expected = allowed_plays(hand, trick, trump, rd)
    engine = {n[5:] for n in game.legal_action_names()}
    assert engine == expected, f"seat {seat} may play {sorted(engine)}; the rules say {sorted(expected)}"
    assert expected, f"seat {seat} has no legal play"


# ------------------------------------------------------------------ a whole game record
def check_record(record: dict) -> None:
    """Referee a complete record hand by hand: deal, auction, exchange, every play, every point,
    every score, and the end of the game (docs/rules.md §1-§5)."""
    rules = record["rules"]
    n = rules["num_players"]
    sides = record["sides"]
    side_of = {seat: i for i, seats in enumerate(sides) for seat in seats}
    k = 2 if rules["partnerships"] else n
    assert sides == [list(range(i, n, k)) for i in range(k)], f"sides {sides}"
    scores = [0] * k
    winner = None
    hands = record["hands"]
    assert hands, "a record has at least one hand"
    for i, h in enumerate(hands):
        assert winner is None, "a hand was played after the game was won"
        assert h["number"] == i + 1
        if i:
            assert h["dealer"] == (hands[i - 1]["dealer"] + 1) % n, "the deal passes left"
        elif rules["first_dealer"] != "random":
            assert h["dealer"] == rules["first_dealer"]
        winner = _check_hand(h, rules, side_of, k, scores)
        assert h["scores"] == scores, f"hand {h['number']}: scores {h['scores']}, expected {scores}"
    assert record["final_scores"] == scores
    assert record["winner"] == winner, f"winner {record['winner']}, expected {winner}"
    truncated = winner is None
    assert record["truncated"] == truncated
    if truncated:
        assert len(hands) == rules["max_hands"], "a game without a winner stops only at max_hands"


def _bid_value(bid: str) -> float:
    return 0 if bid == "pass" else (float("inf") if bid == "shoot" else int(bid))


def _check_auction(h: dict, rules: dict, n: int) -> tuple[int | None, str | None]:
    dealer = h["dealer"]
    high, high_bidder, closed = 0, None, False
    for j, b in enumerate(h["bids"]):
        seat, bid = b["seat"], b["bid"]
        assert not closed, "a bid after the auction closed"
        assert seat == (dealer + 1 + j) % n, "one round from the dealer's left"
        is_dealer = seat == dealer
        stuck = is_dealer and rules["all_pass"] == "stick_dealer" and high_bidder is None
        value = _bid_value(bid)
        if bid == "pass":
            assert not stuck, "the stuck dealer passed"
            continue
        if bid == "shoot":
            assert rules["shoot"] == "moon" or (rules["shoot"] == "dealer_double" and is_dealer), "shoot not allowed"
        else:
            assert rules["min_bid"] <= value <= rules["max_bid"]
            if stuck:
                assert value >= rules["stick_min"]
        steal = is_dealer and rules["dealer_may_steal"] and high_bidder is not None and value == high
        assert value > high or steal, f"bid {bid} does not top {high}"
        high, high_bidder = value, seat
        end = rules["bid_ends_auction"]
        closed = end is not None and (bid == "shoot" or (end != "shoot" and value >= end))
    if not closed:
        assert len(h["bids"]) == n, "everyone speaks once"
    contract = None if high_bidder is None else ("shoot" if high == float("inf") else str(int(high)))
    return high_bidder, contract


def _check_hand(h, rules, side_of, k, scores) -> int | None:
    n, deck = rules["num_players"], rules["deck"]
    dealt = h["deal"]
    assert len(dealt) == n and all(len(d) == rules["hand_size"] for d in dealt)
    every = [c for d in dealt for c in d] + h.get("stock", [])
    assert len(set(every)) == len(every), "a card dealt twice"
    if "stock" in h:
        assert sorted(every) == sorted(CARD_NAMES[:deck]), "deal and stock hold the whole deck"
    pitcher, contract = _check_auction(h, rules, n)
    assert (h["pitcher"], h["contract"]) == (pitcher, contract)
    if pitcher is None:  # thrown in
        assert rules["all_pass"] == "redeal"
        assert h["trump"] is None and h["tricks"] == [] and h["awards"] == []
        assert h["score_change"] == [0] * k
        return None
    trump = h["trump"]
    order = trump_order(trump, deck, rules["off_jack"])
    holding = [set(d) for d in dealt]
    if "exchange" in h:
        holding = _check_exchange(h, rules, holding, order, pitcher, k)
    in_play = [set(s) for s in holding]
    captured_by = {}
    leader = pitcher
    for t_index, t in enumerate(h["tricks"]):
        seats = [(leader + i) % n for i in range(n) if holding[(leader + i) % n]]
        assert seats, "a trick with nobody holding cards"
        assert t["leader"] == seats[0], f"trick {t_index + 1}: leader {t['leader']}, expected {seats[0]}"
        assert [s for s, _ in t["plays"]] == seats, f"trick {t_index + 1}: play order"
        so_far = []
        for seat, card in t["plays"]:
            assert card in holding[seat], f"seat {seat} played {card} it does not hold"
            if t_index == 0 and not so_far and rules["trump_by"] == "first_lead":
                assert card[1] == trump, "the pitch sets trump"
                allowed = holding[seat]
            else:
                allowed = allowed_plays(sorted(holding[seat]), so_far, trump, rules)
            assert card in allowed, f"seat {seat} played {card}, not allowed by follow={rules['follow']}"
            holding[seat].discard(card)
            so_far.append(card)
        won = trick_winner([(s, c) for s, c in t["plays"]], trump, rules)
        assert t["winner"] == won, f"trick {t_index + 1}: winner {t['winner']}, expected {won}"
        for _, c in t["plays"]:
            captured_by[c] = won
        leader = won
    assert not any(holding), "the hand ended while someone still held cards"
    moon = _check_score(h, rules, side_of, k, scores, order, in_play, captured_by, pitcher, contract)
    return _winner_after(rules, side_of, k, scores, pitcher, moon)


def _check_exchange(h, rules, holding, order, pitcher, k):
    n, dealer = rules["num_players"], h["dealer"]
    ex, stock = h["exchange"], h["stock"]
    trumps = set(order)
    discards = [[c for c in d if c not in trumps] for d in h["deal"]]
    draws = [[] for _ in range(n)]
    holding = [{c for c in d if c in trumps} for d in holding]
    pos = 0

    def draw(seat, count):
        nonlocal pos
        taken = stock[pos:pos + count]
        pos += len(taken)
        draws[seat] += taken
        holding[seat] |= {c for c in taken if c in trumps}
        discards[seat] += [c for c in taken if c not in trumps]

    left_of_dealer = [(dealer + i) % n for i in range(1, n + 1)]
    for seat in left_of_dealer:
        if len(holding[seat]) < EXCHANGE_HAND:
            draw(seat, EXCHANGE_HAND - len(holding[seat]))
    if pos < len(stock):
        partner = (pitcher + k) % n
        allowed = {pitcher, partner} if rules["partnerships"] else {pitcher}
        assert ex["stock_to"] in allowed, f"rest of the stock to {ex['stock_to']}, allowed {allowed}"
        draw(ex["stock_to"], len(stock) - pos)
    else:
        assert ex["stock_to"] is None, "no stock decision without cards left"
    assert ex["draws"] == draws, "draws"
    for seat in left_of_dealer:
        extra = len(holding[seat]) - EXCHANGE_HAND
        chosen = ex["discards"][seat][len(discards[seat]):]
        assert len(chosen) == max(extra, 0), f"seat {seat} discarded {chosen} holding {len(holding[seat])} trumps"
        assert set(chosen) <= holding[seat]
        holding[seat] -= set(chosen)
        discards[seat] += chosen
    assert ex["discards"] == discards, "discards"
    return holding


def _check_score(h, rules, side_of, k, scores, order, in_play, captured_by, pitcher, contract) -> str | None:
    """Check the hand's awards and score change, add it to ``scores``; "win"/"lose" for a decisive moon."""
    game_points = [0] * k
    for card, seat in captured_by.items():
        game_points[side_of[seat]] += GAME_VALUE.get(card[0], 0)  # "B"/"L" of the jokers: 0
    awards = []
    if rules["scoring"] == "four_point":
        holder = {c: seat for seat, cards in enumerate(in_play) for c in cards}
        dealt_trumps = [c for c in order if c in holder]
        if dealt_trumps:
            high, low = dealt_trumps[0], dealt_trumps[-1]
            awards.append(("high", high, holder[high]))
            awards.append(("low", low, holder[low] if rules["low_to"] == "holder" else captured_by[low]))
            jack = "J" + h["trump"]
            if jack in holder:
                awards.append(("jack", jack, captured_by[jack]))
        best = max(game_points)
        awarded = [(a, c, s, side_of[s], 1) for a, c, s in awards]
        if game_points.count(best) == 1:
            awarded.append(("game", None, None, game_points.index(best), 1))
        top = 4
    else:  # ten_point; the referee reads the rules text itself, never the engine's scoring table
        assert rules["scoring"] == "ten_point", f"the referee does not know scoring {rules['scoring']!r}"
        values = {order[0]: 1, "J" + h["trump"]: 1, "T" + h["trump"]: 1, "3" + h["trump"]: 3, "2" + h["trump"]: 1}
        if rules["off_jack"]:
            values["J" + SAME_COLOUR[h["trump"]]] = 1
        if rules["deck"] == 54:
            values.update(BJ=1, LJ=1)
        awarded = [("card", c, captured_by[c], side_of[captured_by[c]], v)
                   for c, v in values.items() if c in captured_by]
        top = 10
    got = sorted((a["point"], a["card"] or "", a["seat"] if a["seat"] is not None else -1, a["side"], a["value"])
                 for a in h["awards"])
    want = sorted((p, c or "", s if s is not None else -1, side, v) for p, c, s, side, v in awarded)
    assert got == want, f"hand {h['number']} awards {got}, expected {want}"
    points = [0] * k
    for _, _, _, side, v in awarded:
        points[side] += v
    assert sum(points) <= top
    assert h["points_won"] == points and h["game_points"] == game_points
    side = side_of[pitcher]
    change = list(points)
    if contract == "shoot" and rules["shoot"] == "dealer_double":
        assert pitcher == h["dealer"], "only the dealer may shoot"
        made = points[side] == sum(points)
        change[side] = 8 if made else -8
    elif contract == "shoot":
        made = points[side] == top
        change[side] = -scores[side] if made and scores[side] <= 0 else 0
    else:
        made = points[side] >= int(contract)
        if not made:
            change[side] = -int(contract)
        elif rules["made_scores"] == "bid":
            change[side] = int(contract)
    assert h["made"] == made and h["score_change"] == change, \
        f"hand {h['number']}: made {h['made']} change {h['score_change']}, expected {made} {change}"
    moon = None
    if contract == "shoot" and rules["shoot"] == "moon":
        moon = "lose" if not made else ("win" if scores[side] > 0 else None)
    for s in range(k):
        scores[s] += change[s]
    return moon


def _winner_after(rules, side_of, k, scores, pitcher, moon) -> int | None:
    """docs/rules.md §3.7, §4.7, §5.9-10; a failed moon with several other sides goes to the best of
    them, a tie to the one seated first to the left (the engine's documented choice)."""
    side = side_of[pitcher]
    if moon == "win":
        return side
    if moon == "lose":
        others = [(side + i) % k for i in range(1, k)]
        best = max(scores[s] for s in others)
        return next(s for s in others if scores[s] == best)
    target = rules["target_score"]
    if rules["win_rule"] == "pitcher_only":
        return side if scores[side] >= target else None
    there = [s for s in range(k) if scores[s] >= target]
    if side in there:
        return side
    if not there:
        return None
    best = max(scores[s] for s in there)
    leaders = [s for s in there if scores[s] == best]
    return leaders[0] if len(leaders) == 1 else None
