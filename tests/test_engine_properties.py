"""Properties of the engine over random games of every preset, player count and partnership
setting (and random legal option overrides), checked by the independent referee in
``bench/invariants.py``. Games are kept short with ``max_hands`` so the file runs in seconds.
"""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pitch_env import Game, IllegalActionError, game_record, replay, rules
from pitch_env.infoset import infoset
from pitch_env.scoring import SCHEMES

from bench.invariants import (
    allowed_plays, check_cards, check_hand_sizes, check_legal_bids, check_legal_plays, check_record,
)
from bench.soak import OPTION_CHOICES, configs

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def setups(draw):
    """(variant, options, seed): a configuration, a few hands at most, maybe some overrides."""
    variant, n, partnerships = draw(st.sampled_from(configs()))
    options = {"num_players": n, "partnerships": partnerships, "max_hands": draw(st.integers(1, 8))}
    extra = draw(st.fixed_dictionaries({}, optional={
        k: st.sampled_from(v) for k, v in OPTION_CHOICES.items() if k != "max_hands"}))
    try:
        rules(variant, **options, **extra)
        options.update(extra)
    except ValueError:
        pass  # an impossible mix: play the preset as it is
    return variant, options, draw(st.integers(0, 2**32))


def random_play(variant, options, seed, each_step=None, stop=None) -> Game:
    """A game played by random legal moves, to the end or for ``stop`` moves."""
    g = Game(variant, seed=seed, **options)
    rng = random.Random(seed)
    moves = 0
    while not g.is_over and (stop is None or moves < stop):
        if each_step:
            each_step(g)
        g.apply(rng.choice(g.legal_actions()))
        moves += 1
    return g


@SETTINGS
@given(setups())
def test_every_card_is_in_exactly_one_place_at_every_step(setup):
    g = random_play(*setup, each_step=check_cards)
    check_cards(g)


@SETTINGS
@given(setups())
def test_hand_sizes_are_right_for_the_phase_at_every_step(setup):
    random_play(*setup, each_step=check_hand_sizes)


@SETTINGS
@given(setups())
def test_every_legal_play_and_bid_is_what_the_rules_allow(setup):
    """The engine's legal actions equal the follow rule and auction worked out from the cards."""
    def check(g):
        if g.phase_name == "play":
            check_legal_plays(g)
        elif g.phase_name == "bid":
            check_legal_bids(g)

    random_play(*setup, each_step=check)


@SETTINGS
@given(setups())
def test_every_legal_play_follows_the_rule_worked_out_from_the_seats_own_view(setup):
    """What a seat is shown (its infoset: hand, trick, trump) is enough to know its legal plays."""
    def check(g):
        if g.phase_name != "play":
            return
        view = infoset(g, g.current_seat)
        if view["trump"] is None:  # the pitch itself: any card
            expected = set(view["hand"])
        else:
            expected = allowed_plays(view["hand"], [c for _, c in view["trick"]], view["trump"],
                                     {"follow": g.rules.follow, "deck": g.rules.deck, "off_jack": g.rules.off_jack})
        assert {n[5:] for n in view["legal_actions"]} == expected == {n[5:] for n in g.legal_action_names()}

    random_play(*setup, each_step=check)


@SETTINGS
@given(setups())
def test_the_record_passes_the_referee_points_within_bounds_scores_by_the_rules(setup):
    record = game_record(random_play(*setup))
    check_record(record)  # every play legal, every point and score change by docs/rules.md
    top = SCHEMES[record["rules"]["scoring"]].max_hand_points
    for h in record["hands"]:
        assert 0 <= sum(h["points_won"]) <= top
        assert sum(a["value"] for a in h["awards"]) == sum(h["points_won"])


@SETTINGS
@given(setups())
def test_replay_of_the_record_and_of_its_json_gives_the_same_record(setup):
    g = random_play(*setup)
    record = game_record(g)
    assert game_record(replay(record)) == record
    text = json.dumps(record)
    assert game_record(replay(json.loads(text))) == record


@SETTINGS
@given(setups(), st.integers(0, 10_000))
def test_replay_of_a_record_taken_mid_game_reaches_the_same_state(setup, stop):
    variant, options, seed = setup
    g = random_play(*setup, stop=stop)
    record = game_record(g)
    again = replay(record)
    assert game_record(again) == record
    assert (again.legal_actions(), again.current_seat, again.phase) == (g.legal_actions(), g.current_seat, g.phase)


@SETTINGS
@given(setups(), st.integers(0, 300))
def test_changing_the_list_of_legal_actions_changes_nothing_in_the_game(setup, stop):
    g = random_play(*setup, stop=stop)
    legal = g.legal_actions()
    if not legal:
        return
    kept = list(legal)
    legal.clear()
    legal.append(max(kept) + 1)  # an action that was not legal
    assert g.legal_actions() == kept
    with pytest.raises(IllegalActionError):
        g.apply(max(kept) + 1)
    g.apply(kept[0])


@SETTINGS
@given(setups(), st.integers(0, 300))
def test_playing_on_a_clone_leaves_the_original_unchanged(setup, stop):
    variant, options, seed = setup
    g = random_play(*setup, stop=stop)
    record, legal, seat = game_record(g), list(g.legal_actions()), g.current_seat
    c = g.clone()
    assert game_record(c) == record and c.legal_actions() == legal
    other = random.Random(seed + 1)
    while not c.is_over:
        c.apply(other.choice(c.legal_actions()))
    assert game_record(g) == record and g.legal_actions() == legal and g.current_seat == seat
    check_cards(g)
    # The original plays on as if the clone had never been made.
    tail = random.Random(seed + 2)
    d = g.clone()
    while not g.is_over:
        action = tail.choice(g.legal_actions())
        g.apply(action)
        d.apply(action)
    assert game_record(d) == game_record(g)


@SETTINGS
@given(setups())
def test_same_seed_same_game(setup):
    a, b = random_play(*setup), random_play(*setup)
    assert game_record(a) == game_record(b)


@given(st.integers(0, (1 << 54) - 1))
def test_cards_in_lists_every_set_bit_lowest_first(mask):
    from pitch_env.cards import cards_in, mask_of

    cards = cards_in(mask)
    assert cards == [c for c in range(54) if mask >> c & 1]
    assert mask_of(cards) == mask
