"""Shared helpers for the rules tests: games dealt from hands written in card notation.

A test writes each seat's cards (``"AS KH 2C …"``), the bids and the tricks card by card,
so a card player can check it against docs/rules.md without reading the engine.
"""

from __future__ import annotations

import random

import pytest

from pitch_env import Game, parse_cards
from pitch_env.record import hand_record

DECK_54 = ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD "
           "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS LJ BJ").split()


def deal(*hands: str, stock: str = "") -> dict:
    """One hand's cards: a string per seat (seat 0 first), and for ten_point the stock, top first."""
    return {"deal": [h.split() for h in hands], "stock": stock.split()}


def game(variant: str, *deals: dict, seed: int = 0, **options) -> Game:
    """A game whose first hands are dealt as written (later hands come from the seed)."""
    return Game(variant, seed=seed, deals=list(deals), **options)


def act(g: Game, *names: str) -> Game:
    """Take actions by name (``"pass"``, ``"bid 2"``, ``"trump H"``, ``"play AS"`` …) in order."""
    for name in names:
        g.apply_name(name)
    return g


def bids(g: Game, *bids: str) -> Game:
    """The auction, one entry per seat in turn: ``"pass"``, ``"2"``, ``"shoot"``."""
    return act(g, *("pass" if b == "pass" else f"bid {b}" for b in bids))


def tricks(g: Game, *tricks: str) -> Game:
    """Play tricks written as the cards in the order they fall: ``"AH 3D 7C TC"``.

    Each card tells whose turn it is (it is in exactly one hand); the engine refuses it if
    it is not that seat's turn or not a legal play."""
    for trick in tricks:
        for card in trick.split():
            seat = g.current_seat
            assert parse_cards(card)[0] in g.hand_cards(seat), f"{card} is not in seat {seat}'s hand (its turn)"
            g.apply_name(f"play {card}")
    return g


def play_out(g: Game) -> Game:
    """Finish the hand in progress, each seat playing its first legal action (for tests whose
    rule does not depend on how the cards fall)."""
    hand = g.hand_number
    while not g.is_over and g.hand_number == hand:
        g.apply(g.legal_actions()[0])
    return g


def last_hand(g: Game) -> dict:
    """The record of the last finished hand."""
    assert g.finished, "no hand has been finished yet"
    return hand_record(g.finished[-1], g.rules)


def awards(hand: dict) -> dict[str, dict]:
    """A four_point hand's awards by point name: ``{"high": {...}, "low": {...}, …}``."""
    return {a["point"]: a for a in hand["awards"]}


def card_awards(hand: dict) -> dict[str, dict]:
    """A ten_point hand's awards by card name."""
    return {a["card"]: a for a in hand["awards"]}


def legal(g: Game) -> set[str]:
    return set(g.legal_action_names())


def plays(*cards: str) -> set[str]:
    """``plays("AS", "KH")`` → ``{"play AS", "play KH"}``, to compare with ``legal``."""
    return {f"play {c}" for c in cards}


def random_game(variant: str, seed: int, **options) -> Game:
    """A whole game played by uniformly random legal actions (seeded)."""
    g = Game(variant, seed=seed, **options)
    rng = random.Random(seed)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    return g


@pytest.fixture
def rng() -> random.Random:
    return random.Random(12345)


@pytest.fixture
def within_seconds():
    """Fails a test that runs past 20 s instead of hanging the suite (a "billion laughs" walk would)."""
    import signal

    def boom(*_):
        raise TimeoutError("took more than 20 s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)
