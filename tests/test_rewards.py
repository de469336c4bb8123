"""The rewards (pitch_env/rewards.py) and the one game loop (pitch_env/loop.py): what each reward
gives for a hand written in card notation, that the AEC env's ``reward="relative"`` and the
self-play env pay exactly those rewards, and that the loop plays, stops and reports as it says.
"""

from __future__ import annotations

import numpy as np
import pytest

import pitch_env
from pitch_env import Game, game_record, rules
from pitch_env.loop import play
from pitch_env.rewards import (SideRewards, game_rewards, hand_rewards, hand_scale, relative_reward,
                               relative_rewards, win_bonus, win_bonuses)

from test_env import rewards_by_agent, won_game_rewards
from test_rules_setback import play_d1


# ======================================================================= the reward functions
def test_game_reward_gives_the_winners_1_and_splits_minus_1_among_the_other_sides():
    assert game_rewards(rules("auction", num_players=3), winner=1) == [-0.5, 1.0, -0.5]
    assert game_rewards(rules("setback"), winner=0) == [1.0, -1.0, 1.0, -1.0]  # partners share


def test_game_reward_is_zero_for_everyone_when_the_game_is_truncated():
    assert game_rewards(rules("auction", num_players=5), winner=None) == [0.0] * 5


def test_hand_reward_is_the_side_score_change_over_the_most_a_hand_gives():
    g = play_d1(low_to="capturer")  # seat 0 bid 2 and took only High: set back 2; the other side took 3
    assert g.last_result.score_change == (-2, 3)
    assert hand_rewards(g.rules, g.last_result.score_change) == [-0.5, 0.75, -0.5, 0.75]
    assert hand_scale(rules("ten_point")) == 1 / 10


def test_relative_reward_is_the_side_change_minus_the_mean_of_the_others():
    g = play_d1(low_to="capturer")
    assert relative_rewards(g.rules, g.last_result.score_change) == [-1.25, 1.25, -1.25, 1.25]
    # three sides: side 0 gains 2 while the others gain -1 and 1 on average 0
    assert relative_reward((2, -1, 1), side=0, scale=1.0) == 2.0
    assert relative_reward((1, 1, 1), side=2, scale=0.25) == 0.0  # a hand that helps all alike is worth 0


def test_win_bonus_goes_to_the_winner_and_is_taken_from_every_other_side():
    assert win_bonus(winner=1, side=1, bonus=0.5) == 0.5
    assert win_bonus(winner=1, side=0, bonus=0.5) == -0.5


def test_a_game_nobody_won_costs_every_side_the_win_bonus():
    # worth no more than a loss, so a side that can no longer win gains nothing by blocking to max_hands
    assert win_bonus(winner=None, side=0, bonus=0.5) == win_bonus(winner=None, side=1, bonus=0.5) == -0.5
    assert win_bonuses(rules("auction", num_players=3), None, 2.0) == [-2.0] * 3


def test_side_rewards_pay_each_learner_side_what_it_earned_since_it_was_last_paid():
    """Three-handed auction, the learner at sides 0 and 2: side 0 makes 3 while the others make 1 and
    lose 2 (relative: 3 - (1 - 2)/2 = 3.5 points), side 2 then wins the game."""
    r = rules("auction", num_players=3)
    book = SideRewards(r, "hand", bonus=0.5)
    book.start([0, 2])
    book.hand_over((3, 1, -2))
    book.hand_over(None)  # a thrown-in hand earns nothing
    assert book.take(0) == relative_reward((3, 1, -2), 0, hand_scale(r)) == 3.5 * hand_scale(r)
    assert book.take(0) == 0.0  # paid once
    book.game_over(winner=2)
    assert book.take(0) == -0.5
    assert book.take(2) == relative_reward((3, 1, -2), 2, hand_scale(r)) + 0.5
    with pytest.raises(KeyError):
        book.take(1)  # not a learner side: nobody keeps its account
    only_games = SideRewards(r, "game", bonus=1.0)
    only_games.start([1])
    only_games.hand_over((3, 1, -2))
    only_games.game_over(winner=None)  # truncated: lost by every side
    assert only_games.take(1) == -1.0


# ======================================================================= the AEC env's reward="relative"


@pytest.mark.parametrize("variant,options", [("setback", {}), ("auction", {"num_players": 3})])
def test_env_relative_reward_is_the_training_objective_hand_by_hand_plus_the_win_bonus(variant, options):
    env = pitch_env.env(variant, reward="relative", win_bonus=0.5, target_score=5, **options)
    totals, record = won_game_rewards(env)
    r = env.unwrapped.rules
    for seat, agent in enumerate(env.unwrapped.possible_agents):
        side = r.side_of(seat)
        expected = sum(relative_reward(h["score_change"], side, 1 / r.max_hand_points)
                       for h in record["hands"] if h["pitcher"] is not None)
        expected += 0.5 if side == record["winner"] else -0.5
        assert totals[agent] == pytest.approx(expected)


def test_env_relative_reward_charges_every_side_the_win_bonus_for_a_truncated_game():
    env = pitch_env.env("auction", num_players=3, reward="relative", win_bonus=0.5, max_hands=2)
    totals = rewards_by_agent(env, 1)
    record = env.unwrapped.game_record()
    assert record["truncated"] and record["winner"] is None
    r = env.unwrapped.rules
    for seat, agent in enumerate(env.unwrapped.possible_agents):
        expected = sum(relative_reward(h["score_change"], r.side_of(seat), 0.25)
                       for h in record["hands"] if h["pitcher"] is not None)
        assert totals[agent] == pytest.approx(expected - 0.5)


def test_env_relative_reward_plays_hand_long_episodes():
    env = pitch_env.env("auction", reward="relative", episode="hand")
    totals = rewards_by_agent(env, 3)
    hand = env.unwrapped.game_record()["hands"][0]
    r = env.unwrapped.rules
    for seat, agent in enumerate(env.unwrapped.possible_agents):
        assert totals[agent] == pytest.approx(relative_reward(hand["score_change"], r.side_of(seat), 0.25))


def test_env_reward_options_are_refused_in_one_line_naming_the_fix():
    with pytest.raises(ValueError, match="reward='points'.*'game', 'hand', 'relative'"):
        pitch_env.env("setback", reward="points")
    with pytest.raises(ValueError, match="win_bonus=2.0 only applies to reward='relative'"):
        pitch_env.env("setback", win_bonus=2.0)
    with pytest.raises(ValueError, match="win_bonus='big'.*give a number"):
        pitch_env.env("setback", reward="relative", win_bonus="big")
    with pytest.raises(ValueError, match="episode='hand' needs reward='hand' or 'relative'"):
        pitch_env.env("setback", episode="hand")


# ======================================================================= the self-play env
@pytest.mark.parametrize("variant,reward", [("setback", "hand"), ("auction", "hand"), ("ten_point", "game")])
def test_selfplay_env_rewards_are_the_rewards_modules(variant, reward):
    from train.config import TrainConfig
    from train.sb3 import make_env

    cfg = TrainConfig(variant=variant, reward=reward, win_bonus=0.75, opponents={"heuristic": 1.0},
                      rules={"target_score": 5} if variant != "ten_point" else {"target_score": 12})
    env = make_env(cfg, 0)()
    rng = np.random.default_rng(0)
    env.reset(seed=2)
    games = hands_rewarded = 0
    while games < 3:
        g, seen = env.game, len(env.game.finished)
        _, reward_got, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        expected = 0.0
        for h in game_record(g)["hands"][seen:]:
            if reward == "hand" and h["pitcher"] is not None:
                expected += relative_reward(h["score_change"], env.side, hand_scale(env.rules))
                hands_rewarded += 1
        if g.is_over:
            expected += win_bonus(g.winner, env.side, 0.75)
        assert reward_got == expected
        if term or trunc:
            games += 1
            env.reset()
    assert hands_rewarded > 3 or reward == "game"


def test_selfplay_env_ends_a_game_stopped_at_max_hands_as_terminated_and_lost():
    """The objective counts a game nobody won as lost by every side, so the learner's env reports it
    terminated, not truncated: SB3 would add the value of a future the game does not have."""
    from train.config import TrainConfig
    from train.sb3 import make_env

    cfg = TrainConfig(variant="auction", reward="game", win_bonus=0.75, opponents={"heuristic": 1.0},
                      rules={"max_hands": 1})
    env = make_env(cfg, 0)()
    rng = np.random.default_rng(1)
    stopped = 0
    for seed in range(6):
        env.reset(seed=seed)
        term = trunc = False
        while not (term or trunc):
            _, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert term and not trunc
        assert info["episode_stats"]["truncated"] == float(env.game.winner is None)  # pitch/truncated_pct counts it
        if env.game.winner is None:
            assert env.game.truncated and reward == -0.75
            stopped += 1
    assert stopped


# ======================================================================= the game loop
def first_legal(game, seat):
    return game.legal_actions()[0]


def test_loop_plays_a_game_to_the_end_reporting_every_move_and_hand():
    g, by_hand = Game("setback", seed=4, max_hands=3), Game("setback", seed=4, max_hands=3)
    moves, hands = [], []
    play(g, first_legal, moved=lambda game, seat, action, phase, hand: moves.append((seat, action)),
         hand_over=hands.append)
    expected = []  # the same game, looped by hand
    while not by_hand.is_over:
        expected.append((by_hand.current_seat, by_hand.legal_actions()[0]))
        by_hand.apply(expected[-1][1])
    assert g.is_over and moves == expected
    assert len(hands) == len(g.finished) == 3
    played = [h for h in game_record(g)["hands"] if h["pitcher"] is not None]
    assert [r.score_change for r in hands if r is not None] == [tuple(h["score_change"]) for h in played]


def test_loop_stops_before_the_seat_asked_and_applies_a_chosen_first_action():
    g = Game("setback", seed=4)
    play(g, first_legal, stop=lambda seat: seat == 3)
    assert g.current_seat == 3
    first = g.legal_actions()[-1]
    moves = []
    play(g, first_legal, first=first, stop=lambda seat: seat == 3,
         moved=lambda game, seat, action, phase, hand: moves.append((seat, action)))
    assert moves[0] == (3, first) and len(moves) > 1
    assert g.current_seat == 3 and all(seat != 3 for seat, _ in moves[1:])


def test_loop_one_hand_stops_when_the_hand_is_over():
    g = Game("auction", seed=5)
    play(g, first_legal, one_hand=True, trusted=True)
    assert len(g.finished) == 1 and (g.hand_number == 2 or g.is_over)
