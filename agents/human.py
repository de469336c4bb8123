"""A person at the terminal as an agent: shows the seat's own view, numbers the legal moves, and
asks until it gets one (by number or by name). End of input (Ctrl-D) or ``quit`` raises ``QuitGame``.
"""

from __future__ import annotations

from pitch_env.render import render_view

from .base import Agent, legal_actions


class QuitGame(Exception):
    """The person asked to stop (``quit`` or end of input)."""


class HumanAgent(Agent):
    name = "human"

    def __init__(self, env, seed: int | None = None, read=input, write=print):
        super().__init__(env, seed)
        self.read, self.write = read, write

    def act(self, observation, info) -> int:
        legal = legal_actions(observation, info)
        names = [self.layout.names[a] for a in legal]
        self.write("")
        self.write(render_view(info["infoset"]))
        self.write(moves_text(names))
        while True:
            try:
                answer = self.read("Your move (number or name, '?' to list, 'quit' to stop): ")
            except EOFError:
                raise QuitGame from None
            choice = parse_move(answer, names)
            if choice == "quit":
                raise QuitGame
            if choice == "help":
                self.write(moves_text(names))
                continue
            if isinstance(choice, int):
                return legal[choice]
            self.write(choice)


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
