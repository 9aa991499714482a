"""The observation layout and encoder of rllib_curling.observation."""

from __future__ import annotations

import numpy as np
from positions import random_layouts

from rllib_curling import observation as spaces
from rllib_curling import rules, sheet

TX, TY = sheet.TEE


def _position(*stones: tuple[int, float, float]) -> np.ndarray:
    pos = np.zeros((16, 2))
    for k, x, y in stones:
        pos[k] = (x, y)
    return pos


def test_encode__shape_dtype_and_bounds() -> None:
    obs = spaces.encode_observation(np.zeros((16, 2)), 0, 0, 4, 0, 0)
    assert obs.shape == (spaces.OBS_SIZE,) and obs.dtype == np.float32
    assert np.all(obs >= spaces.OBS_LOW) and np.all(obs <= spaces.OBS_HIGH)


def test_encode__stone_rows_follow_the_table() -> None:
    pos = _position((0, sheet.TEE_X, sheet.TEE_Y), (1, sheet.TEE_X + 1.0, 8.0))
    stones, context = spaces.split_observation(spaces.encode_observation(pos, 2, 1, 4, 0, 3))
    # on the tee: in play, in the house, mine, thrown, on the centre line, counting
    assert stones[0].tolist() == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0]
    assert stones[1, 3] == 1.0 and stones[1, 4] == 0.0 and stones[1, 5] == 0.0
    assert stones[1, spaces.STONE_PROTECTED] == 1.0  # their guard, shot 2: FGZ-protected
    assert np.isclose(stones[1, 0], 1.0 / sheet.CENTRE_X)
    assert stones[2].tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]  # not thrown
    assert np.isclose(context[0], 2 / 15)  # shot
    assert np.isclose(context[3], 3 / 8)  # score difference
    assert context[4] == 0.0  # no hammer with even rows
    assert np.isclose(context[5], 7 / 8) and np.isclose(context[6], 7 / 8)
    assert np.isclose(context[7], 1 / 8)  # my stone is shot rock


def test_encode__hammer_side_sees_its_odd_stones_as_mine() -> None:
    pos = _position((0, sheet.TEE_X, sheet.TEE_Y))
    stones, context = spaces.split_observation(spaces.encode_observation(pos, 1, 0, 4, 1, 0))
    assert stones[0, 5] == 0.0 and stones[1, 5] == 1.0
    assert context[4] == 1.0
    assert np.isclose(context[7], -1 / 8)


def test_layout__columns_and_size_agree() -> None:
    columns = [
        spaces.STONE_X,
        spaces.STONE_Y,
        spaces.STONE_DIST,
        spaces.STONE_IN_PLAY,
        spaces.STONE_IN_HOUSE,
        spaces.STONE_MINE,
        spaces.STONE_THROWN,
        spaces.STONE_PROTECTED,
        spaces.STONE_CENTRE_LINE,
        spaces.STONE_COUNTING,
    ]
    assert columns == list(range(spaces.STONE_FEATURES))
    assert spaces.OBS_SIZE == spaces.CONTEXT_START + spaces.CONTEXT_FEATURES == 168


def test_encode__protected_marks_opponent_guards_until_the_fifth_stone() -> None:
    # rows 0, 2 mine (a guard, a house stone), rows 1, 3 theirs (a guard, a house stone)
    pos = _position((0, TX - 0.8, 7.5), (1, TX + 0.5, 8.0), (2, TX, TY), (3, TX + 0.4, TY))
    for shot, expected in ((4, [0.0, 1.0, 0.0, 0.0]), (6, [0.0, 0.0, 0.0, 0.0])):
        stones, _ = spaces.split_observation(spaces.encode_observation(pos, shot, 0, 4, 0, 0))
        assert stones[:4, spaces.STONE_PROTECTED].tolist() == expected, shot
    # the hammer side about to throw stone 3 sees the even rows' guard as protected
    pos[3] = 0.0
    stones, _ = spaces.split_observation(spaces.encode_observation(pos, 3, 0, 4, 1, 0))
    assert stones[:3, spaces.STONE_PROTECTED].tolist() == [1.0, 0.0, 0.0]


def test_encode__centre_line_column_follows_the_rules() -> None:
    r = sheet.STONE_RADIUS
    pos = _position((0, TX + r, 7.5), (1, TX - r - 0.01, 7.0), (2, TX, 9.0))
    stones, _ = spaces.split_observation(spaces.encode_observation(pos, 3, 0, 4, 1, 0))
    assert stones[:4, spaces.STONE_CENTRE_LINE].tolist() == [1.0, 0.0, 1.0, 0.0]  # 3: not in play


def test_encode__counting_marks_the_stones_that_would_score() -> None:
    # mine (even rows) at 0.3 and 0.4 m, theirs at 0.5 m, mine at 0.9 m, theirs out of the house
    pos = _position((0, TX, TY + 0.3), (1, TX + 0.5, TY), (2, TX - 0.4, TY), (4, TX, TY - 0.9))
    pos[3] = (TX + 2.1, TY)
    stones, context = spaces.split_observation(spaces.encode_observation(pos, 5, 0, 4, 1, 0))
    assert stones[:5, spaces.STONE_COUNTING].tolist() == [1.0, 0.0, 1.0, 0.0, 0.0]
    assert np.isclose(context[7], -2 / 8)  # the hammer side (odd rows) is down two
    tie = _position((0, TX, TY + 0.5), (1, TX, TY - 0.5))
    stones, _ = spaces.split_observation(spaces.encode_observation(tie, 2, 0, 4, 0, 0))
    assert not stones[:, spaces.STONE_COUNTING].any()  # a tie for the nearest: blank end


def test_encode__counting_stones_add_up_to_the_house_score() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        shot = int(rng.integers(1, 17))
        pos = np.zeros((16, 2))
        pos[:shot] = np.stack(
            [TX + rng.uniform(-2.0, 2.0, shot), TY + rng.uniform(-2.0, 2.5, shot)], axis=1
        )
        parity = int(rng.integers(0, 2))
        stones, _ = spaces.split_observation(spaces.encode_observation(pos, shot, 0, 4, parity, 0))
        mine = stones[:, spaces.STONE_MINE] == 1.0
        count = stones[:, spaces.STONE_COUNTING]
        assert count[mine].sum() - count[~mine].sum() == rules.score_for(pos, parity)


def test_encode__every_feature_equals_the_rules_batch_functions() -> None:
    """The encoder works row by row in plain Python; each column must be what the rules'
    numpy functions say, cast to float32, on random positions (boundaries included)."""
    rng = np.random.default_rng(21)
    rows = np.arange(16)
    for pos in random_layouts(rng, 400):
        shot, parity = int(rng.integers(0, 17)), int(rng.integers(2))
        obs = spaces.encode_observation(pos, shot, 1, 4, parity, 3)
        stones, context = spaces.split_observation(obs)
        on = rules.in_play(pos)
        dist = rules.house_distances(pos)
        mine = rows % 2 == parity
        other_best = np.where(mine, dist[~mine].min(), dist[mine].min())
        want = {
            spaces.STONE_X: np.where(on, (pos[:, 0] - sheet.CENTRE_X) / spaces.X_SCALE, 0.0),
            spaces.STONE_Y: np.where(on, (pos[:, 1] - sheet.TEE_Y) / spaces.Y_SCALE, 0.0),
            spaces.STONE_DIST: np.where(on, rules.distance_to_tee(pos) / spaces.DIST_SCALE, 0.0),
            spaces.STONE_IN_PLAY: on,
            spaces.STONE_IN_HOUSE: rules.in_house(pos),
            spaces.STONE_MINE: mine,
            spaces.STONE_THROWN: rows < shot,
            spaces.STONE_PROTECTED: rules.fgz_protected(pos, shot),
            spaces.STONE_CENTRE_LINE: rules.touches_centre_line(pos),
            spaces.STONE_COUNTING: dist < other_best,
        }
        for column, values in want.items():
            expected = np.clip(values.astype(np.float32), spaces.OBS_LOW, spaces.OBS_HIGH)
            assert np.array_equal(stones[:, column], expected), (column, pos, shot)
        house = rules.score_for_batch(pos, parity) / spaces.SCORE_SCALE
        assert context[-1] == np.float32(np.clip(house, -1.0, 1.0))


def test_observe_state__is_what_each_seats_client_observes_there_in_every_mode() -> None:
    from rllib_curling.client import CurlingClient
    from rllib_curling.env.spaces import ACTION_MASK, OBSERVATIONS, observe, observe_state
    from rllib_curling.game import GameConfig, GameState

    position = random_layouts(np.random.default_rng(3), 1)[0]
    state = GameState(position=position, shot=7, end=2, first_seat=1,
                      end_scores=((2, 0), (0, 1)), config=GameConfig(ends=6))  # fmt: skip
    for seat in (0, 1):
        client = CurlingClient("127.0.0.1", 1)  # has seen the game, never connected
        client.seat, client.state, client.position = seat, state.setstate_fields(), position
        client.end_scores = [a - b if seat == 0 else b - a for a, b in state.end_scores]
        for mode in ("continuous", "discrete"):
            np.testing.assert_array_equal(observe_state(state, seat, mode), observe(client, mode))
        mine, seen = observe_state(state, seat, "shots"), observe(client, "shots")
        np.testing.assert_array_equal(mine[OBSERVATIONS], seen[OBSERVATIONS])
        np.testing.assert_array_equal(mine[ACTION_MASK], seen[ACTION_MASK])
        assert (
            mine[ACTION_MASK].dtype == np.float32
            and 0 < mine[ACTION_MASK].sum() < mine[ACTION_MASK].size
        )
    assert not np.array_equal(observe_state(state, 0), observe_state(state, 1))
