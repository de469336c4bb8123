"""Preset facts as fields of the rules object: the player counts a game allows travel with the
rules (not looked up by the preset's name), and each scoring scheme is one row of scoring.SCHEMES.
"""

from __future__ import annotations

import dataclasses

import pytest

from pitch_env import Game, game_record, rules
from pitch_env.cards import trump_table
from pitch_env.scoring import SCHEMES, scheme

from conftest import card_awards, last_hand, play_out
from test_rules_setback import play_d1
from test_rules_ten_point import play_seven_trumps


def test_setback_is_refused_at_5_players_under_any_name():
    renamed = dataclasses.replace(rules("setback"), variant="my_setback", num_players=5, partnerships=False)
    with pytest.raises(ValueError, match=r"num_players=5 .*2, 3, 4 players.*player_counts"):
        Game(renamed, seed=0)


def test_player_counts_is_a_rules_option_that_lets_setback_seat_5():
    r = rules("setback", num_players=5, player_counts=[2, 3, 4, 5])  # a list, as YAML writes it
    assert r.player_counts == (2, 3, 4, 5) and r.num_sides == 5
    play_out(Game(r, seed=1))


@pytest.mark.parametrize("counts", [(), (1, 4), (4, 8), "4", (4.0,)])
def test_bad_player_counts_are_refused_in_one_line(counts):
    with pytest.raises(ValueError, match=r"^rules option player_counts=.*from 2 to 7$"):
        rules("setback", player_counts=counts)


def test_player_counts_are_not_part_of_records_or_policy_cards():
    assert "player_counts" not in rules("auction").as_dict()
    assert "player_counts" not in game_record(Game("auction", seed=0))["rules"]
    assert rules(rules("auction", num_players=6, player_counts=(6,))).player_counts == (6,)  # kept by a copy


def test_most_points_a_hand_gives_is_the_sum_of_what_can_be_awarded():
    # four_point: High, Low, Jack and Game, one point each
    assert SCHEMES["four_point"].max_hand_points == 4
    assert sum(a["value"] for a in last_hand(play_d1())["awards"]) == 4  # all four were awarded
    # ten_point: A J off-jack BJ LJ T 3 2 of trump: 1+1+1+1+1+1+3+1
    r = rules("ten_point")
    assert sum(v for _, v in scheme(r).point_cards(r, trump_table(2, r.deck, r.off_jack))) == 10
    assert SCHEMES["ten_point"].max_hand_points == r.max_hand_points == 10


def test_point_card_schemes_award_only_captured_trump_point_cards():
    assert scheme(rules("ten_point")).point_cards and not scheme(rules("setback")).point_cards
    hand = last_hand(play_seven_trumps())  # hearts are trump
    assert {a["point"] for a in hand["awards"]} == {"card"}
    assert set(card_awards(hand)) <= {"AH", "JH", "JD", "BJ", "LJ", "TH", "3H", "2H"}


def test_a_scoring_scheme_not_in_the_table_is_refused_naming_the_table():
    with pytest.raises(ValueError, match=r"scoring='nine_point'.*'four_point', 'ten_point'"):
        rules("setback", scoring="nine_point")
