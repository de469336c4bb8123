"""The JSON game record of docs/record.md: its keys, its values while a game runs and once it
ends, saving and loading, and replaying a record into the same game.
"""

import json
import random

import pytest

from pitch_env import Game, game_record, load_record, replay, save_record
from pitch_env.record import FORMAT, MAX_RECORD_BYTES, RecordError

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
    with pytest.raises(RecordError, match=r"notes.txt is not a pitch game record \(not valid JSON"):
        load_record(path)


# ---------------------------------------------------------------- hostile files: one line each

def one_line(e) -> str:
    text = str(e.value)
    assert "\n" not in text and len(text) < 400, text
    return text


@pytest.mark.parametrize("content, message", [
    (b"\xff\xfe not text", "is not UTF-8 text"),
    (b"[" * 1000 + b"]" * 1000, "too deeply|is not a pitch game record"),
    (b"[1, 2]", "holds a JSON list, expected an object"),
    (b'{"format": "pitch-policy/1"}', "format 'pitch-policy/1', expected 'pitch-record/1'"),
])
def test_load_refuses_what_is_not_a_record_in_one_line(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=message) as e:
        load_record(path)
    one_line(e)


def test_load_refuses_a_directory_and_a_missing_file(tmp_path):
    with pytest.raises(RecordError, match="is a directory"):
        load_record(tmp_path)
    with pytest.raises(RecordError, match="no such file"):
        load_record(tmp_path / "missing.json")


def test_load_caps_the_size_before_reading(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:  # sparse: costs no disk, reads as zeros
        f.truncate(MAX_RECORD_BYTES + 1)
    with pytest.raises(RecordError, match="larger than 10 MB, the limit for a game record") as e:
        load_record(path)
    one_line(e)


def test_a_thousand_deep_record_dict_is_refused_in_one_line():
    record = game_record(play_d1())
    deep = []
    for _ in range(1000):
        deep = [deep]
    record["hands"][0]["tricks"] = deep
    with pytest.raises(RecordError, match="hand 1, trick 1 is") as e:
        replay(record)
    one_line(e)


def hand_keys_missing():
    return [("top", key) for key in sorted(TOP_KEYS - {"format"})] + [("hand", key) for key in sorted(HAND_KEYS)]


@pytest.mark.parametrize("where, key", hand_keys_missing())
def test_a_missing_key_is_named(where, key):
    record = game_record(play_d1())
    del (record if where == "top" else record["hands"][0])[key]
    with pytest.raises(RecordError, match=f"lacks the key '{key}'") as e:
        replay(record)
    one_line(e)


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(hands="all of them"), "hands is 'all of them', expected a list"),
    (lambda r: r.update(seed="7"), "seed is '7', expected an integer"),
    (lambda r: r.update(rules=[1, 2]), "rules is \\[1, 2\\], expected an object"),
    (lambda r: r["rules"].update(target_score=[11]), "option 'target_score' is \\[11\\], expected one value"),
    (lambda r: r["rules"].update(target_score="eleven"), "the record's rules: rules option target_score"),
    (lambda r: r["hands"].__setitem__(0, [1]), "hand 1 is \\[1\\], expected an object"),
    (lambda r: r["hands"][0].update(bids=5), "hand 1: bids is 5, expected a list"),
    (lambda r: r["hands"][0]["bids"][0].update(seat="1"), "hand 1, bid 1: seat is '1', expected an integer"),
    (lambda r: r["hands"][0]["tricks"][0]["plays"].__setitem__(1, "3D"), "hand 1, trick 1, play 2 is '3D'"),
    (lambda r: r["hands"][0]["deal"].__setitem__(0, "AH 2H"), "hand 1, deal of seat 0 is 'AH 2H'"),
    (lambda r: r["hands"][0]["deal"][0].__setitem__(0, "KH"), "hand 1: its deal is not one these rules can deal"),
    (lambda r: r["hands"][0].update(made="yes"), "made is 'yes', expected true, false or null"),
])
def test_wrong_types_are_named(change, message):
    record = game_record(play_d1())
    change(record)
    with pytest.raises(RecordError, match=message) as e:
        replay(record)
    one_line(e)


# ---------------------------------------------------------------- records false to the rules

@pytest.mark.parametrize("change, message", [
    (lambda h: h["tricks"][0]["plays"].__setitem__(1, [1, "ZZ"]),
     "hand 1, trick 1, play 2 holds 'ZZ', which is not a card"),
    (lambda h: h["tricks"][0]["plays"].__setitem__(1, [1, "9D"]),
     "hand 1, trick 1, play 2: the record has seat 1 take 'play 9D', which the rules do not allow here"),
    (lambda h: h["tricks"][0].update(winner=2),
     "hand 1, trick 1: the winner is seat 0 by the rules, but the record says 2"),
    (lambda h: h["tricks"][1].update(leader=3), "hand 1, trick 2: seat 0 leads by the rules, but the record says 3"),
    (lambda h: h["tricks"][0]["plays"].__setitem__(1, [2, "3D"]),
     "hand 1, trick 1, play 2: seat 1 is to play, but the record has seat 2 play"),
    (lambda h: h["bids"][0].update(seat=2), "hand 1, bid 1: seat 1 is to bid, but the record has seat 2 bid"),
    (lambda h: h["bids"][3].update(bid="9"), "hand 1, bid 4: the record has seat 0 take 'bid 9', which the rules"),
    (lambda h: h["awards"][2].update(seat=3), "hand 1, award 3: seat is 1 by the rules, but the record says 3"),
    (lambda h: h["awards"].pop(), "hand 1: awards has 4 entries by the rules, but the record has 3"),
    (lambda h: h.update(points_won=[3, 1]), "hand 1: points_won is \\[2, 2\\] by the rules, but the record says \\[3, 1\\]"),
    (lambda h: h.update(game_points=[20, 9]), "hand 1: game_points is"),
    (lambda h: h.update(score_change=[2, 0]), "hand 1: score_change is \\[2, 2\\] by the rules"),
    (lambda h: h.update(scores=[999, 2]), "hand 1: scores is \\[2, 2\\] by the rules, but the record says \\[999, 2\\]"),
    (lambda h: h.update(made=False), "hand 1: made is True by the rules, but the record says False"),
    (lambda h: h.update(pitcher=1), "hand 1: pitcher is 0 by the rules"),
    (lambda h: h.update(trump="S"), "hand 1: trump is 'H' by the rules, but the record says 'S'"),
    (lambda h: h["tricks"].append({"leader": 0, "plays": [], "winner": None}), "tricks has 6 entries by the rules"),
    (lambda h: h.update(comment="hi"), "hand 1: the record has a key 'comment' that game records do not have"),
])
def test_a_record_false_to_the_rules_says_where(change, message):
    record = game_record(play_d1())
    change(record["hands"][0])
    with pytest.raises(RecordError, match=message) as e:
        replay(record)
    one_line(e)


def finished_record(seed=2) -> dict:  # a game won in 4 hands (random setback often runs to max_hands)
    return game_record(random_game("setback", seed=seed))


def test_wrong_final_scores_or_winner_are_named():
    record = finished_record()
    record["final_scores"] = [999, 999]
    with pytest.raises(RecordError, match="the game: final_scores is .* but the record says \\[999, 999\\]"):
        replay(record)
    record = finished_record()
    record["winner"] = 1 - record["winner"]
    with pytest.raises(RecordError, match=f"the game: winner is {1 - record['winner']} by the rules"):
        replay(record)
    record = finished_record()
    record["truncated"] = True
    with pytest.raises(RecordError, match="the game: truncated is False by the rules"):
        replay(record)


def test_a_record_going_on_after_the_game_is_over_is_refused():
    record = finished_record()
    record["hands"].append(record["hands"][-1])
    with pytest.raises(RecordError, match="the game is over after hand .* but the record goes on"):
        replay(record)


def test_a_record_missing_its_last_hands_is_refused():
    record = finished_record()
    n = len(record["hands"])
    del record["hands"][-1]
    with pytest.raises(RecordError, match=f"stops after hand {n - 1}, but the game is not over: hand {n} is missing"):
        replay(record)


def test_a_hand_cut_short_with_another_after_it_is_refused():
    record = game_record(play_d1())
    del record["hands"][0]["tricks"][3:]
    with pytest.raises(RecordError, match="hand 1: the record stops before the hand is over \\(seat . is to play\\), "
                                          "yet hand 2 follows"):
        replay(record)


def test_exchange_discards_that_are_not_the_rules_are_named():
    record = game_record(play_seven_trumps())
    discards = record["hands"][0]["exchange"]["discards"]
    discards[1] = ["3C", "2C", "QH"]  # the rules let go 2C then 3C (deal order) before any choice
    with pytest.raises(RecordError, match="hand 1, exchange: seat 1 lets go 2C 3C by the rules"):
        replay(record)


# ---------------------------------------------------------------- pitch replay

def run_replay(argv, capsys):
    import pitch_cli

    rc = pitch_cli.main(["replay", *argv])
    return rc, capsys.readouterr()


@pytest.mark.parametrize("content", [
    b"", b"\xff\xfe", b"[" * 1000 + b"]" * 1000, b'{"format": "pitch-record/1"}',
    b'{"format": "pitch-record/1", "variant": "setback", "rules": {}, "seed": 1, "sides": [], "hands": [{}], '
    b'"winner": null, "final_scores": [], "truncated": false}',
])
def test_pitch_replay_says_one_line_for_a_bad_file(tmp_path, capsys, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    rc, out = run_replay([str(path)], capsys)
    assert rc == 2 and out.out == ""
    assert out.err.startswith("pitch: ") and out.err.count("\n") == 1 and "Traceback" not in out.err


def test_pitch_replay_refuses_a_record_false_to_the_rules(tmp_path, capsys):
    record = game_record(play_d1())
    record["hands"][0]["scores"] = [999, 2]
    path = tmp_path / "game.json"
    save_record(record, path)
    rc, out = run_replay([str(path)], capsys)
    assert rc == 2 and out.out == ""
    assert out.err == f"pitch: {path}: hand 1: scores is [2, 2] by the rules, but the record says [999, 2]\n"


def test_pitch_replay_refuses_a_directory(tmp_path, capsys):
    rc, out = run_replay([str(tmp_path)], capsys)
    assert rc == 2 and "is a directory" in out.err and out.err.count("\n") == 1


def test_replay_refuses_a_record_of_another_format():
    record = game_record(play_d1())
    record["format"] = "pitch-record/0"
    with pytest.raises(ValueError, match="pitch-record/0.*expected 'pitch-record/1'"):
        replay(record)
