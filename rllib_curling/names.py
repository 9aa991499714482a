"""Names every layer agrees on, kept where importing them costs nothing (no Ray, no torch).

| name                  | value              | what it names                                    |
|-----------------------|--------------------|--------------------------------------------------|
| ``BUILTIN``           | ``"builtin"``      | the agent shipped in the package, wherever a     |
|                       |                    | player or a checkpoint is named                  |
| ``DEFAULT_MODULE_ID`` | ``"default_policy"`` | RLlib's module of a single-agent run           |
|                       |                    | (``ray.rllib.core.DEFAULT_MODULE_ID``; a test    |
|                       |                    | checks that they agree)                          |
"""

from __future__ import annotations

BUILTIN = "builtin"
DEFAULT_MODULE_ID = "default_policy"
