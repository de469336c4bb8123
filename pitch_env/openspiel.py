"""Pitch as OpenSpiel Python games: importing this module registers ``python_pitch_setback``,
``python_pitch_auction`` and ``python_pitch_ten_point`` with pyspiel (``pip install pitch-rl[openspiel]``).

The deal is explicit chance: one chance node per card, dealt in the engine's order (packets of three
from the dealer's left), then, where the rules use a stock, each stock card top first. Rules options
are game parameters (``pyspiel.load_game("python_pitch_auction(num_players=5)")``). Returns are the
env's game reward: +1 to each seat of the winning side, -1/(sides-1) to the others, 0 if truncated.

Information state: the string is the seat's whole history (its cards, every public move, its own
discards and draws) over the whole game; the tensor is the env's observation plus the trick each
played card fell in, which recalls the current hand move by move (earlier hands through the scores).
``resample_from_infostate`` deals the unseen cards again, replaying the game through its own moves.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from .cards import CARD_NAMES
from .engine import DISCARD, Game, IllegalActionError
from .infoset import infoset
from .observer import Observer
from .rules import PRESETS, Rules, rules as make_rules

# Rules options as pyspiel parameters. pyspiel has no None and no int-or-str, and reads a game
# string's "4" back as an int, so bid_ends_auction travels as an int: 0 for None (no bid closes the
# auction), -1 for "shoot"; partnerships as "auto" (the preset's rule for the table size), "true",
# "false"; first_dealer as a seat ("random" is refused: a dealer drawn from a seed is not chance).
_ENDS = {None: 0, "shoot": -1}
_AUTO = "auto"


def _parameters(variant: str) -> dict:
    spec = {}
    for name, value in PRESETS[variant].items():
        if name == "player_counts":  # the preset's fact, not a game parameter (pyspiel takes no tuples)
            continue
        if name == "first_dealer":
            value = int(value)
        elif name == "bid_ends_auction":
            value = _ENDS.get(value, value)
        spec[name] = value
    spec["partnerships"] = _AUTO
    return spec


def _rules(variant: str, params: dict) -> Rules:
    options = {}
    for name, value in params.items():
        if name == "bid_ends_auction":
            value = {v: k for k, v in _ENDS.items()}.get(value, value)
        elif name == "partnerships":
            if value == _AUTO:
                continue
            if value not in ("true", "false"):
                raise ValueError(f"game parameter partnerships={value!r}: use 'auto', 'true' or 'false'")
            value = value == "true"
        options[name] = value
    return make_rules(variant, **options)


def _deal_order(r: Rules, dealer: int) -> list[int]:
    """The seat each dealt card goes to, in the engine's order: packets of three from the dealer's left."""
    n, held, order = r.num_players, [0] * r.num_players, []
    while len(order) < n * r.hand_size:
        for i in range(1, n + 1):
            seat = (dealer + i) % n
            take = min(3, r.hand_size - held[seat])
            order += [seat] * take
            held[seat] += take
    return order


_RESAMPLE_RNG = random.Random(0)  # seeded: a search over a seeded game can be repeated


class PitchGame(pyspiel.Game):
    """One Pitch game of a rule set, hand after hand, as an OpenSpiel game."""

    def __init__(self, variant: str, game_type: pyspiel.GameType, params=None):
        self.rules = _rules(variant, dict(params or {}))
        r = self.rules
        self.observer = Observer(r)
        self.num_actions = Game(r, seed=0).layout.size
        cards_per_hand = r.deck if r.uses_stock else r.num_players * r.hand_size
        # A hand: its chance cards, the auction, a declaration, the stock decisions and the
        # exchange, then every card (an upper bound, ample).
        moves_per_hand = cards_per_hand + 3 * r.num_players + 2 * r.deck
        info = pyspiel.GameInfo(
            num_distinct_actions=self.num_actions, max_chance_outcomes=r.deck, num_players=r.num_players,
            min_utility=-1.0, max_utility=1.0, utility_sum=0.0, max_game_length=r.max_hands * moves_per_hand)
        super().__init__(game_type, info, params or {})

    def new_initial_state(self):
        return PitchState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observer parameters are not supported; got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return PitchObserver(self, perfect_recall)


class PitchState(pyspiel.State):
    """The chance cards and moves so far, and the engine ``Game`` they made (the engine is the only
    rule book: this class tracks who saw what and when the next deal is due)."""

    def __init__(self, game: PitchGame):
        super().__init__(game)
        self.rules = game.rules
        self.history_actions = []  # (player or CHANCE, action), in order
        self.deals = []  # complete deals: (hands per seat, stock)
        self.dealing = []  # the cards of the deal in progress, in chance order
        self._hand_start_game = None  # the engine game as the current hand began
        self._hand_moves = []  # the player moves of the current hand
        self.game = None  # the engine game, once the first deal is complete
        self.logs = [[] for _ in range(self.rules.num_players)]  # what each seat has seen, in order
        self._draws_seen = [0] * self.rules.num_players
        self._stock_to = None

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self):
        if self.game is not None and self.game.is_over:
            return pyspiel.PlayerId.TERMINAL
        if self._in_deal():
            return pyspiel.PlayerId.CHANCE
        return self.game.current_seat

    def _in_deal(self) -> bool:
        return self.game is None or self.game.hand_number > len(self.deals)

    def _legal_actions(self, player):
        return sorted(self.game.legal_actions())

    def chance_outcomes(self):
        left = sorted(set(range(self.rules.deck)) - set(self.dealing))
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action):
        if self._in_deal():
            self.history_actions.append((pyspiel.PlayerId.CHANCE, action))
            self._deal(action)
        else:
            self.history_actions.append((self.game.current_seat, action))
            self._move(action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARD_NAMES[action]}"
        return self.game.layout.names[action]

    def is_terminal(self):
        return self.game is not None and self.game.is_over

    def returns(self):
        r, n = self.rules, self.rules.num_players
        if not self.is_terminal() or self.game.winner is None:
            return [0.0] * n
        k = r.num_sides
        return [1.0 if r.side_of(s) == self.game.winner else -1.0 / (k - 1) for s in range(n)]

    def information_state_string(self, player=None):
        player = self.current_player() if player is None else player
        return f"seat {player}: " + " ".join(self.logs[player])

    def observation_string(self, player=None):
        player = self.current_player() if player is None else player
        return "dealing" if self._in_deal() else repr(infoset(self.game, player))

    def resample_from_infostate(self, player_id, probability_sampler=None):
        """A state ``player_id`` cannot tell from this one: the cards it has not seen dealt again at
        random (each other seat keeps the cards it has shown), replayed move by move; deals that
        the moves refute (a void shown, a card that was not there) are drawn again."""
        rng = _RESAMPLE_RNG
        for _ in range(1000):
            history = self._resampled_history(player_id, rng)
            twin = self.get_game().new_initial_state()
            try:
                for _, action in history:
                    twin.apply_action(action)
            except (IllegalActionError, pyspiel.SpielError, RuntimeError):
                continue
            if twin.information_state_string(player_id) == self.information_state_string(player_id):
                return twin
        raise RuntimeError("no consistent deal found in 1000 draws")

    def __str__(self):
        return " ".join(self._action_to_string(p, a) for p, a in self.history_actions) if self.game is None \
            else f"hand {self.game.hand_number}, {self.game.phase_name}, scores {self.game.scores}"

    # ------------------------------------------------------------------ the deal
    def _dealer(self) -> int:
        return self.rules.first_dealer if self.game is None else self.game.dealer

    def _deal(self, card: int) -> None:
        r = self.rules
        if not self.dealing:
            for log in self.logs:
                log.append(f"| hand {len(self.deals) + 1} dealer {self._dealer()}")
        order = _deal_order(r, self._dealer())
        position = len(self.dealing)
        self.dealing.append(card)
        if position < len(order):
            self.logs[order[position]].append(f"dealt {CARD_NAMES[card]}")
        if len(self.dealing) < (r.deck if r.uses_stock else len(order)):
            return
        hands = [[] for _ in range(r.num_players)]
        for seat, c in zip(order, self.dealing):
            hands[seat].append(c)
        deal = {"deal": hands, "stock": self.dealing[len(order):]}
        self.deals.append(deal)
        self.dealing = []
        self._draws_seen = [0] * r.num_players
        self._stock_to = None
        if self._hand_start_game is None:
            game = Game(r, seed=0, deals=[deal])
        else:
            # The engine deals the next hand the moment a hand ends, from ``deals`` if it holds it:
            # so the last hand is played again from its start with this deal added to the schedule.
            game = self._hand_start_game.clone()
            game.deals = game.deals + Game(r, seed=0, deals=[deal]).deals  # a new list: clones share the old
            for move in self._hand_moves:
                game.apply_legal(move)
        self.game, self._hand_start_game, self._hand_moves = game, game.clone(), []

    # ------------------------------------------------------------------ the moves
    def _move(self, action: int) -> None:
        game = self.game
        seat, phase = game.current_seat, game.phase
        name = game.layout.names[action]
        game.apply(action)
        self._hand_moves.append(action)
        hidden = f"{seat}:discard" if phase == DISCARD else None  # others' discards are private
        for viewer, log in enumerate(self.logs):
            log.append(f"{seat}:{name}" if hidden is None or viewer == seat else hidden)
        if game.hand_number > len(self.deals) or game.is_over:
            return  # the hand ended: the next deal (or nothing) follows
        for s, drawn in enumerate(game.draws):
            if len(drawn) > self._draws_seen[s]:
                new = drawn[self._draws_seen[s]:]
                for viewer, log in enumerate(self.logs):
                    log.append(f"draw {' '.join(CARD_NAMES[c] for c in new)}" if viewer == s
                               else f"{s}:draws {len(new)}")
                self._draws_seen[s] = len(drawn)
        if game.stock_to != self._stock_to:
            self._stock_to = game.stock_to
            for log in self.logs:
                log.append(f"stock to {game.stock_to}")

    # ------------------------------------------------------------------ resampling
    def _resampled_history(self, viewer: int, rng: random.Random) -> list:
        """This state's history with the current hand's unseen dealt cards shuffled among the
        other seats (earlier hands are over: their cards change nothing to come)."""
        r = self.rules
        if self._in_deal() or self.game is None:
            return list(self.history_actions)
        game = self.game
        start = self._hand_start()
        deal = self.deals[-1]
        hands, stock = deal["deal"], deal["stock"]
        shown = [set() for _ in range(r.num_players)]  # cards each seat has put on the table
        for _, plays, _ in game.tricks:
            for s, c in plays:
                shown[s].add(c)
        for s, c in game.trick:
            shown[s].add(c)
        for s in range(r.num_players):
            shown[s] |= set(game.discards[s])  # kept: the viewer sees neither them nor their absence
        keep = [set(h) if s == viewer else set(h) & shown[s] for s, h in enumerate(hands)]
        pool = [c for s, h in enumerate(hands) for c in h if c not in keep[s]]
        if not r.uses_stock:
            dealt = {c for h in hands for c in h}
            pool += [c for c in range(r.deck) if c not in dealt]
        rng.shuffle(pool)
        new_hands = []
        for s, h in enumerate(hands):
            fresh = [c for c in h if c in keep[s]]
            while len(fresh) < len(h):
                fresh.append(pool.pop())
            new_hands.append(fresh)
        order = _deal_order(r, self._dealer_of_current_hand())
        cursor = [0] * r.num_players
        chance = []
        for seat in order:
            chance.append(new_hands[seat][cursor[seat]])
            cursor[seat] += 1
        if r.uses_stock:
            chance += list(stock)
        history = list(self.history_actions[:start])
        history += [(pyspiel.PlayerId.CHANCE, c) for c in chance]
        history += [pa for pa in self.history_actions[start + len(chance):]]
        return history

    def _hand_start(self) -> int:
        """Index in the history of the current hand's first chance card."""
        cards = self.rules.deck if self.rules.uses_stock else self.rules.num_players * self.rules.hand_size
        index = len(self.history_actions)
        while True:
            index -= 1
            if self.history_actions[index][0] == pyspiel.PlayerId.CHANCE:
                return index - cards + 1

    def _dealer_of_current_hand(self) -> int:
        return self.game.dealer


class PitchObserver:
    """OpenSpiel's PyObserver: the env's observation pieces (pitch_env/observer.py), plus, for the
    information state, the trick each card was played in (so the hand is recalled move by move)."""

    def __init__(self, game: PitchGame, perfect_recall: bool):
        r = game.rules
        self.observer, self.perfect_recall = game.observer, perfect_recall
        self.tricks = r.hand_size
        extra = r.deck * self.tricks if perfect_recall else 0
        self.tensor = np.zeros(self.observer.size + extra, np.float32)
        self.dict = self.observer.views(self.tensor[:self.observer.size])
        if perfect_recall:
            self.dict["trick_of_card"] = self.tensor[self.observer.size:].reshape(r.deck, self.tricks)

    def set_from(self, state: PitchState, player: int) -> None:
        self.tensor.fill(0.0)
        if state.game is None or state._in_deal():
            return  # a deal in progress: nothing of this hand is known yet
        self.observer.encode(state.game, player, out=self.tensor[:self.observer.size])
        if self.perfect_recall:
            for t, (_, plays, _) in enumerate(state.game.tricks):
                for _, card in plays:
                    self.dict["trick_of_card"][card, t] = 1.0
            for _, card in state.game.trick:
                self.dict["trick_of_card"][card, len(state.game.tricks)] = 1.0

    def string_from(self, state: PitchState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_string(player)
        return state.observation_string(player)


def _register(variant: str) -> None:
    game_type = pyspiel.GameType(
        short_name=f"python_pitch_{variant}",
        long_name=f"Python Pitch ({variant})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=7,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(variant),
    )
    # A class per variant, as pyspiel expects (a closure as the factory crashes the interpreter's exit).
    game_class = type(f"Pitch{variant.title().replace('_', '')}Game", (PitchGame,), {
        "__init__": lambda self, params=None: PitchGame.__init__(self, variant, game_type, params)})
    globals()[game_class.__name__] = game_class
    pyspiel.register_game(game_type, game_class)


for _variant in PRESETS:
    _register(_variant)
