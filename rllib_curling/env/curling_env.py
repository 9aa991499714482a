"""``CurlingEnv``: one game of digital curling against an opponent, over the platform's protocol."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rllib_curling import observation, rules, sheet
from rllib_curling.aiming import shots
from rllib_curling.aiming.tables import shot_tables
from rllib_curling.aiming.templates import TEMPLATES, Throw, template_table
from rllib_curling.bots.levels import LEVELS, MAX_LEVEL
from rllib_curling.client import CurlingClient
from rllib_curling.env import actions
from rllib_curling.env.config import SERVER_TIMEOUT_S, CurlingEnvConfig
from rllib_curling.env.opponents import OpponentMixture
from rllib_curling.env.rewards import REWARDS, game_reward, reward_docs
from rllib_curling.env.servers import EnvServer
from rllib_curling.env.spaces import (
    action_space,
    check_action,
    my_parity,
    observation_space,
    observe,
    throw_for,
)
from rllib_curling.errors import ConnectionLostError, PeerTimeoutError
from rllib_curling.observation import UNLIMITED_MAX_ENDS, observation_tables


class CurlingEnv(gym.Env):
    """Digital curling (数字冰壶) against a built-in or external opponent, one game per episode.

    ## Description

    The env is a client of a curling server speaking the course platform's TCP protocol: by
    default it starts a private server of its own (``server="auto"``) on a free loopback port, so
    every env instance that RLlib creates, in any env runner, has its own server and opponent.
    It can also play on a server you started: ours (``curling server``) or the platform's own
    ``curling_server.exe`` copies (``server="host:port"`` or a list, see ``env_config``).

    One episode is one game (``ends`` ends, default 4). One ``step`` is one of our throws; the
    opponent's throws happen on the server between our steps. The server alternates which seat
    throws first from game to game, so we sometimes lead and sometimes have the hammer; the
    observation says which.

    ## Action Space

    ``action="continuous"`` (default): ``Box(-1, 1, (3,), float32)`` (``(4,)`` with
    ``sweep=True``): weight, aim x, spin (and sweep distance), mapped to a throw by aiming with the
    engine's free-path tables:

    {continuous_table}

    Finite values outside [−1, 1] are clipped (RLlib's continuous policies may sample there).
    A list or tuple of real numbers is fine too.

    ``action="discrete"`` (for DQN): ``Discrete({n_templates})``, the shot templates of
    ``rllib_curling.aiming.templates`` (draws, guards, takeouts, taps, freezes, come-arounds,
    raises, peels, hit-and-rolls, mostly with both curls, and a throw-away):

    {template_table}

    ``action="shots"``: ``Discrete({n_shots})``, the shot set of ``rllib_curling.aiming.shots``:
    every shot level 8's search considers, in a fixed layout (draws to a {draw_step} m grid over
    the house and the guard zone with both curls; hits on each of the 16 stone slots at 4
    weights, 5 contact offsets and both curls; a throw-away). A hit at a stone not in play is
    illegal: the observation is then a ``Dict`` of ``"observations"`` (the Box below) and
    ``"action_mask"`` (``Box(0, 1, ({n_shots},))``, 1 where legal), RLlib's action-masking idiom;
    the curling modules mask their logits (``rl.shot_models``). An illegal shot, if sent
    anyway, is the throw-away. For the shot network, BC and MARWIL on a search's judgement
    (``curling dataset --action shots``), PPO, IMPALA, APPO and DQN.

    ``action="throw"``: ``Box(low=(0, −{h_max}, −{w_max}), high=({v_max}, {h_max}, {w_max}))``
    (``(4,)`` with ``sweep=True``, sweep in [0, {sweep_max}] m): the protocol's own
    ``BESTSHOT v h w``, clipped to the platform's limits; for players that aim themselves (a
    search, ``rllib evaluate --search``).

    ``step`` checks the action first (``env.spaces.check_action``) and raises a one-line
    ``InvalidActionError`` (a ``ValueError``) naming the value and the space before anything is
    sent, so the game goes on
    with the next, valid action: a Box action must have exactly the space's shape and finite
    real numbers (no bools, complex numbers or strings); a discrete action must be one integer
    in range (a Python or numpy int, or an integer array of shape ``()`` or ``(1,)``; floats,
    even ``3.0``, and bools are refused).

    ## Observation Space

    ``Box({obs_low}, {obs_high}, ({obs_size},), float32)``, from the point of view of the
    thrower (us); the layout is ``rllib_curling.observation``'s (its tables, repeated here):

    {observation_tables}

    ## Rewards

    ``env_config["reward"]``, ``"score"`` by default (``env.rewards.REWARD_DOCS``):

    {rewards}

    ## Starting State

    A new game on the server: the empty sheet if we throw first in end 1, or after the
    opponent's first stone.

    ## Episode End

    Terminated when the server sends ``GAMEOVER`` (after the last end). With ``ends=-1``
    (unlimited) the episode is truncated after ``UNLIMITED_MAX_ENDS`` (8) ends. If the connection
    drops or the server dies, ``step`` raises ``ConnectionLostError``; the next ``reset``
    reconnects (and restarts a private server). A private server that stays silent for
    ``server_timeout`` seconds (hung, e.g. stopped) is killed and ``step``/``reset`` raise
    ``ConnectionLostError`` saying so; the next ``reset`` starts a new one. Where someone may be
    thinking (``opponent="external"``, or a server from the config) the wait is ``turn_timeout``
    plus a margin instead, and a server from the config is never killed.

    ## Arguments

    ``gymnasium.make("rllib_curling:Curling-v0", **env_config)``, ``CurlingEnv(env_config)`` or,
    in RLlib, ``config.environment("curling", env_config={...})``. Keys (``CurlingEnvConfig``):
    ``server`` ("auto" | "host:port" | list), ``opponent`` ({levels} or "external", default 2; or
    a mixture: a list of levels or ``{level: weight}``, drawn per pair of games), ``curriculum``
    (None, or a mapping: the RLlib callback moves the opponent up a ladder of levels,
    ``env.config.CurriculumConfig``),
    ``ends`` (4), ``key`` ("localtest"), ``seed``, ``action`` ("continuous" | "discrete" | "shots"
    | "throw"),
    ``reward`` ({reward_names}), ``score_weight`` (0.1, for
    "win_score"), ``sweep`` (False), ``turn_timeout`` ({turn_timeout} s),
    ``server_timeout`` ({server_timeout} s: a silent private server is hung after that), ``name``,
    ``envs_per_worker``, ``host``, ``log_dir``, ``shaping_scale``, ``http_port`` (None: a
    private server serves no web page; 0 or a port: it shows its games there, ``watch_url``).
    ``render_mode``: "ansi" (text table) or "rgb_array" (matplotlib image).

    ## Version History

    - v0: first release; bad actions raise ``ValueError`` before anything is sent, and a hung
      private server is killed after ``server_timeout``.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        config: dict[str, Any] | None = None,
        render_mode: str | None = None,
        *,
        env_server: EnvServer | None = None,
        **kwargs: Any,
    ) -> None:
        """``config`` and keyword arguments: the keys of ``CurlingEnvConfig``. ``env_server``:
        where to play, when someone else manages it (``CurlingVectorEnv`` gives each sub-env a
        room of its shared server); default: this env's own."""
        values = {**dict(config or {}), **kwargs}
        self.worker_index = int(getattr(config, "worker_index", 0) or 0)
        self.config = CurlingEnvConfig.from_dict(values)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.observation_space = observation_space(self.config.action)
        self.action_space = action_space(self.config)
        self._tables = shot_tables()
        self._server = env_server or EnvServer(self.config, self.worker_index)
        self._client: CurlingClient | None = None
        self._in_game = False
        self._scores_seen = 0
        self._scored: int | None = None  # points of the end the last step finished
        self._potential = 0.0
        self._connections = 0
        self._generation = 0
        self._throw: Throw | None = None  # sent by send_action, awaiting finish_step
        self._opponents = OpponentMixture(self.config.opponents, self.config.seed)

    @classmethod
    def from_env_context(cls, env_context: Any) -> CurlingEnv:
        """RLlib's env creator: an ``EnvContext`` (a dict with ``worker_index``)."""
        return cls(env_context)

    # -- connection management -------------------------------------------------------------

    @property
    def address(self) -> str | None:
        """``"host:port"`` of the server this env plays on (None before the first reset)."""
        return self._server.label

    @property
    def client(self) -> CurlingClient | None:
        """The connection of the current game (None before the first reset): its ``position``,
        ``state`` and ``totals`` are the game as this env sees it (for players that search)."""
        return self._client

    @property
    def watch_url(self) -> str | None:
        """The web page of this env's private server (``http_port``), once it runs, else None."""
        return self._server.web_url

    def _connect(self) -> CurlingClient:
        key = self.config.connect_key(self._opponents.current)
        timeout = self.config.reply_timeout()
        client = self._server.connect_client(key=key, name=self.config.name, timeout=timeout)
        if self._server.generation != self._generation:  # a new private server: count afresh
            self._generation, self._connections = self._server.generation, 0
        self._connections += 1
        return client

    @property
    def opponent(self) -> int | str:
        """The opponent of the current (or next) game: a level or ``"external"``."""
        return self._opponents.current

    @property
    def opponents(self) -> dict[int | str, float]:
        """The opponents drawn from and their weights (``env.config.opponent_weights``)."""
        return dict(self._opponents.weights)

    def set_opponents(self, opponent: Any) -> None:
        """Draw opponents from ``opponent`` (anything the ``opponent`` key takes) from the next
        pair of games on; the curriculum callback calls this. ``ConfigError`` (a ``ValueError``)
        for a bad one, or for a switch between built-in and external opponents."""
        self._opponents.set_weights(opponent)

    def _next_opponent(self) -> None:
        """At the start of a pair of games, draw the opponent; a different one means a new
        connection (with its key), the same one keeps the session (the hammer alternates)."""
        if self._client is not None and self._opponents.in_pair():
            return  # the second game of a pair
        opponent = self._opponents.draw()
        if opponent != self._opponents.current or self._client is None:
            self._drop_connection()
            self._opponents.sit(opponent)

    def seed_opponents(self, seed: int | None) -> None:
        """Seed the draws of the opponent mixture (``reset(seed=...)`` does it too)."""
        self._opponents.seed(seed)

    def disconnect(self) -> None:
        """Leave the game in progress (the server ends it); the next ``reset`` reconnects."""
        self._drop_connection()

    def _drop_connection(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        self._in_game = False
        self._throw = None
        self._opponents.connection_closed()

    # -- Gymnasium API -----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self.seed_opponents(seed)
        if seed is not None and self.config.server == "auto":
            # A fresh private server with this seed: same seed and actions, same game.
            self._drop_connection()
            self._server.reseed(seed)
        if self._in_game or (self._client is not None and self._client.closed):
            self._drop_connection()  # abandon a game in progress: the server ends it
        self._next_opponent()
        for attempt in range(2):
            try:
                if self._client is None:
                    self._client = self._connect()
                event = self._client.wait_turn()
                if event == "go":
                    break
                # A game over or closed session between episodes: start afresh.
                self._drop_connection()
            except PeerTimeoutError as exc:  # silent: a second try would wait as long again
                self._drop_connection()
                raise self._server.lost(exc, "reset()") from exc
            except ConnectionLostError as exc:
                self._drop_connection()
                if attempt == 1:
                    raise self._server.lost(exc, "reset()") from exc
        else:
            raise ConnectionLostError(f"no game could be started on {self.address}")
        self._in_game = True
        self._opponents.game_started()
        self._scored = None
        self._scores_seen = len(self._client.end_scores)
        self._potential = self._house_potential()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self.send_action(action)
        return self.finish_step()

    def send_action(self, action: Any) -> None:
        """The first half of ``step``: check ``action`` and send its throw, without waiting.
        ``CurlingVectorEnv`` sends every sub-env's action before it waits for any reply."""
        client = self._client
        if client is None or not self._in_game:
            raise RuntimeError("step() called before reset() (or after the episode ended)")
        throw = self._throw_for(check_action(action, self.action_space))
        try:
            client.throw(*throw[:3], sweep=throw[3] if self.config.sweep else None)
        except ConnectionLostError as exc:
            self._drop_connection()
            raise self._server.lost(exc, "step()") from exc
        self._throw = throw

    def finish_step(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The second half of ``step``: wait for our next turn (or the game's end)."""
        client = self._client
        throw = self._throw
        if client is None or throw is None:
            raise RuntimeError("finish_step() called without send_action()")
        self._throw = None
        try:
            event = client.wait_turn()
        except ConnectionLostError as exc:
            self._drop_connection()
            raise self._server.lost(exc, "step()") from exc
        terminated = event == "gameover"
        if event == "closed":
            self._drop_connection()
            raise ConnectionLostError(
                f"the curling server at {self.address} ended the session during a game; "
                "the next reset() reconnects"
            )
        new_scores = client.end_scores[self._scores_seen :]
        self._scores_seen = len(client.end_scores)
        self._scored = new_scores[-1] if new_scores else None
        reward = self._reward(new_scores, terminated)
        truncated = (
            not terminated
            and self.config.ends == -1
            and (client.state is not None and client.state[1] >= UNLIMITED_MAX_ENDS)
        )
        if terminated or truncated:
            self._in_game = False
        info = self._info()
        info["throw"] = throw
        return self._observation(), reward, terminated, truncated, info

    def close(self) -> None:
        self._drop_connection()
        self._server.close()
        super().close()

    # -- encoding ------------------------------------------------------------------------------

    def _my_parity(self) -> int:
        assert self._client is not None
        return my_parity(self._client)

    def _throw_for(self, action: Any) -> Throw:
        assert self._client is not None
        return throw_for(action, self._client, self.config.action, self._tables)

    def _observation(self) -> Any:
        assert self._client is not None
        return observe(self._client, self.config.action)

    def _house_potential(self) -> float:
        client = self._client
        assert client is not None and client.state is not None
        if client.state[0] >= observation.N_STONES:
            return 0.0
        return float(rules.score_for(client.position, self._my_parity()))

    def _reward(self, new_scores: list[int], terminated: bool) -> float:
        client = self._client
        assert client is not None
        config = self.config
        reward = game_reward(
            config.reward, new_scores, client.result, terminated, config.score_weight
        )
        if config.reward == "shaped":
            potential = 0.0 if terminated else self._house_potential()
            reward += self.config.shaping_scale * (potential - self._potential)
            self._potential = potential
        return reward

    def _info(self) -> dict[str, Any]:
        client = self._client
        assert client is not None
        mine, theirs = client.totals
        return {
            "position": client.position.ravel().tolist(),
            "setstate": list(client.state) if client.state else None,
            "seat": client.seat,
            "score": (mine, theirs),
            "end_scores": list(client.end_scores),
            "result": client.result,
            "opponent": self._opponents.current,
            "server": self.address,
            "game_id": f"{self.address}/{self._connections}/{client.games_started}",
        }

    # -- rendering -----------------------------------------------------------------------------

    def render(self) -> Any:
        """The sheet now; right after a step that finished an end, that end as it was scored."""
        if self.render_mode is None or self._client is None:
            return None
        from rllib_curling.env import render

        client = self._client
        if self._scored is not None and client.last_end is not None:
            position, state = client.last_end
            points = self._scored
            who = "us" if points > 0 else "them" if points < 0 else "nobody (blank end)"
            end = state[1] + 1 if state else "?"
            caption = f"end {end} scored: {abs(points)} for {who}"
            parity = my_parity(client, state) if state else 0
            state = (16, *state[1:]) if state else None  # every stone of that end thrown
        else:
            position, state, caption = client.position, client.state, ""
            parity = self._my_parity() if client.state else 0
        view = render.View(position, parity, state, client.totals, caption)
        return render.ansi(view) if self.render_mode == "ansi" else render.rgb_array(view)


def _continuous_table(text: dict[str, str]) -> str:
    """The continuous action table of the docstring, its numbers from ``env.actions``."""
    rows = [
        ("index", "meaning", "map"),
        ("0", "weight", f"−1 … {text['split']}: a draw stopping at y = {text['y_long']} … "
                        f"{text['y_back']} (long guard … back"),
        ("", "", f"of the house); {text['split']} … 1: hit weight, up to {text['v_max']} m/s"),
        ("1", "aim x", f"x = {text['centre_x']} + {text['aim_x']}·a where the path crosses the "
                       "stopping line (draws)"),
        ("", "", "or the tee line (hits)"),
        ("2", "spin", "w = π·a rad/s, positive curls toward +x"),
        ("3", "sweep", f"(sweep=True only) sweep (a + 1)/2 · {text['sweep_max']} m after "
                       "mid-sheet"),
    ]  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
        for row in rows
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _documented_facts() -> dict[str, str]:
    """The numbers of ``CurlingEnv``'s docstring, from where they are defined."""
    facts = {
        "split": actions.WEIGHT_SPLIT, "y_long": actions.DRAW_Y_LONG,
        "y_back": actions.DRAW_Y_BACK, "aim_x": actions.AIM_X_RANGE, "centre_x": sheet.CENTRE_X,
        "v_max": sheet.V_MAX, "h_max": sheet.H_MAX, "w_max": sheet.W_MAX,
        "sweep_max": sheet.SWEEP_MAX, "server_timeout": SERVER_TIMEOUT_S,
        "turn_timeout": CurlingEnvConfig.turn_timeout,
    }  # fmt: skip
    text = {key: f"{value:g}" for key, value in facts.items()}
    text["levels"] = f"{LEVELS[0]}–{MAX_LEVEL}"
    text["n_templates"] = str(len(TEMPLATES))
    text["n_shots"] = str(shots.N_SHOTS)
    text["draw_step"] = f"{shots.DRAW_STEP:g}"
    text["reward_names"] = " | ".join(f'"{name}"' for name in REWARDS)
    text["rewards"] = reward_docs()
    text["continuous_table"] = _continuous_table(text)
    text["obs_size"] = str(observation.OBS_SIZE)
    text["obs_low"], text["obs_high"] = f"{observation.OBS_LOW:g}", f"{observation.OBS_HIGH:g}"
    text["observation_tables"] = observation_tables()
    return text


if CurlingEnv.__doc__:  # the numbers and the discrete action table come from their sources
    _doc = CurlingEnv.__doc__
    _tables = {"template_table": template_table(), **_documented_facts()}
    for _key, _value in _tables.items():  # the tables are indented as the docstring is
        _doc = _doc.replace("{" + _key + "}", _value.replace("\n", "\n    "))
    CurlingEnv.__doc__ = _doc
