"""The curling network: shapes, gradients, permutation invariance, registry (no Ray cluster)."""

from __future__ import annotations

import doctest

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import TARGET_NETWORK_ACTION_DIST_INPUTS

from rllib_curling import observation as spaces
from rllib_curling.rl import model_v2 as models_v2
from rllib_curling.rl import models, network
from rllib_curling.rl.model_v2 import CurlingModelV2
from rllib_curling.rl.models import (
    CurlingActorCritic,
    CurlingAPPOActorCritic,
    CurlingQNetwork,
    module_spec,
)
from rllib_curling.rl.network import IN_PLAY_FEATURE, CurlingEncoder
from rllib_curling.win_odds import N_SCORES

OBS_SPACE = gym.spaces.Box(-4.0, 4.0, (spaces.OBS_SIZE,), np.float32)
ACTION_SPACES = {
    "box3": gym.spaces.Box(-1.0, 1.0, (3,), np.float32),
    "box4": gym.spaces.Box(-np.inf, np.inf, (4,), np.float32),
    "discrete40": gym.spaces.Discrete(40),
    "multidiscrete": gym.spaces.MultiDiscrete([4, 5, 2]),
}
SMALL = {"stone_hiddens": [16, 16], "context_hiddens": [8], "hiddens": [32]}


def observations(batch: int = 32, seed: int = 0) -> torch.Tensor:
    """Random observations with a mix of in-play and out-of-play stones."""
    space = gym.spaces.Box(-4.0, 4.0, (spaces.OBS_SIZE,), np.float32, seed=seed)
    obs = np.stack([space.sample() for _ in range(batch)])
    stones, _ = spaces.split_observation(obs)
    stones[..., IN_PLAY_FEATURE] = np.random.default_rng(seed).random(stones.shape[:2]) < 0.5
    stones[0, :, IN_PLAY_FEATURE] = 0.0  # an empty sheet (no stone in play) in the batch
    return torch.from_numpy(obs)


def weighted_sum(*outputs: torch.Tensor) -> torch.Tensor:
    """Sum of all outputs with fixed random weights: a plain sum would cancel dueling's
    mean-centred advantages exactly (zero gradient for the advantage head by construction)."""
    gen = torch.Generator().manual_seed(0)
    return sum((o * torch.randn(o.shape, generator=gen)).sum() for o in outputs)


def assert_every_parameter_has_a_gradient(module: torch.nn.Module) -> None:
    trainable = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
    assert trainable
    for name, p in trainable:
        assert p.grad is not None, f"{name} got no gradient"
        assert torch.count_nonzero(p.grad) > 0, f"{name} got an all-zero gradient"
        assert torch.isfinite(p.grad).all(), f"{name} got a non-finite gradient"


@pytest.mark.parametrize("attention", [False, True])
@pytest.mark.parametrize("pool", network.POOLS)
def test_encoder__stone_order_does_not_matter(attention: bool, pool: str) -> None:
    torch.manual_seed(0)
    encoder = CurlingEncoder({**SMALL, "attention": attention, "pool": pool}).eval()
    obs = observations(16)
    stones, context = spaces.split_observation(obs)
    perm = torch.randperm(spaces.N_STONES)
    permuted = torch.cat([stones[:, perm].reshape(16, -1), context], dim=-1)
    with torch.no_grad():
        torch.testing.assert_close(encoder(obs), encoder(permuted), atol=1e-5, rtol=1e-5)


def test_encoder__ignores_stones_out_of_play() -> None:
    encoder = CurlingEncoder(SMALL).eval()
    obs = observations(8)
    stones, _ = spaces.split_observation(obs)
    changed = obs.clone()
    changed_stones, _ = spaces.split_observation(changed)
    out_of_play = stones[..., IN_PLAY_FEATURE] < 0.5
    changed_stones[out_of_play] += 1.0
    changed_stones[..., IN_PLAY_FEATURE] = stones[..., IN_PLAY_FEATURE]
    with torch.no_grad():
        torch.testing.assert_close(encoder(obs), encoder(changed))


def test_encoder__keeps_leading_dims_and_is_finite_on_empty_sheet() -> None:
    encoder = CurlingEncoder({**SMALL, "attention": True})
    obs = torch.zeros(2, 3, spaces.OBS_SIZE)  # (B, T, OBS): nothing in play anywhere
    out = encoder(obs)
    assert out.shape == (2, 3, encoder.out_dim)
    assert torch.isfinite(out).all()


@pytest.mark.parametrize("vf_share_layers", [True, False])
@pytest.mark.parametrize("action", sorted(ACTION_SPACES))
@pytest.mark.parametrize("cls", [CurlingActorCritic, CurlingAPPOActorCritic])
def test_actor_critic__forward_passes_and_gradients(
    cls: type, action: str, vf_share_layers: bool
) -> None:
    space = ACTION_SPACES[action]
    config = {**SMALL, "vf_share_layers": vf_share_layers, "attention": True}
    module = cls(observation_space=OBS_SPACE, action_space=space, model_config=config)
    obs = observations()
    batch = {Columns.OBS: obs}
    n_inputs = module.pi[-1].out_features
    for forward in (module.forward_inference, module.forward_exploration):
        out = forward(batch)
        assert out[Columns.ACTION_DIST_INPUTS].shape == (32, n_inputs)
    dist = module.get_exploration_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS])
    sample = dist.sample()[0].numpy().astype(space.dtype)
    if isinstance(space, gym.spaces.Box):  # a Gaussian sample: RLlib clips it to the bounds
        assert sample.shape == space.shape and np.all(np.isfinite(sample))
    else:
        assert space.contains(sample)
    train = module.forward_train(batch)
    values = module.compute_values(batch, embeddings=train[Columns.EMBEDDINGS])
    assert values.shape == (32,)
    torch.testing.assert_close(values, module.compute_values(batch))
    weighted_sum(train[Columns.ACTION_DIST_INPUTS], values).backward()
    assert_every_parameter_has_a_gradient(module)


def test_appo__target_networks_follow_the_api() -> None:
    module = CurlingAPPOActorCritic(
        observation_space=OBS_SPACE, action_space=ACTION_SPACES["box3"], model_config=SMALL
    )
    module.make_target_networks()
    pairs = module.get_target_network_pairs()
    assert [len(list(a.parameters())) for a, _ in pairs] == [
        len(list(b.parameters())) for _, b in pairs
    ]
    obs = {Columns.OBS: observations(4)}
    target = module.forward_target(obs)[TARGET_NETWORK_ACTION_DIST_INPUTS]
    torch.testing.assert_close(target, module.forward_inference(obs)[Columns.ACTION_DIST_INPUTS])
    assert not any(p.requires_grad for p in module._old_encoder.parameters())


def test_actor_critic__inference_only_copy_drops_value_parts() -> None:
    full = CurlingAPPOActorCritic(
        observation_space=OBS_SPACE,
        action_space=ACTION_SPACES["discrete40"],
        model_config={**SMALL, "vf_share_layers": False},
    )
    light = CurlingAPPOActorCritic(
        observation_space=OBS_SPACE,
        action_space=ACTION_SPACES["discrete40"],
        model_config={**SMALL, "vf_share_layers": False},
        inference_only=True,
    )
    assert not hasattr(light, "vf") and not hasattr(light, "critic_encoder")
    light.set_state(full.get_state(inference_only=True))
    obs = {Columns.OBS: observations(4)}
    torch.testing.assert_close(
        light.forward_inference(obs)[Columns.ACTION_DIST_INPUTS],
        full.forward_inference(obs)[Columns.ACTION_DIST_INPUTS],
    )


def test_actor_critic__end_score_head_has_layers_of_its_own() -> None:
    space = ACTION_SPACES["discrete40"]
    plain = CurlingActorCritic(observation_space=OBS_SPACE, action_space=space, model_config=SMALL)
    assert not plain.has_end_scores
    with pytest.raises(ValueError, match="no end-score head"):
        plain.compute_end_scores({Columns.OBS: observations(2)})
    config = {**SMALL, "end_score_hiddens": [16, 8]}
    both = CurlingActorCritic(observation_space=OBS_SPACE, action_space=space, model_config=config)
    missing, unexpected = both.load_state_dict(plain.state_dict(), strict=False)
    assert not unexpected and {k.split(".")[0] for k in missing} == {"end_score"}
    obs = {Columns.OBS: observations(8)}
    torch.testing.assert_close(
        both.forward_inference(obs)[Columns.ACTION_DIST_INPUTS],
        plain.forward_inference(obs)[Columns.ACTION_DIST_INPUTS],
    )
    torch.testing.assert_close(both.compute_values(obs), plain.compute_values(obs))
    logits = both.compute_end_scores(obs)
    assert logits.shape == (8, N_SCORES)
    weighted_sum(logits).backward()
    grads = {n.split(".")[0] for n, p in both.named_parameters() if p.grad is not None}
    assert grads == {"end_score"}  # the policy and the value are left as they are
    light = CurlingActorCritic(
        observation_space=OBS_SPACE, action_space=space, model_config=config, inference_only=True
    )
    assert not light.has_end_scores  # env runners need no end scores


@pytest.mark.parametrize("dueling", [True, False])
@pytest.mark.parametrize("double_q", [True, False])
def test_q_network__forward_passes_and_gradients(dueling: bool, double_q: bool) -> None:
    config = {**SMALL, "dueling": dueling, "double_q": double_q, "num_atoms": 1, "epsilon": 0.5}
    module = CurlingQNetwork(
        observation_space=OBS_SPACE, action_space=ACTION_SPACES["discrete40"], model_config=config
    )
    module.make_target_networks()
    obs = observations()
    actions = module.forward_inference({Columns.OBS: obs})[Columns.ACTIONS]
    assert actions.shape == (32,) and int(actions.max()) < 40
    explore = module.forward_exploration({Columns.OBS: obs}, t=0)[Columns.ACTIONS]
    assert explore.shape == (32,)
    train = module.forward_train({Columns.OBS: obs, Columns.NEXT_OBS: observations(32, seed=1)})
    assert train["qf_preds"].shape == (32, 40)
    assert ("qf_next_preds" in train) == double_q
    assert train["qf_target_next_preds"].shape == (32, 40)
    weighted_sum(train["qf_preds"], train.get("qf_next_preds", torch.zeros(()))).backward()
    assert_every_parameter_has_a_gradient(module)
    assert hasattr(module, "vf") == dueling


def test_q_network__rejects_continuous_actions() -> None:
    with pytest.raises(ValueError, match="Discrete"):
        CurlingQNetwork(observation_space=OBS_SPACE, action_space=ACTION_SPACES["box3"])


@pytest.mark.parametrize("vf_share_layers", [True, False])
@pytest.mark.parametrize("action", sorted(ACTION_SPACES))
def test_model_v2__forward_value_and_gradients(action: str, vf_share_layers: bool) -> None:
    from ray.rllib.models import ModelCatalog

    space = ACTION_SPACES[action]
    models_v2.register_model()
    models_v2.register_model()  # idempotent
    _, n_outputs = ModelCatalog.get_action_dist(space, {}, framework="torch")
    custom = {**SMALL, "vf_share_layers": vf_share_layers, "attention": True}
    model = ModelCatalog.get_model_v2(
        OBS_SPACE,
        space,
        n_outputs,
        {"custom_model": "curling_net", "custom_model_config": custom},
        framework="torch",
    )
    assert isinstance(model, CurlingModelV2)
    logits, state = model({"obs": observations()})
    assert logits.shape == (32, n_outputs) and state == []
    value = model.value_function()
    assert value.shape == (32,)
    weighted_sum(logits, value).backward()
    assert_every_parameter_has_a_gradient(model)


def test_model_v2__without_outputs_returns_the_embedding() -> None:
    model = CurlingModelV2(OBS_SPACE, ACTION_SPACES["discrete40"], None, {}, "m", **SMALL)
    out, _ = model({"obs": observations(4)})
    assert out.shape == (4, model.num_outputs) == (4, 32)


def test_module_spec__registry_and_errors() -> None:
    for algo, cls in [("PPO", CurlingActorCritic), ("impala", CurlingActorCritic),
                      ("APPO", CurlingAPPOActorCritic), ("dqn", CurlingQNetwork)]:  # fmt: skip
        spec = module_spec(algo, hiddens=[32])
        assert spec.module_class is cls
        assert spec.model_config["hiddens"] == [32]
        assert spec.model_config["vf_share_layers"] is True
    with pytest.raises(ValueError, match="valid keys"):
        module_spec("ppo", hidens=[32])
    with pytest.raises(ValueError, match="valid"):
        module_spec("sac")
    with pytest.raises(ValueError, match="registered"):
        module_spec("ppo", name="nope")
    with pytest.raises(ValueError, match="pool"):
        module_spec("ppo", pool="sum")


def test_module_spec__builds_from_spaces() -> None:
    spec = module_spec("appo", **SMALL)
    spec.observation_space, spec.action_space = OBS_SPACE, ACTION_SPACES["multidiscrete"]
    module = spec.build()
    out = module.forward_inference({Columns.OBS: observations(4)})
    assert out[Columns.ACTION_DIST_INPUTS].shape == (4, 11)


def test_modules__reject_a_wrong_observation_space() -> None:
    with pytest.raises(ValueError, match="OBS_SIZE|shape"):
        CurlingActorCritic(
            observation_space=gym.spaces.Box(-1, 1, (10,)), action_space=ACTION_SPACES["box3"]
        )


@pytest.mark.parametrize("module", [models, models_v2, network])
def test_docstrings__examples_run(module: object) -> None:
    result = doctest.testmod(module, verbose=False)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("cls", [CurlingActorCritic, CurlingQNetwork])
def test_model_config__unknown_key_is_an_error_naming_the_valid_keys(cls: type) -> None:
    unknown = r"unknown curling_net model_config key 'hidens' \(did you mean 'hiddens'\?\)"
    with pytest.raises(ValueError, match=unknown):
        cls(observation_space=OBS_SPACE, action_space=gym.spaces.Discrete(38),
            model_config={"hidens": [8]})  # fmt: skip


def test_model_config__rllibs_own_keys_are_accepted_and_ignored() -> None:
    ours = {**SMALL, "vf_share_layers": False}
    config = {**ours, "fcnet_hiddens": [512], "max_seq_len": 20}
    module = CurlingActorCritic(
        observation_space=OBS_SPACE, action_space=gym.spaces.Discrete(38), model_config=config
    )
    plain = CurlingActorCritic(
        observation_space=OBS_SPACE, action_space=gym.spaces.Discrete(38), model_config=ours
    )
    assert hasattr(module, "critic_encoder")  # our vf_share_layers=False was honoured
    shapes = [tuple(p.shape) for p in module.parameters()]
    assert shapes == [tuple(p.shape) for p in plain.parameters()]  # fcnet_hiddens changed nothing
