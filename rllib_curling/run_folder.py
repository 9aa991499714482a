"""The folder a resumable run writes into (a dataset, a gate): its settings file, checked on
resume, and JSON files written whole or not at all.

A run that stops (Ctrl+C, the end of a session) is resumed by running it again with the same
folder and settings; other settings in a folder that already holds part of a run are refused,
naming what differs, so two runs never mix in one folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from rllib_curling.errors import ConfigError


def claim(out: Path, file_name: str, settings: dict[str, Any], what: str) -> None:
    """Write ``out/file_name`` with ``settings``, or, when it is there, check that the run in
    ``out`` was started with the same ones: ``ConfigError`` naming the keys that differ
    (``what`` says what the folder holds: "a dataset made", "a gate played")."""
    path = out / file_name
    if path.exists():
        have = json.loads(path.read_text())
        if have != settings:
            changed = ", ".join(sorted(k for k in settings if have.get(k) != settings[k]))
            raise ConfigError(
                f"{out} holds {what} with other settings ({changed} differ); use another folder "
                "or the same settings to resume it"
            )
        return
    out.mkdir(parents=True, exist_ok=True)
    write_json(path, settings)


def write_json(path: Path, data: Any) -> None:
    """Write JSON whole or not at all (a partial file, then a rename)."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(partial, path)
