"""docs/rules.md §4 (``auction``: Auction Pitch), one test per rule.

Hands are written seat by seat (seat 0 first); seat 0 deals the first hand, so the auction
opens at seat 1. Every seat plays for itself unless a test says otherwise.
"""

import pytest

from pitch_env import IllegalActionError, game_record, rules

from conftest import act, awards, bids, deal, game, last_hand, legal, play_out, plays, tricks

FOUR = deal(
    "2H 3H QS KS 7D 8D",  # seat 0 (dealer)
    "AH 2S 3D 4C 5C 6C",  # seat 1
    "KH 6S 2C 3C 4D 5D",  # seat 2
    "7C 8C 9C TD JD QD",  # seat 3
)


# ======================================================================= §4.1 players
def test_auction_is_3_to_7_players_each_for_themselves_2_allowed():
    for n in range(2, 8):
        r = rules("auction", num_players=n)
        assert r.partnerships is False and r.num_sides == n and r.hand_size == 6
    for bad in (1, 8):
        with pytest.raises(ValueError, match="num_players"):
            rules("auction", num_players=bad)


def test_auction_partnerships_allowed_at_4_and_6_only():
    assert rules("auction", partnerships=True).sides == ((0, 2), (1, 3))
    assert rules("auction", num_players=6, partnerships=True).num_sides == 2
    with pytest.raises(ValueError, match="partnerships"):
        rules("auction", num_players=5, partnerships=True)


# ======================================================================= §4.2 bidding
def test_bids_run_one_round_from_the_dealers_left_each_higher_than_the_last():
    g = game("auction", FOUR)
    assert g.current_seat == 1 and legal(g) == {"pass", "bid 1", "bid 2", "bid 3", "bid 4"}
    bids(g, "1")
    assert g.current_seat == 2 and legal(g) == {"pass", "bid 2", "bid 3", "bid 4"}
    bids(g, "3")
    assert legal(g) == {"pass", "bid 4"}
    bids(g, "pass", "pass")
    assert (g.pitcher, g.contract, g.phase_name) == (2, 3, "play")


def test_a_bid_of_4_pitches_and_closes_the_auction_at_once():
    g = game("auction", FOUR)
    bids(g, "4")
    assert g.phase_name == "play" and g.pitcher == 1 and g.current_seat == 1
    assert game_record(g)["hands"][0]["bids"] == [{"seat": 1, "bid": "4"}]
    act(g, "play AH")  # the pitched card leads and sets trump
    assert game_record(g)["hands"][0]["trump"] == "H"


def test_stuck_dealer_must_bid_at_least_2_when_nobody_bid():
    g = game("auction", FOUR)
    bids(g, "pass", "pass", "pass")
    assert g.current_seat == 0
    assert legal(g) == {"bid 2", "bid 3", "bid 4"}  # no pass, no 1
    with pytest.raises(IllegalActionError):
        act(g, "pass")
    bids(g, "2")
    assert (g.pitcher, g.contract) == (0, 2)


def test_dealer_may_steal_by_bidding_the_high_bid():
    g = game("auction", FOUR)
    bids(g, "2", "pass", "pass")
    assert legal(g) == {"pass", "bid 2", "bid 3", "bid 4"}  # steal, raise, or pass
    bids(g, "2")
    assert (g.pitcher, g.contract) == (0, 2)
    assert game_record(g)["hands"][0]["bids"][-1] == {"seat": 0, "bid": "2"}


def test_dealer_may_also_pass_after_a_bid():
    g = game("auction", FOUR)
    bids(g, "3", "pass", "pass", "pass")
    assert (g.pitcher, g.contract) == (1, 3)


def test_only_the_dealer_may_bid_equal_to_the_high_bid():
    g = game("auction", FOUR)
    bids(g, "2")
    assert "bid 2" not in legal(g)
    with pytest.raises(IllegalActionError):
        act(g, "bid 2")


# ======================================================================= §4.3-4 pitch and play
def test_pitcher_leads_any_card():
    g = game("auction", FOUR)
    bids(g, "4")
    assert legal(g) == plays("AH", "2S", "3D", "4C", "5C", "6C")


def test_follow_or_trump_when_trump_is_led_a_seat_holding_trump_must_play_one():
    g = game("auction", FOUR)
    bids(g, "4")
    act(g, "play AH")
    assert legal(g) == plays("KH")  # seat 2 holds one trump
    act(g, "play KH")
    assert legal(g) == plays("7C", "8C", "9C", "TD", "JD", "QD")  # seat 3 holds none: free
    act(g, "play 7C")
    assert legal(g) == plays("2H", "3H")  # seat 0 must play a trump


def test_follow_or_trump_a_seat_holding_the_suit_led_follows_or_trumps():
    g = game("auction", FOUR)
    bids(g, "4")
    tricks(g, "AH KH 7C 2H")  # seat 1 wins and leads 2S
    act(g, "play 2S")
    assert legal(g) == plays("6S")  # seat 2: a spade, and no trump left
    act(g, "play 6S")
    assert legal(g) == plays("8C", "9C", "TD", "JD", "QD")  # seat 3 is void in spades: any card
    act(g, "play TD")
    assert legal(g) == plays("3H", "QS", "KS")  # seat 0: follow with a spade or trump, not 7D/8D
    with pytest.raises(IllegalActionError):
        act(g, "play 7D")
    act(g, "play 3H")  # trumping while holding the suit led is allowed
    assert g.tricks[-1][2] == 0


def test_the_observation_shows_each_void_a_seat_revealed_by_neither_following_nor_trumping():
    """The voids piece: what the table reads off the tricks. Seat 3 shows out of hearts (trump) on the
    pitch and of spades on the next lead; seat 0 trumps a spade while holding spades, which shows nothing."""
    from pitch_env.observer import Observer

    def voids(g, seat):  # by relative seat: the set of suits shown out
        ob = Observer(g.rules)
        rows = ob.views(ob.encode(g, seat))["voids"]
        return [{"CDHS"[u] for u in range(4) if row[u]} for row in rows]

    g = game("auction", FOUR)
    bids(g, "4")
    tricks(g, "AH KH 7C 2H")
    assert voids(g, 0) == [set(), set(), set(), {"H"}]  # seat 3 is seat 0's third on its left
    act(g, "play 2S")
    act(g, "play 6S")
    act(g, "play TD")
    assert voids(g, 1) == [set(), set(), {"H", "S"}, set()]  # shown at once, in the trick in progress
    act(g, "play 3H")
    assert voids(g, 3) == [{"H", "S"}, set(), set(), set()]  # its own row: every seat reads the same fact
    other = game("setback", FOUR)  # no follow-suit rule: a card off the suit led shows nothing
    bids(other, "4", "pass", "pass", "pass")
    tricks(other, "AH KH 7C 2H")
    assert voids(other, 0) == [set()] * 4


# ======================================================================= §4.5 scoring
# 3 players. Seat 1 pitches 2H, the only trump dealt; seats are void in each other's suits.
GAME_PER_PLAYER = deal(
    "AD KD 2D 3D 4D 5D",  # seat 0 (dealer)
    "2H TC 6S 2C 3C 4C",  # seat 1, bids 2
    "AS QS QD 9S 8S 7S",  # seat 2
)


def play_game_per_player():
    g = game("auction", GAME_PER_PLAYER, num_players=3)
    bids(g, "2", "pass", "pass")
    return tricks(g,
                  "2H 7S 2D",   # seat 1 (the only trump)
                  "TC 8S 3D",   # seat 1: TC 10
                  "6S AS 4D",   # seat 2 follows with AS: 4
                  "QS 5D 2C",   # seat 2: QS 2
                  "QD AD 3C",   # seat 0 follows with AD: QD 2 + AD 4
                  "KD 4C 9S")   # seat 0: KD 3


def test_game_point_goes_to_the_player_with_more_than_any_other_no_majority_needed():
    hand = last_hand(play_game_per_player())
    assert hand["game_points"] == [9, 10, 6]  # 10 of 25 is no majority, but the most
    assert awards(hand)["game"]["side"] == 1


def test_one_trump_in_play_is_both_high_and_low_for_2_points():
    hand = last_hand(play_game_per_player())
    a = awards(hand)
    assert a["high"]["card"] == a["low"]["card"] == "2H"
    assert a["high"]["seat"] == a["low"]["seat"] == 1
    assert sum(x["value"] for x in hand["awards"] if x["card"] == "2H") == 2


def test_one_trump_in_play_that_is_the_jack_scores_3_points():
    g = game("auction", deal(
        "2C 3C 4C 5C 6C 7C",   # seat 0
        "JH AS KS QS JS TS",   # seat 1: the jack of hearts is the only heart dealt
        "2D 3D 4D 5D 6D 7D",   # seat 2
        "8C 9C TC JC QC KC",   # seat 3
    ))
    bids(g, "4")
    act(g, "play JH")
    play_out(g)
    hand = last_hand(g)
    on_jack = [x for x in hand["awards"] if x["card"] == "JH"]
    assert sorted(x["point"] for x in on_jack) == ["high", "jack", "low"]
    assert all(x["seat"] == 1 for x in on_jack) and sum(x["value"] for x in on_jack) == 3


def test_low_goes_to_the_player_dealt_it_by_default():
    assert rules("auction").low_to == "holder"
    g = game("auction", FOUR)
    bids(g, "4")
    tricks(g, "AH KH 7C 2H")  # seat 0's 2H (the lowest trump) falls to seat 1
    play_out(g)
    assert awards(last_hand(g))["low"]["seat"] == 0


def test_low_to_capturer_reads_the_seed_as_winning_the_low_trump():
    g = game("auction", FOUR, low_to="capturer")
    bids(g, "4")
    tricks(g, "AH KH 7C 2H")
    play_out(g)
    assert awards(last_hand(g))["low"]["seat"] == 1


# ======================================================================= §4.6 setting back
def test_pitcher_who_makes_the_bid_gains_all_points_won():
    hand = last_hand(play_game_per_player())
    assert hand["points_won"] == [0, 3, 0] and hand["made"] is True
    assert hand["score_change"] == [0, 3, 0]  # 3 points won on a bid of 2


# Seat 1 pitches 2; seat 2 holds AH and 2H (High, Low) and so wins Game too (AH is the only honour).
SET_HAND = deal("3D 4D 5D 6D 7D 8D", "5H 6H 2C 3C 4C 5C", "AH 2H 6C 7C 8C 2D")


def test_pitcher_who_fails_loses_the_bid_and_the_others_gain_what_they_won():
    g = game("auction", SET_HAND, num_players=3)
    bids(g, "2", "pass", "pass")
    act(g, "play 5H")
    play_out(g)
    hand = last_hand(g)
    assert hand["points_won"] == [0, 0, 3] and hand["made"] is False
    assert hand["score_change"] == [0, -2, 3]


# ======================================================================= §4.7 end of the game
# Hand 2 (seat 1 deals): seat 0 bids 2 and takes High and Low with 9S and 2S; no honours dealt.
PITCHER_WINS = deal("9S 2S 3C 4C 5C 6C", "2D 3D 4D 5D 6D 7D", "7C 8C 9C 8D 9D 2H")


def play_pitcher_only(**options):
    g = game("auction", SET_HAND, PITCHER_WINS, num_players=3, target_score=2, **options)
    bids(g, "2", "pass", "pass")
    act(g, "play 5H")
    play_out(g)
    return g


def test_pitcher_only_a_non_pitcher_above_the_target_has_not_won():
    g = play_pitcher_only()
    assert g.scores == [0, -2, 3]  # seat 2 is above the target of 2, but was not the pitcher
    assert not g.is_over and g.hand_number == 2


def test_pitcher_only_the_pitcher_at_the_target_wins_even_with_fewer_points():
    g = play_pitcher_only()
    bids(g, "pass", "2", "pass")  # seat 2, seat 0 bids 2, seat 1 (the dealer) passes
    act(g, "play 9S")
    play_out(g)
    assert g.scores == [2, -2, 3]
    assert g.is_over and g.winner == 0  # 2 points beat seat 2's 3: seat 0 was the pitcher


def test_first_to_target_gives_the_usual_rule_instead():
    g = play_pitcher_only(win_rule="first_to_target")
    assert g.is_over and g.winner == 2
