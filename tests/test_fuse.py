"""`pitch fuse`: several policies of one game as one network whose logits are the weighted sum of theirs."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import pitch_env
from pitch_env.actions import ActionLayout
from pitch_env.observer import LAYOUT_VERSION, Observer
from pitch_policy import CheckpointError, PolicyMLP, load_policy, make_card, policy_input, read_policy, save_policy
from pitch_policy.fuse import fuse
from pitch_cli import main as pitch
from tests.test_checkpoint import decisions
from train.fuse import write_fused


def member(path, seed, hint="none", variant="setback", hidden=(24, 16), activation="relu", **options):
    """A random suit-canonical policy file (two hidden layers unless told), reading the hint or not."""
    rules = pitch_env.rules(variant, **options)
    obs, act = Observer(rules).size, ActionLayout(rules).size
    rng = np.random.default_rng(seed)
    sizes = [obs + (act if hint == "heuristic" else 0), *hidden, act]
    layers = [(rng.normal(size=(b, a)).astype(np.float32) / np.sqrt(a), rng.normal(size=b).astype(np.float32))
              for a, b in zip(sizes, sizes[1:])]
    policy = PolicyMLP(layers, activation)
    save_policy(path, policy, make_card(rules, policy, 1000 * seed, {}, obs, LAYOUT_VERSION, act,
                                        "suit_canonical", hint))
    return path


def members(*paths):
    return [(*read_policy(p), str(p)) for p in paths]


def test_the_fused_logits_are_the_weighted_sum_of_the_members_on_real_decisions(tmp_path):
    """On every decision of random games, with a member that reads the heuristic's hint and one that does
    not, the fused network's logits are 0.5 x the first's + 2 x the second's, and its compiled move is the
    legal action whose weighted sum of the members' log-probabilities is highest."""
    from train.hint import engine_hint

    rules = pitch_env.rules("setback")
    a, b = member(tmp_path / "a.safetensors", 1), member(tmp_path / "b.safetensors", 2, hint="heuristic")
    fused, card = fuse(members(a, b), [0.5, 2.0])
    save_policy(tmp_path / "f.safetensors", fused, card)
    fused, _ = load_policy(tmp_path / "f.safetensors", rules)
    pa, _ = load_policy(a, rules)
    pb, _ = load_policy(b, rules)
    assert fused.hint == "heuristic" and fused.shape == [Observer(rules).size + 57, 48, 32, 57]
    checked = 0
    for obs, mask, game in decisions(rules, 4, 3):
        hint = engine_hint(game)
        xa, m, src = policy_input(obs, mask, pa.transform, None)
        xb, _, _ = policy_input(obs, mask, pb.transform, hint)
        xf, _, src_f = policy_input(obs, mask, fused.transform, hint)
        assert np.array_equal(src, src_f)
        want = 0.5 * pa.logits(xa) + 2.0 * pb.logits(xb)
        assert np.allclose(fused.logits(xf), want, atol=1e-4)
        legal = np.flatnonzero(m)
        logp = lambda z: z[legal] - np.log(np.exp(z[legal] - z[legal].max()).sum()) - z[legal].max()
        best = legal[np.argmax(0.5 * logp(pa.logits(xa)) + 2.0 * logp(pb.logits(xb)))]
        assert fused.greedy(obs, mask, hint) == int(src[best])
        checked += 1
    assert checked > 50


def test_pitch_fuse_writes_a_checkpoint_with_its_card_that_plays(tmp_path, capsys):
    a, b = member(tmp_path / "a.safetensors", 1), member(tmp_path / "b.safetensors", 2, hint="heuristic")
    out = tmp_path / "both"
    assert pitch(["fuse", str(a), str(b), "--out", str(out), "--games", "4", "--workers", "1"]) == 0
    readme = (out / "README.md").read_text()
    assert "product of experts" in readme and f"pitch fuse {a} {b} --out {out}" in readme
    assert "| heuristic | 4 |" in readme
    _, card = read_policy(out)
    assert [m["policy"] for m in card["config"]["fused"]] == [str(a), str(b)]
    assert card["training_steps"] == 3000
    env = pitch_env.env("setback")
    agent = agents.make(f"checkpoint:{out}", env)
    env.reset(seed=2)
    obs, _, _, _, info = env.last()
    assert obs["action_mask"][agent.act(obs, info)] == 1
    # written once; replacing it needs --force
    assert pitch(["fuse", str(a), str(b), "--out", str(out), "--games", "0"]) == 2
    assert "--force" in capsys.readouterr().err
    assert pitch(["fuse", str(a), str(b), "--out", str(out), "--games", "0", "--force", "--weights", "1,3"]) == 0
    assert [m["weight"] for m in read_policy(out)[1]["config"]["fused"]] == [1.0, 3.0]


@pytest.mark.parametrize("other, match", [
    (dict(variant="auction"), "variant differs"),
    (dict(hidden=(24,)), "depth"),
    (dict(activation="tanh"), "activation differs"),
    (dict(target_score=21), r"rules differs \(target_score=21 against target_score=11\)"),
])
def test_policies_that_do_not_see_the_game_alike_are_refused_in_one_line(tmp_path, capsys, other, match):
    a, b = member(tmp_path / "a.safetensors", 1), member(tmp_path / "b.safetensors", 2, **other)
    with pytest.raises(CheckpointError, match=match):
        fuse(members(a, b))
    assert pitch(["fuse", str(a), str(b), "--out", str(tmp_path / "f"), "--games", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot fuse") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "f" / "policy.safetensors").exists()


@pytest.mark.parametrize("args, match", [
    (["--weights", "1"], "1 weights for 2 policies"),
    (["--weights", "1,x"], "comma-separated numbers"),
    (["--weights", "1,0"], "positive finite"),
    (["--weights", "1,nan"], "positive finite"),
    (["--games", "-1"], "0 or more"),
    (["--workers", "0"], "workers"),
    (["--games", "2", "--against", "pimc:x"], "whole numbers of worlds"),
    (["--pimc-games", "2", "--pimc", "nobody"], "unknown agent spec"),
])
def test_bad_options_are_one_line_errors(tmp_path, capsys, args, match):
    a, b = member(tmp_path / "a.safetensors", 1), member(tmp_path / "b.safetensors", 2)
    assert pitch(["fuse", str(a), str(b), "--out", str(tmp_path / "f"), "--games", "0", *args]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1
    assert not (tmp_path / "f").exists()


def test_one_policy_or_a_damaged_one_is_refused(tmp_path, capsys):
    a = member(tmp_path / "a.safetensors", 1)
    assert pitch(["fuse", str(a), "--out", str(tmp_path / "f"), "--games", "0"]) == 2
    assert "two or more" in capsys.readouterr().err
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(a.read_bytes()[:100])
    assert pitch(["fuse", str(a), str(bad), "--out", str(tmp_path / "f"), "--games", "0"]) == 2
    err = capsys.readouterr().err
    assert "damaged" in err and err.count("\n") == 1
    assert pitch(["fuse", str(a), str(tmp_path / "missing"), "--out", str(tmp_path / "f"), "--games", "0"]) == 2
    assert "not found" in capsys.readouterr().err
    assert pitch(["fuse", str(a), str(a), "--out", str(a), "--games", "0"]) == 2
    assert "is a file" in capsys.readouterr().err


def test_a_card_of_shipped_members_gives_their_recipes_and_compute_before_the_fusion(tmp_path):
    out = tmp_path / "both"
    text = write_fused(["checkpoint:ten_point_scratch", "ten_point"], None, out, 0, "pimc:12", 0, [], 0, 1)
    recipe = text.split("## Recipe", 1)[1].split("\n## ", 1)[0]
    assert recipe.index("pitch train --config configs/ten_point_scratch.yaml") < recipe.index(
        "pitch exit --config configs/exit/ten_point_recipe.yaml") < recipe.index(f"pitch fuse ten_point_scratch ten_point --out {out}")
    assert "`ten_point_scratch` (configs/ten_point_scratch.yaml)" in text and "34.4 min" in text
    assert "Not measured" in text and "| opponent |" not in text


@pytest.mark.parametrize("stop, code, says", [(KeyboardInterrupt, 130, "interrupted: nothing written"),
                                              (OSError("disk full"), 2, "error: disk full")])
def test_a_fuse_stopped_during_its_table_leaves_the_folder_as_it_was(tmp_path, capsys, monkeypatch, stop, code, says):
    import train.evaluate

    a, b = member(tmp_path / "a.safetensors", 1), member(tmp_path / "b.safetensors", 2)
    new, old = tmp_path / "new", tmp_path / "old"
    assert pitch(["fuse", str(a), str(b), "--out", str(old), "--games", "0"]) == 0
    before = {p.name: p.read_bytes() for p in old.iterdir()}
    capsys.readouterr()

    def stopped(*args, **kwargs):
        raise stop
    monkeypatch.setattr(train.evaluate, "compare", stopped)
    assert pitch(["fuse", str(a), str(b), "--out", str(new), "--games", "2"]) == code
    assert not new.exists()  # no policy without its card
    assert pitch(["fuse", str(a), str(b), "--out", str(old), "--games", "2", "--force", "--weights", "1,3"]) == code
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before  # not a new policy under the old card
    err = capsys.readouterr().err
    assert err.count(says) == 2 and "Traceback" not in err
