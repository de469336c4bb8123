"""The batched engine: many games of one rule set held in arrays and stepped together by compiled kernels
(kernels.py), with every rule table compiled from the reference engine's (tables.py); ``BatchEngine`` is
its Python face, ``pitch_env.vector_env`` the environment built on it.
"""

from .engine import BatchEngine

__all__ = ["BatchEngine"]
