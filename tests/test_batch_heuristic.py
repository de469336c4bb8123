"""The compiled heuristic (agents/batch_heuristic.py) chooses, at every decision of games played on the
batched engine, the move ``engine_hint`` chooses for a reference Game dealt the same cards: every preset at
every player count and random rule mixes; and a changed card value is caught by the same check."""

import random

import numpy as np
import pytest

from agents.batch_heuristic import BatchHeuristic
from bench.batch_check import _Reference, draw_options
from pitch_env.rules import PRESET_PLAYERS
from pitch_env.vector import VectorEnv
from train.hint import engine_hint

GAMES = 40  # per preset and player count in make test; bench: python -m tests.test_batch_heuristic N
CONFIGS = [(v, n, p) for v, counts in PRESET_PLAYERS.items() for n in counts
           for p in ((False, True) if n in (4, 6) else (False,))]


def play_beside_reference(variant, options, num_envs, steps, seed, explore=0.2, perturb=None, min_games=0):
    """Heuristic play (a share ``explore`` of random legal moves, for states it would not reach) on a vector
    env beside reference games for ``steps`` moves, and on until ``min_games`` games have finished; returns
    (decisions, games finished); raises AssertionError at the first difference."""
    env = VectorEnv(variant, num_envs, seed=seed, **options)
    env.reset(seed)
    heuristic = BatchHeuristic(env.engine)
    if perturb:
        perturb(heuristic)
    refs = [_Reference(env, b) for b in range(num_envs)]
    rng = np.random.default_rng(seed)
    decisions = finished = 0
    t = 0
    while t < steps or finished < min_games:
        t += 1
        got = heuristic.actions()
        actions = got.copy()
        for b, ref in enumerate(refs):
            want = engine_hint(ref.game)
            assert got[b] == want, (f"step {t}, game {b} (seed {ref.seed}, {ref.game.phase_name}): compiled "
                                    f"heuristic {got[b]}, engine_hint {want}")
            if rng.random() < explore:
                legal = ref.game.legal_actions()
                actions[b] = legal[rng.integers(len(legal))]
            ref.apply(int(actions[b]))
        env.step(actions)
        decisions += num_envs
        for b, ref in enumerate(refs):
            if ref.game.is_over:
                finished += 1
                refs[b] = _Reference(env, b)
    return decisions, finished


@pytest.mark.parametrize("variant,players,partnerships", CONFIGS)
def test_the_compiled_heuristic_moves_as_engine_hint_in_every_preset(variant, players, partnerships):
    seed = CONFIGS.index((variant, players, partnerships))
    decisions, finished = play_beside_reference(
        variant, {"num_players": players, "partnerships": partnerships}, 16, 100, seed, min_games=GAMES)
    assert finished >= GAMES


@pytest.mark.parametrize("mix", range(12))
def test_the_compiled_heuristic_moves_as_engine_hint_under_random_rule_mixes(mix):
    rng = random.Random(100 + mix)
    variant = rng.choice(tuple(PRESET_PLAYERS))
    play_beside_reference(variant, draw_options(rng, variant, 0.5), 8, 200, mix)


def test_a_changed_card_value_is_caught():
    def devalue_tens(h):  # a ten worth nothing to capture, in every trump
        h.F[:, 0, [8, 21, 34, 47]] = 0.0
        h.F[:, 2, [8, 21, 34, 47]] = h.F[:, 1, [8, 21, 34, 47]]
    with pytest.raises(AssertionError, match="compiled heuristic"):
        play_beside_reference("setback", {"num_players": 4, "partnerships": True}, 16, 400, 0, perturb=devalue_tens)


def test_a_changed_bid_margin_is_caught():
    def bid_higher(h):
        h.BF[2] += 1.0
    with pytest.raises(AssertionError, match="compiled heuristic"):
        play_beside_reference("auction", {"num_players": 4}, 16, 100, 0, perturb=bid_higher)


if __name__ == "__main__":  # the same check at a larger size: python -m tests.test_batch_heuristic 300
    import sys
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    total = 0
    for variant, players, partnerships in CONFIGS:
        d, f = play_beside_reference(variant, {"num_players": players, "partnerships": partnerships}, 32, 100,
                                     CONFIGS.index((variant, players, partnerships)) + 1000, min_games=games)
        total += d
        print(f"{variant} {players}p{' partners' if partnerships else ''}: {f} games, {d} decisions identical")
    print(f"all {total} decisions identical to engine_hint")
