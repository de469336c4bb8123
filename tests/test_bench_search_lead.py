"""bench/search_lead.py: which decisions the search makes for the network (the bids, each hand's first
card, the exchange, tricks by number), and a tournament that seats the network so split."""

from __future__ import annotations

import pytest

import pitch_env
from agents.base import RandomAgent, SplitAgent, turns
from agents.heuristic import HeuristicAgent
from bench.search_lead import chooser, main
from pitch_env.engine import BID, PLAY


def _states(variant: str, games: int = 3):
    env = pitch_env.env(variant, info_state=True)
    player = RandomAgent(env, seed=1)
    for game in range(games):
        env.reset(seed=game)
        for _, observation, info in turns(env):
            yield player.info_state(observation, info)
            env.step(player.act(observation, info))


@pytest.mark.parametrize("variant", ["setback", "ten_point"])
def test_each_kind_of_decision_is_picked_where_the_hand_says(variant):
    states = list(_states(variant))
    picked = {kind: [chooser(kind)(s) for s in states] for kind in ("bids", "pitch", "exchange", "play",
                                                                    "tricks:1-1", "tricks:2-3", "tricks:4-99")}
    first_cards = [s.phase == PLAY and not s.tricks and not s.trick for s in states]
    assert picked["pitch"] == first_cards and sum(first_cards) > 3
    assert picked["bids"] == [s.phase == BID for s in states]
    for i, s in enumerate(states):  # every decision is the bids', the exchange's, the pitch's or one trick's
        kinds = [k for k in ("bids", "exchange", "pitch", "tricks:1-1", "tricks:2-3", "tricks:4-99") if picked[k][i]]
        assert len(kinds) == 1, (s, kinds)
        assert picked["play"][i] == (kinds[0] != "bids")
        if kinds[0].startswith("tricks"):
            low, high = map(int, kinds[0][7:].split("-"))
            assert low <= len(s.tricks) + 1 <= high
    assert any(picked["exchange"]) == (variant == "ten_point")  # ten_point declares trump and discards


def test_the_split_agent_makes_the_picked_decisions_with_its_first_agent():
    env = pitch_env.env("setback", info_state=True)
    late, random_, heuristic = chooser("tricks:4-6"), RandomAgent(env, seed=2), HeuristicAgent(env, seed=2)
    split = SplitAgent(env, RandomAgent(env, seed=2), HeuristicAgent(env, seed=2), first=late)
    env.reset(seed=4)
    split.reset(9), random_.reset(9), heuristic.reset(9)
    routed = 0
    for _, observation, info in turns(env):
        action = split.act(observation, info)
        if late(split.info_state(observation, info)):
            assert action == random_.act(observation, info)
            routed += 1
        else:
            assert action == heuristic.act(observation, info)
        env.step(action)
    assert routed > 10


def test_the_tool_plays_the_split_network_and_refuses_bad_input_in_one_line(capsys):
    assert main(["--variant", "setback", "--net", "setback_scratch", "--worlds", "2", "--decisions", "tricks:5-6",
                 "--games", "2", "--workers", "1"]) == 0
    assert "pimcnet:2 on tricks:5-6" in capsys.readouterr().out
    assert main(["--variant", "setback", "--net", "setback_scratch", "--agent", "heuristic", "--decisions", "bids",
                 "--against", "random", "--games", "2", "--workers", "1"]) == 0
    table = capsys.readouterr().out
    assert "heuristic on bids" in table and "random" in table and "checkpoint:setback_scratch" not in table
    for bad in (["--agent", "checkpoint:no_such_agent"], ["--agent", "pimc:"], ["--against", "pimc:0"],
                ["--decisions", "tricks:3"], ["--decisions", "tricks:0-2"], ["--decisions", "all"],
                ["--net", "no_such_agent"], ["--worlds", "0"], ["--games", "0"],
                ["--variant", "auction", "--net", "setback_scratch"]):
        assert main(bad) == 2, bad
        err = capsys.readouterr().err.strip()
        assert err.startswith("pitch: ") and "\n" not in err, err
