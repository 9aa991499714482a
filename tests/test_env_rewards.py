"""``env.rewards``: the reward of one step, from the points and the result (no server)."""

from __future__ import annotations

import pytest

from rllib_curling.env.config import CurlingEnvConfig
from rllib_curling.env.rewards import (
    MULTI_AGENT_REWARDS,
    REWARDS,
    SINGLE_AGENT_ONLY,
    check_reward,
    game_reward,
)
from rllib_curling.errors import ConfigError


def test_score__sums_the_ends_finished_in_the_step() -> None:
    assert game_reward("score", [2, -1], None, False, 0.1) == 1.0
    assert game_reward("score", [], None, False, 0.1) == 0.0


def test_score__ignores_the_result() -> None:
    assert game_reward("score", [-3], "WIN", True, 0.1) == -3.0


@pytest.mark.parametrize("result, value", [("WIN", 1.0), ("LOSE", -1.0), ("DRAW", 0.0)])
def test_win__is_the_result_when_the_game_ends(result: str, value: float) -> None:
    assert game_reward("win", [1], result, True, 0.1) == value


def test_win__is_zero_before_the_game_ends() -> None:
    assert game_reward("win", [4], "WIN", False, 0.1) == 0.0


def test_win_score__adds_the_weighted_points_to_the_result() -> None:
    assert game_reward("win_score", [2, 1], "LOSE", True, 0.25) == pytest.approx(-1.0 + 0.75)
    assert game_reward("win_score", [2], None, False, 0.5) == pytest.approx(1.0)


def test_shaped__its_game_part_is_the_score() -> None:
    for points in ([3], [-2, 1], []):
        assert game_reward("shaped", points, "WIN", True, 0.1) == game_reward(
            "score", points, "WIN", True, 0.1
        )


def test_game_reward__unknown_name_raises_config_error_listing_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="reward must be one of") as caught:
        game_reward("scor", [1], None, False, 0.1)
    assert all(name in str(caught.value) for name in REWARDS)


def test_check_reward__accepts_every_reward_name() -> None:
    assert [check_reward(name) for name in REWARDS] == list(REWARDS)


def test_env_config__unknown_reward_fails_at_config_time() -> None:
    with pytest.raises(ConfigError, match="'winn'"):
        CurlingEnvConfig.from_dict({"reward": "winn"})


def test_ends__counts_ends_won_minus_ends_lost() -> None:
    assert game_reward("ends", [3, -1, 0, 2], "WIN", True, 0.1) == 1.0
    assert game_reward("ends", [-4], None, False, 0.1) == -1.0
    assert game_reward("ends", [], "LOSE", True, 0.1) == 0.0


def test_multi_agent_rewards__every_reward_but_the_single_agent_ones() -> None:
    assert "ends" in MULTI_AGENT_REWARDS and "shaped" not in MULTI_AGENT_REWARDS
    assert set(MULTI_AGENT_REWARDS) | set(SINGLE_AGENT_ONLY) == set(REWARDS)


def test_env_docs__list_every_reward() -> None:
    from rllib_curling.env import CurlingEnv

    doc = CurlingEnv.__doc__ or ""
    assert all(f'- ``"{name}"``' in doc and f'"{name}"' in doc for name in REWARDS)
