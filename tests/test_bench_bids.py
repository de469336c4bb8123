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
