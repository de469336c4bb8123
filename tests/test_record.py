"""The JSON game record of GAME_RECORD.md: its keys, its values while a game runs and once it
ends, saving and loading, and replaying a record into the same game.
"""

import json
import random

import pytest

from pitch_env import Game, game_record, load_record, replay, save_record
from pitch_env.record import FORMAT

from conftest import act, bids, game, last_hand, random_game, tricks
from test_rules_setback import HAND_D1, TRICKS_D1, play_d1
from test_rules_ten_point import SEVEN_TRUMPS, play_seven_trumps

TOP_KEYS = {"format", "variant", "rules", "seed", "sides", "hands", "winner", "final_scores", "truncated"}
HAND_KEYS = {"number", "dealer", "deal", "bids", "pitcher", "contract", "trump", "tricks", "awards",
             "game_points", "points_won", "made", "score_change", "scores"}


def test_record_has_the_keys_of_game_record_md():
    record = game_record(play_d1())
    assert set(record) == TOP_KEYS and record["format"] == FORMAT == "pitch-record/1"
    assert record["variant"] == "setback" and record["seed"] == 0
    assert set(record["rules"]) == {"num_players", "partnerships", "deck", "hand_size", "min_bid", "max_bid",
                                    "shoot", "bid_ends_auction", "all_pass", "stick_min", "dealer_may_steal",
                                    "trump_by", "follow", "scoring", "low_to", "made_scores", "target_score",
                                    "win_rule", "max_hands", "off_jack", "first_dealer"}
    hand = record["hands"][0]
    assert set(hand) == HAND_KEYS  # no stock or exchange: setback has no stock
    assert hand["deal"][0] == "AH 2H QS 4C 5C 6C".split()
    assert hand["tricks"][0] == {"leader": 0, "plays": [[0, "AH"], [1, "3D"], [2, "7C"], [3, "TC"]], "winner": 0}
    assert (hand["pitcher"], hand["contract"], hand["trump"]) == (0, "2", "H")


def test_stock_and_exchange_appear_where_the_rules_use_a_stock():
    hand = last_hand(play_seven_trumps())
    assert set(hand) == HAND_KEYS | {"stock", "exchange"}
    assert hand["stock"][:6] == "2S 3S 4S 5S 6S 7S".split() and len(hand["stock"]) == 18
    ex = hand["exchange"]
    assert set(ex) == {"stock_to", "draws", "discards"} and ex["stock_to"] == 3
    assert ex["draws"] == [["8S", "9S", "TS", "JS", "QS", "KS"], [], ["2S", "3S", "4S", "5S", "6S", "7S"],
                           ["AS", "KD", "AD", "4H", "3H", "2H"]]
    assert ex["discards"][1] == ["2C", "3C", "QH"]  # non-trumps first, then trumps over 6
    assert ex["discards"][3] == ["4C", "5C", "6C", "AS", "KD", "AD", "5H", "6H", "2H"]


def test_bids_are_action_names_without_the_word_bid():
    g = game("ten_point", SEVEN_TRUMPS)
    bids(g, "5", "pass", "shoot")
    assert game_record(g)["hands"][0]["bids"] == [
        {"seat": 1, "bid": "5"}, {"seat": 2, "bid": "pass"}, {"seat": 3, "bid": "shoot"}]


def test_awards_name_point_card_seat_and_side():
    hand = last_hand(play_d1())
    assert hand["awards"] == [
        {"point": "high", "card": "AH", "seat": 0, "side": 0, "value": 1},
        {"point": "low", "card": "2H", "seat": 0, "side": 0, "value": 1},
        {"point": "jack", "card": "JH", "seat": 1, "side": 1, "value": 1},
        {"point": "game", "card": None, "seat": None, "side": 1, "value": 1},
    ]
    ten = last_hand(play_seven_trumps())
    assert {"point": "card", "card": "3H", "seat": 1, "side": 1, "value": 3} in ten["awards"]
    assert all(a["point"] == "card" for a in ten["awards"])


def test_values_by_side_and_the_end_of_the_game():
    g = play_d1(target_score=2)
    record = game_record(g)
    hand = record["hands"][0]
    assert (hand["game_points"], hand["points_won"], hand["made"]) == ([14, 16], [2, 2], True)
    assert (hand["score_change"], hand["scores"]) == ([2, 2], [2, 2])
    assert (record["winner"], record["final_scores"], record["truncated"]) == (0, [2, 2], False)


def test_record_while_running_holds_what_was_played_so_far():
    g = game("setback", HAND_D1)
    bids(g, "pass", "pass", "pass", "2")
    tricks(g, TRICKS_D1[0])
    act(g, "play 2H", "play KH")
    record = game_record(g)
    assert record["winner"] is None and record["truncated"] is False
    hand = record["hands"][0]
    assert hand["tricks"][-1] == {"leader": 0, "plays": [[0, "2H"], [1, "KH"]], "winner": None}
    assert (hand["awards"], hand["made"], hand["score_change"]) == ([], None, [0, 0])


def test_thrown_in_hand_record():
    g = game("setback", HAND_D1)
    bids(g, "pass", "pass", "pass", "pass")
    hand = game_record(g)["hands"][0]
    assert (hand["pitcher"], hand["contract"], hand["trump"]) == (None, None, None)
    assert (hand["tricks"], hand["awards"], hand["score_change"]) == ([], [], [0, 0])


def test_truncated_record_has_no_winner():
    g = play_d1(max_hands=1)
    record = game_record(g)
    assert (record["winner"], record["truncated"], record["final_scores"]) == (None, True, [2, 2])
    assert len(record["hands"]) == 1


def test_finished_hands_never_change():
    g = game("setback", HAND_D1, HAND_D1)
    bids(g, "pass", "pass", "pass", "pass")
    first = json.loads(json.dumps(game_record(g)["hands"][0]))
    bids(g, "2", "pass")
    assert game_record(g)["hands"][0] == first


def test_a_record_saved_at_any_moment_replays_to_the_same_record():
    """Mid-auction, mid-exchange (stock choice, discards by choice) and mid-trick records all replay."""
    g = Game("ten_point", seed=5)
    rng = random.Random(5)
    while not g.is_over:
        record = game_record(g)
        assert game_record(replay(record)) == record, f"at hand {g.hand_number}, {g.phase_name} phase"
        g.apply(rng.choice(g.legal_actions()))


@pytest.mark.parametrize("variant, options", [
    ("setback", {}), ("setback", {"num_players": 3}), ("auction", {"num_players": 5}),
    ("auction", {"num_players": 6, "partnerships": True}), ("ten_point", {}),
    ("setback", {"shoot": "dealer_double", "first_dealer": "random"}),
])
def test_replay_gives_the_same_record(variant, options):
    record = game_record(random_game(variant, seed=21, max_hands=12, **options))
    assert game_record(replay(record)) == record


def test_replay_of_written_hands():
    record = game_record(play_seven_trumps())
    assert game_record(replay(record)) == record


def test_save_and_load_round_trip(tmp_path):
    record = game_record(random_game("auction", seed=4, max_hands=10))
    path = tmp_path / "game.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded == record and game_record(replay(loaded)) == record


def test_load_refuses_a_file_that_is_not_json(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("AS KH 2C")
    with pytest.raises(ValueError, match="notes.txt is not a JSON game record"):
        load_record(path)


def test_replay_refuses_a_record_of_another_format():
    record = game_record(play_d1())
    record["format"] = "pitch-record/0"
    with pytest.raises(ValueError, match="pitch-record/0.*expected 'pitch-record/1'"):
        replay(record)
