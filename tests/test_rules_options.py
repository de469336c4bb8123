"""docs/rules.md §2: the presets' defaults, overrides, and the errors for impossible rule sets.

Every refused option must name itself, the bad value and what is allowed.
"""

import ast
import dataclasses
import re
from pathlib import Path

import pytest

import pitch_env
from pitch_env import Game, game_record, rules

from conftest import bids, deal, game, legal

# The presets as the rules require them: option -> (setback, auction, ten_point), at the default 4
# players. Kept beside the docs' own table on purpose: changing a preset must change both.
TABLE = {
    "num_players": (4, 4, 4),
    "partnerships": (True, False, True),
    "deck": (52, 52, 54),
    "hand_size": (6, 6, 9),
    "min_bid": (1, 1, 4),
    "max_bid": (4, 4, 10),
    "shoot": ("none", "none", "moon"),
    "bid_ends_auction": (None, 4, "shoot"),
    "all_pass": ("redeal", "stick_dealer", "stick_dealer"),
    "stick_min": (1, 2, 4),
    "dealer_may_steal": (False, True, False),
    "trump_by": ("first_lead", "first_lead", "declare"),
    "follow": ("any", "follow_or_trump", "trumps_only"),
    "scoring": ("four_point", "four_point", "ten_point"),
    "low_to": ("holder", "holder", "capturer"),
    "made_scores": ("points_won", "points_won", "bid"),
    "target_score": (11, 7, 52),
    "win_rule": ("first_to_target", "pitcher_only", "first_to_target"),
    "max_hands": (200, 200, 200),
}
# Options this project added where the rule texts are silent (docs/rules.md §2): the same three presets.
PROJECT_OPTIONS = {
    "off_jack": (False, False, True),
    "first_dealer": (0, 0, 0),
    "player_counts": ((2, 3, 4), (2, 3, 4, 5, 6, 7), (4,)),  # the num_players row's ranges
}
VARIANTS = ("setback", "auction", "ten_point")


def test_variants_are_the_three_presets():
    assert pitch_env.variants() == VARIANTS


@pytest.mark.parametrize("option", sorted(TABLE) + sorted(PROJECT_OPTIONS))
def test_preset_defaults_are_the_rules_table(option):
    expected = {**TABLE, **PROJECT_OPTIONS}[option]
    assert tuple(getattr(rules(v), option) for v in VARIANTS) == expected


def test_every_rules_option_is_in_the_table():
    fields = {f.name for f in dataclasses.fields(pitch_env.Rules)} - {"variant"}
    assert fields == set(TABLE) | set(PROJECT_OPTIONS)


RULES_DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def _documented_defaults() -> dict[str, tuple]:
    """docs/rules.md §2's table of preset defaults: option -> (setback, auction, ten_point).

    Each cell is a Python literal in backticks, so the table reads the same to a person and here.
    """
    header = "| option | " + " | ".join(VARIANTS) + " |"
    lines = RULES_DOC.read_text(encoding="utf-8").splitlines()
    assert header in lines, f"docs/rules.md has no table headed {header!r}"
    rows = {}
    for line in lines[lines.index(header) + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 4 and all(re.fullmatch(r"`[^`]+`", c) for c in cells), line
        option, *values = (c.strip("`") for c in cells)
        assert option not in rows, f"docs/rules.md §2 lists {option} twice"
        rows[option] = tuple(ast.literal_eval(v) for v in values)
    return rows


def test_preset_defaults_match_docs_rules_md_as_written():
    documented = _documented_defaults()
    fields = {f.name for f in dataclasses.fields(pitch_env.Rules)} - {"variant"}
    assert set(documented) == fields, "docs/rules.md §2 must list every option of pitch_env.Rules once"
    for option, values in documented.items():
        actual = tuple(getattr(rules(v), option) for v in VARIANTS)
        # type() as well as ==: True == 1 and 52.0 == 52 would hide a wrong cell.
        assert [(type(a), a) for a in actual] == [(type(d), d) for d in values], (
            f"docs/rules.md §2 says {option} defaults to {values} for {VARIANTS}, the presets give {actual}")


# ======================================================================= overrides
def test_overrides_change_only_what_they_name():
    r = rules("auction", num_players=5, target_score=11)
    assert (r.num_players, r.target_score, r.num_sides) == (5, 11, 5)
    base = rules("auction")
    for f in dataclasses.fields(r):
        if f.name not in ("num_players", "target_score"):
            assert getattr(r, f.name) == getattr(base, f.name)


def test_setback_partnerships_default_follows_the_player_count():
    assert rules("setback", num_players=4).partnerships is True
    assert rules("setback", num_players=3).partnerships is False
    assert rules("setback", num_players=4, partnerships=False).num_sides == 4


def test_rules_can_be_built_from_rules_and_game_takes_options():
    r = rules(rules("auction", num_players=6), partnerships=True)
    assert (r.variant, r.num_players, r.num_sides) == ("auction", 6, 2)
    g = Game("auction", seed=1, num_players=5, target_score=11)
    record = game_record(g)
    assert record["variant"] == "auction" and record["rules"]["num_players"] == 5
    assert record["rules"]["target_score"] == 11 and len(record["sides"]) == 5


def test_rules_are_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules("setback").target_score = 21


def test_all_pass_stick_dealer_can_be_chosen_for_setback():
    g = game("setback", deal("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H",
                             "2S 3S 4S 5S 6S 7S"), all_pass="stick_dealer")
    bids(g, "pass", "pass", "pass")
    assert legal(g) == {"bid 1", "bid 2", "bid 3", "bid 4"}


def test_all_pass_redeal_can_be_chosen_for_auction():
    g = game("auction", all_pass="redeal")
    bids(g, "pass", "pass", "pass", "pass")
    assert g.hand_number == 2 and game_record(g)["hands"][0]["pitcher"] is None


def test_a_shoot_closes_a_numeric_closing_bid_too():
    g = game("auction", shoot="moon")  # bid_ends_auction=4, and "shoot" is above 4
    bids(g, "shoot")
    assert g.phase_name == "play" and g.pitcher == 1


# ======================================================================= refused rule sets
REFUSED = [
    # (variant, options, words the message must hold: the option, the bad value, what is allowed)
    ("auction", dict(num_players=5, partnerships=True), ["partnerships", "True", "4 or 6"]),
    ("setback", dict(num_players=3, partnerships=True), ["partnerships", "True", "4 or 6"]),
    ("ten_point", dict(num_players=5), ["num_players", "5", "4"]),
    ("setback", dict(num_players=5), ["num_players", "5", "2, 3, 4"]),
    ("auction", dict(num_players=8), ["num_players", "8", "2, 3, 4, 5, 6, 7"]),
    ("setback", dict(deck=53), ["deck", "53", "52, 54"]),
    ("setback", dict(deck=52.0), ["deck", "52.0", "52, 54"]),
    ("setback", dict(deck=54), ["deck", "54", "trump_by='declare'"]),
    ("setback", dict(shoot="triple"), ["shoot", "'triple'", "'none', 'dealer_double', 'moon'"]),
    ("setback", dict(follow="suit"), ["follow", "'suit'", "'any', 'follow_or_trump', 'trumps_only'"]),
    ("setback", dict(follow="trumps_only"), ["follow", "trumps_only", "trump_by='declare'"]),
    ("setback", dict(low_to="dealer"), ["low_to", "'dealer'", "'holder', 'capturer'"]),
    ("ten_point", dict(low_to="holder"), ["low_to", "holder", "low_to='capturer'"]),
    ("setback", dict(scoring="nine"), ["scoring", "'nine'", "'four_point', 'ten_point'"]),
    ("setback", dict(made_scores="all"), ["made_scores", "'all'", "'points_won', 'bid'"]),
    ("setback", dict(win_rule="first"), ["win_rule", "'first'", "'first_to_target', 'pitcher_only'"]),
    ("setback", dict(all_pass="again"), ["all_pass", "'again'", "'redeal', 'stick_dealer'"]),
    ("setback", dict(trump_by="dealer"), ["trump_by", "'dealer'", "'first_lead', 'declare'"]),
    ("setback", dict(max_bid=5), ["max_bid", "(1, 5)", "max_bid <= 4"]),
    ("ten_point", dict(max_bid=11), ["max_bid", "(4, 11)", "max_bid <= 10"]),
    ("setback", dict(min_bid=3, max_bid=2), ["min_bid", "(3, 2)", "min_bid <= max_bid"]),
    ("setback", dict(min_bid=0), ["min_bid", "(0, 4)", "1 <= min_bid"]),
    ("auction", dict(stick_min=5), ["stick_min", "5", "min_bid=1 and max_bid=4"]),
    ("setback", dict(bid_ends_auction="shoot"), ["bid_ends_auction", "'shoot'", "shoot='none'"]),
    ("setback", dict(bid_ends_auction=7), ["bid_ends_auction", "7", "from 1 to 4"]),
    ("setback", dict(num_players="4"), ["num_players", "'4'", "integer"]),
    ("setback", dict(hand_size=6.5), ["hand_size", "6.5", "integer"]),
    ("setback", dict(partnerships="yes"), ["partnerships", "'yes'", "True or False"]),
    ("auction", dict(dealer_may_steal=1), ["dealer_may_steal", "1", "True or False"]),
    ("setback", dict(hand_size=14), ["hand_size", "14", "52-card deck"]),
    ("setback", dict(num_players=2, hand_size=14), ["hand_size", "14", "at most 13"]),
    ("setback", dict(hand_size=0), ["hand_size", "0", "must fit"]),
    ("ten_point", dict(hand_size=5), ["hand_size", "5", "refills hands to 6"]),
    ("setback", dict(target_score=0), ["target_score", "0", "at least 1"]),
    ("setback", dict(max_hands=0), ["max_hands", "0", "at least 1"]),
    ("setback", dict(first_dealer=4), ["first_dealer", "4", "from 0 to 3"]),
    ("setback", dict(first_dealer="left"), ["first_dealer", "'left'", "'random'"]),
    ("setback", dict(colour="red"), ["colour", "'red'", "num_players", "target_score"]),
]


@pytest.mark.parametrize("variant, options, words", REFUSED,
                         ids=[f"{v}-{'-'.join(map(str, o.items()))}" for v, o, _ in REFUSED])
def test_impossible_rules_are_refused_naming_option_value_and_what_is_allowed(variant, options, words):
    with pytest.raises(ValueError) as e:
        rules(variant, **options)
    for word in words:
        assert word in str(e.value), f"{word!r} missing from: {e.value}"
    with pytest.raises(ValueError):  # the same through Game
        Game(variant, seed=0, **options)


def test_unknown_variant_names_the_presets():
    with pytest.raises(ValueError, match="'whist'.*setback, auction, ten_point"):
        rules("whist")


def test_a_rules_object_built_by_hand_is_checked_too():
    bad = dataclasses.replace(rules("setback"), num_players=9)
    with pytest.raises(ValueError, match="num_players=9"):
        Game(bad, seed=0)


# ======================================================================= written deals
FOUR_HANDS = ["2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H", "2S 3S 4S 5S 6S 7S"]


@pytest.mark.parametrize("hands, stock, words", [
    (FOUR_HANDS[:3], "", ["4 hands", "got 3"]),
    (FOUR_HANDS[:3] + ["2S 3S 4S 5S 6S"], "", ["seat 3", "5 cards", "deal 6"]),
    (FOUR_HANDS[:3] + ["2S 3S 4S 5S 6S 2C"], "", ["2C twice"]),
    (FOUR_HANDS[:3] + ["2S 3S 4S 5S 6S BJ"], "", ["joker", "52-card"]),
    (FOUR_HANDS[:3] + ["2S 3S 4S 5S 6S 1S"], "", ["'1S'", "rank then suit"]),
    (FOUR_HANDS, "8S 9S", ["stock", "lacks", "AS"]),
])
def test_a_written_deal_is_checked_card_by_card(hands, stock, words):
    with pytest.raises(ValueError) as e:
        Game("setback", seed=0, deals=[{"deal": hands, "stock": stock.split()}])
    for word in words:
        assert word in str(e.value), f"{word!r} missing from: {e.value}"


def test_a_written_deal_accepts_strings_lists_tuples_and_card_ints():
    a = Game("setback", seed=0, deals=[FOUR_HANDS])
    b = Game("setback", seed=0, deals=[[tuple(h.split()) for h in FOUR_HANDS]])
    c = Game("setback", seed=0, deals=[[list(a.dealt[s]) for s in range(4)]])
    assert a.dealt == b.dealt == c.dealt
    assert sorted(a.stock) == sorted(set(range(52)) - {x for h in a.dealt for x in h})
