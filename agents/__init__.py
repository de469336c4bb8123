"""Agents that play Pitch through the PettingZoo env, and ``make(spec, env)`` to build one by name.

Every agent has ``act(observation, info) -> action index`` (the two values ``env.last()`` gives) and
``reset(seed=None)``, called at the start of each game. Specs: ``random``, ``heuristic``,
``pimc:N`` (N sampled worlds per decision; ``pimc:N:B`` also searches each bid in B worlds; N and B
at most MAX_WORLDS = 1000), ``pimcnet:N:PATH`` (PIMC whose rollouts and default choices are the
trained policy at PATH: agents/netpimc.py), ``checkpoint:PATH`` (PATH a shipped agent's name such as ``setback_scratch``, or
a policy file or folder: agents/checkpoint.py), ``human``, and ``split:BIDS+PLAY`` (the agent BIDS makes the auction's
bids, the agent PLAY every other decision: ``split:checkpoint:auction+heuristic`` asks which half of an agent is strong).
"""

from __future__ import annotations

from pitch_env.rules import Rules

from .base import Agent, RandomAgent

SPEC_FORMS = ("random", "heuristic", "pimc:N", "pimc:N:B", "pimcnet:N:PATH", "checkpoint:PATH", "human",
              "split:BIDS+PLAY")
# pimc:N:B caps: a game at pimc:1000 already takes minutes; far larger numbers only look like a hang.
MAX_WORLDS = 1000

__all__ = ["Agent", "RandomAgent", "make", "SPEC_FORMS", "spec_error", "spec_weights"]


def spec_error(spec) -> ValueError:
    return ValueError(f"unknown agent spec {spec!r}: use one of {', '.join(SPEC_FORMS)} "
                      "(e.g. 'pimc:20', 'checkpoint:setback')")


def spec_weights(spec) -> list[str]:
    """Which weights the agent ``spec`` plays from (``checkpoint:PATH``, ``pimcnet:N:PATH``, either half of
    ``split:``), as their policy files' cards name them (the SHA-256 of the tensors, pitch_policy/file.py),
    so that a saved result can say which weights played; [] for the other specs, and for a PATH that names
    no readable policy (``make`` refuses that one by name)."""
    from pitch_policy import CheckpointError, read_policy

    from .checkpoint import resolve_policy_path

    out = []
    for kind, arg in spec_parts(spec):
        path = arg if kind == "checkpoint" else arg.partition(":")[2] if kind == "pimcnet" else ""
        try:
            out += [read_policy(resolve_policy_path(path))[1]["sha256"]] if path else []
        except (CheckpointError, OSError, ValueError):
            pass
    return out


def spec_parts(spec) -> list[tuple[str, str]]:
    """The agents ``spec`` is made of, as ``make`` reads them: (kind in lower case, argument) of the spec,
    or of each half of a ``split:``; [] for what is not a string."""
    if not isinstance(spec, str):
        return []
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "split":
        bids, _, play = arg.partition("+")
        return spec_parts(bids) + spec_parts(play)
    return [(kind, arg)]


def seats_human(spec) -> bool:
    """Whether the agent ``spec`` asks a person at the terminal for any move (``human``, or either half of
    a ``split:``): a tournament or a training run cannot seat it."""
    return any(kind == "human" for kind, _ in spec_parts(spec))


def make(spec: str, env, seed: int | None = None) -> Agent:
    """Build the agent ``spec`` names for ``env`` (its rules and action layout). ``env`` may be a Rules
    instead: the agent then plays any env of those rules whose infos carry the mover's ``info_state``
    (``pitch_env.env(rules, info_state=True)``, the tournament's and the trainers' games)."""
    if not isinstance(spec, str):
        raise spec_error(spec)
    if isinstance(env, Rules):
        import pitch_env

        env = pitch_env.env(env)
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "random" and not arg:
        return RandomAgent(env, seed=seed)
    if kind == "heuristic" and not arg:
        from .heuristic import HeuristicAgent

        return HeuristicAgent(env, seed=seed)
    if kind == "pimc":
        from .pimc import DEFAULT_WORLDS, PIMCAgent

        worlds_text, colon, bid_text = arg.partition(":")
        try:  # 'pimc' alone is the default search; a field written empty ('pimc:', 'pimc::3') is a typo
            if ":" in spec and (not worlds_text or (colon and not bid_text)):
                raise ValueError
            worlds = int(worlds_text) if worlds_text else DEFAULT_WORLDS
            bid_worlds = int(bid_text) if bid_text else 0
        except ValueError:
            raise ValueError(f"agent spec {spec!r}: N and B in 'pimc:N' or 'pimc:N:B' must be whole numbers of "
                             f"worlds, e.g. 'pimc:20' or 'pimc:12:8'") from None
        if not (1 <= worlds <= MAX_WORLDS and 0 <= bid_worlds <= MAX_WORLDS):
            raise ValueError(f"agent spec {spec!r}: 'pimc:N:B' needs 1 <= N <= {MAX_WORLDS} worlds and "
                             f"0 <= B <= {MAX_WORLDS} bid worlds, e.g. 'pimc:20' or 'pimc:12:8'")
        return PIMCAgent(env, worlds=worlds, seed=seed, bid_worlds=bid_worlds)
    if kind == "pimcnet":
        worlds_text, _, path = arg.partition(":")
        form = "'pimcnet:N:PATH', e.g. 'pimcnet:12:setback'"
        try:
            worlds = int(worlds_text)
        except ValueError:
            raise ValueError(f"agent spec {spec!r}: N in {form} must be a whole number of worlds") from None
        if not 1 <= worlds <= MAX_WORLDS or not path:
            raise ValueError(f"agent spec {spec!r}: use {form}, with 1 <= N <= {MAX_WORLDS} and the policy's file")
        from .netpimc import NetPIMCAgent

        return NetPIMCAgent(env, path, worlds=worlds, seed=seed)
    if kind == "checkpoint":
        if not arg:
            raise ValueError(f"agent spec {spec!r}: name a shipped agent or a file, e.g. 'checkpoint:setback'")
        from .checkpoint import CheckpointAgent

        return CheckpointAgent(arg, env)
    if kind == "human" and not arg:
        from .human import HumanAgent

        return HumanAgent(env)
    if kind == "split":
        bids, plus, play = arg.partition("+")
        if not plus or not bids.strip() or not play.strip() or "split:" in arg.lower():
            raise ValueError(f"agent spec {spec!r}: use 'split:BIDS+PLAY', two agent specs other than split, "
                             f"e.g. 'split:checkpoint:auction+heuristic' (its bids, the heuristic's play)")
        from .base import SplitAgent

        return SplitAgent(env, make(bids, env, seed), make(play, env, seed))
    raise spec_error(spec)
