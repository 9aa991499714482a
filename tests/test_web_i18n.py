"""The page in Chinese (zh-CN) or English (``static/i18n.js``), in a real browser (Debian's
Chromium through ``playwright``): a browser whose language is Chinese gets the page in Chinese
(static texts, the status lines built while a game plays, ``<html lang>``) and its switch leads
to English; ``?lang=`` wins over the browser's language; a person's seat plays in Chinese (and
says so in Chinese when the server no longer answers); the two tables have the same keys and
placeholders, and every key the page uses is in them. The font note stays English. A
screenshot goes to ``test-artifacts/web-zh-CN.png``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import DONE, shoot, slow_bot_game

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]
pytest_plugins = ("server_fixtures", "browser_fixtures")  # start_server; browser

STATIC = Path(__file__).resolve().parents[1] / "rllib_curling" / "server" / "web" / "static"
KEY = "classkey"
VIEW = "window.curlingView.state()"
PLAY = "window.curlingPlay.state()"
READY = f"window.curlingView && {VIEW}.mode === 'live'"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


@pytest.fixture
def open_page(browser: Any) -> Iterator[Callable[[str], Any]]:
    """``open_page(locale)``: a page in a browser context of that language (``navigator.language``,
    Accept-Language); the test fails on any error in one."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_(locale: str) -> Any:
        context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
        return page

    yield open_
    for context in contexts:
        context.close()
    assert not errors, f"errors in the page: {errors}"


def text(page: Any, selector: str) -> str:
    return str(page.eval_on_selector(selector, "el => el.textContent")).strip()


def test_chinese_browser__gets_the_page_in_chinese_and_the_switch_leads_to_english(
    start_server: Any, open_page: Any, tmp_path: Path
) -> None:
    server = start_server(http_port=0, ends=2, log_dir=str(tmp_path), seed=5)
    page = open_page("zh-CN")
    page.goto(server.web_url + "?speed=64")
    page.wait_for_function(READY)
    assert page.evaluate("navigator.language") == "zh-CN"
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.title() == "数字冰壶 · 观战与对战"
    assert text(page, "h1 [data-i18n]") == "数字冰壶"
    assert text(page, "#mode") == "直播"
    assert text(page, "#status") == "请选择一场对局。"
    assert text(page, "#games") == "还没有对局"
    assert text(page, "#first") == "« 开头"
    assert page.get_attribute("#first", "title") == "第一壶之前"
    assert page.get_attribute("#house", "aria-label") == "冰道上大本营的一端"
    assert page.get_attribute("#lang-zh", "aria-current") == "true"
    # The font note stays English: a computer without a Chinese font could not show it.
    note = text(page, "#font-note")
    assert note.startswith("This computer has no Chinese font") and "fonts-noto-cjk" in note
    assert page.get_attribute("#font-note", "lang") == "en"

    thread, _ = slow_bot_game(server.address[1], delay=0.15)  # about 5 s of play
    hammer = "document.querySelector('#scoreboard tr.hammer td.name')"
    page.wait_for_function(
        f"/^第[12]局（共2局） · 第\\d+壶（共16壶）/.test({VIEW}.status)"
        " && document.getElementById('games').textContent.includes('● 直播')"
        f" && {hammer} !== null"
        f" && getComputedStyle({hammer}, '::after').content === '\" · 后手\"'",
        timeout=30_000,
    )  # a status line built while the game plays, the game listed as live, the hammer marked
    assert re.search(r"对阵 \S+ · 第 1 场", text(page, "#games li"))
    assert "远程客户端" in text(page, "#teams") and "内置 AI 3 级" in text(page, "#teams")
    page.wait_for_function(DONE, timeout=90_000)
    thread.join(30)
    state = page.evaluate(VIEW)
    (a, b), (x, y) = state["players"], state["totals"]
    outcome = f"{a} 获胜" if x > y else f"{b} 获胜" if y > x else "平局"
    assert state["status"] == f"终局：{a} {x} – {y} {b} · {outcome}"
    last = r"第2局第16壶，Player\d 投出：速度 [\d.]+ m/s，偏移 -?[\d.]+ m，旋转 -?[\d.]+ rad/s"
    assert re.match(last, text(page, "#throw")), text(page, "#throw")
    assert "总分" in state["scoreboard"] and "已结束" in text(page, "#games li")
    assert text(page, "#play") == "播放"
    assert text(page, "[data-i18n='playback.speed']") == "播放速度"
    shoot(page, "web-zh-CN.png")

    page.click("#lang-en")
    page.wait_for_url(re.compile(r"[?&]lang=en\b"))
    assert "speed=64" in page.url  # the other parameters kept
    page.wait_for_function(f"{VIEW}.gameId !== null && {VIEW}.status.startsWith('End ')")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert text(page, "h1 [data-i18n]") == "Digital curling" and text(page, "#mode") == "live"
    page.click("#last")
    page.wait_for_function(f"{VIEW}.status.startsWith('Final: ')")
    assert page.get_attribute("#lang-en", "aria-current") == "true"
    assert page.get_attribute("#lang-zh", "aria-current") is None


def test_lang_parameter__wins_over_the_browsers_language(start_server: Any, open_page: Any) -> None:
    server = start_server(http_port=0)
    english = dict(lang="en", h1="Digital curling", status="Pick a game.", games="no games yet")
    chinese = dict(lang="zh-CN", h1="数字冰壶", status="请选择一场对局。", games="还没有对局")
    for locale, query, expected in [
        ("zh-CN", "?lang=en", english),
        ("en-US", "?lang=zh-CN", chinese),
        ("en-US", "", english),
        ("zh-CN", "?lang=zh", chinese),
    ]:
        page = open_page(locale)
        page.goto(server.web_url + query)
        page.wait_for_function(READY)
        page.wait_for_function("document.querySelector('#games li.empty') !== null")
        shown = {
            "lang": page.evaluate("document.documentElement.lang"),
            "h1": text(page, "h1 [data-i18n]"),
            "status": text(page, "#status"),
            "games": text(page, "#games"),
        }
        assert shown == expected, (locale, query)
    # The choice alone: the address, then the browser's first English or Chinese language.
    choose = "([search, langs]) => window.CurlingI18n.choose(search, langs)"
    for search, languages, lang in [
        ("", ["fr-FR", "zh-TW", "en"], "zh-CN"),
        ("", ["de", "en-GB", "zh-CN"], "en"),
        ("", ["fr"], "en"),
        ("?key=k&lang=en", ["zh-CN"], "en"),
        ("?lang=ZH-cn", ["en-US"], "zh-CN"),
        ("?lang=fr", ["zh"], "zh-CN"),
    ]:
        assert page.evaluate(choose, [search, languages]) == lang, (search, languages)


@pytest.fixture
def server(start_server: Any, tmp_path: Path) -> Any:
    """A server with the page and a key, 1-end games, records in ``tmp_path``."""
    return start_server(http_port=0, seed=8, ends=1, keys=(KEY,), log_dir=str(tmp_path),
                        sweep_window=1.0)  # fmt: skip


def test_person_seat__plays_in_chinese(server: Any, open_page: Any) -> None:
    page = open_page("en-US")  # the address asks for Chinese
    page.goto(f"{server.web_url}?key={KEY}&opponent=2&lang=zh-CN&speed=16")
    try:
        page.wait_for_function(f"{PLAY}.panel")
        assert text(page, "#play-box h2") == "对战" and text(page, "#play-start") == "开始对局"
        assert text(page, "[data-i18n='play.opponent']") == "对手"
        assert page.eval_on_selector("#play-opponent", "s => s.selectedOptions[0].text") == (
            "内置 AI 2 级"
        )
        assert page.input_value("#play-name") == "我"  # the name it offers, in Chinese too
        page.fill("#play-name", "学生")
        page.click("#play-start")
        page.wait_for_function(f"{PLAY}.throwControls", timeout=60_000)
        status = text(page, "#play-status")
        assert re.fullmatch(r"学生，Player[12]：轮到你了，瞄准后投壶(（还剩 \d+ s）)?。", status)
        assert text(page, "#play-go") == "投壶" and text(page, "#play-curl") == "旋向 ↻"
        assert text(page, "[data-i18n='play.v']") == "速度 v"
        assert text(page, "#play-resign") == "认输"
        page.click("#play-resign")  # the first click asks
        assert text(page, "#play-resign") == "认输：确定吗？再点一次（你将输掉这场）"
        page.click("#play-resign")
        page.wait_for_function(f"{PLAY}.seat.over", timeout=30_000)
        page.wait_for_function(
            "document.getElementById('play-status').textContent.includes('（你认输了）')",
            timeout=30_000,
        )
        assert "对局结束：你输了 " in text(page, "#play-status")
        result, form = page.locator("#play-status"), page.locator("#play-start")
        assert form.is_visible()  # another game may start: below the result, not above it
        assert result.bounding_box()["y"] < form.bounding_box()["y"]
        page.wait_for_function(f"{VIEW}.finished", timeout=30_000)
        page.wait_for_function(f"{VIEW}.status.includes('（认输）')", timeout=30_000)
        assert page.evaluate(VIEW)["status"].startswith("终局：学生 ")
    finally:
        page.goto("about:blank")  # no more polling of a server that stops


def test_server_gone__the_seat_says_so_in_chinese(start_server: Any, browser: Any) -> None:
    # A student stops curling server (Ctrl+C) with the page open: the panel says what happened,
    # not the browser's "Failed to fetch". (A page of its own: the failed requests are errors.)
    server = start_server(http_port=0, seed=8, ends=1, keys=(KEY,))
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.goto(f"{server.web_url}?key={KEY}&opponent=2")
        page.wait_for_function(f"{PLAY}.panel")
        page.click("#play-start")
        page.wait_for_function(f"{PLAY}.throwControls", timeout=60_000)
        server.stop()
        page.wait_for_function(f"{PLAY}.error !== ''", timeout=30_000)
        assert page.evaluate(PLAY)["error"] == "服务器没有回应：curling server 还在运行吗？"
    finally:
        context.close()


def test_tables__english_and_chinese_have_the_same_keys_placeholders_and_every_key_used(
    open_page: Any,
) -> None:
    page = open_page("en-US")
    page.goto("about:blank")
    page.add_script_tag(path=str(STATIC / "i18n.js"))
    tables = page.evaluate("window.CurlingI18n.tables")
    assert set(tables) == {"en", "zh-CN"}
    en, zh = tables["en"], tables["zh-CN"]
    assert not set(en) - set(zh), f"missing in zh-CN: {sorted(set(en) - set(zh))}"
    assert not set(zh) - set(en), f"missing in en: {sorted(set(zh) - set(en))}"
    for key, source in en.items():
        assert set(PLACEHOLDER.findall(zh[key])) == set(PLACEHOLDER.findall(source)), key
        assert zh[key].strip(), key
    # Every key the page uses is in the tables: the HTML's marks, and the scripts' literal keys.
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    marked = set(re.findall(r'data-i18n(?:-title|-aria-label|-value)?="([^"]+)"', html))
    groups = {key.split(".")[0] for key in en}
    scripts = "".join((STATIC / name).read_text(encoding="utf-8") for name in ("app.js", "play.js"))
    literal = {
        key for key in re.findall(r'"([a-z]+\.[A-Za-z]+)"', scripts) if key.split(".")[0] in groups
    }
    assert len(marked) > 30 and len(literal) > 40
    assert not (marked | literal) - set(en), sorted((marked | literal) - set(en))
    # t(): placeholders filled (values taken as they are), an unknown key comes back as itself.
    t = "([key, params]) => window.CurlingI18n.t(key, params)"
    assert page.evaluate(t, ["status.turn", {"name": "{n}", "seat": 2}]) == "{n} (Player2) to throw"
    assert page.evaluate(t, ["no.such.key", None]) == "no.such.key"
