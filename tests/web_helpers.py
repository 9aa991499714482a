"""Helpers of the web page tests: plain HTTP and server-sent events on raw sockets, and a game
played on a real server (real engine and bot) for the page to show."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from server_helpers import RawClient, Transcript


def http(url: str, method: str = "GET", body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """One request: (status, headers, body)."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
        sock.sendall(head.encode() + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head_bytes, _, payload = data.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
    return int(lines[0].split(" ")[1]), headers, payload


def get_json(url: str) -> Any:
    status, _, body = http(url)
    assert status == 200, (url, status, body[:200])
    return json.loads(body)


@dataclass
class SSEClient:
    """A server-sent events stream read on a raw socket: ``events`` as (id, type, data)."""

    url: str
    events: list[tuple[int | None, str, dict[str, Any]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(65536)
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        self.status_line = head.split(b"\r\n")[0].decode()
        self.content_type = next(
            (h.split(b":", 1)[1].strip().decode() for h in head.split(b"\r\n")
             if h.lower().startswith(b"content-type:")), "",
        )  # fmt: skip

    def read_until(self, event_type: str, timeout: float = 60.0) -> None:
        """Read events until one of ``event_type`` arrives (AssertionError on timeout)."""
        deadline = time.monotonic() + timeout
        while not any(t == event_type for _, t, _ in self.events):
            assert time.monotonic() < deadline, f"no {event_type} event in {timeout} s"
            self.sock.settimeout(max(0.1, deadline - time.monotonic()))
            chunk = self.sock.recv(65536)
            assert chunk, "the stream closed"
            self.buffer += chunk
            while b"\n\n" in self.buffer:
                block, _, self.buffer = self.buffer.partition(b"\n\n")
                self._parse(block.decode())

    def _parse(self, block: str) -> None:
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if line.startswith(":") or ":" not in line:
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if "data" in fields:
            seq = int(fields["id"]) if "id" in fields else None
            self.events.append((seq, fields.get("event", "message"), json.loads(fields["data"])))

    def close(self) -> None:
        self.sock.close()


def slow_bot_game(port: int, *, delay: float = 0.05, key: str = "localtest:3") -> Any:
    """Start a raw client playing built-in bot 3 in a thread, waiting ``delay`` s before each
    throw (so a page can watch the game as it goes); returns (thread, transcript box)."""
    box: dict[str, Transcript] = {}

    def throw(t: Transcript) -> str:
        time.sleep(delay)
        k = t.gos
        v, h, w = 2.95 + 0.05 * (k % 4), 0.3 * ((k % 3) - 1), 1.57 if k % 2 else -1.57
        return f"BESTSHOT {v:.2f} {h:.2f} {w}"

    def play() -> None:
        client = RawClient(port, key, name="watched")
        try:
            box["t"] = client.play(throw)
        finally:
            client.close()

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    return thread, box


def records_of(log_dir: Path) -> list[dict[str, Any]]:
    (path,) = sorted(log_dir.glob("*.jsonl"))
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def wait_for_game(web_url: str, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        games = get_json(web_url + "api/games")
        if games:
            return games[-1]
        time.sleep(0.02)
    raise AssertionError(f"no game on the page within {timeout} s")


ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
#: Debian's package installs the browser here (``apt-get install chromium``).
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: Until the page shows the whole game: the last shot drawn, no animation left.
DONE = (
    "(() => { const s = window.curlingView && window.curlingView.state(); "
    "return s && s.finished && !s.animating && s.shown === s.shots && s.shots > 0; })()"
)


def shoot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000 and path.read_bytes()[:4] == b"\x89PNG"
    return path
