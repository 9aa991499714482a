"""Where the page's games come from, besides record files (``replay``):

| feed            | games of                                          | trajectories          |
|-----------------|---------------------------------------------------|-----------------------|
| ``TeeRecorder`` | ``curling server --http-port``: every match       | re-simulated per shot |
|                 | writes its records to the file and to the hub     | (``shot_seed``)       |
| ``BotMatchFeed``| ``curling match A B --watch`` (bots in-process)   | the shot's own ``seed`` |
| ``ClientFeed``  | ``curling play --watch``: what one seat is told   | none: positions only  |
"""

from __future__ import annotations

from typing import Any

from rllib_curling.server.records import GameRecorder
from rllib_curling.server.web.hub import WatchHub


class TeeRecorder:
    """A match's recorder that writes to the records file (when there is one) and to the hub."""

    enabled = True

    def __init__(self, records: GameRecorder, hub: WatchHub) -> None:
        self.records, self.hub = records, hub

    def write(self, record: dict[str, Any]) -> None:
        self.records.write(record)
        self.hub.write(record)

    def flush(self) -> None:
        self.records.flush()
