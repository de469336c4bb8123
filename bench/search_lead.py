"""Which of a network's decisions does a search over it win with?

The network (``checkpoint:NET``) plays a duplicate-deal tournament against itself in which one kind of
its decisions is made by the search over it (``pimcnet:W:NET``, agents/netpimc.py) instead:

- ``bids``: the auction;
- ``pitch``: the first card of each hand (in setback it names trump);
- ``exchange``: declaring trump and the stock's discards (games with a stock);
- ``tricks:LO-HI``: the cards of tricks LO to HI (the first trick is 1), a hand's first card left out;
- ``play``: every decision but the bids.

The side with the search wins more than half of its games when those decisions are where the search
is ahead of the network; the whole search's lead is what ``pitch tournament --agents
checkpoint:NET,pimcnet:W:NET`` measures. ``--agent SPEC`` puts another agent in the search's place: a
candidate network (``checkpoint:PATH``) making only those decisions shows whether a training change
gained where the search is ahead. ``--against SPEC`` seats another opponent than the network (for
example ``pimc:12``), to see whether the search's lead there is strength or only its knowing the very
network it plays against.

Run: ``python -m bench.search_lead --variant setback --net setback_dealt_5m --decisions tricks:4-6 --games 1000 --seed 7``
"""

from __future__ import annotations

import argparse
import functools
import sys

import agents
import pitch_env
from agents.base import SplitAgent, is_bid
from agents.cli_checks import check_counts, fail
from agents.report import print_result
from agents.tournament import run_tournament
from pitch_env.engine import BID, PLAY

KINDS = ("bids", "pitch", "exchange", "tricks:LO-HI", "play")


def chooser(decisions: str):
    """The InfoState -> bool that picks the decisions named by ``decisions`` (one of KINDS)."""
    def first_card(s) -> bool:
        return s.phase == PLAY and not s.tricks and not s.trick

    if decisions == "bids":
        return is_bid
    if decisions == "pitch":
        return first_card
    if decisions == "exchange":
        return lambda s: s.phase not in (BID, PLAY)
    if decisions == "play":
        return lambda s: s.phase != BID
    kind, _, span = decisions.partition(":")
    low, dash, high = span.partition("-")
    if kind != "tricks" or not dash or not low.isdigit() or not high.isdigit() or not 1 <= int(low) <= int(high):
        raise ValueError(f"--decisions {decisions!r}: use one of {', '.join(KINDS)}, e.g. 'tricks:4-6'")
    low, high = int(low), int(high)
    return lambda s: s.phase == PLAY and not first_card(s) and low <= len(s.tricks) + 1 <= high


def searched(env, seed, *, net: str, worlds: int, decisions: str, agent: str = "") -> SplitAgent:
    """The network with the decisions ``decisions`` names made by the search over it (or by ``agent``)."""
    search = agents.make(agent or f"pimcnet:{worlds}:{net}", env, seed=seed)
    return SplitAgent(env, search, agents.make(f"checkpoint:{net}", env), first=chooser(decisions))


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.search_lead", description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="setback")
    p.add_argument("--net", default="setback_dealt_5m", help="a shipped agent's name or a policy file")
    p.add_argument("--worlds", type=int, default=32, help="the search's worlds per decision (not with --agent)")
    p.add_argument("--decisions", default="play", help=f"which decisions the search makes: {', '.join(KINDS)}")
    p.add_argument("--agent", default="", metavar="SPEC",
                   help="the agent making those decisions instead of the search (e.g. checkpoint:PATH)")
    p.add_argument("--against", default="", metavar="SPEC",
                   help="the opponent (default: the network itself, checkpoint:NET)")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    split = functools.partial(searched, net=args.net, worlds=args.worlds, decisions=args.decisions, agent=args.agent)
    try:
        check_counts(args.games, args.workers)
        env = pitch_env.env(args.variant)
        split(env, None)  # the decisions parse, both agents load for these rules
        against = args.against or f"checkpoint:{args.net}"
        agents.make(against, env)
    except ValueError as e:
        return fail(str(e))
    deciding = args.agent or f"pimcnet:{args.worlds}"
    result = run_tournament(args.variant, [against, split], games=args.games, seed=args.seed,
                            workers=args.workers, names=[against, f"{deciding} on {args.decisions}"])
    print_result(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
