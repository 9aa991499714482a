"""Teacher games as RLlib offline data (``curling dataset``): what BC and MARWIL train on.

A **teacher** (a built-in level, e.g. 8, the deepest search; or a checkpoint's agent with its
search, ``make_teacher``: expert iteration) plays ``games`` games against a mix
of ``opponents`` (a pair of games each in turn: one with the hammer, one without), on the
engine directly (no server), in parallel Ray tasks of ``games_per_shard`` games. An opponent is
a level, ``"self"`` (the teacher in both seats, both labelled) or an agent with its search
(``make_opponents``, loaded once per task; unlabelled). Each teacher turn becomes one row of
RLlib's columnar offline format (Ray 2.60, ``OfflinePreLearner``), as ``CurlingEnv`` with
``action="discrete"`` would have recorded it from the teacher's seat (``offline.game_rows``
plays the game and adds the columns that come after the turn):

| column          | shape, type      | what                                                 |
|-----------------|------------------|------------------------------------------------------|
| ``eps_id``      | str              | one episode per game and labelled seat:              |
|                 |                  | ``"<seed>-<game>-<seat>"``                           |
| ``obs``         | (OBS_SIZE,) f32  | ``observation.encode_observation``, teacher's view   |
| ``actions``     | int64            | the template nearest the teacher's throw by outcome  |
| ``rewards``     | f32              | the env's reward of the step (``env.rewards``; the   |
|                 |                  | config's ``reward`` and ``score_weight``)            |
| ``new_obs``     | (OBS_SIZE,) f32  | the teacher's next observation (at the end: the last)|
| ``terminateds`` | bool             | the game ended after this turn                       |
| ``truncateds``  | bool             | always False                                         |
| ``throw``       | (4,) f32         | the teacher's own throw ``(v, h, w, sweep)``         |
| ``action_values``| (N,) f32        | every template's value to the teacher (level 8's     |
|                 |                  | judgement of its noise-free outcome): soft targets   |
| ``end_points``  | f32              | the teacher's points in this turn's end              |
| ``result``      | f32              | the game's result for the teacher: 1, 0.5 or 0       |

With ``action="shots"`` the teacher is a search over the shot set (``aiming.shots``) and its
rows keep its judgement instead: their columns are in ``offline.search_labels``.

"Nearest by outcome": the teacher's throw and every template are simulated without noise and
the rules applied; the template whose resting position is closest (the sum of the stones'
displacements) is the action. ``label_agreement`` in a shard's summary says how often the
nearest template also has the teacher's best judged value.

Output: ``out/shard-00000/`` … (Parquet, ``ray.data``'s ``write_parquet``), each written to a
``.partial`` folder and renamed when complete, so an interrupted run resumes where it stopped
(``generate`` skips finished shards). ``out/dataset.json`` records the config; a run with another
config refuses to mix into it. Read it with ``BCConfig().offline_data(input_=[out])``.

Seeds: game ``g`` draws from ``numpy.random.default_rng([DATASET_SEED_TAG, seed, g])``, a stream
no evaluation uses (``rllib evaluate`` seeds servers with plain integers).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rllib_curling import observation, run_folder
from rllib_curling.errors import ConfigError
from rllib_curling.game import DEFAULT_ENDS

if TYPE_CHECKING:
    from rllib_curling.bots.candidates import SearchSpec

#: First word of every game's seed: keeps dataset games apart from any other seeded games.
DATASET_SEED_TAG = 7_245_001
CONFIG_FILE = "dataset.json"
ACTIONS = ("discrete", "shots")
#: How far a shots teacher looks (``DatasetConfig.labels``): all of its search, or only the
#: noise-free screen of every legal shot (``labelling_spec``).
LABELS = ("search", "screen")
#: The opponent that is the teacher itself.
SELF = "self"


class ShardedGames:
    """What a dataset config on either ice shares: ``games`` in shards of ``games_per_shard``,
    ``ends`` a game, and the opponents in turn, a pair of games each (hammer alternating within
    the pair). The configs (``DatasetConfig``, ``offline.dc_dataset.DCDatasetConfig``) hold the
    fields."""

    games: int
    ends: int
    games_per_shard: int
    opponents: tuple[int | str, ...]

    def check_counts(self) -> None:
        """``ConfigError`` unless games, ends and games_per_shard are ints >= 1."""
        for name in ("games", "ends", "games_per_shard"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an int >= 1, got {value!r}")

    @property
    def shards(self) -> int:
        return -(-self.games // self.games_per_shard)

    def shard_games(self, shard: int) -> range:
        start = shard * self.games_per_shard
        return range(start, min(start + self.games_per_shard, self.games))

    def opponent_of(self, game: int) -> int | str:
        """Each opponent plays a pair of games in turn (hammer alternating within the pair)."""
        return self.opponents[(game // 2) % len(self.opponents)]


@dataclass(frozen=True)
class DatasetConfig(ShardedGames):
    """What ``generate`` plays: ``teacher`` level against ``opponents`` in turn (a pair of games
    each), ``games`` games of ``ends`` ends, ``games_per_shard`` games per Ray task and file."""

    #: A built-in level, or a checkpoint (its path, or ``"builtin"``) whose agent plays as it
    #: does by default (its search included): ``generate`` then needs ``make_teacher``.
    teacher: int | str = 8
    #: In turn: levels, ``"self"`` (the teacher in both seats, both labelled) and agents (a
    #: checkpoint or ``"builtin"`` playing as it does by default, its search included; its seat
    #: unlabelled; ``generate`` then needs ``make_opponents``).
    opponents: tuple[int | str, ...] = (4, 6, 8)
    games: int = 200
    ends: int = DEFAULT_ENDS
    games_per_shard: int = 10
    seed: int = 0
    #: The ``rewards`` column: ``CurlingEnv``'s ``reward`` and ``score_weight`` (as the README's
    #: main job, ``tune_configs/ppo.yaml``, trains with).
    reward: str = "win_score"
    score_weight: float = 0.1
    #: The rows' action space: ``"discrete"`` (the template nearest the teacher's throw, this
    #: module's table) or ``"shots"`` (the teacher searches the shot set and every row keeps its
    #: judgement: ``offline.search_labels``).
    action: str = "discrete"
    #: With ``action="shots"``, how far the teacher's search goes (``LABELS``):
    #: ``"search"`` (all of it: the screen, noisy re-throws, the opponent's reply) or
    #: ``"screen"`` (every legal shot thrown once without noise, the best played: about five
    #: times the rows an hour).
    labels: str = "search"

    def __post_init__(self) -> None:
        from rllib_curling.bots import check_level
        from rllib_curling.env.config import CurlingEnvConfig

        CurlingEnvConfig(reward=self.reward, score_weight=self.score_weight)  # checks them
        if not isinstance(self.teacher, str):
            check_level(self.teacher, "teacher")
        elif not self.teacher:
            raise ConfigError("teacher: a level or a checkpoint is needed")
        if not self.opponents:
            raise ConfigError("opponents: at least one is needed (a level, self or an agent)")
        if self.action not in ACTIONS:
            raise ConfigError(f"action must be one of {list(ACTIONS)}, got {self.action!r}")
        if self.labels not in LABELS:
            raise ConfigError(f"labels must be one of {list(LABELS)}, got {self.labels!r}")
        if self.labels != "search" and self.action != "shots":
            raise ConfigError(f"labels={self.labels!r} needs action='shots'")
        for opponent in self.opponents:
            if isinstance(opponent, str) and opponent.strip() and "," not in opponent:
                continue  # self, or an agent: its loader says whether it is one
            if isinstance(opponent, str):
                raise ConfigError(f"an opponent is a level, self or an agent, got {opponent!r}")
            check_level(opponent, "opponent")
        from rllib_curling.bots.search import SPECS

        if self.action == "shots" and isinstance(self.teacher, int) and self.teacher not in SPECS:
            raise ConfigError(f"a shots teacher is a search level {sorted(SPECS)} or a checkpoint")
        self.check_counts()

    @property
    def agent_opponents(self) -> list[str]:
        """The opponents that are agents (neither a level nor ``"self"``), each once."""
        return [o for o in dict.fromkeys(self.opponents) if isinstance(o, str) and o != SELF]


# -- one game -------------------------------------------------------------------------------------


def template_throws(state: Any) -> np.ndarray:
    """(N, 4) every shot template's throw for the player about to throw in ``state``."""
    from rllib_curling.aiming.tables import shot_tables
    from rllib_curling.aiming.templates import TEMPLATES, template_throw

    tables = shot_tables()
    parity = state.seat_parity(state.next_seat)
    return np.array(
        [
            template_throw(i, state.position, parity, tables, state.shot)
            for i in range(len(TEMPLATES))
        ],
        dtype=np.float64,
    )


def label_throw(state: Any, throw: Sequence[float], judge: Any) -> tuple[int, np.ndarray]:
    """The template nearest ``throw`` by outcome, and every template's value to the thrower
    judged by ``judge`` (a search bot's ``values``; noise off)."""
    from rllib_curling.bots.search import outcomes

    templates = template_throws(state)
    values, positions = judge.values(state, templates, None)
    target, _ = outcomes(state, np.asarray(throw, dtype=np.float64)[None], None)
    distance = np.linalg.norm(positions - target, axis=2).sum(axis=1)  # (N,)
    return int(np.argmin(distance)), values.astype(np.float32)


def play_teacher_game(
    players: Sequence[Any], labelled: Sequence[int], judge: Any, config: DatasetConfig,
    rng: np.random.Generator, eps: str,
) -> list[dict[str, Any]]:  # fmt: skip
    """One game of ``players`` (seat 0, seat 1): the rows of the turns of the seats in
    ``labelled`` (module table; ``offline.game_rows``), templates judged by ``judge``."""
    from rllib_curling.offline.game_rows import play_rows

    def label(state: Any, seat: int, throw: tuple[float, ...]) -> dict[str, Any]:
        action, values = label_throw(state, throw, judge)
        return {
            "obs": observation.state_observation(state, seat), "actions": action,
            "throw": np.asarray(throw, dtype=np.float32), "action_values": values,
        }  # fmt: skip

    return play_rows(players, labelled, config, rng, eps, label, observation.state_observation)


#: ``make_teacher()``: the teacher ``Bot`` of a checkpoint teacher; ``make_opponents[name]()``:
#: an agent opponent's ``Bot``. Built in the worker, once per shard.
MakeTeacher = Callable[[], Any]
MakeOpponents = Mapping[str, MakeTeacher]


def shard_rows(
    config: DatasetConfig, shard: int, make_teacher: MakeTeacher | None = None,
    make_opponents: MakeOpponents | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:  # fmt: skip
    """The rows of shard ``shard``'s games and a summary (games, rows, results, seconds)."""
    from rllib_curling.bots.search import SearchBot

    start = time.perf_counter()
    judge: SearchBot | None = None  # level 8's values of the templates (action="discrete")
    if make_teacher is not None:
        teacher = make_teacher()
    elif isinstance(config.teacher, int):
        teacher = level_teacher(config.teacher, config.action, config.labels)
    else:
        raise ConfigError(f"teacher {config.teacher!r} is a checkpoint: give make_teacher too")
    check_opponents(config, make_opponents)
    opponents = {o: _opponent(o, teacher, make_opponents) for o in dict.fromkeys(config.opponents)}
    rows: list[dict[str, Any]] = []
    results: list[float] = []
    for game in config.shard_games(shard):
        rng = np.random.default_rng([DATASET_SEED_TAG, config.seed, game])
        seat = game % 2
        eps = f"{config.seed}-{game}"
        opponent = opponents[config.opponent_of(game)]
        players = (teacher, opponent) if seat == 0 else (opponent, teacher)
        labelled = (0, 1) if opponent is teacher else (seat,)  # self-play: both seats teach
        if config.action == "shots":
            from rllib_curling.offline.search_labels import play_labelled_game

            game_rows = play_labelled_game(players, labelled, config, rng, eps)
        else:
            judge = judge or SearchBot(8)
            game_rows = play_teacher_game(players, labelled, judge, config, rng, eps)
        rows += game_rows
        # the teacher's result: its seat's last row (self-play: ½ per seat, so ½ either way)
        results.append(float(np.mean([r["result"] for r in game_rows if r["terminateds"]])))
    summary = {
        "shard": shard, "games": len(results), "rows": len(rows),
        "score_rate": float(np.mean(results)), "seconds": time.perf_counter() - start,
    }  # fmt: skip
    if config.action == "discrete":
        best = [int(np.argmax(r["action_values"]) == r["actions"]) for r in rows]
        summary["label_agreement"] = float(np.mean(best))
    return rows, summary


def check_opponents(config: DatasetConfig, make_opponents: MakeOpponents | None) -> None:
    """``ConfigError`` naming the agent opponents that ``make_opponents`` cannot build."""
    missing = [o for o in config.agent_opponents if o not in (make_opponents or {})]
    if missing:
        raise ConfigError(f"opponents {missing} are agents: make_opponents is needed for them")


def _opponent(name: int | str, teacher: Any, make_opponents: MakeOpponents | None) -> Any:
    """The ``Bot`` of opponent ``name``: a level's bot, the teacher itself, or an agent's."""
    from rllib_curling.bots import make_bot

    if name == SELF:
        return teacher
    if isinstance(name, str):
        assert make_opponents is not None  # check_opponents
        return make_opponents[name]()
    return make_bot(name)


def level_teacher(level: int, action: str, labels: str = "search") -> Any:
    """The teacher of a built-in level: the level itself, or (``action="shots"``) its search over
    the shot set as far as ``labels`` says, keeping its judgement (``search_labels``)."""
    from rllib_curling.bots import make_bot
    from rllib_curling.bots.search import SPECS, SearchBot
    from rllib_curling.offline.search_labels import JudgingBot

    if action != "shots":
        return make_bot(level)
    search = SearchBot(level, labelling_spec(SPECS[level], labels))
    return JudgingBot(search, name=f"level {level} over the shot set ({labels})")


def labelling_spec(spec: SearchSpec, labels: str) -> SearchSpec:
    """``spec`` over the shot set, cut to the screen when ``labels == "screen"`` (the rows'
    ``judged`` and ``replied`` columns are then empty, the choice the screen's best:
    ``search_labels``)."""
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {list(LABELS)}, got {labels!r}")
    over_shots = replace(spec, shots=True)
    if labels == "search":
        return over_shots
    return replace(over_shots, top_k=0, samples=0, reply=0, reply_top=0, reply_samples=0)


# -- the dataset on disk --------------------------------------------------------------------


def shard_dir(out: Path, shard: int) -> Path:
    return out / f"shard-{shard:05d}"


def check_config(out: Path, config: Any) -> None:
    """Write ``out/dataset.json``, or check that the data already there was made so (any
    dataclass config with ``opponents``: the platform's or DC's)."""
    settings = asdict(config)
    settings["opponents"] = list(config.opponents)
    run_folder.claim(out, CONFIG_FILE, settings, "a dataset made")


def write_shard(out: Path, shard: int, rows: list[dict[str, Any]]) -> None:
    """Write one shard's rows (``ray.data`` Parquet) to a partial folder, then rename it."""
    import ray.data

    final = shard_dir(out, shard)
    partial = out.parent / f".{out.name}.partial" / final.name
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    # No CPU for the write: every CPU is running a shard's games, and a write waiting for one
    # would wait for the last shard.
    # One block, so one file per shard: Ray Data's default splits 320 rows into ~200 files, and
    # readers then spend minutes opening thousands of files.
    ray.data.from_items(rows, override_num_blocks=1).write_parquet(
        str(partial), ray_remote_args={"num_cpus": 0}, concurrency=1
    )
    os.replace(partial, final)
    try:
        partial.parent.rmdir()  # when no other shard is being written
    except OSError:
        pass


def pending_shards(out: Path, config: Any) -> list[int]:
    return [k for k in range(config.shards) if not shard_dir(out, k).exists()]


def generate(
    out: str | os.PathLike[str],
    config: DatasetConfig,
    progress: Callable[[dict[str, Any], int, int], None] | None = None,
    make_teacher: MakeTeacher | None = None,
    make_opponents: MakeOpponents | None = None,
) -> list[dict[str, Any]]:
    """Play and write every shard not written yet (Ray tasks, one CPU each); the shards'
    summaries in the order they finished. ``progress(summary, done, total)`` after each.
    ``make_teacher`` (picklable) builds a checkpoint teacher in each task, ``make_opponents``
    (by name) the agent opponents."""
    if isinstance(config.teacher, str) and make_teacher is None:
        raise ConfigError(f"teacher {config.teacher!r} is a checkpoint: make_teacher is needed")
    check_opponents(config, make_opponents)
    return run_shards(out, config, shard_rows, (make_teacher, make_opponents), progress)


#: ``task(config, shard, *args) -> (rows, summary)``: one shard's games, in a Ray task.
ShardTask = Callable[..., tuple[list[dict[str, Any]], dict[str, Any]]]


def run_shards(
    out: str | os.PathLike[str], config: Any, task: ShardTask, args: tuple[Any, ...] = (),
    progress: Callable[[dict[str, Any], int, int], None] | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """Any ice's sharded dataset: claim ``out`` for ``config`` (a dataclass with ``shards``;
    ``check_config``), then run ``task(config, shard, *args)`` for every shard not written yet
    (Ray tasks, one CPU and one thread each) and write each one's rows as it finishes
    (``write_shard``); the shards' summaries in the order they finished, ``progress(summary,
    done, total)`` after each."""
    import ray

    path = Path(out).expanduser()
    check_config(path, config)
    todo = pending_shards(path, config)
    done = config.shards - len(todo)
    if not todo:
        return []
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
    # One CPU per task, so one thread: the engine's parallel batches (numba) and torch would
    # otherwise start a thread per core in every task, and the tasks would fight over them.
    threads = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    remote: Any = ray.remote(num_cpus=1, runtime_env={"env_vars": threads})(task)
    waiting = {remote.remote(config, shard, *args): shard for shard in todo}
    summaries: list[dict[str, Any]] = []
    while waiting:
        ready, _ = ray.wait(list(waiting), num_returns=1)
        shard = waiting.pop(ready[0])
        rows, summary = ray.get(ready[0])
        write_shard(path, shard, rows)
        done += 1
        summaries.append(summary)
        if progress is not None:
            progress(summary, done, config.shards)
    return summaries


def count_rows(out: str | os.PathLike[str]) -> int:
    """The rows of every written shard, from the Parquet footers (no row is read)."""
    import pyarrow.parquet as pq

    files = sorted(Path(out).expanduser().glob("shard-*/*.parquet"))
    return sum(pq.ParquetFile(f).metadata.num_rows for f in files)


def read_rows(out: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Every row of a dataset (``ray.data.read_parquet``), for checks and small tools."""
    import ray.data

    yield from ray.data.read_parquet(str(Path(out).expanduser())).iter_rows()
