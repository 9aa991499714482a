"""check_action: actions that do not fit the action space raise before anything is sent, in both
envs, and the game goes on with the next valid action."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from rllib_curling.env import CurlingEnv
from rllib_curling.env.spaces import check_action

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("no_leftover_servers")]

NAN, INF = float("nan"), float("inf")

#: (action mode, sweep, bad action); the Box is (3,) without sweep and (4,) with it.
BAD_ACTIONS = [
    ("continuous", False, np.zeros(2, np.float32)),
    ("continuous", False, np.zeros(4, np.float32)),  # (4,) without sweep
    ("continuous", True, np.zeros(3, np.float32)),  # (3,) with sweep
    ("continuous", False, np.zeros((5, 5), np.float32)),
    ("continuous", False, np.zeros((1, 3), np.float32)),
    ("continuous", False, 0.5),
    ("continuous", False, np.float32(0.5)),
    ("continuous", False, np.zeros(0, np.float32)),
    ("continuous", False, []),
    ("continuous", False, None),
    ("continuous", False, np.zeros(3, np.complex64)),
    ("continuous", False, np.ones(3, bool)),
    ("continuous", False, [True, 0.0, 0.0]),
    ("continuous", False, "0 0 0"),
    ("continuous", False, ["0", "0", "0"]),
    ("continuous", False, [object(), 0.0, 0.0]),
    ("continuous", False, [0.1, [0.2], 0.3]),
    ("continuous", False, np.array([NAN, 0.0, 0.0], np.float32)),
    ("continuous", False, [0.0, INF, 0.0]),
    ("continuous", False, np.array([0.0, 0.0, -INF])),
    ("continuous", True, np.array([0.0, 0.0, 0.0, NAN], np.float32)),
    ("continuous", True, [0.0, 0.0, 0.0, INF]),
    ("continuous", True, np.zeros(5, np.float32)),
    ("continuous", True, None),
    ("discrete", False, 3.7),
    ("discrete", False, 3.0),
    ("discrete", False, np.float64(3.0)),
    ("discrete", False, np.array(3.0)),
    ("discrete", False, "3"),
    ("discrete", False, True),
    ("discrete", False, np.bool_(False)),
    ("discrete", False, None),
    ("discrete", False, -1),
    ("discrete", False, "out of range"),  # replaced by n below
    ("discrete", False, np.int64(10**6)),
    ("discrete", False, np.array([1, 2])),
    ("throw", False, np.zeros(4, np.float32)),
    ("throw", False, [3.0, 0.0, NAN]),
    ("throw", False, "3 0 1"),
    ("throw", True, [3.0, 0.0, 1.0]),
    ("throw", False, None),
]

GOOD_ACTIONS = [
    ("continuous", False, [0.1, -0.2, 0.3], [0.1, -0.2, 0.3]),
    ("continuous", False, (1, 0, -1), [1.0, 0.0, -1.0]),
    ("continuous", False, np.array([2.5, -7.0, 0.0], np.float32), [2.5, -7.0, 0.0]),  # clipped
    ("continuous", True, np.zeros(4, np.float64), [0.0] * 4),
    ("discrete", False, 5, 5),
    ("discrete", False, np.int64(5), 5),
    ("discrete", False, np.uint8(0), 0),
    ("discrete", False, np.array(7), 7),
    ("discrete", False, np.array([7], np.int32), 7),
    ("throw", False, [3.1, -0.1, 1.57], [3.1, -0.1, 1.57]),
    ("throw", True, (3, 0, -1, 2), [3.0, 0.0, -1.0, 2.0]),
]


def test_throw_space__is_the_protocols_throw_within_the_platforms_limits() -> None:
    from rllib_curling import sheet
    from rllib_curling.env.spaces import action_mode, throw_for, throw_space

    space = _space("throw", False)
    assert space == throw_space() and action_mode(space) == ("throw", False)
    assert action_mode(_space("throw", True)) == ("throw", True)
    assert action_mode(_space("continuous", False)) == ("continuous", False)
    np.testing.assert_allclose(space.high, [sheet.V_MAX, sheet.H_MAX, sheet.W_MAX], rtol=1e-6)
    # the throw itself, clipped to the limits as the platform does
    assert throw_for([3.1, -0.1, 1.5], None, "throw", None) == (3.1, -0.1, 1.5, 0.0)  # type: ignore
    assert throw_for([9.0, 5.0, -99.0, 20.0], None, "throw", None) == (  # type: ignore
        sheet.V_MAX,
        sheet.H_MAX,
        -sheet.W_MAX,
        sheet.SWEEP_MAX,
    )


def _space(mode: str, sweep: bool) -> gym.Space:
    from rllib_curling.env.config import CurlingEnvConfig
    from rllib_curling.env.spaces import action_space

    return action_space(CurlingEnvConfig(action=mode, sweep=sweep))


def _bad(mode: str, sweep: bool, action: Any) -> tuple[gym.Space, Any]:
    space = _space(mode, sweep)
    if isinstance(action, str) and action == "out of range":
        action = space.n  # one past the last template
    return space, action


@pytest.mark.parametrize(("mode", "sweep", "action"), BAD_ACTIONS)
def test_check_action__refuses_what_does_not_fit_naming_value_and_space(
    mode: str, sweep: bool, action: Any
) -> None:
    space, action = _bad(mode, sweep, action)
    with pytest.raises(ValueError) as err:
        check_action(action, space)
    message = str(err.value)
    assert str(space) in message and message.startswith("action ") and "\n" not in message


@pytest.mark.parametrize(("mode", "sweep", "action", "want"), GOOD_ACTIONS)
def test_check_action__accepts_real_numbers_of_the_right_shape(
    mode: str, sweep: bool, action: Any, want: Any
) -> None:
    got = check_action(action, _space(mode, sweep))
    if mode == "discrete":
        assert type(got) is int and got == want
    else:
        assert got.dtype == np.float64 and got.tolist() == want


@pytest.mark.parametrize(
    ("mode", "sweep"),
    [("continuous", False), ("continuous", True), ("discrete", False), ("throw", False)],
)
def test_env__bad_actions_raise_before_sending_and_the_game_goes_on(mode: str, sweep: bool) -> None:
    env = CurlingEnv({"opponent": 0, "ends": 1, "action": mode, "sweep": sweep})
    try:
        bad_actions = [_bad(m, s, a)[1] for m, s, a in BAD_ACTIONS if (m, s) == (mode, sweep)]
        assert len(bad_actions) > 3
        rng = np.random.default_rng(0)
        env.reset(seed=1)
        for action in bad_actions:
            client = env._client
            state, position = client.state, client.position.copy()
            with pytest.raises(ValueError, match="does not fit the action space") as err:
                env.step(action)
            assert str(env.action_space) in str(err.value)
            # Nothing was sent: still our turn, same shot, same stones.
            assert client.my_turn and client.state == state
            np.testing.assert_array_equal(client.position, position)
            valid = rng.uniform(-1, 1, env.action_space.shape).astype(np.float32)
            if mode == "throw":
                valid = np.array([rng.uniform(2.8, 3.2), 0.0, 1.57], np.float32)  # draws
            if mode == "discrete":
                valid = int(rng.integers(env.action_space.n))
            obs, _, terminated, _, info = env.step(valid)  # a valid action plays on
            assert env.observation_space.contains(obs)
            assert info["setstate"] != list(state) or terminated
            if terminated:
                env.reset()
    finally:
        env.close()


def test_env__nan_action_then_a_whole_game_of_valid_ones() -> None:
    env = CurlingEnv({"opponent": 1, "ends": 1})
    try:
        env.reset(seed=4)
        with pytest.raises(ValueError):  # refused, whichever layer sees it first
            env.step(np.array([NAN, 0.0, 0.0], np.float32))
        steps, terminated = 0, False
        while not terminated:
            _, _, terminated, truncated, info = env.step(np.array([0.2, 0.0, 0.5], np.float32))
            steps += 1
            assert not truncated
        assert steps == 8 and info["result"] in ("WIN", "LOSE", "DRAW")
    finally:
        env.close()


def test_multi_agent__bad_action_raises_and_the_game_goes_on() -> None:
    from rllib_curling.env.multi_agent import CurlingMultiAgentEnv

    env = CurlingMultiAgentEnv({"ends": 1})
    try:
        obs, _ = env.reset(seed=2)
        (agent,) = obs
        space = env.action_spaces[agent]
        for bad in (np.array([0.0, NAN, 0.0]), np.zeros(2), True, None):
            with pytest.raises(ValueError, match="does not fit the action space") as err:
                env.step({agent: bad})
            assert str(space) in str(err.value)
        for _ in range(16):
            (agent,) = obs
            obs, _, terminateds, _, _ = env.step({agent: np.array([0.2, 0.0, 0.5], np.float32)})
            if terminateds["__all__"]:
                break
        assert terminateds["__all__"] and set(obs) == {"player1", "player2"}
    finally:
        env.close()
