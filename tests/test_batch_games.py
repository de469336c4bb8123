"""The self-play core on the batched engine (train/batch_games.py) collects exactly the rollouts it collects on
the reference engine's games dealt the same cards: the same inputs, masks, actions, log-probabilities, values,
rewards (relative hand rewards and the win bonus), marks of each side's first decision of a hand,
trajectories and statistics; and a league with an agent spec keeps the reference games."""

import numpy as np
import pytest
import torch

from pitch_env.batch import BatchEngine
from pitch_env.engine import Game, first_dealer
from train.batch_games import BatchGames
from train.config import load_config
from train.lockstep import Games, Lockstep
from train.network import PolicyValueNet

BASE = ["trainer=fast", "num_envs=8", "hidden=[32, 32]", "opponents={self: 1, random: 1, heuristic: 1}",
        "mirror=0.3"]


class DealtGames(Games):
    """The reference Games, each game dealt, hand by hand, the cards the batched engine deals for its seed."""

    def __init__(self, rules, n):
        super().__init__(rules, n)
        self.dealer = BatchEngine(rules, 1)

    def reset(self, i, seed):
        hands, stock = self.dealer.deal(seed, 1, first_dealer(self.rules, seed))
        g = self.games[i] = Game(self.rules, seed=seed, deals=[{"deal": hands, "stock": stock}])
        self.tables[i].sync(g)

    def step(self, i, seat, action):
        g = self.games[i]
        if len(g.deals) <= g.hand_number:  # the next hand may start with this move
            g.deals.append(self.dealer.deal(g.seed, g.hand_number + 1, (g.dealer + 1) % self.rules.num_players))
        return super().step(i, seat, action)


def rollouts(cfg, batched, n_rollouts=6, target=400):
    torch.manual_seed(0)
    net = PolicyValueNet.for_config(cfg)
    pi, vf = net.layers()
    lock = Lockstep(cfg, 8, 7, batched=batched)
    if not batched:
        lock.games = DealtGames(lock.rules, 8)
    lock.set_learner(pi, vf)
    lock.add_snapshot(pi, "relu")
    return [lock.collect(target) for _ in range(n_rollouts)]


@pytest.mark.parametrize("extra", [
    ["variant=setback"], ["variant=setback", "rules={num_players: 2}", "mirror=1.0"],
    ["variant=auction", "rules={num_players: 5}", "hint=heuristic"], ["variant=ten_point", "hint=heuristic"],
    ["variant=auction", "rules={num_players: 4, partnerships: true}", "reward=game"],
    ["variant=auction", "reward=game", "start_scores=0.7"], ["variant=setback", "start_scores=1.0"],
    ["variant=auction", "reward=game", "rules={max_hands: 2}"],  # games stopped unwon, counted alike
])
def test_batched_games_collect_the_reference_games_rollouts(extra):
    cfg = load_config(None, [*BASE, *extra])
    got, want = rollouts(cfg, True), rollouts(cfg, False)
    credited = 0
    for g, w in zip(got, want):
        for field in ("masks", "actions", "rewards", "opens"):
            assert np.array_equal(getattr(g, field), getattr(w, field)), field
        # The reference core's LiveTable rounds a few float32 fractions one unit in the last place away from
        # Observer.encode (which the batched engine matches exactly), and the network outputs follow.
        for field in ("obs", "logp", "values"):
            assert np.allclose(getattr(g, field), getattr(w, field), rtol=0, atol=1e-5), field
        assert [(s.rows, s.ended) for s in g.segments] == [(s.rows, s.ended) for s in w.segments]
        assert g.stats == w.stats
        credited += int((g.rewards != 0).sum())
    assert credited > 0 and sum(g.stats["games"] for g in got) > 0
    if "max_hands" in str(extra):
        assert sum(g.stats["truncated"] for g in got) > 0


@pytest.mark.parametrize("batched", [True, False])
def test_start_scores_deals_games_at_random_scores_below_the_target(batched):
    cfg = load_config(None, [*BASE, "variant=auction", "start_scores=1.0", "opponents={heuristic: 1}"])
    lock = Lockstep(cfg, 8, 3, batched=batched)
    lock.seatings, lock.traj = [None] * 8, [{} for _ in range(8)]
    scores = []
    for i in range(8):
        lock.start(i)
        g = lock.games.games[i]
        scores.append(list(lock.games.engine.scores[i]) if batched else list(g.scores))
        seen = lock.games.observations([i], [g.current_seat])[0].copy()
        lock.games.set_scores(i, [0] * lock.rules.num_sides)  # the observation shows the scores
        assert np.array_equal(seen, lock.games.observations([i], [g.current_seat])[0]) == (not any(scores[-1]))
    flat = np.array(scores)
    assert flat.min() >= 0 and flat.max() < lock.rules.target_score and flat.any()
    lock.set_weights(cfg.opponents, cfg.mirror, 0.0)  # a schedule turning it off: fresh games start at 0
    for i in range(8):
        lock.start(i)
        assert not any(lock.games.engine.scores[i] if batched else lock.games.games[i].scores)


def test_start_scores_is_a_share_for_the_batched_trainer_alone():
    from train.config import ConfigError

    for bad, match in ((["trainer=fast", "start_scores=1.5"], "start_scores"),
                       (["trainer=fast", "advantage_horizon=round"], "advantage_horizon")):
        with pytest.raises(ConfigError, match=match):
            load_config(None, bad)
    cfg = load_config(None, ["trainer=fast", "schedule=[{at: 10, start_scores: 0.5}]"])
    assert cfg.start_scores == 0 and cfg.schedule[0]["start_scores"] == 0.5


def test_a_league_with_an_agent_spec_keeps_the_reference_games():
    cfg = load_config(None, [*BASE, "opponents={heuristic: 1, 'pimc:2': 1}"])
    assert isinstance(Lockstep(cfg, 2, 0).games, Games)
    assert isinstance(Lockstep(load_config(None, BASE), 2, 0).games, BatchGames)


def test_an_illegal_move_is_refused_in_the_batched_games():
    games = BatchGames(load_config(None, BASE).resolved_rules(), 2)
    games.reset(0, 1)
    bad = int(np.flatnonzero(games.engine.mask[0] == 0)[0])
    with pytest.raises(ValueError, match="game 0: action"):
        games.step(0, games.seats()[0], bad)


def test_a_wrong_hand_reward_is_caught_by_the_comparison(monkeypatch):
    step = BatchGames.step

    def doubled(self, i, seat, action):  # each finished hand's score change counted twice
        hand, over = step(self, i, seat, action)
        return (None if hand is None else tuple(2 * c for c in hand)), over

    monkeypatch.setattr(BatchGames, "step", doubled)
    with pytest.raises(AssertionError, match="rewards"):
        test_batched_games_collect_the_reference_games_rollouts(["variant=setback"])
