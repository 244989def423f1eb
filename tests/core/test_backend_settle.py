"""The runs' thread pool says when the work it started has ended (what a test waits for before emptying its
database, and a stopping server before it exits)."""

from __future__ import annotations

import threading

from django_tasks import task

from annotations.runs.backends import ThreadPoolBackend

released = threading.Event()


@task()
def waits_for_release() -> str:
    released.wait(30)
    return "released"


def test_settle_waits_for_the_work_it_started_and_no_more():
    backend = ThreadPoolBackend("settle-test", {"OPTIONS": {"MAX_WORKERS": 1}})
    released.clear()
    try:
        backend.enqueue(waits_for_release, (), {})
        assert backend.settle(timeout=0.2) is False, "the task is still running"
    finally:
        released.set()
    assert backend.settle(timeout=10) is True
    assert ThreadPoolBackend.settle_all(timeout=10) is True
