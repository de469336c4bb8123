"""Checkpoints load only for the game they were trained for; a damaged file says so, and nothing
in them is ever unpickled (safetensors + a JSON card)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
import pitch_env
from pitch_env.actions import ActionLayout
from pitch_env.observer import LAYOUT_VERSION, Observer
from pitch_env.policy import CheckpointError, PolicyMLP, load_policy, make_card, read_policy, save_policy


def write_policy(path, variant="setback", layout_version=LAYOUT_VERSION, **options):
    rules = pitch_env.rules(variant, **options)
    obs, act = Observer(rules).size, ActionLayout(rules).size
    rng = np.random.default_rng(0)
    policy = PolicyMLP([(rng.normal(size=(16, obs)).astype(np.float32), np.zeros(16, np.float32)),
                        (rng.normal(size=(act, 16)).astype(np.float32), np.zeros(act, np.float32))], "relu")
    save_policy(path, policy, make_card(rules, policy, 123, {}, obs, layout_version, act))
    return path


def test_a_checkpoint_round_trips_and_plays_as_an_agent(tmp_path):
    path = write_policy(tmp_path / "p.safetensors")
    env = pitch_env.env("setback")
    agent = agents.make(f"checkpoint:{path}", env)
    env.reset(seed=1)
    obs, _, _, _, info = env.last()
    assert obs["action_mask"][agent.act(obs, info)] == 1
    assert agent.card["training_steps"] == 123


def test_a_checkpoint_directory_is_read_through_its_policy_file(tmp_path):
    write_policy(tmp_path / "policy.safetensors")
    assert read_policy(tmp_path)[1]["variant"] == "setback"


def test_loading_for_another_variant_names_both(tmp_path):
    path = write_policy(tmp_path / "p.safetensors", "setback")
    with pytest.raises(CheckpointError, match="trained for variant 'setback', but this game is 'auction'"):
        agents.make(f"checkpoint:{path}", pitch_env.env("auction"))


def test_loading_for_another_player_count_says_so(tmp_path):
    path = write_policy(tmp_path / "p.safetensors", "setback")
    with pytest.raises(CheckpointError, match="trained for 4 players, but this game has 3"):
        load_policy(path, pitch_env.rules("setback", num_players=3))


def test_loading_for_other_rules_options_names_the_option(tmp_path):
    path = write_policy(tmp_path / "p.safetensors", "setback")
    with pytest.raises(CheckpointError, match="target_score=11, but this game has target_score=21"):
        load_policy(path, pitch_env.rules("setback", target_score=21))


def test_an_older_observation_layout_is_refused(tmp_path):
    path = write_policy(tmp_path / "p.safetensors", layout_version=LAYOUT_VERSION - 1)
    with pytest.raises(CheckpointError, match="observation layout version"):
        load_policy(path, pitch_env.rules("setback"))


def test_a_truncated_file_is_reported_as_damaged(tmp_path):
    path = write_policy(tmp_path / "p.safetensors")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="damaged"):
        load_policy(path, pitch_env.rules("setback"))


def test_a_flipped_weight_byte_is_reported_as_corrupted(tmp_path):
    path = write_policy(tmp_path / "p.safetensors")
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupted"):
        load_policy(path, pitch_env.rules("setback"))


def test_a_safetensors_file_without_a_card_is_refused(tmp_path):
    from safetensors.numpy import save_file

    path = tmp_path / "bare.safetensors"
    save_file({"w": np.zeros(3, np.float32)}, str(path))
    with pytest.raises(CheckpointError, match="no pitch card"):
        load_policy(path, pitch_env.rules("setback"))


def test_an_unknown_observation_transform_is_refused(tmp_path):
    rules = pitch_env.rules("setback")
    obs, act = Observer(rules).size, ActionLayout(rules).size
    policy = PolicyMLP([(np.zeros((act, obs), np.float32), np.zeros(act, np.float32))], "relu")
    path = tmp_path / "p.safetensors"
    save_policy(path, policy, make_card(rules, policy, 1, {}, obs, LAYOUT_VERSION, act, "mirror_world"))
    with pytest.raises(CheckpointError, match="transform 'mirror_world'"):
        load_policy(path, rules)


def test_a_missing_checkpoint_says_where_to_look(tmp_path):
    with pytest.raises(CheckpointError, match="not found"):
        load_policy(tmp_path / "nope", pitch_env.rules("setback"))


def test_the_card_is_plain_json_in_the_safetensors_header(tmp_path):
    path = write_policy(tmp_path / "p.safetensors")
    header_len = int.from_bytes(path.read_bytes()[:8], "little")
    header = json.loads(path.read_bytes()[8:8 + header_len])
    card = json.loads(header["__metadata__"]["pitch_card"])
    assert card["observation"]["layout_version"] == LAYOUT_VERSION
    assert card["observation"]["size"] == Observer(pitch_env.rules("setback")).size
    assert card["network"]["shape"][-1] == ActionLayout(pitch_env.rules("setback")).size
