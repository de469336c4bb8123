"""Training: configs are validated key by key, a tiny self-play run produces a checkpoint that plays
legal moves in every phase, --resume continues the step count, and checkpoint writes are atomic."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import agents
import pitch_env
from agents.base import turns
from train.config import ConfigError, load_config
from train.cli import is_exit_recipe
from train.run import train
from pitch_policy import read_policy
from pitch_env.files import atomic_write

# `pitch train` configs: the expert-iteration recipes among them (configs/auction_scratch.yaml) are
# tests/test_exit.py's, told apart as `pitch train` tells them apart
CONFIGS = [p for p in sorted(Path(__file__).resolve().parent.parent.joinpath("configs").glob("*.yaml"))
           if not is_exit_recipe(str(p), None)]
TINY = ["total_steps=1024", "n_steps=256", "batch_size=256", "n_epochs=1", "hidden=[32, 32]",
        "snapshot_every=512", "checkpoint_every=512", "eval_every=0", "eval_games=2",
        "eval_opponents=[random]", "opponents={self: 1, random: 1, heuristic: 1}"]


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return path


# ---------------------------------------------------------------- config validation
def test_an_unknown_key_is_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match="unknown key 'learning_rat'.*did you mean 'learning_rate'"):
        load_config(write(tmp_path, "learning_rat: 0.001\n"))


def test_an_ill_typed_value_names_the_key_and_the_expected_type(tmp_path):
    with pytest.raises(ConfigError, match="'n_steps'.* must be int, got 'many'"):
        load_config(write(tmp_path, "n_steps: many\n"))
    with pytest.raises(ConfigError, match="'vec_env'.* must be one of 'dummy', 'subproc'"):
        load_config(write(tmp_path, "vec_env: threads\n"))
    with pytest.raises(ConfigError, match="'hidden'.* must be list\\[int\\]"):
        load_config(write(tmp_path, "hidden: [64, wide]\n"))


def test_impossible_rules_in_a_config_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="num_players"):
        load_config(write(tmp_path, "variant: ten_point\nrules: {num_players: 3}\n"))


def test_bids_to_record_need_a_teacher_and_a_count_of_at_least_zero():
    with pytest.raises(ConfigError, match="'imitate_bids'.*'imitate' is empty"):
        load_config(None, ["imitate_bids=1000"])
    with pytest.raises(ConfigError, match="'imitate_bids'.*is -1: it must be a whole number from 0"):
        load_config(None, ["imitate=heuristic", "imitate_bids=-1"])
    assert load_config(None, ["imitate=heuristic", "imitate_bids=1000"]).imitate_bids == 1000


def test_set_overrides_any_key_with_a_yaml_value(tmp_path):
    cfg = load_config(write(tmp_path, "ent_coef: 0.01\nrules: {target_score: 21}\n"),
                      ["ent_coef=0.05", "hidden=[64, 32]", "rules={max_hands: 50}", "vec_env=subproc"])
    assert cfg.ent_coef == 0.05 and cfg.hidden == [64, 32] and cfg.vec_env == "subproc"
    assert cfg.rules == {"target_score": 21, "max_hands": 50}  # rules options merge
    with pytest.raises(ConfigError, match="unknown key 'totl_steps'"):
        load_config(None, ["totl_steps=5"])
    with pytest.raises(ConfigError, match="'total_steps'.* must be int"):
        load_config(None, ["total_steps=lots"])
    with pytest.raises(ConfigError, match="key=value"):
        load_config(None, ["total_steps"])


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_shipped_config_is_valid_and_checkpoints_within_its_run(path):
    cfg = load_config(path)
    cfg.resolved_rules()
    assert cfg.checkpoint_every <= cfg.total_steps  # a run killed before its end leaves something to resume


# ---------------------------------------------------------------- a tiny run, end to end
@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for variant, hint in (("setback", "none"), ("ten_point", "heuristic")):  # ten_point reads the hint feature
        out[variant] = train(overrides=[*TINY, f"variant={variant}", f"runs_dir={root}", f"run_name={variant}",
                                        f"hint={hint}"], show_progress=False)
    return out


def play_with(spec_path, variant, games):
    """Every seat played by the checkpoint agent; the env raises on any illegal action."""
    env = pitch_env.env(variant, illegal_action="raise", infoset=True)
    agent = agents.make(f"checkpoint:{spec_path}", env)
    phases = set()
    for g in range(games):
        env.reset(seed=g)
        agent.reset(seed=g)
        for _, obs, info in turns(env):
            phases.add(info["infoset"]["phase"])
            action = agent.act(obs, info)
            assert obs["action_mask"][action] == 1
            env.step(action)
    return phases


def test_a_trained_setback_checkpoint_bids_and_plays_legally(runs):
    policy = runs["setback"] / "checkpoint" / "policy.safetensors"
    assert play_with(policy, "setback", 2) >= {"bid", "play"}


def test_a_trained_ten_point_checkpoint_declares_exchanges_and_plays_legally(runs):
    policy = runs["ten_point"] / "checkpoint" / "policy.safetensors"
    assert read_policy(policy)[1]["observation"]["hint"] == "heuristic"
    assert play_with(policy, "ten_point", 12) == {"bid", "declare", "stock", "discard", "play"}


@pytest.mark.parametrize("variant", ["setback", "auction", "ten_point"])
def test_a_policy_that_copies_its_hint_plays_exactly_like_the_heuristic(variant, tmp_path):
    """The hint reaches the network at the canonical place of the heuristic's action, in training's
    env and in a loaded checkpoint alike: a one-layer net that only copies it is the heuristic."""
    import numpy as np

    from agents.rollout import rollout_action
    from pitch_env.actions import ActionLayout
    from pitch_env.observer import LAYOUT_VERSION, Observer
    from train.sb3 import make_env
    from pitch_policy import PolicyMLP, make_card, save_policy

    rules = pitch_env.rules(variant)
    n_obs, n_act = Observer(rules).size, ActionLayout(rules).size
    w = np.zeros((n_act, n_obs + n_act), np.float32)
    w[:, n_obs:] = 10 * np.eye(n_act)
    copier = PolicyMLP([(w, np.zeros(n_act, np.float32))], "relu", hint="heuristic")
    path = tmp_path / "copier.safetensors"
    save_policy(path, copier, make_card(rules, copier, 0, {}, n_obs, LAYOUT_VERSION, n_act, "suit_canonical", "heuristic"))
    env = pitch_env.env(variant, infoset=True)
    agent, heuristic = agents.make(f"checkpoint:{path}", env), agents.make("heuristic", env)
    decisions = 0
    for seed in range(3):
        env.reset(seed=seed)
        for _, obs, info in turns(env):
            action = heuristic.act(obs, info)
            assert agent.act(obs, info) == action
            decisions += 1
            env.step(action)
    assert decisions > 100
    # the self-play env shows the learner the same hint: the copier's choice there is the heuristic's
    cfg = load_config(None, [*TINY, f"variant={variant}", "hint=heuristic", "opponents={heuristic: 1}"])
    sp = make_env(cfg, 0)()
    obs, _ = sp.reset(seed=1)
    for _ in range(200):
        expected = rollout_action(sp.game)
        canonical = int(np.argmax(copier.logits(obs) - 1e9 * (1 - sp.action_masks())))
        assert sp._act_src[canonical] == expected
        obs, _, term, trunc, _ = sp.step(canonical)
        if term or trunc:
            obs, _ = sp.reset()


def test_a_card_with_an_unknown_hint_is_refused(tmp_path):
    import numpy as np

    from pitch_env.actions import ActionLayout
    from pitch_env.observer import LAYOUT_VERSION, Observer
    from pitch_policy import CheckpointError, PolicyMLP, load_policy, make_card, save_policy

    rules = pitch_env.rules("setback")
    n_obs, n_act = Observer(rules).size, ActionLayout(rules).size
    policy = PolicyMLP([(np.zeros((n_act, n_obs), np.float32), np.zeros(n_act, np.float32))], "relu")
    path = tmp_path / "p.safetensors"
    save_policy(path, policy, make_card(rules, policy, 0, {}, n_obs, LAYOUT_VERSION, n_act, None, "oracle"))
    with pytest.raises(CheckpointError, match="'oracle' hint"):
        load_policy(path, rules)


def test_the_run_keeps_its_resolved_config_tensorboard_and_card(runs):
    run = runs["setback"]
    assert load_config(run / "config.yaml").hidden == [32, 32]
    assert list((run / "tb").glob("events.out.tfevents.*"))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    board = EventAccumulator(str(run / "tb"))
    board.Reload()
    tags = board.Tags()["scalars"]
    for name in ("pitch/train_win_rate", "pitch/bids_made_pct", "pitch/truncated_pct", "pitch/learner_steps_per_s"):
        assert name in tags, name
    _, card = read_policy(run / "checkpoint")
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    assert card["training_steps"] == state["steps"] >= 1024
    assert card["variant"] == "setback" and card["rules"]["num_players"] == 4


def test_resume_continues_the_step_count_and_the_tensorboard_run(runs, tmp_path):
    run = tmp_path / "setback"
    shutil.copytree(runs["setback"], run, symlinks=True)
    before = json.loads((run / "checkpoint" / "state.json").read_text())["steps"]
    train(resume=run, overrides=["total_steps=1536"], show_progress=False)
    after = json.loads((run / "checkpoint" / "state.json").read_text())["steps"]
    assert before < 1536 <= after < before + 1024  # continued, not restarted from 0
    assert read_policy(run / "checkpoint")[1]["training_steps"] == after
    assert len(list((run / "tb").glob("events.out.tfevents.*"))) == 2  # same TensorBoard run directory


def test_a_model_card_ships_the_policy_with_its_tournament_table(runs, tmp_path):
    from train.model_card import write_card

    dest = tmp_path / "ten_point"
    text = write_card(runs["ten_point"], dest, games=4, pimc="pimc:1", pimc_games=2, workers=1, seed=3)
    assert (dest / "policy.safetensors").read_bytes() == (runs["ten_point"] / "checkpoint" / "policy.safetensors").read_bytes()
    assert "reads the heuristic's choice" in text and "| heuristic | 4 |" in text and "| pimc:1 | 2 |" in text
    assert (dest / "README.md").read_text() == text
    assert play_with(dest, "ten_point", 1)  # the shipped copy loads as checkpoint:DIR
    for section in ("## Lineage", "## Recipe", "## Compute", "## Strength"):
        assert section in text
    assert "pitch train --config configs/ten_point.yaml" in text and "`checkpoint:ten_point`" in text
    assert str(runs["ten_point"].parent) not in text and "runs_dir" not in text  # where it ran is no part of it


def test_the_model_card_command_refuses_in_one_line_and_writes_nothing_it_did_not_finish(runs, tmp_path, capsys,
                                                                                        monkeypatch):
    from train import model_card

    run, shipped = runs["ten_point"], tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "policy.safetensors").write_bytes(b"the old policy")
    (shipped / "README.md").write_text("the old card")
    base = [str(run), "--games", "2", "--pimc-games", "0", "--workers", "1"]
    for argv, words in [([str(tmp_path / "nothing"), str(tmp_path / "d")], "no run there"),
                        ([str(run), str(tmp_path / "d"), "--games", "0"], "--games 0"),
                        ([str(run), str(tmp_path / "d"), "--workers", "0"], "--workers 0"),
                        ([str(run), str(tmp_path / "d"), "--pimc-games", "-1"], "--pimc-games -1"),
                        ([str(run), str(tmp_path / "d"), "--pimc", "pimc:x"], "pimc:x"),
                        ([str(run), str(tmp_path / "d"), "--previous", "checkpoint:no_such_agent"], "no_such_agent"),
                        ([str(run), str(shipped / "README.md")], "is a file"),
                        ([str(run), str(shipped)], "--force")]:
        assert model_card.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and words in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "d").exists()
    assert (shipped / "policy.safetensors").read_bytes() == b"the old policy"  # a shipped agent is never overwritten

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(model_card, "compare", interrupted)  # stopped while its table is played
    assert model_card.main([*base[:1], str(shipped), *base[1:], "--force"]) == 130
    assert model_card.main([*base[:1], str(tmp_path / "d"), *base[1:]]) == 130
    assert "nothing written" in capsys.readouterr().err
    assert (shipped / "policy.safetensors").read_bytes() == b"the old policy" and not (tmp_path / "d").exists()
    monkeypatch.undo()
    assert model_card.main([*base[:1], str(shipped), *base[1:], "--force"]) == 0
    assert (shipped / "policy.safetensors").read_bytes() == (run / "checkpoint" / "policy.safetensors").read_bytes()
    assert "| heuristic | 2 |" in (shipped / "README.md").read_text()


def test_a_new_run_refuses_to_overwrite_an_existing_one(runs):
    run = runs["setback"]
    with pytest.raises(FileExistsError, match="--resume"):
        train(overrides=[*TINY, f"runs_dir={run.parent}", "run_name=setback"], show_progress=False)


# ---------------------------------------------------------------- atomic writes
def test_an_atomic_write_gives_the_file_a_normal_mode(tmp_path):
    import os

    atomic_write(tmp_path / "f.json", lambda tmp: Path(tmp).write_text("{}"))
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "f.json").stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_failed_write_leaves_the_old_file_and_no_partial_file(tmp_path):
    target = tmp_path / "policy.safetensors"
    target.write_bytes(b"old complete file")

    def half_then_crash(tmp):
        Path(tmp).write_bytes(b"half a fi")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, half_then_crash)
    assert target.read_bytes() == b"old complete file"
    assert [p.name for p in tmp_path.iterdir()] == ["policy.safetensors"]


# ---------------------------------------------------------------- suit-canonical observations
@pytest.mark.parametrize("variant", ["setback", "ten_point"])
def test_canonical_view_shows_trump_as_clubs_and_maps_every_legal_action_back(variant):
    import numpy as np

    from pitch_env.observer import Observer
    from pitch_policy.canonical import SuitCanonical

    rules = pitch_env.rules(variant)
    canon, observer = SuitCanonical(rules), Observer(rules)
    trump_at = observer.pieces["trump"].offset
    game, rng = pitch_env.Game(rules, seed=3), np.random.default_rng(3)
    seen_trump = False
    while not game.is_over and game.hand_number < 3:
        seat, legal = game.current_seat, game.legal_actions()
        mask = np.zeros(game.layout.size, np.int8)
        mask[legal] = 1
        obs = observer.encode(game, seat)
        cobs, cmask, act_src = canon.apply(obs, mask)
        assert sorted(act_src[np.flatnonzero(cmask)]) == sorted(legal)  # a bijection on the legal actions
        assert cobs.sum() == pytest.approx(obs.sum())  # only moved, never changed
        if game.trump is not None:
            seen_trump = True
            assert cobs[trump_at:trump_at + 4].tolist() == [1, 0, 0, 0]
            hand = cobs[:52].reshape(4, 13)
            assert hand[0].sum() == sum(1 for c in game.hand_cards(seat) if c < 52 and c // 13 == game.trump)
        game.apply(int(rng.choice(legal)))
    assert seen_trump


def test_imitation_records_legal_canonical_decisions_and_fits_them():
    import numpy as np

    from train.imitate import collect, pretrain
    from train.network import PolicyValueNet
    from pitch_policy import make_transform

    cfg = load_config(None, [*TINY, "imitate=heuristic"])
    rules = cfg.resolved_rules()
    demos = collect(rules, "heuristic", 600, make_transform(cfg.observation, rules), seed=1, workers=2)
    assert len(demos) == 600
    assert demos.masks[np.arange(600), demos.actions].all()  # every recorded action is legal in its own (canonical) mask
    net = PolicyValueNet.for_config(cfg)
    acc = pretrain(net, demos, epochs=15, batch_size=200)
    chance = float(np.mean(1.0 / demos.masks.sum(1)))  # accuracy of a uniform guess among the legal actions
    assert acc > chance + 0.2
    import torch

    with torch.no_grad():  # the value head was fitted too: it explains part of the returns' spread
        v = net.value(torch.as_tensor(demos.obs)).numpy()
    assert np.mean((v - demos.returns) ** 2) < 0.8 * np.var(demos.returns)


def test_imitation_against_an_opponent_records_only_the_teachers_seats_with_their_returns():
    import numpy as np

    import pitch_env
    from train.imitate import collect, teacher_seats

    rng = np.random.default_rng(0)
    auction = pitch_env.rules("auction")
    for _ in range(20):
        seats = sorted(teacher_seats(auction, rng))
        assert seats in ([0, 2], [1, 3])  # two alternating seats of four, as the tournament seats an agent
    setback = pitch_env.rules("setback")
    assert sorted(teacher_seats(setback, np.random.default_rng(1))) in ([0, 2], [1, 3])
    # random against heuristic, only the win counted, undiscounted: every recorded decision's return
    # is its side's result, ±1; had the heuristic's seats been recorded too, about half would be +1
    demos = collect(setback, "random", 400, None, seed=3, against="heuristic", reward="game", win_bonus=1.0,
                    gamma=1.0)
    assert set(np.round(demos.returns, 6)) <= {-1.0, 1.0}
    assert (demos.returns == -1).mean() > 0.8  # random loses to the heuristic almost always


def test_bid_only_recording_keeps_the_teachers_bids_and_no_value_targets():
    import numpy as np

    from pitch_env.actions import ActionLayout
    from train.imitate import collect

    auction = pitch_env.rules("auction")
    names = ActionLayout(auction).names
    size = len(names)
    bids = [i for i, name in enumerate(names) if name == "pass" or name.startswith("bid")]
    for teacher in ("random", "heuristic"):
        demos = collect(auction, teacher, 300, None, seed=4, against="heuristic", hint="heuristic", phases=("bid",))
        assert len(demos) == 300 and np.isnan(demos.returns).all()
        assert not np.delete(demos.masks, bids, axis=1).any()  # only bid decisions were recorded
        assert demos.masks[np.arange(300), demos.actions].all()
        agree = np.mean(demos.obs[:, -size:].argmax(1) == demos.actions)  # the hint is the heuristic's bid
        # the heuristic teacher's bids are its own; the random teacher's are not the heuristic's
        assert agree == 1.0 if teacher == "heuristic" else agree < 0.8


def test_bid_recordings_join_the_warm_start_and_fit_only_the_policy(tmp_path, capsys):
    import numpy as np

    run = train(overrides=[*TINY, "variant=auction", "hint=heuristic", "imitate=heuristic",
                           "imitate_against=heuristic", "imitate_decisions=200", "imitate_bids=100",
                           "imitate_epochs=2", "imitate_workers=1", f"runs_dir={tmp_path}", "run_name=a"],
                show_progress=False)
    assert "+ 100 bids" in capsys.readouterr().out
    assert json.loads((run / "checkpoint" / "state.json").read_text())["imitation"]["decisions"] == 300
    policy, _ = read_policy(run / "checkpoint")  # the NaN returns of the bids did not reach the weights
    assert all(np.isfinite(w).all() and np.isfinite(b).all() for w, b in policy.layers)
    from train.model_card import write_card

    card = write_card(run, tmp_path / "card", games=2, pimc="pimc:2", pimc_games=0, workers=1, seed=0)
    assert "fitted to 300 decisions of `heuristic` playing against `heuristic` (200 in full games, 100 more at bids alone)" in card
    # a solo game of four: a row of the agent alone against three heuristics, and how to reproduce it
    assert "| heuristic ×3, alone | 4 |" in card
    assert "the row alone is `--agents checkpoint:card,heuristic,heuristic,heuristic`" in card


def test_a_card_of_a_network_fitted_to_a_shipped_agent_carries_its_teachers_lineage_and_recipe(tmp_path):
    """A run that imitated ``checkpoint:NAME`` reproduces only from NAME's recipe: its card gives NAME's
    lineage, its recipe before its own command, and NAME's training time."""
    from train.model_card import card_recipe, write_card

    run = train(overrides=[*TINY, "variant=ten_point", "imitate=checkpoint:ten_point_fused", "imitate_decisions=200",
                           "imitate_epochs=1", "imitate_workers=1", f"runs_dir={tmp_path}", "run_name=a"],
                show_progress=False)
    card = write_card(run, tmp_path / "card", games=2, pimc="pimc:2", pimc_games=0, workers=1, seed=0,
                      config="configs/ten_point_distill.yaml")
    teacher = Path(__file__).resolve().parent.parent / "checkpoints" / "ten_point_fused"
    assert "Its teacher `ten_point_fused`: the product of experts of `ten_point_scratch`" in card
    recipe = card.split("## Recipe", 1)[1].split("## Compute", 1)[0]
    lines = [line for line in recipe.splitlines() if line.startswith("pitch ")]
    assert lines == [*card_recipe(teacher), "pitch train --config configs/ten_point_distill.yaml"]
    assert ("its teacher's training, as its card gives it: fusing: under a second; no training of its own. The "
            "members' training, as their cards give it: `ten_point_scratch`: 34.4 min") in card


def test_recorded_demonstrations_are_reused_and_refused_for_other_rules(tmp_path, capsys):
    first = train(overrides=[*TINY, "imitate=heuristic", "imitate_decisions=300", "imitate_epochs=1",
                             "imitate_workers=1", f"runs_dir={tmp_path}", "run_name=a"], show_progress=False)
    demos = first / "imitate.npz"
    assert demos.is_file()
    capsys.readouterr()
    train(overrides=[*TINY, f"imitate_data=[{demos}, {demos}]", "imitate_epochs=1", f"runs_dir={tmp_path}",
                     "run_name=b"], show_progress=False)
    assert "600 decisions" in capsys.readouterr().out  # both files were read
    with pytest.raises(ConfigError, match="recorded for other rules"):
        train(overrides=[*TINY, "variant=ten_point", f"imitate_data={demos}", f"runs_dir={tmp_path}",
                         "run_name=c"], show_progress=False)
    with pytest.raises(ConfigError, match="not found"):
        train(overrides=[*TINY, f"imitate_data={tmp_path}/none.npz", f"runs_dir={tmp_path}", "run_name=d"],
              show_progress=False)


def test_the_self_play_env_shows_the_learner_what_the_observer_encodes():
    import numpy as np

    from pitch_env.observer import Observer
    from train.sb3 import make_env

    cfg = load_config(None, [*TINY, "opponents={random: 1}"])
    env = make_env(cfg, 0)()
    observer, rng = Observer(env.rules), np.random.default_rng(0)
    obs, _ = env.reset(seed=5)
    for _ in range(300):
        g = env.game
        mask = np.zeros(env.action_size, np.int8)
        mask[g.legal_actions()] = 1
        expected, expected_mask, _ = env.transform.apply(observer.encode(g, g.current_seat), mask)
        assert np.allclose(obs, expected, atol=1e-6) and np.array_equal(env.action_masks(), expected_mask)
        assert env.rules.side_of(g.current_seat) == env.side
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if term or trunc:
            obs, _ = env.reset()


# ---------------------------------------------------------------- hostile configs (issue #12)
def one_line_config_error(tmp_path, text: str | bytes, overrides=(), match: str = ""):
    path = tmp_path / "c.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError, match=match) as e:
        load_config(path, list(overrides))
    assert "\n" not in str(e.value) and len(str(e.value)) < 400
    return str(e.value)


def test_a_billion_laughs_config_is_refused_at_once(tmp_path, within_seconds):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join(['*a' + str(i - 1)] * 10)}]" for i in range(1, 9)]
    lines.append("hidden: *a8")  # 10^9 elements once expanded, formatted into the type error
    one_line_config_error(tmp_path, "\n".join(lines), match="anchor or alias")
    with pytest.raises(ConfigError, match="anchor or alias"):  # the same through --set
        load_config(None, ["hidden=[&x [1, 1], *x]"])


def test_huge_deep_or_non_utf8_config_files_are_refused(tmp_path, within_seconds):
    one_line_config_error(tmp_path, "seed: 1\n" + "#" * (2 << 20), match="bytes; a config is under")
    one_line_config_error(tmp_path, "rules: " + "[" * 5000 + "]" * 5000, match="nests deeper")
    one_line_config_error(tmp_path, "seed: " + "9" * 5000, match="'seed'|cannot be read")
    one_line_config_error(tmp_path, b"variant: setb\xe9ck\n", match="not UTF-8")


@pytest.mark.parametrize("override, key", [
    ("seed=-1", "seed"), ("seed=99999999999999", "seed"), ("torch_threads=0", "torch_threads"),
    ("learning_rate=.nan", "learning_rate"), ("learning_rate=.inf", "learning_rate"), ("learning_rate=0", "learning_rate"),
    ("imitate_lr=-1", "imitate_lr"), ("gamma=5", "gamma"), ("gamma=0", "gamma"), ("gae_lambda=1.5", "gae_lambda"),
    ("clip_range=-0.2", "clip_range"), ("ent_coef=.nan", "ent_coef"), ("max_grad_norm=0", "max_grad_norm"),
    ("win_bonus=.inf", "win_bonus"), ("eval_every=-5", "eval_every"), ("num_envs=0", "num_envs"),
    ("total_steps=100000000000000", "total_steps"), ("hidden=[64, 0]", "hidden"), ("hidden=[10000000]", "hidden"),
    ("opponents={heuristic: .nan}", "opponents"), ("opponents={heuristic: -1, self: 2}", "opponents"),
    ("eval_opponents=[]", "eval_opponents"), ("learning_rate=1e400", "learning_rate"),
])
def test_out_of_range_values_are_refused_naming_key_and_value(tmp_path, override, key):
    msg = one_line_config_error(tmp_path, "variant: setback\n", [override], match=f"'{key}'")
    assert "must" in msg or "give" in msg or "name" in msg


@pytest.mark.parametrize("override, key", [
    ("opponents={heuristc: 1}", "opponents"), ("opponents={'pimc:x': 1, self: 1}", "opponents"),
    ("eval_opponents=[random, heuristc]", "eval_opponents"), ("eval_opponents=['checkpoint:/no/such/file']", "eval_opponents"),
    ("imitate=pimc:-3", "imitate"), ("imitate_against=rando", "imitate_against"), ("imitate=human", "imitate"),
    ("opponents={human: 1}", "opponents"), ("opponents={'split:heuristic+human': 1}", "opponents"),
])
def test_agent_specs_that_do_not_build_are_refused_when_the_config_is_read(tmp_path, override, key):
    one_line_config_error(tmp_path, "variant: setback\n", [override], match=f"key '{key}'")


@pytest.mark.parametrize("command", [["train", "--config", "configs/quick.yaml"],
                                     ["exit", "--config", "configs/exit/setback_recipe.yaml"]])
def test_a_runs_dir_that_cannot_be_written_is_refused_in_one_line_before_any_work(tmp_path, capsys, command):
    from pitch_cli import main

    (tmp_path / "a_file").write_text("")
    for runs_dir in ["/proc/runs", str(tmp_path / "a_file" / "runs")]:
        assert main([*command, "--set", f"runs_dir={runs_dir}"]) == 2
        err = capsys.readouterr().err.strip()
        assert f"runs_dir {runs_dir!r}: cannot write there" in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("name", ["../..", "../escape", "/tmp/abs", ".hidden", "a/b", ""])
def test_a_run_name_never_writes_outside_runs_dir(tmp_path, name):
    runs_dir = tmp_path / "runs" / "inner"
    if not name:  # the empty name means "config name and time": allowed
        assert load_config(None, ["run_name=''"]).run_name == ""
        return
    with pytest.raises(ConfigError, match="'run_name'.*one plain folder name"):
        train(overrides=[*TINY, f"runs_dir={runs_dir}", f"run_name='{name}'"], show_progress=False)
    assert not (tmp_path / "runs").exists()  # nothing written anywhere


# ---------------------------------------------------------------- resuming trusts no pickle (issue #12)
class _Bomb:
    """Unpickling this creates the file ``path``: proof that code ran."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _pickle_bomb_zip(path: Path, sentinel: Path) -> None:
    import pickle
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        for entry in ("data", "policy.pth", "policy.optimizer.pth", "pytorch_variables.pth"):
            z.writestr(entry, pickle.dumps(_Bomb(sentinel)))


def test_resume_never_unpickles_a_crafted_run_directory(runs, tmp_path):
    import pickle

    sentinel = tmp_path / "code-ran"
    # 1. an old-layout run (checkpoint/ a directory holding SB3's resume.zip): refused by name
    old = tmp_path / "old"
    shutil.copytree(runs["setback"], old, symlinks=True)
    target = (old / "checkpoint").resolve()
    (old / "checkpoint").unlink()
    shutil.copytree(target, old / "checkpoint")
    _pickle_bomb_zip(old / "checkpoint" / "resume.zip", sentinel)
    with pytest.raises(ConfigError, match="older version.*never loaded"):
        train(resume=old, show_progress=False)
    # 2. the current layout with a pickle where the trainer's tensors belong: refused, not loaded
    run = tmp_path / "new"
    shutil.copytree(runs["setback"], run, symlinks=True)
    _pickle_bomb_zip(run / "checkpoint" / "resume.zip", sentinel)
    trainer = run / "checkpoint" / "trainer.safetensors"
    good = trainer.read_bytes()
    trainer.write_bytes(pickle.dumps(_Bomb(sentinel)))
    with pytest.raises(ConfigError, match="not a readable safetensors file"):
        train(resume=run, show_progress=False)
    # 3. a pickle among the snapshots: refused by the policy reader
    trainer.write_bytes(good)
    snap = sorted((run / "snapshots").glob("*.safetensors"))[-1]
    snap.write_bytes(pickle.dumps(_Bomb(sentinel)))
    from pitch_policy import CheckpointError

    with pytest.raises(CheckpointError):
        train(resume=run, show_progress=False)
    assert not sentinel.exists()


def test_resume_refuses_tensors_that_do_not_fit_the_network(runs, tmp_path):
    import torch
    from safetensors.torch import load_file, save_file

    run = tmp_path / "setback"
    shutil.copytree(runs["setback"], run, symlinks=True)
    path = run / "checkpoint" / "trainer.safetensors"
    tensors = load_file(str(path))
    name = next(k for k in tensors if k.startswith("policy/") and k.endswith("weight"))
    for bad, match in ((torch.zeros(3, 3), "expected torch.float32"), (torch.full_like(tensors[name], float("nan")), "NaN")):
        save_file(dict(tensors, **{name: bad}), str(path))
        with pytest.raises(ConfigError, match=match):
            train(resume=run, show_progress=False)


def test_resume_refuses_to_change_the_game_or_network_before_touching_the_run(runs, tmp_path):
    run = tmp_path / "setback"
    shutil.copytree(runs["setback"], run, symlinks=True)
    before = (run / "config.yaml").read_bytes()
    for change in ("variant=auction", "hint=heuristic", "activation=tanh", "hidden=[64, 64]", "rules={target_score: 21}"):
        with pytest.raises(ConfigError, match="cannot apply to a resumed run"):
            train(resume=run, overrides=[change], show_progress=False)
    assert (run / "config.yaml").read_bytes() == before


def test_the_final_checkpoint_is_saved_before_the_final_evaluation(tmp_path, monkeypatch):
    from train import evaluate as evaluation

    def broken(*a, **k):
        raise RuntimeError("evaluation failed")

    monkeypatch.setattr(evaluation, "evaluate_policy", broken)
    with pytest.raises(RuntimeError, match="evaluation failed"):
        train(overrides=[*TINY, "total_steps=512", f"runs_dir={tmp_path}", "run_name=r"], show_progress=False)
    assert read_policy(tmp_path / "r" / "checkpoint")[1]["training_steps"] == 512


def test_tensorboard_drops_the_killed_sessions_steps_after_the_checkpoint(runs, tmp_path):
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    run = tmp_path / "setback"
    shutil.copytree(runs["setback"], run, symlinks=True)
    steps = json.loads((run / "checkpoint" / "state.json").read_text())["steps"]
    old = set((run / "tb").glob("events.out.tfevents.*"))
    train(resume=run, overrides=[f"total_steps={steps + 512}"], show_progress=False)
    new = set((run / "tb").glob("events.out.tfevents.*")) - old
    starts = [e.step for f in new for e in EventFileLoader(str(f)).Load() if e.HasField("session_log")]
    assert starts == [steps]  # TensorBoard purges the earlier session's events from this step on


# ---------------------------------------------------------------- kills and interrupts (issue #12)
KILL_RUN = ["total_steps=2048", "n_steps=128", "batch_size=128", "n_epochs=1", "hidden=[16]", "snapshot_every=256",
            "checkpoint_every=256", "eval_every=0", "eval_games=2", "eval_opponents=[random]", "imitate=heuristic",
            "imitate_decisions=6000", "imitate_epochs=1", "imitate_workers=2", "opponents={self: 1, random: 1}",
            "vec_env=subproc"]  # workers from the start: a killed parent always has children to take with it


def _start(runs_dir, extra=()):
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    cmd = [sys.executable, "-m", "pitch_cli", "train", "--no-progress", "--set", *KILL_RUN,
           f"runs_dir={runs_dir}", "run_name=k"]
    if extra:
        cmd = [sys.executable, "-m", "pitch_cli", "train", "--no-progress", "--resume", str(runs_dir / "k"), *extra]
    return subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def _consistent(run: Path) -> None:
    """Either no checkpoint yet, or one whose three files agree; never temp debris after a start."""
    link = run / "checkpoint"
    if link.is_symlink():
        state = json.loads((link / "state.json").read_text())
        assert read_policy(link)[1]["training_steps"] == state["steps"]


def test_sigkill_at_random_moments_never_loses_the_run_nor_leaves_workers_or_debris(tmp_path):
    import random
    import time

    rng = random.Random(12)
    config = tmp_path / "k" / "config.yaml"
    for delay in [rng.uniform(0, 4) for _ in range(3)]:  # seconds after start-up: recording, fitting or PPO
        proc = _start(tmp_path, extra=("--set", "total_steps=2048") if config.is_file() else ())
        kids: set[int] = set()
        deadline = time.monotonic() + 120
        while not _children(proc.pid) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)  # imports take seconds on a busy machine; kill once the workers are up
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline and proc.poll() is None:
            kids.update(_children(proc.pid))
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        time.sleep(0.5)
        assert kids and not [k for k in kids if _alive(k)], "workers outlived their killed parent"
        _consistent(tmp_path / "k")
    proc = _start(tmp_path, extra=("--set", "total_steps=2048"))
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    run = tmp_path / "k"
    _consistent(run)
    assert json.loads((run / "checkpoint" / "state.json").read_text())["steps"] >= 2048
    debris = [p for p in run.rglob("*") if p.name.endswith(".tmp")]
    assert debris == [] and [p.name for p in (run / "checkpoints").iterdir()] == [(run / "checkpoint").resolve().name]


def test_sigint_saves_a_checkpoint_of_trained_steps_only_and_exits_quietly(tmp_path):
    import signal
    import time

    proc = _start(tmp_path)
    link = tmp_path / "k" / "checkpoint"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:  # wait for PPO to be under way
        if link.is_symlink() and json.loads((link / "state.json").read_text())["steps"] > 0:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err and "continue with --resume" in err
    steps = json.loads((link / "state.json").read_text())["steps"]
    assert steps % (128 * 2) == 0  # a whole number of rollouts: never steps the weights were not trained on
    _consistent(tmp_path / "k")


# ---------------------------------------------------------------- the run-directory reader (train/runfiles.py)
def test_a_run_file_that_is_a_fifo_a_link_or_a_device_is_refused_without_being_opened(tmp_path, within_seconds):
    import os

    from train import runfiles

    os.mkfifo(tmp_path / "state.json")  # opening it would block for good
    (tmp_path / "link.json").symlink_to("/proc/self/pagemap")
    (tmp_path / "dir.json").mkdir()
    for name, kind in (("state.json", "FIFO"), ("link.json", "symlink"), ("dir.json", "directory")):
        with pytest.raises(runfiles.ResumeError, match=f"is a {kind}, not a file the run wrote"):
            runfiles.read_json(tmp_path / name, 1 << 20, "run file")
    with pytest.raises(runfiles.ResumeError, match="is a device"):
        runfiles.read_bytes(Path("/dev/zero"), 100, "run file")
    (tmp_path / "big.json").write_text("{}" + " " * 200)
    with pytest.raises(runfiles.ResumeError, match="more than the run writes"):
        runfiles.read_json(tmp_path / "big.json", 100, "run file")


def test_only_the_writers_own_names_are_listed_and_only_its_debris_deleted(tmp_path):
    from train import runfiles
    from train.resume import SNAPSHOT, clean

    snaps = tmp_path / "snapshots"
    snaps.mkdir()
    for name in ("000000000512.safetensors", "000000001024.safetensors", "00000000512.safetensors",
                 "٠٠٠٠٠٠٠٠٠٥١٢.safetensors", "000000000512.safetensors.bak", "evil.safetensors"):
        (snaps / name).write_bytes(b"x")
    (snaps / "999999999999.safetensors").symlink_to("/proc/self/pagemap")
    (snaps / "999999999998.safetensors").mkdir()
    assert [p.name for p in runfiles.numbered(snaps, SNAPSHOT)] == ["000000000512.safetensors",
                                                                     "000000001024.safetensors"]
    (tmp_path / ".config.yaml.abcd1234.tmp").write_text("half")  # what a killed atomic_write leaves
    (tmp_path / ".evil.tmp").mkdir()
    (tmp_path / ".x.yaml.abcd1234.tmp").symlink_to(tmp_path / "snapshots")
    clean(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".evil.tmp", ".x.yaml.abcd1234.tmp", "snapshots"]


def test_imitate_data_that_is_not_an_npz_is_refused_in_one_line(tmp_path, capsys, within_seconds):
    import os

    from pitch_cli import main

    (tmp_path / "notes.npz").write_text("these are not demonstrations")
    os.mkfifo(tmp_path / "fifo.npz")
    for name in ("notes.npz", "fifo.npz"):
        args = ["train", "--no-progress", "--set", *TINY, "imitate_epochs=1", f"imitate_data={tmp_path / name}",
                f"runs_dir={tmp_path}", f"run_name=r-{name[:4]}"]
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: imitate_data") and "\n" not in err and "Traceback" not in err, err


def test_a_resume_refuses_a_snapshot_of_another_network_in_one_line(runs, tmp_path, capsys):
    """The league's snapshots are read back by one function for every trainer; one written for other
    rules (ten_point's inputs) is named, with the fix, before the run goes on."""
    from pitch_cli import main

    run = tmp_path / "setback"
    shutil.copytree(runs["setback"], run, symlinks=True)
    newest = sorted((run / "snapshots").glob("*.safetensors"))[-1]
    shutil.copyfile(sorted((runs["ten_point"] / "snapshots").glob("*.safetensors"))[-1], newest)
    with pytest.raises(ConfigError, match=f"snapshot '{newest}' is a .* network, but this run's learner is"):
        train(resume=run, show_progress=False)
    assert main(["train", "--no-progress", "--resume", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: snapshot") and "delete it to resume" in err and "\n" not in err, err


def test_a_resume_reads_only_the_snapshots_and_state_the_run_wrote(runs, tmp_path):
    run = tmp_path / "setback"
    shutil.copytree(runs["setback"], run, symlinks=True)
    (run / "snapshots" / "zzz.safetensors").mkdir()  # sorted last: never taken for the newest snapshot
    (run / "snapshots" / "999999999999.safetensors").symlink_to("/proc/self/pagemap")
    train(resume=run, show_progress=False)
    state = run / "checkpoint" / "state.json"
    elsewhere = tmp_path / "state.json"
    shutil.move(state, elsewhere)
    state.symlink_to(elsewhere)
    with pytest.raises(ConfigError, match="is a symlink"):
        train(resume=run, show_progress=False)


@pytest.mark.parametrize("field,value", [("next_checkpoint", "soon"), ("wall_time", "long"), ("last_eval", 1.5),
                                         ("next_snapshot", None)])
def test_a_resume_refuses_a_schedule_that_is_not_numbers_in_range(runs, tmp_path, field, value):
    run = tmp_path / "setback"
    shutil.copytree(runs["setback"], run, symlinks=True)
    path = (run / "checkpoint" / "state.json").resolve()
    state = json.loads(path.read_text())
    state[field] = value
    path.write_text(json.dumps(state))
    with pytest.raises(ConfigError, match=f"'{field}' is"):
        train(resume=run, show_progress=False)


def test_a_training_run_asking_more_workers_than_the_machine_holds_is_refused_before_it_starts(tmp_path):
    import os

    from train.config import ConfigError, TrainConfig
    from train.run import train

    too_many = 4 * os.cpu_count() + 1
    for key, extra in (("workers", {"trainer": "fast", "num_envs": 4096}), ("imitate_workers", {"imitate": "heuristic"})):
        cfg = TrainConfig(runs_dir=str(tmp_path), run_name=key, **{key: too_many}, **extra)
        with pytest.raises(ConfigError, match=f"key '{key}' {too_many}: this machine has"):
            train(cfg)
        assert not (tmp_path / key).exists()
