"""``curling bench server``: shots per second of whole games through the TCP server, one core.

Setup: a ``curling server`` subprocess (``--games N --ends 4``) and two clients in this process
(two threads, each a ``CurlingClient`` driving a built-in bot of ``--level``, default 2) that
play each other over loopback. The server process and this process are pinned to the same CPU
(``benchmarks.processes.pin``), so the figure is what one core does end to end: the bots' choices,
the physics, the server's asyncio loop and framing, both clients' decoding.

Baseline: the same number of games with the same bots played in-process (``Game.step``, no
protocol, no sockets). ``protocol share`` = 1 - in-process time / TCP time: the part of the
end-to-end time spent in the protocol (server and clients, sockets, encode/decode, threads).

Every figure is the median of ``--repeats`` runs (a new server each run, its start-up excluded).
Wall-clock figures suffer when other processes share the CPU; the CPU-time figures (user +
system time of the server process and of this process) much less: ``tcp_cpu_shots_per_s`` is
what the core would do if it ran nothing else.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import TYPE_CHECKING

import numpy as np

from rllib_curling.benchmarks.processes import allowed_cpus, cpu_seconds, load_average, pin
from rllib_curling.game import DEFAULT_ENDS
from rllib_curling.server.process import exit_with_parent_args, stop_child

if TYPE_CHECKING:
    from rllib_curling.client import CurlingClient
    from rllib_curling.game import GameState

SHOTS_PER_END = 16


def _start_server(games: int, ends: int, seed: int, cpu: int | None) -> tuple[object, int]:
    cmd = [
        sys.executable, "-m", "rllib_curling", "server", "--tcp-port", "0", "--announce",
        *exit_with_parent_args(), "--games", str(games), "--ends", str(ends), "--seed", str(seed),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    pin(proc.pid, cpu)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().split()
    if len(line) != 3 or line[0] != "LISTENING":
        proc.kill()
        raise RuntimeError(f"the server did not start: {line}")
    return proc, int(line[2])


def _game_state(client: CurlingClient, ends: int) -> GameState:
    """The GameState a bot needs, rebuilt from what the client was told (POSITION, SETSTATE,
    SCORE)."""
    from rllib_curling.game import GameConfig, GameState

    assert client.state is not None  # a GO comes after a SETSTATE
    shot, end, _total, next_seat = client.state
    first = next_seat if shot % 2 == 0 else 1 - next_seat
    seat = client.seat
    scores = []
    for s in client.end_scores:
        mine, theirs = max(s, 0), max(-s, 0)
        scores.append((mine, theirs) if seat == 0 else (theirs, mine))
    return GameState(
        position=client.position,
        shot=shot,
        end=end,
        first_seat=first,
        end_scores=tuple(scores),
        config=GameConfig(ends=ends),
    )


def _bot_client(port: int, level: int, ends: int, seed: int, out: dict[str, int]) -> None:
    from rllib_curling.bots import make_bot
    from rllib_curling.client import CurlingClient

    bot, rng = make_bot(level), np.random.default_rng(seed)
    client = CurlingClient("127.0.0.1", port, key="bench", name=f"bench-{seed}", timeout=60)
    client.connect()
    throws = games = 0
    while (event := client.wait_turn()) != "closed":
        if event == "go":
            v, h, w, sweep = bot.choose(_game_state(client, ends), rng)
            client.throw(v, h, w, sweep=sweep or None)
            throws += 1
        else:
            games += 1
    out["throws"], out["games"] = throws, games


def run_tcp(
    games: int, level: int, ends: int, seed: int, cpu: int | None
) -> tuple[float, float, float]:
    """Seconds for ``games`` games through the server (start-up excluded), and the CPU seconds
    of the server process and of this process (the clients and their bots) meanwhile."""
    proc, port = _start_server(games, ends, seed, cpu)
    cpu0, server0 = time.process_time(), cpu_seconds(proc.pid)  # type: ignore[attr-defined]
    try:
        outs: list[dict[str, int]] = [{}, {}]
        threads = [
            threading.Thread(target=_bot_client, args=(port, level, ends, seed + k, outs[k]))
            for k in range(2)
        ]
        t0 = time.perf_counter()
        for th in threads:
            th.start()
            time.sleep(0.01)  # arrival order: thread 0 is Player1
        for th in threads:
            th.join()
        elapsed = time.perf_counter() - t0
        clients_cpu = time.process_time() - cpu0
        server_cpu = cpu_seconds(proc.pid) - server0  # type: ignore[attr-defined]
    finally:
        stop_child(proc)  # type: ignore[arg-type]
    shots = sum(o.get("throws", 0) for o in outs)
    if shots != games * ends * SHOTS_PER_END:
        raise RuntimeError(f"expected {games * ends * SHOTS_PER_END} throws, got {shots}")
    return elapsed, server_cpu, clients_cpu


def run_inprocess(games: int, level: int, ends: int, seed: int) -> tuple[float, float]:
    """Wall and CPU seconds for ``games`` games with the same bots through ``Game.step``."""
    from rllib_curling.bots import make_bot
    from rllib_curling.game import Game, GameConfig, GameState

    bots = [make_bot(level), make_bot(level)]
    rngs = [np.random.default_rng(seed), np.random.default_rng(seed + 1)]
    t0, cpu0 = time.perf_counter(), time.process_time()
    for g in range(games):
        game_rng = np.random.default_rng([seed, 0, g])
        state = GameState(first_seat=g % 2, config=GameConfig(ends=ends))
        while not state.is_terminal:
            seat = state.next_seat
            throw = bots[seat].choose(state, rngs[seat])
            shot_rng = np.random.default_rng(int(game_rng.integers(2**63)))
            state = Game.step(state, throw, shot_rng).state
    return time.perf_counter() - t0, time.process_time() - cpu0


def measure(games: int, level: int, ends: int, repeats: int, seed: int, cpu: int | None) -> dict:
    """The figures (see the module docstring); times per shot in microseconds."""
    shots = games * ends * SHOTS_PER_END
    run_inprocess(1, level, ends, seed)  # warm-up: imports, numba, aiming tables
    inproc = [run_inprocess(games, level, ends, seed) for _ in range(repeats)]
    tcp = [run_tcp(games, level, ends, seed + r, cpu) for r in range(repeats)]
    us = {
        "tcp": statistics.median(r[0] for r in tcp),
        "server_cpu": statistics.median(r[1] for r in tcp),
        "clients_cpu": statistics.median(r[2] for r in tcp),
        "inprocess": statistics.median(r[0] for r in inproc),
        "inprocess_cpu": statistics.median(r[1] for r in inproc),
    }
    us = {k: 1e6 * v / shots for k, v in us.items()}
    tcp_cpu = us["server_cpu"] + us["clients_cpu"]
    return {
        "shots": shots, "ends": ends, "level": level, "cpu": cpu, "repeats": repeats,
        "load_average_1min": load_average(),
        "tcp_shots_per_s": 1e6 / us["tcp"], "inprocess_shots_per_s": 1e6 / us["inprocess"],
        "protocol_share": 1.0 - us["inprocess"] / us["tcp"],
        "tcp_cpu_shots_per_s": 1e6 / tcp_cpu,
        "protocol_share_cpu": 1.0 - us["inprocess_cpu"] / tcp_cpu,
        **{f"{k}_us_per_shot": v for k, v in us.items()},
    }  # fmt: skip


def report(f: dict) -> None:
    print(
        f"server bench: {f['shots']} shots per run, {f['ends']}-end games of level-{f['level']} "
        f"bots, pinned to CPU {f['cpu']}, median of {f['repeats']} (load average "
        f"{f['load_average_1min']:.1f}: other processes share the CPU)"
    )
    print(
        f"  wall  TCP end to end {f['tcp_shots_per_s']:6.0f} shots/s, in-process "
        f"{f['inprocess_shots_per_s']:6.0f} shots/s; protocol share "
        f"{100 * f['protocol_share']:.0f} %"
    )
    print(
        f"  CPU   TCP {f['tcp_cpu_shots_per_s']:6.0f} shots/s of CPU time (server "
        f"{f['server_cpu_us_per_shot']:.0f} us + clients {f['clients_cpu_us_per_shot']:.0f} us "
        f"per shot), in-process {f['inprocess_cpu_us_per_shot']:.0f} us; protocol share "
        f"{100 * f['protocol_share_cpu']:.0f} %"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="curling bench server", description=__doc__)
    parser.add_argument("--games", type=int, default=20, help="games per run")
    parser.add_argument("--ends", type=int, default=DEFAULT_ENDS, help="ends per game")
    parser.add_argument("--level", type=int, default=2, help="built-in bot level of both players")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--seed", type=int, default=0, help="base seed")
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: the last)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    cpu = args.cpu
    if cpu is None and (cpus := allowed_cpus()):
        cpu = max(cpus)
    pin(os.getpid(), cpu)
    figures = measure(args.games, args.level, args.ends, args.repeats, args.seed, cpu)
    if args.json:
        print(json.dumps(figures))
    else:
        report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
