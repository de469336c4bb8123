"""How much of a search teacher's overrides is its worlds' noise. Expert iteration (train/exit.py) fits a
network to the decisions of ``pimcnet:W`` over it, and a label differs from the network's own choice only
where the search overrode it. Here every searched decision of the teacher's self-play games is searched a
second time, from the same information state, with fresh worlds; an override that the second search does
not repeat was decided by which worlds were drawn, not by the position.

Printed: the share of decisions each search overrode, how often both chose the same action, and of the
first search's overrides how many the second repeated and how many it left to the network, overall and by
phase. One torch thread. Run: ``python -m bench.teacher_noise [--variant auction] [--checkpoint
checkpoints/auction] [--worlds 32] [--switch-z 1] [--decisions 1500] [--seed 3]``.
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import torch


def searched_twice(policy, rules, worlds: int, switch_z: float, decisions: int, seed: int) -> np.ndarray:
    """One row per searched decision with a choice: (phase, the network's action, the first search's, the
    second's). The games are the first search's self-play, as ``pitch exit`` records them."""
    from agents.netpimc import SEARCHED, NetSearch
    from pitch_env.engine import Game
    from pitch_env.loop import play
    from pitch_env.observer import LiveTable, Observer

    deals = random.Random(seed)
    first = NetSearch(policy, rules, worlds, random.Random(seed + 1), switch_z)
    second = NetSearch(policy, rules, worlds, random.Random(seed + 2), switch_z)
    live, rows = LiveTable(Observer(rules)), []

    def move(g: Game, seat: int) -> int:
        legal = g.legal_actions()
        if len(legal) == 1:
            return legal[0]
        d, v = first.decide_in(g, seat, live)
        if v.phase in SEARCHED:  # the same choice between the same network's move and the rest, fresh worlds
            rows.append((v.phase, d.network, d.action, second.search(v, legal, d.network)[0]))
        return d.action

    while len(rows) < decisions:
        g = Game(rules, seed=deals.getrandbits(62))
        live.sync(g)
        play(g, move, stop=lambda seat: len(rows) >= decisions, moved=live.after)
    return np.array(rows, np.int64).reshape(-1, 4)


def report(rows: np.ndarray, worlds: int, switch_z: float) -> list[str]:
    from pitch_env.engine import PHASES

    def line(label: str, r: np.ndarray) -> str:
        net, a, b = r[:, 1], r[:, 2], r[:, 3]
        over = a != net
        repeated = f"{100 * np.mean(b[over] == a[over]):.1f}%" if over.any() else "-"
        left = f"{100 * np.mean(b[over] == net[over]):.1f}%" if over.any() else "-"
        return (f"| {label} | {len(r):,} | {100 * over.mean():.1f}% | {100 * np.mean(b != net):.1f}% | "
                f"{100 * np.mean(a == b):.1f}% | {repeated} | {left} |")

    out = [f"pimcnet:{worlds}, switch_z {switch_z:g}, each decision searched twice on fresh worlds",
           "| decisions | n | first overrode | second overrode | same action | first's overrides repeated "
           "| first's overrides left to the network |", "|---|---|---|---|---|---|---|", line("all", rows)]
    for phase in np.unique(rows[:, 0]):
        out.append(line(PHASES[phase], rows[rows[:, 0] == phase]))
    return out


def main(argv=None) -> None:
    import pitch_env
    from pitch_policy import load_policy

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="auction")
    p.add_argument("--checkpoint", default="checkpoints/auction")
    p.add_argument("--worlds", type=int, default=32)
    p.add_argument("--switch-z", type=float, default=1.0)
    p.add_argument("--decisions", type=int, default=1500)
    p.add_argument("--seed", type=int, default=3)
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    rules = pitch_env.rules(a.variant)
    policy, _ = load_policy(a.checkpoint, rules)
    rows = searched_twice(policy, rules, a.worlds, a.switch_z, a.decisions, a.seed)
    print("\n".join(report(rows, a.worlds, a.switch_z)))


if __name__ == "__main__":
    main()
