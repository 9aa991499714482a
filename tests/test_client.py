"""CurlingClient: bad throws are refused before anything is sent, silence is a PeerTimeoutError."""

from __future__ import annotations

import pickle
import socket
import time

import pytest

from rllib_curling.client import CurlingClient
from rllib_curling.errors import ConnectionLostError, InvalidThrowError, PeerTimeoutError
from rllib_curling.server.process import ServerOptions, ServerProcess

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("no_leftover_servers")]

NAN, INF = float("nan"), float("inf")

BAD_THROWS = [  # (args, kwargs, how the error names the value)
    ((NAN, 0.0, 0.0), {}, "v=nan"),
    ((3.0, -INF, 0.0), {}, "h=-inf"),
    ((3.0, 0.0, "1.5"), {}, "w='1.5'"),
    ((True, 0.0, 0.0), {}, "v=True"),
    ((3.0, 0.0, None), {}, "w=None"),
    ((3.0, 0.0, 0.0), {"sweep": NAN}, "sweep=nan"),
]


def test_client__bad_throw_is_refused_and_the_turn_stays_ours() -> None:
    server = ServerProcess(ServerOptions(ends=1, seed=3))  # 127.0.0.1, stopped through its PID
    client = CurlingClient(*server.address, key="localtest:1", timeout=60.0)
    try:
        client.connect()
        event, throws, refused = client.wait_turn(), 0, 0
        while event == "go":  # before each valid throw, one bad one while they last
            if refused < len(BAD_THROWS):
                args, kwargs, named = BAD_THROWS[refused]
                state = client.state
                with pytest.raises(InvalidThrowError, match="not a finite real number") as err:
                    client.throw(*args, **kwargs)
                assert named in str(err.value) and isinstance(err.value, ValueError)
                assert client.my_turn and client.state == state  # nothing sent or changed
                refused += 1
            client.throw(3.0, 0.1 * throws, 0.0)
            throws += 1
            event = client.wait_turn()
        assert refused == len(BAD_THROWS) and throws == 8
        assert event == "gameover" and client.result in ("WIN", "LOSE", "DRAW")
    finally:
        client.close()
        server.stop()


def test_client__silent_server_raises_peer_timeout_naming_the_wait() -> None:
    with socket.socket() as silent:  # accepts connections (backlog), never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        client = CurlingClient("127.0.0.1", port, connect_timeout=0.5)
        start = time.monotonic()
        with pytest.raises(PeerTimeoutError, match=r"no message from 127\.0\.0\.1:\d+ for 0\.5 s"):
            client.connect()
        assert time.monotonic() - start < 5.0
        client.close()


def test_client__peer_timeout_is_a_connection_lost_error_that_pickles() -> None:
    error = PeerTimeoutError("no message from 127.0.0.1:1 for 2 s", 2.0)
    again = pickle.loads(pickle.dumps(error))  # RLlib ships errors between processes
    assert isinstance(again, ConnectionLostError)
    assert (str(again), again.seconds) == (str(error), 2.0)
