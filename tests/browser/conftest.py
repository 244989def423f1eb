"""Browser tests: the real app served by daphne in a child process, driven by headless Chromium.

Fixtures for any test in this folder:

* ``live_url`` -- base URL (``http://127.0.0.1:<port>``) of daphne serving ``hedit_site.asgi``
  against the test database; the test gets a transactional database so the server sees its data.
* ``page`` -- a fresh Playwright page (own browser context, so own cookies) for each test.
* ``login`` -- ``login(page, username, password)`` logs in through the real login form.

Every test here is marked ``browser`` and ``django_db(transaction=True)`` automatically.
Without a ``chromium`` on PATH the tests fail with instructions; ``HEDIT_SKIP_BROWSER=1`` skips them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.db import shared_database_url
from tests.support.processes import free_port, stop

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
SERVER_START_TIMEOUT = 90.0
# Seconds the server waits before storing each agent step.  The offline annotator finishes a
# run in milliseconds -- before the page has even loaded -- so without a pause every step would
# be server-rendered and the websocket path would go untested.
STEP_DELAY = os.environ.get("HEDIT_TEST_STEP_DELAY", "0.4")

# Runs daphne's own command line on the production ASGI application, after pacing the recorder.
LAUNCHER = """
import asyncio, os, sys
import django
django.setup()
delay = float(os.environ.get("HEDIT_TEST_STEP_DELAY") or 0)
if delay > 0:
    from annotations.runs.recorder import SessionRecorder
    _store_step = SessionRecorder.on_step
    async def paced_on_step(self, step, state):
        await asyncio.sleep(delay)
        await _store_step(self, step, state)
    SessionRecorder.on_step = paced_on_step
from daphne.cli import CommandLineInterface
CommandLineInterface().run(["-b", "127.0.0.1", "-p", sys.argv[1], "hedit_site.asgi:application"])
"""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.django_db(transaction=True))


def chromium_path() -> str:
    if os.environ.get("HEDIT_SKIP_BROWSER") == "1":
        pytest.skip("HEDIT_SKIP_BROWSER=1: browser tests skipped on request")
    path = shutil.which("chromium")
    if not path:
        pytest.fail("Chromium is not on PATH, so the browser tests cannot run. Install Debian's "
                    "`chromium` package (`apt-get install chromium`; `playwright install` cannot download "
                    "browsers here), or set HEDIT_SKIP_BROWSER=1 to skip these tests deliberately.",
                    pytrace=False)
    return path


def _wait_for_port(port: int, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"daphne exited with {proc.returncode} before listening:\n{log.read_text()[-4000:]}",
                        pytrace=False)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)  # polling a child's start-up, not synchronising a test
    pytest.fail(f"daphne did not listen on {port} within {SERVER_START_TIMEOUT}s:\n{log.read_text()[-4000:]}",
                pytrace=False)


def _server_env(database_url: str, media: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("HEDIT_LLM_") and k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env.update({
        "DJANGO_SETTINGS_MODULE": "tests.settings",  # the test users' password hasher too
        "DATABASE_URL": database_url,  # the test database, not the development one
        "HEDIT_MEDIA_ROOT": str(media),
        "HEDIT_TASK_BACKEND": "thread",  # embedded mode: runs inside the web process, as in production
        "HEDIT_TEST_STEP_DELAY": STEP_DELAY,
        "HEDIT_LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    })
    return env


@pytest.fixture(scope="session")
def live_server_url(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[str]:
    """daphne in a child process on the test database; checked to really share it."""
    chromium_path()  # fail (or skip) before paying for a server
    from django.db import connections

    from annotations.models import AnnotationSession

    db_name = connections["default"].settings_dict["NAME"]
    workdir = tmp_path_factory.mktemp("daphne")
    log = workdir / "daphne.log"
    # A run cut off while its cancel was asked is ended "cancelled" by the server as it starts (at once,
    # nothing runs) -- but only if the server opens this very database file.
    with django_db_blocker.unblock():
        sentinel = AnnotationSession.objects.create(description="sentinel", schema_version="8.4.0",
                                                    status="running", cancel_requested=True)
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(port)], cwd=ROOT,
                                env=_server_env(shared_database_url(), workdir / "media"), stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        _wait_for_port(port, proc, log)
        with django_db_blocker.unblock():
            sentinel.refresh_from_db()
            shared = sentinel.status == "cancelled"
            sentinel.delete()
        if not shared:
            pytest.fail(f"the live server does not use the test database {db_name}:\n{log.read_text()[-4000:]}",
                        pytrace=False)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


@pytest.fixture
def live_url(live_server_url: str, transactional_db: None) -> str:
    return live_server_url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    # Module scope: the sync Playwright loop must be gone before other modules' asyncio tests run.
    executable = chromium_path()
    from playwright.sync_api import sync_playwright

    # While Playwright's sync API lives it keeps an event loop in this thread, which Django's
    # async-safety check mistakes for async code; the ORM calls of these tests (and the database
    # flush after each) are ordinary blocking calls.  Allowed for exactly the browser's lifetime.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def login(live_url: str) -> Callable[..., None]:
    """``login(page, username, password)``: log in through the login form and land on the annotate page."""
    from playwright.sync_api import expect

    def do_login(page, username: str, password: str) -> None:
        page.goto(f"{live_url}/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("#login-submit")
        expect(page.locator("#logout-button")).to_be_attached()

    return do_login
