"""The league: each side of a self-play game filled by the config's weights, from the learner, its
frozen snapshots, the heuristic, random play or any agent spec."""

from __future__ import annotations

import numpy as np
import pytest

import pitch_env
from agents.rollout import rollout_action
from pitch_env.engine import OVER, Game
from pitch_env.observer import LiveTable, Observer
from train.league import LEARNER, MIRROR, Agent, Heuristic, League, Snapshot


def layers(rules, hint="none", seed=0):
    from pitch_policy import input_size
    from pitch_env.actions import ActionLayout

    rng = np.random.default_rng(seed)
    sizes = [input_size(rules, hint), 16, ActionLayout(rules).size]
    return [(rng.normal(size=(b, a)).astype(np.float32), rng.normal(size=b).astype(np.float32))
            for a, b in zip(sizes[:-1], sizes[1:])]


def test_the_learner_holds_one_side_and_the_others_follow_the_weights():
    rules = pitch_env.rules("setback", num_players=3)
    league = League(rules, {"heuristic": 3, "random": 1, "self": 0}, seed=1)
    counts = {"heuristic": 0, "random": 0}
    for _ in range(2000):
        seating = league.draw()
        assert len(seating.learner_sides) == 1 and len(seating.players) == rules.num_sides
        for name in seating.names:
            counts[name] += 1
    assert 0.70 < counts["heuristic"] / sum(counts.values()) < 0.80


def test_mirror_games_seat_the_learner_everywhere():
    rules = pitch_env.rules("setback")
    league = League(rules, {"heuristic": 1}, mirror=1.0)
    seating = league.draw()
    assert seating.players == [LEARNER] * rules.num_sides and seating.names == [MIRROR]


def test_self_draws_among_the_last_snapshots_and_needs_one():
    rules = pitch_env.rules("setback")
    league = League(rules, {"self": 1}, snapshot_pool=2)
    with pytest.raises(RuntimeError, match="no snapshot"):
        league.draw()
    snaps = [league.add_snapshot(layers(rules, seed=k), "relu") for k in range(3)]
    assert league.snapshots == snaps[1:]
    seen = {id(p) for _ in range(50) for p in league.draw().players if p is not LEARNER}
    assert seen == {id(s) for s in snaps[1:]}


def test_an_agent_spec_is_kept_one_per_side():
    rules = pitch_env.rules("setback", num_players=3)
    league = League(rules, {"pimc:2": 1}, seed=0)
    a, b = league.player("pimc:2", 1), league.player("pimc:2", 2)
    assert isinstance(a, Agent) and a is not b and league.player("pimc:2", 1) is a


@pytest.mark.parametrize("variant", ["setback", "auction", "ten_point"])
def test_every_player_plays_legal_moves_and_the_heuristic_is_the_rollout_heuristic(variant):
    rules = pitch_env.rules(variant)
    league = League(rules, {"self": 1, "heuristic": 1, "random": 1, "pimc:1": 1}, seed=3)
    league.add_snapshot(layers(rules), "relu")
    table = LiveTable(Observer(rules))
    for seed in range(3):
        game = Game(rules, seed=seed)
        table.sync(game)
        players = [league.player(name, 0) for name in ("self", "heuristic", "random", "pimc:1")]
        for p in players:
            p.reset(seed)
        k = 0
        while game.phase != OVER:
            seat, player = game.current_seat, players[k % len(players)]
            action = player.act(game, seat, table)
            assert action in game.legal_actions()
            if isinstance(player, Heuristic):
                assert action == rollout_action(game)
            phase, number = game.phase, game.hand_number
            game.apply(action)
            table.after(game, seat, action, phase, number)
            k += 1


def test_a_snapshot_samples_from_its_network():
    """A snapshot whose logits favour one legal action overwhelmingly plays it."""
    rules = pitch_env.rules("setback")
    ls = layers(rules)
    w, b = ls[-1]
    b[:] = -50.0
    game = Game(rules, seed=0)
    table = LiveTable(Observer(rules))
    table.sync(game)
    legal = game.legal_actions()
    b[legal[-1]] = 50.0
    snap = Snapshot(ls, "relu", None, "none", np.random.default_rng(0))
    assert all(snap.act(game, game.current_seat, table) == legal[-1] for _ in range(20))
