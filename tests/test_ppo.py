"""PPO on the batched self-play core (train/lockstep.py, train/ppo.py): its batched inputs are the
env's, its rollouts hold only legal, complete, correctly credited decisions, its advantages are GAE
with bootstraps of running games, its loss is MaskablePPO's, and a run trains, resumes, exports a
playable policy and refuses keys that belong to the other path."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch

import agents
import pitch_env
from pitch_policy.canonical import BatchCanonical, SuitCanonical
from pitch_env.engine import OVER, Game
from pitch_env.observer import LiveTable, Observer
from pitch_policy import policy_input
from train.config import ConfigError, load_config
from train.lockstep import Lockstep, Rollout, Segment
from train.network import PolicyValueNet, new_optimizer
from train.ppo import PPO, advantages, update
from train.run import train

TINY = ["trainer=fast", "num_envs=8", "n_steps=32", "batch_size=128", "n_epochs=1", "hidden=[32, 32]",
        "total_steps=1024", "snapshot_every=256", "checkpoint_every=512", "eval_every=0", "eval_games=2",
        "eval_opponents=[random]", "opponents={self: 1, random: 1, heuristic: 1}", "mirror=0.3"]
PRESETS = [("setback", {}), ("setback", {"num_players": 3}), ("auction", {"num_players": 5}), ("ten_point", {})]


@pytest.mark.parametrize("variant,options", PRESETS)
def test_batched_inputs_are_the_single_decision_inputs_row_for_row(variant, options):
    """BatchCanonical and the batched hint give, row by row, what policy_input gives one decision."""
    from pitch_env.actions import ActionLayout
    from train.hint import engine_hint

    rules = pitch_env.rules(variant, **options)
    size = ActionLayout(rules).size
    ob = Observer(rules)
    single = SuitCanonical(rules)
    cfg = load_config(None, [f"variant={variant}", f"rules={options or {}}", "hint=heuristic", "trainer=fast"])
    lock = Lockstep(cfg, 1, 0, batched=False)  # the reference games, replaced by these below
    rng = np.random.default_rng(1)
    obs, masks, games = [], [], []
    for k in range(6):
        g = Game(rules, seed=k)
        while g.phase != OVER:
            mask = np.zeros(size, bool)
            mask[g.legal_actions()] = True
            obs.append(ob.encode(g, g.current_seat))
            masks.append(mask)
            games.append(g.clone())
            legal = g.legal_actions()
            g.apply(legal[int(rng.integers(len(legal)))])
    lock.games.games = games
    lock.games.tables = [LiveTable(ob) for _ in games]
    for table, g in zip(lock.games.tables, games):
        table.sync(g)
    x, m, ids = lock.inputs(list(range(len(games))), [g.current_seat for g in games])
    assert len(set(ids.tolist())) > 1  # several suit orders were met
    for row, (o, mask, g) in enumerate(zip(obs, masks, games)):
        want_x, want_m, act_src = policy_input(o, mask.astype(np.int8), single, engine_hint(g))
        assert np.array_equal(x[row], want_x) and np.array_equal(m[row], want_m.astype(bool))
        assert np.array_equal(BatchCanonical(single).act_src[ids[row]], act_src)


def small_cfg(*extra):
    return load_config(None, [*TINY, *extra])


def learner(cfg, seed=0):
    torch.manual_seed(seed)
    net = PolicyValueNet.for_config(cfg)
    return net, net.layers()


@pytest.mark.parametrize("variant,options", PRESETS)
def test_rollouts_hold_legal_decisions_of_the_right_size(variant, options):
    """Every recorded action is legal under its recorded mask (the games apply it checked, too), the
    rollout holds what was asked for, every row is in one trajectory, and the log-probabilities and
    values are those of the acting network."""
    cfg = small_cfg(f"variant={variant}", f"rules={options or {}}")
    net, (pi, vf) = learner(cfg)
    lock = Lockstep(cfg, 8, 3)
    lock.set_learner(pi, vf)
    lock.add_snapshot(pi, "relu")
    for _ in range(3):
        data = lock.collect(300)
        assert data.trained >= 300 - len(lock.carry["rewards"])
        assert data.masks[np.arange(len(data)), data.actions].all()
        assert sorted(r for s in data.segments for r in s.rows) == list(range(len(data)))
        with torch.no_grad():
            logp, _, values = net.evaluate(torch.from_numpy(data.obs), torch.from_numpy(data.masks),
                                           torch.from_numpy(data.actions))
        assert np.allclose(logp.numpy(), data.logp, atol=1e-4) and np.allclose(values.numpy(), data.values, atol=1e-4)
        batch = advantages(data, cfg.gamma, cfg.gae_lambda)
        assert len(batch) == data.trained
        assert np.allclose(batch.returns.numpy(), batch.advantages.numpy() + batch.values)


def test_gae_runs_to_the_end_of_finished_games_and_bootstraps_running_ones():
    n = 5
    data = Rollout(np.zeros((n, 3), np.float32), np.ones((n, 2), bool), np.zeros(n, np.int64), np.zeros(n, np.float32),
                   np.array([1.0, 2.0, 0.5, 3.0, 4.0], np.float32), np.array([0.0, 1.0, -1.0, 0.0, 2.0], np.float32),
                   [Segment([0, 1], True), Segment([2, 3, 4], False)])
    batch = advantages(data, 0.9, 0.5)
    g, lam = 0.9, 0.5
    d1 = 1.0 - 2.0  # last step of a finished game: no successor
    d0 = 0.0 + g * 2.0 - 1.0
    d3 = 0.0 + g * 4.0 - 3.0  # row 4 is the running game's latest decision: its value bootstraps row 3
    d2 = -1.0 + g * 3.0 - 0.5
    want = [d0 + g * lam * d1, d1, d2 + g * lam * d3, d3]
    assert np.allclose(batch.advantages.numpy(), want) and len(batch) == 4 == data.trained


def test_gae_with_the_hand_horizon_stops_at_each_hand_and_bootstraps_its_first_decision():
    """``horizon="hand"``: a decision's sum of TD errors runs to the side's next hand and no further,
    the value of that hand's first decision standing for the rest; without marks it is refused."""
    n, g, lam = 5, 0.9, 0.5
    values = np.array([1.0, 2.0, 0.5, 3.0, 4.0], np.float32)
    rewards = np.array([0.0, 1.0, -1.0, 0.0, 2.0], np.float32)
    opens = np.array([True, False, True, False, False])  # rows 0-1 one hand, rows 2-4 the next
    data = Rollout(np.zeros((n, 3), np.float32), np.ones((n, 2), bool), np.zeros(n, np.int64), np.zeros(n, np.float32),
                   values, rewards, [Segment([0, 1, 2, 3, 4], True)], opens=opens)
    d = [rewards[t] + g * (values[t + 1] if t < 4 else 0.0) - values[t] for t in range(n)]
    hand = advantages(data, g, lam, "hand").advantages.numpy()
    game = advantages(data, g, lam).advantages.numpy()
    want_later = [d[2] + g * lam * (d[3] + g * lam * d[4]), d[3] + g * lam * d[4], d[4]]
    assert np.allclose(hand, [d[0] + g * lam * d[1], d[1], *want_later])  # row 1 stops at row 2's value
    assert np.allclose(game[2:], want_later) and not np.isclose(game[1], d[1])  # the game horizon runs on
    with pytest.raises(ValueError, match="opens"):
        advantages(Rollout(data.obs, data.masks, data.actions, data.logp, values, rewards, data.segments), g, lam,
                   "hand")


def test_bid_lambda_replaces_lambda_at_the_rows_whose_mask_allows_a_bid():
    """``bid_lam``: a bid decision (its mask allows one of the first ``bid_actions`` actions) sums the
    TD errors after it with its own lambda; every other row keeps ``lam``; without ``bid_actions``, or
    with ``bid_lam`` None, nothing changes."""
    n, g, lam, bid_lam = 4, 0.9, 0.95, 0.25
    values = np.array([0.5, 1.0, -0.5, 2.0], np.float32)
    rewards = np.array([0.0, 0.0, 1.0, -1.0], np.float32)
    masks = np.zeros((n, 5), bool)
    masks[0, [0, 2]] = masks[1, [1, 4]] = True  # rows 0 and 1 may bid (actions 0-1 are bids), rows 2-3 play
    masks[2:, 3:] = True
    data = Rollout(np.zeros((n, 3), np.float32), masks, np.zeros(n, np.int64), np.zeros(n, np.float32), values,
                   rewards, [Segment([0, 1, 2, 3], True)])
    d = [rewards[t] + g * (values[t + 1] if t < n - 1 else 0.0) - values[t] for t in range(n)]
    a3 = d[3]
    a2 = d[2] + g * lam * a3
    a1 = d[1] + g * bid_lam * a2
    a0 = d[0] + g * bid_lam * a1
    got = advantages(data, g, lam, bid_lam=bid_lam, bid_actions=2).advantages.numpy()
    assert np.allclose(got, [a0, a1, a2, a3])
    plain = advantages(data, g, lam).advantages.numpy()
    assert np.allclose(plain[2:], [a2, a3]) and not np.isclose(plain[1], a1)
    assert np.allclose(advantages(data, g, lam, bid_lam=bid_lam).advantages, plain)  # no bid actions: no bid rows
    assert np.allclose(advantages(data, g, lam, bid_lam=None, bid_actions=2).advantages, plain)


def test_with_opening_values_a_hand_bootstraps_from_them_and_each_opening_row_keeps_its_own_value():
    """``opening_values`` (``hand_bootstrap: scores``) replace, for the decision before a hand's first one
    (and a running trajectory's bootstrap), that first decision's value; the first decision's own TD
    error still subtracts its own value, and the game horizon reads none of them."""
    n, g, lam = 5, 0.9, 0.5
    values = np.array([1.0, 2.0, 0.5, 3.0, 4.0], np.float32)
    rewards = np.array([0.0, 1.0, -1.0, 0.0, 2.0], np.float32)
    opens = np.array([True, False, True, False, True])
    opening = np.array([7.0, 8.0, -0.25, 9.0, 1.5], np.float32)  # read only where a row opens a hand
    obs, masks, acts, logp = (np.zeros((n, 3), np.float32), np.ones((n, 2), bool), np.zeros(n, np.int64),
                              np.zeros(n, np.float32))
    data = Rollout(obs, masks, acts, logp, values, rewards, [Segment([0, 1, 2], True), Segment([3, 4], False)],
                   opens=opens)
    d1 = rewards[1] + g * opening[2] - values[1]
    d2 = rewards[2] - values[2]  # the finished game's last decision
    d3 = rewards[3] + g * opening[4] - values[3]  # row 4, the running game's latest, opens a hand
    batch = advantages(data, g, lam, "hand", opening)
    assert np.allclose(batch.advantages.numpy(), [rewards[0] + g * values[1] - values[0] + g * lam * d1, d1, d2, d3])
    assert np.allclose(batch.returns.numpy(), batch.advantages.numpy() + values[:4])
    plain = advantages(data, g, lam, "hand").advantages.numpy()
    assert not np.isclose(plain[1], d1) and np.isclose(plain[2], d2)
    assert np.allclose(advantages(data, g, lam, "game", opening).advantages, advantages(data, g, lam).advantages)


def test_hand_values_learn_the_mean_over_deals_of_each_public_state():
    """``HandValues`` reads only the dealer's seat, the scores and the hands played: rows of one public
    state whose values differ by their deal get one value, the mean, and two public states get theirs;
    rows that open no hand keep their own values."""
    from train.ppo import HandValues

    rules = pitch_env.rules("auction")
    pieces = Observer(rules).pieces
    rng = np.random.default_rng(0)
    n = 512
    obs = np.zeros((n, Observer(rules).size), np.float32)
    hand = pieces["hand"].offset
    obs[:, hand:hand + 6] = rng.integers(0, 2, (n, 6))  # the deal: the fitted value must not follow it
    late = np.arange(n) % 2 == 1  # public state B: dealer at relative seat 2, scores 7 and -3
    obs[:, pieces["dealer"].offset + np.where(late, 2, 0)] = 1
    obs[late, pieces["scores"].offset] = 7 / rules.target_score
    obs[late, pieces["scores"].offset + 1] = -3 / rules.target_score
    mean = np.where(late, -0.3, 0.5).astype(np.float32)
    opens = np.arange(n) % 4 < 2
    hv = HandValues(rules, steps=50, lr=3e-3)
    for _ in range(30):
        luck = (obs[:, hand:hand + 6].sum(1) - 3) * 0.15  # the deal's swing, mean zero over deals
        values = (mean + luck + rng.normal(0, 0.05, n)).astype(np.float32)
        data = Rollout(obs, np.ones((n, 2), bool), np.zeros(n, np.int64), np.zeros(n, np.float32), values,
                       np.zeros(n, np.float32), [Segment(list(range(n)), True)], opens=opens)
        out = hv(data)
    assert np.array_equal(out[~opens], values[~opens])
    assert np.allclose(out[opens & ~late], 0.5, atol=0.06) and np.allclose(out[opens & late], -0.3, atol=0.06)
    assert np.ptp(out[opens & late]) < 1e-5  # one public state, one value, whatever the deal


def test_a_run_bootstrapping_its_hands_from_the_scores_saves_that_value_and_resumes_it(tmp_path):
    """``hand_bootstrap: scores`` trains, saves its deal-free value network beside the trainer's weights,
    resumes with it, refuses it in one line when its tensors are damaged, and is refused in one line
    without ``advantage_horizon: hand``."""
    from safetensors.torch import load_file, save_file

    from train.ppo import Learner
    from train.rundir import RunDir
    from train.runfiles import ResumeError
    from train.stop import StopFlag

    keys = [*TINY, "variant=auction", "advantage_horizon=hand", "hand_bootstrap=scores", "total_steps=512"]
    run = train(overrides=[*keys, f"runs_dir={tmp_path}", "run_name=h"], show_progress=False)
    path = run / "checkpoint" / "trainer.safetensors"
    tensors = load_file(str(path))
    side = {k[len("hand_values/"):]: v for k, v in tensors.items() if k.startswith("hand_values/")}
    saved = {k: v for k, v in side.items() if not k.startswith("adam/")}
    adam = {k: v for k, v in side.items() if k.startswith("adam/")}
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    assert saved and adam and "hand_values" not in state and state["trainer"]["side_adam_groups"]["hand_values"]
    cfg = load_config(run / "config.yaml")

    def resumed():
        with StopFlag() as stop:
            return Learner(cfg, RunDir(run), 0.0, stop)

    learner = resumed()
    loaded = learner.hand_values.net.state_dict()
    assert set(loaded) == set(saved) and all(torch.equal(loaded[k], saved[k]) for k in saved)
    slots = learner.hand_values.opt.state_dict()["state"]  # its Adam continues where it stopped
    assert {f"adam/{i}/{key}" for i in slots for key in slots[i]} == set(adam)
    assert all(torch.equal(torch.as_tensor(slots[i][key]), adam[f"adam/{i}/{key}"]) for i in slots for key in slots[i])
    assert "modules" not in learner.state
    # a checkpoint holding the side network's weights without its Adam state resumes with a fresh Adam
    state["trainer"].pop("side_adam_groups")
    (run / "checkpoint" / "state.json").write_text(json.dumps(state))
    save_file({k: v for k, v in tensors.items() if not k.startswith("hand_values/adam/")}, str(path))
    learner = resumed()
    assert not learner.hand_values.opt.state_dict()["state"]
    assert all(torch.equal(v, saved[k]) for k, v in learner.hand_values.net.state_dict().items())
    save_file(tensors, str(path))
    for bad in ({"hand_values": "junk"}, "junk"):  # its Adam state with damaged groups: refused in one line
        state["trainer"]["side_adam_groups"] = bad
        (run / "checkpoint" / "state.json").write_text(json.dumps(state))
        with pytest.raises(ResumeError, match="side|side_adam_groups") as err:
            resumed()
        assert "\n" not in str(err.value)
    state["trainer"]["side_adam_groups"] = {"hand_values": learner.hand_values.opt.state_dict()["param_groups"]}
    (run / "checkpoint" / "state.json").write_text(json.dumps(state))
    train(resume=run, overrides=["total_steps=1024"], show_progress=False)
    tensors = load_file(str(run / "checkpoint" / "trainer.safetensors"))
    tensors["hand_values/4.bias"] = torch.tensor([float("nan")])
    save_file(tensors, str(run / "checkpoint" / "trainer.safetensors"))
    with pytest.raises(ResumeError, match="tensor 'hand_values/4.bias' holds NaN") as err:
        train(resume=run, overrides=["total_steps=2048"], show_progress=False)
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="'hand_bootstrap'.*needs advantage_horizon: hand") as err:
        load_config(None, ["trainer=fast", "hand_bootstrap=scores"])
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("variant,options", PRESETS)
def test_rollouts_mark_each_sides_first_decision_of_a_hand(variant, options):
    """``Rollout.opens`` against the observation's own count of hands dealt: within a trajectory a row
    opens a hand exactly when that count moved since the side's previous decision, and every game's first
    decision of a side opens one; the marks of carried decisions travel with them."""
    cfg = small_cfg(f"variant={variant}", f"rules={options or {}}")
    _, (pi, vf) = learner(cfg)
    lock = Lockstep(cfg, 8, 5)
    lock.set_learner(pi, vf)
    lock.add_snapshot(pi, "relu")
    at = Observer(lock.rules).pieces["hands_played"].offset
    carried, opened = 0, 0
    for _ in range(3):
        data = lock.collect(300)
        hands = data.obs[:, at]
        for seg in data.segments:
            if seg.rows[0] >= carried:  # a game's first decision for this side
                assert data.opens[seg.rows[0]]
            for prev, row in zip(seg.rows, seg.rows[1:]):
                assert data.opens[row] == (hands[row] != hands[prev]), (prev, row)
        opened += int(data.opens.sum())
        carried = len(lock.carry["opens"])
        assert lock.carry["opens"] == [bool(data.opens[s.rows[-1]]) for s in data.segments if not s.ended]
    assert 0 < opened < 900


def test_a_running_trajectorys_latest_decision_opens_its_segment_in_the_next_rollout():
    cfg = small_cfg()
    _, (pi, vf) = learner(cfg)
    lock = Lockstep(cfg, 4, 1)
    lock.set_learner(pi, vf)
    lock.add_snapshot(pi, "relu")
    first = lock.collect(100)
    open_ends = [s.rows[-1] for s in first.segments if not s.ended]
    carried_obs = first.obs[open_ends]
    second = lock.collect(100)
    assert np.array_equal(second.obs[:len(open_ends)], carried_obs)
    starts = sorted(s.rows[0] for s in second.segments if s.rows[0] < len(open_ends))
    assert starts == list(range(len(open_ends)))


@pytest.mark.parametrize("max_hands", [200, 3])
def test_mirror_games_credit_both_sides_zero_sum_rewards(max_hands):
    """With the learner at both sides of two-sided games, every reward credited (relative hand rewards,
    the ± win bonus) has its opposite at the other side: over all rollouts, and the decisions still
    carried, they sum to zero, but for the win bonus both sides lose in a game stopped at max_hands."""
    cfg = small_cfg("rules={num_players: 2, max_hands: %d}" % max_hands, "mirror=1.0")
    _, (pi, vf) = learner(cfg)
    lock = Lockstep(cfg, 4, 5)
    lock.set_learner(pi, vf)
    credited, games, truncated = [], 0, 0
    for _ in range(30):
        data = lock.collect(400)
        games += data.stats["games"]
        truncated += data.stats["truncated"]
        bootstraps = {s.rows[-1] for s in data.segments if not s.ended}
        credited.extend(float(r) for k, r in enumerate(data.rewards) if k not in bootstraps)
    credited.extend(lock.carry["rewards"])
    assert games >= 4 and sum(1 for r in credited if r != 0) > 20
    assert truncated > 0 or max_hands == 200
    assert sum(credited) == pytest.approx(-2 * cfg.win_bonus * truncated, abs=1e-3)


def test_the_update_is_maskable_ppos_loss():
    """The network's log-probabilities, entropies and values are MaskablePPO's evaluate_actions on the
    same weights, and an update moves the weights."""
    from train.sb3 import make_vec_env, new_model

    cfg = small_cfg("num_envs=1")
    net, (pi, vf) = learner(cfg)
    lock = Lockstep(cfg, 8, 0)
    lock.set_learner(pi, vf)
    lock.add_snapshot(pi, "relu")
    data = lock.collect(200)
    obs, actions = torch.from_numpy(data.obs), torch.from_numpy(data.actions)
    venv = make_vec_env(small_cfg("trainer=sb3", "mirror=0", "num_envs=1", "opponents={random: 1}"))
    try:
        model = new_model(cfg, venv)
    finally:
        venv.close()
    net.to_sb3(model.policy)
    with torch.no_grad():
        values, logp, entropy = model.policy.evaluate_actions(obs, actions, action_masks=data.masks)
        mine_logp, mine_entropy, mine_values = net.evaluate(obs, torch.from_numpy(data.masks), actions)
    assert torch.allclose(mine_logp, logp, atol=1e-5)
    assert torch.allclose(mine_entropy, entropy, atol=1e-5)
    assert torch.allclose(mine_values, values.reshape(-1), atol=1e-5)
    before = [p.detach().clone() for p in net.parameters()]
    update(net, new_optimizer(net, cfg.learning_rate), advantages(data, cfg.gamma, cfg.gae_lambda), PPO.of(cfg))
    assert any(not torch.equal(a, b) for a, b in zip(before, net.parameters()))


def test_bid_ent_coef_raises_the_entropy_of_bid_decisions_alone():
    """With no advantage, value loss or common entropy bonus, an update moves the policy only through
    ``bid_ent_coef``: the bid decisions' entropy rises, and without it nothing moves."""
    from pitch_env.actions import ActionLayout

    cfg = small_cfg("variant=auction", "n_epochs=4", "vf_coef=0", "ent_coef=0", "learning_rate=0.03")
    net, _ = learner(cfg)
    with torch.no_grad():  # a sharp policy, far from the entropy's maximum
        [m for m in net.pi.modules() if isinstance(m, torch.nn.Linear)][-1].bias[0] += 4  # pass
    pi, vf = net.layers()
    lock = Lockstep(cfg, 8, 0)
    lock.set_learner(pi, vf)
    lock.add_snapshot(pi, "relu")
    batch = advantages(lock.collect(400), cfg.gamma, cfg.gae_lambda)
    batch.advantages.zero_()
    layout = ActionLayout(cfg.resolved_rules())
    n_bid, names = layout.auction_size, layout.names
    assert all(n.startswith(("pass", "bid ")) for n in names[:n_bid]) and not names[n_bid].startswith("bid ")
    bids = batch.masks[:, :n_bid].any(1)
    assert 0 < int(bids.sum()) < len(batch)

    def bid_entropy():
        with torch.no_grad():
            return net.evaluate(batch.obs, batch.masks, batch.actions)[1][bids].mean().item()

    before = [p.detach().clone() for p in net.pi.parameters()]
    update(net, new_optimizer(net, 1e-3), batch, PPO.of(cfg), n_bid)
    assert all(torch.equal(a, b) for a, b in zip(before, net.pi.parameters()))
    start = bid_entropy()
    logs = update(net, new_optimizer(net, 1e-3), batch, PPO.of(small_cfg(
        "variant=auction", "n_epochs=4", "vf_coef=0", "ent_coef=0", "learning_rate=0.03", "bid_ent_coef=1")), n_bid)
    assert bid_entropy() > start + 0.05, (start, bid_entropy())
    assert logs["bid_entropy"] > 0


def auction_batch(cfg):
    """A new network of ``cfg`` (auction), a rollout of 400 of its decisions with their advantages, the
    number of the auction's actions and which rows are bid decisions."""
    from pitch_env.actions import ActionLayout

    net, _ = learner(cfg)
    pi, vf = net.layers()
    lock = Lockstep(cfg, 8, 0)
    lock.set_learner(pi, vf)
    lock.add_snapshot(pi, "relu")
    batch = advantages(lock.collect(400), cfg.gamma, cfg.gae_lambda)
    n_bid = ActionLayout(cfg.resolved_rules()).auction_size
    return net, batch, n_bid, batch.masks[:, :n_bid].any(1)


def test_bid_policy_coef_weighs_the_bid_decisions_ppo_loss():
    """The first step's policy loss (the probability ratios all 1) is minus the mean of the normalised
    advantages, each bid decision's times ``bid_policy_coef``."""
    cfg = small_cfg("variant=auction", "n_epochs=1", "batch_size=100000", "vf_coef=0", "ent_coef=0")
    net, batch, n_bid, bids = auction_batch(cfg)
    assert 0 < int(bids.sum()) < len(batch)
    adv = batch.advantages
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    for coef in (1.0, 3.0, 0.0):
        ppo = dataclasses.replace(PPO.of(cfg), bid_policy_coef=coef)
        copy = PolicyValueNet.for_config(cfg)
        copy.load_state_dict(net.state_dict())
        logs = update(copy, new_optimizer(copy, 1e-3), batch, ppo, n_bid)
        want = -(adv * torch.where(bids, coef, 1.0)).sum().item() / len(batch)
        assert logs["policy_gradient_loss"] == pytest.approx(want, abs=1e-5), coef


def test_bid_q_fits_the_bids_values_to_their_returns_and_leaves_their_ppo_loss_out():
    """With ``bid_q`` the bid decisions' chosen logits, times the temperature, move toward their returns
    (their squared error falls), their advantages no longer reach the policy, and the card decisions
    still train by PPO."""
    from train.ppo import bid_value_loss

    cfg = small_cfg("variant=auction", "n_epochs=8", "vf_coef=0", "ent_coef=0", "learning_rate=0.01", "bid_q=0.1")
    net, batch, n_bid, bids = auction_batch(cfg)
    rows = torch.nonzero(bids)[:, 0]
    assert 0 < len(rows) < len(batch)
    batch.returns[rows] = 0.5  # a return far from 0.1 × the logits of a new network

    def fit():
        with torch.no_grad():
            return bid_value_loss(net, batch, rows, cfg.bid_q).item()

    start = fit()
    logs = update(net, new_optimizer(net, 1e-2), batch, PPO.of(cfg), n_bid)
    assert fit() < 0.2 * start, (start, fit())
    assert logs["bid_value_loss"] > 0
    # with only the bids' advantages set (and bid_q), PPO's policy loss has nothing to train
    batch.advantages.zero_()
    batch.advantages[rows] = 5.0
    assert update(net, new_optimizer(net, 1e-2), batch, PPO.of(cfg), n_bid)["policy_gradient_loss"] == 0
    without = PPO.of(small_cfg("variant=auction", "n_epochs=1", "vf_coef=0", "ent_coef=0"))
    assert update(net, new_optimizer(net, 1e-2), batch, without, n_bid)["policy_gradient_loss"] != 0
    with pytest.raises(ConfigError, match="bid_q.*bid_ent_coef: 0"):
        load_config(None, ["trainer=fast", "bid_q=0.1", "bid_ent_coef=0.1"])


def test_every_ppo_setting_is_a_config_key_with_a_docstring():
    import ast
    import dataclasses
    import inspect

    from train import ppo
    from train.config import TrainConfig

    names = {f.name for f in dataclasses.fields(TrainConfig)}
    tree = ast.parse(inspect.getsource(ppo.PPO))
    body = tree.body[0].body
    documented = {body[i].target.id for i in range(len(body) - 1)
                  if isinstance(body[i], ast.AnnAssign) and isinstance(body[i + 1], ast.Expr)}
    fields = {f.name for f in dataclasses.fields(PPO)}
    assert fields <= names and fields == documented
    assert PPO.of(small_cfg("n_epochs=3")).n_epochs == 3


# ---------------------------------------------------------------- runs, end to end
@pytest.mark.parametrize("workers,overlap", [(0, False), (2, True)])
def test_a_fast_run_trains_resumes_and_exports_a_playable_policy(tmp_path, workers, overlap):
    run = train(overrides=[*TINY, f"workers={workers}", f"overlap={overlap}", f"runs_dir={tmp_path}", "run_name=f"],
                show_progress=False)
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    assert state["steps"] >= 1024
    assert len(list((run / "snapshots").glob("*.safetensors"))) >= 2
    train(resume=run, overrides=["total_steps=2048"], show_progress=False)
    assert json.loads((run / "checkpoint" / "state.json").read_text())["steps"] >= 2048
    if workers == 0:  # the model card names the trainer and the config
        from train.model_card import write_card

        card = write_card(run, tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1, seed=0,
                          config="configs/setback_scratch.yaml")
        assert "learned from nothing, batched PPO self-play" in card and "8 games in lockstep" in card
        assert "pitch train --config configs/setback_scratch.yaml" in card
        assert "alone" not in card  # partners: no seat of the agent's plays against the other
    play_a_game(f"checkpoint:{run / 'checkpoint' / 'policy.safetensors'}", seed=1)


def play_a_game(spec: str, seed: int) -> None:
    """``spec`` plays every seat of one setback game, an illegal move raising."""
    env = pitch_env.env("setback", illegal_action="raise")
    agent = agents.make(spec, env)
    env.reset(seed=seed)
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else agent.act(obs, info))


def test_keys_of_one_path_are_refused_on_the_other():
    with pytest.raises(ConfigError, match="'mirror'.*only to trainer: fast"):
        load_config(None, ["mirror=0.5"])
    with pytest.raises(ConfigError, match="'workers'.*only to trainer: fast"):
        load_config(None, ["workers=2"])
    with pytest.raises(ConfigError, match="'overlap'.*needs workers >= 1"):
        load_config(None, ["trainer=fast", "overlap=true"])
    with pytest.raises(ConfigError, match="'workers'.*at most num_envs"):
        load_config(None, ["trainer=fast", "num_envs=2", "workers=3"])
    with pytest.raises(ConfigError, match="'num_envs'.*at most 256"):
        load_config(None, ["num_envs=512"])
    assert load_config(None, ["trainer=fast", "num_envs=512", "workers=2"]).num_envs == 512


def test_a_schedule_changes_its_keys_from_its_step_on_and_is_checked_when_read():
    from train.config import scheduled

    cfg = load_config(None, ["trainer=fast", "schedule=[{at: 100, learning_rate: 0.0001, opponents: {heuristic: 1}},"
                                             " {at: 200, ent_coef: 0.001, mirror: 0.5}]"])
    assert scheduled(cfg, 99) is cfg
    assert scheduled(cfg, 100).learning_rate == 0.0001 and scheduled(cfg, 100).opponents == {"heuristic": 1}
    late = scheduled(cfg, 250)
    assert (late.learning_rate, late.ent_coef, late.mirror, late.opponents) == (0.0001, 0.001, 0.5, {"heuristic": 1})
    for bad, match in ((["schedule=[{at: 5, hidden: [8]}]"], "changes only learning_rate"),
                       (["schedule=[{learning_rate: 0.1}]"], "needs 'at'"),
                       (["schedule=[{at: 9, ent_coef: 1}, {at: 5, ent_coef: 2}]"], "above the entry before"),
                       (["schedule=[{at: 9, learning_rate: 7}]"], "'learning_rate'.*in \\(0, 1\\]"),
                       (["schedule=[{at: 9, opponents: {nobody: 1}}]"], "does not build")):
        with pytest.raises(ConfigError, match=match):
            load_config(None, ["trainer=fast", *bad])
    with pytest.raises(ConfigError, match="'schedule'.*only to trainer: fast"):
        load_config(None, ["schedule=[{at: 9, ent_coef: 0.1}]"])


def test_a_scheduled_run_switches_its_opponents_in_the_workers(tmp_path):
    run = train(overrides=[*TINY, "workers=1", "opponents={random: 1}", "mirror=0", "rules={max_hands: 2}",
                           "schedule=[{at: 512, opponents: {heuristic: 1}}]", "total_steps=2048", f"runs_dir={tmp_path}",
                           "run_name=s"],
                show_progress=False)
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run / "tb"))
    acc.Reload()
    random_steps = [e.step for e in acc.Scalars("pitch/train_win_rate_vs_random")]
    heuristic_steps = [e.step for e in acc.Scalars("pitch/train_win_rate_vs_heuristic")]
    assert random_steps and heuristic_steps and max(random_steps) <= 1024 and min(heuristic_steps) > 512


def test_a_fast_run_refuses_a_trainer_file_of_another_network_in_one_line(tmp_path):
    """A trainer file whose tensors are not PolicyValueNet's (here: MaskablePPO's layout, as a run of the
    SB3 path writes) is refused by name on --resume, before anything is trained."""
    from safetensors.torch import load_file, save_file

    from train.runfiles import ResumeError

    run = train(overrides=[*TINY, "total_steps=256", "mirror=0", f"runs_dir={tmp_path}", "run_name=f"],
                show_progress=False)
    path = run / "checkpoint" / "trainer.safetensors"
    tensors = load_file(str(path))
    renamed = {k.replace("policy/pi.0.", "policy/mlp_extractor.policy_net.0."): v for k, v in tensors.items()}
    save_file(renamed, str(path))
    with pytest.raises(ResumeError, match="tensor 'policy/pi.0.weight' is missing") as err:
        train(resume=run, overrides=["total_steps=512"], show_progress=False)
    assert "\n" not in str(err.value)


# ---------------------------------------------------------------- a run that starts from a trained policy
def test_a_run_starts_from_a_policy_and_keeps_it_while_policy_coef_is_zero(tmp_path):
    """``start`` gives the run's policy network a file's weights (the value network starts fresh); with
    ``policy_coef: 0`` only the value network learns, so the policy is exported unchanged, and a
    schedule entry setting it to 1 lets the policy learn from that step on."""
    from safetensors.numpy import load_file

    from pitch_policy import load_policy
    from train.model_card import write_card

    first = train(overrides=[*TINY, "total_steps=256", f"runs_dir={tmp_path}", "run_name=a"], show_progress=False)
    start = first / "checkpoint" / "policy.safetensors"
    rules = small_cfg().resolved_rules()
    before = load_policy(start, rules)[0].layers
    kept = train(overrides=[*TINY, f"start={start}", "policy_coef=0", f"runs_dir={tmp_path}", "run_name=b"],
                 show_progress=False)
    after = load_policy(kept / "checkpoint" / "policy.safetensors", rules)[0].layers
    assert all(np.array_equal(w0, w1) and np.array_equal(b0, b1) for (w0, b0), (w1, b1) in zip(before, after))

    def value_net(run):
        return {k: v for k, v in load_file(str(run / "checkpoint" / "trainer.safetensors")).items() if "/vf." in k}

    vf, first_vf = value_net(kept), value_net(first)
    assert vf and any(not np.array_equal(vf[k], first_vf[k]) for k in vf)  # the value network did learn
    card = write_card(kept, tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1, seed=0)
    assert f"started from `{start}`" in card and f"the policy `{start}`, then" in card
    assert "learned from nothing" not in card
    moved = train(overrides=[*TINY, f"start={start}", "policy_coef=0", "schedule=[{at: 512, policy_coef: 1}]",
                             f"runs_dir={tmp_path}", "run_name=c"], show_progress=False)
    later = load_policy(moved / "checkpoint" / "policy.safetensors", rules)[0].layers
    assert any(not np.array_equal(w0, w1) for (w0, _), (w1, _) in zip(before, later))


def test_a_start_policy_that_does_not_fit_the_config_is_refused_in_one_line(tmp_path):
    run = train(overrides=[*TINY, "total_steps=256", f"runs_dir={tmp_path}", "run_name=a"], show_progress=False)
    start = f"start={run / 'checkpoint'}"
    for extra, match in (([start, "hidden=[16, 16]"], "relu \\[.*, 32, 32, .*\\], this config's relu .*16, 16.*set hidden"),
                         ([start, "hint=heuristic"], "hint none, this config suit_canonical with hint heuristic"),
                         ([start, "observation=plain"], "set observation: suit_canonical"),
                         ([start, "imitate=heuristic"], "from a policy or from imitation, not both"),
                         ([start, "variant=ten_point"], "'start'.*trained for variant 'setback', but this game is 'ten_point'"),
                         (["start=no/such/file"], "'start'.*not found"),
                         ([start, "trainer=sb3", "mirror=0"], "taken by trainer: fast")):
        with pytest.raises(ConfigError, match=match) as err:
            load_config(None, [*TINY, *extra])
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("key,value", [("bid_ent_coef", 0.1), ("bid_q", 0.05), ("policy_coef", 0.5),
                                       ("bid_policy_coef", 3.0), ("start_scores", 0.5), ("advantage_horizon", "hand"),
                                       ("bid_gae_lambda", 0.5)])
@pytest.mark.parametrize("path", ["trainer=sb3", "backend=rllib"])
def test_keys_of_the_batched_ppo_alone_are_refused_on_the_other_paths(key, value, path):
    """Set or scheduled, each key is refused off the batched PPO in one line that names the value set."""
    from train.config import BATCHED_PPO_ONLY, SCHEDULED

    assert key in BATCHED_PPO_ONLY and BATCHED_PPO_ONLY[key][0] != value
    scheduled = [[f"schedule=[{{at: 100, {key}: {value}}}]"]] if key in SCHEDULED else []
    for where in ([f"{key}={value}"], *scheduled):
        with pytest.raises(ConfigError, match=f"'{key}'.* is '?{value}'?: it applies only to trainer: fast") as err:
            load_config(None, [path, *where])
        assert "\n" not in str(err.value)
    assert getattr(load_config(None, ["trainer=fast", f"{key}={value}"]), key) == value


def test_a_rollout_worker_killed_mid_run_raises_worker_died_not_a_pipe_error(within_seconds):
    """A worker of the lockstep core gone (the out-of-memory killer) ends the rollout with WorkerDied,
    which pitch train reports in one line, and the collector still closes."""
    from agents.workers import WorkerDied
    from train.lockstep import Collector

    cfg = small_cfg("workers=2", "opponents={random: 1}")
    _, layers = learner(cfg)
    collector = Collector(cfg)
    try:
        assert len(collector.collect(layers, 64).actions) >= 64  # the workers run
        proc, _ = collector.workers[1]
        proc.kill()
        proc.join()
        with pytest.raises(WorkerDied, match="killed"):
            collector.collect(layers, 64)
    finally:
        collector.close()
    assert collector.workers == []
