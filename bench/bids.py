"""Where does a trained policy lose to its teacher: in its bids or in its card play?

Two diagnostics for a checkpoint (most useful in auction, where bids decide games):

- ``swap``: a duplicate-deal tournament (agents/tournament.py) of the checkpoint against
  ``heuristic`` in which the checkpoint's bids are replaced by PIMC's bid search
  (``--bid-worlds B`` worlds; ``--votes K``: the most common of K independent searches, i.e. the
  search's modal choice, the target a fitted network can learn). If this hybrid wins clearly more
  than the checkpoint alone (``--bid-worlds 0``), the network's bids are what it lacks.
- ``agree``: at the checkpoint's own bid decisions (checkpoint in every other seat, heuristic in
  the others), how often the network, the heuristic and the bid search choose the same bid, and the
  most common disagreements.

- ``profile``: how an agent (any agent spec) bids against the heuristic, by the scores: at its
  bid decisions, the share of each choice when no other player is within ``--near`` points of the
  target, and when one is (the end game, where only a pitcher can win).

Run: ``python -m bench.bids profile --agent checkpoint:auction --games 400`` or ``python -m bench.bids swap --checkpoint checkpoints/auction_base --bid-worlds 8 --games 2000 --seed 2024``
or ``python -m bench.bids agree --checkpoint checkpoints/auction_base --games 100``.
"""

from __future__ import annotations

import argparse
import collections
import functools

import numpy as np

import agents
import pitch_env
from agents.checkpoint import CheckpointAgent
from agents.heuristic import HeuristicAgent
from agents.pimc import SWITCH_Z, PIMCAgent
from agents.report import print_result
from agents.tournament import run_tournament
from pitch_env.engine import BID
from pitch_policy import policy_input


def swap_name(bid_worlds: int, votes: int) -> str:
    return f"checkpoint+bids:{bid_worlds}x{votes}" if bid_worlds else "checkpoint"


class SearchedBids:
    """The checkpoint's play with the bids of PIMC bid search (the modal choice of ``votes`` searches)."""

    def __init__(self, env, seed, checkpoint: str, bid_worlds: int, votes: int, switch_z: float):
        self.net = CheckpointAgent(checkpoint, env)
        self.searches = [PIMCAgent(env, bid_worlds=bid_worlds, switch_z=switch_z) for _ in range(votes if bid_worlds else 0)]
        self.name = swap_name(bid_worlds, votes)

    def reset(self, seed=None) -> None:
        self.net.reset(seed)
        for k, s in enumerate(self.searches):
            s.reset(None if seed is None else seed * 31 + k)

    def act(self, observation, info) -> int:
        if self.searches and self.searches[0].info_state(observation, info).phase == BID:
            votes = collections.Counter(s.act(observation, info) for s in self.searches)
            return votes.most_common(1)[0][0]
        return self.net.act(observation, info)


def swap(args) -> None:
    agent = functools.partial(SearchedBids, checkpoint=args.checkpoint, bid_worlds=args.bid_worlds,
                              votes=args.votes, switch_z=args.switch_z)
    result = run_tournament(args.variant, [agent, "heuristic"], games=args.games, seed=args.seed, workers=args.workers,
                            names=[swap_name(args.bid_worlds, args.votes), "heuristic"])
    print_result(result)


def against_heuristic(env, heuristic, games: int, seed: int, decide, start=None) -> None:
    """``games`` games of ``env`` in which every other seat (4 players: two, as the tournament seats
    it) plays ``decide(observation, info)`` and the others the heuristic; ``start(game)`` before each."""
    for game in range(games):
        env.reset(seed=seed * 100_003 + game)
        if start is not None:
            start(game)
        seats = set(env.agents[game % 2::2])
        for agent in env.agent_iter():
            observation, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
            elif agent in seats:
                env.step(decide(observation, info))
            else:
                env.step(heuristic.act(observation, info))


def agree(args) -> None:
    env = pitch_env.env(args.variant, infoset=True)
    net = CheckpointAgent(args.checkpoint, env)
    heuristic = HeuristicAgent(env)
    search = PIMCAgent(env, bid_worlds=args.bid_worlds or 8, seed=args.seed, switch_z=args.switch_z)
    names = env.unwrapped.layout.names
    choices = collections.Counter()

    def decide(observation, info) -> int:
        action = net.act(observation, info)
        if search.info_state(observation, info).phase == BID and observation["action_mask"].sum() > 1:
            choices[names[action], names[heuristic.act(observation, info)], names[search.act(observation, info)]] += 1
        return action

    against_heuristic(env, heuristic, args.games, args.seed, decide)
    total = sum(choices.values())
    same = lambda i, j: sum(n for c, n in choices.items() if c[i] == c[j]) / total  # noqa: E731
    print(f"{total} bid decisions of the checkpoint that offered a choice ({args.games} games)")
    print(f"network = heuristic {same(0, 1):.1%}   network = search {same(0, 2):.1%}   "
          f"heuristic = search {same(1, 2):.1%}")
    print("most common choices (network / heuristic / search):")
    for (a, h, s), n in choices.most_common(args.top):
        print(f"  {a:>10} / {h:>10} / {s:>10}  {n}")


def profile(args) -> dict:
    """``{context: Counter(choice name)}`` of the agent's bid decisions, and the table printed."""
    env = pitch_env.env(args.variant, infoset=True)
    mine, heuristic = agents.make(args.agent, env, seed=args.seed), HeuristicAgent(env)
    rules, names = env.unwrapped.rules, env.unwrapped.layout.names
    near = max(rules.target_score - args.near, 0)
    table: dict[str, collections.Counter] = {}
    probabilities: dict[str, np.ndarray] = {}  # a network's summed sampling probabilities, by real action

    def decide(observation, info) -> int:
        action = mine.act(observation, info)
        state = mine.info_state(observation, info)
        if state.phase == BID and observation["action_mask"].sum() > 1:
            own = rules.side_of(state.seat)
            threat = max(v for side, v in enumerate(state.scores) if side != own)
            context = f"another player at {near} or more" if threat >= near else f"every other player below {near}"
            table.setdefault(context, collections.Counter())[names[action]] += 1
            p = sampling(mine, observation)
            if p is not None:
                sums = probabilities.setdefault(context, np.zeros(len(names)))
                sums += p
        return action

    against_heuristic(env, heuristic, args.games, args.seed, decide, start=lambda game: mine.reset(args.seed * 7 + game))
    print(f"{args.agent}'s bid decisions with a choice, against the heuristic ({args.games} games, seed {args.seed})")
    for context, counts in sorted(table.items()):
        total = sum(counts.values())
        shares = "  ".join(f"{name} {n / total:.1%}" for name, n in sorted(counts.items()))
        print(f"  {context} ({total}): {shares}")
        if context in probabilities:
            mean = probabilities[context] / total
            print("    sampled (the network's mean probability): "
                  + "  ".join(f"{names[a]} {mean[a]:.1%}" for a in np.flatnonzero(mean > 0)))
    return table


def sampling(agent, observation) -> np.ndarray | None:
    """A checkpoint's sampling probability of each real action at this decision (the masked softmax
    that PPO trained); None for any other agent, and for a policy that reads the heuristic's choice."""
    policy = getattr(agent, "policy", None)
    if policy is None or policy.hint != "none":
        return None
    x, mask, act_src = policy_input(observation["observation"], observation["action_mask"], policy.transform)
    z = np.where(mask > 0, policy.logits(x), -np.inf)
    p = np.exp(z - z.max())
    p /= p.sum()
    out = np.zeros(len(p))
    out[np.arange(len(p)) if act_src is None else act_src] = p
    return out


def main(argv=None) -> dict | None:
    p = argparse.ArgumentParser(prog="python -m bench.bids", description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=("swap", "agree", "profile"))
    p.add_argument("--agent", default="checkpoint:auction", help="profile: the agent spec whose bids are counted")
    p.add_argument("--near", type=int, default=2, help="profile: the end game starts this many points below the target")
    p.add_argument("--checkpoint", default="checkpoints/auction_base")
    p.add_argument("--variant", default="auction")
    p.add_argument("--bid-worlds", type=int, default=8, help="worlds per bid search; 0 (swap): the checkpoint alone")
    p.add_argument("--votes", type=int, default=1, help="swap: bid the most common choice of this many searches")
    p.add_argument("--switch-z", type=float, default=SWITCH_Z, help="leave the heuristic's bid only this many "
                   "standard errors better (0: the best mean)")
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--top", type=int, default=12)
    args = p.parse_args(argv)
    return {"swap": swap, "agree": agree, "profile": profile}[args.mode](args)


if __name__ == "__main__":
    main()
