"""Browser fixtures of the page tests (a pytest plugin: ``pytest_plugins = ("browser_fixtures",)``):
Debian's Chromium driven by ``playwright`` (its own browser downloads are never used), a page
that fails its test on any error in it, and screenshots in ``test-artifacts/``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
#: Debian's package installs the browser here (``apt-get install chromium``).
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: Until the page shows the whole game: the last shot drawn, no animation left.
DONE = (
    "(() => { const s = window.curlingView && window.curlingView.state(); "
    "return s && s.finished && !s.animating && s.shown === s.shots && s.shots > 0; })()"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: apt-get install chromium"
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    yield page
    context.close()
    assert not errors, f"errors in the page: {errors}"


def shoot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000 and path.read_bytes()[:4] == b"\x89PNG"
    return path
