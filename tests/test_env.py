"""The PettingZoo AEC environment: conformance, masks, observations, rewards, errors, seeding."""

from __future__ import annotations

import copy
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import pitch_env
from pitch_env.actions import bid_rows
from pitch_env.infoset import infoset
from pitch_env.observer import Observer

from agents.base import turns

# Every preset × every allowed player count × solo/partnership.
CONFIGS = [("setback", n, n == 4) for n in (2, 3, 4)] + [("setback", 4, False)]
CONFIGS += [("auction", n, False) for n in range(2, 8)] + [("auction", 4, True), ("auction", 6, True)]
CONFIGS += [("ten_point", 4, True), ("ten_point", 4, False)]
IDS = [f"{v}-{n}p-{'team' if p else 'solo'}" for v, n, p in CONFIGS]


def make(variant, n, partnerships, **kw):
    return pitch_env.env(variant, num_players=n, partnerships=partnerships, **kw)


def legal(obs) -> list[int]:
    return np.flatnonzero(obs["action_mask"]).tolist()


def random_game(env, seed):
    """Play one random game, yielding (agent, observation, info) before each decision."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    for agent, obs, info in turns(env):
        yield agent, obs, info
        env.step(rng.choice(legal(obs)))


@pytest.mark.parametrize("variant,n,partnerships", CONFIGS, ids=IDS)
def test_pettingzoo_api_seed_and_render_tests_pass(variant, n, partnerships):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's generic notes about Dict observations
        api_test(make(variant, n, partnerships), num_cycles=100)
        seed_test(lambda: make(variant, n, partnerships), num_cycles=100)
        render_test(lambda render_mode=None: make(variant, n, partnerships, render_mode=render_mode))


@pytest.mark.parametrize("variant,n,partnerships", CONFIGS, ids=IDS)
def test_mask_observation_and_infoset_agree_with_the_engine_at_every_step(variant, n, partnerships):
    env = make(variant, n, partnerships, infoset=True)
    raw = env.unwrapped
    fresh = Observer(raw.rules)
    space = raw.observation_space("player_0")
    for seed in range(3):
        for agent, obs, info in random_game(env, seed):
            game = raw.game
            seat = raw.agent_name_mapping[agent]
            assert seat == game.current_seat
            assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(game.legal_actions())
            assert np.array_equal(raw.action_masks(), obs["action_mask"])
            # the move-by-move table equals an encoding from scratch
            np.testing.assert_allclose(obs["observation"], fresh.encode(game, seat), atol=1e-6)
            assert space.contains(obs)
            assert info == {"infoset": infoset(game, seat)} and type(info["infoset"]) is dict
            assert info["infoset"] == raw.infoset(agent) == raw.infoset()
            assert info["infoset"]["legal_actions"] == [raw.action_name(a) for a in game.legal_actions()]


def _swap_hidden_card(game, viewer):
    """A copy of ``game`` where two other seats have swapped one unplayed card each."""
    others = [s for s in range(game.rules.num_players) if s != viewer and game.hands[s]]
    if len(others) < 2:
        return None, None
    a, b = others[:2]
    ca, cb = game.hand_cards(a)[0], game.hand_cards(b)[0]
    twin = game.clone()
    twin.hands[a] = (twin.hands[a] & ~(1 << ca)) | (1 << cb)
    twin.hands[b] = (twin.hands[b] & ~(1 << cb)) | (1 << ca)
    return twin, a


@pytest.mark.parametrize("variant,n,partnerships", [c for c in CONFIGS if c[1] >= 3],
                         ids=[i for c, i in zip(CONFIGS, IDS) if c[1] >= 3])
def test_observation_and_infoset_hold_nothing_the_seat_cannot_know(variant, n, partnerships):
    env = make(variant, n, partnerships)
    raw = env.unwrapped
    observer = Observer(raw.rules)
    checked = 0
    for agent, obs, info in random_game(env, seed=11):
        game = raw.game
        seat = game.current_seat
        twin, other = _swap_hidden_card(game, seat)
        if twin is None:
            continue
        # what the seat knows is identical in both worlds …
        assert np.array_equal(observer.encode(game, seat), observer.encode(twin, seat))
        assert infoset(game, seat) == infoset(twin, seat)
        # … while a seat holding a swapped card does see the difference (the test can fail)
        assert not np.array_equal(observer.encode(game, other), observer.encode(twin, other))
        checked += 1
    assert checked > 10


def test_ten_point_discards_are_private_but_draw_counts_public():
    env = pitch_env.env("ten_point")
    raw = env.unwrapped
    observer = Observer(raw.rules)
    for agent, obs, info in random_game(env, seed=3):
        game = raw.game
        if game.phase_name == "play":
            break
    seat = game.current_seat
    views = observer.views(observer.encode(game, seat))
    assert views["discards"].sum() == len(game.discards[seat])
    assert views["draws"].sum() == len(game.draws[seat])
    counts = sorted(round(x * game.rules.deck) for x in views["draw_counts"])
    assert counts == sorted(len(d) for d in game.draws)
    for other in range(4):  # another seat's discards never reach this seat's observation
        if other != seat and game.discards[other] != game.discards[seat]:
            twin = game.clone()
            twin.discards[other] = []
            assert np.array_equal(observer.encode(twin, seat), observer.encode(game, seat))


def test_illegal_action_ends_the_game_with_illegal_reward_and_a_warning_naming_it():
    env = pitch_env.env("setback")
    env.reset(seed=1)
    agent = env.agent_selection
    illegal = env.unwrapped.action_index("play AS")  # nobody plays a card during the auction
    with pytest.warns(UserWarning, match=r"illegal action 'play AS'.*legal now: pass, bid 1"):
        env.step(illegal)
    assert env.rewards[agent] == -1.0
    assert all(env.terminations.values())
    assert sum(v for a, v in env.rewards.items() if a != agent) == 0


def test_illegal_action_raise_mode_raises_and_changes_nothing():
    env = pitch_env.env("auction", illegal_action="raise")
    env.reset(seed=2)
    before = (env.unwrapped.game_record(), env.agent_selection, env.last()[0]["observation"].copy())
    with pytest.raises(ValueError, match="illegal action 'play 2C'"):
        env.step(env.unwrapped.action_index("play 2C"))
    after = (env.unwrapped.game_record(), env.agent_selection, env.last()[0]["observation"])
    assert before[0] == after[0] and before[1] == after[1]
    assert np.array_equal(before[2], after[2])


@pytest.mark.parametrize("action", [-1, 10_000, 1.5, "pass", None])
def test_actions_outside_the_action_space_raise_a_clear_error(action):
    env = pitch_env.env("setback")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space|only valid action is None"):
        env.step(action)


def test_after_the_end_every_agent_steps_none_and_the_env_is_empty():
    env = pitch_env.env("ten_point")
    for _ in random_game(env, seed=5):
        pass
    assert env.agents == []
    assert env.unwrapped.game_record()["winner"] is not None


def test_dead_agent_refuses_a_real_action():
    env = pitch_env.env("setback")
    env.reset(seed=1)
    with pytest.warns(UserWarning):
        env.step(env.unwrapped.action_index("play AS"))
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)


def test_same_seed_same_game_and_different_seed_different_deal():
    def record(seed):
        env = pitch_env.env("auction", num_players=5)
        for _ in random_game(env, seed):
            pass
        return env.unwrapped.game_record()

    assert record(4) == record(4)
    assert record(4)["hands"][0]["deal"] != record(5)["hands"][0]["deal"]


def test_reset_without_seed_continues_the_seeded_sequence():
    a, b = pitch_env.env("setback"), pitch_env.env("setback")
    a.reset(seed=9), b.reset(seed=9)
    a.reset(), b.reset()
    assert a.unwrapped.game_record()["hands"][0]["deal"] == b.unwrapped.game_record()["hands"][0]["deal"]


def rewards_by_agent(env, seed):
    """Play a random game through the AEC loop, summing what last() reports to each agent."""
    totals = {a: 0.0 for a in env.unwrapped.possible_agents}
    rng = random.Random(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else rng.choice(legal(obs)))
    return totals


def won_game_rewards(env):
    """(rewards by agent, record) of the first of 40 seeded random games that a side won."""
    for seed in range(40):  # random players often reach max_hands
        totals = rewards_by_agent(env, seed)
        record = env.unwrapped.game_record()
        if record["winner"] is not None:
            return totals, record
    raise AssertionError("no random game was won: the test would check nothing")


@pytest.mark.parametrize("variant,n,partnerships", [("setback", 4, True), ("auction", 5, False), ("ten_point", 4, True)])
def test_game_reward_is_zero_sum_and_goes_to_the_winning_side(variant, n, partnerships):
    env = make(variant, n, partnerships)
    totals, record = won_game_rewards(env)
    assert abs(sum(totals.values())) < 1e-9
    winners = {f"player_{s}" for s in record["sides"][record["winner"]]}
    assert all(totals[a] == 1.0 for a in winners)
    assert all(totals[a] < 0 for a in totals if a not in winners)


def test_hand_reward_is_the_side_score_change_over_the_most_a_hand_gives():
    env = pitch_env.env("setback", reward="hand")
    totals = rewards_by_agent(env, seed=1)
    scores = env.unwrapped.game_record()["final_scores"]
    assert any(scores)
    for seat, agent in enumerate(env.unwrapped.possible_agents):
        assert totals[agent] == pytest.approx(scores[seat % 2] / 4)


def test_hand_episode_ends_after_one_hand_from_a_random_dealer():
    dealers = set()
    for seed in range(8):
        env = pitch_env.env("auction", episode="hand", reward="hand")
        for _ in random_game(env, seed):
            pass
        record = env.unwrapped.game_record()
        assert len(record["hands"]) == 1
        dealers.add(record["hands"][0]["dealer"])
    assert len(dealers) > 1


def test_bad_env_options_are_refused_with_the_allowed_values():
    with pytest.raises(ValueError, match="reward='points'.*'game', 'hand'"):
        pitch_env.env("setback", reward="points")
    with pytest.raises(ValueError, match="episode='hand' needs reward='hand'"):
        pitch_env.env("setback", episode="hand")
    with pytest.raises(ValueError, match="unknown rules option colour.*env's own options are render_mode, reward"):
        pitch_env.env("setback", colour="red")


@pytest.mark.parametrize("option,value", [("win_bonus", float("nan")), ("win_bonus", float("inf")),
                                          ("win_bonus", -1e300), ("illegal_reward", float("-inf")),
                                          ("illegal_reward", float("nan")), ("illegal_reward", 1e12)])
def test_a_reward_option_that_is_not_a_finite_number_is_refused_by_name(option, value):
    with pytest.raises(ValueError, match=f"env option {option}=.*finite.*e.g. {option}=") as e:
        pitch_env.env("setback", reward="relative", **{option: value})
    assert "\n" not in str(e.value)


def test_action_names_round_trip_and_unknown_names_list_the_forms():
    raw = pitch_env.raw_env("ten_point")
    for i in range(raw.num_actions):
        assert raw.action_index(raw.action_name(i)) == i
    assert raw.action_name(raw.action_index("play BJ")) == "play BJ"
    with pytest.raises(ValueError, match="valid forms are pass, bid N"):
        raw.action_index("fold")


@pytest.mark.parametrize("variant,n,partnerships", CONFIGS, ids=IDS)
def test_bid_rows_are_exactly_the_decisions_of_the_auction(variant, n, partnerships):
    env = make(variant, n, partnerships)
    layout = env.unwrapped.layout
    masks, bidding = [], []
    for _, obs, _ in random_game(env, seed=n):
        masks.append(obs["action_mask"])
        bidding.append(env.unwrapped.game.phase_name == "bid")
    assert any(bidding) and not all(bidding)
    assert bid_rows(np.stack(masks), layout.auction_size).tolist() == bidding


def test_infos_are_empty_unless_the_infoset_is_asked_for():
    env = pitch_env.env("setback")
    for _, _, info in random_game(env, seed=0):
        assert info == {}
    assert all(i == {} for i in env.infos.values())


def test_the_infoset_in_info_is_a_snapshot_that_later_steps_leave_alone():
    env = pitch_env.env("setback", infoset=True)
    env.reset(seed=0)
    obs, info = env.last()[0], env.last()[4]
    before = copy.deepcopy(info)
    env.step(legal(obs)[0])
    assert info == before and info["infoset"]["bids"] == []
    assert [b["seat"] for b in env.unwrapped.infoset("player_1")["bids"]] == [1]  # the env moved on


def test_infoset_of_an_unknown_agent_or_before_reset_is_refused():
    raw = pitch_env.raw_env("setback")
    with pytest.raises(RuntimeError, match="call env.reset"):
        raw.infoset()
    raw.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent 'player_9'.*player_0"):
        raw.infoset("player_9")
    with pytest.raises(ValueError, match="infoset=1 must be True or False"):
        pitch_env.env("setback", infoset=1)


@pytest.mark.parametrize("seed", [np.int64(5), np.uint32(5), 5])
def test_numpy_integer_seeds_deal_the_same_game_as_the_int(seed):
    env = pitch_env.env("setback")
    env.reset(seed=seed)
    deal = env.unwrapped.game_record()["hands"][0]["deal"]
    env.reset(seed=5)
    assert deal == env.unwrapped.game_record()["hands"][0]["deal"]
    env.reset()  # the seeded sequence goes on from a numpy seed too


@pytest.mark.parametrize("seed,message", [
    (1.7, "not float, e.g. seed=1"), (1.0, "not float; pass seed=1"), ("abc", "not str"),
    (float("nan"), "seed=nan.*not float"), (float("inf"), "seed=inf.*not float"), (True, "not bool"),
])
def test_seeds_that_are_not_integers_are_refused_by_name(seed, message):
    env = pitch_env.env("setback")
    with pytest.raises(ValueError, match=message):
        env.reset(seed=seed)


def test_observation_pieces_cover_the_buffer_and_are_documented():
    for variant in pitch_env.variants():
        observer = pitch_env.raw_env(variant).observer
        sizes = sum(p.size for p in observer.pieces.values())
        assert sizes == observer.size
        assert "| `hand` | 0 |" in observer.describe()
