"""Checkpoints: find the RLModule inside an RLlib checkpoint or run directory, and load it.

``find_checkpoint`` accepts what a user has at hand (an ``algo.save_to_path()`` dir, a Tune
trial checkpoint, a trial dir, an experiment dir, a ``ray.tune.Checkpoint``, the module dir, an
agent folder; any of them relative, absolute or with ``~``), or ``builtin``: the agent shipped in
the package. ``load_module`` loads its RLModule without building the algorithm (``agent_info_at``
and ``load_module_at`` do it for a module directory found already); ``agent.policy.load_policy``
turns it into a policy that plays.

An **agent folder** (``export_agent``; the shipped agent is one) is a trained network with
nothing else: ``agent.json`` (the module's class, model config and action space, and how its
search plays by default), ``weights.pt`` (the module's ``state_dict``, tensors only) and
``MODEL_CARD.md``. It loads without RLlib's pickles, so it keeps across Ray versions.

``agent.json``'s ``"ice"`` says which game the agent plays (``ICES``): ``"platform"`` (the
platform's ice; a folder without the field) or ``"fcv1"`` (Digital Curling's: a module in the
DC env's spaces, ``dc_env.spaces``); ``module_ice`` tells a plain checkpoint's module by its
observation space.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from rllib_curling import tune_results
from rllib_curling.names import BUILTIN, BUILTIN_DC, DEFAULT_MODULE_ID

if TYPE_CHECKING:
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.core.learner.learner import Learner
    from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule


class _HasPath(Protocol):
    """A ``ray.tune.Checkpoint`` as ``find_checkpoint`` reads it."""

    @property
    def path(self) -> str: ...


#: What names a checkpoint: a path (``str``, ``Path``; ``"builtin"``) or a ``ray.tune.Checkpoint``.
CheckpointLike: TypeAlias = "str | os.PathLike[str] | _HasPath"
#: An agent folder's ``agent.json``, as read.
AgentInfo: TypeAlias = dict[str, Any]

#: Where a new-API-stack algorithm checkpoint keeps its RLModules.
MODULE_DIR = Path("learner_group", "learner", "rl_module")

#: The shipped agents' folders (agent folders, see the module docstring): the platform's, DC's.
BUILTIN_DIR = Path(__file__).resolve().parents[1] / "data" / BUILTIN
BUILTIN_DC_DIR = BUILTIN_DIR.with_name(BUILTIN_DC)
BUILTIN_DIRS = {BUILTIN: BUILTIN_DIR, BUILTIN_DC: BUILTIN_DC_DIR}
AGENT_FILE = "agent.json"
WEIGHTS_FILE = "weights.pt"
CARD_FILE = "MODEL_CARD.md"
AGENT_FORMAT = 1
#: The ices an agent plays on (``agent.json``'s ``"ice"``): the platform's, Digital Curling's.
PLATFORM_ICE, DC_ICE = "platform", "fcv1"
ICES = (PLATFORM_ICE, DC_ICE)


#: Metrics that rank the trials of an experiment directory, best first when higher.
RANK_METRICS = ("env_runners/win_rate", "env_runners/episode_return_mean")


def find_checkpoint(checkpoint: CheckpointLike) -> Path:
    """The algorithm checkpoint that ``checkpoint`` names, as an absolute path.

    Accepts a path (relative, absolute or with ``~``) or a ``ray.tune.Checkpoint`` (anything with
    ``.path``) naming one of:

    - an algorithm checkpoint (``algo.save_to_path()``, a Tune ``checkpoint_000012``);
    - a Tune trial directory: its best evaluated checkpoint when the run evaluated its policy
      (RLlib's ``evaluation_interval``: the win rate of the games played at the checkpoint's
      iteration, ``tune_results.evaluation``; the newer on a tie), else its newest
      ``checkpoint_*`` (``trial_checkpoint``);
    - a Tune experiment directory (``--storage-path``/name, e.g. ``results/curling-ppo``): that
      checkpoint of its best trial, by the last reported win rate, then mean return (the
      newest trial when they tie, as offline runs without games do);
    - an RLModule directory inside a checkpoint (returned as it is).

    - an agent folder (``export_agent``), or ``"builtin"`` / ``"builtin-dc"``: a shipped agent
      (``BUILTIN_DIRS``; a folder of that name is ``./builtin``).

    Raises ``FileNotFoundError`` saying what was found instead.
    """
    if isinstance(checkpoint, str) and checkpoint in BUILTIN_DIRS:
        folder = BUILTIN_DIRS[checkpoint]
        if not (folder / AGENT_FILE).is_file():
            raise FileNotFoundError(f"the shipped agent is missing from this install ({folder})")
        return folder
    # A ray.tune.Checkpoint first: it is an os.PathLike whose __fspath__ refuses.
    named: Any = getattr(checkpoint, "path", checkpoint)
    path = Path(os.fspath(named)).expanduser().resolve()
    if not path.is_dir():
        raise FileNotFoundError(f"no checkpoint directory at {path}")
    if _is_checkpoint(path) or (path / "class_and_ctor_args.pkl").is_file():
        return path
    if any(path.glob("checkpoint_*")):
        return trial_checkpoint(path)
    trials = [d for d in sorted(path.iterdir()) if d.is_dir() and any(d.glob("checkpoint_*"))]
    if not trials:
        raise FileNotFoundError(
            f"{path} holds no RLlib checkpoint: no checkpoint_* in it or in its trial "
            "directories (is training still at its first iteration, or was it stopped before "
            "a checkpoint was written?)"
        )
    return trial_checkpoint(best_trial(trials))


def best_trial(trials: list[Path]) -> Path:
    """The best of an experiment's trial directories (non-empty): by the last reported win rate,
    then mean return (``RANK_METRICS``), then the newest checkpoint."""
    return max(trials, key=_trial_rank)


def trial_checkpoint(trial: Path) -> Path:
    """The checkpoint of a Tune trial directory that ``find_checkpoint`` takes: the one whose
    iteration's evaluation games scored best (``tune_results.evaluation``; the newer on a tie)
    when some checkpoint was written at an iteration that evaluated, else the newest. A
    checkpoint written between evaluations (e.g. at the end of a timed run) is not ranked."""
    checkpoints = sorted(trial.glob("checkpoint_*"))
    evaluated = _evaluations(trial)
    if not evaluated:  # a run without evaluation: no checkpoint's state need be read
        return checkpoints[-1]
    ranked = [
        (evaluated[iteration], k, checkpoint)
        for k, checkpoint in enumerate(checkpoints)
        if (iteration := _checkpoint_iteration(checkpoint)) in evaluated
    ]
    return max(ranked)[2] if ranked else checkpoints[-1]


def _evaluations(trial: Path) -> dict[int, float]:
    """The evaluation games' win rate per training iteration that evaluated, from a Tune trial
    directory's ``result.json`` (none when it cannot be read)."""
    rows = tune_results.read_rows(trial / "result.json")
    scores = {row.get("training_iteration"): tune_results.evaluation(row) for row in rows}
    return {i: v for i, v in scores.items() if isinstance(i, int) and math.isfinite(v)}


def _checkpoint_iteration(checkpoint: Path) -> int | None:
    """The training iteration an algorithm checkpoint was written at (its
    ``algorithm_state.pkl``), None when it does not say."""
    import pickle

    try:
        with open(checkpoint / "algorithm_state.pkl", "rb") as fh:
            state = pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return None
    iteration = state.get("training_iteration") if isinstance(state, dict) else None
    return iteration if isinstance(iteration, int) else None


def _is_checkpoint(path: Path) -> bool:
    return (
        (path / AGENT_FILE).is_file()
        or (path / MODULE_DIR).is_dir()
        or (path / "policies").is_dir()
        or ((path / "rllib_checkpoint.json").is_file())
    )


def _trial_rank(trial: Path) -> tuple[float, ...]:
    """Last reported (win rate, mean return) of a Tune trial directory (-inf where missing), then
    the time of its newest checkpoint."""
    rows = tune_results.read_rows(trial / "result.json")
    last = rows[-1] if rows else {}
    ranks = [tune_results.value(last, metric) for metric in RANK_METRICS]
    ranks = [rank if math.isfinite(rank) else float("-inf") for rank in ranks]
    newest = max((c.stat().st_mtime for c in trial.glob("checkpoint_*")), default=0.0)
    return (*ranks, newest)  # ties (offline runs report no games): the newest checkpoint


def module_checkpoint_dir(checkpoint: CheckpointLike, module_id: str = DEFAULT_MODULE_ID) -> Path:
    """The RLModule directory ``module_id`` inside the checkpoint ``find_checkpoint`` finds.

    ``DEFAULT_MODULE_ID`` falls back to the learner ``"main"`` of a league run
    (``env.league.LEARNER``) when the checkpoint has no ``default_policy``."""
    path = find_checkpoint(checkpoint)
    if (path / AGENT_FILE).is_file():
        return path
    if (path / MODULE_DIR).is_dir():
        module_dir = path / MODULE_DIR / module_id
        if not module_dir.is_dir() and module_id == DEFAULT_MODULE_ID:
            from rllib_curling.env.league import LEARNER

            module_dir = path / MODULE_DIR / LEARNER
        if not module_dir.is_dir():
            found = sorted(p.name for p in (path / MODULE_DIR).iterdir())
            raise FileNotFoundError(
                f"no module {module_id!r} in {path}; its modules: {found} (load one of those ids)"
            )
        return module_dir
    if (path / "policies").is_dir():
        raise ValueError(
            f"{path} is an old-API-stack checkpoint (policies/); load it with "
            "Algorithm.from_checkpoint(path).get_policy().compute_single_action(obs)"
        )
    if (path / "class_and_ctor_args.pkl").is_file() and not (path / "learner_group").exists():
        return path
    raise FileNotFoundError(f"{path} holds no RLlib checkpoint (no {MODULE_DIR}/{module_id})")


def agent_info(checkpoint: CheckpointLike, module_id: str = DEFAULT_MODULE_ID) -> AgentInfo | None:
    """An agent folder's ``agent.json`` (None for an RLlib checkpoint)."""
    return agent_info_at(module_checkpoint_dir(checkpoint, module_id))


def agent_info_at(module_dir: Path) -> AgentInfo | None:
    """The ``agent.json`` in ``module_dir`` (a ``module_checkpoint_dir``, found already), or
    None when it is an RLlib module directory. ``ValueError`` for another agent format."""
    path = Path(module_dir) / AGENT_FILE
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as fh:
        info: AgentInfo = json.load(fh)
    if info.get("format") != AGENT_FORMAT:
        raise ValueError(f"{path}: agent format {info.get('format')!r}, this version reads "
                         f"{AGENT_FORMAT}")  # fmt: skip
    return info


def load_module(checkpoint: CheckpointLike, module_id: str = DEFAULT_MODULE_ID) -> TorchRLModule:
    """The RLModule of ``checkpoint`` (``module_checkpoint_dir``; an agent folder included)."""
    module_dir = module_checkpoint_dir(checkpoint, module_id)
    return load_module_at(module_dir, agent_info_at(module_dir))


def load_module_at(module_dir: Path, info: AgentInfo | None) -> TorchRLModule:
    """The RLModule in ``module_dir`` (a ``module_checkpoint_dir``, found already), whose
    ``agent_info_at`` is ``info``: an agent folder's weights in the module class it names, else
    RLlib's ``RLModule.from_checkpoint``."""
    if info is None:
        from ray.rllib.core.rl_module.rl_module import RLModule
        from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule

        loaded = RLModule.from_checkpoint(Path(module_dir).as_posix())
        if not isinstance(loaded, TorchRLModule):
            raise ValueError(f"{module_dir}: a {type(loaded).__name__}, not a torch RLModule")
        return loaded
    import torch

    if agent_ice(info) == DC_ICE:
        module = _dc_module(module_dir, info)
    else:
        module = _platform_module(module_dir, info)
    state = torch.load(Path(module_dir) / WEIGHTS_FILE, map_location="cpu", weights_only=True)
    module.load_state_dict(state)
    return module


def agent_ice(info: AgentInfo | None) -> str:
    """The ice of an agent folder's ``info`` (``ICES``; no field: the platform's);
    ``ValueError`` for another."""
    ice = str((info or {}).get("ice", PLATFORM_ICE))
    if ice not in ICES:
        raise ValueError(f"agent ice {ice!r}: this version knows {list(ICES)}")
    return ice


def module_ice(module: TorchRLModule) -> str:
    """``DC_ICE`` when ``module`` reads the DC env's observation (``dc_env.spaces``), else
    ``PLATFORM_ICE``."""
    from rllib_curling.dc_env.spaces import observation_space

    return DC_ICE if module.observation_space == observation_space("shots") else PLATFORM_ICE


def _dc_module(module_dir: Path, info: AgentInfo) -> TorchRLModule:
    """A DC agent's module, unloaded: ``rl.dc_models``' class in the DC env's spaces."""
    from rllib_curling.dc_env.config import DCEnvConfig
    from rllib_curling.dc_env.spaces import action_space, observation_space
    from rllib_curling.rl.dc_models import DCMaskedActorCritic

    if info["module"] != DCMaskedActorCritic.__name__:
        raise ValueError(f"{module_dir}: unknown DC module class {info['module']!r}")
    return DCMaskedActorCritic(
        observation_space=observation_space(info["action"]),
        action_space=action_space(DCEnvConfig(action=info["action"])),
        model_config=info["model_config"],
    )


def _platform_module(module_dir: Path, info: AgentInfo) -> TorchRLModule:
    """A platform agent's module, unloaded: ``rl.models``' class in the env's spaces."""
    from rllib_curling.env.config import CurlingEnvConfig
    from rllib_curling.env.spaces import action_space, observation_space
    from rllib_curling.rl.models import MODULES

    classes = {c.__name__: c for by_algo in MODULES.values() for c in by_algo.values()}
    if info["module"] not in classes:
        raise ValueError(f"{module_dir}: unknown module class {info['module']!r}")
    space = action_space(CurlingEnvConfig(action=info["action"], sweep=info["sweep"]))
    return classes[info["module"]](
        observation_space=observation_space(info["action"]), action_space=space,
        model_config=info["model_config"],
    )  # fmt: skip


def export_agent(
    checkpoint: CheckpointLike,
    out: str | os.PathLike[str],
    *,
    module_id: str = DEFAULT_MODULE_ID,
    search: dict[str, Any] | None = None,
    card: str = "",
) -> Path:
    """Write the policy of ``checkpoint`` as an agent folder ``out`` (see the module docstring):
    weights only, with ``search`` (the search's defaults, as ``agent.policy.SearchDefaults``'s
    ``as_dict()`` gives them) and the model card ``card`` (Markdown). Returns the folder."""
    return write_agent(load_module(checkpoint, module_id), out, search=search, card=card)


def write_agent(
    module: TorchRLModule, out: str | os.PathLike[str], *, search: dict[str, Any] | None = None,
    card: str = "",
) -> Path:  # fmt: skip
    """Write ``module`` (a curling RLModule, e.g. ``load_module``'s) as an agent folder ``out``
    with ``search`` and ``card``, as ``export_agent`` does. Returns the folder."""
    import torch

    from rllib_curling.env.spaces import action_mode
    from rllib_curling.rl.network import model_config_of
    from rllib_curling.rl.shot_models import shot_config_of

    ice = module_ice(module)
    if ice == DC_ICE:  # the DC env's shots (``dc_env.spaces``), the DC module's settings
        from rllib_curling.rl.dc_models import resolve_dc_model_config

        mode, sweep = "shots", False
        model_config = resolve_dc_model_config(module.model_config)
    else:
        if module.action_space is None:
            raise ValueError(f"{type(module).__name__} has no action space")
        mode, sweep = action_mode(module.action_space)
        config_of = shot_config_of if mode == "shots" else model_config_of
        model_config = config_of(module.model_config, _module_rllib_keys())
    info = {
        "format": AGENT_FORMAT,
        "module": type(module).__name__,
        "model_config": model_config,
        "action": mode,
        "sweep": sweep,
        "ice": ice,
        "search": dict(search or {}),
    }
    out = Path(out).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in module.state_dict().items()}
    torch.save(state, out / WEIGHTS_FILE)
    (out / AGENT_FILE).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    (out / CARD_FILE).write_text(card, encoding="utf-8")
    return out


def _module_rllib_keys() -> frozenset[str]:
    from rllib_curling.rl.network import DQN_KEYS

    return DQN_KEYS


def start_module_from(
    algorithm: Algorithm, checkpoint: CheckpointLike, module_id: str = DEFAULT_MODULE_ID
) -> None:
    """Load the policy of ``checkpoint`` (``module_checkpoint_dir``: a single-agent run's
    ``default_policy`` or a league's ``"main"``; any algorithm's curling module, BC's and
    MARWIL's included) into the learner's module ``module_id``, and so into every env runner.
    Weights only (not the optimizer's state). ``ConfigError`` if the spaces differ."""
    from rllib_curling.errors import ConfigError

    source = load_module(checkpoint)
    learners = algorithm.learner_group
    if learners is None:
        raise ConfigError(f"start_from {checkpoint}: this algorithm has no learner group")

    def spaces(learner: Learner, _: object = None) -> tuple[object, object]:
        return learner.module[module_id].observation_space, learner.module[module_id].action_space

    # The learner's module (offline algorithms have no env runners to ask).
    obs_space, act_space = next(iter(learners.foreach_learner(spaces))).get()
    if (source.observation_space, source.action_space) != (obs_space, act_space):
        raise ConfigError(
            f"start_from {checkpoint}: its policy has spaces {source.observation_space} / "
            f"{source.action_space}, this run's {obs_space} / {act_space}"
        )
    # What Algorithm.set_state does with a learner group's state, without assuming env runners
    # (offline algorithms have none).
    learners.set_state({"learner": {"rl_module": {module_id: source.get_state()}}})
    for group in (algorithm.env_runner_group, algorithm.eval_env_runner_group):
        if group is not None:
            group.sync_weights(from_worker_or_learner_group=algorithm.learner_group,
                               inference_only=True)  # fmt: skip
