"""The network-guided search (agents/netpimc.py, agent spec pimcnet:N:PATH) and expert iteration
(train/exit.py): batched rollouts play exactly as the policy plays one decision at a time, the search
keeps to the rules and what its seat knows, recorded decisions are what the network reads, a fit
moves the network toward the search, and a run records, fits, gates, resumes and refuses bad input."""

from __future__ import annotations

import math
import random
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest

import pitch_env
from agents import make
from agents.netpimc import NetRollouts, NetSearch
from agents.worlds import sample_world, void_masks
from pitch_env.actions import ActionLayout
from pitch_env.engine import BID, OVER, Game
from pitch_env.observer import LiveTable, Observer
from pitch_policy import CheckpointError, load_policy
from train import exit as ex
from train.config import ConfigError
from train.runfiles import kind_of

from test_agents import play_guarded

SHIPPED = {"setback": "checkpoints/setback_base", "auction": "checkpoints/auction_base",
           "ten_point": "checkpoints/ten_point_base"}  # the starts the shipped recipes grow from


def one_at_a_time(policy, rules, game: Game, side: int) -> float:
    """The reference playout: the policy's own ``act`` (what ``checkpoint:PATH`` plays), one decision at a
    time, on the observation the real game's seat would get (``rules``: the game's, not the world's,
    which ends after this hand)."""
    from agents.rollout import hand_value, rollout_action

    ob = Observer(rules)
    size = ActionLayout(rules).size
    before, hand = list(game.scores), game.hand_number
    while game.phase != OVER and game.hand_number == hand:
        t = LiveTable(ob)
        t.sync(game)
        mask = np.zeros(size, bool)
        mask[game.legal_actions()] = True
        hint = rollout_action(game) if policy.hint == "heuristic" else None
        game.apply(policy.act(t.observe(game.current_seat), mask, None, hint))
    return hand_value(game, side, before)


@pytest.mark.parametrize("variant", sorted(SHIPPED))
def test_batched_rollouts_play_as_the_policy_plays_one_decision_at_a_time(variant):
    rules = pitch_env.rules(variant)
    policy, _ = load_policy(SHIPPED[variant], rules)
    net = NetRollouts(policy, rules)
    rng = random.Random(3)
    games, sides = [], []
    for seed in range(6):
        g = Game(rules, seed=seed)
        for _ in range(seed * 3):  # worlds built at different points of a hand
            g.apply(rng.choice(g.legal_actions()))
        if g.phase not in (0, 1, 4):
            continue
        v = g.info_state(g.current_seat)
        hands, stock = sample_world(rng, v, void_masks(v))
        w = Game.from_info_state(v, hands, stock)
        games.append(w)
        sides.append(rules.side_of(v.seat))
    assert len(games) >= 3
    expected = [one_at_a_time(policy, rules, g.clone(), s) for g, s in zip(games, sides)]
    assert net.playout([g.clone() for g in games], sides) == expected


def _random_policy(rules, seed: int, hint: str = "none"):
    from pitch_policy import PolicyMLP
    from pitch_policy.inputs import input_size

    rng = np.random.default_rng(seed)
    sizes = [input_size(rules, hint), 32, ActionLayout(rules).size]
    return PolicyMLP([(rng.normal(size=(b, a)).astype(np.float32), rng.normal(size=b).astype(np.float32))
                      for a, b in zip(sizes, sizes[1:])], "relu", hint=hint)


BATCHED_RULES = [  # (variant, options, the shipped policy, or a random network's hint)
    ("setback", {}, SHIPPED["setback"]),
    ("auction", {}, SHIPPED["auction"]),  # reads the heuristic's hint
    ("setback", {"num_players": 3, "trump_by": "declare", "shoot": "moon", "bid_ends_auction": "shoot"}, "none"),
    ("auction", {"num_players": 5, "all_pass": "redeal", "follow": "any", "made_scores": "bid"}, "none"),
    ("setback", {"num_players": 2, "deck": 54, "trump_by": "declare", "shoot": "dealer_double",
                 "low_to": "capturer", "scoring": "ten_point", "target_score": 21}, "heuristic"),
]


@pytest.mark.parametrize("variant,options,policy_or_hint", BATCHED_RULES)
@pytest.mark.parametrize("leaf", ["hand", "game"])
def test_worlds_on_the_batched_engine_score_as_the_reference_engines(variant, options, policy_or_hint, leaf):
    """Every searched decision of random games: the batched engine's worlds (dealt, the hand replayed, all
    worlds and actions stepped together) give the very outcomes of the reference engine's worlds
    (``Game.from_info_state``, played out by ``playout``), same worlds, same network, hand or game leaf."""
    from pitch_policy.game_value import GameValue, feature_size

    rules = pitch_env.rules(variant, **options)
    if policy_or_hint in ("none", "heuristic"):
        policy = _random_policy(rules, len(options), policy_or_hint)
    else:
        policy, _ = load_policy(policy_or_hint, rules)
    value = None
    if leaf == "game":
        rng = np.random.default_rng(1)
        value = GameValue(rules, [(rng.normal(size=(16, feature_size(rules))).astype(np.float32),
                                   np.zeros(16, np.float32)), (rng.normal(size=(1, 16)).astype(np.float32),
                                                               np.zeros(1, np.float32))])
    searches = [NetSearch(policy, rules, 3, random.Random(7), leaf=value, batched=b) for b in (False, True)]
    assert not searches[0].rollouts.batched and searches[1].rollouts.batched
    rng, compared, ended = random.Random(2), 0, 0
    for seed in range(4):
        g = Game(rules, seed=seed)
        while g.phase != OVER and g.hand_number <= 3:
            legal = g.legal_actions()
            v = g.info_state(g.current_seat)
            if len(legal) > 1 and v.phase in (0, 1, 4):
                reference, batched = (s.outcomes(v, legal) for s in searches)
                np.testing.assert_array_equal(batched, reference)
                compared += 1
                ended += int(batched.std() > 0)
            g.apply(rng.choice(legal))
    assert compared >= 40 and ended >= 10  # many decisions, and outcomes that tell actions or worlds apart


@pytest.mark.parametrize("variant,options,policy_or_hint", BATCHED_RULES + [
    ("ten_point", {}, SHIPPED["ten_point"]),  # the stock exchange: copies hold the hidden discards and stock
    ("ten_point", {"num_players": 3, "player_counts": (3, 4), "partnerships": False}, "heuristic")])
def test_copies_of_batched_games_score_each_action_as_the_real_hand_would_have_gone(variant, options, policy_or_hint):
    """``NetRollouts.in_own_cards``: each legal action taken in a copy of a batched engine's game, in its
    own cards, is worth what the reference engine's game makes of it, played on one decision at a time
    by the policy's own ``act`` to the end of the hand."""
    from agents.rollout import hand_value
    from pitch_env.batch import BatchEngine

    rules = pitch_env.rules(variant, **options)
    if policy_or_hint in ("none", "heuristic"):
        policy = _random_policy(rules, len(options), policy_or_hint)
    else:
        policy, _ = load_policy(policy_or_hint, rules)
    net = NetRollouts(policy, rules)  # (``batched`` is how sampled worlds are played; copies are batched always)
    e = BatchEngine(rules, 3)
    seeds = [11, 12, 13]
    e.reset(seeds)
    rng, checked, apart = np.random.default_rng(3), 0, 0
    for _ in range(60):
        rows = np.array([g for g in range(3) if not e.over[g] and e.mask[g].sum() > 1 and rng.random() < 0.4])
        if rows.size:
            game_of, action, value = net.in_own_cards(e, rows)
            assert sorted(set(game_of.tolist())) == sorted(rows.tolist())
            for g, a, v in zip(game_of.tolist(), action.tolist(), value.tolist()):
                deals = [{"deal": hands, "stock": stock} for hands, stock in e.deals(seeds[g], e.first_dealer_of(g), e.hands_of(g))]
                real = Game(rules, seed=seeds[g], deals=deals)
                for done in e.actions_of(g):
                    real.apply(done)
                side, before, hand = rules.side_of(real.current_seat), list(real.scores), real.hand_number
                real.apply(a)
                ended = real.phase == OVER or real.hand_number != hand  # (a thrown-in hand: all passed)
                want = hand_value(real, side, before) if ended else one_at_a_time(policy, rules, real, side)
                assert want == v, (g, a)
            checked += len(rows)
            apart += sum(np.ptp(value[game_of == g]) > 0 for g in rows)
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in e.mask])
        e.step(acts)
        if e.over.any():
            break
    assert checked >= 15 and apart >= 5


def test_stock_games_keep_the_reference_worlds():
    rules = pitch_env.rules("ten_point")
    policy, _ = load_policy(SHIPPED["ten_point"], rules)
    assert not NetRollouts(policy, rules).batched
    with pytest.raises(ValueError, match="stock"):
        NetRollouts(policy, rules, batched=True)


@pytest.mark.parametrize("variant", sorted(SHIPPED))
def test_pimcnet_plays_only_legal_actions_and_never_reads_the_hidden_game(variant):
    env = pitch_env.env(variant, illegal_action="raise", infoset=True)  # a checkpoint loads for its exact rules
    n = env.unwrapped.rules.num_players
    players = [make(f"pimcnet:1:{SHIPPED[variant]}", env, seed=s) for s in range(n)]
    record = play_guarded(env, players, 5)
    assert record["hands"]


def test_pimcnet_spec_errors_name_the_form():
    env = pitch_env.env("setback")
    for bad in ("pimcnet", "pimcnet:4", "pimcnet:x:checkpoints/setback", "pimcnet:0:checkpoints/setback"):
        with pytest.raises(ValueError, match="pimcnet:N:PATH"):
            make(bad, env)
    with pytest.raises(CheckpointError):  # a policy trained for other rules
        make("pimcnet:2:checkpoints/auction", env)
    agent = make("pimcnet:3:checkpoints/setback", env)
    assert agent.name == "pimcnet:3:checkpoints/setback"


def test_the_search_leaves_the_network_only_for_a_clearly_better_action():
    """With one world the paired standard error is infinite: the search always keeps the network's choice.
    With eight it leaves it, here and there, and only for an action whose mean outcome is higher."""
    rules = pitch_env.rules("setback")
    policy, _ = load_policy(SHIPPED["setback"], rules)
    ob, size = Observer(rules), ActionLayout(rules).size
    left = 0
    for worlds in (1, 8):
        search = NetSearch(policy, rules, worlds, random.Random(0))
        game = Game(rules, seed=11)
        while not (worlds == 1 and game.hand_number > 1) and not (worlds == 8 and left >= 2):
            assert game.hand_number <= 4, "eight worlds never overrode the network in three hands"
            v = game.info_state(game.current_seat)
            t = LiveTable(ob)
            t.sync(game)
            mask = np.zeros(size, bool)
            mask[list(v.legal)] = True
            d = search.decide(t.observe(v.seat), mask, v)
            assert d.action in v.legal and d.network in v.legal
            if worlds == 1:
                assert d.action == d.network
            elif len(v.legal) > 1 and v.phase in (0, 1, 4):
                choice, means = search.search(v, list(v.legal), d.network)
                if choice != d.network:
                    left += 1
                    assert means[list(v.legal).index(choice)] > means[list(v.legal).index(d.network)]
            game.apply(d.network)
    assert left >= 2


def test_recorded_decisions_are_what_the_network_reads_and_legal():
    cfg = ex.ExitConfig(worlds=2)
    part = ex.record_part(cfg, SHIPPED["setback"], 60, seed=1)
    rules = cfg.resolved_rules()
    policy, _ = load_policy(SHIPPED["setback"], rules)
    n = len(part["y"])
    assert n == 60 and part["x"].shape == (n, policy.shape[0]) and part["mask"].shape == (n, ActionLayout(rules).size)
    assert part["mask"][np.arange(n), part["y"]].all()
    # the network's own choice on each row: where the search did not override it, it is the label
    z = np.where(part["mask"], policy.logits(part["x"].copy()), -np.inf).argmax(1)
    assert (z[~part["overrode"]] == part["y"][~part["overrode"]]).all()
    assert (z[part["overrode"]] != part["y"][part["overrode"]]).all()
    # the action values, where the network sees its actions: an override is the best of them
    assert (part["q"][~part["mask"]] == 0).all()
    q = np.where(part["mask"], part["q"], -np.inf)
    over = part["overrode"]
    assert over.any() and (q[over].max(1) == q[over, part["y"][over]]).all()
    assert (q[over, part["y"][over]] > q[over, z[over]]).all()  # and worth more than the network's choice


def test_from_trick_searches_and_records_only_the_cards_of_that_trick_and_later(monkeypatch):
    """``from_trick: 3``: every recorded row is a card of the third trick or later (a hand holds one
    card fewer each trick), and the search runs only there: the network alone plays before."""
    from agents.netpimc import NetSearch
    from pitch_env.engine import PLAY

    searched_at, search = [], NetSearch.search
    monkeypatch.setattr(NetSearch, "search", lambda self, v, *a: searched_at.append((v.phase, len(v.tricks) + 1))
                        or search(self, v, *a))
    cfg = ex.ExitConfig(worlds=2, from_trick=3)
    part = ex.record_part(cfg, SHIPPED["setback"], 40, seed=1)
    assert len(searched_at) == 40 and all(phase == PLAY and trick >= 3 for phase, trick in searched_at)
    layout = ActionLayout(cfg.resolved_rules())
    assert len(part["y"]) == 40 and (part["mask"][:, :layout.play_base] == 0).all()  # no bid or trump
    hand = Observer(cfg.resolved_rules()).pieces["hand"]
    held = part["x"][:, hand.offset:hand.offset + hand.size].sum(1)
    assert held.max() <= cfg.resolved_rules().hand_size - 2  # two tricks played, at least
    every = ex.record_part(ex.ExitConfig(worlds=2), SHIPPED["setback"], 40, seed=1)
    held_every = every["x"][:, hand.offset:hand.offset + hand.size].sum(1)
    assert held_every.max() > cfg.resolved_rules().hand_size - 2  # without it, earlier decisions too


def test_a_recording_in_the_dealt_cards_goes_to_the_batched_recording(monkeypatch):
    """Every recording of ``worlds_from: dealt`` (the workers call ``record_part``) is ``record_dealt``'s:
    no searching teacher records it one game at a time."""
    calls = []
    monkeypatch.setattr(ex, "record_dealt", lambda *args: calls.append(args) or {"rows": args[2]})
    cfg = ex.ExitConfig(variant="auction", worlds=1, worlds_from="dealt", target="values")
    assert ex._record_task((asdict(cfg), SHIPPED["auction"], 7, 3, 5, None)) == (5, {"rows": 7})
    assert calls == [(cfg, SHIPPED["auction"], 7, 3, None)]


def test_a_batched_recording_in_the_dealt_cards_plays_the_networks_choices_from_every_stage_of_a_game():
    """``record_part`` with ``worlds_from: dealt`` (``record_dealt``): the network's greedy choices, every
    legal action valued and only those, the same part again from the same seed, and decisions from the
    whole game (later hands, at scores other than 0 to 0) rather than only its openings."""
    cfg = ex.ExitConfig(variant="auction", worlds=1, worlds_from="dealt", target="values")
    rules = cfg.resolved_rules()
    part = ex.record_dealt(cfg, SHIPPED["auction"], 300, seed=4, lanes=32)
    policy, _ = load_policy(SHIPPED["auction"], rules)
    z = np.where(part["mask"], policy.logits(part["x"].copy()), -np.inf).argmax(1)
    assert len(z) == 300 and not part["overrode"].any() and (part["y"] == z).all()
    assert (part["q"][~part["mask"]] == 0).all()
    spread = np.where(part["mask"], part["q"], np.nan)
    assert (np.nanmax(spread, 1) > np.nanmin(spread, 1)).sum() >= 100
    again = ex.record_dealt(cfg, SHIPPED["auction"], 300, seed=4, lanes=32)
    assert all(np.array_equal(part[k], again[k]) for k in part)
    layout = ActionLayout(rules)
    bids = part["mask"][:, layout.play_base:].sum(1) == 0
    assert 0.05 < bids.mean() < 0.5  # bids and card play
    # 300 decisions of 32 games, about 10 each: started together, all would lie in the first hand, at 0 to 0
    scores = Observer(rules).pieces["scores"]
    later = np.abs(part["x"][:, scores.offset:scores.offset + scores.size]).sum(1) > 0
    assert later.mean() > 0.5


def _decisions_with_foreign_values():
    """The setback start policy and its card, 160 decisions recorded over it, random action values the
    network does not follow, and the function giving a policy's choices at those decisions."""
    policy, card = load_policy(SHIPPED["setback"], ex.ExitConfig().resolved_rules())
    part = ex.record_part(ex.ExitConfig(worlds=2), SHIPPED["setback"], 160, seed=4)
    mask = part["mask"]
    q = np.where(mask, np.random.default_rng(0).normal(0, 4, mask.shape), 0).astype(np.float32)
    return policy, card, part, q, lambda p: np.where(mask, p.logits(part["x"].copy()), -np.inf).argmax(1)


def test_a_fits_inputs_read_back_bit_for_bit_from_two_bytes_a_number(tmp_path, monkeypatch):
    """load_parts keeps each input number as two bytes (Inputs): rows read back equal the recorded float32
    bits (-0.0 and tiny fractions too), across parts that bring new numbers; past the most distinct numbers
    it holds, it falls back to float32 with every row still exact."""
    rng = np.random.default_rng(1)
    parts = []
    for j in range(3):
        x = rng.integers(0, 2, (ex.PART, 9)).astype(np.float32)
        x[:, 7] = rng.integers(-30, 60, ex.PART) / (26.0 + j)  # new fractions in each part
        x[::97, 8] = -0.0
        x[5, 3] = 1e-30
        mask = np.ones((ex.PART, 4), bool)
        part = {"x": x, "mask": mask, "y": rng.integers(0, 4, ex.PART), "overrode": np.zeros(ex.PART, bool),
                "q": rng.normal(0, 1, (ex.PART, 4)).astype(np.float32)}
        ex.save_part(tmp_path / f"part_{j}.npz", part)
        parts.append(part)
    paths = [tmp_path / f"part_{j}.npz" for j in range(3)]
    whole = np.concatenate([p["x"] for p in parts])
    for most, kind in ((ex.Inputs.MOST, ex.Inputs), (len(np.unique(parts[0]["x"])) + 1, np.ndarray)):
        monkeypatch.setattr(ex.Inputs, "MOST", most)
        x, mask, y, q, _ = ex.load_parts(paths, 9, 4)
        assert isinstance(x, kind) and x.shape == whole.shape and len(x) == len(whole)
        rows = rng.permutation(len(whole))[:700]
        assert x[rows].dtype == np.float32 and np.array_equal(x[rows].view(np.uint32), whole[rows].view(np.uint32))
        assert np.array_equal(x[: len(whole)].view(np.uint32), whole.view(np.uint32))
        assert np.array_equal(y, np.concatenate([p["y"] for p in parts]))


def test_a_fit_from_compact_inputs_is_the_fit_from_float32():
    """The values' fit and its fold read their inputs through Inputs exactly as from a float32 array: the
    same weights to the bit."""
    policy, card, part, q, _ = _decisions_with_foreign_values()
    x = part["x"]
    inputs = ex.Inputs(len(x), x.shape[1])
    assert inputs.put(slice(0, len(x)), x)
    cfg = ex.ExitConfig(target="values", value_weight=8.0, fold=True, epochs=3, learning_rate=1e-3, batch_size=32,
                        torch_threads=1)
    a = ex.fit_values(policy, card, x, part["mask"], part["y"], q, cfg, seed=3)
    b = ex.fit_values(policy, card, inputs, part["mask"], part["y"], q, cfg, seed=3)
    for one, other in ((a[0], b[0]), (a[1], b[1])):
        assert all(np.array_equal(w, v) and np.array_equal(c, d) for (w, c), (v, d) in zip(one.layers, other.layers))
    assert a[2] == b[2]


def test_soft_targets_weigh_the_network_by_the_search_values():
    """target soft: at a high temperature the fit keeps the network's choices; at a low one it moves
    them to the actions the search valued most, on rows where the values differ."""
    policy, _, part, q, choice = _decisions_with_foreign_values()
    mask = part["mask"]
    best = np.where(mask, q, -np.inf).argmax(1)
    start = choice(policy)
    runs = {}
    for temperature in (1000.0, 0.05):
        cfg = ex.ExitConfig(target="soft", temperature=temperature, epochs=25, learning_rate=1e-3, batch_size=64,
                            torch_threads=1)
        new, _ = ex.fit(policy, part["x"], mask, part["y"], q, cfg, seed=0)
        runs[temperature] = choice(new)
    several = mask.sum(1) > 1
    assert (runs[1000.0] == start)[several].mean() > 0.9
    assert (runs[0.05] == best)[several].mean() > 0.6 > (start == best)[several].mean() + 0.2


def test_value_targets_fit_the_search_values_and_add_them_to_the_network():
    """target values: the value network regresses the centred action values (its output starts at zero)
    and keeps the policy's layout; fused with a large weight the candidate follows the values, with a
    tiny one it plays as the policy did."""
    from pitch_policy.fuse import fuse

    policy, card, part, q, choice = _decisions_with_foreign_values()
    mask = part["mask"]
    centred = np.where(mask, q - (q * mask).sum(1, keepdims=True) / mask.sum(1, keepdims=True), 0)
    cfg = ex.ExitConfig(target="values", epochs=40, learning_rate=1e-3, batch_size=32, torch_threads=1)
    values, cand, stats = ex.fit_values(policy, card, part["x"], mask, part["y"], q, cfg, seed=0)
    assert values.shape == policy.shape and values.hint == policy.hint and values.transform is policy.transform
    fitted = values.logits(part["x"].copy())
    error = lambda z: float((((z - centred) * mask) ** 2).sum() / mask.sum())
    assert error(fitted) < 0.5 * error(np.zeros_like(fitted))
    assert set(stats) == {"held_out_accuracy_before", "held_out_accuracy", "train_accuracy", "loss"}
    # the statistics are the fused candidate's (weight 1 for the policy, value_weight for the fit) and the policy's
    fused, _ = fuse([(policy, card, "policy"), (values, card, "values")], [1.0, cfg.value_weight])
    assert np.allclose(cand.logits(part["x"]), fused.logits(part["x"]))
    hold, train = ex._split(len(part["y"]), np.random.default_rng(0))  # fit_values' split for seed 0
    agree = lambda p, rows: float((np.where(mask[rows], p.logits(part["x"][rows]), -np.inf).argmax(1)
                                   == part["y"][rows]).mean())
    assert stats["held_out_accuracy_before"] == pytest.approx(agree(policy, hold))
    assert stats["held_out_accuracy"] == pytest.approx(agree(fused, hold))
    assert stats["train_accuracy"] == pytest.approx(agree(fused, train))
    several = mask.sum(1) > 1
    best = np.where(mask, q, -np.inf).argmax(1)
    strong, _ = fuse([(policy, card, "policy"), (values, card, "values")], [1.0, 100.0])
    faint, _ = fuse([(policy, card, "policy"), (values, card, "values")], [1.0, 1e-6])
    assert (choice(strong) == best)[several].mean() > (choice(policy) == best)[several].mean() + 0.3
    assert (choice(faint) == choice(policy)).all()


def test_fold_fits_the_fused_candidate_back_into_the_best_size():
    """fold: true: the candidate has the policy's shape, layout and hint, plays as the fused network (the
    policy plus value_weight times the fitted values) on most rows where the two differ from the policy,
    and the agreement it reports is measured against that fused network on the held-out rows."""
    policy, card, part, q, choice = _decisions_with_foreign_values()
    mask, x = part["mask"], part["x"]
    cfg = ex.ExitConfig(target="values", value_weight=100.0, epochs=40, learning_rate=1e-3, batch_size=32,
                        torch_threads=1)
    values, wide, _ = ex.fit_values(policy, card, x, mask, part["y"], q, cfg, seed=0)
    values_f, folded, stats = ex.fit_values(policy, card, x, mask, part["y"], q, replace(cfg, fold=True), seed=0)
    assert np.allclose(values.logits(x), values_f.logits(x))  # the same fit of the values, then the fold
    assert wide.shape[1] == 2 * policy.shape[1] and folded.shape == policy.shape
    assert folded.hint == policy.hint and folded.transform is policy.transform
    moved = (choice(wide) != choice(policy)) & (mask.sum(1) > 1)
    assert moved.sum() >= 20  # the values change many of the policy's choices: the fold must carry them
    assert (choice(folded) == choice(wide))[moved].mean() > 0.7 > (choice(policy) == choice(wide))[moved].mean()
    hold, _ = ex._split(len(part["y"]), np.random.default_rng(0))
    assert stats["fold_agreement"] == pytest.approx(float((choice(folded) == choice(wide))[hold].mean()))
    assert stats["held_out_accuracy"] == pytest.approx(float((choice(folded) == part["y"])[hold].mean()))


def test_bid_weight_weighs_the_values_at_the_bids_alone():
    """bid_weight: the fold fits the policy plus bid_weight times the values at the bids and value_weight
    times them elsewhere: with a tiny value_weight and a large bid_weight the folded network follows the
    values at the bids where they move the choice, and keeps the policy's cards."""
    policy, card, part, q, choice = _decisions_with_foreign_values()
    mask, x = part["mask"], part["x"]
    rules = ex.ExitConfig().resolved_rules()
    bids = x[:, Observer(rules).pieces["phase"].offset + BID] > 0.5
    assert bids.sum() >= 20 and (~bids).sum() >= 20
    cfg = ex.ExitConfig(target="values", value_weight=1e-3, bid_weight=100.0, fold=True, epochs=40,
                        learning_rate=1e-3, batch_size=32, torch_threads=1)
    values, folded, stats = ex.fit_values(policy, card, x, mask, part["y"], q, cfg, seed=0)
    by_values = np.where(mask, values.logits(x.copy()), -np.inf).argmax(1)
    several = mask.sum(1) > 1
    moved = bids & several & (by_values != choice(policy))
    assert moved.sum() >= 10  # the values would change many bids: the fold must carry them
    assert (choice(folded) == by_values)[moved].mean() > 0.7
    cards = ~bids & several
    assert (choice(folded) == choice(policy))[cards].mean() > 0.9
    # without it the same tiny weight leaves the bids too
    _, plain, _ = ex.fit_values(policy, card, x, mask, part["y"], q, replace(cfg, bid_weight=None), seed=0)
    assert (choice(plain) == by_values)[moved].mean() < 0.3
    hold, _ = ex._split(len(part["y"]), np.random.default_rng(0))
    teacher = np.where(mask, policy.logits(x.copy()) + np.where(bids, 100.0, 1e-3)[:, None] * values.logits(x.copy()),
                       -np.inf).argmax(1)
    assert stats["fold_agreement"] == pytest.approx(float((choice(folded) == teacher)[hold].mean()))


def test_a_bid_weight_of_zero_keeps_the_bids():
    """bid_weight 0: the fold follows the values at the card play and keeps the policy's own bids."""
    policy, card, part, q, choice = _decisions_with_foreign_values()
    mask, x = part["mask"], part["x"]
    rules = ex.ExitConfig().resolved_rules()
    bids = x[:, Observer(rules).pieces["phase"].offset + BID] > 0.5
    cfg = ex.ExitConfig(target="values", value_weight=100.0, bid_weight=0.0, fold=True, epochs=40,
                        learning_rate=1e-3, batch_size=32, torch_threads=1)
    values, folded, _ = ex.fit_values(policy, card, x, mask, part["y"], q, cfg, seed=0)
    by_values = np.where(mask, values.logits(x.copy()), -np.inf).argmax(1)
    several = mask.sum(1) > 1
    for rows in (bids, ~bids):
        assert (rows & several & (by_values != choice(policy))).sum() >= 10  # the values would move both
    assert (choice(folded) == choice(policy))[bids & several].mean() > 0.9
    moved = ~bids & several & (by_values != choice(policy))
    assert (choice(folded) == by_values)[moved].mean() > 0.7
    # at a weight apart from zero the same bids follow the values
    _, weighed, _ = ex.fit_values(policy, card, x, mask, part["y"], q, replace(cfg, bid_weight=100.0), seed=0)
    assert (choice(weighed) == choice(policy))[bids & several & (by_values != choice(policy))].mean() < 0.3


def test_switch_z_is_the_teachers_margin():
    """A stricter teacher (switch_z) leaves the network's choice less often on the same deals."""
    lenient = ex.record_part(ex.ExitConfig(worlds=4, switch_z=0.0), SHIPPED["setback"], 120, seed=5)
    strict = ex.record_part(ex.ExitConfig(worlds=4, switch_z=3.0), SHIPPED["setback"], 120, seed=5)
    assert strict["overrode"].sum() < lenient["overrode"].sum()


def test_parts_round_trip_and_foreign_files_are_refused(tmp_path):
    cfg = ex.ExitConfig(worlds=1)
    part = ex.record_part(cfg, SHIPPED["setback"], 10, seed=2)
    size, actions = part["x"].shape[1], part["mask"].shape[1]
    ex.save_part(tmp_path / "part_0.npz", part)
    back = ex.load_part(tmp_path / "part_0.npz", size, actions, rows=10)
    assert all(np.array_equal(back[k], part[k]) for k in part)
    assert [p.name for p in tmp_path.iterdir()] == ["part_0.npz"]  # no temporary file left
    bad = tmp_path / "bad.npz"
    np.savez(bad, **dict(part, x=np.array([{"a": 1}], dtype=object)))
    with pytest.raises(CheckpointError, match="stored as object"):  # never unpickled
        ex.load_part(bad, size, actions, rows=10)
    wrong = dict(part, y=np.full_like(part["y"], actions - 1))  # actions the mask does not allow
    np.savez(bad, **wrong)
    with pytest.raises(CheckpointError, match="does not hold"):
        ex.load_part(bad, size, actions, rows=10)
    np.savez(bad, **dict(part, q=np.full_like(part["q"], 1e30)))  # values no hand reaches
    with pytest.raises(CheckpointError, match="beyond"):
        ex.load_part(bad, size, actions, rows=10)
    np.savez(bad, **{k: v for k, v in part.items() if k != "q"})  # a part without the values
    with pytest.raises(CheckpointError, match="not the arrays"):
        ex.load_part(bad, size, actions, rows=10)
    bad.write_bytes(b"not a zip")
    with pytest.raises(CheckpointError):
        ex.load_part(bad, size, actions, rows=10)


def test_a_fit_moves_the_network_toward_the_search():
    cfg = ex.ExitConfig(epochs=25, learning_rate=1e-3, batch_size=64, torch_threads=1)
    rules = cfg.resolved_rules()
    policy, _ = load_policy(SHIPPED["setback"], rules)
    part = ex.record_part(ex.ExitConfig(worlds=1), SHIPPED["setback"], 160, seed=4)
    rng = np.random.default_rng(0)
    # labels the network does not give: a random legal action on every row
    y = np.array([rng.choice(np.flatnonzero(m)) for m in part["mask"]])
    new, stats = ex.fit(policy, part["x"], part["mask"], y, part["q"], cfg, seed=0)
    assert stats["train_accuracy"] > 0.6
    before = (np.where(part["mask"], policy.logits(part["x"].copy()), -np.inf).argmax(1) == y).mean()
    after = (np.where(part["mask"], new.logits(part["x"].copy()), -np.inf).argmax(1) == y).mean()
    assert after > before + 0.2
    assert (new.transform is policy.transform) and new.hint == policy.hint and new.shape == policy.shape


@pytest.mark.parametrize("values,words", [
    ({"worlds": 0}, "'worlds'"), ({"decisions": 5}, "'decisions'"), ({"gate_min": 1.5}, "'gate_min'"),
    ({"generation": 2}, "unknown key"), ({"start": "nowhere/policy"}, "'start'"),
    ({"start": "checkpoints/auction"}, "'start'"), ({"variant": "bridge"}, "variant"), ({"worlds": "8"}, "'worlds'"),
    ({"target": "value"}, "'target'"), ({"value_weight": 0}, "'value_weight'"), ({"value_weight": "8"}, "'value_weight'"),
    ({"worlds_from": "dealt", "worlds": 1}, "set target: values"), ({"worlds_from": "dealt", "target": "values"}, "set worlds: 1"),
    ({"worlds_from": "dealt", "target": "values", "worlds": 1, "stages": [{"generations": 1, "worlds": 4}]}, "set worlds: 1"),
    ({"worlds_from": "real"}, "'worlds_from'"), ({"fold": True}, "set target: values"), ({"fold": "yes"}, "'fold'"),
    ({"worlds_from": "dealt", "target": "values", "worlds": 1, "read_bids": False}, "'read_bids'"),
    ({"worlds_from": "dealt", "target": "values", "worlds": 1, "switch_z": 3.0}, "'switch_z'"),
    ({"worlds_from": "dealt", "target": "values", "worlds": 1, "from_trick": 3}, "'from_trick'"),
    ({"from_trick": 14}, "'from_trick'"), ({"from_trick": -1}, "'from_trick'"),
    ({"bid_weight": 32.0, "target": "values"}, "fold: true"), ({"bid_weight": -1.0}, "'bid_weight'"),
    ({"bid_weight": "32"}, "'bid_weight'"),
    ({"gate_panel": ["heuristic", "nonsense"]}, "'gate_panel' in test names agent 'nonsense'"),
    ({"gate_panel": ["human"]}, "a human cannot"), ({"gate_panel": "heuristic"}, "'gate_panel'"),
    ({"gate_panel": ["random"] * 9}, "at most 8"), ({"gate_panel_games": 1}, "'gate_panel_games'"),
    ({"start_train": "nowhere.yaml"}, "'start_train'"), ({"start_train": "configs"}, "'start_train'"),
    ({"start_train": "configs/auction_scratch_ppo.yaml"}, "other rules"), ({"start_train": 3}, "'start_train'"),
    ({"start_train": "configs/auction_scratch_ppo.yaml", "variant": "auction", "start": "checkpoints/auction_base"}, "keep one"),
])
def test_bad_configs_are_refused_in_one_line(values, words):
    with pytest.raises(ConfigError) as e:
        ex.make_exit_config(values, "test")
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_run_records_fits_gates_and_resumes(tmp_path, capsys):
    from pitch_cli import main

    args = ["exit", "--set", f"runs_dir={tmp_path}", "run_name=r", "generations=1", "decisions=1000", "worlds=1",
            "gate_games=4", "workers=1", "torch_threads=1", "epochs=1"]
    assert main(args) == 0
    run = tmp_path / "r"
    rows = ex.read_run_json(run / "generations.json", "generations")
    assert len(rows) == 1 and rows[0]["fitted"] == rows[0]["decisions"] == 1000 and rows[0]["gate_games"] == 4
    assert (run / "gen_1" / "policy.safetensors").is_file() and (run / "best.safetensors").is_file()
    load_policy(run / "best.safetensors", pitch_env.rules("setback"))
    assert main(args) == 2 and "exists" in capsys.readouterr().err  # a second start is refused
    assert main(["exit", "--resume", str(run), "--set", "worlds=3"]) == 2  # the recipe cannot change
    assert main(["exit", "--resume", str(run)]) == 0  # nothing left to do
    assert len(ex.read_run_json(run / "generations.json", "generations")) == 1
    assert main(["exit", "--resume", str(tmp_path)]) == 2  # not a run directory
    table = (run / "generations.json").read_text()
    for crafted in ('{"format": "pitch-exit-run/1", "generations": [{"generation": 1}]}', '[1, 2]', '{' * 100000, "\udcff"):
        (run / "generations.json").write_text(crafted, errors="surrogateescape")
        assert main(["exit", "--resume", str(run)]) == 2
        assert "Traceback" not in capsys.readouterr().err
    (run / "generations.json").write_text(table)
    from train.model_card import write_exit_card

    text = write_exit_card(run, tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1, seed=0,
                           previous="checkpoint:checkpoints/setback")
    assert "| 1 | pimcnet:1 | 1,000 | 1,000 |" in text and "checkpoint:checkpoints/setback" in text
    assert "CPU s/game: agent, opponent (ratio)" in text  # the thinking-time target is read off the card
    for section in ("## Lineage", "## Recipe", "## Compute", "## Strength", "## Generations"):
        assert section in text
    assert str(tmp_path) not in text and "runs_dir" not in text  # where it ran is no part of it
    assert "`setback_base` (configs/setback.yaml) → 1 generation `pimcnet:1` (configs/exit/setback_recipe.yaml)" in text
    recipe = text.split("## Recipe", 1)[1].split("\n## ", 1)[0]  # the start's own recipe first, then this run's
    assert recipe.index("pitch train --config configs/setback.yaml") < recipe.index("pitch exit --config")
    assert "its start's training, as its card gives it: " in text
    assert "for the one generation (recording, fit and gate)" in text  # one, not "the 1 generations"
    load_policy(tmp_path / "card", pitch_env.rules("setback"))


def test_a_values_run_writes_the_fused_candidate_and_its_card(tmp_path):
    from pitch_cli import main
    from train.model_card import write_exit_card

    assert main(["exit", "--set", f"runs_dir={tmp_path}", "run_name=v", "generations=1", "decisions=1000", "worlds=1",
                 "gate_games=4", "workers=1", "torch_threads=1", "epochs=1", "target=values", "value_weight=2"]) == 0
    rules = pitch_env.rules("setback")
    start, _ = load_policy(SHIPPED["setback"], rules)
    cand, card = load_policy(tmp_path / "v" / "gen_1" / "policy.safetensors", rules)
    assert cand.shape == [start.shape[0], *(2 * w for w in start.shape[1:-1]), start.shape[-1]]  # side by side
    assert card["network"]["shape"] == cand.shape and card["exit"]["config"]["target"] == "values"
    text = write_exit_card(tmp_path / "v", tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1,
                           seed=0)
    assert "`target: values`" in text and "adds 2 times its values" in text and "the action the search chose" in text
    # no bid_weight: the values weigh the same at every decision, and the card says so in both places
    assert "adding them ×2 at every decision" in text and "to the best's logits at every decision" in text


def test_a_run_valued_in_the_cards_dealt_names_that_teacher_in_its_card(tmp_path, capsys):
    import json

    from pitch_cli import main
    from train.model_card import write_exit_card

    assert main(["exit", "--set", f"runs_dir={tmp_path}", "run_name=d", "variant=auction",
                 "start=checkpoints/auction_base", "generations=1", "decisions=1000", "worlds=1",
                 "worlds_from=dealt", "gate_games=4", "workers=1", "torch_threads=1", "epochs=1", "target=values",
                 "value_weight=2", "fold=true"]) == 0
    rows = ex.Run(tmp_path / "d").rows
    assert rows[0]["overrode"] == 0.0 and rows[0]["decisions"] == 1000  # the network's own choices, played on
    assert 0.0 <= rows[0]["fold_agreement"] <= 1.0
    rules = pitch_env.rules("auction")
    cand, _ = load_policy(tmp_path / "d" / "gen_1" / "policy.safetensors", rules)
    assert cand.shape == load_policy("checkpoints/auction_base", rules)[0].shape  # folded: the start's size
    text = write_exit_card(tmp_path / "d", tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1,
                           seed=0)
    assert "| 1 | the best in the cards dealt | 1,000 | 1,000 | " in text and "pimcnet:1" not in text
    assert "played out by it in the cards the game really dealt (`worlds_from: dealt`, train/exit.py)) in self-play" in text
    # no search in these generations: the card neither counts overrides nor speaks of the search's choice
    assert "search overrode" not in text and "the action the search chose" not in text
    assert "folded network picks the fused one's action" in text and "`fold: true`" in text
    assert f"| {100 * rows[0]['fold_agreement']:.1f}% | " in text
    # the card reads the weights from the run's config: a bid_weight equal to value_weight is no weight apart
    config_file = tmp_path / "d" / "config.json"
    for bid_weight, lineage, generations in ((None, "×2 at every decision", "logits at every decision"),
                                             (2.0, "×2 at every decision", "logits at every decision"),
                                             (8.0, "×2, ×8 at the bids", "(8 times at the bids: `bid_weight`)")):
        state = json.loads(config_file.read_text())
        state["config"]["bid_weight"] = bid_weight
        config_file.write_text(json.dumps(state))
        text = write_exit_card(tmp_path / "d", tmp_path / f"card_{bid_weight}", games=2, pimc="pimc:1",
                               pimc_games=0, workers=1, seed=0)
        assert f"adding them {lineage} (" in text and generations in text
    # a folded run's row without its fold's agreement is not this run's: refused in one line
    state = json.loads((tmp_path / "d" / "generations.json").read_text())
    del state["generations"][0]["fold_agreement"]
    (tmp_path / "d" / "generations.json").write_text(json.dumps(state))
    capsys.readouterr()
    assert main(["exit", "--resume", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert "'fold_agreement'" in err and err.count("\n") == 1


@pytest.mark.parametrize("stages_value,words", [
    ([{"worlds": 8}], "stage 1"), ([{"generations": 2}, {"generations": 1, "epochs": 3}], "stage 2"),
    ([{"generations": 0}], "'generations' of stage 1"), ([{"generations": 1, "worlds": 0}], "'worlds' of stage 1"),
    ("5 then 2", "'stages'"), ([{"generations": 1, "worlds": "16"}], "'stages'"), ([{}], "stage 1"),
    ([{"generations": 1.5}], "'generations' of stage 1"), ([{"generations": 1, "seed": 2.0}], "'seed' of stage 1"),
    ([{"generations": 1, "bid_weight": -1}], "'bid_weight' of stage 1"),
    ([{"generations": 1, "bid_weight": 0}], "fold: true"),  # a weight at the bids needs the fold, in a stage too
])
def test_bad_stages_are_refused_in_one_line(stages_value, words):
    with pytest.raises(ConfigError) as e:
        ex.make_exit_config({"stages": stages_value}, "test")
    assert words in str(e.value) and "\n" not in str(e.value)


def test_stages_number_the_generations_and_seed_each_as_if_run_alone():
    cfg = ex.make_exit_config({"worlds": 8, "seed": 3, "stages": [{"generations": 2}, {"generations": 3, "worlds": 16,
                                                                                      "seed": 9}]}, "test")
    assert cfg.generations == 5  # the stages' sum when not given
    first, second = ex.stages(cfg)
    assert (first.first, first.last, first.worlds, first.seed) == (1, 2, 8, 3)
    assert (second.first, second.last, second.worlds, second.seed) == (3, 5, 16, 9)
    assert ex.stage_of(cfg, 3) == second and second.local(3) == 1 and second.local(5) == 3
    longer = ex.make_exit_config({**ex.asdict(cfg), "generations": 7}, "test")  # a resume's --set generations=7
    assert ex.stages(longer)[-1].last == 7
    shorter = ex.make_exit_config({**ex.asdict(cfg), "generations": 1}, "test")
    assert [(s.first, s.last) for s in ex.stages(shorter)] == [(1, 2)] and ex.stage_of(shorter, 1) == first
    plain = ex.make_exit_config({"generations": 4, "worlds": 2}, "test")
    assert [(s.first, s.last, s.worlds, s.seed) for s in ex.stages(plain)] == [(1, 4, 2, 0)]
    # a stage may weigh the bids apart (here: keep them), the others take the top-level bid_weight
    values = {"target": "values", "fold": True, "bid_weight": 8.0,
              "stages": [{"generations": 1}, {"generations": 1, "bid_weight": 0}]}
    assert [s.bid_weight for s in ex.stages(ex.make_exit_config(values, "test"))] == [8.0, 0]


def test_a_staged_run_does_in_one_command_what_one_run_per_stage_does(tmp_path):
    """Stage 2 of a staged run records, fits and gates exactly as a run of stage 2's config alone, started
    from the best that stage 1 left, does: the same decisions, the same weights, the same gate; and its
    fit replays only its own stage's decisions."""
    from pitch_cli import main
    from safetensors.numpy import load_file

    common = ["gate_games=4", "workers=1", "torch_threads=1", "epochs=1", "replay=2"]
    staged = ["exit", "--set", f"runs_dir={tmp_path}", "run_name=staged", *common,
              "stages=[{generations: 1, worlds: 1, decisions: 1000}, {generations: 1, worlds: 2, decisions: 1000, seed: 7}]"]
    assert main(staged + ["generations=1"]) == 0  # stop after stage 1
    run = tmp_path / "staged"
    (tmp_path / "start.safetensors").write_bytes((run / "best.safetensors").read_bytes())
    assert main(["exit", "--resume", str(run), "--set", "generations=2"]) == 0
    alone = ["exit", "--set", f"runs_dir={tmp_path}", "run_name=alone", *common, "generations=1", "worlds=2",
             "decisions=1000", "seed=7", f"start={tmp_path / 'start.safetensors'}"]
    assert main(alone) == 0
    rows = ex.read_run_json(run / "generations.json", "generations")
    rows_alone = ex.read_run_json(tmp_path / "alone" / "generations.json", "generations")
    assert [r["worlds"] for r in rows] == [1, 2] and rows_alone[0]["worlds"] == 2
    assert rows[1]["fitted"] == rows[1]["decisions"] == 1000  # stage 1's decisions are not replayed
    for key in ("fitted", "overrode", "held_out_accuracy", "gate_win_rate", "kept"):
        assert rows[1][key] == rows_alone[0][key], key
    a, b = load_file(run / "gen_2" / "policy.safetensors"), load_file(tmp_path / "alone" / "gen_1" / "policy.safetensors")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    part_a, part_b = np.load(run / "gen_2" / "part_0.npz"), np.load(tmp_path / "alone" / "gen_1" / "part_0.npz")
    assert all(np.array_equal(part_a[k], part_b[k]) for k in ("x", "mask", "y", "overrode", "q"))
    from train.model_card import write_exit_card

    text = write_exit_card(run, tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1, seed=0)
    assert "`pimcnet:1` (generation 1), then `pimcnet:2` (generation 2)" in text and "| 2 | pimcnet:2 |" in text


def test_a_stage_that_keeps_the_bids_fits_and_says_so(tmp_path):
    """A stage's bid_weight reaches its generations' fits: with 0 the second generation keeps its start's
    bids, and the card names each stage's weights."""
    from pitch_cli import main
    from train.model_card import write_exit_card

    assert main(["exit", "--set", f"runs_dir={tmp_path}", "run_name=k", "variant=auction",
                 "start=checkpoints/auction_base", "decisions=1000", "worlds=1", "worlds_from=dealt", "gate_games=4",
                 "gate_min=0.0", "workers=1", "torch_threads=1", "epochs=30", "learning_rate=0.01", "target=values",
                 "value_weight=50",
                 "fold=true", "stages=[{generations: 1}, {generations: 1, bid_weight: 0}]"]) == 0
    rules = pitch_env.rules("auction")
    run = tmp_path / "k"
    (first, card1), (second, card2) = (load_policy(run / f"gen_{k}" / "policy.safetensors", rules) for k in (1, 2))
    assert card1["exit"]["config"]["bid_weight"] is None and card2["exit"]["config"]["bid_weight"] == 0
    if not ex.Run(run).rows[0]["kept"]:  # the second generation starts from the best the first left
        first = load_policy("checkpoints/auction_base", rules)[0]
    part = np.load(run / "gen_2" / "part_0.npz")  # recorded by the second generation's start
    x, mask = part["x"], part["mask"]
    bids = x[:, Observer(rules).pieces["phase"].offset + BID] > 0.5
    several = mask.sum(1) > 1
    assert (bids & several).sum() >= 50 and (~bids & several).sum() >= 50
    pick = lambda p: np.where(mask, p.logits(x.copy()), -np.inf).argmax(1)  # noqa: E731
    same = pick(second) == pick(first)
    assert same[bids & several].mean() > 0.9  # at the top-level weight, 50, about 64% of these bids change
    assert same[~bids & several].mean() < 0.8  # while the values move the card play
    text = write_exit_card(run, tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1, seed=0)
    assert ("adding them ×50 at every decision (generation 1); ×50 at every decision but the bids (generation 2)"
            in text)
    assert "bids, whose choices stay the best's (`bid_weight: 0`) (generation 2)" in text


def test_a_candidate_that_loses_ground_against_the_panel_is_dropped_though_it_beat_the_best(tmp_path, capsys):
    """gate_min 0 keeps any candidate that won a game against the best; a fit at a learning rate that
    wrecks it (0.1) still wins one of 8, but falls from the best's 57.5% to 15.0% against the heuristic:
    the panel drops it. The row says why, the card shows it, and a resume trusts only a row whose verdict
    is the panel's."""
    from pitch_cli import main
    from train.model_card import write_exit_card

    assert main(["exit", "--set", f"runs_dir={tmp_path}", "run_name=p", "generations=1", "decisions=1000",
                 "worlds=1", "gate_games=8", "gate_min=0.0", "workers=1", "torch_threads=1", "epochs=3",
                 "learning_rate=0.1", "gate_panel=[random, heuristic]", "gate_panel_games=40"]) == 0
    out = capsys.readouterr().out
    assert "then against the panel:" in out and "lost ground" in out and "generation 1: dropped" in out
    run = tmp_path / "p"
    row = ex.read_run_json(run / "generations.json", "generations")[0]
    assert row["gate_win_rate"] > 0.0 and not row["kept"]  # beat gate_min, dropped by the panel alone
    assert [e["agent"] for e in row["panel"]] == ["random", "heuristic"]
    assert [ex.lost_ground(e) for e in row["panel"]] == [False, True] and row["panel"][1]["games"] == 40
    assert ex.Run(run).best_generation() == 0
    text = write_exit_card(run, tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1, seed=0)
    assert "and only if against none of `random`, `heuristic` (`gate_panel`" in text
    assert (f"`heuristic` {100 * row['panel'][1]['candidate']:.1f}% / {100 * row['panel'][1]['best']:.1f}% (40) "
            f"lost ground | no |") in text
    assert resume(run, capsys) == (0, "")
    table = (run / "generations.json").read_text()
    for crafted in ('"kept": false', '"kept": true'), ('"heuristic"', '"pimc:12"'), ('"panel": [', '"panel": 3, "x": ['):
        (run / "generations.json").write_text(table.replace(*crafted))
        rc, err = resume(run, capsys)
        assert rc == 2 and "generations.json" in err
    (run / "generations.json").write_text(table)
    assert resume(run, capsys, "--set", "generations=1") == (0, "")


def test_losing_ground_is_a_loss_larger_than_the_deals_luck():
    """A second generation that beat its start fell from 83.5% to 79.4% of 4,000 games against the
    heuristic: lost ground; the same rates over 100 games, or a gain, are not."""
    assert ex.lost_ground({"candidate": 0.794, "best": 0.835, "games": 4000})
    assert not ex.lost_ground({"candidate": 0.794, "best": 0.835, "games": 100})
    assert not ex.lost_ground({"candidate": 0.835, "best": 0.794, "games": 4000})
    assert not ex.lost_ground({"candidate": 1.0, "best": 1.0, "games": 40})
    assert ex.lost_ground({"candidate": 0.0, "best": 1.0, "games": 2})


CONFIGS_DIR = Path(__file__).resolve().parent.parent / "configs"
EXIT_CONFIGS = [CONFIGS_DIR / "auction_scratch.yaml", *sorted((CONFIGS_DIR / "exit").glob("*.yaml"))]


@pytest.mark.parametrize("path", EXIT_CONFIGS, ids=lambda p: p.stem)
def test_every_shipped_exit_config_is_valid(path):
    cfg = ex.load_exit_config(path)
    assert path.stem.startswith(cfg.variant)
    assert cfg.start.startswith("checkpoints/") or (cfg.start_train.startswith("configs/") and not cfg.start)


def test_the_cards_thinking_time_ratio_reads_as_one_percentage_either_way():
    from train.evaluate import _ratio

    assert _ratio(0.013, 0.742) == "1.8%" and _ratio(0.013, 0.0035) == "371%" and _ratio(0.0, 0.5) == "-"
    assert _ratio(0.0026, 0.25) == "1.0%" and _ratio(0.002, 0.25) == "0.80%" and _ratio(0.0021, 0.3) == "0.70%"
    assert _ratio(0.03, 0.8) == "3.8%" and _ratio(0.3, 0.8) == "38%" and _ratio(0.0998, 1.0) == "10%"


# ---------------------------------------------------------------- what a resume trusts and refuses
SMALL = ["generations=1", "decisions=1000", "worlds=1", "gate_games=4", "gate_min=0.0", "workers=1",
         "torch_threads=1", "epochs=1"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished one-generation run whose candidate was kept (gate_min 0: kept unless it lost every game)."""
    from pitch_cli import main

    root = tmp_path_factory.mktemp("exit")
    assert main(["exit", "--set", f"runs_dir={root}", "run_name=r", *SMALL]) == 0
    rows = ex.read_run_json(root / "r" / "generations.json", "generations")
    assert rows[0]["kept"]
    return root / "r"


def copy_run(finished, tmp_path) -> Path:
    import shutil

    run = tmp_path / "r"
    shutil.copytree(finished, run, symlinks=True)
    return run


def resume(run, capsys, *more) -> tuple[int, str]:
    """``pitch exit --resume RUN``'s exit status and stderr (failing on a traceback or a second line)."""
    from pitch_cli import main

    capsys.readouterr()
    rc = main(["exit", "--resume", str(run), *more])
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and "\n" not in err, err
    return rc, err


@pytest.mark.parametrize("name", ["../../escaped", "../sibling", "ABSOLUTE", "a/b", ".hidden", ".."])
def test_a_run_name_never_writes_outside_runs_dir(tmp_path, capsys, name):
    """The same check of run names as pitch train's (train/config.py ``check_run_name``)."""
    from pitch_cli import main

    runs_dir = tmp_path / "runs" / "inner"
    runs_dir.mkdir(parents=True)
    name = str(tmp_path / "absolute") if name == "ABSOLUTE" else name
    assert main(["exit", "--set", f"runs_dir={runs_dir}", f"run_name='{name}'", *SMALL]) == 2
    err = capsys.readouterr().err
    assert "one plain folder name" in err and err.count("\n") == 1
    assert sorted(tmp_path.rglob("*")) == [tmp_path / "runs", runs_dir]  # nothing written anywhere


def test_a_resume_restores_the_kept_best_and_refuses_when_its_weights_are_gone(finished, tmp_path, capsys):
    """Generation 1 kept, generation 2 dropped, best.safetensors removed: the resume puts generation 1's
    weights back (never the start's); with those gone too, or other weights in their place, it refuses."""
    import json

    run = copy_run(finished, tmp_path)
    state = json.loads((run / "generations.json").read_text())
    state["generations"].append(dict(state["generations"][0], generation=2, kept=False, gate_win_rate=0.0,
                                     gate_low=0.0, fitted=2000))
    (run / "generations.json").write_text(json.dumps(state))
    saved = json.loads((run / "config.json").read_text())
    saved["config"]["generations"] = 2
    (run / "config.json").write_text(json.dumps(saved))
    kept = (run / "gen_1" / "policy.safetensors").read_bytes()
    assert kept != (Path(SHIPPED["setback"]) / "policy.safetensors").read_bytes()
    (run / "best.safetensors").unlink()
    assert resume(run, capsys)[0] == 0
    assert (run / "best.safetensors").read_bytes() == kept
    assert resume(run, capsys, "--set", "generations=1")[0] == 0  # fewer generations than finished: nothing to do
    for odd in (_fifo, lambda p: _link(p, run / "gen_1" / "policy.safetensors")):  # never opened, replaced
        odd(run / "best.safetensors")
        assert resume(run, capsys)[0] == 0
        assert kind_of(run / "best.safetensors") == "file"
        assert (run / "best.safetensors").read_bytes() == kept
    (run / "best.safetensors").unlink()
    (run / "gen_1" / "policy.safetensors").unlink()
    rc, err = resume(run, capsys)
    assert rc == 2 and "best.safetensors" in err and "generation 1" in err
    assert not (run / "best.safetensors").exists()  # nothing put in its place
    import shutil

    shutil.copyfile(Path(SHIPPED["setback"]) / "policy.safetensors", run / "best.safetensors")  # the start's weights
    rc, err = resume(run, capsys)
    assert rc == 2 and "does not hold them" in err


def _strings_part(path):
    np.savez(path, x=np.array(["a"] * 1000), mask=np.ones((1000, 3), bool), y=np.zeros(1000, np.int64),
             overrode=np.zeros(1000, bool), q=np.zeros((1000, 3), np.float32))


def _fifo(path):
    import os

    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _link(path, target="/proc/self/pagemap"):
    path.unlink(missing_ok=True)
    path.symlink_to(target)


def _rewrite_state(run, **change):
    import json

    data = json.loads((run / "generations.json").read_text())
    data["generations"][0].update(change)
    (run / "generations.json").write_text(json.dumps(data))


def _dir_instead(path):
    import shutil

    path.unlink() if path.is_file() else shutil.rmtree(path)
    path.mkdir()


HOSTILE = {
    "a kept generation's folder deleted": lambda run: __import__("shutil").rmtree(run / "gen_1"),
    "a part of strings": lambda run: _strings_part(run / "gen_1" / "part_0.npz"),
    "a FIFO as a part": lambda run: _fifo(run / "gen_1" / "part_0.npz"),
    "a part linked to /proc/self/pagemap": lambda run: _link(run / "gen_1" / "part_0.npz"),
    "a FIFO as the next generation's part": lambda run: (run / "gen_2").mkdir() or _fifo(run / "gen_2" / "part_0.npz"),
    "overrode 7.5": lambda run: _rewrite_state(run, overrode=7.5),
    "a row of another recipe": lambda run: _rewrite_state(run, decisions=3000),
    "a row the writer never writes": lambda run: _rewrite_state(run, extra=1),
    "generations.json a directory": lambda run: _dir_instead(run / "generations.json"),
    "generations.json a FIFO": lambda run: _fifo(run / "generations.json"),
    "config.json linked to /proc/self/pagemap": lambda run: _link(run / "config.json"),
    "generations.json deleted after two generations": lambda run: ((run / "generations.json").unlink(),
                                                                   (run / "gen_2").mkdir()),
}


@pytest.mark.parametrize("damage", sorted(HOSTILE))
def test_a_damaged_or_crafted_run_directory_is_refused_in_one_line_before_any_work(finished, tmp_path, capsys,
                                                                                  damage, within_seconds):
    run = copy_run(finished, tmp_path)
    HOSTILE[damage](run)
    (run / ".best.safetensors.abcd1234.tmp").write_bytes(b"half")  # debris too: a refusal leaves even that
    before = sorted(str(p) for p in run.rglob("*"))
    rc, err = resume(run, capsys, "--set", "generations=2")
    assert rc == 2 and err.startswith("error: ")
    assert sorted(str(p) for p in run.rglob("*")) == before  # a refused resume wrote nothing


def test_files_the_run_never_writes_are_never_read(finished, tmp_path, capsys):
    """Parts under other numbers (``part_00``, ``part_٣``, ``part_²``, one past the recipe's count), a
    ``.evil.tmp`` directory and a link named like a temporary file: left alone, never fitted; the next
    generation fits exactly its 1,000 decisions and the 1,000 it replays."""
    import shutil

    run = copy_run(finished, tmp_path)
    (run / "gen_2").mkdir()
    for g in (1, 2):
        for name in ("part_00.npz", "part_٣.npz", "part_².npz", "part_7.npz", "part_1.npz"):
            shutil.copyfile(run / "gen_1" / "part_0.npz", run / f"gen_{g}" / name)
        (run / f"gen_{g}" / ".evil.tmp").mkdir()
    (run / ".evil.tmp").mkdir()
    _link(run / ".best.safetensors.abcdefgh.tmp")
    rc, err = resume(run, capsys, "--set", "generations=2")
    assert rc == 0, err
    rows = ex.read_run_json(run / "generations.json", "generations")
    assert rows[1]["decisions"] == 1000 and rows[1]["fitted"] == 2000
    assert (run / ".evil.tmp").is_dir() and (run / ".best.safetensors.abcdefgh.tmp").is_symlink()


def test_a_resumed_generation_counts_the_recording_time_spent_before_the_resume(finished, tmp_path, capsys):
    """The seconds a killed process spent recording the next generation (``recording_s`` in
    generations.json, written after each part) are part of that generation's record_s and wall_s when a
    resume finishes it; a value the writer never writes is refused in one line."""
    import json

    run = copy_run(finished, tmp_path)
    data = json.loads((run / "generations.json").read_text())
    for bad in (-1.0, "5", None, 1e308):
        (run / "generations.json").write_text(json.dumps({**data, "recording_s": bad}))
        rc, err = resume(run, capsys, "--set", "generations=2")
        assert rc == 2 and "'recording_s'" in err
    (run / "generations.json").write_text(json.dumps({**data, "recording_s": 1000.0}))
    rc, err = resume(run, capsys, "--set", "generations=2")
    assert rc == 0, err
    rows = ex.read_run_json(run / "generations.json", "generations")
    assert 1000.0 < rows[1]["record_s"] < rows[1]["wall_s"] and rows[0] == data["generations"][0]
    assert "recording_s" not in json.loads((run / "generations.json").read_text())  # cleared with the row


def test_a_compressed_part_inflating_to_600_mb_is_refused_before_any_allocation(tmp_path):
    """A part of about 0.6 MB that inflates to 600 MB of zeros: refused from its headers at once,
    nothing allocated."""
    import resource
    import time
    import zipfile

    path = tmp_path / "part_0.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for key, shape in (("x", (500_000, 300)), ("mask", (1000, 40)), ("y", (1000,)), ("overrode", (1000,)),
                           ("q", (1000, 40))):
            with z.open(f"{key}.npy", "w", force_zip64=True) as f:
                np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": shape})
                size, block = math.prod(shape) * 4, bytes(1 << 24)
                for _ in range(size // len(block)):
                    f.write(block)
                f.write(bytes(size % len(block)))
    assert path.stat().st_size < 10_000_000
    peak, t0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.perf_counter()
    with pytest.raises(CheckpointError, match="recorded part .*(more than the run writes|expected)"):
        ex.load_part(path, 300, 40)
    assert time.perf_counter() - t0 < 5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 200_000  # KiB: under 200 MB more


def test_sigkill_at_random_moments_loses_nothing_and_leaves_no_debris(finished, tmp_path):
    """Killed while starting, recording, fitting or gating, then resumed: the same weights and verdict
    as the run never killed, the state's best on disk, no temporary files."""
    import subprocess
    import sys
    import time

    from safetensors.numpy import load_file

    root = Path(__file__).resolve().parent.parent
    start = [sys.executable, "-m", "pitch_cli", "exit", "--set", f"runs_dir={tmp_path}", "run_name=r", *SMALL]
    again = [sys.executable, "-m", "pitch_cli", "exit", "--resume", str(tmp_path / "r")]
    rng = random.Random(3)
    for delay in (rng.uniform(2, 14), rng.uniform(2, 14)):
        proc = subprocess.Popen(again if (tmp_path / "r" / "config.json").is_file() else start, cwd=root,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.kill()
        proc.wait()
    done = subprocess.run(again, cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    run = tmp_path / "r"
    rows, want = (ex.read_run_json(r / "generations.json", "generations") for r in (run, finished))
    assert [{k: v for k, v in r.items() if not k.endswith("_s")} for r in rows] == \
           [{k: v for k, v in r.items() if not k.endswith("_s")} for r in want]
    a, b = load_file(run / "gen_1" / "policy.safetensors"), load_file(finished / "gen_1" / "policy.safetensors")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    r = ex.Run(run)
    assert r.best_record["generation"] == 1 and r.holds_best(r.best)
    assert [p for p in run.rglob("*") if p.name.endswith(".tmp")] == []


def test_more_workers_than_the_machine_holds_is_refused_before_anything_is_written(tmp_path, capsys):
    import os

    from pitch_cli import main

    too_many = 4 * (os.cpu_count() or 1) + 1
    assert main(["exit", "--set", f"runs_dir={tmp_path}", "run_name=r", f"workers={too_many}"]) == 2
    err = capsys.readouterr().err
    assert f"key 'workers' {too_many}: this machine has" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_recording_plays_on_the_one_game_loop(monkeypatch):
    import pitch_env.loop

    calls = []
    real = pitch_env.loop.play
    monkeypatch.setattr(pitch_env.loop, "play", lambda *a, **k: calls.append(1) or real(*a, **k))
    part = ex.record_part(ex.ExitConfig(worlds=1), SHIPPED["setback"], 5, seed=3)
    assert len(part["y"]) == 5 and calls  # no game loop of its own


def test_a_search_told_not_to_read_the_bids_samples_its_worlds_from_play_alone(monkeypatch):
    """``read_bids=False`` (exit's ``read_bids: false``): the worlds never consult the bid model
    (agents/bidding.py through ``bid_misfit``), the batched worlds and the reference ones alike; by
    default they do, once the auction has bids to explain."""
    import agents.worlds

    rules = pitch_env.rules("auction")
    policy, _ = load_policy(SHIPPED["auction"], rules)
    calls = []
    real = agents.worlds.bid_misfit
    monkeypatch.setattr(agents.worlds, "bid_misfit", lambda v, hands: calls.append(1) or real(v, hands))
    for read_bids in (False, True):
        calls.clear()
        for batched in (False, True):
            search = NetSearch(policy, rules, 2, random.Random(3), batched=batched, read_bids=read_bids)
            g, rng, searched = Game(rules, seed=5), random.Random(4), 0
            while g.phase != OVER and g.hand_number <= 2:
                v = g.info_state(g.current_seat)
                if len(v.legal) > 1 and v.phase in (0, 4) and v.bids:
                    assert search.outcomes(v, list(v.legal)).shape == (len(v.legal), 2)
                    searched += 1
                g.apply(rng.choice(g.legal_actions()))
            assert searched >= 10
        assert bool(calls) == read_bids


TINY_PPO = """variant: auction
trainer: fast
critic: oracle
num_envs: 16
workers: 0
torch_threads: 1
total_steps: 30000
reward: game
hidden: [32, 32]
n_steps: 64
batch_size: 512
n_epochs: 1
snapshot_every: 8192
checkpoint_every: 4096
eval_every: 0
"""


def test_an_empty_start_train_leaves_the_start_to_start():
    cfg = ex.load_exit_config("configs/auction_scratch.yaml", ["start_train=", "start=checkpoints/auction_scratch_ppo"])
    assert cfg.start == "checkpoints/auction_scratch_ppo" and cfg.start_train == ""


def test_pitch_train_hands_expert_iteration_configs_and_runs_to_pitch_exit(tmp_path, capsys):
    """Every shipped recipe trains with `pitch train --config FILE`: a config that sets a key only
    expert iteration has, or a run folder that expert iteration wrote, goes to `pitch exit`."""
    import pitch_cli
    from train.cli import is_exit_recipe

    assert all(is_exit_recipe(str(p), None) for p in EXIT_CONFIGS)
    assert not any(is_exit_recipe(str(p), None) for p in CONFIGS_DIR.glob("*.yaml") if p not in EXIT_CONFIGS)
    (tmp_path / "bad.yaml").write_bytes(b"\xff\xfe")
    assert not is_exit_recipe(str(tmp_path / "bad.yaml"), None) and not is_exit_recipe(None, None)
    assert pitch_cli.main(["train", "--config", "configs/auction_scratch.yaml", "--set", "gate_min=2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "gate_min" in err and len(err.splitlines()) == 1  # refused by the expert-iteration config's checks
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text("[]")
    assert is_exit_recipe(None, str(tmp_path / "run"))
    assert pitch_cli.main(["train", "--resume", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert "config.json" in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_run_trains_its_start_first_in_one_command_and_resumes_after_a_stop(tmp_path):
    """``start_train``: generation 0 is the PPO run of a `pitch train` config, trained in RUN/start/ by the
    same command; Ctrl-C while it trains stops with the one resume command, which finishes both; the
    card counts both in its compute and gives one command as the recipe."""
    import signal
    import subprocess
    import sys
    import time

    from train.model_card import write_exit_card

    root = Path(__file__).resolve().parent.parent
    (tmp_path / "ppo.yaml").write_text(TINY_PPO)
    (tmp_path / "exit.yaml").write_text(
        f"variant: auction\nstart_train: {tmp_path / 'ppo.yaml'}\ngenerations: 1\ndecisions: 1000\nworlds: 1\n"
        f"worlds_from: dealt\ntarget: values\nvalue_weight: 2\nfold: true\nepochs: 1\ngate_games: 4\nworkers: 1\n"
        f"torch_threads: 1\nruns_dir: {tmp_path}\nrun_name: r\n")
    run = tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-m", "pitch_cli", "exit", "--config", str(tmp_path / "exit.yaml")],
                            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (run / "start" / "checkpoint").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)  # while generation 0 trains
    err = proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, err
    assert f"continue with: pitch exit --resume {run}" in err and "Traceback" not in err
    assert not (run / "generations.json").exists()  # no generation began on a start half trained
    # `pitch train` runs an expert-iteration run as `pitch exit` does: one command for every recipe
    done = subprocess.run([sys.executable, "-m", "pitch_cli", "train", "--resume", str(run)], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rules = pitch_env.rules("auction")
    start, card = load_policy(run / "start" / "checkpoint", rules)
    assert card["training_steps"] >= 30000
    from safetensors.numpy import load_file

    state = ex.Run(run)  # generation 0 was the trained start: the best is it, or the candidate fitted from it
    best = load_file(run / ("gen_1/policy.safetensors" if state.rows[0]["kept"] else "start/checkpoint/policy.safetensors"))
    assert len(state.rows) == 1 and state.holds_best(state.best)
    held = load_file(run / "best.safetensors")
    assert held.keys() == best.keys() and all(np.array_equal(held[k], best[k]) for k in held)
    assert load_policy(run / "gen_1" / "policy.safetensors", rules)[0].shape == start.shape  # folded: the start's size
    text = write_exit_card(run, tmp_path / "card", games=2, pimc="pimc:1", pimc_games=0, workers=1, seed=0,
                           config="configs/exit/x.yaml")
    assert "an expert-iteration `auction` agent, learned from nothing" in text
    assert f"nothing: {card['training_steps']:,} steps of PPO on the batched self-play core" in text
    recipe = text.split("## Recipe", 1)[1].split("\n## ", 1)[0]
    # it trains its own start, so its recipe is the one training command that runs both
    assert [line for line in recipe.splitlines() if line.startswith("pitch ")] == ["pitch train --config configs/exit/x.yaml"]
    assert "min of wall time in all on" in text and "min for generation 0 (`pitch train --config" in text
    shown = text.split("## Resolved config", 1)[1]
    assert '"start_train"' in shown and '"start"' not in shown and '"read_bids"' not in shown


@pytest.mark.parametrize("craft", ["start is a file", "checkpoint without its config"])
def test_a_crafted_start_folder_is_refused_in_one_line_before_any_training(tmp_path, capsys, craft):
    from dataclasses import asdict

    from pitch_cli import main

    run = tmp_path / "r"
    run.mkdir()
    cfg = ex.load_exit_config("configs/auction_scratch.yaml", [f"runs_dir={tmp_path}", "run_name=r"])
    ex.write_run_json(run / "config.json", config=asdict(cfg))
    if craft == "start is a file":
        (run / "start").write_text("x")
    else:
        (run / "start" / "checkpoint").mkdir(parents=True)
    assert main(["exit", "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and ("remove it" in err or "restore the file" in err)
    assert sorted(p.name for p in run.iterdir()) == ["config.json", "start"]  # nothing trained, nothing written


def test_a_starts_lineage_names_the_config_of_its_recipes_last_command_only(tmp_path):
    """A start made by `pitch fuse` after its members' `pitch train`/`pitch exit` lines names no config:
    the config of a member's command did not make it."""
    from train.model_card import agent_origin

    recipe = "## Recipe\n\n```\npitch train --config configs/a.yaml\npitch exit --config configs/exit/b.yaml\n{}```\n"
    (tmp_path / "fused").mkdir()
    (tmp_path / "fused" / "README.md").write_text(recipe.format("pitch fuse a b --out checkpoints/fused\n"))
    (tmp_path / "grown").mkdir()
    (tmp_path / "grown" / "README.md").write_text(recipe.format(""))
    assert agent_origin(str(tmp_path / "fused")) == "`fused`"
    assert agent_origin(str(tmp_path / "grown")) == "`grown` (configs/exit/b.yaml)"
    assert agent_origin(str(tmp_path / "none")) == "`none`"  # no card at all
    (tmp_path / "binary").mkdir()
    (tmp_path / "binary" / "README.md").write_bytes(b"## Recipe\n\xff\xfe --config x.yaml\n")
    assert agent_origin(str(tmp_path / "binary")) == "`binary`"  # not text: no recipe, no traceback


# ---------------------------------------------------------------- a run's action values fitted again
@pytest.fixture(scope="module")
def valued(tmp_path_factory):
    """A finished two-generation target: values run (not folded, weight 2; gate_min 0: generation 1 kept, so
    generation 2 starts from it), its fits replaying the generation before."""
    from pitch_cli import main

    root = tmp_path_factory.mktemp("values")
    assert main(["exit", "--set", f"runs_dir={root}", "run_name=v", *SMALL, "generations=2", "replay=2",
                 "target=values", "value_weight=2"]) == 0
    rows = ex.Run(root / "v").rows
    assert rows[0]["kept"] and rows[1]["fitted"] == 2000
    return root / "v"


def values_of(capsys, *argv) -> tuple[int, str, str]:
    """``pitch exit --values-of ...``'s exit status, stdout and stderr (failing on a traceback or a second
    line of error)."""
    from pitch_cli import main

    capsys.readouterr()
    rc = main(["exit", "--values-of", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and err.count("\n") <= 1, err
    return rc, out, err.strip()


def test_a_generations_values_fitted_again_fuse_with_its_start_into_exactly_its_candidate(valued, tmp_path, capsys):
    """The values ``--values-of`` writes, fused with the network the generation started from at the run's
    weight, are the generation's candidate to the bit: the same parts, seed and settings as its fit."""
    from pitch_policy.fuse import fuse

    rules = pitch_env.rules("setback")
    rc, out, err = values_of(capsys, str(valued), "--generation", "2", "--out", str(tmp_path / "values"))
    assert rc == 0, err
    row = ex.Run(valued).rows[1]
    assert "fitted 2,000 decisions" in out and f"loss {row['loss']:.6g} (the run's fit: {row['loss']:.6g})" in out
    start_path = valued / "gen_1" / "policy.safetensors"  # generation 1 was kept: generation 2 started there
    assert f"pitch fuse {start_path} {tmp_path / 'values' / 'policy.safetensors'} --weights 1,2 " in out
    values, card = load_policy(tmp_path / "values", rules)
    start, start_card = load_policy(start_path, rules)
    assert values.shape == start.shape and card["values_of"]["generation"] == 2 and "exit" not in card
    fused, _ = fuse([(start, start_card, "start"), (values, card, "values")], [1.0, 2.0])
    cand, _ = load_policy(valued / "gen_2" / "policy.safetensors", rules)
    assert len(fused.layers) == len(cand.layers)
    for (w, b), (cw, cb) in zip(fused.layers, cand.layers):
        assert np.array_equal(w, cw) and np.array_equal(b, cb)
    # generation 1 started from the run's start, and its values differ from generation 2's
    rc, out, err = values_of(capsys, str(valued), "--generation", "1", "--out", str(tmp_path / "v1.safetensors"),
                             "--set", "torch_threads=1")
    assert rc == 0, err
    assert f"pitch fuse {SHIPPED['setback']} " in out
    assert not np.array_equal(load_policy(tmp_path / "v1.safetensors", rules)[0].layers[-1][0], values.layers[-1][0])


@pytest.mark.parametrize("argv,words", [
    (["--generation", "3"], "finished generations 1 to 2"), (["--generation", "0"], "finished generations 1 to 2"),
    (["--generation", "1", "--set", "value_weight=4"], "only torch_threads"),
    (["--generation", "1", "--set", "torch_threads=0"], "'torch_threads'"),
    (["--generation", "1", "--config", "configs/exit/setback_recipe.yaml"], "go together"),
    (["--generation", "1", "--out", "EXISTS"], "exists"), (["--generation", "1", "--out", ""], "go together"),
    (["--generation", "1", "--out", "UNDER_A_FILE"], "a_file' is not a folder"),
    (["--generation", "1", "--out", "/proc/new/v.safetensors"], "cannot write there"),  # not after the fit
    (["--generation", "2", "MISSING_PART"], "part_0.npz' is missing"),
    (["--generation", "1", "SEARCH_RUN"], "only a target: values run"),
])
def test_values_of_refuses_bad_requests_in_one_line_before_any_fit(valued, finished, tmp_path, capsys, argv, words):
    run, out = valued, tmp_path / "out.safetensors"
    if "MISSING_PART" in argv or "SEARCH_RUN" in argv:
        run = copy_run(finished if "SEARCH_RUN" in argv else valued, tmp_path)
        if "MISSING_PART" in argv:
            (run / "gen_1" / "part_0.npz").unlink()  # generation 2's fit replays generation 1
        argv = argv[:-1]
    (tmp_path / "a_file").write_text("")
    named = {"EXISTS": str(valued / "best.safetensors"), "UNDER_A_FILE": str(tmp_path / "a_file" / "v.safetensors")}
    argv = [named.get(a, a) for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(out)]
    before = sorted(str(p) for p in run.rglob("*"))
    rc, _, err = values_of(capsys, str(run), *argv)
    assert rc == 2 and err.startswith("error: ") and words in err, err
    assert not out.exists() and sorted(str(p) for p in run.rglob("*")) == before


def test_a_fit_larger_than_the_machines_memory_is_refused_before_anything_is_recorded(valued, tmp_path, capsys,
                                                                                     monkeypatch):
    """A config whose fits would hold more decisions than the machine's memory is refused in one line
    before the run directory is made, not found out by the out-of-memory killer hours later; so is
    fitting such a generation's values again."""
    import agents.workers
    from pitch_cli import main

    rules = pitch_env.rules("setback")
    inputs = load_policy(SHIPPED["setback"], rules)[0].shape[0]
    per = ex.FIT_BYTES_PER_INPUT * inputs + ex.FIT_BYTES_PER_ACTION * ActionLayout(rules).size + 9
    monkeypatch.setattr(agents.workers, "total_memory", lambda: 1500 * per)  # 1,500 decisions fit
    capsys.readouterr()
    assert main(["exit", "--set", f"runs_dir={tmp_path}", "run_name=big", *SMALL, "decisions=2000"]) == 2
    err = capsys.readouterr().err
    assert "a fit of 2,000 decisions" in err and "lower decisions or replay" in err and err.count("\n") == 1
    assert not (tmp_path / "big").exists()
    # 1,000 a generation fit alone, but not with the generation before replayed (replay: 2)
    assert main(["exit", "--set", f"runs_dir={tmp_path}", "run_name=two", *SMALL, "generations=2", "replay=2"]) == 2
    assert "a fit of 2,000 decisions" in capsys.readouterr().err and not (tmp_path / "two").exists()
    rc, _, err = values_of(capsys, str(valued), "--generation", "2", "--out", str(tmp_path / "v2.safetensors"))
    assert rc == 2 and "a fit of 2,000 decisions" in err and not (tmp_path / "v2.safetensors").exists()
    cfg = ex.ExitConfig(decisions=2000)
    with pytest.raises(ConfigError, match="a fit of 2,000 decisions"):
        ex.check_fit_memory(cfg, range(1, 2), per // ex.FIT_BYTES_PER_INPUT, 0)
    monkeypatch.setattr(agents.workers, "total_memory", lambda: None)  # unknown: not checked
    ex.check_fit_memory(cfg, range(1, 2), per // ex.FIT_BYTES_PER_INPUT, 0)


def test_a_disk_that_fills_during_a_run_stops_it_in_one_line_that_says_how_to_continue(tmp_path, capsys, monkeypatch):
    from pitch_cli import main

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(ex, "run_exit", full)
    assert main(["exit", "--set", f"runs_dir={tmp_path}", "run_name=full", *SMALL]) == 2
    err = capsys.readouterr().err.strip()
    assert "No space left on device" in err and f"pitch exit --resume {tmp_path / 'full'}" in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_sigterm_to_the_whole_process_group_is_a_stop_not_a_crash(tmp_path):
    """``timeout``, a batch scheduler's preemption or ``kill -- -PGID`` send SIGTERM to every process of the
    job: the recording workers end with it, and the run says it stopped (with the command that continues
    it), not that the out-of-memory killer took a worker; the parts recorded before are kept."""
    import os
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parent.parent
    (tmp_path / "exit.yaml").write_text(
        "variant: setback\nstart: checkpoints/setback_dealt\ngenerations: 1\ndecisions: 200000\nworlds: 1\n"
        f"worlds_from: dealt\ntarget: values\nfold: true\nworkers: 2\ntorch_threads: 1\nruns_dir: {tmp_path}\n"
        "run_name: r\n")
    gen = tmp_path / "r" / "gen_1"
    proc = subprocess.Popen([sys.executable, "-m", "pitch_cli", "exit", "--config", str(tmp_path / "exit.yaml")],
                            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while not (gen.is_dir() and any(gen.glob("part_*.npz"))) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # the parent back to waiting on its workers, not between two parts
    assert proc.poll() is None, proc.communicate()[1]  # still recording: its error otherwise
    os.killpg(proc.pid, signal.SIGTERM)  # the parent and both workers
    err = proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, err
    assert f"stopped; continue with: pitch exit --resume {tmp_path / 'r'}" in err, err
    assert "killed" not in err and "Traceback" not in err
    assert any(gen.glob("part_*.npz")) and not list(gen.glob("*.tmp*"))
