"""`pitch play` and `pitch replay` driven with scripted input, bad input included."""

import io
import json
import re
import signal
import subprocess

import pytest

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
    for human in ["human", "Human", "split:human+random", "split:random+human"]:  # one person at the terminal
        rc, _, err = run(["play", "--opponents", human], "", monkeypatch, capsys)
        assert rc == 2 and "not 'human'" in err


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
    assert rc == 2 and "not a pitch game record (not valid JSON" in err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something-else"}))
    rc, _, err = run(["replay", str(other)], "", monkeypatch, capsys)
    assert rc == 2 and "not a pitch game record" in err
    rc, _, err = run(["replay", str(tmp_path / "missing.json")], "", monkeypatch, capsys)
    assert rc == 2 and "no such file" in err


# ---------------------------------------------------------------- notation, reasons, interrupts
class Person:
    """Answers like a person who tries a card that does not follow suit (once), then plays move 1."""

    def __init__(self):
        self.shown, self.tried, self.reasons = [], set(), []

    def write(self, text=""):
        self.shown.append(str(text))

    def read(self, prompt=""):
        hand = next(t for t in reversed(self.shown) if t.startswith("Hand ") or "Your hand:" in t)
        cards = hand.split("Your hand: ")[-1].split()
        moves = next(t for t in reversed(self.shown) if t.startswith("Legal moves:"))
        legal = set(re.findall(r"play (\w\w)", moves))
        if "play " in moves and "must follow" not in self.tried:
            held_not_legal = [c for c in cards if c not in legal]
            if held_not_legal:
                self.tried.add("must follow")
                return held_not_legal[-1]
        if "play " in moves and "do not hold" not in self.tried and "AS" not in cards:
            self.tried.add("do not hold")
            return "AS"
        return "1"


def play_args(**kw):
    import argparse

    args = dict(variant="setback", num_players=None, partnerships=None, rule=[], opponents="heuristic", seat=0,
                seed=3, save=None)
    args.update(kw)
    return argparse.Namespace(**args)


def test_the_screen_explains_the_notation_and_why_a_move_is_illegal():
    from agents.cli import cmd_play

    person = Person()
    for seed in range(3, 12):  # until a deal gives a trick the person cannot follow with every card
        person = Person()
        assert cmd_play(play_args(seed=seed, rule=["follow=follow_or_trump"]), read=person.read,
                        write=person.write) == 0
        if any("you must follow" in t for t in person.shown):
            break
    text = "\n".join(person.shown)
    assert "T (ten)" in text and "C (clubs)" in text and "'2:3' (seat 2 bid 3)" in text
    assert re.search(r"'play \w\w' is not allowed: you must follow (clubs|diamonds|hearts|spades) or play a trump",
                     text) or re.search(r"you must follow the trump led", text)
    assert "is not allowed: you do not hold AS" in text or "'AS' is not a legal move" in text


def test_each_hand_result_shows_its_last_trick_first(monkeypatch, capsys):
    rc, out, _ = run(["play", "--opponents", "heuristic", "--seed", "5"], "1\n" * 3000, monkeypatch, capsys)
    assert rc == 0
    results = out.split("== Hand ")[1:]
    played = [r for r in results if "thrown in" not in r]
    assert played and all(re.search(r"result ==\n  last trick: (\d:\w\w ?)+ → seat \d\n  pitcher", r) for r in played)


def test_why_illegal_agrees_with_the_legal_moves_everywhere():
    import random

    import pitch_env

    for variant in ("setback", "auction", "ten_point"):
        g = pitch_env.Game(variant, seed=1)
        rng = random.Random(1)
        while not g.is_over:
            legal = set(g.legal_actions())
            assert all((g.why_illegal(a) == "") == (a in legal) for a in range(g.layout.size))
            g.apply(rng.choice(sorted(legal)))
        assert g.why_illegal(0) == "the game is over"


def test_a_bid_too_low_is_explained_by_the_auction_rule():
    import pitch_env

    g = pitch_env.Game("setback", seed=0)
    g.apply_name("bid 3")
    assert g.why_illegal(g.action_index("bid 2")) == "bid higher than 3"
    assert g.why_illegal(g.action_index("play AS")) == "now is the time to bid or pass, not to play"


def test_ctrl_c_saves_the_game_so_far(tmp_path):
    from agents.cli import cmd_play

    answers = iter(["1"] * 5)

    def read(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    path = tmp_path / "partial.json"
    shown = []
    assert cmd_play(play_args(save=str(path)), read=read, write=shown.append) == 0
    assert "Game stopped." in "\n".join(map(str, shown))
    record = json.loads(path.read_text())
    assert record["winner"] is None and record["hands"][0]["bids"]


def test_an_unwritable_save_path_fails_before_the_game(tmp_path, monkeypatch, capsys):
    rc, out, err = run(["play", "--save", str(tmp_path / "no" / "such" / "g.json")], "1\n", monkeypatch, capsys)
    assert rc == 2 and "--save" in err and "Your move" not in out and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- kills, lost input, the hint to save
def _play_process(path, stdin=subprocess.PIPE):
    import os
    import sys

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "pitch_cli", "play", "--seed", "3", "--save", str(path)],
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_kill_or_a_closed_terminal_saves_the_game_so_far(tmp_path, signum):
    path = tmp_path / "killed.json"
    p = _play_process(path)
    try:
        for line in p.stdout:  # the person's first turn: the game is waiting for a move
            if line.startswith("Legal moves:"):
                break
        p.send_signal(signum)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 0 and "Game stopped." in out and "Traceback" not in err, err
    record = json.loads(path.read_text())
    assert record["winner"] is None and record["hands"][0]["bids"]
    assert not list(tmp_path.glob(".*.tmp"))


def test_closed_standard_input_ends_in_one_line_and_saves_the_game(tmp_path):
    import sys

    path = tmp_path / "no-input.json"
    done = subprocess.run(f"{sys.executable} -m pitch_cli play --seed 3 --save {path} 0<&-", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "standard input" in done.stderr
    assert json.loads(path.read_text())["winner"] is None


def test_play_without_save_says_how_to_keep_the_game(monkeypatch, capsys):
    rc, out, _ = run(["play", "--opponents", "heuristic", "--seed", "2"], "quit\n", monkeypatch, capsys)
    assert rc == 0 and "add --save FILE" in out
    rc, out, _ = run(["play", "--opponents", "random", "--seed", "4", "--rule", "max_hands=1"], "1\n" * 60,
                     monkeypatch, capsys)
    assert rc == 0 and "truncated" in out and "add --save FILE" in out


# ---------------------------------------------------------------- replay: stopped games, labels, FIFOs
def test_replay_of_a_game_stopped_in_the_auction_says_so_and_closes(tmp_path, monkeypatch, capsys):
    path = tmp_path / "stopped.json"
    run(["play", "--opponents", "heuristic", "--seed", "2", "--save", str(path)], "quit\n", monkeypatch, capsys)
    assert json.loads(path.read_text())["hands"][0]["pitcher"] is None
    rc, out, _ = run(["replay", str(path)], "", monkeypatch, capsys)
    assert rc == 0 and "thrown in" not in out
    assert "stopped during the auction" in out and out.strip().splitlines()[-1].startswith("Stopped during hand 1")


def test_replay_refuses_a_record_whose_variant_is_not_its_rules(tmp_path, monkeypatch, capsys):
    path = tmp_path / "g.json"
    run(["play", "--opponents", "heuristic", "--seed", "9", "--save", str(path)], "1\n" * 3000, monkeypatch, capsys)
    record = json.loads(path.read_text())
    relabelled = tmp_path / "relabelled.json"
    relabelled.write_text(json.dumps(dict(record, variant="ten_point")))
    rc, out, err = run(["replay", str(relabelled)], "", monkeypatch, capsys)
    assert rc == 2 and "ten_point" not in out and len(err.strip().splitlines()) == 1
    assert "variant 'ten_point'" in err and "setback" in err
    # Rules changed from a preset are that preset's family: shown, with the header saying what changed.
    custom = tmp_path / "custom.json"
    run(["play", "--opponents", "heuristic", "--seed", "9", "--rule", "follow=follow_or_trump", "--save", str(custom)],
        "1\n" * 3000, monkeypatch, capsys)
    rc, out, _ = run(["replay", str(custom)], "", monkeypatch, capsys)
    assert rc == 0 and "rules changed from setback: follow='follow_or_trump'" in out.splitlines()[0]


def test_replay_refuses_a_fifo_without_waiting_for_a_writer(tmp_path):
    import os
    import sys

    fifo = tmp_path / "record.json"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "pitch_cli", "replay", str(fifo)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "not a regular file" in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------- the command list and the examples
def test_bare_pitch_lists_every_command_with_one_line_each(capsys):
    rc = pitch_cli.main([])
    out, err = capsys.readouterr()
    assert rc == 0 and not err and "error" not in out
    names = list(pitch_cli.build_parser()._subparsers._group_actions[0].choices)
    listed = [line.split()[0] for line in out.split("commands:\n")[1].splitlines()]
    assert listed == names and {"run", "train", "exit", "tournament", "play", "replay", "bench"} <= set(names)
    assert all(len(line.split()) > 2 for line in out.split("commands:\n")[1].splitlines())


def test_every_commands_help_ends_with_an_example_that_parses():
    import shlex

    parser = pitch_cli.build_parser()
    for name, command in parser._subparsers._group_actions[0].choices.items():
        text = command.format_help()
        assert "example: " in text, name
        example = " ".join(text.rsplit("example: ", 1)[1].split())  # the epilog, wrapped or not, is last
        assert example.startswith(f"pitch {name}"), (name, example)
        args = parser.parse_args(shlex.split(example)[1:])
        assert args.command == name


def test_under_nohup_a_closed_terminal_does_not_stop_a_tournament():
    import signal as sig

    from agents.cli_checks import term_as_interrupt

    previous = sig.signal(sig.SIGHUP, sig.SIG_IGN)
    try:
        with term_as_interrupt():
            assert sig.getsignal(sig.SIGHUP) is sig.SIG_IGN and sig.getsignal(sig.SIGTERM) is not sig.SIG_DFL
    finally:
        sig.signal(sig.SIGHUP, previous)


@pytest.mark.parametrize("argv, says", [
    (["--seconds", "-1"], "--seconds -1"), (["--seconds", "nan"], "--seconds nan"), (["--seconds", "0"], "above 0"),
    (["--seconds", "1e30"], "to 3600 seconds"), (["--repeat", "0"], "--repeat 0"), (["--repeat", "-5"], "1 to 100"),
    (["--only", "nothing"], "matches no environment"),
])
def test_bench_refuses_arguments_that_would_measure_nothing_or_never_end(argv, says, capsys):
    assert pitch_cli.main(["bench", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_bench_measures_the_environments_it_is_asked_for(capsys):
    assert pitch_cli.main(["bench", "--seconds", "0.05", "--repeat", "1", "--only", "pitch setback 4p"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("pitch ")]
    assert len(rows) == 1 and int(rows[0].split()[-1].replace(",", "")) > 0  # decisions made in the timed run
