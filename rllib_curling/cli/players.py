"""How a player is named on the command line: one grammar for every command that takes one
(``curling match``, ``curling rate``, ``curling dataset --teacher``, ``curling server --agent``).

| form                         | player                                                      |
|------------------------------|-------------------------------------------------------------|
| ``3``, ``bot:3``             | ``Level``: a built-in bot level                             |
| ``tcp:HOST:PORT``            | ``Remote``: an external AI, connecting to a server there    |
| ``builtin``, a checkpoint    | ``Agent``: a trained agent as it plays by default (its      |
| (any directory ``rl.checkpoints.find_checkpoint`` takes)  | search included)               |
| ``policy:CHECKPOINT``        | ``Agent(search=False)``: the agent's network alone          |

Each command says which kinds it takes (``parse_player(text, kinds)``); the error names them.
A league of opponents (``curling dataset``/``improve --opponents``) is a list of levels, agents
and ``self`` (``opponent_list``).
Parsing checks the form and that a checkpoint directory exists; loading it is the command's.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rllib_curling.cli.options import level_list, level_range
from rllib_curling.names import BUILTINS

#: The prefix of an agent's network alone, without its search.
POLICY_PREFIX = "policy:"


@dataclass(frozen=True)
class Level:
    """A built-in bot level (``bots.LEVELS``)."""

    level: int

    def __str__(self) -> str:
        return f"bot:{self.level}"


@dataclass(frozen=True)
class Remote:
    """An external AI: it connects to a server on ``host:port``."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"tcp:{self.host}:{self.port}"


@dataclass(frozen=True)
class Agent:
    """A trained agent: ``checkpoint`` as named (``builtin`` or a directory), with its search
    (``search``) or its network alone."""

    checkpoint: str
    search: bool = True

    def __str__(self) -> str:
        return self.checkpoint if self.search else f"{POLICY_PREFIX}{self.checkpoint}"


Player = Level | Remote | Agent
ALL_KINDS: tuple[type[Player], ...] = (Level, Remote, Agent)


def forms(kinds: tuple[type[Player], ...] = ALL_KINDS) -> str:
    """The forms of ``kinds`` in words, for help texts and errors."""
    words = {
        Level: f"a bot level {level_range()} (3 or bot:3)",
        Remote: "tcp:HOST:PORT",
        Agent: "an agent (builtin, a checkpoint directory; policy:CHECKPOINT: its network alone)",
    }
    said = [words[kind] for kind in ALL_KINDS if kind in kinds]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " or " + said[-1]


def parse_player(text: str, kinds: tuple[type[Player], ...] = ALL_KINDS) -> Player:
    """The player ``text`` names, one of ``kinds``; ``ValueError`` saying the forms else, or
    that an agent's checkpoint directory is not there."""
    player = _parse(text.strip())
    if player is None or type(player) not in kinds:
        raise ValueError(f"a player is {forms(kinds)}, got {text!r}")
    if isinstance(player, Agent) and not exists(player):
        where = Path(player.checkpoint).expanduser().resolve()
        raise ValueError(f"no checkpoint directory at {where} (a player is {forms(kinds)})")
    return player


def _parse(text: str) -> Player | None:
    """The player of ``text``'s form, None for no form (an agent's directory is not checked)."""
    from rllib_curling.bots import LEVELS

    body = text.removeprefix("bot:")
    if body.lstrip("-").isdigit():
        return Level(int(body)) if int(body) in LEVELS else None
    if text.startswith("tcp:"):
        host, _, port = text[4:].rpartition(":")
        ok = bool(host) and port.isdigit() and 0 < int(port) < 65536
        return Remote(host, int(port)) if ok else None
    path = text.removeprefix(POLICY_PREFIX)
    if not path or text.startswith("bot:"):
        return None
    return Agent(path, search=path == text)


def player_type(*kinds: type[Player]) -> Callable[[str], Player]:
    """An argparse ``type=`` for a player of ``kinds`` (all by default): a usage error in one
    line for anything else (a missing checkpoint directory included)."""

    def parse(text: str) -> Player:
        try:
            return parse_player(text, kinds or ALL_KINDS)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def exists(agent: Agent) -> bool:
    """Whether the agent's checkpoint is there to load (``builtin`` and ``builtin-dc`` always
    are)."""
    return agent.checkpoint in BUILTINS or Path(agent.checkpoint).expanduser().is_dir()


def opponent_list(what: str) -> Callable[[str], tuple[int | str, ...]]:
    """An argparse type for a league (``what``: ``"opponent"``), in the order given:
    ``"self,builtin,6,8"`` → ``("self", "builtin", 6, 8)``. Each is a level (``level_list``),
    ``self`` (the teacher itself: ``offline.dataset.SELF``) or an agent as ``parse_player``
    names one (``builtin``, a checkpoint directory, ``policy:CHECKPOINT``: its network alone),
    kept as written; a missing checkpoint directory is an error."""
    levels = level_list(what)

    def parse(text: str) -> tuple[int | str, ...]:
        from rllib_curling.offline.dataset import SELF

        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(
                f"{what}s are levels, {SELF} or agents, like {SELF},builtin,6,8: {text!r}"
            )
        found: list[int | str] = []
        for part in parts:
            if part == SELF:
                found.append(SELF)
            elif part.lstrip("-").isdigit():
                found += levels(part)
            else:
                try:
                    found.append(str(parse_player(part, (Agent,))))
                except ValueError as exc:
                    raise argparse.ArgumentTypeError(f"{what} {part!r}: {exc}") from None
        return tuple(found)

    return parse
