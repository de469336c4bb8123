"""Where a trained agent's move spends its CPU time, with warm caches and with cold ones.

In a game against ``pimc:12`` the search runs between two of the agent's moves and evicts the
agent's code and weights from the CPU's caches, so a move there costs several times what it costs
in a loop (docs/agents.md "Thinking time"). This plays a few games of the agent against the
heuristic, keeps every decision the agent thought about (not the forced ones), then times each
piece of the move on those decisions: once with the caches warm (the same call again), once with
``--evict-mb`` MB of memory touched before each call, which stands in for the search. Thread CPU
time, the median over the decisions and ``--repeats`` passes; the figures vary with what else runs
on the machine, so only compare rows of one run.

    python -m bench.move_cost --variant ten_point --checkpoint checkpoints/ten_point

Pieces: ``info_state`` (the mover's InfoState, which the hint reads), ``hint`` (the heuristic's
choice, an input of the network), ``dispatch`` (numba's call of an empty kernel with the move's
arguments), ``network`` (``PolicyMLP.greedy``: the whole compiled move) and ``act`` (the agent's
whole move, all of the above).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _empty(obs, mask, hint, tables, weights):  # what numba's dispatch alone costs
    return hint


def record(variant: str, checkpoint: str, games: int, seed: int):
    """(agent, decisions): the agent and, per decision it thought about, (game clone, observation, info_state, hint)."""
    import pitch_env
    from agents import make
    from agents.base import turns
    from agents.heuristic import heuristic_action

    env = pitch_env.env(variant)
    agent = make(f"checkpoint:{checkpoint}", env)
    other = make("heuristic", env)
    decisions = []
    for g in range(games):
        env.reset(seed=seed + g)
        for name, obs, info in turns(env):
            seat = env.unwrapped.agent_name_mapping[name]
            mine = seat % 2 == g % 2  # the agent holds one side (every other seat), alternating by game
            player = agent if mine else other
            if mine and np.count_nonzero(obs["action_mask"]) > 1:
                game = env.unwrapped.game
                state = game.info_state(seat)
                hint = heuristic_action(state, agent.layout) if agent.policy.hint == "heuristic" else None
                decisions.append((game.clone(), {k: np.array(v) for k, v in obs.items()}, state, hint))
            env.step(player.act(obs, info))
    return agent, decisions


def measure(agent, decisions, evict_mb: float, repeats: int) -> dict[str, tuple[float, float]]:
    """Piece -> (warm, cold) median thread CPU µs per call over the decisions."""
    from agents.heuristic import heuristic_action

    policy = agent.policy
    policy.greedy(decisions[0][1]["observation"], decisions[0][1]["action_mask"], decisions[0][3])
    args = policy.greedy_args()
    layout = agent.layout
    pieces = {
        "info_state": lambda game, obs, state, hint: game.info_state(game.current_seat),
        "hint": lambda game, obs, state, hint: heuristic_action(state, layout),
        "dispatch": lambda game, obs, state, hint: _empty(obs["observation"], obs["action_mask"], -1, *args),
        "network": lambda game, obs, state, hint: policy.greedy(obs["observation"], obs["action_mask"], hint),
        "act": lambda game, obs, state, hint: agent.act(obs, {"info_state": state}),
    }
    if policy.hint != "heuristic":
        del pieces["hint"]
    if args is None:
        del pieces["dispatch"]
    buffer = np.zeros(max(1, int(evict_mb * 2**20)), np.uint8)
    clock = time.thread_time_ns
    times = {name: ([], []) for name in pieces}
    for _ in range(repeats):
        for d in decisions:
            for name, f in pieces.items():
                warm, cold = times[name]
                buffer[::64] += 1  # touch every cache line: what the search does between two moves
                t0 = clock()
                f(*d)
                cold.append(clock() - t0)
                t0 = clock()
                f(*d)
                warm.append(clock() - t0)
    return {name: (statistics.median(w) / 1000, statistics.median(c) / 1000) for name, (w, c) in times.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.move_cost", description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="ten_point")
    p.add_argument("--checkpoint", default="checkpoints/ten_point")
    p.add_argument("--games", type=int, default=4, help="games against the heuristic whose decisions are timed")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--evict-mb", type=float, default=3.0,
                   help="memory touched before each cold call (this machine's L2 is 2 MB a core)")
    p.add_argument("--repeats", type=int, default=3, help="passes over the decisions")
    args = p.parse_args(argv)
    if args.games < 1 or args.repeats < 1 or not 0 < args.evict_mb <= 4096:
        p.error("--games and --repeats are at least 1; --evict-mb is in (0, 4096]")
    agent, decisions = record(args.variant, args.checkpoint, args.games, args.seed)
    if not decisions:
        print("the agent made no decision with a choice in these games", file=sys.stderr)
        return 1
    rows = measure(agent, decisions, args.evict_mb, args.repeats)
    print(f"{args.variant}, {args.checkpoint}: {len(decisions)} decisions x {args.repeats} passes, "
          f"{args.evict_mb:g} MB touched before each cold call; median thread CPU time per call")
    print(f"{'piece':12s} {'warm µs':>9s} {'cold µs':>9s}")
    for name, (warm, cold) in rows.items():
        print(f"{name:12s} {warm:9.1f} {cold:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
