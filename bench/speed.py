"""Decisions per second of random legal play: the wrapped AEC env, PettingZoo's own ``texas_holdem_v4``
and ``leduc_holdem_v4`` with the same loop, OpenSpiel's C++ ``spades`` (where open_spiel is installed),
and the vector env (``pitch_env.vector_env``) at several batch sizes, all in the same run.

Every decision builds the observation and the action mask, picks a uniformly random legal action from
the mask and steps (the vector env: for every game at once, the pick compiled as well). One process,
one core. Run: ``make bench`` or ``pitch bench [--seconds S]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import random
import sys
import time

import numpy as np
from numba import njit


def decisions_per_second(make_env, seconds: float, seed: int = 0) -> tuple[float, float, int]:
    """Play whole random games until ``seconds`` have passed.

    Returns (decisions per wall second, decisions per CPU second of this process, decisions);
    the CPU-time figure is steadier when other work shares the machine."""
    env = make_env()
    rng = random.Random(seed)
    pick = rng.random
    decisions, episode = 0, 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        # Seed once: re-seeding every episode is costly in some envs (rlcard's) and not what a loop does.
        env.reset(seed=seed) if episode == 0 else env.reset()
        episode += 1
        for _ in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(pick() * len(legal))]))
            decisions += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return decisions / wall, decisions / cpu, decisions


@njit(cache=True)
def random_legal(mask, state, out):
    """A uniformly random legal action for every game (``state``: a one-element uint64 LCG state)."""
    for g in range(mask.shape[0]):
        state[0] = state[0] * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        legal = 0
        for a in range(mask.shape[1]):
            legal += mask[g, a]
        pick = np.int64((state[0] >> np.uint64(33)) % np.uint64(legal))
        for a in range(mask.shape[1]):
            if mask[g, a]:
                if pick == 0:
                    out[g] = a
                    break
                pick -= 1


def vector_decisions_per_second(make_env, seconds: float, seed: int = 0) -> tuple[float, float, int]:
    """Random play through a vector env for ``seconds``: every step one decision in each game."""
    env = make_env()
    out = env.reset(seed=seed)
    state = np.array([seed + 1], np.uint64)
    actions = np.zeros(env.num_envs, np.int64)
    decisions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        random_legal(out["action_mask"], state, actions)
        out = env.step(actions)
        decisions += env.num_envs
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return decisions / wall, decisions / cpu, decisions


def spiel_decisions_per_second(make_game, seconds: float, seed: int = 0) -> tuple[float, float, int]:
    """Random play through an OpenSpiel game with the same loop: observation tensor and legal-action mask at
    every decision, chance outcomes sampled (not counted as decisions)."""
    game = make_game()
    pick = random.Random(seed).random
    decisions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(pick() * len(outcomes))][0])
                continue
            state.observation_tensor()
            state.legal_actions_mask()
            legal = state.legal_actions()
            state.apply_action(legal[int(pick() * len(legal))])
            decisions += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return decisions / wall, decisions / cpu, decisions


VECTOR_CASES = (("setback", 4, True), ("auction", 4, False), ("ten_point", 4, True))


def vector_cases(batch_sizes):
    import pitch_env

    out = []
    for variant, players, partnerships in VECTOR_CASES:
        for b in batch_sizes:
            label = f"vector {variant} {players}p x {b}"
            out.append((label, vector_decisions_per_second, lambda v=variant, n=players, p=partnerships, b=b:
                        pitch_env.vector_env(v, b, num_players=n, partnerships=p, copy=False, records=False)))
    return out


def spiel_cases():
    if importlib.util.find_spec("pyspiel") is None:
        return []
    import pyspiel

    return [("openspiel spades (C++)", spiel_decisions_per_second, lambda: pyspiel.load_game("spades"))]


def cases():
    import pitch_env
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

    out = []
    for variant, players, partnerships in (
        ("setback", 4, True), ("setback", 2, False), ("auction", 4, False), ("auction", 7, False),
        ("ten_point", 4, True),
    ):
        label = f"pitch {variant} {players}p {'partnerships' if partnerships else 'solo'}"
        out.append((label, lambda v=variant, n=players, p=partnerships: pitch_env.env(v, num_players=n, partnerships=p)))
    out.append(("pettingzoo texas_holdem_v4", texas_holdem_v4.env))
    out.append(("pettingzoo leduc_holdem_v4", leduc_holdem_v4.env))
    return out


def _problem(args) -> str:
    """What is wrong with the arguments, in one line ('' if nothing)."""
    if not 0 < args.seconds <= 3600:  # NaN too
        return f"--seconds {args.seconds:g}: give a time per environment from above 0 to 3600 seconds"
    if not 1 <= args.repeat <= 100:
        return f"--repeat {args.repeat}: give 1 to 100 timed runs per environment"
    sizes = args.batch_sizes.split(",")
    if not all(b.strip().isdigit() and 1 <= int(b) <= 65536 for b in sizes):
        return f"--batch-sizes {args.batch_sizes!r}: give comma-separated sizes from 1 to 65536, e.g. 1,64,1024"
    return ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per environment")
    parser.add_argument("--only", default=None, help="run only cases whose label contains this text")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per environment; the median is shown")
    parser.add_argument("--batch-sizes", default="1,64,1024,4096", help="vector env sizes, comma-separated")
    args = parser.parse_args(argv)
    problem = _problem(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    sizes = [int(b) for b in args.batch_sizes.split(",")]
    every = [(label, decisions_per_second, make) for label, make in cases()] + spiel_cases() + vector_cases(sizes)
    every = [case for case in every if not args.only or args.only in case[0]]
    if not every:
        print(f"error: --only {args.only!r} matches no environment; give part of a label of `pitch bench`'s table, "
              "e.g. 'pitch setback' or 'vector'", file=sys.stderr)
        return 2
    print(f"python {platform.python_version()} on {platform.machine()}, one process; "
          f"median of {args.repeat} runs of {args.seconds:g} s each")
    print(f"{'environment':40} {'decisions/s':>12} {'per CPU s':>12} {'decisions':>10}")
    rates = {}
    for label, measure, make in every:
        measure(make, min(1.0, args.seconds / 5))  # warm-up (and compile), not reported
        runs = sorted(measure(make, args.seconds) for _ in range(args.repeat))
        rate, cpu_rate, n = runs[len(runs) // 2]
        rates[label] = rate
        print(f"{label:40} {rate:12,.0f} {cpu_rate:12,.0f} {n:10,}", flush=True)
    spades = rates.get("openspiel spades (C++)")
    vector = {k: v for k, v in rates.items() if k.startswith("vector")}
    if spades and vector:
        best = max(vector, key=vector.get)
        print(f"best vector row: {best}, {vector[best]:,.0f} decisions/s = {vector[best] / spades:.1f}x OpenSpiel spades")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
