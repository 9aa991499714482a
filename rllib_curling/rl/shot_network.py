"""The shot network: a policy over the shot set (``aiming.shots``) and values that see ahead.

Stones are a set: each goes through one MLP, then ``layers`` transformer layers let every stone
in play attend to the others. Each shot of the set is described by its features
(``aiming.shots.shot_features``), so a logit is computed from what the shot is and, for a hit,
from the embedding of the stone it aims at (a pointer); with ``attend``, every shot also
attends to the stones (what lies near its path and target):

    stones (B, 16, 10) ─ stone MLP ─ L × attention over in-play stones ─ S (B, 16, d)
    context (B, 8) ─ context MLP ─┐
    pool(S): mean, max, count ────┴─ trunk MLP ─ g (B, H)
    shots (N, 9) ─ shot MLP ─ A (N, d)                          (the same for every position)
    logit[b, a] = w · relu(G g_b + A_a + P S[b, stone(a)] [+ attend(A_a → S_b)]) + c
    value (B,) = head(g)                score logits (B, 17) = head(g)

``value`` is the mover's chance to win as ``2 p − 1`` (what stock algorithms and the search
read); the score head predicts the end's final score from the mover's view
(``win_table.END_SCORES``, −8 … +8), which ``win_table`` turns into a chance to win. Illegal
shots are masked by the module (``models_shots``), not here: ``forward`` returns raw logits.

Model config keys (``DEFAULT_SHOT_MODEL_CONFIG``): ``width`` (d), ``layers``, ``heads``,
``hiddens`` (the trunk), ``activation``, ``attend`` (every shot attends to the stones: more
expressive, about 5 times the cost of a forward pass; off by default).

Mirror symmetry: ``mirror_observations`` reflects observations about the centre line and
``aiming.shots.MIRROR`` maps a shot to its mirror image, so the learner trains on both sides
(``CurlingShotLearner``'s ``mirror``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from rllib_curling import observation, win_table
from rllib_curling.aiming import shots
from rllib_curling.errors import refuse_unknown_keys
from rllib_curling.rl.network import ACTIVATIONS, mlp

#: The network's name in ``models.MODULES`` (``module_spec(algo, name=SHOT_MODEL_NAME)``).
SHOT_MODEL_NAME = "curling_shot_net"
DEFAULT_SHOT_MODEL_CONFIG: dict[str, Any] = {
    "width": 64,
    "layers": 2,
    "heads": 4,
    "hiddens": [256, 256],
    "activation": "relu",
    "attend": False,
}


def resolve_shot_model_config(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``DEFAULT_SHOT_MODEL_CONFIG`` updated by ``overrides``; unknown keys raise ConfigError."""
    overrides = dict(overrides or {})
    refuse_unknown_keys(overrides, DEFAULT_SHOT_MODEL_CONFIG, f"{SHOT_MODEL_NAME} model_config")
    cfg = {**DEFAULT_SHOT_MODEL_CONFIG, **overrides}
    if cfg["activation"] not in ACTIVATIONS:
        raise ValueError(f"activation={cfg['activation']!r}; valid: {sorted(ACTIVATIONS)}")
    if int(cfg["width"]) % int(cfg["heads"]):
        raise ValueError(f"heads={cfg['heads']} must divide width={cfg['width']}")
    return cfg


def mirror_observations(obs: torch.Tensor) -> torch.Tensor:
    """Observations ``(..., OBS_SIZE)`` of the position mirrored about the centre line (every
    stone's x negated; nothing else in the observation changes under the mirror)."""
    out = obs.clone()
    cols = torch.arange(observation.N_STONES) * observation.STONE_FEATURES + observation.STONE_X
    out[..., cols] = -out[..., cols]
    return out


class ShotNet(nn.Module):
    """The torch network of the module docstring: ``forward(obs) -> (logits, g)``.

    >>> import torch
    >>> from rllib_curling import observation
    >>> from rllib_curling.aiming import shots
    >>> net = ShotNet({"width": 32, "layers": 1, "hiddens": [64]})
    >>> logits, g = net(torch.zeros(3, observation.OBS_SIZE))
    >>> logits.shape == (3, shots.N_SHOTS), g.shape, net.value(g).shape, net.scores(g).shape
    (True, torch.Size([3, 64]), torch.Size([3]), torch.Size([3, 17]))
    """

    shot_features: torch.Tensor  # (N_SHOTS, len(SHOT_FEATURES)), a buffer
    shot_stone: torch.Tensor  # (N_SHOTS,) the row each shot points at (16: none), a buffer

    def __init__(self, model_config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        cfg = resolve_shot_model_config(model_config)
        d, act = int(cfg["width"]), cfg["activation"]
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
        self.context_mlp, d_context = mlp(observation.CONTEXT_FEATURES, [d], act)
        self.trunk, self.out_dim = mlp(2 * d + 1 + d_context, cfg["hiddens"], act)
        self.shot_mlp, _ = mlp(len(shots.SHOT_FEATURES), [d, d], act)
        self.register_buffer("shot_features", torch.from_numpy(shots.shot_features()))
        # Hits point at their stone; draws and the throw-away at an all-zero 17th row.
        stone = torch.from_numpy(shots.SHOT_STONE).clone()
        stone[stone < 0] = observation.N_STONES
        self.register_buffer("shot_stone", stone)
        self.global_in = nn.Linear(self.out_dim, d)
        self.pointer = nn.Linear(d, d, bias=False)
        self.attend = bool(cfg["attend"])
        if self.attend:
            self.query = nn.Linear(d, d, bias=False)
            self.key = nn.Linear(d, d, bias=False)
            self.attended = nn.Linear(d, d, bias=False)
        self.logit = nn.Linear(d, 1)
        nn.init.normal_(self.logit.weight, std=0.01)
        nn.init.zeros_(self.logit.bias)
        self.value_head = nn.Linear(self.out_dim, 1)
        self.score_head = nn.Linear(self.out_dim, win_table.N_SCORES)
        self.width = d

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Raw logits ``(B, N_SHOTS)`` and the position's embedding ``g`` ``(B, out_dim)``."""
        flat = obs.reshape(-1, observation.OBS_SIZE).float()
        stones, context = observation.split_observation(flat)
        live = stones[..., observation.STONE_IN_PLAY] > 0.5  # (B, 16)
        h = self.stone_mlp(stones)  # (B, 16, d)
        # A position with no stone in play lets its rows see each other (no NaN); they are
        # pooled and pointed at never, as no shot there is legal.
        ignore = ~live & live.any(dim=-1, keepdim=True)
        for layer in self.layers:
            h = layer(h, src_key_padding_mask=ignore)
        count = live.sum(dim=-1, keepdim=True)  # (B, 1)
        mean = (h * live.unsqueeze(-1)).sum(dim=-2) / count.clamp(min=1)
        masked = torch.where(live.unsqueeze(-1), h, torch.full_like(h, float("-inf")))
        top = torch.where(count > 0, masked.amax(dim=-2), torch.zeros_like(mean))
        pooled = torch.cat([count.float() / observation.N_STONES, mean, top], dim=-1)
        g = self.trunk(torch.cat([pooled, self.context_mlp(context)], dim=-1))  # (B, H)
        return self._logits(g, h, live), g

    def _logits(self, g: torch.Tensor, h: torch.Tensor, live: torch.Tensor) -> torch.Tensor:
        a = self.shot_mlp(self.shot_features)  # (N, d)
        pointed = torch.cat([self.pointer(h), torch.zeros_like(h[:, :1])], dim=1)  # (B, 17, d)
        z = self.global_in(g).unsqueeze(1) + a.unsqueeze(0) + pointed[:, self.shot_stone]
        if self.attend:  # every shot attends to the stones: (B, N, 16) weights
            scores = torch.einsum("nd,bkd->bnk", self.query(a), self.key(h)) / self.width**0.5
            scores = scores.masked_fill(~live.unsqueeze(1), float("-inf"))
            weights = torch.nan_to_num(torch.softmax(scores, dim=-1))  # no stone: zeros
            z = z + torch.einsum("bnk,bkd->bnd", weights, self.attended(h))
        return self.logit(torch.relu(z)).squeeze(-1)

    def value(self, g: torch.Tensor) -> torch.Tensor:
        """(B,) the mover's chance to win as ``2 p − 1`` (unbounded; trained toward [−1, 1])."""
        return self.value_head(g).squeeze(-1)

    def scores(self, g: torch.Tensor) -> torch.Tensor:
        """(B, N_SCORES) logits of the end's final score from the mover's view."""
        return self.score_head(g)
