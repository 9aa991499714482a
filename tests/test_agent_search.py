"""The agent's search (``agent.search``, ``--search K``): the game as the client sees it, a
search that prefers the shot that wins, the learned value at its leaves, the agent as an
in-process bot (no server, no Ray cluster)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from agent_helpers import (
    DRAW_BUTTON,
    THROW_AWAY,
    last_stone_tied,
    saved_module,
    seen_client,
)

from rllib_curling import observation, physics, rules, sheet, win_table
from rllib_curling.agent import search
from rllib_curling.agent.policy import load_policy
from rllib_curling.agent.search import PolicySearch, game_state
from rllib_curling.aiming.tables import shot_tables
from rllib_curling.bots.evaluation import EvalContext
from rllib_curling.env.spaces import my_parity, observe, throw_for, throw_space
from rllib_curling.game import Game, GameConfig
from rllib_curling.win_odds import N_SCORES, SCORE_MAX


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


def test_search__prefers_the_shot_that_wins_over_the_policys_first_choice() -> None:
    client = last_stone_tied()

    def propose(obs: np.ndarray, k: int, rng: np.random.Generator) -> list[int]:
        return [THROW_AWAY, DRAW_BUTTON][:k]

    obs = observe(client)
    tables = shot_tables()
    throw_of = {a: throw_for(a, client, "discrete", tables) for a in (THROW_AWAY, DRAW_BUTTON)}
    alone = PolicySearch(1, samples=4, seed=0, level_candidates=False)
    assert alone.choose(propose, obs, client, "discrete", tables).throw == throw_of[THROW_AWAY]
    both = PolicySearch(2, samples=4, seed=0, level_candidates=False)
    assert both.choose(propose, obs, client, "discrete", tables).throw == throw_of[DRAW_BUTTON]


def test_search__level_8s_candidates_find_the_win_the_policy_missed() -> None:
    client = last_stone_tied()
    tables = shot_tables()
    plan = PolicySearch(1, samples=4, seed=0)  # proposes only the throw-away
    choice = plan.choose(lambda o, k, r: [THROW_AWAY], observe(client), client, "discrete", tables)
    throw = choice.throw
    assert tuple(choice.judged[0]) == throw  # the judged candidates start with the one thrown
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
    tables = shot_tables()
    PolicySearch(2, samples=3, seed=0).choose(
        lambda obs, k, rng: [THROW_AWAY, DRAW_BUTTON], observe(client), client, "discrete", tables
    )
    assert seen == [3]


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


def test_end_score_leaf__the_chance_to_win_after_each_score_the_mover_may_make() -> None:
    # The last end (index 3 of 4), tied; seat 1 (the hammer) throws stone 13 next, after seat 0's
    # stone 12: scoring wins, being scored on loses, a blank draws.
    client = seen_client(0, (12, 3, 4, 0), [1, -1, 2, -2], np.zeros((16, 2)))
    state = game_state(client)
    probs = np.zeros((3, N_SCORES))
    probs[0, SCORE_MAX + 1] = 1.0  # the mover scores 1
    probs[1, SCORE_MAX - 2] = 1.0  # the mover is scored on
    probs[2, [SCORE_MAX, SCORE_MAX + 3]] = 0.5  # a blank or 3
    seen: list[np.ndarray] = []

    def end_scores(obs: np.ndarray) -> np.ndarray:
        seen.append(obs)
        return probs

    leaf = search.end_score_leaf(end_scores, win_table.load())
    positions = np.zeros((3, 16, 2))
    chance = leaf(state, positions, 12)  # the thrower's (seat 0's) chance
    np.testing.assert_allclose(chance, [0.0, 1.0, 1.0 - 0.75])
    expected = observation.encode_observation(positions[0], 13, 3, 4, state.seat_parity(1), 0)
    np.testing.assert_array_equal(seen[0][0], expected)


def test_end_score_leaf__reads_the_score_difference_and_hammer_from_the_movers_side() -> None:
    client = seen_client(1, (6, 1, 4, 0), [2], np.zeros((16, 2)))  # seat 0 throws stone 6
    state = game_state(client)
    table = win_table.load()
    probs = np.zeros((1, N_SCORES))
    probs[0, SCORE_MAX] = 1.0  # a blank end
    leaf = search.end_score_leaf(lambda obs: probs, table)
    # Seat 1, 2 up, throws stone 7 with the hammer (seat 0 threw first); 2 ends after this.
    mover_after_blank = table.after_end(2, 0, 2, 1)
    np.testing.assert_allclose(leaf(state, np.zeros((1, 16, 2)), 6), [1.0 - mover_after_blank])


def test_learned_leaf__blends_the_two_heads_by_the_share_and_names_a_missing_head(
    tmp_path: Path,
) -> None:
    plain = load_policy(saved_module(tmp_path / "plain"))
    with pytest.raises(ValueError, match="end_score_share > 0 needs a network with an end-score"):
        search.learned_leaf(plain, 0.5)
    both = load_policy(saved_module(tmp_path / "both", end_score_hiddens=[16]))
    client = seen_client(1, (6, 1, 4, 0), [2], np.zeros((16, 2)))
    state, positions = game_state(client), np.zeros((2, 16, 2))
    positions[1, 0] = (sheet.TEE_X, sheet.TEE_Y)
    value = search.module_leaf_value(both.values)(state, positions, 6)
    scores = search.end_score_leaf(both.end_scores, win_table.load())(state, positions, 6)
    assert not np.allclose(value, scores)
    np.testing.assert_allclose(search.learned_leaf(both)(state, positions, 6), value)
    np.testing.assert_allclose(search.learned_leaf(both, 1.0)(state, positions, 6), scores)
    blend = search.learned_leaf(both, 0.25)(state, positions, 6)
    np.testing.assert_allclose(blend, 0.25 * scores + 0.75 * value)


def test_search__learned_value_changes_the_choice_when_weighted() -> None:
    # Our (seat 1) stone 13 of the last end, tied, house empty: keeping it clean with the hammer
    # is level 8's choice; a learned value that wants a stone in play decides once weighted.
    client = seen_client(1, (13, 3, 4, 1), [1, -1, 2, -2], np.zeros((16, 2)))
    state = game_state(client)
    tables = shot_tables()
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


def test_agent_bot__plays_a_game_in_process_the_same_for_the_same_seed(tmp_path: Path) -> None:
    from rllib_curling.bots import make_bot
    from rllib_curling.bots.matches import play_game
    from rllib_curling.game import GameConfig

    policy = load_policy(saved_module(tmp_path / "module"))
    plain = search.AgentBot(policy)
    searching = search.AgentBot(policy, PolicySearch(2, samples=2))
    config = GameConfig(ends=1)
    for bot in (plain, searching):
        games = [play_game((bot, make_bot(2)), config, np.random.default_rng(9)) for _ in range(2)]
        assert games[0] == games[1] and games[0].shots == 16
    # the plain bot throws the policy's template; with search it finds scoring draws
    searched = play_game((searching, make_bot(0)), config, np.random.default_rng(3))
    assert searched.totals[0] >= 3


class _FixedPolicy:
    """A policy that always takes ``action`` (what ``AgentBot`` needs of ``load_policy``'s)."""

    def __init__(self, space: gym.Space, action: np.ndarray) -> None:
        self.action_space, self.action = space, action

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        return self.action


def test_agent_bot__maps_actions_as_the_env_does_for_every_mode() -> None:
    from rllib_curling.env.actions import continuous_throw
    from rllib_curling.game import Game, GameConfig

    state, rng = Game.init(GameConfig(ends=1)), np.random.default_rng(0)
    raw = search.AgentBot(_FixedPolicy(throw_space(), np.array([2.4, 0.1, -1.0])))
    assert raw.choose(state, rng) == (2.4, 0.1, -1.0, 0.0)  # a throw policy's own throw
    action = np.array([0.2, -0.3, 0.5])
    box = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    mapped = search.AgentBot(_FixedPolicy(box, action)).choose(state, rng)
    assert mapped == pytest.approx(continuous_throw(action, shot_tables()))


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


def test_shot_teacher__screen_labels_play_the_screens_best_with_the_learned_value() -> None:
    state = Game.init(GameConfig(ends=2))
    for _ in range(3):
        state = Game.step(state, (3.1, 0.0, 1.57, 0.0), np.random.default_rng(3)).state
    teacher = search.shot_teacher("builtin", labels="screen")
    full = search.shot_teacher("builtin")
    assert teacher.search.value_weight == full.search.value_weight > 0  # builtin's blend
    assert full.search.spec.top_k == search.AGENT_SPEC.top_k and full.search.spec.shots
    throw = teacher.choose(state, np.random.default_rng(0))
    judged = teacher.last
    assert judged is not None and len(judged.top) == len(judged.replied) == 0
    assert int(judged.order[0]) == int(np.argmax(judged.screen))
    assert np.allclose(throw, judged.throws[judged.order[0]])
