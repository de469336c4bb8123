"""Perfect-Information Monte Carlo (PIMC): at each card play, sample N worlds consistent with what
the seat knows (agents/worlds.py), play every legal card in each world to the end of the hand with
a fast rollout policy, and choose the card with the best average outcome for the seat's side.

Outcome of a rollout: the side's score change minus the best other side's (a won or lost game adds
±2 hands' worth of points). Bids, trump declaration, the stock decision and discards are the
heuristic's (agents/heuristic.py); search is used for card play, including the pitch that sets trump.
"""

from __future__ import annotations

from pitch_env.engine import Game

from .cardplay import choose_card, play_tables
from .heuristic import HeuristicAgent
from .worlds import build_world, sample_hands, void_masks

DEFAULT_WORLDS = 8  # the budget of the strength claims in docs/agents.md


def rollout_action(game: Game, pt_cache: dict) -> int:
    """The cheap rollout policy: agents/cardplay.py's rules read straight from the engine's ints,
    using only the mover's own hand and the public trick (never the other sampled hands)."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    trump = game.trump
    pt = pt_cache.get(trump)
    if pt is None:
        pt = pt_cache[trump] = play_tables(game.rules, trump)
    base = game.layout.play_base
    seat = game.current_seat
    trick = game.trick
    card = choose_card(pt, seat, game.hands[seat], [a - base for a in legal], trick, game.played,
                       game.trick_order[len(trick) + 1:])
    return base + card


def rollout_value(game: Game, side: int, pt_cache: dict) -> float:
    """Play ``game`` to the end of its hand; the outcome for ``side``."""
    rules = game.rules
    hand = game.hand_number
    before = list(game.scores)
    while game.hand_number == hand and not game.is_over:
        game.apply(rollout_action(game, pt_cache))
    change = [game.scores[s] - before[s] for s in range(rules.num_sides)]
    value = change[side] - max(c for s, c in enumerate(change) if s != side)
    if game.winner is not None:
        value += (1 if game.winner == side else -1) * 2 * rules.max_hand_points
    return value


class PIMCAgent(HeuristicAgent):
    name = "pimc"

    def __init__(self, env, worlds: int = DEFAULT_WORLDS, seed: int | None = None):
        super().__init__(env, seed=seed)
        self.worlds = worlds
        self.name = f"pimc:{worlds}"
        self._pt_cache: dict = {}

    def play(self, v, legal: list[int]) -> int:
        rules = self.rules
        voids = void_masks(v, rules)
        totals = [0.0] * len(legal)
        side = rules.side_of(v.seat)
        for _ in range(self.worlds):
            world = build_world(v, rules, sample_hands(self.rng, v, rules, voids))
            for i, action in enumerate(legal):
                g = world.clone()
                g.apply(action)
                totals[i] += rollout_value(g, side, self._pt_cache)
        # Ties go to the heuristic's own choice, so a budget too small to tell cards apart plays like it.
        preferred = super().play(v, legal)
        best = max(totals)
        if totals[legal.index(preferred)] >= best - 1e-9:
            return preferred
        return legal[totals.index(best)]

