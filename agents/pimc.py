"""Perfect-Information Monte Carlo (PIMC): at each bid, trump declaration and card play, sample N
worlds consistent with what the seat knows (agents/worlds.py), take every legal action in each
world, play the hand out with the fast rollout policy (agents/rollout.py) and choose the action
with the best average outcome for the seat's side (its score change minus the best other side's;
a won or lost game counts ± two hands' worth of points). The stock decision and discards are the
heuristic's. Each world is shared by all actions (common random numbers), and exact ties go to the
heuristic's choice.
"""

from __future__ import annotations

from .base import legal_actions
from .heuristic import HeuristicAgent
from .rollout import playout
from .view import read
from .worlds import build_world, sample_world, void_masks

DEFAULT_WORLDS = 8  # the budget of the strength claims in docs/agents.md
FIRST_WORLDS = 6  # worlds in which every legal action is tried before any is dropped
DROP_Z = 2.0  # drop an action this many standard errors behind the leader
SEARCHED = ("declare", "play")


class PIMCAgent(HeuristicAgent):
    name = "pimc"

    def __init__(self, env, worlds: int = DEFAULT_WORLDS, seed: int | None = None):
        super().__init__(env, seed=seed)
        self.worlds = worlds
        self.name = f"pimc:{worlds}"

    def act(self, observation, info) -> int:
        legal = legal_actions(observation, info)
        if len(legal) == 1:
            return legal[0]
        v = read(info, self.rules)
        if v.phase not in SEARCHED:
            return super().act(observation, info)
        return self.search(v, legal, self.heuristic_choice(v, legal))

    def heuristic_choice(self, v, legal: list[int]) -> int:
        if v.phase == "bid":
            return self.bid(v, legal)
        if v.phase == "declare":
            return self.declare(v)
        return self.play(v, legal)

    def action_values(self, v, legal: list[int]) -> list[float]:
        """Mean rollout outcome of each legal action over up to ``self.worlds`` sampled worlds.

        Every action is tried in the first ``FIRST_WORLDS`` worlds; after that, an action whose
        outcomes fall clearly behind the leader's in the same worlds (paired difference more than
        ``DROP_Z`` standard errors) is dropped, so later worlds go to the close contenders.
        """
        rules = self.rules
        voids = void_masks(v, rules)
        side = rules.side_of(v.seat)
        outcomes = [[] for _ in legal]
        active = list(range(len(legal)))
        for w in range(self.worlds):
            hands, stock = sample_world(self.rng, v, rules, voids)
            world = build_world(v, rules, hands, stock)
            for i in active:
                g = world.clone()
                g.apply_legal(legal[i])
                outcomes[i].append(playout(g, side))
            if w + 1 >= FIRST_WORLDS and len(active) > 1:
                active = _contenders(outcomes, active)
        return [sum(o) / len(o) for o in outcomes]

    def search(self, v, legal: list[int], preferred: int) -> int:
        values = self.action_values(v, legal)
        best = max(values)
        if values[legal.index(preferred)] >= best - 1e-9:
            return preferred
        return legal[values.index(best)]


def _contenders(outcomes: list[list[float]], active: list[int]) -> list[int]:
    """The actions not clearly worse than the leader, judged on the worlds all of them saw."""
    n = len(outcomes[active[0]])
    leader = max(active, key=lambda i: sum(outcomes[i]))
    lead = outcomes[leader]
    keep = []
    for i in active:
        if i == leader:
            keep.append(i)
            continue
        diffs = [a - b for a, b in zip(lead, outcomes[i])]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if mean <= DROP_Z * (var / n) ** 0.5 or mean == 0:
            keep.append(i)
    return keep

