"""Duplicate tournaments: seat rotation, reproducibility, the statistics and the reports."""

import csv
import json
from collections import Counter

import pytest

import pitch_cli
import pitch_env
from agents.stats import openskill_ratings, wilson
from agents.tournament import _play_deal as _real_play_deal
from agents.tournament import deal_seed, run_tournament, seatings


@pytest.mark.parametrize("variant, options, agents", [
    ("setback", {}, 2),  # partnerships: the teams, then swapped
    ("auction", {}, 2),  # 4 solo seats, 2 agents: ABAB then BABA
    ("auction", {}, 3),
    ("auction", dict(num_players=5), 3),
    ("auction", dict(num_players=6, partnerships=True), 3),
    ("ten_point", {}, 4),
])
def test_duplicate_schedule_gives_each_agent_every_seat_equally(variant, options, agents):
    rules = pitch_env.rules(variant, **options)
    rotations = seatings(rules, agents)
    counts = Counter((agent, seat) for seating in rotations for seat, agent in enumerate(seating))
    assert len(set(counts.values())) == 1, counts
    assert {a for a, _ in counts} == set(range(agents))
    assert {s for _, s in counts} == set(range(rules.num_players))
    if rules.partnerships:  # partners are always the same agent
        for seating in rotations:
            for side in rules.sides:
                assert len({seating[s] for s in side}) == 1


def test_two_agents_at_four_solo_seats_alternate_and_then_swap():
    assert seatings(pitch_env.rules("auction"), 2) == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert seatings(pitch_env.rules("setback"), 2) == [[0, 1, 0, 1], [1, 0, 1, 0]]


def test_partnerships_need_an_agent_per_side():
    with pytest.raises(ValueError, match="solo"):
        seatings(pitch_env.rules("setback"), 1)


def test_every_seating_of_a_deal_plays_the_same_cards():
    result = run_tournament("setback", ["heuristic", "random"], games=4, seed=3, max_hands=2)
    by_deal = {}
    for g in result.games:
        by_deal.setdefault(g.deal, set()).add(g.env_seed)
    assert all(len(seeds) == 1 for seeds in by_deal.values())
    assert len({deal_seed(3, d) for d in range(10)}) == 10
    # The env deals from its seed alone, so the same seed is the same first deal.
    env = pitch_env.env("setback")
    deals = []
    for _ in range(2):
        env.reset(seed=deal_seed(3, 0))
        deals.append(env.unwrapped.game_record()["hands"][0]["deal"])
    assert deals[0] == deals[1]


def test_tournament_is_reproducible_and_independent_of_workers():
    a = run_tournament("setback", ["heuristic", "random"], games=6, seed=11)
    b = run_tournament("setback", ["heuristic", "random"], games=6, seed=11, workers=2)
    strip = lambda r: [(g.deal, g.rotation, g.seating, g.winner, g.final_scores, g.hands) for g in r.games]
    assert strip(a) == strip(b)
    assert [s.wins for s in a.stats] == [s.wins for s in b.stats]


def test_counts_add_up_and_a_game_is_won_by_at_most_one_agent():
    result = run_tournament("auction", ["heuristic", "random", "pimc:1"], games=6, seed=2, max_hands=3)
    assert result.config["games"] == len(result.games) == 6
    for g in result.games:
        winners = [a for a, won in enumerate(g.won) if won]
        assert len(winners) <= 1
        assert (g.winner is None) == g.truncated
    assert sum(s.wins for s in result.stats) == sum(1 for g in result.games if g.winner is not None)
    assert result.truncated == sum(g.truncated for g in result.games)
    assert result.ratings is not None and len(result.ratings) == 3


def test_truncated_games_are_won_by_nobody():
    result = run_tournament("setback", ["random", "random"], games=4, seed=1, max_hands=1)
    truncated = [g for g in result.games if g.truncated]
    assert truncated, "one hand of random bidding should rarely end a game to 11"
    assert not any(won for g in truncated for won in g.won if won is not None)


def test_wilson_interval_known_values():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(10, 10)
    assert low == pytest.approx(0.7225, abs=1e-4) and high == pytest.approx(1.0)
    low, high = wilson(1100, 2000)
    assert low == pytest.approx(0.5281, abs=1e-4) and high == pytest.approx(0.5717, abs=1e-4)
    with pytest.raises(ValueError):
        wilson(5, 3)


def test_openskill_one_win_between_equals_moves_both_by_the_same_known_step():
    # Plackett-Luce, mu 25, sigma 25/3, beta 25/6: c = sqrt(2 (sigma^2 + beta^2)) = 13.176;
    # equal skills give p = 1/2, so mu moves by sigma^2 / c / 2 = 2.635.
    winner, loser = openskill_ratings(["a", "b"], [[(0, 1), (1, 2)]])
    assert winner.mu == pytest.approx(27.635, abs=1e-3)
    assert loser.mu == pytest.approx(22.365, abs=1e-3)
    assert winner.ordinal > loser.ordinal
    a, b = openskill_ratings(["a", "b"], [[(0, 1), (1, 1)]])
    assert a.mu == pytest.approx(b.mu)


def test_tournament_command_writes_json_csv_and_plot(tmp_path, capsys):
    out = tmp_path / "t"
    rc = pitch_cli.main(["tournament", "--variant", "setback", "--agents", "heuristic,random", "--games", "4",
                         "--seed", "5", "--quiet", "--json", f"{out}.json", "--csv", f"{out}.csv",
                         "--plot", f"{out}.png", "--rule", "max_hands=3"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "heuristic" in text and "Wilson" in text
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["config"]["seed"] == 5 and len(data["games"]) == 4
    rows = list(csv.DictReader(open(tmp_path / "t.csv")))
    assert [r["name"] for r in rows] == ["heuristic", "random"]
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"


def test_tournament_command_refuses_bad_agents_and_options(capsys):
    assert pitch_cli.main(["tournament", "--agents", "heuristic,alphago", "--games", "2"]) == 2
    assert "pimc:N" in capsys.readouterr().err
    assert pitch_cli.main(["tournament", "--agents", "heuristic,random", "--num-players", "9"]) == 2
    assert "num_players" in capsys.readouterr().err
    for human in ["human", "HUMAN", "split:human+random", "split:random+ human"]:  # no game waits at the terminal
        assert pitch_cli.main(["tournament", "--agents", f"heuristic,{human}", "--games", "2"]) == 2
        assert "cannot seat 'human'" in capsys.readouterr().err


def test_plot_draws_rates_of_zero_and_one(tmp_path):
    from agents.report import write_plot

    result = run_tournament("setback", ["heuristic", "random"], games=6, seed=1)
    assert {s.wins for s in result.stats} == {0, 6}
    write_plot(result, tmp_path / "p.png")
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_the_charts_labels_of_long_specs_are_shortened_and_never_overlap():
    import matplotlib.pyplot as plt

    from agents.report import LABEL_LINE, plot

    names = ["checkpoint:runs/setback-exit-20261202-0131/generations/best.safetensors",
             "pimcnet:12:checkpoints/setback_with_a_very_long_directory_name/policy.safetensors",
             "checkpoint:" + "x" * 300, "heuristic"]
    result = run_tournament("setback", ["heuristic", "random", "random", "heuristic"], games=4, seed=1, max_hands=1,
                            names=names, partnerships=False)
    fig = plot(result)
    fig.canvas.draw()
    labels = fig.axes[0].get_xticklabels()
    assert [t.get_text().replace("\n", "") for t in labels][-1] == "heuristic"
    assert all(len(line) <= LABEL_LINE for t in labels for line in t.get_text().split("\n"))
    boxes = [t.get_window_extent() for t in labels]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    plt.close(fig)


# ---------------------------------------------------------------- hostile options, kills and interrupts
@pytest.mark.parametrize("argv, names", [
    (["--agents", ",random"], "empty spec"),
    (["--agents", "heuristic,random", "--workers", "0"], "--workers 0"),
    (["--agents", "heuristic,random", "--workers", "-2"], "--workers -2"),
    (["--agents", "heuristic,random", "--workers", "100000"], "--workers 100000"),
    (["--agents", "heuristic,random", "--games", "1000000000000"], "--games"),
    (["--agents", "pimc:99999999999999999999,random"], "1000"),
    (["--agents", "pimc:12:99999999999,random"], "bid worlds"),
    (["--agents", "heuristic"], "--solo"),  # one agent cannot fill two partnership sides
    (["--agents", "heuristic,random", "--resume"], "--results"),
    (["--agents", "heuristic,random", "--json", "/no/such/folder/t.json"], "--json"),
    (["--agents", "heuristic,random", "--plot", "/dev/null/t.png"], "--plot"),
    (["--agents", "checkpoint:" + "x" * 300 + ",random"], "too long"),
    (["--agents", "pimcnet:4:checkpoints/" + "x" * 256 + "/p,random"], "too long"),
])
def test_bad_tournament_options_fail_in_one_line_before_any_game(argv, names, capsys, monkeypatch):
    import agents.tournament

    monkeypatch.setattr(agents.tournament, "run_tournament", lambda *a, **k: pytest.fail("a game was started"))
    assert pitch_cli.main(["tournament", "--games", "2", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert names in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_an_unwritable_output_path_fails_before_any_game(tmp_path, capsys, monkeypatch):
    import agents.tournament

    monkeypatch.setattr(agents.tournament, "run_tournament", lambda *a, **k: pytest.fail("a game was started"))
    (tmp_path / "a_folder").mkdir()
    assert pitch_cli.main(["tournament", "--agents", "heuristic,random", "--csv", str(tmp_path / "a_folder")]) == 2
    assert "is a folder" in capsys.readouterr().err


def _same_games(a, b):
    # Everything but the CPU time spent thinking, which no two runs share.
    strip = lambda r: [{k: v for k, v in g.__dict__.items() if k != "think_s"} for g in r.games]
    return strip(a) == strip(b)


def test_a_killed_tournament_resumes_to_the_uninterrupted_result(tmp_path):
    args = dict(agents=["heuristic", "random"], games=10, seed=7, max_hands=3)
    whole = run_tournament("setback", **args)
    path = tmp_path / "results.jsonl"
    run_tournament("setback", results=path, **args)
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + 10  # the header, then one line per game
    # A kill after two deals and one game of the third, in the middle of writing the next line.
    path.write_text("".join(lines[:1 + 5]) + lines[6][:40])
    resumed = run_tournament("setback", results=path, resume=True, **args)
    assert _same_games(resumed, whole)
    assert [s.wins for s in resumed.stats] == [s.wins for s in whole.stats]
    assert len(path.read_text().splitlines()) == 1 + 10  # the partial deal was replayed, not duplicated


def test_a_results_file_is_never_overwritten_or_mixed_with_another_tournament(tmp_path):
    path = tmp_path / "results.jsonl"
    run_tournament("setback", ["heuristic", "random"], games=2, seed=1, max_hands=2, results=path)
    with pytest.raises(ValueError, match="--resume"):
        run_tournament("setback", ["heuristic", "random"], games=2, seed=1, max_hands=2, results=path)
    with pytest.raises(ValueError, match="another tournament"):
        run_tournament("setback", ["heuristic", "random"], games=2, seed=2, max_hands=2, results=path, resume=True)
    path.write_text(path.read_text().splitlines()[0] + "\n[1, 2]\n{\n")
    with pytest.raises(ValueError, match="line 2"):
        run_tournament("setback", ["heuristic", "random"], games=2, seed=1, max_hands=2, results=path, resume=True)


@pytest.mark.parametrize("key, value", [
    ("deal", [1]), ("deal", -1), ("rotation", 2), ("rotation", {}), ("env_seed", "x"), ("hands", True),
    ("seating", [1, 0, 1, 0]), ("winner", 5), ("winner", None), ("truncated", True), ("truncated", "no"), ("final_scores", 3),
    ("won", [True]), ("margin", None), ("margin", [1.5, 2]), ("points", ["x", 1]), ("think_s", [float("nan"), 0.1]),
    ("think_s", [-1, 0.1]), ("decisions", [1, 2, 3]), ("made", {"0": 1}), ("side_hands", [None, 1]),
])
def test_a_results_line_no_game_could_write_is_refused_in_one_line(tmp_path, capsys, key, value):
    """Each field of a game line is checked as it is read back: a crafted file must not become a
    traceback, nor a table computed from values no game gives."""
    import json

    path = tmp_path / "results.jsonl"
    argv = ["tournament", "--agents", "heuristic,random", "--games", "2", "--seed", "1", "--quiet", "--results",
            str(path)]
    assert pitch_cli.main(argv) == 0
    header, first, *rest = path.read_text().splitlines()
    row = json.loads(first)
    row[key] = value
    path.write_text("\n".join([header, json.dumps(row), *rest]) + "\n")
    capsys.readouterr()
    assert pitch_cli.main([*argv, "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert "line 2:" in err and "delete the file" in err and len(err.splitlines()) == 1, err


def test_a_results_file_played_by_other_weights_under_the_same_name_is_not_resumed(tmp_path):
    """A checkpoint replaced under the same path (a shipped agent retrained) makes the saved games
    another tournament's: resuming them would report the old weights' wins as the new ones'. What counts
    is the weights (the card's digest of the tensors), not the file's other bytes."""
    import shutil

    path, policy = tmp_path / "results.jsonl", tmp_path / "agent.safetensors"
    shutil.copyfile("checkpoints/setback/policy.safetensors", policy)
    args = dict(games=2, seed=1, results=path)
    run_tournament("setback", [f"checkpoint:{policy}", "heuristic"], **args)
    run_tournament("setback", [f"checkpoint:{policy}", "heuristic"], resume=True, **args)  # the same weights
    from pitch_policy import read_policy, save_policy

    net, card = read_policy(policy)  # the file's own tensors and card
    save_policy(policy, net, dict(card, training_steps=card["training_steps"] + 1))  # another card, the same tensors
    run_tournament("setback", [f"checkpoint:{policy}", "heuristic"], resume=True, **args)
    shutil.copyfile("checkpoints/setback_base/policy.safetensors", policy)
    with pytest.raises(ValueError, match="other weights under the same agent names"):
        run_tournament("setback", [f"checkpoint:{policy}", "heuristic"], resume=True, **args)
    # a file from before files named their weights: still resumed where no policy file played
    plain = tmp_path / "plain.jsonl"
    run_tournament("setback", ["heuristic", "random"], games=2, seed=1, results=plain)
    lines = plain.read_text().splitlines()
    header = json.loads(lines[0])
    del header["weights"]
    plain.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert run_tournament("setback", ["heuristic", "random"], games=2, seed=1, results=plain, resume=True).config["games"] == 2


@pytest.mark.parametrize("how, workers", [("SIGINT", 1), ("SIGTERM", 2)])  # Ctrl-C, or a plain kill
def test_ctrl_c_reports_the_games_so_far_and_the_rerun_finishes_them(tmp_path, how, workers):
    import os
    import signal
    import subprocess
    import sys
    import time

    path = tmp_path / "results.jsonl"
    cmd = [sys.executable, "-m", "pitch_cli", "tournament", "--agents", "heuristic,random", "--games", "4000",
           "--seed", "3", "--rule", "max_hands=2", "--quiet", "--results", str(path), "--workers", str(workers)]
    # a shell's background job starts with SIGINT ignored, and the tournament keeps an ignored signal ignored
    # (as under nohup): give the child the default disposition, whatever started pytest
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not path.exists() or path.read_text().count("\n") < 5):
        time.sleep(0.05)
    proc.send_signal(getattr(signal, how))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Interrupted:" in err and "--resume" in err
    assert "heuristic" in out and "interrupted" in out
    finished = path.read_text().count("\n") - 1
    assert 4 <= finished < 4000
    resumed = run_tournament("setback", ["heuristic", "random"], games=40, seed=3, max_hands=2, results=path,
                             resume=True)
    assert _same_games(resumed, run_tournament("setback", ["heuristic", "random"], games=40, seed=3, max_hands=2))


def test_fair_share_is_the_share_of_sides_an_agent_holds():
    from agents.report import fair_shares

    two = run_tournament("setback", ["heuristic", "random"], games=2, seed=1, max_hands=1)
    assert fair_shares(two) == [0.5, 0.5]
    three = run_tournament("auction", ["heuristic", "random", "random"], games=3, seed=1, max_hands=1)
    assert fair_shares(three) == pytest.approx([1 / 3] * 3)  # 4 seats, 3 agents: one holds two seats each game


def test_the_table_explains_margin_and_bids_made(capsys):
    from agents.report import print_result

    print_result(run_tournament("setback", ["heuristic", "random"], games=2, seed=1, max_hands=2))
    out = " ".join(capsys.readouterr().out.split())
    assert "margin: the agent's side's final score minus the best other side's" in out
    assert "'of N' such hands" in out


def test_more_workers_than_the_machine_holds_are_refused_before_any_game(capsys, monkeypatch):
    import os

    import agents.tournament
    import agents.workers

    monkeypatch.setattr(agents.tournament, "run_tournament", lambda *a, **k: pytest.fail("a game was started"))
    too_many = 4 * os.cpu_count() + 1
    assert pitch_cli.main(["tournament", "--agents", "heuristic,random", "--workers", str(too_many)]) == 2
    err = capsys.readouterr().err
    assert f"--workers {too_many}" in err and "cores" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setattr(agents.workers, "available_memory", lambda: 2**30)  # 1 GB free: 6 workers fit
    assert pitch_cli.main(["tournament", "--agents", "heuristic,random", "--workers", "8"]) == 2
    err = capsys.readouterr().err
    assert "--workers 8" in err and "memory" in err and "at most 6" in err
    monkeypatch.undo()
    monkeypatch.setattr(agents.workers, "available_memory", lambda: 2**30)
    with pytest.raises(ValueError, match="workers 8"):
        agents.tournament.run_tournament("setback", ["heuristic", "random"], games=2, workers=8)


# ---------------------------------------------------------------- one table style; what an interrupted table says
class _StopsTheTournament:
    """A random agent that presses Ctrl-C at its 200th move (a few games in)."""

    moves = 0

    def __init__(self, env, seed=None):
        from agents import RandomAgent

        self.agent = RandomAgent(env, seed)

    def reset(self, seed=None):
        self.agent.reset(seed)

    def act(self, observation, info):
        type(self).moves += 1
        if type(self).moves == 200:
            raise KeyboardInterrupt
        return self.agent.act(observation, info)


def test_an_interrupted_tournaments_table_states_the_games_played_not_those_planned(capsys):
    from agents.report import print_result

    _StopsTheTournament.moves = 0
    result = run_tournament("setback", ["heuristic", _StopsTheTournament], games=400, seed=2, max_hands=2)
    assert result.interrupted and 0 < result.config["games"] < 400
    print_result(result)
    out = " ".join(capsys.readouterr().out.split())
    played = result.config["games"]
    assert f"{played} of 400 planned games (interrupted)" in out and "200 deals" not in out


def test_make_run_prints_its_table_in_the_tournaments_style(capsys, monkeypatch, tmp_path):
    import argparse

    import train.cli
    import train.evaluate
    import train.run

    # The training and the games are the tournament tool's (tested above); here only the table printed after.
    monkeypatch.setattr(train.run, "train", lambda cfg, config_path=None: tmp_path)
    row = dict(opponent="heuristic", games=100, wins=60, win_rate=0.6, low=0.5, high=0.7, margin=1.5,
               points_per_hand=1.0, bids_made=0.5, truncated=0, wall_s=1.0, think_s=0.013, opponent_think_s=0.742)
    monkeypatch.setattr(train.evaluate, "compare", lambda *a, **k: [row])
    monkeypatch.chdir(tmp_path)  # `pitch run` reads the project's own configs/quick.yaml from any directory
    assert train.cli.main_job(argparse.Namespace(seed=0)) == 0
    out = capsys.readouterr().out
    assert "|---|" not in out and "┃ opponent" in out and "(1.8%)" in out
    from agents.report import print_result

    print_result(run_tournament("setback", ["heuristic", "random"], games=2, seed=1, max_hands=1))
    assert "┃ agent" in capsys.readouterr().out


# ---------------------------------------------------------------- a worker killed mid-task
def _killed(task):
    """A task whose worker process dies (as the out-of-memory killer ends one): SIGKILL, no result."""
    import os
    import signal

    if task == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return task * task


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_a_worker_killed_mid_task_raises_instead_of_waiting_for_ever(context, within_seconds):
    """multiprocessing.Pool replaces a killed worker and waits for its task's result for ever; the pool
    every multi-process job runs in raises WorkerDied, and its other workers end with it."""
    import multiprocessing

    from agents.workers import WorkerDied, Workers

    with Workers(2, context) as pool:
        assert sorted(pool.unordered(_killed, [0, 1, 2])) == [0, 1, 4]
        assert list(pool.ordered(_killed, [2, 1, 0])) == [4, 1, 0] and pool.apply(_killed, (5,)) == 25
    for run in (lambda p: list(p.unordered(_killed, range(6))), lambda p: p.apply(_killed, (3,))):
        with pytest.raises(WorkerDied, match="killed before it finished"):
            with Workers(2, context) as pool:
                run(pool)
        assert not multiprocessing.active_children()  # the other worker ended too


def _block(task):
    """A result of about a megabyte, as a recorded part is a few."""
    import numpy as np

    return np.full(1 << 17, task, np.float64)


@pytest.mark.parametrize("ordered", [False, True])
def test_a_pool_holds_a_few_results_at_once_not_every_one_it_has_handed_on(ordered, within_seconds):
    """A recording of 5,000 parts hands each on to be saved: the pool lets go of a result once it is handed
    on, and submits tasks as workers free up, so a long job holds a few results (a 5,000-part ten_point
    recording would otherwise hold all 9 GB of them, and the fit after it would run out of memory)."""
    import weakref

    from agents.workers import Workers

    seen, refs, held = [], [], []
    with Workers(2, "fork") as pool:
        for block in (pool.ordered if ordered else pool.unordered)(_block, range(16)):
            seen.append(int(block[0]))
            refs.append(weakref.ref(block))
            del block  # no cycles: a result no one holds is gone at once
            held.append(sum(r() is not None for r in refs[:-1]))  # the results handed on before this one
    assert sorted(seen) == list(range(16)) and (seen == list(range(16)) or not ordered)
    assert held == [0] * 16


def test_a_tournament_whose_worker_is_killed_stops_in_one_line_and_keeps_its_games(tmp_path, capsys, monkeypatch,
                                                                                    within_seconds):
    import agents.tournament as tournament

    results = tmp_path / "games.jsonl"
    argv = ["tournament", "--agents", "heuristic,random", "--games", "8", "--workers", "2", "--seed", "3",
            "--results", str(results)]
    monkeypatch.setattr(tournament, "_play_deal", _kill_on_third_deal)
    capsys.readouterr()
    assert pitch_cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "killed before it finished" in err and "--resume" in err and "\n" not in err and "Traceback" not in err
    monkeypatch.setattr(tournament, "_play_deal", _real_play_deal)
    kept = results.read_text()
    assert pitch_cli.main(argv + ["--resume"]) == 0
    assert "8 games (4 deals × 2 seatings)" in capsys.readouterr().out
    # the games played before the kill are kept as they were, and the whole equals a tournament never killed
    done = results.read_text()
    # (a resume rewrites the kept deals in deal order; the workers wrote them in the order they finished)
    kept_games, done_games = kept.splitlines()[1:], done.splitlines()[1:]
    assert kept_games and set(kept_games) < set(done_games) and done.splitlines()[0] == kept.splitlines()[0]
    whole = run_tournament("setback", ["heuristic", "random"], games=8, seed=3, workers=1)
    again = run_tournament("setback", ["heuristic", "random"], games=8, seed=3, workers=1, results=str(results),
                           resume=True)
    assert [s.wins for s in again.stats] == [s.wins for s in whole.stats]
    assert [(g.deal, g.rotation, g.won) for g in again.games] == [(g.deal, g.rotation, g.won) for g in whole.games]


def _kill_on_third_deal(job):
    import os
    import signal

    if job[1] == 2:  # the deal's number
        os.kill(os.getpid(), signal.SIGKILL)
    return _real_play_deal(job)
