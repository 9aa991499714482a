"""The names every layer shares agree with what they name."""

from __future__ import annotations

from rllib_curling import names


def test_default_module_id__is_rllibs() -> None:
    from ray.rllib.core import DEFAULT_MODULE_ID

    assert names.DEFAULT_MODULE_ID == DEFAULT_MODULE_ID


def test_builtin__names_the_shipped_agents_folders() -> None:
    from rllib_curling.rl.checkpoints import BUILTIN_DC_DIR, BUILTIN_DIR, find_checkpoint

    assert BUILTIN_DIR.name == names.BUILTIN and BUILTIN_DC_DIR.name == names.BUILTIN_DC
    assert find_checkpoint(names.BUILTIN) == find_checkpoint(BUILTIN_DIR)
    assert find_checkpoint(names.BUILTIN_DC) == find_checkpoint(BUILTIN_DC_DIR)
    assert names.BUILTINS == (names.BUILTIN, names.BUILTIN_DC)
