"""The library part of ``curling rate`` (not a subcommand): the players, every pair of a round
robin played and scored, and the ratings' table and plot. ``cli.commands.rate`` parses the
command line into these (``cli.players.Player``, ``RoundRobin``) and never the other way round.

A pair's scores are a list of the first-listed player's score per game (``game.Result.points``:
1 / 0.5 / 0, by the result, so a game lost by a disconnect or a forfeit counts as lost). Where
the games are played:

| pair                         | how                                                             |
|------------------------------|-----------------------------------------------------------------|
| bot - bot                    | ``bots.matches.play_match`` in this process (``workers`` > 1:   |
|                              | in a pool of processes, one pair per task)                       |
| checkpoint - bot             | a private server in a thread (``ServerConfig.opponent``, the bot |
|                              | as Player1 in game 1 when it is listed first); the checkpoint is |
|                              | a client in a thread (``agent.player.play_session``)             |
| checkpoint - checkpoint      | a private server and two clients, seated in list order (the      |
|                              | lobby seats by arrival), so the first is Player1 in game 1       |
| tcp - bot, tcp - checkpoint  | the server listens on the tcp player's HOST:PORT and the        |
|                              | external AI connects to it (a checkpoint client first)          |

The server swaps the seats every game, as ``play_match`` does: the hammer alternates. Scores of
games with a checkpoint come from its client (the result it is told); tcp against a bot is read
from the server's game records.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rllib_curling.cli.players import Agent, Level, Player, Remote
from rllib_curling.game import Result


@dataclass(frozen=True)
class RoundRobin:
    """How a round robin is played: ``games`` per pair of ``ends`` ends, pair k with seed
    ``seed + k``, ``pairs`` ``"all"`` or ``"adjacent"`` (``schedule``), bot-against-bot pairs
    in ``workers`` processes (1: in this process)."""

    games: int
    ends: int
    seed: int
    pairs: Literal["all", "adjacent"] = "all"
    workers: int = 1


#: Seconds a rating's checkpoint client waits for the server (longer than a client's default,
#: ``protocol.defaults.CLIENT_TIMEOUT_S``: the other side may search); for the external AI a day.
RATING_CLIENT_TIMEOUT_S = 600.0
EXTERNAL_TIMEOUT_S = 86_400.0

#: ``report(score_of_a)``: one finished game of a pair.
Report = Callable[[float], None]


def bot_scores(level_a: int, level_b: int, games: int, ends: int, seed: int) -> list[float]:
    """The first level's scores in ``games`` in-process games (a task of the worker pool)."""
    from rllib_curling.bots import make_bot
    from rllib_curling.bots.matches import play_match

    match = play_match(make_bot(level_a), make_bot(level_b), games, ends, seed)
    return [g.result_for(seat).points for g, seat in zip(match.games, match.a_seats, strict=True)]


def schedule(entrants: list[Player], pairs: str) -> list[tuple[Player, Player]]:
    """The pairs that play: ``"all"`` (a round robin, in list order (1,2), (1,3), ..., (2,3),
    ...) or ``"adjacent"`` (each player against the next one listed: (1,2), (2,3), ...)."""
    if pairs == "adjacent":
        return list(zip(entrants, entrants[1:], strict=False))
    return [(a, b) for i, a in enumerate(entrants) for b in entrants[i + 1 :]]


def play_round_robin(
    entrants: list[Player], policies: dict[str, Any], setup: RoundRobin
) -> tuple[list[dict[str, Any]], bool]:
    """Every pair's games: ``([{"a", "b", "seed", "scores"}, ...], interrupted)``.

    Ctrl+C stops the round robin; the games finished so far are kept.
    """
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_all_start_methods, get_context

    pairs = schedule(entrants, setup.pairs)
    out: list[dict[str, Any]] = [{"a": str(a), "b": str(b), "seed": setup.seed + k, "scores": []}
           for k, (a, b) in enumerate(pairs)]  # fmt: skip
    start = time.perf_counter()
    in_pool = [k for k, (a, b) in enumerate(pairs) if isinstance(a, Level) and isinstance(b, Level)]
    in_pool = in_pool if setup.workers > 1 and len(in_pool) > 1 else []
    # fork is fast, but unsafe once torch is loaded (checkpoint players) and missing on Windows
    method = "fork" if "fork" in get_all_start_methods() and "torch" not in sys.modules else "spawn"
    workers = min(setup.workers, len(in_pool))
    pool = ProcessPoolExecutor(workers, mp_context=get_context(method)) if in_pool else None
    try:
        tasks = {}
        if pool is not None:
            for k in in_pool:
                la, lb = (e.level for e in pairs[k] if isinstance(e, Level))
                tasks[pool.submit(bot_scores, la, lb, setup.games, setup.ends, setup.seed + k)] = k
        for k, (a, b) in enumerate(pairs):
            if k not in in_pool:
                report = _reporter(out[k], setup.games, start)
                if isinstance(a, Level) and isinstance(b, Level):
                    _bot_pair(a, b, setup, out[k]["seed"], report)
                else:
                    _server_pair(a, b, policies, setup, out[k]["seed"], report)
        for task in as_completed(tasks):
            pair = out[tasks[task]]
            pair["scores"] = task.result()
            _summary(pair, start)
    except KeyboardInterrupt:
        print("interrupted: rating the games played so far", file=sys.stderr, flush=True)
        return out, True
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    return out, False


def _reporter(pair: dict[str, Any], games: int, start: float) -> Report:
    def report(score: float) -> None:
        pair["scores"].append(score)
        n = len(pair["scores"])
        print(f"  {pair['a']} vs {pair['b']}: game {n}/{games}: {pair['a']} scores {score:g}  "
              f"[{time.perf_counter() - start:.0f} s]", file=sys.stderr, flush=True)  # fmt: skip
        if n == games:
            _summary(pair, start)

    return report


def _summary(pair: dict[str, Any], start: float) -> None:
    """The line of a finished pair (at least one game: ``--games`` >= 1): the first player's
    win rate (mean ``Result.points``, draws half)."""
    scores = pair["scores"]
    share = 100 * sum(scores) / len(scores)
    print(f"{pair['a']} vs {pair['b']}: {pair['a']} scores {share:.1f} % of {len(scores)} "
          f"games  [{time.perf_counter() - start:.0f} s]", file=sys.stderr, flush=True)  # fmt: skip


def _bot_pair(a: Level, b: Level, setup: RoundRobin, seed: int, report: Report) -> None:
    from rllib_curling.bots import make_bot
    from rllib_curling.bots.matches import GameResult, play_match

    def progress(g: int, game: GameResult) -> None:
        report(game.result_for(g % 2).points)  # a is Player1 (seat 0) in even games

    bot_a, bot_b = make_bot(a.level), make_bot(b.level)
    play_match(bot_a, bot_b, setup.games, setup.ends, seed, progress=progress)


def _server_pair(
    a: Player,
    b: Player,
    policies: dict[str, Any],
    setup: RoundRobin,
    seed: int,
    report: Report,
) -> None:
    """The pair's games on a private server (or one on the tcp player's HOST:PORT)."""
    from rllib_curling.server import start_server_thread
    from rllib_curling.server.config import ServerConfig

    external = next((e for e in (a, b) if isinstance(e, Remote)), None)
    bot = next((e for e in (a, b) if isinstance(e, Level)), None)
    with tempfile.TemporaryDirectory(prefix="curling-rate-") as log_dir:
        config = ServerConfig(
            host=external.host if external else "127.0.0.1",
            tcp_port=external.port if external else 0,
            opponent=bot.level if bot is not None else None,
            bot_seat=0 if bot is a else 1,  # a is Player1 in game 1
            games=setup.games,
            ends=setup.ends,
            seed=seed,
            log_dir=log_dir,
        )
        handle = start_server_thread(config)
        threads: list[threading.Thread] = []
        try:
            host, port = handle.address or (config.host, config.tcp_port)
            if external is not None:
                other = b if isinstance(a, Remote) else a
                print(f"listening on {host}:{port}: connect the external AI (any key without "
                      f"':N'); it plays {setup.games} games of {setup.ends} ends against "
                      f"{other}", file=sys.stderr, flush=True)  # fmt: skip
            timeout = EXTERNAL_TIMEOUT_S if external else RATING_CLIENT_TIMEOUT_S
            for e in (a, b):
                if isinstance(e, Agent):
                    sign = 1.0 if e is a else -1.0  # the first checkpoint's client reports
                    count = None if threads else (lambda s, sign=sign: report(_for_a(s, sign)))
                    threads.append(_seat(e, policies[str(e)], host, port, timeout, count))
            if threads:
                for thread in threads:
                    while thread.is_alive():
                        thread.join(0.5)
            else:
                _wait_for_records(log_dir, setup.games, a_is_bot=bot is a, report=report)
        finally:
            handle.stop()


def _for_a(score: float, sign: float) -> float:
    """A's score from a score of a (``sign`` 1) or of b (``sign`` -1)."""
    return score if sign > 0 else 1.0 - score


def _seat(
    e: Agent,
    player: Any,
    host: str,
    port: int,
    timeout: float,
    count: Callable[[float], None] | None,
) -> threading.Thread:
    """Connect a checkpoint's client (seated now) and play its games in a thread."""
    from rllib_curling.agent.player import play_session
    from rllib_curling.client import CurlingClient
    from rllib_curling.errors import CurlingError

    client = CurlingClient(host, port, key="rate", name=f"rate {e}", timeout=timeout)
    client.connect()

    def on_game(n: int, c: CurlingClient) -> None:
        if count is not None:
            count(Result(c.result).points)

    def play() -> None:
        try:
            play_session(player, client, on_game)
        except CurlingError as exc:
            print(f"curling rate: {e}: {exc}", file=sys.stderr, flush=True)
        finally:
            client.close()

    thread = threading.Thread(target=play, name=f"rate-{e}", daemon=True)
    thread.start()
    return thread


def _wait_for_records(log_dir: str, games: int, *, a_is_bot: bool, report: Report) -> None:
    """Report each game of the external AI against the bot as its record appears."""
    from rllib_curling.server.records import read_records

    seen = 0
    while seen < games:
        time.sleep(0.5)
        try:
            records = [r for f in sorted(Path(log_dir).glob("*.jsonl")) for r in read_records(f)]
        except json.JSONDecodeError:
            continue  # a line being written
        kinds = {r["game_id"]: r["kinds"] for r in records if r.get("type") == "game_start"}
        done = [r for r in records if r.get("type") == "game" and r.get("game_id") in kinds]
        for record in done[seen:]:
            seat = 0 if kinds[record["game_id"]][0].startswith("bot:") else 1
            report(_for_a(Result(record["results"][seat]).points, 1.0 if a_is_bot else -1.0))
        seen = len(done)


def table(ratings: Any, setup: RoundRobin, interrupted: bool = False) -> str:
    """Ranked ratings with intervals, games and score share, then the pairwise score matrix."""
    order = ratings.order()
    width = max(6, *(len(name) for name in ratings.players))
    lines = [
        f"{'adjacent pairs' if setup.pairs == 'adjacent' else 'round robin'}: {len(order)} "
        f"players, {setup.games} games per pair (hammer alternating), "
        f"{setup.ends} ends per game, seeds {setup.seed} + pair"
        + (" (INTERRUPTED: the games played so far)" if interrupted else ""),
        f"Bradley-Terry ratings on the Elo scale (a draw is half a win), {ratings.anchor} = 0, "
        "95 % intervals",
        f"{'rank':>4}  {'player':<{width}} {'rating':>7} {'95 % interval':>17} {'games':>6} "
        f"{'score':>7}",
    ]
    share = ratings.score_share
    for rank, i in enumerate(order, start=1):
        low, high = _elo(ratings.low[i]), _elo(ratings.high[i])
        interval = f"[{low}, {high}]" if ratings.stderr[i] else "anchor"
        pct = "-" if ratings.played[i] == 0 else f"{100 * share[i]:.1f} %"
        lines.append(
            f"{rank:>4}  {ratings.players[i]:<{width}} {_elo(ratings.rating[i]):>7} {interval:>17} "
            f"{int(ratings.played[i]):>6} {pct:>7}"
        )
    lines += ["", "score of the row against the column (%, draws half)"]
    lines.append(
        " " * (width + 5) + "".join(f"{'#' + str(r):>7}" for r in range(1, len(order) + 1))
    )
    for rank, i in enumerate(order, start=1):
        cells = []
        for j in order:
            n = ratings.games[i, j]
            cells.append(
                f"{'-' if i == j or n == 0 else f'{100 * ratings.score[i, j] / n:.1f}':>7}"
            )
        lines.append(f"{'#' + str(rank):>4} {ratings.players[i]:<{width}}" + "".join(cells))
    return "\n".join(lines)


def _elo(value: float) -> str:
    """A rating as ``+123`` (never ``-0``)."""
    return f"{float(round(value)) + 0.0:+.0f}"


def plot(ratings: Any, path: str, setup: RoundRobin) -> Path:
    """The ratings (best at the top) with their 95 % intervals as error bars, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = ratings.order()[::-1]
    rating = ratings.rating[order]
    errors = [rating - ratings.low[order], ratings.high[order] - rating]
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.45 * len(order)))
    ax.errorbar(rating, range(len(order)), xerr=errors, fmt="o", capsize=4)
    ax.set_yticks(range(len(order)), [ratings.players[i] for i in order])
    ax.axvline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel(f"rating (Elo scale, {ratings.anchor} = 0), 95 % interval")
    ax.set_title(
        f"curling rate: {setup.games} games per {'adjacent ' if setup.pairs == 'adjacent' else ''}"
        f"pair, {setup.ends} ends per game",
        fontsize=10,
    )
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    out = Path(path).expanduser()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
