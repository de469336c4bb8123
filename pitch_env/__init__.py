"""pitch-rl: the rules engine, observation encoder, game records and PettingZoo environment for Pitch.

``rules(variant, **options)`` builds a rule set, ``Game`` plays it, ``env``/``raw_env`` wrap it
as a PettingZoo AEC environment (imported lazily so the engine alone stays light).
"""

from .cards import card_name, parse_card, parse_cards
from .engine import Game, IllegalActionError
from .record import game_record, load_record, save_record
from .replay import replay
from .rules import Rules, rules, variants

__all__ = ["Game", "IllegalActionError", "Rules", "rules", "variants", "env", "raw_env",
           "card_name", "parse_card", "parse_cards", "game_record", "replay", "load_record", "save_record"]


def __getattr__(name):
    if name in ("env", "raw_env"):
        from . import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'pitch_env' has no attribute {name!r}")
