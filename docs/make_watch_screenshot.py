"""Take ``docs/watch.png`` (README, "Watch games"): a real game on a server with the page, a
client that sweeps against built-in AI 4, the page in Debian's headless Chromium mid-shot.

    python docs/make_watch_screenshot.py   (needs `apt-get install chromium` and playwright)
"""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main() -> None:
    from playwright.sync_api import sync_playwright
    from server_helpers import RawClient

    from rllib_curling.server import start_server_thread
    from rllib_curling.server.config import ServerConfig

    with tempfile.TemporaryDirectory() as records:
        config = ServerConfig(tcp_port=0, http_port=0, seed=2024, ends=4, sweep_window=1.0,
                              log_dir=records)  # fmt: skip
        server = start_server_thread(config)
        throws = iter([(3.05, 0.0, 1.57), (3.1, -0.35, 1.57), (2.85, 0.3, -1.57), (3.0, 0.1, -1.57),
                       (3.15, -0.2, 1.57), (2.95, 0.25, -1.57), (3.05, -0.1, 1.57),
                       (3.0, 0.0, -1.57)] * 8)  # fmt: skip

        def throw(_t: object) -> str:
            v, h, w = next(throws)
            return f"BESTSHOT {v} {h} {w}"

        client = RawClient(server.address[1], "localtest:4", name="my-ai")
        thread = threading.Thread(target=client.play, args=(throw,), kwargs={"sweep": 2.5})
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(server.web_url + "?speed=4")
            thread.start()
            thread.join(120)
            page.evaluate("window.curlingView.select(window.curlingView.state().games[0])")
            page.wait_for_function("window.curlingView.state().shots > 40")
            page.fill("#seek", "38")
            page.dispatch_event("#seek", "input")
            page.click("#step")
            page.wait_for_function(
                "window.curlingView.state().animating && "
                "window.curlingView.state().stones.some(s => s.k === 6 && s.y < 9.0)",
                timeout=60_000,
            )
            page.screenshot(path=str(ROOT / "docs" / "watch.png"))
            browser.close()
        client.close()
        server.stop()


if __name__ == "__main__":
    main()
