"""The player of a trained agent (``agent.player``): a policy or its search as a client's
player, the search an agent folder asks for, the commands' search options, ``curling play
--explain``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from agent_helpers import TEMPLATES, THROW_AWAY, last_stone_tied, saved_module
from rllib_helpers import announced_server

from rllib_curling import sheet
from rllib_curling.agent.player import PolicyPlayer, agent_bot
from rllib_curling.agent.policy import LoadedPolicy
from rllib_curling.agent.search import (
    EXPLAIN_CANDIDATES,
    EXPLAIN_TOP,
    AgentBot,
    PolicySearch,
    game_state,
    learned_leaf,
)
from rllib_curling.env.spaces import observe, throw_space
from rllib_curling.errors import ConfigError
from rllib_curling.rl.checkpoints import export_agent

pytest_plugins = ("server_fixtures",)  # start_server


def test_player__searches_only_when_asked() -> None:
    player = PolicyPlayer(lambda obs: THROW_AWAY, TEMPLATES)
    client = last_stone_tied()
    assert player.search is None and player.act(observe(client), client) == THROW_AWAY
    with pytest.raises(ConfigError, match="a search needs a policy loaded"):
        PolicyPlayer(lambda obs: 0, TEMPLATES, PolicySearch(4))


def test_player__loaded_reaches_the_loaded_policy_and_refuses_a_plain_function(
    tmp_path: Path,
) -> None:
    player = PolicyPlayer.from_checkpoint(str(saved_module(tmp_path / "module")))
    assert isinstance(player.loaded(), LoadedPolicy) and player.loaded() is player.policy
    with pytest.raises(ValueError, match="plain function"):
        PolicyPlayer(lambda obs: THROW_AWAY, TEMPLATES).loaded()


def test_player__a_searching_player_acts_with_throws(tmp_path: Path) -> None:
    module = saved_module(tmp_path / "module")
    player = PolicyPlayer.from_checkpoint(str(module), search=2, samples=2, seed=0)
    assert player.env_config() == {"action": "throw", "sweep": False}
    client = last_stone_tied()
    action = player.act(observe(client), client)
    assert throw_space().contains(action.astype(np.float32))
    assert PolicyPlayer.from_checkpoint(str(module)).search is None  # a checkpoint: no search
    dqn = saved_module(tmp_path / "dqn", "dqn")
    with pytest.raises(ValueError, match="value head"):
        PolicyPlayer.from_checkpoint(str(dqn), search=2, value_weight=0.5)


def test_player__an_agent_folder_searches_as_it_says_unless_told(tmp_path: Path) -> None:
    source = saved_module(tmp_path / "module")
    agent = export_agent(source, tmp_path / "agent", search={"k": 3, "value_weight": 0.4})
    player = PolicyPlayer.from_checkpoint(str(agent), samples=2)
    assert player.search is not None
    assert (player.search.k, player.search.samples, player.search.value_weight) == (3, 2, 0.4)
    assert player.search.leaf_value is not None  # the learned value, weighted
    told = PolicyPlayer.from_checkpoint(str(agent), search=5, value_weight=0.0)
    assert told.search is not None and (told.search.k, told.search.value_weight) == (5, 0.0)
    assert told.search.leaf_value is None
    assert PolicyPlayer.from_checkpoint(str(agent), search=0).search is None  # --no-search


def test_player__an_agent_folder_with_an_end_score_head_judges_by_both_heads(
    tmp_path: Path,
) -> None:
    source = saved_module(tmp_path / "module", end_score_hiddens=[16])
    search = {"k": 2, "value_weight": 0.6, "end_score_share": 0.5}
    agent = export_agent(source, tmp_path / "agent", search=search)
    player = PolicyPlayer.from_checkpoint(str(agent), samples=2)
    assert player.search is not None and player.search.leaf_value is not None
    client = last_stone_tied()
    state, positions = game_state(client), np.zeros((2, 16, 2))
    positions[1, 0] = (sheet.TEE_X, sheet.TEE_Y)
    expected = learned_leaf(player.loaded(), 0.5)(state, positions, 13)
    np.testing.assert_allclose(player.search.leaf_value(state, positions, 13), expected)
    assert not np.allclose(expected, learned_leaf(player.loaded())(state, positions, 13))
    headless = export_agent(saved_module(tmp_path / "plain"), tmp_path / "headless", search=search)
    with pytest.raises(ConfigError, match="end_score_share > 0 needs a network with an end-score"):
        PolicyPlayer.from_checkpoint(str(headless))


def test_agent_bot__the_agent_as_it_plays_by_default(tmp_path: Path) -> None:
    agent = export_agent(saved_module(tmp_path / "module"), tmp_path / "agent", search={"k": 2})
    bot = agent_bot(str(agent), samples=2)
    assert isinstance(bot, AgentBot) and bot.name == f"agent {agent}"
    assert isinstance(bot.policy, LoadedPolicy) and bot.policy.path == agent.resolve()
    assert bot.search is not None and (bot.search.k, bot.search.samples) == (2, 2)
    assert agent_bot(str(agent), search=0, name="alone").search is None


@pytest.mark.parametrize(
    "argv",
    [
        ["curling", "play", "--checkpoint", "ckpt"],
        ["curling", "rate", "2", "ckpt"],
        ["rllib", "evaluate", "ckpt"],
    ],
)
def test_commands__take_search_and_samples(argv: list[str], capsys: pytest.CaptureFixture) -> None:
    from rllib_curling.cli import curling, rllib

    parser = (curling if argv[0] == "curling" else rllib).build_parser()
    args = parser.parse_args([*argv[1:], "--search", "8", "--samples", "3"])
    assert (args.search, args.samples) == (8, 3)
    assert parser.parse_args(argv[1:]).search is None  # the agent's own default
    assert parser.parse_args([*argv[1:], "--no-search"]).search == 0
    assert parser.parse_args([*argv[1:], "--value-weight", "0.3"]).value_weight == 0.3
    with pytest.raises(SystemExit):
        parser.parse_args([*argv[1:], "--search", "0"])
    assert "must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parser.parse_args([*argv[1:], "--value-weight", "1.5"])
    assert "between 0 and 1" in capsys.readouterr().err


@pytest.mark.slow
def test_curling_play__explain_writes_why_into_the_record(tmp_path: Path) -> None:
    import subprocess
    import sys

    from rllib_curling.server.web.replay import read_record_lines, replay_hub

    record = tmp_path / "mine.jsonl"
    with announced_server(games=1, ends=1) as (host, port):
        play = subprocess.run(
            [sys.executable, "-m", "rllib_curling", "play", "--checkpoint", "builtin", "-H", host,
             "-p", port, "-k", "localtest:1", "--record", str(record), "--explain"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert play.returncode == 0, play.stderr
    records = read_record_lines(record)
    (start,) = [r for r in records if r["type"] == "game_start"]
    seat = start["kinds"].index("this client")
    mine = [r for r in records if r["type"] == "shot" and r["thrower"] == seat]
    assert len(mine) == 8
    for shot in mine:
        assert len(shot["throw_sent"]) == 3 and 0.0 <= shot["explain"]["win"] <= 1.0
        assert len(shot["explain"]["top"]) == EXPLAIN_TOP
        assert len(shot["explain"]["judged"]) == EXPLAIN_CANDIDATES
    assert replay_hub(record).games()[0]["shots"] == 16  # curling replay shows it
    no_sink = subprocess.run(
        [sys.executable, "-m", "rllib_curling", "play", "--checkpoint", "builtin", "--explain"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert no_sink.returncode == 2 and "--explain shows on --watch" in no_sink.stderr


class _Draw:
    """A player that draws every stone (``play_session`` asks only ``throw``)."""

    explanation = None

    def throw(self, client: object) -> tuple[float, float, float, float]:
        client.throw(3.0, 0.0, 0.0)  # type: ignore[attr-defined]
        return (3.0, 0.0, 0.0, 0.0)


def test_play_session__says_why_it_waits_in_a_lobby_then_plays(start_server: Any) -> None:
    import threading

    from server_helpers import RawClient

    from rllib_curling.agent.player import WAITING_HINT_S, play_session
    from rllib_curling.client import CurlingClient

    server = start_server(ends=1, games=1)
    port = server.address[1]
    client = CurlingClient("127.0.0.1", port, key="localtest", name="lobby", timeout=30)
    client.connect()
    waited: list[float] = []
    opened = time.monotonic()
    games: list[int] = []

    def second_client() -> None:  # the opponent comes once the first said it waits
        other = RawClient(port, "localtest", name="second")
        other.play()
        other.close()

    def on_waiting() -> None:
        waited.append(time.monotonic() - opened)
        threading.Thread(target=second_client, daemon=True).start()

    try:
        played = play_session(_Draw(), client, lambda n, c: games.append(n), None, on_waiting)  # type: ignore[arg-type]
    finally:
        client.close()
    assert played == 1 and games == [1]
    assert len(waited) == 1 and WAITING_HINT_S <= waited[0] < WAITING_HINT_S + 2


def test_play_session__no_hint_when_the_game_starts_at_once(start_server: Any) -> None:
    from rllib_curling.agent.player import play_session
    from rllib_curling.client import CurlingClient

    server = start_server(ends=1, games=1)
    client = CurlingClient("127.0.0.1", server.address[1], key="localtest:1", timeout=30)
    client.connect()
    waited: list[int] = []
    try:
        played = play_session(_Draw(), client, lambda n, c: None, None, lambda: waited.append(1))  # type: ignore[arg-type]
    finally:
        client.close()
    assert played == 1 and waited == []


def test_waiting_hint__tells_a_lobby_key_how_to_play_a_level() -> None:
    from rllib_curling.cli.commands.play import waiting_hint

    hint = waiting_hint("localtest", 3.0)
    assert hint.startswith("no game yet after 3 s, still waiting: curling server keeps a key ")
    assert "-k localtest:N plays its built-in AI N (1-8)" in hint
    assert "click Ready and Start" in hint
    assert "the server has no free seat or opponent yet" in waiting_hint("localtest:2", 3.0)
