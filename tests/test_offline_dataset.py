"""offline.dataset: a teacher's games as RLlib's columnar rows (the env's observation, the nearest
template by outcome, the env's rewards), shards on disk that resume, ``curling dataset``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from rllib_curling.bots import make_bot
from rllib_curling.bots.search import SearchBot, outcomes
from rllib_curling.errors import ConfigError
from rllib_curling.game import Game, GameConfig
from rllib_curling.offline.dataset import (
    DatasetConfig,
    count_rows,
    generate,
    label_throw,
    play_teacher_game,
    read_rows,
    shard_dir,
    shard_rows,
    template_throws,
)

pytestmark = pytest.mark.timeout(600)

#: A cheap teacher (the template search) against the button drawer, 1-end games.
SMALL = DatasetConfig(teacher=5, opponents=(2,), games=4, ends=1, games_per_shard=2)
COLUMNS = {"eps_id", "obs", "actions", "rewards", "new_obs", "terminateds", "truncateds"}


#: An agent folder whose network plays alone (its search settings: k=0): a quick opponent.
AGENT = str(Path(__file__).resolve().parents[1] / "measurements" / "agents" / "readme-network")


def _game(seat: int, config: DatasetConfig = SMALL, seed: int = 3) -> list[dict]:
    teacher, opponent = make_bot(config.teacher), make_bot(config.opponents[0])
    players = (teacher, opponent) if seat == 0 else (opponent, teacher)
    rng = np.random.default_rng(seed)
    return play_teacher_game(players, (seat,), SearchBot(8), config, rng, "g")


def _mid_end_state():
    state = Game.init(GameConfig(ends=2))
    rng = np.random.default_rng(0)
    bot = make_bot(3)
    for _ in range(6):
        state = Game.step(state, bot.choose(state, rng), rng).state
    return state


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
def test_play_teacher_game__one_row_per_teacher_stone_in_rllib_columns(seat: int) -> None:
    rows = _game(seat)
    assert len(rows) == 8  # one end: the teacher's 8 stones
    assert COLUMNS <= set(rows[0])
    assert [r["terminateds"] for r in rows] == [False] * 7 + [True]
    assert not any(r["truncateds"] for r in rows)
    for before, after in zip(rows, rows[1:], strict=False):
        np.testing.assert_array_equal(before["new_obs"], after["obs"])
    assert all(0 <= r["actions"] < len(r["action_values"]) for r in rows)


def test_play_teacher_game__rewards_are_the_envs_win_score() -> None:
    rows = _game(0, seed=11)
    points = float(rows[-1]["end_points"])
    result = float(rows[-1]["result"])
    outcome = {1.0: 1.0, 0.5: 0.0, 0.0: -1.0}[result]
    assert [float(r["rewards"]) for r in rows[:-1]] == [0.0] * 7  # the end is scored at its last
    assert float(rows[-1]["rewards"]) == pytest.approx(outcome + SMALL.score_weight * points)
    assert (points > 0) == (result == 1.0) and (points < 0) == (result == 0.0)


def test_play_teacher_game__first_observation_is_the_envs_reset_observation() -> None:
    from rllib_curling.env import CurlingEnv

    env = CurlingEnv({"opponent": 2, "ends": 1, "action": "discrete"})
    try:
        obs, info = env.reset(seed=4)
    finally:
        env.close()
    seat = info["seat"]
    np.testing.assert_array_equal(_game(seat)[0]["obs"], obs)


def test_label_throw__a_templates_own_throw_is_labelled_by_its_outcome() -> None:
    state = _mid_end_state()
    judge = SearchBot(8)
    templates = template_throws(state)
    ends, _ = outcomes(state, templates, None)
    for index in (0, 10, 20, 37, len(templates) - 1):
        label, values = label_throw(state, templates[index], judge)
        assert values.shape == (len(templates),)
        np.testing.assert_allclose(ends[label], ends[index], atol=1e-9)  # same resting place


def test_label_throw__values_are_the_judges() -> None:
    state = _mid_end_state()
    judge = SearchBot(8)
    _, values = label_throw(state, template_throws(state)[0], judge)
    expected, _ = judge.values(state, template_throws(state), None)
    np.testing.assert_allclose(values, expected, rtol=1e-6)


def test_dataset_config__refuses_bad_settings() -> None:
    with pytest.raises(ConfigError, match="games must be an int >= 1"):
        DatasetConfig(games=0)
    with pytest.raises(ConfigError, match="opponents"):
        DatasetConfig(opponents=())
    with pytest.raises(ConfigError, match="reward"):
        DatasetConfig(reward="points")
    with pytest.raises(ValueError, match="teacher"):
        DatasetConfig(teacher=9)
    with pytest.raises(ConfigError, match="teacher"):
        DatasetConfig(teacher="")
    with pytest.raises(ConfigError, match=r"opponent must be one of \[0, 1"):
        DatasetConfig(opponents=("self", 9))
    for bad in ("", "6,8"):
        with pytest.raises(ConfigError, match="an opponent is a level, self or an agent"):
            DatasetConfig(opponents=(6, bad))


def test_shard_rows__self_play_in_discrete_mode_labels_both_seats() -> None:
    config = dataclasses.replace(SMALL, opponents=("self",), games=1, games_per_shard=1)
    rows, summary = shard_rows(config, 0)
    assert summary["rows"] == len(rows) == 16  # one end: both seats' 8 stones
    assert summary["score_rate"] == 0.5  # the teacher's result either way
    for seat in (0, 1):
        mine = [r for r in rows if r["eps_id"] == f"0-0-{seat}"]
        assert [r["terminateds"] for r in mine] == [False] * 7 + [True]
        for before, after in zip(mine, mine[1:], strict=False):
            np.testing.assert_array_equal(before["new_obs"], after["obs"])
    assert sum(float(r["result"]) for r in rows if r["terminateds"]) == 1.0  # W + L or ½ + ½
    # each seat's rows see the sheet from that seat: the first stones' views differ
    assert not np.array_equal(rows[0]["obs"], rows[8]["obs"])


def test_shard_rows__an_agent_opponent_loads_once_and_is_not_labelled() -> None:
    from rllib_curling.cli.commands.dataset import make_opponents_of

    config = dataclasses.replace(SMALL, opponents=(AGENT,), games=2, games_per_shard=2)
    with pytest.raises(ConfigError, match="make_opponents is needed"):
        shard_rows(config, 0)
    made = make_opponents_of(config)[AGENT]
    loads: list[int] = []
    seats: list[int] = []  # the seat of every throw the agent chose

    def make() -> object:
        bot = made()
        choose = bot.choose
        loads.append(1)

        def counted(state, rng):  # type: ignore[no-untyped-def]
            seats.append(state.next_seat)
            return choose(state, rng)

        bot.choose = counted
        return bot

    rows, summary = shard_rows(config, 0, make_opponents={AGENT: make})
    assert loads == [1]  # once per shard, not per game
    assert seats == [1] * 8 + [0] * 8  # it played the seat the teacher did not (game % 2)
    assert summary["rows"] == len(rows) == 16  # only the teacher's 8 stones of each game
    assert sorted({r["eps_id"] for r in rows}) == ["0-0-0", "0-1-1"]


def test_dataset__a_bad_opponent_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from rllib_curling.cli import curling

    # a folder without a checkpoint: refused when it is loaded, before any game
    assert curling.main(["dataset", str(tmp_path / "out"), "--opponents", f"6,{tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("curling dataset: ") and str(tmp_path) in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_generate__writes_shards_rllib_reads_and_resumes(ray_session: None, tmp_path: Path) -> None:
    out = tmp_path / "data"
    config = dataclasses.replace(SMALL, games=2, games_per_shard=1)
    lines: list[tuple[int, int]] = []
    summaries = generate(out, config, progress=lambda s, done, total: lines.append((done, total)))
    assert lines == [(1, 2), (2, 2)]
    rows = list(read_rows(out))
    assert len(rows) == sum(s["rows"] for s in summaries) == config.games * 8 == count_rows(out)
    assert COLUMNS <= set(rows[0]) and rows[0]["obs"].shape == rows[0]["new_obs"].shape
    assert len({r["eps_id"] for r in rows}) == config.games
    assert json.loads((out / "dataset.json").read_text())["teacher"] == config.teacher
    # Resumed: a lost shard is played again, and only it, with the same games.
    before = sorted((r["eps_id"], float(r["rewards"]), int(r["actions"])) for r in rows)
    import shutil

    shutil.rmtree(shard_dir(out, 1))
    again = generate(out, config)
    assert [s["shard"] for s in again] == [1]
    after = sorted((r["eps_id"], float(r["rewards"]), int(r["actions"])) for r in read_rows(out))
    assert after == before
    assert generate(out, config) == []
    with pytest.raises(ConfigError, match="other settings"):
        generate(out, dataclasses.replace(config, teacher=6))


@pytest.mark.slow
def test_generate__rllib_offline_data_reads_the_rows(ray_session: None, tmp_path: Path) -> None:
    from ray.rllib.algorithms.bc import BCConfig

    from rllib_curling.env.spaces import observation_space

    out = tmp_path / "data"
    generate(out, dataclasses.replace(SMALL, games=2))
    import gymnasium as gym

    config = (
        BCConfig()
        .environment(observation_space=observation_space(), action_space=gym.spaces.Discrete(65))
        .offline_data(
            input_=[str(out)],
            dataset_num_iters_per_learner=1,
            # RLlib's default, two pre-learner actors of a CPU each, leaves no CPU of 2 to read.
            map_batches_kwargs={"concurrency": 1},
        )
        .training(train_batch_size_per_learner=8)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    assert result["learners"]["default_policy"]["num_module_steps_trained"] >= 8


@pytest.mark.slow
def test_generate__a_checkpoint_teacher_plays_with_its_search(
    ray_session: None, tmp_path: Path
) -> None:
    import functools

    import gymnasium as gym

    from rllib_curling import observation
    from rllib_curling.agent.player import agent_bot
    from rllib_curling.rl.checkpoints import export_agent
    from rllib_curling.rl.models import module_spec

    spec = module_spec("ppo", stone_hiddens=[16], context_hiddens=[8], hiddens=[16])
    spec.observation_space = gym.spaces.Box(-4.0, 4.0, (observation.OBS_SIZE,), np.float32)
    spec.action_space = gym.spaces.Discrete(65)
    spec.build().save_to_path(tmp_path / "module")
    agent = export_agent(tmp_path / "module", tmp_path / "agent", search={"k": 2})
    config = dataclasses.replace(SMALL, teacher=str(agent), games=2, games_per_shard=1)
    with pytest.raises(ConfigError, match="make_teacher"):
        generate(tmp_path / "refused", config)
    summaries = generate(
        tmp_path / "data", config, make_teacher=functools.partial(agent_bot, str(agent))
    )
    # the agent's search (level 8's candidates) beats the button drawer in 1-end games
    assert len(summaries) == 2 and np.mean([s["score_rate"] for s in summaries]) >= 0.5
    rows = list(read_rows(tmp_path / "data"))
    assert len(rows) == 2 * 8 and COLUMNS <= set(rows[0])


@pytest.mark.slow
def test_generate__a_league_in_ray_tasks_is_recorded_and_kept(
    ray_session: None, tmp_path: Path
) -> None:
    from rllib_curling.cli.commands.dataset import make_opponents_of

    config = dataclasses.replace(SMALL, opponents=("self", AGENT))  # games 0, 1: self; 2, 3: AGENT
    with pytest.raises(ConfigError, match="make_opponents is needed"):
        generate(tmp_path / "refused", config)
    summaries = generate(tmp_path / "data", config, make_opponents=make_opponents_of(config))
    assert sum(s["rows"] for s in summaries) == 2 * 16 + 2 * 8 == count_rows(tmp_path / "data")
    recorded = json.loads((tmp_path / "data" / "dataset.json").read_text())["opponents"]
    assert recorded == ["self", AGENT]
    with pytest.raises(ConfigError, match="opponents differ"):
        generate(tmp_path / "data", dataclasses.replace(config, opponents=("self", 6)))
