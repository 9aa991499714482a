"""``CurlingEnvConfig``: the env's typed, validated configuration.

RLlib hands the env a dict (an ``EnvContext`` with ``worker_index``); Gymnasium passes keyword
arguments. Both become this frozen dataclass at ``__init__``, so an unknown key fails at once with
the list of valid keys.

**Which server an env instance uses** (``server``):

- ``"auto"`` (default): the env starts a private ``curling server`` child process on a free
  loopback port (the OS picks it) and stops it on ``close()``. Every env instance, in any env
  runner, gets its own server: nothing to set up.
- ``"host:port"`` (or ``port``): every env instance connects to that one server (fine for one env,
  or for a server that seats many pairs — the platform's server seats one pair).
- a list of ports / ``"host:port"`` strings: env instance number ``i`` takes entry ``i`` where
  ``i = max(worker_index - 1, 0) * envs_per_worker + k`` and ``k`` counts the env instances of that
  same list already open in this process (0, 1, …; freed on ``close()``). So with
  ``num_env_runners=2, num_envs_per_env_runner=2`` give 4 entries and ``envs_per_worker=2``.
  RLlib numbers evaluation env runners from 1 as well, so give evaluation its own list:
  ``config.evaluation(evaluation_config={"env_config": {"server": [...other ports...]}})``.

**How long the env waits for its server** (``reply_timeout``): a private server whose other seat
is a built-in bot (or, in self-play, the env itself) only ever waits for a bot's decision and the
engine, so it answers within a second or two; silence longer than ``server_timeout`` (default
``SERVER_TIMEOUT_S``) means it hangs (stopped, deadlocked): the env kills it, ``step()`` or
``reset()`` raises ``ConnectionLostError`` and the next ``reset()`` starts a new one. Anywhere
else (a server from the config, or ``opponent="external"``) someone may think for a whole turn,
so the env waits ``client_timeout`` (``turn_timeout`` plus a margin) and never kills a server it
did not start.

**Whom the env plays** (``opponent``): one built-in level (``2``), ``"external"`` (whoever the
server seats), or a mixture of levels: a list (``[2, 3, 4]``, equally often) or a mapping of
level to weight (``{2: 1, 4: 3}``). With a mixture the env draws the opponent for each **pair**
of games (one with the hammer, one without, since the server alternates the hammer within a
session), so every opponent is met with and without the hammer equally often. ``curriculum``
(a mapping, ``CurriculumConfig``) makes the opponents move up a ladder of levels while training:
the RLlib callback ``rl.callbacks.CurlingMetrics`` promotes the env to the next level when the
recent score rate against the current one passes ``promote_at`` (and keeps a share ``review``
of the games against the levels already passed).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from rllib_curling import errors
from rllib_curling.bots.levels import LADDER, LEVELS, is_level
from rllib_curling.env.rewards import check_reward
from rllib_curling.errors import ConfigError
from rllib_curling.game import DEFAULT_ENDS, check_ends
from rllib_curling.protocol.defaults import CLIENT_TIMEOUT_MARGIN_S, TURN_TIMEOUT_S

ACTIONS = ("continuous", "discrete", "shots", "throw")
#: Default ``server_timeout``: far above the longest silence of a healthy private server (0.17 s
#: on a loaded 2-core machine; measurements/RESULTS.md, "How long a private server is silent").
SERVER_TIMEOUT_S = 30.0
#: How long an env's private server waits for its sweeping client's SWEEP (the client answers
#: every MOTIONINFO at once; twice the platform's 1 s leaves room for a busy env runner).
PRIVATE_SWEEP_WINDOW_S = 2.0


@dataclass(frozen=True)
class CurlingEnvConfig:
    """Options of ``CurlingEnv`` (also the keys of RLlib's ``env_config``).

    ``server_timeout`` (seconds, > 0): how long a private server (``server="auto"``) with a
    built-in opponent may stay silent before the env calls it hung and kills it (module
    docstring); ``turn_timeout`` bounds the waits on every other server.

    ``http_port``: a private server serves no web page (None, the default: no port, no cost);
    0 = it shows its games on a free port, else on that port (``CurlingEnv.watch_url``).
    """

    server: Any = "auto"
    opponent: Any = 2
    ends: int = DEFAULT_ENDS
    key: str = "localtest"
    seed: int | None = None
    action: str = "continuous"
    reward: str = "score"
    sweep: bool = False
    turn_timeout: float = TURN_TIMEOUT_S
    server_timeout: float = SERVER_TIMEOUT_S
    name: str = "rllib-curling"
    envs_per_worker: int = 1
    host: str = "127.0.0.1"
    log_dir: str | None = None
    shaping_scale: float = 0.5
    http_port: int | None = None
    curriculum: Any = None
    score_weight: float = 0.1

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ConfigError(f"action must be one of {ACTIONS}, got {self.action!r}")
        if self.sweep and self.action == "shots":
            raise ConfigError("sweep=True does not go with action='shots' (shots are unswept)")
        check_reward(self.reward)
        _ = self.opponent_mix, self.curriculum_config, self.servers  # parsed once, kept
        if self.curriculum is not None and self.opponent == "external":
            raise ConfigError("curriculum needs built-in opponents, not opponent='external'")
        if not finite_number(self.score_weight) or self.score_weight < 0:
            raise ConfigError(f"score_weight must be a number >= 0, got {self.score_weight!r}")
        check_ends(self.ends)  # the game's rule: a positive int or -1
        if self.turn_timeout <= 0:
            raise ConfigError(f"turn_timeout must be > 0 seconds, got {self.turn_timeout!r}")
        if not _positive_seconds(self.server_timeout):
            raise ConfigError(
                f"server_timeout must be a finite number of seconds > 0, "
                f"got {self.server_timeout!r}"
            )
        if self.envs_per_worker < 1:
            raise ConfigError(f"envs_per_worker must be >= 1, got {self.envs_per_worker!r}")
        if ":" in self.key:
            raise ConfigError(
                f"key {self.key!r} must not contain ':' (the opponent level is added by the env)"
            )
        port = self.http_port
        if port is not None and (isinstance(port, bool) or not isinstance(port, int)
                                 or not 0 <= port < 65536):  # fmt: skip
            raise ConfigError(f"http_port must be None or a port 0..65535, got {port!r}")

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> CurlingEnvConfig:
        values = dict(values or {})
        values.pop("num_envs", None)  # added by RLlib's vector entry point
        refuse_unknown_keys(cls, values, "env_config")
        if isinstance(values.get("server"), list):
            values["server"] = tuple(values["server"])
        if isinstance(values.get("opponent"), list):
            values["opponent"] = tuple(values["opponent"])
        return cls(**values)

    # The keys that take several forms are parsed once, when the config is made (``__post_init__``
    # reads these), and kept: the fields keep what the user wrote, the env reads the parsed forms.

    @cached_property
    def opponent_mix(self) -> dict[int | str, float]:
        """``opponent`` parsed: ``{level or "external": weight}``, weights summing to 1."""
        return opponent_weights(self.opponent)

    @cached_property
    def curriculum_config(self) -> CurriculumConfig | None:
        """``curriculum`` parsed, or None without one."""
        return None if self.curriculum is None else CurriculumConfig.from_value(self.curriculum)

    @cached_property
    def servers(self) -> tuple[tuple[str, int], ...] | None:
        """``server`` parsed: None for ``"auto"`` (a private server), else the addresses."""
        found = parse_server(self.server)
        return None if found is None else tuple(found)

    @property
    def opponents(self) -> dict[int | str, float]:
        """The opponents the env starts with and their weights; with a curriculum, its first
        level alone."""
        if self.curriculum_config is not None:
            return {self.curriculum_config.levels[0]: 1.0}
        return dict(self.opponent_mix)

    @property
    def client_timeout(self) -> float:
        """Seconds the env's clients wait for the server: the turn timeout plus a margin."""
        return self.turn_timeout + CLIENT_TIMEOUT_MARGIN_S

    def reply_timeout(self, *, self_play: bool = False) -> float:
        """Seconds the env's clients wait for the server's next message (module docstring):
        ``server_timeout`` on a private server whose other seat is a bot or, with
        ``self_play``, the env itself; ``client_timeout`` elsewhere."""
        if self.server == "auto" and (self_play or "external" not in self.opponents):
            return self.server_timeout
        return self.client_timeout

    @property
    def private_sweep_window(self) -> float:
        """Seconds a private server waits for SWEEP after MOTIONINFO: only an env that sweeps
        makes it wait (``PRIVATE_SWEEP_WINDOW_S``; its client answers at once)."""
        return PRIVATE_SWEEP_WINDOW_S if self.sweep else 0.0

    @property
    def sweep_reply(self) -> bool:
        """Whether the env's clients answer every MOTIONINFO (``SWEEP 0`` when not sweeping):
        yes, except on a private server that does not wait for sweeps."""
        return self.server != "auto" or self.private_sweep_window > 0

    def connect_key(self, opponent: int | str) -> str:
        """The CONNECTKEY to play ``opponent``: ``key`` plus ``:level`` for a built-in level."""
        return self.key if opponent == "external" else f"{self.key}:{opponent}"


@dataclass(frozen=True)
class CurriculumConfig:
    """The ``curriculum`` key of ``env_config`` (a mapping with these keys, all optional).

    - ``levels``: the ladder, in order (default ``DEFAULT_CURRICULUM_LEVELS``); training starts
      against the first.
    - ``promote_at``: move to the next level once the score rate (wins + draws / 2) over the
      last ``window`` games against the current level reaches this (default 0.7).
    - ``window``: games against the current level that the rate is taken over, and the least
      number of them played before a promotion (default 100).
    - ``review``: the share of games against the levels already passed, spread evenly over them
      (default 0.25), so the agent does not forget them.
    """

    levels: tuple[int, ...] = LADDER
    promote_at: float = 0.7
    window: int = 100
    review: float = 0.25

    def __post_init__(self) -> None:
        if not self.levels or not all(is_level(level) for level in self.levels):
            raise ConfigError(
                f"curriculum levels must be built-in levels {list(LEVELS)}, got {self.levels!r}"
            )
        if len(set(self.levels)) != len(self.levels):
            raise ConfigError(f"curriculum levels repeat a level: {list(self.levels)}")
        if not (finite_number(self.promote_at) and 0 < self.promote_at <= 1):
            raise ConfigError(f"curriculum promote_at must be in (0, 1], got {self.promote_at!r}")
        if isinstance(self.window, bool) or not isinstance(self.window, int) or self.window < 1:
            raise ConfigError(f"curriculum window must be an int >= 1, got {self.window!r}")
        if not (finite_number(self.review) and 0 <= self.review < 1):
            raise ConfigError(f"curriculum review must be in [0, 1), got {self.review!r}")

    @classmethod
    def from_value(cls, value: Any) -> CurriculumConfig:
        """From ``env_config["curriculum"]``: a mapping (``True`` = the defaults)."""
        if isinstance(value, cls):
            return value
        if value is True:
            return cls()
        if not isinstance(value, dict):
            raise ConfigError(
                f"curriculum must be a mapping of {[f.name for f in dataclasses.fields(cls)]} "
                f"(or true for the defaults), got {value!r}"
            )
        refuse_unknown_keys(cls, value, "curriculum")
        values = dict(value)
        if "levels" in values:
            values["levels"] = tuple(_as_level(v) for v in values["levels"])
        return cls(**values)

    def weights(self, stage: int) -> dict[int | str, float]:
        """Opponent weights at ``stage`` (index into ``levels``): the current level gets
        ``1 - review``, the levels passed share ``review`` (all of it to the current level at
        stage 0)."""
        current = self.levels[stage]
        passed = self.levels[:stage]
        if not passed or self.review == 0:
            return {current: 1.0}
        out: dict[int | str, float] = {level: self.review / len(passed) for level in passed}
        out[current] = 1.0 - self.review
        return out


DEFAULT_CURRICULUM_LEVELS = CurriculumConfig.levels


def _as_level(value: Any) -> Any:
    """A level written as text (JSON object keys, ``"4"``) as an int; anything else unchanged."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return value


def opponent_weights(
    opponent: Any, levels: tuple[int, ...] = LEVELS, external: bool = True
) -> dict[int | str, float]:
    """``opponent`` as ``{level or "external": weight}`` with weights summing to 1.

    A level or ``"external"`` alone, a list/tuple of levels (equal weights; a repeated level
    counts twice), or a mapping of level to weight (> 0; keys may be written as text, as JSON
    object keys are). ``ConfigError`` for anything else. ``levels``: the built-in levels
    (another ladder's, e.g. DC's); ``external``: whether ``"external"`` is allowed.
    """

    def known(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value in levels

    ext = ", 'external'" if external else ""
    allowed = f"a built-in level {list(levels)}{ext}, a list of levels or {{level: weight}}"
    if (external and opponent == "external") or known(opponent):
        return {opponent: 1.0}
    if isinstance(opponent, list | tuple) and opponent:
        raw: dict[Any, float] = {}
        for level in map(_as_level, opponent):
            raw[level] = raw.get(level, 0.0) + 1.0
    elif isinstance(opponent, dict) and opponent:
        raw = {}
        for level, weight in opponent.items():
            if not finite_number(weight) or weight <= 0:
                raise ConfigError(
                    f"opponent weight of {level!r} must be a number > 0, got {weight!r}"
                )
            raw[_as_level(level)] = raw.get(_as_level(level), 0.0) + float(weight)
    else:
        raise ConfigError(f"opponent must be {allowed}, got {opponent!r}")
    bad = [level for level in raw if not known(level)]
    if bad:
        raise ConfigError(f"opponent mixtures take built-in levels {list(levels)}, got {bad[0]!r}")
    total = sum(raw.values())
    return {level: weight / total for level, weight in raw.items()}


def finite_number(value: Any) -> bool:
    """A real number (not a bool) that is finite."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def refuse_unknown_keys(cls: type, values: dict[str, Any], what: str) -> None:
    """``ConfigError`` naming the keys of ``values`` that are not fields of the dataclass
    ``cls``, and the valid ones (``what``: the mapping's name in the message)."""
    errors.refuse_unknown_keys(values, [f.name for f in dataclasses.fields(cls)], what)


def _positive_seconds(value: Any) -> bool:
    """A real number (not a bool), finite and > 0."""
    return finite_number(value) and value > 0


def _parse_address(entry: Any, default_host: str = "127.0.0.1") -> tuple[str, int]:
    if isinstance(entry, int) and not isinstance(entry, bool):
        host, port = default_host, entry
    elif isinstance(entry, str) and entry.rsplit(":", 1)[-1].isdigit():
        host, _, port_text = entry.rpartition(":")
        host, port = (host or default_host), int(port_text)
    else:
        raise ConfigError(
            f"server entry {entry!r} is not a port or 'host:port' "
            "(server may be 'auto', 'host:port', or a list of those)"
        )
    if not 0 < port < 65536:
        raise ConfigError(f"server port {port} is out of range 1..65535")
    return host, port


def parse_server(server: Any) -> list[tuple[str, int]] | None:
    """None for ``"auto"``, else the list of addresses."""
    if server == "auto":
        return None
    if isinstance(server, list | tuple):
        if not server:
            raise ConfigError("server list is empty")
        return [_parse_address(e) for e in server]
    return [_parse_address(server)]
