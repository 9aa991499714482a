"""``curling server`` as a command: config.ini, port in use, --announce, stdin EOF, SIGTERM,
the human lines on stderr (lobby waits, game results; -q), and the JSONL game records
(``records``)."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from server_helpers import RawClient, stop_and_reap

from rllib_curling.cli.commands.server import build_config
from rllib_curling.cli.curling import build_parser
from rllib_curling.errors import ConfigError
from rllib_curling.server import records
from rllib_curling.server.config import ServerConfig, read_platform_ini

pytestmark = pytest.mark.timeout(60)
pytest_plugins = ("server_fixtures",)  # fixtures: fake_engine, start_server


def curling_server(*args: str, stdin: Any = subprocess.PIPE) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "rllib_curling", "server", *args]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )


def announced_port(proc: subprocess.Popen[bytes]) -> int:
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    parts = line.split()
    assert len(parts) == 3 and parts[:2] == ["LISTENING", "127.0.0.1"], line
    return int(parts[2])


def test_config_ini__sets_the_port_and_flags_win(tmp_path: Path) -> None:
    ini = tmp_path / "config.ini"
    ini.write_bytes("; 单机版\n[ROOT]\nHttpPort=9009\nTcpPort=7789\n".encode("gbk"))
    assert read_platform_ini(ini) == (7789, 9009)
    ini.write_text("\ufeff[root]\ntcpport = 7790\n", encoding="utf-8")
    assert read_platform_ini(ini) == (7790, None)
    parser = build_parser()
    config = build_config(parser.parse_args(["server", "--config", str(ini)]))
    assert config.tcp_port == 7790
    config = build_config(parser.parse_args(["server", "--config", str(ini), "--tcp-port", "0"]))
    assert config.tcp_port == 0
    config = build_config(parser.parse_args(["server"]))
    assert config.tcp_port == 7788 and config.host == "127.0.0.1"
    ini.write_text("[OTHER]\nTcpPort=1\n")
    with pytest.raises(ConfigError, match="ROOT"):
        read_platform_ini(ini)
    with pytest.raises(ConfigError, match="cannot read"):
        read_platform_ini(tmp_path / "missing.ini")


def test_server_flags__defaults_are_server_configs() -> None:
    config = build_config(build_parser().parse_args(["server"]))
    assert config == ServerConfig()


def test_server_flags__ends_takes_what_its_help_says(capsys: pytest.CaptureFixture[str]) -> None:
    # any positive number or -1, as ServerConfig accepts (the help said "4, 8, or -1")
    parser = build_parser()
    for ends in (5, 1, -1):
        assert build_config(parser.parse_args(["server", "--ends", str(ends)])).ends == ends
    with pytest.raises(SystemExit):
        parser.parse_args(["server", "--help"])
    assert "any number (the platform offers 4 and 8), or -1 = unlimited" in " ".join(
        capsys.readouterr().out.split()
    )


def test_server_config__unknown_key_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="valid"):
        ServerConfig.from_dict({"tcp_prot": 1})
    with pytest.raises(ConfigError):
        ServerConfig(ends=0)
    assert ServerConfig.from_dict({"keys": ["a"]}).keys == ("a",)


def test_agent_factories__a_bad_path_is_a_config_error_naming_it(tmp_path: Path) -> None:
    # the path is checked before Ray or torch is needed: the same error without the rl extra
    from rllib_curling.cli.commands.server import agent_factories

    with pytest.raises(ConfigError, match="--agent 'x=.*no checkpoint directory"):
        agent_factories([f"x={tmp_path / 'nope'}"])


def test_agent_factories__no_rl_extra_is_a_one_line_config_error() -> None:
    # Gymnasium there, Ray not: the agent's player imports, loading its network does not (where
    # torch is missing as well, as in the Windows job without the rl extra, torch is named first)
    missing = "ray" if importlib.util.find_spec("torch") else "torch"
    script = (
        "import sys\n"
        "class NoRay:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'ray':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name='ray')\n"
        "sys.meta_path.insert(0, NoRay())\n"
        "from rllib_curling.cli.commands.server import agent_factories\n"
        "from rllib_curling.errors import ConfigError\n"
        "try:\n"
        "    agent_factories(['builtin'])\n"
        "except ConfigError as exc:\n"
        "    print(exc)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"--agent needs the rl extra ({missing} is missing)"


def test_agents__choose_once_before_the_page_offers_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its first choice compiles the search's kernels (minutes the first time after installing):
    # done while the server says why, not during a person's first game.
    from rllib_curling import server
    from rllib_curling.cli.commands import server as command
    from rllib_curling.cli.curling import main

    chosen: list[int] = []
    served: list[list[int]] = []

    class Agent:
        def choose(self, state: Any, rng: np.random.Generator) -> tuple[float, ...]:
            chosen.append(state.shot)
            return (3.0, 0.0, 1.57, 0.0)

    def run_server(config: ServerConfig, **kwargs: Any) -> int:
        served.append(list(chosen))
        assert kwargs["agents"]["mine"] is Agent
        return 0

    monkeypatch.setattr(command, "agent_factories", lambda specs: {"mine": Agent})
    monkeypatch.setattr(server, "run_server", run_server)
    assert main(["server", "--tcp-port", "0", "--http-port", "0", "--agent", "mine=x"]) == 0
    assert served == [[0]]  # one choice from a new game, before the server ran
    assert "getting mine=x ready (the first time after installing" in capsys.readouterr().err


def test_port_in_use__one_line_error_and_exit_code_1() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = curling_server("--tcp-port", str(port))
        _, err = proc.communicate(timeout=50)
    assert proc.returncode == 1
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert str(port) in lines[0] and "in use" in lines[0]


def test_start_server_thread__port_in_use_raises_naming_the_port() -> None:
    from rllib_curling.errors import ServerStartError
    from rllib_curling.server import start_server_thread

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ServerStartError, match=str(port)):
            start_server_thread(ServerConfig(tcp_port=port))


@pytest.mark.skipif(
    sys.platform == "win32", reason="on Windows the server watches its parent process, not stdin"
)
@pytest.mark.slow
def test_announce__exit_with_parent_after_a_game(tmp_path: Path) -> None:
    proc = curling_server(
        "--tcp-port", "0", "--announce", "--exit-with-parent", "--ends", "1", "--seed", "3"
    )
    try:
        port = announced_port(proc)
        client = RawClient(port, "localtest:2")
        t = client.play()
        client.close()
        assert len(t.results) == 1 and t.closed_by_empties
        assert proc.stdin is not None
        proc.stdin.close()  # the parent goes away
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_exit_with_parent__parent_pid_ends_the_server_when_that_process_ends() -> None:
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    proc = curling_server(
        "--tcp-port", "0", "--announce", "--exit-with-parent", "--parent-pid", str(parent.pid)
    )  # fmt: skip
    try:
        announced_port(proc)
        assert proc.poll() is None  # its stdin stays open: only the parent's end stops it
        parent.kill()
        parent.wait()
        assert proc.wait(timeout=20) == 0
    finally:
        for child in (parent, proc):
            if child.poll() is None:
                child.kill()
                child.wait()


def _stderr_line(proc: subprocess.Popen[bytes]) -> str:
    assert proc.stderr is not None
    return proc.stderr.readline().decode().rstrip("\r\n")  # Windows ends lines with CRLF


def _stop(proc: subprocess.Popen[bytes]) -> tuple[str, str]:
    """SIGTERM (Windows: terminated, see ``send_stop_signal``), then the rest of stdout and
    stderr."""
    stopped = stop_and_reap(proc, signal.SIGTERM, timeout=20)
    assert stopped.clean, stopped.stderr[-2000:]
    return stopped.stdout, stopped.stderr


@pytest.mark.slow
def test_server_console__says_who_waits_in_the_lobby_and_prints_each_game() -> None:
    proc = curling_server("--tcp-port", "0", "--ends", "1", "--seed", "3")
    try:
        banner = _stderr_line(proc)
        assert banner.startswith("curling server: listening on 127.0.0.1:"), banner
        port = int(banner.split("127.0.0.1:", 1)[1].split(",", 1)[0])
        legacy = RawClient(port, None, name="SampleAI2020")  # 2020-era: no CONNECTKEY
        assert legacy.recv_msg() == "NAME Player1 "  # seated after the legacy wait
        while legacy.recv_msg() != "ISREADY ":
            pass
        legacy.send("READYOK")
        legacy.send("NAME SampleAI2020")
        waiting = _stderr_line(proc)
        assert waiting.startswith(f"waiting in the lobby of port {port}: SampleAI2020 (127.0.0.1:")
        assert "(no CONNECTKEY; a second client will be its opponent, or start the server " in (
            waiting
        )
        client = RawClient(port, "localtest:2", name="keyed")  # a bot game, beside the lobby
        t = client.play()
        client.close()
        (p1, p2), (result,) = t.totals[0], t.results
        outcome = {"WIN": "keyed wins", "LOSE": "built-in AI 2 wins", "DRAW": "a draw"}[result]
        want = f"game 1 (port {port}): keyed {p1} - {p2} built-in AI 2 (1 end, {outcome})"
        assert _stderr_line(proc) == want
        out, err = _stop(proc)
        legacy.close()
        assert out == ""  # stdout stays for --announce's machine-readable lines
        assert err == ""  # the lobby client never played: no game line for it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["-q", "--announce"])
def test_server_quiet__no_human_lines_with_q_or_announce(flag: str) -> None:
    proc = curling_server("--tcp-port", "0", "--ends", "1", "--announce", flag)
    try:
        port = announced_port(proc)  # LISTENING is stdout's first line either way
        client = RawClient(port, "localtest:2")
        t = client.play()
        client.close()
        assert len(t.results) == 1
        out, err = _stop(proc)
        assert out == "" and err == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="no graceful SIGTERM on Windows: Popen.send_signal(SIGTERM) is TerminateProcess",
)
@pytest.mark.slow
def test_sigterm__ends_the_session_and_flushes_records(tmp_path: Path) -> None:
    proc = curling_server(
        "--tcp-port", "0", "--announce", "--log-dir", str(tmp_path), "--turn-timeout", "30"
    )
    try:
        port = announced_port(proc)
        client = RawClient(port, "localtest:2")
        while (msg := client.recv_msg()) != "GO ":
            if msg == "ISREADY ":
                client.send("READYOK")
        proc.send_signal(signal.SIGTERM)
        rest = []
        while (msg := client.recv_msg()) is not None:
            rest.append(msg)
        client.close()
        assert rest == [""] * 5
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    (log_file,) = tmp_path.glob("curling-server-*.jsonl")
    lines = records.read_records(log_file)
    assert [r["type"] for r in lines] == ["run", "game_start", "game"]
    assert lines[-1]["reason"] == "stopped"


def test_records__describe_every_shot_and_replay(start_server: Any, tmp_path: Path) -> None:
    server = start_server(ends=2, games=2, log_dir=str(tmp_path))
    client = RawClient(server.address[1], "localtest:3", name="队伍")
    t = client.play(throw=lambda t: f"BESTSHOT {2.9 + 0.1 * (t.gos % 4)} 0.3 -1.5")
    client.close()
    server.stop()
    (log_file,) = tmp_path.glob("*.jsonl")
    lines = records.read_records(log_file)
    kinds = [r["type"] for r in lines]
    assert kinds[0] == "run" and lines[0]["seed"] == 1234
    assert lines[0]["started"].endswith("+00:00") and lines[0]["address"][1] == server.address[1]
    assert kinds.count("game_start") == 2 and kinds.count("game") == 2
    shots = [r for r in lines if r["type"] == "shot"]
    assert len(shots) == 2 * 2 * 16
    assert shots[0]["players"] == ["队伍", shots[0]["players"][1]]
    games = [r for r in lines if r["type"] == "game"]
    assert [tuple(g["totals"]) for g in games] == t.totals
    mine = [g["players"].index("队伍") for g in games]
    assert mine == [0, 1]  # Player1 in game 1, Player2 in game 2 (the seats swap)
    assert [g["results"][k] for g, k in zip(games, mine, strict=True)] == t.results
    assert [g["shots"] for g in games] == [2 * 16, 2 * 16]
    starts = [r["game_id"] for r in lines if r["type"] == "game_start"]
    assert {s["game_id"] for s in shots} == set(starts) == {g["game_id"] for g in games}
    for shot in shots:
        assert len(shot["throw"]) == 4 and shot["scores"] is not None
        if shot["centerline_choice"] != "RESET":
            replayed = records.replay_shot(shot, ends=2)
            np.testing.assert_array_equal(replayed, np.asarray(shot["position"]))


def test_replay_shot__records_of_earlier_versions_replay_with_their_shot_seed() -> None:
    """Shot records written before the physics ``seed`` field held ``shot_seed`` (physics ran
    with ``default_rng(shot_seed)``); such files still replay bit for bit."""
    from rllib_curling import physics
    from rllib_curling.game import Game, GameState
    from rllib_curling.server import records

    before = np.zeros((16, 2))
    before[0] = (2.2, 5.0)
    throw = [3.05, 0.1, 1.5, 0.0]
    result = physics.simulate(before, 1, throw, np.random.default_rng(98765))
    want = Game.settle(GameState(position=before, shot=1), result.position).state.position
    old = {"before": before.tolist(), "shot": 1, "throw": throw, "shot_seed": 98765}
    np.testing.assert_array_equal(records.replay_shot(old, ends=4), want)
    new = {**old, "seed": 98765}
    del new["shot_seed"]
    other = physics.simulate(before, 1, throw, seed=98765)
    assert not np.array_equal(other.position, result.position)  # a different stream
    np.testing.assert_array_equal(
        records.replay_shot(new, ends=4),
        Game.settle(GameState(position=before, shot=1), other.position).state.position,
    )


def test_protocol_flags__every_flag_belongs_to_a_protocol() -> None:
    from rllib_curling.cli.commands.server import PROTOCOL_FLAGS

    args = build_parser().parse_args(["server"])
    flags = set(vars(args)) - {"command", "func", "flag_defaults"}
    assert flags == set().union(*PROTOCOL_FLAGS.values())
    assert set(args.flag_defaults) == flags


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["--protocol", "dc4", "--ends", "8"],
            "--ends is for --protocol platform or --protocol dc3",
        ),
        (["--protocol", "dc4", "--tcp-port", "9"], "not --protocol dc4 (its port: --http-port)"),
        (["--protocol", "dc3", "--key", "k"], "--key is for --protocol platform, not"),
        (["--users", "u.txt"], "(the platform's server takes --key)"),
    ],
)
def test_protocol_flags__a_flag_of_another_protocol_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    from rllib_curling.cli.curling import main

    assert main(["server", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
