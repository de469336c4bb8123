"""`pitch play` and `pitch replay` driven with scripted input, bad input included."""

import io
import json
import re

import pitch_cli
from agents.human import parse_move


def run(argv, stdin_text, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin_text))
    rc = pitch_cli.main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_a_person_plays_a_whole_game_and_saves_it(tmp_path, monkeypatch, capsys):
    path = tmp_path / "game.json"
    # Always the first legal move; bad answers first each time are asked again, never a crash.
    rc, out, _ = run(["play", "--variant", "setback", "--opponents", "heuristic", "--seed", "4",
                      "--save", str(path)], "banana\n0\n99\n?\n1\n" + "1\n" * 3000, monkeypatch, capsys)
    assert rc == 0
    assert "'banana' is not a legal move" in out
    assert "0 is not a move number" in out and "99 is not a move number" in out
    assert "Legal moves: 1)" in out
    assert "== Hand 1 result ==" in out
    assert "wins! Final scores" in out or "truncated" in out
    record = json.loads(path.read_text())
    assert record["format"] == "pitch-record/1" and record["winner"] is not None


def test_a_person_sees_only_their_own_cards(monkeypatch, capsys):
    rc, out, _ = run(["play", "--variant", "ten_point", "--opponents", "heuristic", "--seat", "2", "--seed", "6"],
                     "1\n" * 80, monkeypatch, capsys)
    assert rc == 0
    assert any(line.startswith("Your hand:") for line in out.splitlines())
    assert "dealt" not in out  # nobody's deal is shown during play
    # Another seat's discard is private: it is announced, but not which card.
    assert "discards a card" in out
    assert not re.search(r"seat \d \(heuristic\): discard [2-9TJQKABL]", out)


def test_end_of_input_stops_the_game_cleanly(tmp_path, monkeypatch, capsys):
    path = tmp_path / "partial.json"
    rc, out, err = run(["play", "--opponents", "random", "--seed", "2", "--save", str(path)], "1\n", monkeypatch,
                       capsys)
    assert rc == 0 and "Game stopped." in out and not err
    assert json.loads(path.read_text())["winner"] is None


def test_quit_stops_the_game(monkeypatch, capsys):
    rc, out, _ = run(["play", "--opponents", "heuristic", "--seed", "2"], "quit\n", monkeypatch, capsys)
    assert rc == 0 and "Game stopped." in out


def test_play_refuses_bad_arguments(monkeypatch, capsys):
    rc, _, err = run(["play", "--seat", "7"], "", monkeypatch, capsys)
    assert rc == 2 and "--seat 7" in err
    rc, _, err = run(["play", "--opponents", "heuristic,random"], "", monkeypatch, capsys)
    assert rc == 2 and "3 other seats" in err
    rc, _, err = run(["play", "--opponents", "wizard"], "", monkeypatch, capsys)
    assert rc == 2 and "pimc:N" in err


def test_moves_are_read_by_number_name_or_card():
    names = ["play 2H", "play AS", "play TD"]
    assert parse_move("2", names) == 1
    assert parse_move("play ts", names) != 2 and isinstance(parse_move("play ts", names), str)
    assert parse_move("  PLAY   td ", names) == 2
    assert parse_move("as", names) == 1
    assert parse_move("q", names) == "quit"
    assert parse_move("", names) == "help"
    assert parse_move("bid 2", ["pass", "bid 2"]) == 1


def test_replay_shows_a_saved_record_hand_by_hand(tmp_path, monkeypatch, capsys):
    path = tmp_path / "g.json"
    run(["play", "--opponents", "heuristic", "--seed", "9", "--save", str(path)], "1\n" * 3000, monkeypatch, capsys)
    rc, out, _ = run(["replay", str(path)], "", monkeypatch, capsys)
    assert rc == 0 and "── Hand 1" in out and "seat 0 dealt:" in out and "Winner:" in out
    rc, out, _ = run(["replay", str(path), "--hand", "1"], "", monkeypatch, capsys)
    assert rc == 0 and "── Hand 1" in out and "── Hand 2" not in out


def test_replay_refuses_what_is_not_a_record(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    rc, _, err = run(["replay", str(bad)], "", monkeypatch, capsys)
    assert rc == 2 and "not a JSON game record" in err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something-else"}))
    rc, _, err = run(["replay", str(other)], "", monkeypatch, capsys)
    assert rc == 2 and "not a pitch game record" in err
    rc, _, err = run(["replay", str(tmp_path / "missing.json")], "", monkeypatch, capsys)
    assert rc == 2 and "no such file" in err
