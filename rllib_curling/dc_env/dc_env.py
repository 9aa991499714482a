"""``DCCurlingEnv``: one Digital Curling game on the fcv1 ice against a built-in DC bot, in
process (no server)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rllib_curling.dc_aiming import dc_shot_tables
from rllib_curling.dc_bots.base import DCBot
from rllib_curling.dc_bots.levels import make_dc_bot
from rllib_curling.dc_env.config import DCEnvConfig
from rllib_curling.dc_env.spaces import action_space, dc_layout, observation_space, observe, release
from rllib_curling.dc_game import DCGame, DCGameState
from rllib_curling.dc_ice import Fcv1Simulator
from rllib_curling.env.rewards import game_reward
from rllib_curling.env.spaces import check_action
from rllib_curling.game import result_for


class DCCurlingEnv(gym.Env):
    """Digital Curling (UEC's DC3/DC4 rules, the fcv1 ice) against a built-in DC bot.

    ## Description

    Plays ``DCGame`` in process: the agent's stones and the bot's are thrown on the fcv1 ice
    (``dc_ice.Fcv1Simulator``) with DC's execution noise, seeded. One episode is one game
    (``ends`` standard ends, extra ends while tied); one ``step`` is one of the agent's stones,
    the bot's stones are thrown between steps. Games alternate the agent's team: team 0 (no
    hammer in end 0) in even games, team 1 in odd ones; a mixture of opponents is drawn per
    pair of games, so each is met with and without the hammer.

    ## Action Space

    ``action="shots"`` (default): ``Discrete(n)`` over ``dc_env.spaces.dc_layout()`` (a
    ``dc_bots.candidates.DCShotLayout`` of ``DC_SHOTS_SPEC``, the layout the search bots use):
    draws to a 0.225 m grid over the house and a 0.25 m one over the guard zone, both rotations;
    hits on each of the 16 stone rows at 3 weights × 3 offsets × both rotations; a throw-away.
    A hit on a stone not in play is illegal: the observation is then a ``Dict`` of
    ``"observations"`` (the Box below) and ``"action_mask"`` (1 where legal), RLlib's
    action-masking idiom; an illegal shot, if sent anyway, is the throw-away (as on the
    platform's env, so a sampler that ignores the mask still plays).
    ``layout.describe(a)`` names shot ``a``.

    ``action="throw"``: ``Box((0.5, −0.1, −1), (4.0, 0.1, 1))``: DC's release speed (m/s),
    bearing (rad from +y toward +x) and rotation (≥ 0: ccw, < 0: cw); clipped to the Box.

    ``step`` checks the action first (``env.spaces.check_action``) and raises a one-line
    ``InvalidActionError`` before anything is thrown, so the game goes on with a valid one.

    ## Observation Space

    ``Box(-4, 4, (137,), float32)`` in DC's shot frame from the thrower's side: 16 stone rows of
    8 features (x, y, distance to the tee, in play, in house, mine, thrown, counting) then 9
    context features (shot, end, extra end, ends left, score difference, hammer, my / their
    stones left, the end's score if it ended now). Full table in ``rllib_curling.dc_env.spaces``;
    mirroring the position about the centre line negates only the x columns
    (``mirror_observation``).

    ## Rewards

    ``reward`` (``env.rewards``, ice-independent): ``"win_score"`` (default): +1 / −1 / 0 for a
    win / loss / draw on the last step, plus ``score_weight`` (0.1) × each end's points (our
    side) on the step it finished; ``"win"``, ``"score"`` and ``"ends"`` as in ``CurlingEnv``.

    ## Starting State

    An empty sheet in end 0: the agent's first stone, or after the bot's first stone.

    ## Episode End

    Terminated when the game is decided (``DCGameState.is_terminal``). Truncated when still tied
    after ``max_extra_ends`` extra ends (4).

    ## Arguments

    ``gymnasium.make("rllib_curling:CurlingDC-v0", **env_config)``, ``DCCurlingEnv(env_config)``
    or, in RLlib, ``config.environment("curling_dc", env_config={...})``. Keys
    (``DCEnvConfig``): ``opponent`` (a DC level 0–8, a list or ``{level: weight}``; 3),
    ``ends`` (10), ``rule`` ("fgz"), ``max_extra_ends`` (4), ``action`` ("shots" | "throw"),
    ``reward`` ("win_score"), ``score_weight`` (0.1), ``noise`` (True), ``seed`` (None).

    ``info``: ``opponent`` (its level), ``team`` (ours), ``end``, ``shot``, and at the end
    ``result`` ("WIN" | "LOSE" | "DRAW", None when truncated) and ``score`` (ours, theirs).

    ## Version History

    - v0: first release.
    """

    metadata = {"render_modes": []}

    def __init__(self, config: Any = None, **kwargs: Any) -> None:
        """``config`` and keyword arguments: the keys of ``DCEnvConfig``."""
        self.config = DCEnvConfig.from_dict({**dict(config or {}), **kwargs})
        self.observation_space = observation_space(self.config.action)
        self.action_space = action_space(self.config)
        self.layout = dc_layout() if self.config.action == "shots" else None
        self._tables = dc_shot_tables()
        levels = self.config.opponents
        self._levels = list(levels)
        self._level_p = np.asarray([levels[k] for k in self._levels])
        self._bots: dict[int, DCBot] = {}
        self._rng = np.random.default_rng(self.config.seed)
        self._games = 0
        self._level = self._levels[0]
        self._state: DCGameState | None = None
        self._team = 0
        self._simulate: Fcv1Simulator | None = None
        self._bot_rng = np.random.default_rng(0)

    @classmethod
    def from_env_context(cls, env_context: Any) -> DCCurlingEnv:
        """RLlib's env creator: an ``EnvContext`` (a dict)."""
        return cls(dict(env_context))

    @property
    def state(self) -> DCGameState:
        """The game as it stands (after ``reset``)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    @property
    def opponent(self) -> int:
        """The DC level of the current game's bot."""
        return self._level

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """A new game: the agent's team alternates game by game, a mixture's level is drawn
        for each pair of games. ``seed`` reseeds everything (opponents, bots, noise)."""
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._games = 0
        if self._games % 2 == 0:
            self._level = self._levels[int(self._rng.choice(len(self._levels), p=self._level_p))]
        self._team = self._games % 2
        self._games += 1
        noise_rng, self._bot_rng = self._rng.spawn(2)
        self._simulate = Fcv1Simulator(noise_rng if self.config.noise else None)
        self._state = DCGame.init(self.config.game_config)
        _, truncated = self._play_bot()
        assert not truncated  # the first stones cannot end a game
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Throw the agent's stone, then the bot's until the agent's next turn or the end."""
        state = self.state
        if state.is_terminal or self._simulate is None:
            raise RuntimeError("the game is over: call reset()")
        checked = check_action(action, self.action_space)
        if self.layout is not None:  # a masked shot, sent anyway, is the throw-away
            shot = tuple(self.layout.throw(int(checked), self._tables, state.position).tolist())
        else:
            shot = release(np.asarray(checked))
        transition = DCGame.step(state, shot, self._simulate)
        self._state = transition.state
        points = [] if transition.end_score is None else [self._signed(transition.end_score)]
        more, truncated = self._play_bot()
        points += more
        terminated = self.state.is_terminal
        reward = game_reward(
            self.config.reward, points, self._result(), terminated, self.config.score_weight
        )
        return self._observe(), reward, terminated, truncated, self._info()

    # -- helpers --------------------------------------------------------------------------

    def _bot(self) -> DCBot:
        if self._level not in self._bots:
            self._bots[self._level] = make_dc_bot(self._level)
        return self._bots[self._level]

    def _play_bot(self) -> tuple[list[int], bool]:
        """Throw the bot's stones until the agent is to throw or the game is over; returns the
        agent's signed points of the ends finished meanwhile and whether to truncate."""
        assert self._simulate is not None
        points: list[int] = []
        truncated = self._too_long()
        while not self.state.is_terminal and not truncated and self.state.next_team != self._team:
            shot = self._bot().choose(self.state, self._bot_rng)
            transition = DCGame.step(self.state, shot, self._simulate)
            self._state = transition.state
            if transition.end_score is not None:
                points.append(self._signed(transition.end_score))
            truncated = self._too_long()
        return points, truncated

    def _too_long(self) -> bool:
        """Still tied after ``max_extra_ends`` extra ends (and not over): truncate."""
        state = self.state
        limit = state.config.standard_end_count + self.config.max_extra_ends
        return not state.is_terminal and state.end >= limit

    def _signed(self, score: tuple[int, int]) -> int:
        return score[self._team] - score[1 - self._team]

    def _result(self) -> str | None:
        state = self.state
        if not state.is_terminal:
            return None
        return result_for(self._team, state.winner).value

    def _observe(self) -> Any:
        return observe(self.state, self._team, self.config.action)

    def _info(self) -> dict[str, Any]:
        state = self.state
        totals = state.totals
        info: dict[str, Any] = {
            "opponent": self._level, "team": self._team, "end": state.end, "shot": state.shot,
        }  # fmt: skip
        if state.is_terminal or self._too_long():
            info["result"] = self._result()
            info["score"] = (totals[self._team], totals[1 - self._team])
        return info
