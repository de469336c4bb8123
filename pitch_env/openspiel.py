"""Pitch as OpenSpiel Python games: importing this module registers ``python_pitch_setback``,
``python_pitch_auction`` and ``python_pitch_ten_point`` with pyspiel (``pip install pitch-rl[openspiel]``).

The deal is explicit chance: one chance node per card, dealt in the engine's order (packets of three
from the dealer's left), then, where the rules use a stock, each stock card top first. Rules options
are game parameters (``pyspiel.load_game("python_pitch_auction(num_players=5)")``, pitch_env/spiel_params.py):
importing also wraps ``pyspiel.load_game`` so that a ``python_pitch_*`` game string or dict is read and
checked there first (pyspiel's own parser merges a repeated name silently, fails on big ints without naming
them and cannot pass ``partnerships=true`` to a string parameter); other games pass through untouched.
Returns are the env's game reward: +1 to each seat of the winning side, -1/(sides-1) to the others, 0
if truncated.

Information state: the string is the seat's whole history (its cards, every public move, its own
discards and draws) over the whole game; the tensor is the env's observation plus the trick each
played card fell in, which recalls the current hand move by move (earlier hands through the scores).
``resample_from_infostate`` deals the current hand again as the seat may believe it (pitch_env/redeal.py)
and replays the game through it. A state clones in constant time (OpenSpiel clones at every step).
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from .cards import CARD_NAMES
from .engine import DISCARD, Game
from .infoset import infoset
from .observer import Observer
from .redeal import redeal
from .rules import PRESETS, Rules
from .spiel_params import INT_MAX, PREFIX, check_parameters, game_rules, parameters, read_game_string, short

_pyspiel_load_game = getattr(pyspiel.load_game, "__wrapped__", pyspiel.load_game)


def load_game(game, params=None):
    """``pyspiel.load_game``, with a Pitch game's parameters checked here first (one-line ValueErrors
    that name the parameter and the fix); any other game goes straight to pyspiel."""
    variant = game[len(PREFIX):].partition("(")[0] if isinstance(game, str) and game.startswith(PREFIX) else None
    if variant not in PRESETS:
        return _pyspiel_load_game(game) if params is None else _pyspiel_load_game(game, params)
    if params is None:
        game, params = read_game_string(game)
    elif "(" in game:
        raise ValueError(f"give the parameters of {short(game)} in the game string or in the dict, not both")
    return _pyspiel_load_game(game, check_parameters(variant, dict(params)))


load_game.__wrapped__ = _pyspiel_load_game
pyspiel.load_game = load_game


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


def _chance_cards(r: Rules) -> int:
    """Chance nodes per hand: every card, where a stock is dealt too; else the dealt cards."""
    return r.deck if r.uses_stock else r.num_players * r.hand_size


_RESAMPLE_RNG = random.Random(0)  # seeded: a search over a seeded game can be repeated


class PitchGame(pyspiel.Game):
    """One Pitch game of a rule set, hand after hand, as an OpenSpiel game."""

    def __init__(self, variant: str, game_type: pyspiel.GameType, params=None):
        self.rules = game_rules(variant, dict(params or {}))
        r = self.rules
        self.observer = Observer(r)
        self.num_actions = Game(r, seed=0).layout.size
        # A hand: its chance cards, the auction, a declaration, the stock decisions and the
        # exchange, then every card (an upper bound, ample).
        moves_per_hand = _chance_cards(r) + 3 * r.num_players + 2 * r.deck
        if r.max_hands * moves_per_hand > INT_MAX:
            raise ValueError(f"game parameter max_hands={r.max_hands} is too many for OpenSpiel: the game's "
                             f"length ({moves_per_hand} moves a hand) must fit a 32-bit int; use max_hands <= "
                             f"{INT_MAX // moves_per_hand}")
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


def _joined(log: tuple) -> str:
    done, hand = log
    rest = " ".join(hand)
    return f"{done} {rest}" if done and rest else done or rest


def _told(log: tuple, entry: str) -> tuple:
    """A seat's log with ``entry`` added. A log is (earlier hands as one string, this hand's entries):
    copies share the string, and the information state string joins a hand's entries, not the game's."""
    if entry.startswith("| hand"):
        return _joined(log), (entry,)
    return log[0], log[1] + (entry,)


class _Progress:
    """What a PitchState tracks between moves, in one attribute because OpenSpiel clones a Python
    state by deep-copying each attribute: this copies in constant time (the engine game by its own
    ``clone()``; the rest is immutable and shared)."""

    __slots__ = ("rules", "game", "hand_start", "hand_moves", "deals", "dealing", "logs", "draws_seen", "stock_to")

    def __init__(self, rules: Rules):
        n = rules.num_players
        self.rules = rules
        self.game = None  # the engine game, once the first deal is complete
        self.hand_start = None  # the engine game as the current hand began (never changed: cloned to use)
        self.hand_moves = ()  # the player moves of the current hand
        self.deals = ()  # complete deals: {"deal": hands per seat, "stock": cards}
        self.dealing = ()  # the cards of the deal in progress, in chance order
        self.logs = (("", ()),) * n  # what each seat has seen, in order (see _told)
        self.draws_seen = (0,) * n
        self.stock_to = None

    def __deepcopy__(self, memo) -> "_Progress":
        p = object.__new__(_Progress)
        for name in _Progress.__slots__:
            setattr(p, name, getattr(self, name))
        if self.game is not None:
            p.game = self.game.clone()
        return p


class PitchState(pyspiel.State):
    """The chance cards and moves so far, and the engine ``Game`` they made (the engine is the only
    rule book: this class tracks who saw what and when the next deal is due)."""

    def __init__(self, game: PitchGame):
        super().__init__(game)
        self._p = _Progress(game.rules)

    # Read-only views for users and tests; the state itself lives in ``_p``.
    @property
    def rules(self) -> Rules:
        return self._p.rules

    @property
    def game(self) -> Game | None:
        return self._p.game

    @property
    def deals(self) -> list:
        return list(self._p.deals)

    @property
    def history_actions(self) -> list:
        """(player, action) of every move so far, chance (-1) included, in order."""
        return [(int(pa.player), int(pa.action)) for pa in self.full_history()]

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self):
        game = self._p.game
        if game is not None and game.is_over:
            return pyspiel.PlayerId.TERMINAL
        if self._in_deal():
            return pyspiel.PlayerId.CHANCE
        return game.current_seat

    def _in_deal(self) -> bool:
        return self._p.game is None or self._p.game.hand_number > len(self._p.deals)

    def _legal_actions(self, player):
        return sorted(self._p.game.legal_actions())

    def chance_outcomes(self):
        dealt = set(self._p.dealing)
        left = [c for c in range(self.rules.deck) if c not in dealt]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action):
        if self._in_deal():
            self._deal(action)
        else:
            self._move(action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARD_NAMES[action]}"
        return self._p.game.layout.names[action]

    def is_terminal(self):
        return self._p.game is not None and self._p.game.is_over

    def returns(self):
        r, n, game = self.rules, self.rules.num_players, self._p.game
        if not self.is_terminal() or game.winner is None:
            return [0.0] * n
        k = r.num_sides
        return [1.0 if r.side_of(s) == game.winner else -1.0 / (k - 1) for s in range(n)]

    def information_state_string(self, player=None):
        player = self.current_player() if player is None else player
        return f"seat {player}: " + _joined(self._p.logs[player])

    def observation_string(self, player=None):
        player = self.current_player() if player is None else player
        return "dealing" if self._in_deal() else repr(infoset(self._p.game, player))

    def resample_from_infostate(self, player_id, probability_sampler=None):
        """A state ``player_id`` cannot tell from this one: the current hand's cards it has not seen
        (the other hands, the stock's order, the other seats' discards) drawn again, uniformly among
        the deals that show it what it saw (pitch_env/redeal.py), and the game replayed through them.
        Earlier hands stay as dealt: nothing to come depends on their hidden cards."""
        history = self._resampled_history(player_id, _RESAMPLE_RNG)
        twin = self.get_game().new_initial_state()
        for action in history:
            twin.apply_action(action)
        if (twin.information_state_string(player_id) != self.information_state_string(player_id)
                or (twin.game is not None and twin.game.info_state(player_id) != self._p.game.info_state(player_id))):
            raise RuntimeError(f"a resampled world shows seat {player_id} something else (a bug: please report it)")
        return twin

    def __str__(self):
        game = self._p.game
        if game is None:
            return " ".join(f"deal {CARD_NAMES[c]}" for c in self._p.dealing)
        return f"hand {game.hand_number}, {game.phase_name}, scores {game.scores}"

    # ------------------------------------------------------------------ the deal
    def _dealer(self) -> int:
        return self.rules.first_dealer if self._p.game is None else self._p.game.dealer

    def _deal(self, card: int) -> None:
        r, p = self.rules, self._p
        if not p.dealing:
            p.logs = tuple(_told(log, f"| hand {len(p.deals) + 1} dealer {self._dealer()}") for log in p.logs)
        order = _deal_order(r, self._dealer())
        position = len(p.dealing)
        p.dealing += (card,)
        if position < len(order):
            seat = order[position]
            p.logs = p.logs[:seat] + (_told(p.logs[seat], f"dealt {CARD_NAMES[card]}"),) + p.logs[seat + 1:]
        if len(p.dealing) < _chance_cards(r):
            return
        hands = [[] for _ in range(r.num_players)]
        for seat, c in zip(order, p.dealing):
            hands[seat].append(c)
        deal = {"deal": hands, "stock": list(p.dealing[len(order):])}
        p.deals += (deal,)
        p.dealing = ()
        p.draws_seen = (0,) * r.num_players
        p.stock_to = None
        if p.hand_start is None:
            game = Game(r, seed=0, deals=[deal])
        else:
            # The engine deals the next hand the moment a hand ends, from ``deals`` if it holds it:
            # so the last hand is played again from its start with this deal added to the schedule.
            game = p.hand_start.clone()
            game.deals = game.deals + Game(r, seed=0, deals=[deal]).deals  # a new list: clones share the old
            for move in p.hand_moves:
                game.apply_legal(move)
        p.game, p.hand_start, p.hand_moves = game, game.clone(), ()

    # ------------------------------------------------------------------ the moves
    def _move(self, action: int) -> None:
        p = self._p
        game = p.game
        seat, phase = game.current_seat, game.phase
        name = game.layout.names[action]
        game.apply(action)
        p.hand_moves += (action,)
        hidden = f"{seat}:discard" if phase == DISCARD else None  # others' discards are private
        logs = [_told(log, f"{seat}:{name}" if hidden is None or viewer == seat else hidden)
                for viewer, log in enumerate(p.logs)]
        if game.hand_number == len(p.deals) and not game.is_over:  # else the next deal (or nothing) follows
            seen = list(p.draws_seen)
            for s, drawn in enumerate(game.draws):
                if len(drawn) > seen[s]:
                    new = drawn[seen[s]:]
                    logs = [_told(log, f"draw {' '.join(CARD_NAMES[c] for c in new)}" if viewer == s
                                  else f"{s}:draws {len(new)}") for viewer, log in enumerate(logs)]
                    seen[s] = len(drawn)
            p.draws_seen = tuple(seen)
            if game.stock_to != p.stock_to:
                p.stock_to = game.stock_to
                logs = [_told(log, f"stock to {game.stock_to}") for log in logs]
        p.logs = tuple(logs)

    # ------------------------------------------------------------------ resampling
    def _resampled_history(self, viewer: int, rng: random.Random) -> list[int]:
        """The actions of a world ``viewer`` cannot tell from this one: this game's, with the current
        hand's unseen cards (and the other seats' discards) drawn again."""
        r, p = self.rules, self._p
        history = [int(pa.action) for pa in self.full_history()]
        if self._in_deal():  # the cards dealt so far to the others (and to the stock) were unseen
            dealing = list(p.dealing)
            start = len(history) - len(dealing)
            order = _deal_order(r, self._dealer())
            mine = [i for i, _ in enumerate(dealing) if i < len(order) and order[i] == viewer]
            pool = [c for c in range(r.deck) if c not in {dealing[i] for i in mine}]
            rng.shuffle(pool)
            for i in range(len(dealing)):
                if i not in mine:
                    dealing[i] = pool.pop()
            return history[:start] + dealing
        hands, stock, moves = redeal(p.hand_start, p.hand_moves, viewer, rng)
        start = len(history) - len(p.hand_moves) - _chance_cards(r)
        cursor = [0] * r.num_players
        chance = []
        for seat in _deal_order(r, p.game.dealer):
            chance.append(hands[seat][cursor[seat]])
            cursor[seat] += 1
        if r.uses_stock:
            chance += list(stock)
        return history[:start] + chance + list(moves)


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
        parameter_specification=parameters(variant),
    )
    # A class per variant, as pyspiel expects (a closure as the factory crashes the interpreter's exit).
    game_class = type(f"Pitch{variant.title().replace('_', '')}Game", (PitchGame,), {
        "__init__": lambda self, params=None: PitchGame.__init__(self, variant, game_type, params)})
    globals()[game_class.__name__] = game_class
    pyspiel.register_game(game_type, game_class)


for _variant in PRESETS:
    _register(_variant)
