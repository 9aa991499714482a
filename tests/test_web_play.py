"""Playing on the page in a real browser (Debian's Chromium through ``playwright``): a person plays
a whole game against level 2 (aims on the house, throws, sweeps once with the held button), and
the records hold those throws and the sweep; the sweep is offered only while the person's own
stone is drawn moving on the house (which follows it) between mid-sheet and the hog line, at
true speed, and its shot goes on from there to the record's position; the throw controls wait
until the view has drawn every shot (and it catches up when it stopped following); the
centre-line choice waits until the view draws the foul, the stones as they lie; a watcher's
page without the key offers no control and the seat endpoint refuses it; a seat against the
shipped agent shows its view (its top shots, its chance to win), but not over the person's
running stone. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import RawClient
from web_helpers import http, records_of, shoot

from rllib_curling.server import start_server_thread
from rllib_curling.server.config import ServerConfig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]
pytest_plugins = ("server_fixtures", "browser_fixtures")  # start_server; browser, page

KEY = "classkey"
PLAY = "window.curlingPlay.state()"
#: Records what the page shows every 20 ms into ``window.samples`` (both states at one moment:
#: the panel's controls are set in the same frame that draws the sheet).
SAMPLER = """() => {
  window.samples = [];
  setInterval(() => window.samples.push({
    now: performance.now(), play: window.curlingPlay.state(), view: window.curlingView.state(),
  }), 20);
}"""

#: Whether the house canvas is white at one of its pixels.
WHITE_AT = """([a, b]) => document.getElementById('house').getContext('2d')
  .getImageData(Math.round(a), Math.round(b), 1, 1).data.slice(0, 3).every((c) => c > 225)"""


@pytest.fixture
def server(start_server: Any, tmp_path: Path) -> Any:
    """A server with the page and a key, 1-end games, records in ``tmp_path``."""
    return start_server(http_port=0, seed=8, ends=1, keys=(KEY,), log_dir=str(tmp_path),
                        sweep_window=1.0)  # fmt: skip


def test_person__plays_a_whole_game_against_level_2_on_the_page(
    server: Any, page: Any, tmp_path: Path
) -> None:
    page.goto(f"{server.web_url}?key={KEY}&opponent=2&speed=16")
    page.wait_for_function(f"{PLAY}.panel")
    page.fill("#play-name", "课程样例")  # the course template's name, in Chinese
    page.click("#play-start")
    house = page.locator("#house").bounding_box()
    thrown: list[list[float]] = []
    swept = False
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        page.wait_for_function(
            f"{PLAY}.throwControls || {PLAY}.sweepControls || ({PLAY}.seat && {PLAY}.seat.over)",
            timeout=60_000,
        )
        state = page.evaluate(PLAY)
        if state["seat"]["over"]:
            break
        if state["throwControls"]:
            # Aim: a draw to a point in the house, a little left of the button, then throw.
            page.fill("#play-v", "")
            y = house["y"] + house["height"] * (0.12 + 0.02 * len(thrown))
            page.mouse.click(house["x"] + house["width"] * 0.42, y)
            page.wait_for_function("document.getElementById('play-v').value !== ''")
            if not thrown:
                page.wait_for_function(f"{PLAY}.preview > 0")  # the dashed path of the throw
                page.wait_for_function(f"{PLAY}.aim !== null")  # and a cross where you clicked
                # The path's label (the emptied speed's path, no path at all, may land first).
                page.wait_for_function(f"{PLAY}.labels.some((x) => x.text === 'your throw')")
                (label,) = [x for x in page.evaluate(PLAY)["labels"] if x["text"] == "your throw"]
                left, top, _, _ = label["box"]  # on a white box: readable over the red rings
                assert page.evaluate(WHITE_AT, [left + 1, top + 1]), label
                shoot(page, "play-aim.png")
            thrown.append([float(page.input_value(f"#play-{k}")) for k in "vhw"])
            page.click("#play-go")
            page.wait_for_function(f"!{PLAY}.throwControls")
        else:
            if not swept:
                page.hover("#play-hold")
                page.mouse.down()
                page.wait_for_timeout(600)  # held 0.6 s: about 1.2 m of sweeping
                page.mouse.up()
                swept = True
            else:
                page.click("#play-no-sweep")
            page.wait_for_function(f"!{PLAY}.sweepControls")
    assert len(thrown) == 8 and swept
    page.wait_for_function("window.curlingView.state().finished", timeout=60_000)
    shoot(page, "play-finished.png")
    records = records_of(tmp_path)
    (start,) = [r for r in records if r["type"] == "game_start"]
    assert start["players"][0] == "课程样例" and start["kinds"] == ["person", "bot:2"]
    mine = [r for r in records if r["type"] == "shot" and r["thrower"] == 0]
    for record, sent in zip(mine, thrown, strict=True):
        assert record["throw_sent"] == pytest.approx(sent, abs=1e-9)
    assert 0.8 < mine[0]["sweep"] < 2.5 and all(r["sweep"] == 0 for r in mine[1:])
    (game,) = [r for r in records if r["type"] == "game"]
    assert game["reason"] == "finished" and game["shots"] == 16


def test_sweep__offered_only_while_the_persons_stone_is_drawn_moving_on_the_house(
    server: Any, page: Any, tmp_path: Path
) -> None:
    page.goto(f"{server.web_url}?key={KEY}&opponent=1")  # the default speed (4x), follow live
    page.wait_for_function(f"{PLAY}.panel")
    page.click("#play-start")
    page.wait_for_function(f"{PLAY}.throwControls", timeout=60_000)
    geo = page.evaluate("window.curlingView.current().geo")
    house = page.locator("#house").bounding_box()
    page.fill("#play-v", "")
    page.mouse.click(house["x"] + house["width"] * 0.5, house["y"] + house["height"] * 0.35)
    page.wait_for_function("document.getElementById('play-v').value !== ''")  # a draw there
    page.evaluate(SAMPLER)
    page.click("#play-go")
    page.wait_for_function(f"{PLAY}.sweepControls", timeout=30_000)
    shoot(page, "play-sweep.png")
    page.hover("#play-hold")
    page.mouse.down()
    page.wait_for_timeout(600)  # held 0.6 s: about 1.2 m of sweeping
    page.mouse.up()
    page.wait_for_function(f"!{PLAY}.sweepControls")
    page.wait_for_function(f"{PLAY}.throwControls", timeout=60_000)  # the bot threw: our turn
    samples = page.evaluate("window.samples")
    mid, hog = geo["midsheet_y"], geo["hog_line_y"]
    asked = [s for s in samples if s["play"]["sweepControls"]]
    assert asked, "the sweep was never offered"
    for s in asked:  # the stone drawn on the house, moving, between mid-sheet and the hog line
        own = s["view"].get("own")
        assert own is not None and own["running"] and own["moving"] and own["onHouse"], s
        assert hog <= own["y"] <= mid, s
        y0, y1 = s["view"]["houseWindow"]
        assert y0 <= own["y"] <= y1, s
    assert asked[0]["view"]["houseWindow"][0] > hog  # the house view slid up with the stone
    running = [s for s in samples if s["view"].get("own") and s["view"]["own"]["running"]]
    first, last = running[0], running[-1]
    assert first["view"]["own"]["y"] > mid and last["view"]["own"]["y"] < mid
    seconds = (last["now"] - first["now"]) / 1000  # true speed: a second of play a second
    assert last["view"]["own"]["t"] - first["view"]["own"]["t"] == pytest.approx(seconds, abs=0.25)
    assert seconds > 4.0  # what the person saw of it before the sweep ended: seconds, not a blink
    drawn = [s["view"]["own"] for s in samples if s["view"]["own"]]
    for a, b in zip(drawn, drawn[1:], strict=False):  # never back toward the release
        assert b["y"] <= a["y"] + 0.02, (a, b)
    assert drawn[-1]["y"] < hog and not drawn[-1]["running"]  # its record went on from there
    for s in samples:  # never a throw asked for before the view has drawn every shot
        if s["play"]["throwControls"]:
            view = s["view"]
            assert not view["animating"] and view["shown"] == view["shots"] and not view["own"], s
    records = records_of(tmp_path)
    (mine,) = [r for r in records if r["type"] == "shot" and r["thrower"] == 0]
    assert 0.8 < mine["sweep"] < 2.5
    k = mine["shot"]  # where its animation ended: the record's position
    assert [drawn[-1]["x"], drawn[-1]["y"]] == pytest.approx(mine["position"][k], abs=0.02)
    shown = [s["view"] for s in samples if s["view"]["shown"] == 1 and not s["view"]["animating"]]
    assert shown and shown[0]["position"] == mine["position"]
    page.click("#play-resign")
    page.click("#play-resign")
    page.wait_for_function(f"{PLAY}.seat.over", timeout=30_000)


def test_turn__no_throw_asked_for_while_the_view_still_shows_earlier_throws(
    server: Any, page: Any
) -> None:
    page.goto(f"{server.web_url}?key={KEY}&opponent=1&lang=zh-CN")  # speed 4x, follow live
    page.wait_for_function(f"{PLAY}.panel")
    page.click("#play-start")
    page.wait_for_function(f"{PLAY}.throwControls", timeout=60_000)
    page.fill("#play-v", "1.2")  # short of mid-sheet: no sweeping, the record comes at once
    page.uncheck("#follow")  # the person stops following live; its turn brings the view back
    page.evaluate(SAMPLER)
    page.click("#play-go")
    page.wait_for_function("window.curlingView.state().shots === 2", timeout=30_000)  # bot threw
    page.wait_for_function(f"{PLAY}.throwControls", timeout=60_000)
    samples = page.evaluate("window.samples")
    waited = [s for s in samples if s["play"]["seat"]["waiting"] == "throw"]
    late = [s for s in waited if not s["play"]["throwControls"]]
    assert late and all("正在播放上一壶" in s["play"]["status"] for s in late)
    for s in samples:
        if s["play"]["throwControls"]:
            view = s["view"]
            assert not view["animating"] and view["shown"] == view["shots"], s
    view = page.evaluate("window.curlingView.state()")
    assert view["shots"] == view["shown"] == 2 and view["follow"]  # it follows live again
    page.click("#play-resign")
    page.click("#play-resign")
    page.wait_for_function(f"{PLAY}.seat.over", timeout=30_000)


def test_centre_line__the_choice_waits_until_the_page_draws_the_foul(
    start_server: Any, fake_engine: None, page: Any, tmp_path: Path
) -> None:
    # The person draws a centre guard; a TCP client's draw ticks it off the line (the fake
    # engine: ``server_helpers._fake_simulate``). Its record comes after the choice, so the page
    # draws the seat's foul, the stones as they lie, and only then offers KEEP or RESET.
    server = start_server(http_port=0, ends=1, keys=(KEY,), log_dir=str(tmp_path),
                          centerline_timeout=60.0)  # fmt: skip
    page.goto(f"{server.web_url}?key={KEY}&opponent=lobby&lang=zh-CN")
    page.wait_for_function(f"{PLAY}.panel")
    page.click("#play-start")
    # The lobby seats whoever comes first as Player1: the ticker connects only once the person
    # holds that seat (a busy machine delays the page's request past a client's connect).
    page.wait_for_function(f"{PLAY}.seat !== null && {PLAY}.seat.player === 0", timeout=60_000)
    client = RawClient(server.address[1], KEY, name="ticker")
    ticks = lambda t: "BESTSHOT 2.22 0.0244 0" if t.gos == 1 else "BESTSHOT 0.5 0 0"  # noqa: E731
    thread = threading.Thread(target=lambda: client.play(ticks, stop_after_games=1), daemon=True)
    thread.start()
    try:
        page.wait_for_function(f"{PLAY}.throwControls", timeout=60_000)
        for k, value in zip("vhw", ("2.22", "0.0244", "0"), strict=True):
            page.fill(f"#play-{k}", value)
        page.evaluate(SAMPLER)
        page.click("#play-go")
        page.wait_for_function(f"{PLAY}.centerlineControls", timeout=60_000)
        page.wait_for_function("window.samples.some((s) => s.play.centerlineControls)")
        samples = page.evaluate("window.samples")
        asked = [s for s in samples if s["play"]["centerlineControls"]]
        waited = [s for s in samples if s["play"]["seat"]["waiting"] == "centerline"]
        assert waited and asked
        for s in asked:  # asked only with the foul drawn: stone 0 ticked off the line
            assert s["view"]["foulShown"] and s["view"]["shots"] == 1, s["view"]
            (guard,) = [d for d in s["view"]["stones"] if d["k"] == 0]
            assert (guard["x"], guard["y"]) == pytest.approx((2.725, 8.0), abs=1e-3)
        assert "保留" in page.inner_text("#play-centerline")  # in Chinese
        shoot(page, "play-centerline.png")
        page.click("#play-reset")
        shown = "(s => s.shown === 2 && !s.animating)(window.curlingView.state())"
        page.wait_for_function(shown, timeout=30_000)  # the shot's record, drawn to its end
        view = page.evaluate("window.curlingView.state()")
        assert not view["foulShown"]
        (guard,) = [d for d in view["stones"] if d["k"] == 0]
        assert (guard["x"], guard["y"]) == pytest.approx((2.375, 8.0), abs=1e-3)  # restored
    finally:
        page.click("#play-resign")
        page.click("#play-resign")
        thread.join(30)
        client.close()
    shots = [r for r in records_of(tmp_path) if r["type"] == "shot"]
    assert shots[1]["centerline_choice"] == "RESET"


def test_watcher__without_the_key_gets_no_control_and_the_endpoints_refuse(
    server: Any, page: Any
) -> None:
    body = json.dumps({"key": KEY, "opponent": "2"}).encode()
    status, _, reply = http(server.web_url + "api/play", "POST", body)
    assert status == 200
    page.goto(server.web_url)
    page.wait_for_function("window.curlingView.state().gameId !== null")
    page.wait_for_timeout(500)  # the play panel would have shown by now
    assert not page.evaluate(PLAY)["panel"]
    assert page.locator("#play-box button:visible").count() == 0
    no_key = json.dumps({"opponent": "2"}).encode()
    assert http(server.web_url + "api/play", "POST", no_key)[0] == 403
    status, _, reply = http(server.web_url + "api/seats/guessed/throw", "POST", b'{"v":3}')
    assert status == 404 and b"no such seat" in reply
    shoot(page, "play-watcher.png")


def test_agent_seat__the_page_shows_the_agents_top_shots_and_chance_to_win(
    page: Any, tmp_path: Path
) -> None:
    from rllib_curling.cli.commands.server import agent_factories

    config = ServerConfig(tcp_port=0, http_port=0, seed=4, ends=1, bot_seat=0,
                          log_dir=str(tmp_path))  # fmt: skip
    handle = start_server_thread(config, agents=agent_factories(["builtin"]))
    try:
        page.goto(f"{handle.web_url}?key={handle.play_key}&speed=16")
        page.wait_for_function(f"{PLAY}.panel")
        assert page.input_value("#play-opponent") == "builtin"  # the server's agent, not level 1
        page.click("#play-start")
        page.wait_for_function(f"{PLAY}.throwControls", timeout=60_000)  # the agent threw
        page.wait_for_function(
            f"{PLAY}.agent.shown && {PLAY}.agent.top === 5 && {PLAY}.agent.wins === 1",
            timeout=30_000,
        )
        shown = page.evaluate(PLAY)["agent"]
        assert shown["judged"] >= 1
        labels = page.evaluate(PLAY)["labels"]  # readable when its shots bunch: none covers
        # another (the person's "your throw" among them)
        assert labels
        for i, a in enumerate(labels):
            for b in labels[i + 1 :]:
                (l1, t1, r1, b1), (l2, t2, r2, b2) = a["box"], b["box"]
                assert r1 <= l2 or r2 <= l1 or b1 <= t2 or b2 <= t1, (a, b)
        assert "chance to win" in page.inner_text("#agent-note")
        shoot(page, "play-agent-view.png")
        page.click("#play-go")  # the person's stone runs: the agent's last shot is not drawn
        page.wait_for_function(f"{PLAY}.sweepControls", timeout=30_000)
        shown = page.evaluate(PLAY)
        assert shown["agent"]["top"] == shown["agent"]["judged"] == 0 and not shown["labels"]
        page.click("#play-no-sweep")
        page.click("#play-resign")  # the first click asks; the game goes on
        assert (
            "sure?" in page.inner_text("#play-resign") and not page.evaluate(PLAY)["seat"]["over"]
        )
        page.click("#play-resign")
        page.wait_for_function(f"{PLAY}.seat.over", timeout=30_000)
        page.wait_for_function(
            "document.getElementById('play-status').textContent.includes('you resigned')",
            timeout=30_000,
        )
        assert "The game is over: you lost " in page.inner_text("#play-status")
        (game,) = [r for r in records_of(tmp_path) if r["type"] == "game"]
        assert game["reason"] == "resign" and game["lost_seat"] == 1  # the person: Player2
    finally:
        page.goto("about:blank")  # no more polling of a server that stops
        handle.stop()
