"""``curling match A B``: headless games between two players, hammer alternating.

A player is named as everywhere (``cli.players``): a built-in bot level (``3`` or ``bot:3``), an
agent (``builtin``, a checkpoint directory, ``policy:CHECKPOINT`` for its network alone), both
played in this process, or ``tcp:HOST:PORT``, an external AI: a server is started on HOST:PORT
with the other player (a bot level) seated against any client that connects without a ``:N`` key
suffix; the command waits for the external AI to play the games.
Results are counted from A's view; a draw counts as half a win in the win rate.

``--watch`` serves a web page on a free port (``server.web``) that shows every game, live and
afterwards, with the stones moving along their trajectories; after the games the command keeps
the page up until Ctrl+C. The games are the same with and without it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from rllib_curling.cli import CommandError, UsageError
from rllib_curling.cli.options import add_ends, positive_int
from rllib_curling.cli.players import Agent, Level, Player, Remote, forms, player_type


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "match",
        help="play games between two bots (or a bot and an external AI), headless",
        description="Play games between A and B with the hammer alternating (A is Player1 in "
        "the 1st, 3rd, ... game) and print wins, draws, losses and the mean score from A's "
        f"view. A and B: {forms()}. Against tcp:HOST:PORT a server is started there and the "
        "external AI connects to it; the other player is then a bot level.",
    )
    p.add_argument("a", type=player_type(), metavar="A",
                   help="first player: 3, bot:3, tcp:HOST:PORT, builtin, a checkpoint directory "
                   "or policy:CHECKPOINT")  # fmt: skip
    p.add_argument("b", type=player_type(), metavar="B", help="second player (same forms)")
    p.add_argument("--games", type=positive_int, default=10, help="games to play (default 10)")
    add_ends(p)
    p.add_argument("--seed", type=int, default=0, help="seed; game g uses [seed, g] (default 0)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--watch", action="store_true",
        help="show the games on a web page (a free port on 127.0.0.1; the URL is printed); "
        "it stays up after the games until Ctrl+C",
    )  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    a, b = args.a, args.b
    if isinstance(a, Remote) and isinstance(b, Remote):
        raise UsageError("at most one player can be tcp:HOST:PORT")
    if isinstance(a, Remote) or isinstance(b, Remote):
        if isinstance(a, Agent) or isinstance(b, Agent):
            raise UsageError("against tcp:HOST:PORT the other player is a bot level (3 or bot:3)")
        return _run_external(a, b, args)
    return _run_bots(a, b, args)


def in_process_bot(player: Level | Agent) -> Any:
    """The player as an in-process bot: a level's, or the agent's (``agent.player.agent_bot``;
    ``UsageError`` in one line for a checkpoint that cannot be loaded)."""
    from rllib_curling.bots import make_bot

    if isinstance(player, Level):
        return make_bot(player.level)
    try:
        from rllib_curling.agent.player import agent_bot

        return agent_bot(player.checkpoint, search=None if player.search else 0, name=str(player))
    except ImportError as exc:
        raise UsageError(f"{player}: an agent needs the rl extra ({exc.name} is missing)") from None
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(f"{player}: {exc}") from None


def _run_bots(a: Level | Agent, b: Level | Agent, args: argparse.Namespace) -> int:
    from rllib_curling.bots.matches import GameResult, play_match

    out = sys.stderr if args.json else sys.stdout
    bot_a, bot_b = in_process_bot(a), in_process_bot(b)
    print(
        f"{a} ({bot_a.name}) vs {b} ({bot_b.name}): {args.games} games of {args.ends} ends, "
        f"seed {args.seed}",
        file=out,
        flush=True,
    )

    def progress(g: int, game: GameResult) -> None:
        seat = g % 2
        p1, p2 = game.totals
        mine, theirs = (p1, p2) if seat == 0 else (p2, p1)
        print(
            f"game {g + 1:3d}: {a} as Player{seat + 1}  {mine}-{theirs}  {game.result_for(seat)}",
            file=out,
            flush=True,
        )

    web = feed = None
    if args.watch:
        web, feed = _watch_bots(a, b, bot_a.name, bot_b.name, args.ends, out)
        shown = progress

        def progress(g: int, game: GameResult) -> None:
            feed.game_over(g, game.end_scores, game.totals)
            shown(g, game)

    hook = feed.on_throw if feed is not None else None
    try:
        result = play_match(
            bot_a, bot_b, args.games, args.ends, args.seed, progress=progress, on_throw=hook
        )
        if args.json:
            print(json.dumps({**result.as_dict(), "a": str(a), "b": str(b)}))
        else:
            print(summary(str(a), result.wins, result.draws, result.losses, *result.mean_points))
        if web is not None:
            _linger(web.url, web.wait, out)
    finally:
        if web is not None:
            web.stop()
    return 0


def _watch_bots(
    a: Player, b: Player, name_a: str, name_b: str, ends: int, out: TextIO
) -> tuple[Any, Any]:
    """The page for in-process bot games: (WebHandle, BotMatchFeed); ``CommandError`` if it
    cannot start."""
    from rllib_curling.errors import ServerStartError
    from rllib_curling.server.web import WatchHub, WebHandle
    from rllib_curling.server.web.feeds import BotMatchFeed

    try:
        web = WebHandle(WatchHub(frames=None))
    except ServerStartError as exc:
        raise CommandError(str(exc)) from None
    feed = BotMatchFeed(web.publish, (name_a, name_b), ends, kinds=(str(a), str(b)))
    print(f"watch the games at {web.url}", file=out, flush=True)
    return web, feed


def _linger(url: str, wait: Callable[[], None], out: TextIO) -> None:
    """Keep the page up until Ctrl+C (the message is printed inside the guard, as
    ``WebHandle.serve_until_ctrl_c`` does)."""
    try:
        print(f"the games stay on {url} until Ctrl+C", file=out, flush=True)
        wait()
    except KeyboardInterrupt:
        pass


def summary(name: str, wins: int, draws: int, losses: int, pa: float, pb: float) -> str:
    """One line: W/D/L, win rate (draws half, ``game.score_rate``; ``-`` before any game) and
    mean score from ``name``'s view."""
    from rllib_curling.game import score_rate

    n = wins + draws + losses
    rate = f"{100 * score_rate(wins, draws, n):.1f} %" if n else "-"
    return (
        f"{name}: {wins} won, {draws} drawn, {losses} lost (win rate {rate}, "
        f"draws half); mean score {pa:.2f} - {pb:.2f} (diff {pa - pb:+.2f})"
    )


def _run_external(a: Player, b: Player, args: argparse.Namespace) -> int:
    """Serve ``args.games`` games between the external AI and the bot, counted from A's view.

    The server seats the bot (``ServerConfig.opponent``) against any client without a key
    suffix, as Player1 in game 1 when the bot is A, and writes game records into a temporary
    directory, which this reads back. A game
    lost by a disconnect counts as lost whatever its score. Ctrl-C stops and reports the games
    played so far.
    """
    import tempfile

    from rllib_curling.errors import ServerStartError
    from rllib_curling.server import start_server_thread
    from rllib_curling.server.config import ServerConfig

    external, bot = (a, b) if isinstance(a, Remote) else (b, a)
    assert isinstance(external, Remote) and isinstance(bot, Level)
    out = sys.stderr if args.json else sys.stdout
    with tempfile.TemporaryDirectory(prefix="curling-match-") as log_dir:
        config = ServerConfig(
            host=external.host,
            tcp_port=external.port,
            opponent=bot.level,
            bot_seat=0 if a is bot else 1,  # A is Player1 in game 1
            games=args.games,
            ends=args.ends,
            seed=args.seed,
            log_dir=log_dir,
            http_port=0 if args.watch else None,
        )
        try:
            handle = start_server_thread(config)
        except ServerStartError as exc:
            raise CommandError(str(exc)) from None
        host, port = handle.address or (external.host, external.port)
        print(
            f"listening on {host}:{port}: connect the external AI (any key without ':N'); "
            f"it plays {args.games} games of {args.ends} ends against {bot}",
            file=out,
            flush=True,
        )
        if handle.web_url:
            print(f"watch the games at {handle.web_url}", file=out, flush=True)
        try:
            games = _collect(log_dir, args.games, a, out)
            _report(a, b, games, args)
            if handle.web_url and len(games) == args.games:  # not after a Ctrl+C
                _linger(handle.web_url, _forever, out)
        finally:
            handle.stop()
    return 0


def _forever() -> None:
    import time

    while True:
        time.sleep(3600)


def _collect(log_dir: str, n: int, a: Player, out: TextIO) -> list[tuple[int, int, str]]:
    """Wait for ``n`` finished games in the records; (A's points, B's points, A's result)."""
    import time

    games: list[tuple[int, int, str]] = []
    try:
        while len(games) < n:
            time.sleep(0.5)
            for game in _read_games(log_dir, a_is_external=isinstance(a, Remote))[len(games) :]:
                games.append(game)
                print(f"game {len(games):3d}: {a} {game[0]}-{game[1]}  {game[2]}", file=out)
                out.flush()
    except KeyboardInterrupt:
        print("interrupted; the games played so far:", file=out)
    return games


def _report(
    a: Player, b: Player, games: list[tuple[int, int, str]], args: argparse.Namespace
) -> None:
    from rllib_curling.game import Result

    results = [Result(r) for *_, r in games]
    wins, draws = results.count(Result.WIN), results.count(Result.DRAW)
    losses = results.count(Result.LOSE)
    pa = sum(g[0] for g in games) / max(len(games), 1)
    pb = sum(g[1] for g in games) / max(len(games), 1)
    if args.json:
        record = {"a": str(a), "b": str(b), "games": len(games), "ends": args.ends}
        record.update(wins=wins, draws=draws, losses=losses, mean_points_a=pa, mean_points_b=pb)
        record.update(mean_diff=pa - pb, points=[list(g[:2]) for g in games])
        print(json.dumps(record))
    else:
        print(summary(str(a), wins, draws, losses, pa, pb))


def _read_games(log_dir: str, *, a_is_external: bool) -> list[tuple[int, int, str]]:
    """(A's points, B's points, A's result) of every finished game in the records so far."""
    from pathlib import Path

    kinds: dict[str, list[str]] = {}
    games = []
    for path in sorted(Path(log_dir).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line being written
            if record.get("type") == "game_start":
                kinds[record["game_id"]] = record["kinds"]
            elif record.get("type") == "game" and record.get("game_id") in kinds:
                ext = 1 if kinds[record["game_id"]][0].startswith("bot:") else 0
                seat = ext if a_is_external else 1 - ext
                totals, results = record["totals"], record["results"]
                games.append((totals[seat], totals[1 - seat], results[seat]))
    return games
