"""One Rules object from the command line or a config to the engine: the env, the agents, the tournament
and the trainers' configs take the Rules itself, never a dict of options that rebuilds it."""

import pytest

import agents
import pitch_cli
import pitch_env
from agents.cli import rules_of
from agents.report import fair_shares
from agents.tournament import run_tournament
from agents.base import turns
from train.config import ConfigError, load_config

# Setback is a game of 2 to 4; these rules seat 5 because player_counts says so, a fact no dict of
# "options that differ from the preset" carries (Rules.as_dict leaves player_counts to the preset).
FIVE = {"num_players": 5, "player_counts": (2, 3, 4, 5)}


def test_an_env_plays_the_rules_object_it_is_given():
    r = pitch_env.rules("auction", num_players=5, target_score=5)
    env = pitch_env.env(r, reward="relative", illegal_action="raise")
    assert env.unwrapped.rules is r
    env.reset(seed=1)
    assert env.unwrapped.game.rules is r
    assert pitch_env.env("setback", num_players=3).unwrapped.rules == pitch_env.rules("setback", num_players=3)
    assert pitch_env.env(r, max_hands=3).unwrapped.rules == pitch_env.rules("auction", num_players=5, target_score=5,
                                                                             max_hands=3)


def test_a_rules_object_built_by_hand_is_checked_before_it_is_passed_on():
    import dataclasses

    bad = dataclasses.replace(pitch_env.rules("setback"), num_players=9)
    for build in (pitch_env.rules, pitch_env.env):
        with pytest.raises(ValueError, match="num_players=9"):
            build(bad)


def test_an_agent_made_for_rules_plays_any_env_of_those_rules():
    r = pitch_env.rules("setback", **FIVE)
    player = agents.make("heuristic", r, seed=3)
    assert player.rules is r
    env = pitch_env.env(r, info_state=True, illegal_action="raise")
    env.reset(seed=2)
    player.reset()
    for _, obs, info in turns(env):
        env.step(player.act(obs, info))
    assert env.unwrapped.game.is_over


def test_a_tournament_plays_rules_beyond_the_presets_player_counts():
    r = pitch_env.rules("setback", **FIVE)
    result = run_tournament(r, ["heuristic", "random"], games=2, seed=1, max_hands=1)
    assert result.rules == pitch_env.rules("setback", **FIVE, max_hands=1)
    assert all(len(g.seating) == 5 for g in result.games)
    assert fair_shares(result) == [0.5, 0.5]  # ABABA, then BABAB
    same = run_tournament(pitch_env.rules(r, max_hands=1), ["heuristic", "random"], games=2, seed=1)
    assert [g.won for g in same.games] == [g.won for g in result.games]


def test_the_command_line_options_become_one_rules_object():
    args = pitch_cli.build_parser().parse_args(["tournament", "--agents", "heuristic,random", "--variant", "auction",
                                                "--num-players", "5", "--rule", "target_score=5"])
    assert rules_of(args) == pitch_env.rules("auction", num_players=5, target_score=5)


def test_a_training_config_with_such_rules_is_read_and_its_agents_built():
    cfg = load_config(None, ["rules={num_players: 5, player_counts: [2, 3, 4, 5]}", "eval_opponents=[heuristic]"])
    r = cfg.resolved_rules()
    assert r.num_players == 5 and r.player_counts == (2, 3, 4, 5)
    assert cfg.resolved_rules() is r  # one object for the whole run
    cfg.rules = {"num_players": 3}
    assert cfg.resolved_rules().num_players == 3  # changed keys: other rules


def test_rules_given_as_no_mapping_are_a_one_line_config_error():
    with pytest.raises(ConfigError, match="'rules'.*must be dict") as e:
        load_config(None, ["rules=[1]"])
    assert "\n" not in str(e.value)
