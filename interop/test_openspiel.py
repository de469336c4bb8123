"""The OpenSpiel games: parameters, chance deals, what each seat's information state holds, and
resampling consistent with it (OpenSpiel's own checks and ISMCTS are in test_libraries.py)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import pitch_env
import pitch_env.openspiel  # noqa: F401  (registers the games)
from pitch_env import game_record
from pitch_env.observer import Observer


def play_to(game, decisions: int, seed: int = 0):
    """A state after ``decisions`` random player moves (chance sampled)."""
    rng = np.random.default_rng(seed)
    state, done = game.new_initial_state(), 0
    while not state.is_terminal() and done < decisions:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            assert abs(sum(probs) - 1) < 1e-9
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            done += 1
    return state


def test_rules_options_are_game_parameters():
    game = pyspiel.load_game("python_pitch_auction(num_players=5,target_score=3)")
    assert game.num_players() == 5 and game.rules.target_score == 3
    assert pyspiel.load_game("python_pitch_setback", {"num_players": 3}).rules.partnerships is False
    assert pyspiel.load_game("python_pitch_ten_point").rules.bid_ends_auction == "shoot"
    with pytest.raises(ValueError, match="num_players=9 is not allowed"):
        pyspiel.load_game("python_pitch_setback", {"num_players": 9})


@pytest.mark.parametrize("variant", pitch_env.variants())
def test_the_observation_tensor_is_the_envs_observation(variant):
    game = pyspiel.load_game(f"python_pitch_{variant}")
    state = play_to(game, 9)
    observer = Observer(game.rules)
    for seat in range(game.num_players()):
        assert np.array_equal(np.asarray(state.observation_tensor(seat)), observer.encode(state.game, seat))
        assert len(state.information_state_tensor(seat)) == game.information_state_tensor_size()


@pytest.mark.parametrize("variant", pitch_env.variants())
def test_a_seat_is_told_its_own_cards_and_no_other(variant):
    game = pyspiel.load_game(f"python_pitch_{variant}")
    state = play_to(game, 1)
    for seat in range(game.num_players()):
        words = state.information_state_string(seat).split()
        told = {words[i + 1] for i, w in enumerate(words) if w == "dealt"}
        assert told == {pitch_env.card_name(c) for c in state.deals[0]["deal"][seat]}


@pytest.mark.parametrize("variant", pitch_env.variants())
def test_resampled_worlds_look_the_same_to_the_seat_and_differ_elsewhere(variant):
    game = pyspiel.load_game(f"python_pitch_{variant}")
    state = play_to(game, 14, seed=3)
    seat = state.current_player()
    others = set()
    for _ in range(8):
        world = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.information_state_tensor(seat) == state.information_state_tensor(seat)
        assert world.legal_actions() == state.legal_actions()
        assert world.game.hands[seat] == state.game.hands[seat]
        others.add(tuple(world.game.hands[s] for s in range(game.num_players()) if s != seat))
    assert len(others) > 1, "every resample dealt the other seats the same cards"


def test_a_whole_game_reaches_the_same_record_as_the_engine_with_that_deal():
    game = pyspiel.load_game("python_pitch_auction", {"max_hands": 1})
    state = play_to(game, 10_000, seed=5)
    assert state.is_terminal()
    deal = state.deals[0]
    engine = pitch_env.Game("auction", seed=0, deals=[deal], max_hands=1)
    for player, action in state.history_actions:
        if player >= 0:
            engine.apply(action)
    assert game_record(engine)["hands"] == game_record(state.game)["hands"]
    expected = [0.0] * 4 if engine.winner is None else [1.0 if s == engine.winner else -1 / 3 for s in range(4)]
    assert state.returns() == pytest.approx(expected)
