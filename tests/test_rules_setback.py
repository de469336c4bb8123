"""docs/rules.md §1 (common ground) and §3 (``setback``: Pitch / Setback), one test per rule.

Hands are written seat by seat (seat 0 first); seat 0 deals the first hand, so the auction
opens at seat 1. With 4 players the sides are {0, 2} and {1, 3}.
"""

import random

import pytest

from pitch_env import Game, IllegalActionError, card_name, game_record, parse_card, rules
from pitch_env.cards import GAME_POINTS
from pitch_env.scoring import game_winner

from conftest import act, awards, bids, deal, game, last_hand, legal, play_out, plays, tricks

# ---------------------------------------------------------------------------------------
# A 4-player partnership hand used by several scoring tests. Seat 0 bids 2 and pitches AH.
#   High AH and Low 2H are dealt to seat 0; the jack JH to seat 2 (seat 0's partner),
#   but seat 1 captures both 2H and JH with KH in trick 2. Game: side 1 16, side 0 14.
HAND_D1 = deal(
    "AH 2H QS 4C 5C 6C",  # seat 0 (dealer, pitcher)
    "KH 3D 4D 5D 6D 7D",  # seat 1
    "JH TS 2S 7C 8C 9C",  # seat 2
    "3H TC 3S 4S 5S 6S",  # seat 3
)
TRICKS_D1 = (
    "AH 3D 7C TC",  # seat 0 leads, trump is hearts; seat 0 wins: AH 4 + TC 10 game points
    "2H KH JH 3S",  # seat 1 wins with KH, capturing the low 2H and the jack JH
    "4D 8C 4S QS",  # seat 1 wins (only diamond, no trump): QS 2
    "5D 9C 5S 4C",  # seat 1
    "6D TS 6S 5C",  # seat 1: TS 10
    "7D 2S 3H 6C",  # seat 3 wins with the trump 3H
)


def play_d1(**options) -> Game:
    g = game("setback", HAND_D1, **options)
    bids(g, "pass", "pass", "pass", "2")
    return tricks(g, *TRICKS_D1)


# ======================================================================= §1 common ground
def test_seats_are_clockwise_and_the_auction_opens_left_of_the_dealer():
    g = game("setback", HAND_D1)
    assert g.dealer == 0
    seen = []
    for _ in range(4):
        seen.append(g.current_seat)
        act(g, "pass")
    assert seen == [1, 2, 3, 0]


def test_partners_sit_alternately():
    assert rules("setback").sides == ((0, 2), (1, 3))
    assert rules("auction", num_players=6, partnerships=True).sides == ((0, 2, 4), (1, 3, 5))
    assert rules("auction", num_players=5).sides == ((0,), (1,), (2,), (3,), (4,))
    assert rules("setback", num_players=3).sides == ((0,), (1,), (2,))


def test_points_bids_and_scores_belong_to_sides():
    record = game_record(play_d1())
    assert record["sides"] == [[0, 2], [1, 3]]
    jack = awards(record["hands"][0])["jack"]
    assert (jack["seat"], jack["side"]) == (1, 1)
    assert len(record["final_scores"]) == 2


def test_seat_0_deals_the_first_hand_unless_asked_otherwise():
    assert Game("setback", seed=1).dealer == 0
    g = Game("setback", seed=1, first_dealer=2)
    assert (g.dealer, g.current_seat) == (2, 3)


def test_random_first_dealer_comes_from_the_seed():
    dealers = {Game("auction", seed=s, first_dealer="random").dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Game("auction", seed=7, first_dealer="random").dealer == Game("auction", seed=7, first_dealer="random").dealer


def test_the_deal_passes_left_after_every_hand_including_a_thrown_in_hand():
    g = game("setback", HAND_D1, HAND_D1, HAND_D1)
    bids(g, "pass", "pass", "pass", "pass")  # thrown in
    assert (g.hand_number, g.dealer, g.current_seat) == (2, 1, 2)
    bids(g, "pass", "pass", "pass", "pass")  # thrown in again
    assert (g.hand_number, g.dealer, g.current_seat) == (3, 2, 3)
    assert [h["dealer"] for h in game_record(g)["hands"]] == [0, 1, 2]


def test_the_deal_passes_left_after_a_played_hand():
    g = play_d1()
    assert (g.hand_number, g.dealer, g.current_seat) == (2, 1, 2)


def test_same_seed_same_deals():
    a, b = Game("setback", seed=42), Game("setback", seed=42)
    assert a.dealt == b.dealt
    play_out(a), play_out(b)
    assert a.dealt == b.dealt and a.hand_number == 2  # the second hand too
    assert Game("setback", seed=43).dealt != Game("setback", seed=42).dealt


def test_each_hands_deal_depends_only_on_the_seed_not_on_the_play():
    a, b = Game("setback", seed=9), Game("setback", seed=9)
    bids(a, "pass", "pass", "pass", "pass")  # hand 1 thrown in
    bids(b, "pass", "pass", "pass", "1")
    play_out(b)  # hand 1 played out
    assert a.hand_number == b.hand_number == 2 and a.dealt == b.dealt


def test_cards_are_dealt_in_packets_of_three_from_the_dealers_left():
    deck = list(range(52))
    random.Random("pitch:5:1").shuffle(deck)  # the shuffle of seed 5, hand 1
    g = Game("setback", seed=5)
    packets = [deck[i:i + 3] for i in range(0, 24, 3)]
    # seats 1, 2, 3, 0 take a packet each, then again
    assert [list(g.dealt[s]) for s in (1, 2, 3, 0)] == [packets[i] + packets[i + 4] for i in range(4)]


def test_deal_gives_hand_size_cards_to_each_seat_all_different():
    for variant, n in (("setback", 4), ("setback", 2), ("auction", 7), ("ten_point", 4)):
        g = Game(variant, seed=3, num_players=n)
        assert [len(h) for h in g.dealt] == [g.rules.hand_size] * n
        cards = [c for h in g.dealt for c in h] + list(g.stock)
        assert sorted(cards) == list(range(g.rules.deck))


def test_card_notation_is_rank_then_suit():
    for name in ("AS", "TD", "2C", "JH", "BJ", "LJ"):
        assert card_name(parse_card(name)) == name
    assert parse_card("as") == parse_card("AS")
    with pytest.raises(ValueError, match="rank then suit"):
        parse_card("10S")


def test_game_points_are_ace_4_king_3_queen_2_jack_1_ten_10_others_0():
    values = {name: GAME_POINTS[parse_card(name)] for name in "AS KS QS JS TS 9S 5S 2S".split()}
    assert values == {"AS": 4, "KS": 3, "QS": 2, "JS": 1, "TS": 10, "9S": 0, "5S": 0, "2S": 0}


def test_trick_highest_trump_wins_even_against_a_higher_card_of_the_suit_led():
    g = play_d1()
    trick = last_hand(g)["tricks"][5]  # 7D led, 3H is the only trump
    assert trick["plays"] == [[1, "7D"], [2, "2S"], [3, "3H"], [0, "6C"]]
    assert trick["winner"] == 3


def test_trick_without_trump_goes_to_the_highest_card_of_the_suit_led():
    g = play_d1()
    trick = last_hand(g)["tricks"][2]  # 4D led; QS and 8C are higher ranks but not diamonds
    assert trick["plays"] == [[1, "4D"], [2, "8C"], [3, "4S"], [0, "QS"]]
    assert trick["winner"] == 1


def test_trick_winner_leads_the_next_trick():
    hand = last_hand(play_d1())
    for before, after in zip(hand["tricks"], hand["tricks"][1:]):
        assert after["leader"] == before["winner"]


def test_ranks_run_ace_high_to_two_low():
    g = game("setback", HAND_D1)
    bids(g, "pass", "pass", "pass", "2")
    tricks(g, "AH 3D 7C TC", "2H KH JH 3S")  # KH beats JH beats 2H
    assert g.tricks[-1][2] == 1


# ======================================================================= §3.1 the deal
def test_setback_deals_6_cards_to_2_to_4_players_in_partnerships_at_4():
    assert rules("setback").hand_size == 6
    assert rules("setback").partnerships is True
    assert rules("setback", num_players=3).partnerships is False
    assert rules("setback", num_players=4, partnerships=False).num_sides == 4
    for bad in (1, 5):
        with pytest.raises(ValueError, match="num_players"):
            rules("setback", num_players=bad)


# ======================================================================= §3.2 bidding
def test_bidding_each_bid_must_top_the_high_bid():
    g = game("setback", HAND_D1)
    assert legal(g) == {"pass", "bid 1", "bid 2", "bid 3", "bid 4"}
    bids(g, "2")
    assert legal(g) == {"pass", "bid 3", "bid 4"}
    with pytest.raises(IllegalActionError):
        act(g, "bid 2")


def test_bidding_is_one_round_and_the_highest_bid_wins():
    g = game("setback", HAND_D1)
    bids(g, "1", "3", "pass", "pass")
    assert (g.pitcher, g.contract, g.phase_name) == (2, 3, "play")
    assert g.current_seat == 2  # the pitcher leads


def test_setback_dealer_may_not_steal_an_equal_bid():
    g = game("setback", HAND_D1)
    bids(g, "2", "pass", "pass")
    assert legal(g) == {"pass", "bid 3", "bid 4"}


def test_all_pass_redeal_throws_the_hand_in_with_no_score():
    g = game("setback", HAND_D1, target_score=11)
    bids(g, "pass", "pass", "pass", "pass")
    hand = game_record(g)["hands"][0]
    assert hand["bids"] == [{"seat": s, "bid": "pass"} for s in (1, 2, 3, 0)]
    assert (hand["pitcher"], hand["contract"], hand["trump"]) == (None, None, None)
    assert hand["tricks"] == [] and hand["awards"] == []
    assert hand["score_change"] == [0, 0] and hand["scores"] == [0, 0]
    assert g.hand_number == 2 and not g.is_over


# --- shoot = dealer_double (2 players: seat 1 bids first, seat 0 deals)
DOUBLE_MADE = deal("AS KS QS JS TS 2S", "3H 4H 5H 6H 7H 8H")
DOUBLE_FAILED = deal("AS KS QS JS TS 3S", "2S 4H 5H 6H 7H 8H")


def test_dealer_double_only_the_dealer_may_shoot():
    g = game("setback", DOUBLE_MADE, num_players=2, shoot="dealer_double")
    assert "bid shoot" not in legal(g)  # seat 1 is not the dealer
    bids(g, "4")
    assert "bid shoot" in legal(g)  # the dealer may shoot over any bid


def test_dealer_double_made_scores_8():
    g = game("setback", DOUBLE_MADE, num_players=2, shoot="dealer_double")
    bids(g, "pass", "shoot")
    tricks(g, "AS 3H", "KS 4H", "QS 5H", "JS 6H", "TS 7H", "2S 8H")
    hand = last_hand(g)
    assert hand["contract"] == "shoot"
    assert hand["points_won"] == [4, 0] and hand["made"] is True
    assert hand["score_change"] == [8, 0]


def test_dealer_double_failed_scores_minus_8_and_the_others_keep_their_points():
    g = game("setback", DOUBLE_FAILED, num_players=2, shoot="dealer_double")
    bids(g, "pass", "shoot")
    tricks(g, "3S 2S", "AS 4H", "KS 5H", "QS 6H", "JS 7H", "TS 8H")
    hand = last_hand(g)
    assert awards(hand)["low"]["seat"] == 1  # seat 1 was dealt 2S, the lowest trump
    assert hand["points_won"] == [3, 1] and hand["made"] is False
    assert hand["score_change"] == [-8, 1]
    assert hand["scores"] == [-8, 1]


# ======================================================================= §3.3 the pitch
def test_pitcher_leads_any_card_and_its_suit_becomes_trump():
    g = game("setback", HAND_D1)
    bids(g, "pass", "pass", "pass", "2")
    assert g.current_seat == 0
    assert legal(g) == plays("AH", "2H", "QS", "4C", "5C", "6C")
    assert g.trump is None
    act(g, "play QS")
    assert game_record(g)["hands"][0]["trump"] == "S"


# ======================================================================= §3.4 no follow-suit
NO_FOLLOW = deal(
    "2C 3C 4C 5C 6C 7C",  # seat 0
    "AS KS QS 2H 3H 4H",  # seat 1 bids 2 and pitches AS: spades are trump
    "8C 9C TC 5S 6H 7H",  # seat 2 holds spades and hearts
    "JC QC KC AC 8H 9H",  # seat 3
)


def test_no_follow_suit_any_card_may_be_played_even_while_holding_the_suit_led():
    g = game("setback", NO_FOLLOW)
    bids(g, "2", "pass", "pass", "pass")
    act(g, "play AS")
    # Seat 2 holds the trump 5S (the suit led) yet may play anything: it discards 6H.
    assert legal(g) == plays("8C", "9C", "TC", "5S", "6H", "7H")
    tricks(g, "6H 8H 2C")
    assert g.tricks[0][2] == 1
    # Seat 1 leads 2H; seat 2 holds 7H but trumps in with 5S and wins.
    act(g, "play 2H")
    assert "play 5S" in legal(g) and "play 8C" in legal(g)
    tricks(g, "5S 9H 3C")
    assert g.tricks[1] == (1, ((1, parse_card("2H")), (2, parse_card("5S")), (3, parse_card("9H")),
                               (0, parse_card("3C"))), 2)


# ======================================================================= §3.5 scoring
def test_high_goes_to_the_holder_of_the_highest_trump_dealt():
    high = awards(last_hand(play_d1()))["high"]
    assert high == {"point": "high", "card": "AH", "seat": 0, "side": 0, "value": 1}


def test_low_goes_to_the_holder_of_the_lowest_trump_dealt():
    low = awards(last_hand(play_d1()))["low"]
    # 2H was dealt to seat 0, and captured by seat 1: with low_to=holder seat 0 scores it.
    assert low == {"point": "low", "card": "2H", "seat": 0, "side": 0, "value": 1}


def test_low_to_capturer_gives_low_to_whoever_wins_its_trick():
    low = awards(last_hand(play_d1(low_to="capturer")))["low"]
    assert low == {"point": "low", "card": "2H", "seat": 1, "side": 1, "value": 1}


def test_jack_goes_to_whoever_wins_the_trick_containing_it():
    jack = awards(last_hand(play_d1()))["jack"]
    # JH was dealt to seat 2 (side 0) but seat 1 won it with KH.
    assert jack == {"point": "jack", "card": "JH", "seat": 1, "side": 1, "value": 1}


def test_game_goes_to_the_side_with_the_most_game_points():
    hand = last_hand(play_d1())
    assert hand["game_points"] == [14, 16]  # side 0: AH+TC; side 1: KH+JH+QS+TS
    assert awards(hand)["game"] == {"point": "game", "card": None, "seat": None, "side": 1, "value": 1}


# 2 players; spades are trump; the jack of spades is not dealt; game points tie 4-4.
NO_JACK_TIED_GAME = deal("AS 5S 3D 4D 3C 4C", "2S 9S AH 5H 5C 6C")


def test_jack_not_dealt_is_scored_by_nobody_and_a_game_tie_by_nobody():
    g = game("setback", NO_JACK_TIED_GAME, num_players=2)
    bids(g, "pass", "1")
    tricks(g, "AS 2S",   # seat 0: AS 4 game points
              "3D 9S",   # seat 1 trumps
              "AH 3C",   # seat 1: AH 4 game points
              "5H 5S", "4D 5C", "4C 6C")
    hand = last_hand(g)
    assert hand["game_points"] == [4, 4]
    assert sorted(awards(hand)) == ["high", "low"]
    assert hand["points_won"] == [1, 1] and hand["score_change"] == [1, 1]


def test_points_per_hand_total_at_most_four():
    hand = last_hand(play_d1())
    assert sum(a["value"] for a in hand["awards"]) == 4 == sum(hand["points_won"])


# ======================================================================= §3.6 setting back
def test_bidder_who_makes_the_bid_gains_all_points_scored():
    hand = last_hand(play_d1())
    assert hand["points_won"] == [2, 2] and hand["made"] is True
    assert hand["score_change"] == [2, 2]


def test_bidder_short_of_the_bid_is_set_back_by_the_bid_and_gains_nothing():
    hand = last_hand(play_d1(low_to="capturer"))
    assert hand["points_won"] == [1, 3]  # seat 0 bid 2 and won only High
    assert hand["made"] is False
    assert hand["score_change"] == [-2, 3]  # the other side still gains what it scored


def test_scores_may_go_negative():
    g = play_d1(low_to="capturer")
    assert g.scores == [-2, 3]
    assert game_record(g)["hands"][0]["scores"] == [-2, 3]


# ======================================================================= §3.7 end of the game
# 3 players, each a side. Seat 1 pitches; no A K Q J T is dealt, so Game ties at 0.
TIED_AT_TARGET = deal(
    "2H 3S 4S 5S 6S 7S",  # seat 0: Low (2H)
    "5H 6H 2C 3C 4C 5C",  # seat 1: the pitcher, bids 2, wins nothing
    "9H 6C 7C 8C 2D 3D",  # seat 2: High (9H)
)
# Seat 1 bids 1 and wins High (AH); seat 0 wins Low (2H) and Game (TS).
BIDDER_OUT = deal("2H TS 3S 4S 5S 6S", "AH 3C 4C 5C 6C 7C", "8C 9C 2D 3D 4D 5D")


def test_a_side_at_or_above_the_target_wins():
    g = play_d1(low_to="capturer", target_score=3)
    assert g.scores == [-2, 3]
    assert g.is_over and g.winner == 1  # side 1 alone reached 3 (it did not bid)
    assert not play_d1(low_to="capturer", target_score=4).is_over


def test_bidder_goes_out_when_several_sides_reach_the_target():
    g = game("setback", BIDDER_OUT, num_players=3, target_score=1)
    bids(g, "1", "pass", "pass")
    tricks(g, "AH 8C 3S",   # seat 1
              "3C 9C 2H",   # seat 0 trumps
              "TS 4C 2D",   # seat 0: TS
              "4S 5C 3D", "5S 6C 4D", "6S 7C 5D")
    hand = last_hand(g)
    assert hand["scores"] == [2, 1, 0]
    assert g.is_over and g.winner == 1  # the bidder, though seat 0 has more


def test_tie_for_highest_at_the_target_plays_another_hand():
    g = game("setback", TIED_AT_TARGET, num_players=3, target_score=1)
    bids(g, "2", "pass", "pass")
    act(g, "play 5H")  # hearts are trump
    play_out(g)
    assert last_hand(g)["scores"] == [1, -2, 1]
    assert not g.is_over and g.winner is None and g.hand_number == 2


def test_highest_score_wins_when_the_bidder_is_not_at_the_target():
    r = rules("setback", num_players=3, target_score=11)
    assert game_winner(r, [12, 11, 9], pitcher=2, moon=None) == 0
    assert game_winner(r, [12, 12, 9], pitcher=2, moon=None) is None
    assert game_winner(r, [10, 12, 11], pitcher=0, moon=None) == 1
    assert game_winner(r, [10, 10, 10], pitcher=0, moon=None) is None


# ======================================================================= common: errors and the end
def test_illegal_action_raises_naming_it_and_the_legal_ones_and_changes_nothing():
    g = game("setback", HAND_D1)
    bids(g, "2")
    before_record, before_legal = game_record(g), list(g.legal_actions())
    with pytest.raises(IllegalActionError) as e:
        act(g, "bid 1")
    assert isinstance(e.value, ValueError)
    message = str(e.value)
    assert "'bid 1'" in message and "seat 2" in message and "pass, bid 3, bid 4" in message
    with pytest.raises(IllegalActionError, match="out of range"):
        g.apply(10_000)
    with pytest.raises(IllegalActionError):
        g.apply(True)  # a bool is not an action index
    with pytest.raises(IllegalActionError):
        g.apply(float(g.legal_actions()[0]))
    with pytest.raises(IllegalActionError, match="apply_name"):
        g.apply("pass")
    assert game_record(g) == before_record and g.legal_actions() == before_legal


def test_playing_a_card_not_held_is_illegal():
    g = game("setback", HAND_D1)
    bids(g, "pass", "pass", "pass", "2")
    with pytest.raises(IllegalActionError, match="'play KH'"):
        act(g, "play KH")  # seat 1's card, seat 0 to play


def test_no_action_is_accepted_after_the_game_is_over():
    g = play_d1(target_score=2)
    assert g.is_over and g.winner == 0  # both sides at 2: bidder goes out
    assert g.legal_actions() == [] and g.current_seat is None
    record = game_record(g)
    with pytest.raises(IllegalActionError, match="game is over"):
        g.apply(0)
    assert game_record(g) == record


def test_game_truncated_at_max_hands_has_no_winner():
    g = game("setback", HAND_D1, max_hands=1)
    bids(g, "pass", "pass", "pass", "pass")  # a thrown-in hand counts toward max_hands
    record = game_record(g)
    assert g.is_over and record["truncated"] is True and record["winner"] is None
    with pytest.raises(IllegalActionError, match="truncated"):
        g.apply(0)
