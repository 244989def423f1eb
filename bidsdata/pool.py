"""This process's one pool of validation processes: its size, how its processes start, what each runs first.

hedtools validates in pure Python, so the work that costs (a task's events files, :mod:`bidsdata.validation`;
a task's whole pipeline, which the web app runs off its own GIL) goes to worker processes. Every caller
shares one pool per process (:func:`shared_pool`: created at first use, :func:`configure_pool` workers or
one per available core, reused by every call, shut down at exit), so any number of concurrent validations
never run more than that many processes. Each worker runs at a lower priority, installs the fast Delay
split (:mod:`bidsdata.delays`), ends with the process that owns the pool (:func:`start_worker`), and knows it
is a worker (:func:`in_pool_worker`: the work it is given runs there, never in a pool of its own).
"""

from __future__ import annotations

import agents  # noqa: F401 - first: hedtools imported without typeguard's 2 s (agents.quickstart), in workers too

# isort: split
import atexit
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import select
import threading
from pathlib import Path

from bidsdata import delays

logger = logging.getLogger(__name__)

FORKSERVER_PRELOAD = ["bidsdata.validation"]
"""What a ``forkserver`` imports once (hedtools, the schema loader), so each worker it forks starts with them."""
WORKER_NICENESS = 5
"""Validation is background work: its processes yield the cores to the server's pages and runs."""

_pool: concurrent.futures.ProcessPoolExecutor | None = None
_pool_pid = 0
_pool_lock = threading.Lock()
_pool_workers: int | None = None
_in_worker = False
"""Set in each shared-pool worker by its initializer (:func:`in_pool_worker`)."""


def available_cores() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def start_method() -> str:
    """``fork`` (nothing to import or load again) when this process runs one thread; else fresh processes.

    Forking a process whose other threads may hold a lock (a web server's) can leave a child waiting on it
    for ever; a ``forkserver`` child starts from a clean process that has imported :data:`FORKSERVER_PRELOAD`
    once. Like any ``forkserver`` or ``spawn`` child, it imports the program's main module: a script that
    validates must keep its work under ``if __name__ == "__main__":`` (``manage.py``, daphne and pytest do),
    or each child runs the script's top-level code again before failing (the files are then validated here).
    """
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    logger.debug("threads %s: no fork", [t.name for t in threading.enumerate()])
    return "forkserver" if "forkserver" in methods else "spawn"


def configure_pool(workers: int | None) -> None:
    """The shared pool's size (None or 0: :func:`available_cores`); a running pool of another size is replaced.

    Set once at start-up by the embedding program (Django's ``HEDIT_VALIDATION_WORKERS``).
    """
    global _pool_workers
    size = int(workers) if workers else None
    if size is not None and size < 1:
        raise ValueError(f"the validation pool needs at least one worker, not {workers!r}")
    with _pool_lock:
        if size != _pool_workers:
            _pool_workers = size
            _drop_pool_locked()


def pool_size() -> int:
    """How many processes the shared pool runs at most: the configured number, else the cores."""
    return _pool_workers or available_cores()


def in_pool_worker() -> bool:
    """Whether this process is a worker of a shared pool: a whole pipeline may run there, and it validates its
    files itself (a pool of its own would multiply the processes the pool's size bounds)."""
    return _in_worker


def _die_with(owner: int) -> None:
    """End this worker as soon as *owner*, the process whose pool it serves, ends, however it ends (kill -9 too).

    Watching the direct parent is not enough: a ``forkserver``'s workers are the fork server's children, and each
    holds the fork server's keep-alive pipe and the resource tracker's, so after a kill -9 of the owner the
    server, the tracker and the workers kept one another alive under PID 1. A pidfd of the owner turns readable
    when the owner exits (Linux 5.3+); a thread waits on it and ends this worker, which closes the fork server's
    and the tracker's last pipes, and they exit in turn. Without pidfds (another system) the parent-death signal
    is what is left: it covers a worker forked by the owner itself.
    """
    try:
        watched = os.pidfd_open(owner)
    except ProcessLookupError:  # the owner ended before this worker started
        os._exit(1)
    except (AttributeError, OSError):
        _parent_death_signal()
        return
    if owner not in _ancestors():  # that pid is another process's already: the owner ended, its pid was reused
        os._exit(1)
    threading.Thread(target=_exit_when_readable, args=(watched,), name="owner-watch", daemon=True).start()


def _exit_when_readable(fd: int) -> None:
    select.select([fd], [], [])
    os._exit(1)  # no clean-up: the owner that would take the results is gone


def _ancestors() -> set[int]:
    """This process's parent and grandparent (a forkserver worker's owner is its grandparent)."""
    parent = os.getppid()
    try:
        stat = Path(f"/proc/{parent}/stat").read_text()
        return {parent, int(stat.rsplit(")", 1)[1].split()[1])}
    except (OSError, ValueError, IndexError):
        return {parent}


def _parent_death_signal() -> None:
    """Ask Linux to kill this worker when its parent dies (a no-op elsewhere)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _start_worker(owner: int | None = None) -> None:
    global _in_worker
    _in_worker = True
    _die_with(owner or os.getppid())
    with contextlib.suppress(OSError):  # not permitted here: run at the parent's priority
        os.nice(WORKER_NICENESS)
    delays.install()  # forked children inherit it; fresh ones install it here


start_worker = _start_worker
"""What each worker process runs first, given its owner's pid (this pool's, and any other bounded pool of worker
processes such as the search processes of :mod:`bidsdata.usage.workers`): niced, ending with its owner, the Delay
split installed."""


def shared_pool() -> tuple[concurrent.futures.ProcessPoolExecutor, int]:
    """This process's one validation pool (created at first use, reused by every call, shut down at exit)."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid():  # a forked child never shares its parent's pool
            method = start_method()
            context = multiprocessing.get_context(method)
            if method == "forkserver":
                context.set_forkserver_preload(FORKSERVER_PRELOAD)  # imported once by the server; children fork
            _pool = concurrent.futures.ProcessPoolExecutor(max_workers=pool_size(), mp_context=context,
                                                           initializer=_start_worker, initargs=(os.getpid(),))
            _pool_pid = os.getpid()
            logger.info("validation pool of %d process(es) started (%s)", pool_size(), method)
        return _pool, pool_size()


def _drop_pool_locked() -> None:
    global _pool
    if _pool is not None and _pool_pid == os.getpid():
        _pool.shutdown(wait=False, cancel_futures=True)
    _pool = None


def drop_pool(broken: concurrent.futures.ProcessPoolExecutor | None = None) -> None:
    """Shut the shared pool down (at exit; or *broken*, a pool a killed worker broke: the next call starts anew)."""
    with _pool_lock:
        if broken is None or broken is _pool:
            _drop_pool_locked()


atexit.register(drop_pool)

__all__ = ["FORKSERVER_PRELOAD", "WORKER_NICENESS", "available_cores", "configure_pool", "drop_pool",
           "in_pool_worker", "pool_size", "shared_pool", "start_method", "start_worker"]
