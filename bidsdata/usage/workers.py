"""The search processes: a bounded set per server, each keeping the assembled HED of the revisions it owns.

A search is cheap once hedtools has assembled a task's events (:mod:`.search`), and assembling costs as
much as hedtools' whole loop; the assembled objects cannot travel between processes (pickling them costs
more than assembling them again), so a revision's searches must go to the process that holds it. There are
:func:`search_processes` processes (``HEDIT_SEARCH_PROCESSES``; by default as many as the validation pool of
:mod:`bidsdata.pool` has), each a single-process pool started as that pool's workers are
(:func:`bidsdata.pool.start_worker`: niced, ending with their owner), and :func:`call` sends the work on a
key (a task's revision) always to the same one, so the second query of a revision finds it assembled.

Sources travel without their text first (:func:`ask`): a process that lacks an assembly answers
:class:`~.sources.NeedTexts`, and the caller sends those texts only. A process killed meanwhile is replaced
and the work asked of the new one once; if that fails too it is done in the caller's process. Inside a
worker of a pool (and with ``HEDIT_SEARCH_PROCESSES`` below 0) the work is done where it is asked.

Pure: no Django.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import hashlib
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import Any, TypeVar

from bidsdata import pool
from bidsdata.usage.search import store
from bidsdata.usage.sources import EventsSource, NeedTexts

logger = logging.getLogger(__name__)
T = TypeVar("T")

_lock = threading.Lock()
_executors: dict[int, concurrent.futures.ProcessPoolExecutor] = {}
_owner_pid = 0
_configured: int | None = None
_store_events: int | None = None


def configure_search(processes: int | None, store_events: int | None = None) -> None:
    """How many search processes this server runs: None or 0, as many as the validation pool; below 0, none
    (every search in the asking process, as the command line does). *store_events* bounds what each keeps."""
    global _configured, _store_events
    size = int(processes) if processes else None
    with _lock:
        if store_events and store_events != _store_events:
            _store_events = int(store_events)
            store().max_events = _store_events
            _drop_all_locked()
        if size != _configured:
            _configured = size
            _drop_all_locked()


def _start_search_process(store_events: int | None, owner: int) -> None:
    pool.start_worker(owner)
    if store_events:
        store().max_events = store_events


def search_processes() -> int:
    """The number of search processes (0: the work is done in the asking process)."""
    if _configured is not None and _configured < 0:
        return 0
    return _configured or pool.pool_size()


def owner(key: str) -> int:
    """Which search process owns *key* (the same for every asker of every server process)."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:12], 16) % max(1, search_processes())


def _executor(index: int) -> concurrent.futures.ProcessPoolExecutor:
    global _owner_pid
    with _lock:
        if _owner_pid != os.getpid():  # a forked child never shares its parent's processes
            _executors.clear()
            _owner_pid = os.getpid()
        found = _executors.get(index)
        if found is None:
            method = pool.start_method()
            context = multiprocessing.get_context(method)
            if method == "forkserver":
                context.set_forkserver_preload(pool.FORKSERVER_PRELOAD)
            found = _executors[index] = concurrent.futures.ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=_start_search_process,
                initargs=(_store_events, os.getpid()))
            logger.info("search process %d of %d started (%s)", index + 1, search_processes(), method)
        return found


def _drop(index: int, broken: concurrent.futures.ProcessPoolExecutor) -> None:
    with _lock:
        if _executors.get(index) is broken:
            _executors.pop(index, None)
            broken.shutdown(wait=False, cancel_futures=True)


def _drop_all_locked() -> None:
    if _owner_pid == os.getpid():
        for executor in _executors.values():
            executor.shutdown(wait=False, cancel_futures=True)
    _executors.clear()


def drop_search_processes() -> None:
    """Stop every search process (at exit; a test that wants fresh ones)."""
    with _lock:
        _drop_all_locked()


atexit.register(drop_search_processes)


def call(key: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """*fn(*args, **kwargs)* in the search process that owns *key*: one replaced and asked again if it died,
    and the caller's process as the last resort."""
    if search_processes() == 0 or pool.in_pool_worker():
        return fn(*args, **kwargs)
    index = owner(key)
    for _attempt in range(2):
        executor = _executor(index)
        try:
            future = executor.submit(fn, *args, **kwargs)
        except RuntimeError as exc:  # broken (BrokenProcessPool is one), or shut down meanwhile
            logger.warning("search process %d cannot take work (%r); starting another", index + 1, exc)
            _drop(index, executor)
            continue
        try:
            return future.result()
        except (BrokenProcessPool, concurrent.futures.CancelledError) as exc:  # killed, or replaced meanwhile
            logger.warning("search process %d stopped (%r); starting another", index + 1, exc)
            _drop(index, executor)
    logger.warning("no search process could do it; doing it here")
    return fn(*args, **kwargs)


def ask(key: str, fn: Callable[..., T], sources: Sequence[EventsSource],
        complete: Callable[[Iterable[str]], Mapping[str, EventsSource]], *args: Any, **kwargs: Any) -> T:
    """*fn(sources, *args, **kwargs)* in *key*'s search process, the sources sent without their texts first;
    the texts the process asks for (:class:`NeedTexts`) are read with *complete* (keys -> complete sources)
    and sent. A store that forgot files while it answered (a task larger than it) is sent every text."""
    refs = [s.ref() for s in sources]
    try:
        return call(key, fn, refs, *args, **kwargs)
    except NeedTexts as need:
        sent = _completed(refs, complete(need.keys))
    try:
        return call(key, fn, sent, *args, **kwargs)
    except NeedTexts:
        return call(key, fn, _completed(refs, complete([r.key for r in refs])), *args, **kwargs)


def _completed(refs: Sequence[EventsSource], found: Mapping[str, EventsSource]) -> list[EventsSource]:
    """*refs* with the texts *found* (by key; files of one text and sidecar share a key, each keeps its path)."""
    return [replace(found[r.key], path=r.path) if r.key in found else r for r in refs]


def store_stats() -> dict[str, int]:
    """This process's store figures (called in a search process, it tells what that process holds)."""
    held = store()
    return {"assembled": held.assembled, "pid": os.getpid()}


__all__ = ["ask", "call", "configure_search", "drop_search_processes", "owner", "search_processes", "store_stats"]
