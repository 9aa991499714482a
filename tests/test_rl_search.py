"""The agent's search (``rl.search``, ``--search K``): the game as the client sees it, the
policy's proposals, a search that prefers the shot that wins, the learned value at its leaves
(no server, no Ray cluster)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from rllib_curling import observation, physics, rules, sheet
from rllib_curling.aiming.templates import TEMPLATE_NAMES
from rllib_curling.bots.evaluation import EvalContext
from rllib_curling.client import CurlingClient
from rllib_curling.env.spaces import my_parity, observe, throw_for, throw_space
from rllib_curling.rl import search
from rllib_curling.rl.checkpoints import load_policy
from rllib_curling.rl.models import module_spec
from rllib_curling.rl.policy_player import PolicyPlayer
from rllib_curling.rl.search import PolicySearch, game_state

THROW_AWAY = TEMPLATE_NAMES.index("throw away")
DRAW_BUTTON = TEMPLATE_NAMES.index("draw button w+")
OBS_SPACE = gym.spaces.Box(-4.0, 4.0, (observation.OBS_SIZE,), np.float32)
SMALL = {"stone_hiddens": [16, 16], "context_hiddens": [8], "hiddens": [32]}


def seen_client(
    seat: int, state: tuple[int, int, int, int], end_scores: list[int], position: np.ndarray
) -> CurlingClient:
    """A client that has seen SETSTATE ``state`` and this game's SCOREs (its view), never
    connected."""
    client = CurlingClient("127.0.0.1", 1)
    client.seat, client.state, client.end_scores = seat, state, end_scores
    client.position = position
    return client


def test_game_state__is_the_game_the_client_sees() -> None:
    position = np.zeros((16, 2))
    position[0] = (sheet.TEE[0], sheet.TEE[1] - 1.0)
    # Player2 (seat 1), end 3 of 4, shot 5 to throw by seat 1; it leads 3-1
    client = seen_client(1, (5, 2, 4, 1), [2, -1, 1], position)
    state = game_state(client)
    assert state.next_seat == 1 and state.shot == 5 and state.end == 2
    assert state.totals == (1, 3)  # (Player1, Player2)
    assert state.config.ends == 4
    np.testing.assert_array_equal(state.position, position)
    assert state.seat_parity(1) == my_parity(client) == 1  # seat 1 throws the odd stones
    ctx = EvalContext.of(state)  # what level 8 judges with
    assert (ctx.parity, ctx.n_left, ctx.hammer, ctx.diff, ctx.ends_after) == (1, 10, True, 2, 1)


def test_game_state__first_end_and_unlimited_games() -> None:
    client = seen_client(0, (0, 0, -1, 0), [], np.zeros((16, 2)))
    state = game_state(client)
    assert state.totals == (0, 0) and state.config.unlimited and state.first_seat == 0
    assert EvalContext.of(state).ends_after == -1


def last_stone_tied() -> CurlingClient:
    """Our hammer stone of the last end, the game tied and the house empty: a draw into the
    house wins the game, a throw-away draws it."""
    return seen_client(1, (15, 3, 4, 1), [1, -1, 2, -2], np.zeros((16, 2)))


def test_search__prefers_the_shot_that_wins_over_the_policys_first_choice() -> None:
    client = last_stone_tied()

    def propose(obs: np.ndarray, k: int, rng: np.random.Generator) -> list[int]:
        return [THROW_AWAY, DRAW_BUTTON][:k]

    obs = observe(client)
    tables = PolicyPlayer(lambda o: 0, gym.spaces.Discrete(2)).tables
    throw_of = {a: throw_for(a, client, "discrete", tables) for a in (THROW_AWAY, DRAW_BUTTON)}
    alone = PolicySearch(1, samples=4, seed=0, level_candidates=False)
    assert alone.choose(propose, obs, client, "discrete", tables) == throw_of[THROW_AWAY]
    both = PolicySearch(2, samples=4, seed=0, level_candidates=False)
    assert both.choose(propose, obs, client, "discrete", tables) == throw_of[DRAW_BUTTON]


def test_search__level_8s_candidates_find_the_win_the_policy_missed() -> None:
    client = last_stone_tied()
    tables = PolicyPlayer(lambda o: 0, gym.spaces.Discrete(2)).tables
    plan = PolicySearch(1, samples=4, seed=0)  # proposes only the throw-away
    throw = plan.choose(lambda o, k, r: [THROW_AWAY], observe(client), client, "discrete", tables)
    assert throw != throw_for(THROW_AWAY, client, "discrete", tables)
    after = physics.simulate(client.position, 15, throw[:3], noise=False).position
    assert rules.score_end(after)[1] >= 1  # our stone (seat 1 throws the odd rows) scores


def test_search__bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="k >= 1"):
        PolicySearch(0)
    with pytest.raises(ValueError, match="samples >= 1"):
        PolicySearch(4, samples=0)


def test_search__samples_reach_the_re_judging(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real_rank = search.SearchBot.rank

    def rank(self: search.SearchBot, state: object, rng: np.random.Generator) -> object:
        seen.append(self.spec.samples)
        return real_rank(self, state, rng)

    monkeypatch.setattr(search.SearchBot, "rank", rank)
    client = last_stone_tied()
    tables = PolicyPlayer(lambda o: 0, gym.spaces.Discrete(2)).tables
    PolicySearch(2, samples=3, seed=0).choose(
        lambda obs, k, rng: [THROW_AWAY, DRAW_BUTTON], observe(client), client, "discrete", tables
    )
    assert seen == [3]


@pytest.mark.parametrize(
    ("algo", "space"),
    [
        ("ppo", gym.spaces.Discrete(65)),
        ("ppo", gym.spaces.Box(-1.0, 1.0, (3,))),
        ("dqn", gym.spaces.Discrete(65)),
    ],
)
def test_propose__the_policys_choice_first_then_distinct_others(
    algo: str, space: gym.Space, tmp_path: Path
) -> None:
    spec = module_spec(algo, **SMALL)
    spec.observation_space, spec.action_space = OBS_SPACE, space
    spec.build().save_to_path(tmp_path / "module")
    policy = load_policy(tmp_path / "module")
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

    spec = module_spec("ppo", **SMALL)
    spec.observation_space, spec.action_space = OBS_SPACE, gym.spaces.Discrete(65)
    spec.build().save_to_path(tmp_path / "module")
    policy = load_policy(tmp_path / "module")
    obs = observe(last_stone_tied())
    forward, calls = policy.module.forward_inference, []
    policy.module.forward_inference = lambda batch: calls.append(1) or forward(batch)
    top, probabilities = policy.likely(obs, 3)
    assert len(calls) == 1
    assert top == policy.propose(obs, 3, np.random.default_rng(0))
    logits = forward({"obs": torch.from_numpy(obs[None].astype(np.float32))})["action_dist_inputs"]
    expected = torch.softmax(logits[0].double(), dim=0).numpy()
    assert probabilities == [float(expected[a]) for a in top]


def test_player__searches_only_when_asked() -> None:
    player = PolicyPlayer(lambda obs: THROW_AWAY, gym.spaces.Discrete(65))
    client = last_stone_tied()
    assert player.search is None and player.act(observe(client), client) == THROW_AWAY
    with pytest.raises(ValueError, match="--search"):
        PolicyPlayer(lambda obs: 0, gym.spaces.Discrete(65), PolicySearch(4))


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


def test_leaf_value__reads_the_value_from_the_next_throwers_view() -> None:
    client = seen_client(1, (6, 2, 4, 0), [1, -1], np.zeros((16, 2)))  # seat 0 throws stone 6
    state = game_state(client)
    seen: list[np.ndarray] = []

    def values(obs: np.ndarray) -> np.ndarray:
        seen.append(obs)
        return np.array([0.5, -1.0, 3.0])

    leaf = search.module_leaf_value(values)
    positions = np.zeros((3, 16, 2))
    chance = leaf(state, positions, 6)  # after stone 6 (seat 0's), seat 1 throws stone 7
    np.testing.assert_allclose(chance, [1 - 0.75, 1 - 0.0, 1 - 1.0])
    expected = observation.encode_observation(positions[0], 7, 2, 4, state.seat_parity(1), 0)
    np.testing.assert_array_equal(seen[0][0], expected)


def test_search__learned_value_changes_the_choice_when_weighted() -> None:
    # Our (seat 1) stone 13 of the last end, tied, house empty: keeping it clean with the hammer
    # is level 8's choice; a learned value that wants a stone in play decides once weighted.
    client = seen_client(1, (13, 3, 4, 1), [1, -1, 2, -2], np.zeros((16, 2)))
    state = game_state(client)
    tables = PolicyPlayer(lambda o: 0, gym.spaces.Discrete(2)).tables
    throws = np.array([throw_for(a, client, "discrete", tables) for a in (THROW_AWAY, DRAW_BUTTON)])
    calls: list[int] = []

    def leaf(state: object, positions: np.ndarray, shot: int) -> np.ndarray:
        calls.append(shot)
        return rules.in_play(positions).any(axis=-1).astype(float)

    rng = np.random.default_rng(0)
    spec = dataclasses.replace(search.AGENT_SPEC, samples=2, reply=0)
    plain = search.AgentSearch(throws, spec, level_candidates=False)
    learned = search.AgentSearch(
        throws, spec, level_candidates=False, leaf_value=leaf, value_weight=1.0
    )
    assert plain.rank(state, rng)[1][0] == 0 and not calls
    assert learned.rank(state, rng)[1][0] == 1 and calls == [13, 13]


def test_player__a_searching_player_acts_with_throws(tmp_path: Path) -> None:
    module = tmp_path / "module"
    spec = module_spec("ppo", **SMALL)
    spec.observation_space, spec.action_space = OBS_SPACE, gym.spaces.Discrete(65)
    spec.build().save_to_path(module)
    player = PolicyPlayer.from_checkpoint(str(module), search=2, samples=2, seed=0)
    assert player.env_config() == {"action": "throw", "sweep": False}
    client = last_stone_tied()
    action = player.act(observe(client), client)
    assert throw_space().contains(action.astype(np.float32))
    assert PolicyPlayer.from_checkpoint(str(module)).search is None  # a checkpoint: no search
    with pytest.raises(ValueError, match="value head"):
        dqn = tmp_path / "dqn"
        spec = module_spec("dqn", **SMALL)
        spec.observation_space, spec.action_space = OBS_SPACE, gym.spaces.Discrete(65)
        spec.build().save_to_path(dqn)
        PolicyPlayer.from_checkpoint(str(dqn), search=2, value_weight=0.5)


def test_agent_bot__plays_a_game_in_process_the_same_for_the_same_seed(tmp_path: Path) -> None:
    from rllib_curling.bots import make_bot
    from rllib_curling.bots.matches import play_game
    from rllib_curling.game import GameConfig

    spec = module_spec("ppo", **SMALL)
    spec.observation_space, spec.action_space = OBS_SPACE, gym.spaces.Discrete(65)
    spec.build().save_to_path(tmp_path / "module")
    policy = load_policy(tmp_path / "module")
    plain = search.AgentBot(policy)
    searching = search.AgentBot(policy, PolicySearch(2, samples=2))
    config = GameConfig(ends=1)
    for bot in (plain, searching):
        games = [play_game((bot, make_bot(2)), config, np.random.default_rng(9)) for _ in range(2)]
        assert games[0] == games[1] and games[0].shots == 16
    # the plain bot throws the policy's template; with search it finds scoring draws
    searched = play_game((searching, make_bot(0)), config, np.random.default_rng(3))
    assert searched.totals[0] >= 3


def test_server_agent_seat__a_person_plays_builtin_and_its_explanations_are_recorded(
    tmp_path: Path,
) -> None:
    import json
    import time

    from web_helpers import get_json, http, records_of

    from rllib_curling.cli.commands.server import agent_factories
    from rllib_curling.server import start_server_thread
    from rllib_curling.server.config import ServerConfig

    agents = agent_factories(["builtin"])
    config = ServerConfig(tcp_port=0, http_port=0, seed=3, ends=1, bot_seat=0,
                          log_dir=str(tmp_path))  # fmt: skip
    handle = start_server_thread(config, agents=agents)
    try:
        web = handle.web_url
        assert get_json(web + "api/play")["agents"] == ["builtin"]
        body = json.dumps({"key": handle.play_key, "opponent": "builtin"}).encode()
        status, _, reply = http(web + "api/play", "POST", body)
        assert status == 200, reply
        token = json.loads(reply)["seat"]
        deadline = time.monotonic() + 60
        while (state := get_json(f"{web}api/seats/{token}"))["waiting"] != "throw":
            assert time.monotonic() < deadline and not state["over"]
            time.sleep(0.05)
        http(f"{web}api/seats/{token}/resign", "POST", b"{}")
    finally:
        handle.stop()
    (shot,) = [r for r in records_of(tmp_path) if r["type"] == "shot"]  # the agent threw first
    explain = shot["explain"]
    assert 0.0 <= explain["win"] <= 1.0
    assert len(explain["top"]) == search.EXPLAIN_TOP
    assert all(len(t["throw"]) == 4 and 0.0 < t["p"] <= 1.0 for t in explain["top"])
    assert [t["p"] for t in explain["top"]] == sorted(
        (t["p"] for t in explain["top"]), reverse=True
    )
    assert explain["judged"][0] == [round(x, 4) for x in shot["throw_sent"]]  # it threw its best


@pytest.mark.slow
def test_curling_play__explain_writes_why_into_the_record(tmp_path: Path) -> None:
    import subprocess
    import sys

    from rllib_curling.server.web.replay import read_record_lines, replay_hub

    server = subprocess.Popen(
        [sys.executable, "-m", "rllib_curling", "server", "--tcp-port", "0", "--announce",
         "--games", "1", "--ends", "1", "--exit-with-parent"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    record = tmp_path / "mine.jsonl"
    try:
        assert server.stdout is not None
        _, host, port = server.stdout.readline().split()
        play = subprocess.run(
            [sys.executable, "-m", "rllib_curling", "play", "--checkpoint", "builtin", "-H", host,
             "-p", port, "-k", "localtest:1", "--record", str(record), "--explain"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert play.returncode == 0, play.stderr
    finally:
        server.terminate()
        server.wait(30)
    records = read_record_lines(record)
    (start,) = [r for r in records if r["type"] == "game_start"]
    seat = start["kinds"].index("this client")
    mine = [r for r in records if r["type"] == "shot" and r["thrower"] == seat]
    assert len(mine) == 8
    for shot in mine:
        assert len(shot["throw_sent"]) == 3 and 0.0 <= shot["explain"]["win"] <= 1.0
        assert len(shot["explain"]["top"]) == search.EXPLAIN_TOP
        assert len(shot["explain"]["judged"]) == search.EXPLAIN_CANDIDATES
    assert replay_hub(record).games()[0]["shots"] == 16  # curling replay shows it
    no_sink = subprocess.run(
        [sys.executable, "-m", "rllib_curling", "play", "--checkpoint", "builtin", "--explain"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert no_sink.returncode == 2 and "--explain shows on --watch" in no_sink.stderr


class _FixedPolicy:
    """A policy that always takes ``action`` (what ``AgentBot`` needs of ``load_policy``'s)."""

    def __init__(self, space: gym.Space, action: np.ndarray) -> None:
        self.action_space, self.action = space, action

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        return self.action


def test_agent_bot__maps_actions_as_the_env_does_for_every_mode() -> None:
    from rllib_curling.aiming.tables import shot_tables
    from rllib_curling.env.actions import continuous_throw
    from rllib_curling.game import Game, GameConfig

    state, rng = Game.init(GameConfig(ends=1)), np.random.default_rng(0)
    raw = search.AgentBot(_FixedPolicy(throw_space(), np.array([2.4, 0.1, -1.0])))
    assert raw.choose(state, rng) == (2.4, 0.1, -1.0, 0.0)  # a throw policy's own throw
    action = np.array([0.2, -0.3, 0.5])
    box = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    mapped = search.AgentBot(_FixedPolicy(box, action)).choose(state, rng)
    assert mapped == pytest.approx(continuous_throw(action, shot_tables()))
