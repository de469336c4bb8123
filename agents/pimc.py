"""Perfect-Information Monte Carlo (PIMC): at each trump declaration and card play, sample N worlds
consistent with the seat's InfoState (agents/worlds.py: cards seen, counts, shown voids, and hands
that explain the bids; the engine builds each, ``Game.from_info_state``), take every legal action in each world, play the hand out with the fast
rollout policy (agents/rollout.py) and score it for the seat's side: its score change minus the
best other side's, ± two hands' worth of points when the game is won or lost.

All actions share each world (common random numbers); clearly worse actions stop getting worlds
after the first few; the heuristic's choice is kept unless another action beats it by more than
``switch_z`` standard errors. Bids, the stock decision and discards are the heuristic's.
"""

from __future__ import annotations

from pitch_env.engine import BID, DECLARE, PLAY, Game

from .heuristic import HeuristicAgent, heuristic_action
from .rollout import playout
from .worlds import sample_world, void_masks

DEFAULT_WORLDS = 12  # the budget of the strength claims in docs/agents.md
FIRST_WORLDS = 6  # worlds in which every legal action is tried before any is dropped
DROP_Z = 2.0  # drop an action this many standard errors behind the leader
SWITCH_Z = 1.0  # leave the heuristic's choice only for an action this many standard errors better
SEARCHED = (DECLARE, PLAY)


class PIMCAgent(HeuristicAgent):
    name = "pimc"

    def __init__(self, env, worlds: int = DEFAULT_WORLDS, seed: int | None = None, switch_z: float = SWITCH_Z,
                 bid_worlds: int = 0):
        super().__init__(env, seed=seed)
        self.worlds = worlds
        self.bid_worlds = bid_worlds  # worlds per bid decision; 0: bid like the heuristic
        self.switch_z = switch_z
        self.name = f"pimc:{worlds}:{bid_worlds}" if bid_worlds else f"pimc:{worlds}"

    def act(self, observation, info) -> int:
        v = self.info_state(observation, info)
        legal = list(v.legal)
        choice = heuristic_action(v, self.layout)
        if len(legal) == 1 or v.phase not in SEARCHED and not (v.phase == BID and self.bid_worlds):
            return choice
        return self.search(v, legal, choice)

    def outcomes(self, v, legal: list[int], keep: int) -> list[list[float]]:
        """Rollout outcomes of each legal action, world by world, over up to ``self.worlds`` worlds
        (``self.bid_worlds`` for a bid).

        Every action is tried in the first ``FIRST_WORLDS`` worlds; after that an action whose
        outcomes fall clearly behind the leader's in the same worlds (paired difference more than
        ``DROP_Z`` standard errors) is dropped, so later worlds go to the close contenders. The
        action ``keep`` (the heuristic's) is never dropped.
        """
        voids = void_masks(v)
        side = self.rules.side_of(v.seat)
        results = [[] for _ in legal]
        active = list(range(len(legal)))
        for w in range(self.bid_worlds if v.phase == BID else self.worlds):
            hands, stock = sample_world(self.rng, v, voids)
            world = Game.from_info_state(v, hands, stock)
            for i in active:
                g = world.clone()
                g.apply_legal(legal[i])
                results[i].append(playout(g, side))
            if w + 1 >= FIRST_WORLDS and len(active) > 2:
                active = _contenders(results, active, keep)
        return results

    def search(self, v, legal: list[int], preferred: int) -> int:
        """The best action by mean outcome, if it beats the heuristic's choice by more than
        ``switch_z`` standard errors of their paired difference; else the heuristic's choice."""
        keep = legal.index(preferred)
        results = self.outcomes(v, legal, keep)
        n = len(results[keep])
        full = [i for i in range(len(legal)) if len(results[i]) == n]
        best = max(full, key=lambda i: sum(results[i]))
        if best == keep:
            return preferred
        mean, se = paired(results[best], results[keep])
        return legal[best] if mean > 0 and mean > self.switch_z * se else preferred


def paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of the world-by-world difference a - b."""
    n = len(a)
    diffs = [x - y for x, y in zip(a, b)]
    mean = sum(diffs) / n
    if n < 2:
        return mean, float("inf")
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, (var / n) ** 0.5


def _contenders(results: list[list[float]], active: list[int], keep: int) -> list[int]:
    """The actions not clearly worse than the leader, judged on the worlds all of them saw."""
    leader = max(active, key=lambda i: sum(results[i]))
    out = []
    for i in active:
        if i in (leader, keep):
            out.append(i)
            continue
        mean, se = paired(results[leader], results[i])
        if mean <= DROP_Z * se or mean == 0:
            out.append(i)
    return out
