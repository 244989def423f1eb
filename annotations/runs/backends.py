"""An in-process django-tasks backend for the embedded mode (no separate worker)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor, wait
from inspect import iscoroutinefunction
from typing import Any, ClassVar

from django.db import close_old_connections
from django_tasks.backends.base import BaseTaskBackend
from django_tasks.base import Task, TaskResult, TaskResultStatus
from django_tasks.utils import get_random_id

from annotations.runs.runtime import server_loop

logger = logging.getLogger(__name__)


class _SharedPool:
    """One process's pool for one backend alias and size: its threads, the futures still pending, and the turns
    runs take on the server loop."""

    def __init__(self, max_workers: int) -> None:
        self.max_workers = max_workers
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="hedit-run")
        # Runs on the server loop take turns too (one semaphore per loop, made on it at first use): a burst of
        # runs must queue rather than all share the process at once and starve the pages and sockets.
        self._turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = \
            weakref.WeakKeyDictionary()
        self.pending: set[Future] = set()
        self.lock = threading.Lock()

    def turns(self) -> asyncio.Semaphore:
        """The running loop's semaphore (call on that loop)."""
        loop = asyncio.get_running_loop()
        with self.lock:
            found = self._turns.get(loop)
            if found is None:
                found = self._turns[loop] = asyncio.Semaphore(self.max_workers)
            return found

    def track(self, future: Future) -> None:
        with self.lock:
            self.pending.add(future)
        future.add_done_callback(self._forget)

    def _forget(self, future: Future) -> None:
        with self.lock:
            self.pending.discard(future)

    def snapshot(self) -> list[Future]:
        with self.lock:
            return list(self.pending)


class ThreadPoolBackend(BaseTaskBackend):
    """Runs tasks inside the web process.

    Coroutine tasks go onto the ASGI server's own event loop when one is
    running (so websocket broadcasts reach consumers at once); otherwise, and
    for plain functions, onto a small thread pool.

    Django keeps a backend instance per context, so a task enqueued from inside a running task (an evaluation's
    next run) gets an instance of its own: the pool, its turns and what is pending belong to the process (one per
    alias and size), or each such instance would bring a pool of its own and the bound would not hold.
    """

    supports_async_task = True
    _pools: ClassVar[dict[tuple[str, int], _SharedPool]] = {}
    _pools_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, alias: str, params: dict[str, Any]) -> None:
        super().__init__(alias, params)
        self._max_workers = int(self.options.get("MAX_WORKERS", 2))
        with ThreadPoolBackend._pools_lock:
            self._shared = ThreadPoolBackend._pools.setdefault((alias, self._max_workers),
                                                               _SharedPool(self._max_workers))

    async def _take_turn(self, coroutine: Any) -> Any:
        async with self._shared.turns():
            return await coroutine

    def enqueue(self, task: Task, args: Any, kwargs: Any) -> TaskResult:  # type: ignore[override]
        self.validate_task(task)
        result = TaskResult(task=task, id=get_random_id(), status=TaskResultStatus.READY, enqueued_at=None,
                            started_at=None, last_attempted_at=None, finished_at=None, args=args,
                            kwargs=kwargs, backend=self.alias, errors=[], worker_ids=[])
        loop = server_loop()
        if loop is not None and iscoroutinefunction(task.func):
            # Start the run in an empty context: the caller's (a request's) carries asgiref's
            # per-request executors, which die with the request and would break the run's DB calls.
            future = contextvars.Context().run(asyncio.run_coroutine_threadsafe,
                                               self._take_turn(task.func(*args, **kwargs)), loop)
        else:
            future = self._shared.executor.submit(self._run_in_thread, task, args, kwargs)
        future.add_done_callback(self._log_failure)
        self._shared.track(future)
        return result

    def settle(self, timeout: float) -> bool:
        """Wait (at most *timeout* seconds) for the work this backend's pool started; whether all of it ended."""
        _, running = wait(self._shared.snapshot(), timeout=timeout)
        return not running

    @classmethod
    def settle_all(cls, timeout: float) -> bool:
        """Wait for the work of every pool of this process (a stopping server, a test ending its database)."""
        with cls._pools_lock:
            pools = list(cls._pools.values())
        _, running = wait([f for pool in pools for f in pool.snapshot()], timeout=timeout)
        return not running

    @staticmethod
    def _run_in_thread(task: Task, args: Any, kwargs: Any) -> Any:
        close_old_connections()
        try:
            if iscoroutinefunction(task.func):
                return asyncio.run(task.func(*args, **kwargs))
            return task.func(*args, **kwargs)
        finally:
            close_old_connections()

    @staticmethod
    def _log_failure(future: Future) -> None:
        exc = future.exception()
        if exc is not None:
            logger.error("background task failed", exc_info=exc)
