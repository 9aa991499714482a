"""``curling play --checkpoint CKPT``: a trained policy as an AI player on any curling server;
``curling play --protocol dc3|dc4 --level N``: our DC bot of level N on a Digital Curling server,
or ``--agent AGENT``: a trained DC agent (``agent.dc_player``) there."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rllib_curling.cli import CommandError, UsageError
from rllib_curling.cli.options import SearchOptions, add_search_options, load_player
from rllib_curling.names import DEFAULT_MODULE_ID
from rllib_curling.protocol.defaults import DEFAULT_TCP_PORT

PROTOCOLS = ("platform", "dc3", "dc4")
DC4_RULES = {"fgz_rule": "fgz", "no_tick_rule": "no_tick"}
#: Flags (dest, as typed) of one protocol only; another protocol refuses them in one line.
_ONLY = {
    "platform": (("checkpoint", "--checkpoint"), ("key", "--key"), ("module_id", "--module-id"),
                 ("samples", "--samples"), ("watch", "--watch"),
                 ("record", "--record"), ("explain", "--explain")),
    "agent": (("search", "--search/--no-search"), ("value_weight", "--value-weight")),
    "dc": (("level", "--level"), ("agent", "--agent")),
    "dc3": (),
    "dc4": (("http_port", "--http-port"), ("match_id", "--match-id"), ("user", "--user"),
            ("password", "--password"), ("team", "--team"), ("ends", "--ends"),
            ("rule", "--rule")),
}  # fmt: skip


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play",
        help="play a trained policy on a server (ours or the platform's), or a DC bot on DC3/DC4",
        description=(
            "Connect a trained RLlib policy to a curling server as an AI player and play until "
            "the server ends the session. Works with `curling server` and the platform's "
            "curling_server.exe. Prints one line per game. With --protocol dc3 or dc4: our "
            "built-in DC bot of --level N plays one game on a Digital Curling server (UEC's or "
            "`curling server --protocol dc3|dc4`), or a trained agent for DC ice with --agent "
            "AGENT (an agent folder of `curling export` saying ice fcv1, or a checkpoint of "
            "`rllib train` on curling_dc)."
        ),
    )
    p.add_argument(
        "--protocol", choices=PROTOCOLS, default="platform",
        help="the server's protocol: platform (default: the platform's TCP protocol, a trained "
        "agent), dc3 (DC3's JSON lines on a team port) or dc4 (DC4's HTTP + SSE)",
    )  # fmt: skip
    p.add_argument("--checkpoint",
                   help="RLlib checkpoint (algorithm, trial or experiment dir), an agent folder, "
                   "or builtin: the agent shipped in the package (platform protocol; required "
                   "there)")  # fmt: skip
    p.add_argument(
        "--level", type=int, metavar="N",
        help="dc3/dc4: our DC bot of level N (0-8) plays (this or --agent is required there)",
    )  # fmt: skip
    p.add_argument(
        "--agent", metavar="AGENT",
        help="dc3/dc4: a trained agent for DC ice plays: builtin-dc (the one shipped), an agent "
        "folder whose agent.json says \"ice\": \"fcv1\", or a checkpoint of rllib train on "
        "curling_dc; a platform agent is refused. It plays its search (--value-weight W, "
        "--no-search)",
    )  # fmt: skip
    p.add_argument("-H", "--host", default="127.0.0.1", help="server host (default 127.0.0.1)")
    p.add_argument(
        "-p", "--port", type=int, default=None,
        help=f"server TCP port (default {DEFAULT_TCP_PORT}); dc3: the team's port (default "
        "10000, team0's; 10001 is team1's)",
    )  # fmt: skip
    p.add_argument(
        "--http-port", type=int, default=None,
        help="dc4: the server's HTTP port (default 5000)",
    )  # fmt: skip
    p.add_argument(
        "--match-id", default=None,
        help="dc4: join this match; without it, create a match (printed) and join it",
    )  # fmt: skip
    p.add_argument(
        "--user",
        default=None,
        help="dc4: basic-auth user (default: --name and the side, e.g. rllib-curling-team1)",
    )
    p.add_argument("--password", default=None, help="dc4: basic-auth password (default empty)")
    p.add_argument(
        "--team", choices=("team0", "team1"), default=None,
        help="dc4: the side to take (default team0 when creating the match, team1 when joining)",
    )  # fmt: skip
    p.add_argument(
        "--ends", type=int, default=None,
        help="dc4, creating a match: standard ends (default 8)",
    )  # fmt: skip
    p.add_argument(
        "--rule", choices=tuple(DC4_RULES), default=None,
        help="dc4: the match's guard rule (default fgz_rule); when joining, tell the bot the "
        "match's rule (DC4's states do not say it)",
    )  # fmt: skip
    p.add_argument(
        "-k", "--key", default="localtest",
        help="connection key; add ':N' to challenge built-in AI N (default localtest)",
    )  # fmt: skip
    p.add_argument(
        "--name", default="rllib-curling",
        help="team name sent after READYOK (dc3: in dc_ok; dc4: the team's name)",
    )  # fmt: skip
    p.add_argument("--module-id", default=DEFAULT_MODULE_ID, help="module to load")
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
    p.set_defaults(func=run, play_defaults={a.dest: a.default for a in p._actions})


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


def _check_flags(args: argparse.Namespace) -> None:
    """One line for a flag that the chosen protocol does not take."""
    defaults: dict[str, Any] = getattr(args, "play_defaults", {})
    protocol = args.protocol
    allowed: tuple[str, ...] = {
        "platform": ("platform", "agent"), "dc3": ("dc", "dc3"), "dc4": ("dc", "dc4")
    }[protocol]  # fmt: skip
    if protocol != "platform" and args.agent is not None:
        allowed += ("agent",)  # a DC agent's search: agent.dc_player
    for group, flags in _ONLY.items():
        if group in allowed:
            continue
        for dest, flag in flags:
            if getattr(args, dest, None) == defaults.get(dest):
                continue
            if group == "agent":
                raise UsageError(f"{flag} applies to a trained agent (--agent), not to --level")
            where = {"platform": "the platform's protocol", "dc": "dc3 and dc4"}.get(group, group)
            raise UsageError(f"{flag} applies to {where} only, not --protocol {protocol}")
    if protocol == "dc4" and args.port is not None:
        raise UsageError("--port is not for --protocol dc4; its HTTP port is --http-port")
    if protocol == "platform" and args.checkpoint is None:
        raise UsageError(
            "--checkpoint is required (or --protocol dc3|dc4 with --level N or --agent AGENT)"
        )
    if protocol != "platform" and (args.level is None) == (args.agent is None):
        raise UsageError(
            f"--protocol {protocol} needs one of --level N (our DC bot) or --agent AGENT (a "
            "trained agent for DC ice)"
        )


def run(args: argparse.Namespace) -> int:
    _check_flags(args)
    if args.protocol != "platform":
        return _run_dc(args)
    from rllib_curling.agent.player import WAITING_HINT_S, play_session
    from rllib_curling.client import CurlingClient
    from rllib_curling.errors import ConnectionLostError

    player = load_player(args.checkpoint, args.module_id, SearchOptions.from_args(args))
    if args.explain and not (args.watch or args.record):
        raise UsageError("--explain shows on --watch's page or in --record's file; add one of them")
    player.explain = args.explain
    port = DEFAULT_TCP_PORT if args.port is None else args.port
    client = CurlingClient(args.host, port, key=args.key, name=args.name, timeout=args.timeout)
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


def _say(line: str) -> None:
    print(line + "\n", end="", flush=True)  # one write: clients in threads keep whole lines


def _dc_player(args: argparse.Namespace) -> tuple[Any, str]:
    """The DC bot of ``--level`` or the agent of ``--agent``, and how the lines name it."""
    from rllib_curling.errors import ConfigError

    if args.agent is not None:
        from rllib_curling.agent.dc_player import load_dc_agent
        from rllib_curling.cli.commands.evaluate_dc import dc_value_weight

        weight = dc_value_weight(args)
        try:
            return load_dc_agent(args.agent, value_weight=weight), f"agent {args.agent}"
        except (FileNotFoundError, ValueError) as exc:
            raise UsageError(f"--agent: {exc}") from None
    from rllib_curling.dc_bots.levels import make_dc_bot

    try:
        return make_dc_bot(args.level), f"DC level {args.level}"
    except ConfigError as exc:
        raise UsageError(f"--level: {exc}") from None


def _run_dc(args: argparse.Namespace) -> int:
    """One game of our DC bot of ``--level`` (or the DC agent of ``--agent``) on a DC3 or DC4
    server."""
    from rllib_curling.dc_client import DC3Client, DC4Client, DCResult
    from rllib_curling.dc_client.dc4 import match_request
    from rllib_curling.errors import ConnectionLostError, ProtocolError

    bot, who = _dc_player(args)
    if args.ends is not None and args.ends < 1:
        raise UsageError(f"--ends must be at least 1, got {args.ends}")
    if args.ends is not None and args.match_id is not None:
        raise UsageError("--ends sets a match this client creates; not with --match-id")
    result: DCResult
    try:
        if args.protocol == "dc3":
            port = 10000 if args.port is None else args.port
            dc3 = DC3Client(args.host, port, name=args.name, timeout=args.timeout)
            dc3.connect()
            _say(f"connected to DC3 at {dc3.address} as {args.name} ({who})")
            result = dc3.play(bot.choose)
        else:
            http_port = 5000 if args.http_port is None else args.http_port
            team = args.team or ("team0" if args.match_id is None else "team1")
            # DC4 binds a user to a side: two default clients on one match need two users
            user = f"{args.name}-{team}" if args.user is None else args.user
            if ":" in user:
                raise UsageError(f"--user {user!r} contains ':'; basic auth does not allow it")
            dc4 = DC4Client(args.host, http_port, user=user, password=args.password or "",
                            name=args.name, timeout=args.timeout)  # fmt: skip
            rule = args.rule or "fgz_rule"
            match_id = args.match_id
            if match_id is None:
                match_id = dc4.create_match(match_request(args.ends or 8, rule, name=args.name))
                _say(f"created match {match_id}")
            side = dc4.join(match_id, team)
            _say(f"joined match {match_id} on DC4 at {dc4.address} as {side} ({who})")
            result = dc4.play(match_id, bot.choose, DC4_RULES.get(rule, "fgz"))  # type: ignore[arg-type]
    except (ConnectionLostError, ProtocolError) as exc:
        raise CommandError(str(exc)) from None
    _say(f"game over: {result.line()}")
    return 0
