"""The page on ``curling server --http-port`` (``server.web``) at the HTTP / server-sent events
level: the page and its assets, a game's events in order, the final position equal to the game
records, slow watchers, ports, private servers, ``curling replay``."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import CTRL_C_CHILD, stop_and_reap
from web_helpers import (
    SSEClient,
    get_json,
    http,
    records_of,
    slow_bot_game,
    wait_for_game,
)

from rllib_curling.cli.commands.server import build_config
from rllib_curling.cli.curling import build_parser
from rllib_curling.server.process import ServerOptions, ServerProcess
from rllib_curling.server.web import WatchHub
from rllib_curling.server.web import hub as hub_module
from rllib_curling.server.web.events import MAX_FRAMES
from rllib_curling.server.web.http import LIST_INTERVAL_S
from rllib_curling.server.web.replay import replay_hub

pytestmark = pytest.mark.timeout(120)
pytest_plugins = ("server_fixtures",)  # fixtures: start_server


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A 2-end game of a raw client against bot 3 on a server with the page, watched from its
    second stone on: the SSE events, the records, the page's URL (server stopped after)."""
    from rllib_curling.server import start_server_thread
    from rllib_curling.server.config import ServerConfig

    log_dir = tmp_path_factory.mktemp("records")
    config = ServerConfig(tcp_port=0, http_port=0, seed=99, ends=2, sweep_window=0.0,
                          log_dir=str(log_dir))  # fmt: skip
    handle = start_server_thread(config)
    try:
        thread, box = slow_bot_game(handle.address[1], delay=0.03)
        game = wait_for_game(handle.web_url)
        stream = SSEClient(f"{handle.web_url}api/games/{game['id']}/events")
        stream.read_until("game")
        thread.join(30)
        stream.close()
        games = get_json(handle.web_url + "api/games")
        snapshot = get_json(f"{handle.web_url}api/games/{game['id']}")
    finally:
        handle.stop()
    return {"stream": stream, "records": records_of(log_dir), "games": games,
            "snapshot": snapshot, "transcript": box["t"], "log_dir": log_dir}  # fmt: skip


def test_page__and_its_assets_are_served_from_the_package(start_server: Any) -> None:
    server = start_server(http_port=0)
    url = server.web_url
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url)
    status, headers, body = http(url)
    assert status == 200 and headers["content-type"].startswith("text/html")
    page = body.decode()
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page)
    assert {"/static/app.js", "/static/game.js", "/static/sheet.js", "/static/style.css"} <= set(
        assets
    )
    assert "http" not in page.replace(url, "")  # no CDN, nothing from the network
    for asset in assets:
        status, headers, body = http(url + asset[1:])
        kind = "text/css" if asset.endswith(".css") else "text/javascript"
        assert status == 200 and headers["content-type"].startswith(kind) and body, asset
    sheet = get_json(url + "api/sheet")
    assert sheet["tee"] == [2.375, 4.88] and sheet["rings"][-1] == 1.87
    assert get_json(url + "api/info") == {"mode": "live"}
    assert get_json(url + "api/games") == []
    assert http(url + "static/../hub.py")[0] == 404
    assert http(url + "static/nothing.js")[0] == 404
    assert http(url + "api/games/nope")[0] == 404
    assert http(url, method="DELETE")[0] == 405
    with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1][:-1])), 5) as sock:
        sock.sendall(b"NONSENSE\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 400")


def test_live_game__a_watcher_gets_its_events_in_order(played: dict[str, Any]) -> None:
    stream = played["stream"]
    assert stream.status_line == "HTTP/1.1 200 OK"
    assert stream.content_type == "text/event-stream"
    seqs = [seq for seq, _, _ in stream.events]
    assert seqs == list(range(len(seqs)))  # the history, then live events, none twice
    types = [t for _, t, _ in stream.events]
    assert types[0] == "game_start" and types[-1] == "game" and set(types[1:-1]) == {"shot"}
    shots = [(e["end"], e["shot"]) for _, t, e in stream.events if t == "shot"]
    assert shots == [(end, shot) for end in range(2) for shot in range(16)]
    with_frames = [e for _, t, e in stream.events if t == "shot" and "frames" in e]
    assert len(with_frames) >= 16  # watched live: the shots came with their trajectories
    for event in with_frames:
        frames = event["frames"]
        assert event["shot"] in frames["stones"] and 2 <= len(frames["xy"]) <= MAX_FRAMES + 1
        assert all(len(xy) == 2 * len(frames["stones"]) for xy in frames["xy"])
    nexts = [e["next_seat"] for _, t, e in stream.events if t == "shot"]
    assert nexts[-1] is None and all(s in (0, 1) for s in nexts[:-1])


def test_live_game__the_final_position_and_score_equal_the_records(played: dict[str, Any]) -> None:
    events = [e for _, _, e in played["stream"].events]
    shots = [r for r in played["records"] if r["type"] == "shot"]
    streamed = [e for e in events if e["type"] == "shot"]
    assert len(streamed) == len(shots) == 32
    for record, event in zip(shots, streamed, strict=True):
        assert event["position"] == record["position"] and event["before"] == record["before"]
        assert event["throw"] == record["throw"] and int(event["seed"]) == record["seed"]
    (final,) = [r for r in played["records"] if r["type"] == "game"]
    assert events[-1]["totals"] == final["totals"] == list(played["transcript"].totals[-1])
    assert played["games"][-1]["status"] == "finished"
    assert played["games"][-1]["totals"] == final["totals"]
    assert [e["seq"] for e in played["snapshot"]["events"]] == list(range(len(events)))


def test_trajectory__a_recorded_shot_simulated_again_ends_where_it_stopped(
    played: dict[str, Any], start_server: Any
) -> None:
    import json

    url = start_server(http_port=0).web_url
    for record in [r for r in played["records"] if r["type"] == "shot"][:6]:
        body = json.dumps({**record, "seed": str(record["seed"])}).encode()
        status, _, answer = http(url + "api/trajectory", "POST", body)
        assert status == 200
        result = json.loads(answer)
        if not record["fgz_restored"] and not record["centre_line_violation"]:
            assert result["position"] == record["position"]
        last = result["frames"]["xy"][-1]
        for m, k in enumerate(result["frames"]["stones"]):
            assert last[2 * m : 2 * m + 2] == [round(v, 3) for v in result["position"][k]]
    assert http(url + "api/trajectory", "POST", b'{"shot": 1}')[0] == 400
    assert http(url + "api/trajectory", "POST", b"x" * 70000)[0] == 413


def test_watchers__a_slow_one_drops_frames_not_shots_and_never_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    big = {"xy": [[1.0] * 100] * 400}  # a trajectory of about 200 kB
    hub = WatchHub(frames=lambda record: big)
    hub.write({"type": "game_start", "game_id": "g", "players": ["a", "b"], "ends": 1})
    watcher, history = hub.watch("g")
    assert len(history) == 1

    def shot(k: int) -> dict[str, Any]:
        return {"type": "shot", "game_id": "g", "end": 0, "shot": k, "thrower": k % 2,
                "end_score": None, "scores": [0, 0], "before": [], "position": []}  # fmt: skip

    for k in range(10):  # nobody reads: the queue grows, publishing never waits
        hub.write(shot(k))
    assert watcher.frames_dropped >= 8 and not watcher.dropped
    assert sum(b"event: shot" in chunk for chunk in watcher.queue) == 10  # every shot is there
    assert len(hub.game("g").history) == 11  # and in the history, without frames
    assert all(b'"frames"' not in chunk for chunk in hub.game("g").history)
    monkeypatch.setattr(hub_module, "HARD_LIMIT", watcher.pending + 100)
    for k in range(10, 14):
        hub.write(shot(k))
    assert watcher.dropped and not watcher.queue  # too far behind: dropped, it reconnects
    later, missed = hub.watch("g", after=5)
    assert len(missed) == 15 - 6 and b"id: 6\n" in missed[0]


def test_watchers__a_stalled_browser_does_not_slow_the_game(start_server: Any) -> None:
    server = start_server(http_port=0, ends=1)
    thread, box = slow_bot_game(server.address[1], delay=0.0)
    game = wait_for_game(server.web_url)
    port = int(server.web_url.rsplit(":", 1)[1][:-1])
    stalled = []
    for _ in range(3):  # connect, ask for the stream, never read
        sock = socket.create_connection(("127.0.0.1", port), 5)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        sock.sendall(f"GET /api/games/{game['id']}/events HTTP/1.1\r\n\r\n".encode())
        stalled.append(sock)
    thread.join(30)
    assert not thread.is_alive() and len(box["t"].results) == 1
    for sock in stalled:
        sock.close()


def test_config__http_port_from_the_ini_and_the_flags(tmp_path: Path) -> None:
    ini = tmp_path / "config.ini"
    ini.write_text("[ROOT]\nHttpPort=9009\nTcpPort=7789\n")
    parser = build_parser()
    assert build_config(parser.parse_args(["server", "--config", str(ini)])).http_port == 9009
    args = ["server", "--config", str(ini), "--http-port", "0"]
    assert build_config(parser.parse_args(args)).http_port == 0
    args = ["server", "--config", str(ini), "--no-http"]
    assert build_config(parser.parse_args(args)).http_port is None
    assert build_config(parser.parse_args(["server"])).http_port is None  # off by default
    assert build_config(parser.parse_args(["server", "--http-port", "9007"])).http_port == 9007


def _curling(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "rllib_curling", *args]
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **CTRL_C_CHILD)  # fmt: skip


def test_server__http_port_in_use_is_a_one_line_error(no_leftover_servers: None) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = _curling("server", "--tcp-port", "0", "--http-port", str(port))
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert err.strip() == (
        f"curling server: HTTP port {port} on 127.0.0.1 is already in use "
        "(choose another with --http-port, or 0 for a free one)"
    )


@pytest.mark.slow
def test_server__announces_and_prints_the_page_url(no_leftover_servers: None) -> None:
    proc = _curling("server", "--tcp-port", "0", "--http-port", "0", "--announce")
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("LISTENING 127.0.0.1 ")
        web = proc.stdout.readline().split()
        assert web[0] == "WEB" and re.fullmatch(r"http://127\.0\.0\.1:\d+/", web[1])
        assert http(web[1])[0] == 200
    finally:
        stopped = stop_and_reap(proc, signal.SIGTERM)
    assert stopped.clean, stopped.stderr[-2000:]
    proc = _curling("server", "--tcp-port", "0", "--http-port", "0")
    try:
        assert proc.stderr is not None
        lines = [proc.stderr.readline(), proc.stderr.readline()]
        assert "listening on 127.0.0.1:" in lines[0]
        page = r"curling server: watch the games at http://127\.0\.0\.1:\d+/\n"
        assert re.fullmatch(page, lines[1])
    finally:
        stop_and_reap(proc, signal.SIGINT)


@pytest.mark.slow
def test_private_server__no_page_unless_asked(no_leftover_servers: None) -> None:
    assert "--http-port" not in ServerOptions().argv()
    quiet = ServerProcess(ServerOptions())
    try:
        assert quiet.web_url is None
    finally:
        quiet.stop()
    watched = ServerProcess(ServerOptions(http_port=0))
    try:
        assert watched.web_url is not None and http(watched.web_url)[0] == 200
    finally:
        watched.stop()


def test_replay__every_game_of_a_file_and_the_chosen_one(
    played: dict[str, Any], tmp_path: Path
) -> None:
    (path,) = sorted(played["log_dir"].glob("*.jsonl"))
    hub = replay_hub(path, 1)
    (game,) = hub.games()
    assert hub.info == {"mode": "replay", "title": path.name, "game": game["id"]}
    assert game["status"] == "finished" and game["totals"] == played["games"][-1]["totals"]
    streamed = [e for _, _, e in played["stream"].events]
    replayed = hub.game(game["id"]).events
    assert [e["type"] for e in replayed] == [e["type"] for e in streamed]
    assert [e.get("next_seat") for e in replayed] == [e.get("next_seat") for e in streamed]
    cut = tmp_path / "cut.jsonl"
    head = path.read_text(encoding="utf-8").splitlines(keepends=True)[:10]
    cut.write_text("".join(head) + '{"type": "sh', encoding="utf-8")
    (unfinished,) = replay_hub(cut).games()
    assert unfinished["status"] == "unfinished" and unfinished["shots"] == 8


@pytest.mark.slow
def test_replay_command__serves_the_page_and_stops_on_ctrl_c(played: dict[str, Any]) -> None:
    (path,) = sorted(played["log_dir"].glob("*.jsonl"))
    proc = _curling("replay", str(path), "--game", "1")
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert url and line.startswith("curling replay: 1 game(s) from "), line
        assert get_json(url.group(1) + "api/info")["mode"] == "replay"
        assert len(get_json(url.group(1) + "api/games")) == 1
    finally:
        stopped = stop_and_reap(proc, signal.SIGINT)
    assert stopped.clean, stopped.stderr[-2000:]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere.jsonl"], "cannot read the records file nowhere.jsonl"),
        (["EMPTY"], "holds no games"),
        (["RECORD", "--game", "2"], "--game 2: "),
    ],
)
def test_replay_command__one_line_errors(
    played: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    args: list[str], message: str,
) -> None:  # fmt: skip
    from rllib_curling.cli.curling import main

    (path,) = sorted(played["log_dir"].glob("*.jsonl"))
    (tmp_path / "empty.jsonl").write_text('{"type": "run"}\n')
    names = {"EMPTY": str(tmp_path / "empty.jsonl"), "RECORD": str(path)}
    assert main(["replay", *(names.get(a, a) for a in args)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("curling replay: ") and message in err and err.count("\n") == 1


def test_list_stream__sends_the_games_and_coalesces_changes(start_server: Any) -> None:
    server = start_server(http_port=0, ends=1)
    started = time.monotonic()
    stream = SSEClient(server.web_url + "api/events")
    stream.read_until("games")
    assert stream.events[0][2]["games"] == []
    thread, _ = slow_bot_game(server.address[1], delay=0.0)
    updates = 0
    while True:  # one update per change at most every LIST_INTERVAL_S, until the game is over
        stream.events.clear()
        stream.read_until("games", timeout=20)
        updates += sum(t == "games" for _, t, _ in stream.events)
        games = stream.events[-1][2]["games"]
        if games and games[0]["status"] == "finished":
            break
    thread.join(30)
    assert updates <= 2 + (time.monotonic() - started) / LIST_INTERVAL_S
    stream.close()


def test_rooms__one_page_shows_the_games_of_every_room(start_server: Any) -> None:
    server = start_server(http_port=0, ports=2, ends=1)
    threads = [slow_bot_game(port, delay=0.0)[0] for _, port in server.addresses]
    for thread in threads:
        thread.join(30)
    games = get_json(server.web_url + "api/games")
    assert sorted(g["id"].split("-")[-3] for g in games) == ["r0", "r1"]
    assert [g["status"] for g in games] == ["finished", "finished"]
