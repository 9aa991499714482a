"""``agent.end_score_head``: an agent's end-score head trained alone on a dataset's positions
(``curling improve --train end-score``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rllib_curling.agent.end_score_head import (
    HeadTraining,
    Positions,
    read_positions,
    train_end_score_head,
    with_end_score_head,
)
from rllib_curling.errors import ConfigError
from rllib_curling.offline.dataset import DatasetConfig, shard_dir, shard_rows

#: Two 2-end games of level 2 against itself (both seats labelled, so the results differ):
#: 32 positions a shard.
CONFIG = DatasetConfig(teacher=2, opponents=("self",), games=2, ends=2, games_per_shard=1)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``CONFIG``'s shards as Parquet files (the columns the head reads), as a dataset lays them
    out."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path_factory.mktemp("data")
    for shard in range(CONFIG.shards):
        rows, _ = shard_rows(CONFIG, shard)
        table = pa.table({
            "obs": [r["obs"].tolist() for r in rows],
            "end_points": [float(r["end_points"]) for r in rows],
            "result": [float(r["result"]) for r in rows],
        })  # fmt: skip
        shard_dir(out, shard).mkdir(parents=True)
        pq.write_table(table, shard_dir(out, shard) / "part-0.parquet")
    return out


def _weights(module) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}


def _cross_entropy(module, positions: Positions) -> float:
    import torch

    from rllib_curling.win_odds import SCORE_MAX

    with torch.no_grad():
        logits = module.end_score(torch.from_numpy(positions.obs))
    bins = torch.from_numpy(np.clip(positions.end_points, -SCORE_MAX, SCORE_MAX) + SCORE_MAX)
    return float(torch.nn.functional.cross_entropy(logits, bins))


def test_read_positions__a_shards_rows_with_their_ends_scores(data: Path) -> None:
    positions = read_positions(data, range(2))
    assert len(positions) == 2 * 2 * 2 * 8  # both seats' 8 stones, 2 ends, 2 games
    assert positions.obs.dtype == np.float32 and positions.obs.ndim == 2
    assert set(np.unique(positions.result)) <= {0.0, 0.5, 1.0}
    assert positions.result.sum() == 2 * 2 * 8  # a seat's loss is the other's win
    assert np.all(np.abs(positions.end_points) <= 8)
    with pytest.raises(ConfigError, match="no written shards"):
        read_positions(data, range(5, 7))


def test_train_end_score_head__learns_the_ends_scores_and_moves_nothing_else(data: Path) -> None:
    from rllib_curling.rl.checkpoints import load_module

    module = with_end_score_head(load_module("builtin"), (8,))
    before = _weights(module)
    assert before.keys() == _weights(load_module("builtin")).keys()  # builtin's own head kept
    train = read_positions(data, [0])
    held = read_positions(data, range(2))  # both games: their results differ (a test, not a fit)
    lines: list[str] = []
    first = _cross_entropy(module, train)
    figures = train_end_score_head(
        module, train, ends=CONFIG.ends, held=held, training=HeadTraining(epochs=30),
        progress=lines.append,
    )  # fmt: skip
    module.eval()
    assert _cross_entropy(module, train) < first - 0.1  # it fits what it was shown
    after = _weights(module)
    for name, weights in before.items():
        moved = not np.array_equal(weights, after[name])
        assert moved == name.startswith("end_score."), name  # the head moved, nothing else
    assert figures is not None and np.isfinite(figures.cross_entropy)
    assert -1.0 <= figures.correlation <= 1.0 and -np.inf < figures.explained_variance <= 1.0
    assert len(lines) == 1 + 30 and lines[0].startswith("before: held-out cross-entropy")
    assert "value head explains" in lines[0] and lines[-1].startswith("epoch 30/30: held-out")


def test_with_end_score_head__a_network_without_one_gets_a_new_one(data: Path) -> None:
    from rllib_curling.rl.checkpoints import load_module
    from rllib_curling.rl.models import CurlingActorCritic
    from rllib_curling.rl.network import model_config_of

    source = load_module("builtin")
    config = {**model_config_of(source.model_config), "end_score_hiddens": []}
    bare = CurlingActorCritic(observation_space=source.observation_space,
                              action_space=source.action_space, model_config=config)  # fmt: skip
    assert bare.end_score is None
    module = with_end_score_head(bare, (8,))
    assert module.end_score is not None and module.end_score[0].out_features == 8
    mine = _weights(bare)
    for name, weights in _weights(module).items():
        if not name.startswith("end_score."):
            np.testing.assert_array_equal(weights, mine[name])
    assert train_end_score_head(module, read_positions(data, [0]), ends=CONFIG.ends) is None


def test_head_training__refuses_what_cannot_train() -> None:
    with pytest.raises(ConfigError, match="at least 1"):
        HeadTraining(epochs=0)
    with pytest.raises(ConfigError, match="dropout"):
        HeadTraining(dropout=1.0)
