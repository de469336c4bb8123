"""A person at the terminal as an agent: shows the seat's own view, numbers the legal moves, and
asks until it gets one (by number or by name). End of input (Ctrl-D) or ``quit`` raises ``QuitGame``;
input that is closed or gone (``pitch play 0<&-``, a hung-up terminal) raises ``InputLost``.
"""

from __future__ import annotations

from pitch_env.render import render_view

from .base import Agent, legal_actions


class QuitGame(Exception):
    """The person asked to stop (``quit`` or end of input)."""


class InputLost(Exception):
    """The person's input cannot be read at all: stdin closed, missing or failing."""


class HumanAgent(Agent):
    name = "human"

    def __init__(self, env, seed: int | None = None, read=input, write=print, why=None):
        super().__init__(env, seed)
        # why(action) -> the rules' reason an action is illegal now (Game.why_illegal), or None
        self.read, self.write, self.why = read, write, why

    def act(self, observation, info) -> int:
        legal = legal_actions(observation, info)
        names = [self.layout.names[a] for a in legal]
        self.write("")
        self.write(render_view(self.infoset(observation, info)))
        self.write(moves_text(names))
        while True:
            try:
                answer = self.read("Your move (number or name, '?' to list, 'quit' to stop): ")
            except EOFError:
                raise QuitGame from None
            except (RuntimeError, OSError, ValueError) as e:
                # input() raises RuntimeError without a sys.stdin, ValueError on a closed one, OSError on a dead tty
                raise InputLost(f"cannot read your move from standard input ({' '.join(str(e).split()) or type(e).__name__}): "
                                "run pitch play in a terminal, or pipe the moves in") from None
            choice = parse_move(answer, names)
            if choice == "quit":
                raise QuitGame
            if choice == "help":
                self.write(NOTATION)
                self.write(moves_text(names))
                continue
            if isinstance(choice, int):
                return legal[choice]
            self.write(self._explain(answer) or choice)

    def _explain(self, answer: str) -> str | None:
        """The rules' reason a move the person named is illegal, if the name is a move at all."""
        if self.why is None:
            return None
        text = " ".join(answer.strip().split())
        for candidate in (text, f"play {text}", f"bid {text}", f"trump {text}"):
            try:
                action = self.layout.action(candidate)
            except ValueError:
                continue
            reason = self.why(action)
            return f"{self.layout.names[action]!r} is not allowed: {reason}." if reason else None
        return None


NOTATION = ("Notation: a card is rank then suit, ranks 2-9, T (ten), J Q K A, suits C (clubs) D (diamonds) "
            "H (hearts) S (spades); LJ and BJ are the little and big jokers.\n"
            "'seat:move' lists who did what: bids '2:3' (seat 2 bid 3), tricks '2:AS' (seat 2 played AS).")


def moves_text(names: list[str]) -> str:
    return "Legal moves: " + "  ".join(f"{i}) {n}" for i, n in enumerate(names, 1))


def parse_move(answer: str, names: list[str]) -> int | str:
    """The index into ``names`` the answer picks, ``"quit"``/``"help"``, or a message saying what is wrong."""
    text = " ".join(answer.strip().split()).lower()
    if text in ("quit", "exit", "q"):
        return "quit"
    if text in ("?", "help", "h", ""):
        return "help"
    if text.isdigit():
        i = int(text)
        if 1 <= i <= len(names):
            return i - 1
        return f"{text} is not a move number: choose 1 to {len(names)}."
    lowered = [n.lower() for n in names]
    # A card alone ("as") means playing (or discarding) it, when that is a legal move.
    for candidate in (text, f"play {text}", f"discard {text}", f"bid {text}", f"trump {text}", f"stock {text}"):
        if candidate in lowered:
            return lowered.index(candidate)
    return f"{answer.strip()!r} is not a legal move now; type its number or name (e.g. {names[0]!r})."
