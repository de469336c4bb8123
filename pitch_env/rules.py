"""The rules object: every option of docs/rules.md §2 in one typed, immutable value.

Build one from a preset plus overrides, ``rules("auction", num_players=5)``, then hand that one
object on: ``pitch_env.env(r)``, ``Game(r)``, ``agents.make(spec, r)`` and ``run_tournament(r, …)``
take it as it is. Code branches on these fields, never on the preset's name; ``validate`` refuses
impossible mixes with a message that names the option, the bad value and what is allowed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .scoring import SCHEMES

# 10 Point Pitch: after the exchange every hand is refilled to (or discarded down to) 6 cards.
EXCHANGE_HAND_SIZE = 6


@dataclass(frozen=True, slots=True)
class Rules:
    """One rule set. Each field is one option of docs/rules.md §2 (plus two stated below)."""

    variant: str  # the preset these rules started from (informational only)
    num_players: int  # seats at the table, numbered clockwise
    player_counts: tuple[int, ...]  # the numbers of players these rules may be played by
    partnerships: bool  # partners sit alternately (4 or 6 players); else every seat is a side
    deck: int  # 52, or 54 with the two jokers (which are always trumps)
    hand_size: int  # cards dealt to each seat
    min_bid: int  # lowest numeric bid
    max_bid: int  # highest numeric bid
    shoot: str  # "none", "dealer_double" (dealer only, ±8), "moon" (game won or lost)
    bid_ends_auction: int | str | None  # a bid this high ("shoot" for the shoot bid) closes the auction at once
    all_pass: str  # "redeal" (hand thrown in) or "stick_dealer" (the dealer must bid)
    stick_min: int  # the dealer's lowest forced bid under stick_dealer
    dealer_may_steal: bool  # the dealer may bid equal to the high bid and take it
    trump_by: str  # "first_lead" (the pitch sets trump) or "declare" (a trump action)
    follow: str  # "any", "follow_or_trump", "trumps_only" (trumps_only brings the stock exchange)
    scoring: str  # "four_point" (High, Low, Jack, Game) or "ten_point" (trump point cards)
    low_to: str  # "holder" (seat dealt the lowest trump) or "capturer" (winner of its trick)
    made_scores: str  # a made bid scores "points_won" or the "bid"
    target_score: int  # score that ends the game
    win_rule: str  # "first_to_target" (bidder goes out) or "pitcher_only"
    max_hands: int  # hands (thrown-in ones included) before the game is truncated
    off_jack: bool  # the other jack of trump's colour is a trump, ranked below the jack (as in 10 Point Pitch)
    first_dealer: int | str  # seat that deals the first hand, or "random" (from the game's seed)

    # ----- derived facts, kept here so that a rule is read in one place -----
    @property
    def num_sides(self) -> int:
        # Partnerships are always two teams sitting alternately (4 players: 2+2, 6 players: 3+3).
        return 2 if self.partnerships else self.num_players

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        k = self.num_sides
        return tuple(tuple(range(i, self.num_players, k)) for i in range(k))

    def side_of(self, seat: int) -> int:
        return seat % self.num_sides

    @property
    def uses_stock(self) -> bool:
        """Only trumps can be played, so non-trumps are swapped for stock cards (10 Point Pitch)."""
        return self.follow == "trumps_only"

    @property
    def max_hand_points(self) -> int:
        return SCHEMES[self.scoring].max_hand_points

    @property
    def numeric_bids(self) -> range:
        return range(self.min_bid, self.max_bid + 1)

    def as_dict(self) -> dict[str, Any]:
        """The options as game records and policy cards store them: every field but
        ``player_counts``, which belongs to the preset named by ``variant``."""
        d = dataclasses.asdict(self)
        del d["player_counts"]
        return d


_COMMON = dict(
    deck=52, hand_size=6, min_bid=1, max_bid=4, shoot="none", bid_ends_auction=None,
    all_pass="redeal", stick_min=1, dealer_may_steal=False, trump_by="first_lead",
    follow="any", scoring="four_point", low_to="holder", made_scores="points_won",
    target_score=11, win_rule="first_to_target", max_hands=200, off_jack=False,
    first_dealer=0, num_players=4,
)

# A new game is one more entry here (plus, for a new way of scoring, a row of scoring.SCHEMES).
PRESETS: dict[str, dict[str, Any]] = {
    # Pitch / Setback: 2 to 4 players, no follow-suit rule.
    "setback": dict(_COMMON, player_counts=(2, 3, 4)),
    # Auction Pitch: each for themselves; 4 "pitches"; the dealer is stuck or steals.
    "auction": dict(
        _COMMON, player_counts=(2, 3, 4, 5, 6, 7), partnerships=False, bid_ends_auction=4,
        all_pass="stick_dealer", stick_min=2, dealer_may_steal=True, follow="follow_or_trump",
        target_score=7, win_rule="pitcher_only",
    ),
    # 10 Point Pitch: 4 players in partnerships, 54 cards, declared trump, stock exchange, only trumps played.
    "ten_point": dict(
        _COMMON, player_counts=(4,), partnerships=True, deck=54, hand_size=9, min_bid=4, max_bid=10,
        shoot="moon", bid_ends_auction="shoot", all_pass="stick_dealer", stick_min=4, trump_by="declare",
        follow="trumps_only", scoring="ten_point", low_to="capturer", made_scores="bid",
        target_score=52, off_jack=True,
    ),
}
# Player counts each preset allows, by preset name (a copy of the presets' player_counts).
PRESET_PLAYERS = {name: preset["player_counts"] for name, preset in PRESETS.items()}
# No game here is played by fewer or more (docs/rules.md §2, num_players row).
MIN_PLAYERS, MAX_PLAYERS = 2, 7

_CHOICES = {
    "deck": (52, 54),
    "shoot": ("none", "dealer_double", "moon"),
    "all_pass": ("redeal", "stick_dealer"),
    "trump_by": ("first_lead", "declare"),
    "follow": ("any", "follow_or_trump", "trumps_only"),
    "scoring": tuple(SCHEMES),
    "low_to": ("holder", "capturer"),
    "made_scores": ("points_won", "bid"),
    "win_rule": ("first_to_target", "pitcher_only"),
}
# The values each option with a fixed set may take, for code that draws or checks rule mixes (the batched engine).
CHOICES = _CHOICES
_FIELD_TYPES = {f.name: f.type for f in dataclasses.fields(Rules)}


def variants() -> tuple[str, ...]:
    """Names of the presets, e.g. ``("setback", "auction", "ten_point")``."""
    return tuple(PRESETS)


def differing_options(variant: str, options: dict[str, Any]) -> list[str]:
    """The options of ``options`` (as ``Rules.as_dict`` writes them) that differ from preset ``variant``
    at the same number of players; every option when the preset is not played by that many."""
    try:
        base = rules(variant, num_players=options.get("num_players")).as_dict()
    except (TypeError, ValueError):
        return [k for k in options if k != "variant"]
    return [k for k, v in options.items() if k != "variant" and base.get(k) != v]


def preset_of(options: dict[str, Any]) -> str | None:
    """The preset whose rules ``options`` are exactly (at their number of players), if any."""
    return next((name for name in PRESETS if not differing_options(name, options)), None)


def rules(variant: str | Rules = "setback", **overrides: Any) -> Rules:
    """The rules of a preset (or of a Rules) with some options changed, validated; a Rules without
    overrides is returned itself, so the object built from the command line is the one the engine reads."""
    if isinstance(variant, Rules):
        if not overrides:
            validate(variant)  # built by hand (dataclasses.replace) it has not been checked yet
            return variant
        base = dataclasses.asdict(variant)
        variant = base.pop("variant")
    elif variant in PRESETS:
        base = dict(PRESETS[variant])
    else:
        raise ValueError(f"unknown variant {variant!r}: choose one of {', '.join(PRESETS)}")
    unknown = sorted(set(overrides) - set(_FIELD_TYPES))
    if unknown:
        raise ValueError(
            f"unknown rules option {unknown[0]}={overrides[unknown[0]]!r}: "
            f"the options are {', '.join(sorted(set(_FIELD_TYPES) - {'variant'}))}"
        )
    base.update(overrides)
    if isinstance(base["player_counts"], list):  # as YAML and JSON write a tuple
        base["player_counts"] = tuple(base["player_counts"])
    if "partnerships" not in base:  # setback: partnerships at 4 players, solo otherwise
        base["partnerships"] = base["num_players"] == 4
    r = Rules(variant=variant, **base)
    validate(r)
    return r


def _fail(option: str, value: Any, allowed: str) -> None:
    raise ValueError(f"rules option {option}={value!r} is not allowed: {allowed}")


def validate(r: Rules) -> None:
    """Raise ValueError naming the first impossible option of ``r``."""
    for name, choices in _CHOICES.items():
        value = getattr(r, name)
        # type() as well: True == 1 and 52.0 == 52 would otherwise slip through.
        if value not in choices or type(value) is not type(choices[0]):
            _fail(name, value, f"choose one of {', '.join(map(repr, choices))}")
    for name in ("num_players", "hand_size", "min_bid", "max_bid", "stick_min", "target_score", "max_hands"):
        value = getattr(r, name)
        if not isinstance(value, int) or isinstance(value, bool):
            _fail(name, value, "it must be an integer")
    for name in ("partnerships", "dealer_may_steal", "off_jack"):
        if not isinstance(getattr(r, name), bool):
            _fail(name, getattr(r, name), "it must be True or False")
    counts = r.player_counts
    if (not isinstance(counts, tuple) or not counts
            or any(type(c) is not int or not MIN_PLAYERS <= c <= MAX_PLAYERS for c in counts)):
        _fail("player_counts", counts, f"give a tuple of player counts from {MIN_PLAYERS} to {MAX_PLAYERS}")
    if r.num_players not in counts:
        _fail("num_players", r.num_players, f"the {r.variant} rules are played by {', '.join(map(str, counts))} "
              f"players (player_counts={counts!r}: add {r.num_players} to it to try it anyway)")
    if r.partnerships and r.num_players not in (4, 6):
        _fail("partnerships", True, f"partnerships need 4 or 6 players, not {r.num_players}; use partnerships=False")
    if r.hand_size < 1 or r.num_players * r.hand_size > r.deck:
        _fail("hand_size", r.hand_size, f"{r.num_players} hands of it must fit in the {r.deck}-card deck")
    top = r.max_hand_points
    if not 1 <= r.min_bid <= r.max_bid <= top:
        _fail("min_bid/max_bid", (r.min_bid, r.max_bid), f"need 1 <= min_bid <= max_bid <= {top} ({r.scoring} scoring gives at most {top} points a hand)")
    if not r.min_bid <= r.stick_min <= r.max_bid:
        _fail("stick_min", r.stick_min, f"it must lie between min_bid={r.min_bid} and max_bid={r.max_bid}")
    end = r.bid_ends_auction
    if end is not None:
        if end == "shoot":
            if r.shoot == "none":
                _fail("bid_ends_auction", end, "there is no shoot bid with shoot='none'")
        elif not isinstance(end, int) or isinstance(end, bool) or not r.min_bid <= end <= r.max_bid:
            _fail("bid_ends_auction", end, f"use None, 'shoot', or a bid from {r.min_bid} to {r.max_bid}")
    if r.follow == "trumps_only" and r.trump_by != "declare":
        _fail("follow", r.follow, "only trumps can be played once trump is known before play: set trump_by='declare'")
    if r.uses_stock and r.hand_size < EXCHANGE_HAND_SIZE:
        _fail("hand_size", r.hand_size, f"the stock exchange refills hands to {EXCHANGE_HAND_SIZE}; deal at least that many")
    if not r.uses_stock and r.hand_size > 13:
        _fail("hand_size", r.hand_size, "at most 13 tricks can be played without the stock exchange")
    if SCHEMES[r.scoring].point_cards and r.low_to != "capturer":
        _fail("low_to", r.low_to, f"{r.scoring} scoring gives the 2 of trump to whoever captures it: use low_to='capturer'")
    if r.target_score < 1:
        _fail("target_score", r.target_score, "it must be at least 1")
    if r.max_hands < 1:
        _fail("max_hands", r.max_hands, "it must be at least 1")
    fd = r.first_dealer
    if fd != "random" and (not isinstance(fd, int) or isinstance(fd, bool) or not 0 <= fd < r.num_players):
        _fail("first_dealer", fd, f"use 'random' or a seat from 0 to {r.num_players - 1}")
    if r.deck == 54 and r.trump_by == "first_lead":
        _fail("deck", 54, "a joker has no suit to set trump by the first lead: use trump_by='declare' with jokers")
