"""The oracle critic (``critic: oracle``, train/critic.py): the value network reads every other seat's hand,
placed where the seat's suit-canonical view shows each card, in seat order after the seat to move; both engines
give it the same inputs; a run trains, resumes and exports a policy that reads only its seat's view; and the
paths that cannot train it refuse the key in one line."""

import json

import numpy as np
import pytest
import torch

import pitch_env
from pitch_env.batch import BatchEngine
from pitch_env.observer import Observer
from pitch_policy.canonical import BatchCanonical, SuitCanonical
from train.config import ConfigError, load_config
from train.critic import oracle_inputs, oracle_size
from train.network import PolicyValueNet
from train.run import train
from tests.test_batch_games import BASE, rollouts
from tests.test_ppo import play_a_game


def _bits(mask: int, deck: int) -> np.ndarray:
    return np.array([(mask >> c) & 1 for c in range(deck)], np.float32)


@pytest.mark.parametrize("variant,players", [("setback", 4), ("auction", 5), ("ten_point", 4), ("setback", 2)])
def test_oracle_rows_are_the_other_hands_in_seat_order_where_the_canonical_view_shows_them(variant, players):
    rules = pitch_env.rules(variant, num_players=players)
    engine = BatchEngine(rules, 64)
    engine.reset(np.arange(64) + 11)
    rng = np.random.default_rng(0)
    canon = BatchCanonical(SuitCanonical(rules))
    hand = Observer(rules).pieces["hand"].offset
    n, deck, checked = rules.num_players, rules.deck, 0
    for _ in range(40):  # through bidding, trump and trick play
        seats = engine.current_seat.copy()
        live = np.flatnonzero(~engine.over)
        hands = engine.M[live, :n]
        shown, _, ids = canon.apply(engine.obs[live], engine.mask[live].astype(bool))
        got = oracle_inputs(hands, seats[live], deck, canon.card_src[ids]).reshape(len(live), n - 1, deck)
        plain = oracle_inputs(hands, seats[live], deck).reshape(len(live), n - 1, deck)
        # the seat to move's own hand, through the same placement, is the hand piece of its canonical view
        own = oracle_inputs(hands, (seats[live] - 1) % n, deck, canon.card_src[ids]).reshape(len(live), n - 1, deck)
        assert np.array_equal(own[:, 0], shown[:, hand:hand + deck])
        for row, g in enumerate(live):
            for k in range(n - 1):
                seat = (seats[g] + 1 + k) % n
                assert np.array_equal(plain[row, k], _bits(int(engine.M[g, seat]), deck))
                # the canonical placement is the plain one moved as the row's view moves cards
                assert np.array_equal(got[row, k], plain[row, k][canon.card_src[ids[row]]])
            checked += 1
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in engine.mask])
        engine.step(actions)
    assert checked > 1000
    assert oracle_size(rules) == (n - 1) * deck


def test_both_engines_give_the_oracle_critic_the_same_inputs_and_values():
    cfg = load_config(None, [*BASE, "variant=setback", "critic=oracle"])
    got, want = rollouts(cfg, True), rollouts(cfg, False)
    for g, w in zip(got, want):
        assert g.oracle is not None and g.oracle.shape == (len(g), oracle_size(cfg.resolved_rules()))
        assert np.array_equal(g.oracle, w.oracle)
        assert np.allclose(g.values, w.values, rtol=0, atol=1e-5)
        assert set(np.unique(g.oracle)) == {0.0, 1.0}


def test_the_value_net_reads_the_oracle_inputs_and_the_policy_does_not():
    cfg = load_config(None, [*BASE, "critic=oracle"])
    net = PolicyValueNet.for_config(cfg)
    rules = cfg.resolved_rules()
    assert net.vf[0].in_features == net.pi[0].in_features + oracle_size(rules)
    x = torch.rand(5, net.inputs)
    a, b = torch.zeros(5, oracle_size(rules)), torch.ones(5, oracle_size(rules))
    assert not torch.allclose(net.value(x, a), net.value(x, b))
    assert net.export_policy().shape == [net.inputs, *cfg.hidden, net.actions]


def test_an_oracle_critic_run_trains_resumes_and_exports_a_policy_of_the_seat_view(tmp_path):
    tiny = ["trainer=fast", "critic=oracle", "num_envs=4", "workers=2", "n_steps=128", "batch_size=256",
            "hidden=[32, 32]", "total_steps=1024", "snapshot_every=512", "checkpoint_every=512", "eval_every=0",
            "eval_games=2", "eval_opponents=[random]", "opponents={self: 1, heuristic: 1}", "mirror=0.3",
            f"runs_dir={tmp_path}", "run_name=o"]
    run = train(overrides=tiny, show_progress=False)
    train(resume=run, overrides=["total_steps=2048"], show_progress=False)
    assert json.loads((run / "checkpoint" / "state.json").read_text())["steps"] >= 2048
    with pytest.raises(ConfigError, match="critic"):
        train(resume=run, overrides=["critic=observation"], show_progress=False)
    play_a_game(f"checkpoint:{run}", seed=3)  # the exported policy reads the seat's view alone


@pytest.mark.parametrize("keys", [["trainer=sb3"], ["trainer=fast", "imitate=heuristic"],
                                  ["backend=rllib"]])
def test_paths_that_cannot_train_an_oracle_critic_refuse_it_in_one_line(keys):
    with pytest.raises(ConfigError, match="critic.*oracle") as e:
        load_config(None, ["critic=oracle", *keys])
    assert "\n" not in str(e.value)
