"""``curling replay RECORD.jsonl``: play a recorded game back on the web page (the platform's
page, or the Digital Curling page for records of ``curling server --protocol dc3|dc4``)."""

from __future__ import annotations

import argparse
import logging

from rllib_curling.cli import CommandError, UsageError


def port(text: str) -> int:
    """A TCP port 0..65535 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value < 65536:
        raise argparse.ArgumentTypeError(f"a port is 0..65535, got {value}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="play recorded games back on a web page",
        description="Serve a web page that plays back the games of a records file (written by "
        "`curling server --log-dir DIR`), with play, pause, step and seek per shot, and the "
        "stones moving along their trajectories. The page can also open other record files. "
        "Records of `curling server --protocol dc3|dc4` open on the Digital Curling page "
        "instead: the states shot by shot, with first, back, next, last and seek.",
    )
    p.add_argument("record", metavar="RECORD.jsonl", help="a records file of curling server")
    p.add_argument(
        "--game", type=int, default=None, metavar="N",
        help="the game to open first, counted from 1 in the file (default: the first)",
    )  # fmt: skip
    p.add_argument(
        "--host", default="127.0.0.1", help="address to serve the page on (default: %(default)s)"
    )
    p.add_argument(
        "--http-port", type=port, default=0, metavar="PORT",
        help="port of the page; 0 = a free one (default: %(default)s)",
    )  # fmt: skip
    p.add_argument("-v", "--verbose", action="count", default=0, help="-v info, -vv debug logs")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rllib_curling.errors import ConfigError, ServerStartError
    from rllib_curling.server.web import WebHandle
    from rllib_curling.server.web.replay import replay_hub

    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if _is_dc(args.record):
        return run_dc(args)
    try:
        hub = replay_hub(args.record, args.game)
        handle = WebHandle(hub, args.host, args.http_port)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    except ServerStartError as exc:
        raise CommandError(str(exc)) from None
    n = len(hub.games())
    handle.serve_until_ctrl_c(
        f"curling replay: {n} game(s) from {args.record} at {handle.url} . Stop with Ctrl+C."
    )
    return 0


def _is_dc(path: str) -> bool:
    """Whether ``path`` holds a DC server's records (a ``dc3_*``/``dc4_*`` record type)."""
    from rllib_curling.server.dc_watch.replay import is_dc_records
    from rllib_curling.server.records import read_records

    try:
        return is_dc_records(read_records(path))
    except (OSError, ValueError):
        return False  # the platform's replay says what is wrong with the file


def run_dc(args: argparse.Namespace) -> int:
    """DC records: the Digital Curling page (``server.dc_watch``) in replay mode."""
    from pathlib import Path

    from rllib_curling.errors import ConfigError, ServerStartError
    from rllib_curling.server.dc_watch.http import WatchHandle
    from rllib_curling.server.dc_watch.page import WatchPage
    from rllib_curling.server.dc_watch.replay import read_dc_games

    try:
        games = read_dc_games(args.record)
        if args.game is not None and not 1 <= args.game <= len(games):
            raise ConfigError(f"--game {args.game}: the file holds {len(games)} DC game(s)")
        first = None if args.game is None else games[args.game - 1]["id"]
        page = WatchPage("replay", lambda: games, title=Path(args.record).name, first=first)
        handle = WatchHandle(page, args.host, args.http_port)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    except ServerStartError as exc:
        raise CommandError(str(exc)) from None
    handle.serve_until_ctrl_c(
        f"curling replay: {len(games)} DC game(s) from {args.record} at {handle.url} . "
        "Stop with Ctrl+C."
    )
    return 0
