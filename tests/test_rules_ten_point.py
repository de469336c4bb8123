"""docs/rules.md §5 (``ten_point``: 10 Point Pitch), one test per rule.

Hands are written seat by seat (seat 0 first) with the stock top first; seat 0 deals the
first hand, so the auction opens at seat 1 and the stock is drawn from seat 1 on.
Partners: {0, 2} and {1, 3}. Trump is hearts unless a test says otherwise, so the trumps
are AH KH QH JH, JD (the off-jack), BJ LJ, TH 9H … 2H.
"""

import pytest

from pitch_env import IllegalActionError, game_record, rules
from pitch_env.cards import card_name, parse_card, trump_table
from pitch_env.infoset import infoset
from pitch_env.scoring import game_winner, point_card_values

from conftest import DECK_54, act, bids, card_awards, deal, game, last_hand, legal, plays, tricks

# ---------------------------------------------------------------------------------------
# A: nobody bids, the dealer (seat 0) is stuck at 4 and names hearts holding none.
#    Seats 1-3 hold one trump each, so they need 5+5+5 and the dealer 6: the 18-card stock
#    runs out and seat 0 draws only the last 3 (spades, thrown away). Seat 0 sits out.
STUCK = deal(
    "AD 2S 3S 4S 5S 6S 7S 8S 9S",  # seat 0 (dealer)
    "AH 2C 3C 4C 5C 6C 7C 8C 9C",  # seat 1
    "KH TC JC QC KC AC 2D 3D 4D",  # seat 2
    "2H 5D 6D 7D 8D 9D TD QD KD",  # seat 3
    stock="QH JH JD BJ LJ  TH 9H 8H 7H 6H  5H 4H 3H AS KS  QS JS TS",
)
STUCK_TRICKS = (
    "LJ TH 2H",  # seat 1 leads: LJ beats TH
    "BJ 9H 3H",  # seat 1: BJ beats 9H
    "JD KH 4H",  # seat 2: KH beats the off-jack
    "6H 5H JH",  # seat 1; seat 3 has played its last trump
    "QH 7H",     # seat 1; seat 3 sits out
    "AH 8H",     # seat 1
)


def stuck_game(**options):
    g = game("ten_point", STUCK, **options)
    bids(g, "pass", "pass", "pass", "4")
    return act(g, "trump H")


# B: seat 1 bids 7 holding seven trumps; seat 3 (its partner) holds six; seats 0 and 2 hold
#    none and draw only spades. Six cards remain (AS KD AD 4H 3H 2H) for the stock decision.
SEVEN_TRUMPS = deal(
    "3D 4D 5D 6D 7D 8D 9D TD QD",  # seat 0 (dealer)
    "AH KH QH JH JD BJ LJ 2C 3C",  # seat 1
    "7C 8C 9C TC JC QC KC AC 2D",  # seat 2
    "TH 9H 8H 7H 6H 5H 4C 5C 6C",  # seat 3
    stock="2S 3S 4S 5S 6S 7S  8S 9S TS JS QS KS  AS KD AD 4H 3H 2H",
)
SEVEN_TRUMPS_TRICKS = ("AH 3H", "JH TH", "JD 4H", "BJ 7H", "LJ 8H", "KH 9H")


def seven_trumps_game(**options):
    g = game("ten_point", SEVEN_TRUMPS, **options)
    bids(g, "7", "pass", "pass", "pass")
    return act(g, "trump H")


def play_seven_trumps(**options):
    """Seat 1 gives the stock to seat 3, discards QH; seat 3 discards 5H 6H and the 2H."""
    g = seven_trumps_game(**options)
    act(g, "stock give", "discard QH", "discard 5H", "discard 6H", "discard 2H")
    return tricks(g, *SEVEN_TRUMPS_TRICKS)


# C: spades are trump (off-jack JC). Seat 2's only trump, AS, wins the first trick, so the
#    next seat to its left with trumps leads; the hand ends after 5 tricks (nobody has a 6th).
SHORT = deal(
    "BJ LJ TS 9S 8S 6D 7D 8D 9D",  # seat 0 (dealer)
    "KS QS 2S 3S 4S 2C 3C 4C 5C",  # seat 1
    "AS 6C 7C 8C 9C TC QC KC AC",  # seat 2
    "JS JC 5S 6S 7S 2D 3D 4D 5D",  # seat 3
    stock="TD  JD QD KD AD 2H  3H  4H  5H 6H 7H 8H 9H TH JH QH KH AH",
)
SHORT_TRICKS = (
    "2S AS 5S 8S",  # seat 2 wins with its only trump: AS 1 + 2S 1 for side 0
    "JS TS KS",     # seat 3 leads for seat 2; seat 1 wins: JS + TS for side 1
    "QS JC BJ",     # seat 1: QS beats the off-jack and the big joker: JC + BJ
    "3S 6S LJ",     # seat 0: LJ beats 6S: LJ 1 + 3S 3
    "9S 4S 7S",     # seat 0; then nobody holds a trump
)


def play_short(bid="5", **options):
    g = game("ten_point", SHORT, **options)
    bids(g, bid, "pass", "pass", "pass")
    act(g, "trump S", "stock keep")
    return tricks(g, *SHORT_TRICKS)


def last_or_current(g):
    """The record of the hand being played (or the last one, once the game is over)."""
    return game_record(g)["hands"][-1]


# ======================================================================= §5.1 deck and players
def test_ten_point_uses_52_cards_and_two_jokers_with_4_players_in_partnerships():
    r = rules("ten_point")
    assert (r.deck, r.num_players, r.partnerships, r.sides) == (54, 4, True, ((0, 2), (1, 3)))
    g = game("ten_point")
    cards = sorted(card_name(c) for h in g.dealt for c in h) + sorted(card_name(c) for c in g.stock)
    assert sorted(cards) == sorted(DECK_54)
    with pytest.raises(ValueError, match="num_players"):
        rules("ten_point", num_players=5)


# ======================================================================= §5.2 trump ranking
def test_trump_ranking_is_ace_king_queen_jack_off_jack_big_joker_little_joker_ten_down_to_two():
    table = trump_table(parse_card("AH") // 13, 54, True)
    high_to_low = [card_name(c) for c in reversed(table.order)]
    assert high_to_low == "AH KH QH JH JD BJ LJ TH 9H 8H 7H 6H 5H 4H 3H 2H".split()
    spades = trump_table(parse_card("AS") // 13, 54, True)
    assert [card_name(c) for c in reversed(spades.order)][:6] == "AS KS QS JS JC BJ".split()


def test_trump_ranking_decides_tricks():
    g = stuck_game()
    tricks(g, *STUCK_TRICKS)
    assert [t["winner"] for t in last_hand(g)["tricks"]] == [1, 1, 2, 1, 1, 1]


def test_off_jack_beats_the_big_joker_and_loses_to_the_queen():
    g = play_short()
    hand = last_hand(g)
    assert hand["tricks"][2]["plays"] == [[1, "QS"], [3, "JC"], [0, "BJ"]]
    assert hand["tricks"][2]["winner"] == 1


def test_off_jack_is_a_trump_for_every_purpose():
    g = stuck_game()
    assert "JD" not in last_or_current(g)["exchange"]["discards"][1]  # kept in the exchange
    assert "play JD" in legal(g)  # playable where only trumps are
    tricks(g, *STUCK_TRICKS)
    assert card_awards(last_hand(g))["JD"] == {"point": "card", "card": "JD", "seat": 2, "side": 0, "value": 1}


def test_off_jack_follows_as_trump_under_follow_or_trump():
    # Trump led: seat 2's JD is its only trump, so it must play it (hearts are trump).
    g = game("auction", deal(
        "2C 3C 4C 5C 6C 7C",   # seat 0
        "AH 2S 3S 4S 5S 6S",   # seat 1 pitches AH
        "JD 2D 3D 8C 9C TC",   # seat 2
        "4D 5D 6D JC QC KC",   # seat 3
    ), off_jack=True)
    bids(g, "4")
    act(g, "play AH")
    assert legal(g) == plays("JD")
    # Diamonds led: seat 0's JD is a trump, not a diamond, so seat 0 is void and plays freely.
    g = game("auction", deal(
        "JD 2C 3C 4C 5C 6C",   # seat 0
        "7D AS 2S 3S 4S 5S",   # seat 1 declares hearts and leads 7D
        "KD 2D 3D 8C 9C TC",   # seat 2
        "4D 5D 6D JC QC KC",   # seat 3
    ), off_jack=True, trump_by="declare")
    bids(g, "4")
    act(g, "trump H", "play 7D")
    assert legal(g) == plays("KD", "2D", "3D")  # seat 2 must follow (it holds no trump)
    act(g, "play KD", "play 4D")
    assert legal(g) == plays("JD", "2C", "3C", "4C", "5C", "6C")
    act(g, "play JD")
    assert g.tricks[-1][2] == 0  # the off-jack trumps the trick


# ======================================================================= §5.3 deal
def test_ten_point_deals_9_cards_each_and_18_form_the_stock():
    g = game("ten_point", seed=11)
    assert [len(h) for h in g.dealt] == [9, 9, 9, 9] and len(g.stock) == 18
    assert len(game_record(g)["hands"][0]["stock"]) == 18


# ======================================================================= §5.4 bidding
def test_bids_are_4_to_10_and_shoot_each_higher_than_the_last():
    g = game("ten_point", SEVEN_TRUMPS)
    assert legal(g) == {"pass", "bid shoot"} | {f"bid {n}" for n in range(4, 11)}
    bids(g, "6")
    assert legal(g) == {"pass", "bid 7", "bid 8", "bid 9", "bid 10", "bid shoot"}


def test_first_three_pass_then_the_dealer_must_bid_at_least_4():
    g = game("ten_point", STUCK)
    bids(g, "pass", "pass", "pass")
    assert g.current_seat == 0
    assert "pass" not in legal(g) and "bid 4" in legal(g) and "bid 3" not in g.layout.index
    with pytest.raises(IllegalActionError):
        act(g, "pass")


def test_bidding_ends_when_the_dealer_has_spoken():
    g = game("ten_point", SEVEN_TRUMPS)
    bids(g, "4", "5", "pass", "6")
    assert (g.pitcher, g.contract, g.phase_name) == (0, 6, "declare")


def test_bidding_ends_at_once_when_someone_shoots():
    g = game("ten_point", SEVEN_TRUMPS)
    bids(g, "shoot")
    assert (g.pitcher, g.phase_name) == (1, "declare")
    assert game_record(g)["hands"][0]["bids"] == [{"seat": 1, "bid": "shoot"}]


# ======================================================================= §5.5 trump
def test_the_pitcher_declares_trump_as_an_action_of_its_own():
    g = game("ten_point", SEVEN_TRUMPS)
    bids(g, "7", "pass", "pass", "pass")
    assert (g.phase_name, g.current_seat) == ("declare", 1)
    assert legal(g) == {"trump C", "trump D", "trump H", "trump S"}
    act(g, "trump H")
    assert last_or_current(g)["trump"] == "H"


# ======================================================================= §5.6 discard and draw
def test_every_seat_discards_its_non_trumps():
    ex = last_or_current(stuck_game())["exchange"]
    assert ex["discards"][1] == "2C 3C 4C 5C 6C 7C 8C 9C".split()
    assert ex["discards"][2][:8] == "TC JC QC KC AC 2D 3D 4D".split()


def test_refill_to_6_from_the_top_of_the_stock_starting_left_of_the_dealer():
    g = stuck_game()
    ex = last_or_current(g)["exchange"]
    assert ex["draws"][1] == "QH JH JD BJ LJ".split()  # seat 1 first: 1 trump + 5
    assert ex["draws"][2] == "TH 9H 8H 7H 6H".split()
    assert ex["draws"][3] == "5H 4H 3H AS KS".split()
    assert sorted(g.hand_cards(1)) == sorted(parse_card(c) for c in "AH QH JH JD BJ LJ".split())


def test_when_the_stock_runs_out_later_seats_get_fewer():
    g = stuck_game()
    ex = last_or_current(g)["exchange"]
    assert ex["draws"][0] == "QS JS TS".split()  # the dealer needed 6 and got the last 3
    assert [len(g.hand_cards(s)) for s in range(4)] == [0, 6, 6, 4]


def test_drawn_non_trumps_are_discarded():
    ex = last_or_current(stuck_game())["exchange"]
    assert ex["discards"][3][-2:] == ["AS", "KS"]
    assert ex["discards"][0][-3:] == ["QS", "JS", "TS"]


def test_no_stock_decision_when_no_cards_remain():
    g = stuck_game()
    assert g.phase_name == "play" and last_or_current(g)["exchange"]["stock_to"] is None


def test_remaining_stock_the_pitcher_decides_keep_or_give():
    g = seven_trumps_game()
    assert (g.phase_name, g.current_seat) == ("stock", 1)
    assert legal(g) == {"stock keep", "stock give"}
    act(g, "stock give")
    ex = last_or_current(g)["exchange"]
    assert ex["stock_to"] == 3 and ex["draws"][3] == "AS KD AD 4H 3H 2H".split()
    assert ex["discards"][3][-3:] == ["AS", "KD", "AD"]  # non-trumps drawn are thrown away


def test_stock_keep_gives_the_rest_to_the_pitcher():
    g = seven_trumps_game()
    act(g, "stock keep")
    ex = last_or_current(g)["exchange"]
    assert ex["stock_to"] == 1 and ex["draws"][1] == "AS KD AD 4H 3H 2H".split()
    assert len(g.hand_cards(1)) == 10 and g.phase_name == "discard" and g.current_seat == 1


def test_seats_over_6_trumps_discard_down_to_6_in_order_from_the_dealers_left():
    g = seven_trumps_game()
    act(g, "stock give")
    # seat 1 (7 trumps) discards first, then seat 3 (9 trumps), one card per action.
    assert (g.phase_name, g.current_seat) == ("discard", 1)
    assert legal(g) == {f"discard {c}" for c in "AH KH QH JH JD BJ LJ".split()}
    act(g, "discard QH")
    assert g.current_seat == 3
    act(g, "discard 5H", "discard 6H")
    assert g.current_seat == 3
    act(g, "discard 2H")
    assert g.phase_name == "play" and g.current_seat == 1
    assert [len(g.hand_cards(s)) for s in range(4)] == [0, 6, 0, 6]


def test_discards_are_seen_only_by_the_seat_that_made_them_draw_counts_are_public():
    g = stuck_game()
    record = last_or_current(g)["exchange"]
    for seat in range(4):
        view = infoset(g, seat)["exchange"]
        assert view["discards"] == record["discards"][seat]  # its own, nobody else's
        assert view["draw_counts"] == [3, 5, 5, 5]


# ======================================================================= §5.7 play
def test_pitcher_holding_no_trump_the_next_seat_to_its_left_with_one_leads():
    g = stuck_game()
    assert g.pitcher == 0 and g.current_seat == 1


def test_only_trumps_are_played_and_any_trump_in_hand_may_be():
    g = stuck_game()
    assert legal(g) == plays("AH", "QH", "JH", "JD", "BJ", "LJ")
    act(g, "play LJ")
    assert legal(g) == plays("KH", "TH", "9H", "8H", "7H", "6H")  # no follow rule among trumps


def test_a_seat_without_trumps_sits_out_the_rest_of_the_hand():
    g = stuck_game()
    tricks(g, *STUCK_TRICKS)
    played = [[s for s, _ in t["plays"]] for t in last_hand(g)["tricks"]]
    assert played == [[1, 2, 3], [1, 2, 3], [1, 2, 3], [2, 3, 1], [1, 2], [1, 2]]


def test_trick_winner_without_trumps_the_next_seat_to_its_left_with_trumps_leads():
    hand = last_hand(play_short())
    assert hand["tricks"][0]["winner"] == 2 and hand["tricks"][1]["leader"] == 3


def test_hand_ends_when_nobody_holds_a_trump():
    hand = last_hand(play_short())
    assert len(hand["tricks"]) == 5


def test_hand_ends_after_6_tricks():
    assert len(last_hand(play_seven_trumps())["tricks"]) == 6


# ======================================================================= §5.8 points
def test_point_cards_are_ace_jack_off_jack_jokers_ten_two_for_1_and_the_three_for_3():
    values = {card_name(c): v for c, v in point_card_values(rules("ten_point"), trump_table(2, 54, True))}
    assert values == {"AH": 1, "JH": 1, "JD": 1, "BJ": 1, "LJ": 1, "TH": 1, "3H": 3, "2H": 1}
    assert sum(values.values()) == 10


def test_points_go_to_whoever_wins_the_trick_containing_the_card():
    hand = last_hand(play_short())
    won = {card: (a["seat"], a["side"], a["value"]) for card, a in card_awards(hand).items()}
    assert won == {"AS": (2, 0, 1), "2S": (2, 0, 1), "JS": (1, 1, 1), "TS": (1, 1, 1),
                   "JC": (1, 1, 1), "BJ": (1, 1, 1), "LJ": (0, 0, 1), "3S": (0, 0, 3)}
    assert hand["points_won"] == [6, 4]


def test_discarded_point_cards_are_scored_by_nobody():
    hand = last_hand(play_seven_trumps())
    assert "2H" in hand["exchange"]["discards"][3]
    assert "2H" not in card_awards(hand) and hand["points_won"] == [0, 9]


# ======================================================================= §5.9 scoring
def test_made_bid_scores_the_bid_not_the_points_won():
    hand = last_hand(play_seven_trumps())
    assert hand["made"] is True and hand["score_change"] == [0, 7]


def test_failed_bid_loses_the_bid_and_the_other_side_gains_its_points():
    g = stuck_game()
    tricks(g, *STUCK_TRICKS)
    hand = last_hand(g)
    assert hand["points_won"] == [1, 9]
    assert hand["made"] is False and hand["score_change"] == [-4, 9] and g.scores == [-4, 9]


def test_other_side_gains_its_points_when_the_bid_is_made():
    hand = last_hand(play_short(bid="4"))
    assert hand["made"] is True and hand["score_change"] == [6, 4]


# Moon hand for hand 2 (seat 1 deals, seat 2 opens): seat 3 shoots with the seven top trumps,
# seat 1 (its partner) holds six more, the last three trumps come with the stock.
MOON_BY_SEAT_3 = deal(
    "7C 8C 9C TC JC QC KC AC 2D",  # seat 0
    "TH 9H 8H 7H 6H 5H 4C 5C 6C",  # seat 1 (dealer), seat 3's partner
    "3D 4D 5D 6D 7D 8D 9D TD QD",  # seat 2
    "AH KH QH JH JD BJ LJ 2C 3C",  # seat 3
    stock="2S 3S 4S 5S 6S 7S  8S 9S TS JS QS KS  AS KD AD 4H 3H 2H",
)


def shoot_by_seat_3(g, partner_discards=("9H", "8H", "7H")):
    bids(g, "pass", "shoot")
    act(g, "trump H", "stock give", "discard QH", *(f"discard {c}" for c in partner_discards))
    return tricks(g, "AH 2H", "KH 3H", "JH 4H", "JD 5H", "BJ 6H", "LJ TH")


def test_shoot_made_with_a_score_above_0_wins_the_game_at_once():
    g = game("ten_point", SEVEN_TRUMPS, MOON_BY_SEAT_3)
    bids(g, "7", "pass", "pass", "pass")
    act(g, "trump H", "stock give", "discard QH", "discard 5H", "discard 6H", "discard 2H")
    tricks(g, *SEVEN_TRUMPS_TRICKS)
    assert g.scores == [0, 7]
    shoot_by_seat_3(g)
    hand = last_hand(g)
    assert hand["contract"] == "shoot" and hand["points_won"] == [0, 10] and hand["made"] is True
    assert g.is_over and g.winner == 1
    assert hand["score_change"] == [0, 0] and g.scores == [0, 7]  # the score itself is unchanged


def test_shoot_made_with_a_score_at_or_below_0_sets_it_to_0():
    g = game("ten_point", SHORT, MOON_BY_SEAT_3)
    bids(g, "5", "pass", "pass", "pass")
    act(g, "trump S", "stock keep")
    tricks(g, *SHORT_TRICKS)
    assert g.scores == [6, -5]
    shoot_by_seat_3(g)
    hand = last_hand(g)
    assert hand["made"] is True and hand["score_change"] == [0, 5]
    assert g.scores == [6, 0] and not g.is_over


def test_shoot_failed_loses_the_game_at_once():
    g = game("ten_point", SEVEN_TRUMPS)
    bids(g, "shoot")  # seat 1
    act(g, "trump H", "stock give", "discard QH", "discard 5H", "discard 6H", "discard 2H")
    tricks(g, *SEVEN_TRUMPS_TRICKS)
    hand = last_hand(g)
    # 9 of the 10 points: the 2H was discarded, so the shot fails.
    assert hand["points_won"] == [0, 9] and hand["made"] is False
    assert g.is_over and g.winner == 0


# ======================================================================= §5.10 end
def test_a_side_at_or_above_52_wins():
    g = play_short(target_score=6)
    assert g.scores == [6, -5] and g.is_over and g.winner == 0


def test_both_sides_at_the_target_the_pitchers_side_wins():
    g = play_short(bid="4", target_score=4)
    assert g.scores == [6, 4]
    assert g.is_over and g.winner == 1  # side 1 pitched: it wins with the lower score
    r = rules("ten_point")
    assert game_winner(r, [55, 53], pitcher=1, moon=None) == 1
    assert game_winner(r, [55, 53], pitcher=0, moon=None) == 0
    assert game_winner(r, [55, 40], pitcher=1, moon=None) == 0
