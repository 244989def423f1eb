"""A process that owns a started validation pool and waits: the orphan test kills it (``python -m``).

``python -m tests.support.pool_owner fork|forkserver``: with ``forkserver`` a second thread runs first, so the
pool starts its processes as a threaded server does (a fork server, a resource tracker, workers). Prints
``ready`` once every worker has run a task, then waits on stdin.
"""

from __future__ import annotations

import os
import sys
import threading

from bidsdata import pool

WORKERS = 2

if __name__ == "__main__":
    stop = threading.Event()
    if sys.argv[1] == "forkserver":
        threading.Thread(target=stop.wait, daemon=True).start()
    pool.configure_pool(WORKERS)
    executor, _ = pool.shared_pool()
    assert pool.start_method() == sys.argv[1]
    # Tasks until every worker has answered: each worker's pid is one the test must see end.
    seen: set[int] = set()
    while len(seen) < WORKERS:
        seen.update(f.result() for f in [executor.submit(os.getpid) for _ in range(WORKERS * 4)])
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.read()
