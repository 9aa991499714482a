"""``errors.refuse_unknown_keys``: the one unknown-key check of every config (server, env,
league, curriculum, network, experiments)."""

from __future__ import annotations

import pytest

from rllib_curling.errors import ConfigError, did_you_mean, refuse_unknown_keys


def test_refuse_unknown_keys__known_keys_pass() -> None:
    refuse_unknown_keys({"a": 1}, ["a", "b"], "demo")
    refuse_unknown_keys({}, [], "demo")


def test_refuse_unknown_keys__one_key_names_the_closest_and_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        refuse_unknown_keys({"oponent": 3}, ["opponent", "ends"], "env_config")
    assert str(caught.value) == (
        "unknown env_config key 'oponent' (did you mean 'opponent'?); "
        "valid keys: ['ends', 'opponent']"
    )


def test_refuse_unknown_keys__several_keys_and_where_they_are() -> None:
    with pytest.raises(ConfigError) as caught:
        refuse_unknown_keys(["zz", "yy", "a"], ["a"], where="f.yaml: experiment 'x'")
    where = "f.yaml: experiment 'x'"
    assert str(caught.value) == f"{where}: unknown keys ['yy', 'zz']; valid keys: ['a']"


def test_did_you_mean__nothing_close_says_nothing() -> None:
    assert did_you_mean("qqqq", ["opponent"]) == ""
    assert did_you_mean("stpo", ["stop", "config"]) == " (did you mean 'stop'?)"


def test_configs__server_and_env_use_the_one_check() -> None:
    from rllib_curling.env.config import CurlingEnvConfig
    from rllib_curling.server.config import ServerConfig

    with pytest.raises(ConfigError, match=r"unknown ServerConfig key 'tcp_prot' \(did you mean"):
        ServerConfig.from_dict({"tcp_prot": 1})
    with pytest.raises(ConfigError, match=r"unknown env_config key 'oponent' \(did you mean"):
        CurlingEnvConfig.from_dict({"oponent": 3})
