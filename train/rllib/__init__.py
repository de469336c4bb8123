"""The Ray RLlib backend (``backend: rllib``): see docs/rllib.md."""
