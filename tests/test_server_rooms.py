"""A server with several ports (``--ports N``): each port is a room that plays as a server of its
own (seed + i, its own lobby), all in one process."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from rllib_curling.client import CurlingClient
from rllib_curling.errors import ConfigError
from rllib_curling.server.config import ServerConfig
from rllib_curling.server.process import ServerOptions, ServerProcess

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("no_leftover_servers")]


def _bot_game(address: tuple[str, int]) -> list[tuple[float, ...]]:
    """One 1-end game against level 1 with fixed throws; every POSITION seen, rounded."""
    client = CurlingClient(*address, key="localtest:1", timeout=60.0)
    seen = []
    try:
        client.connect()
        while (event := client.wait_turn()) == "go":
            seen.append(tuple(client.position.ravel().round(6)))
            client.throw(3.0, 0.1 * len(seen), 1.0)
        assert event == "gameover"
        seen.append(tuple(client.position.ravel().round(6)))
    finally:
        client.close()
    return seen


@pytest.mark.slow
def test_rooms__each_port_plays_like_a_server_seeded_seed_plus_i() -> None:
    shared = ServerProcess(ServerOptions(ports=3, ends=1, seed=20))
    try:
        assert len({port for _, port in shared.addresses}) == 3
        assert shared.address == shared.addresses[0]
        in_rooms = [_bot_game(address) for address in shared.addresses]
    finally:
        shared.stop()
    assert in_rooms[0] != in_rooms[1] != in_rooms[2]  # the rooms' seeds differ
    for i in (0, 2):
        alone = ServerProcess(ServerOptions(ends=1, seed=20 + i))
        try:
            assert _bot_game(alone.address) == in_rooms[i]
        finally:
            alone.stop()


def _lobby_seat(address: tuple[str, int], out: dict[str, object], name: str) -> None:
    client = CurlingClient(*address, key="localtest", name=name, timeout=60.0)
    try:
        client.connect()
        while (event := client.wait_turn()) == "go":
            client.throw(3.0, 0.0, 1.0)
        out[name] = (event, client.result)
    finally:
        client.close()


def test_rooms__each_room_has_its_own_lobby_and_pairs_play_at_once() -> None:
    server = ServerProcess(ServerOptions(ports=2, ends=1, seed=3))
    out: dict[str, object] = {}
    try:
        threads = [
            threading.Thread(target=_lobby_seat, args=(address, out, f"r{room}-{seat}"))
            for room, address in enumerate(server.addresses)
            for seat in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    finally:
        server.stop()
    assert sorted(out) == ["r0-0", "r0-1", "r1-0", "r1-1"]
    for room in ("r0", "r1"):
        results = {out[f"{room}-0"][1], out[f"{room}-1"][1]}  # type: ignore[index]
        assert results in ({"WIN", "LOSE"}, {"DRAW"}), out


def test_rooms__cli_announces_every_port() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "rllib_curling", "server", "--tcp-port", "0", "--ports", "3",
         "--announce", "--exit-with-parent"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        parts = proc.stdout.readline().split()
        assert parts[:2] == ["LISTENING", "127.0.0.1"] and len(parts) == 5, parts
        assert len(set(parts[2:])) == 3
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize(
    "values", [{"ports": 0}, {"ports": True}, {"ports": "2"}, {"tcp_port": 65535, "ports": 2}]
)
def test_rooms__bad_port_counts_are_refused(values: dict) -> None:
    with pytest.raises(ConfigError, match="ports"):
        ServerConfig(**values)
