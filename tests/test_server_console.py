"""The server's human lines (``server.console``): who waits in the lobby and why, and one line
per game that ends. ``curling server`` prints them (tests in ``test_cli_server``); here the
lines themselves, and a running server writing them to the console logger."""

from __future__ import annotations

import io
import logging
import threading
from typing import Any

import pytest
from server_helpers import RawClient, wait_until

from rllib_curling.server.console import CONSOLE, game_line, lobby_line, printing, refused_line

pytestmark = pytest.mark.timeout(60)
pytest_plugins = ("server_fixtures",)  # fixtures: start_server


def _record(**changes: Any) -> dict[str, Any]:
    record = {
        "type": "game", "game_id": "x-m0-g2", "players": ["AlphaCurl", "draw to the button"],
        "end_scores": [[2, 0], [0, 1], [3, 0], [0, 2]], "totals": [5, 3],
        "results": ["WIN", "LOSE"], "reason": "finished", "lost_seat": None, "shots": 64,
    }  # fmt: skip
    return {**record, **changes}


def test_game_line__names_scores_ends_and_winner() -> None:
    kinds = ["remote", "bot:3"]
    assert game_line(3, 7788, _record(), kinds) == (
        "game 3 (port 7788): AlphaCurl 5 - 3 built-in AI 3 (4 ends, AlphaCurl wins)"
    )
    draw = _record(totals=[1, 1], end_scores=[[1, 0], [0, 1]], results=["DRAW", "DRAW"])
    assert game_line(1, 7788, draw, ["remote", "remote"]).endswith("(2 ends, a draw)")
    assert game_line(1, 7788, _record(end_scores=[[1, 0]]), kinds).endswith(
        "(1 end, AlphaCurl wins)"
    )


def test_game_line__says_why_a_game_ended_early() -> None:
    kinds = ["remote", "remote"]
    gone = _record(reason="disconnect", lost_seat=1, end_scores=[[1, 0]], totals=[1, 0])
    assert game_line(2, 7789, gone, kinds) == (
        "game 2 (port 7789): AlphaCurl 1 - 0 draw to the button "
        "(draw to the button disconnected after 1 end, AlphaCurl wins)"
    )
    lost = _record(reason="forfeit", lost_seat=0, results=["LOSE", "WIN"])
    assert "(AlphaCurl forfeited after 4 ends, draw to the button wins)" in game_line(
        1, 1, lost, kinds
    )
    resigned = _record(reason="resign", lost_seat=0, results=["LOSE", "WIN"])
    assert "(AlphaCurl resigned after 4 ends, draw to the button wins)" in game_line(
        1, 1, resigned, kinds
    )
    stopped = _record(reason="stopped", end_scores=[], totals=[0, 0])
    assert game_line(1, 1, stopped, kinds).endswith("(the server stopped after 0 ends)")


def test_lobby_line__says_why_the_client_waits_and_what_to_do() -> None:
    legacy = lobby_line(7788, "SampleAI2020 (127.0.0.1:5000)", 0, legacy=True)
    assert legacy.startswith("waiting in the lobby of port 7788: SampleAI2020 (127.0.0.1:5000)")
    assert "no CONNECTKEY" in legacy and "--opponent N" in legacy
    keyed = lobby_line(7788, "127.0.0.1:5001", 1, legacy=False)
    assert "as Player2" in keyed and "no :N" in keyed and ":1 .. :8" in keyed


def test_printing__one_plain_line_each_and_nothing_after_the_block() -> None:
    out = io.StringIO()
    with printing(out):
        CONSOLE.info("game 1 (port 1): a 1 - 0 b (1 end, a wins)")
    CONSOLE.info("not shown")
    assert out.getvalue() == "game 1 (port 1): a 1 - 0 b (1 end, a wins)\n"
    assert CONSOLE.propagate and CONSOLE.level == logging.NOTSET  # as before the block


@pytest.mark.slow
def test_server__a_refused_client_is_one_plain_console_line(
    start_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # was a WARNING of the server's logger: "<Connection 127.0.0.1:5000 unseated> refused: ..."
    caplog.set_level(logging.INFO)
    server = start_server(ends=1, games=1, keys=("secret",))
    client = RawClient(server.address[1], "guess")
    while client.recv_msg() is not None:  # the refusal, then EOF
        pass
    client.close()
    lines = [
        (r.name, r.levelno, r.getMessage()) for r in caplog.records if "refused" in r.getMessage()
    ]
    assert len(lines) == 1, lines
    ((name, level, line),) = lines
    assert (name, level) == (CONSOLE.name, logging.INFO)
    assert line.startswith("refused 127.0.0.1:")
    assert line.endswith(": wrong key; this server needs its connection key")
    assert (
        refused_line("AlphaCurl (127.0.0.1:5000)", "why")
        == "refused AlphaCurl (127.0.0.1:5000): why"
    )


def test_server__console_says_who_waits_in_the_lobby_and_each_game(
    start_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=CONSOLE.name)
    server = start_server(ends=1, games=1)
    port = server.address[1]

    def lines() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == CONSOLE.name]

    legacy = RawClient(port, None, name="SampleAI2020")  # a 2020-era client: no CONNECTKEY
    played: list[Any] = []
    thread = threading.Thread(target=lambda: played.append(legacy.play()), daemon=True)
    thread.start()
    assert wait_until(lambda: len(lines()) == 1)
    (waiting,) = lines()
    assert waiting.startswith(f"waiting in the lobby of port {port}: SampleAI2020 (127.0.0.1:")
    assert "as Player1 (no CONNECTKEY;" in waiting
    partner = RawClient(port, "k", name="keyed")  # the second client: their game starts
    partner.play()
    partner.close()
    thread.join(30)
    legacy.close()
    (seen,) = played
    (result,), ((p1, p2),) = seen.results, seen.totals  # the legacy client is Player1
    outcome = {"WIN": "SampleAI2020 wins", "LOSE": "keyed wins", "DRAW": "a draw"}[result]
    assert wait_until(lambda: len(lines()) == 2)
    assert lines()[1] == f"game 1 (port {port}): SampleAI2020 {p1} - {p2} keyed (1 end, {outcome})"
