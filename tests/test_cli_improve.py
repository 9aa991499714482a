"""``curling improve``: one generation of expert iteration (the agent's searched games, its
end-score head or its whole network trained from its weights, a new agent folder), resumed
stage by stage. Slow (Ray, Tune)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from rllib_curling.cli import curling

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture
def no_ray_left() -> Iterator[None]:
    """Reading the data starts Ray in this process: stop it, for the next files' own sessions."""
    yield
    import ray

    ray.shutdown()


def test_improve__a_generation_from_an_agent_then_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture, no_leftover_servers: None, no_ray_left: None
) -> None:
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.offline.dataset import read_rows
    from rllib_curling.rl.checkpoints import agent_info
    from rllib_curling.win_odds import END_SCORES

    argv = ["improve", "builtin", str(tmp_path / "gen"), "--games", "2", "--ends", "1",
            "--train", "network", "--iterations", "1", "--opponents", "2",
            "--gate-games", "2"]  # fmt: skip
    assert curling.main(argv) == 0
    rows = list(read_rows(tmp_path / "gen" / "data"))
    assert len(rows) == 2 * 8  # the teacher's 8 stones of each 1-end game
    agent = tmp_path / "gen" / "agent"
    assert agent_info(agent)["search"] == agent_info("builtin")["search"]
    assert "curling improve" in (agent / "MODEL_CARD.md").read_text(encoding="utf-8")
    # BC started from the builtin's weights: after one iteration its value head still agrees
    # with the builtin's (a fresh network's would not: correlation about 0),
    obs = np.random.default_rng(0).uniform(-1, 1, (64, rows[0]["obs"].shape[0]))
    obs = np.concatenate([np.stack([r["obs"] for r in rows]), obs]).astype(np.float32)
    old, new = load_policy("builtin"), load_policy(agent)
    assert np.corrcoef(old.values(obs), new.values(obs))[0, 1] > 0.8
    # and its end-score head, trained on the ends' scores too, from the builtin's (a fresh
    # head's mean would not correlate; one iteration at BC's rate moves this head more)
    assert new.has_end_scores
    mean = [p.end_scores(obs) @ END_SCORES for p in (old, new)]
    assert np.corrcoef(*mean)[0, 1] > 0.5
    # the gate: the new agent against builtin, 2 games with the hammer alternating
    gate = json.loads((tmp_path / "gen" / "gate" / "gate.json").read_text())
    assert gate["games"] == 2 and gate["wins"] + gate["draws"] + gate["losses"] == 2
    assert gate["kept"] == (gate["score"] >= 0.55)
    assert "Gate: against builtin" in (agent / "MODEL_CARD.md").read_text(encoding="utf-8")
    err = capsys.readouterr().err
    assert "4/4 gate" in err and ("kept (" in err or "not kept (" in err)
    assert curling.main(argv) == 0  # again: every stage is done, nothing is played or trained
    err = capsys.readouterr().err
    assert "0 shards to play" in err and "trained already" in err and "gate 1/1" not in err


def test_improve__builtin_by_default_trains_its_end_score_head_alone_then_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture, no_leftover_servers: None, no_ray_left: None
) -> None:
    import torch

    from rllib_curling.rl.checkpoints import WEIGHTS_FILE, agent_info, find_checkpoint

    argv = ["improve", "builtin", str(tmp_path / "gen"), "--games", "2", "--ends", "1",
            "--opponents", "2", "--gate-games", "0"]  # fmt: skip
    assert curling.main(argv) == 0
    err = capsys.readouterr().err
    assert "2/3 network: the end-score head alone, from builtin's weights, 5 passes over 16 " in err
    assert err.count("  head epoch ") == 5
    agent = tmp_path / "gen" / "agent"
    assert agent_info(agent)["search"] == agent_info("builtin")["search"]
    assert "the end-score head alone" in (agent / "MODEL_CARD.md").read_text(encoding="utf-8")
    old = torch.load(find_checkpoint("builtin") / WEIGHTS_FILE)
    new = torch.load(agent / WEIGHTS_FILE)
    assert old.keys() == new.keys()
    for name, weights in old.items():  # the policy and the value head as they were
        assert torch.equal(weights, new[name]) != name.startswith("end_score."), name
    assert curling.main(argv) == 0  # again: every stage is done, nothing is played or trained
    err = capsys.readouterr().err
    assert "0 shards to play" in err and "head is trained already" in err and "epoch" not in err


def test_improve__what_cannot_train_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    shots = str(ROOT / "measurements" / "agents" / "readme-network")
    for argv, says in [
        (["builtin", "--train", "end-score", "--iterations", "3"], "--iterations counts BC's"),
        ([shots, "--train", "end-score"], "--train end-score trains the head of a network over"),
    ]:
        assert curling.main(["improve", argv[0], str(tmp_path / "gen"), *argv[1:]]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"curling improve: {says}") and err.count("\n") == 1
    assert not (tmp_path / "gen").exists()


def test_improve__a_shot_network_generation_starts_from_its_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture, no_leftover_servers: None, no_ray_left: None
) -> None:
    from rllib_curling.agent.policy import load_policy

    teacher = str(ROOT / "measurements" / "agents" / "readme-network")
    argv = ["improve", teacher, str(tmp_path / "gen"), "--games", "2", "--ends", "1",
            "--opponents", "2", "--gate-games", "0"]  # fmt: skip
    assert curling.main(argv) == 0
    err = capsys.readouterr().err
    assert "over the shots actions" in err and "from " in err and "a new network" not in err
    # no --iterations: 80 passes over the data, at least one iteration (16 rows: one)
    assert "1 iterations over 16 positions" in err
    assert load_policy(tmp_path / "gen" / "agent").mode == "shots"


def test_improve__a_missing_agent_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert curling.main(["improve", str(tmp_path / "nope"), str(tmp_path / "gen")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("curling improve: no checkpoint directory") and err.count("\n") == 1
