"""Aiming: what both the bots and the env aim with.

- :mod:`rllib_curling.aiming.tables`: noise-free free-path tables of an ice model (``shot_tables``)
  and the questions they answer (draw speed, drift, aim), one throw or many at once;
- :mod:`rllib_curling.aiming.templates`: the named shot templates (the env's discrete actions).
"""
