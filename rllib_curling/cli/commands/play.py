"""``curling play --checkpoint CKPT``: a trained policy as an AI player on any curling server."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rllib_curling.cli import CommandError, UsageError
from rllib_curling.cli.options import SearchOptions, add_search_options, load_player


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play",
        help="play a trained policy on a server (ours or the platform's)",
        description=(
            "Connect a trained RLlib policy to a curling server as an AI player and play until "
            "the server ends the session. Works with `curling server` and the platform's "
            "curling_server.exe. Prints one line per game."
        ),
    )
    p.add_argument("--checkpoint", required=True,
                   help="RLlib checkpoint (algorithm, trial or experiment dir), an agent folder, "
                   "or builtin: the agent shipped in the package")  # fmt: skip
    p.add_argument("-H", "--host", default="127.0.0.1", help="server host (default 127.0.0.1)")
    p.add_argument("-p", "--port", type=int, default=7788, help="server TCP port (default 7788)")
    p.add_argument(
        "-k", "--key", default="localtest",
        help="connection key; add ':N' to challenge built-in AI N (default localtest)",
    )  # fmt: skip
    p.add_argument("--name", default="rllib-curling", help="team name sent after READYOK")
    p.add_argument("--module-id", default="default_policy", help="module to load")
    add_search_options(p)
    p.add_argument(
        "--timeout", type=float, default=600.0, help="seconds to wait for the server (default 600)"
    )
    p.add_argument(
        "--watch", action="store_true",
        help="show the games on a web page as this client sees them (the stones' positions "
        "after every shot; a free port, the URL is printed); it stays up after the session "
        "until Ctrl+C. To see trajectories, run `curling server --http-port PORT` instead",
    )  # fmt: skip
    p.add_argument(
        "--record", metavar="FILE",
        help="write the games as this client sees them to FILE (JSON lines, appended; "
        "`curling replay FILE` shows them)",
    )  # fmt: skip
    p.add_argument(
        "--explain", action="store_true",
        help="with --watch or --record: add why the agent threw each stone (its most likely "
        "shots, its chance to win, the candidates its search judged); the page draws them",
    )  # fmt: skip
    p.set_defaults(func=run)


def _record_writer(path: str) -> Callable[[dict[str, Any]], None]:
    """A function appending one record to ``path`` as a JSON line (flushed: a file that a
    killed session leaves is still read by ``curling replay``)."""
    import json

    out = open(path, "a", encoding="utf-8")  # noqa: SIM115 (open for the whole session)

    def write(record: dict[str, Any]) -> None:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        out.flush()

    return write


def waiting_hint(key: str | None, after: float) -> str:
    """What ``curling play`` says when no game has started ``after`` seconds in."""
    base = (key or "").split(":")[0] or "KEY"
    if key is not None and ":" not in key:
        lobby = (f"curling server keeps a key without :N ({key!r}) in its lobby until a second "
                 f"client connects; -k {base}:N plays its built-in AI N (1-8) at once")  # fmt: skip
    else:
        lobby = "the server has no free seat or opponent yet"
    return (f"no game yet after {after:g} s, still waiting: {lobby}. On the platform's "
            "curling_server.exe, click Ready and Start on its page")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from rllib_curling.agent.player import WAITING_HINT_S, play_session
    from rllib_curling.client import CurlingClient
    from rllib_curling.errors import ConnectionLostError

    player = load_player(args.checkpoint, args.module_id, SearchOptions.from_args(args))
    if args.explain and not (args.watch or args.record):
        raise UsageError("--explain shows on --watch's page or in --record's file; add one of them")
    player.explain = args.explain
    client = CurlingClient(args.host, args.port, key=args.key, name=args.name, timeout=args.timeout)
    web = feed = None
    sinks: list[Callable[[dict[str, Any]], None]] = []
    if args.record:
        try:
            sinks.append(_record_writer(args.record))
        except OSError as exc:
            raise UsageError(f"cannot write {args.record}: {exc.strerror}") from None
    if args.watch:
        from rllib_curling.errors import ServerStartError
        from rllib_curling.server.web import WatchHub, WebHandle

        try:
            web = WebHandle(WatchHub(frames=None))
        except ServerStartError as exc:
            raise CommandError(str(exc)) from None
        sinks.append(web.publish)
        print(f"watch the games at {web.url}", flush=True)
    if sinks:
        from rllib_curling.server.web.feeds import ClientFeed

        def publish(record: dict[str, Any]) -> None:
            for sink in sinks:
                sink(record)

        feed = ClientFeed(publish, args.name)
        client.on_message = feed.message
    try:
        seat = client.connect()
        print(f"connected to {client.address} as Player{seat + 1}", flush=True)

        def on_game(n: int, c: CurlingClient) -> None:
            mine, theirs = c.totals
            print(f"game {n}: {c.result} {mine}-{theirs} ends {c.end_scores}", flush=True)

        def on_waiting() -> None:
            print(waiting_hint(args.key, WAITING_HINT_S), flush=True)

        on_throw = None if feed is None else feed.thrown
        games = play_session(player, client, on_game, on_throw, on_waiting)
    except ConnectionLostError as exc:
        if web is not None:
            web.stop()
        raise CommandError(str(exc)) from None
    finally:
        client.close()
    print(f"session over after {games} game(s)")
    if web is not None:
        web.serve_until_ctrl_c(f"the games stay on {web.url} until Ctrl+C")
    return 0
