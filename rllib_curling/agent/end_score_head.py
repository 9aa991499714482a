"""An agent's end-score head trained alone on a dataset's positions and their ends' scores:
the recipe of the generation that was kept (``curling improve --train end-score``).

The head (``rl.models.CurlingActorCritic``'s ``end_score``, ``end_score_hiddens``) is an MLP of
its own over the flat observation, so training it leaves the policy and the value head exactly
as they were. It learns the cross-entropy of the end's score (the dataset's ``end_points``,
−8 … +8 for the player to throw) on the training shards, every position also mirrored about
the centre line, with dropout before its last layer (Adam with weight decay, ``HeadTraining``).
A source whose network has such a head already has it trained on from its weights (a
generation); one without gets a new head (``HeadTraining.hiddens``). The search then blends
the two heads' chances to win (``SearchDefaults.end_score_share``, ``agent.search``).

Held-out shards, when given, are judged before and after each epoch (``HeadFigures``): the
head's cross-entropy, the correlation of its mean with the end's real score, and the share of
the game result's variance its chance to win explains (through the package's win table)
beside the value head's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rllib_curling.errors import ConfigError

if TYPE_CHECKING:
    from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule


@dataclass(frozen=True)
class HeadTraining:
    """How the head is trained: the kept generation's recipe (measurements/RESULTS.md)."""

    epochs: int = 5  # passes over the training positions (each twice: as is and mirrored)
    lr: float = 1e-3
    weight_decay: float = 1e-4
    batch: int = 256
    dropout: float = 0.2  # before the head's last layer
    hiddens: tuple[int, ...] = (256, 256)  # a new head's layers (a source's own keeps its own)
    seed: int = 0  # torch's

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.batch < 1 or not self.hiddens:
            raise ConfigError(f"a head needs epochs, batch and hiddens of at least 1: {self}")
        if not 0.0 <= self.dropout < 1.0:
            raise ConfigError(f"dropout must be in [0, 1), got {self.dropout!r}")


@dataclass(frozen=True)
class HeadFigures:
    """The head judged on held-out positions."""

    cross_entropy: float  # of the end's real score
    correlation: float  # of the head's mean with the end's real score
    explained_variance: float  # of the game's result (2·result − 1) by its chance to win

    def line(self) -> str:
        return (f"held-out cross-entropy {self.cross_entropy:.3f}, correlation with the end's "
                f"score {self.correlation:.3f}, explained variance of the result "
                f"{self.explained_variance:.3f}")  # fmt: skip


@dataclass(frozen=True)
class Positions:
    """A dataset's teacher positions: ``obs`` (N, OBS_SIZE), ``end_points`` (N,) the end's score
    for the player to throw, ``result`` (N,) the game's result for them (1, ½, 0)."""

    obs: np.ndarray
    end_points: np.ndarray
    result: np.ndarray

    def __len__(self) -> int:
        return len(self.obs)


def read_positions(data: Path, shards: Sequence[int]) -> Positions:
    """The positions of ``data``'s (a ``curling dataset`` folder) shards ``shards``."""
    import pyarrow.parquet as pq

    from rllib_curling.offline.dataset import shard_dir

    files = sorted(f for k in shards for f in shard_dir(data, k).glob("*.parquet"))
    if not files:
        raise ConfigError(f"{data}: no written shards among {list(shards)}")
    table = pq.read_table(files, columns=["obs", "end_points", "result"])
    obs = np.stack(table.column("obs").to_numpy(zero_copy_only=False)).astype(np.float32)
    points = table.column("end_points").to_numpy().astype(np.int64)
    return Positions(obs, points, table.column("result").to_numpy().astype(np.float64))


def with_end_score_head(source: TorchRLModule, hiddens: Sequence[int]) -> TorchRLModule:
    """A ``CurlingActorCritic`` with ``source``'s weights and an end-score head: the source's
    own (same layers, same weights) or, if it has none, a new one of ``hiddens``."""
    from rllib_curling.rl.models import CurlingActorCritic
    from rllib_curling.rl.network import model_config_of

    if not isinstance(source, CurlingActorCritic):
        raise ConfigError(f"an end-score head is trained on a CurlingActorCritic (the 65 "
                          f"templates' network), not a {type(source).__name__}")  # fmt: skip
    config = model_config_of(source.model_config)
    config["end_score_hiddens"] = list(config["end_score_hiddens"] or hiddens)
    module = CurlingActorCritic(
        observation_space=source.observation_space, action_space=source.action_space,
        model_config=config,
    )  # fmt: skip
    missing, unexpected = module.load_state_dict(source.state_dict(), strict=False)
    if unexpected or not all(k.startswith("end_score.") for k in missing):
        raise ConfigError(f"the source's weights do not fit its network: {missing + unexpected}")
    return module


def train_end_score_head(
    module: TorchRLModule, train: Positions, *, ends: int, training: HeadTraining = HeadTraining(),
    held: Positions | None = None, progress: Callable[[str], None] = lambda line: None,
) -> HeadFigures | None:  # fmt: skip
    """Train ``module``'s end-score head (``with_end_score_head``'s) on ``train`` in place; its
    other weights do not change. ``ends``: the dataset's game length (for the win table).
    Returns the head's figures on ``held`` after the last epoch (None without ``held``);
    ``progress`` gets a line after each epoch (with ``held``, its figures; and one before the
    first). A new head's first weights come from torch's global generator, as built."""
    import time

    import torch

    from rllib_curling.rl.learners import end_score_bins
    from rllib_curling.rl.shot_network import mirror_observations

    head = module.end_score
    if head is None:
        raise ConfigError("the module has no end-score head (with_end_score_head makes one)")
    torch.manual_seed(training.seed)
    body, last = head[:-1], head[-1]
    x = torch.from_numpy(train.obs)
    x = torch.cat([x, mirror_observations(x)])  # (2N, OBS_SIZE): as is, then mirrored
    bins = end_score_bins(torch.from_numpy(train.end_points))
    y = torch.cat([bins, bins])  # (2N,)
    optimiser = torch.optim.Adam(head.parameters(), lr=training.lr,
                                 weight_decay=training.weight_decay)  # fmt: skip
    judge = _HeldOut(held, ends) if held is not None and len(held) else None
    if judge is not None:
        progress(f"before: {judge.figures(head).line()}; the value head explains "
                 f"{judge.value_explained(module):.3f}")  # fmt: skip
    figures = None
    start = time.perf_counter()
    for epoch in range(training.epochs):
        head.train()
        order = torch.randperm(len(x))
        for first in range(0, len(x), training.batch):
            batch = order[first : first + training.batch]
            hidden = torch.nn.functional.dropout(body(x[batch]), training.dropout, training=True)
            loss = torch.nn.functional.cross_entropy(last(hidden), y[batch])
            optimiser.zero_grad()
            torch.autograd.backward(loss)
            optimiser.step()
        head.eval()
        figures = judge.figures(head) if judge is not None else None
        judged = f": {figures.line()}" if figures is not None else ""
        progress(f"epoch {epoch + 1}/{training.epochs}{judged} "
                 f"({time.perf_counter() - start:.0f} s)")  # fmt: skip
    return figures


class _HeldOut:
    """Held-out positions with what judging a head on them needs: each end score's chance to
    win after the end (the win table) and the game's result as ±1."""

    def __init__(self, held: Positions, ends: int) -> None:
        from rllib_curling import observation, win_table
        from rllib_curling.win_odds import END_SCORES

        self.held = held
        _, context = observation.split_observation(held.obs)
        diff = np.rint(context[:, 3] * 8).astype(int)  # score_diff / 8
        ends_after = np.rint(context[:, 2] * ends).astype(int)
        hammer = context[:, 4].astype(int)
        table = win_table.load()
        self.after = np.stack(  # (N, N_SCORES)
            [table.after_end(diff, s, ends_after, hammer) for s in END_SCORES], 1
        )
        self.target = 2.0 * held.result - 1.0

    def explained(self, prediction: np.ndarray) -> float:
        """The share of the results' variance ``prediction`` explains (nan when they are all
        alike)."""
        spread = np.var(self.target)
        return float(1.0 - np.var(self.target - prediction) / spread) if spread else float("nan")

    def value_explained(self, module: Any) -> float:
        import torch
        from ray.rllib.core.columns import Columns

        with torch.no_grad():
            batch = {Columns.OBS: torch.from_numpy(self.held.obs)}
            values = module.compute_values(batch).numpy()
        return self.explained(values)

    def figures(self, head: Any) -> HeadFigures:
        import torch

        from rllib_curling.rl.learners import end_score_bins
        from rllib_curling.win_odds import END_SCORES

        head.eval()
        with torch.no_grad():
            logits = head(torch.from_numpy(self.held.obs))
        p = torch.softmax(logits, -1).numpy().astype(np.float64)  # (N, N_SCORES)
        points = self.held.end_points
        bins = end_score_bins(torch.from_numpy(points)).numpy()
        return HeadFigures(
            cross_entropy=float(-np.mean(np.log(p[np.arange(len(p)), bins] + 1e-12))),
            correlation=float(np.corrcoef(p @ END_SCORES, points)[0, 1]),
            explained_variance=self.explained(2.0 * (p * self.after).sum(1) - 1.0),
        )
