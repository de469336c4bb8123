"""bench/bids.py: the bid-swap diagnostic plays the checkpoint's moves except its bids, which are the
bid search's."""

from __future__ import annotations

import pitch_env
from agents.checkpoint import CheckpointAgent
from agents.pimc import PIMCAgent
from bench.bids import SearchedBids
from agents.base import turns


def test_the_swap_agent_bids_like_the_search_and_plays_like_the_checkpoint():
    env = pitch_env.env("auction", infoset=True)
    swapped = SearchedBids(env, None, "checkpoints/auction_base", bid_worlds=4, votes=1, switch_z=1.0)
    alone = SearchedBids(env, None, "checkpoints/auction_base", bid_worlds=0, votes=1, switch_z=1.0)
    net, search = CheckpointAgent("checkpoints/auction_base", env), PIMCAgent(env, bid_worlds=4)
    bids = differ = 0
    for game in range(3):
        env.reset(seed=game)
        swapped.reset(game)
        search.reset(game * 31)  # the swap agent's first search is seeded so
        for _, observation, info in turns(env):
            action = swapped.act(observation, info)
            expected = net.act(observation, info)
            assert alone.act(observation, info) == expected
            if info["infoset"]["phase"] == "bid":
                bids += 1
                searched = search.act(observation, info)
                assert action == searched
                differ += searched != expected
            else:
                assert action == expected
            env.step(action)
    assert bids > 20 and differ > 0  # the search's bids were played, and some were not the network's


def test_the_bid_profile_counts_the_agents_bid_choices_by_the_scores(capsys):
    from bench.bids import main

    table = main(["profile", "--agent", "random", "--games", "6", "--seed", "3"])
    choices = {name for counts in table.values() for name in counts}
    assert choices <= {"pass", "bid 1", "bid 2", "bid 3", "bid 4"} and "bid 4" in choices
    assert all(context.startswith(("another player at 5", "every other player below 5")) for context in table)
    assert sum(sum(c.values()) for c in table.values()) >= 6 * 4  # at least one bid turn a hand, two seats
    assert "random's bid decisions" in capsys.readouterr().out


def test_the_profiles_sampling_probabilities_are_the_checkpoints_masked_softmax():
    import numpy as np

    from bench.bids import sampling

    env = pitch_env.env("setback", infoset=True)
    net = CheckpointAgent("checkpoints/setback_scratch", env)
    env.reset(seed=5)
    seen = 0
    for _, observation, info in turns(env):
        p = sampling(net, observation)
        mask = np.asarray(observation["action_mask"]) > 0
        assert abs(p.sum() - 1) < 1e-5 and not p[~mask].any()
        assert int(np.argmax(p)) == net.act(observation, info)
        seen += 1
        env.step(net.act(observation, info))
    assert seen > 20
    assert sampling(object(), None) is None
