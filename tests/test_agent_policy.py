"""A trained policy, loaded to play (``agent.policy``): ``load_policy`` finds the checkpoint once
and gives a ``LoadedPolicy`` (its mode, its value head, its search defaults; its actions,
proposals and probabilities, for every action mode the shot set's included); importing it stays
light (no Ray, no torch)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from agent_helpers import TEMPLATES, last_stone_tied, saved_module, saved_shot_module

from rllib_curling import observation, sheet
from rllib_curling.agent.policy import LoadedPolicy, SearchDefaults, SearchEffort, load_policy
from rllib_curling.env.spaces import observe
from rllib_curling.rl import checkpoints
from rllib_curling.rl.checkpoints import AGENT_FILE, agent_info, export_agent

BOX = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)


def test_loaded_policy__says_what_it_plays_from_its_space(tmp_path: Path) -> None:
    templates = load_policy(saved_module(tmp_path / "ppo"))
    assert isinstance(templates, LoadedPolicy)
    assert templates.path == (tmp_path / "ppo").resolve()
    assert (templates.mode, templates.sweep, templates.masked) == ("discrete", False, False)
    assert templates.action_space == TEMPLATES and templates.has_values
    assert templates.agent_info is None  # an RLlib checkpoint, not an agent folder
    assert templates.search_defaults == SearchDefaults(k=0, value_weight=0.0)  # no search
    sweeping = load_policy(saved_module(tmp_path / "box", space=gym.spaces.Box(-1, 1, (4,))))
    assert (sweeping.mode, sweeping.sweep) == ("continuous", True)
    dqn = load_policy(saved_module(tmp_path / "dqn", "dqn"))
    assert not dqn.has_values
    with pytest.raises(ValueError, match="no value head"):
        dqn.values(np.zeros((1, observation.OBS_SIZE), np.float32))


def test_load_policy__finds_the_checkpoint_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = saved_module(tmp_path / "module")
    agent = export_agent(source, tmp_path / "agent", search={"k": 2})
    found: list[object] = []
    real = checkpoints.find_checkpoint

    def find_checkpoint(checkpoint: object) -> Path:
        found.append(checkpoint)
        return real(checkpoint)

    monkeypatch.setattr(checkpoints, "find_checkpoint", find_checkpoint)
    for path in (source, agent):
        found.clear()
        load_policy(path)
        assert found == [path]


def test_search_defaults__read_from_the_agent_folder(tmp_path: Path) -> None:
    source = saved_module(tmp_path / "module")
    agent = export_agent(source, tmp_path / "agent", search={"k": 4, "value_weight": 0.25})
    policy = load_policy(agent)
    assert policy.agent_info == agent_info(agent)
    assert policy.search_defaults == SearchDefaults(k=4, value_weight=0.25)
    assert policy.search_defaults.as_dict() == agent_info(agent)["search"]
    bare = export_agent(source, tmp_path / "bare")  # an agent folder that says nothing
    assert load_policy(bare).search_defaults == SearchDefaults()


def test_search_defaults__of_an_agents_info_and_its_checks() -> None:
    assert SearchDefaults.of(None) is None and SearchDefaults.of({"format": 1}) is None
    assert SearchDefaults.of({"search": {}}) is None
    assert SearchDefaults.of({"search": {"k": 2}}) == SearchDefaults(k=2, value_weight=0.0)
    defaults = SearchDefaults(k=8, value_weight=0.6)
    assert SearchDefaults.of({"search": defaults.as_dict()}) == defaults
    with pytest.raises(ValueError, match=r"unknown \['depth'\]; valid keys: \['k', 'value_w"):
        SearchDefaults.of({"search": {"k": 2, "depth": 3}})
    with pytest.raises(ValueError, match="value_weight must be in"):
        SearchDefaults(k=2, value_weight=1.5)
    with pytest.raises(ValueError, match="k must be at least 0"):
        SearchDefaults(k=-1)
    shared = SearchDefaults(k=8, value_weight=0.6, end_score_share=0.5)
    assert shared.as_dict() == {"k": 8, "value_weight": 0.6, "end_score_share": 0.5}
    assert SearchDefaults.of({"search": shared.as_dict()}) == shared
    assert "end_score_share" not in defaults.as_dict()  # older agents' agent.json unchanged
    with pytest.raises(ValueError, match=r"end_score_share must be in \[0, 1\], got 1.5"):
        SearchDefaults(k=2, value_weight=0.5, end_score_share=1.5)


def test_search_effort__read_from_agent_json_and_applied_to_the_agents_spec(
    tmp_path: Path,
) -> None:
    from rllib_curling.agent.player import PolicyPlayer
    from rllib_curling.agent.search import AGENT_SPEC

    effort = {"top_k": 32, "reply_top": 6, "reply_samples": 16}
    defaults = SearchDefaults.of({"search": {"k": 4, "value_weight": 0.0, "effort": effort}})
    assert defaults is not None and defaults.effort == SearchEffort(**effort)
    assert defaults.as_dict() == {"k": 4, "value_weight": 0.0, "effort": effort}
    assert "effort" not in SearchDefaults(k=4).as_dict()  # older folders read as they were
    spec = defaults.effort.applied(AGENT_SPEC)
    assert (spec.top_k, spec.reply_top, spec.reply_samples) == (32, 6, 16)
    assert (spec.samples, spec.reply) == (AGENT_SPEC.samples, AGENT_SPEC.reply)  # not set: kept
    source = saved_module(tmp_path / "module")
    agent = export_agent(source, tmp_path / "agent", search=defaults.as_dict())
    search = PolicyPlayer.from_checkpoint(str(agent)).search
    assert search is not None and search._search.spec == spec
    searched = PolicyPlayer.from_checkpoint(str(agent), samples=3).search
    assert searched is not None and searched._search.spec.samples == 3  # --samples wins


def test_search_effort__unknown_fields_and_bad_numbers_are_one_line_errors() -> None:
    with pytest.raises(ValueError, match=r"unknown \['depth'\]; valid keys: \['top_k', "):
        SearchDefaults.of({"search": {"k": 2, "effort": {"depth": 3}}})
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="top_k must be a whole number >= 0") as err:
            SearchEffort(top_k=bad)  # type: ignore[arg-type]
        assert "\n" not in str(err.value)


def test_builtin__has_a_value_head_and_the_search_its_folder_says() -> None:
    policy = load_policy("builtin")
    assert policy.has_values and policy.mode == "discrete"
    assert policy.search_defaults.as_dict() == agent_info("builtin")["search"]
    assert policy.search_defaults.k >= 1


@pytest.mark.parametrize(
    ("algo", "space"),
    [("ppo", TEMPLATES), ("ppo", BOX), ("dqn", TEMPLATES)],
)
def test_propose__the_policys_choice_first_then_distinct_others(
    algo: str, space: gym.Space, tmp_path: Path
) -> None:
    policy = load_policy(saved_module(tmp_path / "module", algo, space))
    obs = observe(last_stone_tied())
    proposals = policy.propose(obs, 5, np.random.default_rng(0))
    assert len(proposals) == 5
    assert all(space.contains(np.asarray(a, dtype=space.dtype)) for a in proposals)
    if isinstance(space, gym.spaces.Discrete):
        assert proposals[0] == policy(obs) and len(set(proposals)) == 5
    else:
        np.testing.assert_allclose(proposals[0], policy(obs), atol=1e-6)
        assert len({tuple(np.round(a, 6)) for a in proposals}) == 5


def test_likely__one_forward_pass_gives_the_ranking_and_its_probabilities(
    tmp_path: Path,
) -> None:
    import torch

    policy = load_policy(saved_module(tmp_path / "module"))
    obs = observe(last_stone_tied())
    forward, calls = policy.module.forward_inference, []
    policy.module.forward_inference = lambda batch: calls.append(1) or forward(batch)
    top, probabilities = policy.likely(obs, 3)
    assert len(calls) == 1
    assert top == policy.propose(obs, 3, np.random.default_rng(0))
    logits = forward({"obs": torch.from_numpy(obs[None].astype(np.float32))})["action_dist_inputs"]
    expected = torch.softmax(logits[0].double(), dim=0).numpy()
    assert probabilities == [float(expected[a]) for a in top]


def test_call__one_observation_or_a_batch(tmp_path: Path) -> None:
    policy = load_policy(saved_module(tmp_path / "module"))
    obs = np.random.default_rng(0).uniform(-1, 1, (3, observation.OBS_SIZE)).astype(np.float32)
    one = policy(obs[0])
    assert isinstance(one, int) and TEMPLATES.contains(one)
    batch = policy(obs)
    assert batch.shape == (3,) and batch[0] == one
    assert policy.values(obs).shape == (3,)
    box = load_policy(saved_module(tmp_path / "box", space=BOX), normalize_actions=False)
    assert box(obs[0]).shape == (3,) and box(obs).shape == (3, 3)
    assert BOX.contains(box(obs[0]))


def test_shots__a_shot_network_plays_legal_shots_of_the_envs_dict(tmp_path: Path) -> None:
    policy = load_policy(saved_shot_module(tmp_path / "shots"))
    assert (policy.mode, policy.sweep, policy.masked) == ("shots", False, True)
    assert policy.has_values
    client = last_stone_tied()
    client.position[0] = sheet.TEE  # a stone in play: its hits are legal
    obs = observe(client, "shots")
    assert set(obs) == {"observations", "action_mask"}
    free = policy(obs["observations"])  # a flat observation: every shot counts as legal
    assert isinstance(free, int)
    obs["action_mask"][free] = 0.0  # the network's own first choice made illegal
    action = policy(obs)
    assert isinstance(action, int) and action != free and obs["action_mask"][action] == 1.0
    proposals = policy.propose(obs, 4, np.random.default_rng(0))
    assert proposals[0] == action and free not in proposals
    assert all(obs["action_mask"][a] == 1.0 for a in proposals)
    top, probabilities = policy.likely(obs, 3)
    assert top == proposals[:3] and probabilities is not None and probabilities[0] > 0
    assert policy.values(obs["observations"][None]).shape == (1,)


def test_load_policy__explains_bad_paths(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_policy(tmp_path / "missing")
    (tmp_path / "policies" / "default_policy").mkdir(parents=True)
    with pytest.raises(ValueError, match="old-API-stack"):
        load_policy(tmp_path)
    shutil.rmtree(tmp_path / "policies")
    with pytest.raises(FileNotFoundError, match="no RLlib checkpoint"):
        load_policy(tmp_path)
    agent = export_agent(saved_module(tmp_path / "module"), tmp_path / "agent")
    info = json.loads((agent / AGENT_FILE).read_text())
    (agent / AGENT_FILE).write_text(json.dumps({**info, "search": {"k": 2, "depth": 3}}))
    with pytest.raises(ValueError, match="unknown"):
        load_policy(agent)


def test_policy_module__imports_neither_ray_nor_torch() -> None:
    script = (
        "import sys, json\n"
        "import rllib_curling.agent, rllib_curling.agent.policy\n"
        "print(json.dumps([m for m in ('ray', 'torch') if m in sys.modules]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == []


def test_committed_shot_network__wins_the_tied_last_end_with_its_hammer_stone() -> None:
    """``measurements/agents/shot-network`` (issue 32's network alone, committed with its model
    card) loads as an agent folder and, with the last stone of a tied game and an empty house,
    draws into the house: thrown without noise, the game is won."""
    from rllib_curling.agent.search import AgentBot
    from rllib_curling.game import Game, GameConfig, GameState, Result

    folder = Path(__file__).resolve().parents[1] / "measurements" / "agents" / "shot-network"
    policy = load_policy(folder)
    assert (policy.mode, policy.masked, policy.search_defaults.k) == ("shots", True, 0)
    state = GameState(shot=15, end=2, first_seat=0, end_scores=((1, 0), (0, 1)),
                      config=GameConfig(ends=3))  # fmt: skip
    seat = state.next_seat
    throw = AgentBot(policy).choose(state, np.random.default_rng(0))
    after = Game.step(state, throw, noise=False).resolve()
    assert after.is_terminal and after.result_for(seat) == Result.WIN
