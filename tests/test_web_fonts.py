"""The page on a computer without a Chinese font (lab servers, WSL, Docker): Chinese names would
be boxes, so the page says what to install. Chromium is started with a fontconfig that knows
only Latin fonts; with the machine's fonts (CI installs a CJK font) the note stays hidden."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from web_helpers import CHROMIUM, shoot

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
pytest_plugins = ("server_fixtures",)  # start_server

LATIN_ONLY = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation")
READY = "window.curlingView && window.curlingView.state().mode === 'live'"


def _font_note(url: str, env: dict[str, str] | None, shot: str | None = None) -> tuple[bool, str]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], env=env)
        try:
            page = browser.new_page()
            page.goto(url)
            page.wait_for_function(READY)
            shown = bool(page.evaluate("window.curlingView.state().fontNote"))
            if shot is not None:
                shoot(page, shot)
            return shown, page.inner_text("#font-note") if shown else ""
        finally:
            browser.close()


def test_page__without_a_chinese_font_says_what_to_install(
    start_server: Any, tmp_path: Path
) -> None:
    dirs = [d for d in LATIN_ONLY if Path(d).is_dir()]
    assert dirs, f"no Latin font directory of {LATIN_ONLY} on this machine"
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        + "".join(f"<dir>{d}</dir>" for d in dirs)
        + f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>"
    )
    server = start_server(http_port=0)
    shown, text = _font_note(server.web_url, {**os.environ, "FONTCONFIG_FILE": str(conf)},
                             "web-no-chinese-font.png")  # fmt: skip
    assert shown and "sudo apt install fonts-noto-cjk" in text


def test_page__with_a_chinese_font_shows_no_note(start_server: Any) -> None:
    server = start_server(http_port=0)
    assert _font_note(server.web_url, None) == (False, "")
