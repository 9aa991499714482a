"""CurlingEnv: the Gymnasium contract, determinism, ports, external play, faults, multi-agent."""

from __future__ import annotations

import socket
import threading
import time

import gymnasium as gym
import numpy as np
import psutil
import pytest
from gymnasium.utils.env_checker import check_env

import rllib_curling  # noqa: F401
from rllib_curling.env import CurlingEnv
from rllib_curling.errors import ConfigError, ConnectionLostError, ServerStartError
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


@pytest.mark.slow
@pytest.mark.parametrize("action", ["continuous", "discrete"])
def test_env__passes_gymnasium_env_checker(action: str) -> None:
    env = CurlingEnv({"action": action, "opponent": 2, "ends": 1})
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_env__render_after_an_end_shows_that_end_as_scored() -> None:
    env = gym.make("rllib_curling:Curling-v0", opponent=1, ends=2, render_mode="ansi")
    try:
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        info: dict = {"end_scores": []}
        while not info["end_scores"]:
            *_, info = env.step(_sample(env.action_space, rng))
        text = env.render()
        points = info["end_scores"][0]
        who = "us" if points > 0 else "them" if points < 0 else "nobody"
        assert f"end 1 scored: {abs(points)} for {who}" in text
        assert "end 1/2  shot 16" in text
        scored, _ = env.unwrapped._client.last_end
        listed = sorted(int(line.split()[0]) for line in text.splitlines()[3:] if line.strip())
        assert listed == [k for k in range(16) if scored[k].any()]
        assert listed, "an end thrown against a level-1 bot leaves stones in play"
        env.step(_sample(env.action_space, rng))  # the next end's first throw: back to now
        after = env.render()
        assert "scored" not in after and after.startswith("end 2/2  shot ")
    finally:
        env.close()


def test_render__rgb_array_has_a_legend_and_the_score() -> None:
    from rllib_curling.env import render

    empty = np.zeros((16, 2))
    frame = render.rgb_array(render.View(empty, 0, (0, 0, 4, 0), (0, 0)))
    red = np.all(np.abs(frame.astype(int) - (214, 39, 40)) < 30, axis=-1)
    yellow = np.all(np.abs(frame.astype(int) - (230, 194, 41)) < 30, axis=-1)
    top = frame.shape[0] // 8  # no stone in play: the colours are the legend's, above the house
    assert red[:top].any() and yellow[:top].any()
    assert not red[top:].any() and not yellow[top:].any()
    later = render.rgb_array(render.View(empty, 0, (0, 0, 4, 0), (3, 1)))
    assert not np.array_equal(frame[:top], later[:top])  # the score is drawn
    assert render.View(empty, 1, (5, 1, 4, 0), (3, 1)).header() == (
        "end 2/4  shot 5  score me 3 - 1 them  hammer: me"
    )


@pytest.mark.slow
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


@pytest.mark.slow
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


#: server_timeout of the hung-server tests: the longest silence of a healthy private server is
#: 0.17 s on a loaded 2-core machine (its bots warm up before it announces its ports).
HUNG_TIMEOUT = 5.0
#: What detection may take beyond server_timeout (killing and reaping the server).
HUNG_SLACK = 5.0


def _freeze(process: ServerProcess | None) -> int:
    """Suspend a private server (alive, listening, silent); its PID. SIGSTOP on POSIX; on
    Windows every thread of it suspended."""
    assert process is not None and process.alive()
    psutil.Process(process.pid).suspend()
    return process.pid


def _kill_if_alive(process: ServerProcess | None) -> None:
    """Kill (SIGKILL; TerminateProcess) and reap a server the env failed to kill; a no-op when
    it did."""
    if process is not None and process.alive():
        process.kill()


def _finish_game(env: gym.Env, rng: np.random.Generator) -> dict:
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step(_sample(env.action_space, rng))
    assert terminated and info["result"] in ("WIN", "LOSE", "DRAW")
    return info


@pytest.mark.slow
def test_env__hung_private_server_is_killed_and_the_next_reset_starts_a_new_one() -> None:
    env = CurlingEnv({"opponent": 1, "ends": 1, "server_timeout": HUNG_TIMEOUT})
    hung = None
    try:
        _, info = env.reset(seed=1)
        hung = env.unwrapped._server.process
        pid = _freeze(hung)
        start = time.monotonic()
        with pytest.raises(ConnectionLostError) as err:
            env.step(env.action_space.sample())
        assert time.monotonic() - start < HUNG_TIMEOUT + HUNG_SLACK
        message = str(err.value)
        assert "\n" not in message and info["server"] in message and f"pid {pid}" in message
        assert f"did not answer for {HUNG_TIMEOUT:g} s" in message and "killed" in message
        assert "the next reset() starts a new one" in message
        assert not hung.alive()  # killed and reaped, although stopped
        _, info = env.reset()
        assert env.unwrapped._server.process.pid != pid
        _finish_game(env, np.random.default_rng(0))
    finally:
        _kill_if_alive(hung)
        env.close()


@pytest.mark.slow
def test_env__server_hung_at_reset_fails_that_reset_then_reset_recovers() -> None:
    env = CurlingEnv({"opponent": 1, "ends": 1, "server_timeout": HUNG_TIMEOUT})
    hung = None
    try:
        env.reset(seed=2)
        env.step(env.action_space.sample())
        # reset() abandons this game and reconnects: the stopped server never seats us.
        hung = env.unwrapped._server.process
        pid = _freeze(hung)
        start = time.monotonic()
        with pytest.raises(ConnectionLostError, match="did not answer .* killed") as err:
            env.reset()
        assert time.monotonic() - start < HUNG_TIMEOUT + HUNG_SLACK
        assert "reset()" in str(err.value) and not hung.alive()
        obs, _ = env.reset()
        assert env.observation_space.contains(obs)
        assert env.unwrapped._server.process.pid != pid
    finally:
        _kill_if_alive(hung)
        env.close()


@pytest.mark.slow
def test_env__hung_server_from_the_config_is_named_never_killed_and_reset_ends() -> None:
    server = ServerProcess(ServerOptions(ends=1, seed=4))
    host, port = server.address
    try:
        env = CurlingEnv({"server": f"{host}:{port}", "opponent": 1, "ends": 1})
        try:
            pid = _freeze(server)
            start = time.monotonic()
            # connect() is accepted by the kernel's backlog, then nothing: one wait, no retry.
            with pytest.raises(ConnectionLostError, match="from env_config, so not restarted"):
                env.reset()
            assert time.monotonic() - start < 10.0 + HUNG_SLACK  # the client's seating wait
            assert server.alive() and server.pid == pid
        finally:
            env.close()
    finally:
        server.stop()  # a stopped server is continued to read its EOF (POSIX) or terminated


@pytest.mark.slow
def test_multi_agent__hung_private_server_is_killed_and_the_next_reset_starts_a_new_one() -> None:
    from rllib_curling.env.multi_agent import CurlingMultiAgentEnv

    env = CurlingMultiAgentEnv({"ends": 1, "action": "discrete", "server_timeout": HUNG_TIMEOUT})
    hung = None
    try:
        obs, _ = env.reset(seed=3)
        hung = env._server.process
        pid = _freeze(hung)
        start = time.monotonic()
        with pytest.raises(ConnectionLostError) as err:
            env.step({agent: 0 for agent in obs})
        assert time.monotonic() - start < HUNG_TIMEOUT + HUNG_SLACK
        message = str(err.value)
        assert f"pid {pid}" in message and f"did not answer for {HUNG_TIMEOUT:g} s" in message
        assert "killed" in message and "the next reset() starts a new one" in message
        assert not hung.alive()
        obs, _ = env.reset()
        assert env._server.process.pid != pid
        for step in range(16):
            (agent,) = obs
            obs, _, terminateds, _, _ = env.step({agent: step % 5})
            if terminateds["__all__"]:
                break
        assert terminateds["__all__"] and set(obs) == {"player1", "player2"}
    finally:
        _kill_if_alive(hung)
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


@pytest.mark.parametrize("reward", ["score", "win_score"])
def test_multi_agent__random_game_for_both_seats(reward: str) -> None:
    from rllib_curling.env.multi_agent import CurlingMultiAgentEnv

    env = CurlingMultiAgentEnv({"ends": 1, "action": "discrete", "reward": reward})
    try:
        obs, _ = env.reset(seed=5)
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
        mine, theirs = infos["player1"]["score"]
        if reward == "score":
            assert returns["player1"] == mine - theirs
        else:  # the outcome plus a tenth of the points
            outcome = (mine > theirs) - (mine < theirs)
            assert returns["player1"] == pytest.approx(outcome + 0.1 * (mine - theirs))
    finally:
        env.close()


def _scripted_game(reward: str, seed: int = 3, **config: object) -> tuple[list[float], dict]:
    """A whole game with a fixed action sequence; the rewards of every step, the first obs and
    the last info."""
    env = CurlingEnv({"opponent": 3, "ends": 2, "action": "discrete", "reward": reward, **config})
    try:
        obs, _ = env.reset(seed=seed)
        rewards, done, step = [], False, 0
        first = obs
        while not done:
            obs, r, terminated, truncated, info = env.step((7 * step) % env.action_space.n)
            rewards.append(r)
            step += 1
            done = terminated or truncated
        return rewards, {"first_obs": first, **info}
    finally:
        env.close()


def test_env__win_reward_is_plus_minus_one_on_the_last_step_only() -> None:
    rewards, info = _scripted_game("win")
    want = {"WIN": 1.0, "LOSE": -1.0, "DRAW": 0.0}[info["result"]]
    assert rewards[-1] == want and all(r == 0.0 for r in rewards[:-1])


@pytest.mark.slow
def test_env__shaped_reward_adds_the_telescoping_house_potential() -> None:
    from rllib_curling import observation

    score, info_s = _scripted_game("score")
    shaped, info_h = _scripted_game("shaped", shaping_scale=0.5)
    assert info_s["score"] == info_h["score"] and len(score) == len(shaped)  # the same game
    first_house = float(info_h["first_obs"][observation.CONTEXT_START + 7]) * 8.0
    # sum of 0.5 * (phi' - phi) over the game = 0.5 * (0 - phi(first turn))
    assert sum(shaped) == pytest.approx(sum(score) - 0.5 * first_house)
    assert any(abs(a - b) > 1e-9 for a, b in zip(score, shaped, strict=True))


@pytest.mark.slow
def test_env__sweep_action_sweeps_the_stone_further() -> None:
    rests = []
    for sweep in (-1.0, 1.0):  # 0 m and 12 m of sweeping, same seed and throw
        env = CurlingEnv({"opponent": 0, "ends": 1, "sweep": True})
        try:
            assert env.action_space.shape == (4,)
            _, info = env.reset(seed=5)
            env.step(np.array([0.0, 0.0, 0.3, sweep], dtype=np.float32))
            stone = 0 if info["setstate"][0] == 0 else 1
            rests.append(env.unwrapped._client.position[stone].copy())
        finally:
            env.close()
    assert rests[1][1] < rests[0][1] - 0.01  # swept: travels further (toward smaller y)


def test_env__unlimited_ends_are_truncated_after_the_cap() -> None:
    from rllib_curling.observation import UNLIMITED_MAX_ENDS

    env = CurlingEnv({"opponent": 0, "ends": -1, "action": "discrete"})
    try:
        env.reset(seed=0)
        steps, terminated, truncated = 0, False, False
        while not (terminated or truncated):
            _, _, terminated, truncated, info = env.step(0)
            steps += 1
        assert truncated and not terminated
        assert info["setstate"][1] == UNLIMITED_MAX_ENDS and steps == 8 * UNLIMITED_MAX_ENDS
    finally:
        env.close()


def test_multi_agent__refuses_the_shaped_reward() -> None:
    from rllib_curling.env.multi_agent import CurlingMultiAgentEnv
    from rllib_curling.errors import ConfigError

    with pytest.raises(ConfigError, match="shaped"):
        CurlingMultiAgentEnv({"reward": "shaped"})


@pytest.mark.slow
def test_multi_agent__same_seed_same_actions_same_observations() -> None:
    from rllib_curling.env.multi_agent import CurlingMultiAgentEnv

    runs = []
    for _ in range(2):
        env = CurlingMultiAgentEnv({"ends": 1, "action": "discrete"})
        try:
            obs, _ = env.reset(seed=9)
            seen = [obs]
            for step in range(16):
                (agent,) = obs.keys()
                obs, _, terminateds, _, _ = env.step({agent: (3 * step) % 38})
                seen.append(obs)
                if terminateds["__all__"]:
                    break
            runs.append(seen)
        finally:
            env.close()
    assert len(runs[0]) == len(runs[1]) == 17
    for a, b in zip(*runs, strict=True):
        assert a.keys() == b.keys()
        for agent in a:
            np.testing.assert_array_equal(a[agent], b[agent])


@pytest.mark.slow
def test_env__win_score_reward_is_the_outcome_plus_weighted_end_points() -> None:
    score, info_s = _scripted_game("score")
    mixed, info_m = _scripted_game("win_score", score_weight=0.25)
    assert info_s["score"] == info_m["score"] and len(score) == len(mixed)  # the same game
    outcome = {"WIN": 1.0, "LOSE": -1.0, "DRAW": 0.0}[info_m["result"]]
    assert mixed[:-1] == pytest.approx([0.25 * r for r in score[:-1]])
    assert mixed[-1] == pytest.approx(outcome + 0.25 * score[-1])


def _opponents_of_games(env: CurlingEnv, games: int, seed: int) -> list[tuple[object, int]]:
    """(opponent, our seat) of each of ``games`` quick games (always the first template)."""
    out = []
    env.reset(seed=seed)
    for game in range(games):
        if game:
            env.reset()
        done, info = False, {}
        while not done:
            _, _, terminated, truncated, info = env.step(0)
            done = terminated or truncated
        out.append((info["opponent"], info["seat"]))
    return out


@pytest.mark.slow
def test_env__opponent_mixture_draws_per_pair_of_games_with_the_hammer_alternating() -> None:
    config = {"opponent": [0, 1], "ends": 1, "action": "discrete"}
    env = CurlingEnv(config)
    try:
        games = _opponents_of_games(env, 8, seed=11)
        again = _opponents_of_games(env, 8, seed=11)
        env.set_opponents({1: 1.0})
        later = _opponents_of_games(env, 2, seed=12)
    finally:
        env.close()
    pairs = [games[i : i + 2] for i in range(0, 8, 2)]
    assert all(a[0] == b[0] for a, b in pairs)  # one opponent per pair of games ...
    assert all(a[1] != b[1] for a, b in pairs)  # ... once with the hammer, once without
    assert {opponent for opponent, _ in games} == {0, 1}  # both drawn (p = 1 - 2 / 2**4)
    assert again == games  # seeded draws
    assert [opponent for opponent, _ in later] == [1, 1]
    with pytest.raises(ConfigError):
        CurlingEnv(config).set_opponents([9])


def test_set_opponents__switching_to_external_raises_config_error() -> None:
    env = CurlingEnv({"opponent": [0, 1]})  # no server starts before reset()
    try:
        with pytest.raises(ConfigError, match="built-in and external"):
            env.set_opponents("external")
        assert env.opponents == {0: 0.5, 1: 0.5}  # a refused mixture leaves the old one
    finally:
        env.close()


def test_env_docstring__numbers_come_from_their_sources() -> None:
    from rllib_curling import sheet
    from rllib_curling.bots.levels import MAX_LEVEL
    from rllib_curling.env import actions

    doc = CurlingEnv.__doc__ or ""
    assert "{" + "split}" not in doc and "{" + "template_table}" not in doc
    assert f"y = {actions.DRAW_Y_LONG:g} … {actions.DRAW_Y_BACK:g}" in doc
    assert f"x = {sheet.CENTRE_X:g} + {actions.AIM_X_RANGE:g}·a" in doc
    assert f"high=({sheet.V_MAX:g}, {sheet.H_MAX:g}, {sheet.W_MAX:g})" in doc
    assert f"``opponent`` (0–{MAX_LEVEL} or" in doc
