"""The network-guided search's speed on its two world holders, side by side in one run: searched decisions
per second of ``NetSearch.outcomes`` (agents/netpimc.py) with the worlds played on the reference engine
(``Game.from_info_state`` and ``NetRollouts.playout``) and on the batched engine (``NetRollouts.worlds``),
on the same decisions, worlds and network. Each measurement also checks that both give the same outcomes.

The decisions are every bid, trump and card with a choice of greedy self-play games of the network. Rounds
alternate the two, so a change in the machine's load hits both; medians are reported. One torch thread.
Run: ``python -m bench.search_speed [--variant auction] [--checkpoint checkpoints/auction] [--worlds 8]
[--games 2] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import torch

from bench.rounds import alternate, median_table


def decisions(rules, policy, games: int) -> list:
    """(InfoState, legal actions) at every searched decision of ``games`` greedy self-play games."""
    from agents.netpimc import SEARCHED, NetRollouts
    from pitch_env.engine import Game
    from pitch_env.loop import play

    net, out = NetRollouts(policy, rules), []
    for seed in range(games):
        g = Game(rules, seed=seed)
        live = net.table(g)

        def move(g: Game, seat: int) -> int:
            v = g.info_state(seat)
            if len(v.legal) > 1 and v.phase in SEARCHED:
                out.append((v, list(v.legal)))
            return int(net.greedy([g], [live])[0])

        play(g, move, moved=live.after)
    return out


def measure(policy, rules, worlds: int, cases: list, batched: bool, seen: dict) -> float:
    from agents.netpimc import NetSearch

    search = NetSearch(policy, rules, worlds, random.Random(5), batched=batched)
    t0 = time.process_time()
    outcomes = [search.outcomes(v, legal) for v, legal in cases]
    rate = len(cases) / (time.process_time() - t0)
    first = seen.setdefault("outcomes", outcomes)
    if not all(np.array_equal(a, b) for a, b in zip(first, outcomes)):
        raise SystemExit("the two world holders gave different outcomes")
    return rate


def main(argv=None) -> None:
    import pitch_env
    from pitch_policy import load_policy

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="auction")
    p.add_argument("--checkpoint", default="checkpoints/auction")
    p.add_argument("--worlds", type=int, default=8)
    p.add_argument("--games", type=int, default=2, help="self-play games whose decisions are searched")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    rules = pitch_env.rules(args.variant)
    policy, _ = load_policy(args.checkpoint, rules)
    cases = decisions(rules, policy, args.games)
    seen: dict = {}
    measure(policy, rules, args.worlds, cases[:5], True, {})  # warm-up: the kernels loaded
    print(f"{args.variant}, {args.checkpoint}, {args.worlds} worlds: {len(cases)} searched decisions of "
          f"{args.games} self-play games; CPU time")
    med = alternate({"reference engine": lambda: measure(policy, rules, args.worlds, cases, False, seen),
                     "batched engine": lambda: measure(policy, rules, args.worlds, cases, True, seen)}, args.rounds)
    print("\n" + median_table(med, "reference engine", "worlds on", "searched decisions/s", args.rounds,
                              base_name="reference"))


if __name__ == "__main__":
    main()
