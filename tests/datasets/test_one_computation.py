"""One computation per task digest, one bounded validation pool per process (issue 25: sixteen downloads after
an edit computed the same sidecar sixteen times, in 24 processes and 3 GB)."""

from __future__ import annotations

import concurrent.futures
import threading
from typing import Any

import pytest
from django.db import connection

from annotations.datasets import computations, results, services
from annotations.models import AnnotationSession, DatasetLevel, SessionStatus, SidecarResult
from bidsdata import pool as validation_pool
from bidsdata.sidecar import validate_sidecar
from tests.datasets.test_parallel_validation import NAME, SIDECAR_HED, VERSION, _events

ASKERS = 8
WAIT = 60.0
HED = "Sensory-event, Experimental-stimulus, Visual-presentation"


@pytest.mark.django_db(transaction=True)
def test_concurrent_askers_of_one_digest_share_one_computation(user, small_files, monkeypatch, settings, fresh_pool):
    settings.HEDIT_VALIDATION_WORKERS = 3
    project = services.import_dataset(user=user, files=small_files, name="tiny")
    for session in services.create_level_sessions(project, list(DatasetLevel.objects.all()), user=user):
        AnnotationSession.objects.filter(pk=session.pk).update(
            status=SessionStatus.SUCCEEDED, is_valid=True, final_annotation=HED, machine_annotation=HED)
    [task] = project.tasks.all()
    arrived, everyone = [0], threading.Event()
    lock, computed = threading.Lock(), []
    real = results.task_sidecar

    def task_sidecar(*args: Any, **kwargs: Any) -> Any:
        computed.append(threading.current_thread().name)
        assert everyone.wait(WAIT), "every asker asked while the first computed"
        return real(*args, **kwargs)

    monkeypatch.setattr(results, "task_sidecar", task_sidecar)

    def ask(_: int) -> dict:
        with lock:
            arrived[0] += 1
            if arrived[0] == ASKERS:
                everyone.set()
        try:
            return results.refresh_sidecar(project, task).sidecar
        finally:
            connection.close()

    with concurrent.futures.ThreadPoolExecutor(ASKERS) as pool:
        sidecars = list(pool.map(ask, range(ASKERS)))
    assert len(computed) == 1, f"{len(computed)} computations for one digest"
    assert all(s == sidecars[0] for s in sidecars) and sidecars[0]
    assert SidecarResult.objects.filter(task=task).count() == 1
    assert validation_pool.pool_size() == 3, "the pool's size is the HEDIT_VALIDATION_WORKERS setting"


@pytest.mark.django_db(transaction=True)  # on PostgreSQL the claim is an advisory lock of this thread's connection
def test_another_process_s_computation_is_waited_for_not_repeated():
    key = "test:another-process"
    box: dict[str, str] = {}
    computed: list[str] = []
    answer: list[str] = []
    with computations.claim(key) as mine:  # as another process would hold it while computing
        assert mine
        def wait() -> None:
            try:
                answer.append(computations.once(key, lambda: computed.append("here") or "here",
                                                stored=lambda: box.get("value")))
            finally:
                connection.close()

        waiter = threading.Thread(target=wait)
        waiter.start()
        box["value"] = "theirs"  # the other process stores its result
        waiter.join(WAIT)
    assert not waiter.is_alive() and answer == ["theirs"] and computed == []
    # With nobody computing it, the first asker computes it.
    assert computations.once("test:nobody", lambda: "mine", stored=lambda: None) == "mine"


@pytest.mark.django_db(transaction=True)
def test_an_error_reaches_every_asker_and_the_next_ask_computes_again():
    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def failing() -> str:
        calls.append(1)
        started.set()
        release.wait(WAIT)
        raise ValueError("broken sidecar")

    errors: list[BaseException] = []

    def ask() -> None:
        try:
            computations.once("test:error", failing, stored=lambda: None)
        except ValueError as exc:
            errors.append(exc)
        finally:
            connection.close()

    first = threading.Thread(target=ask)
    first.start()
    assert started.wait(WAIT)
    second = threading.Thread(target=ask)
    second.start()  # it waits for the first's flight, or (if later) computes and fails alone
    release.set()
    first.join(WAIT)
    second.join(WAIT)
    assert len(errors) == 2 and len(calls) in (1, 2)
    assert computations.once("test:error", lambda: "fixed", stored=lambda: None) == "fixed"


def test_concurrent_validations_share_one_pool_bounded_by_its_size(monkeypatch, fresh_pool):
    created: list[concurrent.futures.ProcessPoolExecutor] = []
    real = concurrent.futures.ProcessPoolExecutor

    class Counted(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            created.append(self)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counted)
    validation_pool.configure_pool(2)
    events = _events()
    alone = validate_sidecar(SIDECAR_HED, events, VERSION, name=NAME, workers=1)
    with concurrent.futures.ThreadPoolExecutor(4) as callers:
        found = list(callers.map(lambda _: validate_sidecar(SIDECAR_HED, events, VERSION, name=NAME, workers=2),
                                 range(4)))
    assert all(f == alone for f in found)
    assert len(created) == 1, f"{len(created)} pools for four concurrent validations"
    pool, size = validation_pool.shared_pool()
    assert pool is created[0] and size == 2 and pool._max_workers == 2
    assert len(pool._processes) <= 2, "never more processes than the setting"
    validation_pool.configure_pool(3)  # another size: the running pool is replaced, never grown beside
    assert validation_pool.shared_pool()[0] is not pool and pool._shutdown_thread
