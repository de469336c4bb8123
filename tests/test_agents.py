"""Agents: only legal moves in every preset, never the hidden game, sensible heuristic choices,
and PIMC worlds that agree with the real game."""

import random

import pytest

import pitch_env
from agents import SPEC_FORMS, make
from agents.worlds import sample_hands, void_masks
from pitch_env.cards import cards_in, mask_of, parse_card

from agents.base import turns

PRESETS = ("setback", "auction", "ten_point")
SPECS = ("random", "heuristic", "pimc:2", "pimc:2:1", "split:heuristic+random")


class PoisonedGame:
    """Stands in for env.unwrapped.game while an agent thinks: any use of it fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"an agent read the hidden game (game.{name})")


def play_guarded(env, players, seed):
    """Play one game; each agent acts while env.unwrapped.game is poisoned."""
    raw = env.unwrapped
    env.reset(seed=seed)
    for p in players:
        p.reset(seed=seed)
    for name, obs, info in turns(env):
        # computed now, from the real game: the agent is handed what it may know
        info = dict(info, infoset=dict(info["infoset"]), info_state=raw.info_state(name))
        game, raw.game = raw.game, PoisonedGame()
        try:
            action = players[raw.agent_name_mapping[name]].act(obs, info)
        finally:
            raw.game = game
        assert obs["action_mask"][action], (name, raw.action_name(action), info["infoset"]["legal_actions"])
        env.step(action)  # illegal_action="raise" would fail here too
    return raw.game_record()


@pytest.mark.parametrize("variant", PRESETS)
@pytest.mark.parametrize("spec", SPECS)
def test_agent_plays_only_legal_actions_and_never_reads_the_hidden_game(variant, spec):
    env = pitch_env.env(variant, illegal_action="raise", max_hands=3, infoset=True)
    n = env.unwrapped.rules.num_players
    players = [make(spec, env, seed=s) for s in range(n)]
    for seed in (1, 2):
        record = play_guarded(env, players, seed)
        assert record["hands"], "no hand was played"


def test_agents_keep_to_the_rules_at_other_table_sizes():
    for variant, options in (("auction", dict(num_players=3)), ("auction", dict(num_players=6, partnerships=True)),
                             ("setback", dict(num_players=2)), ("setback", dict(shoot="dealer_double")),
                             ("auction", dict(low_to="capturer", num_players=5))):
        env = pitch_env.env(variant, illegal_action="raise", max_hands=2, infoset=True, **options)
        players = [make(spec, env, seed=1) for spec in ("heuristic", "pimc:1") for _ in range(3)]
        play_guarded(env, players[: env.unwrapped.rules.num_players], seed=3)


def test_random_agent_is_reproducible_from_its_seed():
    env = pitch_env.env("setback")
    a, b = make("random", env, seed=5), make("random", env, seed=5)
    env.reset(seed=1)
    obs, _, _, _, info = env.last()
    assert [a.act(obs, info) for _ in range(20)] == [b.act(obs, info) for _ in range(20)]


def test_unknown_spec_lists_the_valid_forms():
    env = pitch_env.env("setback")
    for bad in ("minimax", "pimc:many", "pimc:0", "pimc:4:x", "pimc:4:-1", "pimc:", "pimc::3", "pimc:12:", "pimc:1:2:3", "heuristic:3", ""):
        with pytest.raises(ValueError) as e:
            make(bad, env)
        assert "pimc:N" in str(e.value) or "pimc:" in str(e.value)
    assert "checkpoint:PATH" in SPEC_FORMS
    searcher = make("pimc:6:3", env)
    assert (searcher.worlds, searcher.bid_worlds, searcher.name) == (6, 3, "pimc:6:3")


@pytest.mark.parametrize("variant", PRESETS)
def test_split_agent_bids_with_its_first_agent_and_plays_every_other_decision_with_its_second(variant):
    from agents.base import SplitAgent
    from pitch_env.engine import BID

    class Recorder:  # the last legal move (the highest bid), noting the phase of every decision it is asked
        name = "recorder"

        def __init__(self):
            self.phases = []

        def reset(self, seed=None):
            pass

        def act(self, obs, info):
            self.phases.append(info["info_state"].phase)
            return int(obs["action_mask"].nonzero()[0][-1])

    env = pitch_env.env(variant, illegal_action="raise", max_hands=2, info_state=True)
    bids, play = Recorder(), Recorder()
    agent = SplitAgent(env, bids, play)
    env.reset(seed=3)
    for _name, obs, info in turns(env):
        env.step(agent.act(obs, info))
    assert bids.phases and set(bids.phases) == {BID}
    assert play.phases and BID not in play.phases
    made = make("split:heuristic+random", env, seed=1)
    assert (made.bids.name, made.play.name, made.name) == ("heuristic", "random", "split:heuristic+random")
    for bad in ("split:heuristic", "split:+random", "split:heuristic+", "split:split:heuristic+random+random",
                "split:minimax+random"):
        with pytest.raises(ValueError) as e:
            make(bad, env)
        assert "split:BIDS+PLAY" in str(e.value) or "minimax" in str(e.value)


# ---------------------------------------------------------------- the heuristic, hand by hand
def decide(variant, deal, actions, seat=None, **options):
    """The heuristic's move after ``actions`` (names) from a written deal."""
    game = pitch_env.Game(variant, seed=0, deals=[deal], **options)
    for a in actions:
        game.apply_name(a)
    env = pitch_env.env(variant, **options)
    agent = make("heuristic", env)
    seat = game.current_seat if seat is None else seat
    info = {"info_state": game.info_state(seat), "legal_actions": game.legal_actions()}
    return game.action_name(agent.act(None, info))


SETBACK_DEAL = ["AS KS 2S 9H 3C 4D", "5C 6C 7C 8D 9D 3H", "TH JS 4C 5D 6D 7H", "8C 9C TC QD KD 2H"]


def test_heuristic_dealer_bids_just_enough_and_pitches_its_top_trump():
    # Seat 0 deals and speaks last holding A K 2 of spades. Where a made bid scores the points won,
    # the cheapest winning bid is as good as any.
    assert decide("setback", SETBACK_DEAL, ["pass", "pass", "pass"]) == "bid 1"
    assert decide("setback", SETBACK_DEAL, ["bid 1", "pass", "pass"]) == "bid 2"
    assert decide("setback", SETBACK_DEAL, ["pass", "pass", "pass", "bid 1"]) == "play AS"


def test_heuristic_does_not_overcall_its_partner_without_a_much_better_hand():
    assert decide("setback", SETBACK_DEAL, ["bid 1", "pass"]) == "pass"  # seat 3, partner of seat 1


def test_heuristic_feeds_its_partners_safe_trick_a_ten():
    # Seat 0 pitches the ace of spades: nobody can beat it, so partner (seat 2) throws the ten.
    assert decide("setback", SETBACK_DEAL, ["pass", "pass", "pass", "bid 1", "play AS", "play 3H"]) == "play TH"


def test_heuristic_takes_an_opponents_jack_when_it_plays_last():
    # Seat 1 pitches the 2 of spades, seat 3 (an opponent of seat 0) drops the jack: seat 0's king
    # is last to play and captures it.
    deal = ["KS 3C 4C 5C 6C 7C", "2S 8C 9C TC QC KC", "7D 8D 9D TD QD KD", "JS 2D 3D 4D 5D 6D"]
    assert decide("setback", deal, ["bid 1", "pass", "pass", "pass", "play 2S", "play 7D", "play JS"]) == "play KS"


def test_heuristic_does_not_overtake_its_partners_winning_trick():
    # Same cards, but the jack is with seat 2, seat 0's partner: its trick is already ours.
    deal = ["KS 3C 4C 5C 6C 7C", "2S 8C 9C TC QC KC", "JS 2D 3D 4D 5D 6D", "7D 8D 9D TD QD KD"]
    assert decide("setback", deal, ["bid 1", "pass", "pass", "pass", "play 2S", "play JS", "play 7D"]) != "play KS"


def test_heuristic_stuck_dealer_bids_the_cheapest_bid_allowed():
    deal = ["2C 3D 4H 5S 7C 8D", "9H TS QC KD 6H 7S", "8C 9D TH JS QD KH", "AC AD AH 2S 3C 4D"]
    # auction: the dealer (seat 0) must bid at least 2 when everybody passed.
    assert decide("auction", deal, ["pass", "pass", "pass"]) == "bid 2"


def test_heuristic_discards_its_least_valuable_trumps_in_ten_point():
    env = pitch_env.env("ten_point", illegal_action="raise")
    agent = make("heuristic", env)
    rng = random.Random(0)
    seen = 0
    for seed in range(60):
        game = pitch_env.Game("ten_point", seed=seed)
        while not game.is_over and game.hand_number == 1:
            if game.phase_name == "discard":
                seat = game.current_seat
                info = {"info_state": game.info_state(seat), "legal_actions": game.legal_actions()}
                card = parse_card(game.action_name(agent.act(None, info)).split()[1])
                table = game.table
                # Never a point card while a trump without points could go.
                from pitch_env.scoring import point_card_values
                point_cards = {c for c, _ in point_card_values(game.rules, table)}
                plain = [c for c in cards_in(game.hands[seat]) if c not in point_cards]
                if plain:
                    assert card in plain and table.strength[card] == min(table.strength[c] for c in plain)
                seen += 1
            game.apply(rng.choice(game.legal_actions()) if game.phase_name != "discard"
                       else game.legal_actions()[0])
    assert seen > 0


# ---------------------------------------------------------------- PIMC worlds
@pytest.mark.parametrize("variant", PRESETS)
def test_a_world_built_from_the_infoset_and_the_true_hands_plays_like_the_real_game(variant):
    rng = random.Random(1)
    checked = 0
    for seed in range(6):
        game = pitch_env.Game(variant, seed=seed)
        while not game.is_over and game.hand_number <= 2:
            if game.phase_name in ("bid", "play") and rng.random() < 0.4:
                seat = game.current_seat
                stock = tuple(game.stock) if game.phase_name == "bid" else ()
                world = pitch_env.Game.from_info_state(game.info_state(seat), list(game.hands), stock)
                assert world.legal_actions() == game.legal_actions()
                real, hand = game.clone(), game.hand_number
                while real.hand_number == hand and not real.is_over:
                    action = rng.choice(real.legal_actions())
                    real.apply(action)
                    world.apply(action)
                assert world.finished[-1].result.awards == real.finished[-1].result.awards
                assert world.scores == real.scores
                checked += 1
            game.apply(rng.choice(game.legal_actions()))
    assert checked > 10


@pytest.mark.parametrize("variant", PRESETS)
def test_sampled_worlds_respect_what_the_seat_knows(variant):
    rng = random.Random(2)
    for seed in range(8):
        game = pitch_env.Game(variant, seed=seed)
        while not game.is_over and game.hand_number <= 2:
            if game.phase_name == "play":
                seat = game.current_seat
                v = game.info_state(seat)
                voids = void_masks(v)
                for s, hand in enumerate(game.hands):  # the real deal satisfies every inference
                    assert not hand & voids[s]
                hands, _ = sample_hands(rng, v, voids)
                assert hands[seat] == game.hands[seat]
                assert [h.bit_count() for h in hands] == [h.bit_count() for h in game.hands]
                for s, h in enumerate(hands):
                    assert not h & (v.played | mask_of(v.discards)), "a played or discarded card was dealt again"
                    if s != seat:
                        assert not h & voids[s] and not h & game.hands[seat]
            game.apply(rng.choice(game.legal_actions()))


def test_a_seat_that_did_not_follow_or_trump_is_known_void():
    # auction (follow_or_trump): seat 0 pitches the ace of spades, which nobody follows, then leads
    # a heart; seat 2 throws a club on it.
    deal = ["AS KS QS 2H 3H 4H", "5H 6H 7H 8H 9H TH", "2C 3C 4C 5C 6C 7C", "JH QH KH AH 8C 9C"]
    game = pitch_env.Game("auction", seed=0, deals=[deal])
    for a in ["pass", "pass", "pass", "bid 2", "play AS", "play 5H", "play 2C", "play 8C", "play 2H", "play 6H",
              "play 3C"]:
        game.apply_name(a)
    voids = void_masks(game.info_state(3))
    hearts = {parse_card(c) for c in "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH".split()}
    spades = {parse_card(c) for c in "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS".split()}
    spade_mask = sum(1 << c for c in spades)
    assert all(voids[2] >> c & 1 for c in hearts | spades)  # no trump on the trump lead, no heart now
    assert voids[1] == spade_mask  # no trump on the trump lead; then it followed hearts
    assert voids[3] == spade_mask


def test_the_ten_point_estimate_values_a_guarded_jack_and_the_boss_ace():
    from agents.bidding import expected_points

    rules = pitch_env.rules("ten_point")
    hand = lambda text: mask_of(parse_card(c) for c in text.split())  # noqa: E731
    hearts = 2  # C D H S
    # A jack under A K Q held elsewhere is often caught; holding the K Q too keeps it safe. The ace
    # of trump is the boss: holding it counts its point whole, worth more than a low trump.
    bare = expected_points(rules, hand("AH JH 4C 5C 6D 7D 8S 9S 2C"), hearts)
    guarded = expected_points(rules, hand("AH KH QH JH 5C 6D 7D 8S 9S"), hearts)
    assert guarded > bare
    ace_only = expected_points(rules, hand("AH 4C 5C 6D 7D 8S 9S 2C 3D"), hearts)
    none = expected_points(rules, hand("4H 4C 5C 6D 7D 8S 9S 2C 3D"), hearts)
    assert ace_only > none


# ---------------------------------------------------------------- agents act on what they are given
def _play_on(env, agent, seed, opponents="heuristic"):
    """One game of ``env``, ``agent`` at every seat; returns its moves (all checked legal by the env)."""
    env.reset(seed=seed)
    agent.reset(seed)
    moves = 0
    for name, obs, info in turns(env):
        action = agent.act(obs, info)
        assert obs["action_mask"][action], (name, env.unwrapped.action_name(action))
        env.step(action)
        moves += 1
    return moves


@pytest.mark.parametrize("spec", ["random", "heuristic", "pimc:2", "checkpoint:checkpoints/setback"])
def test_an_agent_made_on_one_env_plays_another_of_the_same_rules_from_what_it_is_given(spec):
    made_on = pitch_env.env("setback")
    made_on.reset(seed=5)  # a game of its own, which the agent must not read
    agent = make(spec, made_on, seed=1)
    other = pitch_env.env("setback", illegal_action="raise", info_state=True)
    assert _play_on(other, agent, seed=8) > 20


@pytest.mark.parametrize("spec", ["heuristic", "pimc:2"])
def test_an_agent_given_another_envs_observation_without_its_knowledge_refuses_in_one_line(spec):
    made_on = pitch_env.env("setback")
    made_on.reset(seed=5)
    agent = make(spec, made_on)
    other = pitch_env.env("setback")
    other.reset(seed=8)
    obs, _, _, _, info = other.last()
    with pytest.raises(ValueError, match="not the current one of the env it was made for.*info_state=True") as e:
        agent.act(obs, info)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("given", [{}, {"info_state": True}], ids=["plain", "with info_state"])
def test_an_agent_given_a_seat_of_other_rules_refuses_in_one_line(given):
    made_on = pitch_env.env("setback")
    made_on.reset(seed=5)
    agent = make("heuristic", made_on)
    other = pitch_env.env("ten_point", **given)
    other.reset(seed=8)
    obs, _, _, _, info = other.last()
    with pytest.raises(ValueError, match="made for .*setback.*rules") as e:
        agent.act(obs, info)
    assert "\n" not in str(e.value)


def test_an_agent_made_before_its_env_is_reset_plays_once_it_is_and_refuses_before():
    made_on = pitch_env.env("setback", illegal_action="raise", max_hands=2)
    agent = make("heuristic", made_on)
    other = pitch_env.env("setback")
    other.reset(seed=8)
    obs, _, _, _, info = other.last()
    with pytest.raises(ValueError, match="never reset") as e:
        agent.act(obs, info)
    assert "\n" not in str(e.value)
    assert _play_on(made_on, agent, seed=3) > 10
