"""Real headless Chromium (Debian's package) against a real server, at phone size."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from companion.service import Settings
from tests.service.conftest import RunningServer, start_server

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
PIN = "2468"


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    data = tmp_path_factory.mktemp("browser-table")
    running = start_server(Settings(data_dir=data, pin=PIN, mdns=False,
                                    public_host="192.168.1.20"))
    yield running
    running.stop()
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(**PHONE)  # type: ignore[arg-type]
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext, server: RunningServer) -> Page:
    """A phone that has entered the PIN."""
    page = context.new_page()
    errors = signed_in(page, server.url)
    page.set_default_timeout(5000)
    page.js_errors = errors  # type: ignore[attr-defined]
    return page


def signed_in(page: Page, url: str) -> list[str]:
    """Open the dashboard at ``url`` on ``page`` and enter the PIN as "Ann's phone"; the
    list collects the page's script errors from then on."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "/")
    page.wait_for_selector("#conn.on")
    page.click("#nav-pin")
    page.fill("#pin-input", PIN)
    page.fill("#name-input", "Ann's phone")
    page.click("#pin-submit")
    page.wait_for_selector("body.player")
    return errors


@pytest.fixture
def spectator(browser: Browser, server: RunningServer) -> Iterator[Page]:
    """A second phone that only watches."""
    context = browser.new_context(**PHONE)  # type: ignore[arg-type]
    page = context.new_page()
    page.set_default_timeout(5000)
    page.goto(server.url + "/")
    page.wait_for_selector("#conn.on")
    yield page
    context.close()
