"""Checkpoints load only for the game they were trained for; a damaged file says so, and nothing
in them is ever unpickled (safetensors + a JSON card)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import agents
import pitch_env
from pitch_env.actions import ActionLayout
from pitch_env.observer import LAYOUT_VERSION, Observer
from pitch_policy import CheckpointError, PolicyMLP, load_policy, make_card, read_policy, save_policy
from pitch_policy.file import tensors_digest


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


@pytest.mark.parametrize("version", [0, LAYOUT_VERSION + 1])
def test_an_unknown_observation_layout_is_refused(tmp_path, version):
    path = write_policy(tmp_path / "p.safetensors", layout_version=version)
    with pytest.raises(CheckpointError, match=f"observation layout version {version}, but this pitch_env encodes"):
        load_policy(path, pitch_env.rules("setback"))


def test_a_layout_1_policy_reads_the_voids_with_zero_weights_and_plays_as_trained(tmp_path):
    """Layout 2 added the ``voids`` piece at the observation's end: a layout-1 policy (trained without it)
    loads, and its logits on any observation are its own on that observation's first pieces."""
    rules = pitch_env.rules("auction")
    ob, act = Observer(rules), ActionLayout(rules).size
    rng = np.random.default_rng(0)
    old = PolicyMLP([(rng.normal(size=(16, ob.v1_size)).astype(np.float32), rng.normal(size=16).astype(np.float32)),
                     (rng.normal(size=(act, 16)).astype(np.float32), np.zeros(act, np.float32))], "relu")
    path = tmp_path / "v1.safetensors"
    save_policy(path, old, make_card(rules, old, 1, {}, ob.v1_size, 1, act))
    policy, card = load_policy(path, rules)
    assert read_policy(path)[1]["observation"]["layout_version"] == 1
    assert card["observation"] == dict(card["observation"], layout_version=LAYOUT_VERSION, size=ob.size)
    assert policy.shape == card["network"]["shape"] == [ob.size, 16, act]
    save_policy(tmp_path / "again.safetensors", policy, card)  # what a run does with its start: it loads back
    assert load_policy(tmp_path / "again.safetensors", rules)[0].shape == policy.shape
    game = pitch_env.Game("auction", seed=5)
    seen = 0
    while not game.is_over:
        x = ob.encode(game, game.current_seat)
        seen += ob.views(x)["voids"].any()
        assert np.allclose(policy.logits(x), old.logits(x[:ob.v1_size]), atol=1e-5)
        game.apply(game.legal_actions()[0])
    assert seen  # the piece the old policy ignores was set at some decisions


def test_a_layout_1_file_of_the_wrong_size_names_the_layout(tmp_path):
    path = write_policy(tmp_path / "p.safetensors", layout_version=1)  # written at layout 2's size
    with pytest.raises(CheckpointError, match="layout version 1"):
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


# ---------------------------------------------------------------- correct checksum, inconsistent contents

def crafted(path, change_tensors=None, change_card=None, card_json=None):
    """A policy file whose checksum is right for whatever it holds, so only the consistency checks can
    catch what ``change_tensors``/``change_card`` did to a good setback policy."""
    from safetensors.numpy import save_file

    rules = pitch_env.rules("setback")
    obs, act = Observer(rules).size, ActionLayout(rules).size
    rng = np.random.default_rng(0)
    tensors = {"layer0.weight": rng.normal(size=(16, obs)).astype(np.float32), "layer0.bias": np.zeros(16, np.float32),
               "layer1.weight": rng.normal(size=(act, 16)).astype(np.float32), "layer1.bias": np.zeros(act, np.float32)}
    card = make_card(rules, PolicyMLP([(tensors["layer0.weight"], tensors["layer0.bias"]),
                                       (tensors["layer1.weight"], tensors["layer1.bias"])], "relu"),
                     5, {}, obs, LAYOUT_VERSION, act)
    if change_tensors:
        change_tensors(tensors)
    if change_card:
        change_card(card)
    card = dict(card, sha256=tensors_digest(tensors)) if isinstance(card, dict) else card
    save_file(tensors, str(path), metadata={"pitch_card": card_json or json.dumps(card)})
    return path


def refused(path, match):
    with pytest.raises(CheckpointError, match=match) as e:
        load_policy(path, pitch_env.rules("setback"))
    assert "\n" not in str(e.value)
    return str(e.value)


def test_the_crafting_helper_makes_a_loadable_file_when_nothing_is_changed(tmp_path):
    policy, card = load_policy(crafted(tmp_path / "p.safetensors"), pitch_env.rules("setback"))
    assert card["training_steps"] == 5 and policy.activation == "relu"


@pytest.mark.parametrize("change, match", [
    (lambda t: t.update({"layer0.weight": t["layer0.weight"][:, :-1].copy()}),
     r"tensor layer0.weight has shape \[16, \d+\], but the card's network .* needs \[16, \d+\]"),
    (lambda t: t.update({"layer1.weight": t["layer1.weight"].T.copy()}), "tensor layer1.weight has shape"),
    (lambda t: t.update({"layer0.bias": t["layer0.bias"].reshape(1, 16)}),
     r"tensor layer0.bias has shape \[1, 16\], but .* needs \[16\]"),
    (lambda t: t.pop("layer1.bias"), "lacks tensor layer1.bias"),
    (lambda t: t.clear(), "holds no tensors"),
    (lambda t: t.update(extra=np.zeros(3, np.float32)), "holds tensor 'extra', which a .* network does not have"),
    (lambda t: t.update({"layer0.weight": t["layer0.weight"].astype(np.int32)}), "layer0.weight holds int32 values"),
    (lambda t: t.update({"layer0.weight": t["layer0.weight"].astype(np.float64)}), "holds float64 values"),
    (lambda t: t["layer1.bias"].__setitem__(3, np.nan), "layer1.bias holds NaN or infinite weights"),
    (lambda t: t["layer0.weight"].__setitem__((0, 0), np.inf), "layer0.weight holds NaN or infinite weights"),
])
def test_inconsistent_tensors_are_refused_at_load(tmp_path, change, match):
    refused(crafted(tmp_path / "p.safetensors", change_tensors=change), match)


@pytest.mark.parametrize("change, match", [
    (lambda c: c["network"].update(activation="sigmoid"),
     "network.activation is 'sigmoid', expected one of relu, tanh"),
    (lambda c: c["network"].update(activation=["relu"]), "network.activation is \\['relu'\\]"),
    (lambda c: c.pop("network"), "its card lacks network"),
    (lambda c: c.pop("rules"), "its card lacks rules"),
    (lambda c: c.update(rules=["setback"]), "its card's rules is \\['setback'\\], expected an object"),
    (lambda c: c["rules"].update(num_players="4"), "rules.num_players is '4', expected an integer"),
    (lambda c: c["rules"].update(target_score={"a": 1}), "rules.'target_score' is .*expected one value"),
    (lambda c: c["network"].update(shape="16"), "network.shape is '16', expected a list"),
    (lambda c: c["network"].update(shape=[1.5, 2]), "network.shape is \\[1.5, 2\\], expected a list"),
    (lambda c: c.update(training_steps="many"), "training_steps is 'many', expected a count of steps"),
    (lambda c: c.update(variant=3), "variant is 3, expected a string"),
    (lambda c: c["observation"].update(hint="oracle"), "reads a 'oracle' hint, which this version does not know"),
    (lambda c: c["observation"].update(transform="mirror_world"), "transform 'mirror_world'"),
    (lambda c: c["observation"].update(size=c["observation"]["size"] + 1), "does not fit its own card"),
    (lambda c: c.update(config=[]), "its card's config is \\[\\], expected an object"),
])
def test_an_inconsistent_card_is_refused_at_load(tmp_path, change, match):
    refused(crafted(tmp_path / "p.safetensors", change_card=change), match)


def test_a_card_that_is_not_an_object_is_refused(tmp_path):
    refused(crafted(tmp_path / "p.safetensors", card_json="[1, 2]"), "its card is not a pitch card written by `pitch train`: it holds a JSON list, expected an object")
    refused(crafted(tmp_path / "q.safetensors", card_json="[" * 5000 + "]" * 5000), "nests too deeply")


def test_read_policy_alone_refuses_an_unknown_activation(tmp_path):
    path = crafted(tmp_path / "p.safetensors", change_card=lambda c: c["network"].update(activation="sigmoid"))
    with pytest.raises(CheckpointError, match="sigmoid"):
        read_policy(path)  # what a warm start or resume reads, before any rules are known


def test_a_policy_never_plays_an_unknown_activation_as_another():
    with pytest.raises(ValueError, match="unknown activation 'sigmoid'"):
        PolicyMLP([(np.zeros((2, 3), np.float32), np.zeros(2, np.float32))], "sigmoid")


# ---------------------------------------------------------------- the compiled greedy decision
def decisions(rules, games: int, seed: int):
    """(observation, mask, game) at every decision of random games."""
    observer, rng = Observer(rules), np.random.default_rng(seed)
    for k in range(games):
        game = pitch_env.Game(rules, seed=seed * 100 + k)
        while not game.is_over:
            mask = np.zeros(game.layout.size, np.int8)
            mask[game.legal_actions()] = 1
            yield observer.encode(game, game.current_seat), mask, game
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("variant", ["setback", "auction", "ten_point"])
def test_the_compiled_greedy_move_is_the_numpy_forward_pass_choice(variant):
    """PolicyMLP.greedy (one compiled call: relabel, sparse first layer, argmax) chooses what the plain
    numpy path (policy_input, then logits and the masked argmax) chooses, for the shipped agent (suit
    relabelling and hint) and for a plain tanh network with a hidden layer of mostly zero inputs."""
    from pitch_policy import policy_input
    from train.hint import engine_hint

    rules = pitch_env.rules(variant)
    shipped, _ = load_policy(f"checkpoints/{variant}", rules)
    obs_size, act_size = Observer(rules).size, ActionLayout(rules).size
    rng = np.random.default_rng(1)
    plain = PolicyMLP([(rng.normal(size=(32, obs_size)).astype(np.float32), rng.normal(size=32).astype(np.float32)),
                       (rng.normal(size=(24, 32)).astype(np.float32), np.zeros(24, np.float32)),
                       (rng.normal(size=(act_size, 24)).astype(np.float32), np.zeros(act_size, np.float32))], "tanh")
    checked = 0
    for obs, mask, game in decisions(rules, 6, 7):
        hint = engine_hint(game)
        for policy, h in ((shipped, hint), (plain, None)):
            assert policy.greedy(obs, mask, h) == policy.act_input(*policy_input(obs, mask, policy.transform, h))
        checked += 1
    assert checked > 100
    assert plain.greedy(obs, np.zeros_like(mask)) == -1  # nothing legal: nothing chosen


def test_suits_before_trump_are_ordered_by_length_then_top_card_then_club_diamond_heart_spade():
    """The relabelling a suit-canonical network sees before trump (pitch_policy/canonical.py): the longest
    suit first; equal length, the higher top card; equal both, clubs, diamonds, hearts, spades."""
    from pitch_policy.canonical import SuitCanonical

    rules = pitch_env.rules("setback")
    canon, observer = SuitCanonical(rules), Observer(rules)
    hand_at = observer.pieces["hand"].offset

    def slots(cards: str) -> dict:
        obs = np.zeros(observer.size, np.float32)
        obs[hand_at + np.array(pitch_env.parse_cards(cards), int)] = 1
        perm = canon.permutation(obs)
        return {s: perm[i] for i, s in enumerate("CDHS")}

    assert slots("2S 3S 4S KH 4H 5D") == {"S": 0, "H": 1, "D": 2, "C": 3}  # length
    assert slots("AC 2C KH 4H 5D 6S") == {"C": 0, "H": 1, "S": 2, "D": 3}  # then the top card
    assert slots("KC 2C KH 4H 5D 5S") == {"C": 0, "H": 1, "D": 2, "S": 3}  # then C D H S
    assert slots("") == {"C": 0, "D": 1, "H": 2, "S": 3}  # no cards at all


def test_a_checkpoint_agent_plays_a_forced_move_without_the_network(tmp_path, monkeypatch):
    path = write_policy(tmp_path / "p.safetensors")
    env = pitch_env.env("setback")
    agent = agents.make(f"checkpoint:{path}", env)
    env.reset(seed=1)
    obs, _, _, _, info = env.last()
    mask = np.zeros_like(obs["action_mask"])
    mask[5] = 1
    monkeypatch.setattr(agent.policy, "greedy", lambda *a: pytest.fail("the network was asked"))
    assert agent.act({"observation": obs["observation"], "action_mask": mask}, info) == 5


def test_an_agent_that_reads_the_hint_plays_a_forced_move_without_the_hint_or_the_network(monkeypatch):
    """A policy with a hint learns a forced move from the mover's InfoState (which the hint reads anyway)
    and asks neither the heuristic nor the network; at every other decision it asks both."""
    from agents import checkpoint

    env = pitch_env.env("ten_point")
    agent = agents.make("checkpoint:checkpoints/ten_point", env)
    asked = []
    monkeypatch.setattr(checkpoint, "heuristic_action", lambda state, layout: asked.append(state) or state.legal[0])
    monkeypatch.setattr(agent.policy, "greedy", lambda obs, mask, hint: asked.append(hint) or hint)
    env.reset(seed=3)
    forced = free = 0
    for name, obs, info in agents.base.turns(env):
        legal = np.flatnonzero(obs["action_mask"])
        before = len(asked)
        assert agent.act(obs, info) in legal
        forced += len(legal) == 1
        free += len(legal) > 1
        assert len(asked) - before == (0 if len(legal) == 1 else 2)
        env.step(int(legal[0]))
    assert forced > 10 and free > 10


def test_a_decision_that_does_not_fit_the_policy_is_refused_not_read_out_of_bounds():
    rules = pitch_env.rules("setback")
    policy, _ = load_policy("checkpoints/setback", rules)
    obs, mask = np.zeros(Observer(rules).size, np.float32), np.ones(ActionLayout(rules).size, np.int8)
    with pytest.raises(ValueError, match="do not fit this policy"):
        policy.greedy(obs[:-1], mask, 0)
    with pytest.raises(ValueError, match="do not fit this policy"):
        policy.greedy(obs, mask[:3], 0)
    with pytest.raises(ValueError, match="hint 57 does not fit this policy"):
        policy.greedy(obs, mask, 57)
    with pytest.raises(ValueError, match="reads the heuristic agent's choice"):  # not scored without it
        policy.greedy(obs, mask)
    policy.hint = "none"  # its first layer now has 57 inputs more than the relabelling reads
    n_obs = Observer(rules).size
    with pytest.raises(ValueError, match=f"reads {n_obs + 57} inputs, but its transform gives {n_obs} and its hint"):
        policy.greedy(obs, mask)
    policy.transform = None  # a policy that reads no hint has no row for one (the inputs shrink with it)
    obs = np.zeros(policy.shape[0], np.float32)
    assert policy.greedy(obs, mask) >= 0
    with pytest.raises(ValueError, match="reads no hint"):
        policy.greedy(obs, mask, 0)


def test_the_move_cost_bench_times_the_agents_own_decisions():
    """bench/move_cost.py times the pieces of the move on decisions it recorded from real games: each
    recorded decision has a choice, and the agent's whole move on it is the compiled move with the hint
    the bench recorded (so the pieces it times are the ones the move runs)."""
    from bench import move_cost

    agent, decisions = move_cost.record("ten_point", "checkpoints/ten_point", games=1, seed=3)
    assert len(decisions) > 20
    for game, obs, state, hint in decisions:
        assert np.count_nonzero(obs["action_mask"]) > 1
        assert game.current_seat == state.seat and state.legal
        assert agent.act(obs, {"info_state": state}) == agent.policy.greedy(obs["observation"], obs["action_mask"], hint)
    rows = move_cost.measure(agent, decisions[:5], evict_mb=0.5, repeats=1)
    assert set(rows) == {"info_state", "hint", "dispatch", "network", "act"}
    assert all(warm > 0 and cold > 0 for warm, cold in rows.values())


@pytest.mark.parametrize("name", sorted(p.name for p in (Path(__file__).parent.parent / "checkpoints").iterdir()
                                         if p.is_dir()))
def test_every_shipped_checkpoint_loads_for_its_game_plays_legally_and_has_its_card(name):
    """Each directory under checkpoints/ is a policy for the rules its card names, loaded through the agent
    spec its model card tells users to play (the shipped name), which plays a whole game of legal moves
    against random."""
    path = Path(__file__).parent.parent / "checkpoints" / name
    _, card = read_policy(path)
    readme = (path / "README.md").read_text()
    assert f"`checkpoint:{name}`" in readme
    assert re.search(rf"rules: `{card['variant']}`|--variant {card['variant']} ", readme), "the card names other rules"
    env = pitch_env.env(card["variant"])
    agent, other = agents.make(f"checkpoint:{name}", env), agents.make("random", env)
    env.reset(seed=5)
    for name_, obs, info in agents.base.turns(env):
        seat = env.unwrapped.agent_name_mapping[name_]
        action = (agent if seat % 2 == 0 else other).act(obs, info)
        assert obs["action_mask"][action] == 1
        env.step(action)
    assert env.unwrapped.game_record()["winner"] is not None


# ---------------------------------------------------------------- what checkpoint:PATH may name
def test_checkpoint_path_takes_a_file_a_checkpoint_directory_or_a_run_directory(tmp_path):
    from agents.checkpoint import resolve_policy_path
    from train.resume import write_checkpoint

    train_run = tmp_path / "train-run"  # pitch train's layout: checkpoint -> checkpoints/STEPS/policy.safetensors
    write_checkpoint(train_run, 100, lambda d: write_policy(d / "policy.safetensors"))
    exit_run = tmp_path / "exit-run"  # pitch exit's: its best network beside the generations
    exit_run.mkdir()
    write_policy(exit_run / "best.safetensors")
    env = pitch_env.env("setback")
    for path in (train_run, train_run / "checkpoint", exit_run, exit_run / "best.safetensors"):
        assert resolve_policy_path(path).is_file()
        for spec in (f"checkpoint:{path}", f"pimcnet:1:{path}"):
            agent = agents.make(spec, env)
            env.reset(seed=1)
            obs, _, _, _, info = env.last()
            assert obs["action_mask"][agent.act(obs, info)] == 1
    assert resolve_policy_path(train_run) == train_run / "checkpoint" / "policy.safetensors"
    with pytest.raises(CheckpointError, match="holds no policy .looked for policy.safetensors, best.safetensors"):
        agents.make(f"checkpoint:{tmp_path}", env)


@pytest.mark.parametrize("form", ["checkpoint:{}", "pimcnet:2:{}"])
@pytest.mark.parametrize("path,why", [("x" * 300, "too long"), ("ok/" + "y" * 256 + "/p", "too long"),
                                      ("loop/p", "loops through symlinks"), ("file/p", "a file, not a folder")])
def test_a_path_the_system_refuses_is_one_line_naming_why(tmp_path, monkeypatch, form, path, why):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok").mkdir()
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "file").write_text("")
    with pytest.raises(CheckpointError, match=why) as e:
        agents.make(form.format(path), pitch_env.env("setback"))
    assert "\n" not in str(e.value) and len(str(e.value)) < 300


@pytest.mark.parametrize("config,samples", [({"deterministic": False}, True), ({"deterministic": True}, False),
                                            ({}, False), ({"deterministic": "no"}, False)])
def test_an_agent_plays_as_its_training_config_said(tmp_path, config, samples):
    """``deterministic: false`` in the training config makes the exported agent sample its moves (here
    from a nearly flat policy, so some sampled move is not the most likely one); anything else, a
    crafted value too, plays the most likely move."""
    rules = pitch_env.rules("setback")
    obs_size, act = Observer(rules).size, ActionLayout(rules).size
    rng = np.random.default_rng(0)
    policy = PolicyMLP([(0.01 * rng.normal(size=(16, obs_size)).astype(np.float32), np.zeros(16, np.float32)),
                        (0.01 * rng.normal(size=(act, 16)).astype(np.float32), np.zeros(act, np.float32))], "relu")
    path = tmp_path / "p.safetensors"
    save_policy(path, policy, make_card(rules, policy, 1, config, obs_size, LAYOUT_VERSION, act))
    env = pitch_env.env("setback")
    agent = agents.make(f"checkpoint:{path}", env)
    agent.reset(seed=3)
    differs = 0
    for seed in range(20):
        env.reset(seed=seed)
        obs, _, _, _, info = env.last()
        choice = agent.act(obs, info)
        assert obs["action_mask"][choice] == 1
        differs += choice != policy.greedy(obs["observation"], obs["action_mask"])
    assert (differs > 0) == samples
