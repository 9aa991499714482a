"""Names every layer agrees on, kept where importing them costs nothing (no Ray, no torch).

| name                  | value              | what it names                                    |
|-----------------------|--------------------|--------------------------------------------------|
| ``BUILTIN``           | ``"builtin"``      | the agent shipped in the package, wherever a     |
|                       |                    | player or a checkpoint is named                  |
| ``BUILTIN_DC``        | ``"builtin-dc"``   | the agent shipped for Digital Curling's ice      |
|                       |                    | (fcv1), wherever a DC agent is named             |
| ``BUILTINS``          |                    | both                                             |
| ``DEFAULT_MODULE_ID`` | ``"default_policy"`` | RLlib's module of a single-agent run           |
|                       |                    | (``ray.rllib.core.DEFAULT_MODULE_ID``; a test    |
|                       |                    | checks that they agree)                          |
"""

from __future__ import annotations

BUILTIN = "builtin"
BUILTIN_DC = "builtin-dc"
BUILTINS = (BUILTIN, BUILTIN_DC)
DEFAULT_MODULE_ID = "default_policy"
