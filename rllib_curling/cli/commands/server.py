"""``curling server``: run the digital-curling server (a drop-in for ``curling_server.exe``)."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import logging
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rllib_curling.cli import CommandError, UsageError
from rllib_curling.cli.options import level_range
from rllib_curling.cli.players import POLICY_PREFIX, Agent, parse_player

if TYPE_CHECKING:
    from rllib_curling.server.config import ServerConfig

DESCRIPTION = """\
Headless digital-curling (数字冰壶) server speaking the course platform's TCP protocol. Clients
connect with CONNECTKEY:<key> (suffix :0 = debug mode against the dumb robot, :1 .. :8 = built-in
AI n; no suffix = two clients play each other). Games start as soon as both seats are filled
and ready. Bot games run side by side (up to --max-matches), whatever the two-client seats do.
With --http-port (or HttpPort in --config) a web page on that port shows every game live.
On stderr it says who waits in the lobby and why, and prints one line per game (-q: not).

With --protocol dc4 it is instead a server for UEC's Digital Curling 4 clients (dc4client): HTTP
on --http-port (default 5000) with basic auth, any user on 127.0.0.1, a --users file elsewhere;
--opponent N seats our DC bot of level N (0-8) in every match created (team1; team0 with
--bot-first); --seed, --log-dir, --announce, -q and -v apply, the platform's other flags do not.

With --protocol dc3 it is a server for UEC's Digital Curling 3 clients (the C++ examples,
tournament programs): newline-delimited JSON, team 0 on --port0 (default 10000), team 1 on
--port1 (default 10001); --ends (default 10), --thinking-time, --extra-end-thinking-time,
--games (default 1, as DC3's server: then it exits; 0 = until stopped), --opponent N (our DC
bot of level N, 0-8, takes team 1, or team 0 with --bot-first; --opponent N,M: bots take both
teams, level N team 0, and the games are printed), --seed, --log-dir, --announce, -q and -v
apply, the platform's other flags do not.
"""
PROTOCOLS = ("platform", "dc4", "dc3")


def add_parser(sub: argparse._SubParsersAction) -> None:
    from rllib_curling.dc_game import EXTRA_END_TIME
    from rllib_curling.game import BLANK_END_CHOICES
    from rllib_curling.protocol.defaults import DEFAULT_HTTP_PORT, DEFAULT_TCP_PORT
    from rllib_curling.server.config import DEFAULT_MAX_MATCHES, ServerConfig
    from rllib_curling.server.dc3.config import DEFAULT_PORTS as DC3_PORTS
    from rllib_curling.server.dc3.config import DC3ServerConfig

    d = ServerConfig()  # the flags' defaults are ServerConfig's (ms flags: its seconds x 1000)
    p = sub.add_parser(
        "server",
        help="run the protocol server (drop-in for curling_server.exe)",
        description=DESCRIPTION,
    )
    p.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default="platform",
        help="platform: the course platform's TCP protocol; dc4: UEC Digital Curling 4's HTTP "
        "API for dc4client; dc3: UEC Digital Curling 3's JSON lines, one port per team "
        "(default: %(default)s)",
    )
    p.add_argument("--host", default=d.host, help="address to listen on (default: %(default)s)")
    p.add_argument(
        "--users",
        metavar="FILE",
        help="--protocol dc4: the basic-auth users, user:password lines (required with a --host "
        "other than 127.0.0.1; without it any user and password are accepted)",
    )
    p.add_argument(
        "--tcp-port",
        type=int,
        default=None,
        help=f"TCP port; 0 = the OS picks one (default: TcpPort of --config, else "
        f"{DEFAULT_TCP_PORT})",
    )
    p.add_argument(
        "--port0",
        type=int,
        default=None,
        metavar="PORT",
        help=f"--protocol dc3: team 0's port (throws first in end 0); 0 = a free one (default: "
        f"{DC3_PORTS[0]})",
    )
    p.add_argument(
        "--port1",
        type=int,
        default=None,
        metavar="PORT",
        help=f"--protocol dc3: team 1's port (has the hammer in end 0); 0 = a free one (default: "
        f"{DC3_PORTS[1]})",
    )
    p.add_argument(
        "--thinking-time",
        type=float,
        default=None,
        metavar="SECONDS",
        help="--protocol dc3: each team's clock for the regular ends (default: 21.9 s per end)",
    )
    p.add_argument(
        "--extra-end-thinking-time",
        type=float,
        default=EXTRA_END_TIME,
        metavar="SECONDS",
        help="--protocol dc3: each team's clock for each extra end (default: %(default)s)",
    )
    p.add_argument(
        "--config",
        default=None,
        metavar="INI",
        help="the platform's conf/config.ini: [ROOT] TcpPort, and HttpPort for the page",
    )
    p.add_argument(
        "--http-port",
        type=int,
        default=None,
        metavar="PORT",
        help="serve a web page showing the games live on this port (the platform uses "
        f"{DEFAULT_HTTP_PORT}); "
        "0 = a free port (default: HttpPort of --config, else no page). --protocol dc4: the "
        "HTTP API's port (default 5000), which also serves the DC watch page at /; --protocol "
        "dc3: the DC watch page's port (default: no page)",
    )
    p.add_argument(
        "--no-http", action="store_true", help="no web page, even with HttpPort in --config"
    )
    p.add_argument(
        "--ends",
        type=int,
        default=None,
        help="ends per game: any number (the platform offers 4 and 8), or -1 = unlimited (default: "
        f"{d.ends}; --protocol dc3: {DC3ServerConfig().ends}, extra ends while tied)",
    )
    p.add_argument(
        "--games",
        type=int,
        default=d.games,
        help="games per pair; 0 = until stopped (default: %(default)s)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=d.seed,
        help="base seed (default: a random one, written to the records)",
    )
    p.add_argument(
        "--log-dir",
        default=d.log_dir,
        help="write JSONL game records to this directory (default: none)",
    )
    p.add_argument(
        "--turn-timeout",
        type=float,
        default=d.turn_timeout,
        help="seconds from GO to BESTSHOT, then the stone is lost (default: %(default)s)",
    )
    p.add_argument(
        "--compat-gap-ms",
        type=float,
        default=d.compat_gap * 1000.0,
        help="pause between messages to every client (default: %(default)g; clients that send no "
        "CONNECTKEY, the 2020-era ones, always get --legacy-gap-ms)",
    )
    p.add_argument(
        "--legacy-gap-ms",
        type=float,
        default=d.legacy_gap * 1000.0,
        help="pause between messages to a client that sent no CONNECTKEY (2020-era clients "
        "read one message per recv) (default: %(default)s)",
    )
    p.add_argument(
        "--key",
        action="append",
        default=[],
        dest="keys",
        help="accepted connection key (repeatable); default: any key",
    )
    p.add_argument(
        "--opponent",
        type=opponent_levels,
        default=d.opponent,
        metavar="N",
        help=f"seat built-in AI N ({level_range()}) against every client whose key has no :N "
        "suffix; --protocol dc3/dc4: our DC bot of level N (0-8) takes a side in every game "
        "(team1, team0 with --bot-first); dc3 also N,M: bots on both sides, N in team0",
    )
    p.add_argument(
        "--sweep-window-ms",
        type=float,
        default=d.sweep_window * 1000.0,
        help="wait up to this long for the thrower's SWEEP after MOTIONINFO (it ends as soon as "
        "SWEEP comes): on a client's first MOTIONINFO, then only for clients that have sent a "
        "SWEEP (clients that do not sweep may answer SWEEP 0); 0 = never wait "
        "(default: %(default)s)",
    )
    p.add_argument(
        "--bot-first",
        action="store_true",
        help="the built-in opponent is Player1 in game 1 (the client has the hammer in end 1); "
        "dc3/dc4: the DC bot is team0 (throws first in end 0)",
    )
    p.add_argument(
        "--blank-end",
        choices=BLANK_END_CHOICES,
        default=d.blank_end,
        help="throwing order after a 0-0 end: swap (course template) or keep "
        "(default: %(default)s)",
    )
    p.add_argument(
        "--ready-timeout",
        type=float,
        default=d.ready_timeout,
        help="seconds a seated client has to answer ISREADY (default: %(default)s)",
    )
    p.add_argument(
        "--forfeit-after",
        type=int,
        default=d.forfeit_after,
        help="lost turns in a row that forfeit the game and end the match; 0 = never "
        "(default: %(default)s)",
    )
    p.add_argument(
        "--max-matches",
        type=int,
        default=None,
        help="matches played at once: bot games, and one game between two clients "
        f"(default: {DEFAULT_MAX_MATCHES}, or --ports if more: a game in every room)",
    )
    p.add_argument(
        "--ports",
        type=int,
        default=d.ports,
        help="listen on this many ports: the TCP port and the next ones (or free ports with "
        "--tcp-port 0), each a separate room with its own lobby and seed + i; an env runner's "
        "envs share one server so (default: %(default)s)",
    )
    p.add_argument(
        "--announce",
        action="store_true",
        help="print 'LISTENING <host> <port> [<port> ...]' on stdout once accepting connections "
        "(then 'WEB <url>' with a page), for a program that starts the server; implies --quiet",
    )
    p.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="exit when the parent process ends: when standard input reaches EOF (POSIX), when "
        "the process of --parent-pid ends, else the parent process (Windows)",
    )
    p.add_argument(
        "--parent-pid",
        type=int,
        metavar="PID",
        help="with --exit-with-parent: exit when this process ends (what a program that starts "
        "the server gives on Windows, where a venv's python.exe is a launcher between the two)",
    )
    p.add_argument(
        "-q", "--quiet", action="store_true",
        help="no human lines on stderr (the start-up line, who waits in the lobby and why, one "
        "line per game that ends); warnings and errors still show",
    )  # fmt: skip
    p.add_argument(
        "--agent", action="append", default=[], metavar="[NAME=]CHECKPOINT",
        help="an agent people may play on the page (with --http-port): builtin (the shipped "
        "agent), an agent folder or a checkpoint, as it plays by default, or policy:CHECKPOINT "
        "(its network alone); repeat for more (needs the rl extra)",
    )  # fmt: skip
    p.add_argument("-v", "--verbose", action="count", default=0, help="-v info, -vv debug logs")
    every = sorted(set().union(*PROTOCOL_FLAGS.values()))
    p.set_defaults(func=run, flag_defaults={dest: p.get_default(dest) for dest in every})


def opponent_levels(text: str) -> tuple[int, ...]:
    """``--opponent``: ``"N"`` (a bot in one seat) or ``"N,M"`` (DC3: bots in both); the levels
    are checked by the protocol's server (the platform's 0-8, DC's 0-8)."""
    parts = [part.strip() for part in text.split(",")]
    if not 1 <= len(parts) <= 2 or not all(part.lstrip("-").isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"--opponent takes a level N, or N,M for dc3: {text!r}")
    return tuple(int(part) for part in parts)


def build_config(args: argparse.Namespace) -> ServerConfig:
    """``ServerConfig`` from the parsed flags (``--config`` first, explicit flags win)."""
    from rllib_curling.protocol.defaults import DEFAULT_TCP_PORT
    from rllib_curling.server.config import ServerConfig, read_platform_ini

    tcp_port, http_port = (None, None)
    if args.config:
        tcp_port, http_port = read_platform_ini(args.config)
    if args.tcp_port is not None:
        tcp_port = args.tcp_port
    if args.http_port is not None:
        http_port = args.http_port
    if args.no_http:
        http_port = None
    return ServerConfig(
        host=args.host,
        tcp_port=DEFAULT_TCP_PORT if tcp_port is None else tcp_port,
        ports=args.ports,
        http_port=http_port,
        ends=ServerConfig().ends if args.ends is None else args.ends,
        games=args.games,
        seed=args.seed,
        log_dir=args.log_dir,
        turn_timeout=args.turn_timeout,
        compat_gap=args.compat_gap_ms / 1000.0,
        legacy_gap=args.legacy_gap_ms / 1000.0,
        keys=tuple(args.keys),
        opponent=None if args.opponent is None else args.opponent[0],
        bot_seat=0 if args.bot_first else 1,
        sweep_window=args.sweep_window_ms / 1000.0,
        blank_end=args.blank_end,
        ready_timeout=args.ready_timeout,
        forfeit_after=args.forfeit_after,
        max_matches=args.max_matches,
    )


def _banner(config: ServerConfig) -> Callable[[list[tuple[str, int]]], None]:
    """A callback printing the human start-up line once the server listens."""

    def banner(addresses: list[tuple[str, int]]) -> None:
        address = addresses[0]
        more = f" (and {len(addresses) - 1} more ports: rooms)" if len(addresses) > 1 else ""
        games = config.games or "unlimited"
        ends = "unlimited" if config.ends == -1 else config.ends
        print(
            f"curling server: listening on {address[0]}:{address[1]}{more}, {ends} ends, "
            f"{games} game(s) per pair. Stop with Ctrl+C.",
            file=sys.stderr,
            flush=True,
        )

    return banner


def _web_banner(config: ServerConfig, play_key: str) -> Callable[[str], None]:
    """A callback printing where the page is, and where people play (with the key a seat is
    taken with: the play key, when the server has no --keys)."""

    def banner(url: str) -> None:
        print(f"curling server: watch the games at {url}", file=sys.stderr, flush=True)
        where = f"{url}?key=KEY (one of --key)" if config.keys else f"{url}?key={play_key}"
        print(f"curling server: play in the browser at {where}", file=sys.stderr, flush=True)

    return banner


def agent_factories(specs: list[str]) -> dict[str, Callable[[], Any]]:
    """``--agent [NAME=]CHECKPOINT`` → the server's agents by name, each a factory of an
    explaining in-process bot (``agent.search.AgentBot``); the checkpoint is loaded once, here, so
    a bad one fails at start in one line (``ConfigError``)."""
    import dataclasses

    from rllib_curling.errors import ConfigError

    agents: dict[str, Callable[[], Any]] = {}
    for spec in specs:
        name, sep, named = spec.partition("=")
        try:
            agent = parse_player(named if sep else spec, (Agent,))
        except ValueError as exc:
            raise ConfigError(f"--agent {spec!r}: {exc}") from None
        assert isinstance(agent, Agent)
        if not sep:
            name = Path(agent.checkpoint.rstrip("/\\")).name or agent.checkpoint
            name = name if agent.search else f"{POLICY_PREFIX}{name}"
        if not name or name in agents:
            raise ConfigError(f"--agent {spec!r}: each agent needs a name of its own (NAME=PATH)")
        try:  # agent.player needs Gymnasium; loading the network, Ray and torch
            from rllib_curling.agent.player import PolicyPlayer
            from rllib_curling.agent.search import AgentBot

            player = PolicyPlayer.from_checkpoint(
                agent.checkpoint, search=None if agent.search else 0
            )
        except ImportError as exc:
            raise ConfigError(f"--agent needs the rl extra ({exc.name} is missing)") from None
        except (FileNotFoundError, ValueError) as exc:
            raise ConfigError(f"--agent {spec!r}: {exc}") from None

        def factory(player: Any = player, name: str = name) -> Any:
            search = None if player.search is None else dataclasses.replace(player.search)
            return AgentBot(player.loaded(), search, name=name, explain=True)

        agents[name] = factory
    return agents


def warm_up(agents: dict[str, Callable[[], Any]]) -> None:
    """Have each agent choose once from a new game before the page offers it: its first choice
    compiles the engine's kernels for its search (cached on disk, but the first time after
    installing a minute or two), which a person's first game would otherwise wait for with
    nothing to say why."""
    import numpy as np

    from rllib_curling.game import GameState

    for factory in agents.values():
        factory().choose(GameState(), np.random.default_rng(0))


def dc_bots(args: argparse.Namespace, protocol: str) -> dict[int, int]:
    """``--opponent`` / ``--bot-first`` for a DC server: team -> our DC bot's level (checked:
    ``UsageError`` naming the valid levels)."""
    from rllib_curling.dc_bots.levels import check_dc_level
    from rllib_curling.errors import ConfigError

    if args.opponent is None:
        if args.bot_first:
            raise UsageError("--bot-first seats the --opponent N; give --opponent")
        return {}
    try:
        levels = [
            check_dc_level(level, "--opponent (our DC bot's level)") for level in args.opponent
        ]
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if len(levels) == 2:
        if protocol != "dc3":
            raise UsageError(f"--opponent N,M (bots on both sides) is for --protocol dc3, not "
                             f"{protocol}: a DC4 match is created by a client")  # fmt: skip
        if args.bot_first:
            raise UsageError("--bot-first is for one bot; --opponent N,M puts N in team0")
        return {0: levels[0], 1: levels[1]}
    return {0 if args.bot_first else 1: levels[0]}


def _print_results(quiet: bool, bots: dict[int, int]) -> Callable[[int, int, Any], None] | None:
    """The seated bots' ``on_result``: one line per finished game (bots on both sides: team0's
    only), unless ``quiet``."""
    if quiet:
        return None
    count = itertools.count(1)

    def say(team: int, level: int, result: Any) -> None:
        if team == min(bots):
            print(f"curling server: game {next(count)}: DC level {level} (team{team}) "
                  f"{result.line()}", file=sys.stderr, flush=True)  # fmt: skip

    return say


#: The flags every protocol reads.
COMMON_FLAGS = frozenset({"protocol", "host", "http_port", "seed", "log_dir", "opponent",
                          "bot_first", "announce", "quiet", "verbose"})  # fmt: skip
#: The flags each ``--protocol`` reads; another one given is refused in one line.
PROTOCOL_FLAGS = {
    "platform": COMMON_FLAGS | {
        "tcp_port", "config", "no_http", "ends", "games", "turn_timeout", "compat_gap_ms",
        "legacy_gap_ms", "keys", "sweep_window_ms", "blank_end", "ready_timeout",
        "forfeit_after", "max_matches", "ports", "exit_with_parent", "parent_pid", "agent",
    },
    "dc3": COMMON_FLAGS | {"port0", "port1", "thinking_time", "extra_end_thinking_time", "ends",
                           "games"},
    "dc4": COMMON_FLAGS | {"users"},
}  # fmt: skip
#: What a flag's misplaced use should say instead (beside "--x is for --protocol P").
FLAG_HINTS = {
    ("tcp_port", "dc3"): "its ports: --port0 and --port1",
    ("tcp_port", "dc4"): "its port: --http-port",
    ("users", "platform"): "the platform's server takes --key",
}


def option_of(dest: str) -> str:
    """The command line's spelling of the flag stored in ``dest``."""
    return "--key" if dest == "keys" else "--" + dest.replace("_", "-")


def check_protocol_flags(args: argparse.Namespace) -> None:
    """``UsageError`` (one line) for a flag given that ``--protocol`` does not read."""
    protocol = args.protocol
    for dest, default in sorted(args.flag_defaults.items()):
        if dest in PROTOCOL_FLAGS[protocol] or getattr(args, dest) == default:
            continue
        readers = [name for name, flags in PROTOCOL_FLAGS.items() if dest in flags]
        where = " or ".join(f"--protocol {name}" for name in readers)
        hint = FLAG_HINTS.get((dest, protocol))
        raise UsageError(f"{option_of(dest)} is for {where}, not --protocol {protocol}"
                         + (f" ({hint})" if hint else ""))  # fmt: skip


def set_up_logging(verbose: int) -> None:
    """The server's log lines on stderr: warnings, ``-v`` info, ``-vv`` debug."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def run_dc4(args: argparse.Namespace) -> int:
    """``--protocol dc4``: DC4's HTTP server (``server.dc4``)."""
    from rllib_curling.dc_seats import DC4Seats
    from rllib_curling.errors import ConfigError, ServerStartError
    from rllib_curling.server.dc4.config import DEFAULT_PORT, DC4ServerConfig, read_users
    from rllib_curling.server.dc4.http import DC4Server
    from rllib_curling.server.dc4.runner import run_dc4_server

    bots = dc_bots(args, "dc4")

    try:
        config = DC4ServerConfig(
            host=args.host,
            port=DEFAULT_PORT if args.http_port is None else args.http_port,
            users=read_users(args.users) if args.users else None,
            seed=args.seed,
            log_dir=args.log_dir,
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    quiet = args.quiet or args.announce
    seats = DC4Seats(bots, _print_results(quiet, bots)) if bots else None

    def listening(server: DC4Server) -> None:
        if seats is not None:
            seats.attach(server)
        host, port = server.address or ("?", 0)
        if args.announce:
            print(f"LISTENING {host} {port}", flush=True)
        if not quiet:
            who = "any user" if config.users is None else f"{len(config.users)} user(s)"
            bot = "".join(f", DC level {level} takes team{team} in every match"
                          for team, level in bots.items())  # fmt: skip
            print(f"curling server: DC4 on {server.url} ({who}{bot}, seed {server.seed}); watch "
                  f"the matches at {server.url}/ . Stop with Ctrl+C.", file=sys.stderr,
                  flush=True)  # fmt: skip

    try:
        return run_dc4_server(config, listening)
    except ServerStartError as exc:
        raise CommandError(str(exc)) from None
    finally:
        if seats is not None:
            seats.close()


def run_dc3(args: argparse.Namespace) -> int:
    """``--protocol dc3``: DC3's TCP server on two ports (``server.dc3``)."""
    from rllib_curling.dc_seats import DC3Seats
    from rllib_curling.errors import ConfigError, ServerStartError
    from rllib_curling.server.dc3.config import DEFAULT_PORTS, DC3ServerConfig
    from rllib_curling.server.dc3.runner import run_dc3_server
    from rllib_curling.server.dc3.tcp import DC3Server

    bots = dc_bots(args, "dc3")
    ports = (
        DEFAULT_PORTS[0] if args.port0 is None else args.port0,
        DEFAULT_PORTS[1] if args.port1 is None else args.port1,
    )
    try:
        config = DC3ServerConfig(
            host=args.host,
            ports=ports,
            ends=DC3ServerConfig().ends if args.ends is None else args.ends,
            thinking_time=args.thinking_time,
            extra_end_thinking_time=args.extra_end_thinking_time,
            games=args.games,
            seed=args.seed,
            log_dir=args.log_dir,
            http_port=args.http_port,
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    quiet = args.quiet or args.announce
    seats = DC3Seats(bots, _print_results(quiet, bots)) if bots else None

    def listening(server: DC3Server) -> None:
        (host, port0), (_, port1) = server.addresses
        if args.announce:
            print(f"LISTENING {host} {port0} {port1}", flush=True)
        if not quiet:
            games = config.games or "unlimited"
            who = [f"DC level {bots[t]}" if t in bots else f"port {p}"
                   for t, p in enumerate((port0, port1))]  # fmt: skip
            print(f"curling server: DC3 on {host}, team 0: {who[0]}, team 1: {who[1]}, "
                  f"{config.ends} ends, {games} game(s), seed {server.seed}. Stop with Ctrl+C.",
                  file=sys.stderr, flush=True)  # fmt: skip
            if server.watch is not None:
                print(f"curling server: watch the games at {server.watch.url}", file=sys.stderr,
                      flush=True)  # fmt: skip
        if seats is not None:
            seats.attach(server)

    try:
        return run_dc3_server(config, listening)
    except ServerStartError as exc:
        raise CommandError(str(exc)) from None
    finally:
        if seats is not None:
            seats.close()


def run(args: argparse.Namespace) -> int:
    from rllib_curling.errors import ConfigError, ServerStartError

    check_protocol_flags(args)
    set_up_logging(args.verbose)
    if args.protocol == "dc4":
        return run_dc4(args)
    if args.protocol == "dc3":
        return run_dc3(args)
    if args.opponent is not None and len(args.opponent) > 1:
        raise UsageError("--opponent N,M (bots on both sides) is for --protocol dc3")
    from rllib_curling.server import run_server
    from rllib_curling.server.console import printing

    try:
        config = build_config(args)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if args.agent and config.http_port is None:
        raise UsageError("--agent needs the page (--http-port)")
    quiet = args.quiet or args.announce  # --announce: a program reads this server's output
    if args.agent and not quiet:
        print(f"curling server: getting {', '.join(args.agent)} ready (the first time after "
              "installing, compiling the engine takes a minute or two)...", file=sys.stderr,
              flush=True)  # fmt: skip
    try:
        agents = agent_factories(args.agent)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    warm_up(agents)
    play_key = secrets.token_urlsafe(9)
    try:
        with contextlib.nullcontext() if quiet else printing(sys.stderr):
            return run_server(
                config,
                announce=args.announce,
                exit_with_parent=args.exit_with_parent,
                parent_pid=args.parent_pid,
                on_listening=None if quiet else _banner(config),
                on_web=None if quiet else _web_banner(config, play_key),
                agents=agents,
                play_key=play_key,
            )
    except ServerStartError as exc:
        raise CommandError(str(exc)) from None
