"""One computation per key at a time: concurrent askers of the same result wait for it and share it.

A task's sidecar for one digest (:mod:`.results`) costs seconds to minutes of hedtools; sixteen downloads
after an edit used to compute it sixteen times at once (24 processes, 3 GB). :func:`once` makes them share
one computation:

- in this process, the first asker of a key computes it and the others wait on its flight and get its
  value (or its error);
- across processes (a web server and ``hedit_worker``), the computing process holds a claim on the key
  (a PostgreSQL advisory lock, released by the database if the process dies; elsewhere a cache entry that
  the owner renews while it computes and that lapses if it dies), and another process asks *stored* (the
  stored result) in a bounded loop until the result is there or the claim is gone, then takes over.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.core.cache import cache
from django.db import connection

logger = logging.getLogger(__name__)

T = TypeVar("T")

CLAIM_SECONDS = 30
"""A cache claim's lifetime: its owner renews it every third of this, so a dead owner's lapses this soon."""
WAIT_SECONDS = 3600.0
"""The longest another process's computation is waited for before this one computes the result itself."""
POLL_FIRST, POLL_MAX = 0.05, 1.0
"""How often a waiting process asks whether the result is stored: soon at first, then every second."""


@dataclass
class _Flight:
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: BaseException | None = None


_flights: dict[str, _Flight] = {}
_flights_lock = threading.Lock()


def once(key: str, compute: Callable[[], T], *, stored: Callable[[], T | None]) -> T:
    """*compute*'s value for *key*, computed once however many threads and processes ask at the same time.

    *stored* answers the value another process stored for *key* (None until then); it is asked before
    computing, so a result stored while this asker waited is never computed again.
    """
    with _flights_lock:
        flight = _flights.get(key)
        owner = flight is None
        if flight is None:
            flight = _flights[key] = _Flight()
    if not owner:
        flight.done.wait()  # the owner sets it in its finally, whatever happens to its computation
        if flight.error is not None:
            raise flight.error
        return flight.value
    try:
        flight.value = _across_processes(key, compute, stored)
    except BaseException as exc:
        flight.error = exc
        raise
    finally:
        with _flights_lock:
            _flights.pop(key, None)
        flight.done.set()
    return flight.value


def computing(key: str) -> bool:
    """Whether this process is computing *key* now (for tests and logs)."""
    with _flights_lock:
        return key in _flights


def _across_processes(key: str, compute: Callable[[], T], stored: Callable[[], T | None]) -> T:
    deadline = time.monotonic() + WAIT_SECONDS
    pause = POLL_FIRST
    waited = threading.Event()  # never set: its bounded wait is the pause between two looks at the store
    while True:
        found = stored()
        if found is not None:
            return found
        with claim(key) as mine:
            if mine:
                found = stored()  # stored by the previous owner between our look and our claim
                return found if found is not None else compute()
        if time.monotonic() > deadline:
            logger.warning("waited %.0f s for another process to compute %s; computing it here", WAIT_SECONDS, key)
            return compute()
        waited.wait(pause)
        pause = min(POLL_MAX, pause * 2)


@contextlib.contextmanager
def claim(key: str) -> Iterator[bool]:
    """Hold the cross-process claim on *key* for the block, if no other process holds it (yields whether).

    :func:`once` takes it around a computation; holding it elsewhere is what another process computing *key*
    looks like to this one (its askers then wait for the stored result)."""
    if connection.vendor == "postgresql":
        with _advisory_lock(key) as mine:
            yield mine
        return
    with _cache_claim(key) as mine:
        yield mine


@contextlib.contextmanager
def _advisory_lock(key: str) -> Iterator[bool]:
    number = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [number])
        mine = bool(cursor.fetchone()[0])
    try:
        yield mine
    finally:
        if mine:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [number])


@contextlib.contextmanager
def _cache_claim(key: str) -> Iterator[bool]:
    name, token = f"hedit:computing:{hashlib.sha256(key.encode('utf-8')).hexdigest()}", uuid.uuid4().hex
    if not cache.add(name, token, timeout=CLAIM_SECONDS):
        yield False
        return
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(CLAIM_SECONDS / 3):
            cache.touch(name, CLAIM_SECONDS)

    renewer = threading.Thread(target=renew, name="hedit-claim", daemon=True)
    renewer.start()
    try:
        yield True
    finally:
        stop.set()
        renewer.join()
        if cache.get(name) == token:
            cache.delete(name)


__all__ = ["claim", "computing", "once"]
