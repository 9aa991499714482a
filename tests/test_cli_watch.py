"""``--watch`` on the commands that play games: ``curling match`` (bots in-process, or an
external AI on a server), the env's private servers (``rllib evaluate --watch``), and
``curling play --watch`` (what the client is told)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from server_helpers import CTRL_C_CHILD, stop_and_reap
from web_helpers import get_json, http

pytestmark = pytest.mark.timeout(180)
pytest_plugins = ("server_fixtures",)  # fixtures: start_server


def _watch_match(*args: str) -> tuple[list[str], list[dict[str, Any]], dict[str, Any]]:
    """Run ``curling match ... --watch`` until it lingers; (stdout lines, games, events of the
    last game); then Ctrl+C, which must end it with 0 (Windows: terminated, see
    ``send_stop_signal``)."""
    cmd = [sys.executable, "-m", "rllib_curling", "match", *args, "--watch"]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **CTRL_C_CHILD
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        while not lines or not lines[-1].startswith("the games stay on "):
            line = proc.stdout.readline()
            assert line, f"match ended early: {lines} {proc.stderr.read() if proc.stderr else ''}"
            lines.append(line.strip())
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", lines[-1]).group(1)  # type: ignore[union-attr]
        games = get_json(url + "api/games")
        last = get_json(f"{url}api/games/{games[-1]['id']}")
        shot = next(e for e in last["events"] if e["type"] == "shot" and e["end"] == 0)
        status, _, body = http(url + "api/trajectory", "POST", json.dumps(shot).encode())
        assert status == 200
        last["replayed"] = json.loads(body)
        last["first_shot"] = shot
    finally:
        stopped = stop_and_reap(proc, signal.SIGINT)
    assert stopped.clean, stopped.stderr[-2000:]
    return lines, games, last


def test_match_watch__bot_games_on_the_page_and_the_same_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rllib_curling.cli.curling import main

    args = ["3", "2", "--games", "2", "--ends", "1", "--seed", "4"]
    assert main(["match", *args]) == 0
    plain = capsys.readouterr().out.strip().splitlines()
    lines, games, last = _watch_match(*args)
    assert lines[1].startswith("watch the games at http://127.0.0.1:")
    assert [ln for ln in lines if ln.startswith(("game ", "bot:3"))] == plain  # the same games
    assert [g["status"] for g in games] == ["finished", "finished"]
    assert games[0]["players"] == ["takeout or draw", "draw to the button"]
    assert games[1]["players"] == games[0]["players"][::-1]  # seats swap every game
    for line, game in zip(plain[1:3], games, strict=True):
        a_seat = 0 if "Player1" in line else 1
        mine, theirs = re.search(r"(\d+)-(\d+)", line).groups()  # type: ignore[union-attr]
        assert [game["totals"][a_seat], game["totals"][1 - a_seat]] == [int(mine), int(theirs)]
    shots = [e for e in last["events"] if e["type"] == "shot"]
    assert len(shots) == 16 and last["events"][-1]["type"] == "game"
    first = last["first_shot"]  # simulated again from its seed: the same stone, the same rest
    if not first["fgz_restored"]:
        assert last["replayed"]["position"] == first["position"]


@pytest.mark.slow
def test_match_watch__an_external_ai_on_a_server_with_the_page(start_server: Any) -> None:
    import socket
    import threading

    from server_helpers import RawClient

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done: dict[str, Any] = {}

    def external_ai() -> None:
        import time

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                client = RawClient(port, "localtest", name="external")
                break
            except OSError:
                time.sleep(0.1)
        done["t"] = client.play()
        client.close()

    thread = threading.Thread(target=external_ai, daemon=True)
    thread.start()
    lines, games, last = _watch_match(f"tcp:127.0.0.1:{port}", "2", "--games", "1", "--ends", "1")
    thread.join(30)
    assert any(ln.startswith("watch the games at http://127.0.0.1:") for ln in lines)
    assert games[0]["players"] == ["external", "draw to the button"]
    assert games[0]["status"] == "finished"
    assert last["replayed"]["position"] == last["first_shot"]["position"]


@pytest.mark.slow
def test_env_private_server__the_page_only_when_asked(no_leftover_servers: None) -> None:
    from rllib_curling.env.curling_env import CurlingEnv

    env = CurlingEnv({"opponent": 1, "ends": 1, "seed": 3})
    try:
        env.reset()
        assert env.watch_url is None
    finally:
        env.close()
    env = CurlingEnv({"opponent": 1, "ends": 1, "seed": 3, "http_port": 0})
    try:
        env.reset()
        url = env.watch_url
        assert url is not None and re.fullmatch(r"http://127\.0\.0\.1:\d+/", url)
        (game,) = get_json(url + "api/games")
        assert game["status"] == "live" and game["kinds"][1] == "bot:1"
    finally:
        env.close()


def test_client_feed__a_seat_sees_every_shot_as_the_records_have_it(
    start_server: Any, tmp_path: Any
) -> None:
    from web_helpers import records_of

    from rllib_curling.client import CurlingClient
    from rllib_curling.server.web import WatchHub
    from rllib_curling.server.web.feeds import ClientFeed

    server = start_server(ends=2, games=2, log_dir=str(tmp_path))
    published: list[dict[str, Any]] = []
    client = CurlingClient(*server.address, key="localtest:2", name="me", timeout=30)
    client.on_message = ClientFeed(published.append, "me").message
    client.connect()
    k = 0
    while (event := client.wait_turn()) != "closed":
        if event == "go":
            k += 1
            client.throw(2.9 + 0.1 * (k % 3), 0.4 * ((k % 3) - 1), 1.57)
    client.close()
    records = records_of(tmp_path)
    for kind in ("game_start", "shot", "game"):
        mine = [r for r in published if r["type"] == kind]
        theirs = [r for r in records if r["type"] == kind]
        assert len(mine) == len(theirs) == {"shot": 64}.get(kind, 2)
    for ours, record in zip(
        [r for r in published if r["type"] == "shot"],
        [r for r in records if r["type"] == "shot"],
        strict=True,
    ):
        for key in ("end", "shot", "thrower", "end_score", "scores"):
            expected = record[key]
            assert ours[key] == (list(expected) if key == "end_score" and expected else expected)
        for key in ("before", "position"):  # POSITION sends 6 decimals
            np.testing.assert_allclose(ours[key], record[key], rtol=0, atol=1e-6, err_msg=key)
    games = [r for r in records if r["type"] == "game"]
    assert [g["totals"] for g in published if g["type"] == "game"] == [g["totals"] for g in games]
    assert [g["results"] for g in published if g["type"] == "game"] == [g["results"] for g in games]
    starts = [r for r in published if r["type"] == "game_start"]
    assert [s["players"].index("me") for s in starts] == [0, 1]  # seats swap every game
    hub = WatchHub(frames=None)  # the page takes them as it takes a server's records
    for record in published:
        hub.write(record)
    assert [g["status"] for g in hub.games()] == ["finished", "finished"]
