"""pitch_env.vector_env: the documented arrays, same seed same games, hostile actions and options refused in
one line naming the game, records that `pitch replay` accepts, and docs/environment.md's examples run."""

import re
from pathlib import Path

import numpy as np
import pytest

import pitch_env
from pitch_env import save_record

ROOT = Path(__file__).resolve().parents[1]


def _random(out, rng):
    return (rng.random(out["action_mask"].shape) * out["action_mask"]).argmax(axis=1)


@pytest.mark.parametrize("variant", ["setback", "auction", "ten_point"])
def test_reset_and_step_return_the_documented_arrays(variant):
    env = pitch_env.vector_env(variant, num_envs=5, seed=1)
    out = env.reset()
    n, sides = env.rules.num_players, env.rules.num_sides
    assert out["observation"].shape == (5, env.observation_size) and out["observation"].dtype == np.float32
    assert out["action_mask"].shape == (5, env.num_actions) and out["action_mask"].dtype == np.int8
    assert out["current_seat"].shape == (5,)
    out = env.step(_random(out, np.random.default_rng(0)))
    assert out["rewards"].shape == (5, n) and out["rewards"].dtype == np.float32
    assert out["terminated"].dtype == bool and out["truncated"].shape == (5,)
    assert out["scores"].shape == (5, sides) and out["winner"].shape == (5,)


def test_the_same_seed_plays_the_same_games():
    runs = []
    for _ in range(2):
        env = pitch_env.vector_env("auction", num_envs=8, seed=11)
        out, rng, seen = env.reset(), np.random.default_rng(3), []
        for _ in range(300):
            out = env.step(_random(out, rng))
            seen.append(out["observation"].copy())
        runs.append(np.array(seen))
    assert np.array_equal(runs[0], runs[1])


def test_copy_false_returns_the_envs_own_buffers_and_copy_true_fresh_ones():
    env = pitch_env.vector_env("setback", num_envs=4, seed=0, copy=False)
    out = env.reset()
    assert out["observation"] is env.engine.obs
    env = pitch_env.vector_env("setback", num_envs=4, seed=0)
    assert env.reset()["observation"] is not env.engine.obs


def _bad_actions(env, out):
    legal = out["action_mask"].argmax(axis=1)
    illegal = legal.copy()
    illegal[3] = int(np.flatnonzero(out["action_mask"][3] == 0)[0])
    nan = legal.astype(float)
    nan[2] = np.nan
    far = legal.copy()
    far[1] = env.num_actions
    negative = legal.copy()
    negative[4] = -1
    return [
        (illegal, "game 3: illegal action"), (nan, "game 2: action nan is not a number"),
        (far, "game 1: action 57 is out of range"), (negative, "game 4: action -1 is out of range"),
        (legal.astype(float), "dtype float64"), (legal.astype(bool), "dtype bool"),
        (legal[:3], "shape (3,)"), (legal.reshape(1, -1), "shape (1, 6)"), ("play AS", "shape ()"),
    ]


def test_bad_actions_are_refused_in_one_line_naming_the_game_and_nothing_moves():
    env = pitch_env.vector_env("setback", num_envs=6, seed=2)
    out = env.reset()
    before = env.engine.I.copy()
    for actions, message in _bad_actions(env, out):
        with pytest.raises(ValueError, match=re.escape(message)) as e:
            env.step(actions)
        assert "\n" not in str(e.value)
        assert np.array_equal(env.engine.I, before)
    env.step(out["action_mask"].argmax(axis=1))  # a good step still goes


def test_step_before_reset_is_refused():
    with pytest.raises(RuntimeError, match="reset"):
        pitch_env.vector_env("setback", num_envs=2).step(np.zeros(2, np.int64))


@pytest.mark.parametrize("options", [
    {"num_players": 9}, {"variant": "auction", "num_players": 5, "partnerships": True}, {"deck": 53},
    {"bogus": 1}, {"reward": "score"}, {"win_bonus": 2.0}, {"reward": "relative", "win_bonus": float("nan")},
    {"variant": "ten_point", "num_players": 3},
])
def test_bad_options_get_the_aec_envs_one_line_errors(options):
    options = dict(options)
    variant = options.pop("variant", "setback")
    with pytest.raises(ValueError) as aec:
        pitch_env.env(variant, **options)
    with pytest.raises(ValueError) as vec:
        pitch_env.vector_env(variant, num_envs=2, **options)
    if "bogus" in options:  # each names its own options after the rules' message
        assert str(vec.value).split(";")[0] == str(aec.value).split(";")[0]
    else:
        assert str(vec.value) == str(aec.value)
    assert "\n" not in str(vec.value)


@pytest.mark.parametrize("num_envs,seed", [(0, 1), (2.0, 1), (True, 1), (2**17, 1), (2, -1), (2, 1.5), (2, "x"),
                                           (2, 2**62)])
def test_bad_sizes_and_seeds_are_refused_in_one_line(num_envs, seed):
    with pytest.raises(ValueError, match=r"num_envs|seed") as e:
        pitch_env.vector_env("setback", num_envs=num_envs, seed=seed)
    assert "\n" not in str(e.value)


def test_finished_records_are_accepted_by_pitch_replay(tmp_path, capsys):
    import pitch_cli

    env = pitch_env.vector_env("ten_point", num_envs=16, seed=5)
    out, rng = env.reset(), np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        out = env.step(_random(out, rng))
        ended += int((out["terminated"] | out["truncated"]).sum())
    records = env.finished_records()
    assert len(records) == ended > 0 and env.finished_records() == []
    path = tmp_path / "game.json"
    save_record(records[0], path)
    assert pitch_cli.main(["replay", str(path)]) == 0
    assert records[0]["winner"] is not None or records[0]["truncated"]


def test_only_the_latest_finished_games_are_kept_for_records(monkeypatch):
    import pitch_env.vector as vector

    def play():
        env = pitch_env.vector_env("ten_point", num_envs=16, seed=5)
        out, rng = env.reset(), np.random.default_rng(0)
        for _ in range(300):
            out = env.step(_random(out, rng))
        return env.finished_records()

    every = play()
    monkeypatch.setattr(vector, "MAX_KEPT_RECORDS", 3)
    assert len(every) > 3 and play() == every[-3:]


def _examples() -> list[str]:
    text = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    section = text.split("## Vector environment", 1)[1]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_docs_random_loop_runs():
    code = _examples()[0]
    assert len(code.strip().splitlines()) <= 12
    space = {}
    exec(compile(code, "docs/environment.md", "exec"), space)
    assert isinstance(space["records"], list)


def test_the_docs_masked_ppo_loop_runs_and_learns_something():
    code = _examples()[1]
    space = {}
    exec(compile(code, "docs/environment.md", "exec"), space)
    assert np.isfinite(float(space["loss"].detach()))
    assert space["done"].any() or space["rew"].any()
