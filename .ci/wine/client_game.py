"""One whole game as a protocol client: ``python client_game.py PORT NAME``.

The Wine job runs it twice against a Windows ``curling server``, once with Linux's Python and
once with Windows' Python, so the two clients play each other in the server's lobby. Prints the
result line and exits 1 unless the game ended with a GAMEOVER.
"""

from __future__ import annotations

import sys

from rllib_curling.client import CurlingClient


def main(port: int, name: str) -> int:
    client = CurlingClient("127.0.0.1", port, key="wine-ci", name=name, timeout=120.0)
    seat = client.connect()
    throws = 0
    while (event := client.wait_turn()) == "go":
        client.throw(
            3.0 + 0.1 * (throws % 5), -0.2 + 0.1 * (throws % 4), 0.5 if throws % 2 else -0.5
        )
        throws += 1
    client.close()
    print(
        f"{name} ({sys.platform}) as Player{seat + 1}: {throws} throws, {event}, "
        f"result {client.result}, totals {client.totals}"
    )
    return 0 if event == "gameover" and client.result is not None else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2]))
