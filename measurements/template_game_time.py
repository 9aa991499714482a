"""Wall time of course-template games on a `curling server` with the default sweep window.

The course template (tests/test_server_course_clients.py's ``TemplateClient``, written from how
the course's ``AIRobot.py`` reads and writes the wire) never sweeps and does not answer
MOTIONINFO, so whatever the server waits after MOTIONINFO is the game's wait. It plays built-in
AI ``--level`` (or, with ``--pair``, a second template) for ``--games`` games of ``--ends`` ends
on a server in this process; the median of ``--runs`` runs is printed (``--json`` too)::

    python measurements/template_game_time.py                 # 4 ends against level 3
    python measurements/template_game_time.py --sweep 0       # the template answering SWEEP 0
    python measurements/template_game_time.py --window-ms 0   # a server that never waits

The figures are in RESULTS.md ("Sweep window").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_server_course_clients import TemplateClient  # noqa: E402

from rllib_curling.server import ServerConfig, start_server_thread  # noqa: E402


def one_run(args: argparse.Namespace, window: float, seed: int) -> float:
    """Seconds from the clients' connection to the end of their session."""
    handle = start_server_thread(
        ServerConfig(tcp_port=0, seed=seed, ends=args.ends, games=args.games, sweep_window=window)
    )
    try:
        port = handle.address[1]  # type: ignore[index]
        started = time.perf_counter()
        if args.pair:
            clients = [TemplateClient(port, "k", name, args.sweep) for name in ("alpha", "beta")]
        else:
            clients = [TemplateClient(port, f"localtest:{args.level}", "template", args.sweep)]
        threads = [threading.Thread(target=c.run) for c in clients]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        assert all(len(c.results) == args.games for c in clients), "a session did not finish"
        return elapsed
    finally:
        handle.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window-ms", type=float, default=None, help="default: the server's")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--ends", type=int, default=4)
    parser.add_argument("--level", type=int, default=3, help="the built-in opponent (default 3)")
    parser.add_argument("--pair", action="store_true", help="two templates play each other")
    parser.add_argument("--sweep", type=float, default=None, help="answer MOTIONINFO: SWEEP d")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    window = ServerConfig().sweep_window if args.window_ms is None else args.window_ms / 1000
    times = [one_run(args, window, seed) for seed in range(args.runs)]
    result: dict[str, Any] = {
        "window_s": window, "games": args.games, "ends": args.ends,
        "opponent": "template" if args.pair else f"level {args.level}", "sweep": args.sweep,
        "runs": times, "median_s": statistics.median(times),
    }  # fmt: skip
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"sweep window {window:g} s, {args.games} game(s) of {args.ends} ends against "
            f"{result['opponent']}, sweep {args.sweep}: median {result['median_s']:.2f} s "
            f"wall ({', '.join(f'{t:.2f}' for t in times)})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
