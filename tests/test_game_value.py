"""The game value (pitch_policy/game_value.py, train/game_value.py): its input reads the scores from the
side's point of view, a fit learns who is winning, finished games count as won or lost, the file reads
back exactly and refuses damaged or foreign files in one line, and the search and expert iteration
score their worlds with it (``leaf: game``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import pitch_env
from agents.netpimc import NetRollouts, NetSearch
from agents.worlds import sample_world, void_masks
from pitch_env.engine import Game
from pitch_policy import CheckpointError, load_policy
from pitch_policy.game_value import (FILE, GameValue, feature_size, features, load_game_value, save_game_value,
                                     score_bins)
from train import exit as ex
from train.game_value import fit_game_value, play_scores

AUCTION = pitch_env.rules("auction")


def test_features_read_the_scores_and_the_dealer_from_the_sides_point_of_view():
    lo, hi = score_bins(AUCTION)
    width = hi - lo + 2
    x = features(AUCTION, [[6, -3, 0, 99]], [2], [10], [1])  # side 1 sees itself first, then 2, 3, 0
    assert x.shape == (1, feature_size(AUCTION))
    for j, score in enumerate([-3, 0, 99, 6]):
        row = x[0, j * width: (j + 1) * width]
        assert row[min(score, hi) - lo] == 1 and row[:-1].sum() == 1  # one-hot, clipped at hi
        assert row[-1] == pytest.approx(score / AUCTION.target_score)
    dealer = x[0, 4 * width: 4 * width + AUCTION.num_players]
    assert dealer.tolist() == [0, 1, 0, 0]  # seat 2 is one to the left of side (seat) 1
    assert x[0, -1] == pytest.approx(10 / AUCTION.max_hands)


def synthetic(n: int, seed: int) -> dict:
    """Hand starts whose winner is the side with the highest score (ties: the dealer's left)."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(-6, 7, (n, 4))
    winner = scores.argmax(1)
    return {"game": np.arange(n), "hands": np.zeros(n, np.int64), "dealer": rng.integers(0, 4, n),
            "scores": scores, "winner": winner}


def test_a_fit_learns_who_is_winning():
    value, stats = fit_game_value(AUCTION, synthetic(6000, 0), seed=0, epochs=40)
    assert stats["held_out_log_loss"] < 0.6 * stats["base_rate_log_loss"]
    ahead = value.chance([[6, 0, 0, 0]] * 4, [0] * 4, [0] * 4, [0, 1, 2, 3])
    assert ahead[0] > 0.8 and (ahead[1:] < 0.2).all()


def test_a_won_game_counts_1_or_0_the_hand_limit_0_and_a_search_world_as_the_next_hand():
    value, _ = fit_game_value(AUCTION, synthetic(500, 1), seed=0, epochs=1)
    won, cut, going = Game(AUCTION, seed=1), Game(AUCTION, seed=3), Game(AUCTION, seed=2)
    won.winner, won.phase = 2, pitch_env.engine.OVER
    cut.truncated, cut.phase, cut.hand_number = True, pitch_env.engine.OVER, AUCTION.max_hands  # nobody wins
    g = Game(AUCTION, seed=4)
    for _ in range(3):  # into the auction of the first hand
        g.apply(g.legal_actions()[0])
    v = g.info_state(g.current_seat)
    world = Game.from_info_state(v, *sample_world(random.Random(0), v, void_masks(v)))
    rng = random.Random(5)
    while not world.is_over:
        world.apply(rng.choice(world.legal_actions()))
    assert world.truncated and world.winner is None and world.hand_number == 1  # a world stops after its hand
    got = value.of_games([won, won, cut, going, world], [2, 1, 0, 3, 1])
    assert got[:3].tolist() == [1.0, 0.0, 0.0]
    assert got[3] == pytest.approx(value.chance([going.scores], [going.dealer], [going.hand_number], [3])[0])
    nxt = value.chance([world.scores], [(world.dealer + 1) % 4], [2], [1])[0]
    assert got[4] == pytest.approx(nxt) and 0 < nxt < 1


def test_the_file_reads_back_exactly_and_damaged_or_foreign_files_are_refused_in_one_line(tmp_path):
    value, stats = fit_game_value(AUCTION, synthetic(500, 2), seed=0, epochs=1)
    path = tmp_path / FILE
    save_game_value(path, value, stats)
    back = load_game_value(path, AUCTION)
    args = ([[1, 2, 3, 4]], [1], [3], [2])
    assert back.chance(*args) == pytest.approx(value.chance(*args), abs=0)
    data = path.read_bytes()
    bad = {"missing": None, "truncated": data[: len(data) // 2], "flipped": data[:-8] + bytes(8), "empty": b"",
           "json": b'{"format": "pitch-game-value/1"}'}
    for name, content in bad.items():
        p = tmp_path / f"{name}.safetensors"
        if content is not None:
            p.write_bytes(content)
        with pytest.raises(CheckpointError) as e:
            load_game_value(p, AUCTION)
        assert "\n" not in str(e.value) and str(p) in str(e.value)
    with pytest.raises(CheckpointError, match="other rules"):
        load_game_value(path, pitch_env.rules("auction", num_players=5))
    from safetensors.numpy import save_file
    import json

    meta = {"format": "pitch-game-value/1", "variant": "auction", "rules": AUCTION.as_dict(),
            "network": {"shape": [3, 1]}}
    tensors = {"layer0.weight": np.zeros((1, 3), np.float32), "layer0.bias": np.zeros(1, np.float32)}
    from pitch_policy.file import tensors_digest

    meta["sha256"] = tensors_digest(tensors)
    save_file(tensors, str(tmp_path / "crafted.safetensors"), metadata={"pitch_card": json.dumps(meta)})
    with pytest.raises(CheckpointError, match="does not read this game"):
        load_game_value(tmp_path / "crafted.safetensors", AUCTION)


def test_self_play_rows_are_hand_starts_labelled_with_the_games_winner():
    data = play_scores(AUCTION, "checkpoints/auction_base", games=12, seed=5)
    assert set(data["game"].tolist()) == set(range(12))
    for k in range(12):
        rows = data["game"] == k
        hands = data["hands"][rows]
        assert hands.tolist() == list(range(1, len(hands) + 1)) and (data["scores"][rows][0] == 0).all()
        w = set(data["winner"][rows].tolist())
        assert len(w) == 1 and w.pop() in range(-1, 4)


def test_the_search_scores_its_worlds_by_the_chance_of_winning(tmp_path):
    policy, _ = load_policy("checkpoints/auction_base", AUCTION)
    value, _ = fit_game_value(AUCTION, play_scores(AUCTION, "checkpoints/auction_base", 40, seed=1), seed=0, epochs=2)
    games = [Game(AUCTION, seed=s) for s in range(8)]
    got = NetRollouts(policy, AUCTION, value).playout([g.clone() for g in games], [0] * 8)
    assert all(0.0 <= v <= 1.0 for v in got) and any(0.0 < v < 1.0 for v in got)  # chances, not just won or lost
    points = NetRollouts(policy, AUCTION).playout([g.clone() for g in games], [0] * 8)
    assert any(v < 0 or v > 1 for v in points)  # the default still scores points
    search = NetSearch(policy, AUCTION, 2, random.Random(0), leaf=value)
    g = games[0]
    v = g.info_state(g.current_seat)
    mask = np.zeros(len(policy.layers[-1][1]), bool)
    mask[g.legal_actions()] = True
    from pitch_env.observer import LiveTable, Observer

    t = LiveTable(Observer(AUCTION))
    t.sync(g)
    d = search.decide(t.observe(g.current_seat), mask, v)
    assert d.action in g.legal_actions() and all(0 <= q <= 1 for q in d.values.values())


def test_an_exit_run_with_game_leaves_fits_the_game_value_once_and_reuses_it(tmp_path, capsys):
    from pitch_cli import main

    args = ["exit", "--set", f"runs_dir={tmp_path}", "run_name=r", "variant=auction", "start=checkpoints/auction_base",
            "leaf=game", "leaf_games=40", "generations=1", "decisions=1000", "worlds=1", "gate_games=4", "workers=1",
            "torch_threads=1", "epochs=1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "game value: fitted" in out
    run = tmp_path / "r"
    load_game_value(run / FILE, AUCTION)
    part = np.load(run / "gen_1" / "part_0.npz")
    assert part["q"].min() >= 0 and part["q"].max() <= 1  # chances, not points
    from train.model_card import write_exit_card

    text = write_exit_card(run, tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1, seed=0)
    assert "chance of winning the game its hand leaves" in text and "40 self-play games" in text
    assert "and the game value) on" in text
    stamp = (run / FILE).stat().st_mtime_ns
    assert main(["exit", "--resume", str(run), "--set", "generations=2"]) == 0
    assert "game value: fitted" not in capsys.readouterr().out and (run / FILE).stat().st_mtime_ns == stamp
    (run / FILE).write_bytes(b"damaged")
    assert main(["exit", "--resume", str(run), "--set", "generations=3"]) == 2
    err = capsys.readouterr().err
    assert "game value" in err and "Traceback" not in err


def test_leaf_must_be_hand_or_game():
    with pytest.raises(ex.ConfigError, match="leaf"):
        ex.make_exit_config({"leaf": "deal"}, "test")
