"""The one game loop: the seat to move asks its agent, the action is applied, and whoever watches
hears of each move and each finished hand. The self-play envs, the demonstration recorder, expert
iteration's recording and PIMC's rollouts all play through ``play``; it runs once per move, so it
stays a bare loop.
"""

from __future__ import annotations

from typing import Callable

from .engine import OVER, Game


def play(game: Game, act: Callable[[Game, int], int], *, first: int | None = None,
         stop: Callable[[int], bool] | None = None, moved: Callable | None = None,
         hand_over: Callable | None = None, one_hand: bool = False, trusted: bool = False) -> None:
    """Play ``game`` until it is over (or, with ``one_hand``, until the current hand is).

    ``act(game, seat)`` chooses the action of the seat to move. ``first``: an action already
    chosen for the seat to move (a learner's step), applied before any agent is asked.
    ``stop(seat)``, asked before each agent, returns with that seat to move when true.
    ``moved(game, seat, action, phase, hand_number)`` hears of each move (phase and hand before it);
    ``hand_over(result)`` of each finished hand (``game.last_result``: None for a thrown-in hand).
    ``trusted``: ``act`` picks only from ``legal_actions()``, so the legality check is skipped.
    """
    apply = game.apply_legal if trusted else game.apply
    hand = game.hand_number
    if first is None and stop is None and moved is None and hand_over is None:
        # Nobody watches (a rollout): the same loop without the checks, as it runs thousands of times a search.
        while game.phase != OVER and (not one_hand or game.hand_number == hand):
            apply(act(game, game.current_seat))
        return
    finished = len(game.finished)
    while game.phase != OVER and not (one_hand and game.hand_number != hand):
        seat = game.current_seat
        if first is not None:
            action, first = first, None
        elif stop is not None and stop(seat):
            return
        else:
            action = act(game, seat)
        if moved is None:
            apply(action)
        else:
            phase, number = game.phase, game.hand_number
            apply(action)
            moved(game, seat, action, phase, number)
        if hand_over is not None and len(game.finished) != finished:
            finished = len(game.finished)
            hand_over(game.last_result)
