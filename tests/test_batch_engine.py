"""The batched engine plays exactly the reference engine's games: every preset at every player count, and
random rule mixes drawn from rules.py's option table, checked after every move (bench/batch_check.py);
and a wrong rule in the compiled tables is caught by that check."""

import random

import numpy as np
import pytest

from bench.batch_check import Mismatch, cross_check, draw_options
from pitch_env.batch import kernels
from pitch_env.batch.tables import KNOWN_CHOICES, compile_rules
from pitch_env.cards import trump_table
from pitch_env.engine import BID, DECLARE, DISCARD, OVER, PASS, PLAY, STOCK
from pitch_env.rules import CHOICES, PRESET_PLAYERS, rules
from pitch_env.vector import VectorEnv

CONFIGS = [(v, n, p) for v, counts in PRESET_PLAYERS.items() for n in counts
           for p in ((False, True) if n in (4, 6) else (False,))]


def test_the_kernels_know_every_value_of_every_string_option():
    assert {k: tuple(v) for k, v in CHOICES.items()} == KNOWN_CHOICES


def test_the_compiled_kernels_saw_the_engines_constants():
    assert list(kernels.frozen_constants()) == [BID, DECLARE, STOCK, DISCARD, PLAY, OVER, PASS, 9, len(kernels.PARAMS)]


def test_trump_order_is_read_from_the_reference_table():
    c = compile_rules(rules("ten_point"))
    for t in range(4):
        order = trump_table(t, 54, True).order
        assert c.order[t, :len(order)].tolist() == list(order)


@pytest.mark.parametrize("variant,players,partnerships", CONFIGS)
def test_every_preset_and_player_count_plays_as_the_reference(variant, players, partnerships):
    seed = CONFIGS.index((variant, players, partnerships))
    counts = cross_check(variant, {"num_players": players, "partnerships": partnerships}, 12, 160, seed,
                         reward=("game", "hand", "relative")[seed % 3], record_every=3)
    assert counts["decisions"] == 12 * 160 and counts["hands"] > 0


def test_random_rule_mixes_play_as_the_reference():
    rng = random.Random(2026)
    games = mixes = 0
    while games < 2000:
        variant = rng.choice(tuple(PRESET_PLAYERS))
        counts = cross_check(variant, draw_options(rng, variant, vary=0.5), 16, 120, rng.randrange(2**40),
                             reward=rng.choice(("game", "hand", "relative")), record_every=5)
        games += counts["games"]
        mixes += 1
    assert mixes >= 20


def _env(variant, **options):
    return VectorEnv(variant, 16, seed=3, **options)


def _lowest_trump_wins(c):
    c.keys[:, :, :] = np.where(c.keys >= 100, 300 - c.keys, c.keys)


def _ace_worth_two(c):
    for t in range(4):
        c.card_points[t, t * 13 + 12] = 2


def _auction_never_closes_early(c):
    c.params[kernels.P_END_BID] = kernels.NO_END


def _scores_hidden(c):
    c.scatter[:, c.observer.table_offsets["scores"]] = -1


@pytest.mark.parametrize("variant,options,perturb", [
    ("setback", {}, _lowest_trump_wins),
    ("ten_point", {}, _ace_worth_two),
    ("auction", {}, _auction_never_closes_early),
    ("setback", {"target_score": 3}, _scores_hidden),
])
def test_a_wrong_rule_in_the_compiled_tables_is_caught(variant, options, perturb):
    env = _env(variant, **options)
    cross_check(variant, options, 16, 60, 3, env=env)  # right as compiled
    perturb(env.engine.compiled)
    with pytest.raises(Mismatch):
        cross_check(variant, options, 16, 400, 3, env=env)
