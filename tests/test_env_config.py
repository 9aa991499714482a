"""CurlingEnvConfig validation and the server-list assignment rule."""

from __future__ import annotations

import pytest

from rllib_curling.env.config import CurlingEnvConfig
from rllib_curling.env.servers import ServerAssigner
from rllib_curling.errors import ConfigError


def test_config__defaults_are_valid() -> None:
    config = CurlingEnvConfig.from_dict({})
    assert config.server == "auto"
    assert config.connect_key(2) == "localtest:2"


def test_config__unknown_key_lists_valid_keys() -> None:
    with pytest.raises(ConfigError) as err:
        CurlingEnvConfig.from_dict({"oponent": 3})
    assert "oponent" in str(err.value) and "opponent" in str(err.value)


@pytest.mark.parametrize(
    "values",
    [
        {"opponent": 9},
        {"opponent": "robot"},
        {"action": "box"},
        {"reward": "points"},
        {"ends": 0},
        {"ends": True},  # the game's rule (game.check_ends): a bool is not a number of ends
        {"ends": 2.0},
        {"server": "localhost"},
        {"server": []},
        {"server": "127.0.0.1:99999"},
        {"key": "abc:3"},
        {"turn_timeout": 0},
        {"server_timeout": 0},
        {"server_timeout": -1.0},
        {"server_timeout": float("nan")},
        {"server_timeout": float("inf")},
        {"server_timeout": "5"},
        {"server_timeout": True},
    ],
)
def test_config__bad_values_raise(values: dict) -> None:
    with pytest.raises(ConfigError):
        CurlingEnvConfig.from_dict(values)


def test_config__server_timeout_bounds_waits_on_a_private_server_with_a_bot_only() -> None:
    from rllib_curling.env.config import SERVER_TIMEOUT_S

    private = CurlingEnvConfig(server_timeout=4.5, turn_timeout=60.0)
    assert CurlingEnvConfig().server_timeout == SERVER_TIMEOUT_S
    assert private.reply_timeout() == 4.5
    assert private.reply_timeout(self_play=True) == 4.5
    # Someone may think for a whole turn: an external opponent, or a server from the config.
    external = CurlingEnvConfig(opponent="external", server_timeout=4.5, turn_timeout=60.0)
    assert external.reply_timeout() == external.client_timeout > 60.0
    assert external.reply_timeout(self_play=True) == 4.5
    listed = CurlingEnvConfig(server="127.0.0.1:7788", server_timeout=4.5, turn_timeout=60.0)
    assert listed.reply_timeout() == listed.reply_timeout(self_play=True) == listed.client_timeout


def test_config__external_opponent_sends_plain_key() -> None:
    assert CurlingEnvConfig(opponent="external", key="k").connect_key("external") == "k"


def test_config__rllib_num_envs_key_is_ignored() -> None:
    assert CurlingEnvConfig.from_dict({"num_envs": 2}).server == "auto"


def test_assigner__distinct_entries_per_worker_and_instance() -> None:
    config = CurlingEnvConfig.from_dict({"server": [7001, 7002, 7003, 7004], "envs_per_worker": 2})
    got = []
    tokens = []
    for worker in (1, 2):
        for _ in range(2):
            address, token = ServerAssigner.acquire(config, worker)
            got.append(address[1])
            tokens.append(token)
    assert got == [7001, 7002, 7003, 7004]
    with pytest.raises(ConfigError, match="list more servers"):
        ServerAssigner.acquire(config, 2)
    ServerAssigner.release(tokens[1])
    address, token = ServerAssigner.acquire(config, 1)
    assert address == ("127.0.0.1", 7002)
    for t in [*tokens, token]:
        ServerAssigner.release(t)


def test_assigner__host_port_strings_and_local_worker() -> None:
    config = CurlingEnvConfig.from_dict({"server": ["10.0.0.5:7788", "10.0.0.6:7788"]})
    address, token = ServerAssigner.acquire(config, 0)
    assert address == ("10.0.0.5", 7788)
    ServerAssigner.release(token)


@pytest.mark.parametrize(
    ("opponent", "want"),
    [
        (4, {4: 1.0}),
        ("external", {"external": 1.0}),
        ([2, 3, 4, 4], {2: 0.25, 3: 0.25, 4: 0.5}),
        ({2: 1, 4: 3}, {2: 0.25, 4: 0.75}),
        ({"2": 1.0, "6": 1.0}, {2: 0.5, 6: 0.5}),  # JSON object keys are text
    ],
)
def test_opponent_weights__levels_lists_and_mappings(opponent: object, want: dict) -> None:
    from rllib_curling.env.config import opponent_weights

    assert opponent_weights(opponent) == pytest.approx(want)
    assert CurlingEnvConfig.from_dict({"opponent": opponent}).opponents == pytest.approx(want)


@pytest.mark.parametrize(
    "opponent", [[], {}, [2, 9], ["external", 2], {3: 0}, {3: -1.0}, {3: float("nan")}, 2.5, True]
)
def test_opponent_weights__bad_mixtures_raise_one_line(opponent: object) -> None:
    with pytest.raises(ConfigError) as err:
        CurlingEnvConfig.from_dict({"opponent": opponent})
    assert "\n" not in str(err.value) and "opponent" in str(err.value)


def test_curriculum__defaults_weights_and_start_level() -> None:
    from rllib_curling.env.config import CurriculumConfig

    curriculum = CurriculumConfig.from_value({"levels": [2, 3, "5"], "review": 0.2})
    assert curriculum.levels == (2, 3, 5)
    assert curriculum.weights(0) == {2: 1.0}
    assert curriculum.weights(2) == pytest.approx({2: 0.1, 3: 0.1, 5: 0.8})
    assert CurriculumConfig.from_value(True) == CurriculumConfig()
    config = CurlingEnvConfig.from_dict({"opponent": 2, "curriculum": {"levels": [3, 4]}})
    assert config.opponents == {3: 1.0}


@pytest.mark.parametrize(
    "curriculum",
    [
        {"levels": []},
        {"levels": [2, 2]},
        {"levels": [2, 11]},
        {"promote_at": 0},
        {"promote_at": 1.5},
        {"window": 0},
        {"review": 1.0},
        {"threshold": 0.5},
        "yes",
    ],
)
def test_curriculum__bad_values_raise(curriculum: object) -> None:
    with pytest.raises(ConfigError):
        CurlingEnvConfig.from_dict({"curriculum": curriculum})


def test_curriculum__needs_built_in_opponents() -> None:
    with pytest.raises(ConfigError, match="external"):
        CurlingEnvConfig.from_dict({"opponent": "external", "curriculum": True})


def test_config__turn_timeout_default_is_the_servers() -> None:
    from rllib_curling.server.config import ServerConfig
    from rllib_curling.server.process import ServerOptions

    assert CurlingEnvConfig().turn_timeout == ServerConfig().turn_timeout
    assert CurlingEnvConfig().turn_timeout == ServerOptions().turn_timeout


def test_config__keys_of_many_forms_are_parsed_once_and_kept() -> None:
    config = CurlingEnvConfig.from_dict(
        {"opponent": {"2": 1, 4: 3}, "server": ["127.0.0.1:7001", 7002]}
    )
    assert config.opponent_mix == {2: 0.25, 4: 0.75}
    assert config.servers == (("127.0.0.1", 7001), ("127.0.0.1", 7002))
    assert config.curriculum_config is None
    assert config.opponent_mix is config.opponent_mix  # kept, not parsed again
    assert config.opponent == {"2": 1, 4: 3}  # the field keeps what was written
