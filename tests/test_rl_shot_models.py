"""The shot network and its RLModules (rllib_curling.rl.shot_network, rl.shot_models) and the
Learner's pieces that need no RLlib run (rl.shot_learner)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.algorithms.dqn.torch.default_dqn_torch_rl_module import QF_PREDS
from ray.rllib.core.columns import Columns

from rllib_curling import names, observation, sheet
from rllib_curling.aiming import shots
from rllib_curling.env import spaces
from rllib_curling.errors import ConfigError
from rllib_curling.rl import shot_models, shot_network
from rllib_curling.rl.algorithm_configs import algorithm_config
from rllib_curling.rl.models import module_spec, network_name
from rllib_curling.rl.shot_learner import (
    CurlingShotLearner,
    ShotLossConfig,
    label_weights,
    mirror_half,
    screen_cross_entropy,
)
from rllib_curling.rl.shot_network import SHOT_MODEL_NAME, ShotNet, mirror_observations

SMALL = {"width": 32, "layers": 1, "hiddens": [64], "channels": 8, "dilations": [1, 2]}
TX, TY = sheet.TEE


def _positions(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pos = np.zeros((n, 16, 2))
    for b in range(n):
        k = rng.integers(1, 10)  # at least one stone: a mirror changes the observation
        pos[b, :k] = np.stack([TX + rng.uniform(-1.5, 1.5, k), TY + rng.uniform(-1.5, 4.0, k)], 1)
    return pos


def _batch(n: int = 4) -> dict[str, torch.Tensor]:
    pos = _positions(n)
    obs = np.stack([observation.encode_observation(p, 7, 1, 4, 1, -1) for p in pos])
    mask = shots.legal_shots(pos).astype(np.float32)
    return {shot_models.OBSERVATIONS: torch.from_numpy(obs),
            shot_models.ACTION_MASK: torch.from_numpy(mask)}  # fmt: skip


def _module(algo: str) -> object:
    spec = module_spec(algo, SHOT_MODEL_NAME, **SMALL)
    spec.observation_space = spaces.observation_space("shots")
    spec.action_space = gym.spaces.Discrete(shots.N_SHOTS)
    return spec.build()


def test_keys__the_modules_read_the_envs_observation_keys() -> None:
    assert (shot_models.OBSERVATIONS, shot_models.ACTION_MASK) == (
        spaces.OBSERVATIONS, spaces.ACTION_MASK,
    )  # fmt: skip
    assert network_name("shots") == SHOT_MODEL_NAME and network_name("discrete") != SHOT_MODEL_NAME


def test_shot_net__every_parameter_gets_a_gradient() -> None:
    net = ShotNet(SMALL)
    batch = _batch()
    logits, g = net(batch[shot_models.OBSERVATIONS])
    (logits.sum() + net.value(g).sum() + net.scores(g).sum()).backward()
    missing = [name for name, p in net.named_parameters() if p.grad is None or not p.grad.any()]
    assert not missing


def test_shot_net__empty_sheet_gives_finite_outputs() -> None:
    net = ShotNet(SMALL)
    obs = torch.from_numpy(observation.encode_observation(np.zeros((16, 2)), 0, 0, 4, 0, 0))
    logits, g = net(obs[None])
    assert torch.isfinite(logits).all() and torch.isfinite(net.value(g)).all()


def _ice(obs: torch.Tensor) -> torch.Tensor:
    stones, context = observation.split_observation(obs)
    return shot_network.ice_map(stones, context)


def test_ice_map__every_stone_in_play_is_one_unit_on_its_side() -> None:
    pos = np.zeros((16, 2))
    pos[0] = sheet.TEE  # mine (I throw first: even rows)
    pos[1] = (TX + 0.6, TY + 3.1)
    pos[3] = (TX - 1.13, TY - 0.4)
    obs = torch.from_numpy(observation.encode_observation(pos, 5, 0, 4, 0, 0))[None]
    ice = _ice(obs)[0]
    assert ice.shape == (shot_network.GRID_CHANNELS, shot_network.GRID_ROWS, shot_network.GRID_COLS)
    assert ice[0].sum() == pytest.approx(1.0) and ice[1].sum() == pytest.approx(2.0)
    assert ice[0, shot_network.GRID_TEE_ROW, shot_network.GRID_TEE_COL] == pytest.approx(1.0)
    stones, _ = observation.split_observation(obs)
    read = shot_network.sample_at_stones(ice[None, :2], stones)[0]  # (16, 2)
    assert read[0].tolist() == pytest.approx([1.0, 0.0])


def test_ice_map__draw_points_lie_at_their_cells_centres() -> None:
    ice = _ice(torch.zeros(1, observation.OBS_SIZE))[0]
    x_plane, y_plane = ice[4].flatten(), ice[5].flatten()  # the cells' coordinates
    cells = torch.from_numpy(shot_network.draw_cells())
    points = torch.from_numpy(shots.DRAW_POINTS)
    x = x_plane[cells].double() * observation.X_SCALE + sheet.CENTRE_X
    y = y_plane[cells].double() * observation.Y_SCALE + sheet.TEE_Y
    assert torch.allclose(x, points[:, 0], atol=1e-5) and torch.allclose(y, points[:, 1], atol=1e-5)


def test_ice_map__mirrors_with_the_observation() -> None:
    obs = _batch(8)[shot_models.OBSERVATIONS]
    ice, mirrored = _ice(obs), _ice(mirror_observations(obs))
    assert torch.allclose(mirrored[:, :4], ice[:, :4].flip(-1), atol=1e-5)


@pytest.mark.parametrize("algo", ["ppo", "bc", "impala", "appo", "marwil"])
def test_actor_critic__illegal_shots_get_no_probability(algo: str) -> None:
    module = _module(algo)
    batch = _batch()
    out = module.forward_inference({Columns.OBS: batch})  # type: ignore[attr-defined]
    probs = torch.softmax(out[Columns.ACTION_DIST_INPUTS], -1)
    assert (probs[batch[shot_models.ACTION_MASK] == 0] == 0).all()
    assert module.compute_values({Columns.OBS: batch}).shape == (4,)  # type: ignore[attr-defined]


def test_q_network__illegal_shots_are_minus_infinity() -> None:
    module = _module("dqn")
    batch = _batch()
    q = module.compute_q_values({Columns.OBS: batch})[QF_PREDS]  # type: ignore[attr-defined]
    legal = batch[shot_models.ACTION_MASK] > 0
    assert torch.isinf(q[~legal]).all() and torch.isfinite(q[legal]).all()
    actions = module.forward_inference({Columns.OBS: batch})[Columns.ACTIONS]  # type: ignore[attr-defined]
    assert legal[torch.arange(4), actions].all()


def test_shot_spaces__other_spaces_are_refused() -> None:
    with pytest.raises(ValueError, match="action='shots' spaces"):
        shot_models.check_shot_spaces(spaces.observation_space(), gym.spaces.Discrete(65))


def test_mirror_observations__is_the_observation_of_the_mirrored_position() -> None:
    pos = _positions(6, seed=4)
    mirrored = np.where(pos != 0, pos, 0.0)
    mirrored[..., 0] = np.where(pos[..., 0] != 0, 2 * sheet.CENTRE_X - pos[..., 0], 0.0)
    for p, q in zip(pos, mirrored, strict=True):
        obs = torch.from_numpy(observation.encode_observation(p, 5, 0, 4, 1, 2))
        want = observation.encode_observation(q, 5, 0, 4, 1, 2)
        assert np.allclose(mirror_observations(obs).numpy(), want, atol=1e-6)


def test_mirror_half__labels_follow_their_positions() -> None:
    batch = _batch(64)
    mask = batch[shot_models.ACTION_MASK].clone()
    obs = batch[shot_models.OBSERVATIONS].clone()
    legal = [int(np.flatnonzero(m)[-2]) for m in mask.numpy()]  # a hit where there are stones
    screen = torch.where(mask > 0, torch.rand(mask.shape), torch.full(mask.shape, torch.nan))
    train = {
        Columns.OBS: batch,
        Columns.ACTIONS: torch.tensor(legal),
        "judged": torch.tensor(legal)[:, None].repeat(1, 3),
        "screen": screen.clone(),
    }
    mirror_half(train, torch.Generator().manual_seed(0))
    flipped = (train[Columns.OBS][shot_models.OBSERVATIONS] != obs).any(-1)
    assert 0 < flipped.sum() < 64
    new_mask = train[Columns.OBS][shot_models.ACTION_MASK]
    for b in range(64):
        a = int(train[Columns.ACTIONS][b])
        assert new_mask[b, a] == 1.0
        assert a == (shots.MIRROR[legal[b]] if flipped[b] else legal[b])
        assert (train["judged"][b] == a).all()
        want = screen[b, shots.MIRROR] if flipped[b] else screen[b]
        assert torch.equal(train["screen"][b].isnan(), new_mask[b] == 0)
        assert torch.allclose(train["screen"][b].nan_to_num(), want.nan_to_num())


def test_label_weights__a_near_tie_is_down_weighted() -> None:
    batch = {
        Columns.ACTIONS: torch.tensor([5, 5]),
        "judged": torch.tensor([[5, 6], [5, 6]]),
        "judged_mean": torch.tensor([[0.60, 0.40], [0.51, 0.50]]),
        "judged_se": torch.tensor([[0.02, 0.02], [0.02, 0.02]]),
    }
    weights = label_weights(batch, ShotLossConfig(confident_z=2.0, tie_weight=0.25))
    assert weights.tolist() == [1.0, 0.25]
    assert label_weights(batch, ShotLossConfig()).tolist() == [1.0, 1.0]


def test_screen_cross_entropy__is_the_cross_entropy_over_legal_shots() -> None:
    screen = torch.tensor([[0.5, 0.3, torch.nan, 0.1], [torch.nan, 0.2, 0.2, torch.nan]])
    logits = torch.tensor([[1.0, 0.0, 5.0, -1.0], [0.0, 2.0, 0.0, 0.0]])
    legal = ~screen.isnan()
    logp = torch.log_softmax(logits.masked_fill(~legal, -1e9), -1)
    want = []
    for row in range(2):
        target = torch.softmax(screen[row][legal[row]] / 0.1, -1)
        want.append(-(target * logp[row][legal[row]]).sum())
    got = screen_cross_entropy(logp, screen, 0.1)
    assert got.item() == pytest.approx(torch.stack(want).mean().item())


def test_screen_cross_entropy__is_least_where_the_policy_is_the_target() -> None:
    screen = torch.tensor([[0.5, 0.3, torch.nan, 0.1]])
    target = torch.log_softmax(torch.tensor([[5.0, 3.0, -1e9, 1.0]]), -1)
    other = torch.log_softmax(torch.tensor([[3.0, 5.0, -1e9, 1.0]]), -1)
    assert screen_cross_entropy(target, screen, 0.1) < screen_cross_entropy(other, screen, 0.1)


def test_shot_loss_config__targets_are_a_mixture() -> None:
    with pytest.raises(ConfigError, match="soft_targets \\+ screen_targets"):
        ShotLossConfig(soft_targets=0.6, screen_targets=0.5)
    assert ShotLossConfig(soft_targets=0.5, screen_targets=0.5).screen_targets == 0.5


def test_shot_learner__threads_sets_torchs_threads_when_it_builds() -> None:
    config = algorithm_config("BC", env_config={"action": "shots", "ends": 1}, model_config=SMALL)
    config.learners(learner_config_dict={"threads": 3})
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        learner = config.build_learner(spaces={names.DEFAULT_MODULE_ID: (
            spaces.observation_space("shots"), gym.spaces.Discrete(shots.N_SHOTS))})  # fmt: skip
        assert isinstance(learner, CurlingShotLearner) and torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)
    with pytest.raises(ConfigError, match="threads must be >= 0"):
        ShotLossConfig(threads=-1)
