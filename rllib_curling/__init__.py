"""rllib-curling: train digital-curling (数字冰壶) AIs with Ray RLlib."""

__version__ = "0.1.0"
