"""The multi-agent env: the league fills the sides the learner does not hold, only the learner's side to
move observes, the rewards are those of pitch_env/rewards.py."""

import numpy as np
import pytest

import pitch_env
from pitch_env.engine import Game
from train.hint import engine_hint
from train.league import LEARNER
from train.rllib import env as env_module
from train.rllib.env import PitchMultiAgentEnv, receive_snapshot, side_agent


class Recording:
    """The env's observation table, hearing of every move as it does, and writing it down."""

    def __init__(self, live, moves):
        self.live, self.moves = live, moves

    def __getattr__(self, name):
        return getattr(self.live, name)

    def after(self, game, seat, action, phase, number):
        self.moves.append((seat, action))
        self.live.after(game, seat, action, phase, number)


def play(env, rng, game_seed):
    """A game whose learner sides play random legal moves; (every move of the game as (seat, action),
    each agent's summed rewards, last infos, truncated)."""
    moves = []
    env.live = Recording(getattr(env.live, "live", env.live), moves)
    obs, _ = env.reset(options={"game_seed": game_seed})
    total = {}
    while True:
        assert len(obs) == 1, "only the side to move observes"
        (aid, o), = obs.items()
        assert aid == side_agent(env.rules.side_of(env.game.current_seat))
        assert env.seating.players[env.rules.side_of(env.game.current_seat)] is LEARNER
        obs, rew, term, trunc, infos = env.step({aid: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        for k, v in rew.items():
            total[k] = total.get(k, 0.0) + v
        if term["__all__"] or trunc["__all__"]:
            assert set(obs) == {side_agent(s) for s in env.learner_sides}, "every learner side gets a last observation"
            # the objective ends a game stopped at max_hands too (lost by every side): nothing to bootstrap
            assert term["__all__"] and not trunc["__all__"]
            return moves, total, infos, env.game.truncated


def aec_totals(variant, moves, game_seed, **rules):
    aec = pitch_env.env(variant, reward="relative", win_bonus=1.5, **rules)
    aec.reset(seed=game_seed)
    seat_total = {a: 0.0 for a in aec.possible_agents}
    for _, action in moves:
        aec.step(action)
        for a, r in aec.rewards.items():
            seat_total[a] += r
    return aec, seat_total


@pytest.mark.parametrize("variant, observation", [("setback", "suit_canonical"), ("auction", "plain"),
                                                  ("ten_point", "suit_canonical")])
def test_in_mirror_games_every_side_is_an_agent_with_the_aec_envs_relative_rewards(variant, observation):
    rng = np.random.default_rng(3)
    env = PitchMultiAgentEnv({"variant": variant, "observation": observation, "rules": {"max_hands": 12},
                              "win_bonus": 1.5, "mirror": 1.0})
    for game_seed in (1, 2):
        moves, total, infos, truncated = play(env, rng, game_seed)
        assert env.learner_sides == list(range(env.rules.num_sides))
        aec, seat_total = aec_totals(variant, moves, game_seed, max_hands=12)
        for seat in range(env.rules.num_players):
            assert seat_total[f"player_{seat}"] == pytest.approx(total[side_agent(env.rules.side_of(seat))])
        assert aec.unwrapped.game.is_over and aec.unwrapped.game.truncated == truncated
        assert sum(i["won"] for i in infos.values()) == (0 if truncated else 1)
        assert all(i["truncated"] == float(truncated) for i in infos.values())  # pitch/truncated_pct counts it
        assert all(i["mirror"] == 1.0 for i in infos.values())


@pytest.mark.parametrize("variant", ["setback", "auction"])
def test_the_leagues_heuristic_plays_the_other_sides_inside_the_env(variant):
    """Against the heuristic, the learner's side is the only agent; every other seat's move is the
    heuristic's choice (train/league.py, the one heuristic opponent), and the learner's reward is the
    AEC env's for its seats."""
    rng = np.random.default_rng(5)
    env = PitchMultiAgentEnv({"variant": variant, "rules": {"max_hands": 12}, "win_bonus": 1.5,
                              "opponents": {"heuristic": 1.0}})
    for game_seed in (3, 4, 5):
        moves, total, infos, _ = play(env, rng, game_seed)
        (learner,) = env.learner_sides
        assert set(total) == set(infos) == {side_agent(learner)} and infos[side_agent(learner)]["mirror"] == 0.0
        replay = Game(env.rules, seed=game_seed)
        others = 0
        for seat, action in moves:
            if env.rules.side_of(seat) != learner:
                assert action == engine_hint(replay)
                others += 1
            replay.apply(action)
        assert others > 0
        _, seat_total = aec_totals(variant, moves, game_seed, max_hands=12)
        seat = next(s for s in range(env.rules.num_players) if env.rules.side_of(s) == learner)
        assert seat_total[f"player_{seat}"] == pytest.approx(total[side_agent(learner)])


def test_any_agent_spec_plays_a_side():
    env = PitchMultiAgentEnv({"variant": "setback", "opponents": {"checkpoint:checkpoints/setback": 1.0}})
    play(env, np.random.default_rng(0), 7)
    (name,) = env.seating.names
    assert name == "checkpoint:checkpoints/setback"


def test_snapshots_from_the_driver_reach_every_envs_league_at_its_next_reset(monkeypatch):
    monkeypatch.setattr(env_module, "_snapshots", [])
    env = PitchMultiAgentEnv({"variant": "setback", "opponents": {"self": 1.0}, "snapshot_pool": 2})
    with pytest.raises(RuntimeError, match="no snapshot"):
        env.reset()
    sizes = [env.obs_size, 16, env.action_size]
    for n in range(3):
        r = np.random.default_rng(n)
        receive_snapshot(n, [(r.normal(size=(b, a)).astype(np.float32), np.zeros(b, np.float32))
                             for a, b in zip(sizes[:-1], sizes[1:])], "relu", pool=2)
    receive_snapshot(2, None, "relu", pool=2)  # a number already held (a restarted runner's resend): ignored
    assert [n for n, _, _ in env_module._snapshots] == [1, 2]
    env.reset()
    assert [s.layers[0][0][0, 0] for s in env.league.snapshots] == [l[0][0][0, 0] for _, l, _ in env_module._snapshots]
    fresh = PitchMultiAgentEnv({"variant": "setback", "opponents": {"self": 1.0}, "snapshot_pool": 2})
    fresh.reset(seed=1)  # an env built later, or reseeded, takes the snapshots held
    assert len(fresh.league.snapshots) == 2 and fresh.seating.names == ["self"]
