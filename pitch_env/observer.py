"""The observation of one seat as named pieces of one flat float32 buffer (OpenSpiel-style Observer).

Positions are relative to the observer (0 = itself, 1 = its left, …) and sides likewise (0 = its
own side), so one policy can play every seat. ``Observer(rules).pieces`` lists each piece's offset
and shape; ``views(buffer)`` gives them as reshaped numpy views.

How it is built: one *table* vector holds the game's public facts in absolute seats plus every
seat's private cards; a seat's observation is a gather of that vector through a fixed index
array that rotates seats and sides and picks only that seat's private pieces. So nothing a
seat may not know can reach its observation, and the environment keeps one table vector up to
date move by move (``LiveTable``) instead of re-encoding every seat at every step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cards import GAME_POINTS, cards_in, trump_table
from .engine import BID, OVER, PHASES, PLAY, Game, shown_voids, shows_void
from .infostate import InfoState
from .scoring import SHOOT, game_points, points_captured

LAYOUT_VERSION = 2  # bump when pieces change: trained policies record the version they saw
# Version 1 lacked the last piece, ``voids``: a version-1 policy reads version 2 through zero weights on
# it (pitch_policy/file.py ``load_policy``), so it plays exactly as it was trained.
TOTAL_GAME_POINTS = 80  # A K Q J T of four suits: 4 × (4+3+2+1+10)


@dataclass(frozen=True)
class Piece:
    name: str
    offset: int
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


# How a piece's rows map from the observer's point of view to the table:
#   "seat": rows indexed by relative seat, "side": by relative side,
#   "own": the observer's own row of a per-seat table piece, "public": the same for everyone.
_PIECES = (
    ("hand", "own", "C", "own cards"),
    ("phase", "public", "P", "bid, declare, stock, discard, play, over (one-hot)"),
    ("dealer", "seat", "", "dealer, relative seat (one-hot)"),
    ("pitcher", "seat", "", "pitcher once the auction is over, relative seat"),
    ("current", "seat", "", "seat to move, relative seat"),
    ("bids", "seat", "B", "each relative seat's bid this hand: pass, each numeric bid, shoot"),
    ("contract", "public", "B", "the winning bid (pass slot unused)"),
    ("trump", "public", "4", "trump suit C D H S once known"),
    ("leader", "seat", "", "leader of the current trick, relative seat"),
    ("trick", "seat", "C", "cards in the current trick, by relative seat"),
    ("played", "seat", "C", "every card played this hand (current trick included), by relative seat"),
    ("points_won", "side", "", "points secured by captured cards this hand, by relative side, / most a hand gives"),
    ("game_points", "side", "", "game points in won tricks this hand, by relative side, / 80"),
    ("scores", "side", "", "scores by relative side, / target_score"),
    ("cards_left", "seat", "", "cards in each relative seat's hand, / hand_size"),
    ("hands_played", "public", "1", "hands dealt so far, / max_hands"),
)
_STOCK_PIECES = (
    ("discards", "own", "C", "own discards in the exchange"),
    ("draws", "own", "C", "own draws from the stock"),
    ("stock_to", "seat", "", "who took the rest of the stock, relative seat"),
    ("draw_counts", "seat", "", "cards each relative seat drew, / deck size"),
)
_LAST_PIECES = (
    ("voids", "seat", "4", "suits each relative seat has shown it holds none of this hand (it neither followed "
     "the suit led nor trumped; follow-suit rules only), C D H S, the trump suit standing for every trump"),
)


class Observer:
    """Encodes ``game`` from ``seat``'s point of view into a flat float32 buffer."""

    def __init__(self, rules):
        self.rules = r = rules
        n, s = r.num_players, r.num_sides
        bid_values = [0, *r.numeric_bids] + ([SHOOT] if r.shoot != "none" else [])
        self.bid_slot = {b: i for i, b in enumerate(bid_values)}
        width = {"C": r.deck, "P": len(PHASES), "B": len(bid_values), "4": 4, "1": 1, "": 1}
        specs = _PIECES + (_STOCK_PIECES if r.uses_stock else ()) + _LAST_PIECES
        self.pieces, self.table_offsets = {}, {}
        obs_off = table_off = 0
        gathers = []  # per piece: function (viewer) -> table indices
        for name, kind, w, doc in specs:
            w = width[w]
            rows_obs = {"own": 1, "public": 1, "seat": n, "side": s}[kind]
            rows_table = {"own": n, "public": 1, "seat": n, "side": s}[kind]
            shape = (w,) if rows_obs == 1 else ((rows_obs,) if w == 1 else (rows_obs, w))
            self.pieces[name] = Piece(name, obs_off, shape, doc)
            self.table_offsets[name] = table_off
            gathers.append((kind, table_off, rows_obs, w))
            obs_off += rows_obs * w
            table_off += rows_table * w
        self.size, self.table_size = obs_off, table_off
        self.v1_size = self.pieces["voids"].offset  # what layout version 1 read: everything before the voids
        index = np.empty((n, self.size), np.int64)
        for v in range(n):
            cols = []
            for kind, base, rows, w in gathers:
                if kind == "public":
                    src_rows = [0]
                elif kind == "own":
                    src_rows = [v]
                elif kind == "seat":
                    src_rows = [(v + j) % n for j in range(n)]
                else:
                    src_rows = [(r.side_of(v) + j) % s for j in range(s)]
                cols += [base + row * w + k for row in src_rows for k in range(w)]
            index[v] = cols
        self.index = index  # observation of seat v = table[index[v]]

    def views(self, buffer: np.ndarray) -> dict[str, np.ndarray]:
        """Named, reshaped views of an observation buffer's pieces."""
        return {name: buffer[p.offset:p.offset + p.size].reshape(p.shape) for name, p in self.pieces.items()}

    def describe(self) -> str:
        """A markdown table of the pieces (name, offset, shape, meaning)."""
        rows = [f"| `{p.name}` | {p.offset} | {'×'.join(map(str, p.shape))} | {p.doc} |" for p in self.pieces.values()]
        return "| piece | offset | shape | meaning |\n|---|---|---|---|\n" + "\n".join(rows)

    def encode(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``seat``'s observation of ``game`` (into ``out`` if given): the encoding of its InfoState."""
        return self.encode_info(game.info_state(seat), out)

    def encode_info(self, s: InfoState, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of the seat whose InfoState ``s`` is: built from what it knows, and nothing
        else, so nothing hidden can reach it. (``LiveTable`` keeps the same numbers up to date move by
        move for the env; the tests compare the two at every step.)"""
        table = np.zeros(self.table_size, np.float32)
        self._write_own(table, s.seat, s.hand, s.discards, s.draws)
        self._write_public(s, table)
        if out is None:
            return table[self.index[s.seat]]
        out[:] = table[self.index[s.seat]]
        return out

    def encode_table(self, game: Game, table: np.ndarray | None = None) -> np.ndarray:
        """The table vector of ``game``: the public facts (from an InfoState: they are the same in
        every seat's) in absolute seats, and every seat's own cards."""
        if table is None:
            table = np.zeros(self.table_size, np.float32)
        else:
            table.fill(0.0)
        for seat in range(self.rules.num_players):
            self._write_own(table, seat, game.hands[seat], game.discards[seat], game.draws[seat])
        self._write_public(game.info_state(0), table)
        return table

    def _write_own(self, table: np.ndarray, seat: int, hand: int, discards, draws) -> None:
        """A seat's private rows: its hand (a card mask) and, in stock games, its discards and draws."""
        o, c = self.table_offsets, self.rules.deck
        base = o["hand"] + seat * c
        ones = []
        while hand:
            low = hand & -hand
            ones.append(base + low.bit_length() - 1)
            hand ^= low
        if self.rules.uses_stock:
            ones += [o["discards"] + seat * c + card for card in discards]
            ones += [o["draws"] + seat * c + card for card in draws]
        table[ones] = 1.0

    def _write_public(self, s: InfoState, table: np.ndarray) -> None:
        """The facts every seat knows, from any seat's InfoState."""
        r, o = self.rules, self.table_offsets
        c, nb = r.deck, len(self.bid_slot)
        ones = [o["phase"] + s.phase]
        if s.phase != OVER:
            ones += [o["dealer"] + s.dealer, o["current"] + s.current_seat]
        if s.pitcher is not None:
            ones += [o["pitcher"] + s.pitcher, o["contract"] + self.bid_slot[s.contract]]
        ones += [o["bids"] + bidder * nb + self.bid_slot[bid] for bidder, bid in s.bids]
        if s.trump is not None:
            ones.append(o["trump"] + s.trump)
        if s.trick:
            ones.append(o["leader"] + s.leader)
            ones += [o["trick"] + p * c + card for p, card in s.trick]
        for p, played in enumerate(s.played_by):
            ones += [o["played"] + p * c + card for card in cards_in(played)]
        for p, suits in enumerate(shown_voids(s)):
            ones += [o["voids"] + p * 4 + suit for suit in range(4) if suits >> suit & 1]
        if r.uses_stock:
            for p, count in enumerate(s.draw_counts):
                table[o["draw_counts"] + p] = count / c
            if s.stock_to is not None:
                ones.append(o["stock_to"] + s.stock_to)
        table[ones] = 1.0
        trumps = None if s.trump is None else trump_table(s.trump, r.deck, r.off_jack)
        for side, v in enumerate(points_captured(r, trumps, s.captured)):
            table[o["points_won"] + side] = v / r.max_hand_points
        for side, v in enumerate(game_points(r, s.captured)):
            table[o["game_points"] + side] = v / TOTAL_GAME_POINTS
        for side, v in enumerate(s.scores):
            table[o["scores"] + side] = v / r.target_score
        for p, count in enumerate(s.cards_left):
            table[o["cards_left"] + p] = count / r.hand_size
        table[o["hands_played"]] = s.hand_number / r.max_hands

    def write_points_won(self, game: Game, table: np.ndarray) -> None:
        """The points each side has secured by winning tricks this hand (LiveTable, after a trick)."""
        r, pts = self.rules, self.table_offsets["points_won"]
        for side, v in enumerate(points_captured(r, game.table, game.captured)):
            table[pts + side] = v / r.max_hand_points


class LiveTable:
    """The table vector of one running game, kept up to date move by move.

    Bids and card plays (nearly every move) are applied as a few writes; anything rarer (the end
    of the auction, the exchange, a new hand) re-encodes the table from the game. ``check`` in
    the tests compares it with a fresh ``encode_table`` at every step.
    """

    __slots__ = ("observer", "table", "_c", "_nb", "_n", "_inv_hand", "_mv", "_index", "_hand",
                 "_played", "_cards_left", "_trump", "_leader", "_trick", "_game_points", "_bids", "_current",
                 "_phase", "_pitcher", "_contract", "_voids", "_follow")

    def __init__(self, observer: Observer):
        self.observer = observer
        self.table = np.zeros(observer.table_size, np.float32)
        o, r = observer.table_offsets, observer.rules
        self._c, self._nb, self._n = r.deck, len(observer.bid_slot), r.num_players
        self._inv_hand = 1.0 / r.hand_size
        self._mv = memoryview(self.table)  # single-item writes through it cost a third of numpy's
        self._index = observer.index
        # offsets of the pieces touched on every move, as attributes: this runs at every step
        for name in ("hand", "played", "cards_left", "trump", "leader", "trick", "game_points", "bids", "current",
                     "phase", "pitcher", "contract", "voids"):
            setattr(self, "_" + name, o[name])
        self._follow = r.follow == "follow_or_trump"  # only the follow-suit rule makes play show voids

    # A memoryview can be neither copied nor pickled (cloudpickle silently turns it into read-only
    # bytes): copies carry the table and make a fresh view of their own.
    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__ if name != "_mv"}

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)
        self._mv = memoryview(self.table)

    def sync(self, game: Game) -> None:
        self.observer.encode_table(game, self.table)

    def observe(self, seat: int) -> np.ndarray:
        return self.table[self._index[seat]]

    def after(self, game: Game, seat: int, action: int, phase_before: int, hand_before: int) -> None:
        """Bring the table up to date after ``seat`` took ``action``."""
        if game.hand_number != hand_before:
            self.sync(game)
            return
        t = self._mv
        if game.phase != phase_before:
            if not (phase_before == BID and game.phase == PLAY):
                self.sync(game)  # the exchange phases: rare, and they change many pieces
                return
            # The auction closed under trump_by=first_lead: only phase, pitcher and contract are new.
            t[self._phase + BID] = 0.0
            t[self._phase + PLAY] = 1.0
            t[self._pitcher + game.pitcher] = 1.0
            t[self._contract + self.observer.bid_slot[game.contract]] = 1.0
        if phase_before == PLAY:
            card = action - game.layout.play_base
            c = self._c
            t[self._hand + seat * c + card] = 0.0
            t[self._played + seat * c + card] = 1.0
            t[self._cards_left + seat] = game.hands[seat].bit_count() * self._inv_hand
            t[self._trump + game.trump] = 1.0  # set by the pitch under trump_by=first_lead
            if self._follow:
                plays = game.trick or game.tricks[-1][1]
                led = game.table.suit[plays[0][1]]
                if plays[0][0] != seat and shows_void(game.table, led, card):
                    t[self._voids + seat * 4 + led] = 1.0
            if game.trick:  # the trick goes on
                if len(game.trick) == 1:
                    t[self._leader + seat] = 1.0
                t[self._trick + seat * c + card] = 1.0
            else:  # the trick is complete: clear it, count what was captured
                table = self.table
                table[self._trick:self._trick + self._n * c] = 0.0
                table[self._leader:self._leader + self._n] = 0.0
                _, plays, winner = game.tricks[-1]
                gained = sum([GAME_POINTS[card] for _, card in plays])
                if gained:
                    t[self._game_points + game.rules.side_of(winner)] += gained / TOTAL_GAME_POINTS
                self.observer.write_points_won(game, table)
        elif phase_before == BID:
            bidder, bid = game.bids[-1]
            t[self._bids + bidder * self._nb + self.observer.bid_slot[bid]] = 1.0
        else:
            self.sync(game)
            return
        t[self._current + seat] = 0.0
        t[self._current + game.current_seat] = 1.0
