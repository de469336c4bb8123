"""The information state: a seat's InfoState holds only what it may know, the readable infoset is
its formatting, and the worlds search builds from it (``Game.from_info_state``) are the real game's."""

import pickle
import random

import numpy as np

import pytest

import pitch_env
from pitch_env import Game
from pitch_env.cards import cards_in, mask_of
from pitch_env.engine import PHASES, bid_value
from pitch_env.infoset import infoset
from pitch_env.scoring import SHOOT

from conftest import act, bids, deal, game, tricks

CASES = [("setback", {}), ("setback", {"num_players": 3}), ("auction", {}), ("auction", {"num_players": 5}),
         ("auction", {"num_players": 6, "partnerships": True}), ("ten_point", {}),
         ("setback", {"follow": "any"}), ("setback", {"num_players": 2})]
IDS = ["setback", "setback3", "auction", "auction5", "auction6", "ten_point", "follow_any", "setback2"]


def decisions(variant, seed, hands=2, **options):
    """The games (live, mutated as play goes on) at every decision of random play, hand by hand."""
    g = pitch_env.Game(variant, seed=seed, max_hands=hands, **options)
    rng = random.Random(seed)
    while not g.is_over:
        yield g
        g.apply(rng.choice(g.legal_actions()))


def swapped(game, a, b):
    """A copy of ``game`` in which seat ``a`` holds, dealt that way, the first unplayed card of seat ``b``
    (None: the stock's last card) and gives its own first card in exchange: a world the same to
    everybody else."""
    ca = game.hand_cards(a)[0]
    twin = game.clone()
    if b is None:
        cb = game.stock[-1]
        twin.stock = game.stock[:-1] + (ca,)
        moves = ((a, ca, cb),)
    else:
        cb = game.hand_cards(b)[0]
        moves = ((a, ca, cb), (b, cb, ca))
    for seat, out, into in moves:
        twin.hands[seat] = twin.hands[seat] & ~(1 << out) | 1 << into
        if twin.in_play is not None:
            in_play = list(twin.in_play)
            in_play[seat] = in_play[seat] & ~(1 << out) | 1 << into
            twin.in_play = tuple(in_play)
    return twin


@pytest.mark.parametrize("variant,options", CASES, ids=IDS)
def test_a_seats_info_state_is_the_same_whichever_unseen_cards_the_others_hold(variant, options):
    checked = 0
    for seed in range(3):
        for g in decisions(variant, seed, **options):
            n = g.rules.num_players
            for seat in range(n):
                s = g.info_state(seat)
                assert s.hand == g.hands[seat]
                for other in range(n):  # no card another seat holds is anywhere in it
                    if other != seat:
                        assert not g.hands[other] & (s.hand | s.played | mask_of(s.discards + s.draws))
                holders = [o for o in range(n) if o != seat and g.hands[o]]
                if g.stock_pos < len(g.stock):
                    holders.append(None)
                if len(holders) >= 2 and holders[0] is not None:
                    twin = swapped(g, *holders[:2])
                    assert twin.info_state(seat) == s
                    assert twin.info_state(holders[0]) != g.info_state(holders[0])  # the test can fail
                    checked += 1
    assert checked > 100


def test_only_the_seat_to_move_sees_legal_actions():
    # a discard offers the mover's own cards: nobody else may see them
    for g in decisions("ten_point", 4, hands=1):
        for seat in range(4):
            s = g.info_state(seat)
            assert s.legal == (tuple(g.legal_actions()) if seat == g.current_seat else ())


def test_info_state_is_plain_picklable_data():
    g = pitch_env.Game("ten_point", seed=2)
    s = g.info_state(g.current_seat)
    assert pickle.loads(pickle.dumps(s)) == s
    with pytest.raises(AttributeError):
        s.hand = 0
    for name, value in s._asdict().items():
        if name != "rules":
            assert isinstance(value, (int, tuple, type(None))), name


def test_every_bid_action_decodes_to_the_bid_its_name_says():
    for variant, options in (("setback", {}), ("auction", {}), ("ten_point", {}), ("setback", {"shoot": "moon"})):
        g = pitch_env.Game(variant, seed=0, **options)
        names = g.layout.names
        for action, name in enumerate(names):
            if name == "pass" or name.startswith("bid "):
                word = name.removeprefix("bid ")
                expected = 0 if word == "pass" else SHOOT if word == "shoot" else int(word)
                assert bid_value(g.rules, action) == expected


# ---------------------------------------------------------------- the readable infoset, as it was
STUCK = deal(
    "AD 2S 3S 4S 5S 6S 7S 8S 9S", "AH 2C 3C 4C 5C 6C 7C 8C 9C", "KH TC JC QC KC AC 2D 3D 4D",
    "2H 5D 6D 7D 8D 9D TD QD KD", stock="QH JH JD BJ LJ  TH 9H 8H 7H 6H  5H 4H 3H AS KS  QS JS TS",
)


def test_readable_infoset_of_a_ten_point_hand_after_the_exchange():
    g = game("ten_point", STUCK)
    bids(g, "pass", "pass", "pass", "4")
    act(g, "trump H")
    tricks(g, "LJ TH 2H")
    act(g, "play BJ")
    assert infoset(g, 2) == {
        "variant": "ten_point", "seat": 2, "side": 0, "num_players": 4, "sides": [[0, 2], [1, 3]],
        "phase": "play", "hand_number": 1, "dealer": 0, "current_seat": 2,
        "hand": ["6H", "7H", "8H", "9H", "KH"],
        "bids": [{"seat": 1, "bid": "pass"}, {"seat": 2, "bid": "pass"}, {"seat": 3, "bid": "pass"},
                 {"seat": 0, "bid": "4"}],
        "high_bid": "4", "high_bidder": 0, "pitcher": 0, "contract": "4", "trump": "H", "leader": 1,
        "trick": [[1, "BJ"]],
        "tricks": [{"leader": 1, "plays": [[1, "LJ"], [2, "TH"], [3, "2H"]], "winner": 1}],
        "points_won": [0, 3], "game_points": [0, 10], "scores": [0, 0], "cards_left": [0, 4, 5, 3],
        "legal_actions": ["play 6H", "play 7H", "play 8H", "play 9H", "play KH"],
        "exchange": {"discards": ["TC", "JC", "QC", "KC", "AC", "2D", "3D", "4D"],
                     "draws": ["TH", "9H", "8H", "7H", "6H"], "stock_to": None, "draw_counts": [3, 5, 5, 5],
                     "stock_left": 0},
    }


def test_readable_infoset_of_a_setback_trick_in_progress():
    g = game("setback", deal("AS KS 2S 9H 3C 4D", "5C 6C 7C 8D 9D 3H", "TH JS 4C 5D 6D 7H", "8C 9C TC QD KD 2H"))
    act(g, "pass", "pass", "pass", "bid 1", "play AS", "play 3H")
    assert infoset(g, 2) == {
        "variant": "setback", "seat": 2, "side": 0, "num_players": 4, "sides": [[0, 2], [1, 3]],
        "phase": "play", "hand_number": 1, "dealer": 0, "current_seat": 2,
        "hand": ["4C", "5D", "6D", "7H", "TH", "JS"],
        "bids": [{"seat": 1, "bid": "pass"}, {"seat": 2, "bid": "pass"}, {"seat": 3, "bid": "pass"},
                 {"seat": 0, "bid": "1"}],
        "high_bid": "1", "high_bidder": 0, "pitcher": 0, "contract": "1", "trump": "S", "leader": 0,
        "trick": [[0, "AS"], [1, "3H"]], "tricks": [], "points_won": [0, 0], "game_points": [0, 0],
        "scores": [0, 0], "cards_left": [5, 5, 6, 6],
        "legal_actions": ["play 4C", "play 5D", "play 6D", "play 7H", "play TH", "play JS"],
    }


# ---------------------------------------------------------------- worlds for search
# A world does not replay the exchange: it starts play with the hands as they are.
EXCHANGE_HISTORY = ("rules", "discards", "draws", "draw_counts")


def public(s):
    return {k: v for k, v in s._asdict().items() if k not in EXCHANGE_HISTORY}


@pytest.mark.parametrize("variant,options", CASES, ids=IDS)
def test_a_world_from_the_info_state_and_the_true_cards_is_the_real_game_to_every_seat(variant, options):
    rng = random.Random(1)
    checked = 0
    for seed in range(4):
        for g in decisions(variant, seed, hands=3, **options):
            if PHASES[g.phase] not in ("bid", "declare", "play") or rng.random() > 0.3:
                continue
            seat = g.current_seat
            stock = tuple(g.stock[g.stock_pos:])  # the cards not dealt (in a stock game none are left in play)
            world = pitch_env.Game.from_info_state(g.info_state(seat), list(g.hands), stock)
            real, hand = g.clone(), g.hand_number
            while True:
                for s in range(g.rules.num_players):
                    assert public(world.info_state(s)) == public(real.info_state(s))
                if real.hand_number != hand or real.is_over:
                    break
                assert world.legal_actions() == real.legal_actions()
                action = rng.choice(real.legal_actions())
                real.apply(action)
                world.apply(action)
                if real.hand_number != hand:  # the world ends with the hand; the real game deals on
                    assert world.is_over and world.scores == real.scores
                    assert world.finished[-1].result.awards == real.finished[-1].result.awards
                    break
            checked += 1
    assert checked > 20


def test_a_world_refuses_cards_that_do_not_fit_the_info_state():
    g = pitch_env.Game("setback", seed=1)
    s = g.info_state(g.current_seat)
    hands = list(g.hands)
    with pytest.raises(ValueError, match="hidden_hands"):
        pitch_env.Game.from_info_state(s, [hands[0] | hands[1]] + hands[1:])
    with pytest.raises(ValueError, match="hidden_hands"):
        pitch_env.Game.from_info_state(s, hands[:-1])
    with pytest.raises(ValueError, match="seat to move"):
        pitch_env.Game.from_info_state(g.info_state((g.current_seat + 1) % 4), hands)
    assert cards_in(pitch_env.Game.from_info_state(s, hands).hands[s.seat]) == g.hand_cards(s.seat)


# ---------------------------------------------------------------- how agents get it
def test_an_agent_without_an_info_state_in_its_info_asks_its_env():
    env = pitch_env.env("auction")
    raw = env.unwrapped
    heuristic = pitch_env_agent(env, "heuristic")
    env.reset(seed=3)
    compared = 0
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert raw.info_state() == raw.info_state(name) == raw.game.info_state(raw.agent_name_mapping[name])
        action = heuristic.act(obs, info)
        assert action == heuristic.act(obs, {"info_state": raw.info_state(name)})
        compared += 1
        env.step(action)
    assert compared > 20


def pitch_env_agent(env, spec):
    from agents import make

    return make(spec, env)


@pytest.mark.parametrize("variant", ("setback", "auction", "ten_point"))
def test_training_and_search_read_the_heuristic_of_the_movers_info_state(variant):
    """rollout_action (PIMC's playouts, training's hint and heuristic seats) skips building the
    InfoState for card play and bids; it must hand the heuristic the same facts."""
    from agents.heuristic import heuristic_action
    from agents.rollout import rollout_action

    played = 0
    for seed in (0, 1, 2, 3, 4, 10, 89):  # in ten_point 10 and 89 play a seat's discarded trump count
        for g in decisions(variant, seed, hands=3):
            assert rollout_action(g) == heuristic_action(g.info_state(g.current_seat), g.layout)
            played += PHASES[g.phase] == "play" and len(g.legal_actions()) > 1
    assert played > 100


@pytest.mark.parametrize("variant,options", [("setback", {}), ("setback", {"num_players": 3}), ("auction", {"num_players": 5}),
                                             ("ten_point", {})])
def test_the_observation_is_the_encoding_of_the_seats_info_state_at_every_step(variant, options):
    """Observer.encode reads only the InfoState, and it agrees with the full table the env keeps
    up to date (LiveTable syncs from it) for every seat, at every step, the end of the game included."""
    from pitch_env.observer import Observer

    for seed in range(4):
        g = Game(variant, seed=seed, **options)
        observer = Observer(g.rules)
        rng = random.Random(seed)
        while True:
            table = observer.encode_table(g)
            for seat in range(g.rules.num_players):
                expected = table[observer.index[seat]]
                assert np.array_equal(observer.encode_info(g.info_state(seat)), expected)
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_actions()))


@pytest.mark.parametrize("variant,options", [("auction", {}), ("auction", {"num_players": 5}), ("setback", {})])
def test_the_envs_move_by_move_table_equals_a_fresh_encoding_at_every_step(variant, options):
    """LiveTable writes each bid and card play into the table instead of re-encoding it (the voids a play
    shows included): after every move each seat's view equals a fresh encoding of its InfoState, the
    voids exactly and the fractions up to float rounding; and auction's games do show voids."""
    from pitch_env.observer import LiveTable, Observer

    shown = 0
    for seed in range(3):
        g = Game(variant, seed=seed, **options)
        observer = Observer(g.rules)
        live = LiveTable(observer)
        live.sync(g)
        rng = random.Random(seed)
        while not g.is_over:
            seat, phase, hand = g.current_seat, g.phase, g.hand_number
            action = rng.choice(g.legal_actions())
            g.apply(action)
            live.after(g, seat, action, phase, hand)
            for s in range(g.rules.num_players):
                got, want = live.observe(s), observer.encode_info(g.info_state(s))
                assert np.allclose(got, want, atol=1e-6)
                assert np.array_equal(observer.views(got)["voids"], observer.views(want)["voids"])
            shown += bool(observer.views(live.observe(0))["voids"].any())
    assert shown > 0 if g.rules.follow == "follow_or_trump" else shown == 0
