"""CurlingEnv: the Gymnasium contract, determinism, ports, external play, faults, multi-agent."""

from __future__ import annotations

import socket
import threading

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rllib_curling  # noqa: F401
from rllib_curling.env import CurlingEnv
from rllib_curling.errors import ConnectionLostError, ServerStartError
from rllib_curling.server.process import ServerOptions, ServerProcess

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("no_leftover_servers")]


def _sample(space: gym.Space, rng: np.random.Generator) -> object:
    if isinstance(space, gym.spaces.Discrete):
        return int(rng.integers(space.n))
    return rng.uniform(-1.0, 1.0, space.shape).astype(np.float32)


def _play(env: gym.Env, seed: int, n_steps: int = 1000) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen = [obs]
    for _ in range(n_steps):
        obs, _, terminated, truncated, _ = env.step(_sample(env.action_space, rng))
        seen.append(obs)
        if terminated or truncated:
            break
    return seen


@pytest.mark.parametrize("action", ["continuous", "discrete"])
def test_env__passes_gymnasium_env_checker(action: str) -> None:
    env = CurlingEnv({"action": action, "opponent": 2, "ends": 1})
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_env__same_seed_same_actions_same_observations() -> None:
    runs = []
    for _ in range(2):
        env = CurlingEnv({"opponent": 3, "ends": 1})
        try:
            runs.append(_play(env, seed=11))
        finally:
            env.close()
    assert len(runs[0]) == len(runs[1]) > 3
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_env__full_game_rewards_sum_to_the_score_difference() -> None:
    env = CurlingEnv({"opponent": 2, "ends": 2, "action": "discrete"})
    try:
        obs, info = env.reset(seed=2)
        total, done, steps = 0.0, False, 0
        while not done:
            obs, reward, terminated, truncated, info = env.step(steps % 5)
            total += reward
            steps += 1
            done = terminated or truncated
        mine, theirs = info["score"]
        assert total == mine - theirs
        assert steps == 16 and info["result"] in ("WIN", "LOSE", "DRAW")
        assert env.observation_space.contains(obs)
    finally:
        env.close()


def test_env__gymnasium_make_and_render_modes() -> None:
    env = gym.make("rllib_curling:Curling-v0", opponent=1, ends=1, render_mode="ansi")
    try:
        env.reset(seed=0)
        env.step(env.action_space.sample())
        assert "end 1/1" in env.render()
    finally:
        env.close()
    env = gym.make("rllib_curling:Curling-v0", opponent=1, ends=1, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        frame = env.render()
        assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8
    finally:
        env.close()


def test_env__many_envs_in_one_process_get_distinct_ports() -> None:
    envs = [CurlingEnv({"opponent": 0, "ends": 1}) for _ in range(3)]
    try:
        infos = [env.reset()[1] for env in envs]
        assert len({info["server"] for info in infos}) == 3
    finally:
        for env in envs:
            env.close()


def _protocol_only_client(port: int, done: threading.Event) -> None:
    """A course-style AI written from protocol.md only: NUL-framed reads, random BESTSHOTs."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    sock.sendall(b"CONNECTKEY:localtest")
    buf, empties, rng = b"", 0, np.random.default_rng(5)
    while empties < 5:
        chunk = sock.recv(4096)
        if not chunk:
            break
        buf += chunk
        while b"\0" in buf:
            raw, buf = buf.split(b"\0", 1)
            msg = raw.decode().strip()
            empties = empties + 1 if not msg else 0
            if msg == "ISREADY":
                sock.sendall(b"READYOK")
                sock.sendall(b"NAME course-ai")
            elif msg == "GO":
                sock.sendall(f"BESTSHOT {rng.uniform(2.8, 3.2)} {rng.uniform(-1, 1)} 0".encode())
            elif msg.startswith("GAMEOVER"):
                done.set()
    sock.close()


def test_env__external_mode_plays_a_course_style_client() -> None:
    server = ServerProcess(ServerOptions(ends=1, seed=4))
    host, port = server.address
    done = threading.Event()
    try:
        env = CurlingEnv({"server": f"{host}:{port}", "opponent": "external", "ends": 1})
        # The course client connects first (Player1); the env is Player2.
        thread = threading.Thread(target=_protocol_only_client, args=(port, done), daemon=True)
        thread.start()
        try:
            _, info = env.reset()
            assert info["server"] == f"{host}:{port}" and info["seat"] in (0, 1)
            terminated = False
            for _ in range(8):
                _, _, terminated, _, info = env.step(env.action_space.sample())
                if terminated:
                    break
            assert terminated and info["result"] in ("WIN", "LOSE", "DRAW")
        finally:
            env.close()
        assert done.wait(30)
    finally:
        server.stop()


def test_env__killed_server_gives_clear_error_then_reset_recovers() -> None:
    env = CurlingEnv({"opponent": 2, "ends": 1})
    try:
        env.reset(seed=1)
        env._server.kill()
        with pytest.raises(ConnectionLostError, match="reset"):
            for _ in range(8):
                env.step(env.action_space.sample())
        obs, info = env.reset()
        assert env.observation_space.contains(obs)
        env.step(env.action_space.sample())
    finally:
        env.close()


def test_env__close_stops_the_private_server() -> None:
    env = CurlingEnv({"opponent": 0, "ends": 1})
    env.reset()
    process = env._server.process
    env.close()
    assert process is not None and not process.alive()


def test_env__port_in_use_is_named_in_the_error() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ServerStartError, match=str(port)):
            ServerProcess(ServerOptions(port=port))


def test_multi_agent__random_game_for_both_seats() -> None:
    from rllib_curling.env.multi_agent import CurlingMultiAgentEnv

    env = CurlingMultiAgentEnv({"ends": 1, "action": "discrete"})
    try:
        obs, _ = env.reset()
        assert len(obs) == 1
        returns = {"player1": 0.0, "player2": 0.0}
        for _ in range(16):
            (agent,) = obs.keys()
            obs, rewards, terminateds, _, infos = env.step(
                {agent: env.action_spaces[agent].sample()}
            )
            for a, r in rewards.items():
                returns[a] += r
            if terminateds["__all__"]:
                break
        assert terminateds["__all__"] and set(obs) == {"player1", "player2"}
        assert returns["player1"] == -returns["player2"]
    finally:
        env.close()
