"""The shot network: a policy over the shot set (``aiming.shots``) and values that see ahead.

Two views of the position. The stones as a set: each goes through one MLP, then ``layers``
transformer layers let every stone in play attend to the others. The ice as a map: the stones
are drawn on a grid of ``GRID_STEP`` m cells (the draw grid's spacing) from behind the back
line to the far hog line, and dilated convolutions let each cell see what lies around it and
in front of it (a guard on a draw's path, the cover behind a stone):

    stones (B, 16, 10) ─ stone MLP ─ L × attention over in-play stones ─ S (B, 16, d)
    ice map (B, 14, 33, 19) ─ conv ─ residual dilated convs ─ I (B, C, 33, 19)
    [count, pool(S), pool(I), context MLP] ─ trunk MLP ─ g (B, H)
    draws (B, 2 × P):   1×1 conv of I read at each draw point's cell, one channel per curl, + G g
    hits  (B, 16 × 40): per stone, MLP(S_k, I at the stone, g) → its 40 hits (curl × weight
                        × offset; slot-major as ``aiming.shots``)
    throw-away (B, 1):  linear in g
    value (B,) = head(g)                score logits (B, 17) = head(g)

The ice map's 14 channels (``ice_map``): my stones, theirs, protected, counting (each stone
spread over its four nearest cells, bilinearly), the cell's x and y in the observation's
scales, and the 8 context features. ``value`` is the mover's chance to win as ``2 p − 1``
(what stock algorithms and the search read); the score head predicts the end's final score
from the mover's view (``win_table.END_SCORES``, −8 … +8), which ``win_table`` turns into a
chance to win. Illegal shots are masked by the module (``shot_models``), not here:
``forward`` returns raw logits.

Model config keys (``DEFAULT_SHOT_MODEL_CONFIG``): ``width`` (d), ``layers``, ``heads``,
``hiddens`` (the trunk), ``activation``, ``channels`` (C) and ``dilations`` (one residual
convolution each).

Mirror symmetry: ``mirror_observations`` reflects observations about the centre line and
``aiming.shots.MIRROR`` maps a shot to its mirror image, so the learner trains on both sides
(``CurlingShotLearner``'s ``mirror``); the ice map is drawn from the observation, so it mirrors
with it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import nn

from rllib_curling import observation, sheet, win_table
from rllib_curling.aiming import shots
from rllib_curling.errors import ConfigError, refuse_unknown_keys
from rllib_curling.rl.network import ACTIVATIONS, mlp

#: The network's name in ``models.MODULES`` (``module_spec(algo, name=SHOT_MODEL_NAME)``).
SHOT_MODEL_NAME = "curling_shot_net"
DEFAULT_SHOT_MODEL_CONFIG: dict[str, Any] = {
    "width": 64,
    "layers": 2,
    "heads": 4,
    "hiddens": [256, 256],
    "activation": "relu",
    "channels": 24,
    "dilations": [1, 2, 4, 8],
}

#: The ice map: square cells of the draw grid's spacing; the tee at a cell's centre (row
#: ``GRID_TEE_ROW``, column ``GRID_TEE_COL``); rows run from behind the back line toward the
#: far hog line, columns across the sheet, far enough to hold every stone in play.
GRID_STEP = shots.DRAW_STEP
GRID_TEE_COL = math.ceil((sheet.CENTRE_X - sheet.PLAY_X_MIN) / GRID_STEP)
GRID_TEE_ROW = math.ceil((sheet.TEE_Y - sheet.PLAY_Y_MIN) / GRID_STEP)
GRID_COLS = 2 * GRID_TEE_COL + 1
GRID_ROWS = GRID_TEE_ROW + math.ceil((sheet.PLAY_Y_MAX - sheet.TEE_Y) / GRID_STEP) + 1
#: Stone channels of the ice map (each a stone feature of the observation, drawn in play).
_STONE_CHANNELS = (observation.STONE_PROTECTED, observation.STONE_COUNTING)
GRID_CHANNELS = 2 + len(_STONE_CHANNELS) + 2 + observation.CONTEXT_FEATURES


def resolve_shot_model_config(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``DEFAULT_SHOT_MODEL_CONFIG`` updated by ``overrides``; unknown keys raise ConfigError."""
    overrides = dict(overrides or {})
    refuse_unknown_keys(overrides, DEFAULT_SHOT_MODEL_CONFIG, f"{SHOT_MODEL_NAME} model_config")
    cfg = {**DEFAULT_SHOT_MODEL_CONFIG, **overrides}
    if cfg["activation"] not in ACTIVATIONS:
        raise ConfigError(f"activation={cfg['activation']!r}; valid: {sorted(ACTIVATIONS)}")
    if int(cfg["width"]) % int(cfg["heads"]):
        raise ConfigError(f"heads={cfg['heads']} must divide width={cfg['width']}")
    return cfg


def mirror_observations(obs: torch.Tensor) -> torch.Tensor:
    """Observations ``(..., OBS_SIZE)`` of the position mirrored about the centre line (every
    stone's x negated; nothing else in the observation changes under the mirror)."""
    out = obs.clone()
    cols = torch.arange(observation.N_STONES) * observation.STONE_FEATURES + observation.STONE_X
    out[..., cols] = -out[..., cols]
    return out


def draw_cells() -> np.ndarray:
    """(P,) int64: the ice map's flat cell index (row × GRID_COLS + column) of each draw point
    (``aiming.shots.DRAW_POINTS``, which lie on the grid's cell centres)."""
    col = np.rint((shots.DRAW_POINTS[:, 0] - sheet.TEE_X) / GRID_STEP).astype(np.int64)
    row = np.rint((shots.DRAW_POINTS[:, 1] - sheet.TEE_Y) / GRID_STEP).astype(np.int64)
    return (row + GRID_TEE_ROW) * GRID_COLS + col + GRID_TEE_COL


def _cell_coordinates(stones: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, 16) each stone's column and row on the ice map (fractional)."""
    col = stones[..., observation.STONE_X] * (observation.X_SCALE / GRID_STEP) + GRID_TEE_COL
    row = stones[..., observation.STONE_Y] * (observation.Y_SCALE / GRID_STEP) + GRID_TEE_ROW
    return col, row


def ice_map(stones: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
    """(B, GRID_CHANNELS, GRID_ROWS, GRID_COLS): the module docstring's ice map of stones
    ``(B, 16, STONE_FEATURES)`` and context ``(B, CONTEXT_FEATURES)``."""
    b = stones.shape[0]
    live = stones[..., observation.STONE_IN_PLAY]
    mine = stones[..., observation.STONE_MINE]
    marks = [live * mine, live * (1.0 - mine)]
    marks += [live * stones[..., k] for k in _STONE_CHANNELS]
    values = torch.stack(marks, dim=1)  # (B, 4, 16)
    col, row = _cell_coordinates(stones)
    col0, row0 = col.floor(), row.floor()
    grid = stones.new_zeros(b, len(marks), GRID_ROWS * GRID_COLS)
    for dc in (0.0, 1.0):
        for dr in (0.0, 1.0):
            c, r = col0 + dc, row0 + dr
            weight = (1.0 - (col - c).abs()) * (1.0 - (row - r).abs())
            weight = weight * ((c >= 0) & (c < GRID_COLS) & (r >= 0) & (r < GRID_ROWS))
            cell = (r.clamp(0, GRID_ROWS - 1) * GRID_COLS + c.clamp(0, GRID_COLS - 1)).long()
            grid.scatter_add_(2, cell.unsqueeze(1).expand_as(values), values * weight.unsqueeze(1))
    xs = (torch.arange(GRID_COLS) - GRID_TEE_COL) * (GRID_STEP / observation.X_SCALE)
    ys = (torch.arange(GRID_ROWS) - GRID_TEE_ROW) * (GRID_STEP / observation.Y_SCALE)
    coords = torch.stack(torch.meshgrid(ys, xs, indexing="ij")[::-1]).to(stones)  # (2, R, C)
    planes = [
        grid.view(b, len(marks), GRID_ROWS, GRID_COLS),
        coords.expand(b, -1, -1, -1),
        context[:, :, None, None].expand(-1, -1, GRID_ROWS, GRID_COLS),
    ]
    return torch.cat(planes, dim=1)


def sample_at_stones(ice: torch.Tensor, stones: torch.Tensor) -> torch.Tensor:
    """(B, 16, C): the map ``ice`` (B, C, GRID_ROWS, GRID_COLS) read at each stone's place
    (bilinear; zeros off the map)."""
    col, row = _cell_coordinates(stones)
    where = torch.stack([2 * col / (GRID_COLS - 1) - 1, 2 * row / (GRID_ROWS - 1) - 1], dim=-1)
    read = nn.functional.grid_sample(ice, where.unsqueeze(2), align_corners=True)  # (B,C,16,1)
    return read.squeeze(-1).transpose(1, 2)


class ShotNet(nn.Module):
    """The torch network of the module docstring: ``forward(obs) -> (logits, g)``.

    >>> import torch
    >>> from rllib_curling import observation
    >>> from rllib_curling.aiming import shots
    >>> net = ShotNet({"width": 32, "layers": 1, "hiddens": [64], "channels": 8, "dilations": [1]})
    >>> logits, g = net(torch.zeros(3, observation.OBS_SIZE))
    >>> logits.shape == (3, shots.N_SHOTS), g.shape, net.value(g).shape, net.scores(g).shape
    (True, torch.Size([3, 64]), torch.Size([3]), torch.Size([3, 17]))
    """

    draw_cells: torch.Tensor  # (P,) the grid cell of each draw point, a buffer

    def __init__(self, model_config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        cfg = resolve_shot_model_config(model_config)
        d, c, act = int(cfg["width"]), int(cfg["channels"]), cfg["activation"]
        # The set encoder: every stone attends to the others.
        self.stone_mlp, _ = mlp(observation.STONE_FEATURES, [d, d], act)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(
                d,
                int(cfg["heads"]),
                dim_feedforward=2 * d,
                dropout=0.0,
                batch_first=True,
                norm_first=True,
            )  # fmt: skip
            for _ in range(int(cfg["layers"]))
        )
        # The ice: a map of the stones, then convolutions that see a draw's path and cover.
        self.stem = nn.Conv2d(GRID_CHANNELS, c, 3, padding=1)
        self.blocks = nn.ModuleList(
            nn.Conv2d(c, c, 3, padding=int(k), dilation=int(k)) for k in cfg["dilations"]
        )
        self.act = ACTIVATIONS[act]()
        self.register_buffer("draw_cells", torch.from_numpy(draw_cells()))
        self.draw_head = nn.Conv2d(c, len(shots.SPINS), 1)
        # The trunk: the position as a whole (set pooled, ice pooled, context).
        self.context_mlp, d_context = mlp(observation.CONTEXT_FEATURES, [d], act)
        self.trunk, self.out_dim = mlp(2 * d + 1 + 2 * c + d_context, cfg["hiddens"], act)
        # Hits: each stone's embedding, the ice around it and the position → its 40 hits.
        self.hit_head, _ = mlp(d + c + self.out_dim, [2 * d], act)
        self.hit_out = nn.Linear(2 * d, shots.HITS_PER_STONE)
        self.draw_bias = nn.Linear(self.out_dim, len(shots.SPINS))
        self.away_head = nn.Linear(self.out_dim, 1)
        heads: list[nn.Linear | nn.Conv2d] = [
            self.draw_head, self.hit_out, self.draw_bias, self.away_head,
        ]  # fmt: skip
        for head in heads:  # a near-uniform policy to start from
            nn.init.normal_(head.weight, std=0.01)
            assert head.bias is not None
            nn.init.zeros_(head.bias)
        self.value_head = nn.Linear(self.out_dim, 1)
        self.score_head = nn.Linear(self.out_dim, win_table.N_SCORES)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Raw logits ``(B, N_SHOTS)`` and the position's embedding ``g`` ``(B, out_dim)``."""
        flat = obs.reshape(-1, observation.OBS_SIZE).float()
        stones, context = observation.split_observation(flat)
        live = stones[..., observation.STONE_IN_PLAY] > 0.5  # (B, 16)
        h = self.stone_mlp(stones)  # (B, 16, d)
        # A position with no stone in play lets its rows see each other (no NaN); they are
        # pooled and pointed at never, as no hit there is legal.
        ignore = ~live & live.any(dim=-1, keepdim=True)
        for layer in self.layers:
            h = layer(h, src_key_padding_mask=ignore)
        ice = self.act(self.stem(ice_map(stones, context)))  # (B, C, ROWS, COLS)
        for conv in self.blocks:
            ice = ice + self.act(conv(ice))
        count = live.sum(dim=-1, keepdim=True)  # (B, 1)
        mean = (h * live.unsqueeze(-1)).sum(dim=-2) / count.clamp(min=1)
        masked = torch.where(live.unsqueeze(-1), h, torch.full_like(h, float("-inf")))
        top = torch.where(count > 0, masked.amax(dim=-2), torch.zeros_like(mean))
        pooled = [count.float() / observation.N_STONES, mean, top]
        pooled += [ice.mean(dim=(2, 3)), ice.amax(dim=(2, 3))]
        g = self.trunk(torch.cat([*pooled, self.context_mlp(context)], dim=-1))  # (B, H)
        draws = self.draw_head(ice).flatten(2)[:, :, self.draw_cells]  # (B, 2, P)
        draws = (draws + self.draw_bias(g).unsqueeze(-1)).flatten(1)  # spin-major
        around = sample_at_stones(ice, stones)  # (B, 16, C)
        per_stone = torch.cat([h, around, g.unsqueeze(1).expand(-1, h.shape[1], -1)], dim=-1)
        hits = self.hit_out(self.hit_head(per_stone)).flatten(1)  # (B, 16 * 40), slot-major
        return torch.cat([draws, hits, self.away_head(g)], dim=-1), g

    def value(self, g: torch.Tensor) -> torch.Tensor:
        """(B,) the mover's chance to win as ``2 p − 1`` (unbounded; trained toward [−1, 1])."""
        return self.value_head(g).squeeze(-1)

    def scores(self, g: torch.Tensor) -> torch.Tensor:
        """(B, N_SCORES) logits of the end's final score from the mover's view."""
        return self.score_head(g)
