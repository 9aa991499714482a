"""Throttling of connection-key checks, so that a server with ``--key`` cannot be brute-forced.

Each connection gets one key check (a wrong key closes it), so a guesser opens connections; the
throttle works per client address:

- the checks of one address run one at a time;
- after a wrong key, each check of that address waits before its answer: ``BASE_DELAY_S`` after
  the first failure, doubling per further failure up to ``MAX_DELAY_S`` (about one guess per
  2 s); right and wrong keys wait alike, so the answer's timing tells nothing;
- failures are forgotten ``FORGET_S`` after the last one (a right key does not clear them: a
  guesser could hold one to reset the count);
- beyond ``MAX_WAITING`` checks waiting for one address, a connection is refused at once,
  without its key being looked at.

Memory is bounded: at most ``MAX_ADDRESSES`` addresses are remembered (the oldest idle ones are
forgotten first).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

BASE_DELAY_S = 0.25
MAX_DELAY_S = 2.0
FORGET_S = 60.0
MAX_WAITING = 8
MAX_ADDRESSES = 4096


@dataclass
class _Address:
    failures: int = 0
    last_failure: float = 0.0
    waiting: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class KeyThrottle:
    """Per-address throttling of key checks (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._addresses: dict[str, _Address] = {}

    def delay(self, address: str) -> float:
        """Seconds the next check of ``address`` waits before its answer."""
        entry = self._addresses.get(address)
        if entry is None or entry.failures == 0:
            return 0.0
        if self._clock() - entry.last_failure > FORGET_S:
            entry.failures = 0
            return 0.0
        return min(BASE_DELAY_S * 2 ** (entry.failures - 1), MAX_DELAY_S)

    async def check(self, address: str, key_ok: bool) -> bool | None:
        """``key_ok`` once ``address``'s turn and delay have passed; None (refuse at once) when
        too many checks of that address are already waiting."""
        entry = self._entry(address)
        if entry.waiting >= MAX_WAITING:
            return None
        entry.waiting += 1
        try:
            async with entry.lock:
                wait = self.delay(address)
                if wait > 0:
                    await asyncio.sleep(wait)
                if not key_ok:
                    entry.failures += 1
                    entry.last_failure = self._clock()
                return key_ok
        finally:
            entry.waiting -= 1

    def _entry(self, address: str) -> _Address:
        entry = self._addresses.get(address)
        if entry is None:
            if len(self._addresses) >= MAX_ADDRESSES:
                self._forget_idle()
            entry = self._addresses[address] = _Address()
        return entry

    def _forget_idle(self) -> None:
        """Drop idle addresses: those without recent failures, then the oldest failures."""
        idle = [a for a, e in self._addresses.items() if e.waiting == 0]
        idle.sort(key=lambda a: (self.delay(a) > 0, self._addresses[a].last_failure))
        for address in idle[: max(1, len(idle) // 2)]:
            del self._addresses[address]
