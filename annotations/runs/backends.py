"""An in-process django-tasks backend for the embedded mode (no separate worker)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
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


class ThreadPoolBackend(BaseTaskBackend):
    """Runs tasks inside the web process.

    Coroutine tasks go onto the ASGI server's own event loop when one is
    running (so websocket broadcasts reach consumers at once); otherwise, and
    for plain functions, onto a small thread pool.
    """

    supports_async_task = True
    _instances: ClassVar[weakref.WeakSet[ThreadPoolBackend]] = weakref.WeakSet()

    def __init__(self, alias: str, params: dict[str, Any]) -> None:
        super().__init__(alias, params)
        self._max_workers = int(self.options.get("MAX_WORKERS", 2))
        self._pool = ThreadPoolExecutor(max_workers=self._max_workers, thread_name_prefix="hedit-run")
        # Runs on the server loop take turns too (created on that loop at first use): a burst of runs
        # must queue rather than all share the process at once and starve the pages and sockets.
        self._turns: asyncio.Semaphore | None = None
        self._pending: set[Future] = set()
        ThreadPoolBackend._instances.add(self)

    async def _take_turn(self, coroutine: Any) -> Any:
        if self._turns is None:
            self._turns = asyncio.Semaphore(self._max_workers)
        async with self._turns:
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
            future = self._pool.submit(self._run_in_thread, task, args, kwargs)
        future.add_done_callback(self._log_failure)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        return result

    def settle(self, timeout: float) -> bool:
        """Wait (at most *timeout* seconds) for the work this backend started; whether all of it ended."""
        _, running = wait(list(self._pending), timeout=timeout)
        return not running

    @classmethod
    def settle_all(cls, timeout: float) -> bool:
        """:meth:`settle` every backend of this process (a stopping server, a test ending its database)."""
        return all([backend.settle(timeout) for backend in list(cls._instances)])

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
