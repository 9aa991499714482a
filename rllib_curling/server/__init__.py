"""``curling server``: a headless drop-in for the platform's stand-alone ``curling_server.exe``.

An asyncio shell around the sans-I/O protocol (``rllib_curling.protocol``) and the pure engine
(``rllib_curling.game``), with the built-in bots (``rllib_curling.bots``) as opponents:

| module             | what it holds                                                           |
|--------------------|-------------------------------------------------------------------------|
| ``config``         | ``ServerConfig`` (typed options) and its defaults, ``conf/config.ini``  |
| ``runner``         | ``run_server``, ``serve``, ``start_server_thread``: the entry points    |
| ``curling_server`` | ``CurlingServer``: the listeners (rooms), keys, seats, the lobby        |
| ``match``          | ``Match``: the game loop of one pair of seats                           |
| ``players``        | ``Player``, the one interface of a seat; a remote client, a built-in bot|
| ``people``         | a person's seat on the page (``PersonPlayer``), the desk seating people |
| ``throttle``       | ``KeyThrottle``: per-address throttling of connection-key checks        |
| ``connection``     | one client connection: framing, a bounded mailbox, batched writes       |
| ``records``        | the JSONL game records                                                  |
| ``console``        | the human lines: who waits in a lobby and why, one line per game        |
| ``process``        | ``ServerProcess``: a ``curling server`` child process (the env's private|
|                    | servers); with ``config``, all that other layers may import besides this|
| ``web``            | the page that shows the games (``--http-port``; ``curling replay``)     |

**Seats** (protocol.md §2). A client sends ``CONNECTKEY:<key>``; it is seated as Player1 or
Player2 (order of arrival) and gets ``NAME PlayerN `` then ``CONNECTNAME PlayerN `` (legacy first).
A client that sends no CONNECTKEY within ``legacy_wait`` (1 s) is seated the same way. Any key is
accepted unless ``keys`` are configured (then a wrong or missing key gets ``Error …`` and is
closed; checks are throttled per address). The key suffix ``:0`` seats the dumb robot (level 0)
against the client in debug mode (no turn time limit; RESETPOSITION / RESETSTATE accepted
between GO and BESTSHOT; not echoed); ``:1`` … ``:8`` seat built-in bot n (as Player2 in game 1,
or Player1 with ``bot_seat=0``); without a suffix two clients play each other, unless
``opponent`` is set (then bot ``opponent`` plays every client without a suffix). Bot games start
at once, side by side (up to ``max_matches``); two clients meet in the lobby, one such pair at a
time, as on the platform: a connection that finds no free lobby seat waits up to ``SEAT_WAIT_S``
(a match that is ending frees its seats) and then gets ``Error …`` and is closed.

**Rooms**: ``ports`` > 1 (``--ports N``) listens on N ports in one process; each port plays as a
server of its own (its own lobby and match numbering, seed ``seed + i``), so N envs pay for one
process (a vector env's private server, ``rllib_curling.env.vector``).

**Games** start by themselves: every client gets ISREADY as soon as it is seated and has
``ready_timeout`` to answer READYOK; then ``games`` games (see ``match`` for the message order:
every game looks like the first, the seats swapping who is Player1 and re-announced), then 5
empty messages and close. Every server message ends with a space before its NUL (``GO \0``),
which every course client reads. No artificial delays, except ``compat_gap`` between
consecutive messages to one client, and ``legacy_gap`` (50 ms) for clients that send no
CONNECTKEY: the 2020-era clients, which read one message per ``recv``.

**Sweeping** without real-time physics: after MOTIONINFO the server waits for the thrower's
``SWEEP d`` up to ``sweep_window`` seconds (default ``protocol.defaults.SWEEP_WINDOW_S``), and
goes on as soon as it arrives; a SWEEP that arrives later is not applied. It waits on a connection's
first MOTIONINFO, and after that only for connections that have sent a SWEEP (the sweep rule,
``players.RemotePlayer.sweep_window``): a client that never sweeps waits once per session, not
once per stone. A client that does not sweep can answer ``SWEEP 0`` and lose no time; bots
never wait (their throw carries the sweep).

**Console**: ``curling server`` prints on stderr who waits in a lobby and why (a 2020-era
client sends no CONNECTKEY and waits there for a second client) and one line per game that
ends; ``-q`` (implied by ``--announce``) silences them (``console``).

**Robustness**: nothing a client sends raises out of the server or stalls the other seat; see
``connection``. No client can hold a seat without playing: a seat that does not answer ISREADY
is dropped after ``ready_timeout``, a turn timeout loses the stone (it counts as thrown, out of
play), and ``forfeit_after`` of them in a row forfeit the game. A disconnect mid-game ends the
game: the other seat gets ``GAMEOVER WIN`` and the 5 empties. Every connection that leaves
before its match is closed at once.

**Watching** (``http_port``, from ``--http-port`` or ``HttpPort`` in the platform's
``conf/config.ini``): a web page on that port shows every match live (see ``web``); each match
writes its records to the page's hub as to its records file, and a slow browser never slows a
game. Off by default, and on the env's private servers unless asked (no port, no cost).

Python API: ``run_server(config)`` (blocking, SIGINT/SIGTERM stop it) and
``start_server_thread(config) -> ServerHandle`` (``.address``, ``.stop()``). Every decision where
protocol.md leaves a choice: ``docs/protocol_notes.md``, section "The server".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rllib_curling.server.config import ServerConfig

if TYPE_CHECKING:
    from rllib_curling.server.runner import (
        SEAT_WAIT_S,
        CurlingServer,
        ServerHandle,
        run_server,
        serve,
        start_server_thread,
    )

#: Loaded on first use (``runner`` brings the whole server): a command that only reads
#: ``server.config``'s defaults, e.g. to build its parser, does not pay for it.
_FROM_RUNNER = (
    "SEAT_WAIT_S", "CurlingServer", "ServerHandle", "run_server", "serve", "start_server_thread",
)  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _FROM_RUNNER:
        from rllib_curling.server import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SEAT_WAIT_S", "CurlingServer", "ServerConfig", "ServerHandle", "run_server", "serve",
    "start_server_thread",
]  # fmt: skip
