"""A trained policy, loaded to play: ``load_policy(checkpoint) -> LoadedPolicy``.

``load_policy`` takes anything ``rl.checkpoints.find_checkpoint`` takes (a checkpoint, a trial or
experiment directory, an agent folder, ``builtin``), finds the module's directory once, and loads
the RLModule without building the algorithm. The ``LoadedPolicy`` it returns plays
deterministically and answers what the agent's search and its explanations ask:

| member                       | what                                                           |
|------------------------------|----------------------------------------------------------------|
| ``policy(obs)``              | the action: argmax for Discrete (DQN: the greedy action), the  |
|                              | Gaussian's mean for Box, mapped to the Box's bounds            |
| ``propose(obs, k, rng)``     | up to ``k`` distinct actions, most likely first                |
| ``likely(obs, k)``           | the ``k`` most likely actions and their probabilities          |
| ``scores(obs)``              | the action scores of one observation (logits, Gaussian inputs, |
|                              | Q-values)                                                      |
| ``values(obs)``              | the value head's estimates of a batch (``has_values``)         |
| ``end_scores(obs)``          | the end-score head's probabilities of the end's score, −8 … +8 |
|                              | (``win_odds.END_SCORES``), of a batch (``has_end_scores``)     |
| ``mode``, ``sweep``          | the action mode (``env.spaces.action_mode``) of its space      |
| ``search_defaults``          | how its search plays by default (``SearchDefaults``; an agent  |
|                              | folder's ``agent.json`` says, a plain checkpoint does not)     |
| ``ice``                      | ``"platform"`` or ``"fcv1"`` (Digital Curling's): the game its |
|                              | spaces are of (``rl.checkpoints.ICES``)                        |

``obs`` is the env's observation: a flat ``(OBS_SIZE,)`` array, or for ``action="shots"`` the
env's dict of ``"observations"`` and ``"action_mask"`` (a flat one counts every shot as legal);
a leading batch axis gives a batch of actions.

Importing this module imports neither Ray nor torch (``load_policy`` and the methods import them
when they run), so ``curling server --agent`` and the commands stay light until they load.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from rllib_curling.errors import ConfigError
from rllib_curling.names import DEFAULT_MODULE_ID

if TYPE_CHECKING:
    import gymnasium as gym
    from _typeshed import DataclassInstance


#: The fields of a search's spec (``bots.candidates.SearchSpec``, ``dc_bots.candidates
#: .DCSearchSpec``) an agent folder may set: how hard its search looks.
EFFORT_FIELDS = ("top_k", "samples", "reply", "reply_top", "reply_samples")

SpecT = TypeVar("SpecT", bound="DataclassInstance")


@dataclass(frozen=True)
class SearchEffort:
    """How hard an agent's search looks, where it differs from its search's own spec (the
    platform agent's ``agent.search.AGENT_SPEC``, DC level 8's): None keeps the spec's.

    | field             | what                                                            |
    |-------------------|-----------------------------------------------------------------|
    | ``top_k``         | candidates thrown again under noise                             |
    | ``samples``       | noisy throws of each (``--samples`` overrides it)               |
    | ``reply``         | best candidates judged by the opponent's best answer            |
    | ``reply_top``     | the opponent's best answers thrown again under noise (0: none)  |
    | ``reply_samples`` | noisy throws of each                                            |
    """

    top_k: int | None = None
    samples: int | None = None
    reply: int | None = None
    reply_top: int | None = None
    reply_samples: int | None = None

    def __post_init__(self) -> None:
        for name, value in self.as_dict().items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"search effort: {name} must be a whole number >= 0, got "
                                  f"{value!r}")  # fmt: skip

    @classmethod
    def of(cls, found: Mapping[str, Any] | None) -> SearchEffort:
        """The effort an ``agent.json`` gives (its ``"search"``'s ``"effort"``); unknown keys
        are refused with the list of valid ones."""
        unknown = sorted(set(found or {}) - set(EFFORT_FIELDS))
        if unknown:
            raise ConfigError(
                f"agent search effort: unknown {unknown}; valid keys: {list(EFFORT_FIELDS)}"
            )
        return cls(**dict(found or {}))

    def applied(self, spec: SpecT) -> SpecT:
        """``spec`` (a search spec dataclass) with the fields this effort sets."""
        return dataclasses.replace(spec, **self.as_dict())

    def as_dict(self) -> dict[str, int]:
        """The fields set, as ``agent.json`` holds them."""
        found = {name: getattr(self, name) for name in EFFORT_FIELDS}
        return {name: value for name, value in found.items() if value is not None}


@dataclass(frozen=True)
class SearchDefaults:
    """How an agent's search plays unless told otherwise: the ``"search"`` of an agent folder's
    ``agent.json`` (``rl.checkpoints.export_agent`` writes ``as_dict()``).

    | field            | what                                                             |
    |------------------|------------------------------------------------------------------|
    | ``k``            | the policy's top ``k`` actions searched; 0: no search            |
    | ``value_weight`` | weight of the network's learned value in the search's judgement, |
    |                  | in [0, 1]                                                        |
    | ``effort``       | how hard it looks (``SearchEffort``; absent: its search's own)   |

    A DC agent (``agent.dc_player``) searches DC level 8's candidates, not its policy's: it
    plays its search when ``value_weight`` is above 0, and ``k`` plays no part.
    """

    k: int = 0
    value_weight: float = 0.0
    effort: SearchEffort = field(default_factory=SearchEffort)
    end_score_share: float = 0.0

    def __post_init__(self) -> None:
        if self.k < 0:
            raise ConfigError(f"search defaults: k must be at least 0, got {self.k}")
        for name in ("value_weight", "end_score_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"search defaults: {name} must be in [0, 1], got "
                                  f"{getattr(self, name)}")  # fmt: skip

    @classmethod
    def of(cls, info: Mapping[str, Any] | None) -> SearchDefaults | None:
        """The defaults in an agent's info (``rl.checkpoints.agent_info``), or None when it
        holds none (a plain RLlib checkpoint, an agent folder without them). Unknown keys are
        refused with the list of valid ones."""
        found = (info or {}).get("search") or {}
        valid = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(found) - set(valid))
        if unknown:
            raise ConfigError(f"agent search settings: unknown {unknown}; valid keys: {valid}")
        if not found:
            return None
        return cls(
            k=int(found.get("k", 0)), value_weight=float(found.get("value_weight", 0.0)),
            effort=SearchEffort.of(found.get("effort")),
            end_score_share=float(found.get("end_score_share", 0.0)),
        )  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        """The defaults as ``agent.json`` holds them (``effort`` only when it sets a field,
        ``end_score_share`` only when above 0)."""
        found: dict[str, Any] = {"k": self.k, "value_weight": self.value_weight}
        if self.effort.as_dict():
            found["effort"] = self.effort.as_dict()
        if self.end_score_share > 0:
            found["end_score_share"] = self.end_score_share
        return found


@dataclass(frozen=True, eq=False)
class LoadedPolicy:
    """A checkpoint's RLModule as a deterministic policy (see the module docstring): ``path`` is
    the module's directory (``rl.checkpoints.module_checkpoint_dir``), ``module`` the RLModule
    (in eval mode), ``agent_info`` the agent folder's ``agent.json`` (None for an RLlib
    checkpoint), ``normalize_actions``: Box actions are mapped from [-1, 1] to the Box's bounds
    as RLlib does (else only clipped)."""

    path: Path
    module: Any = field(repr=False)
    agent_info: dict[str, Any] | None = field(default=None, repr=False)
    normalize_actions: bool = True

    def __post_init__(self) -> None:
        SearchDefaults.of(self.agent_info)  # bad search settings fail at load, in one line

    @property
    def action_space(self) -> gym.Space[Any]:
        space: gym.Space[Any] = self.module.action_space
        return space

    @property
    def mode(self) -> str:
        """``"continuous"``, ``"discrete"``, ``"shots"`` or ``"throw"``: the env's ``action``."""
        return self._mode[0]

    @property
    def sweep(self) -> bool:
        """Whether its actions say how far to sweep."""
        return self._mode[1]

    @cached_property
    def _mode(self) -> tuple[str, bool]:
        from rllib_curling.env.spaces import action_mode

        return action_mode(self.action_space)

    @cached_property
    def masked(self) -> bool:
        """Whether the module reads an action mask beside the observation (``action="shots"``)."""
        import gymnasium as gym

        return isinstance(self.module.observation_space, gym.spaces.Dict)

    @cached_property
    def ice(self) -> str:
        """The ice it plays on (``rl.checkpoints.ICES``): its ``agent.json``'s, else its spaces'."""
        from rllib_curling.rl.checkpoints import agent_ice, module_ice

        return agent_ice(self.agent_info) if self.agent_info else module_ice(self.module)

    @property
    def search_defaults(self) -> SearchDefaults:
        """How its search plays by default: the agent folder's, else no search."""
        return SearchDefaults.of(self.agent_info) or SearchDefaults()

    @property
    def has_values(self) -> bool:
        """Whether the module has a value head (PPO, IMPALA, APPO, BC, MARWIL; not DQN)."""
        return hasattr(self.module, "compute_values")

    @property
    def has_end_scores(self) -> bool:
        """Whether the module has an end-score head (``rl.dc_models.EndScoreAPI``)."""
        return bool(getattr(self.module, "has_end_scores", False))

    @cached_property
    def _discrete(self) -> bool:
        import gymnasium as gym

        return isinstance(self.action_space, gym.spaces.Discrete)

    @cached_property
    def _actions(self) -> int:
        """How many actions a Discrete space has (0 for a Box)."""
        import gymnasium as gym

        space = self.action_space
        return int(space.n) if isinstance(space, gym.spaces.Discrete) else 0

    def __call__(self, obs: Any) -> Any:
        """The action for one observation (an ``int`` for Discrete, else an array), or the
        actions (an array) for a batch."""
        import torch
        from ray.rllib.core.columns import Columns

        batch, single = self._batch(obs)
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: batch})
            if Columns.ACTIONS in out:
                actions = out[Columns.ACTIONS]
            else:
                dist = self.module.get_inference_action_dist_cls().from_logits(
                    out[Columns.ACTION_DIST_INPUTS]
                )
                actions = dist.to_deterministic().sample()
        found = self._to_space(actions.cpu().numpy())
        if not single:
            return found
        return int(found[0]) if self._discrete else found[0]

    def scores(self, obs: Any) -> np.ndarray:
        """One forward pass: the action scores (logits, Gaussian inputs or DQN's Q-values) of
        one observation, as float64."""
        import torch
        from ray.rllib.core.columns import Columns

        batch, _ = self._batch(obs)
        with torch.no_grad():
            if hasattr(self.module, "compute_q_values"):  # DQN: rank by Q-value
                out = self.module.compute_q_values({Columns.OBS: batch})
            else:
                out = self.module.forward_inference({Columns.OBS: batch})
        found = out.get(Columns.ACTION_DIST_INPUTS, out.get("qf_preds"))
        if found is None:
            raise ValueError("this module gives no action scores to rank (no logits or Q-values)")
        return np.asarray(found[0].cpu().numpy(), dtype=np.float64)

    def propose(self, obs: Any, k: int, rng: np.random.Generator) -> list[Any]:
        """Up to ``k`` distinct candidate actions for one observation, most likely first:
        Discrete: the ``k`` highest logits (or Q-values); Box: the Gaussian's mean, then
        ``k - 1`` draws from it (``rng``), mapped like the policy's actions."""
        return self._ranked(self.scores(obs), k, rng)

    def likely(self, obs: Any, k: int) -> tuple[list[Any], list[float] | None]:
        """The ``k`` most likely actions for one observation and their probabilities (Discrete
        policies: the softmax of the logits; None for Q-values and Box policies, which give
        their mean first). One forward pass serves both."""
        found = self.scores(obs)
        actions = self._ranked(found, k, np.random.default_rng(0))
        if not self._discrete or hasattr(self.module, "compute_q_values"):
            return actions, None
        import torch

        probabilities = torch.softmax(torch.from_numpy(found), dim=0).cpu().numpy()
        return actions, [float(probabilities[a]) for a in actions]

    def values(self, obs: np.ndarray) -> np.ndarray:
        """(B,) the value head's estimates for a batch of flat observations (B, OBS_SIZE).
        ``ValueError`` without a value head (``has_values``)."""
        import torch
        from ray.rllib.core.columns import Columns

        if not self.has_values:
            raise ValueError(f"{type(self.module).__name__} has no value head (DQN's modules)")
        batch, _ = self._batch(np.asarray(obs, dtype=np.float32))
        with torch.no_grad():
            found = self.module.compute_values({Columns.OBS: batch})
        return np.asarray(found.cpu().numpy())

    def end_scores(self, obs: np.ndarray) -> np.ndarray:
        """(B, N_SCORES) the end-score head's probabilities of ``win_odds.END_SCORES`` (the end's
        score for the team to throw) for a batch of flat observations (B, OBS_SIZE).
        ``ValueError`` without the head (``has_end_scores``)."""
        import torch
        from ray.rllib.core.columns import Columns

        if not self.has_end_scores:
            raise ValueError(f"{type(self.module).__name__} has no end-score head")
        batch, _ = self._batch(np.asarray(obs, dtype=np.float32))
        with torch.no_grad():
            logits = self.module.compute_end_scores({Columns.OBS: batch})
        return np.asarray(torch.softmax(logits, dim=-1).cpu().numpy(), dtype=np.float64)

    def _ranked(self, scores: np.ndarray, k: int, rng: np.random.Generator) -> list[Any]:
        """``propose`` from the ``scores`` of one observation."""
        if self._discrete:
            order = np.argsort(-scores, kind="stable")[: max(1, k)]
            return [int(i) for i in order]
        mean, log_std = np.split(scores, 2)
        draws = mean + np.exp(log_std) * rng.standard_normal((max(1, k) - 1, len(mean)))
        return list(self._to_space(np.concatenate([mean[None], draws]).astype(np.float32)))

    def _to_space(self, actions: np.ndarray) -> np.ndarray:
        """A batch of the module's actions as actions of its space: Box actions mapped from
        [-1, 1] (``normalize_actions``) and clipped, others cast."""
        import gymnasium as gym
        from ray.rllib.utils.spaces.space_utils import unsquash_action

        space = self.action_space
        if not isinstance(space, gym.spaces.Box):
            return np.asarray(actions.astype(space.dtype))
        if self.normalize_actions:
            actions = unsquash_action(actions, space)  # type: ignore[no-untyped-call]  # RLlib's
        return np.asarray(np.clip(actions, space.low, space.high).astype(space.dtype))

    def _batch(self, obs: Any) -> tuple[Any, bool]:
        """``obs`` (one observation or a batch; a flat array, or for ``action="shots"`` the
        env's dict) as the module's input batch, and whether it was one observation. A flat
        observation given to a masked module counts every action as legal."""
        import torch

        if isinstance(obs, dict):
            flat = np.asarray(obs["observations"], dtype=np.float32)
            mask = np.asarray(obs["action_mask"], dtype=np.float32)
        else:
            flat = np.asarray(obs, dtype=np.float32)
            mask = None
        single = flat.ndim == 1
        if single:
            flat = flat[None]
            mask = None if mask is None else mask[None]
        if not self.masked:
            return torch.from_numpy(flat), single
        if mask is None:
            mask = np.ones((len(flat), self._actions), np.float32)
        return {
            "observations": torch.from_numpy(flat),
            "action_mask": torch.from_numpy(mask),
        }, single


#: What ``load_policy``'s ``ice`` refusal calls each ice.
ICE_NAMES = {"platform": "the platform's ice", "fcv1": "Digital Curling's ice (fcv1)"}


def load_policy(
    checkpoint: Any, module_id: str = DEFAULT_MODULE_ID, *, normalize_actions: bool = True,
    ice: str | None = "platform",
) -> LoadedPolicy:  # fmt: skip
    """The policy of ``checkpoint`` (anything ``rl.checkpoints.find_checkpoint`` takes; module
    ``module_id``), loaded without building the algorithm. ``FileNotFoundError`` /
    ``ValueError`` say what was found instead; ``ConfigError`` (a ``ValueError``) when it plays
    on another ice than ``ice`` (``"platform"``, ``"fcv1"``; None: any)."""
    from rllib_curling.rl.checkpoints import agent_info_at, load_module_at, module_checkpoint_dir

    path = module_checkpoint_dir(checkpoint, module_id)
    info = agent_info_at(path)
    module = load_module_at(path, info)
    module.eval()
    policy = LoadedPolicy(path, module, info, normalize_actions=normalize_actions)
    if ice is not None and policy.ice != ice:
        raise ConfigError(
            f"{checkpoint} is an agent for {ICE_NAMES.get(policy.ice, policy.ice)}, not for "
            f"{ICE_NAMES.get(ice, ice)}"
        )
    return policy
