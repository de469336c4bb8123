"""`pitch leaderboard`: every pair played as a duplicate tournament, the table and chart written, a
stopped leaderboard continued by the same command, bad arguments refused in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pitch_cli
from agents.leaderboard import entrants, run_leaderboard
from agents.stats import wilson
from agents.tournament import run_tournament

ROOT = Path(__file__).resolve().parent.parent


def tables(md: Path) -> str:
    """The leaderboard without its 'Played DATE on MACHINE, wall time' line."""
    return "\n".join(line for line in md.read_text().splitlines() if not line.startswith("Played "))


def test_a_tiny_leaderboard_writes_the_pairs_win_rates_ratings_and_a_chart(tmp_path, capsys):
    out = tmp_path / "board"
    assert pitch_cli.main(["leaderboard", "--variant", "setback", "--agents", "random,heuristic", "--games", "8",
                           "--seed", "3", "--out", str(out)]) == 0
    md = (out / "leaderboard.md").read_text()
    direct = run_tournament("setback", ["heuristic", "random"], games=8, seed=3)
    h = direct.stats[0]
    low, high = wilson(h.wins, h.games)
    row = next(line for line in md.splitlines() if line.startswith("| `heuristic` | —"))
    assert f"{100 * h.wins / h.games:.1f}% [{100 * low:.1f}%–{100 * high:.1f}%]" in row
    assert "`pitch leaderboard --variant setback --games 8 --seed 3 --agents random,heuristic`" in md
    assert "| 1 | `heuristic` |" in md and "± " in md  # ranked by rating, with its uncertainty
    assert (out / "leaderboard_setback.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / "leaderboard.json").read_text())["seed"] == 3
    assert sorted(p.name for p in (out / "games").iterdir()) == ["random--heuristic.jsonl"]
    assert "[1/1] random vs heuristic" in capsys.readouterr().out


def test_a_rerun_reads_the_games_back_instead_of_playing_them(tmp_path):
    first = run_leaderboard("setback", ["random", "heuristic"], games=6, seed=1, out=tmp_path)
    log = tmp_path / "games" / "random--heuristic.jsonl"
    before = log.read_text()
    again = run_leaderboard("setback", ["random", "heuristic"], games=6, seed=1, out=tmp_path)
    assert log.read_text() == before and again.pairs == first.pairs and again.ratings == first.ratings


def test_a_killed_leaderboard_continues_with_the_same_command_to_the_same_table(tmp_path):
    """SIGTERM mid-run, then the same command: the table equals an uninterrupted run's."""
    args = ["--variant", "setback", "--agents", "random,heuristic,pimc:1", "--games", "60", "--seed", "2"]
    cmd = [sys.executable, "-m", "pitch_cli", "leaderboard", *args]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    killed = tmp_path / "killed"
    proc = subprocess.Popen([*cmd, "--out", str(killed)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # the first pair is done: the second, with pimc, is being played
    assert line.startswith("[1/3]"), line + proc.stderr.read()
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, out + err
    assert "run the same command again to continue" in err and "Traceback" not in err
    assert "**Incomplete**" in (killed / "leaderboard.md").read_text()
    done = subprocess.run([*cmd, "--out", str(killed)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    fresh = tmp_path / "fresh"
    assert pitch_cli.main(["leaderboard", *args, "--out", str(fresh)]) == 0
    assert tables(killed / "leaderboard.md") == tables(fresh / "leaderboard.md")


@pytest.mark.parametrize("argv, says", [
    (["--games", "0"], "--games 0: play 1 to"),
    (["--workers", "0"], "--workers 0: use 1 or more"),
    (["--agents", "random"], "at least two agents"),
    (["--agents", "random,heuristic,random"], "lists random more than once"),
    (["--agents", "random,wizard"], "unknown agent spec 'wizard'"),
    (["--agents", "random,checkpoint:nosuch"], "no shipped agent named 'nosuch'"),
    (["--agents", "random,human"], "cannot seat 'human'"),
    (["--agents", "random,HUMAN"], "cannot seat 'human'"),
    (["--agents", "random,split:heuristic+human"], "cannot seat 'human'"),  # it would wait at the terminal
    (["--agents", "random,"], "an empty spec"),
])
def test_bad_arguments_are_refused_in_one_line(argv, says, tmp_path, capsys):
    assert pitch_cli.main(["leaderboard", "--agents", "random,heuristic", *argv, "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_an_out_folder_that_is_a_file_or_holds_another_leaderboard_is_refused(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    base = ["leaderboard", "--agents", "random,heuristic", "--games", "2"]
    assert pitch_cli.main([*base, "--out", str(tmp_path / "file")]) == 2
    assert "is a file; give a folder" in capsys.readouterr().err
    assert pitch_cli.main([*base, "--out", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    assert pitch_cli.main([*base, "--seed", "5", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert "holds the leaderboard of variant 'setback' with --seed 0" in err and len(err.splitlines()) == 1
    (tmp_path / "b" / "leaderboard.json").write_text("{" * 100000)
    assert pitch_cli.main([*base, "--out", str(tmp_path / "b")]) == 2
    assert "unreadable" in capsys.readouterr().err


def test_the_entrants_are_the_baselines_and_the_games_shipped_agents():
    assert entrants("setback") == ["random", "heuristic", "pimc:12", "checkpoint:setback", "checkpoint:setback_base",
                                   "checkpoint:setback_dealt", "checkpoint:setback_dealt_5m", "checkpoint:setback_fused",
                                   "checkpoint:setback_scratch", "checkpoint:setback_values"]
    assert entrants("auction") == ["random", "heuristic", "pimc:12", "checkpoint:auction", "checkpoint:auction_base",
                                   "checkpoint:auction_dealt_5m", "checkpoint:auction_scratch", "checkpoint:auction_scratch_ppo", "checkpoint:auction_values"]
    assert entrants("ten_point") == ["random", "heuristic", "pimc:12", "checkpoint:ten_point", "checkpoint:ten_point_base",
                                     "checkpoint:ten_point_bids", "checkpoint:ten_point_dealt", "checkpoint:ten_point_dealt_5m",
                                     "checkpoint:ten_point_distilled", "checkpoint:ten_point_fused", "checkpoint:ten_point_scratch",
                                     "checkpoint:ten_point_values32"]


def test_the_ratings_follow_the_record_not_the_order_the_games_came_in():
    """strong beats mid 110 of 200 and weak 190 of 200; mid beats weak every time. One OpenSkill pass
    in the order the pairs are played rates mid first (it met weak first, and its wins came early)."""
    from agents.leaderboard import ratings

    def pair(n, winner, loser, wins, games=200):
        return [((d, 0, n), [(winner, 1), (loser, 2)] if d < wins else [(winner, 2), (loser, 1)]) for d in range(games)]

    matches = pair(0, 1, 0, 200) + pair(1, 2, 0, 190) + pair(2, 2, 1, 110)
    rated = ratings(["weak", "mid", "strong"], matches)
    assert [r.name for r in sorted(rated, key=lambda r: -r.ordinal)] == ["strong", "mid", "weak"]
    assert ratings(["weak", "mid", "strong"], matches[::-1]) == rated
    assert all(0 < r.sigma < 5 for r in rated)
